"""
The `exir` dialect: PyTorch's Export IR (seed 001) as xDSL operations.

An `ExportedProgram` is an `exir.program` op; its graphs are `exir.graph` ops whose
entry-block arguments are the placeholders; `call_function` nodes of operators the
registry does not know are `exir.call_function` (the node universe stays open);
`meta["val"]` is the result type; `stack_trace` is the op's location.

Types mirror FakeTensor: `!exir.tensor<[s0, 2*s0 + 1, 4], float32>` carries sizes
that are integers or sympy expressions, a torch dtype, a device and a dim order.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence, Set as AbstractSet
from enum import auto
from typing import ClassVar, Self, cast

import sympy

from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DictionaryAttr,
    FloatAttr,
    FunctionType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    f64,
    i64,
)
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.ir import (
    Attribute,
    Block,
    Data,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    opt_prop_def,
    param_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
    operand_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import (
    EffectInstance,
    HasParent,
    MemoryEffect,
    IsolatedFromAbove,
    IsTerminator,
    NoTerminator,
    Pure,
    RecursiveMemoryEffect,
    SymbolOpInterface,
    SymbolTable,
    SymbolUserOpInterface,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.mlir_lexer import MLIRTokenKind
from xdsl.utils.str_enum import StrEnum

from xdsl_exir.utils.symbolic import (
    FloorDiv,
    SymExprError,
    SymSize,
    Tok,
    normalize,
    parse_tokens,
    print_expr,
    to_sym,
)

# ---------------------------------------------------------------------------
# Enumerations of torch's leaf types
# ---------------------------------------------------------------------------


class DType(StrEnum):
    """Every `torch.dtype`, spelled as torch spells it."""

    bool = auto()
    uint8 = auto()
    int8 = auto()
    int16 = auto()
    int32 = auto()
    int64 = auto()
    uint16 = auto()
    uint32 = auto()
    uint64 = auto()
    float16 = auto()
    bfloat16 = auto()
    float32 = auto()
    float64 = auto()
    complex32 = auto()
    complex64 = auto()
    complex128 = auto()
    float8_e4m3fn = auto()
    float8_e4m3fnuz = auto()
    float8_e5m2 = auto()
    float8_e5m2fnuz = auto()
    float8_e8m0fnu = auto()
    float4_e2m1fn_x2 = auto()
    qint8 = auto()
    quint8 = auto()
    qint32 = auto()
    quint4x2 = auto()
    quint2x4 = auto()
    bits1x8 = auto()
    bits2x4 = auto()
    bits4x2 = auto()
    bits8 = auto()
    bits16 = auto()
    uint1 = auto()
    uint2 = auto()
    uint3 = auto()
    uint4 = auto()
    uint5 = auto()
    uint6 = auto()
    uint7 = auto()
    int1 = auto()
    int2 = auto()
    int3 = auto()
    int4 = auto()
    int5 = auto()
    int6 = auto()
    int7 = auto()

    @property
    def is_floating_point(self) -> bool:
        return self.value.startswith(("float", "bfloat"))

    @property
    def is_complex(self) -> bool:
        return self.value.startswith("complex")

    @property
    def is_integral(self) -> bool:
        """Integral in torch's sense (bool excluded)."""
        return self.value.startswith(("int", "uint"))


class Layout(StrEnum):
    strided = auto()
    sparse_coo = auto()
    sparse_csr = auto()
    sparse_csc = auto()
    sparse_bsr = auto()
    sparse_bsc = auto()
    _mkldnn = auto()
    jagged = auto()


class MemoryFormat(StrEnum):
    contiguous_format = auto()
    channels_last = auto()
    channels_last_3d = auto()
    preserve_format = auto()


class _AngleEnumSyntax:
    """`#exir.name<value>` syntax shared by the enum attributes."""

    enum_type: ClassVar[type[StrEnum]]

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> StrEnum:
        with parser.in_angle_brackets():
            return parser.parse_str_enum(cls.enum_type)

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(cast(Data[StrEnum], self).data.value)


@irdl_attr_definition
class DTypeAttr(_AngleEnumSyntax, EnumAttribute[DType]):
    """A `torch.dtype` constant, `#exir.dtype<float32>`."""

    name = "exir.dtype"


@irdl_attr_definition
class LayoutAttr(_AngleEnumSyntax, EnumAttribute[Layout]):
    name = "exir.layout_value"


@irdl_attr_definition
class MemoryFormatAttr(_AngleEnumSyntax, EnumAttribute[MemoryFormat]):
    name = "exir.memory_format_value"


