"""
Overload resolution: which ATen overload a Python-level call means.

FX records calls the way Python made them (`x.view(n, -1)`, `torch.max(x, 1)`,
`x.to("cpu")`), naming an operator but not its overload. `resolve` picks the
overload the way TorchScript's schema matching does (`tryMatchSchema` in
`torch/csrc/jit/frontend/schema_matching.cpp`), from the schemas alone:

1. Candidates are every `aten::<name>` overload of the schema list, in list
   order. Two passes are made over them; the first overload that accepts the
   call wins. (Torch tries overloads in registration order, which the sorted
   schema list does not keep; where two accept the same call, PyTorch keeps
   them equivalent: `std.dim` and `std.correction` for `x.std(1)`.)
2. The first pass accepts each argument only for its own kind: a tensor for
   `Tensor`, an int (not a bool) for `int`/`SymInt`, a float for `float`, any
   number for `Scalar`, a dtype for `ScalarType`, a string for `str` and
   `Dimname`, `None` for an optional, a list of matching elements for `T[]`.
3. The second pass adds the implicit conversions (the cheapest overload wins,
   ties going to the earlier one; taking a tensor's element, which can fail,
   costs more than the other conversions): a tensor for an `int`,
   `float` or `Scalar` (TorchScript's `IntImplicit` / `FloatImplicit` /
   `ScalarImplicit`: the tensor's one element, taken at run time), an int
   for a `float`, a string for a `Device`, and a Python number for a
   `Tensor` (eager PyTorch's wrapped numbers, which the kernels accept as
   Python scalars, keeping their low type-promotion priority).
4. A fixed-size list `int[N]` accepts a lone int (repeated N times); the
   last positional argument, when it is an unsized list, may be given as
   several positional values (`x.view(2, -1)`, `x.permute(0, 2, 1)`).
   Keyword arguments bind by name (`input` stands for `self`, as in the
   Python bindings); every argument without a default must be given.

Values may be known (numpy arrays, Python scalars, lists, `DType`, ...) or
known only by their IR type, as a `Typed` leaf: the interpreter resolves once
at compile time from operand types and fills in the values at run time
(`materialize`). Conversions of `Typed` values are left as `Implicit` nodes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

import numpy as np
from xdsl.ir import Attribute

from xdsl_exir.dialects.exir import (
    BoolType,
    DeviceAttr,
    DeviceType,
    DType,
    FloatType,
    IntType,
    Layout,
    LayoutType,
    ListType,
    MemoryFormat,
    MemoryFormatType,
    NoneType,
    OptionalType,
    ScalarType,
    ScalarTypeType,
    StrType,
    SymBoolType,
    SymFloatType,
    SymIntType,
    TensorType,
    TupleType,
)
from xdsl_exir.utils.function_schema import FunctionSchema, SchemaType, TypeKind
from xdsl_exir.utils.op_registry import OperatorEntry, all_operators

__all__ = [
    "Implicit",
    "OverloadError",
    "Typed",
    "materialize",
    "overloads_of",
    "resolve",
]


@dataclass(frozen=True)
class Typed:
    """A value known only by its IR type until run time; `key` says which one."""

    type: Attribute
    key: object = None

    def __repr__(self) -> str:
        return f"Typed({self.type}, key={self.key!r})"


@dataclass(frozen=True)
class Implicit:
    """An implicit conversion (`int`, `float`, `Scalar`, `Device`) of `value`, applied at run time."""

    kind: str
    value: object


class OverloadError(LookupError):
    """No overload of the operator accepts the call."""


@cache
def overloads_of(name: str) -> tuple[OperatorEntry, ...]:
    """The `aten::<name>` overloads, in schema-list order (`add` -> add.Scalar, add.Tensor, ...)."""
    prefix = f"aten.{name}."
    return tuple(e for n, e in all_operators().items() if n.startswith(prefix) and n.count(".") == 2)


# ---------------------------------------------------------------------------
# Kinds of values
# ---------------------------------------------------------------------------

_NO = cast(Any, object())
"""`_match` result: the value does not fit."""

_TYPE_VARS = re.compile(r"^(t\d*|tVal|Any)$")

_TENSOR, _INT, _FLOAT, _BOOL, _COMPLEX, _NUMBER = "Tensor", "int", "float", "bool", "complex", "number"
_STR, _NONE, _DTYPE, _LAYOUT, _MEMFMT, _DEVICE, _LIST, _OTHER = (
    "str", "None", "ScalarType", "Layout", "MemoryFormat", "Device", "list", "other",
)


def _type_kind(t: Attribute) -> str:
    if isinstance(t, TensorType):
        return _TENSOR
    if isinstance(t, IntType | SymIntType):
        return _INT
    if isinstance(t, FloatType | SymFloatType):
        return _FLOAT
    if isinstance(t, BoolType | SymBoolType):
        return _BOOL
    if isinstance(t, ScalarType):
        return _NUMBER
    if isinstance(t, StrType):
        return _STR
    if isinstance(t, NoneType):
        return _NONE
    if isinstance(t, ScalarTypeType):
        return _DTYPE
    if isinstance(t, LayoutType):
        return _LAYOUT
    if isinstance(t, MemoryFormatType):
        return _MEMFMT
    if isinstance(t, DeviceType):
        return _DEVICE
    if isinstance(t, ListType | TupleType):
        return _LIST
    return _OTHER


def _kind(value: object) -> str:
    """The kind of a value (or of a `Typed` leaf) for schema matching."""
    if isinstance(value, Typed):
        return _type_kind(value.type)
    if isinstance(value, np.ndarray):
        return _TENSOR
    if value is None:
        return _NONE
    if isinstance(value, bool | np.bool_):
        return _BOOL
    if isinstance(value, int | np.integer):
        return _INT
    if isinstance(value, float | np.floating):
        return _FLOAT
    if isinstance(value, complex | np.complexfloating):
        return _COMPLEX
    if isinstance(value, DType):
        return _DTYPE
    if isinstance(value, Layout):
        return _LAYOUT
    if isinstance(value, MemoryFormat):
        return _MEMFMT
    if isinstance(value, DeviceAttr):
        return _DEVICE
    if isinstance(value, str):
        return _STR
    if isinstance(value, list | tuple):
        return _LIST
    return _OTHER


def _items(value: object) -> list[object] | None:
    """The elements of a list value, `Typed` elements for a typed tuple; None if unknown."""
    if isinstance(value, list | tuple):
        return list(cast(Sequence[object], value))
    if isinstance(value, Typed) and isinstance(value.type, TupleType):
        return [Typed(t, (value.key, i)) for i, t in enumerate(value.type.types.data)]
    return None


def _is_none(value: object) -> bool:
    return value is None or (isinstance(value, Typed) and isinstance(value.type, NoneType))


# ---------------------------------------------------------------------------
# Matching one argument
# ---------------------------------------------------------------------------


class _Cost:
    """
    The implicit conversions a match used; the second pass prefers the cheapest.
    Taking a tensor's one element can fail at run time, so it costs more than
    the conversions that cannot (wrapping a number, int to float, str to Device).
    """

    __slots__ = ("n",)

    def __init__(self) -> None:
        self.n = 0

    def convert(self, value: object, kind: str | None = None) -> object:
        self.n += 1
        return value if kind is None else Implicit(kind, value)

    def narrow(self, value: object, kind: str) -> object:
        self.n += 2
        return Implicit(kind, value)


def _match_base(name: str, value: object, conversions: bool, cost: _Cost) -> object:
    kind = _kind(value)
    if name == "Tensor":
        if kind == _TENSOR:
            return value
        if conversions and kind in (_INT, _FLOAT, _BOOL, _COMPLEX, _NUMBER):
            return cost.convert(value)  # a wrapped number: kernels take Python scalars
        return _NO
    if name in ("int", "SymInt", "DeviceIndex"):
        if kind == _INT:
            return value
        if conversions and kind == _TENSOR:
            return cost.narrow(value, "int")
        return _NO
    if name in ("float", "SymFloat"):
        if kind == _FLOAT:
            return value
        if conversions and kind in (_INT, _NUMBER):
            return cost.convert(float(cast(int, value))) if not isinstance(value, Typed) else cost.convert(value, "float")
        if conversions and kind == _TENSOR:
            return cost.narrow(value, "float")
        return _NO
    if name in ("bool", "SymBool"):
        return value if kind == _BOOL else _NO
    if name == "Scalar":
        if kind in (_INT, _FLOAT, _BOOL, _COMPLEX, _NUMBER):
            return value
        if conversions and kind == _TENSOR:
            return cost.narrow(value, "Scalar")
        return _NO
    if name == "complex":
        if kind == _COMPLEX:
            return value
        if conversions and kind in (_INT, _FLOAT):
            return cost.convert(value)
        return _NO
    if name == "ScalarType":
        return value if kind == _DTYPE else _NO
    if name == "Layout":
        return value if kind == _LAYOUT else _NO
    if name == "MemoryFormat":
        return value if kind == _MEMFMT else _NO
    if name == "Device":
        if kind == _DEVICE:
            return value
        if conversions and kind == _STR:
            return cost.convert(value, "Device")
        return _NO
    if name in ("str", "c10::string_view", "Dimname"):
        return value if kind == _STR else _NO
    if _TYPE_VARS.match(name):
        return value if kind != _NONE else _NO
    return _NO


def _match_list(st: SchemaType, value: object, conversions: bool, cost: _Cost) -> object:
    elem = st.elements[0]
    if isinstance(value, Typed) and isinstance(value.type, ListType):
        # a list known only by type: its elements must fit without conversion
        probe = Typed(value.type.element_type)
        return value if _match(elem, probe, False, _Cost()) is not _NO else _NO
    items = _items(value)
    if items is None:
        if st.size is not None and elem.is_base("int", "SymInt", "bool"):
            one = _match(elem, value, conversions, cost)
            return _NO if one is _NO else [one] * st.size
        return _NO
    out: list[object] = []
    for item in items:
        matched = _match(elem, item, conversions, cost)
        if matched is _NO:
            return _NO
        out.append(matched)
    if isinstance(value, Typed) and out == items:
        return value  # a typed tuple that fits as it is
    return out


def _match(st: SchemaType, value: object, conversions: bool, cost: _Cost) -> object:
    """`value` as the argument of schema type `st` (converted if needed), or `_NO`."""
    if st.kind is TypeKind.OPTIONAL:
        if _is_none(value):
            return None
        return _match(st.elements[0], value, conversions, cost)
    if _is_none(value):
        return _NO
    if isinstance(value, Typed) and isinstance(value.type, OptionalType):
        # an optional value: it fits when its non-None form fits
        inner = Typed(value.type.element_type, value.key)
        return value if _match(st, inner, conversions, cost) is not _NO else _NO
    if st.kind is TypeKind.LIST:
        return _match_list(st, value, conversions, cost)
    if st.kind is TypeKind.BASE:
        return _match_base(st.name, value, conversions, cost)
    return _NO


# ---------------------------------------------------------------------------
# Matching a call
# ---------------------------------------------------------------------------


def _packs_varargs(schema: FunctionSchema, index: int, value: object) -> bool:
    """TorchScript's `varargsCanBeUsedAsList`: `x.view(2, -1)` for `view(Tensor self, SymInt[] size)`."""
    args = schema.arguments
    arg = args[index]
    is_last = index + 1 == len(args) or args[index + 1].kwarg_only
    st = arg.type.unwrap_optional()
    if not is_last or st.kind is not TypeKind.LIST or st.size is not None:
        return False
    if _TYPE_VARS.match(st.elements[0].name or ""):
        return False
    return _kind(value) != _LIST or (isinstance(value, Typed) and not isinstance(value.type, ListType | TupleType))


