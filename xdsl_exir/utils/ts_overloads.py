"""
Which overload a TorchScript node calls, and what it returns.

A TorchScript node names its operator (`aten::add`) but not the overload;
TorchScript picks it from the input types when the graph is built
(`matchSchema` in `schema_matching.cpp`). The dump keeps only the kind, so
the interpreter, the script frontend and the lowering all need the same
choice again. `resolve_node` makes it from the schema list the aten dialect
is generated from, over TorchScript types:

- Candidates are the overloads of the kind; a first
  pass allows no conversions, a second allows TorchScript's implicit ones
  (an int where a float is expected, a number where a Tensor is expected
  (`NumToTensor`), a one-element Tensor where an int/float/Scalar is
  expected, a str where a Device is expected). Within a pass the most
  specific overload wins (an exact `int` beats `Scalar`, a type variable
  beats `Any`), ties going to the earlier one.
- Type variables (`t`, `tVal`) bind to the first type they meet; result
  types are the schema's returns with the bindings substituted.
- Node inputs are positional and complete (TorchScript materializes
  defaults), but callers that build nodes from source may pass keyword
  arguments and leave defaults out: `bindings` then says, per schema
  argument, which given argument fills it (or None for its default).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

from xdsl.ir import Attribute

from xdsl_exir.dialects.ts import (
    AnyType,
    BoolType,
    ClassType,
    ComplexType,
    DeviceType,
    DictType,
    FloatType,
    FutureType,
    GeneratorType,
    IntType,
    ListType,
    NoneType,
    NumberType,
    OpaqueType,
    OptionalType,
    StrType,
    TensorType,
    TupleType,
    UnionType,
    is_subtype,
    ts_type_str,
    unrefined,
)
from xdsl_exir.utils.function_schema import FunctionSchema, SchemaType, TypeKind
from xdsl_exir.utils.op_registry import all_operators

__all__ = ["ResolvedNode", "TSOverloadError", "candidates", "resolve_node", "schema_type_to_ts"]


class TSOverloadError(LookupError):
    """No overload of the node's kind accepts its input types."""


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


@cache
def candidates(kind: str) -> tuple[FunctionSchema, ...]:
    """The overloads of `aten::add` in schema-list order."""
    ns, _, name = kind.partition("::")
    prefix = f"{ns}.{name}."
    return tuple(
        e.schema for n, e in all_operators().items() if n.startswith(prefix) and n.count(".") == 2
    )


# ---------------------------------------------------------------------------
# Schema types <-> TorchScript types
# ---------------------------------------------------------------------------



def _is_type_var(st: SchemaType) -> bool:
    return st.kind is TypeKind.BASE and (st.name in ("t", "tVal", "tKey") or (st.name.startswith("t") and st.name[1:].isdigit()))


_BASE_TYPES: dict[str, Attribute] = {
    "Tensor": TensorType(),
    "int": IntType(),
    "SymInt": IntType(),
    "ScalarType": IntType(),
    "Layout": IntType(),
    "MemoryFormat": IntType(),
    "float": FloatType(),
    "SymFloat": FloatType(),
    "bool": BoolType(),
    "SymBool": BoolType(),
    "complex": ComplexType(),
    "Scalar": NumberType(),
    "number": NumberType(),
    "str": StrType(),
    "Dimname": StrType(),
    "Device": DeviceType(),
    "Generator": GeneratorType(),
    "NoneType": NoneType(),
    "Any": AnyType(),
}


