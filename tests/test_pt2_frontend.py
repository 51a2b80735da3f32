"""
The `.pt2` frontend: archives written by `torch.export.save` (generated here, so
torch is needed for those tests), and hostile or broken archives built by hand
with zipfile (no torch), each of which must be refused with one diagnostic.
"""

from __future__ import annotations

import io
import json
import pathlib
import subprocess
import sys
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from call_counting import assert_linear
from tool_calls import exir_opt
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, CallSiteLoc, FileLineColLoc, ModuleOp
from xdsl.ir import Operation

import xdsl_exir.semantics.inference as inference_rules
from xdsl_exir.dialects.aten import Aten, AtenOp
from xdsl_exir.dialects.exir import (
    AssertScalarOp,
    CallFunctionOp,
    CondOp,
    DenseBlobAttr,
    Exir,
    GetItemOp,
    GraphOp,
    MapOp,
    ProgramOp,
    StateOp,
    SymSizeOp,
    TensorType,
    TokenType,
    WhileLoopOp,
)
from xdsl_exir.frontends.pt2 import Pt2Error, load_pt2
from xdsl_exir.tools.exir_opt import run as exir_opt_run
from xdsl_exir.utils.mlir_parser import ResourceParser, print_module
from xdsl_exir.utils.symbolic import make_symbol

# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def context() -> Context:
    ctx = Context()
    for dialect in (Builtin, Exir, Aten):
        ctx.load_dialect(dialect)
    return ctx


def program_of(module: ModuleOp) -> ProgramOp:
    ops = list(module.ops)
    assert len(ops) == 1 and isinstance(ops[0], ProgramOp)
    return ops[0]


def forward_of(module: ModuleOp) -> GraphOp:
    entry = program_of(module).entry
    assert entry is not None
    return entry


def check_roundtrip(module: ModuleOp) -> None:
    """Printing (weights in the resources section) and reading back gives the same module, weights included."""
    ctx = context()
    text = io.StringIO()
    print_module(module, text, ctx.loaded_dialects)
    again = ResourceParser(ctx, text.getvalue()).parse_module()
    again.verify()
    text_again = io.StringIO()
    print_module(again, text_again, ctx.loaded_dialects)
    assert text_again.getvalue() == text.getvalue()


def walk_named(module: ModuleOp) -> dict[str, Operation]:
    """Ops of @forward (not nested) by the name hint of their first result."""
    out: dict[str, Operation] = {}
    for op in forward_of(module).body.block.ops:
        if op.results and op.results[0].name_hint:
            out[op.results[0].name_hint] = op
    return out


def import_ok(data: bytes, name: str = "m.pt2") -> ModuleOp:
    module = load_pt2(data, name)
    module.verify()
    check_roundtrip(module)
    return module


# ---------------------------------------------------------------------------
# Archives written by torch
# ---------------------------------------------------------------------------


def export(
    module: Any,
    args: tuple[Any, ...],
    dynamic_shapes: Any = None,
    decompose: bool = False,
) -> tuple[bytes, Any]:
    torch = pytest.importorskip("torch")
    ep = torch.export.export(module, args, dynamic_shapes=dynamic_shapes)
    if decompose:
        ep = ep.run_decompositions()
    buffer = io.BytesIO()
    torch.export.save(ep, buffer)
    return buffer.getvalue(), ep


def raw_bytes(tensor: Any) -> bytes:
    """A tensor's elements as contiguous little-endian bytes (what a blob holds)."""
    torch = pytest.importorskip("torch")
    flat = tensor.detach().contiguous().reshape(-1)
    return flat.view(torch.uint8).numpy().tobytes()


def check_state_data(ep: Any, module: ModuleOp) -> None:
    """Every parameter, buffer and constant is held by an exir.state with its data."""
    states = program_of(module).state()
    named = {**dict(ep.named_parameters()), **dict(ep.named_buffers()), **ep.constants}
    for spec in ep.graph_signature.input_specs:
        if spec.target is None:
            continue
        state = states[spec.target]
        tensor = named[spec.target]
        assert isinstance(state.value, DenseBlobAttr)
        assert state.value.data == raw_bytes(tensor), spec.target
        assert isinstance(state.state_type, TensorType)
        assert list(state.state_type.sizes) == list(tensor.shape)


def check_matches_fx(ep: Any, module: ModuleOp) -> None:
    """Each aten node's args/kwargs split is exactly the FX node's."""
    torch = pytest.importorskip("torch")
    ops = walk_named(module)
    checked = 0
    for node in ep.graph.nodes:
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue
        op = ops.get(node.name)
        if not isinstance(op, AtenOp | CallFunctionOp):
            continue
        assert len(op.args.data) == len(node.args), node.format_node()
        assert set(op.kwargs.data) == set(node.kwargs), node.format_node()
        checked += 1
    assert checked > 0


