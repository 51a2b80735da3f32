"""Decompositions of the special functions torch decomposes: the `special_` aliases of the gamma
family and `erfinv`, the multivariate log-gamma function and `special_xlog1py` (torch/_refs)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.ir import Operation, SSAValue

from xdsl_exir.semantics.decompositions.core import (
    Emitter,
    as_float,
    as_tensor_like,
    cast_to_dtype,
    one_minus,
    op_name,
    rule,
    scalar_tensor,
    tensor_of,
    zero_like,
)
from xdsl_exir.semantics.inference import Bound, result_type
from xdsl_exir.utils.erfc_fit import ERFCX_HIGH, ERFCX_LOW, ERFCX_P, ERFCX_Q

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


@rule("aten.special_ndtr.default")
def _special_ndtr(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Φ(x) = (1 + erf(x / √2)) / 2."""
    z = e.v("aten.erf.default", e.v("aten.mul.Tensor", b["self"], math.sqrt(0.5)))
    return [e.v("aten.mul.Tensor", e.v("aten.add.Tensor", z, 1), 0.5)]


def _horner(e: Emitter, coeffs: Sequence[float], t: SSAValue) -> SSAValue:
    """The polynomial of `coeffs` (increasing powers) at `t`."""
    acc = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", t, coeffs[-1]), coeffs[-2])
    for c in coeffs[-3::-1]:
        acc = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", acc, t), c)
    return acc


@rule("aten.special_log_ndtr.default")
def _special_log_ndtr(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """
    log Φ(x) in three pieces, as torch's kernel (which calls erfcx below x = -1): with
    z = -x/√2, `log1p(-erfc(-z)/2)` for z <= 1 (-0.0 for large x, as torch);
    `log(erfcx(z)/2) - z^2` for 1 <= z <= 6, erfcx a rational fit; beyond 6, the same
    with erfcx from its asymptotic series (five terms: error under 1e-7 at z = 6, where
    log Φ is -36). `1 - erf` would give erfc = 0 and log Φ = -inf from x = -8 on.
    """
    x = as_float(e, b.value("self"))
    z = e.v("aten.mul.Tensor", x, -math.sqrt(0.5))
    erfc_neg = one_minus(e, e.v("aten.erf.default", e.v("aten.neg.default", z)))
    upper = e.v("aten.log1p.default", e.v("aten.mul.Tensor", erfc_neg, -0.5))
    zc = e.v("aten.clamp.default", z, ERFCX_LOW, ERFCX_HIGH)
    fit = e.v("aten.div.Tensor", _horner(e, ERFCX_P, zc), _horner(e, ERFCX_Q, zc))
    # erfcx(z) √π z = 1 - 1/(2z²) + 3/(2z²)² - ...: Horner in u = 1/(2z²)
    u = e.v("aten.reciprocal.default", e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", z, z), 2))
    series = _horner(e, (1.0, -1.0, 3.0, -15.0, 105.0, -945.0), u)
    tail = e.v("aten.div.Tensor", series, e.v("aten.mul.Tensor", z, math.sqrt(math.pi)))
    erfcx = e.v("aten.where.self", e.v("aten.gt.Scalar", z, ERFCX_HIGH), tail, fit)
    z2 = e.v("aten.mul.Tensor", z, z)
    lower = e.v("aten.sub.Tensor", e.v("aten.log.default", e.v("aten.mul.Tensor", erfcx, 0.5)), z2)
    return [e.v("aten.where.self", e.v("aten.le.Scalar", z, ERFCX_LOW), upper, lower)]


@rule("aten.special_entr.default")
def _special_entr(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """-x log x for x > 0, 0 at 0, -inf below (NaN stays NaN)."""
    x = as_float(e, b.value("self"))
    t = tensor_of(x)
    body = e.v("aten.neg.default", e.v("aten.mul.Tensor", x, e.v("aten.log.default", x)))
    at_zero = e.v("aten.where.self", e.v("aten.eq.Scalar", x, 0), scalar_tensor(e, 0.0, t), body)
    return [e.v("aten.where.self", e.v("aten.lt.Scalar", x, 0), scalar_tensor(e, -math.inf, t), at_zero)]
