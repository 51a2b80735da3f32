"""Types and attributes of the ``exir`` dialect: what FakeTensor metadata and
FX's schema leaf types say about a value.

``!exir.tensor<[s0, 2*s0 + 1, 4], float32>`` carries sizes that are integers
or sympy expressions, a torch dtype (every dtype with its torch spelling), a
device and a dim order; ``!exir.sym_int<expr>`` and friends carry their value
when known, as ``meta["val"]`` records it for a SymInt node. The leaf types
(``int``, ``float``, ``scalar_type``, ``device``, ...) and the containers
(``list``, ``tuple``, ``optional``) complete the set. They live apart from the
ops because every other part of the dialect, the aten dialect and the
TorchScript lowering type values with them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar, cast

from xdsl.dialects.builtin import ArrayAttr, IntAttr, NoneAttr, StringAttr
from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.ir import Attribute, Data, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind
from xdsl.utils.str_enum import StrEnum

from xdsl_exir.utils.dtypes import DType
from xdsl_exir.utils.symbolic import (
    MAX_INT_DIGITS,
    SymExprError,
    SymSize,
    Tok,
    normalize,
    parse_tokens,
    print_expr,
    sympy,
    to_sym,
)
from xdsl_exir.utils.xdsl_compat import consume_token, current_token


class Layout(StrEnum):
    strided = "strided"
    sparse_coo = "sparse_coo"
    sparse_csr = "sparse_csr"
    sparse_csc = "sparse_csc"
    sparse_bsr = "sparse_bsr"
    sparse_bsc = "sparse_bsc"
    _mkldnn = "_mkldnn"
    jagged = "jagged"


class MemoryFormat(StrEnum):
    contiguous_format = "contiguous_format"
    channels_last = "channels_last"
    channels_last_3d = "channels_last_3d"
    preserve_format = "preserve_format"


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
    tokens, spans = _read_sym_tokens(parser, stop_words)
    return _parse_sym_tokens(parser, tokens, spans, allow_infinity)


def _read_sym_tokens(parser: AttrParser, stop_words: Sequence[str] = ()) -> tuple[list[Tok], list[Span]]:
    tokens: list[Tok] = []
    spans = []
    depth = 0
    while True:
        tok = current_token(parser)
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
        consume_token(parser)
    if not tokens:
        parser.raise_error("expected a size: an integer or a symbolic expression")
    return tokens, spans


def _parse_sym_tokens(parser: AttrParser, tokens: list[Tok], spans: list[Span], allow_infinity: bool) -> sympy.Expr:
    try:
        return parse_tokens(tokens, allow_infinity)
    except SymExprError as e:
        if e.index < len(spans):
            parser.raise_error(str(e), spans[e.index])
        parser.raise_error(str(e))  # ran out of tokens: point at what follows
    except (TypeError, ZeroDivisionError) as e:
        parser.raise_error(f"invalid symbolic size: {e}", spans[0])


@irdl_attr_definition
class SymExprAttr(Data["sympy.Expr"]):  # a string: naming the class would load sympy
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


def parse_size(parser: AttrParser) -> SymSize:
    """One size of a shape: a lone integer is read as an int, without sympy (which loads lazily)."""
    tokens, spans = _read_sym_tokens(parser)
    if len(tokens) == 1 and tokens[0].kind == "int" and len(tokens[0].text) <= MAX_INT_DIGITS:
        return int(tokens[0].text)
    return normalize(_parse_sym_tokens(parser, tokens, spans, False))


def parse_shape(parser: AttrParser) -> tuple[SymSize, ...]:
    sizes = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, lambda: parse_size(parser))
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
            shape = SymShapeAttr(tuple(normalize(s) for s in shape))
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
        sizes = self.sizes
        if all(isinstance(s, int) for s in sizes):
            return math.prod(cast(tuple[int, ...], sizes))  # static: no sympy (it loads lazily)
        return normalize(sympy.Mul(*(to_sym(s) for s in sizes)))

    def strides(self) -> tuple[SymSize, ...]:
        """Strides of a dense tensor laid out in this type's dim order."""
        strides: list[SymSize] = [0] * self.rank
        if self.is_static():  # ints only: no sympy (it loads lazily)
            step = 1
            for dim in reversed(self.get_dim_order()):
                strides[dim] = step
                step *= cast(int, self.sizes[dim])
            return tuple(strides)
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

    expr: SymExprAttr | NoneAttr

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
    expr: SymExprAttr | NoneAttr

    def __init__(self, expr: SymSize | SymExprAttr | NoneAttr | None = None) -> None:
        super().__init__(expr)  # declared again so type checkers see this, not the parameter-wise one


@irdl_attr_definition
class SymFloatType(SymScalarType):
    name = "exir.sym_float"

    # Declared on each class: xDSL compares and hashes only the parameters a class declares.
    expr: SymExprAttr | NoneAttr

    def __init__(self, expr: SymSize | SymExprAttr | NoneAttr | None = None) -> None:
        super().__init__(expr)  # declared again so type checkers see this, not the parameter-wise one


@irdl_attr_definition
class SymBoolType(SymScalarType):
    name = "exir.sym_bool"

    # Declared on each class: xDSL compares and hashes only the parameters a class declares.
    expr: SymExprAttr | NoneAttr

    def __init__(self, expr: SymSize | SymExprAttr | NoneAttr | None = None) -> None:
        super().__init__(expr)  # declared again so type checkers see this, not the parameter-wise one


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


