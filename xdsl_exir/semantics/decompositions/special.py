"""Decompositions of the special functions torch decomposes: the `special_` aliases of the gamma
family and `erfinv`, the multivariate log-gamma function and `special_xlog1py` (torch/_refs)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.ir import Operation, SSAValue

from xdsl_exir.semantics.decompositions.core import (
    Emitter,
    as_tensor_like,
    cast_to_dtype,
    op_name,
    rule,
    scalar_tensor,
    tensor_of,
    zero_like,
)
from xdsl_exir.semantics.inference import Bound, result_type

__all__: list[str] = []

_ALIASES = {
    "aten.special_psi.default": "aten.digamma.default",
    "aten.special_digamma.default": "aten.digamma.default",
    "aten.special_gammaln.default": "aten.lgamma.default",
    "aten.special_erfinv.default": "aten.erfinv.default",
    "aten.special_erfc.default": "aten.erfc.default",
    "aten.special_polygamma.default": "aten.polygamma.default",
}
"""The `special_` names of pointwise functions (torch's aliases)."""


@rule(*_ALIASES)
def _special_alias(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """The aliased function, on the input cast to its floating dtype first (core IR promotes
    explicitly: an integer input of a float function is a `_to_copy`)."""
    x = b.value("self")
    x = cast_to_dtype(e, x, tensor_of(x).element_dtype.to_floating())
    target = _ALIASES[op_name(op)]
    if target == "aten.polygamma.default":
        return [e.v(target, b.int("n"), x)]
    return [e.v(target, x)]


@rule("aten.mvlgamma.default", "aten.special_multigammaln.default")
def _mvlgamma(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_refs `mvlgamma`: sum over j < p of lgamma(x - j/2), plus p(p-1)/4 log(pi) (torch 2.13
    no longer refuses elements below (p-1)/2: they give lgamma's poles and NaNs)."""
    x = b.value("self")
    x = cast_to_dtype(e, x, tensor_of(x).element_dtype.to_floating())
    p = b.int("p")
    total: SSAValue | None = None
    for j in range(p):
        shifted = e.v("aten.sub.Tensor", x, j / 2) if j else x
        term = e.v("aten.lgamma.default", shifted)
        total = term if total is None else e.v("aten.add.Tensor", total, term)
    assert total is not None
    return [e.v("aten.add.Tensor", total, p * (p - 1) / 4 * math.log(math.pi))]


@rule("aten.special_xlog1py.default", "aten.special_xlog1py.self_scalar", "aten.special_xlog1py.other_scalar")
def _xlog1py(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_refs `xlog1py`: 0 where self is 0, NaN where other is NaN, else self * log1p(other)."""
    x, y = b["self"], b["other"]
    like = tensor_of(x) if isinstance(x, SSAValue) else tensor_of(y)
    dtype = result_type([x, y]).to_floating()  # core IR promotes explicitly
    xs, ys = (cast_to_dtype(e, as_tensor_like(e, v, like), dtype) for v in (x, y))
    prod = e.v("aten.mul.Tensor", xs, e.v("aten.log1p.default", ys))
    t = tensor_of(prod)
    out = e.v("aten.where.self", e.v("aten.eq.Scalar", xs, 0), zero_like(e, t), prod)
    return [e.v("aten.where.self", e.v("aten.isnan.default", ys), scalar_tensor(e, float("nan"), t), out)]
