"""
Float64 functions (and log10) written in the ops IREE's CPU backend expands without libm.

IREE expands `math` ops into polynomials for float32 only; for float64, `math.log2`, `log10`,
`atan`, `atan2`, `asin`, `acos`, `tanh` (and `sin`, `cos`, `tan`, `erf`) become calls to a libm
it does not link, and `log10` does for float32 too. These are written in the float64 ops it
does expand (`log`, `expm1`, `sqrt`) and plain arithmetic; each notes its accuracy against torch where it is defined.
"""

from __future__ import annotations

import math as pymath
from collections.abc import Sequence

from xdsl.dialects import arith, builtin, math
from xdsl.ir import SSAValue

from xdsl_exir.dialects.exir import DType
from xdsl_exir.transforms.linalg_lowering.scalar import select
from xdsl_exir.transforms.linalg_lowering.state import LoweringState

_LOG10_E = 1.0 / pymath.log(10.0)
_LOG2_E = 1.0 / pymath.log(2.0)
_ATAN_STEPS = 8
"""atan's table: atan(k / 8) for k = 0..8, the rest by its series (see `_atan_unit`)."""


def wide_log10(st: LoweringState, x: SSAValue, dt: DType) -> SSAValue:
    """log10 as `log(x) / ln 10` in float64 (float32 operands: correctly rounded but for rare ties)."""
    wide = DType.float64
    y = st.emit(arith.MulfOp(st.emit(math.LogOp(st.cast(x, dt, wide))), st.constant(_LOG10_E, wide)))
    return st.cast(y, wide, dt)


def log2_f64(st: LoweringState, x: SSAValue) -> SSAValue:
    """
    log2 of a float64: `e + log(m) / ln 2` for `x = m * 2**e` with `m` in
    [sqrt(1/2), sqrt(2)), exact at powers of two; zero, negative, subnormal,
    infinite and NaN operands take `log(x) / ln 2` (-inf, NaN, ..., as log2).
    """
    f64 = DType.float64
    word = DType.int64
    bits = st.emit(arith.BitcastOp(x, builtin.i64))
    biased = st.emit(arith.AndIOp(st.emit(arith.ShRUIOp(bits, st.constant(52, word))), st.constant(0x7FF, word)))
    mantissa = st.emit(arith.AndIOp(bits, st.constant((1 << 52) - 1, word)))
    m = st.emit(arith.BitcastOp(st.emit(arith.OrIOp(mantissa, st.constant(1023 << 52, word))), builtin.f64))
    e = st.cast(st.emit(arith.SubiOp(biased, st.constant(1023, word))), word, f64)
    big = st.emit(arith.CmpfOp(m, st.constant(pymath.sqrt(2.0), f64), "oge"))
    m = select(st, big, st.emit(arith.MulfOp(m, st.constant(0.5, f64))), m)
    e = select(st, big, st.emit(arith.AddfOp(e, st.constant(1.0, f64))), e)
    split = st.emit(arith.AddfOp(e, st.emit(arith.MulfOp(st.emit(math.LogOp(m)), st.constant(_LOG2_E, f64)))))
    plain = st.emit(arith.MulfOp(st.emit(math.LogOp(x)), st.constant(_LOG2_E, f64)))
    positive = st.emit(arith.CmpfOp(x, st.constant(0.0, f64), "ogt"))
    normal = st.emit(arith.AndIOp(st.emit(arith.CmpiOp(biased, st.constant(0, word), "ne")), st.emit(arith.CmpiOp(biased, st.constant(0x7FF, word), "ne"))))
    return select(st, st.emit(arith.AndIOp(positive, normal)), split, plain)


