"""
The `prim` dialect: TorchScript's primitive nodes (`prim::If` -> `prim.If`).

The JIT Technical Overview's core representation: constants, structured control flow (If,
Loop, With), lists, tuples and dicts, module access (GetAttr, SetAttr,
CallMethod), the frontend's Store/Load and exit statements, the executor's
ConstantChunk, fusion and differentiable subgraphs, guards and profiling, and
fork. Nodes of other kinds (`aten::add`, `prim::device`, user ops) are
`ts.node`. Every op shares one syntax, close to the dump's:

    %r = prim.GetAttr(%self) {name = "weight"} : (!ts.class<"__torch__.M">) -> !ts.tensor

Ops with blocks print them as regions after the attributes. Properties named
after the node's attributes hold them (`name`, `chunks`, `dim`, `index`);
attributes the op does not model are kept in `attrs`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Self

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
)
from xdsl.ir import Attribute, Dialect, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    opt_region_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, IsTerminator, Pure
from xdsl.utils.exceptions import VerifyException

from xdsl_exir.dialects.ts import (
    TensorValueAttr,
    TSAnyType,
    TSBoolType,
    TSCanonicalization,
    TSClassType,
    TSComplexType,
    TSDeviceType,
    TSDictType,
    TSFloatType,
    TSFunctionType,
    TSFutureType,
    TSIntType,
    TSListType,
    TSNoneType,
    TSNumberType,
    TSOptionalType,
    TSStrType,
    TSTensorType,
    TSTupleType,
    is_subtype,
    ts_type_str,
    unrefined,
)
from xdsl_exir.utils.diagnostics import op_title

INT64_MAX = 2**63 - 1
"""The max trip count of a `while` loop."""


class PrimOp(IRDLOperation):
    """
    The shared shape of prim ops: any operands, results and regions, node
    attributes as properties. `KIND` is the node kind in dumps.
    """

    KIND: ClassVar[str]

    @classmethod
    def parse(cls, parser: Parser) -> PrimOp:
        operands = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        attrs = parser.parse_optional_attr_dict()
        regions: list[Region] = []
        if parser.parse_optional_punctuation("("):
            regions = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_region)
            parser.parse_punctuation(")")
        parser.parse_punctuation(":")
        pos = parser.pos
        ftype = parser.parse_function_type()
        ops = parser.resolve_operands(operands, ftype.inputs.data, pos)
        return cls.create(
            operands=ops, result_types=list(ftype.outputs.data), properties=dict(attrs), regions=regions
        )

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_string(")")
        if self.properties:
            printer.print_string(" ")
            printer.print_attr_dict(self.properties)
        if self.regions:
            printer.print_string(" (")
            printer.print_list(self.regions, printer.print_region)
            printer.print_string(")")
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)

    @classmethod
    def make(
        cls,
        operands: Sequence[SSAValue] = (),
        result_types: Sequence[Attribute] = (),
        properties: dict[str, Attribute | None] | None = None,
        regions: Sequence[Region] = (),
    ) -> Self:
        """Build from flat lists (every prim op has at most one variadic group of each)."""
        return cls.create(
            operands=list(operands),
            result_types=list(result_types),
            properties={k: v for k, v in (properties or {}).items() if v is not None},
            regions=list(regions),
        )


def _check_count(op: IRDLOperation, what: str, got: int, want: int) -> None:
    if got != want:
        raise VerifyException(f"{op_title(op)}: expected {want} {what}, got {got}")


def _check_subtype(op: IRDLOperation, what: str, a: Attribute, b: Attribute) -> None:
    if not is_subtype(a, b):
        raise VerifyException(f"{op_title(op)}: {what} has type {ts_type_str(a)}, which is not a {ts_type_str(b)}")


def _terminator_operands(region: Region) -> tuple[SSAValue, ...]:
    last = region.block.last_op
    if not isinstance(last, ReturnOp):
        raise VerifyException("a block must end with prim::Return (the dump's `-> (...)`)")
    return tuple(last.operands)


def _is_ts_bool(t: Attribute) -> bool:
    return isinstance(t, TSBoolType | TSAnyType)


# ---------------------------------------------------------------------------
# Terminator and constants
# ---------------------------------------------------------------------------


@irdl_op_definition
class ReturnOp(PrimOp):
    """The end of a block: a graph's `return (...)`, a nested block's `-> (...)`."""

    name = "prim.Return"
    KIND: ClassVar[str] = "prim::Return"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), Pure())


def constant_matches(value: Attribute | None, t: Attribute) -> bool:
    """Whether a constant `value` (None for `None`) fits the result type `t`."""
    if value is None:
        return isinstance(t, TSNoneType | TSOptionalType | TSAnyType)
    if isinstance(t, TSAnyType):
        return True
    if isinstance(value, IntegerAttr):
        width = value.type.width.data
        if width == 1:
            return isinstance(t, TSBoolType | TSNumberType)
        return isinstance(t, TSIntType | TSNumberType)
    if isinstance(value, FloatAttr):
        return isinstance(t, TSFloatType | TSNumberType)
    if isinstance(value, ArrayAttr):
        if isinstance(t, TSComplexType):
            return len(value.data) == 2
        if isinstance(t, TSListType):
            return all(constant_matches(v, t.element) for v in value.data)
        if isinstance(t, TSTupleType):
            return len(value.data) == len(t.element_types) and all(
                constant_matches(v, e) for v, e in zip(value.data, t.element_types)
            )
        return False
    if isinstance(value, StringAttr):
        return isinstance(t, TSStrType | TSDeviceType)
    if isinstance(value, TensorValueAttr):
        return isinstance(t, TSTensorType)
    if isinstance(value, TSFunctionType):
        return isinstance(t, TSFunctionType)
    return False


@irdl_op_definition
class ConstantOp(PrimOp):
    """
    `prim::Constant[value=...]`: an int (i64), bool (i1), float (f64),
    complex ([re, im]), string, Device (a string, typed `!ts.device`),
    tensor (`#ts.tensor_value`), list, or None (no value); a function
    reference has `name` and a `!ts.function` type.
    """

    name = "prim.Constant"
    KIND: ClassVar[str] = "prim::Constant"
    value = opt_prop_def(Attribute)
    fn_name = opt_prop_def(StringAttr, prop_name="name")
    extra = opt_prop_def(DictionaryAttr, prop_name="attrs")
    result = var_result_def()
    traits = traits_def(Pure())

    def verify_(self) -> None:
        _check_count(self, "result", len(self.results), 1)
        t = self.results[0].type
        if self.fn_name is not None:
            if not isinstance(t, TSFunctionType):
                raise VerifyException("prim::Constant with a name must have a !ts.function type")
            return
        if not constant_matches(self.value, t):
            v = self.value
            shown = "None" if v is None else repr(v.value.data) if isinstance(v, IntegerAttr | FloatAttr) else str(v)
            raise VerifyException(f"prim::Constant: value {shown} does not fit type {ts_type_str(t)}")


# ---------------------------------------------------------------------------
# Control flow
# ---------------------------------------------------------------------------


@irdl_op_definition
class IfOp(PrimOp):
    """`prim::If(%cond)` with a true and a false block, each yielding one value per result."""

    name = "prim.If"
    KIND: ClassVar[str] = "prim::If"
    cond = var_operand_def()
    res = var_result_def()
    blocks = var_region_def("single_block")
    traits = traits_def(TSCanonicalization())

    def verify_(self) -> None:
        _check_count(self, "condition", len(self.operands), 1)
        _check_count(self, "blocks", len(self.regions), 2)
        if not _is_ts_bool(self.operands[0].type):
            raise VerifyException(f"prim::If: the condition must be a bool, got {ts_type_str(self.operands[0].type)}")
        for i, region in enumerate(self.regions):
            if region.block.args:
                raise VerifyException(f"prim::If: block{i} takes no arguments")
            outs = _terminator_operands(region)
            _check_count(self, f"outputs of block{i}", len(outs), len(self.results))
            for v, r in zip(outs, self.results):
                _check_subtype(self, f"block{i} output", v.type, r.type)


@irdl_op_definition
class LoopOp(PrimOp):
    """
    `prim::Loop(%max_trip_count, %initial_condition, %carried...)`. The body
    block takes the iteration number and the carried values and yields the
    next condition and the new carried values.

    The script frontend emits loops before their condition is inlined (seed
    004, "Conversion To SSA"): `prim::Loop(%max_trip_count)` with the body
    and a second block computing the condition (no arguments, yields one
    bool); `convert-to-ssa` inlines it into the form above.
    """

    name = "prim.Loop"
    KIND: ClassVar[str] = "prim::Loop"
    args = var_operand_def()
    res = var_result_def()
    body = region_def("single_block")
    cond_block = opt_region_def("single_block")

    def verify_(self) -> None:
        if self.cond_block is not None:
            self._verify_with_condition_block()
            return
        if len(self.operands) < 2:
            raise VerifyException("prim::Loop: needs a max trip count and an initial condition")
        n = len(self.operands) - 2
        _check_count(self, "results", len(self.results), n)
        if not isinstance(self.operands[0].type, TSIntType | TSAnyType):
            raise VerifyException("prim::Loop: the max trip count must be an int")
        if not _is_ts_bool(self.operands[1].type):
            raise VerifyException("prim::Loop: the condition must be a bool")
        block = self.body.block
        _check_count(self, "body block arguments", len(block.args), n + 1)
        if not isinstance(block.args[0].type, TSIntType | TSAnyType):
            raise VerifyException("prim::Loop: the body's first argument (the iteration) must be an int")
        outs = _terminator_operands(self.body)
        _check_count(self, "body outputs", len(outs), n + 1)
        if not _is_ts_bool(outs[0].type):
            raise VerifyException("prim::Loop: the body's first output (the condition) must be a bool")
        for i in range(n):
            _check_subtype(self, f"carried value {i}", self.operands[2 + i].type, self.results[i].type)
            _check_subtype(self, f"body output {i + 1}", outs[1 + i].type, self.results[i].type)

    def _verify_with_condition_block(self) -> None:
        """The frontend's form: `(%max_trip_count, %carried...)`, body yields the carried values."""
        assert self.cond_block is not None
        if not self.operands or not isinstance(self.operands[0].type, TSIntType | TSAnyType):
            raise VerifyException("prim::Loop: needs a max trip count (an int)")
        n = len(self.operands) - 1
        _check_count(self, "results", len(self.results), n)
        _check_count(self, "body block arguments", len(self.body.block.args), n + 1)
        _check_count(self, "body outputs", len(_terminator_operands(self.body)), n)
        cond = self.cond_block.block
        if cond.args:
            raise VerifyException("prim::Loop: the condition block takes no arguments")
        outs = _terminator_operands(self.cond_block)
        _check_count(self, "condition block outputs", len(outs), 1)
        if not _is_ts_bool(outs[0].type):
            raise VerifyException("prim::Loop: the condition block must yield a bool")

    @property
    def carried(self) -> tuple[SSAValue, ...]:
        return tuple(self.operands[2:])


