"""
The model zoo (`tests/zoo/`, made by `scripts/gen_zoo.py`) end to end, with torch absent.

For every model and both IRs (training and core ATen):

- `exir-run <m>.<ir>.pt2 --inputs <set> -o out.npz` matches torch eager's outputs
  (same keys, shapes and dtypes; values within the model's tolerance);
- `exir-opt <m>.<ir>.pt2 -o m.mlir` then `exir-run m.mlir` gives bitwise the same;
- dynamic models accept a second batch size and refuse one outside the range with
  exit code 1 and a one-paragraph `exir-run: error:` naming the bound;
- none of it imports torch: the tools run in subprocesses whose `sitecustomize`
  makes every `import torch` fail and records the attempt.

To stay fast the tool invocations are batched: two subprocesses (one per IR, run in
parallel) call `exir_run.run(argv)` and `exir_opt.run(argv)` in-process, capturing
exit code, stdout and stderr of each; the tests then judge the recorded results. A
few invocations also go through `main()` in their own process, to check the real exit
status. The buffer-mutation model is also run twice in-process to check the state.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
ZOO = ROOT / "tests" / "zoo"
MANIFEST: dict[str, Any] = json.loads((ZOO / "manifest.json").read_text())
MODELS: list[dict[str, Any]] = MANIFEST["models"]
BY_NAME: dict[str, dict[str, Any]] = {m["name"]: m for m in MODELS}
IRS = ("train", "core")
DEFAULT_TOL: dict[str, float] = MANIFEST["default_tolerance"]

DRIVER_TIMEOUT = 600.0


def _tools_missing() -> str | None:
    """Why the end-to-end tests cannot run yet, or None."""
    for module in ("xdsl_exir.tools.exir_run", "xdsl_exir.frontends.pt2"):
        if importlib.util.find_spec(module) is None:
            return f"{module} does not exist yet"
    return None


needs_tools = pytest.mark.skipif(_tools_missing() is not None, reason=str(_tools_missing()))

# ---------------------------------------------------------------------------
# Running the tools without torch
# ---------------------------------------------------------------------------

SITECUSTOMIZE = '''
"""Installed by tests/test_zoo.py: every import of torch fails and is recorded."""
import importlib.abc
import sys
import traceback

ATTEMPTS = []


class _NoTorch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            ATTEMPTS.append((name, "".join(traceback.format_stack(limit=12)[:-1])))
            raise ImportError(f"import of {name!r} blocked: the tools must run without torch")
        return None


for _name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
    del sys.modules[_name]
sys.meta_path.insert(0, _NoTorch())
'''

DRIVER = '''
"""Run a batch of exir-run / exir-opt invocations in-process and record each result."""
import contextlib
import io
import json
import sys
import traceback

import sitecustomize

assert any(type(f).__name__ == "_NoTorch" for f in sys.meta_path), "torch blocker missing"
jobs = json.load(open(sys.argv[1]))
results = {}
try:
    from xdsl_exir.tools import exir_opt, exir_run
except BaseException:
    tb = traceback.format_exc()
    results = {j["id"]: {"code": None, "stdout": "", "stderr": tb, "crash": True}
               for j in jobs}
else:
    tools = {"run": exir_run.run, "opt": exir_opt.run}
    for job in jobs:
        out, err = io.StringIO(), io.StringIO()
        crash = False
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = tools[job["tool"]](job["argv"])
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except BaseException:
                code, crash = None, True
                err.write(traceback.format_exc())
        results[job["id"]] = {
            "code": code, "stdout": out.getvalue()[-4000:], "stderr": err.getvalue()[-8000:],
            "crash": crash,
        }
json.dump({"results": results, "torch_attempts": sitecustomize.ATTEMPTS}, open(sys.argv[2], "w"))
'''


def no_torch_env(site_dir: pathlib.Path) -> dict[str, str]:
    """The environment of a subprocess whose `import torch` fails."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(site_dir), str(ROOT), *filter(None, [env.get("PYTHONPATH")])]
    )
    env.pop("EXIR_DEBUG", None)
    return env


