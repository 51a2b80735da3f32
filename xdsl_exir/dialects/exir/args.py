"""FX argument trees: how ``call_function`` nodes keep their ``args`` and ``kwargs``.

An FX node's arguments are nested Python values in which graph values appear
anywhere. Here they are attribute trees whose leaves are constants or
``#exir.ref<i>`` (the i-th operand), so an op holds exactly what FX records
and its operands are still SSA uses that passes see. :func:`encode_arg` and
:func:`decode_arg` convert between the two, :func:`print_arg` and
:class:`ArgParser` give the FX-style custom syntax
(``(%x, [%y, 2], alpha = 1.5, dtype = torch.float16)``), and
:class:`ArgsOpMixin` gives any op with this layout (``exir.call_function``,
the aten ops, the SymInt ops) its ``args``/``kwargs``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from typing import cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    ComplexType,
    DictionaryAttr,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    f64,
    i64,
)
from xdsl.dialects.complex import ComplexNumberAttr
from xdsl.ir import Attribute, Data, Operation, ParametrizedAttribute, SSAValue
from xdsl.irdl import IRDLOperation, irdl_attr_definition
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.mlir_lexer import MLIRTokenKind

from xdsl_exir.dialects.exir.types import (
    DeviceAttr,
    DType,
    DTypeAttr,
    Layout,
    LayoutAttr,
    MemoryFormat,
    MemoryFormatAttr,
)
from xdsl_exir.utils.mlir_parser import HexBlob, ResourceParser, hex_to_bytes
from xdsl_exir.utils.xdsl_compat import current_token


@irdl_attr_definition
class RefAttr(ParametrizedAttribute):
    """In an argument tree, `#exir.ref<i>` stands for the op's i-th operand."""

    name = "exir.ref"

    index: IntAttr

    def __init__(self, index: int) -> None:
        super().__init__(IntAttr(index))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (IntAttr(parser.parse_integer(allow_negative=False)),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.index.data}>")


@irdl_attr_definition
class DenseBlobAttr(Data[bytes]):
    """
    The raw bytes of a tensor: little-endian, contiguous in the identity dim
    order, bfloat16 as its 16-bit patterns. The element type and shape come from
    the type of the op holding it (an `exir.state`).

    An `exir.state` prints its blob as MLIR's `dense_resource<key>`, the bytes in
    the file's `dialect_resources` section, so a module printed with its weights
    parses back unchanged and its lines stay short. Printed on its own (inside
    another attribute) it is `#exir.blob<"0x0000803F...">`, the form older
    files also use for state; both read back.
    """

    name = "exir.blob"

    # A blob read from text keeps its hex (a `HexBlob`, the file's text) until its
    # bytes are first asked for: most of a file is weights, most reads need none.
    # `data` is the one way to the bytes, so equality, hashing and every use see them.
    @property
    def data(self) -> bytes:
        held: bytes | HexBlob = self.__dict__["_held"]  # set by `Data.__init__` or `from_hex`
        return held if isinstance(held, bytes) else held.data()

    @data.setter
    def data(self, value: bytes) -> None:  # only `Data.__init__` sets it (the dataclass is frozen)
        object.__setattr__(self, "_held", value)

    @classmethod
    def from_hex(cls, source: HexBlob) -> DenseBlobAttr:
        """The blob whose bytes `source` decodes, when first asked for."""
        attr = cls.__new__(cls)
        object.__setattr__(attr, "_held", source)
        return attr

    @property
    def decoded(self) -> bool:
        """Whether the bytes are in memory (a blob read from text is not until used)."""
        held: bytes | HexBlob = self.__dict__["_held"]
        return isinstance(held, bytes) or held.decoded

    @property
    def left_out(self) -> str | None:
        """The resource key of a blob whose text left its data out (elided when printed), else None."""
        held: bytes | HexBlob = self.__dict__["_held"]
        return held.key if not isinstance(held, bytes) and held.left_out else None

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> bytes:
        with parser.in_angle_brackets():
            pos = parser.pos
            text = parser.parse_str_literal()
            if not text.startswith("0x"):
                parser.raise_error("expected a hex string starting with 0x", pos)
            try:
                return hex_to_bytes(text, 2, len(text))
            except ValueError:
                parser.raise_error("malformed hex data in blob", pos)

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f'<"0x{self.data.hex().upper()}">')


