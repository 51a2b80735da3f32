"""
The IREE backend end to end: every zoo model, both IRs, compiled to native code
and run on every input set, equal to torch eager's outputs; dynamic models
compiled once and run at several batch sizes; inputs outside a range refused;
buffers persisting across calls; the compile cache; `exir-run --backend iree`;
the text `exir-opt ... -p to-core-aten,convert-exir-to-linalg` writes read by the
stock `iree-compile`. Skipped when the `iree` extra is not installed.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from iree_compiles import compile_shared
from tool_calls import exir_opt, exir_run

pytest.importorskip("iree.compiler")
pytest.importorskip("iree.runtime")

from xdsl_exir.interpreters.compiler import InterpreterError
from xdsl_exir.targets.iree import CompiledProgram, IreeOptions, compile_program

ROOT = pathlib.Path(__file__).resolve().parents[1]
ZOO = ROOT / "tests" / "zoo"
MANIFEST: dict[str, Any] = json.loads((ZOO / "manifest.json").read_text())
MODELS: list[dict[str, Any]] = MANIFEST["models"]
BY_NAME = {m["name"]: m for m in MODELS}

RTOL, ATOL = 1e-4, 1e-5
"""The issue's acceptance tolerance; a model's own manifest tolerance wins when looser."""


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return tmp_path_factory.mktemp("iree_cache")


_COMPILED: dict[tuple[str, str], CompiledProgram] = {}


def compiled(name: str, ir: str, cache: pathlib.Path) -> CompiledProgram:
    """
    The zoo program compiled once per session. A model's training and core IRs mostly lower
    to the same text but for the outputs' names; IREE compiles that text once and each IR
    runs on it with its own runner (`tests/iree_compiles.py`: `compile_shared`).
    """
    key = (name, ir)
    if key not in _COMPILED:
        path = ZOO / BY_NAME[name]["programs"][ir]
        _COMPILED[key] = compile_shared(path, IreeOptions(threads=1, cache_dir=str(cache)))
    return _COMPILED[key]


def load_npz(path: pathlib.Path) -> list[np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        keys = sorted(data.files, key=lambda k: int(k[3:]))
        return [data[k] for k in keys]


def flatten(value: Any, out: list[np.ndarray]) -> list[np.ndarray]:
    if isinstance(value, list | tuple):
        for v in value:
            flatten(v, out)
    elif value is not None:
        out.append(np.asarray(value))
    return out


def tolerance(model: dict[str, Any]) -> tuple[float, float]:
    tol = model.get("tolerance", {})
    return max(RTOL, tol.get("rtol", 0.0)), max(ATOL, tol.get("atol", 0.0))


def assert_matches(got: list[np.ndarray], want: list[np.ndarray], rtol: float, atol: float, what: str) -> None:
    assert len(got) == len(want), f"{what}: {len(got)} outputs, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape and g.dtype == w.dtype, f"{what} out{i}: {g.dtype}{list(g.shape)} vs {w.dtype}{list(w.shape)}"
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"{what} out{i}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"{what} out{i}")


@pytest.mark.parametrize("ir", ["train", "core"])
@pytest.mark.parametrize("name", [m["name"] for m in MODELS])
def test_zoo_model_on_iree_matches_eager(name: str, ir: str, cache_dir: pathlib.Path) -> None:
    model = BY_NAME[name]
    if model.get("custom_ops"):
        pytest.skip("a custom operator's numpy kernel has no linalg lowering")
    program = compiled(name, ir, cache_dir)
    rtol, atol = tolerance(model)
    for s in model["input_sets"]:
        if name == "buffer_mutation":  # a fresh runner, so fresh buffers, for each input set
            program = compile_shared(ZOO / model["programs"][ir], IreeOptions(threads=1, cache_dir=str(cache_dir)))
        got = flatten(program(*load_npz(ZOO / s["inputs"])), [])
        assert_matches(got, load_npz(ZOO / s["expected"]), rtol, atol, f"{name}.{ir} {s['inputs']}")
    for s in model.get("invalid_input_sets", []):
        with pytest.raises(InterpreterError) as err:
            program(*load_npz(ZOO / s["inputs"]))
        for number in s["error_mentions"]:
            assert str(number) in str(err.value)


@pytest.mark.parametrize("ir", ["train", "core"])
def test_buffers_persist_across_calls(ir: str, cache_dir: pathlib.Path) -> None:
    model = BY_NAME["buffer_mutation"]
    program = compile_program(ZOO / model["programs"][ir], IreeOptions(threads=1, cache_dir=str(cache_dir)))
    inputs = load_npz(ZOO / model["input_sets"][0]["inputs"])
    program(*inputs)
    with np.load(ZOO / model["state_after"], allow_pickle=False) as after:
        assert after.files
        for k in after.files:
            np.testing.assert_allclose(program.runner.state[k], after[k], rtol=RTOL, atol=ATOL, err_msg=k)
    second = flatten(program(*inputs), [])
    assert_matches(second, load_npz(ZOO / model["expected_call2"]), RTOL, ATOL, "second call")


def test_dynamic_batch_is_compiled_once(cache_dir: pathlib.Path) -> None:
    """One compiled module serves every batch size in the range."""
    program = compiled("dynamic_batch", "core", cache_dir)
    assert "?x" in program.text
    rng = np.random.default_rng(0)
    x, *rest = load_npz(ZOO / BY_NAME["dynamic_batch"]["input_sets"][0]["inputs"])
    from xdsl_exir.interpreters.program import ProgramRunner

    numpy_runner = ProgramRunner(program.runner.program)  # the same program on numpy
    for batch in (2, 3, 7):
        args = [rng.standard_normal((batch, *x.shape[1:])).astype(x.dtype), *rest]
        out = flatten(program(*args), [])
        assert out[0].shape[0] == batch
        assert_matches(out, flatten(numpy_runner.run(args), []), RTOL, ATOL, f"batch {batch}")


CACHED_PROGRAM = """
builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
    exir.graph @forward(%x: !exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32> {
      %e = aten.exp.default(%x) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
      %r = aten.mul.Tensor(%e, %x) : (!exir.tensor<[2, 3], float32>, !exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
      exir.output %r : !exir.tensor<[2, 3], float32>
    }
  }
}
"""
"""The compile cache's program: the cache keeps every module alike, and this one compiles in half the zoo mlp's time."""

CACHED_INPUT = np.array([[0.5, -1.0, 1.5], [-2.0, 3.0, 0.25]], np.float32)


def _cached_program(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "cached.mlir"
    path.write_text(CACHED_PROGRAM)
    return path


def test_compile_cache(tmp_path: pathlib.Path) -> None:
    path = _cached_program(tmp_path)
    cache = tmp_path / "cache"
    first = compile_program(path, IreeOptions(threads=1, cache_dir=str(cache)))
    second = compile_program(path, IreeOptions(threads=1, cache_dir=str(cache)))
    assert not first.compile.from_cache and second.compile.from_cache
    assert first.compile.key == second.compile.key
    assert list(cache.glob("*.vmfb")) == [cache / f"{first.compile.key}.vmfb"]
    again = compile_program(path, IreeOptions(threads=1, cache_dir=str(cache), use_cache=False))
    assert not again.compile.from_cache
    other = compile_program(path, IreeOptions(threads=2, cache_dir=str(cache), extra_flags=("--iree-opt-level=O2",)))
    assert other.compile.key != first.compile.key
    want = np.exp(CACHED_INPUT) * CACHED_INPUT
    assert_matches(flatten(second(CACHED_INPUT), []), [want], 1e-5, 1e-6, "cached")
    assert_matches(flatten(second(CACHED_INPUT), []), flatten(other(CACHED_INPUT), []), 1e-6, 1e-7, "cached vs fresh")


def _tool(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """
    `exir-run ARGV` as a process, where the process is the subject: an environment
    without IREE, a tensor too large to create. The other cases call the tool in this
    process (`tests/tool_calls.py`).
    """
    return subprocess.run(
        [sys.executable, "-c", "from xdsl_exir.tools.exir_run import main; main()", *argv],
        capture_output=True, text=True, timeout=600, check=False, env=env, cwd=ROOT,
    )  # fmt: skip


def test_exir_run_backend_iree(tmp_path: pathlib.Path) -> None:
    model = BY_NAME["dynamic_attention"]
    env = {"EXIR_IREE_CACHE": str(tmp_path / "cache")}
    out = tmp_path / "out.npz"
    s = model["input_sets"][1]
    proc = exir_run(str(ZOO / model["programs"]["core"]), "--backend", "iree", "--threads", "1",
                    "--inputs", str(ZOO / s["inputs"]), "-o", str(out), env=env)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert_matches(load_npz(out), load_npz(ZOO / s["expected"]), *tolerance(model), "exir-run --backend iree")
    assert list((tmp_path / "cache").glob("*.vmfb")), "the compiled module was cached"
    bad = model["invalid_input_sets"][0]
    proc = exir_run(str(ZOO / model["programs"]["core"]), "--backend", "iree",
                    "--inputs", str(ZOO / bad["inputs"]), "-o", str(tmp_path / "bad.npz"), env=env)  # fmt: skip
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("exir-run: error:") and proc.stderr.count("\n") == 1
    assert not (tmp_path / "bad.npz").exists()


def test_without_iree_the_backend_says_how_to_install(tmp_path: pathlib.Path) -> None:
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\nsys.modules['iree'] = None\nsys.modules['iree.compiler'] = None\nsys.modules['iree.runtime'] = None\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    proc = _tool(str(ZOO / "mlp.core.pt2"), "--backend", "iree", "--random-inputs", "0", env=env)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "pip install 'xdsl-exir[iree]'" in proc.stderr


def test_refused_op_names_itself(tmp_path: pathlib.Path) -> None:
    text = """
builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
    exir.graph @forward(%x: !exir.tensor<[4, 4], float32>) -> !exir.tensor<[u0, 2], int64> {
      %r = aten.nonzero.default(%x) : (!exir.tensor<[4, 4], float32>) -> !exir.tensor<[u0, 2], int64>
      exir.output %r : !exir.tensor<[u0, 2], int64>
    }
  }
}
"""
    path = tmp_path / "chol.mlir"
    path.write_text(text)
    proc = exir_run(str(path), "--backend", "iree", "--random-inputs", "0")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "aten.nonzero.default has no lowering" in proc.stderr and "chol.mlir:5" in proc.stderr


@pytest.mark.skipif(shutil.which("iree-compile") is None, reason="the iree-compile command is not on PATH")
def test_stock_iree_compile_reads_exir_opt_output(tmp_path: pathlib.Path) -> None:
    mlir, vmfb = tmp_path / "m.mlir", tmp_path / "m.vmfb"
    opt = exir_opt(str(ZOO / "resnet_blocks.core.pt2"), "-p", "to-core-aten,convert-exir-to-linalg", "-o", str(mlir))
    assert opt.returncode == 0, opt.stderr
    text = mlir.read_text()
    assert "dense_resource<" in text and "dialect_resources" in text and "exir." not in text.replace("exir.kind", "").replace("exir.name", "")
    comp = subprocess.run(
        ["iree-compile", str(mlir), "--iree-hal-target-device=local",
         "--iree-hal-local-target-device-backends=llvm-cpu", "-o", str(vmfb)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert comp.returncode == 0, comp.stderr[-2000:]
    import iree.runtime as rt

    ctx = rt.SystemContext(config=rt.Config("local-sync"))
    ctx.add_vm_module(rt.VmModule.copy_buffer(ctx.instance, vmfb.read_bytes()))
    x = load_npz(ZOO / "resnet_blocks.inputs.npz")
    got = np.asarray(ctx.modules.module["forward"](*x).to_host())
    np.testing.assert_allclose(got, load_npz(ZOO / "resnet_blocks.expected.npz")[0], rtol=RTOL, atol=ATOL)


SCALAR_PROGRAM = """
builtin.module {
  exir.program inputs [<user_input "x">, <user_input "n">] outputs [<user_output "r">, <user_output "m">] {
    exir.graph @forward(%x: !exir.tensor<[3], float32>, %n: !exir.sym_int<s0>) -> (!exir.tensor<[3], float32>, !exir.sym_int<2*s0>) {
      %r = aten.mul.Tensor(%x, %n) : (!exir.tensor<[3], float32>, !exir.sym_int<s0>) -> !exir.tensor<[3], float32>
      %m = exir.sym_mul(%n, 2) : (!exir.sym_int<s0>) -> !exir.sym_int<2*s0>
      exir.output %r, %m : !exir.tensor<[3], float32>, !exir.sym_int<2*s0>
    }
  }
}
"""


def test_scalar_inputs_and_outputs_travel_as_0d_tensors(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "scalars.mlir"
    path.write_text(SCALAR_PROGRAM)
    program = compile_program(path, IreeOptions(threads=1, use_cache=False))
    assert "tensor<i64>" in program.text
    r, m = program(np.arange(3, dtype=np.float32), np.asarray(5))
    np.testing.assert_array_equal(r, np.array([0.0, 5.0, 10.0], dtype=np.float32))
    assert m == 10


# -- the IREE path's promises: errors, retries, the cache, devices, sizes ------------


CRASH = """Error invoking IREE compiler tool iree-compile
Error code: -11
Diagnostics:
<stdin>:3:8: warning: reads uninitialized values from an operand produced by a tensor.empty op.
  %r = linalg.matmul ins(%a, %b : tensor<4x0xf32>, tensor<0x3xf32>) outs(%c : tensor<4x3xf32>) -> tensor<4x3xf32>
       ^