@dataclass
class Result:
    """What one tool invocation did."""

    code: int | None
    stdout: str
    stderr: str
    crash: bool

    def describe(self) -> str:
        text = (self.stderr or self.stdout).strip()
        return f"exit {self.code}{' (crashed)' if self.crash else ''}: {text[-3000:]}"


@dataclass
class ZooRun:
    """All recorded invocations, with where their outputs went."""

    results: dict[str, Result]
    torch_attempts: list[tuple[str, str]]
    work: pathlib.Path

    def out(self, job_id: str) -> pathlib.Path:
        return self.work / f"{job_id}.npz"


def _jobs_for(ir: str, work: pathlib.Path) -> list[dict[str, Any]]:
    """Every invocation of the zoo for one IR."""
    jobs: list[dict[str, Any]] = []
    for m in MODELS:
        name = m["name"]
        pt2 = str(ZOO / m["programs"][ir])
        mlir = str(work / f"{name}.{ir}.mlir")
        jobs.append({"id": f"{name}.{ir}.opt", "tool": "opt", "argv": [pt2, "-o", mlir]})
        for src, path in (("pt2", pt2), ("mlir", mlir)):
            for i, s in enumerate(m["input_sets"]):
                job_id = f"{name}.{ir}.{src}.set{i}"
                argv = [path, "--inputs", str(ZOO / s["inputs"]), "-o", str(work / f"{job_id}.npz")]
                jobs.append({"id": job_id, "tool": "run", "argv": argv})
            for i, s in enumerate(m.get("invalid_input_sets", [])):
                job_id = f"{name}.{ir}.{src}.bad{i}"
                argv = [path, "--inputs", str(ZOO / s["inputs"]), "-o", str(work / f"{job_id}.npz")]
                jobs.append({"id": job_id, "tool": "run", "argv": argv})
    return jobs


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A directory holding the torch-blocking `sitecustomize.py`."""
    path = tmp_path_factory.mktemp("no_torch_site")
    (path / "sitecustomize.py").write_text(SITECUSTOMIZE)
    # The custom_op model's kernel, installed as a user's package would install it:
    # a module and an `xdsl_exir.kernels` entry point named after its namespace.
    (path / "mylib_kernels.py").write_text((ZOO / "mylib_kernels.py").read_text())
    dist = path / "xdsl_exir_zoo_kernels-0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: xdsl-exir-zoo-kernels\nVersion: 0\n")
    (dist / "entry_points.txt").write_text("[xdsl_exir.kernels]\nmylib = mylib_kernels:register\n")
    return path


@pytest.fixture(scope="session")
def zoo_run(tmp_path_factory: pytest.TempPathFactory, site_dir: pathlib.Path) -> ZooRun:
    """Run every zoo invocation, one torch-less subprocess per IR, both in parallel."""
    reason = _tools_missing()
    if reason is not None:
        pytest.skip(reason)
    work = tmp_path_factory.mktemp("zoo_run")
    (work / "driver.py").write_text(DRIVER)

    def drive(ir: str) -> dict[str, Any]:
        jobs_file, results_file = work / f"jobs.{ir}.json", work / f"results.{ir}.json"
        jobs_file.write_text(json.dumps(_jobs_for(ir, work)))
        proc = subprocess.run(
            [sys.executable, str(work / "driver.py"), str(jobs_file), str(results_file)],
            env=no_torch_env(site_dir),
            capture_output=True,
            text=True,
            timeout=DRIVER_TIMEOUT,
            check=False,
            cwd=work,
        )
        if proc.returncode != 0 or not results_file.exists():
            raise AssertionError(f"zoo driver for {ir} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
        return json.loads(results_file.read_text())

    with ThreadPoolExecutor(max_workers=len(IRS)) as pool:
        batches = list(pool.map(drive, IRS))
    results: dict[str, Result] = {}
    attempts: list[tuple[str, str]] = []
    for batch in batches:
        results.update({k: Result(**v) for k, v in batch["results"].items()})
        attempts.extend((name, stack) for name, stack in batch["torch_attempts"])
    return ZooRun(results, attempts, work)


def test_torch_is_blocked_in_tool_processes(site_dir: pathlib.Path) -> None:
    """The environment the tools run in really makes `import torch` fail."""
    proc = subprocess.run(
        [sys.executable, "-c", "import torch"],
        env=no_torch_env(site_dir),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode != 0
    assert "blocked: the tools must run without torch" in proc.stderr


# ---------------------------------------------------------------------------
# Comparing outputs
# ---------------------------------------------------------------------------


def load_npz(path: pathlib.Path) -> dict[str, np.ndarray]:
    """All arrays of an .npz (never unpickling)."""
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def _order(keys: list[str]) -> list[str]:
    """`out0, out1, .., out10` in numeric order."""
    return sorted(keys, key=lambda k: (k.rstrip("0123456789"), len(k), k))


def compare_outputs(
    got: dict[str, np.ndarray], want: dict[str, np.ndarray], rtol: float, atol: float
) -> list[str]:
    """What differs between two output sets (empty when they agree)."""
    problems: list[str] = []
    if _order(list(got)) != _order(list(want)):
        return [f"keys {_order(list(got))} != expected {_order(list(want))}"]
    for key in _order(list(want)):
        g, w = got[key], want[key]
        if g.shape != w.shape or g.dtype != w.dtype:
            problems.append(f"{key}: {g.dtype}{list(g.shape)} != expected {w.dtype}{list(w.shape)}")
        elif w.dtype.kind in "fc":
            if not np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True):
                with np.errstate(invalid="ignore"):
                    err = np.abs(g.astype(np.float64) - w.astype(np.float64))
                problems.append(
                    f"{key}: max abs error {np.nanmax(err):.3g} (rtol={rtol}, atol={atol}); "
                    f"got {np.array2string(g.ravel()[:6], precision=6)}, "
                    f"expected {np.array2string(w.ravel()[:6], precision=6)}"
                )
        elif not np.array_equal(g, w):
            problems.append(f"{key}: got {g.ravel()[:8]}, expected {w.ravel()[:8]}")
    return problems


def bitwise_differences(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> list[str]:
    """Keys whose arrays differ in dtype, shape or bytes."""
    if sorted(a) != sorted(b):
        return [f"keys {sorted(a)} != {sorted(b)}"]
    return [
        k
        for k in _order(list(a))
        if a[k].dtype != b[k].dtype or a[k].shape != b[k].shape or a[k].tobytes() != b[k].tobytes()
    ]


def tolerance(model: dict[str, Any]) -> tuple[float, float]:
    """(rtol, atol) of a model."""
    tol = model.get("tolerance", DEFAULT_TOL)
    return float(tol["rtol"]), float(tol["atol"])


# ---------------------------------------------------------------------------
# The manifest itself (no tools needed)
# ---------------------------------------------------------------------------


def test_manifest_files_and_sizes() -> None:
    """Every file the manifest names exists; archives stay small; inputs are arg0.."""
    assert len(MODELS) >= 12
    total = 0
    for m in MODELS:
        files = list(m["programs"].values())
        for s in m["input_sets"]:
            files += [s["inputs"], s["expected"]]
        files += [s["inputs"] for s in m.get("invalid_input_sets", [])]
        files += [m[k] for k in ("state_after", "expected_call2") if k in m]
        for f in files:
            path = ZOO / f
            assert path.is_file(), f"{m['name']}: {f} is missing"
            total += path.stat().st_size
        for f in m["programs"].values():
            # Real architectures (resnet18, a 4-layer encoder) carry ~1.5 kB of node
            # metadata per graph node whatever their width: well under 2 MB each.
            assert (ZOO / f).stat().st_size < 1_200_000, f"{f} is too large"
        for s in m["input_sets"]:
            args = load_npz(ZOO / s["inputs"])
            assert list(args) == [f"arg{i}" for i in range(len(args))]
            outs = load_npz(ZOO / s["expected"])
            assert list(outs) == [f"out{i}" for i in range(len(outs))]
    # 30 models; the unrolled recurrent ones (lstm, gru) carry ~300 kB of node metadata in core IR.
    assert total < 8_000_000


def test_manifest_dynamic_models_have_extra_sets() -> None:
    """Dynamic models carry a second in-range set and at least one out-of-range set."""
    for m in MODELS:
        if m.get("dynamic"):
            assert len(m["input_sets"]) >= 2, m["name"]
            assert m.get("invalid_input_sets"), m["name"]


# ---------------------------------------------------------------------------
# End to end
# ---------------------------------------------------------------------------

CASES = [pytest.param(m["name"], ir, id=f"{m['name']}-{ir}") for m in MODELS for ir in IRS]
DYNAMIC_CASES = [
    pytest.param(m["name"], ir, id=f"{m['name']}-{ir}")
    for m in MODELS
    if m.get("invalid_input_sets")
    for ir in IRS
]


@needs_tools
@pytest.mark.parametrize(("name", "ir"), CASES)
def test_run_pt2_matches_eager(zoo_run: ZooRun, name: str, ir: str) -> None:
    """`exir-run <m>.<ir>.pt2` reproduces torch eager on every input set."""
    model = BY_NAME[name]
    rtol, atol = tolerance(model)
    failures: list[str] = []
    for i, s in enumerate(model["input_sets"]):
        job = f"{name}.{ir}.pt2.set{i}"
        res = zoo_run.results[job]
        if res.code != 0:
            failures.append(f"{s['inputs']}: {res.describe()}")
            continue
        problems = compare_outputs(load_npz(zoo_run.out(job)), load_npz(ZOO / s["expected"]), rtol, atol)
        failures += [f"{s['inputs']}: {p}" for p in problems]
    assert not failures, "\n".join(failures)


@needs_tools
@pytest.mark.parametrize(("name", "ir"), CASES)
def test_mlir_round_trip_is_bitwise(zoo_run: ZooRun, name: str, ir: str) -> None:
    """`exir-opt m.pt2 -o m.mlir; exir-run m.mlir` gives exactly what `exir-run m.pt2` gave."""
    model = BY_NAME[name]
    opt = zoo_run.results[f"{name}.{ir}.opt"]
    assert opt.code == 0, f"exir-opt {model['programs'][ir]}: {opt.describe()}"
    failures: list[str] = []
    for i, s in enumerate(model["input_sets"]):
        direct, printed = f"{name}.{ir}.pt2.set{i}", f"{name}.{ir}.mlir.set{i}"
        res = zoo_run.results[printed]
        if res.code != 0:
            failures.append(f"{s['inputs']}: {res.describe()}")
            continue
        if zoo_run.results[direct].code != 0:
            continue  # reported by test_run_pt2_matches_eager
        diff = bitwise_differences(load_npz(zoo_run.out(direct)), load_npz(zoo_run.out(printed)))
        if diff:
            failures.append(f"{s['inputs']}: differs bitwise in {diff}")
    assert not failures, "\n".join(failures)


def _check_refusal(res: Result, mentions: list[str], what: str) -> list[str]:
    problems: list[str] = []
    if res.code != 1 or res.crash:
        problems.append(f"{what}: expected exit 1, got {res.describe()}")
    if "Traceback" in res.stderr:
        problems.append(f"{what}: traceback on stderr")
    if not res.stderr.startswith("exir-run: error:"):
        problems.append(f"{what}: stderr does not start with 'exir-run: error:': {res.stderr[:300]!r}")
    for needle in mentions:
        if not re.search(rf"(?<![\w.]){re.escape(needle)}(?![\w.])", res.stderr):
            problems.append(f"{what}: the diagnostic does not mention {needle!r}: {res.stderr[:300]!r}")
    return problems


@needs_tools
@pytest.mark.parametrize(("name", "ir"), DYNAMIC_CASES)
def test_out_of_range_inputs_are_refused(zoo_run: ZooRun, name: str, ir: str) -> None:
    """Sizes outside a Dim's range: exit 1, one `exir-run: error:` naming the bound, no output."""
    model = BY_NAME[name]
    failures: list[str] = []
    for src in ("pt2", "mlir"):
        for i, s in enumerate(model["invalid_input_sets"]):
            job = f"{name}.{ir}.{src}.bad{i}"
            failures += _check_refusal(zoo_run.results[job], s["error_mentions"], f"{src} {s['inputs']}")
            if zoo_run.out(job).exists():
                failures.append(f"{src} {s['inputs']}: -o was written despite the error")
    assert not failures, "\n".join(failures)


