"""The exir dialect's Python API: building programs, types, verification."""

from __future__ import annotations

import io

import pytest
import sympy
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.ir import Block, Region
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xdsl_exir.dialects.exir import (
    SYM_ARITH_OPS,
    CallFunctionOp,
    CondOp,
    DType,
    Exir,
    GetItemOp,
    GraphOp,
    InputKind,
    InputSpecAttr,
    MemoryFormat,
    OutputKind,
    OutputOp,
    OutputSpecAttr,
    ProgramOp,
    RangeConstraintAttr,
    StateOp,
    SymBoolType,
    SymIntType,
    SymSizeOp,
    TensorType,
    TupleType,
)
from xdsl_exir.transforms.verify_export_ir import VerifyExportIRPass
from xdsl_exir.utils.diagnostics import ExirDiagnostic
from xdsl_exir.utils.symbolic import FloorDiv, make_symbol

s0 = make_symbol("s0")


def context() -> Context:
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(Exir)
    return ctx


def roundtrip(module: ModuleOp) -> ModuleOp:
    """Print, parse back, and check the text is a fixed point."""
    text = io.StringIO()
    Printer(stream=text).print_op(module)
    parsed = Parser(context(), text.getvalue()).parse_module()
    parsed.verify()
    again = io.StringIO()
    Printer(stream=again).print_op(parsed)
    assert again.getvalue() == text.getvalue()
    return parsed


def build_add_program() -> ProgramOp:
    """`self.count += 1; return x * w + count` with a dynamic batch."""
    x_t = TensorType([s0, 4], DType.float32)
    w_t = TensorType([4], DType.float32)
    n_t = TensorType([], DType.int64)
    graph = GraphOp("forward", [w_t, n_t, x_t], [n_t, x_t])
    w, n, x = graph.body.block.args
    add = CallFunctionOp("aten.add.Tensor", [n, 1], None, [n_t])
    mul = CallFunctionOp("aten.mul.Tensor", [x, w], None, [x_t])
    graph.body.block.add_ops([add, mul, OutputOp([add, mul])])
    return ProgramOp(
        inputs=[
            InputSpecAttr(InputKind.parameter, "p_w", "w"),
            InputSpecAttr(InputKind.buffer, "b_count", "count"),
            InputSpecAttr(InputKind.user_input, "x"),
        ],
        outputs=[
            OutputSpecAttr(OutputKind.buffer_mutation, "add", "count"),
            OutputSpecAttr(OutputKind.user_output, "mul"),
        ],
        body=[StateOp("w", w_t), StateOp("count", n_t), graph],
        range_constraints=[RangeConstraintAttr(s0, 2, sympy.oo)],
    )


def test_build_verify_roundtrip_program() -> None:
    program = build_add_program()
    module = ModuleOp([program])
    module.verify()
    VerifyExportIRPass().apply(context(), module)
    parsed = roundtrip(module)
    (prog,) = parsed.ops
    assert isinstance(prog, ProgramOp)
    assert [s.input_kind for s in prog.inputs] == [
        InputKind.parameter,
        InputKind.buffer,
        InputKind.user_input,
    ]
    assert prog.ranges() == {s0: (sympy.Integer(2), sympy.oo)}
    assert set(prog.state()) == {"w", "count"}
    assert prog.entry is not None and len(prog.entry.placeholders) == 3


def test_tensor_type_symbolic_sizes_and_layout() -> None:
    t = TensorType([s0, 2 * s0 + 1, 4], DType.bfloat16)
    assert t.sizes == (s0, 2 * s0 + 1, 4)
    assert t.numel() == 4 * s0 * (2 * s0 + 1)
    assert t.strides() == (4 * (2 * s0 + 1), 4, 1)
    cl = TensorType([2, 3, 4, 5], DType.float32, dim_order=[0, 2, 3, 1])
    assert cl.strides() == (60, 1, 15, 3)
    # The identity dim order is the default and compares equal to it.
    assert TensorType([2, 3], DType.float32, dim_order=[0, 1]) == TensorType(
        [2, 3], DType.float32
    )
    assert str(t) == "!exir.tensor<[s0, 2*s0 + 1, 4], bfloat16>"


def test_floor_division_in_types_prints_and_parses() -> None:
    size = FloorDiv(s0 - 3, 2) + 1
    t = TensorType([size], DType.float32)
    assert str(t) == "!exir.tensor<[(s0 - 3) floordiv 2 + 1], float32>"
    graph = GraphOp("g", [t], [])
    graph.body.block.add_op(OutputOp())
    (parsed,) = roundtrip(ModuleOp([graph])).ops
    assert isinstance(parsed, GraphOp)
    assert parsed.body.block.args[0].type == t