Please report issues to https://github.com/iree-org/iree/issues and include the crash backtrace.
 #0 0x00007fc08735a0ab llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) Signals.cpp:0:0
 #4 0x00007fc089194f70 mlir::iree_compiler::DispatchCreation::decideFusableLinalgOps(mlir::Region&) FormDispatchRegions.cpp:0:0
"""


def test_compile_failure_gives_iree_first_error_line() -> None:
    from xdsl_exir.targets.iree import IreeError, compile_text, first_error

    assert first_error(CRASH) == (
        "iree-compile crashed (signal 11) in mlir::iree_compiler::DispatchCreation::decideFusableLinalgOps, "
        "after a diagnostic at line 3 of the lowered module"
    )
    text = """func.func @forward(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.constant dense_resource<blob1> : tensor<4xf32>
  %1 = arith.addf %a, %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F"
    }
  }
#-}
"""
    with pytest.raises(IreeError) as err:
        compile_text(text, IreeOptions(use_cache=False))
    message = str(err.value)
    assert "Error invoking IREE compiler tool" not in message and "\n" not in message
    assert "error: raw data size does not match" in message


class _FakeCompiler:
    """iree.compiler's `compile_str`, refusing whatever it is told to refuse."""

    def __init__(self, refuse: str) -> None:
        self.refuse = refuse
        self.calls: list[list[str]] = []

    def compile_str(self, text: str, extra_args: list[str]) -> bytes:
        self.calls.append(extra_args)
        if any(self.refuse in a for a in extra_args):
            raise RuntimeError(
                "Error invoking IREE compiler tool iree-compile\nDiagnostics:\n"
                "<stdin>:7:3: error: 'iree_linalg_ext.map_store' op write affecting operations on global "
                "resources are restricted to workgroup distributed contexts\n"
            )
        return b"vmfb:" + text.encode()


