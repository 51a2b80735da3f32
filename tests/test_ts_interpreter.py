"""
The TorchScript interpreter (`interpreters/ts_runner.py`, `ts_functions.py`,
`ts_builtins.py`) against torch.jit: scripted and traced graphs built in
process, the fused graphs of the legacy and TensorExpr fusers, modules with
state, the committed dump fixtures, and every error path.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch import Tensor  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from ts_graphs import assert_same, graph_module, to_numpy  # noqa: E402 - after pytest.importorskip, so the module skips without torch

from xdsl_exir.interpreters.compiler import InterpreterError  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from xdsl_exir.interpreters.ts_builtins import ScriptException, ts_str  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from xdsl_exir.interpreters.ts_runner import TorchScriptRunner  # noqa: E402 - after pytest.importorskip, so the module skips without torch


def run_script(fn: Any, *args: Any, rtol: float = 1e-5) -> Any:
    """Script `fn`, run it with torch and with the interpreter, compare; return our outputs."""
    scripted = fn if isinstance(fn, torch.jit.ScriptFunction) else torch.jit.script(fn)
    runner = TorchScriptRunner(graph_module(scripted.graph))
    ours = runner.run([to_numpy(a) for a in args])
    theirs = scripted(*[a.clone() if isinstance(a, torch.Tensor) else a for a in args])
    assert len(ours) == 1
    assert_same(ours[0], theirs, rtol=rtol)
    return ours[0]


# ---------------------------------------------------------------------------
# seed examples and control flow
# ---------------------------------------------------------------------------


def lstm_cell(x: Tensor, hx: Tensor, cx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor, b_hh: Tensor):
    gates = x.mm(w_ih.t()) + hx.mm(w_hh.t()) + b_ih + b_hh
    ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
    ingate = torch.sigmoid(ingate)
    forgetgate = torch.sigmoid(forgetgate)
    cellgate = torch.tanh(cellgate)
    outgate = torch.sigmoid(outgate)
    cy = (forgetgate * cx) + (ingate * cellgate)
    hy = outgate * torch.tanh(cy)
    return hy, cy


def lstm_inputs() -> list[Tensor]:
    g = torch.Generator().manual_seed(0)
    shapes = [(3, 10), (3, 20), (3, 20), (80, 10), (80, 20), (80,), (80,)]
    return [torch.randn(s, generator=g) for s in shapes]


def test_lstm_cell() -> None:
    run_script(lstm_cell, *lstm_inputs())


def if_else(a: Tensor, b: Tensor, c: bool):
    d = a + b
    if c:
        e = d + d
    else:
        e = b + d
    return e


@pytest.mark.parametrize("c", [True, False])
def test_if_else_both_branches(c: bool) -> None:
    run_script(if_else, torch.randn(2, 3), torch.randn(2, 3), c)


def seed_forward(x: Tensor, y: int, z: float):
    if y > 2:
        x = x + z
    else:
        x = x + y
    return x


@pytest.mark.parametrize("y", [1, 3])
def test_seed_method_example(y: int) -> None:
    run_script(seed_forward, torch.randn(2, 2), y, 0.25)


def for_loop(x: Tensor):
    z = x
    for i in range(x.size(0)):
        z = z * z + i
    return z


def test_for_loop() -> None:
    run_script(for_loop, torch.rand(3, 2))


def while_continue(x: Tensor, i: int):
    while i < 5:
        if i == 3:
            i += 1
            continue
        i += 2
        x = x + i
    return x, i


@pytest.mark.parametrize("i", [0, 3, 7])
def test_while_with_continue(i: int) -> None:
    run_script(while_continue, torch.randn(2), i)


def while_break(x: Tensor, n: int):
    k = 0
    while True:
        k += 1
        x = x * 2
        if k >= n:
            break
    return x, k


def test_while_true_with_break() -> None:
    run_script(while_break, torch.randn(3), 4)


def early_return(x: Tensor, flag: bool):
    if flag:
        return x * 2
    y = x + 1
    return y * y


@pytest.mark.parametrize("flag", [True, False])
def test_early_return(flag: bool) -> None:
    run_script(early_return, torch.randn(3), flag)


def loop_return(x: Tensor, n: int):
    for i in range(10):
        if i == n:
            return x * i
        x = x + 1
    return x


@pytest.mark.parametrize("n", [1, 5, 20])
def test_return_inside_loop(n: int) -> None:
    run_script(loop_return, torch.randn(2), n)


def nested_control(x: Tensor, n: int):
    total = 0
    for i in range(n):
        if i % 2 == 0:
            j = 0
            while j < i:
                x = x + j
                j += 1
        else:
            total += i
    return x, total


def test_nested_control() -> None:
    run_script(nested_control, torch.randn(2), 6)


# ---------------------------------------------------------------------------
# containers and strings
# ---------------------------------------------------------------------------


def list_ops(x: Tensor, n: int):
    xs: List[Tensor] = []
    sizes: List[int] = []
    for i in range(n):
        xs.append(x * i)
        sizes.append(i * i)
    sizes[1] = -sizes[-1]
    sizes.insert(0, 7)
    last = sizes.pop()
    total = 0
    for s in sizes:
        total += s
    ys = xs[1:3]
    return torch.cat(xs, 0), len(xs), sizes, total, last, 4 in sizes, len(ys), sizes[::2]


def test_list_ops() -> None:
    run_script(list_ops, torch.randn(2, 2), 4)


def tuple_ops(x: Tensor, y: Tensor):
    t = (x, y, 3)
    a, b, c = t
    u = (a + b, (c, x.sum()))
    return u[1][0] * 2, u, t[-1]


def test_tuple_ops() -> None:
    run_script(tuple_ops, torch.randn(2), torch.randn(2))


def dict_ops(x: Tensor, y: Tensor):
    d: Dict[str, Tensor] = {"x": x}
    d["y"] = y
    keys = d.keys()
    out = d["x"] + d["y"]
    counts: Dict[int, int] = {}
    for k in [1, 2, 1, 3, 1]:
        counts[k] = counts.get(k, 0) + 1
    return out, len(d), "y" in d, keys, counts, list(counts.values()), d.pop("x").sum()


def test_dict_ops() -> None:
    run_script(dict_ops, torch.randn(2, 2), torch.randn(2, 2))


def string_ops(n: int, f: float):
    name = "item_" + str(n)
    msg = "{}:{}:{}".format(name, n, f)
    parts = "a,b,,c".split(",")
    return name, msg, name == "item_2", len(msg), parts, "-".join(parts), msg.upper(), name[1:3], str([f, 1.0]), str((n, "x"))


@pytest.mark.parametrize("n,f", [(2, 1.0), (5, 0.1), (-3, 1e20)])
def test_string_ops(n: int, f: float) -> None:
    run_script(string_ops, n, f)


def test_float_printing_matches_torch() -> None:
    @torch.jit.script
    def show(a: float) -> str:
        return str(a)

    for v in [1.0, 1.5, 0.1, 1e20, 1e-7, 123456789.0, float("inf"), float("-inf"), float("nan"), 1 / 3, 1e16, 9.3e18, -2.5]:
        assert ts_str(v) == show(v), v


def optional_refine(x: Tensor, n: Optional[int], t: Optional[Tensor]):
    if n is not None:
        x = x + n
    if t is None:
        return x
    return x * t


def test_optional_refinement() -> None:
    run_script(optional_refine, torch.randn(2), 3, torch.randn(2))
    run_script(optional_refine, torch.randn(2), None, None)


# ---------------------------------------------------------------------------
# scalar arithmetic edge cases
# ---------------------------------------------------------------------------


def int_arith(a: int, b: int):
    return a + b, a - b, a * b, a // b, a % b, a / b, -a, a ** 2, a < b, a == b, max(a, b), min(a, b), abs(a), a & b, a | b, a ^ b


@pytest.mark.parametrize(
    "a,b", [(7, 2), (-7, 2), (7, -2), (-7, -2), (2**63 - 1, 1), (-(2**63), 3), (2**62, 4), (0, 5)]
)
def test_int_arithmetic(a: int, b: int) -> None:
    run_script(int_arith, a, b)


def float_arith(a: float, b: float):
    return a + b, a - b, a * b, a / b, a // b, a % b, a ** b, a < b, max(a, b), int(a), float(int(b)), math.floor(a), math.ceil(b), math.sqrt(abs(a)), round(a)


@pytest.mark.parametrize("a,b", [(7.5, 2.0), (-7.5, 2.0), (1.0, 0.0), (-1.0, 0.0), (0.0, 0.0), (2.5, -0.5), (1e15, 3.0), (3.5, 0.5)])
def test_float_arithmetic(a: float, b: float) -> None:
    ours = run_script(float_arith, a, b)
    assert isinstance(ours, tuple)


def float_to_int(a: float):
    return int(a), math.floor(a)


def float_int(a: float):
    return int(a)


@pytest.mark.parametrize("v", [float("nan"), float("inf"), -1e30, 9.3e18, 9.2e18, -2.5])
def test_float_to_int_wraps_as_torch_does(v: float) -> None:
    run_script(float_int, v)


def test_float_to_int_conversions() -> None:
    run_script(float_to_int, -2.5)
    scripted = torch.jit.script(float_to_int)
    runner = TorchScriptRunner(graph_module(scripted.graph))
    # math.floor refuses what int() wraps, with torch's message
    with pytest.raises(Exception, match="Cannot convert float nan to integer"):
        scripted(float("nan"))
    with pytest.raises(ScriptException, match="RuntimeError: Cannot convert float nan to integer"):
        runner.run([float("nan")])


def mixed_arith(a: int, b: float, c: bool):
    return a + b, a * b, b / a, a > b, int(c) + a, float(a), bool(a), c and a > 0, not c, a ** -1


def test_mixed_arithmetic() -> None:
    run_script(mixed_arith, 3, 2.5, True)
    run_script(mixed_arith, -4, 0.5, False)


def int_floordiv(a: int, b: int):
    return a // b


def int_mod(a: int, b: int):
    return a % b


def test_integer_division_by_zero_raises() -> None:
    scripted = torch.jit.script(int_floordiv)
    with pytest.raises(Exception, match="division by 0"):
        scripted(7, 0)
    runner = TorchScriptRunner(graph_module(scripted.graph))
    with pytest.raises(ScriptException, match="ZeroDivisionError: division by 0"):
        runner.run([7, 0])
    # torch's own interpreter dies of SIGFPE on `7 % 0`; here it is an error too.
    runner = TorchScriptRunner(graph_module(torch.jit.script(int_mod).graph))
    with pytest.raises(ScriptException, match="ZeroDivisionError"):
        runner.run([7, 0])


def tensor_scalar_conversions(x: Tensor, n: int):
    s = x.sum()
    k = int(s)
    f = float(s)
    b = bool(s > 0)
    t = torch.tensor([1.5, 2.0])
    u = torch.tensor(n)
    return k, f, b, t, u, s.item(), x.size(0), x.dim(), x.shape, x.size(), x.dtype, x.device, len(x), x.numel()


def test_tensor_scalar_conversions() -> None:
    run_script(tensor_scalar_conversions, torch.tensor([[1.5, -2.25], [3.0, 0.5]]), 4)


def int_tensors(x: Tensor, y: Tensor):
    return x // y, x % y, torch.arange(5), torch.zeros(2, 3, dtype=torch.int64), x.to(torch.float64) / 2, (x > 1) & (y > 1)


def test_integer_tensors() -> None:
    run_script(int_tensors, torch.tensor([7, -7, 5, 0]), torch.tensor([2, 2, -3, 4]))


# ---------------------------------------------------------------------------
# mutation and aliasing
# ---------------------------------------------------------------------------


def inplace_through_views(x: Tensor):
    row = x.select(0, 1)
    row.add_(10)
    x[0] = x[2] * 2
    col = x.t()[1]
    col.mul_(-1)
    v = x.view(-1)
    v[0] = 99.0
    x[1:, 2:4].fill_(-3.0)
    x.narrow(1, 3, 1).unsqueeze(0).squeeze(0).mul_(0.5)
    x.add_(1)
    return x


def test_in_place_ops_write_through_views() -> None:
    ours = run_script(inplace_through_views, torch.arange(12.0).reshape(3, 4))
    assert ours[0, 0] == 100.0


def test_in_place_op_mutates_the_callers_tensor() -> None:
    def bump(x: Tensor):
        x.mul_(2)
        return x.sum()

    runner = TorchScriptRunner(graph_module(torch.jit.script(bump).graph))
    a = np.ones(3, dtype=np.float32)
    (out,) = runner.run([a])
    assert float(out) == 6.0
    np.testing.assert_array_equal(a, [2, 2, 2])


def list_aliasing(x: Tensor):
    a: List[Tensor] = [x]
    b = a
    b.append(x + 1)
    return len(a)


def test_lists_are_shared_references() -> None:
    assert run_script(list_aliasing, torch.randn(2)) == 2


# ---------------------------------------------------------------------------
# calls, fork, exceptions
# ---------------------------------------------------------------------------


@torch.jit.script
def helper_scale(x: Tensor, s: float) -> Tensor:
    return x * s


def call_other(x: Tensor):
    return helper_scale(x, 2.0) + helper_scale(x, 0.5)


def test_call_function() -> None:
    scripted = torch.jit.script(call_other)
    module = graph_module(scripted.graph, extra={"helper_scale": helper_scale.graph})
    runner = TorchScriptRunner(module, entry="forward")
    x = torch.randn(3)
    assert_same(runner.run([x.numpy()])[0], scripted(x))


def test_call_function_missing_callee() -> None:
    scripted = torch.jit.script(call_other)
    runner = TorchScriptRunner(graph_module(scripted.graph))
    with pytest.raises(InterpreterError, match="'helper_scale' is not in the input"):
        runner.run([np.ones(2, dtype=np.float32)])


def fork_wait(x: Tensor):
    fut = torch.jit.fork(helper_scale, x, 2.0)
    y = x + 1.0
    z = torch.jit.wait(fut)
    return y + z


def test_fork_and_wait() -> None:
    scripted = torch.jit.script(fork_wait)
    module = graph_module(scripted.graph, extra={"helper_scale": helper_scale.graph})
    runner = TorchScriptRunner(module, entry="forward")
    x = torch.randn(4)
    assert_same(runner.run([x.numpy()])[0], scripted(x))


def raise_check(x: Tensor, n: int):
    if n < 0:
        raise ValueError("n must be non-negative")
    assert n != 3, "three!"
    return x * float(n)


def test_raise_exception() -> None:
    scripted = torch.jit.script(raise_check)
    runner = TorchScriptRunner(graph_module(scripted.graph))
    x = torch.randn(2)
    assert_same(runner.run([x.numpy(), 2])[0], scripted(x, 2))
    with pytest.raises(torch.jit.Error, match="builtins.ValueError: n must be non-negative"):
        scripted(x, -1)
    with pytest.raises(ScriptException, match="builtins.ValueError: n must be non-negative") as info:
        runner.run([x.numpy(), -1])
    assert info.value.python_class == "builtins.ValueError"
    assert info.value.op is not None and info.value.op.name == "prim.RaiseException"
    with pytest.raises(ScriptException, match="AssertionError: three!"):
        runner.run([x.numpy(), 3])


# ---------------------------------------------------------------------------
# fusion groups and profiled graphs
# ---------------------------------------------------------------------------


def _traced_lstm_graph() -> Any:
    traced = torch.jit.trace(lstm_cell, tuple(lstm_inputs()))
    return traced.graph.copy()


class _Fuser:
    """Turn a CPU fuser on for a block (legacy FusionGroups or TensorExpr groups), then restore."""

    def __init__(self, *, legacy: bool = False, texpr: bool = False) -> None:
        self.legacy, self.texpr = legacy, texpr

    def __enter__(self) -> None:
        c = torch._C
        self.saved = (c._jit_can_fuse_on_cpu(), c._jit_can_fuse_on_cpu_legacy(), c._jit_texpr_fuser_enabled(),
                      c._jit_get_te_must_use_llvm_cpu())
        c._jit_override_can_fuse_on_cpu(self.texpr or self.legacy)
        c._jit_override_can_fuse_on_cpu_legacy(self.legacy)
        c._jit_set_texpr_fuser_enabled(self.texpr)
        c._jit_set_te_must_use_llvm_cpu(False)

    def __exit__(self, *exc: object) -> None:
        c = torch._C
        cpu, legacy, texpr, llvm = self.saved
        c._jit_override_can_fuse_on_cpu(cpu)
        c._jit_override_can_fuse_on_cpu_legacy(legacy)
        c._jit_set_texpr_fuser_enabled(texpr)
        c._jit_set_te_must_use_llvm_cpu(llvm)


def test_fusion_group() -> None:
    graph = _traced_lstm_graph()
    with _Fuser(legacy=True):
        torch._C._jit_pass_fuse(graph, False)
    assert "prim::FusionGroup" in str(graph)
    runner = TorchScriptRunner(graph_module(graph))
    inputs = lstm_inputs()
    ours = runner.run([t.numpy() for t in inputs])
    assert_same(ours[0], lstm_cell(*inputs))


def test_tensor_expr_group() -> None:
    graph = _traced_lstm_graph()
    with _Fuser(texpr=True):
        torch._C._jit_pass_fuse_tensorexprs(graph)
    assert "prim::TensorExprGroup" in str(graph) and "prim::TypeCheck" in str(graph)
    runner = TorchScriptRunner(graph_module(graph))
    inputs = lstm_inputs()
    assert_same(runner.run([t.numpy() for t in inputs])[0], lstm_cell(*inputs))
    # Non-contiguous inputs fail the TypeCheck and take the fallback graph: same values.
    odd = [*inputs[:5], torch.randn(160)[::2], inputs[6]]
    assert_same(runner.run([t.numpy() for t in odd])[0], lstm_cell(*odd))


# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------


def test_wrong_number_of_inputs() -> None:
    runner = TorchScriptRunner(graph_module(torch.jit.script(if_else).graph))
    with pytest.raises(InterpreterError, match=r"takes 3 inputs \(a: Tensor, b: Tensor, c: bool\), got 2"):
        runner.run([np.ones(2), np.ones(2)])
    with pytest.raises(InterpreterError, match="takes 3 flat inputs"):
        runner.run_flat([np.ones(2)])


def test_wrong_input_types() -> None:
    runner = TorchScriptRunner(graph_module(torch.jit.script(seed_forward).graph))
    x = np.ones(2, dtype=np.float32)
    with pytest.raises(InterpreterError, match=r"input 1 \('y'\) is an int, got a float64 array"):
        runner.run_flat([x, np.asarray(2.5), np.asarray(0.5)])
    with pytest.raises(InterpreterError, match=r"input 0 \('x'\) is a tensor, got int 3"):
        runner.run([3, 1, 0.5])
    runner = TorchScriptRunner(graph_module(_traced_lstm_graph()))
    inputs = [t.numpy() for t in lstm_inputs()]
    inputs[2] = inputs[2].astype(np.float64)
    with pytest.raises(InterpreterError, match=r"input 2 \('cx'\) is a Float tensor \(float32\), got a float64 array"):
        runner.run(inputs)
    inputs[2] = np.ones(3, dtype=np.float32)
    with pytest.raises(InterpreterError, match=r"input 2 \('cx'\) is a tensor of rank 2"):
        runner.run(inputs)


def test_unknown_operator() -> None:
    graph = torch.jit.script(if_else).graph
    module = graph_module(graph)
    node = next(op for op in module.walk() if op.name == "ts.node")
    node.kind = type(node.kind)("aten::frobnicate")  # pyright: ignore[reportAttributeAccessIssue] - a ts.node, found by name
    with pytest.raises(InterpreterError, match="no implementation of aten::frobnicate"):
        TorchScriptRunner(module)


# ---------------------------------------------------------------------------
# modules: slots, submodule calls, state across calls
# ---------------------------------------------------------------------------


class Sub(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.scale = torch.nn.Parameter(torch.linspace(0.5, 2.0, 4))
        self.offset = 1.5

    def forward(self, y: Tensor) -> Tensor:
        return torch.relu(y) * self.scale + self.offset


class Composed(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(3, 4)
        self.sub = Sub()
        self.repeats = 2
        self.calls = 0
        self.register_buffer("total", torch.zeros(4))

    def forward(self, x: Tensor) -> Tuple[Tensor, int]:
        y = self.lin(x)
        for _ in range(self.repeats):
            y = self.sub(y)
        self.total.add_(y.sum(0))
        self.calls = self.calls + 1
        return y * self.total, self.calls


def test_module_with_submodules_and_state() -> None:
    from ts_graphs import script_module

    torch.manual_seed(0)
    scripted = torch.jit.script(Composed())
    ir = script_module(scripted, {"": ["repeats", "calls"], "sub": ["offset"]})
    runner = TorchScriptRunner(ir)
    assert len(runner.input_types) == 1  # `self` is the module, not an input
    for _ in range(3):  # the buffer and the `calls` attribute change on every call, in both
        x = torch.randn(2, 3)
        ours = runner.run([x.numpy()])
        assert_same(tuple(ours[0]), scripted(x))
    assert runner.self_object is not None and runner.self_object.attrs["calls"] == 3


def test_method_entry_and_missing_state() -> None:
    from ts_graphs import script_module

    scripted = torch.jit.script(Composed())
    ir = script_module(scripted, {"": ["repeats", "calls"], "sub": ["offset"]})
    with pytest.raises(InterpreterError, match="has no method 'backward'"):
        TorchScriptRunner(ir, entry="backward")
    # The forward graph alone (what a dump holds) reads `self`, whose state is not there.
    alone = graph_module(scripted.forward.graph)
    with pytest.raises(InterpreterError, match="this graph is a method of __torch__.*Composed; its module's state is not in the input"):
        TorchScriptRunner(alone)
    # An attribute slot left out of the module: reading it is located.
    partial = script_module(scripted, {"sub": ["offset"]})
    runner = TorchScriptRunner(partial)
    with pytest.raises(InterpreterError, match="'prim::GetAttr'.*has no attribute 'repeats'"):
        runner.run([np.ones((2, 3), dtype=np.float32)])


# ---------------------------------------------------------------------------
# the committed dumps (tests/torchscript) and exir-run
# ---------------------------------------------------------------------------

FIXTURES = Path(__file__).parent / "torchscript"

_NOT_RUNNABLE = {
    # A dump of a module's method holds no weights (methods that never read `self` still run).
    "module_callmethod/*": "its module's state is not in the input",
    "trace_cnn/forward": "its module's state is not in the input",
    "trace_cnn/inlined": "its module's state is not in the input",
    "trace_cnn/conv.forward": "its module's state is not in the input",
    "trace_cnn/bn.forward": "its module's state is not in the input",
    "trace_cnn/fc.forward": "its module's state is not in the input",
    # A frozen module's weights print as <Tensor>.
    "module_frozen/*": "the data of this tensor constant is not in the input",
    # The called function's graph is not in the dump (the inlined dump of call_other runs).
    "fork_wait/*": "the function 'fork_helper' is not in the input",
    "call_other/graph": "the function 'helper_scale' is not in the input",
    # The scripted class Counter (with __enter__/__exit__) is not in the dump.
    "with_stmt/*": "the class __torch__.models.Counter is not in the input",
}
_OTHER_DATA = {"trace_cnn/pool.forward"}
"""Methods of a submodule that run without `self`, whose data is for the whole model."""


def _fixture_cases() -> list[Any]:
    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    cases = []
    for entry in manifest:
        for dump_name, dump in entry["dumps"].items():
            for variant, data in entry["data"].items():
                case = f"{entry['name']}/{dump_name}"
                cases.append(pytest.param(case, dump, data, id=f"{case}/{variant}"))
    return cases


def _npz_split(path: Path) -> tuple[list[np.ndarray], list[np.ndarray]]:
    with np.load(path) as d:
        args = [d[f"arg{i}"] for i in range(sum(k.startswith("arg") for k in d.files))]
        outs = [d[f"out{i}"] for i in range(sum(k.startswith("out") for k in d.files))]
    return args, outs


@pytest.mark.parametrize("case,dump,data", _fixture_cases())
def test_fixture_dumps(case: str, dump: str, data: str) -> None:
    from xdsl_exir.frontends.torchscript_dump_reader import parse_torchscript

    module = parse_torchscript((FIXTURES / dump).read_text(), dump)
    args, expected = _npz_split(FIXTURES / data)
    reason = _NOT_RUNNABLE.get(case) or _NOT_RUNNABLE.get(case.split("/")[0] + "/*")
    if reason is not None:
        with pytest.raises(InterpreterError, match=re.escape(reason)):
            TorchScriptRunner(module).run_flat(args)
        return
    if case in _OTHER_DATA:
        (pooled,) = TorchScriptRunner(module).run_flat([np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)])
        np.testing.assert_array_equal(pooled, [[[[5, 7], [13, 15]]]])
        return
    outputs = TorchScriptRunner(module).run_flat(args)
    assert len(outputs) == len(expected)
    for ours, theirs in zip(outputs, expected):
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, (ours, theirs)
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def _exir_run(*argv: str, capsys: Any) -> tuple[int, str, str]:
    from xdsl_exir.tools import exir_run

    try:
        code = exir_run.run(list(argv))
    except SystemExit as e:
        code = int(e.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_exir_run_on_a_dump(tmp_path: Path, capsys: Any) -> None:
    args, expected = _npz_split(FIXTURES / "data" / "lstm_cell.npz")
    np.savez(tmp_path / "in.npz", **{f"arg{i}": a for i, a in enumerate(args)})
    code, _, err = _exir_run(
        str(FIXTURES / "dumps" / "lstm_cell.txt"), "--inputs", str(tmp_path / "in.npz"), "-o", str(tmp_path / "out.npz"),
        capsys=capsys,
    )
    assert code == 0, err
    with np.load(tmp_path / "out.npz") as out:
        assert sorted(out.files) == ["out0", "out1"]
        for i, e in enumerate(expected):
            np.testing.assert_allclose(out[f"out{i}"], e, rtol=1e-5, atol=1e-6)


def test_exir_run_errors(tmp_path: Path, capsys: Any) -> None:
    dump = str(FIXTURES / "dumps" / "raise_check.txt")
    x = np.ones((2, 2), dtype=np.float32)
    cases = {
        "raises": ({"arg0": x, "arg1": np.asarray(-1)},
                   r"models\.py:207:8: 'prim::RaiseException' in @forward: builtins\.ValueError: n must be non-negative"),
        "dtype": ({"arg0": x, "arg1": np.asarray(1.5)}, r"input 1 \('n\.1'\) is an int, got a float64 array"),
        "count": ({"arg0": x}, r"takes 2 user inputs \(x\.1, n\.1\) as arg0\.\.arg1; missing arg1 \(n\.1\)"),
    }
    for name, (arrays, message) in cases.items():
        np.savez(tmp_path / f"{name}.npz", **arrays)
        code, out, err = _exir_run(dump, "--inputs", str(tmp_path / f"{name}.npz"), "-o", str(tmp_path / "o.npz"), capsys=capsys)
        assert code == 1 and not out, name
        assert err.startswith("exir-run: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
        assert re.search(message, err), (name, err)
        assert not (tmp_path / "o.npz").exists()
    code, _, err = _exir_run(str(FIXTURES / "dumps" / "module_callmethod.forward.txt"), "--random-inputs", "0", capsys=capsys)
    assert code == 1 and "this graph is a method of __torch__.models.ComposedModule" in err


# ---------------------------------------------------------------------------
# executor nodes and refused ops, in hand-written IR
# ---------------------------------------------------------------------------


def _parse_ir(text: str) -> Any:
    from xdsl.context import Context
    from xdsl.dialects.builtin import Builtin
    from xdsl.parser import Parser

    from xdsl_exir.dialects.exir import Exir
    from xdsl_exir.dialects.prim import Prim
    from xdsl_exir.dialects.ts import TS

    ctx = Context()
    for dialect in (Builtin, Exir, TS, Prim):
        ctx.load_dialect(dialect)
    module = Parser(ctx, text, "test.mlir").parse_module()
    module.verify()
    return module


_EXECUTOR_IR = """
ts.method @forward {
^bb0(%x: !ts.tensor<Float(4, 6, strides=[6, 1], requires_grad=0, device=cpu)>):
  %g = prim.Guard(%x) : (!ts.tensor<Float(4, 6, strides=[6, 1], requires_grad=0, device=cpu)>) -> !ts.tensor<Float(4, 6)>
  %p = prim.profile(%g) : (!ts.tensor<Float(4, 6)>) -> !ts.tensor
  %b = prim.BailOut(%p) {index = 0 : i64} : (!ts.tensor) -> !ts.tensor
  %a, %c, %d = prim.ConstantChunk(%b) {chunks = 3 : i64, dim = 1 : i64} : (!ts.tensor) -> (!ts.tensor, !ts.tensor, !ts.tensor)
  %one = prim.Constant() {value = 1 : i64} : () -> !ts.int
  %s = ts.node "aten::sub"(%d, %a, %one) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  prim.Return(%s, %c) : (!ts.tensor, !ts.tensor) -> ()
}
"""


def test_guard_profile_bailout_constant_chunk() -> None:
    runner = TorchScriptRunner(_parse_ir(_EXECUTOR_IR))
    x = torch.arange(24.0).reshape(4, 6)
    a, c, d = x.chunk(3, 1)
    ours = runner.run([x.numpy()])
    assert_same(ours, [d - a, c])
    with pytest.raises(InterpreterError, match="input 0 .* rank 2"):
        runner.run([np.ones(4, dtype=np.float32)])
    # A guard on the wrong sizes fails, located at the guard.
    with pytest.raises(InterpreterError, match=r"'prim::Guard' \(%g\) in @forward: prim::Guard failed"):
        runner.run([np.ones((4, 5), dtype=np.float32)])


def test_constant_chunk_needs_its_chunks() -> None:
    runner = TorchScriptRunner(_parse_ir(_EXECUTOR_IR.replace("Float(4, 6)", "Float(4, 2)").replace(
        "Float(4, 6, strides=[6, 1], requires_grad=0, device=cpu)", "Float(4, 2, strides=[2, 1], requires_grad=0, device=cpu)")))
    with pytest.raises(ScriptException, match="Expected chunk to return at least 3 outputs, but got only 2"):
        runner.run([np.ones((4, 2), dtype=np.float32)])


def unpack_list(xs: List[int]):
    a, b = xs
    return a + b


def test_list_unpack_length_matches_torch() -> None:
    scripted = torch.jit.script(unpack_list)
    with pytest.raises(Exception, match="Expected 2 elements in a list but found 1"):
        scripted([1])
    runner = TorchScriptRunner(graph_module(scripted.graph))
    assert runner.run([[3, 4]]) == [7]
    with pytest.raises(ScriptException, match="RuntimeError: Expected 2 elements in a list but found 1"):
        runner.run([[1]])


@pytest.mark.parametrize("op", ['prim.Store(%x) {name = "y"} : (!ts.int) -> ()', "prim.BreakStmt() : () -> ()"])
def test_frontend_ops_are_refused(op: str) -> None:
    text = f"ts.method @f {{\n^bb0(%x: !ts.int):\n  {op}\n  prim.Return(%x) : (!ts.int) -> ()\n}}"
    with pytest.raises(InterpreterError, match="run convert-to-ssa and exit-transform first"):
        TorchScriptRunner(_parse_ir(text))


def test_uninitialized_value_used() -> None:
    text = """ts.method @f {
^bb0(%x: !ts.tensor):
  %u = prim.Uninitialized() : () -> !ts.tensor
  %one = prim.Constant() {value = 1 : i64} : () -> !ts.int
  %y = ts.node "aten::add"(%x, %u, %one) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  prim.Return(%y) : (!ts.tensor) -> ()
}"""
    runner = TorchScriptRunner(_parse_ir(text))
    with pytest.raises(InterpreterError, match=r"'aten::add' \(%y\) in @f: a value from prim::Uninitialized was used"):
        runner.run([np.ones(2, dtype=np.float32)])


def misc_builtins(s: str, n: int, f: float):
    l = [3, 1, 2, 2]
    l.sort()
    l.reverse()
    l.extend([9])
    l.remove(1)
    l.insert(-1, 5)
    q, r = divmod(n, 3)
    words = s.split()
    return (s.center(12, "*"), s.zfill(14), s.startswith("ab"), s.find("c"), s.replace("b", "B"), s.strip(),
            words, " ".join(words).title(), hex(n), l, q, r, l.index(9), l.count(2), sorted(l), min(l), max(l), sum(l),
            abs(f), math.exp(f), math.log(abs(f) + 1.0), math.pow(2.0, f), math.isnan(f), f != f,
            l[1:-1], l[::-1], len(s), s[-1], s.upper().lower(), "x" + s[:2], [1, 2] * 2)


@pytest.mark.parametrize("s,n,f", [(" abc de ", 17, -1.5), ("ab  c", -7, 2.0)])
def test_misc_builtins(s: str, n: int, f: float) -> None:
    run_script(misc_builtins, s, n, f)


class SmallCNN(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 2, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(2)
        self.pool = torch.nn.MaxPool2d(2)
        self.fc = torch.nn.Linear(8, 3)

    def forward(self, x: Tensor) -> Tensor:
        x = self.pool(torch.relu(self.bn(self.conv(x))))
        return self.fc(torch.flatten(x, 1))


def test_live_imported_modules() -> None:
    from xdsl_exir.frontends.torchscript_live import import_script_module

    torch.manual_seed(0)
    scripted = torch.jit.script(Composed())
    runner = TorchScriptRunner(import_script_module(scripted))
    for _ in range(2):
        x = torch.randn(2, 3)
        assert_same(tuple(runner.run([x.numpy()])[0]), scripted(x))
    cnn = SmallCNN().eval()
    cnn.bn.running_mean.uniform_(-0.5, 0.5)
    cnn.bn.running_var.uniform_(0.5, 2.0)
    x = torch.randn(1, 1, 4, 4)
    traced = torch.jit.trace(cnn, (x,))
    runner = TorchScriptRunner(import_script_module(traced))
    x2 = torch.randn(1, 1, 4, 4)
    assert_same(runner.run([x2.numpy()])[0], traced(x2))
