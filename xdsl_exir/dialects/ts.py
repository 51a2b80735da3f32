"""
The `ts` dialect: TorchScript's types and program structure.

TorchScript (JIT Technical Overview) keeps a program as a Module of slots (parameters,
buffers, attributes, submodules) and Methods, each a Graph of Nodes in Blocks.
Here a Module is `ts.module`, a Method (or a free function) is `ts.method`
whose region is its graph, a slot is `ts.slot`, and a Node whose kind has no
dedicated op is `ts.node` (the universe of node kinds is open). The prim ops
with structure of their own live in the `prim` dialect (`dialects/prim.py`).

Types spell TorchScript's own: `!ts.tensor<Float(2, 3, strides=[3, 1],
requires_grad=0, device=cpu)>`, `!ts.tensor` (plain `Tensor`), `!ts.int`,
`!ts.list<!ts.tensor>`, `!ts.optional<!ts.int>`, `!ts.class<"__torch__.M">`.
`ts_type_str` / `parse_ts_type` convert to and from the spelling of graph
dumps (`Float(*, *)`, `int[]`, `(Tensor, int)`, `Tensor?`, `Dict(str, Tensor)`),
and `is_subtype` gives TorchScript's subtyping.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import (
    ArrayAttr,
    Builtin,
    DictionaryAttr,
    IntAttr,
    NoneAttr,
    StringAttr,
    SymbolNameConstraint,
)
from xdsl.ir import Attribute, Block, Dialect, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.pattern_rewriter import RewritePattern
from xdsl.printer import Printer
from xdsl.traits import (
    HasCanonicalizationPatternsTrait,
    IsolatedFromAbove,
    NoTerminator,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException

from xdsl_exir.dialects.exir import DenseBlobAttr, DType
from xdsl_exir.utils.function_schema import SchemaParseError, parse_schema
from xdsl_exir.utils.mlir_parser import HexBlob, ResourceParser, declare_blob
from xdsl_exir.utils.tensor_data import array_from_bytes, bytes_from_array
from xdsl_exir.utils.xdsl_compat import parse_resource_handle, resume_from

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


class _Container(ParametrizedAttribute, TypeAttribute):
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
class TSListType(_Container):
    name = "ts.list"
    elements: ArrayAttr[Attribute]

    @property
    def element(self) -> Attribute:
        return self.elements.data[0]


@irdl_attr_definition(init=False)
class TSOptionalType(_Container):
    name = "ts.optional"
    elements: ArrayAttr[Attribute]

    @property
    def element(self) -> Attribute:
        return self.elements.data[0]


@irdl_attr_definition(init=False)
class TSFutureType(_Container):
    name = "ts.future"
    elements: ArrayAttr[Attribute]

    @property
    def element(self) -> Attribute:
        return self.elements.data[0]


@irdl_attr_definition(init=False)
class TSTupleType(_Container):
    name = "ts.tuple"
    elements: ArrayAttr[Attribute]
    ARITY: ClassVar[int | None] = None


@irdl_attr_definition(init=False)
class TSUnionType(_Container):
    name = "ts.union"
    elements: ArrayAttr[Attribute]
    ARITY: ClassVar[int | None] = None


@irdl_attr_definition(init=False)
class TSDictType(_Container):
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

    Subclasses declare `qualname` again and use `init=False`, for the reasons `_Container` gives.
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


def _type_name(t: Attribute) -> str:
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


# ---------------------------------------------------------------------------
# Subtyping
# ---------------------------------------------------------------------------


def _tensor_subtype(a: TSTensorType, b: TSTensorType) -> bool:
    """`a` refines `b`: every property `b` knows, `a` knows the same."""
    if b.scalar_type is not None and a.scalar_type != b.scalar_type:
        return False
    if b.device_name is not None and a.device_name != b.device_name:
        return False
    if b.grad is not None and a.grad != b.grad:
        return False
    bs, as_ = b.shape, a.shape
    if bs is not None:
        if as_ is None or len(as_) != len(bs):
            return False
        if any(y is not None and x != y for x, y in zip(as_, bs)):
            return False
    bst, ast = b.stride_list, a.stride_list
    if bst is not None:
        if ast is None or len(ast) != len(bst):
            return False
        if any(y is not None and x != y for x, y in zip(ast, bst)):
            return False
    return True


def unrefined(t: Attribute) -> Attribute:
    """`t` with tensor refinements dropped (`Float(2)[]` -> `Tensor[]`), as lists compare elements."""
    if isinstance(t, TSTensorType):
        return TSTensorType()
    if isinstance(t, _Container):
        return type(t)(*(unrefined(e) for e in t.element_types))
    return t


def is_subtype(a: Attribute, b: Attribute) -> bool:
    """TorchScript's `a.isSubtypeOf(b)`: may a value of type `a` stand where `b` is expected."""
    if a == b or isinstance(b, TSAnyType):
        return True
    if isinstance(a, TSTensorType) and isinstance(b, TSTensorType):
        return _tensor_subtype(a, b)
    if isinstance(b, TSOptionalType):
        return isinstance(a, TSNoneType) or is_subtype(a, b.element) or (
            isinstance(a, TSOptionalType) and is_subtype(a.element, b.element)
        )
    if isinstance(b, TSUnionType):
        members = a.element_types if isinstance(a, TSUnionType) else (a,)
        return all(any(is_subtype(m, o) for o in b.element_types) for m in members)
    if isinstance(b, TSNumberType):
        return isinstance(a, TSIntType | TSFloatType | TSComplexType)
    if isinstance(a, TSTupleType) and isinstance(b, TSTupleType):
        return len(a.element_types) == len(b.element_types) and all(
            is_subtype(x, y) for x, y in zip(a.element_types, b.element_types)
        )
    if isinstance(a, TSListType) and isinstance(b, TSListType):
        # Lists are invariant (they are mutable), but tensor refinements do not count.
        return unrefined(a.element) == unrefined(b.element)
    if isinstance(a, TSDictType) and isinstance(b, TSDictType):
        return unrefined(a) == unrefined(b)
    if isinstance(a, TSFutureType) and isinstance(b, TSFutureType):
        return is_subtype(a.element, b.element)
    if isinstance(a, TSFunctionType) and isinstance(b, TSFunctionType):
        return not b.qualname.data or a.qualname == b.qualname
    return False


