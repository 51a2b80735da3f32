"""
The operators xdsl-exir knows, read from the checked-in schema list.

`xdsl_exir/dialects/torch_schemas.txt` (generated from torch by
`scripts/gen_torch_schemas.py`) is the single source of truth: one FunctionSchema
per line with the operator's tags. Nothing here imports torch. Schemas are parsed
on first use only, so asking whether a target is known stays cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.resources import files

from xdsl_exir.utils.function_schema import FunctionSchema, parse_schema

HIGHER_ORDER_OPS: frozenset[str] = frozenset(
    {
        "higher_order.cond",
        "higher_order.while_loop",
        "higher_order.map_impl",
        "higher_order.scan",
        "higher_order.associative_scan",
        "higher_order.invoke_subgraph",
        "higher_order.auto_functionalized",
        "higher_order.auto_functionalized_v2",
        "higher_order.with_effects",
        "higher_order.wrap_with_set_grad_enabled",
        "higher_order.wrap_with_autocast",
        "higher_order.run_const_graph",
        "higher_order.executorch_call_delegate",
        "higher_order.flex_attention",
        "higher_order.out_dtype",
    }
)
"""`torch.ops.higher_order.*` targets an Export IR graph may call."""

PYTHON_TARGETS: frozenset[str] = frozenset(
    {
        "operator.getitem",
        "_operator.getitem",
        *(f"{m}.{f}" for m in ("operator", "_operator") for f in (
            "add", "sub", "mul", "floordiv", "truediv", "mod", "pow", "neg",
            "eq", "ne", "lt", "le", "gt", "ge", "and_", "or_", "not_", "abs",
        )),
        "math.ceil",
        "math.floor",
        "math.trunc",
        "math.sqrt",
        "torch.sym_not",
        "torch.sym_max",
        "torch.sym_min",
        "torch.sym_float",
        "torch.sym_int",
        "torch.sym_ite",
        "torch.sym_sqrt",
        "torch.sym_sum",
    }
)
"""Python callables FX records for SymInt arithmetic."""


@dataclass(frozen=True)
class OperatorEntry:
    """One overload: its schema text and torch's tags for it."""

    op_name: str
    schema_text: str
    tags: frozenset[str]

    @property
    def schema(self) -> FunctionSchema:
        return _parse_cached(self.schema_text)


@cache
def _parse_cached(text: str) -> FunctionSchema:
    return parse_schema(text)


def op_name_of(qualified: str, overload: str) -> str:
    """`aten::add` + `Tensor` -> `aten.add.Tensor`; no overload -> `.default`."""
    return f"{qualified.replace('::', '.')}.{overload or 'default'}"


def _split_line(line: str) -> tuple[str, frozenset[str]]:
    text, sep, tags = line.rpartition("  # ")
    if not sep:
        return line, frozenset()
    return text, frozenset(t.strip() for t in tags.split(",") if t.strip())


@cache
def all_operators() -> dict[str, OperatorEntry]:
    """Every overload of the schema list, keyed by IR name (`aten.add.Tensor`)."""
    content = files("xdsl_exir.dialects").joinpath("torch_schemas.txt").read_text()
    entries: dict[str, OperatorEntry] = {}
    for line in content.splitlines():
        if not line or line.startswith("#"):
            continue
        text, tags = _split_line(line)
        head = text.split("(", 1)[0]
        qualified, _, overload = head.partition(".")
        name = op_name_of(qualified, overload)
        entries[name] = OperatorEntry(name, text, tags)
    return entries


def lookup(target: str) -> OperatorEntry | None:
    """The registry entry of a call_function target, if it is an operator."""
    return all_operators().get(_normalize_target(target))


def _normalize_target(target: str) -> str:
    # Accept the spellings FX and serialized archives use for OpOverloads.
    for prefix in ("torch.ops.", "torch._ops."):
        if target.startswith(prefix):
            target = target[len(prefix):]
    if "::" in target:
        qualified, _, overload = target.partition(".")
        return op_name_of(qualified, overload)
    return target


def is_known_target(target: str) -> bool:
    """An ATen/prim operator, a higher-order op or an FX SymInt callable."""
    norm = _normalize_target(target)
    return norm in all_operators() or norm in HIGHER_ORDER_OPS or norm in PYTHON_TARGETS
