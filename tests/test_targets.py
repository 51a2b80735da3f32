"""
The exporters: `--emit fx` against torch's own graph text, `--emit python`
against torch eager (run in a subprocess that never imports torch).

Programs come from `torch.export` and are turned into exir IR by `from_export`
below, a small builder over the Python API that stands in for the `.pt2`
frontend (when `xdsl_exir.frontends.pt2` exists, its archives are checked
too). It gives values their FX names as name hints, either exactly
(`exact_names=True`, what an in-memory import can do) or through xDSL's
setter, which drops numeric suffixes (`add_1` -> `add`) as parsing `.mlir`
text does; in that case the emitter re-derives suffixes with FX's rule, which
is exact when names were made in node order and otherwise differs only by a
renaming (`canonical` below).
"""

from __future__ import annotations

import atexit
import functools
import importlib.util
import io
import json
import operator
import os
import pathlib
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
import pytest
from pass_harness import register_zoo_kernels
from tool_calls import exir_opt
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.parser import Parser
from xdsl.printer import Printer

from xdsl_exir.dialects.aten import Aten, from_call_function
from xdsl_exir.dialects.exir import (
    SYM_ARITH_OPS,
    BoolType,
    CallFunctionOp,
    CondOp,
    DeviceAttr,
    DType,
    Exir,
    FloatType,
    GetAttrOp,
    GetItemOp,
    GraphOp,
    InputKind,
    InputSpecAttr,
    IntType,
    Layout,
    ListType,
    MapOp,
    MemoryFormat,
    OutputKind,
    OutputOp,
    OutputSpecAttr,
    ProgramOp,
    StateOp,
    SymBoolType,
    SymFloatType,
    SymIntType,
    SymSizeOp,
    TensorType,
    TupleType,
    WhileLoopOp,
    blob_from_array,
)
from xdsl_exir.targets.fx_graph import FxNamespace
from xdsl_exir.targets.fx_text import emit_fx
from xdsl_exir.targets.python_source import python_source
from xdsl_exir.targets.registry import get_all_targets
from xdsl_exir.tools.exir_opt import run
from xdsl_exir.utils.diagnostics import ExirDiagnostic
from xdsl_exir.utils.symbolic import parse_python_expr

ROOT = pathlib.Path(__file__).resolve().parents[1]
SEEDS = ROOT / "tests" / "filecheck" / "dialects" / "exir" / "seed_examples.mlir"


def parse(text: str) -> ModuleOp:
    ctx = Context()
    for d in (Builtin, Exir, Aten):
        ctx.load_dialect(d)
    return Parser(ctx, text).parse_module()


def fx_text(module: ModuleOp) -> str:
    out = io.StringIO()
    emit_fx(module, out)
    return out.getvalue()


def round_trip(module: ModuleOp) -> ModuleOp:
    """Print and parse again, as `exir-opt` between tools (name suffixes are lost)."""
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return parse(out.getvalue())


def canonical(text: str) -> str:
    """The FX text with every node name replaced by its order of appearance."""
    names: dict[str, str] = {}

    def rename(name: str) -> str:
        return names.setdefault(name, f"n{len(names)}")

    out: list[str] = []
    for line in text.splitlines():
        line = re.sub(r"%([A-Za-z_][0-9A-Za-z_]*)", lambda m: "%" + rename(m.group(1)), line)
        if line.lstrip().startswith("return "):
            line = re.sub(r"\b([A-Za-z_][0-9A-Za-z_]*)\b", lambda m: rename(m.group(1)) if m.group(1) in names else m.group(1), line)
        line = re.sub(r"target=([A-Za-z_][0-9A-Za-z_]*)\]", lambda m: f"target={rename(m.group(1))}]", line)
        out.append(line)
    return "\n".join(out)


# ---------------------------------------------------------------------------
# Without torch: the seed examples and the naming rule
# ---------------------------------------------------------------------------


def _seed_chunks() -> list[str]:
    return SEEDS.read_text().split("// -----")


SEED_FX = [
    """\
graph():
    %x : [num_users=1] = placeholder[target=x]
    %y : [num_users=1] = placeholder[target=y]
    %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%x, %y), kwargs = {})
    return (add,)
""",
    """\
graph():
    %x_1 : [num_users=1] = placeholder[target=x_1]
    %y_1 : [num_users=1] = placeholder[target=y_1]
    %true_graph_0 : [num_users=1] = get_attr[target=true_graph_0]
    %false_graph_0 : [num_users=1] = get_attr[target=false_graph_0]
    %conditional : [num_users=1] = call_function[target=torch.ops.higher_order.cond](args = (%y_1, %true_graph_0, %false_graph_0, (%x_1,)), kwargs = {})
    return (conditional,)

# subgraph true_graph_0
graph():
    %x : [num_users=1] = placeholder[target=x]
    %sin : [num_users=1] = call_function[target=torch.ops.aten.sin.default](args = (%x,), kwargs = {})
    return (sin,)

# subgraph false_graph_0
graph():
    %x : [num_users=1] = placeholder[target=x]
    %cos : [num_users=1] = call_function[target=torch.ops.aten.cos.default](args = (%x,), kwargs = {})
    return (cos,)
""",
    """\
graph():
    %x_1 : [num_users=1] = placeholder[target=x_1]
    %y_1 : [num_users=1] = placeholder[target=y_1]
    %true_graph_0 : [num_users=1] = get_attr[target=true_graph_0]
    %false_graph_0 : [num_users=1] = get_attr[target=false_graph_0]
    %cond : [num_users=1] = call_function[target=torch.ops.higher_order.cond](args = (%y_1, %true_graph_0, %false_graph_0, (%x_1,)), kwargs = {})
    %conditional : [num_users=1] = call_function[target=operator.getitem](args = (%cond, 0), kwargs = {})
    return (conditional,)

# subgraph true_graph_0
graph():
    %x : [num_users=1] = placeholder[target=x]
    %sin : [num_users=1] = call_function[target=torch.ops.aten.sin.default](args = (%x,), kwargs = {})
    return (sin,)

# subgraph false_graph_0
graph():
    %x : [num_users=1] = placeholder[target=x]
    %cos : [num_users=1] = call_function[target=torch.ops.aten.cos.default](args = (%x,), kwargs = {})
    return (cos,)
""",
    """\
graph():
    %ph_0 : [num_users=1] = placeholder[target=ph_0]
    %add_tensor : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%ph_0, 1), kwargs = {})
    return (add_tensor,)
""",
    """\
graph():
    %b_count : [num_users=1] = placeholder[target=b_count]
    %x : [num_users=1] = placeholder[target=x]
    %add : [num_users=2] = call_function[target=torch.ops.aten.add.Tensor](args = (%b_count, 1), kwargs = {})
    %mul : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%x, %add), kwargs = {})
    return (add, mul)
""",
]