@irdl_op_definition
class WithOp(PrimOp):
    """`prim::With`: the body and the exit block, only during exit-transform."""

    name = "prim.With"
    KIND: ClassVar[str] = "prim::With"
    res = var_result_def()
    blocks = var_region_def("single_block")

    def verify_(self) -> None:
        _check_count(self, "blocks", len(self.regions), 2)


class _Simple(PrimOp):
    """A prim op whose operand and result counts the node determines."""

    args = var_operand_def()
    res = var_result_def()
    extra = opt_prop_def(DictionaryAttr, prop_name="attrs")


@irdl_op_definition
class EnterOp(_Simple):
    """`prim::Enter(%ctx)`: calls `__enter__`, returning its value."""

    name = "prim.Enter"
    KIND: ClassVar[str] = "prim::Enter"


@irdl_op_definition
class ExitOp(_Simple):
    """`prim::Exit(%ctx)`: calls `__exit__`."""

    name = "prim.Exit"
    KIND: ClassVar[str] = "prim::Exit"


@irdl_op_definition
class UninitializedOp(_Simple):
    """`prim::Uninitialized()`: a value the compiler proved is never read."""

    name = "prim.Uninitialized"
    KIND: ClassVar[str] = "prim::Uninitialized"
    traits = traits_def(Pure())

    def verify_(self) -> None:
        _check_count(self, "operands", len(self.operands), 0)
        _check_count(self, "results", len(self.results), 1)


