"""
TorchScript's types as attributes (`!ts.tensor<Float(2, 3, ...)>`, `!ts.int`, `!ts.list<...>`,
`!ts.class<"...">`), the scalar types of tensors and torch's dtype codes, and the spelling of
types in graph dumps and code annotations, printed (`ts_type_str`, `ts_annotation_str`) and
parsed (`parse_ts_type`). Printing and parsing live with the types: each type's textual form
in the IR is its dump spelling.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, IntAttr, NoneAttr, StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xdsl_exir.dialects.exir import DType
from xdsl_exir.utils.xdsl_compat import resume_from

# ---------------------------------------------------------------------------
# Scalar types of tensors, as TorchScript names them
# ---------------------------------------------------------------------------

SCALAR_TYPES: dict[str, DType] = {
    "Byte": DType.uint8,
    "Char": DType.int8,
    "Short": DType.int16,
    "Int": DType.int32,
    "Long": DType.int64,
    "UInt16": DType.uint16,
    "UInt32": DType.uint32,
    "UInt64": DType.uint64,
    "Half": DType.float16,
    "Float": DType.float32,
    "Double": DType.float64,
    "ComplexHalf": DType.complex32,
    "ComplexFloat": DType.complex64,
    "ComplexDouble": DType.complex128,
    "Bool": DType.bool,
    "QInt8": DType.qint8,
    "QUInt8": DType.quint8,
    "QInt32": DType.qint32,
    "BFloat16": DType.bfloat16,
    "Float8_e5m2": DType.float8_e5m2,
    "Float8_e4m3fn": DType.float8_e4m3fn,
    "Float8_e5m2fnuz": DType.float8_e5m2fnuz,
    "Float8_e4m3fnuz": DType.float8_e4m3fnuz,
}
"""TorchScript's scalar-type names (`Float`, `Long`) and the dtypes they mean."""

SCALAR_TYPE_OF: dict[DType, str] = {v: k for k, v in SCALAR_TYPES.items()}

# The integer codes torch gives dtypes (`c10::ScalarType`), which TorchScript
# passes around as plain ints (`dtype=6` is float32).
DTYPE_CODES: tuple[DType | None, ...] = (
    DType.uint8, DType.int8, DType.int16, DType.int32, DType.int64,
    DType.float16, DType.float32, DType.float64, DType.complex32,
    DType.complex64, DType.complex128, DType.bool, DType.qint8, DType.quint8,
    DType.qint32, DType.bfloat16, DType.quint4x2, DType.quint2x4,
    DType.bits1x8, DType.bits2x4, DType.bits4x2, DType.bits8, DType.bits16,
    DType.float8_e5m2, DType.float8_e4m3fn, DType.float8_e5m2fnuz,
    DType.float8_e4m3fnuz, DType.uint16, DType.uint32, DType.uint64,
)


# ---------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------


UNKNOWN = -1
"""A size, stride or requires_grad flag the type does not know."""


