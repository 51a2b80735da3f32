"""Operations of the ``exir`` dialect: the program and its structure
(``exir.program``, ``exir.state``, ``exir.graph``, ``exir.output``), calls
(``exir.call_function``, ``exir.getitem``, ``exir.get_attr``), the
higher-order ops (``exir.cond``, ``exir.while_loop``, ``exir.map``) and
``exir.fusion_group``.

The higher-order ops share this module with the graph ops because
``exir.output`` terminates the regions of both: its parent trait names them all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import ClassVar, Self, cast

from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import (
    ArrayAttr,
    Builtin,
    DenseArrayBase,
    DictionaryAttr,
    FunctionType,
    IntAttr,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    i32,
)
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import (
    ConstantLike,
    EffectInstance,
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    MemoryEffect,
    NoTerminator,
    Pure,
    RecursiveMemoryEffect,
    SymbolOpInterface,
    SymbolTable,
    SymbolUserOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from xdsl_exir.dialects.exir.args import (
    ArgParser,
    ArgsOpMixin,
    DenseBlobAttr,
    ResourceBlobAttr,
    decode_arg,
    encode_arg,
    iter_refs,
    parse_operand_and_result_types,
    print_arg,
    print_call_args,
)
from xdsl_exir.dialects.exir.signature import (
    InputSpecAttr,
    OutputSpecAttr,
    RangeConstraintAttr,
    parse_optional_spec_list,
    parse_pytree_spec,
    print_pytree_spec,
    print_spec_list,
)
from xdsl_exir.dialects.exir.types import (
    BoolType,
    DType,
    FloatType,
    GraphModuleType,
    IntType,
    ListType,
    NoneType,
    StrType,
    SymBoolType,
    TensorType,
    TupleType,
)
from xdsl_exir.utils import op_registry
from xdsl_exir.utils.aten_enums import call_enum_problem
from xdsl_exir.utils.mlir_parser import HexBlob, ResourceParser, declare_blob
from xdsl_exir.utils.symbolic import SymSize, sympy
from xdsl_exir.utils.xdsl_compat import parse_resource_handle


@irdl_op_definition
class ProgramOp(IRDLOperation):
    """
    A `torch.export.ExportedProgram`: its graphs (the entry one is `@forward`),
    its named state (`exir.state`), the graph signature and range constraints.

    exir.program inputs [<parameter "p_w" -> "w">, <user_input "x">]
                 outputs [<user_output "mul">] ranges [<s0 in [2, 64]>] {
      exir.state @w : !exir.tensor<[4], float32>
      exir.graph @forward(...) -> ... { ... }
    }
    """

    name = "exir.program"

    inputs = prop_def(ArrayAttr[InputSpecAttr])
    outputs = prop_def(ArrayAttr[OutputSpecAttr])
    range_constraints = prop_def(ArrayAttr[RangeConstraintAttr])
    in_spec = opt_prop_def(StringAttr)
    out_spec = opt_prop_def(StringAttr)
    body = region_def("single_block")

    traits = traits_def(IsolatedFromAbove(), NoTerminator(), SymbolTable())

    ENTRY: ClassVar[str] = "forward"

    def __init__(
        self,
        inputs: Sequence[InputSpecAttr],
        outputs: Sequence[OutputSpecAttr],
        body: Region | Sequence[Operation],
        range_constraints: Sequence[RangeConstraintAttr] = (),
        in_spec: str | None = None,
        out_spec: str | None = None,
    ) -> None:
        if not isinstance(body, Region):
            body = Region(Block(body))
        super().__init__(
            properties={
                "inputs": ArrayAttr(inputs),
                "outputs": ArrayAttr(outputs),
                "range_constraints": ArrayAttr(range_constraints),
                "in_spec": None if in_spec is None else StringAttr(in_spec),
                "out_spec": None if out_spec is None else StringAttr(out_spec),
            },
            regions=[body],
        )

    @property
    def entry(self) -> GraphOp | None:
        return self.lookup_graph(self.ENTRY)

    def lookup_graph(self, name: str) -> GraphOp | None:
        for op in self.body.block.ops:
            if isinstance(op, GraphOp) and op.sym_name.data == name:
                return op
        return None

    def state(self) -> dict[str, StateOp]:
        return {
            op.sym_name.data: op for op in self.body.block.ops if isinstance(op, StateOp)
        }

    def ranges(self) -> dict[sympy.Expr, tuple[sympy.Expr, sympy.Expr]]:
        return {
            r.expr.data: (r.lower.data, r.upper.data)
            for r in self.range_constraints.data
        }

    def verify_(self) -> None:
        for op in self.body.block.ops:
            if not isinstance(op, GraphOp | StateOp):
                raise VerifyException(
                    f"'{op.name}' cannot appear directly in a program: it holds "
                    "only exir.graph and exir.state"
                )
        entry = self.entry
        if entry is None:
            raise VerifyException(f"program has no entry graph @{self.ENTRY}")
        # The signature's own consistency, checked on every read (verify-export-ir checks the rest).
        placeholders = len(entry.body.block.args)
        if len(self.inputs.data) != placeholders:
            raise VerifyException(
                f"the signature lists {len(self.inputs.data)} inputs but @{self.ENTRY} has {placeholders} placeholders"
            )
        output = entry.body.block.last_op
        if isinstance(output, OutputOp) and len(self.outputs.data) != len(output.operands):
            raise VerifyException(
                f"the signature lists {len(self.outputs.data)} outputs but @{self.ENTRY} returns "
                f"{len(output.operands)} values"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ProgramOp:
        inputs = parse_optional_spec_list(parser, "inputs", InputSpecAttr)
        outputs = parse_optional_spec_list(parser, "outputs", OutputSpecAttr)
        ranges = parse_optional_spec_list(parser, "ranges", RangeConstraintAttr)
        in_spec = None
        out_spec = None
        if parser.parse_optional_keyword("in_spec"):
            in_spec = parse_pytree_spec(parser)
        if parser.parse_optional_keyword("out_spec"):
            out_spec = parse_pytree_spec(parser)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        op = ProgramOp(
            cast(Sequence[InputSpecAttr], inputs),
            cast(Sequence[OutputSpecAttr], outputs),
            body,
            cast(Sequence[RangeConstraintAttr], ranges),
            in_spec,
            out_spec,
        )
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        print_spec_list(printer, "inputs", self.inputs.data)
        print_spec_list(printer, "outputs", self.outputs.data)
        print_spec_list(printer, "ranges", self.range_constraints.data)
        if self.in_spec is not None:
            printer.print_string(" in_spec ")
            print_pytree_spec(printer, self.in_spec.data)
        if self.out_spec is not None:
            printer.print_string(" out_spec ")
            print_pytree_spec(printer, self.out_spec.data)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)


_STATE_HEAD = re.compile(r"@([A-Za-z_][A-Za-z0-9_$.]*)[ \t]*:")
"""A state's bare symbol name and colon; quoted names go to the general parser."""
_STATE_RESOURCE = re.compile(r"=[ \t]*(dense_resource)<([A-Za-z_][A-Za-z0-9_$.]*)>")
"""A state's value as a resource handle with a bare key."""


