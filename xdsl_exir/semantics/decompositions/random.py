"""Decompositions of random operators: `rrelu` (its evaluation form)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.ir import Operation, SSAValue

from xdsl_exir.semantics.decompositions.core import (
    Decline,
    Emitter,
    rule,
)
from xdsl_exir.semantics.inference import Bound


@rule("aten.rrelu.default")
def _rrelu(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue] | None:
    """In evaluation `rrelu` is `leaky_relu` with the mean slope; training draws slopes (left alone)."""
    if b.get("training"):
        return None
    lower, upper = b.get("lower", 0.125), b.get("upper", 1.0 / 3.0)
    if isinstance(lower, SSAValue) or isinstance(upper, SSAValue):
        raise Decline()
    return [e.v("aten.leaky_relu.default", b["self"], (float(cast(float, lower)) + float(cast(float, upper))) / 2)]