def schema_type_to_ts(st: SchemaType, bindings: dict[str, Attribute] | None = None) -> Attribute:
    """A schema type as a TorchScript type, type variables substituted (unbound ones become Any)."""
    bindings = bindings or {}
    if st.kind is TypeKind.BASE:
        if _is_type_var(st):
            return bindings.get(st.name, AnyType())
        if st.name in _BASE_TYPES:
            return _BASE_TYPES[st.name]
        if st.name.startswith("__torch__."):
            return ClassType(st.name)
        return OpaqueType(st.name)
    if st.kind is TypeKind.LIST:
        return ListType(schema_type_to_ts(st.elements[0], bindings))
    if st.kind is TypeKind.OPTIONAL:
        return OptionalType(schema_type_to_ts(st.elements[0], bindings))
    if st.kind is TypeKind.TUPLE:
        return TupleType(*(schema_type_to_ts(e, bindings) for e in st.elements))
    items = [schema_type_to_ts(e, bindings) for e in st.elements]
    if st.name == "Dict" and len(items) == 2:
        return DictType(*items)
    if st.name == "Future" and len(items) == 1:
        return FutureType(items[0])
    if st.name == "Union":
        return UnionType(*items)
    return OpaqueType(st.name)


# ---------------------------------------------------------------------------
# Matching
# ---------------------------------------------------------------------------

_NO = None


@dataclass
class _State:
    bindings: dict[str, Attribute] = field(default_factory=dict[str, Attribute])
    cost: int = 0


def _match(st: SchemaType, t: Attribute, conversions: bool, state: _State, top: bool) -> str | None | bool:
    """
    Whether a value of type `t` fits `st`: False if not, True if as is, or
    the name of the implicit conversion it needs (only at the top level).
    """
    if isinstance(t, AnyType):
        return True
    if st.kind is TypeKind.OPTIONAL:
        if isinstance(t, NoneType):
            return True
        if isinstance(t, OptionalType):
            return _match(st.elements[0], t.element, False, state, False) is True
        return _match(st.elements[0], t, conversions, state, top)
    if st.kind is TypeKind.BASE:
        if _is_type_var(st):
            bound = state.bindings.get(st.name)
            if bound is None:
                state.bindings[st.name] = t
                return True
            if is_subtype(t, bound):
                return True
            if is_subtype(bound, t) or unrefined(bound) == unrefined(t):
                state.bindings[st.name] = unrefined(t) if unrefined(bound) == unrefined(t) else t
                return True
            return False
        name = st.name
        if name == "Any":
            state.cost += 1
            return True
        want = _BASE_TYPES.get(name)
        if want is None:
            return isinstance(t, ClassType | OpaqueType) and t.qualname.data == name
        if is_subtype(t, want):
            # An exact kind beats a wider one (`add.int` over `add(Scalar, Scalar)`).
            if type(t) is not type(want):
                state.cost += 1
            return True
        if name in ("int", "SymInt", "ScalarType", "Layout", "MemoryFormat") and isinstance(t, BoolType) and not top:
            return False
        if not (conversions and top):
            return False
        # TorchScript's implicit conversions.
        if isinstance(want, FloatType) and isinstance(t, IntType):
            state.cost += 1
            return "float"
        if isinstance(want, TensorType) and isinstance(t, IntType | FloatType | BoolType | NumberType):
            state.cost += 1
            return "Tensor"
        if isinstance(t, TensorType) and isinstance(want, IntType | FloatType | NumberType):
            state.cost += 2
            return {"int": "int", "SymInt": "int", "float": "float"}.get(name, "Scalar")
        if isinstance(want, DeviceType) and isinstance(t, StrType):
            state.cost += 1
            return "Device"
        return False
    if st.kind is TypeKind.LIST:
        elem = st.elements[0]
        if isinstance(t, ListType):
            return _match(elem, t.element, False, state, False) is True or (
                # `Tensor[]` also takes `Float(2)[]`; `int[]` takes `int[]` only.
                elem.kind is TypeKind.BASE and elem.name == "Tensor" and isinstance(t.element, TensorType)
            )
        if isinstance(t, TupleType) and conversions and top:
            ok = all(_match(elem, e, False, state, False) is True for e in t.element_types)
            if ok:
                state.cost += 1
                return "list"
            return False
        if st.size is not None and top and elem.kind is TypeKind.BASE and elem.name in ("int", "SymInt"):
            # `int[2] stride` accepts a single int, repeated.
            return "repeat" if isinstance(t, IntType) else False
        return False
    if st.kind is TypeKind.TUPLE:
        return isinstance(t, TupleType) and len(t.element_types) == len(st.elements) and all(
            _match(e, x, False, state, False) is True for e, x in zip(st.elements, t.element_types)
        )
    # Generic: Dict, Future, Union, ...
    if st.name == "Dict" and isinstance(t, DictType):
        return all(_match(e, x, False, state, False) is True for e, x in zip(st.elements, t.element_types))
    if st.name == "Future" and isinstance(t, FutureType):
        return _match(st.elements[0], t.element, False, state, False) is True
    if st.name == "Union":
        return any(_match(e, t, False, state, False) is True for e in st.elements)
    return False


