"""
The `fx` dialect: the module-level nodes of `torch.fx.symbolic_trace` graphs.

Export IR (the `exir` dialect) has only `placeholder`, `call_function`,
`get_attr` of subgraphs and `output`. A symbolically traced `GraphModule`
additionally calls leaf modules, calls tensor methods, and reads parameters
and buffers by name (torch.fx: Practical Program Capture and Transformation, "The Six Opcodes"). This dialect adds those
three opcodes; the others reuse the `exir` ops, so a traced module is an
`exir.program` like an exported one:

    exir.program inputs [<user_input "x">] outputs [<user_output "relu">] {
      exir.state @fc.weight : !exir.tensor<[4, 8], float32> = dense_resource<fc.weight>
      exir.graph @forward(%x: T) -> (U) {
        %fc = fx.call_module "fc"(%x) module torch.nn.modules.linear.Linear(
                in_features = 8, out_features = 4, training = false)
                state ["weight", "bias"] : (T) -> U
        %w = fx.get_attr @fc.weight : !exir.tensor<[4, 8], float32>
        %v = fx.call_method "view"(%fc, -1, 2) : (U) -> V
        %relu = exir.call_function "torch.relu"(%fc) : (U) -> U
        exir.output %relu : U
      }
    }

A leaf module is not a symbol of the program (programs hold only graphs and
state), so a `call_module` carries what running it needs: the module's class,
its configuration captured at import (`stride`, `eps`, `training`, ...), and
the names of its own parameters and buffers, which the verifier checks against
the program's `exir.state` ops (`<target>.<name>`).

FX embeds Python `slice` objects and `...` in `getitem` indices; their
arguments may be nodes (`x[:, :n]`), so they are values here: `fx.slice` and
`fx.ellipsis` build them, and `operator.getitem` calls take them as operands.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import ClassVar, cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure, SymbolTable, SymbolUserOpInterface
from xdsl.utils.exceptions import VerifyException

from xdsl_exir.dialects.exir import (
    ArgParser,
    ArgsOpMixin,
    ArgValue,
    IntType,
    NoneValueAttr,
    ProgramOp,
    RefAttr,
    StateOp,
    SymIntType,
    TargetCallMixin,
    decode_arg,
    encode_arg,
    parse_operand_and_result_types,
    print_arg,
    print_call_args,
)

__all__ = [
    "FX",
    "CallMethodOp",
    "CallModuleOp",
    "EllipsisOp",
    "EllipsisType",
    "GetAttrOp",
    "SliceOp",
    "SliceType",
]


# ---------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------


@irdl_attr_definition
class SliceType(ParametrizedAttribute, TypeAttribute):
    """A Python `slice` object, as used in a `getitem` index."""

    name = "fx.slice"


@irdl_attr_definition
class EllipsisType(ParametrizedAttribute, TypeAttribute):
    """Python's `...` (`Ellipsis`), as used in a `getitem` index."""

    name = "fx.ellipsis"


# ---------------------------------------------------------------------------
# Shared syntax helpers
# ---------------------------------------------------------------------------


def _encode_call(
    args: Sequence[object], kwargs: Mapping[str, object] | None
) -> tuple[list[SSAValue], ArrayAttr[Attribute], DictionaryAttr]:
    operands: list[SSAValue] = []
    arg_attrs = ArrayAttr(encode_arg(a, operands) for a in args)
    kw_attrs = DictionaryAttr({k: encode_arg(v, operands) for k, v in (kwargs or {}).items()})
    return operands, arg_attrs, kw_attrs


def _containing_program(op: Operation) -> ProgramOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, ProgramOp):
        parent = parent.parent_op()
    return parent


def _is_bare_identifier(text: str) -> bool:
    """Whether `text` lexes as one MLIR bare identifier (so it prints unquoted)."""
    if not text or not (text[0].isalpha() or text[0] == "_"):
        return False
    return all(c.isalnum() or c in "_$." for c in text) and text.isascii()


