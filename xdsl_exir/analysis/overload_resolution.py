"""
Overload resolution: which overload of an operator a call means.

A call names an operator but not its overload: FX records calls the way Python
made them (`x.view(n, -1)`, `torch.max(x, 1)`, `x.to("cpu")`), and a
TorchScript node keeps only its kind (`aten::add`). TorchScript picks the
overload when it builds the graph (`tryMatchSchema` in
`torch/csrc/jit/frontend/schema_matching.cpp`); the interpreters, the script
frontend and the lowering all need the same choice again, made here from the
schema list alone so that no per-operator table can drift from torch.

One procedure serves both kinds of call:

1. Candidates are the operator's overloads, in schema-list order.
2. The call's arguments bind to each candidate's formals by the one schema
   binder: positional values in order, keywords by name (`input` stands for
   `self`, as in the Python bindings); every argument without a default must
   be given. A trailing list parameter may be given as several positional
   values (`x.view(2, -1)`; TorchScript's `varargsCanBeUsedAsList`).
3. Two passes are made: the first accepts each argument only for its own kind,
   the second adds TorchScript's implicit conversions, a tensor's one element
   for an `int`, `float` or `Scalar` (`IntImplicit`, `FloatImplicit`,
   `ScalarImplicit`), an int for a `float`, a number for a `Tensor`
   (`NumToTensor`, eager's wrapped numbers), a string for a `Device`. A
   conversion that can fail at run time (taking a tensor's element) costs more
   than one that cannot.
4. Torch tries overloads in registration order, which the sorted schema list
   does not keep; within a pass the most specific overload wins instead, ties
   going to the earlier one. `resolve_node` measures specificity on types (an
   exact `int` beats `Scalar`, a type variable beats `Any`: `add.int` over
   `add(Scalar, Scalar)`); `resolve` counts only conversions, so a
   Python-level call takes the first overload that accepts it without
   conversions. Both are checked against torch's own choices on the fixtures
   (`tests/test_ts_dialect.py`, `tests/test_fx_dialect.py`).

`resolve` matches *values*, known (numpy arrays, Python scalars, lists,
`DType`, ...) or known only by their Export IR type as a `Typed` leaf: the
interpreter resolves once at compile time from operand types and fills in the
values at run time (`materialize`); conversions of `Typed` values are left as
`Implicit` nodes. A fixed-size `int[N]` accepts a lone int, repeated.
`resolve_node` matches TorchScript *types* on TorchScript's lattice: type
variables (`t`, `tVal`) bind to the first type they meet, and the result types
are the schema's returns with the bindings substituted.

It is an analysis of the dialects' IR (it reads TorchScript and Export IR
types), so it sits above the dialects, where the alias analysis, the passes,
the interpreters and the frontends all reach it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, TypeVar, cast

import numpy as np
from xdsl.ir import Attribute

from xdsl_exir.dialects import exir, ts
from xdsl_exir.utils.function_schema import Argument, FunctionSchema, SchemaType, TypeKind
from xdsl_exir.utils.op_registry import all_operators, lookup, overloads
from xdsl_exir.utils.schema_binding import SchemaBindError, bind

__all__ = [
    "Implicit",
    "OverloadError",
    "ResolvedNode",
    "Typed",
    "candidates",
    "materialize",
    "needs_filling",
    "resolve",
    "resolve_node",
    "schema_type_to_ts",
    "varargs_list_argument",
]


class OverloadError(LookupError):
    """No overload of the operator accepts the call."""


# ---------------------------------------------------------------------------
# The shared procedure
# ---------------------------------------------------------------------------


def candidates(qualified: str) -> tuple[FunctionSchema, ...]:
    """The overloads of `aten::add`, in schema-list order (a registered custom operator's too)."""
    found = _torch_candidates(qualified)
    if found:
        return found
    # Custom operators are registered at run time (op_registry.register_kernel): not cached.
    return tuple(e.schema for n in overloads(qualified) if (e := lookup(n)) is not None)


@cache
def _torch_candidates(qualified: str) -> tuple[FunctionSchema, ...]:
    table = all_operators()
    return tuple(table[n].schema for n in overloads(qualified) if n in table)


def is_type_var(name: str) -> bool:
    """A schema type variable: `t`, `t1`, `tVal`, `tKey`."""
    return name in ("t", "tVal", "tKey") or (name.startswith("t") and name[1:].isdigit())


def varargs_list_argument(schema: FunctionSchema) -> Argument | None:
    """The last positional argument when it is an unsized list of a non-generic element, which
    several positional values may fill (TorchScript's `varargsCanBeUsedAsList`: `x.view(2, -1)`)."""
    positional = [a for a in schema.arguments if not a.kwarg_only]
    if not positional:
        return None
    st = positional[-1].type.unwrap_optional()
    if st.kind is not TypeKind.LIST or st.size is not None or is_type_var(st.elements[0].name):
        return None
    return positional[-1]


_PYTHON_KEYWORDS = {"input": "self"}
"""Keyword spellings of the Python bindings."""


def _given(
    schema: FunctionSchema, args: Sequence[object], kwargs: Mapping[str, object], positional_kwarg_only: bool
) -> dict[str, object] | None:
    """The given arguments by schema name, or None when the call does not bind."""
    try:
        values, extra = bind(
            schema, args, kwargs, defaults=False, positional_kwarg_only=positional_kwarg_only, aliases=_PYTHON_KEYWORDS
        )
    except SchemaBindError:
        return None
    return None if extra else values


_R = TypeVar("_R")


def _select(
    cands: Sequence[FunctionSchema], attempt: Callable[[FunctionSchema, bool], tuple[_R, int] | None]
) -> _R | None:
    """Two passes, without then with implicit conversions; in each the cheapest match, ties to the earlier."""
    for conversions in (False, True):
        best: tuple[int, _R] | None = None
        for schema in cands:
            matched = attempt(schema, conversions)
            if matched is not None and (best is None or matched[1] < best[0]):
                best = (matched[1], matched[0])
        if best is not None:
            return best[1]
    return None


# ---------------------------------------------------------------------------
# Python-level calls: values
# ---------------------------------------------------------------------------


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


_NO = cast(Any, object())
"""`_match_value` result: the value does not fit."""

_TENSOR, _INT, _FLOAT, _BOOL, _COMPLEX, _NUMBER = "Tensor", "int", "float", "bool", "complex", "number"
_STR, _NONE, _DTYPE, _LAYOUT, _MEMFMT, _DEVICE, _LIST, _OTHER = (
    "str", "None", "ScalarType", "Layout", "MemoryFormat", "Device", "list", "other",
)


def _type_kind(t: Attribute) -> str:
    if isinstance(t, exir.TensorType):
        return _TENSOR
    if isinstance(t, exir.IntType | exir.SymIntType):
        return _INT
    if isinstance(t, exir.FloatType | exir.SymFloatType):
        return _FLOAT
    if isinstance(t, exir.BoolType | exir.SymBoolType):
        return _BOOL
    if isinstance(t, exir.ScalarType):
        return _NUMBER
    if isinstance(t, exir.StrType):
        return _STR
    if isinstance(t, exir.NoneType):
        return _NONE
    if isinstance(t, exir.ScalarTypeType):
        return _DTYPE
    if isinstance(t, exir.LayoutType):
        return _LAYOUT
    if isinstance(t, exir.MemoryFormatType):
        return _MEMFMT
    if isinstance(t, exir.DeviceType):
        return _DEVICE
    if isinstance(t, exir.ListType | exir.TupleType):
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
    if isinstance(value, exir.DType):
        return _DTYPE
    if isinstance(value, exir.Layout):
        return _LAYOUT
    if isinstance(value, exir.MemoryFormat):
        return _MEMFMT
    if isinstance(value, exir.DeviceAttr):
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
    if isinstance(value, Typed) and isinstance(value.type, exir.TupleType):
        return [Typed(t, (value.key, i)) for i, t in enumerate(value.type.types.data)]
    return None


def _is_none(value: object) -> bool:
    return value is None or (isinstance(value, Typed) and isinstance(value.type, exir.NoneType))


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


def _value_base(name: str, value: object, conversions: bool, cost: _Cost) -> object:
    """`value` as an argument of the base type `name`: as it is, by an implicit conversion, or `_NO`."""
    kind = _kind(value)
    exact = _EXACT_KINDS.get(name)
    if exact is not None:
        return value if kind == exact else _NO
    convert = _CONVERTING.get(name)
    if convert is not None:
        return convert(value, kind, conversions, cost)
    if is_type_var(name) or name == "Any":
        return value if kind != _NONE else _NO
    return _NO


_EXACT_KINDS: dict[str, str] = {
    "bool": _BOOL,
    "SymBool": _BOOL,
    "ScalarType": _DTYPE,
    "Layout": _LAYOUT,
    "MemoryFormat": _MEMFMT,
    "str": _STR,
    "c10::string_view": _STR,
    "Dimname": _STR,
}
"""Base types that take one kind of value, with no implicit conversion."""


def _as_tensor(value: object, kind: str, conversions: bool, cost: _Cost) -> object:
    if kind == _TENSOR:
        return value
    if conversions and kind in (_INT, _FLOAT, _BOOL, _COMPLEX, _NUMBER):
        return cost.convert(value)  # a wrapped number: kernels take Python scalars
    return _NO


def _as_int(value: object, kind: str, conversions: bool, cost: _Cost) -> object:
    if kind == _INT:
        return value
    if conversions and kind == _TENSOR:
        return cost.narrow(value, "int")
    return _NO


def _as_float(value: object, kind: str, conversions: bool, cost: _Cost) -> object:
    if kind == _FLOAT:
        return value
    if conversions and kind in (_INT, _NUMBER):
        return cost.convert(float(cast(int, value))) if not isinstance(value, Typed) else cost.convert(value, "float")
    if conversions and kind == _TENSOR:
        return cost.narrow(value, "float")
    return _NO


def _as_scalar(value: object, kind: str, conversions: bool, cost: _Cost) -> object:
    if kind in (_INT, _FLOAT, _BOOL, _COMPLEX, _NUMBER):
        return value
    if conversions and kind == _TENSOR:
        return cost.narrow(value, "Scalar")
    return _NO


def _as_complex(value: object, kind: str, conversions: bool, cost: _Cost) -> object:
    if kind == _COMPLEX:
        return value
    if conversions and kind in (_INT, _FLOAT):
        return cost.convert(value)
    return _NO


def _as_device(value: object, kind: str, conversions: bool, cost: _Cost) -> object:
    if kind == _DEVICE:
        return value
    if conversions and kind == _STR:
        return cost.convert(value, "Device")
    return _NO


_CONVERTING: dict[str, Callable[[object, str, bool, _Cost], object]] = {
    "Tensor": _as_tensor,
    **dict.fromkeys(("int", "SymInt", "DeviceIndex"), _as_int),
    **dict.fromkeys(("float", "SymFloat"), _as_float),
    "Scalar": _as_scalar,
    "complex": _as_complex,
    "Device": _as_device,
}
"""Base types that also take other kinds of values by an implicit conversion (a wrapped
number, int to float, a one-element tensor's item, str to Device), when conversions are on."""


def _value_list(st: SchemaType, value: object, conversions: bool, cost: _Cost) -> object:
    elem = st.elements[0]
    if isinstance(value, Typed) and isinstance(value.type, exir.ListType):
        # a list known only by type: its elements must fit without conversion
        probe = Typed(value.type.element_type)
        return value if _match_value(elem, probe, False, _Cost()) is not _NO else _NO
    items = _items(value)
    if items is None:
        if st.size is not None and elem.is_base("int", "SymInt", "bool"):
            one = _match_value(elem, value, conversions, cost)
            return _NO if one is _NO else [one] * st.size
        return _NO
    out: list[object] = []
    for item in items:
        matched = _match_value(elem, item, conversions, cost)
        if matched is _NO:
            return _NO
        out.append(matched)
    if isinstance(value, Typed) and out == items:
        return value  # a typed tuple that fits as it is
    return out


def _match_value(st: SchemaType, value: object, conversions: bool, cost: _Cost) -> object:
    """`value` as the argument of schema type `st` (converted if needed), or `_NO`."""
    if st.kind is TypeKind.OPTIONAL:
        if _is_none(value):
            return None
        return _match_value(st.elements[0], value, conversions, cost)
    if _is_none(value):
        return _NO
    if isinstance(value, Typed) and isinstance(value.type, exir.OptionalType):
        # an optional value: it fits when its non-None form fits
        inner = Typed(value.type.element_type, value.key)
        return value if _match_value(st, inner, conversions, cost) is not _NO else _NO
    if st.kind is TypeKind.LIST:
        return _value_list(st, value, conversions, cost)
    if st.kind is TypeKind.BASE:
        return _value_base(st.name, value, conversions, cost)
    return _NO


def _packed(schema: FunctionSchema, args: Sequence[object]) -> Sequence[object]:
    """`args` with the values from the last positional parameter on packed into one list, when that
    parameter is a list and the value there is not one (`x.view(2, -1)`, `x.permute(0, 2, 1)`)."""
    formal = varargs_list_argument(schema)
    if formal is None:
        return args
    k = sum(1 for a in schema.arguments if not a.kwarg_only) - 1
    if len(args) <= k:
        return args
    if _kind(args[k]) == _LIST:
        return args
    return [*args[:k], list(args[k:])]


def match_schema(
    schema: FunctionSchema,
    args: Sequence[object],
    kwargs: Mapping[str, object],
    conversions: bool,
    cost: _Cost | None = None,
) -> dict[str, object] | None:
    """The arguments bound by name (only those given), or None when the schema does not accept the call."""
    cost = cost or _Cost()
    given = _given(schema, _packed(schema, args), kwargs, positional_kwarg_only=False)
    if given is None:
        return None
    bound: dict[str, object] = {}
    for name, value in given.items():
        matched = _match_value(schema.argument(name).type, value, conversions, cost)
        if matched is _NO:
            return None
        bound[name] = matched
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
    every = candidates(f"aten::{name}")
    cands = [s for s in every if accept is None or accept(s.op_name)]
    if not cands:
        raise OverloadError(f"no operator aten::{name}" + (" that can run" if every else ""))

    def attempt(schema: FunctionSchema, conversions: bool) -> tuple[tuple[str, dict[str, object]], int] | None:
        cost = _Cost()
        bound = match_schema(schema, args, kwargs, conversions, cost)
        return None if bound is None else ((schema.op_name, bound), cost.n)

    chosen = _select(cands, attempt)
    if chosen is not None:
        return chosen
    shown = ", ".join([_describe(a) for a in args] + [f"{k}={_describe(v)}" for k, v in kwargs.items()])
    raise OverloadError(
        f"no overload of aten::{name} accepts ({shown}); candidates: "
        + "; ".join(str(s) for s in cands[:8])
        + ("; ..." if len(cands) > 8 else "")
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
        return exir.DeviceAttr(cast(str, value)) if isinstance(value, str) else value
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


# ---------------------------------------------------------------------------
# TorchScript nodes: types
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ResolvedNode:
    """The overload a node calls."""

    name: str
    """`aten::add.Tensor` (no overload name: `aten::relu`)."""
    schema: FunctionSchema
    result_types: tuple[Attribute, ...]
    bindings: tuple[int | None, ...] = field(default=())
    """Per schema argument: the index of the given argument filling it, None for the default."""
    conversions: tuple[str | None, ...] = field(default=())
    """Per given argument: the implicit conversion it needs (`"int"`, `"float"`, `"Scalar"`, `"Tensor"`, `"Device"`), or None."""


_BASE_TYPES: dict[str, Attribute] = {
    "Tensor": ts.TSTensorType(),
    "int": ts.TSIntType(),
    "SymInt": ts.TSIntType(),
    "ScalarType": ts.TSIntType(),
    "Layout": ts.TSIntType(),
    "MemoryFormat": ts.TSIntType(),
    "float": ts.TSFloatType(),
    "SymFloat": ts.TSFloatType(),
    "bool": ts.TSBoolType(),
    "SymBool": ts.TSBoolType(),
    "complex": ts.TSComplexType(),
    "Scalar": ts.TSNumberType(),
    "number": ts.TSNumberType(),
    "str": ts.TSStrType(),
    "Dimname": ts.TSStrType(),
    "Device": ts.TSDeviceType(),
    "Generator": ts.TSGeneratorType(),
    "NoneType": ts.TSNoneType(),
    "Any": ts.TSAnyType(),
}


def schema_type_to_ts(st: SchemaType, bindings: dict[str, Attribute] | None = None) -> Attribute:
    """A schema type as a TorchScript type, type variables substituted (unbound ones become Any)."""
    bindings = bindings or {}
    if st.kind is TypeKind.BASE:
        if is_type_var(st.name):
            return bindings.get(st.name, ts.TSAnyType())
        if st.name in _BASE_TYPES:
            return _BASE_TYPES[st.name]
        if st.name.startswith("__torch__."):
            return ts.TSClassType(st.name)
        return ts.TSOpaqueType(st.name)
    if st.kind is TypeKind.LIST:
        return ts.TSListType(schema_type_to_ts(st.elements[0], bindings))
    if st.kind is TypeKind.OPTIONAL:
        return ts.TSOptionalType(schema_type_to_ts(st.elements[0], bindings))
    if st.kind is TypeKind.TUPLE:
        return ts.TSTupleType(*(schema_type_to_ts(e, bindings) for e in st.elements))
    items = [schema_type_to_ts(e, bindings) for e in st.elements]
    if st.name == "Dict" and len(items) == 2:
        return ts.TSDictType(*items)
    if st.name == "Future" and len(items) == 1:
        return ts.TSFutureType(items[0])
    if st.name == "Union":
        return ts.TSUnionType(*items)
    return ts.TSOpaqueType(st.name)


@dataclass
class _State:
    bindings: dict[str, Attribute] = field(default_factory=dict[str, Attribute])
    cost: int = 0


def _match_type(st: SchemaType, t: Attribute, conversions: bool, state: _State, top: bool) -> str | None | bool:
    """
    Whether a value of type `t` fits `st`: False if not, True if as is, or
    the name of the implicit conversion it needs (only at the top level).
    """
    if isinstance(t, ts.TSAnyType):
        return True
    if st.kind is TypeKind.OPTIONAL:
        if isinstance(t, ts.TSNoneType):
            return True
        if isinstance(t, ts.TSOptionalType):
            return _match_type(st.elements[0], t.element, False, state, False) is True
        return _match_type(st.elements[0], t, conversions, state, top)
    if st.kind is TypeKind.BASE:
        if is_type_var(st.name):
            return _bind_type_var(st.name, t, state)
        return _match_base(st.name, t, conversions, state, top)
    if st.kind is TypeKind.LIST:
        return _match_list(st, t, conversions, state, top)
    if st.kind is TypeKind.TUPLE:
        return isinstance(t, ts.TSTupleType) and len(t.element_types) == len(st.elements) and all(
            _match_type(e, x, False, state, False) is True for e, x in zip(st.elements, t.element_types)
        )
    return _match_generic(st, t, state)


def _bind_type_var(name: str, t: Attribute, state: _State) -> bool:
    """A type variable (`t`, `t1`): bound by its first use, widened by a later one it is a subtype of."""
    bound = state.bindings.get(name)
    if bound is None:
        state.bindings[name] = t
        return True
    if ts.is_subtype(t, bound):
        return True
    if ts.is_subtype(bound, t) or ts.unrefined(bound) == ts.unrefined(t):
        state.bindings[name] = ts.unrefined(t) if ts.unrefined(bound) == ts.unrefined(t) else t
        return True
    return False


def _match_base(name: str, t: Attribute, conversions: bool, state: _State, top: bool) -> str | bool:
    """A base type (`int`, `Tensor`, `Scalar`, a class): as is, or by an implicit conversion at the top level."""
    if name == "Any":
        state.cost += 1
        return True
    want = _BASE_TYPES.get(name)
    if want is None:
        return isinstance(t, ts.TSClassType | ts.TSOpaqueType) and t.qualname.data == name
    if ts.is_subtype(t, want):
        # An exact kind beats a wider one (`add.int` over `add(Scalar, Scalar)`).
        if type(t) is not type(want):
            state.cost += 1
        return True
    if name in ("int", "SymInt", "ScalarType", "Layout", "MemoryFormat") and isinstance(t, ts.TSBoolType) and not top:
        return False
    if not (conversions and top):
        return False
    return _implicit_conversion(name, want, t, state)


def _implicit_conversion(name: str, want: Attribute, t: Attribute, state: _State) -> str | bool:
    """TorchScript's implicit conversion of a `t` argument to the base type `want` (named `name`), or False."""
    if isinstance(want, ts.TSFloatType) and isinstance(t, ts.TSIntType):
        state.cost += 1
        return "float"
    if isinstance(want, ts.TSTensorType) and isinstance(t, ts.TSIntType | ts.TSFloatType | ts.TSBoolType | ts.TSNumberType):
        state.cost += 1
        return "Tensor"
    if isinstance(t, ts.TSTensorType) and isinstance(want, ts.TSIntType | ts.TSFloatType | ts.TSNumberType):
        state.cost += 2
        return {"int": "int", "SymInt": "int", "float": "float"}.get(name, "Scalar")
    if isinstance(want, ts.TSDeviceType) and isinstance(t, ts.TSStrType):
        state.cost += 1
        return "Device"
    return False


def _match_list(st: SchemaType, t: Attribute, conversions: bool, state: _State, top: bool) -> str | bool:
    """A list type (`Tensor[]`, `int[2]`): a list, a tuple converted at the top level, or an int repeated."""
    elem = st.elements[0]
    if isinstance(t, ts.TSListType):
        return _match_type(elem, t.element, False, state, False) is True or (
            # `Tensor[]` also takes `Float(2)[]`; `int[]` takes `int[]` only.
            elem.kind is TypeKind.BASE and elem.name == "Tensor" and isinstance(t.element, ts.TSTensorType)
        )
    if isinstance(t, ts.TSTupleType) and conversions and top:
        ok = all(_match_type(elem, e, False, state, False) is True for e in t.element_types)
        if ok:
            state.cost += 1
            return "list"
        return False
    if st.size is not None and top and elem.kind is TypeKind.BASE and elem.name in ("int", "SymInt"):
        # `int[2] stride` accepts a single int, repeated.
        return "repeat" if isinstance(t, ts.TSIntType) else False
    return False


def _match_generic(st: SchemaType, t: Attribute, state: _State) -> bool:
    """The generic types: Dict, Future, Union (others match nothing)."""
    if st.name == "Dict" and isinstance(t, ts.TSDictType):
        return all(_match_type(e, x, False, state, False) is True for e, x in zip(st.elements, t.element_types))
    if st.name == "Future" and isinstance(t, ts.TSFutureType):
        return _match_type(st.elements[0], t.element, False, state, False) is True
    if st.name == "Union":
        return any(_match_type(e, t, False, state, False) is True for e in st.elements)
    return False


_INCOMPLETE = 100
"""The cost of each argument a node leaves to its default (more than any conversion costs)."""


def _try(
    schema: FunctionSchema,
    arg_types: Sequence[Attribute],
    kwarg_names: Sequence[str],
    conversions: bool,
    keyword_only: bool,
) -> tuple[ResolvedNode, int] | None:
    n_pos = len(arg_types) - len(kwarg_names)
    if schema.is_vararg:
        # `aten::format(str self, ...)`: the fixed arguments positionally, then anything
        if kwarg_names or n_pos < len(schema.arguments):
            return None
        given = {a.name: i for i, a in enumerate(schema.arguments)}
    else:
        # A node's inputs are positional and complete, keyword-only arguments included;
        # a call written in source (`keyword_only`) cannot fill those positionally.
        bound = _given(
            schema, range(n_pos), {k: n_pos + i for i, k in enumerate(kwarg_names)}, positional_kwarg_only=not keyword_only
        )
        if bound is None:
            return None
        given = cast(dict[str, int], bound)
    state = _State()
    if not keyword_only and not schema.is_vararg:
        # A node holds every argument of its schema (torch's Node::matches compares the
        # counts): a schema it fills only with the help of defaults is a worse match.
        # `aten::addmm(a, b, c, 3, 2)` is addmm(beta=3, alpha=2), not addmm.dtype with
        # out_dtype=3 (int32) and beta=2.
        state.cost += _INCOMPLETE * (len(schema.arguments) - len(given))
    conv: list[str | None] = [None] * len(arg_types)
    bindings = tuple(given.get(a.name) for a in schema.arguments)
    for a, g in zip(schema.arguments, bindings):  # in schema order: type variables bind left to right
        if g is None:
            continue
        m = _match_type(a.type, arg_types[g], conversions, state, True)
        if m is False:
            return None
        if isinstance(m, str):
            conv[g] = m
    results = () if schema.is_varret else tuple(schema_type_to_ts(r.type, state.bindings) for r in schema.returns)
    name = f"{schema.namespace}::{schema.name}" + (f".{schema.overload_name}" if schema.overload_name else "")
    return ResolvedNode(name, schema, results, bindings, tuple(conv)), state.cost


def resolve_node(
    kind: str,
    arg_types: Sequence[Attribute],
    kwarg_names: Sequence[str] = (),
    *,
    keyword_only: bool = False,
) -> ResolvedNode:
    """
    The overload of `kind` (`aten::add`) that inputs of `arg_types` call.
    With `kwarg_names`, the last `len(kwarg_names)` types are keyword arguments.
    With `keyword_only` (a call written in source, not a node's complete
    inputs), positional arguments cannot fill keyword-only parameters.
    """
    cands = candidates(kind)
    if not cands:
        raise OverloadError(f"unknown operator {kind}")
    chosen = _select(cands, lambda s, conversions: _try(s, arg_types, kwarg_names, conversions, keyword_only))
    if chosen is not None:
        return chosen
    n_pos = len(arg_types) - len(kwarg_names)
    shown = ", ".join(
        [ts.ts_type_str(t) for t in arg_types[:n_pos]]
        + [f"{k}: {ts.ts_type_str(t)}" for k, t in zip(kwarg_names, arg_types[n_pos:])]
    )
    listed = "; ".join(str(s) for s in cands[:6]) + ("; ..." if len(cands) > 6 else "")
    raise OverloadError(f"no overload of {kind} accepts ({shown}); candidates: {listed}")
