"""
Special functions without scipy: the gamma family (`lgamma`, `digamma`, `polygamma`,
Hurwitz `special_zeta`), the inverse error function (`erfinv`, `special_ndtri`),
`special_erfcx`, the exponentially scaled modified Bessel functions (`special_i0e`,
`special_i1`, `special_i1e`), `special_spherical_bessel_j0`, `frexp`, and torch's orthogonal
polynomials (`special_{chebyshev,shifted_chebyshev}_polynomial_{t,u,v,w}`,
`special_hermite_polynomial_{h,he}`, `special_laguerre_polynomial_l`,
`special_legendre_polynomial_p`).

Each is computed in float64 and rounded once to the result dtype (torch's float32 kernels
compute in float32: the results agree to an ulp or two), and follows the definitions of
torch's CPU kernels (ATen's `Math.h`) at the edges: `digamma(+-0)` is `-+inf`, poles give
inf or NaN as there, `zeta(x, q)` is inf at `x == 1` and at non-positive integer `q`. The
polynomials run torch's recurrences, with its shortcuts: `n` is truncated to an integer
(NaN and infinite `n` give 0), `|x| == 1` has its closed form, and Chebyshev polynomials of
high degree inside (-1, 1) are trigonometric. The formulas are the textbook ones (DLMF:
the reflection formula and asymptotic series of psi, 5.15 and 25.11 for the Hurwitz zeta
function by Euler-Maclaurin summation, 10.25 and 10.40 for the modified Bessel functions).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from xdsl_exir.semantics.kernels.dtypes import floating_dtype, result_type
from xdsl_exir.semantics.kernels.registry import register

__all__: list[str] = []

_F64 = np.dtype(np.float64)
_EPS = 1.1102230246251565e-16  # half an ulp of 1.0 in float64: where a series stops
_MAX_TERMS = 100_000
"""Recurrences and sums longer than this are refused (torch would loop as long)."""


def _float_result(*operands: object) -> np.dtype[Any]:
    """The result dtype of a floating special function: torch's promotion, integers to float32."""
    return floating_dtype(result_type(*operands))


def _work_dtype(dt: np.dtype[Any]) -> np.dtype[Any]:
    """float64 stays, float32 and the narrower floats compute in float32."""
    return dt if dt == _F64 else np.dtype(np.float32)


def _unary(fn: Callable[[np.ndarray], np.ndarray], native: bool = False) -> Callable[[np.ndarray], np.ndarray]:
    """A function as a kernel: the input promoted, computed in float64 (or, `native`, in the
    dtype torch's kernel computes in, where its rounding decides the result), the result
    rounded to its dtype."""

    def kernel(self: np.ndarray) -> np.ndarray:
        dt = _float_result(self)
        with np.errstate(all="ignore"):
            out = fn(np.asarray(self, dtype=_work_dtype(dt) if native else _F64))
            return np.asarray(out).astype(dt)

    return kernel


# ---------------------------------------------------------------------------
# the gamma family
# ---------------------------------------------------------------------------


def _lgamma_scalar(x: float) -> float:
    if math.isnan(x):
        return x
    if math.isinf(x) or (x <= 0 and x == math.floor(x)):
        return math.inf  # the poles, and lgamma(+-inf) = inf
    return math.lgamma(x)


_lgamma_vec = np.frompyfunc(_lgamma_scalar, 1, 1)


def lgamma64(x: np.ndarray) -> np.ndarray:
    """log|Gamma(x)| in float64: Python's `math.lgamma`, except on [1/2, 5/2], around the zeros
    at 1 and 2, where the Taylor series of lgamma(1 + z) keeps the relative accuracy that
    `math.lgamma` loses there."""
    x = np.asarray(x, dtype=_F64)
    if x.size == 0:
        return x.copy()
    out = np.asarray(_lgamma_vec(x), dtype=_F64)
    near = (x >= 0.5) & (x <= 2.5)
    if near.any():
        v = x[near]
        high = v > 1.5
        z = np.where(high, v - 2, v - 1)
        out[near] = _lgamma1p(z) + np.where(high, np.log1p(z), 0.0)
    return out