def _print_name(printer: Printer, text: str) -> None:
    if _is_bare_identifier(text):
        printer.print_string(text)
    else:
        printer.print_string_literal(text)


# ---------------------------------------------------------------------------
# call_module
# ---------------------------------------------------------------------------


@irdl_op_definition
class CallModuleOp(ArgsOpMixin, IRDLOperation):
    """
    FX `call_module`: run the forward of the leaf module at `target` (a dotted
    path from the root module) on FX `args`/`kwargs`.

    `module` is the module's class (`torch.nn.modules.conv.Conv2d`), `config`
    its public configuration at import time (`stride`, `padding`, `eps`,
    `training`, ...), and `state` the local names of its own parameters and
    buffers; `<target>.<name>` is an `exir.state` of the enclosing program.
    """

    name = "fx.call_module"

    target = prop_def(StringAttr)
    module_class = prop_def(StringAttr, prop_name="module")
    config = prop_def(DictionaryAttr)
    state = prop_def(ArrayAttr[StringAttr])
    args = prop_def(ArrayAttr)
    kwargs = prop_def(DictionaryAttr)
    arguments = var_operand_def()
    res = var_result_def()

    def __init__(
        self,
        target: str,
        module_class: str,
        args: Sequence[object],
        kwargs: Mapping[str, object] | None,
        result_types: Sequence[Attribute],
        config: Mapping[str, object] | None = None,
        state: Sequence[str] = (),
    ) -> None:
        operands, arg_attrs, kw_attrs = _encode_call(args, kwargs)
        no_operands: list[SSAValue] = []
        config_attrs = {k: encode_arg(v, no_operands) for k, v in (config or {}).items()}
        if no_operands:
            raise ValueError("a module's configuration cannot refer to graph values")
        super().__init__(
            operands=[operands],
            result_types=[result_types],
            properties={
                "target": StringAttr(target),
                "module": StringAttr(module_class),
                "config": DictionaryAttr(config_attrs),
                "state": ArrayAttr(StringAttr(s) for s in state),
                "args": arg_attrs,
                "kwargs": kw_attrs,
            },
        )

    def get_config(self) -> dict[str, ArgValue]:
        """The configuration as Python values (lists for tuples)."""
        return {k: decode_arg(v, ()) for k, v in self.config.data.items()}

    def state_names(self) -> tuple[str, ...]:
        """Qualified names of the module's parameters and buffers (`fc.weight`)."""
        return tuple(f"{self.target.data}.{s.data}" for s in self.state.data)

    def verify_(self) -> None:
        self.verify_refs()
        if not self.target.data:
            raise VerifyException("call_module needs a module path")
        if not self.module_class.data:
            raise VerifyException("call_module needs the module's class")
        for value in self.config.data.values():
            if any(True for _ in _refs_in(value)):
                raise VerifyException("a module's configuration cannot refer to operands")
        program = _containing_program(self)
        if program is None:
            return
        states = program.state()
        for qualified in self.state_names():
            if qualified not in states:
                raise VerifyException(
                    f"module '{self.target.data}' has state '{qualified}' but the "
                    "program has no exir.state of that name"
                )

    @classmethod
    def parse(cls, parser: Parser) -> CallModuleOp:
        target = parser.parse_str_literal("module path")
        arg_parser = ArgParser(parser)
        args, kwargs = arg_parser.parse_call()
        parser.parse_keyword("module")
        module_class = parser.parse_optional_str_literal()
        if module_class is None:
            module_class = parser.parse_identifier("module class")
        config: dict[str, Attribute] = {}
        if parser.parse_optional_punctuation("(") is not None:
            config = _parse_config_tail(parser)
        state: list[str] = []
        if parser.parse_optional_keyword("state") is not None:
            state = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: parser.parse_str_literal("state name")
            )
        attrs = parser.parse_optional_attr_dict_with_keyword()
        operands, results = parse_operand_and_result_types(parser, arg_parser.operands)
        op = cls.create(
            operands=operands,
            result_types=results,
            properties={
                "target": StringAttr(target),
                "module": StringAttr(module_class),
                "config": DictionaryAttr(config),
                "state": ArrayAttr(StringAttr(s) for s in state),
                "args": ArrayAttr(args),
                "kwargs": DictionaryAttr(kwargs),
            },
        )
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.target.data)
        print_call_args(printer, self.args.data, self.kwargs, self.operands)
        printer.print_string(" module ")
        _print_name(printer, self.module_class.data)
        if self.config.data:
            print_call_args(printer, (), self.config, ())
        if self.state.data:
            printer.print_string(" state [")
            printer.print_list(self.state.data, lambda s: printer.print_string_literal(s.data))
            printer.print_string("]")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)