@pytest.mark.parametrize("index", range(len(SEED_FX)))
def test_seed_examples_fx_text(index: int) -> None:
    assert fx_text(parse(_seed_chunks()[index])) == SEED_FX[index]


def test_namespace_follows_fx() -> None:
    ns = FxNamespace()
    # torch.fx.graph._Namespace gives the same names for these candidates.
    candidates = ("add", "add", "sum", "sum", "x_1", "x", "x", "getitem_3", "getitem", "getitem")
    assert [ns.create(n) for n in candidates] == [
        "add", "add_1", "sum_1", "sum_2", "x_1", "x", "x_2", "getitem_3", "getitem", "getitem_4",
    ]
    assert ns.create("1st node") == "_1st_node"
    assert ns.create("input") == "input_1"


def test_output_names_come_from_the_signature() -> None:
    # The signature names `add_5` survive a text round trip that strips the hint.
    module = parse("""
exir.program inputs [<user_input "x">] outputs [<user_output "add_5">] {
  exir.graph @forward(%x: !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32> {
    %a = exir.call_function "aten.add.Tensor"(%x, %x) : (!exir.tensor<[2], float32>, !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>
    %b = exir.call_function "aten.add.Tensor"(%a, %x) : (!exir.tensor<[2], float32>, !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>
    %c = exir.call_function "aten.add.Tensor"(%b, %x) : (!exir.tensor<[2], float32>, !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>
    exir.output %c : !exir.tensor<[2], float32>
  }
}""")
    text = fx_text(module)
    assert "%a : " in text and "%b : " in text and "%add_5 : " in text
    assert text.endswith("    return (add_5,)\n")


def test_constants_and_kwargs_render_like_fx() -> None:
    module = parse("""
exir.program inputs [<user_input "x">] outputs [<user_output "full">] {
  exir.graph @forward(%x: !exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float16> {
    %sum = exir.call_function "aten.sum.dim_IntList"(%x, [1], true) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 1], float32>
    %full = exir.call_function "aten.full.default"([2, 3], -inf, dtype = torch.float16, layout = torch.strided, device = device("cpu"), pin_memory = false, memory_format = torch.contiguous_format) : () -> !exir.tensor<[2, 3], float16>
    %g = exir.call_function "aten.gelu.default"(%x, approximate = "tanh") : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
    %n = exir.call_function "aten.add.Tensor"(%x, 1.0e-05, alpha = none) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
    exir.output %full : !exir.tensor<[2, 3], float16>
  }
}""")
    lines = fx_text(module).splitlines()
    assert lines[2] == "    %sum_1 : [num_users=0] = call_function[target=torch.ops.aten.sum.dim_IntList](args = (%x, [1], True), kwargs = {})"
    assert lines[3] == (
        "    %full : [num_users=1] = call_function[target=torch.ops.aten.full.default](args = ([2, 3], -inf), "
        "kwargs = {dtype: torch.float16, layout: torch.strided, device: cpu, pin_memory: False, "
        "memory_format: torch.contiguous_format})"
    )
    assert lines[4].endswith("(args = (%x,), kwargs = {approximate: tanh})")
    assert lines[5].endswith("(args = (%x, 1e-05), kwargs = {alpha: None})")


REGION_PROGRAM = """
exir.program inputs [<user_input "i">, <user_input "x">, <user_input "xs">] outputs [<user_output "getitem">, <user_output "getitem_1">, <user_output "getitem_2">] {
  exir.graph @forward(%i: !exir.tensor<[], int64>, %x: !exir.tensor<[3], float32>, %xs: !exir.tensor<[4, 3], float32>) -> (!exir.tensor<[], int64>, !exir.tensor<[3], float32>, !exir.tensor<[4, 3], float32>) {
    %r:2 = exir.while_loop (%i, %x) additional (%x) : (!exir.tensor<[], int64>, !exir.tensor<[3], float32>, !exir.tensor<[3], float32>) -> (!exir.tensor<[], int64>, !exir.tensor<[3], float32>) cond {
    ^bb0(%arg0: !exir.tensor<[], int64>, %arg1: !exir.tensor<[3], float32>, %arg2: !exir.tensor<[3], float32>):
      %lt = exir.call_function "aten.lt.Scalar"(%arg0, 5) : (!exir.tensor<[], int64>) -> !exir.tensor<[], bool>
      exir.output %lt : !exir.tensor<[], bool>
    } body {
    ^bb0(%arg0: !exir.tensor<[], int64>, %arg1: !exir.tensor<[3], float32>, %arg2: !exir.tensor<[3], float32>):
      %add = exir.call_function "aten.add.Tensor"(%arg0, 1) : (!exir.tensor<[], int64>) -> !exir.tensor<[], int64>
      %mul = exir.call_function "aten.mul.Tensor"(%arg1, %arg2) : (!exir.tensor<[3], float32>, !exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
      exir.output %add, %mul : !exir.tensor<[], int64>, !exir.tensor<[3], float32>
    }
    %m = exir.map (%xs) with (%x) : (!exir.tensor<[4, 3], float32>, !exir.tensor<[3], float32>) -> !exir.tensor<[4, 3], float32> {
    ^bb0(%row: !exir.tensor<[3], float32>, %y: !exir.tensor<[3], float32>):
      %sub = exir.call_function "aten.sub.Tensor"(%row, %y) : (!exir.tensor<[3], float32>, !exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
      exir.output %sub : !exir.tensor<[3], float32>
    }
    exir.output %r#0, %r#1, %m : !exir.tensor<[], int64>, !exir.tensor<[3], float32>, !exir.tensor<[4, 3], float32>
  }
}
"""