@irdl_op_definition
class RaiseExceptionOp(_Simple):
    """`prim::RaiseException(%msg, %cls)`: raise; the class name is optional."""

    name = "prim.RaiseException"
    KIND: ClassVar[str] = "prim::RaiseException"

    def verify_(self) -> None:
        if not 1 <= len(self.operands) <= 2:
            raise VerifyException("prim::RaiseException takes a message and optionally a class name")
        if not isinstance(self.operands[0].type, TSStrType | TSAnyType):
            raise VerifyException("prim::RaiseException: the message must be a str")


# -- the frontend's variables and exits, removed by convert-to-ssa / exit-transform


@irdl_op_definition
class StoreOp(_Simple):
    """`prim::Store[name="x"](%v)`: assign a variable (before convert-to-ssa)."""

    name = "prim.Store"
    KIND: ClassVar[str] = "prim::Store"
    var = prop_def(StringAttr, prop_name="name")

    def verify_(self) -> None:
        _check_count(self, "operands", len(self.operands), 1)
        _check_count(self, "results", len(self.results), 0)


@irdl_op_definition
class LoadOp(_Simple):
    """`prim::Load[name="x"]()`: read a variable (before convert-to-ssa)."""

    name = "prim.Load"
    KIND: ClassVar[str] = "prim::Load"
    var = prop_def(StringAttr, prop_name="name")

    def verify_(self) -> None:
        _check_count(self, "operands", len(self.operands), 0)
        _check_count(self, "results", len(self.results), 1)