def join_types(a: Attribute, b: Attribute) -> Attribute | None:
    """The least type both fit (TorchScript's `unifyTypes`), or None."""
    if is_subtype(a, b):
        return b
    if is_subtype(b, a):
        return a
    if isinstance(a, TSTensorType) and isinstance(b, TSTensorType):
        sa, sb = a.shape, b.shape
        sizes = None
        if sa is not None and sb is not None and len(sa) == len(sb):
            sizes = [x if x == y else None for x, y in zip(sa, sb)]
        return TSTensorType(
            a.scalar_type if a.scalar_type == b.scalar_type else None,
            sizes,
            None,
            a.grad if a.grad == b.grad else None,
            a.device_name if a.device_name == b.device_name else None,
        )
    if isinstance(a, TSNoneType):
        return TSOptionalType(b)
    if isinstance(b, TSNoneType):
        return TSOptionalType(a)
    if isinstance(a, TSOptionalType) and not isinstance(b, TSOptionalType):
        j = join_types(a.element, b)
        return TSOptionalType(j) if j is not None else None
    if isinstance(b, TSOptionalType) and not isinstance(a, TSOptionalType):
        return join_types(b, a)
    if isinstance(a, TSTupleType) and isinstance(b, TSTupleType) and len(a.element_types) == len(b.element_types):
        items = [join_types(x, y) for x, y in zip(a.element_types, b.element_types)]
        if all(i is not None for i in items):
            return TSTupleType(*(i for i in items if i is not None))
    if isinstance(a, TSListType) and isinstance(b, TSListType) and unrefined(a) == unrefined(b):
        return unrefined(a)
    return None


# ---------------------------------------------------------------------------
# Attributes: tensor constants
# ---------------------------------------------------------------------------