def test_region_ops_print_as_export_records_them() -> None:
    text = fx_text(parse(REGION_PROGRAM))
    assert text == """\
graph():
    %i : [num_users=1] = placeholder[target=i]
    %x : [num_users=2] = placeholder[target=x]
    %xs : [num_users=1] = placeholder[target=xs]
    %while_loop_cond_graph_0 : [num_users=1] = get_attr[target=while_loop_cond_graph_0]
    %while_loop_body_graph_0 : [num_users=1] = get_attr[target=while_loop_body_graph_0]
    %while_loop : [num_users=2] = call_function[target=torch.ops.higher_order.while_loop](args = (%while_loop_cond_graph_0, %while_loop_body_graph_0, (%i, %x), (%x,)), kwargs = {})
    %getitem : [num_users=1] = call_function[target=operator.getitem](args = (%while_loop, 0), kwargs = {})
    %getitem_1 : [num_users=1] = call_function[target=operator.getitem](args = (%while_loop, 1), kwargs = {})
    %body_graph_0 : [num_users=1] = get_attr[target=body_graph_0]
    %map_impl : [num_users=1] = call_function[target=torch.ops.higher_order.map_impl](args = (%body_graph_0, [%xs], [%x]), kwargs = {})
    %getitem_2 : [num_users=1] = call_function[target=operator.getitem](args = (%map_impl, 0), kwargs = {})
    return (getitem, getitem_1, getitem_2)

# subgraph while_loop_cond_graph_0
graph():
    %arg0_1 : [num_users=1] = placeholder[target=arg0_1]
    %arg1_1 : [num_users=0] = placeholder[target=arg1_1]
    %arg2_1 : [num_users=0] = placeholder[target=arg2_1]
    %lt : [num_users=1] = call_function[target=torch.ops.aten.lt.Scalar](args = (%arg0_1, 5), kwargs = {})
    return lt

# subgraph while_loop_body_graph_0
graph():
    %arg0_1 : [num_users=1] = placeholder[target=arg0_1]
    %arg1_1 : [num_users=1] = placeholder[target=arg1_1]
    %arg2_1 : [num_users=1] = placeholder[target=arg2_1]
    %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%arg0_1, 1), kwargs = {})
    %mul : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%arg1_1, %arg2_1), kwargs = {})
    return (add, mul)

# subgraph body_graph_0
graph():
    %row : [num_users=1] = placeholder[target=row]
    %y : [num_users=1] = placeholder[target=y]
    %sub : [num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%row, %y), kwargs = {})
    return (sub,)
"""


def test_exir_opt_emit_targets(tmp_path: pathlib.Path) -> None:
    assert {"fx", "python", "torchscript", "torchscript-python", "dot", "svg"} <= set(get_all_targets())
    src = tmp_path / "seed.mlir"
    src.write_text(_seed_chunks()[0])
    out = tmp_path / "seed.fx"
    assert run([str(src), "--emit", "fx", "-o", str(out)]) == 0
    assert out.read_text() == SEED_FX[0]
    py = tmp_path / "seed.py"
    assert run([str(src), "-t", "python", "-o", str(py)]) == 0
    compile(py.read_text(), str(py), "exec")


def test_unprintable_op_is_a_located_diagnostic(tmp_path: pathlib.Path) -> None:
    src = tmp_path / "bad.mlir"
    src.write_text("""
exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
  exir.graph @forward(%x: !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32> {
    %r = exir.call_function "mylib.frobnicate.default"(%x) : (!exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>
    exir.output %r : !exir.tensor<[2], float32>
  }
}""")
    result = exir_opt(str(src), "--emit", "python")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"{src}:4:" in result.stderr and "no numpy kernel for 'mylib.frobnicate.default'" in result.stderr
    # The FX text has no such limit: any target prints.
    assert "call_function[target=torch.ops.mylib.frobnicate.default]" in fx_text(parse(src.read_text()))


# ---------------------------------------------------------------------------
# Generated Python, run without torch
# ---------------------------------------------------------------------------

_RUNNER = textwrap.dedent(
    """
    import importlib.util, pickle, sys
    import numpy as np
    spec = importlib.util.spec_from_file_location("generated", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with open(sys.argv[2], "rb") as f:
        calls = pickle.load(f)
    results = []
    for args in calls:
        out = module.forward(*args)
        results.append(([np.asarray(o) for o in out], [np.array(a) for a in args],
                        {k: (None if v is None else np.array(v)) for k, v in module.STATE.items()}))
    assert "torch" not in sys.modules, "the generated module imported torch"
    with open(sys.argv[3], "wb") as f:
        pickle.dump(results, f)
    """
)