@irdl_attr_definition
class TSTensorType(ParametrizedAttribute, TypeAttribute):
    """
    A tensor with what is known of it: scalar type, sizes (per dimension,
    `*` when unknown, none at all when the rank is unknown), strides,
    requires_grad and device. `!ts.tensor` knows nothing.
    """

    name = "ts.tensor"

    scalar: StringAttr
    sizes: ArrayAttr[IntAttr] | NoneAttr
    strides: ArrayAttr[IntAttr] | NoneAttr
    requires_grad: IntAttr
    device: StringAttr

    def __init__(
        self,
        scalar: str | None = None,
        sizes: Sequence[int | None] | None = None,
        strides: Sequence[int | None] | None = None,
        requires_grad: bool | None = None,
        device: str | None = None,
    ) -> None:
        def dims(v: Sequence[int | None] | None) -> ArrayAttr[IntAttr] | NoneAttr:
            if v is None:
                return NoneAttr()
            return ArrayAttr(IntAttr(UNKNOWN if d is None else d) for d in v)

        super().__init__(
            StringAttr(scalar or ""),
            dims(sizes),
            dims(strides),
            IntAttr(UNKNOWN if requires_grad is None else int(requires_grad)),
            StringAttr(device or ""),
        )

    # -- queries ---------------------------------------------------------
    @property
    def scalar_type(self) -> str | None:
        return self.scalar.data or None

    @property
    def dtype(self) -> DType | None:
        s = self.scalar.data
        return SCALAR_TYPES.get(s) if s else None

    @property
    def rank(self) -> int | None:
        return None if isinstance(self.sizes, NoneAttr) else len(self.sizes.data)

    @property
    def shape(self) -> tuple[int | None, ...] | None:
        if isinstance(self.sizes, NoneAttr):
            return None
        return tuple(None if d.data == UNKNOWN else d.data for d in self.sizes.data)

    @property
    def stride_list(self) -> tuple[int | None, ...] | None:
        if isinstance(self.strides, NoneAttr):
            return None
        return tuple(None if d.data == UNKNOWN else d.data for d in self.strides.data)

    @property
    def grad(self) -> bool | None:
        return None if self.requires_grad.data == UNKNOWN else bool(self.requires_grad.data)

    @property
    def device_name(self) -> str | None:
        return self.device.data or None

    def is_complete(self) -> bool:
        """Dtype, device and every size known (what fusers require)."""
        shape = self.shape
        return (
            self.dtype is not None
            and self.device_name is not None
            and shape is not None
            and all(d is not None for d in shape)
        )

    def verify(self) -> None:
        s = self.scalar.data
        if s and s not in SCALAR_TYPES:
            raise VerifyException(f"unknown scalar type '{s}'")
        for d in (self.shape or ()):
            if d is not None and d < 0:
                raise VerifyException(f"negative size {d} in {ts_type_str(self)}")
        strides = self.stride_list
        if strides is not None and (self.rank is None or len(strides) != self.rank):
            raise VerifyException(f"strides of {ts_type_str(self)} do not match its rank")
        if self.requires_grad.data not in (UNKNOWN, 0, 1):
            raise VerifyException("requires_grad must be 0, 1 or unknown")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        if not parser.parse_optional_punctuation("<"):
            return TSTensorType().parameters
        text = _raw_until_close(parser)
        try:
            t = parse_ts_type(text)
        except TSTypeError as e:
            parser.raise_error(str(e))
        if not isinstance(t, TSTensorType):
            parser.raise_error(f"'{text}' is not a tensor type")
        return t.parameters

    def print_parameters(self, printer: Printer) -> None:
        if self != TSTensorType():
            printer.print_string(f"<{ts_type_str(self)}>")


def _raw_until_close(parser: AttrParser) -> str:
    """The raw text up to the `>` closing an angle bracket already consumed."""
    pos = parser.pos
    content = parser.lexer.input.content
    depth = 0
    i = pos
    while i < len(content):
        c = content[i]
        if c in "([{<":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ">":
            if depth == 0:
                break
            depth -= 1
        i += 1
    else:
        parser.raise_error("expected '>'", pos)
    text = content[pos:i].strip()
    resume_from(parser, i + 1)
    return text


class _Leaf(ParametrizedAttribute, TypeAttribute):
    """A TorchScript type without parameters; `TS_NAME` is its dump spelling."""

    TS_NAME: ClassVar[str]


@irdl_attr_definition
class TSIntType(_Leaf):
    name = "ts.int"
    TS_NAME: ClassVar[str] = "int"


@irdl_attr_definition
class TSFloatType(_Leaf):
    name = "ts.float"
    TS_NAME: ClassVar[str] = "float"


@irdl_attr_definition
class TSComplexType(_Leaf):
    name = "ts.complex"
    TS_NAME: ClassVar[str] = "complex"


@irdl_attr_definition
class TSBoolType(_Leaf):
    name = "ts.bool"
    TS_NAME: ClassVar[str] = "bool"


@irdl_attr_definition
class TSStrType(_Leaf):
    name = "ts.str"
    TS_NAME: ClassVar[str] = "str"


@irdl_attr_definition
class TSNoneType(_Leaf):
    name = "ts.none"
    TS_NAME: ClassVar[str] = "NoneType"


@irdl_attr_definition
class TSDeviceType(_Leaf):
    name = "ts.device"
    TS_NAME: ClassVar[str] = "Device"


@irdl_attr_definition
class TSNumberType(_Leaf):
    """`Scalar` in schemas: an int, float or complex."""

    name = "ts.number"
    TS_NAME: ClassVar[str] = "Scalar"


@irdl_attr_definition
class TSAnyType(_Leaf):
    name = "ts.any"
    TS_NAME: ClassVar[str] = "Any"


@irdl_attr_definition
class TSGeneratorType(_Leaf):
    name = "ts.generator"
    TS_NAME: ClassVar[str] = "Generator"


