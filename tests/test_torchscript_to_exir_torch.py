"""
`torchscript-to-exir` on programs torch.jit makes (scripted and traced
functions and modules, imported by `frontends/torchscript_live.py`), compared
with torch.jit: every lowered program passes `verify-export-ir` and
`ProgramRunner` gives torch's results (rtol 1e-5), buffers included.

(No `from __future__ import annotations` here: TorchScript reads the
annotations of the models below.)
"""

from typing import Any, List

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch.jit.script/trace are deprecated

from torch import Tensor, nn  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from ts_graphs import assert_same, to_numpy  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from xdsl.context import Context  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from xdsl.dialects.builtin import Builtin, ModuleOp  # noqa: E402 - after pytest.importorskip, so the module skips without torch

from xdsl_exir.dialects.aten import Aten  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from xdsl_exir.dialects.exir import CondOp, Exir, GraphOp, ProgramOp  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from xdsl_exir.dialects.prim import Prim  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from xdsl_exir.dialects.ts import TS  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from xdsl_exir.frontends.torchscript_live import import_script_module  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from xdsl_exir.interpreters.program import ProgramRunner  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from xdsl_exir.transforms.torchscript_to_exir import TorchScriptToExirPass  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from xdsl_exir.transforms.verify_export_ir import VerifyExportIRPass  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from xdsl_exir.utils.diagnostics import ExirDiagnostic  # noqa: E402 - after pytest.importorskip, so the module skips without torch


def _ctx() -> Context:
    ctx = Context()
    for d in (Builtin, Exir, Aten, TS, Prim):
        ctx.load_dialect(d)
    return ctx


def lower(module: ModuleOp, **options: Any) -> ProgramOp:
    TorchScriptToExirPass(**options).apply(_ctx(), module)
    module.verify()
    VerifyExportIRPass().apply(_ctx(), module)
    (program,) = [op for op in module.ops if isinstance(op, ProgramOp)]
    return program


def op_names(program: ProgramOp) -> list[str]:
    graph = program.entry
    assert isinstance(graph, GraphOp)
    return [op.name for op in graph.walk() if op is not graph]


def types_option(**tensors: Tensor) -> str:
    names = {torch.float32: "f32", torch.float64: "f64", torch.int64: "i64", torch.bool: "bool"}
    return ";".join(f"{k}={names[v.dtype]}[{', '.join(map(str, v.shape))}]" for k, v in tensors.items())


def flat(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in flat(v)]
    return [value]


def check_function(fn: Any, inputs: dict[str, Tensor]) -> ProgramOp:
    """Script `fn`, lower it, run both; the outputs (flattened) agree."""
    scripted = torch.jit.script(fn)
    program = lower(imported(scripted), input_types=types_option(**inputs))
    ours = ProgramRunner(program)(*(to_numpy(t) for t in inputs.values()))
    theirs = scripted(*[t.clone() for t in inputs.values()])
    assert_same(ours, flat(theirs))
    return program


def imported(obj: Any) -> ModuleOp:
    """A scripted or traced function or module as ts IR, by the live importer."""
    return import_script_module(obj)


def state_of(m: Any) -> dict[str, np.ndarray]:
    return {k: v.detach().numpy().copy() for k, v in m.state_dict().items()}


# ---------------------------------------------------------------------------
# (a) the JIT Technical Overview's LSTM cell, input types by option
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


def test_lstm_cell() -> None:
    g = torch.Generator().manual_seed(0)
    shapes = {"x": (3, 10), "hx": (3, 20), "cx": (3, 20), "w_ih": (80, 10), "w_hh": (80, 20), "b_ih": (80,),
              "b_hh": (80,)}  # fmt: skip
    inputs = {k: torch.randn(s, generator=g) for k, s in shapes.items()}
    program = check_function(lstm_cell, inputs)
    names = op_names(program)
    assert names.count("aten.sigmoid.default") == 3 and names.count("aten.tanh.default") == 2
    assert [s.arg_name.data for s in program.inputs.data] == list(shapes)
    assert len(program.outputs.data) == 2


# ---------------------------------------------------------------------------
# (b) a traced CNN: complete types, parameters and buffers read with GetAttr
# ---------------------------------------------------------------------------


class SmallCNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, padding=1)
        self.bn = nn.BatchNorm2d(2)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8, 3)

    def forward(self, x: Tensor) -> Tensor:
        x = self.pool(torch.relu(self.bn(self.conv(x))))
        return self.fc(torch.flatten(x, 1))