@irdl_attr_definition
class ResourceBlobAttr(Data[str]):
    """
    State data that is not in the module but in the builtin dialect's resources,
    under this key: what `exir.state @w : T = dense_resource<key>` reads as when
    the text leaves the data out (printed with large resources elided) or is read
    by a parser that does not load resources. `blobs.blob_data` looks it up.
    """

    name = "exir.resource_blob"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> str:
        with parser.in_angle_brackets():
            return parser.parse_identifier(" for resource handle")

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{self.data}>")


@irdl_attr_definition
class NoneValueAttr(ParametrizedAttribute):
    """Python `None` as an argument, `#exir.none`."""

    name = "exir.none_value"


_SHARED_LIMIT = 4096
"""How many argument leaves are kept to be shared (small ints and references recur)."""
_REFS: dict[int, RefAttr] = {}
_INTS: dict[int, IntegerAttr] = {}


def ref_attr(index: int) -> RefAttr:
    """`#exir.ref<index>`, built once: an attribute costs microseconds to build and check."""
    attr = _REFS.get(index)
    if attr is None:
        attr = RefAttr(index)
        if len(_REFS) < _SHARED_LIMIT:
            _REFS[index] = attr
    return attr


_ARRAYS: dict[tuple[Attribute, ...], ArrayAttr[Attribute]] = {}


def array_attr(elements: tuple[Attribute, ...]) -> ArrayAttr[Attribute]:
    """An argument list, built once per content: `(#ref<0>, #ref<1>)`, `[-1, 32]` recur."""
    attr = _ARRAYS.get(elements)
    if attr is None:
        attr = ArrayAttr(elements)
        if len(_ARRAYS) < 1 << 16:
            _ARRAYS[elements] = attr
    return attr


def int_attr(value: int) -> IntegerAttr:
    """An `i64` argument constant, built once per value (sizes and dims recur on every line)."""
    attr = _INTS.get(value)
    if attr is None:
        attr = IntegerAttr(value, i64)
        if len(_INTS) < _SHARED_LIMIT:
            _INTS[value] = attr
    return attr


ArgValue = (
    SSAValue
    | int
    | float
    | complex
    | bool
    | str
    | None
    | DType
    | Layout
    | MemoryFormat
    | DeviceAttr
    | Sequence["ArgValue"]
)
"""A Python-level FX argument: values, constants and (nested) lists of them."""


def encode_arg(value: object, operands: list[SSAValue]) -> Attribute:
    """Turn a Python FX argument into its attribute form, appending SSA operands."""
    if isinstance(value, SSAValue):
        operands.append(value)
        return ref_attr(len(operands) - 1)
    if isinstance(value, Operation):
        return encode_arg(value.results[0], operands)
    if value is None:
        return NoneValueAttr()
    if isinstance(value, bool):
        return BoolAttr.from_bool(value)
    if isinstance(value, int):
        return int_attr(value)
    if isinstance(value, float):
        return FloatAttr(value, f64)
    if isinstance(value, complex):
        return ComplexNumberAttr(value.real, value.imag, ComplexType(f64))
    # The enums are StrEnums: test them before plain strings.
    if isinstance(value, DType):
        return DTypeAttr(value)
    if isinstance(value, Layout):
        return LayoutAttr(value)
    if isinstance(value, MemoryFormat):
        return MemoryFormatAttr(value)
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, DeviceAttr):
        return value
    if isinstance(value, list | tuple):
        return ArrayAttr(encode_arg(v, operands) for v in value)
    raise TypeError(f"cannot embed {type(value).__name__} as an FX argument")


def decode_arg(attr: Attribute, operands: Sequence[SSAValue]) -> ArgValue:
    """The inverse of `encode_arg`."""
    if isinstance(attr, RefAttr):
        return operands[attr.index.data]
    if isinstance(attr, NoneValueAttr):
        return None
    if isinstance(attr, IntegerAttr):
        value = attr.value.data
        if isinstance(attr.type, IntegerType) and attr.type.width.data == 1:
            return bool(value)
        return value
    if isinstance(attr, FloatAttr):
        return attr.value.data
    if isinstance(attr, ComplexNumberAttr):
        return complex(attr.real.data, attr.imag.data)
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, DTypeAttr | LayoutAttr | MemoryFormatAttr):
        return attr.data
    if isinstance(attr, ArrayAttr):
        return [decode_arg(a, operands) for a in attr.data]
    return cast(ArgValue, attr)