@irdl_op_definition
class LoopContinuationOp(_Simple):
    """`prim::LoopContinuation(%cond, %carried...)`: break/continue, until exit-transform."""

    name = "prim.LoopContinuation"
    KIND: ClassVar[str] = "prim::LoopContinuation"


@irdl_op_definition
class ReturnStmtOp(_Simple):
    """`prim::ReturnStmt(%values...)`: an early return, until exit-transform."""

    name = "prim.ReturnStmt"
    KIND: ClassVar[str] = "prim::ReturnStmt"


@irdl_op_definition
class BreakStmtOp(_Simple):
    """`prim::BreakStmt()`: a `break`, until convert-to-ssa."""

    name = "prim.BreakStmt"
    KIND: ClassVar[str] = "prim::BreakStmt"


@irdl_op_definition
class ContinueStmtOp(_Simple):
    """`prim::ContinueStmt()`: a `continue`, until convert-to-ssa."""

    name = "prim.ContinueStmt"
    KIND: ClassVar[str] = "prim::ContinueStmt"


# ---------------------------------------------------------------------------
# Lists, tuples, dicts
# ---------------------------------------------------------------------------


@irdl_op_definition
class ListConstructOp(_Simple):
    name = "prim.ListConstruct"
    KIND: ClassVar[str] = "prim::ListConstruct"
    traits = traits_def(Pure())

    def verify_(self) -> None:
        _check_count(self, "results", len(self.results), 1)
        t = self.results[0].type
        if isinstance(t, TSAnyType):
            return
        if not isinstance(t, TSListType):
            raise VerifyException(f"prim::ListConstruct must return a list, got {ts_type_str(t)}")
        for i, v in enumerate(self.operands):
            _check_subtype(self, f"element {i}", v.type, t.element)