@needs_tools
def test_no_torch_import_attempted(zoo_run: ZooRun) -> None:
    """The tools never tried to import torch (not even guarded by try/except)."""
    assert not zoo_run.torch_attempts, "\n".join(
        f"import {name} from:\n{stack}" for name, stack in zoo_run.torch_attempts[:3]
    )


# ---------------------------------------------------------------------------
# Real processes: exit status through main()
# ---------------------------------------------------------------------------


def _main_in_subprocess(
    site_dir: pathlib.Path, argv: list[str], cwd: pathlib.Path
) -> subprocess.CompletedProcess[str]:
    """`exir-run ARGV` through `main()` in its own torch-less process."""
    code = textwrap.dedent(
        """
        import sys
        from xdsl_exir.tools.exir_run import main
        sys.argv = ["exir-run", *sys.argv[1:]]
        main()
        """
    )
    return subprocess.run(
        [sys.executable, "-c", code, *argv],
        env=no_torch_env(site_dir),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=cwd,
    )


@needs_tools
def test_cli_process_exit_status(site_dir: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """One success and one refusal as real torch-less processes, exit status included."""
    model = BY_NAME["dynamic_batch"]
    out = tmp_path / "out.npz"
    good = model["input_sets"][1]
    argv = [str(ZOO / model["programs"]["core"]), "--inputs", str(ZOO / good["inputs"]), "-o", str(out)]
    proc = _main_in_subprocess(site_dir, argv, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not compare_outputs(load_npz(out), load_npz(ZOO / good["expected"]), *tolerance(model))

    bad = model["invalid_input_sets"][0]
    out_bad = tmp_path / "bad.npz"
    argv = [str(ZOO / model["programs"]["train"]), "--inputs", str(ZOO / bad["inputs"]), "-o", str(out_bad)]
    proc = _main_in_subprocess(site_dir, argv, tmp_path)
    res = Result(proc.returncode, proc.stdout, proc.stderr, False)
    assert not _check_refusal(res, bad["error_mentions"], bad["inputs"]), proc.stderr
    assert not out_bad.exists()


# ---------------------------------------------------------------------------
# Buffer mutation, in-process: state carries over between calls
# ---------------------------------------------------------------------------


@needs_tools
@pytest.mark.parametrize("ir", IRS)
def test_buffer_mutation_state(ir: str) -> None:
    """Two calls on one runner: the first gives `expected`, the second `expected_call2`,
    and the buffers hold `state_after` after the first."""
    from xdsl_exir.frontends.pt2 import load_pt2
    from xdsl_exir.interpreters.program import ProgramRunner

    model = BY_NAME["buffer_mutation"]
    rtol, atol = tolerance(model)
    path = ZOO / model["programs"][ir]
    runner = ProgramRunner(load_pt2(path.read_bytes(), str(path)))
    args = load_npz(ZOO / model["input_sets"][0]["inputs"])
    inputs = [args[f"arg{i}"] for i in range(len(args))]

    def as_outputs(values: list[Any]) -> dict[str, np.ndarray]:
        return {f"out{i}": np.asarray(v) for i, v in enumerate(values)}

    first = as_outputs(runner.run(inputs))
    assert not compare_outputs(first, load_npz(ZOO / model["input_sets"][0]["expected"]), rtol, atol)
    state_after = load_npz(ZOO / model["state_after"])
    for fqn, want in state_after.items():
        matches = [k for k in runner.state if k == fqn or k.endswith(f"_{fqn}") or k.endswith(f".{fqn}")]
        assert len(matches) == 1, f"buffer {fqn} not found in the runner state {sorted(runner.state)}"
        got = np.asarray(runner.state[matches[0]])
        assert not compare_outputs({"b": got}, {"b": want}, rtol, atol), f"buffer {fqn} after one call"
    second = as_outputs(runner.run(inputs))
    assert not compare_outputs(second, load_npz(ZOO / model["expected_call2"]), rtol, atol)