def iter_refs(attr: Attribute) -> Iterator[int]:
    if isinstance(attr, RefAttr):
        yield attr.index.data
    elif isinstance(attr, ArrayAttr):
        for a in attr.data:
            yield from iter_refs(a)
    elif isinstance(attr, DictionaryAttr):
        for a in attr.data.values():
            yield from iter_refs(a)


_ARG_ENUM_PREFIX = "torch."


def _format_float(value: float) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = repr(value)
    if "." not in text:
        mantissa, _, exponent = text.partition("e")
        text = mantissa + ".0" + ("e" + exponent if exponent else "")
    return text


def print_arg(printer: Printer, attr: Attribute, operands: Sequence[SSAValue]) -> None:
    """FX-like spelling: `%x`, `1`, `1.5`, `true`, `none`, `torch.float32`, `[...]`."""
    if isinstance(attr, RefAttr):
        printer.print_operand(operands[attr.index.data])
    elif isinstance(attr, NoneValueAttr):
        printer.print_string("none")
    elif isinstance(attr, IntegerAttr):
        value = decode_arg(attr, operands)
        printer.print_string(
            str(value).lower() if isinstance(value, bool) else str(value)
        )
    elif isinstance(attr, FloatAttr):
        printer.print_string(_format_float(attr.value.data))
    elif isinstance(attr, ComplexNumberAttr):  # a Python complex constant (`x * 1j`): `complex(0.0, 1.0)`
        printer.print_string(f"complex({_format_float(attr.real.data)}, {_format_float(attr.imag.data)})")
    elif isinstance(attr, StringAttr):
        printer.print_string_literal(attr.data)
    elif isinstance(attr, DTypeAttr | LayoutAttr | MemoryFormatAttr):
        printer.print_string(_ARG_ENUM_PREFIX + attr.data.value)
    elif isinstance(attr, DeviceAttr):
        printer.print_string("device(")
        printer.print_string_literal(attr.device.data)
        printer.print_string(")")
    elif isinstance(attr, ArrayAttr):
        printer.print_string("[")
        printer.print_list(attr.data, lambda a: print_arg(printer, a, operands))
        printer.print_string("]")
    else:
        printer.print_attribute(attr)


_ENUM_BY_NAME: dict[str, Attribute] = {
    **{_ARG_ENUM_PREFIX + d.value: DTypeAttr(d) for d in DType},
    **{_ARG_ENUM_PREFIX + d.value: LayoutAttr(d) for d in Layout},
    **{_ARG_ENUM_PREFIX + d.value: MemoryFormatAttr(d) for d in MemoryFormat},
}


