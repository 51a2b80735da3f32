"""Decompositions of linear-algebra operators into products and core LAPACK ones: `matrix_power`, `inverse`, `linalg_cholesky`."""

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


@rule("aten.matrix_power.default", "aten.linalg_matrix_power.default")
def _matrix_power(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """A positive power by repeated squaring with `matmul` (0 and negative powers are left alone)."""
    x = cast(SSAValue, b["self"] if "self" in b else b["A"])
    n = b.int("n")
    if n < 1:
        raise Decline()
    result: SSAValue | None = None
    base = x
    while n:
        if n & 1:
            result = base if result is None else e.v("aten.matmul.default", result, base)
        n >>= 1
        if n:
            base = e.v("aten.matmul.default", base, base)
    assert result is not None
    return [result if result is not x else e.v("aten.clone.default", x)]


@rule("aten.linalg_inv.default", "aten.inverse.default")
def _inverse(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    inv = e.call("aten.linalg_inv_ex.default", b["A"] if "A" in b else b["self"])
    return [e.item(inv, 0)]


@rule("aten.linalg_cholesky.default")
def _cholesky(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.item(e.call("aten.linalg_cholesky_ex.default", b["self"], upper=bool(b.get("upper", False))), 0)]