def _atan_unit(st: LoweringState, t: SSAValue) -> SSAValue:
    """
    atan of a float64 `t` in [0, 1]: `atan(c) + atan(u)` with `c = k / 8` the
    nearest eighth and `u = (t - c) / (1 + t c)` (|u| <= 1/16; `t - c` exact),
    atan(c) from a table and atan(u) from its alternating series to `u**17`,
    whose first omitted term is below float64's rounding of the result.
    """
    f64 = DType.float64
    k = st.emit(math.RoundEvenOp(st.emit(arith.MulfOp(t, st.constant(float(_ATAN_STEPS), f64)))))
    c = st.emit(arith.DivfOp(k, st.constant(float(_ATAN_STEPS), f64)))
    u = st.emit(arith.DivfOp(st.emit(arith.SubfOp(t, c)), st.emit(arith.AddfOp(st.constant(1.0, f64), st.emit(arith.MulfOp(t, c))))))
    z = st.emit(arith.MulfOp(u, u))
    terms = 9
    p = st.constant((-1) ** (terms - 1) / (2 * terms - 1), f64)
    for j in range(terms - 2, -1, -1):
        p = st.emit(arith.AddfOp(st.emit(arith.MulfOp(p, z)), st.constant((-1) ** j / (2 * j + 1), f64)))
    base = st.constant(0.0, f64)
    for j in range(1, _ATAN_STEPS + 1):
        hit = st.emit(arith.CmpfOp(k, st.constant(float(j), f64), "oeq"))
        base = select(st, hit, st.constant(pymath.atan(j / _ATAN_STEPS), f64), base)
    return st.emit(arith.AddfOp(base, st.emit(arith.MulfOp(u, p))))


def atan2_f64(st: LoweringState, y: SSAValue, x: SSAValue) -> SSAValue:
    """
    atan2 in float64 with C's special values: the smaller of |y|, |x| over the
    larger gives an angle in [0, pi/4] (`_atan_unit`), reflected into the
    octant and quadrant by the operands' magnitudes and signs (-0.0 counts as
    negative); both zero gives 0 (then +-pi for a negative-zero x), both
    infinite pi/4 (3 pi/4), and NaN stays NaN.
    """
    f64 = DType.float64
    ax, ay = st.emit(math.AbsFOp(x)), st.emit(math.AbsFOp(y))
    swap = st.emit(arith.CmpfOp(ay, ax, "ogt"))
    t = st.emit(arith.DivfOp(select(st, swap, ax, ay), select(st, swap, ay, ax)))
    zero, inf = st.constant(0.0, f64), st.constant(float("inf"), f64)
    both_zero = st.emit(arith.AndIOp(st.emit(arith.CmpfOp(ax, zero, "oeq")), st.emit(arith.CmpfOp(ay, zero, "oeq"))))
    both_inf = st.emit(arith.AndIOp(st.emit(arith.CmpfOp(ax, inf, "oeq")), st.emit(arith.CmpfOp(ay, inf, "oeq"))))
    t = select(st, both_zero, zero, select(st, both_inf, st.constant(1.0, f64), t))
    a = _atan_unit(st, t)
    a = select(st, swap, st.emit(arith.SubfOp(st.constant(pymath.pi / 2, f64), a)), a)
    x_negative = st.emit(arith.CmpfOp(st.emit(math.CopySignOp(st.constant(1.0, f64), x)), zero, "olt"))
    a = select(st, x_negative, st.emit(arith.SubfOp(st.constant(pymath.pi, f64), a)), a)
    return st.emit(math.CopySignOp(a, y))


def sqrt_one_minus_square(st: LoweringState, x: SSAValue) -> SSAValue:
    """sqrt(1 - x**2) as sqrt((1 - x)(1 + x)), exact where it matters (|x| near 1); NaN beyond 1."""
    f64 = DType.float64
    one = st.constant(1.0, f64)
    return st.emit(math.SqrtOp(st.emit(arith.MulfOp(st.emit(arith.SubfOp(one, x)), st.emit(arith.AddfOp(one, x))))))


def expm1_f64(st: LoweringState, x: SSAValue) -> SSAValue:
    """
    expm1 in float64 from `exp` and `log` (IREE's float64 `expm1` is
    `exp(x) - 1`, all cancellation near 0): Kahan's `(u - 1) * x / log(u)`
    with `u = exp(x)`, whose rounding errors cancel; x when u rounds to 1.
    """
    f64 = DType.float64
    one = st.constant(1.0, f64)
    u = st.emit(math.ExpOp(x))
    um1 = st.emit(arith.SubfOp(u, one))
    r = st.emit(arith.DivfOp(st.emit(arith.MulfOp(um1, x)), st.emit(math.LogOp(u))))
    r = select(st, st.emit(arith.CmpfOp(um1, st.constant(-1.0, f64), "oeq")), st.constant(-1.0, f64), r)
    r = select(st, st.emit(arith.CmpfOp(u, st.constant(float("inf"), f64), "oeq")), u, r)
    return select(st, st.emit(arith.CmpfOp(u, one, "oeq")), x, r)