def test_call_function_arguments_decode_to_python() -> None:
    x_t = TensorType([2, 3], DType.float32)
    graph = GraphOp("g", [x_t], [x_t])
    (x,) = graph.body.block.args
    call = CallFunctionOp(
        "aten.full_like.default",
        [x, 1.5],
        {"dtype": DType.float16, "memory_format": MemoryFormat.channels_last, "pin_memory": None},
        [x_t],
    )
    assert call.get_args() == [x, 1.5]
    assert call.get_kwargs() == {
        "dtype": DType.float16,
        "memory_format": MemoryFormat.channels_last,
        "pin_memory": None,
    }
    graph.body.block.add_ops([call, OutputOp([call])])
    (parsed,) = roundtrip(ModuleOp([graph])).ops
    assert isinstance(parsed, GraphOp)
    parsed_call = parsed.body.block.first_op
    assert isinstance(parsed_call, CallFunctionOp)
    assert parsed_call.get_kwargs()["dtype"] == DType.float16


def test_sym_ops_infer_their_value() -> None:
    x_t = TensorType([s0, 4], DType.float32)
    graph = GraphOp("g", [x_t], [])
    (x,) = graph.body.block.args
    size = SymSizeOp(x, 0)
    assert size.result.type == SymIntType(s0)
    double = SYM_ARITH_OPS["operator.mul"](size, 2)
    half = SYM_ARITH_OPS["operator.floordiv"](double, 4)
    ge = SYM_ARITH_OPS["operator.ge"](size, 2)
    assert double.result.type == SymIntType(2 * s0)
    assert half.result.type == SymIntType(FloorDiv(2 * s0, 4))
    assert isinstance(ge.result.type, SymBoolType)
    graph.body.block.add_ops([size, double, half, ge, OutputOp()])
    graph.verify()


def test_sym_op_rejects_inconsistent_recorded_value() -> None:
    x_t = TensorType([s0, 4], DType.float32)
    graph = GraphOp("g", [x_t], [])
    size = SymSizeOp(graph.body.block.args[0], 0)
    bad = SYM_ARITH_OPS["operator.add"].create(
        operands=[size.result],
        result_types=[SymIntType(s0 + 2)],
        properties=SYM_ARITH_OPS["operator.add"](size, 1).properties,
    )
    graph.body.block.add_ops([size, bad, OutputOp()])
    with pytest.raises(VerifyException, match="recorded as s0 \\+ 2 but the operands give s0 \\+ 1"):
        graph.verify()


def test_cond_and_getitem_build() -> None:
    x_t = TensorType([3], DType.float32)
    p_t = TensorType([], DType.bool)
    graph = GraphOp("g", [p_t, x_t], [x_t])
    p, x = graph.body.block.args

    def branch(target: str) -> Region:
        block = Block(arg_types=[x_t])
        call = CallFunctionOp(target, [block.args[0]], None, [x_t])
        block.add_ops([call, OutputOp([call])])
        return Region(block)

    cond = CondOp(p, [x], [x_t], branch("aten.sin.default"), branch("aten.cos.default"))
    pair_t = TupleType([x_t, TensorType([3], DType.int64)])
    sort = CallFunctionOp("aten.sort.default", [cond], None, [pair_t])
    first = GetItemOp(sort, 0)
    assert first.result.type == x_t
    graph.body.block.add_ops([cond, sort, first, OutputOp([first])])
    graph.verify()
    roundtrip(ModuleOp([graph]))


def test_verify_export_ir_reports_rule_and_op() -> None:
    program = build_add_program()
    # Drop the range constraint: s0 is no longer declared.
    program.range_constraints = type(program.range_constraints)(())
    module = ModuleOp([program])
    with pytest.raises(ExirDiagnostic) as info:
        VerifyExportIRPass().apply(context(), module)
    assert info.value.rule == "declared-symbols"
    assert isinstance(info.value.op, GraphOp)
    assert "symbol 's0'" in str(info.value)


def test_verify_export_ir_allows_configured_namespaces() -> None:
    x_t = TensorType([2], DType.float32)
    graph = GraphOp("forward", [x_t], [x_t])
    call = CallFunctionOp("mylib.op.default", [graph.body.block.args[0]], None, [x_t])
    graph.body.block.add_ops([call, OutputOp([call])])
    program = ProgramOp(
        [InputSpecAttr(InputKind.user_input, "x")],
        [OutputSpecAttr(OutputKind.user_output, "op")],
        [graph],
    )
    module = ModuleOp([program])
    with pytest.raises(ExirDiagnostic, match="unknown operator 'mylib.op.default'"):
        VerifyExportIRPass().apply(context(), module)
    VerifyExportIRPass(allow_namespaces=("mylib",)).apply(context(), module)