@irdl_attr_definition
class DeviceAttr(ParametrizedAttribute):
    """A `torch.device` constant, `#exir.device<"cuda:0">`."""

    name = "exir.device_value"

    device: StringAttr

    def __init__(self, device: str | StringAttr) -> None:
        super().__init__(StringAttr(device) if isinstance(device, str) else device)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (StringAttr(parser.parse_str_literal("device")),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string_literal(self.device.data)


# ---------------------------------------------------------------------------
# Symbolic expressions
# ---------------------------------------------------------------------------

_EXPR_STOP = (
    MLIRTokenKind.COMMA,
    MLIRTokenKind.R_SQUARE,
    MLIRTokenKind.GREATER,
    MLIRTokenKind.EOF,
)


def parse_sym_expr(
    parser: AttrParser, allow_infinity: bool = False, stop_words: Sequence[str] = ()
) -> sympy.Expr:
    """
    Parse a size expression written in MLIR tokens (`2*s0 + 1`, `s0 floordiv 2`).

    The expression ends at the first `,` `]` `>` (or a stop word) outside parentheses.
    """
    tokens: list[Tok] = []
    spans = []
    depth = 0
    while True:
        tok = parser._current_token  # pyright: ignore[reportPrivateUsage]
        if depth == 0 and (tok.kind in _EXPR_STOP or tok.text in stop_words):
            break
        if tok.kind == MLIRTokenKind.L_PAREN:
            depth += 1
        elif tok.kind == MLIRTokenKind.R_PAREN:
            if depth == 0:
                break
            depth -= 1
        if tok.kind == MLIRTokenKind.INTEGER_LIT:
            tokens.append(Tok("int", tok.text))
        elif tok.kind == MLIRTokenKind.BARE_IDENT:
            tokens.append(Tok("name", tok.text))
        elif tok.kind.is_punctuation() or tok.kind == MLIRTokenKind.STAR:
            if tok.text == "*" and tokens and tokens[-1] == Tok("op", "*"):
                tokens[-1] = Tok("op", "**")  # MLIR lexes `**` as two stars
            else:
                tokens.append(Tok("op", tok.text))
        else:
            parser.raise_error(f"'{tok.text}' cannot appear in a symbolic size", tok.span)
        spans.append(tok.span)
        parser._consume_token()  # pyright: ignore[reportPrivateUsage]
    if not tokens:
        parser.raise_error("expected a size: an integer or a symbolic expression")
    try:
        return parse_tokens(tokens, allow_infinity)
    except SymExprError as e:
        if e.index < len(spans):
            parser.raise_error(str(e), spans[e.index])
        parser.raise_error(str(e))  # ran out of tokens: point at what follows
    except (TypeError, ZeroDivisionError) as e:
        parser.raise_error(f"invalid symbolic size: {e}", spans[0])


@irdl_attr_definition
class SymExprAttr(Data[sympy.Expr]):
    """A sympy expression over size symbols, `#exir.sym<2*s0 + 1>`."""

    name = "exir.sym"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> sympy.Expr:
        with parser.in_angle_brackets():
            return parse_sym_expr(parser, allow_infinity=True)

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(print_expr(self.data))

    @staticmethod
    def from_size(value: SymSize) -> SymExprAttr:
        return SymExprAttr(to_sym(value))


@irdl_attr_definition
class SymShapeAttr(Data[tuple[SymSize, ...]]):
    """The sizes of a tensor: ints and sympy expressions, `[s0, 4]`."""

    name = "exir.shape"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> tuple[SymSize, ...]:
        with parser.in_angle_brackets():
            return parse_shape(parser)

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            print_shape(printer, self.data)


def parse_shape(parser: AttrParser) -> tuple[SymSize, ...]:
    sizes = parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: normalize(parse_sym_expr(parser))
    )
    return tuple(sizes)


def print_shape(printer: Printer, shape: Sequence[SymSize]) -> None:
    printer.print_string("[" + ", ".join(print_expr(s) for s in shape) + "]")


# ---------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------


@irdl_attr_definition
class TensorType(ParametrizedAttribute, TypeAttribute):
    """
    FakeTensor metadata as a type: sizes (ints or sympy expressions), dtype,
    device and dim order. Strides are not part of Export IR's tensor type.

    `!exir.tensor<[s0, 4], float32>`,
    `!exir.tensor<[2, 3, 4, 4], float16, device = "cuda:0", dim_order = [0, 2, 3, 1]>`
    """

    name = "exir.tensor"

    shape: SymShapeAttr
    dtype: DTypeAttr
    device: StringAttr
    dim_order: ArrayAttr[IntAttr]

    def __init__(
        self,
        shape: Sequence[SymSize] | SymShapeAttr,
        dtype: DType | DTypeAttr,
        device: str | StringAttr = "cpu",
        dim_order: Sequence[int] | ArrayAttr[IntAttr] | None = None,
    ) -> None:
        if not isinstance(shape, SymShapeAttr):
            shape = SymShapeAttr(tuple(normalize(to_sym(s)) for s in shape))
        if not isinstance(dtype, DTypeAttr):
            dtype = DTypeAttr(dtype)
        if isinstance(device, str):
            device = StringAttr(device)
        if dim_order is None or (
            not isinstance(dim_order, ArrayAttr)
            and list(dim_order) == list(range(len(shape.data)))
        ):
            dim_order = ArrayAttr(())
        elif not isinstance(dim_order, ArrayAttr):
            dim_order = ArrayAttr(IntAttr(d) for d in dim_order)
        super().__init__(shape, dtype, device, dim_order)

    @property
    def sizes(self) -> tuple[SymSize, ...]:
        return self.shape.data

    @property
    def rank(self) -> int:
        return len(self.shape.data)

    @property
    def element_dtype(self) -> DType:
        return self.dtype.data

    def get_dim_order(self) -> tuple[int, ...]:
        if not self.dim_order.data:
            return tuple(range(self.rank))
        return tuple(d.data for d in self.dim_order.data)

    def numel(self) -> SymSize:
        return normalize(sympy.Mul(*(to_sym(s) for s in self.sizes)))

    def strides(self) -> tuple[SymSize, ...]:
        """Strides of a dense tensor laid out in this type's dim order."""
        strides: list[SymSize] = [0] * self.rank
        running: sympy.Expr = sympy.Integer(1)
        for dim in reversed(self.get_dim_order()):
            strides[dim] = normalize(running)
            running = running * to_sym(self.sizes[dim])
        return tuple(strides)

    def is_static(self) -> bool:
        return all(isinstance(s, int) for s in self.sizes)

    def verify(self) -> None:
        for s in self.sizes:
            if isinstance(s, int) and s < 0:
                raise VerifyException(f"tensor size {s} is negative")
        if self.dim_order.data:
            order = sorted(d.data for d in self.dim_order.data)
            if order != list(range(self.rank)):
                raise VerifyException(
                    f"dim_order {[d.data for d in self.dim_order.data]} is not a "
                    f"permutation of the {self.rank} dimensions"
                )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            shape = parse_shape(parser)
            parser.parse_punctuation(",", "between the sizes and the dtype")
            dtype = parser.parse_str_enum(DType)
            device = "cpu"
            dim_order: list[int] | None = None
            while parser.parse_optional_punctuation(","):
                key = parser.parse_keyword_in(("device", "dim_order"))
                parser.parse_punctuation("=")
                if key == "device":
                    device = parser.parse_str_literal("device")
                else:
                    dim_order = parser.parse_comma_separated_list(
                        parser.Delimiter.SQUARE, parser.parse_integer
                    )
        t = TensorType(shape, dtype, device, dim_order)
        return (t.shape, t.dtype, t.device, t.dim_order)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            print_shape(printer, self.sizes)
            printer.print_string(f", {self.dtype.data.value}")
            if self.device.data != "cpu":
                printer.print_string(", device = ")
                printer.print_string_literal(self.device.data)
            if self.dim_order.data:
                order = ", ".join(str(d.data) for d in self.dim_order.data)
                printer.print_string(f", dim_order = [{order}]")