class ArgParser:
    """Parses an FX argument list, collecting unresolved operands in order."""

    def __init__(self, parser: Parser) -> None:
        self.parser = parser
        self.operands: list[UnresolvedOperand] = []

    def parse_value(self) -> Attribute:
        p = self.parser
        if (operand := p.parse_optional_unresolved_operand()) is not None:
            self.operands.append(operand)
            return ref_attr(len(self.operands) - 1)
        if (elems := p.parse_optional_comma_separated_list(
            p.Delimiter.SQUARE, self.parse_value
        )) is not None:
            return array_attr(tuple(elems))
        if (text := p.parse_optional_str_literal()) is not None:
            return StringAttr(text)
        ident = p.parse_optional_identifier()
        if ident is not None:
            return self._value_of_keyword(ident)
        negative = p.parse_optional_punctuation("-") is not None
        if negative and p.parse_optional_keyword("inf") is not None:
            return FloatAttr(-math.inf, f64)
        if (number := p.parse_optional_number()) is not None:
            if isinstance(number, int):
                return int_attr(-number if negative else number)
            return FloatAttr(-number if negative else number, f64)
        p.raise_error("expected an argument: %value, number, string, list or keyword")

    def _value_of_keyword(self, ident: str) -> Attribute:
        if ident in ("true", "false"):
            return _TRUE if ident == "true" else _FALSE
        if ident == "none":
            return _NONE
        if ident == "inf":
            return FloatAttr(math.inf, f64)
        if ident == "nan":
            return FloatAttr(math.nan, f64)
        if ident in _ENUM_BY_NAME:
            return _ENUM_BY_NAME[ident]
        if ident == "device":
            with self.parser.in_parens():
                return DeviceAttr(self.parser.parse_str_literal("device name"))
        if ident == "complex":
            with self.parser.in_parens():
                re_ = self._float("the real part")
                self.parser.parse_punctuation(",")
                im = self._float("the imaginary part")
            return ComplexNumberAttr(re_, im, ComplexType(f64))
        self.parser.raise_error(f"unknown argument keyword '{ident}'")

    def _float(self, what: str) -> float:
        """A number, `inf`, `-inf` or `nan` (the parts of a complex constant)."""
        value = self.parse_value()
        if isinstance(value, FloatAttr):
            return value.value.data
        if isinstance(value, IntegerAttr) and not isinstance(decode_arg(value, ()), bool):
            return float(value.value.data)
        self.parser.raise_error(f"expected a number as {what} of a complex constant")

    def parse_call(self) -> tuple[list[Attribute], dict[str, Attribute]]:
        """`(arg, ..., name = arg, ...)`"""
        if isinstance(self.parser, ResourceParser) and (simple := self._parse_simple_call(self.parser)) is not None:
            return simple
        args: list[Attribute] = []
        kwargs: dict[str, Attribute] = {}
        p = self.parser

        def one() -> None:
            if current_token(p).kind == MLIRTokenKind.BARE_IDENT:
                name = p.parse_identifier()
                if p.parse_optional_punctuation("="):
                    if name in kwargs:
                        p.raise_error(f"keyword argument '{name}' given twice")
                    kwargs[name] = self.parse_value()
                    return
                if kwargs:
                    p.raise_error("positional argument after keyword argument")
                args.append(self._value_of_keyword(name))
                return
            if kwargs:
                p.raise_error("positional argument after keyword argument")
            args.append(self.parse_value())

        p.parse_comma_separated_list(p.Delimiter.PAREN, one, "in argument list")
        return args, kwargs


    def _parse_simple_call(self, p: ResourceParser) -> tuple[list[Attribute], dict[str, Attribute]] | None:
        """
        Most calls are values, numbers, flags and lists of ints, as in
        `(%x, [-1, 32], dim = 1)`: such a list is read from its text with two
        regular expressions instead of a token at a time (the lexer costs a
        microsecond or two a token). Anything else, errors included, is left
        to the general parser (None, nothing consumed).
        """
        match = p.peek_raw(_SIMPLE_CALL)
        if match is None:
            return None
        text = match.group()
        names = list(_OPERAND_NAME.finditer(text))
        shape = _OPERAND_NAME.sub("%", text) if names else text
        known = _SIMPLE_CALLS.get(shape) if not self.operands else None
        if known is not None:  # the same call but for its values' names: the same trees
            base = match.start()
            self.operands += [UnresolvedOperand(p.raw_span(base + n.start(), base + n.end()), 0) for n in names]
            p.skip_raw(match.end())
            return list(known[0]), dict(known[1])
        args: list[Attribute] = []
        kwargs: dict[str, Attribute] = {}
        operands: list[UnresolvedOperand] = []
        lists: list[list[Attribute]] = []
        key: str | None = None
        for piece in _CALL_PIECE.finditer(match.string, match.start() + 1, match.end() - 1):
            name, operand, real, integer, word, opening, closing = piece.groups()
            if name is not None:
                key = name
                continue
            if opening is not None:
                lists.append([])
                continue
            if closing is not None:
                value: Attribute = array_attr(tuple(lists.pop()))
            elif operand is not None:
                operands.append(UnresolvedOperand(p.raw_span(piece.start(2), piece.end(2)), 0))
                value = ref_attr(len(self.operands) + len(operands) - 1)
            elif real is not None:
                value = FloatAttr(float(real), f64)
            elif integer is not None:
                value = int_attr(int(integer))
            else:
                value = _value_of_word(word)
            if lists:
                lists[-1].append(value)
            elif key is not None:
                if key in kwargs:
                    return None  # the general parser says it is given twice
                kwargs[key] = value
                key = None
            elif kwargs:
                return None  # positional after keyword: the general parser explains
            else:
                args.append(value)
        if not self.operands and len(_SIMPLE_CALLS) < _SHARED_LIMIT:
            _SIMPLE_CALLS[shape] = (tuple(args), dict(kwargs))
        self.operands += operands
        p.skip_raw(match.end())
        return args, kwargs