@irdl_op_definition
class StateOp(IRDLOperation):
    """
    A named piece of program state (parameter, buffer, constant tensor or
    custom object), `exir.state @fc.weight : !exir.tensor<[4, 4], float32>`.
    Its `value`, when present, is the data (set by importers).
    """

    name = "exir.state"

    sym_name = prop_def(SymbolNameConstraint())
    state_type = prop_def(Attribute, prop_name="type")
    value = opt_prop_def(Attribute)

    traits = traits_def(SymbolOpInterface(), HasParent(ProgramOp))

    def __init__(
        self, name: str, state_type: Attribute, value: Attribute | None = None
    ) -> None:
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "type": state_type,
                "value": value,
            }
        )

    @classmethod
    def parse(cls, parser: Parser) -> StateOp:
        """
        `@name : type (= value)? attr-dict?`, the value's data as MLIR's
        `dense_resource<key>` (the bytes in the file's resources, loaded when
        `ResourceParser` has read them) or as any attribute, the older inline
        `#exir.blob<"0x...">` included.
        """
        fast = isinstance(parser, ResourceParser)
        if fast and (head := parser.peek_raw(_STATE_HEAD)) is not None:  # `@name :`, the common form
            name = StringAttr(head.group(1))
            parser.skip_raw(head.end())
        else:
            name = parser.parse_symbol_name()
            parser.parse_punctuation(":")
        state_type = parser.parse_type()
        value: Attribute | None = None
        resource: str | None = None
        pos = parser.pos
        if fast and (tail := parser.peek_raw(_STATE_RESOURCE)) is not None:  # `= dense_resource<key>`
            storage = Builtin.get_interface(OpAsmDialectInterface)
            assert storage is not None
            pos = tail.start(1)
            resource = parser.declare_resource_handle("builtin", storage, tail.group(2))
            value = ResourceBlobAttr(resource)
            parser.skip_raw(tail.end())
        elif parser.parse_optional_punctuation("="):
            pos = parser.pos
            if parser.parse_optional_keyword("dense_resource"):
                storage = Builtin.get_interface(OpAsmDialectInterface)
                assert storage is not None
                with parser.in_angle_brackets():
                    # The handle parser xDSL's own `dense_resource` attribute uses (declares the key).
                    resource = parse_resource_handle(parser, "builtin", storage)
                value = ResourceBlobAttr(resource)
            else:
                value = parser.parse_attribute()
        attrs = parser.parse_optional_attr_dict()
        op = StateOp(name.data, state_type, value)
        op.attributes |= attrs
        if resource is not None and isinstance(parser, ResourceParser):

            def load(data: HexBlob) -> None:
                op.value = DenseBlobAttr.from_hex(data)  # decoded when first used

            parser.defer_blob(resource, load, pos)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" : ")
        printer.print_attribute(self.state_type)
        value = self.value
        if value is not None:
            printer.print_string(" = ")
            if isinstance(value, DenseBlobAttr | ResourceBlobAttr):
                key = declare_blob(self.sym_name.data, value.data) if isinstance(value, DenseBlobAttr) else value.data
                printer.print_string("dense_resource<")
                printer.print_resource_handle("builtin", key)
                printer.print_string(">")
            else:
                printer.print_attribute(value)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class GraphOp(IRDLOperation):
    """
    An FX graph. Its entry-block arguments are the placeholders, in order; its
    single block ends with `exir.output`.
    """

    name = "exir.graph"

    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    body = region_def("single_block")

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    def __init__(
        self,
        name: str,
        input_types: Sequence[Attribute],
        output_types: Sequence[Attribute],
        body: Region | None = None,
    ) -> None:
        if body is None:
            body = Region(Block(arg_types=input_types))
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "function_type": FunctionType.from_lists(input_types, output_types),
            },
            regions=[body],
        )

    @property
    def placeholders(self) -> tuple[SSAValue, ...]:
        return self.body.block.args

    @property
    def output(self) -> OutputOp | None:
        last = self.body.block.last_op
        return last if isinstance(last, OutputOp) else None

    def verify_(self) -> None:
        block = self.body.block
        if tuple(block.arg_types) != self.function_type.inputs.data:
            raise VerifyException(
                "graph placeholders (block arguments) do not match its input types"
            )
        out = self.output
        if out is not None and tuple(out.values.types) != self.function_type.outputs.data:
            raise VerifyException("exir.output types do not match the graph's result types")

    @classmethod
    def parse(cls, parser: Parser) -> GraphOp:
        name, inputs, outputs, region, attrs, arg_attrs, res_attrs = parse_func_op_like(
            parser, reserved_attr_names=("sym_name", "function_type")
        )
        op = GraphOp(name, inputs, outputs, region)
        if attrs is not None:
            op.attributes |= attrs.data
        if arg_attrs is not None:
            op.arg_attrs = arg_attrs
        if res_attrs is not None:
            op.res_attrs = res_attrs
        return op

    def print(self, printer: Printer) -> None:
        print_func_op_like(
            printer,
            self.sym_name,
            self.function_type,
            self.body,
            self.attributes,
            arg_attrs=self.arg_attrs,
            res_attrs=self.res_attrs,
            reserved_attr_names=("sym_name", "function_type", "arg_attrs"),
        )