def log1p_f64(st: LoweringState, x: SSAValue) -> SSAValue:
    """log1p in float64, Kahan's `log(u) * x / (u - 1)` with `u = 1 + x`; x when u rounds to 1, inf at inf."""
    f64 = DType.float64
    one = st.constant(1.0, f64)
    u = st.emit(arith.AddfOp(one, x))
    r = st.emit(arith.DivfOp(st.emit(arith.MulfOp(st.emit(math.LogOp(u)), x)), st.emit(arith.SubfOp(u, one))))
    r = select(st, st.emit(arith.CmpfOp(x, st.constant(float("inf"), f64), "oeq")), x, r)
    r = select(st, st.emit(arith.CmpfOp(u, st.constant(0.0, f64), "oeq")), st.constant(float("-inf"), f64), r)
    return select(st, st.emit(arith.CmpfOp(u, one, "oeq")), x, r)


def sinh_f64(st: LoweringState, x: SSAValue) -> SSAValue:
    """sinh: `(e + e / (e + 1)) / 2` with `e = expm1(|x|)` below 1 (IREE's gives 0 for tiny x), its own above."""
    f64 = DType.float64
    ax = st.emit(math.AbsFOp(x))
    e = expm1_f64(st, ax)
    small = st.emit(arith.MulfOp(st.emit(arith.AddfOp(e, st.emit(arith.DivfOp(e, st.emit(arith.AddfOp(e, st.constant(1.0, f64))))))), st.constant(0.5, f64)))
    r = select(st, st.emit(arith.CmpfOp(ax, st.constant(1.0, f64), "olt")), small, st.emit(math.SinhOp(ax)))
    return st.emit(math.CopySignOp(r, x))


def asinh_f64(st: LoweringState, x: SSAValue) -> SSAValue:
    """asinh: `log1p(|x| + x**2 / (1 + sqrt(1 + x**2)))`, `log(|x|) + ln 2` past 2**28; signed like x."""
    f64 = DType.float64
    one = st.constant(1.0, f64)
    ax = st.emit(math.AbsFOp(x))
    sq = st.emit(arith.MulfOp(ax, ax))
    inner = st.emit(arith.AddfOp(ax, st.emit(arith.DivfOp(sq, st.emit(arith.AddfOp(one, st.emit(math.SqrtOp(st.emit(arith.AddfOp(one, sq))))))))))
    big = st.emit(arith.AddfOp(st.emit(math.LogOp(ax)), st.constant(pymath.log(2.0), f64)))
    r = select(st, st.emit(arith.CmpfOp(ax, st.constant(2.0**28, f64), "ogt")), big, log1p_f64(st, inner))
    return st.emit(math.CopySignOp(r, x))


def atanh_f64(st: LoweringState, x: SSAValue) -> SSAValue:
    """atanh: `log1p(2|x| / (1 - |x|)) / 2`, signed like x (inf at 1, NaN beyond)."""
    f64 = DType.float64
    ax = st.emit(math.AbsFOp(x))
    ratio = st.emit(arith.DivfOp(st.emit(arith.MulfOp(ax, st.constant(2.0, f64))), st.emit(arith.SubfOp(st.constant(1.0, f64), ax))))
    r = st.emit(arith.MulfOp(log1p_f64(st, ratio), st.constant(0.5, f64)))
    return st.emit(math.CopySignOp(r, x))


def tanh_f64(st: LoweringState, x: SSAValue) -> SSAValue:
    """tanh as `e / (e + 2)` with `e = expm1(2|x|)`, signed like x; 1 past |x| = 20, where float64 rounds to it."""
    f64 = DType.float64
    ax = st.emit(math.AbsFOp(x))
    e = expm1_f64(st, st.emit(arith.MulfOp(ax, st.constant(2.0, f64))))
    r = st.emit(arith.DivfOp(e, st.emit(arith.AddfOp(e, st.constant(2.0, f64)))))
    r = select(st, st.emit(arith.CmpfOp(ax, st.constant(20.0, f64), "ogt")), st.constant(1.0, f64), r)
    return st.emit(math.CopySignOp(r, x))