@irdl_op_definition
class ListUnpackOp(_Simple):
    name = "prim.ListUnpack"
    KIND: ClassVar[str] = "prim::ListUnpack"
    traits = traits_def(Pure(), TSCanonicalization())

    def verify_(self) -> None:
        _check_count(self, "operands", len(self.operands), 1)
        t = self.operands[0].type
        if isinstance(t, TSListType):
            for i, r in enumerate(self.results):
                _check_subtype(self, f"element {i}", t.element, r.type) if not isinstance(
                    t.element, TSTensorType) else None
        elif not isinstance(t, TSAnyType):
            raise VerifyException(f"prim::ListUnpack needs a list, got {ts_type_str(t)}")


@irdl_op_definition
class TupleConstructOp(_Simple):
    name = "prim.TupleConstruct"
    KIND: ClassVar[str] = "prim::TupleConstruct"
    traits = traits_def(Pure())

    def verify_(self) -> None:
        _check_count(self, "results", len(self.results), 1)
        t = self.results[0].type
        if not isinstance(t, TSTupleType):
            raise VerifyException(f"prim::TupleConstruct must return a tuple, got {ts_type_str(t)}")
        _check_count(self, "elements", len(self.operands), len(t.element_types))
        for i, (v, e) in enumerate(zip(self.operands, t.element_types)):
            # torch's fusers leave the tuple type more refined than its tensors (texpr_lstm_cell)
            _check_subtype(self, f"element {i}", unrefined(v.type), unrefined(e))


@irdl_op_definition
class TupleUnpackOp(_Simple):
    name = "prim.TupleUnpack"
    KIND: ClassVar[str] = "prim::TupleUnpack"
    traits = traits_def(Pure(), TSCanonicalization())

    def verify_(self) -> None:
        _check_count(self, "operands", len(self.operands), 1)
        t = self.operands[0].type
        if not isinstance(t, TSTupleType):
            raise VerifyException(f"prim::TupleUnpack needs a tuple, got {ts_type_str(t)}")
        _check_count(self, "results", len(self.results), len(t.element_types))
        for i, (e, r) in enumerate(zip(t.element_types, self.results)):
            _check_subtype(self, f"element {i}", e, r.type)


@irdl_op_definition
class TupleIndexOp(_Simple):
    """`prim::TupleIndex(%tuple, %index)`."""

    name = "prim.TupleIndex"
    KIND: ClassVar[str] = "prim::TupleIndex"
    traits = traits_def(Pure(), TSCanonicalization())

    def verify_(self) -> None:
        _check_count(self, "operands", len(self.operands), 2)
        _check_count(self, "results", len(self.results), 1)
        if not isinstance(self.operands[0].type, TSTupleType | TSAnyType):
            raise VerifyException(f"prim::TupleIndex needs a tuple, got {ts_type_str(self.operands[0].type)}")
        if not isinstance(self.operands[1].type, TSIntType):
            raise VerifyException("prim::TupleIndex: the index must be an int")


@irdl_op_definition
class DictConstructOp(_Simple):
    """`prim::DictConstruct(%k0, %v0, %k1, %v1, ...)`."""

    name = "prim.DictConstruct"
    KIND: ClassVar[str] = "prim::DictConstruct"
    traits = traits_def(Pure())

    def verify_(self) -> None:
        _check_count(self, "results", len(self.results), 1)
        t = self.results[0].type
        if not isinstance(t, TSDictType):
            raise VerifyException(f"prim::DictConstruct must return a dict, got {ts_type_str(t)}")
        if len(self.operands) % 2:
            raise VerifyException("prim::DictConstruct takes keys and values in pairs")
        for i, v in enumerate(self.operands):
            _check_subtype(self, f"{'value' if i % 2 else 'key'} {i // 2}", v.type, t.value if i % 2 else t.key)


# ---------------------------------------------------------------------------
# Modules and calls
# ---------------------------------------------------------------------------


@irdl_op_definition
class GetAttrOp(_Simple):
    """`prim::GetAttr[name="weight"](%self)`: read a slot or submodule."""

    name = "prim.GetAttr"
    KIND: ClassVar[str] = "prim::GetAttr"
    attr = prop_def(StringAttr, prop_name="name")

    def verify_(self) -> None:
        _check_count(self, "operands", len(self.operands), 1)
        _check_count(self, "results", len(self.results), 1)
        if not isinstance(self.operands[0].type, TSClassType | TSAnyType):
            raise VerifyException(f"prim::GetAttr reads an object, got {ts_type_str(self.operands[0].type)}")