def _refs_in(attr: Attribute) -> Iterator[RefAttr]:
    if isinstance(attr, RefAttr):
        yield attr
    elif isinstance(attr, ArrayAttr):
        for a in cast(ArrayAttr[Attribute], attr).data:
            yield from _refs_in(a)


def _parse_config_tail(parser: Parser) -> dict[str, Attribute]:
    """`name = value, ...)` after the opening parenthesis; values are constants."""
    config: dict[str, Attribute] = {}
    values = ArgParser(parser)
    if parser.parse_optional_punctuation(")") is not None:
        return config
    while True:
        pos = parser.pos
        key = parser.parse_identifier("configuration name")
        if key in config:
            parser.raise_error(f"configuration entry '{key}' given twice", pos)
        parser.parse_punctuation("=")
        config[key] = values.parse_value()
        if values.operands:
            parser.raise_error("a module's configuration holds constants, not values", pos)
        if parser.parse_optional_punctuation(",") is None:
            break
    parser.parse_punctuation(")")
    return config


# ---------------------------------------------------------------------------
# call_method
# ---------------------------------------------------------------------------


@irdl_op_definition
class CallMethodOp(TargetCallMixin, IRDLOperation):
    """
    FX `call_method`: `args[0].<target>(*args[1:], **kwargs)`, e.g.
    `%v = fx.call_method "view"(%x, %n, -1) : (T, !exir.int) -> U`.
    """

    name = "fx.call_method"
    TARGET_KIND: ClassVar[str] = "method name"

    target = prop_def(StringAttr)
    args = prop_def(ArrayAttr)
    kwargs = prop_def(DictionaryAttr)
    arguments = var_operand_def()
    res = var_result_def()

    def __init__(
        self,
        method: str,
        args: Sequence[object],
        kwargs: Mapping[str, object] | None,
        result_types: Sequence[Attribute],
    ) -> None:
        operands, arg_attrs, kw_attrs = _encode_call(args, kwargs)
        super().__init__(
            operands=[operands],
            result_types=[result_types],
            properties={
                "target": StringAttr(method),
                "args": arg_attrs,
                "kwargs": kw_attrs,
            },
        )

    def verify_(self) -> None:
        self.verify_refs()
        if not self.target.data.isidentifier():
            raise VerifyException(f"'{self.target.data}' is not a method name")
        if not self.args.data or not isinstance(self.args.data[0], RefAttr):
            raise VerifyException(
                "call_method needs the object it is called on as first argument"
            )


# ---------------------------------------------------------------------------
# get_attr
# ---------------------------------------------------------------------------


class _StateUser(SymbolUserOpInterface):
    """`get_attr` names an `exir.state` of the program, and has its type."""

    def verify(self, op: Operation) -> None:
        assert isinstance(op, GetAttrOp)
        found = SymbolTable.lookup_symbol(op, op.target)
        if found is None:
            raise VerifyException(f"get_attr target {op.target} does not exist")
        if not isinstance(found, StateOp):
            raise VerifyException(
                f"get_attr target {op.target} is a '{found.name}', not an exir.state"
            )
        if found.state_type != op.result.type:
            raise VerifyException(
                f"get_attr result type {op.result.type} is not the type "
                f"{found.state_type} of {op.target}"
            )