def _lgamma1p(z: np.ndarray) -> np.ndarray:
    """lgamma(1 + z) for |z| <= 1/2: -gamma z + sum_k (-1)^k zeta(k) z^k / k (DLMF 5.7.3)."""
    total = np.zeros_like(z)
    for k in range(len(_LGAMMA_SERIES) + 1, 1, -1):
        total = (total + _LGAMMA_SERIES[k - 2]) * z
    return (total - _EULER_GAMMA) * z


_EULER_GAMMA = 0.5772156649015329


def _bernoulli(n: int) -> Fraction:
    """The Bernoulli number B_n (B_1 = -1/2), by the Akiyama-Tanigawa algorithm."""
    a = [Fraction(0)] * (n + 1)
    for m in range(n + 1):
        a[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
    return a[0] if n != 1 else Fraction(-1, 2)


_PSI_SERIES = [float(_bernoulli(2 * k) / (2 * k)) for k in range(1, 8)]
"""B_2k / 2k: psi(x) ~ ln x - 1/2x - sum_k B_2k / (2k x^2k) (DLMF 5.11.2)."""


def digamma64(x: np.ndarray) -> np.ndarray:
    """psi(x) in float64: the reflection formula below 0, the recurrence up to 10, then the
    asymptotic series (as torch's `calc_digamma`)."""
    x = np.asarray(x, dtype=_F64)
    out = np.empty_like(x)
    neg = x < 0
    pole = neg & (x == np.floor(x))  # negative integers and -inf: NaN
    zero = x == 0
    xr = np.where(neg, 1 - x, x)
    # pi / tan(pi r) with r the fractional part (more accurate than tan(pi x) for large |x|)
    frac = np.where(neg & ~pole, x - np.trunc(x), 0.5)
    reflect = np.where(neg & ~pole, np.pi / np.tan(np.pi * frac), 0.0)
    acc = np.zeros_like(x)
    z = np.where(np.isfinite(xr) & ~zero, xr, 20.0)
    for _ in range(10):
        small = z < 10
        if not small.any():
            break
        acc -= np.where(small, 1 / np.where(small, z, 1.0), 0.0)
        z = np.where(small, z + 1, z)
    inv2 = 1 / (z * z)
    tail = np.zeros_like(z)
    for c in reversed(_PSI_SERIES):
        tail = tail * inv2 + c
    tail = np.where(z < 1e17, tail * inv2, 0.0)
    res = acc + np.log(z) - 0.5 / z - tail
    res = np.where(np.isfinite(xr) & ~zero, res, xr)  # psi(+inf) = inf, NaN stays
    out[...] = np.where(neg, res - reflect, res)
    out[pole] = np.nan
    out[zero] = np.copysign(np.inf, -x[zero])
    return out


def trigamma(x: np.ndarray) -> np.ndarray:
    """psi'(x) in x's dtype: reflection below 1/2, six steps of the recurrence, then the
    asymptotic series (as torch's `calc_trigamma`, whose float32 rounding near the poles
    decides how large the result is)."""
    x = np.asarray(x)
    low = x < 0.5
    s = np.sin(np.pi * x)
    dt = x.dtype.type
    result = np.where(low, -dt(np.pi * np.pi) / (s * s), dt(0))
    sign = np.where(low, dt(-1), dt(1))
    z = np.where(low, 1 - x, x)
    for _ in range(6):
        result += 1 / (z * z)
        z = z + 1
    ixx = 1 / (z * z)
    result += (1 + 1 / (2 * z) + ixx * (dt(1 / 6) - ixx * (dt(1 / 30) - ixx * dt(1 / 42)))) / z
    return sign * result


_ZETA_A = [float(math.factorial(2 * k) / _bernoulli(2 * k)) for k in range(1, 13)]
"""(2k)! / B_2k, the divisors of the Euler-Maclaurin correction terms (DLMF 25.11.5)."""


def zeta64(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The Hurwitz zeta function sum_k (k + q)^-x in float64: terms summed until the next one
    is past 9 (and at least 9 of them), then the Euler-Maclaurin tail (as torch's `zeta`)."""
    x, q = np.broadcast_arrays(np.asarray(x, dtype=_F64), np.asarray(q, dtype=_F64))
    x, q = x.copy(), q.copy()
    out = np.full(x.shape, np.nan)
    # torch's tests, in its order: x == 1, x < 1, a pole of q, q <= 0 with a fractional x
    decided = x == 1
    out[decided] = np.inf
    decided |= x < 1
    qpole = ~decided & (q <= 0) & (q == np.floor(q))
    out[qpole] = np.inf
    decided |= qpole | ((q <= 0) & (x != np.floor(x)))
    pending = ~decided
    if np.any(pending & (q < -_MAX_TERMS)):
        raise ValueError(f"special_zeta: q below -{_MAX_TERMS} needs as many terms; refused")
    xs, qs = x[pending], q[pending]
    with np.errstate(all="ignore"):
        s = np.power(qs, -xs)
        a = qs.copy()
        b = np.zeros_like(s)
        done = np.zeros(s.shape, bool)
        i = 0
        while True:
            going = ~done & ((i < 9) | (a <= 9.0))
            if not going.any():
                break
            i += 1
            a = np.where(going, a + 1, a)
            b = np.where(going, np.power(a, -xs), b)
            s = np.where(going, s + b, s)
            done |= going & (-_EPS * s < b) & (b < _EPS * s)
        w = a.copy()
        tail = ~done
        s = np.where(tail, s + b * w / (xs - 1) - 0.5 * b, s)
        aa = np.ones_like(s)
        k = np.zeros_like(s)
        for c in _ZETA_A:
            aa = aa * (xs + k)
            b = b / w
            t = aa * b / c
            s = np.where(tail, s + t, s)
            tail &= ~(np.abs(t / s) < _EPS)
            k = k + 1
            aa = aa * (xs + k)
            b = b / w
            k = k + 1
    out[pending] = s
    return out


_LGAMMA_SERIES = [
    float((-1) ** k / k) * float(zeta64(np.array([float(k)]), np.array([1.0]))[0]) for k in range(2, 60)
]
"""(-1)^k zeta(k) / k for k >= 2: the coefficients of z^k in lgamma(1 + z)."""


@register("aten.lgamma.default")
def _lgamma(self: np.ndarray) -> np.ndarray:
    return _unary(lgamma64)(self)


@register("aten.digamma.default")
def _digamma(self: np.ndarray) -> np.ndarray:
    return _unary(digamma64)(self)


@register("aten.polygamma.default")
def _polygamma(n: int, self: np.ndarray) -> np.ndarray:
    """psi^(n)(x): digamma, trigamma, then (-1)^(n+1) n! zeta(n + 1, x) (torch's `calc_polygamma`)."""
    if n < 0:
        raise ValueError("polygamma(n, x) does not support negative n")
    if n == 0:
        return _unary(digamma64)(self)
    if n == 1:
        return _unary(trigamma, native=True)(self)
    sign = 1.0 if n % 2 else -1.0
    fact = math.exp(math.lgamma(n + 1.0))
    return _unary(lambda x: sign * fact * zeta64(np.full_like(x, n + 1.0), x))(self)


def _zeta_kernel(self: object, other: object) -> np.ndarray:
    dt = _float_result(self, other)
    return zeta64(np.asarray(self, dtype=_F64), np.asarray(other, dtype=_F64)).astype(dt)


register("aten.special_zeta.default", "aten.special_zeta.self_scalar", "aten.special_zeta.other_scalar")(_zeta_kernel)


# ---------------------------------------------------------------------------
# inverse error function
# ---------------------------------------------------------------------------

_erfc_vec = np.frompyfunc(math.erfc, 1, 1)
_erf_vec = np.frompyfunc(math.erf, 1, 1)


def _erfc64(x: np.ndarray) -> np.ndarray:
    return np.asarray(_erfc_vec(x), dtype=_F64) if x.size else x.astype(_F64)


def _erf64(x: np.ndarray) -> np.ndarray:
    return np.asarray(_erf_vec(x), dtype=_F64) if x.size else x.astype(_F64)


_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _erfcinv_pos(c: np.ndarray) -> np.ndarray:
    """x >= 0 with erfc(x) = c for c in (0, 1]: Winitzki's closed form as the first guess
    (log(1 - y^2) written as log(c (2 - c)), exact for tiny c), then Newton on log erfc."""
    a = 0.147
    ln = np.log(c) + np.log(2 - c)
    t = 2 / (np.pi * a) + ln / 2
    x = np.sqrt(np.maximum(np.sqrt(t * t - ln / a) - t, 0.0))
    logc = np.log(c)
    for _ in range(5):
        e = _erfc64(x)
        # d/dx log erfc(x) = -(2/sqrt(pi)) exp(-x^2) / erfc(x)
        step = (np.log(e) - logc) / (-_TWO_OVER_SQRT_PI * np.exp(-x * x) / e)
        x = np.where(np.isfinite(step), np.maximum(x - step, 0.0), x)
    return x


def erfinv64(y: np.ndarray) -> np.ndarray:
    """erf^-1(y) in float64: Newton on erf for |y| < 1/2, on log erfc(x) = log(1 - |y|) beyond
    (1 - |y| is exact there); +-1 give +-inf, |y| > 1 and NaN give NaN, -0.0 stays."""
    y = np.asarray(y, dtype=_F64)
    ay = np.abs(y)
    out = np.full(y.shape, np.nan)
    inner = ay < 0.5
    if inner.any():
        v = y[inner]
        x = v * (math.sqrt(math.pi) / 2) * (1 + (math.pi / 12) * v * v)  # the series' first terms
        for _ in range(5):
            x = x - (_erf64(x) - v) / (_TWO_OVER_SQRT_PI * np.exp(-x * x))
        out[inner] = np.where(v == 0, v, x)
    outer = (ay >= 0.5) & (ay < 1)
    if outer.any():
        out[outer] = np.copysign(_erfcinv_pos(1 - ay[outer]), y[outer])
    one = ay == 1
    out[one] = np.copysign(np.inf, y[one])
    return out


def ndtri64(p: np.ndarray) -> np.ndarray:
    """The standard normal quantile: -sqrt(2) erfc^-1(2p), with the tail that is small kept
    exact (2p below 1/2, 2(1 - p) above); 0 and 1 give -inf and inf, outside [0, 1] NaN."""
    p = np.asarray(p, dtype=_F64)
    out = np.full(p.shape, np.nan)
    lo = (p > 0) & (p <= 0.5)
    hi = (p > 0.5) & (p < 1)
    # 2p <= 1: erfc(x) = 2p with x >= 0 gives the quantile -sqrt(2) x
    if lo.any():
        out[lo] = -math.sqrt(2) * _erfcinv_pos(2 * p[lo])
    if hi.any():
        out[hi] = math.sqrt(2) * _erfcinv_pos(2 * (1 - p[hi]))
    out[p == 0] = -np.inf
    out[p == 1] = np.inf
    out[p == 0.5] = 0.0
    return out


@register("aten.erfinv.default")
def _erfinv(self: np.ndarray) -> np.ndarray:
    return _unary(erfinv64)(self)


@register("aten.special_ndtri.default")
def _ndtri(self: np.ndarray) -> np.ndarray:
    return _unary(ndtri64)(self)


def erfcx64(x: np.ndarray) -> np.ndarray:
    """exp(x^2) erfc(x): the product below 26 (erfc does not underflow there), the asymptotic
    series 1/(x sqrt(pi)) sum_k (-1)^k (2k-1)!! / (2x^2)^k above (DLMF 7.12.1), and
    2 exp(x^2) - erfcx(-x) for negative x."""
    x = np.asarray(x, dtype=_F64)
    ax = np.abs(x)
    near = ax < 26
    out = np.empty_like(x)
    if near.any():
        v = ax[near]
        out[near] = np.exp(v * v) * _erfc64(v)
    far = ~near
    if far.any():
        v = ax[far]
        inv = 1 / (2 * v * v)
        term = np.ones_like(v)
        total = np.ones_like(v)
        for k in range(1, 40):
            term = -term * (2 * k - 1) * inv
            small = np.abs(term) < _EPS * np.abs(total)
            total = total + np.where(small, 0.0, term)
            term = np.where(small, 0.0, term)
        out[far] = np.where(np.isinf(v), 0.0, total / (v * math.sqrt(math.pi)))
    neg = x < 0
    out[neg] = 2 * np.exp(x[neg] * x[neg]) - out[neg]
    out[np.isnan(x)] = np.nan
    return out


@register("aten.special_erfcx.default")
def _erfcx(self: np.ndarray) -> np.ndarray:
    return _unary(erfcx64)(self)


# ---------------------------------------------------------------------------
# modified Bessel functions of the first kind, exponentially scaled
# ---------------------------------------------------------------------------


def _bessel_i_scaled(x: np.ndarray, order: int) -> np.ndarray:
    """exp(-|x|) I_order(|x|) for order 0 or 1: the power series (DLMF 10.25.2) up to 30, the
    asymptotic expansion (DLMF 10.40.1) beyond."""
    ax = np.abs(np.asarray(x, dtype=_F64))
    out = np.empty_like(ax)
    small = ax <= 30
    if small.any():
        v = ax[small]
        q = v * v / 4
        term = np.ones_like(v) if order == 0 else v / 2
        total = term.copy()
        for k in range(1, 120):
            term = term * q / (k * (k + order))
            total = total + term
        out[small] = total * np.exp(-v)
    big = ~small
    if big.any():
        v = ax[big]
        mu = 4.0 * order * order
        term = np.ones_like(v)
        total = np.ones_like(v)
        for k in range(1, 60):
            term = -term * (mu - (2 * k - 1) ** 2) / (k * 8 * v)
            keep = np.abs(term) >= _EPS * np.abs(total)
            total = total + np.where(keep, term, 0.0)
            term = np.where(keep, term, 0.0)
        out[big] = np.where(np.isinf(v), 0.0, total / np.sqrt(2 * np.pi * v))
    out[np.isnan(ax)] = np.nan
    return out


def i0e64(x: np.ndarray) -> np.ndarray:
    return _bessel_i_scaled(x, 0)


def i1e64(x: np.ndarray) -> np.ndarray:
    """exp(-|x|) I_1(x): odd in x."""
    x = np.asarray(x, dtype=_F64)
    r = _bessel_i_scaled(x, 1)
    return np.where(x < 0, -r, r)  # -0.0 gives +0.0 and -inf gives -0.0, as in torch


def i1_64(x: np.ndarray) -> np.ndarray:
    """I_1(x) = exp(|x|) i1e(x) (inf beyond float64's range)."""
    x = np.asarray(x, dtype=_F64)
    ax = np.abs(x)
    # split exp(|x|) in two so that the product overflows only when I_1 does
    half = np.exp(ax / 2)
    return (i1e64(x) * half) * half


@register("aten.special_i0e.default")
def _i0e(self: np.ndarray) -> np.ndarray:
    return _unary(i0e64)(self)


@register("aten.special_i1e.default")
def _i1e(self: np.ndarray) -> np.ndarray:
    return _unary(i1e64)(self)


@register("aten.special_i1.default", "aten.special_modified_bessel_i1.default")
def _i1(self: np.ndarray) -> np.ndarray:
    return _unary(i1_64)(self)


def i0_64(x: np.ndarray) -> np.ndarray:
    """I_0(x) = exp(|x|) i0e(x) (inf beyond float64's range)."""
    half = np.exp(np.abs(np.asarray(x, dtype=_F64)) / 2)
    return (i0e64(x) * half) * half


@register("aten.special_modified_bessel_i0.default")
def _modified_i0(self: np.ndarray) -> np.ndarray:
    return _unary(i0_64)(self)


def spherical_j0_64(x: np.ndarray) -> np.ndarray:
    """sin(x)/x, with its Taylor series below 1/2 and 0 at +-inf (as torch's kernel)."""
    x = np.asarray(x, dtype=_F64)
    x2 = x * x
    series = 1 - x2 / 6 * (1 - x2 / 20 * (1 - x2 / 42 * (1 - x2 / 72 * (1 - x2 / 110 * (1 - x2 / 156)))))
    with np.errstate(all="ignore"):
        direct = np.sin(x) / x
    return np.where(np.isinf(x), 0.0, np.where(np.abs(x) < 0.5, series, direct))


@register("aten.special_spherical_bessel_j0.default")
def _spherical_j0(x: np.ndarray) -> np.ndarray:
    return _unary(spherical_j0_64)(x)


@register("aten.frexp.Tensor")
def _frexp(self: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mantissa in [0.5, 1) of the input's dtype and an int32 exponent; 0, inf and NaN keep
    their value with exponent 0."""
    a = np.asarray(self)
    if a.dtype.kind != "f":
        raise ValueError(f"frexp only supports floating-point dtypes, not {a.dtype}")
    mantissa, exponent = np.frexp(a)
    exponent = np.where(np.isfinite(a), exponent, 0)
    return mantissa.astype(a.dtype), exponent.astype(np.int32)


# ---------------------------------------------------------------------------
# orthogonal polynomials
# ---------------------------------------------------------------------------


def _degree(n: np.ndarray) -> np.ndarray:
    """torch's `static_cast<int64_t>(n)`: truncation; NaN, infinities and values beyond int64
    give int64's minimum (as x86 converts them), so a negative degree and the value 0."""
    n = np.asarray(n, dtype=_F64)
    ok = np.isfinite(n) & (np.abs(n) < 2.0**63)
    return np.where(ok, np.trunc(np.where(ok, n, 0)), -(2.0**63)).astype(np.int64)


Recurrence = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]
"""(k, x, p_{k-2}, p_{k-1}) -> p_k."""


def _recur(x: np.ndarray, n: np.ndarray, p0: np.ndarray, p1: np.ndarray, step: Recurrence, first: int = 2,
           stop_at_nan: bool = True) -> np.ndarray:
    """p_n by the three-term recurrence from p_0 and p_1, elementwise (degrees 0 and 1 given),
    stopping where p turns NaN as torch's loops do."""
    out = np.where(n == 0, p0, p1)
    todo = n >= first
    if not todo.any():
        return out
    top = int(n[todo].max())
    if top > _MAX_TERMS:
        raise ValueError(f"polynomial degree {top} above {_MAX_TERMS}; refused")
    p, q = p0[todo], p1[todo]
    xs, ns = x[todo], n[todo]
    live = np.ones(xs.shape, bool)
    for k in range(first, top + 1):
        live &= k <= ns
        if stop_at_nan:
            live &= ~np.isnan(q)
        if not live.any():
            break
        r = step(np.full_like(xs, float(k)), xs, p, q)
        p, q = np.where(live, q, p), np.where(live, r, q)
    out[todo] = q
    return out


def _poly(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[..., np.ndarray]:
    """The recurrence runs in the dtype torch's runs in (float32 overflows to inf, then NaN,
    where float64 would not)."""

    def kernel(x: object, n: object) -> np.ndarray:
        dt = _float_result(x, n)
        xs, ns = np.broadcast_arrays(np.asarray(x, dtype=_work_dtype(dt)), np.asarray(n, dtype=_F64))
        with np.errstate(all="ignore"):
            res = fn(xs.copy(), _degree(ns))
            return np.asarray(res).astype(dt)

    return kernel


def _chebyshev(kind: str, threshold: int) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """T, U, V, W: p_k = 2x p_{k-1} - p_{k-2} from p_1 = x, 2x, 2x - 1, 2x + 1; at |x| = 1 and
    for degrees above `threshold` inside (-1, 1), the closed forms torch uses."""
    p1 = {"t": lambda x: x, "u": lambda x: x + x, "v": lambda x: x + x - 1, "w": lambda x: x + x + 1}[kind]

    def fn(x: np.ndarray, n: np.ndarray) -> np.ndarray:
        one = np.ones_like(x)
        out = _recur(x, n, one, p1(x), lambda k, x, p, q: (x + x) * q - p)
        nf = n.astype(x.dtype)
        even = n % 2 == 0
        inside = (n > threshold) & (np.abs(x) < 1)
        theta = np.arccos(np.clip(x, -1, 1))
        if kind == "t":
            closed = np.cos(nf * theta)
            at_one = np.where((x > 0) | even, 1.0, -1.0)
        elif kind == "u":
            s = np.sin(theta)
            closed = np.where(s != 0, np.sin((nf + 1) * theta) / np.where(s != 0, s, 1),
                              (nf + 1) * np.cos((nf + 1) * theta) / x)
            at_one = np.where((x > 0) | even, nf + 1, -(nf + 1))
        elif kind == "v":
            h = np.sin(theta / 2)
            odd_end = np.where(even, nf + nf + 1, -(nf + nf + 1))
            closed = np.where(h != 1, np.cos((nf + 0.5) * theta) / np.cos(theta / 2), odd_end)
            at_one = np.where(x > 0, 1.0, odd_end)
        else:
            c = np.cos(theta / 2)
            end = np.where(x > 0, nf + nf + 1, np.where(even, 1.0, -1.0))
            closed = np.where(c != 1, np.sin((nf + 0.5) * theta) / np.sin(theta / 2), end)
            at_one = end
        out = np.where(inside, closed, out)
        out = np.where(np.abs(x) == 1, at_one, out)
        return np.where(n < 0, 0.0, out)

    return fn


def _shifted(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The shifted Chebyshev polynomials: p*(x) = p(2x - 1)."""
    return lambda x, n: fn(x + x - 1, n)


def _hermite_h(x: np.ndarray, n: np.ndarray, limit: int) -> np.ndarray:
    """Physicists' Hermite: H_k = 2x H_{k-1} - 2(k-1) H_{k-2}; NaN above the degree limit."""
    out = _recur(x, np.where(n > limit, 0, n), np.ones_like(x), x + x,
                 lambda k, x, p, q: (x + x) * q - 2 * (k - 1) * p, stop_at_nan=False)
    return np.where(n < 0, 0.0, np.where(n > limit, np.nan, out))


def _hermite_he(x: np.ndarray, n: np.ndarray, limit: int) -> np.ndarray:
    """Probabilists' Hermite: He_k = x He_{k-1} - (k-1) He_{k-2}; NaN above the degree limit."""
    out = _recur(x, np.where(n > limit, 0, n), np.ones_like(x), x,
                 lambda k, x, p, q: x * q - (k - 1) * p, stop_at_nan=False)
    return np.where(n < 0, 0.0, np.where(n > limit, np.nan, out))


def _laguerre(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """L_k = ((2k - 1 - x) L_{k-1} - (k-1) L_{k-2}) / k; L_n(0) = 1."""
    out = _recur(x, n, np.ones_like(x), 1 - x,
                 lambda k, x, p, q: (((2 * (k - 1)) + (1 - x)) * q - (k - 1) * p) / k)
    out = np.where(x == 0, 1.0, out)
    return np.where(n < 0, 0.0, out)


def _legendre(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """P_k = ((2k - 1) x P_{k-1} - (k-1) P_{k-2}) / k; P_n(+-1) = (+-1)^n."""
    out = _recur(x, n, np.ones_like(x), x, lambda k, x, p, q: ((2 * k - 1) * x * q - (k - 1) * p) / k)
    out = np.where(np.abs(x) == 1, np.where((x > 0) | (n % 2 == 0), 1.0, -1.0), out)
    return np.where(n < 0, 0.0, out)


def _hermite_limit(kernel: Callable[[np.ndarray, np.ndarray, int], np.ndarray]) -> Callable[..., np.ndarray]:
    """torch gives NaN above degree 128 in float32 and 512 in float64."""

    def run(x: object, n: object) -> np.ndarray:
        dt = _float_result(x, n)
        limit = 128 if dt.itemsize <= 4 else 512
        return _poly(lambda xs, ns: kernel(xs, ns, limit))(x, n)

    return run


_POLYNOMIALS: dict[str, Callable[..., np.ndarray]] = {
    **{f"chebyshev_polynomial_{k}": _poly(_chebyshev(k, 6 if k == "t" else 8)) for k in "tuvw"},
    **{f"shifted_chebyshev_polynomial_{k}": _poly(_shifted(_chebyshev(k, 6))) for k in "tuvw"},
    "hermite_polynomial_h": _hermite_limit(_hermite_h),
    "hermite_polynomial_he": _hermite_limit(_hermite_he),
    "laguerre_polynomial_l": _poly(_laguerre),
    "legendre_polynomial_p": _poly(_legendre),
}

for _name, _kernel in _POLYNOMIALS.items():
    register(*(f"aten.special_{_name}.{ov}" for ov in ("default", "x_scalar", "n_scalar")))(_kernel)