@irdl_attr_definition
class TensorValueAttr(ParametrizedAttribute):
    """
    A tensor constant: `#ts.tensor_value<Float, [2, 2], dense_resource<key>>`,
    the bytes in the file's resources as an `exir.state`'s are (read, and decoded
    when first used, the same way); the older inline `#exir.blob<"0x...">` still
    reads. Dumps print only 0-d tensor values (`value={2}`); larger ones appear as
    `<Tensor>`, whose data is unknown (`data` is then an empty blob, printed
    `#exir.blob<"0x">`: there are no bytes to put in the resources).
    """

    name = "ts.tensor_value"

    scalar: StringAttr
    sizes: ArrayAttr[IntAttr]
    data: DenseBlobAttr

    def __init__(self, scalar: str, sizes: Sequence[int], data: bytes | None) -> None:
        super().__init__(StringAttr(scalar), ArrayAttr(IntAttr(s) for s in sizes), DenseBlobAttr(data or b""))

    @property
    def known(self) -> bool:
        """Whether the data is there (a blob still to decode is: only an empty one in memory is not)."""
        return not self.data.decoded or bool(self.data.data) or any(s.data == 0 for s in self.sizes.data)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(s.data for s in self.sizes.data)

    def to_array(self) -> np.ndarray:
        """The data as an array (bfloat16 and float8 as ml_dtypes arrays); raises `TensorDataError` if it does not fit."""
        return array_from_bytes(self.data.data, SCALAR_TYPES[self.scalar.data], self.shape)

    @staticmethod
    def from_array(array: np.ndarray, scalar: str) -> TensorValueAttr:
        """`array` stored as a tensor of TorchScript scalar type `scalar` (bfloat16 rounded to nearest even)."""
        return TensorValueAttr(scalar, array.shape, bytes_from_array(array, SCALAR_TYPES[scalar]))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            scalar = parser.parse_identifier()
            parser.parse_punctuation(",")
            sizes = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
            parser.parse_punctuation(",")
            pos = parser.pos
            if parser.parse_optional_keyword("dense_resource"):
                storage = Builtin.get_interface(OpAsmDialectInterface)
                assert storage is not None
                with parser.in_angle_brackets():
                    # The handle parser xDSL's own `dense_resource` attribute uses (declares the key).
                    key = parse_resource_handle(parser, "builtin", storage)
                source = HexBlob.pending(key)
                data = DenseBlobAttr.from_hex(source)
                if isinstance(parser, ResourceParser):
                    parser.defer_blob(key, source.bind, pos)
            else:
                data = parser.parse_attribute()
        if not isinstance(data, DenseBlobAttr):
            parser.raise_error("expected dense_resource<key> or an #exir.blob", pos)
        return (StringAttr(scalar), ArrayAttr(IntAttr(s) for s in sizes), data)

    def print_parameters(self, printer: Printer) -> None:
        self.print_named(printer, "tensor")

    def print_named(self, printer: Printer, name: str) -> None:
        """The parameters, the data as `dense_resource<key>` with a key made from `name` (a slot's)."""
        with printer.in_angle_brackets():
            printer.print_string(f"{self.scalar.data}, [{', '.join(str(s.data) for s in self.sizes.data)}], ")
            if not self.known:
                printer.print_attribute(self.data)
                return
            key = self.data.left_out or declare_blob(name, self.data.data)  # elided when read: still elided
            printer.print_string("dense_resource<")
            printer.print_resource_handle("builtin", key)
            printer.print_string(">")

    def verify(self) -> None:
        if self.scalar.data not in SCALAR_TYPES:
            raise VerifyException(f"unknown scalar type '{self.scalar.data}'")


# ---------------------------------------------------------------------------
# Structure: modules, methods, slots, the open node op
# ---------------------------------------------------------------------------

SLOT_KINDS = ("parameter", "buffer", "attribute")


@irdl_op_definition
class ScriptModuleOp(IRDLOperation):
    """
    A TorchScript Module: slots, methods and submodules (nested `ts.module`s,
    named by the attribute holding them). `class_name` is its class type.
    """

    name = "ts.module"

    sym_name = prop_def(SymbolNameConstraint())
    class_name = prop_def(StringAttr)
    body = region_def("single_block")

    traits = traits_def(NoTerminator(), SymbolOpInterface(), SymbolTable(), IsolatedFromAbove())

    assembly_format = "$sym_name `class` $class_name attr-dict-with-keyword $body"

    def __init__(self, name: str, class_name: str) -> None:
        super().__init__(
            properties={"sym_name": StringAttr(name), "class_name": StringAttr(class_name)},
            regions=[Region(Block())],
        )

    @property
    def class_type(self) -> TSClassType:
        return TSClassType(self.class_name.data)

    def slots(self) -> list[SlotOp]:
        return [op for op in self.body.ops if isinstance(op, SlotOp)]

    def submodules(self) -> list[ScriptModuleOp]:
        return [op for op in self.body.ops if isinstance(op, ScriptModuleOp)]

    def methods(self) -> list[MethodOp]:
        return [op for op in self.body.ops if isinstance(op, MethodOp)]

    def member(self, name: str) -> SlotOp | ScriptModuleOp | None:
        for op in self.body.ops:
            if isinstance(op, SlotOp | ScriptModuleOp) and op.sym_name.data == name:
                return op
        return None

    def method(self, name: str) -> MethodOp | None:
        for op in self.body.ops:
            if isinstance(op, MethodOp) and op.sym_name.data == name:
                return op
        return None

    def verify_(self) -> None:
        seen: set[str] = set()
        for op in self.body.ops:
            if not isinstance(op, SlotOp | ScriptModuleOp | MethodOp):
                raise VerifyException(f"'{op.name}' cannot appear directly in a ts.module")
            name = op.sym_name.data
            if name in seen:
                raise VerifyException(f"ts.module @{self.sym_name.data} defines '{name}' twice")
            seen.add(name)