def match_schema(
    schema: FunctionSchema,
    args: Sequence[object],
    kwargs: Mapping[str, object],
    conversions: bool,
    cost: _Cost | None = None,
) -> dict[str, object] | None:
    """The arguments bound by name (only those given), or None when the schema does not accept the call."""
    cost = cost or _Cost()
    positional = [a for a in schema.arguments if not a.kwarg_only]
    bound: dict[str, object] = {}
    i = 0
    while i < len(args):
        if i >= len(positional):
            return None
        formal = positional[i]
        value = args[i]
        if i == len(positional) - 1 and len(args) > i and _packs_varargs(schema, schema.arguments.index(formal), value):
            value = list(args[i:])
            i = len(args)
        else:
            i += 1
        matched = _match(formal.type, value, conversions, cost)
        if matched is _NO:
            return None
        bound[formal.name] = matched
    names = {a.name for a in schema.arguments}
    for key, value in kwargs.items():
        name = key
        if name not in names and name == "input" and "self" in names:
            name = "self"
        if name not in names or name in bound:
            return None
        matched = _match(schema.argument(name).type, value, conversions, cost)
        if matched is _NO:
            return None
        bound[name] = matched
    for a in schema.arguments:
        if a.name not in bound and not a.has_default:
            return None
    return bound