_SERVER = textwrap.dedent(
    """
    import json, os, runpy, sys, traceback
    reply = os.fdopen(os.dup(1), "w")
    sys.stdout = sys.stderr  # what a script prints must not mix with the replies
    for line in sys.stdin:
        sys.argv = json.loads(line)
        try:
            runpy.run_path(sys.argv[0], run_name="__main__")
            reply.write(json.dumps([True, ""]) + "\\n")
        except BaseException:  # SystemExit too: a script's failure is its test's
            reply.write(json.dumps([False, traceback.format_exc()]) + "\\n")
        reply.flush()
    """
)


class _ScriptServer:
    """
    One Python process, without torch, that runs the runner scripts of the generated
    modules one after the other, each script in a fresh namespace and each generated
    module imported anew from its file (the scripts check that torch stays out of
    `sys.modules`): Python's start and the imports of numpy and of the kernels
    library, which the generated modules use, are paid once per test worker rather
    than once per test. A script that would change the process for the ones after it
    (registering custom kernels) runs in a process of its own (`run_script(fresh=True)`).
    """

    def __init__(self) -> None:
        self.process: subprocess.Popen[str] | None = None

    def run(self, argv: list[str]) -> tuple[bool, str]:
        if self.process is None or self.process.poll() is not None:
            self.process = subprocess.Popen(
                [sys.executable, "-c", _SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)),
            )
            atexit.register(self.process.kill)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(argv) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:  # the process died (a crash in a kernel): the next script gets a new one
            self.process = None
            return False, "the runner process died"
        ok, error = json.loads(line)
        return bool(ok), str(error)


_SCRIPTS = _ScriptServer()


def run_script(argv: list[str], *, fresh: bool = False) -> tuple[bool, str]:
    """Run the Python script `argv[0]` with `argv`; (whether it succeeded, its traceback or stderr)."""
    if fresh:
        result = subprocess.run(
            [sys.executable, *argv], capture_output=True, text=True, check=False,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
        )
        return result.returncode == 0, result.stderr
    return _SCRIPTS.run(argv)


def run_generated(
    source: str, calls: Sequence[Sequence[Any]], tmp_path: pathlib.Path
) -> list[tuple[list[np.ndarray], list[np.ndarray], dict[str, np.ndarray | None]]]:
    """Import the generated module in a fresh interpreter (no torch) and call forward."""
    import pickle

    module = tmp_path / "generated.py"
    module.write_text(source)
    inputs = tmp_path / "calls.pkl"
    outputs = tmp_path / "results.pkl"
    inputs.write_bytes(pickle.dumps([list(c) for c in calls]))
    runner = tmp_path / "runner.py"
    runner.write_text(_RUNNER)
    ok, error = run_script([str(runner), str(module), str(inputs), str(outputs)])
    assert ok, error
    return pickle.loads(outputs.read_bytes())


def test_python_of_region_ops(tmp_path: pathlib.Path) -> None:
    source = python_source(parse(REGION_PROGRAM))
    x = np.array([1.0, 2.0, 0.5], np.float32)
    xs = np.arange(12, dtype=np.float32).reshape(4, 3)
    ((outs, _, _),) = run_generated(source, [(np.array(1, np.int64), x, xs)], tmp_path)
    assert int(outs[0]) == 5
    np.testing.assert_allclose(outs[1], x * x**4)
    np.testing.assert_allclose(outs[2], xs - x)


def test_python_of_seed_cond_and_buffer(tmp_path: pathlib.Path) -> None:
    chunks = _seed_chunks()
    x = np.array([0.1, 0.2, 0.3], np.float32)
    for chunk in chunks[1:3]:
        source = python_source(parse(chunk))
        res = run_generated(source, [(x, np.array(True)), (x, np.array(False))], tmp_path)
        np.testing.assert_allclose(res[0][0][0], np.sin(x), rtol=1e-6)
        np.testing.assert_allclose(res[1][0][0], np.cos(x), rtol=1e-6)
    # The buffer has no data in the seed: give it some, then it counts calls.
    module = parse(chunks[4])
    state = cast(StateOp, next(op for op in module.walk() if isinstance(op, StateOp)))
    state.value = blob_from_array(np.array(0, np.int64), DType.int64)
    source = python_source(module)
    ints = np.arange(4, dtype=np.int64)
    res = run_generated(source, [(ints,), (ints,), (ints,)], tmp_path)
    assert [list(r[0][0]) for r in res] == [list(ints * 1), list(ints * 2), list(ints * 3)]
    assert int(cast(np.ndarray, res[-1][2]["count"])) == 3


def test_python_module_main(tmp_path: pathlib.Path) -> None:
    source = python_source(parse(_seed_chunks()[0]))
    module = tmp_path / "add.py"
    module.write_text(source)
    np.savez(tmp_path / "in.npz", arg0=np.ones(1, np.float32), arg1=np.full(1, 2.0, np.float32))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [sys.executable, str(module), "--inputs", str(tmp_path / "in.npz"), "-o", str(tmp_path / "out.npz")],
        capture_output=True, text=True, check=False, env=env,
    )
    assert result.returncode == 0, result.stderr
    with np.load(tmp_path / "out.npz") as out:
        assert list(out) == ["out0"]
        np.testing.assert_array_equal(out["out0"], np.full(1, 3.0, np.float32))
    missing = subprocess.run(
        [sys.executable, str(module)], capture_output=True, text=True, check=False, env=env
    )
    assert missing.returncode != 0 and "--inputs is required" in missing.stderr


# ---------------------------------------------------------------------------
# Against torch
# ---------------------------------------------------------------------------

torch_available = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not torch_available, reason="torch is not installed")