def linear_with_buffer() -> Any:
    torch = pytest.importorskip("torch")

    class M(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(4, 3)
            self.register_buffer("count", torch.zeros((), dtype=torch.int64))
            self.register_buffer("scale", torch.full((3,), 2.0), persistent=False)

        def forward(self, x: Any) -> Any:
            self.count.add_(1)
            y = self.fc(x) * self.scale  # LINEAR_CALL_LINE
            return y + self.count, torch.sum(x, dim=1, keepdim=True)

    return M()


def test_linear_buffer_training_ir() -> None:
    torch = pytest.importorskip("torch")
    data, ep = export(linear_with_buffer(), (torch.randn(2, 4),))
    module = import_ok(data)
    program = program_of(module)
    specs = [(s.kind.data, s.arg_name.data, s.target_name, s.is_persistent) for s in program.inputs]
    assert specs == [
        ("parameter", "p_fc_weight", "fc.weight", None),
        ("parameter", "p_fc_bias", "fc.bias", None),
        ("buffer", "b_count", "count", True),
        ("buffer", "b_scale", "scale", False),
        ("user_input", "x", None, None),
    ]
    assert [s.kind.data for s in program.outputs] == ["user_output", "user_output"]
    names = [op.name for op in forward_of(module).walk()]
    assert "aten.add_.Tensor" in names and "aten.linear.default" in names
    check_state_data(ep, module)
    check_matches_fx(ep, module)


def test_linear_buffer_core_ir() -> None:
    torch = pytest.importorskip("torch")
    data, ep = export(linear_with_buffer(), (torch.randn(2, 4),), decompose=True)
    module = import_ok(data)
    program = program_of(module)
    outputs = [(s.kind.data, s.target_name) for s in program.outputs]
    assert outputs == [("buffer_mutation", "count"), ("user_output", None), ("user_output", None)]
    names = {op.name for op in forward_of(module).walk()}
    assert "aten.addmm.default" in names and "aten.add_.Tensor" not in names
    check_state_data(ep, module)
    check_matches_fx(ep, module)
    # The aten ops carry the types the archive records: the ones inference gives.
    for op in forward_of(module).walk():
        if isinstance(op, AtenOp):
            op.verify()


@pytest.mark.parametrize("train", [False, True])
@pytest.mark.parametrize("decompose", [False, True])
def test_conv_batchnorm(train: bool, decompose: bool) -> None:
    torch = pytest.importorskip("torch")
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.BatchNorm2d(4), torch.nn.ReLU()
    )
    with torch.no_grad():
        model[1].running_mean.uniform_()
        model[1].running_var.uniform_(0.5, 2.0)
    model.train(train)
    data, ep = export(model, (torch.randn(2, 3, 5, 5),), decompose=decompose)
    module = import_ok(data)
    check_state_data(ep, module)
    check_matches_fx(ep, module)
    program = program_of(module)
    assert "0.weight" in program.state()  # a name that is no bare MLIR identifier
    mutations = [s.target_name for s in program.outputs if s.kind.data == "buffer_mutation"]
    if train and decompose:
        assert set(mutations) == {"1.running_mean", "1.running_var", "1.num_batches_tracked"}
    else:
        assert mutations == []