def resolve(
    name: str,
    args: Sequence[object],
    kwargs: Mapping[str, object] | None = None,
    *,
    accept: Callable[[str], bool] | None = None,
) -> tuple[str, dict[str, object]]:
    """
    The overload of `aten::<name>` that a call with `args`/`kwargs` binds to,
    as its IR name (`aten.add.Tensor`), and the given arguments bound by
    schema name (defaults are not filled in; varargs are packed; implicit
    conversions applied, or left as `Implicit` for `Typed` values).

    `accept` restricts the candidates (the interpreter passes "has a kernel").
    Raises `OverloadError` when no overload accepts the call.
    """
    kwargs = kwargs or {}
    candidates = [e for e in overloads_of(name) if accept is None or accept(e.op_name)]
    if not candidates:
        raise OverloadError(f"no operator aten::{name}" + (" that can run" if overloads_of(name) else ""))
    for entry in candidates:
        bound = match_schema(entry.schema, args, kwargs, False)
        if bound is not None:
            return entry.op_name, bound
    best: tuple[int, str, dict[str, object]] | None = None
    for entry in candidates:
        cost = _Cost()
        bound = match_schema(entry.schema, args, kwargs, True, cost)
        if bound is not None and (best is None or cost.n < best[0]):
            best = (cost.n, entry.op_name, bound)
    if best is not None:
        return best[1], best[2]
    shown = ", ".join([_describe(a) for a in args] + [f"{k}={_describe(v)}" for k, v in kwargs.items()])
    raise OverloadError(
        f"no overload of aten::{name} accepts ({shown}); candidates: "
        + "; ".join(str(e.schema) for e in candidates[:8])
        + ("; ..." if len(candidates) > 8 else "")
    )


