"""
Binding a call's arguments to a FunctionSchema: which value fills which formal.

One binder serves every caller (type inference, the numpy kernels, the Export
IR verifier, the overload resolvers, the Python exporter); what they differ in
is a parameter:

- `defaults`: fill in the schema's defaults (inference and kernels), or bind
  only what the call gives (the verifier, overload matching, printers).
- `missing`: what an argument without a default that the call leaves out
  means: an error (`"error"`, torch's own binding), `None` for an optional or
  `out=` argument (`"none"`, the kernels' convention: they allocate `out=`
  results themselves), or nothing (`"ignore"`, for callers that only read
  what is there).
- `positional_kwarg_only`: positional values fill keyword-only arguments too.
  A TorchScript node lists every input of its schema in order, keyword-only
  ones included ("JIT Technical Overview": nodes carry their complete inputs).
- `aliases`: keyword spellings that stand for an argument, such as the Python
  bindings' `input=` for `self`.

Extra positional values of a vararg schema (`aten::format(str self, ...)`) are
returned apart. Errors are `SchemaBindError`, a TypeError, as Python's own
binding of a call raises. Nothing here imports a dialect or torch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from xdsl_exir.utils.function_schema import Argument, FunctionSchema

__all__ = ["BoundCall", "Missing", "SchemaBindError", "bind"]

Missing = Literal["error", "none", "ignore"]
"""What an omitted argument without a default means (see the module docstring)."""


class SchemaBindError(TypeError):
    """The call's arguments do not bind to the schema."""


class BoundCall(NamedTuple):
    """Schema argument name -> value, and the extra positional values of a vararg schema."""

    values: dict[str, object]
    extra: list[object]


@dataclass(frozen=True)
class _Plan:
    """What binding needs from one schema, computed once."""

    positional: tuple[str, ...]
    every: tuple[str, ...]
    names: frozenset[str]
    defaults: tuple[tuple[str, object, Argument | None], ...]
    """(name, default, the argument when its default is a list that must be copied per call)."""
    required: tuple[str, ...]
    none_if_missing: frozenset[str]


_PLANS: dict[int, tuple[FunctionSchema, _Plan]] = {}


def _plan(schema: FunctionSchema) -> _Plan:
    # Keyed by identity (hashing a schema walks all of it); the entry keeps the
    # schema alive, so its id cannot be reused by another one.
    hit = _PLANS.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    formal = schema.arguments
    defaults: list[tuple[str, object, Argument | None]] = []
    for a in formal:
        if a.has_default:
            value = a.default_value
            defaults.append((a.name, value, a if isinstance(value, list) else None))
    plan = _Plan(
        positional=tuple(a.name for a in formal if not a.kwarg_only),
        every=tuple(a.name for a in formal),
        names=frozenset(a.name for a in formal),
        defaults=tuple(defaults),
        required=tuple(a.name for a in formal if not a.has_default),
        none_if_missing=frozenset(a.name for a in formal if a.type.is_optional or a.is_out),
    )
    _PLANS[id(schema)] = (schema, plan)
    return plan


def bind(
    schema: FunctionSchema,
    args: Sequence[object],
    kwargs: Mapping[str, object],
    *,
    defaults: bool = True,
    missing: Missing = "error",
    positional_kwarg_only: bool = False,
    aliases: Mapping[str, str] | None = None,
) -> BoundCall:
    """Bind `args` and `kwargs` to `schema`: positional values in order, then keywords by name."""
    plan = _plan(schema)
    formal = plan.every if positional_kwarg_only else plan.positional
    extra: list[object] = []
    if len(args) > len(formal):
        if not schema.is_vararg:
            raise SchemaBindError(
                f"{schema.op_name} takes {len(formal)} positional arguments, got {len(args)}"
            )
        extra = list(args[len(formal) :])
    values: dict[str, object] = dict(zip(formal, args))
    names = plan.names
    for key, value in kwargs.items():
        if key not in names:
            alias = aliases.get(key) if aliases else None
            if alias is None or alias not in names:
                raise SchemaBindError(f"{schema.op_name} has no argument '{key}'")
            key = alias
        if key in values:
            raise SchemaBindError(f"argument '{key}' of {schema.op_name} given twice")
        values[key] = value
    if defaults:
        for name, default, fresh in plan.defaults:
            if name not in values:
                # A list default is copied: a caller may mutate what it is given.
                values[name] = default if fresh is None else fresh.default_value
    if missing != "ignore" and len(values) != len(names):
        for name in plan.required:
            if name not in values:
                if missing == "none" and name in plan.none_if_missing:
                    values[name] = None
                else:
                    raise SchemaBindError(f"{schema.op_name} is missing argument '{name}'")
    return BoundCall(values, extra)