@irdl_op_definition
class SlotOp(IRDLOperation):
    """
    A named slot of a module: a parameter, a buffer (tensors, with their data
    as a `#ts.tensor_value`) or another attribute (ints, floats, bools,
    strings, None, lists and tuples of them as builtin attributes).
    """

    name = "ts.slot"

    sym_name = prop_def(SymbolNameConstraint())
    kind = prop_def(StringAttr)
    slot_type = prop_def(Attribute, prop_name="type")
    value = opt_prop_def(Attribute)

    def __init__(self, name: str, kind: str, slot_type: Attribute, value: Attribute | None = None) -> None:
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "kind": StringAttr(kind),
                "type": slot_type,
                "value": value,
            }
        )

    @classmethod
    def parse(cls, parser: Parser) -> SlotOp:
        pos = parser.pos
        kind = parser.parse_identifier()
        if kind not in SLOT_KINDS:
            parser.raise_error(f"expected one of {', '.join(SLOT_KINDS)}", pos)
        name = parser.parse_symbol_name().data
        parser.parse_punctuation(":")
        slot_type = parser.parse_type()
        value = parser.parse_attribute() if parser.parse_optional_punctuation("=") else None
        op = cls(name, kind, slot_type, value)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        if attrs is not None:
            op.attributes.update(attrs.data)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" : ")
        printer.print_attribute(self.slot_type)
        if isinstance(self.value, TensorValueAttr):
            printer.print_string(f" = #{TensorValueAttr.name}")
            self.value.print_named(printer, self.sym_name.data)  # its resource named as the slot
        elif self.value is not None:
            printer.print_string(" = ")
            printer.print_attribute(self.value)
        if self.attributes:
            printer.print_string(" attributes ")
            printer.print_attr_dict(self.attributes)

    def verify_(self) -> None:
        if self.kind.data not in SLOT_KINDS:
            raise VerifyException(f"slot kind must be one of {', '.join(SLOT_KINDS)}, got '{self.kind.data}'")
        if self.kind.data != "attribute" and not isinstance(self.slot_type, TSTensorType):
            raise VerifyException(f"a {self.kind.data} must be a tensor, got {_type_name(self.slot_type)}")
        if isinstance(self.value, TensorValueAttr) and isinstance(self.slot_type, TSTensorType):
            st = self.slot_type
            if st.scalar_type is not None and st.scalar_type != self.value.scalar.data:
                raise VerifyException(
                    f"slot @{self.sym_name.data} holds {self.value.scalar.data} data but is typed {ts_type_str(st)}"
                )
            if st.shape is not None and any(d is not None and d != v for d, v in zip(st.shape, self.value.shape)):
                raise VerifyException(f"slot @{self.sym_name.data} holds data of sizes {list(self.value.shape)}"
                                      f" but is typed {ts_type_str(st)}")


@irdl_op_definition
class MethodOp(IRDLOperation):
    """
    A Method (inside a `ts.module`) or a free function: its region is the
    Graph, entry-block arguments are the graph inputs (`self` first for
    methods), the block ends with `prim.Return`. `schema` is its
    FunctionSchema, `forward(__torch__.M self, Tensor x) -> Tensor`.
    """

    name = "ts.method"

    sym_name = prop_def(SymbolNameConstraint())
    schema = opt_prop_def(StringAttr)
    body = region_def("single_block")

    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove())

    def __init__(self, name: str, body: Region, schema: str | None = None) -> None:
        super().__init__(
            properties={"sym_name": StringAttr(name), "schema": StringAttr(schema) if schema else None},
            regions=[body],
        )

    @classmethod
    def parse(cls, parser: Parser) -> MethodOp:
        name = parser.parse_symbol_name().data
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        props: dict[str, Attribute] = {"sym_name": StringAttr(name)}
        if attrs is not None:
            schema = attrs.data.get("schema")
            if schema is not None:
                props["schema"] = schema
        op = cls.create(properties=props, regions=[body])
        if attrs is not None:
            op.attributes.update({k: v for k, v in attrs.data.items() if k != "schema"})
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        extra: dict[str, Attribute] = dict(self.attributes)
        if self.schema is not None:
            extra = {"schema": self.schema, **extra}
        if extra:
            printer.print_string(" attributes ")
            printer.print_attr_dict(extra)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True, print_empty_block=True)

    @property
    def arg_types(self) -> tuple[Attribute, ...]:
        return tuple(a.type for a in self.body.block.args)

    @property
    def return_types(self) -> tuple[Attribute, ...]:
        last = self.body.block.last_op
        return tuple(v.type for v in last.operands) if last is not None else ()

    def verify_(self) -> None:
        # By name: the prim dialect's ops are typed with this dialect's types, so prim imports ts
        # and ts does not import prim.
        last = self.body.block.last_op
        if last is None or last.name != "prim.Return":
            raise VerifyException(f"ts.method @{self.sym_name.data} must end with prim.Return")
        if self.schema is not None:
            try:
                schema = parse_schema(self.schema.data)
            except SchemaParseError as e:
                raise VerifyException(f"malformed schema of @{self.sym_name.data}: {e}") from e
            if len(schema.arguments) != len(self.body.block.args):
                raise VerifyException(
                    f"schema of @{self.sym_name.data} has {len(schema.arguments)} arguments "
                    f"but the graph has {len(self.body.block.args)} inputs"
                )
            if len(schema.returns) != len(last.operands) and not (
                len(schema.returns) == 0 and len(last.operands) == 1 and isinstance(last.operands[0].type, TSNoneType)
            ):
                raise VerifyException(
                    f"schema of @{self.sym_name.data} has {len(schema.returns)} returns "
                    f"but the graph returns {len(last.operands)} values"
                )