@irdl_op_definition
class SetAttrOp(_Simple):
    """`prim::SetAttr[name="count"](%self, %value)`."""

    name = "prim.SetAttr"
    KIND: ClassVar[str] = "prim::SetAttr"
    attr = prop_def(StringAttr, prop_name="name")

    def verify_(self) -> None:
        _check_count(self, "operands", len(self.operands), 2)
        _check_count(self, "results", len(self.results), 0)
        if not isinstance(self.operands[0].type, TSClassType | TSAnyType):
            raise VerifyException(f"prim::SetAttr writes an object, got {ts_type_str(self.operands[0].type)}")


@irdl_op_definition
class CallMethodOp(_Simple):
    """`prim::CallMethod[name="forward"](%obj, %args...)`."""

    name = "prim.CallMethod"
    KIND: ClassVar[str] = "prim::CallMethod"
    method = prop_def(StringAttr, prop_name="name")

    def verify_(self) -> None:
        if not self.operands or not isinstance(self.operands[0].type, TSClassType | TSAnyType):
            raise VerifyException("prim::CallMethod: the first operand must be an object")


@irdl_op_definition
class CallFunctionOp(_Simple):
    """`prim::CallFunction(%fn, %args...)`, `%fn` a `prim::Constant[name=...]`."""

    name = "prim.CallFunction"
    KIND: ClassVar[str] = "prim::CallFunction"

    def verify_(self) -> None:
        if not self.operands or not isinstance(self.operands[0].type, TSFunctionType):
            raise VerifyException("prim::CallFunction: the first operand must be a function")


# ---------------------------------------------------------------------------
# The graph executor's nodes
# ---------------------------------------------------------------------------


@irdl_op_definition
class ConstantChunkOp(_Simple):
    """`prim::ConstantChunk[chunks=4, dim=1](%x)`: `chunk` with a known count, one result each."""

    name = "prim.ConstantChunk"
    KIND: ClassVar[str] = "prim::ConstantChunk"
    chunks = prop_def(IntegerAttr)
    dim = prop_def(IntegerAttr)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        _check_count(self, "operands", len(self.operands), 1)
        _check_count(self, "results", len(self.results), self.chunks.value.data)


class _SubgraphOp(PrimOp):
    """A node running its subgraph (the dump's `with prim::X_0 = graph(...)`) on its inputs."""

    args = var_operand_def()
    res = var_result_def()
    subgraph = region_def("single_block")
    extra = opt_prop_def(DictionaryAttr, prop_name="attrs")
    traits = traits_def(IsolatedFromAbove())

    def verify_(self) -> None:
        block = self.subgraph.block
        _check_count(self, "subgraph inputs", len(block.args), len(self.operands))
        outs = _terminator_operands(self.subgraph)
        _check_count(self, "subgraph outputs", len(outs), len(self.results))


@irdl_op_definition
class FusionGroupOp(_SubgraphOp):
    name = "prim.FusionGroup"
    KIND: ClassVar[str] = "prim::FusionGroup"


@irdl_op_definition
class DifferentiableGraphOp(_SubgraphOp):
    """Its subgraph returns the node's outputs, then the values it saves for the backward pass."""

    name = "prim.DifferentiableGraph"
    KIND: ClassVar[str] = "prim::DifferentiableGraph"

    def verify_(self) -> None:
        _check_count(self, "subgraph inputs", len(self.subgraph.block.args), len(self.operands))
        outs = _terminator_operands(self.subgraph)
        if len(outs) < len(self.results):
            raise VerifyException(
                f"{op_title(self)}: the subgraph returns {len(outs)} values, fewer than the {len(self.results)} results"
            )


@irdl_op_definition
class TensorExprGroupOp(_SubgraphOp):
    name = "prim.TensorExprGroup"
    KIND: ClassVar[str] = "prim::TensorExprGroup"


