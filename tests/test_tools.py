"""exir-opt as a program: exit codes, diagnostics, outputs, xdsl-opt integration."""

from __future__ import annotations

import io
import json
import pathlib
import subprocess
import sys

import pytest
from tool_calls import exir_opt, exir_run

from xdsl_exir.tools.exir_opt import detect_frontend, run

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "mlp.mlir"


def exir_opt_process(*args: str) -> subprocess.CompletedProcess[str]:
    """
    The tool as a process, where the process is the subject: the exit status on a
    truncated archive, a `.pt2` on stdin, xdsl-opt's entry points, what `--help`
    imports. The other cases call it in this process (`tests/tool_calls.py`).
    """
    return subprocess.run(
        [sys.executable, "-m", "xdsl_exir.tools.exir_opt", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_example_runs_and_output_parses_back(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "out.mlir"
    assert run([str(EXAMPLE), "-p", "verify-export-ir", "-o", str(out)]) == 0
    text = out.read_text()
    assert "exir.program" in text
    again = tmp_path / "again.mlir"
    assert run([str(out), "-o", str(again)]) == 0
    assert again.read_text() == text


@pytest.mark.parametrize(
    "content",
    [
        b"\x00\x01\x02\xff",
        b"exir.program inputs [<user_input> outputs [] {",
        b"exir.graph @g() -> () {",
        b"exir.graph @g(%x: !exir.tensor<[s0 floordiv], float32>) -> () { exir.output }",
        "exir.graph @g(%x: !exir.tensor<[\u00e9], float32>) -> () {}".encode(),
    ],
)
def test_bad_input_gives_located_diagnostic(tmp_path: pathlib.Path, content: bytes) -> None:
    src = tmp_path / "bad.mlir"
    src.write_bytes(content)
    out = tmp_path / "out.mlir"
    result = exir_opt(str(src), "-o", str(out))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith(f"exir-opt: error: {src}:")
    assert not out.exists()


def test_frontend_detection() -> None:
    assert detect_frontend("m.mlir", b"") == "mlir"
    assert detect_frontend("m.pt2", b"") == "pt2"
    assert detect_frontend(None, b"PK\x03\x04rest") == "pt2"
    assert detect_frontend("dump", b"  graph(%x : Tensor):") == "torchscript"
    assert detect_frontend(None, b"builtin.module {}") == "mlir"


def test_truncated_archive_is_a_diagnostic(tmp_path: pathlib.Path) -> None:
    src = tmp_path / "model.pt2"
    src.write_bytes(b"PK\x03\x04")
    result = exir_opt_process(str(src))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "exir-opt: error:" in result.stderr
    assert "model.pt2" in result.stderr


def test_stock_xdsl_opt_sees_dialect_and_pass() -> None:
    from xdsl.universe import Universe

    multiverse = Universe.get_multiverse()
    assert "exir" in multiverse.all_dialects
    assert "verify-export-ir" in multiverse.all_passes
    result = subprocess.run(
        [str(pathlib.Path(sys.executable).parent / "xdsl-opt"), str(EXAMPLE), "-p", "verify-export-ir"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "exir.program" in result.stdout


# -- the tools as a compiler engineer uses them (issue 15) ---------------------------------

ZOO = ROOT / "tests" / "zoo"


def test_exir_run_help_loads_no_heavy_module() -> None:
    """`exir-run --help` parses before importing: no sympy, torch, dialects or kernels (structural, not timed)."""
    code = (
        "import sys, io, contextlib\n"
        "from xdsl_exir.tools.exir_run import run\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert run(['--help']) == 0 and run(['--version']) == 0\n"
        "heavy = ('sympy', 'torch', 'xdsl_exir.dialects.exir', 'xdsl_exir.semantics.kernels',\n"
        "         'xdsl_exir.tools.run_program', 'xdsl_exir.frontends.pt2')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
    opt = code.replace("xdsl_exir.tools.exir_run", "xdsl_exir.tools.exir_opt")
    result = subprocess.run([sys.executable, "-c", opt], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def _modules_after_running(model: str) -> dict[str, object]:
    """Run a zoo program through exir-run in a fresh interpreter; report what it imported."""
    code = (
        "import sys, io, json, contextlib\n"
        "from xdsl_exir.tools.exir_run import run\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    status = run([{str(ZOO / f'{model}.core.pt2')!r}, '--inputs', {str(ZOO / f'{model}.inputs.npz')!r}])\n"
        "from xdsl_exir.utils.lazy_modules import is_loaded\n"
        "later = ('xdsl_exir.semantics.kernels.derived', 'xdsl_exir.semantics.kernels.decomposed',\n"
        "         'xdsl_exir.transforms.decompose', 'xdsl_exir.tools.profiler', 'torch')\n"
        "print(json.dumps({'status': status, 'sympy': is_loaded('sympy') or 'sympy.core' in sys.modules,\n"
        "                  'loaded': sorted(m for m in later if m in sys.modules)}))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_exir_run_static_program_loads_no_sympy_nor_derived_kernels() -> None:
    """
    Cold start (structural, not timed): a static-shape program runs without importing
    sympy, the derived kernel table (with the decompose table behind it) or the profiler;
    a program with symbolic sizes does load sympy, so the probe sees a real import.
    """
    static = _modules_after_running("mlp")
    assert static == {"status": 0, "sympy": False, "loaded": []}
    dynamic = _modules_after_running("dynamic_batch")
    assert dynamic["status"] == 0 and dynamic["sympy"] is True


_STATIC_GRAPH = """exir.program inputs [<user_input "x">] outputs [<user_output "out">] {
  exir.graph @forward(%x: !exir.tensor<[2, 3], float32>) -> (!exir.tensor<[2, 3], float32>) {
    %r = aten.relu.default(%x) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
    %t = aten.add.Tensor(%r, %x) : (!exir.tensor<[2, 3], float32>, !exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
    exir.output %t : !exir.tensor<[2, 3], float32>
  }
}
"""


@pytest.mark.parametrize(
    ("text", "loads_sympy"),
    [(_STATIC_GRAPH, False), (_STATIC_GRAPH.replace("[2, 3]", "[s0, 3]"), True)],
    ids=["static", "symbolic"],
)
def test_exir_opt_reads_static_shapes_without_sympy(tmp_path: pathlib.Path, text: str, loads_sympy: bool) -> None:
    """exir-opt on static shapes (parse, passes, print) never imports sympy; a symbolic size does (structural)."""
    path = tmp_path / "g.mlir"
    path.write_text(text)
    code = (
        "import sys, io, contextlib\n"
        "from xdsl_exir.tools.exir_opt import run\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert run([{str(path)!r}, '-p', 'decompose,functionalize,exir-cse,exir-dce']) == 0\n"
        "from xdsl_exir.utils.lazy_modules import is_loaded\n"
        "print(is_loaded('sympy') or 'sympy.core' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == str(loads_sympy)


def test_versions_name_ours_and_xdsl() -> None:
    from importlib.metadata import version

    import xdsl_exir

    for tool in (exir_opt, exir_run):
        out = tool("--version").stdout
        assert f"(xdsl-exir) {xdsl_exir.__version__}" in out
        assert f"xdsl {version('xdsl')}" in out


def test_help_is_short_and_list_passes_groups_ours() -> None:
    help_text = exir_opt("--help").stdout
    assert "apply-pdl" not in help_text  # xDSL's pass names are not in --help
    assert "--list-passes" in help_text and "--from" in help_text and "--emit" in help_text
    assert "-t TARGET" not in help_text and "--frontend" not in help_text  # hidden aliases
    listing = exir_opt("--list-passes")
    assert listing.returncode == 0
    text = listing.stdout
    ours, _, stock = text.partition("xDSL's passes")
    assert "  Optimization\n" in ours and "    optimize-inference " in ours
    assert "      min-fusion-size: an integer = 2" in ours
    assert "apply-pdl" in stock and "optimize-inference" not in stock


def test_hidden_aliases_still_work() -> None:
    assert "graph():" in exir_opt(str(ZOO / "mlp.core.pt2"), "-t", "fx").stdout
    assert exir_opt(str(EXAMPLE), "-f", "mlir").returncode == 0
    debug = exir_opt(str(EXAMPLE), "--mlir-print-debuginfo").stdout
    assert "loc(" in debug


def test_block_arguments_get_their_position() -> None:
    """A graph's arguments print the line and column of their name, not loc(unknown)."""
    debug = exir_opt(str(EXAMPLE), "--mlir-print-debuginfo").stdout
    graph = next(line for line in debug.splitlines() if "exir.graph @forward(" in line)
    source = EXAMPLE.read_text().splitlines()
    line_no = next(i for i, line in enumerate(source, 1) if "exir.graph @forward(" in line)
    column = source[line_no - 1].index("%x:") + 1
    assert f'%x: !exir.tensor<[s0, 8], float32> loc("{EXAMPLE}":{line_no}:{column})' in graph
    assert "loc(unknown)" not in graph


def test_time_passes_breaks_compound_passes_down() -> None:
    result = exir_opt(str(ZOO / "resnet_blocks.core.pt2"), "-p", "optimize-inference,exir-dce", "--time-passes")
    assert result.returncode == 0, result.stderr
    report = result.stderr
    assert "Execution time report" in report and "Total Execution Time" in report
    lines = report.splitlines()
    top = next(i for i, line in enumerate(lines) if line.endswith(" optimize-inference"))
    nested = [line.split(")", 1)[1] for line in lines[top + 1 : top + 8]]
    assert [n.strip() for n in nested] == [
        "decompose",
        "canonicalize",
        "exir-cse",
        "recompose-safe-softmax",
        "fold-conv-bn",
        "fuse-pointwise",
        "exir-dce",
    ]
    assert all(n.startswith("    ") for n in nested)  # indented under optimize-inference
    assert any(line.endswith("  exir-dce") and not line.endswith("    exir-dce") for line in lines)
    assert "took" not in result.stdout  # xDSL's own timing lines are replaced


def test_exir_run_profile_and_trace(tmp_path: pathlib.Path) -> None:
    model = str(ZOO / "resnet_blocks.core.pt2")
    inputs = str(ZOO / "resnet_blocks.inputs.npz")
    plain, profiled, trace = tmp_path / "plain.npz", tmp_path / "profiled.npz", tmp_path / "trace.json"
    assert exir_run(model, "--inputs", inputs, "-o", str(plain)).returncode == 0
    result = exir_run(model, "--inputs", inputs, "-o", str(profiled), "--profile", "--trace", str(trace))
    assert result.returncode == 0, result.stderr
    # profiling changes nothing in the results
    import numpy as np

    a, b = np.load(plain), np.load(profiled)
    assert list(a) == list(b) and all(np.array_equal(a[k], b[k]) for k in a)
    table = result.stderr
    header = next(line for line in table.splitlines() if line.startswith("Name"))
    assert header.split() == ["Name", "Self", "%", "Self", "total", "Total", "Calls", "Mean", "FLOPs", "GFLOP/s"]
    rows = [line.split() for line in table.splitlines() if line.startswith("aten.")]
    shares = [float(r[1].rstrip("%")) for r in rows]
    assert shares == sorted(shares, reverse=True)  # sorted by self time
    conv = next(r for r in rows if r[0] == "aten.convolution.default")
    assert conv[4] == "6" and conv[6].endswith("M")  # 6 calls, a count of FLOPs
    assert "wall time of the 1 run" in table
    import json

    events = json.loads(trace.read_text())["traceEvents"]
    complete = [e for e in events if e["ph"] == "X"]
    assert {"load", "run"} <= {e["name"] for e in complete}
    assert sum(e["name"] == "aten.convolution.default" for e in complete) == 6
    assert all(e["dur"] >= 0 and "ts" in e for e in complete)
    assert "\r" not in result.stderr  # no progress line when stderr is not a terminal


def test_progress_only_on_terminals(monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import time

    from xdsl_exir.tools import progress as profiler

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(profiler, "_PROGRESS_DELAY", 0.01)
    monkeypatch.delenv("EXIR_NO_PROGRESS", raising=False)
    def until_drawn(stream: io.StringIO) -> None:
        deadline = time.monotonic() + 10  # a loaded machine may start the drawing thread late
        while " ... " not in stream.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)

    tty, log = Terminal(), io.StringIO()
    with profiler.progress("exir-run: running", tty):
        until_drawn(tty)
    with profiler.progress("exir-run: running", log):
        time.sleep(0.05)
    assert "exir-run: running ... " in tty.getvalue() and tty.getvalue().endswith("\r\x1b[2K")
    assert log.getvalue() == ""
    nested = Terminal()
    with profiler.progress("exir-run: loading m.pt2", nested):
        with profiler.progress("exir-opt: running optimize-inference", nested):
            until_drawn(nested)  # one line, showing the inner step
    assert "exir-opt: running optimize-inference ... " in nested.getvalue()


def test_script_frontend_entry_and_from(tmp_path: pathlib.Path) -> None:
    src = tmp_path / "two.py"
    src.write_text("def f(x: int) -> int:\n    return x + 1\n\ndef g(x: int) -> int:\n    return x * 2\n")
    result = exir_run(str(src), "--random-inputs", "0")
    assert result.returncode == 1
    assert "choose one with --entry NAME" in result.stderr
    inputs = tmp_path / "in.npz"
    import numpy as np

    np.savez(inputs, arg0=np.asarray(5))
    ok = exir_run(str(src), "--from", "script", "--entry", "g", "--inputs", str(inputs))
    assert ok.returncode == 0, ok.stderr
    assert "10" in ok.stdout


def test_pt2_on_stdin_is_detected() -> None:
    data = (ZOO / "mlp.core.pt2").read_bytes()
    tool = [sys.executable, "-m", "xdsl_exir.tools.exir_opt"]
    ok = subprocess.run([*tool, "--emit", "fx"], input=data, capture_output=True, check=False)
    assert ok.returncode == 0 and b"graph():" in ok.stdout
    forced = subprocess.run([*tool, "--from", "mlir"], input=data, capture_output=True, check=False)
    assert forced.returncode == 1
    assert b"a zip archive" in forced.stderr and b"PK" not in forced.stderr
    run_tool = [sys.executable, "-m", "xdsl_exir.tools.exir_run", "-", "--inputs", str(ZOO / "mlp.inputs.npz")]
    ran = subprocess.run(run_tool, input=data, capture_output=True, check=False)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith(b"out0: float32[4, 8]")


def test_exir_run_traces_and_times_the_passes(tmp_path: pathlib.Path) -> None:
    import json

    trace = tmp_path / "trace.json"
    result = exir_run(
        str(ZOO / "resnet_blocks.core.pt2"),
        "--random-inputs",
        "0",
        "-p",
        "optimize-inference",
        "--trace",
        str(trace),
        "--time-passes",
    )
    assert result.returncode == 0, result.stderr
    assert "Execution time report" in result.stderr and "    fuse-pointwise" in result.stderr
    events = [e for e in json.loads(trace.read_text())["traceEvents"] if e["ph"] == "X"]
    passes = {e["name"]: e for e in events if e.get("cat") == "pass"}
    outer, inner = passes["optimize-inference"], passes["fuse-pointwise"]
    assert outer["ts"] <= inner["ts"] and inner["ts"] + inner["dur"] <= outer["ts"] + outer["dur"] + 1e-3
    (load,) = [e for e in events if e["name"] == "load and passes"]
    (run,) = [e for e in events if e["name"] == "run"]
    assert load["ts"] + load["dur"] <= run["ts"]


def test_exir_run_threads_limits_the_interpreters_blas(tmp_path: pathlib.Path) -> None:
    """`--threads N` sets the BLAS pool numpy runs matmuls on, for that run only; 0 is refused."""
    model, inputs = str(ZOO / "mlp.core.pt2"), str(ZOO / "mlp.inputs.npz")
    code = (
        "import io, json, contextlib, threadpoolctl\n"
        "from xdsl_exir.tools.exir_run import run\n"
        "import xdsl_exir.tools.run_program as rp\n"
        "def blas():\n"
        "    return [p['num_threads'] for p in threadpoolctl.threadpool_info() if p['user_api'] == 'blas']\n"
        "before, inside, outputs = blas(), [], rp._outputs\n"
        "def probe(*a):\n"
        "    inside.extend(blas())\n"
        "    return outputs(*a)\n"
        "rp._outputs = probe\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    status = run([{model!r}, '--inputs', {inputs!r}, '--threads', '1'])\n"
        "print(json.dumps({'status': status, 'before': before, 'inside': inside, 'after': blas()}))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["status"] == 0 and seen["before"], "numpy's BLAS pool is visible"
    assert set(seen["inside"]) == {1} and seen["after"] == seen["before"]
    refused = exir_run(model, "--threads", "0")
    assert refused.returncode == 1 and "expected a positive number of threads, got '0'" in refused.stderr