def test_traced_cnn() -> None:
    torch.manual_seed(0)
    m = SmallCNN().eval()
    with torch.no_grad():
        m.bn.running_mean.uniform_(-0.5, 0.5)
        m.bn.running_var.uniform_(0.5, 1.5)
    x = torch.randn(1, 1, 4, 4)
    traced = torch.jit.trace(m, (x,))
    program = lower(imported(traced))
    names = op_names(program)
    for op in ("aten.convolution.default", "aten.batch_norm.default", "aten.relu.default",
               "aten.max_pool2d.default", "aten.flatten.using_ints", "aten.linear.default"):  # fmt: skip
        assert op in names, op
    specs = [(s.kind.data, s.target_name) for s in program.inputs.data]
    assert specs[:6] == [("parameter", "conv.weight"), ("parameter", "conv.bias"), ("parameter", "bn.weight"),
                         ("parameter", "bn.bias"), ("parameter", "fc.weight"), ("parameter", "fc.bias")]  # fmt: skip
    assert ("buffer", "bn.running_mean") in specs and specs[-1] == ("user_input", None)
    (out,) = ProgramRunner(program)(x.numpy())
    np.testing.assert_allclose(out, traced(x).detach().numpy(), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------
# (c) if/else on a tensor predicate: exir.cond
# ---------------------------------------------------------------------------


def if_else_tensor(a: Tensor, b: Tensor, c: Tensor) -> Tensor:
    d = a + b
    if c.sum() > 0:
        e = d + d
    else:
        e = b * d
    return e


def test_if_on_tensor_becomes_cond() -> None:
    a, b = torch.randn(2, 3), torch.randn(2, 3)
    scripted = torch.jit.script(if_else_tensor)
    program = lower(imported(scripted), input_types="a=f32[2,3];b=f32[2,3];c=f32[2,3]")
    conds = [op for op in program.walk() if isinstance(op, CondOp)]
    assert len(conds) == 1
    runner = ProgramRunner(program)
    for c in (torch.ones(2, 3), -torch.ones(2, 3)):  # both branches
        (ours,) = runner(a.numpy(), b.numpy(), c.numpy())
        np.testing.assert_allclose(ours, scripted(a, b, c).numpy(), rtol=1e-5)


# ---------------------------------------------------------------------------
# (d) a for loop with a constant trip count: unrolled
# ---------------------------------------------------------------------------


def for_loop(x: Tensor) -> Tensor:
    z = x
    for i in range(x.size(0)):
        z = z * z + float(i)
    return z


def test_for_loop_unrolls() -> None:
    x = torch.rand(3, 2) + 0.5
    program = check_function(for_loop, {"x": x})
    names = op_names(program)
    assert names.count("aten.mul.Tensor") == 3 and "exir.while_loop" not in names


# ---------------------------------------------------------------------------
# (e) CallMethod on submodules, in-place buffer updates: buffer mutations
# ---------------------------------------------------------------------------


class Sub(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("scale", torch.linspace(0.5, 2.0, 4))
        self.offset = 1.5

    def forward(self, x: Tensor) -> Tensor:
        return torch.relu(x) * self.scale + self.offset


class Composed(nn.Module):
    repeats: int

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(3, 4)
        self.sub = Sub()
        self.weight = nn.Parameter(torch.randn(4))
        self.register_buffer("steps", torch.zeros((), dtype=torch.int64))
        self.register_buffer("running", torch.ones(4))
        self.repeats = 2

    def forward(self, x: Tensor) -> Tensor:
        y = self.lin(x)
        for _ in range(self.repeats):
            y = self.sub(y)
        self.steps.add_(1)
        self.running.mul_(0.9).add_(y.mean(0), alpha=0.1)
        self.running[0] = 0.0
        return y * self.weight + self.running


def test_module_with_calls_and_buffer_mutations() -> None:
    torch.manual_seed(0)
    m = torch.jit.script(Composed())
    program = lower(imported(m), input_types="x=f32[2, 3]")
    names = op_names(program)
    assert "aten.linear.default" in names and "aten.select_scatter.default" in names
    assert not any(n.endswith("_.Tensor") or n.endswith("_.Scalar") for n in names)
    outs = [(s.kind.data, s.target_name) for s in program.outputs.data]
    assert outs == [("buffer_mutation", "steps"), ("buffer_mutation", "running"), ("user_output", None)]
    runner = ProgramRunner(program)
    x = torch.randn(2, 3)
    for _ in range(2):  # the state carries over between calls, as in torch
        (ours,) = runner(x.numpy())
        theirs = m(x)
        np.testing.assert_allclose(ours, theirs.detach().numpy(), rtol=1e-5, atol=1e-6)
    for k, v in state_of(m).items():
        np.testing.assert_allclose(runner.state[k], v, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------
# More of TorchScript: lists, views, scalars from tensors, nested control flow
# ---------------------------------------------------------------------------


def lists_and_views(x: Tensor, y: Tensor) -> Tensor:
    parts: List[Tensor] = []
    for i in range(3):
        parts.append(x * float(i + 1))
    a, b = torch.split(torch.cat(parts, 1), [2, 4], dim=1)
    v = y.view(-1)
    v[1:3] = 7.0  # writes through the view into y
    rows = y.unbind(0)
    return a.sum(1) + b.mean(1) + rows[0][0] + y.flatten()[:2].sum() + len(parts)


def test_lists_views_and_writes_through_views() -> None:
    x, y = torch.randn(2, 2), torch.randn(2, 3)
    program = check_function(lists_and_views, {"x": x, "y": y})
    outs = [s.kind.data for s in program.outputs.data]
    assert outs == ["user_input_mutation", "user_output"]  # y is written through its view
    assert "aten.slice_scatter.default" in op_names(program)
    # The caller's array is updated as torch updates the caller's tensor.
    y2 = y.clone()
    ours = y.numpy().copy()
    ProgramRunner(program)(x.numpy(), ours)
    torch.jit.script(lists_and_views)(x, y2)
    np.testing.assert_allclose(ours, y2.numpy())


def copies_or_views(x: Tensor) -> List[Tensor]:
    x = x + 0.0
    col = x.t().contiguous()  # x.t() is not contiguous: a copy
    col[0] = 1.0
    row = x[1].contiguous()  # a row of x is: x itself
    row[0] = 2.0
    flat = x.t().reshape(6)  # no strides view x.t() as 6 elements: a copy
    flat[5] = 3.0
    same = x.reshape(3, 2)  # x is contiguous: a view
    same[0, 1] = 4.0
    return [x, col, row, flat, same]


def test_contiguous_and_reshape_copy_only_when_torch_does() -> None:
    """
    The lowering used to treat `contiguous` and `reshape` as views always, so
    writes through `x.t().contiguous()` reached `x`; torch copies when the
    input's strides do not allow a view.
    """
    check_function(copies_or_views, {"x": torch.arange(6.0).reshape(2, 3)})


def scalars_from_tensors(x: Tensor) -> Tensor:
    s = x.sum().item()
    m = float(x.max())
    k = int(x.argmax())
    if s > m:
        y = x * s - m
    else:
        y = x + k
    return y


def test_scalars_from_tensor_data_stay_tensors() -> None:
    scripted = torch.jit.script(scalars_from_tensors)
    program = lower(imported(scripted), input_types="x=f32[5]")
    assert sum(isinstance(op, CondOp) for op in program.walk()) == 1
    runner = ProgramRunner(program)
    for x in (torch.rand(5) + 0.1, -torch.rand(5) - 0.1):
        (ours,) = runner(x.numpy())
        np.testing.assert_allclose(ours, scripted(x).numpy(), rtol=1e-5, atol=1e-6)


def nested(x: Tensor, n: int) -> Tensor:
    acc = torch.zeros_like(x)
    for i in range(n):
        if i % 2 == 0:
            j = 0
            while j < i:
                acc = acc + x
                j += 1
        else:
            acc = acc - x * 0.5
        if bool(acc.sum() > 1.0):
            acc = acc * 0.5
            if bool(acc.max() > 1.0):
                acc = acc - 1.0
    return acc


def test_nested_conds_in_unrolled_loops() -> None:
    scripted = torch.jit.script(nested)
    program = lower(imported(scripted), input_types="x=f32[4]", input_values="n=4")
    assert sum(isinstance(op, CondOp) for op in program.walk()) == 8
    runner = ProgramRunner(program)
    for x in (torch.rand(4), torch.rand(4) * 4, -torch.rand(4)):
        (ours,) = runner(x.numpy())
        np.testing.assert_allclose(ours, scripted(x, 4).numpy(), rtol=1e-5, atol=1e-6)


def symbolic_view(x: Tensor, w: Tensor) -> Tensor:
    n = x.size(0)
    y = x.view(n, 2, -1).sum(2)
    return torch.mm(y, w) * (n * 2)


def test_symbolic_sizes() -> None:
    scripted = torch.jit.script(symbolic_view)
    program = lower(imported(scripted), input_types="x=f32[s0, 6];w=f32[2, 3]", ranges="s0=[1, 16]")
    names = op_names(program)
    assert "exir.sym_size" in names and "exir.sym_mul" in names
    assert str(program.range_constraints.data[0]) == "#exir.range<s0 in [1, 16]>"
    runner = ProgramRunner(program)
    for rows in (1, 5):
        x, w = torch.randn(rows, 6), torch.randn(2, 3)
        (ours,) = runner(x.numpy(), w.numpy())
        np.testing.assert_allclose(ours, scripted(x, w).numpy(), rtol=1e-5, atol=1e-5)


def promotion(x: Tensor, i: Tensor) -> Tensor:
    return (i / 2 + x) * (i > 1) + i * 1.5 + torch.where(x > 0, x, 0.0)


def test_implicit_promotion_becomes_explicit_casts() -> None:
    x = torch.randn(4, dtype=torch.float64)
    i = torch.arange(4)
    program = check_function(promotion, {"x": x, "i": i})
    assert "aten._to_copy.default" in op_names(program)


class Stateful(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("count", torch.zeros(1))
        self.register_buffer("mask", torch.tensor([1.0, 0.0, 1.0]))

    def forward(self, x: Tensor) -> Tensor:
        if bool(x.sum() > 0):
            self.count.add_(1.0)
            y = x * self.mask
        else:
            self.count = self.count - 1.0
            y = x
        return torch.dropout(y, 0.5, False) + self.count


def test_buffer_updates_in_cond_branches() -> None:
    m = torch.jit.script(Stateful())
    program = lower(imported(m), input_types="x=f32[3]")
    outs = [(s.kind.data, s.target_name) for s in program.outputs.data]
    assert outs == [("buffer_mutation", "count"), ("user_output", None)]
    runner = ProgramRunner(program)
    for x in (torch.ones(3), -torch.ones(3), torch.ones(3)):
        (ours,) = runner(x.numpy())
        np.testing.assert_allclose(ours, m(x).numpy(), rtol=1e-5)
    np.testing.assert_allclose(runner.state["count"], m.count.numpy())


def test_refusals_name_the_node() -> None:
    class SetsAttribute(nn.Module):
        calls: int

        def __init__(self) -> None:
            super().__init__()
            self.calls = 0

        def forward(self, x: Tensor) -> Tensor:
            self.calls = self.calls + 1
            return x

    with pytest.raises(ExirDiagnostic, match="assigns an attribute \\('calls'\\)"):
        lower(imported(torch.jit.script(SetsAttribute())), input_types="x=f32[2]")

    class MutatesParameter(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = nn.Parameter(torch.ones(2))

        def forward(self, x: Tensor) -> Tensor:
            with torch.no_grad():
                self.w.mul_(2.0)
            return x * self.w

    with pytest.raises(ExirDiagnostic, match="mutates parameter 'w'"):
        lower(imported(torch.jit.script(MutatesParameter())), input_types="x=f32[2]")


def scalar_math(x: Tensor, a: int, b: int, c: float) -> Tensor:
    q = a // b
    r = a % b
    p = a**2
    f = float(a) / c
    g = int(c * 3.0)
    h = c**0.5
    m = max(a, b)
    neg = -a
    big = a > b and c < 10.0
    s = "{}:{}".format(a, b)
    t = [a, b]
    t.append(len(s))
    return x * (q + r + p + f + g + h + m + abs(neg) + float(big) + min(c, 1.0) + sum(t) + len(t))


def test_scalar_builtins_fold() -> None:
    x = torch.randn(3)
    scripted = torch.jit.script(scalar_math)
    for a, b, c in ((7, -3, 2.5), (-4, 3, 0.5)):
        program = lower(imported(scripted), input_types="x=f32[3]", input_values=f"a={a};b={b};c={c}")
        assert op_names(program) == ["aten.mul.Scalar", "exir.output"]
        (ours,) = ProgramRunner(program)(x.numpy())
        np.testing.assert_allclose(ours, scripted(x, a, b, c).numpy(), rtol=1e-6)


def test_batch_norm_in_training_mode_updates_running_stats() -> None:
    torch.manual_seed(0)
    m = torch.jit.script(nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.BatchNorm2d(2), nn.ReLU()))
    # Scripted nn modules call torch.nn.functional through prim::CallFunction, whose graphs the
    # importer does not carry: inline them first, as torch's own inlined_graph does.
    torch._C._jit_pass_inline(m.graph)
    program = lower(imported(m), input_types="input=f32[2, 1, 4, 4]")
    outs = [(s.kind.data, s.target_name) for s in program.outputs.data]
    assert outs == [("buffer_mutation", "1.running_mean"), ("buffer_mutation", "1.running_var"),
                    ("buffer_mutation", "1.num_batches_tracked"), ("user_output", None)]  # fmt: skip
    runner = ProgramRunner(program)
    for _ in range(2):
        x = torch.randn(2, 1, 4, 4)
        (ours,) = runner(x.numpy())
        np.testing.assert_allclose(ours, m(x).detach().numpy(), rtol=1e-4, atol=1e-5)
    for k, v in state_of(m).items():
        np.testing.assert_allclose(runner.state[k], v, rtol=1e-5, atol=1e-6)