def _parse_optional_expr_param(parser: AttrParser) -> Attribute:
    if parser.parse_optional_punctuation("<") is None:
        return NoneAttr()
    expr = parse_sym_expr(parser)
    parser.parse_punctuation(">")
    return SymExprAttr(expr)


def _print_optional_expr_param(printer: Printer, expr: Attribute) -> None:
    if isinstance(expr, SymExprAttr):
        printer.print_string(f"<{print_expr(expr.data)}>")


class SymScalarType(ParametrizedAttribute, TypeAttribute):
    """A symbolic scalar; its value expression is known when `meta["val"]` was."""

    expr: SymExprAttr | NoneAttr = param_def(SymExprAttr | NoneAttr)

    def __init__(self, expr: SymSize | SymExprAttr | NoneAttr | None = None) -> None:
        if expr is None:
            expr = NoneAttr()
        elif not isinstance(expr, SymExprAttr | NoneAttr):
            expr = SymExprAttr(to_sym(expr))
        super().__init__(expr)

    @property
    def value(self) -> sympy.Expr | None:
        return self.expr.data if isinstance(self.expr, SymExprAttr) else None

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return (_parse_optional_expr_param(parser),)

    def print_parameters(self, printer: Printer) -> None:
        _print_optional_expr_param(printer, self.expr)


@irdl_attr_definition
class SymIntType(SymScalarType):
    """`!exir.sym_int` or, with its known value, `!exir.sym_int<2*s0>`."""

    name = "exir.sym_int"

    # Declared on each class: xDSL compares and hashes only the parameters a class declares.
    expr: SymExprAttr | NoneAttr = param_def(SymExprAttr | NoneAttr)


@irdl_attr_definition
class SymFloatType(SymScalarType):
    name = "exir.sym_float"

    # Declared on each class: xDSL compares and hashes only the parameters a class declares.
    expr: SymExprAttr | NoneAttr = param_def(SymExprAttr | NoneAttr)


@irdl_attr_definition
class SymBoolType(SymScalarType):
    name = "exir.sym_bool"

    # Declared on each class: xDSL compares and hashes only the parameters a class declares.
    expr: SymExprAttr | NoneAttr = param_def(SymExprAttr | NoneAttr)


@irdl_attr_definition
class IntType(ParametrizedAttribute, TypeAttribute):
    """A Python `int` known only at run time (a user input)."""

    name = "exir.int"


@irdl_attr_definition
class FloatType(ParametrizedAttribute, TypeAttribute):
    name = "exir.float"


@irdl_attr_definition
class BoolType(ParametrizedAttribute, TypeAttribute):
    name = "exir.bool"


@irdl_attr_definition
class StrType(ParametrizedAttribute, TypeAttribute):
    name = "exir.str"


@irdl_attr_definition
class ScalarType(ParametrizedAttribute, TypeAttribute):
    """Schema type `Scalar`: any Python number or a 0-d tensor."""

    name = "exir.scalar"


@irdl_attr_definition
class ScalarTypeType(ParametrizedAttribute, TypeAttribute):
    """Schema type `ScalarType`, i.e. a `torch.dtype` value."""

    name = "exir.scalar_type"


@irdl_attr_definition
class LayoutType(ParametrizedAttribute, TypeAttribute):
    name = "exir.layout"


@irdl_attr_definition
class MemoryFormatType(ParametrizedAttribute, TypeAttribute):
    name = "exir.memory_format"


@irdl_attr_definition
class DeviceType(ParametrizedAttribute, TypeAttribute):
    name = "exir.device"


@irdl_attr_definition
class NoneType(ParametrizedAttribute, TypeAttribute):
    name = "exir.none"


@irdl_attr_definition
class GraphModuleType(ParametrizedAttribute, TypeAttribute):
    """The value of a `get_attr` of a subgraph."""

    name = "exir.graph_module"


@irdl_attr_definition
class TokenType(ParametrizedAttribute, TypeAttribute):
    """Effect token threaded through side-effecting ops (input/output kind `token`)."""

    name = "exir.token"