class Container(ParametrizedAttribute, TypeAttribute):
    """A type over element types, printed `!ts.list<!ts.int>`.

    Each subclass declares `elements` again (xDSL compares and hashes only the parameters a
    class declares) and is defined with `init=False`, so that type checkers see this
    constructor rather than the parameter-wise one the declaration would synthesize.
    """

    elements: ArrayAttr[Attribute]

    def __init__(self, *elements: Attribute) -> None:
        super().__init__(ArrayAttr(elements))

    ARITY: ClassVar[int | None] = 1

    @property
    def element_types(self) -> tuple[Attribute, ...]:
        return self.elements.data

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        types = parser.parse_optional_comma_separated_list(parser.Delimiter.ANGLE, parser.parse_type)
        return (ArrayAttr(types or ()),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_list(self.elements.data, printer.print_attribute)

    def verify(self) -> None:
        if self.ARITY is not None and len(self.elements.data) != self.ARITY:
            raise VerifyException(f"{self.name} takes {self.ARITY} element type(s), got {len(self.elements.data)}")


@irdl_attr_definition(init=False)
class TSListType(Container):
    name = "ts.list"
    elements: ArrayAttr[Attribute]

    @property
    def element(self) -> Attribute:
        return self.elements.data[0]


@irdl_attr_definition(init=False)
class TSOptionalType(Container):
    name = "ts.optional"
    elements: ArrayAttr[Attribute]

    @property
    def element(self) -> Attribute:
        return self.elements.data[0]


@irdl_attr_definition(init=False)
class TSFutureType(Container):
    name = "ts.future"
    elements: ArrayAttr[Attribute]

    @property
    def element(self) -> Attribute:
        return self.elements.data[0]


@irdl_attr_definition(init=False)
class TSTupleType(Container):
    name = "ts.tuple"
    elements: ArrayAttr[Attribute]
    ARITY: ClassVar[int | None] = None


@irdl_attr_definition(init=False)
class TSUnionType(Container):
    name = "ts.union"
    elements: ArrayAttr[Attribute]
    ARITY: ClassVar[int | None] = None


@irdl_attr_definition(init=False)
class TSDictType(Container):
    name = "ts.dict"
    elements: ArrayAttr[Attribute]
    ARITY: ClassVar[int | None] = 2

    @property
    def key(self) -> Attribute:
        return self.elements.data[0]

    @property
    def value(self) -> Attribute:
        return self.elements.data[1]


class _Named(ParametrizedAttribute, TypeAttribute):
    """A type known by a qualified name, `!ts.class<"__torch__.M">`.

    Subclasses declare `qualname` again and use `init=False`, for the reasons `Container` gives.
    """

    qualname: StringAttr

    def __init__(self, qualname: str) -> None:
        super().__init__(StringAttr(qualname))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (StringAttr(parser.parse_str_literal()),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string_literal(self.qualname.data)


@irdl_attr_definition(init=False)
class TSClassType(_Named):
    """A TorchScript class (a scripted module's type, `__torch__.M`)."""

    name = "ts.class"
    qualname: StringAttr


@irdl_attr_definition(init=False)
class TSFunctionType(_Named):
    """A reference to a function, what `prim::Constant[name="f"]` returns."""

    name = "ts.function"
    qualname: StringAttr


@irdl_attr_definition(init=False)
class TSOpaqueType(_Named):
    """A type this project does not model (`Stream`, `Storage`, custom classes); kept by name."""

    name = "ts.opaque"
    qualname: StringAttr


TS_TYPES: tuple[type[ParametrizedAttribute], ...] = (
    TSTensorType, TSIntType, TSFloatType, TSComplexType, TSBoolType, TSStrType, TSNoneType,
    TSDeviceType, TSNumberType, TSAnyType, TSGeneratorType, TSListType, TSOptionalType,
    TSFutureType, TSTupleType, TSUnionType, TSDictType, TSClassType, TSFunctionType, TSOpaqueType,
)

_LEAVES: dict[str, type[_Leaf]] = {
    c.TS_NAME: c for c in (TSIntType, TSFloatType, TSComplexType, TSBoolType, TSStrType, TSNoneType,
                           TSDeviceType, TSNumberType, TSAnyType, TSGeneratorType)
}
_LEAVES["number"] = TSNumberType
# Enum-like arguments TorchScript passes as ints.
for _alias in ("ScalarType", "Layout", "MemoryFormat", "SymInt"):
    _LEAVES[_alias] = TSIntType
_LEAVES["SymFloat"] = TSFloatType
_LEAVES["SymBool"] = TSBoolType


# ---------------------------------------------------------------------------
# The dump spelling of types
# ---------------------------------------------------------------------------


def ts_type_str(t: Attribute) -> str:
    """A type as TorchScript prints it in graph dumps (`Float(2, 3)`, `int[]`, `(Tensor, int)`)."""
    if isinstance(t, TSTensorType):
        return _tensor_str(t)
    if isinstance(t, _Leaf):
        return t.TS_NAME
    if isinstance(t, TSListType):
        return f"{ts_type_str(t.element)}[]"
    if isinstance(t, TSOptionalType):
        return f"{ts_type_str(t.element)}?"
    if isinstance(t, TSFutureType):
        return f"Future[{ts_type_str(t.element)}]"
    if isinstance(t, TSTupleType):
        return "(" + ", ".join(ts_type_str(e) for e in t.element_types) + ")"
    if isinstance(t, TSUnionType):
        return "Union(" + ", ".join(ts_type_str(e) for e in t.element_types) + ")"
    if isinstance(t, TSDictType):
        return f"Dict({ts_type_str(t.key)}, {ts_type_str(t.value)})"
    if isinstance(t, TSFunctionType):
        return "Function"
    if isinstance(t, TSClassType | TSOpaqueType):
        return t.qualname.data
    raise TypeError(f"not a TorchScript type: {t}")


def _tensor_str(t: TSTensorType) -> str:
    head = t.scalar_type or "Tensor"
    parts: list[str] = []
    shape = t.shape
    if shape is not None:
        parts.extend("*" if d is None else str(d) for d in shape)
        strides = t.stride_list
        if strides is not None and shape:  # torch prints no strides for a 0-d tensor
            parts.append("strides=[" + ", ".join("*" if s is None else str(s) for s in strides) + "]")
    if t.grad is not None:
        parts.append(f"requires_grad={int(t.grad)}")
    if t.device_name is not None:
        parts.append(f"device={t.device_name}")
    if not parts and shape is None:
        return head
    return f"{head}({', '.join(parts)})"


def ts_annotation_str(t: Attribute, function_name: Callable[[str], str] | None = None) -> str:
    """
    A type as torch's `annotation_str` spells it, in code (`.code`) and in the
    `annotate(...)` of a dump's list constants: `List[int]`, `Optional[Tensor]`,
    `Tuple[()]` for the empty tuple, `number` for a Scalar. A function type is
    its name, as `function_name` writes it (code qualifies it: `__torch__.f`).
    """
    if isinstance(t, TSTensorType):
        return "Tensor"
    if isinstance(t, TSNoneType):
        return "NoneType"
    if isinstance(t, TSNumberType):
        return "number"
    if isinstance(t, _Leaf):
        return t.TS_NAME
    if isinstance(t, TSListType):
        return f"List[{ts_annotation_str(t.element, function_name)}]"
    if isinstance(t, TSOptionalType):
        return f"Optional[{ts_annotation_str(t.element, function_name)}]"
    if isinstance(t, TSFutureType):
        return f"Future[{ts_annotation_str(t.element, function_name)}]"
    if isinstance(t, TSTupleType):
        if not t.element_types:
            return "Tuple[()]"
        return "Tuple[" + ", ".join(ts_annotation_str(e, function_name) for e in t.element_types) + "]"
    if isinstance(t, TSUnionType):
        return "Union[" + ", ".join(ts_annotation_str(e, function_name) for e in t.element_types) + "]"
    if isinstance(t, TSDictType):
        return f"Dict[{ts_annotation_str(t.key, function_name)}, {ts_annotation_str(t.value, function_name)}]"
    if isinstance(t, TSFunctionType):
        name = t.qualname.data
        if not name:
            return "Callable"
        return function_name(name) if function_name is not None else name
    return ts_type_str(t)


def type_name(t: Attribute) -> str:
    """The dump spelling of `t` when it is a TorchScript type, else its MLIR form."""
    try:
        return ts_type_str(t)
    except TypeError:
        return str(t)


class TSTypeError(ValueError):
    """A type spelling that does not parse; `pos` is the offset in the text."""

    def __init__(self, message: str, pos: int = 0) -> None:
        super().__init__(message)
        self.pos = pos


_TOKEN = re.compile(r"\s*(?:(?P<name>[A-Za-z_][A-Za-z0-9_.]*)|(?P<num>-?\d+)|(?P<p>[()\[\],=*?:]))")


@dataclass
class _TypeLexer:
    text: str
    pos: int = 0

    def peek(self) -> str | None:
        m = _TOKEN.match(self.text, self.pos)
        return m.group(m.lastgroup or "p") if m and m.lastgroup else None

    def next(self) -> str:
        m = _TOKEN.match(self.text, self.pos)
        if not m or not m.lastgroup:
            raise TSTypeError(f"unexpected text '{self.text[self.pos:self.pos + 10]}' in type", self.pos)
        self.pos = m.end()
        return m.group(m.lastgroup)

    def accept(self, tok: str) -> bool:
        if self.peek() == tok:
            self.next()
            return True
        return False

    def expect(self, tok: str) -> None:
        got = self.peek()
        if got != tok:
            raise TSTypeError(f"expected '{tok}' in type, got '{got or 'end of text'}'", self.pos)
        self.next()


def parse_ts_type(text: str) -> Attribute:
    """Parse the dump spelling of a type (the inverse of `ts_type_str`)."""
    lex = _TypeLexer(text)
    t = _parse_type(lex)
    if lex.text[lex.pos:].strip():
        raise TSTypeError(f"unexpected '{lex.text[lex.pos:].strip()}' after type", lex.pos)
    return t


def parse_ts_type_prefix(text: str, pos: int) -> tuple[Attribute, int]:
    """Parse a type starting at `pos`; return it and the offset after it."""
    lex = _TypeLexer(text, pos)
    return _parse_type(lex), lex.pos


def _parse_type(lex: _TypeLexer) -> Attribute:
    t = _parse_primary(lex)
    while True:
        if lex.peek() == "[" and lex.text[lex.pos:].lstrip().startswith("[]"):
            lex.next()
            lex.expect("]")
            t = TSListType(t)
        elif lex.accept("?"):
            t = TSOptionalType(t)
        else:
            return t


def _parse_list(lex: _TypeLexer, close: str) -> list[Attribute]:
    items: list[Attribute] = []
    if lex.accept(close):
        return items
    while True:
        items.append(_parse_type(lex))
        if lex.accept(close):
            return items
        lex.expect(",")


_GENERIC = {"List": TSListType, "Optional": TSOptionalType, "Future": TSFutureType}


def _parse_primary(lex: _TypeLexer) -> Attribute:
    start = lex.pos
    tok = lex.next()
    if tok == "(":
        return TSTupleType(*_parse_list(lex, ")"))
    if tok in ("Tensor",) or tok in SCALAR_TYPES:
        return _parse_tensor(lex, None if tok == "Tensor" else tok)
    if tok in ("Dict", "Tuple", "Union") or tok in _GENERIC:
        if lex.peek() not in ("(", "["):
            raise TSTypeError(f"'{tok}' needs element types", start)
        close = ")" if lex.next() == "(" else "]"
        items = _parse_list(lex, close)
        if tok == "Dict":
            if len(items) != 2:
                raise TSTypeError("Dict takes a key and a value type", start)
            return TSDictType(*items)
        if tok == "Tuple":
            return TSTupleType(*items)
        if tok == "Union":
            return TSUnionType(*items)
        if len(items) != 1:
            raise TSTypeError(f"{tok} takes one element type", start)
        return _GENERIC[tok](items[0])
    if tok in _LEAVES:
        return _LEAVES[tok]()
    if tok == "Function":
        return TSFunctionType("")
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", tok):
        if tok.startswith("__torch__."):
            return TSClassType(tok)
        return TSOpaqueType(tok)
    raise TSTypeError(f"expected a type, got '{tok}'", start)


def _parse_tensor(lex: _TypeLexer, scalar: str | None) -> TSTensorType:
    if not lex.accept("("):
        return TSTensorType(scalar)
    sizes: list[int | None] | None = None
    strides: list[int | None] | None = None
    grad: bool | None = None
    device: str | None = None
    if lex.accept(")"):
        return TSTensorType(scalar)
    while True:
        tok = lex.next()
        if tok == "*":
            sizes = (sizes or []) + [None]
        elif re.fullmatch(r"-?\d+", tok):
            sizes = (sizes or []) + [int(tok)]
        elif tok == "strides":
            lex.expect("=")
            lex.expect("[")
            strides = []
            if not lex.accept("]"):
                while True:
                    s = lex.next()
                    strides.append(None if s == "*" else int(s))
                    if lex.accept("]"):
                        break
                    lex.expect(",")
        elif tok == "requires_grad":
            lex.expect("=")
            grad = bool(int(lex.next()))
        elif tok == "device":
            lex.expect("=")
            device = lex.next()
            if lex.accept(":"):
                device += ":" + lex.next()
        elif tok in ("seen_none", "undefined"):
            lex.expect("=")
            lex.next()
        else:
            raise TSTypeError(f"unexpected '{tok}' in tensor type", lex.pos)
        if lex.accept(")"):
            break
        lex.expect(",")
    if sizes is None and strides is not None:
        raise TSTypeError("strides without sizes in tensor type", lex.pos)
    # `Float(requires_grad=0, device=cpu)` is printed both for a 0-d tensor and
    # for one of unknown rank; read it as the weaker claim.
    return TSTensorType(scalar, sizes, strides, grad, device)
