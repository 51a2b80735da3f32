"""
Rules that lower core ATen ops to upstream MLIR dialects (linalg on tensors).

One rule per overload, keyed by the full overload name (`aten.add.Tensor`), in
modules by family: `pointwise`, `linear`, `conv_pool`, `reductions`, `views`,
`creation`. A rule receives the lowering state (`LoweringState`, in
`state.py`), the op and its bound arguments, and returns the lowered values of
the op's results. The pass `convert-exir-to-linalg` drives them; the family
modules are imported on first use so that importing the pass stays cheap.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from xdsl.ir import SSAValue

if TYPE_CHECKING:
    from xdsl_exir.dialects.aten import AtenOp
    from xdsl_exir.dialects.aten_inference import Bound
    from xdsl_exir.transforms.linalg_lowering.state import LoweringState

LoweringRule = Callable[["LoweringState", "AtenOp", "Bound"], Sequence[SSAValue]]

_RULES: dict[str, LoweringRule] = {}
_FAMILIES = ("pointwise", "linear", "conv_pool", "reductions", "views", "creation")
_loaded = False


def lowers(*names: str) -> Callable[[LoweringRule], LoweringRule]:
    """Register a rule for the given full overload names (`aten.add.Tensor`)."""

    def register(rule: LoweringRule) -> LoweringRule:
        for name in names:
            if name in _RULES:
                raise ValueError(f"two linalg lowering rules for {name}")
            _RULES[name] = rule
        return rule

    return register


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for family in _FAMILIES:
            importlib.import_module(f"{__name__}.{family}")


def rule_for(name: str) -> LoweringRule | None:
    """The rule lowering overload `name`, if there is one."""
    _load()
    return _RULES.get(name)


def lowered_overloads() -> frozenset[str]:
    """Every overload that has a rule (for the documentation table)."""
    _load()
    return frozenset(_RULES)
