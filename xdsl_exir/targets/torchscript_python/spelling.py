"""
How TorchScript code spells types, numbers, strings and names (`annotation_str`, `format_float`,
`quote_string`, valid identifiers, the names torch never gives a local), and the constant value
of an attribute, compared as torch compares IValues.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntegerAttr, StringAttr
from xdsl.ir import Attribute, OpResult, SSAValue
from xdsl.utils.exceptions import DiagnosticException

from xdsl_exir.dialects.prim import ConstantOp
from xdsl_exir.dialects.ts import (
    TSAnyType,
    TSComplexType,
    TSListType,
    TSNumberType,
    TSOptionalType,
    TSTupleType,
    TSUnionType,
    ts_annotation_str,
)

RESERVED_NAMES = frozenset(
    {
        # what the importer's environment defines
        "_", "as", "aten", "attribute", "CONSTANTS", "fork", "getattr", "inf", "nan",
        "infj", "nanj", "ops", "__torch__", "uninitialized", "unchecked_cast",
        # Python keywords
        "and", "assert", "async", "await", "break", "class", "continue", "def", "del",
        "elif", "else", "except", "False", "finally", "for", "from", "global", "if",
        "import", "in", "is", "lambda", "None", "nonlocal", "not", "or", "pass",
        "raise", "return", "True", "try", "while", "with", "yield",
    }
)
"""Names torch never gives a local: they mean something to its importer."""

LONG_LINE = 40
"""An expression this long (with two columns per indentation level) gets its own line."""


def annotation_str(t: Attribute) -> str:
    """A TorchScript type as code annotates it (`Optional[List[int]]`): the dialect's one
    spelling (`ts_annotation_str`, torch's `annotation_str`), functions named as code names them."""
    try:
        return ts_annotation_str(t, qualified_function_name)
    except TypeError:
        raise DiagnosticException(f"{t} is not a TorchScript type; it has no Python annotation") from None


def qualified_function_name(name: str) -> str:
    """
    How a function is named in code: graph dumps keep only `helper`
    (`prim::Constant[name="helper"]`), torch prints the qualified name
    `__torch__.helper`; a name with a dot is taken as qualified already.
    """
    return name if "." in name else f"__torch__.{name}"


def format_float(d: float) -> str:
    """A double as TorchScript's IValue prints it: `1.`, `-0.`, `0.10000000000000001`, `1e+20`, `inf`."""
    if math.isnan(d):
        return "nan"
    if math.isinf(d):
        return "inf" if d > 0 else "-inf"
    if abs(d) < 1e10 and d == int(d):
        i = int(d)
        if i == 0 and math.copysign(1.0, d) < 0:
            return "-0."
        return f"{i}."
    return f"{d:.17g}"


def format_complex(re: float, im: float) -> str:
    """`3.+4.j`, `0.-1.j`: real part, sign, magnitude of the imaginary part."""
    sign = "+" if im >= 0 else "-"
    return f"{format_float(re)}{sign}{format_float(abs(im))}j"


_ESCAPES = {"\\": "\\\\", "'": "\\'", '"': '\\"', "\a": "\\a", "\b": "\\b", "\f": "\\f",
            "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def quote_string(s: str) -> str:
    """A string in double quotes with C escapes (`\\n`, `\\'`, octal `\\001`), as torch quotes it."""
    parts: list[str] = []
    for c in s:
        if c in _ESCAPES:
            parts.append(_ESCAPES[c])
        elif " " <= c <= "~":
            parts.append(c)
        else:
            parts.append("".join(f"\\{b:03o}" for b in c.encode()))
    return '"' + "".join(parts) + '"'


def is_valid_identifier(name: str) -> bool:
    return bool(name) and all(c == "_" or c.isascii() and (c.isalpha() or (i and c.isdigit()))
                              for i, c in enumerate(name))


def make_valid_identifier(name: str) -> str:
    """Replace what an identifier cannot hold by `_` (and prefix one to a leading digit)."""
    head = "_" if not name or name[0].isdigit() else ""
    return head + "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in name)


def debug_name_base(name: str) -> str:
    """`x.1` -> `x`: the name without a numeric uniquing suffix."""
    base, dot, suffix = name.rpartition(".")
    return base if dot and suffix.isdigit() else name


def is_union(t: Attribute) -> bool:
    return isinstance(t, TSOptionalType | TSUnionType)


def element_inferable(t: Attribute) -> bool:
    """Whether a list / dict literal's element type follows from its members."""
    return not isinstance(t, TSOptionalType | TSUnionType | TSNumberType | TSAnyType)


class _Missing:
    """No compile-time value (the operand is not a constant)."""


MISSING = _Missing()


def constant_value(v: SSAValue) -> object:
    """The Python value of a `prim.Constant` operand (`toIValue`), MISSING for anything else."""
    if not isinstance(v, OpResult) or not isinstance(v.op, ConstantOp):
        return MISSING
    op = v.op
    if op.fn_name is not None:
        return MISSING
    return attr_value(op.value, v.type)


def attr_value(value: Attribute | None, t: Attribute) -> object:
    if value is None:
        return None
    if isinstance(value, IntegerAttr):
        n = value.value.data
        return bool(n) if value.type.width.data == 1 else n
    if isinstance(value, FloatAttr):
        return float(value.value.data)
    if isinstance(value, StringAttr):
        return value.data
    if isinstance(value, ArrayAttr):
        if isinstance(t, TSComplexType):
            re, im = (attr_value(x, TSAnyType()) for x in value.data)
            return complex(float(re), float(im))  # pyright: ignore[reportArgumentType] - a complex constant's parts are floats
        if isinstance(t, TSTupleType):
            return tuple(attr_value(x, e) for x, e in zip(value.data, t.element_types))
        elem = t.element if isinstance(t, TSListType) else TSAnyType()
        return [attr_value(x, elem) for x in value.data]
    return MISSING


def same_ivalue(a: object, b: object) -> bool:
    """IValue equality: the kinds must agree (`1` is not `1.`, `True` is not `1`)."""
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same_ivalue(x, y) for x, y in zip(a, b))
    if type(a) is not type(b):
        return False
    return a == b