@irdl_op_definition
class OutputOp(IRDLOperation):
    """The FX `output` node: exactly one, last, in every graph and subgraph."""

    name = "exir.output"

    values = var_operand_def()

    traits = lazy_traits_def(
        lambda: (IsTerminator(), HasParent(GraphOp, CondOp, WhileLoopOp, MapOp, FusionGroupOp), Pure())
    )

    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, values: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[values])


class _CallFunctionEffects(MemoryEffect):
    """
    A call of a registered functional, deterministic operator has no effects
    (so DCE and CSE may touch it); anything else has unknown effects.
    """

    @classmethod
    def get_effects(cls, op: Operation) -> AbstractSet[EffectInstance] | None:
        assert isinstance(op, CallFunctionOp)
        entry = op_registry.lookup(op.target.data)
        if (
            entry is None
            or not op.results  # returns nothing, so it is called for its effect (an assert)
            or entry.nondeterministic
            or not entry.schema.is_functional
        ):
            return None
        return frozenset()


class TargetCallMixin(ArgsOpMixin):
    """
    The syntax of calls with a string target, FX args and kwargs:
    `"target"(%x, 2, alpha = 1.5) {attrs} : (operand types) -> result types`.
    The op has `target`, `args` and `kwargs` properties.
    """

    TARGET_KIND: ClassVar[str] = "target"
    """What the target string is, for parse errors."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        target = parser.parse_str_literal(cls.TARGET_KIND)
        arg_parser = ArgParser(parser)
        args, kwargs = arg_parser.parse_call()
        attrs = parser.parse_optional_attr_dict()
        operands, results = parse_operand_and_result_types(parser, arg_parser.operands)
        return cast(
            Self,
            cast(type[IRDLOperation], cls).create(
                operands=operands,
                result_types=results,
                properties={
                    "target": StringAttr(target),
                    "args": ArrayAttr(args),
                    "kwargs": DictionaryAttr(kwargs),
                },
                attributes=attrs,
            ),
        )

    def print(self, printer: Printer) -> None:
        op = cast(IRDLOperation, self)
        printer.print_string(" ")
        printer.print_string_literal(cast(StringAttr, op.properties["target"]).data)
        print_call_args(
            printer,
            cast(ArrayAttr[Attribute], op.properties["args"]).data,
            cast(DictionaryAttr, op.properties["kwargs"]),
            op.operands,
        )
        printer.print_op_attributes(op.attributes)
        printer.print_string(" : ")
        printer.print_function_type(op.operand_types, op.result_types)


@irdl_op_definition
class CallFunctionOp(TargetCallMixin, IRDLOperation):
    """
    An FX `call_function` node the operator registry does not model:
    any target, FX args and kwargs with constants embedded.

    %r = exir.call_function "mylib.foo.default"(%x, [%y, 2], alpha = 1.5)
           : (!exir.tensor<[2], float32>, !exir.tensor<[2], float32>)
           -> !exir.tensor<[2], float32>
    """

    name = "exir.call_function"
    TARGET_KIND: ClassVar[str] = "call_function target"

    target = prop_def(StringAttr)
    args = prop_def(ArrayAttr)
    kwargs = prop_def(DictionaryAttr)
    arguments = var_operand_def()
    res = var_result_def()

    traits = traits_def(_CallFunctionEffects())

    def __init__(
        self,
        target: str,
        args: Sequence[object],
        kwargs: dict[str, object] | None,
        result_types: Sequence[Attribute],
    ) -> None:
        operands: list[SSAValue] = []
        arg_attrs = [encode_arg(a, operands) for a in args]
        kwarg_attrs = {k: encode_arg(v, operands) for k, v in (kwargs or {}).items()}
        super().__init__(
            operands=[operands],
            result_types=[result_types],
            properties={
                "target": StringAttr(target),
                "args": ArrayAttr(arg_attrs),
                "kwargs": DictionaryAttr(kwarg_attrs),
            },
        )

    def verify_(self) -> None:
        self.verify_refs()
        # An enum torch refuses (`rounding_mode="bogus"`), as the aten ops' verifier refuses it:
        # the interpreter's and the lowering's rules would otherwise compute a default silently.
        entry = op_registry.lookup(self.target.data)
        if entry is not None:
            why = call_enum_problem(entry.op_name, entry.schema, self.get_args(), self.get_kwargs())
            if why is not None:
                raise VerifyException(why)


@irdl_op_definition
class GetItemOp(IRDLOperation):
    """`operator.getitem` on a tuple or list result, `exir.getitem %t[1]`."""

    name = "exir.getitem"

    input = operand_def(TupleType | ListType)
    index = prop_def(IntAttr)
    result = result_def()

    traits = traits_def(Pure())

    def __init__(self, value: SSAValue | Operation, index: int) -> None:
        value = SSAValue.get(value)
        vtype = value.type
        if isinstance(vtype, TupleType):
            rtype = vtype.types.data[index]
        elif isinstance(vtype, ListType):
            rtype = vtype.element_type
        else:
            raise ValueError(f"getitem of a value of type {vtype}")
        super().__init__(
            operands=[value], result_types=[rtype], properties={"index": IntAttr(index)}
        )

    def verify_(self) -> None:
        vtype = self.input.type
        idx = self.index.data
        if isinstance(vtype, TupleType):
            if not -len(vtype.types) <= idx < len(vtype.types):
                raise VerifyException(
                    f"index {idx} out of range for a tuple of {len(vtype.types)}"
                )
            expected = vtype.types.data[idx]
        else:
            expected = cast(ListType, vtype).element_type
        if self.result.type != expected:
            raise VerifyException(
                f"getitem result type {self.result.type} is not the element type "
                f"{expected}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> GetItemOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        index = parser.parse_integer()
        parser.parse_punctuation("]")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        vtype = parser.parse_type()
        parser.parse_punctuation("->")
        rtype = parser.parse_type()
        return cls.create(
            operands=[parser.resolve_operand(value, vtype)],
            result_types=[rtype],
            properties={"index": IntAttr(index)},
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.input)
        printer.print_string(f"[{self.index.data}]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


def constant_type(value: object) -> Attribute:
    """The leaf type of a Python constant `exir.constant` can hold."""
    if value is None:
        return NoneType()
    if isinstance(value, bool):
        return BoolType()
    if isinstance(value, int):
        return IntType()
    if isinstance(value, float):
        return FloatType()
    if isinstance(value, str):
        return StrType()
    raise TypeError(f"exir.constant holds a bool, int, float, str or None, not {type(value).__name__}")


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """
    A Python constant as a value, `%c = exir.constant true : !exir.bool`.

    torch.export lets a graph return a constant (`return x, True`): the output
    spec's argument is then a `ConstantArgument`, not a node. `exir.output`
    returns values, so the constant becomes one, spelled as FX arguments are.
    """

    name = "exir.constant"

    value = prop_def()
    result = result_def(BoolType | IntType | FloatType | StrType | NoneType)

    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: bool | int | float | str | None) -> None:
        super().__init__(
            result_types=[constant_type(value)], properties={"value": encode_arg(value, [])}
        )

    @property
    def python_value(self) -> bool | int | float | str | None:
        return cast(bool | int | float | str | None, decode_arg(self.value, []))

    def verify_(self) -> None:
        if any(True for _ in iter_refs(self.value)):
            raise VerifyException("exir.constant holds no SSA value")
        try:
            expected = constant_type(self.python_value)
        except TypeError as e:
            raise VerifyException(str(e)) from None
        if expected != self.result.type:
            raise VerifyException(f"exir.constant {self.python_value!r} has type {expected}, not {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        args = ArgParser(parser)
        value = args.parse_value()
        if args.operands:
            parser.raise_error("exir.constant holds a constant, not an SSA value")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        rtype = parser.parse_type()
        return cls.create(result_types=[rtype], properties={"value": value}, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_arg(printer, self.value, [])
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


class _GetAttrSymbolUser(SymbolUserOpInterface):
    def verify(self, op: Operation) -> None:
        assert isinstance(op, GetAttrOp)
        found = SymbolTable.lookup_symbol(op, op.target)
        if found is None:
            raise VerifyException(f"get_attr target {op.target} does not exist")


@irdl_op_definition
class GetAttrOp(IRDLOperation):
    """
    An FX `get_attr` node: in Export IR it reads only a submodule, i.e. a
    sibling `exir.graph` (used by higher-order ops the dialect does not model).
    """

    name = "exir.get_attr"

    target = prop_def(SymbolRefAttr)
    result = result_def()

    traits = traits_def(Pure(), _GetAttrSymbolUser())

    assembly_format = "$target attr-dict `:` type($result)"

    def __init__(self, target: str, result_type: Attribute | None = None) -> None:
        super().__init__(
            properties={"target": SymbolRefAttr(target)},
            result_types=[result_type or GraphModuleType()],
        )


# ---------------------------------------------------------------------------
# Higher-order ops: cond, while_loop, map
# ---------------------------------------------------------------------------


def _region_outputs(region: Region, what: str) -> tuple[Attribute, ...]:
    block = region.block
    out = block.last_op
    if not isinstance(out, OutputOp):
        raise VerifyException(f"{what} does not end with exir.output")
    return tuple(out.values.types)


def _check_region_args(
    region: Region, expected: Sequence[Attribute], what: str
) -> None:
    got = tuple(region.block.arg_types)
    if got != tuple(expected):
        raise VerifyException(
            f"{what} takes ({', '.join(map(str, got))}) but is given "
            f"({', '.join(map(str, expected))})"
        )


def _is_scalar_predicate(t: Attribute) -> bool:
    if isinstance(t, SymBoolType | BoolType):
        return True
    if isinstance(t, TensorType) and t.element_dtype == DType.bool:
        return all(s == 1 for s in t.sizes)
    return False


def _print_typed_operands(printer: Printer, values: Sequence[SSAValue]) -> None:
    printer.print_string("(")
    printer.print_list(values, printer.print_operand)
    printer.print_string(")")


def _parse_region_with_args(parser: Parser) -> Region:
    return parser.parse_region()


@irdl_op_definition
class CondOp(IRDLOperation):
    """
    `torch.ops.higher_order.cond(pred, true_fn, false_fn, operands)` with both
    branches as regions taking the operands as block arguments.
    """

    name = "exir.cond"

    pred = operand_def()
    inputs = var_operand_def()
    res = var_result_def()
    true_branch = region_def("single_block")
    false_branch = region_def("single_block")

    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        pred: SSAValue | Operation,
        inputs: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        true_branch: Region,
        false_branch: Region,
    ) -> None:
        super().__init__(
            operands=[pred, inputs],
            result_types=[result_types],
            regions=[true_branch, false_branch],
        )

    def verify_(self) -> None:
        if not _is_scalar_predicate(self.pred.type):
            raise VerifyException(
                f"cond predicate must be a bool tensor of one element or a SymBool, "
                f"got {self.pred.type}"
            )
        for region, what in ((self.true_branch, "true branch"), (self.false_branch, "false branch")):
            _check_region_args(region, self.inputs.types, what)
            outs = _region_outputs(region, what)
            if outs != tuple(self.result_types):
                raise VerifyException(
                    f"{what} returns ({', '.join(map(str, outs))}) but cond "
                    f"results are ({', '.join(map(str, self.result_types))})"
                )

    @classmethod
    def parse(cls, parser: Parser) -> CondOp:
        pred = parser.parse_unresolved_operand()
        inputs = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict_with_keyword()
        parser.parse_punctuation(":")
        ptype = parser.parse_type()
        parser.parse_punctuation(",")
        ftype = parser.parse_function_type()
        if len(ftype.inputs) != len(inputs):
            parser.raise_error(f"{len(inputs)} operands but {len(ftype.inputs)} types")
        true_branch = parser.parse_region()
        parser.parse_keyword("else")
        false_branch = parser.parse_region()
        op = CondOp(
            parser.resolve_operand(pred, ptype),
            [parser.resolve_operand(u, t) for u, t in zip(inputs, ftype.inputs.data)],
            ftype.outputs.data,
            true_branch,
            false_branch,
        )
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.pred)
        _print_typed_operands(printer, self.inputs)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" : ")
        printer.print_attribute(self.pred.type)
        printer.print_string(", ")
        printer.print_function_type(self.inputs.types, self.result_types)
        printer.print_string(" ")
        printer.print_region(self.true_branch)
        printer.print_string(" else ")
        printer.print_region(self.false_branch)


@irdl_op_definition
class WhileLoopOp(IRDLOperation):
    """
    `torch.ops.higher_order.while_loop(cond_fn, body_fn, carried, additional)`.
    Both regions take (carried..., additional...); `cond` returns a scalar
    predicate, `body` the next carried values; the results are the last ones.
    """

    name = "exir.while_loop"

    carried = var_operand_def()
    additional = var_operand_def()
    res = var_result_def()
    cond_region = region_def("single_block")
    body_region = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        carried: Sequence[SSAValue | Operation],
        additional: Sequence[SSAValue | Operation],
        cond_region: Region,
        body_region: Region,
    ) -> None:
        super().__init__(
            operands=[carried, additional],
            result_types=[[SSAValue.get(c).type for c in carried]],
            regions=[cond_region, body_region],
        )

    def verify_(self) -> None:
        arg_types = (*self.carried.types, *self.additional.types)
        _check_region_args(self.cond_region, arg_types, "while_loop condition")
        _check_region_args(self.body_region, arg_types, "while_loop body")
        cond_out = _region_outputs(self.cond_region, "while_loop condition")
        if len(cond_out) != 1 or not _is_scalar_predicate(cond_out[0]):
            raise VerifyException(
                "while_loop condition must return one bool tensor of one element "
                "or a SymBool"
            )
        body_out = _region_outputs(self.body_region, "while_loop body")
        if body_out != tuple(self.carried.types):
            raise VerifyException(
                "while_loop body must return the types of the carried values"
            )
        if tuple(self.result_types) != tuple(self.carried.types):
            raise VerifyException("while_loop results must have the carried types")

    @classmethod
    def parse(cls, parser: Parser) -> WhileLoopOp:
        carried = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        additional: list[UnresolvedOperand] = []
        if parser.parse_optional_keyword("additional"):
            additional = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_unresolved_operand
            )
        attrs = parser.parse_optional_attr_dict_with_keyword()
        parser.parse_punctuation(":")
        ftype = parser.parse_function_type()
        if len(ftype.inputs) != len(carried) + len(additional):
            parser.raise_error("operand count does not match the operand types")
        types = ftype.inputs.data
        operands = [
            parser.resolve_operand(u, t)
            for u, t in zip([*carried, *additional], types)
        ]
        parser.parse_keyword("cond")
        cond_region = parser.parse_region()
        parser.parse_keyword("body")
        body_region = parser.parse_region()
        op = cls.create(
            operands=operands,
            result_types=ftype.outputs.data,
            regions=[cond_region, body_region],
            properties={
                "operandSegmentSizes": _segments(len(carried), len(additional)),
            },
        )
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        _print_typed_operands(printer, self.carried)
        if self.additional:
            printer.print_string(" additional ")
            _print_typed_operands(printer, self.additional)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" : ")
        printer.print_function_type(
            (*self.carried.types, *self.additional.types), self.result_types
        )
        printer.print_string(" cond ")
        printer.print_region(self.cond_region)
        printer.print_string(" body ")
        printer.print_region(self.body_region)


def _segments(*sizes: int) -> Attribute:
    return DenseArrayBase.from_list(i32, sizes)


def _drop_leading(t: Attribute) -> Attribute | None:
    if isinstance(t, TensorType) and t.rank >= 1:
        return TensorType(t.sizes[1:], t.dtype, t.device)
    return None


def _prepend(t: Attribute, size: SymSize) -> Attribute | None:
    if isinstance(t, TensorType):
        return TensorType((size, *t.sizes), t.dtype, t.device)
    return None


@irdl_op_definition
class MapOp(IRDLOperation):
    """
    `torch.ops.higher_order.map_impl(f, xs, args)`: runs the body on each
    slice along the leading dimension of `xs` (with `args` unchanged) and
    stacks the results along a new leading dimension.
    """

    name = "exir.map"

    xs = var_operand_def(TensorType)
    extra = var_operand_def()
    res = var_result_def()
    body = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        xs: Sequence[SSAValue | Operation],
        extra: Sequence[SSAValue | Operation],
        body: Region,
    ) -> None:
        xs_values = [SSAValue.get(x) for x in xs]
        lead = cast(TensorType, xs_values[0].type).sizes[0]
        outs = _region_outputs(body, "map body")
        super().__init__(
            operands=[xs_values, extra],
            result_types=[[_prepend(t, lead) or t for t in outs]],
            regions=[body],
        )

    def verify_(self) -> None:
        if not self.xs:
            raise VerifyException("map needs at least one mapped input")
        leads = {cast(TensorType, x.type).sizes[0] if cast(TensorType, x.type).rank else None for x in self.xs}
        if None in leads:
            raise VerifyException("map inputs must have a leading dimension")
        if len(leads) != 1:
            raise VerifyException("map inputs must share their leading dimension")
        lead = cast(SymSize, next(iter(leads)))
        slices = [_drop_leading(x.type) for x in self.xs]
        _check_region_args(
            self.body, [*cast(list[Attribute], slices), *self.extra.types], "map body"
        )
        outs = _region_outputs(self.body, "map body")
        expected = tuple(_prepend(t, lead) for t in outs)
        if None in expected or expected != tuple(self.result_types):
            raise VerifyException(
                "map results must be the body's tensor results stacked along the "
                "mapped dimension"
            )

    @classmethod
    def parse(cls, parser: Parser) -> MapOp:
        xs = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        extra: list[UnresolvedOperand] = []
        if parser.parse_optional_keyword("with"):
            extra = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_unresolved_operand
            )
        attrs = parser.parse_optional_attr_dict_with_keyword()
        parser.parse_punctuation(":")
        ftype = parser.parse_function_type()
        if len(ftype.inputs) != len(xs) + len(extra):
            parser.raise_error("operand count does not match the operand types")
        operands = [
            parser.resolve_operand(u, t)
            for u, t in zip([*xs, *extra], ftype.inputs.data)
        ]
        body = parser.parse_region()
        op = cls.create(
            operands=operands,
            result_types=ftype.outputs.data,
            regions=[body],
            properties={"operandSegmentSizes": _segments(len(xs), len(extra))},
        )
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        _print_typed_operands(printer, self.xs)
        if self.extra:
            printer.print_string(" with ")
            _print_typed_operands(printer, self.extra)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" : ")
        printer.print_function_type((*self.xs.types, *self.extra.types), self.result_types)
        printer.print_string(" ")
        printer.print_region(self.body)


@irdl_op_definition
class FusionGroupOp(IRDLOperation):
    """
    A group of pointwise ops that runs as one kernel (the JIT Technical Overview's
    `prim::FusionGroup`), made by `fuse-pointwise`. The region is isolated:
    its block arguments are the operands, in order, and its `exir.output`
    gives the results. The interpreter compiles the region once into one
    function that reuses temporaries in place.

    %r = exir.fusion_group(%a, %b) : (T, T) -> T {
    ^0(%x : T, %y : T):
      ...
      exir.output %z : T
    }
    """

    name = "exir.fusion_group"

    inputs = var_operand_def()
    res = var_result_def()
    body = region_def("single_block")

    traits = traits_def(IsolatedFromAbove(), RecursiveMemoryEffect())

    def __init__(self, inputs: Sequence[SSAValue | Operation], body: Region) -> None:
        super().__init__(
            operands=[inputs],
            result_types=[_region_outputs(body, "fusion group body")],
            regions=[body],
        )

    def verify_(self) -> None:
        _check_region_args(self.body, self.inputs.types, "fusion group body")
        if _region_outputs(self.body, "fusion group body") != tuple(self.result_types):
            raise VerifyException("fusion group results must be the types its body outputs")

    @classmethod
    def parse(cls, parser: Parser) -> FusionGroupOp:
        inputs = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict_with_keyword()
        parser.parse_punctuation(":")
        ftype = parser.parse_function_type()
        if len(ftype.inputs) != len(inputs):
            parser.raise_error("operand count does not match the operand types")
        operands = [parser.resolve_operand(u, t) for u, t in zip(inputs, ftype.inputs.data)]
        body = parser.parse_region()
        op = cls.create(operands=operands, result_types=ftype.outputs.data, regions=[body])
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        _print_typed_operands(printer, self.inputs)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" : ")
        printer.print_function_type(self.inputs.types, self.result_types)
        printer.print_string(" ")
        printer.print_region(self.body)


