"""
The string (and small integer) enums ATen operators take, in one table.

torch checks these values where it reads them and raises on any other (a
`div` with `rounding_mode="bogus"`, a `gelu` with `approximate="bogus"`); a
kernel or lowering that tests only for the values it treats specially would
instead compute with the default silently. So the op verifiers refuse a value
outside its enum, the aten ops' (`enum_problem`) and `exir.call_function`'s
(`call_enum_problem`), which covers every path that reads IR at once: the
verifier pass, `exir-run` (which verifies what it reads), and the lowering.
A TorchScript graph passes its enums as values computed at run time, so the
kernels check what they are given too (`require_enum`).
The values are those of PyTorch's native function implementations
(`aten/src/ATen/native/`), by operator overload packet and argument name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from xdsl.ir import SSAValue

from xdsl_exir.utils.function_schema import FunctionSchema
from xdsl_exir.utils.schema_binding import SchemaBindError, bind

_ROUNDING = (None, "trunc", "floor")
_REDUCTION = (0, 1, 2)  # none, mean, sum: `at::Reduction`

ENUMS: dict[tuple[str, str], tuple[Any, ...]] = {
    **{(op, "rounding_mode"): _ROUNDING for op in ("div", "div_", "divide", "divide_")},
    **{(op, "approximate"): ("none", "tanh") for op in ("gelu", "gelu_", "gelu_backward")},
    **{(op, "interpolation"): ("linear", "lower", "higher", "midpoint", "nearest") for op in ("quantile", "nanquantile")},
    ("searchsorted", "side"): (None, "left", "right"),
    **{(op, "reduce"): ("sum", "prod", "mean", "amax", "amin") for op in ("scatter_reduce", "scatter_reduce_")},
    **{(op, "reduce"): ("prod", "mean", "amax", "amin") for op in ("index_reduce", "index_reduce_")},
    **{(op, "reduce"): ("add", "multiply") for op in ("scatter", "scatter_")},
    ("pad", "mode"): ("constant", "reflect", "replicate", "circular"),
    ("meshgrid", "indexing"): ("ij", "xy"),
    **{(op, "interpolation_mode"): (0, 1, 2) for op in ("grid_sampler", "grid_sampler_2d", "grid_sampler_3d")},
    **{(op, "padding_mode"): (0, 1, 2) for op in ("grid_sampler", "grid_sampler_2d", "grid_sampler_3d")},
}
"""(overload packet, argument) -> the values torch accepts."""


def enum_problem(op_name: str, argument: str, value: Any) -> str | None:
    """
    Why `value` is not a value of the enum `argument` of the operator
    `op_name` (`aten.div.Tensor_mode`) takes, or None when it is one (or the
    argument is no enum). An integer `reduction` of a loss is one everywhere.
    """
    packet = op_name.split(".")[1] if op_name.count(".") >= 1 else op_name
    allowed = ENUMS.get((packet, argument))
    if allowed is None and argument == "reduction" and isinstance(value, int) and not isinstance(value, bool):
        allowed = _REDUCTION
    if allowed is None or any(value == a and type(value) is type(a) for a in allowed):
        return None
    spelled = ", ".join("None" if a is None else repr(a) for a in allowed)
    return f"{argument}={value!r} is not one of {spelled}, as torch requires"


def enum_arguments(op_name: str, names: Sequence[str]) -> list[str]:
    """Which of the arguments `names` of `op_name` are enums (a loss's `reduction` is one everywhere)."""
    packet = op_name.split(".")[1] if op_name.count(".") >= 1 else op_name
    return [n for n in names if (packet, n) in ENUMS or n == "reduction"]


def call_enum_problem(
    op_name: str, schema: FunctionSchema, args: Sequence[Any], kwargs: Mapping[str, Any]
) -> str | None:
    """
    Why a call of `op_name` (FX args and kwargs, as an `exir.call_function`
    holds them) gives an enum argument a value torch refuses, or None. Values
    computed at run time (SSA values) are the kernels' to check.
    """
    try:
        bound, _ = bind(schema, args, kwargs, defaults=False, missing="ignore")
    except SchemaBindError:
        return None  # arguments the schema does not take: the kernel or lowering says so
    for name, value in bound.items():
        if isinstance(value, SSAValue):
            continue
        why = enum_problem(op_name, name, value)
        if why is not None:
            return f"argument '{name}' of {op_name}: {why}"
    return None


def require_enum(op_name: str, argument: str, value: Any) -> None:
    """
    For a kernel reading an enum argument: a ValueError (located by the
    interpreter) where torch would raise, instead of computing the default.
    """
    if isinstance(value, str):
        value = str(value)  # numpy's str_ is one
    elif not isinstance(value, bool) and hasattr(value, "__index__"):
        value = value.__index__()  # numpy's integers are ints here
    why = enum_problem(op_name, argument, value)
    if why is not None:
        raise ValueError(f"{op_name}: {why}")