def _describe(value: object) -> str:
    kind = _kind(value)
    if kind == _LIST:
        items = _items(value)
        return "[" + ", ".join(_describe(v) for v in items) + "]" if items is not None else "list"
    if isinstance(value, Typed) or kind in (_TENSOR, _OTHER):
        return kind
    return repr(value)


# ---------------------------------------------------------------------------
# Filling in run-time values
# ---------------------------------------------------------------------------


def apply_implicit(kind: str, value: object) -> object:
    """Run an implicit conversion on a run-time value."""
    if kind == "Device":
        return DeviceAttr(cast(str, value)) if isinstance(value, str) else value
    if isinstance(value, np.ndarray):
        if value.size != 1:
            raise ValueError(
                f"a tensor of shape {list(value.shape)} cannot be used as a {kind}: it must have one element"
            )
        value = value.reshape(()).item()
    if kind == "int":
        return int(cast(int, value))
    if kind == "float":
        return float(cast(float, value))
    return value


def materialize(tree: object, fill: Callable[[Typed], object]) -> object:
    """`tree` with every `Typed` leaf replaced by `fill(leaf)` and conversions applied."""
    if isinstance(tree, Typed):
        return fill(tree)
    if isinstance(tree, Implicit):
        return apply_implicit(tree.kind, materialize(tree.value, fill))
    if isinstance(tree, list):
        return [materialize(v, fill) for v in cast(list[object], tree)]
    if isinstance(tree, dict):
        return {k: materialize(v, fill) for k, v in cast(dict[str, object], tree).items()}
    return tree


def needs_filling(tree: object) -> bool:
    """Whether `tree` has `Typed` leaves or conversions left for run time."""
    if isinstance(tree, Typed | Implicit):
        return True
    if isinstance(tree, list):
        return any(needs_filling(v) for v in cast(list[object], tree))
    if isinstance(tree, dict):
        return any(needs_filling(v) for v in cast(dict[str, object], tree).values())
    return False