_SIMPLE_ITEM = (
    r"(?:%[A-Za-z0-9_$.\-]+(?![#\w$.\-])|-?[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?|-?[0-9]+(?![\w.])"
    r"|(?:true|false|none)(?![\w.])|\[\s*(?:-?[0-9]+\s*(?:,\s*-?[0-9]+\s*)*)?\])"
)
_SIMPLE_ARG = rf"(?:[A-Za-z_][A-Za-z0-9_]*\s*=\s*)?{_SIMPLE_ITEM}"
_SIMPLE_CALL = re.compile(rf"\(\s*(?:{_SIMPLE_ARG}\s*(?:,\s*{_SIMPLE_ARG}\s*)*)?\)")
"""A call whose arguments are values, numbers, true/false/none and lists of integers."""
_OPERAND_NAME = re.compile(r"%[A-Za-z0-9_$.\-]+")
_SIMPLE_CALLS: dict[str, tuple[tuple[Attribute, ...], dict[str, Attribute]]] = {}
"""Argument trees of simple calls by their text with value names left out."""
_TRUE = BoolAttr.from_bool(True)
_FALSE = BoolAttr.from_bool(False)
_NONE = NoneValueAttr()
_CALL_PIECE = re.compile(
    r"([A-Za-z_][A-Za-z0-9_]*)\s*=|(%[A-Za-z0-9_$.\-]+)|(-?[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?)|(-?[0-9]+)"
    r"|(true|false|none)|(\[)|(\])"
)


def _value_of_word(word: str) -> Attribute:
    if word == "none":
        return _NONE
    return _TRUE if word == "true" else _FALSE


def print_call_args(
    printer: Printer,
    args: Sequence[Attribute],
    kwargs: DictionaryAttr | None,
    operands: Sequence[SSAValue],
) -> None:
    printer.print_string("(")
    items: list[tuple[str | None, Attribute]] = [(None, a) for a in args]
    if kwargs is not None:
        items += list(kwargs.data.items())

    def one(item: tuple[str | None, Attribute]) -> None:
        if item[0] is not None:
            printer.print_string(f"{item[0]} = ")
        print_arg(printer, item[1], operands)

    printer.print_list(items, one)
    printer.print_string(")")


def parse_call_with_types(
    parser: Parser,
) -> tuple[list[Attribute], dict[str, Attribute], list[SSAValue], list[Attribute]]:
    """`(args) attr-dict? : (operand types) -> result types`, resolving operands."""
    arg_parser = ArgParser(parser)
    args, kwargs = arg_parser.parse_call()
    return args, kwargs, *parse_operand_and_result_types(parser, arg_parser.operands)


def parse_operand_and_result_types(
    parser: Parser, unresolved: Sequence[UnresolvedOperand]
) -> tuple[list[SSAValue], list[Attribute]]:
    parser.parse_punctuation(":")
    pos = parser.pos
    ftype = parser.parse_function_type()
    if len(ftype.inputs.data) != len(unresolved):
        parser.raise_error(
            f"{len(unresolved)} operands but {len(ftype.inputs.data)} operand types",
            pos,
            parser.pos,
        )
    operands = [
        parser.resolve_operand(u, t)
        for u, t in zip(unresolved, ftype.inputs.data, strict=True)
    ]
    return operands, list(ftype.outputs.data)


class ArgsOpMixin:
    """Ops whose operands are referenced from FX argument trees `args`/`kwargs`."""

    def get_args(self) -> list[ArgValue]:
        op = cast(IRDLOperation, self)
        args = cast(ArrayAttr[Attribute], op.properties["args"])
        return [decode_arg(a, op.operands) for a in args.data]

    def get_kwargs(self) -> dict[str, ArgValue]:
        op = cast(IRDLOperation, self)
        kwargs = op.properties.get("kwargs")
        if not isinstance(kwargs, DictionaryAttr):
            return {}
        return {k: decode_arg(v, op.operands) for k, v in kwargs.data.items()}

    def verify_refs(self) -> None:
        """Every operand is referenced exactly once, and every reference exists."""
        op = cast(IRDLOperation, self)
        seen: list[int] = list(iter_refs(op.properties["args"]))
        if "kwargs" in op.properties:
            seen += iter_refs(op.properties["kwargs"])
        if sorted(seen) != list(range(len(op.operands))):
            raise VerifyException(
                f"argument references {sorted(seen)} do not match the "
                f"{len(op.operands)} operands one to one"
            )