@irdl_op_definition
class GetAttrOp(IRDLOperation):
    """
    FX `get_attr`: a parameter, buffer or tensor constant by its qualified
    name, i.e. the program's `exir.state` of that name:
    `%w = fx.get_attr @fc.weight : !exir.tensor<[4, 8], float32>`.
    """

    name = "fx.get_attr"

    target = prop_def(SymbolRefAttr)
    result = result_def()

    traits = traits_def(Pure(), _StateUser())

    assembly_format = "$target attr-dict `:` type($result)"

    def __init__(self, target: str, result_type: Attribute) -> None:
        super().__init__(
            properties={"target": SymbolRefAttr(target)}, result_types=[result_type]
        )

    @property
    def state_name(self) -> str:
        return self.target.string_value()


# ---------------------------------------------------------------------------
# slice and ellipsis
# ---------------------------------------------------------------------------


@irdl_op_definition
class SliceOp(ArgsOpMixin, IRDLOperation):
    """
    Python `slice(start, stop, step)` for a `getitem` index; each part is an
    int, `none` or an int value: `%s = fx.slice(0, %n, none) : !exir.int`.
    """

    name = "fx.slice"

    args = prop_def(ArrayAttr)
    arguments = var_operand_def(IntType | SymIntType)
    result = result_def(SliceType)

    traits = traits_def(Pure())

    def __init__(self, start: object = None, stop: object = None, step: object = None) -> None:
        operands: list[SSAValue] = []
        parts = ArrayAttr(encode_arg(v, operands) for v in (start, stop, step))
        super().__init__(
            operands=[operands], result_types=[SliceType()], properties={"args": parts}
        )

    def get_parts(self) -> tuple[ArgValue, ArgValue, ArgValue]:
        start, stop, step = self.get_args()
        return start, stop, step

    def verify_(self) -> None:
        self.verify_refs()
        if len(self.args.data) != 3:
            raise VerifyException(
                f"slice takes start, stop and step, got {len(self.args.data)} parts"
            )
        for part in self.args.data:
            if isinstance(part, RefAttr | NoneValueAttr):
                continue
            value = decode_arg(part, ())
            if not isinstance(value, int) or isinstance(value, bool):
                raise VerifyException(f"slice part {value!r} is not an int or none")
        step = self.args.data[2]
        if not isinstance(step, RefAttr) and decode_arg(step, ()) == 0:
            raise VerifyException("slice step cannot be zero")

    @classmethod
    def parse(cls, parser: Parser) -> SliceOp:
        arg_parser = ArgParser(parser)
        pos = parser.pos
        args, kwargs = arg_parser.parse_call()
        if kwargs:
            parser.raise_error("slice takes no keyword arguments", pos)
        attrs = parser.parse_optional_attr_dict()
        operands: list[SSAValue] = []
        if arg_parser.operands:
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            if len(types) != len(arg_parser.operands):
                parser.raise_error(
                    f"{len(arg_parser.operands)} operands but {len(types)} operand types"
                )
            operands = [
                parser.resolve_operand(u, t) for u, t in zip(arg_parser.operands, types)
            ]
        return cls.create(
            operands=operands,
            result_types=[SliceType()],
            properties={"args": ArrayAttr(args)},
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_list(self.args.data, lambda a: print_arg(printer, a, self.operands))
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        if self.operands:
            printer.print_string(" : ")
            printer.print_list(self.operand_types, printer.print_attribute)


@irdl_op_definition
class EllipsisOp(IRDLOperation):
    """Python's `...` for a `getitem` index: `%e = fx.ellipsis`."""

    name = "fx.ellipsis"

    result = result_def(EllipsisType)

    traits = traits_def(Pure())

    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__(result_types=[EllipsisType()])


FX = Dialect(
    "fx",
    [CallModuleOp, CallMethodOp, GetAttrOp, SliceOp, EllipsisOp],
    [SliceType, EllipsisType],
)
