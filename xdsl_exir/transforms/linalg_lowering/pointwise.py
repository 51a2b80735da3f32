"""
Pointwise core ATen ops: one `linalg.generic` each, with `arith`/`math` in the body.

Broadcasting comes from the exir types; the dtype an op computes in is PyTorch's
type promotion of its operands (`aten_inference.result_type`, wrapped numbers
included), float16/bfloat16 computing in float32 as the CPU kernels do. The
formulas are those of PyTorch's CPU kernels: `sigmoid` is `1 / (1 + exp(-x))`,
`gelu` the erf form or the tanh approximation, `fmod` is C's (exact, see
`fmod`), `remainder` and `floor_divide` are built on it as torch builds them
(so `inf // -88` is NaN and `1e30 // -inf` is -1), integer division never
traps (a constant zero divisor is refused; one zero at run time gives the
dividend for quotients and 0 for remainders, where torch raises), integer
`pow` wraps and gives torch's answers for negative exponents, `pow` on floats
has C's special values, `relu` keeps -0.0 and NaN, comparisons on NaN are
false except `!=`.

Only `math` ops IREE expands without libm are emitted: float64 `log2`,
`log10`, `atan`, `atan2`, `asin`, `acos`, `tanh`, and `expm1`, `log1p`,
`sinh`, `asinh`, `atanh`, `acosh`, `exp2` (whose IREE expansions lose small
operands or the ends of the range, float32 computed in float64) are
written in `log`, `exp`, `sqrt` and arithmetic, and `sin`, `cos`, `tan`
(float32 computed in float64: IREE's float32 expansions drift from |x| = 100
on) and float64 `erf` (so float64 `gelu`) in arithmetic and `exp` (see the
notes before `_reduce_pio2`, and `_erf_f64`, for their accuracy; sin, cos and
tan of |x| >= 1.7e12 give NaN).
"""

from __future__ import annotations

import math as pymath
from collections.abc import Callable, Sequence
from typing import cast

from xdsl.dialects import arith, builtin, math
from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.semantics.inference import Bound, result_type
from xdsl_exir.transforms.linalg_lowering import lowers
from xdsl_exir.transforms.linalg_lowering.state import (
    LoweringState,
    is_unsigned,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    result_of as _result,
)

Body = Callable[[LoweringState, list[SSAValue], DType], SSAValue]


def _is_float(dt: DType) -> bool:
    return dt.is_floating_point


# -- scalar building blocks (operands already in the compute dtype) ----------