class TSCanonicalization(HasCanonicalizationPatternsTrait):
    """
    The canonicalization trait of `ts.node` and of the prim ops with peepholes, so xDSL's
    stock `canonicalize` applies TorchScript's peepholes. The patterns live in
    `transforms/canonicalization_patterns/prim.py` and are imported on first use, as xDSL's
    own dialects import theirs: loading the dialects never loads them, and they may ask
    the alias analysis, a layer above the dialects.
    """

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        from xdsl_exir.transforms.canonicalization_patterns.prim import PATTERNS

        return PATTERNS


@irdl_op_definition
class NodeOp(IRDLOperation):
    """
    A Node of any kind without an op of its own, `aten::add` included
    (TorchScript resolves the overload from the input types, and so do the
    interpreter and the lowering, against the same schema list as the aten
    dialect). `attrs` holds the node's attributes (`[name="x"]`), and any
    blocks are its regions.
    """

    name = "ts.node"

    kind = prop_def(StringAttr)
    node_attrs = opt_prop_def(DictionaryAttr, prop_name="attrs")
    args = var_operand_def()
    res = var_result_def()
    blocks = var_region_def()

    traits = traits_def(TSCanonicalization())

    def __init__(
        self,
        kind: str,
        operands: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        attrs: dict[str, Attribute] | None = None,
        regions: Sequence[Region] = (),
    ) -> None:
        super().__init__(
            operands=[list(operands)],
            result_types=[list(result_types)],
            properties={"kind": StringAttr(kind), "attrs": DictionaryAttr(attrs) if attrs else None},
            regions=[list(regions)],
        )

    @property
    def namespace(self) -> str:
        return self.kind.data.partition("::")[0]

    @property
    def op_name(self) -> str:
        return self.kind.data.partition("::")[2]

    @classmethod
    def parse(cls, parser: Parser) -> NodeOp:
        kind = parser.parse_str_literal()
        operands = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        regions: list[Region] = []
        if parser.parse_optional_punctuation("("):
            regions = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_region)
            parser.parse_punctuation(")")
        parser.parse_punctuation(":")
        ftype = parser.parse_function_type()
        ops = parser.resolve_operands(operands, ftype.inputs.data, parser.pos)
        props: dict[str, Attribute] = {"kind": StringAttr(kind)}
        if attrs is not None and attrs.data:
            props["attrs"] = attrs
        return cls.create(operands=ops, result_types=list(ftype.outputs.data), properties=props, regions=regions)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.kind.data)
        printer.print_string("(")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_string(")")
        if self.node_attrs is not None and self.node_attrs.data:
            printer.print_string(" attributes ")
            printer.print_attr_dict(self.node_attrs.data)
        if self.regions:
            printer.print_string(" (")
            printer.print_list(self.regions, printer.print_region)
            printer.print_string(")")
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)

    def verify_(self) -> None:
        if "::" not in self.kind.data:
            raise VerifyException(f"node kind '{self.kind.data}' must be namespace::name")


TS = Dialect(
    "ts",
    [ScriptModuleOp, SlotOp, MethodOp, NodeOp],
    [*TS_TYPES, TensorValueAttr],
)
