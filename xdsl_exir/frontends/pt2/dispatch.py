"""
How a serialized call target is imported: an aten op of the dialect, a SymInt operation, one
of the special forms (sym_size, getitem, assert_scalar, the higher-order ops) or a generic
`exir.call_function`, decided once per target with the schema's argument names.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl_exir.dialects.aten import AtenOp, aten_op_class
from xdsl_exir.dialects.exir import SYM_ARITH_OPS, SymArithOp
from xdsl_exir.utils.op_registry import lookup


@dataclass(frozen=True)
class Target:
    """How nodes of one serialized target are imported (computed once per target)."""

    kind: str
    ir_name: str
    aten: type[AtenOp] | None = None
    sym: type[SymArithOp] | None = None
    schema_args: tuple[tuple[str, bool, bool], ...] | None = None
    """(name, kwarg_only, has_default) per schema argument, if a schema is known."""
    schema_index: dict[str, tuple[int, bool, bool]] | None = None
    """name -> (position, kwarg_only, has_default) of the schema arguments."""
    n_returns: int = -1


_SPECIAL: dict[str, str] = {
    "aten.sym_size.int": "sym_size",
    "aten.sym_stride.int": "sym_stride",
    "aten.sym_numel.default": "sym_numel",
    "aten._assert_scalar.default": "assert_scalar",
    "higher_order.cond": "cond",
    "higher_order.while_loop": "while_loop",
    "higher_order.map_impl": "map",
    "higher_order.with_effects": "hop",
    "operator.getitem": "getitem",
}


def target_ir_name(target: str) -> str:
    if target.startswith("torch.ops."):
        return target[len("torch.ops.") :]
    if target.startswith("_operator."):
        return "operator." + target[len("_operator.") :]
    return target


def classify(target: str, special_forms: bool = True) -> Target:
    name = target_ir_name(target)
    special = _SPECIAL.get(name) if special_forms else None
    if special is not None:
        return Target(special, name)
    if name.startswith("higher_order."):
        return Target("hop", name)
    sym = SYM_ARITH_OPS.get(name)
    if sym is not None:
        return Target("sym", name, sym=sym)
    entry = lookup(name) if target.startswith("torch.ops.") else None
    schema_args = None
    n_returns = -1
    if entry is not None:
        schema = entry.schema
        schema_args = tuple((a.name, a.kwarg_only, a.has_default) for a in schema.arguments)
        n_returns = -1 if schema.is_varret else len(schema.returns)
    aten = aten_op_class(name) if target.startswith("torch.ops.aten.") else None
    index = None
    if schema_args is not None:
        index = {a[0]: (i, a[1], a[2]) for i, a in enumerate(schema_args)}
    return Target(
        "aten" if aten else "call",
        name,
        aten=aten,
        schema_args=schema_args,
        schema_index=index,
        n_returns=n_returns,
    )