def add(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    if _is_float(dt):
        return st.emit(arith.AddfOp(a, b))
    if dt is DType.bool:
        return st.emit(arith.OrIOp(a, b))
    return st.emit(arith.AddiOp(a, b))


def sub(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    return st.emit(arith.SubfOp(a, b)) if _is_float(dt) else st.emit(arith.SubiOp(a, b))


def mul(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    if _is_float(dt):
        return st.emit(arith.MulfOp(a, b))
    if dt is DType.bool:
        return st.emit(arith.AndIOp(a, b))
    return st.emit(arith.MuliOp(a, b))


def div(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    return st.emit(arith.DivfOp(a, b))


def maximum(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    """NaN-propagating maximum (-0.0 below +0.0: the reductions' combiner)."""
    if _is_float(dt):
        return st.emit(arith.MaximumfOp(a, b))
    return st.emit(arith.MaxUIOp(a, b) if is_unsigned(dt) else arith.MaxSIOp(a, b))


def minimum(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    if _is_float(dt):
        return st.emit(arith.MinimumfOp(a, b))
    return st.emit(arith.MinUIOp(a, b) if is_unsigned(dt) else arith.MinSIOp(a, b))


def _pick_float(st: LoweringState, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
    """`a pred b ? a : b`, and NaN where either is NaN: torch's vectorized `maximum` /
    `minimum` (an x86 max/min, which keeps `b` when the two are equal, then NaN), the loop
    every contiguous tensor of more than a few dozen elements takes. So a zero of either
    sign against the other keeps `b`'s, where `arith.maximumf` orders -0.0 below +0.0.
    (torch's scalar loop, which broadcast operands and short tails take, keeps `a`'s.)"""
    picked = select(st, st.emit(arith.CmpfOp(a, b, pred)), a, b)
    return select(st, st.emit(arith.CmpfOp(a, a, "uno")), a, picked)


def pointwise_maximum(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    """The elementwise `maximum` / `clamp` of torch, the sign of equal zeros included."""
    return _pick_float(st, "ogt", a, b) if _is_float(dt) else maximum(st, a, b, dt)


def pointwise_minimum(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    return _pick_float(st, "olt", a, b) if _is_float(dt) else minimum(st, a, b, dt)


_FLOAT_PRED = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}
_SIGNED_PRED = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}
_UNSIGNED_PRED = {"eq": "eq", "ne": "ne", "lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge"}


def compare(st: LoweringState, kind: str, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    if _is_float(dt):
        return st.emit(arith.CmpfOp(a, b, _FLOAT_PRED[kind]))
    preds = _UNSIGNED_PRED if is_unsigned(dt) else _SIGNED_PRED
    return st.emit(arith.CmpiOp(a, b, preds[kind]))


def select(st: LoweringState, c: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
    return st.emit(arith.SelectOp(c, a, b))


# -- division and remainders, as torch's CPU kernels define them -------------
#
# Integer division by zero raises in torch (ZeroDivisionError); native code
# cannot raise, and an x86 `idiv` by zero (or of INT_MIN by -1) traps and kills
# the process. A divisor known at lowering time to be zero (a Scalar operand)
# is refused (`_refuse_zero_divisor`). A divisor that is zero only at run time
# is computed as 1, so the documented value is: the dividend itself for
# `floor_divide` and `div` with a rounding mode, 0 for `remainder` and `fmod`
# (torch gives no value there). INT_MIN / -1 is computed as INT_MIN / 1, which
# is the wrapped quotient torch returns (and a remainder of 0).


def _refuse_zero_divisor(st: LoweringState, op: AtenOp, divisor: object) -> None:
    """A constant zero divisor of an integer division: torch raises ZeroDivisionError, so the lowering refuses rather than compute `a // 1`."""
    if _result(op).element_dtype.is_floating_point or isinstance(divisor, SSAValue):
        return
    if isinstance(divisor, bool | int) and divisor == 0:
        raise st.error(
            "integer division by a constant zero; torch raises ZeroDivisionError, "
            "and compiled code cannot raise: remove the division or divide by a non-zero value"
        )


def _safe_divisor(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    one = st.constant(1, dt)
    zero = st.emit(arith.CmpiOp(b, st.constant(0, dt), "eq"))
    if is_unsigned(dt):
        return select(st, zero, one, b)
    bits = {DType.int8: 8, DType.int16: 16, DType.int32: 32, DType.int64: 64}[dt]
    smallest = st.emit(arith.CmpiOp(a, st.constant(-(2 ** (bits - 1)), dt), "eq"))
    minus_one = st.emit(arith.CmpiOp(b, st.constant(-1, dt), "eq"))
    overflow = st.emit(arith.AndIOp(smallest, minus_one))
    return select(st, st.emit(arith.OrIOp(zero, overflow)), one, b)


def trunc_divide(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    """`div(rounding_mode="trunc")`: C++'s `/` on integers, `trunc(a / b)` on floats."""
    if _is_float(dt):
        return st.emit(math.TruncOp(st.emit(arith.DivfOp(a, b))))
    d = _safe_divisor(st, a, b, dt)
    return st.emit(arith.DivUIOp(a, d) if is_unsigned(dt) else arith.DivSIOp(a, d))


def _int_remainder(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    """C++'s `%` (the dividend's sign), on a safe divisor."""
    d = _safe_divisor(st, a, b, dt)
    return st.emit(arith.RemUIOp(a, d) if is_unsigned(dt) else arith.RemSIOp(a, d))


def _fmod_bits(dt: DType) -> tuple[int, int]:
    """(quotient bits per step, steps) of `fmod`'s exact reduction for `dt` (see `fmod`)."""
    if dt is DType.float64:
        # q * B' exact by fused multiply-add; 52-bit quotients; float64's
        # exponents span 2**-1074 .. 2**1024.
        return 52, 2099 // 52 + 2
    # float32 (and the 16-bit floats, computed in float32) in float64: a 29-bit
    # quotient times a 24-bit divisor is exact; exponents span 2**-149 .. 2**128.
    return 28, 277 // 28 + 2


def fmod(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    """
    C's `fmod` (the dividend's sign; NaN for an infinite dividend or a zero
    divisor; the dividend itself for an infinite divisor), exactly, as torch's
    kernels call it: no libm (IREE links none), and not `a - trunc(a / b) * b`,
    which loses everything once the quotient outgrows the mantissa
    (`fmod(1e30, 3)`) and gives NaN for `fmod(0, inf)`.

    Long division in steps: the remainder `r` (from `|a|`) is reduced modulo
    `B' = |b| * 2**k`, `k` chosen from the exponents so that the quotient
    `q = trunc(r / B')` has at most `bits` bits; `r - q * B'` is then exact
    (float32 values computed in float64: a product of 29 and 24 bits; float64:
    a fused multiply-add), and a quotient rounded up by the division leaves a
    negative remainder, corrected by adding `B'`. Each step removes `bits - 1`
    bits of exponent difference; the last ones have `k = 0` and leave `r < |b|`.
    (A float64 divisor below 2**-1022, subnormal, is scaled wrongly by the
    exponent arithmetic; such remainders are not exact.)
    """
    if not _is_float(dt):
        return _int_remainder(st, a, b, dt)
    wide = DType.float64
    bits, steps = _fmod_bits(dt)
    aw, bw = st.cast(a, dt, wide), st.cast(b, dt, wide)
    r = st.emit(math.AbsFOp(aw))
    divisor = st.emit(math.AbsFOp(bw))
    word = DType.int64
    mantissa_shift = st.constant(52, word)
    exponent_mask = st.constant(0x7FF, word)

    def exponent(v: SSAValue) -> SSAValue:
        w = st.emit(arith.BitcastOp(v, builtin.i64))
        return st.emit(arith.AndIOp(st.emit(arith.ShRUIOp(w, mantissa_shift)), exponent_mask))

    divisor_bits = st.emit(arith.BitcastOp(divisor, builtin.i64))
    divisor_exp = exponent(divisor)
    zero_i, zero_f = st.constant(0, word), st.constant(0.0, wide)
    for _ in range(steps):
        k = st.emit(arith.SubiOp(st.emit(arith.SubiOp(exponent(r), divisor_exp)), st.constant(bits, word)))
        k = st.emit(arith.MaxSIOp(k, zero_i))
        scaled_bits = st.emit(arith.AddiOp(divisor_bits, st.emit(arith.ShLIOp(k, mantissa_shift))))
        scaled = st.emit(arith.BitcastOp(scaled_bits, divisor.type))
        q = st.emit(math.TruncOp(st.emit(arith.DivfOp(r, scaled))))
        if dt is DType.float64:
            r = st.emit(math.FmaOp(st.emit(arith.NegfOp(q)), scaled, r))
        else:
            r = st.emit(arith.SubfOp(r, st.emit(arith.MulfOp(q, scaled))))
        r = select(st, st.emit(arith.CmpfOp(r, zero_f, "olt")), st.emit(arith.AddfOp(r, scaled)), r)
    result = st.emit(math.CopySignOp(r, aw))
    # |a| = inf, b = 0 or a NaN operand: NaN. |b| = inf (a finite): a itself.
    inf = st.constant(float("inf"), wide)
    a_finite = st.emit(arith.CmpfOp(st.emit(math.AbsFOp(aw)), inf, "olt"))
    b_nonzero = st.emit(arith.CmpfOp(divisor, zero_f, "one"))
    defined = st.emit(arith.AndIOp(a_finite, b_nonzero))
    b_inf = st.emit(arith.CmpfOp(divisor, inf, "oeq"))
    result = select(st, b_inf, aw, result)
    result = select(st, defined, result, st.constant(float("nan"), wide))
    return st.cast(result, wide, dt)


def floor_divide(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    """
    torch's `div_floor`: on integers the truncated quotient minus one when the
    signs differ and the remainder is not zero; on floats `(a - fmod(a, b)) / b`
    corrected the same way and rounded to the nearest integer, which keeps
    `inf // -88` NaN and `1e30 // -inf` -1 (a division by zero is IEEE's `a / b`).
    """
    if not _is_float(dt):
        d = _safe_divisor(st, a, b, dt)
        if is_unsigned(dt):
            return st.emit(arith.DivUIOp(a, d))
        q = st.emit(arith.DivSIOp(a, d))
        r = st.emit(arith.RemSIOp(a, d))
        zero = st.constant(0, dt)
        nonzero = st.emit(arith.CmpiOp(r, zero, "ne"))
        signs_differ = st.emit(arith.XOrIOp(st.emit(arith.CmpiOp(a, zero, "slt")), st.emit(arith.CmpiOp(d, zero, "slt"))))
        fix = st.emit(arith.AndIOp(nonzero, signs_differ))
        return select(st, fix, st.emit(arith.SubiOp(q, st.constant(1, dt))), q)
    zero, one, half = st.constant(0.0, dt), st.constant(1.0, dt), st.constant(0.5, dt)
    mod = fmod(st, a, b, dt)
    div = st.emit(arith.DivfOp(st.emit(arith.SubfOp(a, mod)), b))
    mod_nonzero = st.emit(arith.CmpfOp(mod, zero, "une"))
    signs_differ = st.emit(arith.XOrIOp(st.emit(arith.CmpfOp(b, zero, "olt")), st.emit(arith.CmpfOp(mod, zero, "olt"))))
    div = select(st, st.emit(arith.AndIOp(mod_nonzero, signs_differ)), st.emit(arith.SubfOp(div, one)), div)
    floored = st.emit(math.FloorOp(div))
    up = st.emit(arith.CmpfOp(st.emit(arith.SubfOp(div, floored)), half, "ogt"))
    floored = select(st, up, st.emit(arith.AddfOp(floored, one)), floored)
    signed_zero = st.emit(math.CopySignOp(zero, st.emit(arith.DivfOp(a, b))))
    result = select(st, st.emit(arith.CmpfOp(div, zero, "une")), floored, signed_zero)
    b_zero = st.emit(arith.CmpfOp(b, zero, "oeq"))
    return select(st, b_zero, st.emit(arith.DivfOp(a, b)), result)


def remainder(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    """Python's modulo, as torch computes it: `fmod`, plus the divisor when the signs differ."""
    if is_unsigned(dt):
        return _int_remainder(st, a, b, dt)
    r = fmod(st, a, b, dt)
    zero = st.constant(0.0 if _is_float(dt) else 0, dt)
    nonzero = compare(st, "ne", r, zero, dt)
    signs_differ = st.emit(arith.XOrIOp(compare(st, "lt", r, zero, dt), compare(st, "lt", b, zero, dt)))
    fix = st.emit(arith.AndIOp(nonzero, signs_differ))
    return select(st, fix, add(st, r, b, dt), r)


def int_power(st: LoweringState, a: SSAValue, e: SSAValue, dt: DType) -> SSAValue:
    """
    torch's integer `pow`, wrapping: square-and-multiply over every bit of the
    exponent, unrolled (`math.ipowi` is not lowered on vectors by MLIR or IREE);
    a negative exponent gives 1 for base 1, +-1 for base -1 and 0 otherwise.
    """
    if dt is DType.bool:
        # true ** e is true, false ** e is (e == 0)
        return st.emit(arith.OrIOp(a, st.emit(arith.XOrIOp(e, st.constant(True, dt)))))
    bits = {DType.uint8: 8, DType.int8: 8, DType.int16: 16, DType.int32: 32, DType.int64: 64}[dt]
    one, zero = st.constant(1, dt), st.constant(0, dt)
    result, base = one, a
    for i in range(bits if is_unsigned(dt) else bits - 1):
        bit = st.emit(arith.AndIOp(st.emit(arith.ShRUIOp(e, st.constant(i, dt))), one))
        result = select(st, st.emit(arith.CmpiOp(bit, zero, "ne")), st.emit(arith.MuliOp(result, base)), result)
        base = st.emit(arith.MuliOp(base, base))
    if is_unsigned(dt):
        return result
    odd = st.emit(arith.CmpiOp(st.emit(arith.AndIOp(e, one)), zero, "ne"))
    minus_one = st.constant(-1, dt)
    negative = select(
        st, st.emit(arith.CmpiOp(a, one, "eq")), one,
        select(st, st.emit(arith.CmpiOp(a, minus_one, "eq")), select(st, odd, minus_one, one), zero),
    )  # fmt: skip
    return select(st, st.emit(arith.CmpiOp(e, zero, "slt")), negative, result)


def _constant_power(st: LoweringState, x: SSAValue, e: int, dt: DType) -> SSAValue:
    """`x ** e` for a non-negative constant `e`: square-and-multiply unrolled over its bits."""
    result: SSAValue | None = None
    base = x
    while e:
        if e & 1:
            result = base if result is None else mul(st, result, base, dt)
        e >>= 1
        if e:
            base = mul(st, base, base, dt)
    return result if result is not None else st.constant(1, dt)


def float_power(st: LoweringState, x: SSAValue, y: SSAValue, dt: DType) -> SSAValue:
    """
    C's `pow` (as torch's kernels compute it): `|x| ** y` from `math.powf` on
    a positive base (float32 computed in float64 as `exp(y log|x|)`, then
    rounded once: IREE's float32 `powf` is off by up to 4e-6), the sign of an
    odd integer power of a negative base, and the special values IREE's
    expansion gets wrong: `x ** 0 = 1` (NaN too), `1 ** y = 1`, `(+-0) ** y`,
    `(+-inf) ** y`, `x ** +-inf` by `|x|` against 1, NaN for a negative
    finite base to a non-integer finite power.
    """
    zero, one, inf = st.constant(0.0, dt), st.constant(1.0, dt), st.constant(float("inf"), dt)
    nan = st.constant(float("nan"), dt)
    ax = st.emit(math.AbsFOp(x))
    if dt is DType.float64:
        r = st.emit(math.PowFOp(ax, y))
    else:
        wide = DType.float64
        product = st.emit(arith.MulfOp(st.cast(y, dt, wide), st.emit(math.LogOp(st.cast(ax, dt, wide)))))
        r = st.cast(st.emit(math.ExpOp(product)), wide, dt)

    def cmp(pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return st.emit(arith.CmpfOp(a, b, pred))

    y_pos, y_neg = cmp("ogt", y, zero), cmp("olt", y, zero)
    # |x| = 0 or inf: 0 or inf by the sign of y
    r = select(st, cmp("oeq", ax, zero), select(st, y_pos, zero, select(st, y_neg, inf, r)), r)
    r = select(st, cmp("oeq", ax, inf), select(st, y_pos, inf, select(st, y_neg, zero, r)), r)
    # y = +-inf: 0, 1 or inf by |x| against 1
    below, above, unit = cmp("olt", ax, one), cmp("ogt", ax, one), cmp("oeq", ax, one)
    to_pos = select(st, below, zero, select(st, above, inf, select(st, unit, one, r)))
    to_neg = select(st, below, inf, select(st, above, zero, select(st, unit, one, r)))
    r = select(st, cmp("oeq", y, inf), to_pos, r)
    r = select(st, cmp("oeq", y, st.emit(arith.NegfOp(inf))), to_neg, r)
    # a negative base (-0.0 and -inf included): odd integer powers are negative
    integral = cmp("oeq", st.emit(math.TruncOp(y)), y)
    half = st.emit(arith.MulfOp(y, st.constant(0.5, dt)))
    odd = st.emit(arith.AndIOp(integral, cmp("une", st.emit(math.TruncOp(half)), half)))
    negative = cmp("olt", st.emit(math.CopySignOp(one, x)), zero)
    negative = st.emit(arith.AndIOp(negative, cmp("ord", x, x)))
    r = select(st, st.emit(arith.AndIOp(negative, odd)), st.emit(arith.NegfOp(r)), r)
    finite_base = st.emit(arith.AndIOp(cmp("olt", ax, inf), cmp("one", ax, zero)))
    y_finite = cmp("olt", st.emit(math.AbsFOp(y)), inf)
    undefined = st.emit(arith.AndIOp(st.emit(arith.AndIOp(negative, finite_base)), st.emit(arith.AndIOp(y_finite, st.emit(arith.XOrIOp(integral, st.constant(True, DType.bool)))))))
    r = select(st, undefined, nan, r)
    r = select(st, cmp("uno", y, y), nan, r)
    r = select(st, cmp("oeq", y, zero), one, r)
    return select(st, cmp("oeq", x, one), one, r)


def pow_(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    if _is_float(dt):
        return float_power(st, a, b, dt)
    return int_power(st, a, b, dt)


def sigmoid(st: LoweringState, x: SSAValue, dt: DType) -> SSAValue:
    one = st.constant(1.0, dt)
    e = st.emit(math.ExpOp(st.emit(arith.NegfOp(x))))
    return st.emit(arith.DivfOp(one, st.emit(arith.AddfOp(one, e))))


def gelu(st: LoweringState, x: SSAValue, dt: DType, approximate: str) -> SSAValue:
    half = st.constant(0.5, dt)
    one = st.constant(1.0, dt)
    if approximate == "tanh":
        inner = st.emit(arith.MulfOp(st.emit(arith.MulfOp(x, x)), x))
        inner = st.emit(arith.AddfOp(x, st.emit(arith.MulfOp(st.constant(0.044715, dt), inner))))
        inner = st.emit(arith.MulfOp(st.constant(pymath.sqrt(2.0 / pymath.pi), dt), inner))
        t = _tanh_f64(st, inner) if dt is DType.float64 else st.emit(math.TanhOp(inner))
    else:
        scaled = st.emit(arith.MulfOp(x, st.constant(pymath.sqrt(0.5), dt)))
        t = _erf_f64(st, scaled) if dt is DType.float64 else st.emit(math.ErfOp(scaled))
    return st.emit(arith.MulfOp(st.emit(arith.MulfOp(half, x)), st.emit(arith.AddfOp(one, t))))


# -- registration -------------------------------------------------------------


def _pointwise(
    st: LoweringState,
    op: AtenOp,
    operands: Sequence[object],
    body: Callable[[list[SSAValue], DType], SSAValue],
    compute: DType | None = None,
    fn_dtype: DType | None = None,
    operand_dtypes: Sequence[DType | None] | None = None,
) -> list[SSAValue]:
    out = _result(op)
    dt = compute or out.element_dtype
    inner = dt.opmath()
    return [
        st.elementwise(
            out,
            operands,
            dt,
            lambda vals: body(vals, inner),
            fn_dtype=fn_dtype,
            operand_dtypes=operand_dtypes,
        )
    ]


# -- float64 (and log10) without libm ------------------------------------------
#
# IREE's CPU backend expands `math` ops into polynomials for float32 only; for
# float64, `math.log2`, `log10`, `atan`, `atan2`, `asin`, `acos`, `tanh` (and
# `sin`, `cos`, `tan`, `erf`) become calls to a libm it does not link, and
# `log10` does for float32 too. These are written here in the float64 ops it
# does expand (`log`, `expm1`, `sqrt`) and plain arithmetic.

_LOG10_E = 1.0 / pymath.log(10.0)
_LOG2_E = 1.0 / pymath.log(2.0)
_ATAN_STEPS = 8
"""atan's table: atan(k / 8) for k = 0..8, the rest by its series (see `_atan_unit`)."""


def _wide_log10(st: LoweringState, x: SSAValue, dt: DType) -> SSAValue:
    """log10 as `log(x) / ln 10` in float64 (float32 operands: correctly rounded but for rare ties)."""
    wide = DType.float64
    y = st.emit(arith.MulfOp(st.emit(math.LogOp(st.cast(x, dt, wide))), st.constant(_LOG10_E, wide)))
    return st.cast(y, wide, dt)


def _log2_f64(st: LoweringState, x: SSAValue) -> SSAValue:
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


def _sqrt_one_minus_square(st: LoweringState, x: SSAValue) -> SSAValue:
    """sqrt(1 - x**2) as sqrt((1 - x)(1 + x)), exact where it matters (|x| near 1); NaN beyond 1."""
    f64 = DType.float64
    one = st.constant(1.0, f64)
    return st.emit(math.SqrtOp(st.emit(arith.MulfOp(st.emit(arith.SubfOp(one, x)), st.emit(arith.AddfOp(one, x))))))


def _expm1_f64(st: LoweringState, x: SSAValue) -> SSAValue:
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


def _log1p_f64(st: LoweringState, x: SSAValue) -> SSAValue:
    """log1p in float64, Kahan's `log(u) * x / (u - 1)` with `u = 1 + x`; x when u rounds to 1, inf at inf."""
    f64 = DType.float64
    one = st.constant(1.0, f64)
    u = st.emit(arith.AddfOp(one, x))
    r = st.emit(arith.DivfOp(st.emit(arith.MulfOp(st.emit(math.LogOp(u)), x)), st.emit(arith.SubfOp(u, one))))
    r = select(st, st.emit(arith.CmpfOp(x, st.constant(float("inf"), f64), "oeq")), x, r)
    r = select(st, st.emit(arith.CmpfOp(u, st.constant(0.0, f64), "oeq")), st.constant(float("-inf"), f64), r)
    return select(st, st.emit(arith.CmpfOp(u, one, "oeq")), x, r)


def _sinh_f64(st: LoweringState, x: SSAValue) -> SSAValue:
    """sinh: `(e + e / (e + 1)) / 2` with `e = expm1(|x|)` below 1 (IREE's gives 0 for tiny x), its own above."""
    f64 = DType.float64
    ax = st.emit(math.AbsFOp(x))
    e = _expm1_f64(st, ax)
    small = st.emit(arith.MulfOp(st.emit(arith.AddfOp(e, st.emit(arith.DivfOp(e, st.emit(arith.AddfOp(e, st.constant(1.0, f64))))))), st.constant(0.5, f64)))
    r = select(st, st.emit(arith.CmpfOp(ax, st.constant(1.0, f64), "olt")), small, st.emit(math.SinhOp(ax)))
    return st.emit(math.CopySignOp(r, x))


def _asinh_f64(st: LoweringState, x: SSAValue) -> SSAValue:
    """asinh: `log1p(|x| + x**2 / (1 + sqrt(1 + x**2)))`, `log(|x|) + ln 2` past 2**28; signed like x."""
    f64 = DType.float64
    one = st.constant(1.0, f64)
    ax = st.emit(math.AbsFOp(x))
    sq = st.emit(arith.MulfOp(ax, ax))
    inner = st.emit(arith.AddfOp(ax, st.emit(arith.DivfOp(sq, st.emit(arith.AddfOp(one, st.emit(math.SqrtOp(st.emit(arith.AddfOp(one, sq))))))))))
    big = st.emit(arith.AddfOp(st.emit(math.LogOp(ax)), st.constant(pymath.log(2.0), f64)))
    r = select(st, st.emit(arith.CmpfOp(ax, st.constant(2.0**28, f64), "ogt")), big, _log1p_f64(st, inner))
    return st.emit(math.CopySignOp(r, x))


def _atanh_f64(st: LoweringState, x: SSAValue) -> SSAValue:
    """atanh: `log1p(2|x| / (1 - |x|)) / 2`, signed like x (inf at 1, NaN beyond)."""
    f64 = DType.float64
    ax = st.emit(math.AbsFOp(x))
    ratio = st.emit(arith.DivfOp(st.emit(arith.MulfOp(ax, st.constant(2.0, f64))), st.emit(arith.SubfOp(st.constant(1.0, f64), ax))))
    r = st.emit(arith.MulfOp(_log1p_f64(st, ratio), st.constant(0.5, f64)))
    return st.emit(math.CopySignOp(r, x))


def _tanh_f64(st: LoweringState, x: SSAValue) -> SSAValue:
    """tanh as `e / (e + 2)` with `e = expm1(2|x|)`, signed like x; 1 past |x| = 20, where float64 rounds to it."""
    f64 = DType.float64
    ax = st.emit(math.AbsFOp(x))
    e = _expm1_f64(st, st.emit(arith.MulfOp(ax, st.constant(2.0, f64))))
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


def _horner(st: LoweringState, z: SSAValue, coefficients: Sequence[float]) -> SSAValue:
    """c0 + z * (c1 + z * (...)) in float64."""
    f64 = DType.float64
    p = st.constant(coefficients[-1], f64)
    for c in reversed(coefficients[:-1]):
        p = st.emit(arith.AddfOp(st.emit(arith.MulfOp(p, z)), st.constant(c, f64)))
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
    sin_r = st.emit(arith.AddfOp(r, st.emit(arith.MulfOp(st.emit(arith.MulfOp(r, z)), _horner(st, z, _SIN_TERMS)))))
    sin_r = select(st, st.emit(arith.CmpfOp(r, st.constant(0.0, f64), "oeq")), r, sin_r)  # -0.0 + 0.0 would be +0.0
    one = st.constant(1.0, f64)
    h = st.emit(arith.MulfOp(z, st.constant(0.5, f64)))
    w = st.emit(arith.SubfOp(one, h))
    tail = st.emit(arith.AddfOp(st.emit(arith.SubfOp(st.emit(arith.SubfOp(one, w)), h)), st.emit(arith.MulfOp(st.emit(arith.MulfOp(z, z)), _horner(st, z, _COS_TERMS)))))
    return sin_r, st.emit(arith.AddfOp(w, tail))


def _quadrant(st: LoweringState, n: SSAValue, values: Sequence[SSAValue]) -> SSAValue:
    """values[n] for n = 0..3 (values[0] when n is NaN: x was NaN or infinite, and so is every value)."""
    f64 = DType.float64
    out = values[0]
    for j in (1, 2, 3):
        out = select(st, st.emit(arith.CmpfOp(n, st.constant(float(j), f64), "oeq")), values[j], out)
    return out


def _sin_f64(st: LoweringState, x: SSAValue) -> SSAValue:
    r, n = _reduce_pio2(st, x)
    s, c = _sin_cos_kernel(st, r)
    return _quadrant(st, n, [s, c, st.emit(arith.NegfOp(s)), st.emit(arith.NegfOp(c))])


def _cos_f64(st: LoweringState, x: SSAValue) -> SSAValue:
    r, n = _reduce_pio2(st, x)
    s, c = _sin_cos_kernel(st, r)
    return _quadrant(st, n, [c, st.emit(arith.NegfOp(s)), st.emit(arith.NegfOp(c)), s])


def _tan_f64(st: LoweringState, x: SSAValue) -> SSAValue:
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


def _erf_f64(st: LoweringState, x: SSAValue) -> SSAValue:
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



def _acosh_f64(st: LoweringState, x: SSAValue) -> SSAValue:
    """
    acosh of a float64: `log1p(t + sqrt(2t + t**2))` with `t = x - 1` (accurate
    near 1, where `log(x + sqrt(x**2 - 1))` cancels), `log(x) + ln 2` past
    2**28 (where x**2 would overflow from 1.3e154); NaN below 1.
    """
    f64 = DType.float64
    t = st.emit(arith.SubfOp(x, st.constant(1.0, f64)))
    root = st.emit(math.SqrtOp(st.emit(arith.AddfOp(st.emit(arith.MulfOp(t, st.constant(2.0, f64))), st.emit(arith.MulfOp(t, t))))))
    near = _log1p_f64(st, st.emit(arith.AddfOp(t, root)))
    far = st.emit(arith.AddfOp(st.emit(math.LogOp(x)), st.constant(pymath.log(2.0), f64)))
    r = select(st, st.emit(arith.CmpfOp(x, st.constant(2.0**28, f64), "ogt")), far, near)
    return select(st, st.emit(arith.CmpfOp(x, st.constant(1.0, f64), "olt")), st.constant(float("nan"), f64), r)


def _exp2_f64(st: LoweringState, x: SSAValue) -> SSAValue:
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


_F64_UNARY: dict[str, Callable[[LoweringState, SSAValue], SSAValue]] = {
    "log2": _log2_f64,
    "atan": lambda st, x: atan2_f64(st, x, st.constant(1.0, DType.float64)),
    "asin": lambda st, x: atan2_f64(st, x, _sqrt_one_minus_square(st, x)),
    "acos": lambda st, x: atan2_f64(st, _sqrt_one_minus_square(st, x), x),
    "tanh": _tanh_f64,
    "expm1": _expm1_f64,
    "log1p": _log1p_f64,
    "sinh": _sinh_f64,
    "asinh": _asinh_f64,
    "atanh": _atanh_f64,
    "sin": _sin_f64,
    "cos": _cos_f64,
    "tan": _tan_f64,
    "erf": _erf_f64,
    "acosh": _acosh_f64,
    "exp2": _exp2_f64,
}
"""float64 replacements of the `math` ops IREE would call libm for or expands inaccurately near 0."""

_WIDENED = frozenset(("sinh", "asinh", "atanh", "log1p", "acosh", "exp2", "sin", "cos", "tan"))
"""
float32 ops whose IREE expansion is wrong at the ends of the range, computed by
the float64 forms and rounded once: tiny operands lost (sinh(1e-9) = 0),
acosh overflowing past 1.8e19 (its x**2), exp2 off by 3e-6 near 2**128 and 0
at 2**-126; sin and cos off by 1.5e-5 at x = 1000 and 3e-4 at 1e4 (a range
reduction in float32), -inf at 1e30, and tan off by 3e-6 relative already at
-7.95. The float64 forms are exact to the last float32 bit up to |x| = 1.7e12
and give NaN beyond, where torch's are still right (a reduction against 2/pi to
a hundred bits and more, which these forms do not attempt).
"""


_FLOAT_UNARY: dict[str, Callable[[SSAValue], object]] = {
    "exp": math.ExpOp, "exp2": math.Exp2Op, "expm1": math.ExpM1Op, "log": math.LogOp,
    "log2": math.Log2Op, "log10": math.Log10Op, "log1p": math.Log1pOp, "sqrt": math.SqrtOp,
    "rsqrt": math.RsqrtOp, "sin": math.SinOp, "cos": math.CosOp, "tan": math.TanOp,
    "asin": math.AsinOp, "acos": math.AcosOp, "atan": math.AtanOp, "sinh": math.SinhOp,
    "cosh": math.CoshOp, "tanh": math.TanhOp, "asinh": math.AsinhOp, "acosh": math.AcoshOp,
    "atanh": math.AtanhOp, "erf": math.ErfOp,
}  # fmt: skip


def _register_float_unary(name: str, make: Callable[[SSAValue], object]) -> None:
    @lowers(f"aten.{name}.default")
    def rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
        def body(v: list[SSAValue], dt: DType) -> SSAValue:
            if name == "log10":
                return _wide_log10(st, v[0], dt)
            if dt is DType.float64 and name in _F64_UNARY:
                return _F64_UNARY[name](st, v[0])
            if name in _WIDENED:
                wide = DType.float64
                return st.cast(_F64_UNARY[name](st, st.cast(v[0], dt, wide)), wide, dt)
            if name == "erf":
                # erf is odd; IREE's float32 expansion gives +0.0 at -0.0
                return st.emit(math.CopySignOp(st.emit(math.ErfOp(v[0])), v[0]))
            return st.emit(cast(Operation, make(v[0])))

        return _pointwise(st, op, [b["self"]], body)

    _ = rule


for _name, _make in _FLOAT_UNARY.items():
    _register_float_unary(_name, _make)


@lowers("aten.sigmoid.default")
def _sigmoid(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"]], lambda v, dt: sigmoid(st, v[0], dt))


@lowers("aten.reciprocal.default")
def _reciprocal(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"]], lambda v, dt: div(st, st.constant(1.0, dt), v[0], dt))


@lowers("aten.gelu.default")
def _gelu(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """The erf form computed in float32 gives NaN at +inf for a tensor of more than one
    element, as torch's vectorized float32 loop does (its scalar loop, which a single
    element takes, gives inf; so does the numpy kernel, which follows both)."""
    approximate = cast(str, b["approximate"])
    sizes = _result(op).sizes
    single = all(isinstance(n, int) for n in sizes) and pymath.prod(cast(list[int], sizes)) == 1

    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        y = gelu(st, v[0], dt, approximate)
        if approximate == "tanh" or dt is not DType.float32 or single:
            return y
        at_inf = st.emit(arith.CmpfOp(v[0], st.constant(pymath.inf, dt), "oeq"))
        return select(st, at_inf, st.constant(pymath.nan, dt), y)

    return _pointwise(st, op, [b["self"]], body)


@lowers("aten.silu.default")
def _silu(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"]], lambda v, dt: mul(st, v[0], sigmoid(st, v[0], dt), dt))


@lowers("aten.relu.default")
def _relu(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """`x < 0 ? 0 : x`: -0.0 and NaN pass through, as torch's kernel leaves them (a maximum would give +0.0)."""

    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        zero = st.constant(0, dt)
        return select(st, compare(st, "lt", v[0], zero, dt), zero, v[0])

    return _pointwise(st, op, [b["self"]], body)


@lowers("aten.neg.default")
def _neg(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        if _is_float(dt):
            return st.emit(arith.NegfOp(v[0]))
        return st.emit(arith.SubiOp(st.constant(0, dt), v[0]))

    return _pointwise(st, op, [b["self"]], body)


@lowers("aten.abs.default")
def _abs(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        if _is_float(dt):
            return st.emit(math.AbsFOp(v[0]))
        if is_unsigned(dt):
            return v[0]
        return st.emit(math.AbsIOp(v[0]))

    return _pointwise(st, op, [b["self"]], body)


def _rounding(name: str, make: Callable[[SSAValue], object]) -> None:
    @lowers(f"aten.{name}.default")
    def rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
        def body(v: list[SSAValue], dt: DType) -> SSAValue:
            return st.emit(cast(Operation, make(v[0]))) if _is_float(dt) else v[0]

        return _pointwise(st, op, [b["self"]], body)

    _ = rule


_rounding("floor", math.FloorOp)
_rounding("ceil", math.CeilOp)
_rounding("round", math.RoundEvenOp)
_rounding("trunc", math.TruncOp)


@lowers("aten.sign.default")
def _sign(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        zero, one, minus = st.constant(0, dt), st.constant(1, dt), st.constant(-1, dt)
        pos = select(st, compare(st, "gt", v[0], zero, dt), one, zero)
        return select(st, compare(st, "lt", v[0], zero, dt), minus, pos)

    return _pointwise(st, op, [b["self"]], body)


@lowers("aten.isnan.default")
def _isnan(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    dt = cast(TensorType, cast(SSAValue, x).type).element_dtype

    def body(v: list[SSAValue], inner: DType) -> SSAValue:
        if not _is_float(inner):
            return st.constant(False, DType.bool)
        return st.emit(arith.CmpfOp(v[0], v[0], "uno"))

    return _pointwise(st, op, [x], body, compute=dt, fn_dtype=DType.bool)


@lowers("aten.isinf.default")
def _isinf(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    dt = cast(TensorType, cast(SSAValue, x).type).element_dtype

    def body(v: list[SSAValue], inner: DType) -> SSAValue:
        if not _is_float(inner):
            return st.constant(False, DType.bool)
        return st.emit(arith.CmpfOp(st.emit(math.AbsFOp(v[0])), st.constant(float("inf"), inner), "oeq"))

    return _pointwise(st, op, [x], body, compute=dt, fn_dtype=DType.bool)


@lowers("aten.logical_not.default")
def _logical_not(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(
        st, op, [b["self"]], lambda v, dt: st.emit(arith.XOrIOp(v[0], st.constant(True, DType.bool))),
        compute=DType.bool, fn_dtype=DType.bool,
    )  # fmt: skip


@lowers("aten.bitwise_not.default")
def _bitwise_not(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"]], lambda v, dt: st.emit(arith.XOrIOp(v[0], st.constant(-1 if dt is not DType.bool else True, dt))))


# -- binary -------------------------------------------------------------------


def _with_alpha(st: LoweringState, v: SSAValue, alpha: object, dt: DType) -> SSAValue:
    if alpha is None or alpha == 1:
        return v
    return mul(st, v, st.scalar(alpha, dt), dt)


@lowers("aten.add.Tensor", "aten.add.Scalar")
def _add(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    alpha = b.get("alpha")
    return _pointwise(st, op, [b["self"], b["other"]], lambda v, dt: add(st, v[0], _with_alpha(st, v[1], alpha, dt), dt))


@lowers("aten.sub.Tensor", "aten.sub.Scalar")
def _sub(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    alpha = b.get("alpha")
    return _pointwise(st, op, [b["self"], b["other"]], lambda v, dt: sub(st, v[0], _with_alpha(st, v[1], alpha, dt), dt))


@lowers("aten.rsub.Scalar", "aten.rsub.Tensor")
def _rsub(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    alpha = b.get("alpha")
    return _pointwise(st, op, [b["self"], b["other"]], lambda v, dt: sub(st, v[1], _with_alpha(st, v[0], alpha, dt), dt))


@lowers("aten.mul.Tensor", "aten.mul.Scalar")
def _mul(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"], b["other"]], lambda v, dt: mul(st, v[0], v[1], dt))


@lowers("aten.div.Tensor", "aten.div.Scalar")
def _div(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"], b["other"]], lambda v, dt: div(st, v[0], v[1], dt))


@lowers("aten.div.Tensor_mode", "aten.div.Scalar_mode")
def _div_mode(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    mode = b.get("rounding_mode")
    _refuse_zero_divisor(st, op, b["other"])

    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        if mode == "floor":
            return floor_divide(st, v[0], v[1], dt)
        if mode == "trunc":
            return trunc_divide(st, v[0], v[1], dt)
        return div(st, v[0], v[1], dt)

    return _pointwise(st, op, [b["self"], b["other"]], body)


@lowers("aten.floor_divide.default", "aten.floor_divide.Scalar")
def _floor_divide(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    _refuse_zero_divisor(st, op, b["other"])
    return _pointwise(st, op, [b["self"], b["other"]], lambda v, dt: floor_divide(st, v[0], v[1], dt))


@lowers("aten.remainder.Tensor", "aten.remainder.Scalar")
def _remainder(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    _refuse_zero_divisor(st, op, b["other"])
    return _pointwise(st, op, [b["self"], b["other"]], lambda v, dt: remainder(st, v[0], v[1], dt))


@lowers("aten.fmod.Tensor", "aten.fmod.Scalar")
def _fmod(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    _refuse_zero_divisor(st, op, b["other"])
    return _pointwise(st, op, [b["self"], b["other"]], lambda v, dt: fmod(st, v[0], v[1], dt))


@lowers("aten.pow.Tensor_Tensor", "aten.pow.Scalar")
def _pow(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"], b["exponent"]], lambda v, dt: pow_(st, v[0], v[1], dt))


@lowers("aten.pow.Tensor_Scalar")
def _pow_scalar(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    e = b["exponent"]
    if not _result(op).element_dtype.is_floating_point and isinstance(e, int) and not isinstance(e, bool):
        if e < 0:
            raise st.error("pow of an integer tensor to a negative integer power: torch refuses it too ('Integers to negative integer powers are not allowed')")
        return _pointwise(st, op, [b["self"]], lambda v, dt: _constant_power(st, v[0], e, dt))
    if isinstance(e, int | float) and not isinstance(e, bool) and float(e) in (1.0, 2.0, 3.0, 0.5, -1.0):
        # The exponents PyTorch's kernel special-cases, computed the same way.
        def body(v: list[SSAValue], dt: DType) -> SSAValue:
            x = v[0]
            if e == 1:
                return x
            if e == 2:
                return mul(st, x, x, dt)
            if e == 3:
                return mul(st, mul(st, x, x, dt), x, dt)
            if e == 0.5 and _is_float(dt):
                return st.emit(math.SqrtOp(x))
            if e == -1 and _is_float(dt):
                return div(st, st.constant(1.0, dt), x, dt)
            return pow_(st, x, st.scalar(e, dt), dt)

        return _pointwise(st, op, [b["self"]], body)
    return _pointwise(st, op, [b["self"], e], lambda v, dt: pow_(st, v[0], v[1], dt))


@lowers("aten.maximum.default", "aten.fmax.default")
def _maximum(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    fmax = op.name == "aten.fmax.default"
    return _pointwise(
        st, op, [b["self"], b["other"]],
        lambda v, dt: st.emit(arith.MaxnumfOp(v[0], v[1])) if fmax and _is_float(dt) else pointwise_maximum(st, v[0], v[1], dt),
    )  # fmt: skip


@lowers("aten.minimum.default", "aten.fmin.default")
def _minimum(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    fmin = op.name == "aten.fmin.default"
    return _pointwise(
        st, op, [b["self"], b["other"]],
        lambda v, dt: st.emit(arith.MinnumfOp(v[0], v[1])) if fmin and _is_float(dt) else pointwise_minimum(st, v[0], v[1], dt),
    )  # fmt: skip


@lowers("aten.atan2.default")
def _atan2(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """float64 through `atan2_f64` (no libm); float32 (and 16-bit floats) computed there too and rounded once."""

    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        wide = DType.float64
        return st.cast(atan2_f64(st, st.cast(v[0], dt, wide), st.cast(v[1], dt, wide)), wide, dt)

    return _pointwise(st, op, [b["self"], b["other"]], body)


def _bitwise(name: str, make: Callable[[SSAValue, SSAValue], object]) -> None:
    @lowers(f"aten.{name}.Tensor", f"aten.{name}.Scalar")
    def rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
        return _pointwise(st, op, [b["self"], b["other"]], lambda v, dt: st.emit(cast(Operation, make(v[0], v[1]))))

    _ = rule


_bitwise("bitwise_and", arith.AndIOp)
_bitwise("bitwise_or", arith.OrIOp)
_bitwise("bitwise_xor", arith.XOrIOp)


def _shift(names: tuple[str, ...], left: bool) -> None:
    @lowers(*names)
    def rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
        def body(v: list[SSAValue], dt: DType) -> SSAValue:
            if left:
                return st.emit(arith.ShLIOp(v[0], v[1]))
            return st.emit(arith.ShRUIOp(v[0], v[1]) if is_unsigned(dt) else arith.ShRSIOp(v[0], v[1]))

        return _pointwise(st, op, [b["self"], b["other"]], body)

    _ = rule


_shift(("aten.bitwise_left_shift.Tensor", "aten.bitwise_left_shift.Tensor_Scalar", "aten.__lshift__.Scalar", "aten.__lshift__.Tensor"), True)
_shift(("aten.bitwise_right_shift.Tensor", "aten.bitwise_right_shift.Tensor_Scalar", "aten.__rshift__.Scalar", "aten.__rshift__.Tensor"), False)


def _logical(name: str, make: Callable[[SSAValue, SSAValue], object]) -> None:
    @lowers(f"aten.{name}.default")
    def rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
        return _pointwise(
            st, op, [b["self"], b["other"]], lambda v, dt: st.emit(cast(Operation, make(v[0], v[1]))),
            compute=DType.bool, fn_dtype=DType.bool,
        )  # fmt: skip

    _ = rule


_logical("logical_and", arith.AndIOp)
_logical("logical_or", arith.OrIOp)
_logical("logical_xor", arith.XOrIOp)


def _comparison(kind: str) -> None:
    @lowers(f"aten.{kind}.Tensor", f"aten.{kind}.Scalar")
    def rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
        operands = [b["self"], b["other"]]
        dt = result_type(operands)
        return _pointwise(st, op, operands, lambda v, inner: compare(st, kind, v[0], v[1], inner), compute=dt, fn_dtype=DType.bool)

    _ = rule


for _kind in ("eq", "ne", "lt", "le", "gt", "ge"):
    _comparison(_kind)


# -- ternary and parametrized -------------------------------------------------


@lowers("aten.where.self", "aten.where.ScalarSelf", "aten.where.ScalarOther", "aten.where.Scalar")
def _where(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(
        st, op, [b["condition"], b["self"], b["other"]], lambda v, dt: select(st, v[0], v[1], v[2]),
        operand_dtypes=[DType.bool, None, None],
    )  # fmt: skip


@lowers("aten.masked_fill.Scalar", "aten.masked_fill.Tensor")
def _masked_fill(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(
        st, op, [b["mask"], b["value"], b["self"]], lambda v, dt: select(st, v[0], v[1], v[2]),
        operand_dtypes=[DType.bool, None, None],
    )  # fmt: skip


def _clamp_body(st: LoweringState, lo: object, hi: object) -> Callable[[list[SSAValue], DType], SSAValue]:
    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        x = v[0]
        k = 1
        if lo is not None:
            x = pointwise_maximum(st, x, v[k], dt)
            k += 1
        if hi is not None:
            x = pointwise_minimum(st, x, v[k], dt)
        return x

    return body


@lowers("aten.clamp.default", "aten.clamp.Tensor")
def _clamp(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    lo, hi = b.get("min"), b.get("max")
    operands = [b["self"], *(x for x in (lo, hi) if x is not None)]
    return _pointwise(st, op, operands, _clamp_body(st, lo, hi))


@lowers("aten.clamp_min.default", "aten.clamp_min.Tensor")
def _clamp_min(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"], b["min"]], _clamp_body(st, b["min"], None))


@lowers("aten.clamp_max.default", "aten.clamp_max.Tensor")
def _clamp_max(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"], b["max"]], _clamp_body(st, None, b["max"]))


@lowers("aten.hardtanh.default")
def _hardtanh(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """`x < lo ? lo : (x > hi ? hi : x)`, torch's kernel: NaN passes, and -0.0 stays -0.0
    at a bound of 0 (`relu6`), where a maximum would give the bound's +0.0."""

    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        x, lo, hi = v
        return select(st, compare(st, "lt", x, lo, dt), lo, select(st, compare(st, "gt", x, hi, dt), hi, x))

    return _pointwise(st, op, [b["self"], b["min_val"], b["max_val"]], body)


@lowers("aten.leaky_relu.default")
def _leaky_relu(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        x = v[0]
        positive = compare(st, "gt", x, st.constant(0.0, dt), dt)
        return select(st, positive, x, mul(st, x, v[1], dt))

    return _pointwise(st, op, [b["self"], b["negative_slope"]], body)


@lowers("aten.elu.default")
def _elu(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        x, alpha, scale, input_scale = v
        positive = compare(st, "gt", x, st.constant(0.0, dt), dt)
        neg = mul(st, alpha, st.emit(math.ExpM1Op(mul(st, x, input_scale, dt))), dt)
        return mul(st, select(st, positive, x, neg), scale, dt)

    return _pointwise(st, op, [b["self"], b["alpha"], b["scale"], b["input_scale"]], body)


@lowers("aten.hardsigmoid.default")
def _hardsigmoid(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        y = div(st, add(st, v[0], st.constant(3.0, dt), dt), st.constant(6.0, dt), dt)
        return minimum(st, maximum(st, y, st.constant(0.0, dt), dt), st.constant(1.0, dt), dt)

    return _pointwise(st, op, [b["self"]], body)


@lowers("aten.hardswish.default")
def _hardswish(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        r = add(st, v[0], st.constant(3.0, dt), dt)
        r = minimum(st, maximum(st, r, st.constant(0.0, dt), dt), st.constant(6.0, dt), dt)
        return div(st, mul(st, v[0], r, dt), st.constant(6.0, dt), dt)

    return _pointwise(st, op, [b["self"]], body)


@lowers("aten.lerp.Scalar", "aten.lerp.Tensor")
def _lerp(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        start, end, w = v
        return add(st, start, mul(st, w, sub(st, end, start, dt), dt), dt)

    return _pointwise(st, op, [b["self"], b["end"], b["weight"]], body)


@lowers("aten._to_copy.default", "aten.clone.default", "aten.alias.default", "aten.lift_fresh_copy.default", "aten.detach.default", "aten.alias_copy.default", "aten.detach_copy.default")
def _copy(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """Value semantics: a copy is the value itself, converted to the result dtype."""
    x = cast(SSAValue, b["self"])
    t = cast(TensorType, x.type)
    return [st.convert(st.tensor(x), t, _result(op).element_dtype)]


@lowers("aten.scalar_tensor.default")
def _scalar_tensor(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    out = _result(op)
    value = b["s"]
    if isinstance(value, bool | int | float):
        return [st.filled(out, value)]
    return _pointwise(st, op, [value], lambda v, dt: v[0])