# float64 sin, cos and tan: Cody and Waite's reduction by pi/2, then Taylor
# polynomials on [-pi/4, pi/4]. pi/2 is split into C1 + C2 + C3, the first two
# with 33 significant bits, and the quadrant count k into kh + kl with kl
# below 2**20, so that every product of a C and a part of k is exact and the
# first three subtractions are too (their operands share a grid and the
# difference fits 53 bits). No fused multiply-add is needed, so the project's
# upstream interpreter computes the same values as IREE. The reduction is
# exact to about 2**-100 for |x| < 2**40 * pi/2 (about 1.7e12), and sin and
# cos are then within 2 ulp of torch's, tan within 3. Past that, kh has more
# than 20 bits, its products round, and the reduced argument would be wrong
# by up to an ulp of x: those arguments give NaN rather than a wrong value
# (torch's libm reduces them exactly, by Payne and Hanek's method, which is
# not written here). Infinities and NaN give NaN, as in torch.
_PIO2_1 = float.fromhex("0x1.921fb54400000p+0")
_PIO2_2 = float.fromhex("0x1.0b4611a600000p-34")
_PIO2_3 = float.fromhex("0x1.3198a2e037073p-69")
_PIO2_EXACT_BELOW = 1.7e12
"""|x| from which float64 sin, cos and tan give NaN: their reduction by pi/2 is exact only below 2**40 * pi/2."""
_SIN_TERMS = tuple((-1) ** n / pymath.factorial(2 * n + 1) for n in range(1, 9))
"""sin(r) = r + r**3 * P(r**2): Taylor to r**17; the first omitted term is below 2**-62 of sin(r) on |r| <= pi/4."""
_COS_TERMS = tuple((-1) ** n / pymath.factorial(2 * n) for n in range(2, 10))
"""cos(r) = 1 - r**2 / 2 + r**4 * Q(r**2): Taylor to r**18; the first omitted term is below 2**-67."""


def horner(st: LoweringState, z: SSAValue, coefficients: Sequence[float], dt: DType = DType.float64) -> SSAValue:
    """c0 + z * (c1 + z * (...)) in `dt` (float64 here; `pointwise.erf_f32`'s polynomials in float32)."""
    p = st.constant(coefficients[-1], dt)
    for c in reversed(coefficients[:-1]):
        p = st.emit(arith.AddfOp(st.emit(arith.MulfOp(p, z)), st.constant(c, dt)))
    return p


def _reduce_pio2(st: LoweringState, x: SSAValue) -> tuple[SSAValue, SSAValue]:
    """(r, n): x = k * pi/2 + r with |r| <= pi/4 (about), n = k mod 4 as a float64; r is x itself when k = 0 (keeps -0.0)."""
    f64 = DType.float64
    k = st.emit(math.RoundEvenOp(st.emit(arith.MulfOp(x, st.constant(2.0 / pymath.pi, f64)))))
    chunk = st.constant(2.0**20, f64)
    kh = st.emit(arith.MulfOp(st.emit(math.TruncOp(st.emit(arith.DivfOp(k, chunk)))), chunk))
    kl = st.emit(arith.SubfOp(k, kh))
    r = x
    for part, c in ((kh, _PIO2_1), (kl, _PIO2_1), (kh, _PIO2_2), (kl, _PIO2_2), (k, _PIO2_3)):
        r = st.emit(arith.SubfOp(r, st.emit(arith.MulfOp(part, st.constant(c, f64)))))
    r = select(st, st.emit(arith.CmpfOp(k, st.constant(0.0, f64), "oeq")), x, r)
    beyond = st.emit(arith.CmpfOp(st.emit(math.AbsFOp(x)), st.constant(_PIO2_EXACT_BELOW, f64), "oge"))
    r = select(st, beyond, st.constant(float("nan"), f64), r)
    quarter = st.emit(math.FloorOp(st.emit(arith.MulfOp(k, st.constant(0.25, f64)))))
    n = st.emit(arith.SubfOp(k, st.emit(arith.MulfOp(quarter, st.constant(4.0, f64)))))
    return r, n