def from_export(ep: Any, exact_names: bool = False, regions: bool = False) -> ModuleOp:
    """
    An exported program as exir IR, built with the Python API.

    `exact_names` keeps FX names verbatim (bypassing xDSL's suffix stripping);
    `regions` turns cond/while_loop/map calls into region ops.
    """
    import torch

    def name(value: SSAValue, fx_name: str) -> None:
        if exact_names:
            value._name = fx_name  # pyright: ignore[reportPrivateUsage] - torch.fx has no public way to force a node's name
        else:
            value.name_hint = fx_name

    def sym(v: Any) -> Any:
        if isinstance(v, int):
            return v
        return parse_python_expr(str(v.node.expr))

    def type_of(v: Any) -> Attribute:
        if isinstance(v, torch.Tensor):
            return TensorType([sym(s) for s in v.shape], DType(str(v.dtype)[6:]), str(v.device))
        if isinstance(v, torch.SymInt):
            return SymIntType(sym(v))
        if isinstance(v, torch.SymBool):
            return SymBoolType()
        if isinstance(v, torch.SymFloat):
            return SymFloatType()
        if isinstance(v, bool):
            return BoolType()
        if isinstance(v, int):
            return IntType()
        if isinstance(v, float):
            return FloatType()
        if isinstance(v, list | tuple):
            return TupleType([type_of(e) for e in v])
        raise NotImplementedError(type(v))

    def const(v: Any, env: dict[Any, SSAValue]) -> Any:
        if isinstance(v, torch.fx.Node):
            return env[v]
        if isinstance(v, list | tuple):
            return [const(e, env) for e in v]
        if isinstance(v, dict):
            return {k: const(e, env) for k, e in v.items()}
        if isinstance(v, torch.dtype):
            return DType(str(v)[6:])
        if isinstance(v, torch.device):
            return DeviceAttr(str(v))
        if isinstance(v, torch.layout):
            return Layout(str(v)[6:])
        if isinstance(v, torch.memory_format):
            return MemoryFormat(str(v)[6:])
        return v

    graphs: dict[str, GraphOp] = {}

    def block_of(gm: Any, arg_names: Sequence[str] | None) -> tuple[Block, list[Attribute]]:
        nodes = list(gm.graph.nodes)
        placeholders = [n for n in nodes if n.op == "placeholder"]
        block = Block(arg_types=[type_of(n.meta["val"]) for n in placeholders])
        env: dict[Any, SSAValue] = {}
        for n, arg in zip(placeholders, block.args):
            env[n] = arg
            name(arg, n.name)
        out_types: list[Attribute] = []
        op: Operation | None
        for n in nodes:
            if n.op == "get_attr":
                if regions:
                    continue
                sub = getattr(gm, n.target)
                if n.target not in graphs:
                    graphs[n.target] = GraphOp(n.target, [], [], None)
                    b, outs = block_of(sub, None)
                    graphs[n.target] = GraphOp(n.target, list(b.arg_types), outs, Region(b))
                op = GetAttrOp(n.target)
                block.add_op(op)
                env[n] = op.result
                name(op.result, n.name)
            elif n.op == "call_function":
                op = call(n, gm, env)
                if op is None:
                    continue
                block.add_op(op)
                if len(op.results) == 1 and not isinstance(op, CondOp | WhileLoopOp | MapOp):
                    env[n] = op.results[0]
                    name(op.results[0], n.name)
            elif n.op == "output":
                values = [env[a] for a in n.args[0]] if isinstance(n.args[0], list | tuple) else [env[n.args[0]]]
                block.add_op(OutputOp(values))
                out_types = [v.type for v in values]
        return block, out_types

    def region_of(gm: Any, attr: Any) -> Region:
        b, _ = block_of(getattr(gm, attr.target), None)
        return Region(b)

    def call(n: Any, gm: Any, env: dict[Any, SSAValue]) -> Operation | None:
        op: Operation
        t = n.target
        val = n.meta.get("val")
        if t is operator.getitem:
            src, index = n.args
            if src not in env:  # a result of a multi-result op
                owner = results_of[0][src]
                env[n] = owner.results[index]
                name(owner.results[index], n.name)
                return None
            op = GetItemOp(env[src], index)
            name(op.result, n.name)
            return op
        if isinstance(t, torch._ops.HigherOrderOperator):  # pyright: ignore[reportPrivateUsage] - torch exports HigherOrderOperator only from torch._ops
            kind = f"higher_order.{t.__name__}"
            if regions and kind == "higher_order.cond":
                pred, tg, fg, ops = n.args
                op = CondOp(env[pred], [env[o] for o in ops], [type_of(v) for v in val], region_of(gm, tg), region_of(gm, fg))
                results_of[0][n] = op
                return op
            if regions and kind == "higher_order.while_loop":
                cg, bg, carried, additional = n.args
                op = WhileLoopOp([env[c] for c in carried], [env[a] for a in additional], region_of(gm, cg), region_of(gm, bg))
                results_of[0][n] = op
                return op
            if regions and kind == "higher_order.map_impl":
                bg, xs, extra = n.args
                op = MapOp([env[x] for x in xs], [env[e] for e in extra], region_of(gm, bg))
                results_of[0][n] = op
                return op
            return CallFunctionOp(kind, const(list(n.args), env), const(dict(n.kwargs), env), [type_of(val)])
        if isinstance(t, torch._ops.OpOverload):  # pyright: ignore[reportPrivateUsage] - torch exports OpOverload only from torch._ops
            kind = f"{t.namespace}.{t._opname}.{t._overloadname}"
            if kind == "aten.sym_size.int":
                return SymSizeOp(env[n.args[0]], n.args[1], type_of(val))
            n_returns = len(t._schema.returns)
            types = [type_of(v) for v in val] if n_returns > 1 else [type_of(val) if not isinstance(val, list) else ListType(type_of(val[0]))]
            generic = CallFunctionOp(kind, const(list(n.args), env), const(dict(n.kwargs), env), types)
            op = from_call_function(generic) or generic
            if n_returns > 1:
                results_of[0][n] = op
            return op
        target = f"{t.__module__.removeprefix('_')}.{t.__name__}"
        if target in SYM_ARITH_OPS:
            return SYM_ARITH_OPS[target](*const(list(n.args), env))
        raise NotImplementedError(target)

    results_of: list[dict[Any, Operation]] = [{}]
    sig = ep.graph_signature
    inputs = [
        InputSpecAttr(InputKind[s.kind.name.lower()], s.arg.name, s.target, s.persistent)
        for s in sig.input_specs
    ]
    outputs = [
        OutputSpecAttr(OutputKind[s.kind.name.lower()], getattr(s.arg, "name", ""), s.target)
        for s in sig.output_specs
    ]
    state: list[Operation] = []
    for s in sig.input_specs:
        if s.target is None:
            continue
        t = ep.state_dict.get(s.target)
        if t is None:
            t = ep.constants[s.target]
        t = t.detach()
        dtype = DType(str(t.dtype)[6:])
        array = (t.float() if t.dtype == torch.bfloat16 else t).contiguous().numpy()
        state.append(StateOp(s.target, TensorType(list(t.shape), dtype), blob_from_array(array, dtype)))
    block, outs = block_of(ep.graph_module, None)
    forward = GraphOp("forward", list(block.arg_types), outs, Region(block))
    program = ProgramOp(inputs, outputs, [*state, forward, *graphs.values()])
    module = ModuleOp([program])
    module.verify()
    return module