def test_data_tiling_failure_is_retried_without_it(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import xdsl_exir.targets.iree as target

    fake = _FakeCompiler("--iree-opt-data-tiling")
    runtime = target._import_iree()[1]  # pyright: ignore[reportPrivateUsage] - the real runtime beside a fake compiler
    monkeypatch.setattr(target, "_import_iree", lambda: (fake, runtime))
    text = "linalg.conv_2d_nchw_fchw ..."  # what turns data tiling on by default
    options = IreeOptions(cache_dir=str(tmp_path))
    result = target.compile_text(text, options)
    assert result.vmfb == b"vmfb:" + text.encode() and not result.from_cache
    assert len(fake.calls) == 2 and "--iree-opt-data-tiling" not in fake.calls[1]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "data tiling" in err and "map_store" in err
    again = target.compile_text(text, options)  # cached under the options asked for: no failing compile again
    assert again.from_cache and len(fake.calls) == 2
    with pytest.raises(target.IreeError) as e:  # asked for explicitly: no retry
        target.compile_text(text, IreeOptions(use_cache=False, data_tiling=True))
    assert "map_store" in str(e.value)


def test_damaged_cache_entries_are_recompiled(tmp_path: pathlib.Path) -> None:
    path = _cached_program(tmp_path)
    cache = tmp_path / "cache"
    options = IreeOptions(threads=1, cache_dir=str(cache))
    first = compile_program(path, options)
    entry = cache / f"{first.compile.key}.vmfb"
    x = [CACHED_INPUT]
    want = flatten(first(*x), [])
    whole = entry.read_bytes()
    for damaged in (whole[: len(whole) // 2], b"", whole[:100] + bytes(64) + whole[164:]):
        entry.write_bytes(damaged)
        again = compile_program(path, options)
        assert not again.compile.from_cache
        assert_matches(flatten(again(*x), []), want, 0, 0, "recompiled")
        assert entry.read_bytes() == whole or compile_program(path, options).compile.from_cache
    # Whole by its digest, but not a module IREE loads (another build of IREE, say): compiled again.
    import hashlib

    from xdsl_exir.targets.iree_cache import CACHE_TAG

    junk = b"not a module"
    entry.write_bytes(junk + CACHE_TAG + hashlib.sha256(junk).digest())
    again = compile_program(path, options)
    assert not again.compile.from_cache
    assert_matches(flatten(again(*x), []), want, 0, 0, "reloaded")


def test_unavailable_device_is_one_paragraph(tmp_path: pathlib.Path) -> None:
    import iree.runtime as rt

    try:
        rt.get_driver("cuda").create_default_device()
        pytest.skip("this machine has a CUDA device")
    except Exception:
        pass
    proc = exir_run(str(ZOO / "mlp.core.pt2"), "--backend", "iree", "--iree-device", "cuda", "--random-inputs", "0")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and "follows" not in proc.stderr
    assert "IREE device 'cuda' is unavailable" in proc.stderr and "--iree-device cpu" in proc.stderr


CREATES = """
builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
    exir.graph @forward(%x: !exir.tensor<[s0], float32>) -> !exir.tensor<[s0, 100000], float32> {
      %n = exir.sym_size %x, 0 : !exir.tensor<[s0], float32> -> !exir.sym_int<s0>
      %r = aten.zeros.default([%n, 100000], dtype = torch.float32) : (!exir.sym_int<s0>) -> !exir.tensor<[s0, 100000], float32>
      exir.output %r : !exir.tensor<[s0, 100000], float32>
    }
  }
}
"""


def test_max_tensor_bytes_holds_for_created_tensors(tmp_path: pathlib.Path) -> None:
    static = tmp_path / "zeros.mlir"
    static.write_text(
        CREATES.replace("s0, 100000", "100000, 100000").replace("[s0]", "[2]")
        .replace("%n = exir.sym_size %x, 0 : !exir.tensor<[2], float32> -> !exir.sym_int<s0>\n", "")
        .replace("([%n, 100000], dtype = torch.float32) : (!exir.sym_int<s0>)", "([100000, 100000], dtype = torch.float32) : ()")
    )  # fmt: skip
    cache = str(tmp_path / "cache")
    proc = _tool(str(static), "--backend", "iree", "--random-inputs", "0", "--iree-cache-dir", cache)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "[100000, 100000]" in proc.stderr and "--max-tensor-bytes" in proc.stderr
    assert not (tmp_path / "cache").exists(), "refused before compiling"
    dynamic = tmp_path / "zeros_dyn.mlir"
    dynamic.write_text(CREATES)
    small, big = tmp_path / "small.npz", tmp_path / "big.npz"
    np.savez(small, arg0=np.zeros(3, np.float32))
    np.savez(big, arg0=np.zeros(30000, np.float32))
    out = tmp_path / "out.npz"
    args = ("--backend", "iree", "--max-tensor-bytes", "1G", "--iree-cache-dir", cache, "-o", str(out))
    proc = _tool(str(dynamic), "--inputs", str(small), *args)
    assert proc.returncode == 0, proc.stderr
    assert load_npz(out)[0].shape == (3, 100000)
    out.unlink()
    proc = _tool(str(dynamic), "--inputs", str(big), *args)
    assert proc.returncode == 1 and "[30000, 100000]" in proc.stderr and "1.0 GiB" in proc.stderr
    assert not out.exists()


def test_compile_program_on_a_bad_source_raises_one_line(tmp_path: pathlib.Path) -> None:
    from xdsl_exir.targets.iree import IreeError

    dump = tmp_path / "graph.txt"
    dump.write_text("graph(%x : Tensor):\n  return (%x)\n")
    for source, says in ((tmp_path / "missing.pt2", "no such file"), (tmp_path, "cannot read it"), (dump, "torchscript-to-exir")):
        with pytest.raises(IreeError) as e:
            compile_program(source)
        assert says in str(e.value) and "\n" not in str(e.value)


def test_prepared_call_path_keeps_every_check(cache_dir: pathlib.Path) -> None:
    """The checks compiled once at load time answer as `ProgramRunner.run` does: same
    values on the fast path, a non-contiguous input copied, a wrong dtype or shape refused."""
    path = ZOO / BY_NAME["mlp"]["programs"]["core"]
    program = compile_shared(path, IreeOptions(threads=1, cache_dir=str(cache_dir)))  # the zoo test's module
    x = load_npz(ZOO / "mlp.inputs.npz")[0]
    fast = program(x)
    slow = program.runner.run([x])
    np.testing.assert_array_equal(fast[0], slow[0])
    np.testing.assert_allclose(fast[0], load_npz(ZOO / "mlp.expected.npz")[0], rtol=1e-5, atol=1e-6)
    strided = np.asfortranarray(x)
    np.testing.assert_array_equal(program(strided)[0], fast[0])
    again = program(x + 0)  # the previous result stays valid after the next call
    np.testing.assert_array_equal(fast[0], again[0])
    with pytest.raises(InterpreterError, match="arg0.*expected a float32 tensor, got numpy float64"):
        program(x.astype(np.float64))
    with pytest.raises(InterpreterError, match="dimension 1 must be 16"):
        program(x[:, :8])
    with pytest.raises(InterpreterError, match="takes 1 user input"):
        program(x, x)