def _sin_cos_kernel(st: LoweringState, r: SSAValue) -> tuple[SSAValue, SSAValue]:
    """sin(r) and cos(r) on |r| <= pi/4; cos as `w + ((1 - w) - h) + r**4 Q` with `w = 1 - r**2/2`, keeping the bits `w` rounds off."""
    f64 = DType.float64
    z = st.emit(arith.MulfOp(r, r))
    sin_r = st.emit(arith.AddfOp(r, st.emit(arith.MulfOp(st.emit(arith.MulfOp(r, z)), horner(st, z, _SIN_TERMS)))))
    sin_r = select(st, st.emit(arith.CmpfOp(r, st.constant(0.0, f64), "oeq")), r, sin_r)  # -0.0 + 0.0 would be +0.0
    one = st.constant(1.0, f64)
    h = st.emit(arith.MulfOp(z, st.constant(0.5, f64)))
    w = st.emit(arith.SubfOp(one, h))
    tail = st.emit(arith.AddfOp(st.emit(arith.SubfOp(st.emit(arith.SubfOp(one, w)), h)), st.emit(arith.MulfOp(st.emit(arith.MulfOp(z, z)), horner(st, z, _COS_TERMS)))))
    return sin_r, st.emit(arith.AddfOp(w, tail))


def _quadrant(st: LoweringState, n: SSAValue, values: Sequence[SSAValue]) -> SSAValue:
    """values[n] for n = 0..3 (values[0] when n is NaN: x was NaN or infinite, and so is every value)."""
    f64 = DType.float64
    out = values[0]
    for j in (1, 2, 3):
        out = select(st, st.emit(arith.CmpfOp(n, st.constant(float(j), f64), "oeq")), values[j], out)
    return out


def sin_f64(st: LoweringState, x: SSAValue) -> SSAValue:
    r, n = _reduce_pio2(st, x)
    s, c = _sin_cos_kernel(st, r)
    return _quadrant(st, n, [s, c, st.emit(arith.NegfOp(s)), st.emit(arith.NegfOp(c))])


def cos_f64(st: LoweringState, x: SSAValue) -> SSAValue:
    r, n = _reduce_pio2(st, x)
    s, c = _sin_cos_kernel(st, r)
    return _quadrant(st, n, [c, st.emit(arith.NegfOp(s)), st.emit(arith.NegfOp(c)), s])


def tan_f64(st: LoweringState, x: SSAValue) -> SSAValue:
    """sin(r) / cos(r) in even quadrants, -cos(r) / sin(r) in odd ones (one rounding each side: within a few ulp)."""
    r, n = _reduce_pio2(st, x)
    s, c = _sin_cos_kernel(st, r)
    even = st.emit(arith.DivfOp(s, c))
    # tan(r) rounds to r below 2**-27; also keeps subnormal r, which IREE's division would flush to 0.
    tiny = st.emit(arith.CmpfOp(st.emit(math.AbsFOp(r)), st.constant(2.0**-27, DType.float64), "olt"))
    even = select(st, tiny, r, even)
    odd = st.emit(arith.NegfOp(st.emit(arith.DivfOp(c, s))))
    return _quadrant(st, n, [even, odd, even, odd])


_ERF_SERIES_TERMS = 34
"""Terms of erf's series in `2 x**2 / (2n + 1)` kept below |x| = 2 (the 31st is below 2**-56 of the sum at x = 2)."""
_ERFC_FRACTION_TERMS = 50
"""Depth of erfc's continued fraction from |x| = 2 (relative error below 1e-15 there, far smaller further out)."""