def torch_fx_text(ep: Any) -> str:
    """torch's text of the program in `--emit fx` layout (subgraphs after the entry)."""
    parts = [str(ep.graph)]

    def subgraphs(gm: Any, prefix: str) -> None:
        for node in gm.graph.nodes:
            if node.op == "get_attr":
                sub = getattr(gm, node.target)
                path = prefix + node.target
                parts.append(f"# subgraph {path}\n{sub.graph}")
                subgraphs(sub, path + ".")

    subgraphs(ep.graph_module, "")
    return "\n\n".join(parts) + "\n"


# -- models -----------------------------------------------------------------

def _models() -> dict[str, Callable[[], tuple[Any, tuple[Any, ...], Any]]]:
    import torch

    class Add(torch.nn.Module):
        def forward(self, x: Any, y: Any) -> Any:
            return x + y

    class MLP(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc1 = torch.nn.Linear(8, 16)
            self.fc2 = torch.nn.Linear(16, 4)

        def forward(self, x: Any) -> Any:
            return self.fc2(torch.relu(self.fc1(x))).reshape(-1)

    class ConvNet(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
            self.bn = torch.nn.BatchNorm2d(8)
            self.pool = torch.nn.MaxPool2d(2)
            self.fc = torch.nn.Linear(8 * 4 * 4, 10)

        def forward(self, x: Any) -> Any:
            x = self.pool(torch.relu(self.bn(self.conv(x))))
            return self.fc(torch.flatten(x, 1)).softmax(-1)

    class Cond(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = torch.nn.Linear(3, 3)

        def forward(self, x: Any) -> Any:
            a = torch.cond(x.sum() > 0, lambda x: self.lin(x).sin(), lambda x: x.cos() * 2, [x])
            return torch.cond(a.mean() > 0.5, lambda a: (a + 1, a * 2), lambda a: (a - 1, a / 2), [a])

    class Buffer(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("count", torch.tensor(0))
            self.register_buffer("total", torch.zeros(4))

        def forward(self, x: Any) -> Any:
            count: Any = self.count
            count += 1  # in place: a buffer mutation
            total: Any = self.total
            total.add_(x)
            return x * count, total.sum()

    class Loop(torch.nn.Module):
        def forward(self, i: Any, x: Any) -> Any:
            from torch._higher_order_ops.while_loop import while_loop

            return while_loop(lambda i, x: i < 5, lambda i, x: (i + 1, x * 2), (i, x))

    class Map(torch.nn.Module):
        def forward(self, xs: Any, y: Any) -> Any:
            from torch._higher_order_ops.map import map as hmap

            return hmap(lambda x, y: x * y + 1, xs, y)

    class Dynamic(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            y = x.view(x.shape[0] * 2, -1).sum(dim=1, keepdim=True)
            return y + torch.ones(x.shape[0] * 2, 1, dtype=torch.float32)

    class Norm(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln = torch.nn.LayerNorm(6)

        def forward(self, x: Any) -> Any:
            values, indices = self.ln(x).max(dim=-1)
            return values, indices

    class NestedCond(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            def inner(x: Any) -> Any:
                return torch.cond(x.sum() > 1, lambda y: y.sin(), lambda y: y.cos(), [x])

            return torch.cond(x.sum() > 0, inner, lambda x: x * 2, [x])

    batch = torch.export.Dim("batch", min=1, max=64)
    return {
        "add": lambda: (Add(), (torch.randn(1), torch.randn(1)), None),
        "mlp": lambda: (MLP(), (torch.randn(5, 8),), None),
        "mlp_dynamic": lambda: (MLP(), (torch.randn(5, 8),), {"x": {0: batch}}),
        "convnet": lambda: (ConvNet().eval(), (torch.randn(2, 3, 8, 8),), None),
        "cond": lambda: (Cond(), (torch.randn(3),), None),
        "buffer": lambda: (Buffer(), (torch.randn(4),), None),
        "while_loop": lambda: (Loop(), (torch.tensor(0), torch.randn(3)), None),
        "map": lambda: (Map(), (torch.randn(4, 3), torch.randn(3)), None),
        "dynamic": lambda: (Dynamic(), (torch.randn(4, 6),), {"x": {0: batch}}),
        "norm": lambda: (Norm(), (torch.randn(2, 6),), None),
        "nested_cond": lambda: (NestedCond(), (torch.randn(3) + 0.5,), None),
    }


MODEL_NAMES = ["add", "mlp", "mlp_dynamic", "convnet", "cond", "buffer", "while_loop", "map", "dynamic", "norm"]


@functools.cache
def export(name: str, core: bool) -> tuple[Any, Any, tuple[Any, ...]]:
    """The model exported once per worker; the tests read the program and copy the model before running it."""
    import torch

    model, args, dynamic = _models()[name]()
    torch.manual_seed(0)
    ep = torch.export.export(model, args, dynamic_shapes=dynamic)
    if core:
        ep = ep.run_decompositions()
    return ep, model, args


@needs_torch
@pytest.mark.parametrize("core", [False, True], ids=["train", "core"])
@pytest.mark.parametrize("name", MODEL_NAMES)
def test_fx_text_matches_torch(name: str, core: bool) -> None:
    ep, _, _ = export(name, core)
    expected = torch_fx_text(ep)
    assert fx_text(from_export(ep, exact_names=True)) == expected
    # Through .mlir text the name suffixes are lost; the text is the same up to
    # a renaming (and exactly the same when names were made in node order).
    again = fx_text(round_trip(from_export(ep)))
    assert canonical(again) == canonical(expected)


@needs_torch
@pytest.mark.parametrize("name", ["cond", "while_loop", "map", "nested_cond"])
def test_fx_text_of_region_form_matches_torch(name: str) -> None:
    ep, _, _ = export(name, core=False)
    module = from_export(ep, exact_names=True, regions=True)
    assert not any(isinstance(op, GetAttrOp) for op in module.walk())
    assert fx_text(module) == torch_fx_text(ep)
    assert fx_text(round_trip(from_export(ep, regions=True))) == torch_fx_text(ep)


@needs_torch
@pytest.mark.parametrize("core", [False, True], ids=["train", "core"])
def test_python_of_nested_cond(core: bool, tmp_path: pathlib.Path) -> None:
    import torch

    ep, model, _ = export("nested_cond", core)
    source = python_source(from_export(ep, regions=True))
    assert source.count("    def true_graph_0(") == 2  # the inner one nested in the outer
    inputs = [torch.tensor([0.9, 0.5, 0.1]), torch.tensor([0.1, 0.2, 0.3]), -torch.ones(3)]
    results = run_generated(source, [[x.numpy()] for x in inputs], tmp_path)
    for x, (outs, _, _) in zip(inputs, results):
        np.testing.assert_allclose(outs[0], model(x).numpy(), rtol=1e-6)


@needs_torch
@pytest.mark.parametrize("regions", [False, True], ids=["calls", "regions"])
@pytest.mark.parametrize("core", [False, True], ids=["train", "core"])
@pytest.mark.parametrize("name", MODEL_NAMES)
def test_python_matches_torch_eager(name: str, core: bool, regions: bool, tmp_path: pathlib.Path) -> None:
    import copy

    import torch

    ep, model, args = export(name, core)
    source = python_source(from_export(ep, regions=regions))
    compile(source, "generated.py", "exec")
    eager = copy.deepcopy(model)
    torch.manual_seed(1)
    calls = []
    for _ in range(2):  # twice: buffer mutations must carry over
        fresh = tuple(torch.randn_like(a) if a.is_floating_point() else a.clone() for a in args)
        calls.append(fresh)
    expected = []
    for c in calls:
        with torch.no_grad():
            out = eager(*[a.clone() for a in c])
        flat = out if isinstance(out, tuple | list) else (out,)
        expected.append([o.detach().numpy() for o in flat])
    results = run_generated(source, [[a.numpy() for a in c] for c in calls], tmp_path)
    for (outs, _, _state), exp in zip(results, expected):
        assert len(outs) == len(exp)
        for got, want in zip(outs, exp):
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    if name == "buffer":
        final = cast(dict[str, np.ndarray], results[-1][2])
        np.testing.assert_allclose(final["total"], eager.total.numpy(), rtol=1e-5)
        assert int(final["count"]) == int(eager.count)


def _pt2_loader() -> Callable[[bytes, str], ModuleOp] | None:
    try:
        from xdsl_exir.frontends import pt2
    except ImportError:
        return None
    return getattr(pt2, "load_pt2", None)


needs_pt2 = pytest.mark.skipif(_pt2_loader() is None, reason="no .pt2 frontend yet")

NAMES_NOT_IN_NODE_ORDER = {"dynamic"}
"""Models whose FX names have suffixes a text round trip cannot recover (`sym_size_int_1`)."""


@needs_torch
@needs_pt2
@pytest.mark.parametrize("core", [False, True], ids=["train", "core"])
@pytest.mark.parametrize("name", [*MODEL_NAMES, "nested_cond"])
def test_fx_text_of_pt2_archives(name: str, core: bool, tmp_path: pathlib.Path) -> None:
    """
    The text of an imported archive is the text of the program torch exported.
    (torch's own `torch.export.load` gives back lists where export recorded the
    tuples of cond/while_loop operands; we print what export records.)
    """
    import torch

    load_pt2 = cast(Callable[[bytes, str], ModuleOp], _pt2_loader())
    ep, _, _ = export(name, core)
    path = tmp_path / f"{name}.pt2"
    torch.export.save(ep, str(path))
    text = fx_text(load_pt2(path.read_bytes(), str(path)))
    expected = torch_fx_text(ep)
    assert canonical(text) == canonical(expected)
    if name not in NAMES_NOT_IN_NODE_ORDER and not (core and name == "convnet"):
        assert text == expected


# ---------------------------------------------------------------------------
# The model zoo (tests/zoo): generated Python against torch eager, no torch needed
# ---------------------------------------------------------------------------

ZOO = ROOT / "tests" / "zoo"


def _zoo_programs() -> list[tuple[dict[str, Any], str]]:
    manifest = ZOO / "manifest.json"
    if not manifest.exists():
        return []
    import json

    models = json.loads(manifest.read_text())["models"]
    return [(m, ir) for m in models for ir in m["programs"]]


_ZOO_RUNNER = textwrap.dedent(
    """
    import importlib.util, pickle, sys
    import numpy as np
    spec = importlib.util.spec_from_file_location("generated", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if len(sys.argv) > 4:  # the kernels of the model's custom operators, as an installed package gives them
        kernels_spec = importlib.util.spec_from_file_location("kernels", sys.argv[4])
        kernels = importlib.util.module_from_spec(kernels_spec)
        kernels_spec.loader.exec_module(kernels)
        kernels.register()
    with open(sys.argv[2], "rb") as f:
        calls = pickle.load(f)
    results = []
    for args in calls:
        try:
            results.append(("ok", [np.asarray(o) for o in module.forward(*args)],
                            {k: np.array(v) for k, v in module.STATE.items() if v is not None}))
        except (module.InputError, RuntimeError) as e:
            results.append(("error", str(e), None))
    assert "torch" not in sys.modules, "the generated module imported torch"
    with open(sys.argv[3], "wb") as f:
        pickle.dump(results, f)
    """
)


def _npz(path: pathlib.Path) -> list[np.ndarray]:
    with np.load(path) as data:
        prefix = "arg" if "arg0" in data or not len(data.files) else "out"
        return [data[f"{prefix}{i}"] for i in range(len(data.files))]


@needs_pt2
@pytest.mark.parametrize(
    "model,ir", _zoo_programs(), ids=[f"{m['name']}-{ir}" for m, ir in _zoo_programs()]
)
def test_python_of_zoo_programs(model: dict[str, Any], ir: str, tmp_path: pathlib.Path) -> None:
    import pickle

    load_pt2 = cast(Callable[[bytes, str], ModuleOp], _pt2_loader())
    if model.get("custom_ops"):  # here and in the process running the generated module
        register_zoo_kernels()
    archive = ZOO / model["programs"][ir]
    try:
        imported = load_pt2(archive.read_bytes(), str(archive))
    except Exception as e:  # the frontend's business, tested in test_zoo.py
        pytest.skip(f"the .pt2 frontend refuses the archive: {e}")
    try:
        source = python_source(imported)
    except ExirDiagnostic as e:
        if "no numpy kernel" not in str(e):
            raise
        pytest.skip(f"the kernels library lacks an operator: {e}")  # so does the interpreter
    sets = model["input_sets"]
    calls = [_npz(ZOO / s["inputs"]) for s in sets]
    second = model.get("expected_call2")
    if second:
        calls.append(calls[0])  # the same inputs again, with the state the first call left
    invalid = model.get("invalid_input_sets", [])
    calls += [_npz(ZOO / s["inputs"]) for s in invalid]

    module = tmp_path / "generated.py"
    module.write_text(source)
    (tmp_path / "runner.py").write_text(_ZOO_RUNNER)
    (tmp_path / "calls.pkl").write_bytes(pickle.dumps(calls))
    custom = bool(model.get("custom_ops"))
    ok, error = run_script(
        [str(tmp_path / "runner.py"), str(module), str(tmp_path / "calls.pkl"), str(tmp_path / "out.pkl")]
        + ([str(ZOO / "mylib_kernels.py")] if custom else []),
        fresh=custom,
    )
    assert ok, error
    results = pickle.loads((tmp_path / "out.pkl").read_bytes())

    tol = model.get("tolerance") or {"rtol": 1e-5, "atol": 1e-6}
    expected = [_npz(ZOO / s["expected"]) for s in sets]
    if second:
        expected.append(_npz(ZOO / second))
    for (status, outs, _), want in zip(results, expected):
        assert status == "ok", outs
        assert len(outs) == len(want)
        for got, exp in zip(outs, want):
            assert got.dtype == exp.dtype and got.shape == exp.shape
            np.testing.assert_allclose(got, exp, rtol=tol["rtol"], atol=tol["atol"])
    if model.get("state_after"):
        with np.load(ZOO / model["state_after"]) as after:
            state = results[0][2]
            for key in after.files:
                np.testing.assert_allclose(state[key], after[key], rtol=1e-6)
    for (status, message, _), spec in zip(results[len(expected):], invalid):
        assert status == "error"
        for word in spec.get("error_mentions", []):
            assert word in message


# ---------------------------------------------------------------------------
# symbolic_trace graphs (the fx dialect), through the live importer
# ---------------------------------------------------------------------------


def _live_importer() -> Callable[..., ModuleOp] | None:
    if not torch_available:
        return None
    try:
        from xdsl_exir.frontends import torch_live
    except ImportError:
        return None
    return getattr(torch_live, "import_graph_module", None)


@pytest.mark.skipif(_live_importer() is None, reason="no live torch importer")
def test_fx_text_of_symbolic_trace() -> None:
    """call_module, call_method, get_attr of a parameter, slices and Ellipsis in indices."""
    import torch

    class Traced(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(8, 4)
            self.seq = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Linear(4, 4))
            self.scale = torch.nn.Parameter(torch.ones(4))

        def forward(self, x):  # unannotated: symbolic_trace prints annotations
            n = x.size(0)
            y = (self.seq(self.fc(x)) * self.scale).view(n, -1)[:, :2]
            return torch.relu(y).sum(dim=1) + y[..., 0]

    gm = torch.fx.symbolic_trace(Traced())
    module = cast(Callable[..., ModuleOp], _live_importer())(gm, (torch.randn(3, 8),))
    # The importer flattens the output pytree: a lone output reads as a 1-tuple.
    assert fx_text(module) == str(gm.graph).replace("return add", "return (add,)") + "\n"