@irdl_op_definition
class ForkOp(_SubgraphOp):
    """`prim::fork`: its subgraph runs (here, at once) and the result is a Future."""

    name = "prim.fork"
    KIND: ClassVar[str] = "prim::fork"

    def verify_(self) -> None:
        _check_count(self, "subgraph inputs", len(self.subgraph.block.args), len(self.operands))
        _check_count(self, "results", len(self.results), 1)
        if not isinstance(self.results[0].type, TSFutureType):
            raise VerifyException("prim::fork returns a Future")


@irdl_op_definition
class TypeCheckOp(_Simple):
    """
    `prim::TypeCheck[types=[...]](%xs...)`: the inputs retyped as `types`,
    plus a bool saying whether they all have those types at run time.
    """

    name = "prim.TypeCheck"
    KIND: ClassVar[str] = "prim::TypeCheck"
    types = prop_def(ArrayAttr)

    def verify_(self) -> None:
        n = len(self.operands)
        _check_count(self, "results", len(self.results), n + 1)
        _check_count(self, "types", len(self.types.data), n)
        if not isinstance(self.results[-1].type, TSBoolType):
            raise VerifyException("prim::TypeCheck: the last result must be a bool")


@irdl_op_definition
class GuardOp(_Simple):
    """`prim::Guard(%x)`: `%x` retyped; a mismatch at run time would bail out."""

    name = "prim.Guard"
    KIND: ClassVar[str] = "prim::Guard"

    def verify_(self) -> None:
        _check_count(self, "results", len(self.results), 1)


@irdl_op_definition
class BailOutOp(PrimOp):
    """`prim::BailOut[index=N](%x, %live...)`, with the deoptimized rest as an optional subgraph."""

    name = "prim.BailOut"
    KIND: ClassVar[str] = "prim::BailOut"
    args = var_operand_def()
    res = var_result_def()
    index = opt_prop_def(IntegerAttr)
    extra = opt_prop_def(DictionaryAttr, prop_name="attrs")
    subgraph = var_region_def("single_block")

    def verify_(self) -> None:
        _check_count(self, "results", len(self.results), 1)
        if len(self.regions) > 1:
            raise VerifyException("prim::BailOut has at most one subgraph")


@irdl_op_definition
class ProfileOp(_Simple):
    """`prim::profile[profiled_type=..., seen_none=0](%x)`: the types seen at run time."""

    name = "prim.profile"
    KIND: ClassVar[str] = "prim::profile"
    profiled_type = opt_prop_def(Attribute)
    seen_none = opt_prop_def(IntegerAttr)


PRIM_OPS: tuple[type[PrimOp], ...] = (
    ReturnOp, ConstantOp, IfOp, LoopOp, WithOp, EnterOp, ExitOp, UninitializedOp,
    RaiseExceptionOp, StoreOp, LoadOp, LoopContinuationOp, ReturnStmtOp,
    BreakStmtOp, ContinueStmtOp, ListConstructOp, ListUnpackOp, TupleConstructOp,
    TupleUnpackOp, TupleIndexOp, DictConstructOp, GetAttrOp, SetAttrOp,
    CallMethodOp, CallFunctionOp, ConstantChunkOp, FusionGroupOp,
    DifferentiableGraphOp, TensorExprGroupOp, ForkOp, TypeCheckOp, GuardOp,
    BailOutOp, ProfileOp,
)

OP_OF_KIND: dict[str, type[PrimOp]] = {c.KIND: c for c in PRIM_OPS}
"""`prim::If` -> IfOp; kinds not listed are `ts.node`s."""

SUBGRAPH_OPS: tuple[type[PrimOp], ...] = (FusionGroupOp, DifferentiableGraphOp, TensorExprGroupOp, ForkOp)

Prim = Dialect("prim", list(PRIM_OPS), [])

__all__ = [
    "INT64_MAX",
    "OP_OF_KIND",
    "PRIM_OPS",
    "SUBGRAPH_OPS",
    "Prim",
    *[c.__name__ for c in PRIM_OPS],
]