def erf_f64(st: LoweringState, x: SSAValue) -> SSAValue:
    """
    erf of a float64, odd in x. Below |x| = 2 the series of positive terms
    `erf(x) = 2/sqrt(pi) x exp(-x**2) sum (2 x**2)**n / (1 * 3 * ... * (2n + 1))`
    (no cancellation); from 2 to 6, `1 - erfc(x)` with erfc from Laplace's
    continued fraction `exp(-x**2) / sqrt(pi) / (x + (1/2) / (x + 1 / (x + (3/2) / ...)))`
    evaluated from its tail; past 6, 1 (erfc(6) is below half an ulp of 1).
    NaN stays NaN, -0.0 stays -0.0. `x**2` is rounded once and used for both
    `exp(-x**2)` and the series: their product depends on it only weakly
    (its relative sensitivity is below 1/2), so no exact square is needed;
    in the continued fraction erfc is below 5e-3 and the rounding is lost in
    `1 - erfc`. Measured against 200-bit values: within 3 ulp below 1, 4 from
    1 to 2 (the series' roundings), 1 past 2.
    """
    f64 = DType.float64
    ax = st.emit(math.AbsFOp(x))
    square = st.emit(arith.MulfOp(ax, ax))
    e = st.emit(math.ExpOp(st.emit(arith.NegfOp(square))))
    z2 = st.emit(arith.MulfOp(square, st.constant(2.0, f64)))
    series = st.constant(1.0, f64)
    for n in range(_ERF_SERIES_TERMS, 0, -1):
        ratio = st.emit(arith.DivfOp(z2, st.constant(float(2 * n + 1), f64)))
        series = st.emit(arith.AddfOp(st.constant(1.0, f64), st.emit(arith.MulfOp(ratio, series))))
    small = st.emit(arith.MulfOp(st.emit(arith.MulfOp(st.emit(arith.MulfOp(ax, st.constant(2.0 / pymath.sqrt(pymath.pi), f64))), e)), series))
    t = ax
    for n in range(_ERFC_FRACTION_TERMS, 0, -1):
        t = st.emit(arith.AddfOp(ax, st.emit(arith.DivfOp(st.constant(n / 2, f64), t))))
    erfc = st.emit(arith.DivfOp(e, st.emit(arith.MulfOp(t, st.constant(pymath.sqrt(pymath.pi), f64)))))
    large = st.emit(arith.SubfOp(st.constant(1.0, f64), erfc))
    r = select(st, st.emit(arith.CmpfOp(ax, st.constant(2.0, f64), "olt")), small, large)
    r = select(st, st.emit(arith.CmpfOp(ax, st.constant(6.0, f64), "ogt")), st.constant(1.0, f64), r)
    return st.emit(math.CopySignOp(r, x))



def acosh_f64(st: LoweringState, x: SSAValue) -> SSAValue:
    """
    acosh of a float64: `log1p(t + sqrt(2t + t**2))` with `t = x - 1` (accurate
    near 1, where `log(x + sqrt(x**2 - 1))` cancels), `log(x) + ln 2` past
    2**28 (where x**2 would overflow from 1.3e154); NaN below 1.
    """
    f64 = DType.float64
    t = st.emit(arith.SubfOp(x, st.constant(1.0, f64)))
    root = st.emit(math.SqrtOp(st.emit(arith.AddfOp(st.emit(arith.MulfOp(t, st.constant(2.0, f64))), st.emit(arith.MulfOp(t, t))))))
    near = log1p_f64(st, st.emit(arith.AddfOp(t, root)))
    far = st.emit(arith.AddfOp(st.emit(math.LogOp(x)), st.constant(pymath.log(2.0), f64)))
    r = select(st, st.emit(arith.CmpfOp(x, st.constant(2.0**28, f64), "ogt")), far, near)
    return select(st, st.emit(arith.CmpfOp(x, st.constant(1.0, f64), "olt")), st.constant(float("nan"), f64), r)


def exp2_f64(st: LoweringState, x: SSAValue) -> SSAValue:
    """
    exp2 of a float64 as `exp(f ln 2) * 2**n` with `n = round(x)` and `f = x - n`
    exact (`exp(x ln 2)` loses about |x| ulp to the rounding of `x ln 2`:
    2e-14 at 700). 2**n is built from its bits in two halves, so that results
    near the overflow and subnormal ranges scale without overflowing early.
    """
    f64 = DType.float64
    clamped = st.emit(arith.MinimumfOp(st.emit(arith.MaximumfOp(x, st.constant(-1100.0, f64))), st.constant(1100.0, f64)))
    n = st.emit(math.RoundEvenOp(clamped))
    f = st.emit(arith.SubfOp(clamped, n))
    r = st.emit(math.ExpOp(st.emit(arith.MulfOp(f, st.constant(pymath.log(2.0), f64)))))
    word = DType.int64
    ni = st.cast(select(st, st.emit(arith.CmpfOp(n, n, "uno")), st.constant(0.0, f64), n), f64, word)
    half = st.emit(arith.ShRSIOp(ni, st.constant(1, word)))
    for k in (half, st.emit(arith.SubiOp(ni, half))):
        bits = st.emit(arith.ShLIOp(st.emit(arith.AddiOp(k, st.constant(1023, word))), st.constant(52, word)))
        r = st.emit(arith.MulfOp(r, st.emit(arith.BitcastOp(bits, builtin.f64))))
    return select(st, st.emit(arith.CmpfOp(x, x, "uno")), x, r)