def test_dynamic_dim_with_range() -> None:
    torch = pytest.importorskip("torch")

    class Dyn(torch.nn.Module):
        def forward(self, x: Any, y: Any) -> Any:
            n = x.shape[0]
            z = x.view(n * 2, -1)
            return z + 1, torch.ones(n // 2 + 1), (n + y.shape[0]) // 2

    batch = torch.export.Dim("batch", min=4, max=64)
    data, ep = export(
        Dyn(),
        (torch.randn(8, 4), torch.randn(5)),
        dynamic_shapes=({0: batch}, {0: torch.export.Dim("other")}),
    )
    module = import_ok(data)
    program = program_of(module)
    ranges = {str(k): (int(v[0]), v[1]) for k, v in program.ranges().items()}
    (s_batch,) = [k for k, v in ranges.items() if v == (4, 64)]
    s = make_symbol(s_batch)
    args = forward_of(module).body.block.args
    assert isinstance(args[0].type, TensorType) and args[0].type.sizes == (s, 4)
    sizes = [op for op in forward_of(module).walk() if isinstance(op, SymSizeOp)]
    assert sizes and all(op.dim.data == 0 for op in sizes)
    named = walk_named(module)
    view_type = named["view"].results[0].type
    assert isinstance(view_type, TensorType) and view_type.sizes == (2 * s, 2)
    ones_type = named["ones"].results[0].type
    assert isinstance(ones_type, TensorType)
    assert str(ones_type) == f"!exir.tensor<[{s_batch} floordiv 2 + 1], float32>"
    assert "exir.sym_floordiv" in {op.name for op in forward_of(module).walk()}
    check_matches_fx(ep, module)


def test_cond_while_map() -> None:
    torch = pytest.importorskip("torch")
    from torch._higher_order_ops.map import map as torch_map
    from torch._higher_order_ops.while_loop import while_loop

    class Control(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(torch.ones(3))

        def forward(self, p: Any, x: Any, xs: Any) -> Any:
            a, b = torch.cond(
                p.sum() > 0,
                lambda x: (x.sin() * self.w, x.cos()),
                lambda x: (x.cos(), x + self.w),
                (x,),
            )
            i, c = while_loop(lambda i, c: i < 3, lambda i, c: (i + 1, c * 2), (torch.tensor(0), b))
            m = torch_map(lambda row, w: row * w + 1, xs, self.w)
            return a, i, c, m

    data, ep = export(Control(), (torch.ones(2), torch.randn(3), torch.randn(4, 3)))
    module = import_ok(data)
    ops = list(forward_of(module).walk())
    cond = next(op for op in ops if isinstance(op, CondOp))
    loop = next(op for op in ops if isinstance(op, WhileLoopOp))
    mapped = next(op for op in ops if isinstance(op, MapOp))
    assert len(cond.results) == 2 and len(cond.inputs) == 2
    assert [op.name for op in cond.true_branch.block.ops][-1] == "exir.output"
    assert len(loop.carried) == 2 and len(loop.additional) == 0
    assert len(mapped.xs) == 1 and len(mapped.extra) == 1
    mapped_type = mapped.results[0].type
    assert isinstance(mapped_type, TensorType) and mapped_type.sizes == (4, 3)
    graphs = [op for op in program_of(module).body.block.ops if isinstance(op, GraphOp)]
    assert graphs == [forward_of(module)]  # the subgraphs are regions, not graphs
    check_state_data(ep, module)  # the lifted tensor constant of torch.tensor(0)


def test_bf16_and_int_weights_and_strided_constants() -> None:
    torch = pytest.importorskip("torch")

    class Mixed(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.wbf = torch.nn.Parameter(torch.randn(3, 5).to(torch.bfloat16))
            self.register_buffer("ids", torch.arange(-6, 6, dtype=torch.int32).reshape(3, 4))
            self.register_buffer("flags", torch.tensor([True, False, True]))
            self.register_buffer("f16", torch.randn(4, dtype=torch.float16))
            base = torch.arange(24.0).reshape(4, 6)
            self.view_const = base.t()[1:4]  # a transposed slice with an offset
            self.step = base[::2, 1::2]  # a strided slice

        def forward(self, x: Any) -> Any:
            y = (x.to(torch.bfloat16) @ self.wbf).float()
            return y + self.view_const.sum() + self.step.sum(), self.ids * 2, self.flags, self.f16

    data, ep = export(Mixed(), (torch.randn(2, 3),))
    module = import_ok(data)
    check_state_data(ep, module)
    states = program_of(module).state()
    assert str(states["wbf"].state_type) == "!exir.tensor<[3, 5], bfloat16>"
    constants = {
        s.target_name for s in program_of(module).inputs if s.kind.data == "constant_tensor"
    }
    assert constants == {"view_const", "step"}
    view = states["view_const"]
    assert isinstance(view.value, DenseBlobAttr)
    assert view.value.data == raw_bytes(torch.arange(24.0).reshape(4, 6).t()[1:4])


def test_nested_outputs_and_pytree_specs() -> None:
    torch = pytest.importorskip("torch")

    class Nested(torch.nn.Module):
        def forward(self, x: Any, d: dict[str, Any]) -> Any:
            a, b, c = torch.split(x, 2)
            values, indices = x.max(dim=1)
            return {"sum": a + d["k"], "parts": [b, (c, values)]}, indices

    data, _ = export(Nested(), (torch.randn(5, 3), {"k": torch.randn(2, 3)}))
    module = import_ok(data)
    program = program_of(module)
    assert program.in_spec is not None and "builtins.dict" in program.in_spec.data
    assert program.out_spec is not None and "builtins.list" in program.out_spec.data
    assert len(program.outputs) == 5
    ops = list(forward_of(module).walk())
    items = [op for op in ops if isinstance(op, GetItemOp)]
    assert [op.index.data for op in items] == [0, 1, 2]  # the split's pieces
    max_op = next(op for op in ops if op.name == "aten.max.dim")
    assert len(max_op.results) == 2  # several returns are several results


def test_constant_inputs_tokens_and_custom_ops() -> None:
    torch = pytest.importorskip("torch")

    class ConstIn(torch.nn.Module):
        def forward(self, x: Any, n: int, flag: Any = None) -> Any:
            return x * n

    data, _ = export(ConstIn(), (torch.randn(2), 3, None))
    module = import_ok(data)
    graph = forward_of(module)
    assert [str(t) for t in graph.body.block.arg_types] == [
        "!exir.tensor<[2], float32>",
        "!exir.int",
        "!exir.none",
    ]
    assert graph.arg_attrs is not None
    assert "exir.constant = 3" in str(graph.arg_attrs.data[1])

    class Effect(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            torch.ops.aten._print("hello")
            return x + 1

    data, _ = export(Effect(), (torch.randn(2),), decompose=True)
    module = import_ok(data)
    program = program_of(module)
    assert [s.kind.data for s in program.inputs] == ["token", "user_input"]
    assert [s.kind.data for s in program.outputs] == ["token", "user_output"]
    assert isinstance(forward_of(module).body.block.args[0].type, TokenType)
    effects = next(op for op in forward_of(module).walk() if isinstance(op, CallFunctionOp))
    assert effects.target.data == "higher_order.with_effects"
    assert effects.get_args()[1] == "aten._print.default"


def test_custom_ops_and_unmodelled_higher_order_ops() -> None:
    torch = pytest.importorskip("torch")

    @torch.library.custom_op(
        "xdsl_exir_test::scale_",
        mutates_args=("acc",),
        schema="(Tensor x, Tensor(a!) acc, float alpha=1.0) -> Tensor",
    )
    def scale_(x: Any, acc: Any, alpha: float = 1.0) -> Any:
        acc.add_(x)
        return x * alpha

    @scale_.register_fake
    def _(x: Any, acc: Any, alpha: float = 1.0) -> Any:
        return torch.empty_like(x)

    class Custom(torch.nn.Module):
        def forward(self, x: Any, acc: Any) -> Any:
            with torch.no_grad():
                y = x.relu()
            return scale_(y, acc, alpha=2.0)

    data, ep = export(Custom(), (torch.randn(3), torch.zeros(3)))
    module = import_ok(data)
    calls = {
        op.target.data: op for op in forward_of(module).walk() if isinstance(op, CallFunctionOp)
    }
    custom = calls["xdsl_exir_test.scale_.default"]
    assert len(custom.args.data) == len(next(n for n in ep.graph.nodes if n.name == "scale_").args)
    wrap = calls["higher_order.wrap_with_set_grad_enabled"]
    assert wrap.get_args()[0] is False
    graphs = [op for op in program_of(module).body.block.ops if isinstance(op, GraphOp)]
    assert len(graphs) == 2  # the no_grad region is a sibling graph read by get_attr

    data, _ = export(Custom(), (torch.randn(3), torch.zeros(3)), decompose=True)
    module = import_ok(data)
    program = program_of(module)
    assert [(s.kind.data, s.target_name) for s in program.outputs][0] == (
        "user_input_mutation",
        "acc",
    )
    functionalized = next(
        op
        for op in forward_of(module).walk()
        if isinstance(op, CallFunctionOp) and op.target.data.startswith("higher_order.auto_")
    )
    assert functionalized.get_args()[0] == "xdsl_exir_test.scale_.default"
    assert set(functionalized.get_kwargs()) >= {"x", "alpha"}


def test_exotic_dtypes_are_stored_bit_exactly() -> None:
    torch = pytest.importorskip("torch")

    class Exotic(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("c", torch.randn(3, dtype=torch.complex64))
            self.register_buffer("f8", torch.randn(4).to(torch.float8_e4m3fn))
            self.register_buffer("d", torch.randn(2, 2, dtype=torch.float64).t())
            self.register_buffer("u", torch.arange(5, dtype=torch.uint8))

        def forward(self, x: Any) -> Any:
            extra = self.f8.float().sum() + self.d.float().sum() + self.u.sum()
            return x + self.c.real.sum() + extra

    data, ep = export(Exotic(), (torch.randn(2),))
    module = import_ok(data)
    check_state_data(ep, module)
    types = {k: str(v.state_type) for k, v in program_of(module).state().items()}
    assert types["f8"] == "!exir.tensor<[4], float8_e4m3fn>"
    assert types["c"] == "!exir.tensor<[3], complex64>"


def test_metadata_locations_and_module_stack() -> None:
    torch = pytest.importorskip("torch")
    data, _ = export(linear_with_buffer(), (torch.randn(2, 4),))
    module = load_pt2(data)
    linear = walk_named(module)["linear"]
    # The trace runs into torch/nn/modules/linear.py; the location is the
    # model's own line that called the layer.
    assert isinstance(linear.location, FileLineColLoc)
    assert linear.location.filename.data == __file__
    assert linear.location.line.data == LINEAR_CALL_LINE
    stack = str(linear.attributes["nn_module_stack"])
    assert '"fc", "torch.nn.modules.linear.Linear"' in stack
    assert "torch_fn" in linear.attributes


def _line_of(marker: str) -> int:
    lines = pathlib.Path(__file__).read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if text.rstrip().endswith(f"# {marker}"))


LINEAR_CALL_LINE = _line_of("LINEAR_CALL_LINE")


def conv_model() -> Any:
    torch = pytest.importorskip("torch")

    class M(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(1, 2, 3)

        def forward(self, x: Any) -> Any:
            return self.conv(x).relu()  # CONV_CALL_LINE

    return M()


def _conv_location(module: ModuleOp) -> FileLineColLoc:
    conv = next(op for op in module.walk() if op.name in ("aten.conv2d.default", "fx.call_module"))
    assert isinstance(conv.location, FileLineColLoc), conv.location
    return conv.location


def test_module_call_location_is_the_users_line() -> None:
    """An `nn.Conv2d` call is located at the line that called it, in the
    `.pt2` archive and the live importers alike, not inside torch."""
    torch = pytest.importorskip("torch")
    from xdsl_exir.frontends.torch_live import import_exported_program, import_graph_module

    x = torch.randn(1, 1, 5, 5)
    data, ep = export(conv_model(), (x,))
    tracer = torch.fx.Tracer()
    tracer.record_stack_traces = True
    model = conv_model()
    gm = torch.fx.GraphModule(model, tracer.trace(model))
    for module in (load_pt2(data), import_exported_program(ep), import_graph_module(gm, [x])):
        loc = _conv_location(module)
        assert (loc.filename.data, loc.line.data) == (__file__, _line_of("CONV_CALL_LINE"))


def test_location_keeps_torch_frames_without_a_user_frame() -> None:
    from xdsl_exir.frontends.pt2 import stack_trace_location

    torch_only = (
        'File "/env/lib/python3.11/site-packages/torch/nn/modules/module.py", line 7, in _call_impl\n'
        '  File "/env/lib/python3.11/site-packages/torch/nn/modules/conv.py", line 565, in forward\n'
    )
    loc = stack_trace_location(torch_only)
    assert isinstance(loc, CallSiteLoc)
    assert isinstance(loc.callee, FileLineColLoc) and loc.callee.line.data == 565
    user = (
        'File "/home/u/model.py", line 12, in forward\n'
        '  File "/usr/lib/python3.11/contextlib.py", line 81, in inner\n'
        '  File "/env/lib/python3.11/site-packages/torch/nn/modules/conv.py", line 565, in forward\n'
    )
    loc = stack_trace_location(user)
    assert isinstance(loc, FileLineColLoc) and (loc.filename.data, loc.line.data) == ("/home/u/model.py", 12)
    # A site-packages library other than torch is the user's code.
    other = 'File "/env/lib/python3.11/site-packages/mylib/net.py", line 4, in forward\n'
    assert isinstance(stack_trace_location(other), FileLineColLoc)


def test_assert_scalar_and_unbacked_sizes() -> None:
    torch = pytest.importorskip("torch")

    class Nonzero(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            n = x.nonzero().shape[0]
            torch._check(n >= 1)
            return torch.zeros(n) + x.sum()

    data, _ = export(Nonzero(), (torch.tensor([1.0, 0.0, 2.0]),))
    module = import_ok(data)
    ops = list(forward_of(module).walk())
    assert any(isinstance(op, AssertScalarOp) for op in ops)
    ranges = program_of(module).ranges()
    assert any(str(k).startswith("u") for k in ranges)


def test_import_cost_is_linear_in_nodes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A graph imports at a constant cost per node, without inferring result types or verifying ops."""
    torch = pytest.importorskip("torch")

    class Deep(torch.nn.Module):
        def __init__(self, depth: int) -> None:
            super().__init__()
            self.layers = torch.nn.ModuleList(torch.nn.Linear(8, 8) for _ in range(depth))

        def forward(self, x: Any) -> Any:
            for layer in self.layers:
                x = torch.nn.functional.layer_norm(x + layer(x).relu(), (8,)) * 0.5
            return x

    archives = {depth: export(Deep(depth), (torch.randn(4, 8),), decompose=True) for depth in (5, 10, 15)}
    nodes = {d: sum(1 for n in ep.graph.nodes if n.op == "call_function") for d, (_, ep) in archives.items()}
    assert nodes[10] - nodes[5] == nodes[15] - nodes[10] > 0

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the importer inferred or verified an op")

    monkeypatch.setattr(AtenOp, "verify_", refuse)
    monkeypatch.setattr(inference_rules, "infer_bound", refuse)
    counts = assert_linear(lambda depth: load_pt2(archives[depth][0]), 5, steps=2)
    per_node = (counts[1] - counts[0]) / (nodes[10] - nodes[5])
    assert per_node < 1000, f"{per_node:.0f} calls per node"


def test_exir_opt_imports_and_round_trips(tmp_path: pathlib.Path) -> None:
    torch = pytest.importorskip("torch")
    data, _ = export(linear_with_buffer(), (torch.randn(2, 4),), decompose=True)
    src = tmp_path / "m.pt2"
    src.write_bytes(data)
    out = tmp_path / "m.mlir"
    assert exir_opt_run([str(src), "-o", str(out)]) == 0
    again = tmp_path / "again.mlir"
    assert exir_opt_run([str(out), "-o", str(again)]) == 0
    assert again.read_text() == out.read_text()
    assert "dense_resource<" in out.read_text() and "dialect_resources" in out.read_text()


def test_frontend_never_imports_torch(tmp_path: pathlib.Path) -> None:
    torch = pytest.importorskip("torch")
    data, _ = export(linear_with_buffer(), (torch.randn(2, 4),), decompose=True)
    src = tmp_path / "m.pt2"
    src.write_bytes(data)
    code = (
        "import sys\n"
        "from xdsl_exir.frontends.pt2 import load_pt2\n"
        "from xdsl_exir.tools import exir_opt\n"
        f"load_pt2(open({str(src)!r}, 'rb').read()).verify()\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


# ---------------------------------------------------------------------------
# Archives built by hand: a minimal valid one, then broken variants
# ---------------------------------------------------------------------------


def size(n: int) -> dict[str, Any]:
    return {"as_int": n}


def meta(
    sizes: list[Any], dtype: int = 7, strides: list[int] | None = None, offset: int = 0
) -> dict[str, Any]:
    if strides is None:
        strides, acc = [], 1
        for n in reversed([s if isinstance(s, int) else 1 for s in sizes]):
            strides.insert(0, acc)
            acc *= n
    return {
        "dtype": dtype,
        "sizes": [size(s) if isinstance(s, int) else s for s in sizes],
        "requires_grad": False,
        "device": {"type": "cpu", "index": None},
        "strides": [size(s) for s in strides],
        "storage_offset": size(offset),
        "layout": 7,
    }


def tensor_arg(name: str) -> dict[str, Any]:
    return {"as_tensor": {"name": name}}


def node(
    target: str, inputs: list[tuple[str, dict[str, Any]]], outputs: list[dict[str, Any]], name: str
) -> dict[str, Any]:
    return {
        "target": target,
        "inputs": [{"name": n, "arg": a, "kind": 1} for n, a in inputs],
        "outputs": outputs,
        "metadata": {"stack_trace": 'File "model.py", line 3, in forward\n    return x + self.w'},
        "is_hop_single_tensor_return": None,
        "name": name,
    }


def minimal_model() -> dict[str, Any]:
    """`x + w` with a parameter `w` of two floats."""
    return {
        "graph_module": {
            "graph": {
                "inputs": [tensor_arg("p_w"), tensor_arg("x")],
                "outputs": [tensor_arg("add")],
                "nodes": [
                    node(
                        "torch.ops.aten.add.Tensor",
                        [("self", tensor_arg("x")), ("other", tensor_arg("p_w"))],
                        [tensor_arg("add")],
                        "add",
                    )
                ],
                "tensor_values": {"p_w": meta([2]), "x": meta([2]), "add": meta([2])},
                "sym_int_values": {},
                "sym_bool_values": {},
                "is_single_tensor_return": False,
                "custom_obj_values": {},
                "sym_float_values": {},
            },
            "signature": {
                "input_specs": [
                    {"parameter": {"arg": {"name": "p_w"}, "parameter_name": "w"}},
                    {"user_input": {"arg": tensor_arg("x")}},
                ],
                "output_specs": [{"user_output": {"arg": tensor_arg("add")}}],
            },
            "module_call_graph": [],
            "metadata": {},
            "treespec_namedtuple_fields": {},
        },
        "opset_version": {"aten": 10},
        "range_constraints": {},
        "schema_version": {"major": 8, "minor": 20},
        "verifiers": [],
        "torch_version": "2.13.0",
        "guards_code": [],
    }


WEIGHT = b"\x00\x00\x80\x3f\x00\x00\x00\x40"  # 1.0, 2.0


def weights_config(**entries: dict[str, Any]) -> dict[str, Any]:
    config = {
        "w": {
            "path_name": "weight_0",
            "is_param": True,
            "use_pickle": False,
            "tensor_meta": meta([2]),
        }
    }
    config.update(entries)
    return {"config": config}


def archive(
    model: dict[str, Any] | bytes | None = None,
    weights: dict[str, Any] | bytes | None = None,
    files: dict[str, bytes] | None = None,
    drop: tuple[str, ...] = (),
    root: str = "m",
    extra: list[tuple[str, bytes]] | None = None,
    compression: int = zipfile.ZIP_STORED,
) -> bytes:
    """A pt2 archive; `model`/`weights` default to the minimal valid ones."""
    entries: dict[str, bytes] = {
        "archive_format": b"pt2",
        "archive_version": b"0",
        "byteorder": b"little",
        "models/model.json": json.dumps(minimal_model()).encode(),
        "data/weights/model_weights_config.json": json.dumps(weights_config()).encode(),
        "data/weights/weight_0": WEIGHT,
        "data/constants/model_constants_config.json": b'{"config": {}}',
        "data/sample_inputs/model.pt": b"\x80\x04this would be a pickle",
    }
    if model is not None:
        entries["models/model.json"] = (
            model if isinstance(model, bytes) else json.dumps(model).encode()
        )
    if weights is not None:
        entries["data/weights/model_weights_config.json"] = (
            weights if isinstance(weights, bytes) else json.dumps(weights).encode()
        )
    entries.update(files or {})
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as z:
        for rel, content in entries.items():
            if rel not in drop:
                z.writestr(f"{root}/{rel}", content)
        for name, content in extra or []:
            z.writestr(name, content)
    return out.getvalue()


def test_minimal_archive_imports() -> None:
    module = import_ok(archive())
    program = program_of(module)
    state = program.state()["w"]
    assert isinstance(state, StateOp) and isinstance(state.value, DenseBlobAttr)
    assert state.value.data == WEIGHT
    add = walk_named(module)["add"]
    assert add.name == "aten.add.Tensor"
    assert isinstance(add.location, FileLineColLoc) and add.location.line.data == 3


def test_every_argument_kind_is_decoded() -> None:
    """Each serialized Argument kind becomes the FX-style value it stands for."""
    kinds: list[tuple[str, dict[str, Any]]] = [
        ("t", tensor_arg("x")),
        ("ts", {"as_tensors": [{"name": "x"}, {"name": "p_w"}]}),
        ("ots", {"as_optional_tensors": [{"as_none": True}, {"as_tensor": {"name": "x"}}]}),
        ("i", {"as_int": -3}),
        ("is_", {"as_ints": [1, 2]}),
        ("f", {"as_float": "-Infinity"}),
        ("fs", {"as_floats": [0.5, 2]}),
        ("s", {"as_string": "tanh"}),
        ("ss", {"as_strings": ["a", "b"]}),
        ("b", {"as_bool": True}),
        ("bs", {"as_bools": [False, True]}),
        ("si", {"as_sym_int": {"as_int": 4}}),
        ("sis", {"as_sym_ints": [{"as_int": 2}, {"as_int": -1}]}),
        ("sf", {"as_sym_float": {"as_float": 1.5}}),
        ("sb", {"as_sym_bool": {"as_bool": False}}),
        ("dtype", {"as_scalar_type": 13}),
        ("fmt", {"as_memory_format": 2}),
        ("layout", {"as_layout": 7}),
        ("dev", {"as_device": {"type": "cuda", "index": 1}}),
        ("none", {"as_none": True}),
        ("op", {"as_operator": "torch.ops.aten.relu.default"}),
        ("ils", {"as_int_lists": [[1, 2], [3]]}),
    ]

    def edit(model: dict[str, Any]) -> None:
        g = graph(model)
        g["nodes"].insert(
            0,
            {
                "target": "torch.ops.mylib.kinds.default",
                "inputs": [{"name": "", "arg": tensor_arg("x"), "kind": 1}]
                + [{"name": n, "arg": a, "kind": 2} for n, a in kinds],
                "outputs": [],
                "metadata": {},
                "name": "kinds",
            },
        )

    module = import_ok(with_model(edit))
    call = next(op for op in forward_of(module).walk() if isinstance(op, CallFunctionOp))
    assert call.target.data == "mylib.kinds.default"
    x, p_w = forward_of(module).body.block.args[1], forward_of(module).body.block.args[0]
    assert call.get_args() == [x]
    kwargs = call.get_kwargs()
    assert kwargs["t"] is x and kwargs["ts"] == [x, p_w] and kwargs["ots"] == [None, x]
    assert kwargs["f"] == float("-inf") and kwargs["fs"] == [0.5, 2.0]
    assert kwargs["sis"] == [2, -1] and kwargs["sf"] == 1.5 and kwargs["sb"] is False
    assert kwargs["op"] == "aten.relu.default" and kwargs["ils"] == [[1, 2], [3]]
    text = str(call)
    for spelling in (
        "dtype = torch.bfloat16",
        "fmt = torch.channels_last",
        "layout = torch.strided",
        'dev = device("cuda:1")',
        "none = none",
        '"tanh"',
    ):
        assert spelling in text


def test_deflated_and_big_endian_archives() -> None:
    import_ok(archive(compression=zipfile.ZIP_DEFLATED))
    big = archive(
        files={"byteorder": b"big", "data/weights/weight_0": b"\x3f\x80\x00\x00\x40\x00\x00\x00"}
    )
    state = program_of(import_ok(big)).state()["w"]
    assert isinstance(state.value, DenseBlobAttr) and state.value.data == WEIGHT


def with_model(edit: Callable[[dict[str, Any]], None]) -> bytes:
    model = minimal_model()
    edit(model)
    return archive(model)


def graph(model: dict[str, Any]) -> dict[str, Any]:
    return model["graph_module"]["graph"]


def zip_bomb() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("m/models/model.json", json.dumps(minimal_model()))
        z.writestr("m/data/weights/weight_0", bytes(16 << 20))
    return out.getvalue()


def truncated() -> bytes:
    data = archive()
    return data[: len(data) - 40]


def bad_crc() -> bytes:
    data = bytearray(archive())
    at = bytes(data).index(WEIGHT)
    data[at] ^= 0xFF
    return bytes(data)


def set_in(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(model: dict[str, Any]) -> None:
        target = model
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


NODE = ["graph_module", "graph", "nodes", 0]
TV = ["graph_module", "graph", "tensor_values"]

HOSTILE: dict[str, tuple[Callable[[], bytes], str]] = {
    "not a zip": (lambda: b"this is not a zip archive at all", "not a readable zip archive"),
    "empty file": (lambda: b"PK\x03\x04", "not a readable zip archive"),
    "truncated zip": (truncated, "not a readable zip archive"),
    "bad crc": (bad_crc, "data/weights/weight_0: corrupt zip entry (bad CRC-32)"),
    "absolute path": (
        lambda: archive(extra=[("/etc/passwd", b"x")]),
        "'/etc/passwd' is an absolute path",
    ),
    "dot-dot path": (
        lambda: archive(extra=[("m/../../evil", b"x")]),
        "'m/../../evil' has a '..' component",
    ),
    "backslash dot-dot": (lambda: archive(extra=[("m\\..\\evil", b"x")]), "has a '..' component"),
    "drive path": (lambda: archive(extra=[("C:/evil", b"x")]), "is an absolute path"),
    "two roots": (
        lambda: archive(extra=[("other/x", b"x")]),
        "entries must sit under one top folder",
    ),
    "zip bomb": (zip_bomb, "refusing a likely zip bomb"),
    "missing model": (
        lambda: archive(drop=("models/model.json",)),
        "missing entry 'models/model.json'",
    ),
    "missing weight file": (
        lambda: archive(drop=("data/weights/weight_0",)),
        "missing entry 'data/weights/weight_0'",
    ),
    "malformed json": (
        lambda: archive(model=b'{"graph_module": '),
        "models/model.json: malformed JSON at line 1",
    ),
    "json not an object": (lambda: archive(model=b"[1, 2]"), "expected a JSON object"),
    "schema major 7": (
        lambda: with_model(set_in(["schema_version"], {"major": 7, "minor": 3})),
        "serialization schema version 7.3 is not supported",
    ),
    "no schema version": (
        lambda: with_model(lambda m: m.pop("schema_version")),
        "has no field 'schema_version'",
    ),
    "pickled weights": (
        lambda: archive(
            weights=weights_config(
                w={
                    "path_name": "weight_0",
                    "is_param": True,
                    "use_pickle": True,
                    "tensor_meta": meta([2]),
                }
            )
        ),
        "'w' is stored pickled (use_pickle: true); pickled data is never loaded",
    ),
    "pt file as data": (
        lambda: archive(
            weights=weights_config(
                w={
                    "path_name": "w.pt",
                    "is_param": True,
                    "use_pickle": False,
                    "tensor_meta": meta([2]),
                }
            ),
            files={"data/weights/w.pt": WEIGHT},
        ),
        "refers to 'w.pt', a pickle",
    ),
    "legacy pickled weights": (
        lambda: archive(
            drop=("data/weights/model_weights_config.json",),
            files={"data/weights/model.pt": b"\x80\x02"},
        ),
        "data/weights/model.pt: state stored as a pickle",
    ),
    "path in payload name": (
        lambda: archive(
            weights=weights_config(
                w={
                    "path_name": "../weight_0",
                    "is_param": True,
                    "use_pickle": False,
                    "tensor_meta": meta([2]),
                }
            )
        ),
        "which is not a plain file name",
    ),
    "storage too small": (
        lambda: archive(
            weights=weights_config(
                w={
                    "path_name": "weight_0",
                    "is_param": True,
                    "use_pickle": False,
                    "tensor_meta": meta([2], offset=1),
                }
            )
        ),
        "needs 3 elements but its storage holds 2",
    ),
    "stride beyond storage": (
        lambda: archive(
            weights=weights_config(
                w={
                    "path_name": "weight_0",
                    "is_param": True,
                    "use_pickle": False,
                    "tensor_meta": meta([2], strides=[5]),
                }
            )
        ),
        "needs 6 elements but its storage holds 2",
    ),
    "negative stride": (
        lambda: archive(
            weights=weights_config(
                w={
                    "path_name": "weight_0",
                    "is_param": True,
                    "use_pickle": False,
                    "tensor_meta": meta([2], strides=[-1]),
                }
            )
        ),
        "negative strides or storage offsets",
    ),
    "ragged storage": (
        lambda: archive(files={"data/weights/weight_0": WEIGHT + b"\x00"}),
        "not a whole number",
    ),
    "state of another shape": (
        lambda: archive(
            weights=weights_config(
                w={
                    "path_name": "weight_0",
                    "is_param": True,
                    "use_pickle": False,
                    "tensor_meta": meta([1]),
                }
            )
        ),
        "stored as a float32 tensor of sizes [1] but the graph reads it as",
    ),
    "no data for a parameter": (
        lambda: archive(weights={"config": {}}),
        "no stored data for parameter 'w'",
    ),
    "unknown dtype code": (
        lambda: with_model(set_in([*TV, "add", "dtype"], 99)),
        "tensor_values['add']: unknown dtype code 99",
    ),
    "unknown state dtype": (
        lambda: archive(
            weights=weights_config(
                w={
                    "path_name": "weight_0",
                    "is_param": True,
                    "use_pickle": False,
                    "tensor_meta": meta([2], dtype=0),
                }
            )
        ),
        "unknown dtype code 0",
    ),
    "missing tensor_values": (
        lambda: with_model(lambda m: graph(m)["tensor_values"].pop("add")),
        "no tensor_values entry for 'add'",
    ),
    "undefined node": (
        lambda: with_model(set_in([*NODE, "inputs", 0, "arg"], tensor_arg("ghost"))),
        "node 'add' (torch.ops.aten.add.Tensor): uses 'ghost', which is not defined before it",
    ),
    "argument not in schema": (
        lambda: with_model(set_in([*NODE, "inputs", 0, "name"], "bogus")),
        "argument 'bogus' is not in the operator's schema",
    ),
    "unknown argument kind": (
        lambda: with_model(set_in([*NODE, "inputs", 1, "arg"], {"as_pickle": "x"})),
        "unknown argument kind 'as_pickle'",
    ),
    "node missing field": (
        lambda: with_model(lambda m: graph(m)["nodes"][0].pop("inputs")),
        "missing field 'inputs'",
    ),
    "evil size expression": (
        lambda: with_model(
            set_in(
                [*TV, "add", "sizes", 0], {"as_expr": {"expr_str": "__import__('os').system('x')"}}
            )
        ),
        "cannot read the symbolic size",
    ),
    "custom object input": (
        lambda: with_model(
            set_in(
                ["graph_module", "signature", "input_specs", 0],
                {
                    "custom_obj": {
                        "arg": {"name": "obj", "class_fqn": "__torch__.Foo"},
                        "custom_obj_name": "obj",
                    }
                },
            )
        ),
        "TorchBind objects are stored pickled",
    ),
    "json nested too deeply": (
        lambda: archive(model=b"[" * 100_000 + b"]" * 100_000),
        "models/model.json: JSON nested too deeply",
    ),
    "state of huge sizes": (
        lambda: with_model(set_in([*TV, "p_w", "sizes"], [size(1 << 40), size(1 << 40)])),
        "stored as a float32 tensor of sizes [2] but the graph reads it as",
    ),
    "output of unsupported kind": (
        lambda: with_model(
            lambda m: (
                graph(m)["outputs"].append({"as_ints": [1, 2]}),
                m["graph_module"]["signature"]["output_specs"].append(
                    {"user_output": {"arg": {"as_ints": [1, 2]}}}
                ),
            )
        ),
        "graph output 1 is of unsupported kind 'as_ints'",
    ),
    "signature mismatch": (
        lambda: with_model(lambda m: m["graph_module"]["signature"]["input_specs"].pop()),
        "the signature lists 1 inputs but the graph has 2 placeholders",
    ),
    "defined twice": (
        lambda: with_model(set_in([*NODE, "outputs", 0], tensor_arg("x"))),
        "'x' is defined twice",
    ),
    "subgraph error": (
        lambda: with_model(
            set_in(
                NODE,
                {
                    "target": "torch.ops.higher_order.cond",
                    "inputs": [
                        {"name": "", "arg": tensor_arg("x"), "kind": 1},
                        {
                            "name": "",
                            "arg": {
                                "as_graph": {
                                    "name": "true_graph_0",
                                    "graph": {
                                        "inputs": [],
                                        "outputs": [tensor_arg("nope")],
                                        "nodes": [],
                                        "tensor_values": {},
                                    },
                                }
                            },
                            "kind": 1,
                        },
                        {
                            "name": "",
                            "arg": {
                                "as_graph": {
                                    "name": "false_graph_0",
                                    "graph": {
                                        "inputs": [],
                                        "outputs": [],
                                        "nodes": [],
                                        "tensor_values": {},
                                    },
                                }
                            },
                            "kind": 1,
                        },
                        {"name": "", "arg": {"as_tensors": []}, "kind": 1},
                    ],
                    "outputs": [tensor_arg("add")],
                    "metadata": {},
                    "name": "cond",
                },
            )
        ),
        "node 'cond' (torch.ops.higher_order.cond): subgraph 'true_graph_0': uses 'nope', "
        "which is not defined",
    ),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_archive_is_refused(
    case: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make, expected = HOSTILE[case]
    data = make()
    with pytest.raises(Pt2Error) as info:
        load_pt2(data, "bad.pt2")
    message = str(info.value)
    assert message.startswith("bad.pt2: ")
    assert expected in message
    assert "\n" not in message

    src = tmp_path / "bad.pt2"
    src.write_bytes(data)
    out = tmp_path / "out.mlir"
    with pytest.raises(SystemExit) as exit_info:
        exir_opt_run([str(src), "-o", str(out)])
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("exir-opt: error: ") and expected in err
    assert "Traceback" not in err
    assert not out.exists()


def test_refusal_from_the_command_line(tmp_path: pathlib.Path) -> None:
    src = tmp_path / "bad.pt2"
    src.write_bytes(archive(extra=[("m/../../evil", b"x")]))
    out = tmp_path / "out.mlir"
    result = exir_opt(str(src), "-o", str(out))
    assert result.returncode == 1
    assert result.stderr.startswith("exir-opt: error: ")
    assert "has a '..' component" in result.stderr
    assert "Traceback" not in result.stderr
    assert not out.exists()


def test_sample_inputs_pickle_is_never_read() -> None:
    # A sample_inputs entry that no unpickler could read does not matter.
    data = archive(files={"data/sample_inputs/model.pt": b"\x80\x05garbage"})
    import_ok(data)


@pytest.fixture(scope="module")
def torch_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """What torch writes that is not a torch.export archive, made with torch itself."""
    torch = pytest.importorskip("torch")
    tmp = tmp_path_factory.mktemp("torch_files")
    model = torch.nn.Linear(2, 2)
    torch.jit.save(torch.jit.script(model), tmp / "jit.pt")
    torch.save(model.state_dict(), tmp / "state.pt")
    torch.save(torch.export.export(model, (torch.randn(1, 2),)), tmp / "ep.pt")
    torch.save(model.state_dict(), tmp / "legacy.pt", _use_new_zipfile_serialization=False)
    return {p.stem: p.read_bytes() for p in tmp.iterdir()}


@pytest.mark.parametrize(
    ("kind", "says"),
    [
        ("jit", "a TorchScript archive (torch.jit.save)"),
        ("state", "a torch.save archive"),
        ("ep", "an ExportedProgram saved with torch.save"),
        ("legacy", "a Python pickle (torch.save's legacy format)"),
    ],
)
def test_files_of_another_kind_say_what_they_are(kind: str, says: str, torch_files: dict[str, bytes]) -> None:
    data = torch_files[kind]
    with pytest.raises(Pt2Error) as err:
        load_pt2(data, f"{kind}.pt")
    assert says in str(err.value)
    assert "torch.export.save" in str(err.value)