@irdl_attr_definition
class CustomObjType(ParametrizedAttribute, TypeAttribute):
    """A TorchBind object, `!exir.custom_obj<"__torch__.torch.classes.m.Foo">`."""

    name = "exir.custom_obj"

    class_name: StringAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (StringAttr(parser.parse_str_literal("class name")),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string_literal(self.class_name.data)


@irdl_attr_definition
class ListType(ParametrizedAttribute, TypeAttribute):
    """`!exir.list<!exir.tensor<[2], float32>>`."""

    name = "exir.list"

    element_type: Attribute

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (parser.parse_type(),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.element_type)


@irdl_attr_definition
class OptionalType(ParametrizedAttribute, TypeAttribute):
    name = "exir.optional"

    element_type: Attribute

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (parser.parse_type(),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.element_type)


@irdl_attr_definition
class TupleType(ParametrizedAttribute, TypeAttribute):
    """`!exir.tuple<A, B>`: what a multi-result operator returns before `getitem`."""

    name = "exir.tuple"

    types: ArrayAttr[Attribute]

    def __init__(self, types: Sequence[Attribute]) -> None:
        super().__init__(ArrayAttr(types))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        types = parser.parse_optional_comma_separated_list(
            parser.Delimiter.ANGLE, parser.parse_type
        )
        return (ArrayAttr(types or ()),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_list(self.types.data, printer.print_attribute)


# ---------------------------------------------------------------------------
# FX argument trees: constants embedded in the op, references to operands
# ---------------------------------------------------------------------------


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
    The raw bytes of a tensor, `#exir.blob<"0x0000803F...">`: little-endian,
    contiguous in the identity dim order, bfloat16 as its 16-bit patterns.

    The element type and shape come from the type of the op holding it (an
    `exir.state`), so a module printed with its weights parses back unchanged.
    """

    name = "exir.blob"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> bytes:
        with parser.in_angle_brackets():
            pos = parser.pos
            text = parser.parse_str_literal()
            if not text.startswith("0x"):
                parser.raise_error("expected a hex string starting with 0x", pos)
            try:
                return bytes.fromhex(text[2:])
            except ValueError:
                parser.raise_error("malformed hex data in blob", pos)

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f'<"0x{self.data.hex().upper()}">')


@irdl_attr_definition
class NoneValueAttr(ParametrizedAttribute):
    """Python `None` as an argument, `#exir.none`."""

    name = "exir.none_value"


ArgValue = (
    SSAValue
    | int
    | float
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
        return RefAttr(len(operands) - 1)
    if isinstance(value, Operation):
        return encode_arg(value.results[0], operands)
    if value is None:
        return NoneValueAttr()
    if isinstance(value, bool):
        return BoolAttr.from_bool(value)
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    if isinstance(value, float):
        return FloatAttr(value, f64)
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
        return ArrayAttr(encode_arg(v, operands) for v in value)  # pyright: ignore
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
            return RefAttr(len(self.operands) - 1)
        if (elems := p.parse_optional_comma_separated_list(
            p.Delimiter.SQUARE, self.parse_value
        )) is not None:
            return ArrayAttr(elems)
        if (text := p.parse_optional_str_literal()) is not None:
            return StringAttr(text)
        ident = p.parse_optional_identifier()
        if ident is not None:
            return self._value_of_keyword(ident)
        negative = p.parse_optional_punctuation("-") is not None
        if negative and (word := p.parse_optional_keyword("inf")):
            return FloatAttr(-math.inf, f64)
        if (number := p.parse_optional_number()) is not None:
            if isinstance(number, int):
                return IntegerAttr(-number if negative else number, i64)
            return FloatAttr(-number if negative else number, f64)
        p.raise_error("expected an argument: %value, number, string, list or keyword")

    def _value_of_keyword(self, ident: str) -> Attribute:
        if ident in ("true", "false"):
            return BoolAttr.from_bool(ident == "true")
        if ident == "none":
            return NoneValueAttr()
        if ident == "inf":
            return FloatAttr(math.inf, f64)
        if ident == "nan":
            return FloatAttr(math.nan, f64)
        if ident in _ENUM_BY_NAME:
            return _ENUM_BY_NAME[ident]
        if ident == "device":
            with self.parser.in_parens():
                return DeviceAttr(self.parser.parse_str_literal("device name"))
        self.parser.raise_error(f"unknown argument keyword '{ident}'")

    def parse_call(self) -> tuple[list[Attribute], dict[str, Attribute]]:
        """`(arg, ..., name = arg, ...)`"""
        args: list[Attribute] = []
        kwargs: dict[str, Attribute] = {}
        p = self.parser

        def one() -> None:
            if p._current_token.kind == MLIRTokenKind.BARE_IDENT:  # pyright: ignore
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


# ---------------------------------------------------------------------------
# Program, graph and structure
# ---------------------------------------------------------------------------


class InputKind(StrEnum):
    """ExportGraphSignature input kinds, in the order torch places them."""

    token = auto()
    parameter = auto()
    buffer = auto()
    constant_tensor = auto()
    custom_obj = auto()
    user_input = auto()


class OutputKind(StrEnum):
    token = auto()
    buffer_mutation = auto()
    user_input_mutation = auto()
    user_output = auto()
    loss_output = auto()
    gradient_to_parameter = auto()
    gradient_to_user_input = auto()
    parameter_mutation = auto()


STATE_INPUT_KINDS = (
    InputKind.parameter,
    InputKind.buffer,
    InputKind.constant_tensor,
    InputKind.custom_obj,
)
TARGETED_OUTPUT_KINDS = (
    OutputKind.buffer_mutation,
    OutputKind.parameter_mutation,
    OutputKind.user_input_mutation,
    OutputKind.gradient_to_parameter,
    OutputKind.gradient_to_user_input,
)


@irdl_attr_definition
class InputSpecAttr(ParametrizedAttribute):
    """
    One graph input of the signature, aligned by position with the graph's
    arguments: `<user_input "x">`, `<parameter "p_w" -> "w">`,
    `<buffer "b_n" -> "n" non_persistent>`.
    """

    name = "exir.input_spec"

    kind: StringAttr
    arg_name: StringAttr
    target: StringAttr | NoneAttr
    persistent: BoolAttr | NoneAttr

    def __init__(
        self,
        kind: InputKind,
        arg_name: str,
        target: str | None = None,
        persistent: bool | None = None,
    ) -> None:
        if kind == InputKind.buffer and persistent is None:
            persistent = True
        super().__init__(
            StringAttr(kind.value),
            StringAttr(arg_name),
            NoneAttr() if target is None else StringAttr(target),
            NoneAttr() if persistent is None else BoolAttr.from_bool(persistent),
        )

    @property
    def input_kind(self) -> InputKind:
        return InputKind(self.kind.data)

    @property
    def target_name(self) -> str | None:
        return self.target.data if isinstance(self.target, StringAttr) else None

    @property
    def is_persistent(self) -> bool | None:
        if isinstance(self.persistent, NoneAttr):
            return None
        return bool(self.persistent.value.data)

    def verify(self) -> None:
        if self.kind.data not in InputKind.__members__:
            raise VerifyException(f"unknown input kind '{self.kind.data}'")
        needs_target = self.input_kind in STATE_INPUT_KINDS
        if needs_target != isinstance(self.target, StringAttr):
            raise VerifyException(
                f"input kind '{self.kind.data}' "
                + ("needs" if needs_target else "takes no")
                + " state target"
            )
        if (self.input_kind == InputKind.buffer) != isinstance(
            self.persistent, IntegerAttr
        ):
            raise VerifyException("only buffer inputs are persistent or not")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            kind = parser.parse_str_enum(InputKind)
            name = parser.parse_str_literal("placeholder name")
            target = None
            if parser.parse_optional_punctuation("->"):
                target = parser.parse_str_literal("state name")
            persistent = None
            if kind == InputKind.buffer:
                persistent = parser.parse_optional_keyword("non_persistent") is None
        attr = InputSpecAttr(kind, name, target, persistent)
        return (attr.kind, attr.arg_name, attr.target, attr.persistent)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.kind.data + " ")
            printer.print_string_literal(self.arg_name.data)
            if isinstance(self.target, StringAttr):
                printer.print_string(" -> ")
                printer.print_string_literal(self.target.data)
            if self.is_persistent is False:
                printer.print_string(" non_persistent")


@irdl_attr_definition
class OutputSpecAttr(ParametrizedAttribute):
    """
    One graph output of the signature, aligned by position with `exir.output`:
    `<user_output "add">`, `<buffer_mutation "add_1" -> "count">`.
    """

    name = "exir.output_spec"

    kind: StringAttr
    arg_name: StringAttr
    target: StringAttr | NoneAttr

    def __init__(self, kind: OutputKind, arg_name: str, target: str | None = None):
        super().__init__(
            StringAttr(kind.value),
            StringAttr(arg_name),
            NoneAttr() if target is None else StringAttr(target),
        )

    @property
    def output_kind(self) -> OutputKind:
        return OutputKind(self.kind.data)

    @property
    def target_name(self) -> str | None:
        return self.target.data if isinstance(self.target, StringAttr) else None

    def verify(self) -> None:
        if self.kind.data not in OutputKind.__members__:
            raise VerifyException(f"unknown output kind '{self.kind.data}'")
        needs_target = self.output_kind in TARGETED_OUTPUT_KINDS
        if needs_target != isinstance(self.target, StringAttr):
            raise VerifyException(
                f"output kind '{self.kind.data}' "
                + ("needs" if needs_target else "takes no")
                + " target"
            )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            kind = parser.parse_str_enum(OutputKind)
            name = parser.parse_str_literal("output name")
            target = None
            if parser.parse_optional_punctuation("->"):
                target = parser.parse_str_literal("target name")
        attr = OutputSpecAttr(kind, name, target)
        return (attr.kind, attr.arg_name, attr.target)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.kind.data + " ")
            printer.print_string_literal(self.arg_name.data)
            if isinstance(self.target, StringAttr):
                printer.print_string(" -> ")
                printer.print_string_literal(self.target.data)


@irdl_attr_definition
class RangeConstraintAttr(ParametrizedAttribute):
    """`<s0 in [2, 1024]>`, `<2*s0 in [4, inf]>`: a symbol's (or derived size's) range."""

    name = "exir.range"

    expr: SymExprAttr
    lower: SymExprAttr
    upper: SymExprAttr

    def __init__(self, expr: SymSize, lower: SymSize, upper: SymSize) -> None:
        super().__init__(
            SymExprAttr(to_sym(expr)),
            SymExprAttr(to_sym(lower)),
            SymExprAttr(to_sym(upper)),
        )

    def verify(self) -> None:
        for bound in (self.lower.data, self.upper.data):
            if not (bound.is_Integer or bound in (sympy.oo, -sympy.oo)):
                raise VerifyException(f"range bound '{bound}' is not an integer")
        if bool(self.lower.data > self.upper.data):
            raise VerifyException(
                f"empty range [{print_expr(self.lower.data)}, "
                f"{print_expr(self.upper.data)}]"
            )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            expr = parse_sym_expr(parser, stop_words=("in",))
            parser.parse_keyword("in")
            parser.parse_punctuation("[")
            lower = parse_sym_expr(parser, allow_infinity=True)
            parser.parse_punctuation(",")
            upper = parse_sym_expr(parser, allow_infinity=True)
            parser.parse_punctuation("]")
        return (SymExprAttr(expr), SymExprAttr(lower), SymExprAttr(upper))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(
            f"<{print_expr(self.expr.data)} in [{print_expr(self.lower.data)}, "
            f"{print_expr(self.upper.data)}]>"
        )


def _parse_optional_spec_list(
    parser: Parser, keyword: str, attr_type: type[ParametrizedAttribute]
) -> list[Attribute]:
    if parser.parse_optional_keyword(keyword) is None:
        return []
    return parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE,
        lambda: attr_type.new(attr_type.parse_parameters(parser)),
    )


def _print_spec_list(
    printer: Printer, keyword: str, specs: Sequence[ParametrizedAttribute]
) -> None:
    if not specs:
        return
    printer.print_string(f" {keyword} [")
    printer.print_list(specs, lambda s: s.print_parameters(printer))
    printer.print_string("]")


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
        if self.entry is None:
            raise VerifyException(f"program has no entry graph @{self.ENTRY}")

    @classmethod
    def parse(cls, parser: Parser) -> ProgramOp:
        inputs = _parse_optional_spec_list(parser, "inputs", InputSpecAttr)
        outputs = _parse_optional_spec_list(parser, "outputs", OutputSpecAttr)
        ranges = _parse_optional_spec_list(parser, "ranges", RangeConstraintAttr)
        in_spec = None
        out_spec = None
        if parser.parse_optional_keyword("in_spec"):
            in_spec = parser.parse_str_literal("input pytree spec")
        if parser.parse_optional_keyword("out_spec"):
            out_spec = parser.parse_str_literal("output pytree spec")
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
        _print_spec_list(printer, "inputs", self.inputs.data)
        _print_spec_list(printer, "outputs", self.outputs.data)
        _print_spec_list(printer, "ranges", self.range_constraints.data)
        if self.in_spec is not None:
            printer.print_string(" in_spec ")
            printer.print_string_literal(self.in_spec.data)
        if self.out_spec is not None:
            printer.print_string(" out_spec ")
            printer.print_string_literal(self.out_spec.data)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)


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

    assembly_format = "$sym_name `:` $type (`=` $value^)? attr-dict"

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
        from xdsl_exir.utils import op_registry

        assert isinstance(op, CallFunctionOp)
        entry = op_registry.lookup(op.target.data)
        if (
            entry is None
            or not op.results  # returns nothing, so it is called for its effect (an assert)
            or "nondeterministic_seeded" in entry.tags
            or "nondeterministic_bitwise" in entry.tags
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
# SymInt operations
# ---------------------------------------------------------------------------


def _tensor_operand_type(value: SSAValue, what: str) -> TensorType:
    if not isinstance(value.type, TensorType):
        raise VerifyException(f"{what} expects a tensor, got {value.type}")
    return value.type


def _check_sym_result(op: Operation, expected: SymSize | None) -> None:
    """A result's recorded value must agree with what its operands imply."""
    rtype = op.results[0].type
    if expected is None or not isinstance(rtype, SymScalarType):
        return
    recorded = rtype.value
    if recorded is not None and not sym_equal(recorded, to_sym(expected)):
        raise VerifyException(
            f"result is recorded as {print_expr(recorded)} but the operands give "
            f"{print_expr(to_sym(expected))}"
        )


def sym_equal(a: sympy.Expr, b: sympy.Expr) -> bool:
    """Equality of size expressions, trying the cheap forms first."""
    if a == b:
        return True
    diff = sympy.expand(a - b)
    return diff == 0 or sympy.simplify(diff) == 0


class _DimOp(IRDLOperation):
    """Shared shape of `sym_size` / `sym_stride`: a tensor and a constant dim."""

    input = operand_def(TensorType)
    dim = prop_def(IntAttr)
    result = result_def(SymIntType | IntType)

    traits = traits_def(Pure())

    def __init__(
        self, value: SSAValue | Operation, dim: int, result_type: Attribute | None = None
    ) -> None:
        value = SSAValue.get(value)
        if result_type is None:
            t = cast(TensorType, value.type)
            result_type = SymIntType(self.compute(t, dim % max(t.rank, 1)))
        super().__init__(
            operands=[value], result_types=[result_type], properties={"dim": IntAttr(dim)}
        )

    @staticmethod
    def compute(t: TensorType, dim: int) -> SymSize:
        raise NotImplementedError

    def verify_(self) -> None:
        t = _tensor_operand_type(self.input, self.name)
        dim = self.dim.data
        if not -t.rank <= dim < t.rank:
            raise VerifyException(f"dim {dim} out of range for a rank-{t.rank} tensor")
        _check_sym_result(self, self.compute(t, dim % t.rank))

    @classmethod
    def parse(cls, parser: Parser) -> _DimOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        dim = parser.parse_integer()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        vtype = parser.parse_type()
        parser.parse_punctuation("->")
        rtype = parser.parse_type()
        return cls.create(
            operands=[parser.resolve_operand(value, vtype)],
            result_types=[rtype],
            properties={"dim": IntAttr(dim)},
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.input)
        printer.print_string(f", {self.dim.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class SymSizeOp(_DimOp):
    """`aten.sym_size.int(x, dim)`: one size of a tensor, as a SymInt."""

    name = "exir.sym_size"

    @staticmethod
    def compute(t: TensorType, dim: int) -> SymSize:
        return t.sizes[dim]


@irdl_op_definition
class SymStrideOp(_DimOp):
    """`aten.sym_stride.int(x, dim)`: the stride of a dense tensor of this type."""

    name = "exir.sym_stride"

    @staticmethod
    def compute(t: TensorType, dim: int) -> SymSize:
        return t.strides()[dim]


@irdl_op_definition
class SymNumelOp(IRDLOperation):
    """`aten.sym_numel.default(x)`."""

    name = "exir.sym_numel"

    input = operand_def(TensorType)
    result = result_def(SymIntType | IntType)

    traits = traits_def(Pure())

    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(
        self, value: SSAValue | Operation, result_type: Attribute | None = None
    ) -> None:
        value = SSAValue.get(value)
        if result_type is None:
            result_type = SymIntType(cast(TensorType, value.type).numel())
        super().__init__(operands=[value], result_types=[result_type])

    def verify_(self) -> None:
        _check_sym_result(self, _tensor_operand_type(self.input, self.name).numel())


_SYM_NUMERIC = (SymIntType, SymFloatType, SymBoolType, IntType, FloatType, BoolType)


class SymArithOp(ArgsOpMixin, IRDLOperation):
    """
    Python arithmetic and comparison on symbolic scalars (FX's `operator.add`,
    `operator.floordiv`, `operator.eq`, `torch.sym_max`, ...). Arguments are
    SymInt/SymFloat/SymBool values or embedded constants, as in FX.

    %r = exir.sym_mul(%s0, 2) : (!exir.sym_int<s0>) -> !exir.sym_int<2*s0>
    """

    PYTHON_TARGET: ClassVar[str]
    ARITY: ClassVar[int]
    RESULT_KIND: ClassVar[str]
    """'num' (int unless a float is involved), 'float', 'int' or 'bool'."""

    args = prop_def(ArrayAttr)
    arguments = var_operand_def(SymIntType | SymFloatType | SymBoolType | IntType | FloatType | BoolType)
    result = result_def(SymIntType | SymFloatType | SymBoolType)

    traits = traits_def(Pure())

    def __init__(self, *args: SSAValue | Operation | int | float | bool) -> None:
        operands: list[SSAValue] = []
        arg_attrs = [encode_arg(a, operands) for a in args]
        values = [self._value_of(a) for a in args]
        result_type = self._result_type(values)
        super().__init__(
            operands=[operands],
            result_types=[result_type],
            properties={"args": ArrayAttr(arg_attrs)},
        )

    @staticmethod
    def _value_of(arg: object) -> sympy.Expr | float | None:
        """The symbolic value of an argument, None if unknown."""
        if isinstance(arg, Operation):
            arg = arg.results[0]
        if isinstance(arg, SSAValue):
            t = arg.type
            return t.value if isinstance(t, SymScalarType) else None
        if isinstance(arg, bool):
            return sympy.true if arg else sympy.false
        if isinstance(arg, int):
            return sympy.Integer(arg)
        if isinstance(arg, float):
            return sympy.Float(arg)
        return None

    @classmethod
    def _is_float(cls, arg: object) -> bool:
        if isinstance(arg, Operation):
            arg = arg.results[0]
        if isinstance(arg, SSAValue):
            return isinstance(arg.type, SymFloatType | FloatType)
        return isinstance(arg, float)

    @classmethod
    def compute(cls, values: Sequence[sympy.Expr]) -> sympy.Expr:
        raise NotImplementedError

    def _result_type(self, values: Sequence[object]) -> Attribute:
        kind = self.RESULT_KIND
        known = [v for v in values if v is not None]
        expr = None
        if len(known) == len(values) and all(isinstance(v, sympy.Basic) for v in known):
            try:
                expr = self.compute(cast(Sequence[sympy.Expr], values))
            except (TypeError, ZeroDivisionError):
                expr = None
        if kind == "bool":
            return SymBoolType(
                expr if isinstance(expr, sympy.Basic) and not expr.is_Boolean else None
            )
        if kind == "float":
            return SymFloatType()
        if kind == "num" and any(isinstance(v, sympy.Float) for v in known):
            return SymFloatType()
        return SymIntType(expr)

    def _arg_values(self) -> list[sympy.Expr | None]:
        values: list[sympy.Expr | None] = []
        for a in self.get_args():
            v = self._value_of(a)
            values.append(v if isinstance(v, sympy.Basic) else None)
        return values

    def _any_float(self) -> bool:
        return any(self._is_float(a) for a in self.get_args())

    def verify_(self) -> None:
        self.verify_refs()
        args = self.get_args()
        if len(args) != self.ARITY:
            raise VerifyException(
                f"{self.name} takes {self.ARITY} argument(s), got {len(args)}"
            )
        for a in args:
            if not isinstance(a, SSAValue | int | float | bool):
                raise VerifyException(f"{self.name} argument {a!r} is not a scalar")
        rtype = self.result.type
        kind = self.RESULT_KIND
        if kind == "num":
            kind = "float" if self._any_float() else "int"
        expected_type = {"int": SymIntType, "float": SymFloatType, "bool": SymBoolType}[
            kind
        ]
        if not isinstance(rtype, expected_type):
            raise VerifyException(
                f"{self.name} of these arguments gives a {expected_type.name}, "
                f"not {rtype}"
            )
        values = self._arg_values()
        if kind == "int" and all(v is not None for v in values):
            try:
                expected = self.compute(cast(list[sympy.Expr], values))
            except (TypeError, ZeroDivisionError):
                return
            _check_sym_result(self, expected)

    @classmethod
    def parse(cls, parser: Parser) -> SymArithOp:
        arg_parser = ArgParser(parser)
        args, kwargs = arg_parser.parse_call()
        if kwargs:
            parser.raise_error(f"{cls.name} takes no keyword arguments")
        attrs = parser.parse_optional_attr_dict()
        operands, results = parse_operand_and_result_types(parser, arg_parser.operands)
        return cls.create(
            operands=operands,
            result_types=results,
            properties={"args": ArrayAttr(args)},
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        print_call_args(printer, self.args.data, None, self.operands)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)


def _sympy_bool(fn: type[sympy.Basic]) -> object:
    return lambda a, b: fn(a, b)  # pyright: ignore


_SYM_OPS: list[tuple[str, str, int, str, object]] = [
    # name, FX target, arity, result kind, symbolic semantics
    ("add", "operator.add", 2, "num", lambda a, b: a + b),
    ("sub", "operator.sub", 2, "num", lambda a, b: a - b),
    ("mul", "operator.mul", 2, "num", lambda a, b: a * b),
    ("floordiv", "operator.floordiv", 2, "num", FloorDiv),
    ("mod", "operator.mod", 2, "num", sympy.Mod),
    ("pow", "operator.pow", 2, "num", lambda a, b: a**b),
    ("truediv", "operator.truediv", 2, "float", lambda a, b: a / b),
    ("neg", "operator.neg", 1, "num", lambda a: -a),
    ("max", "torch.sym_max", 2, "num", sympy.Max),
    ("min", "torch.sym_min", 2, "num", sympy.Min),
    ("eq", "operator.eq", 2, "bool", _sympy_bool(sympy.Eq)),
    ("ne", "operator.ne", 2, "bool", _sympy_bool(sympy.Ne)),
    ("lt", "operator.lt", 2, "bool", _sympy_bool(sympy.Lt)),
    ("le", "operator.le", 2, "bool", _sympy_bool(sympy.Le)),
    ("gt", "operator.gt", 2, "bool", _sympy_bool(sympy.Gt)),
    ("ge", "operator.ge", 2, "bool", _sympy_bool(sympy.Ge)),
    ("and", "operator.and_", 2, "bool", _sympy_bool(sympy.And)),
    ("or", "operator.or_", 2, "bool", _sympy_bool(sympy.Or)),
    ("not", "torch.sym_not", 1, "bool", sympy.Not),
    ("float", "torch.sym_float", 1, "float", lambda a: a),
    ("int", "torch.sym_int", 1, "int", lambda a: a),
]


def _make_sym_op(
    name: str, target: str, arity: int, kind: str, fn: object
) -> type[SymArithOp]:
    """One op class per Python operator, generated from the table above."""
    camel = "".join(part.capitalize() for part in name.split("_"))
    cls = type(
        f"Sym{camel}Op",
        (SymArithOp,),
        {
            "name": f"exir.sym_{name}",
            "PYTHON_TARGET": target,
            "ARITY": arity,
            "RESULT_KIND": kind,
            "compute": classmethod(lambda _cls, values: fn(*values)),  # pyright: ignore
            "__doc__": f"`{target}` on symbolic scalars.",
            "__annotations__": {
                "PYTHON_TARGET": ClassVar[str],
                "ARITY": ClassVar[int],
                "RESULT_KIND": ClassVar[str],
            },
        },
    )
    return irdl_op_definition(cls)


SYM_ARITH_OPS: dict[str, type[SymArithOp]] = {
    row[1]: _make_sym_op(*row) for row in _SYM_OPS  # pyright: ignore
}
"""The generated ops, keyed by their FX target (`operator.add`, ...)."""


@irdl_op_definition
class AssertScalarOp(IRDLOperation):
    """`aten._assert_scalar.default(cond, msg)`: a runtime assert on a SymBool."""

    name = "exir.assert_scalar"

    condition = operand_def(SymBoolType | BoolType)
    message = prop_def(StringAttr)

    assembly_format = "$condition `,` $message attr-dict `:` type($condition)"

    def __init__(self, condition: SSAValue | Operation, message: str) -> None:
        super().__init__(
            operands=[condition], properties={"message": StringAttr(message)}
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
    from xdsl.dialects.builtin import DenseArrayBase, i32

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
    A group of pointwise ops that runs as one kernel (seed 004's
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


Exir = Dialect(
    "exir",
    [
        ProgramOp,
        StateOp,
        GraphOp,
        OutputOp,
        CallFunctionOp,
        GetItemOp,
        GetAttrOp,
        SymSizeOp,
        SymStrideOp,
        SymNumelOp,
        *SYM_ARITH_OPS.values(),
        AssertScalarOp,
        CondOp,
        WhileLoopOp,
        MapOp,
        FusionGroupOp,
    ],
    [
        DTypeAttr,
        LayoutAttr,
        MemoryFormatAttr,
        DeviceAttr,
        SymExprAttr,
        SymShapeAttr,
        TensorType,
        SymIntType,
        SymFloatType,
        SymBoolType,
        IntType,
        FloatType,
        BoolType,
        StrType,
        ScalarType,
        ScalarTypeType,
        LayoutType,
        MemoryFormatType,
        DeviceType,
        NoneType,
        GraphModuleType,
        TokenType,
        CustomObjType,
        ListType,
        OptionalType,
        TupleType,
        RefAttr,
        NoneValueAttr,
        DenseBlobAttr,
        InputSpecAttr,
        OutputSpecAttr,
        RangeConstraintAttr,
    ],
)
