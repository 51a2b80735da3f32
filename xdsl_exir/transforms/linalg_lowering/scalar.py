"""
The scalar bodies the lowerings build inside `linalg.generic` regions, operands already in the
compute dtype: arithmetic, maximum and minimum (NaN-propagating where torch's are), comparisons
and `select`, division and remainders as torch's CPU kernels define them (an integer divisor that
is zero at run time never traps), and powers (integer `pow` wraps, float `pow` has C's special
values). Every family of the lowering builds its arithmetic from these.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, builtin, math
from xdsl.ir import SSAValue

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import DType
from xdsl_exir.transforms.linalg_lowering.state import LoweringState, is_unsigned
from xdsl_exir.transforms.linalg_lowering.state import result_of as _result

Body = Callable[[LoweringState, list[SSAValue], DType], SSAValue]


def is_float(dt: DType) -> bool:
    return dt.is_floating_point


# -- scalar building blocks (operands already in the compute dtype) ----------


def add(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    if is_float(dt):
        return st.emit(arith.AddfOp(a, b))
    if dt is DType.bool:
        return st.emit(arith.OrIOp(a, b))
    return st.emit(arith.AddiOp(a, b))


def sub(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    return st.emit(arith.SubfOp(a, b)) if is_float(dt) else st.emit(arith.SubiOp(a, b))


def mul(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    if is_float(dt):
        return st.emit(arith.MulfOp(a, b))
    if dt is DType.bool:
        return st.emit(arith.AndIOp(a, b))
    return st.emit(arith.MuliOp(a, b))


def div(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    return st.emit(arith.DivfOp(a, b))


def maximum(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    """NaN-propagating maximum (-0.0 below +0.0: the reductions' combiner)."""
    if is_float(dt):
        return st.emit(arith.MaximumfOp(a, b))
    return st.emit(arith.MaxUIOp(a, b) if is_unsigned(dt) else arith.MaxSIOp(a, b))


def minimum(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    if is_float(dt):
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
    return _pick_float(st, "ogt", a, b) if is_float(dt) else maximum(st, a, b, dt)


def pointwise_minimum(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    return _pick_float(st, "olt", a, b) if is_float(dt) else minimum(st, a, b, dt)


_FLOAT_PRED = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}
_SIGNED_PRED = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}
_UNSIGNED_PRED = {"eq": "eq", "ne": "ne", "lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge"}


def compare(st: LoweringState, kind: str, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    if is_float(dt):
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
# is refused (`refuse_zero_divisor`). A divisor that is zero only at run time
# is computed as 1, so the documented value is: the dividend itself for
# `floor_divide` and `div` with a rounding mode, 0 for `remainder` and `fmod`
# (torch gives no value there). INT_MIN / -1 is computed as INT_MIN / 1, which
# is the wrapped quotient torch returns (and a remainder of 0).


def refuse_zero_divisor(st: LoweringState, op: AtenOp, divisor: object) -> None:
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
    if is_float(dt):
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
    if not is_float(dt):
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
    if not is_float(dt):
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
    zero = st.constant(0.0 if is_float(dt) else 0, dt)
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


def constant_power(st: LoweringState, x: SSAValue, e: int, dt: DType) -> SSAValue:
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
    if is_float(dt):
        return float_power(st, a, b, dt)
    return int_power(st, a, b, dt)