def _try(
    schema: FunctionSchema,
    arg_types: Sequence[Attribute],
    kwarg_names: Sequence[str],
    conversions: bool,
    keyword_only: bool = False,
) -> tuple[ResolvedNode, int] | None:
    n_pos = len(arg_types) - len(kwarg_names)
    args = schema.arguments
    state = _State()
    filled: list[int | None] = [None] * len(args)
    conv: list[str | None] = [None] * len(arg_types)
    if schema.is_vararg:
        # `aten::format(str self, ...)`: the fixed arguments, then anything.
        if n_pos < len(args) or kwarg_names:
            return None
        for i, a in enumerate(args):
            m = _match(a.type, arg_types[i], conversions, state, True)
            if m is False:
                return None
            filled[i] = i
        bindings = tuple(filled)
    else:
        positional = [i for i, a in enumerate(args) if not (keyword_only and a.kwarg_only)]
        if n_pos > len(positional):
            return None
        for i in range(n_pos):
            filled[i] = i
        names = {a.name: i for i, a in enumerate(args)}
        for k, kw in enumerate(kwarg_names):
            idx = names.get(kw)
            if idx is None and kw == "input":
                idx = names.get("self")
            if idx is None or filled[idx] is not None:
                return None
            filled[idx] = n_pos + k
        for i, a in enumerate(args):
            if filled[i] is None and not a.has_default:
                return None
        for i, a in enumerate(args):
            g = filled[i]
            if g is None:
                continue
            m = _match(a.type, arg_types[g], conversions, state, True)
            if m is False:
                return None
            if isinstance(m, str):
                conv[g] = m
        bindings = tuple(filled)
    results = tuple(schema_type_to_ts(r.type, state.bindings) for r in schema.returns)
    if schema.is_varret:
        results = ()
    name = f"{schema.namespace}::{schema.name}" + (f".{schema.overload_name}" if schema.overload_name else "")
    return ResolvedNode(name, schema, results, bindings, tuple(conv)), state.cost


def resolve_node(
    kind: str, arg_types: Sequence[Attribute], kwarg_names: Sequence[str] = (), *, keyword_only: bool = False
) -> ResolvedNode:
    """
    The overload of `kind` (`aten::add`) that inputs of `arg_types` call.
    With `kwarg_names`, the last `len(kwarg_names)` types are keyword arguments.
    With `keyword_only` (a call written in source, not a node's complete
    inputs), positional arguments cannot fill keyword-only parameters.
    """
    cands = candidates(kind)
    if not cands:
        raise TSOverloadError(f"unknown operator {kind}")
    for conversions in (False, True):
        best: tuple[int, ResolvedNode] | None = None
        for schema in cands:
            r = _try(schema, arg_types, kwarg_names, conversions, keyword_only)
            if r is not None and (best is None or r[1] < best[0]):
                best = (r[1], r[0])
        if best is not None:
            return best[1]
    n_pos = len(arg_types) - len(kwarg_names)
    shown = ", ".join(
        [ts_type_str(t) for t in arg_types[:n_pos]]
        + [f"{k}: {ts_type_str(t)}" for k, t in zip(kwarg_names, arg_types[n_pos:])]
    )
    listed = "; ".join(str(s) for s in cands[:6]) + ("; ..." if len(cands) > 6 else "")
    raise TSOverloadError(f"no overload of {kind} accepts ({shown}); candidates: {listed}")
