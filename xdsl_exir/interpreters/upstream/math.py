"""
`math` on numpy values. Every op of xDSL's `math` dialect is here; results
keep the operand's dtype (numpy's float16/32/64 loops round to it), and bf16
results are rounded to bf16. `math.erf` is the ATen kernels' erf (numpy has
none and scipy is not a dependency), so both interpreters agree to the bit.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
from xdsl.dialects import math
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from xdsl_exir.interpreters.upstream.values import (
    bit_width,
    finish,
    numpy_dtype,
    to_signed,
    to_unsigned,
    wrap_int,
)
from xdsl_exir.semantics.kernels.pointwise import erf


def _float_unary(op: Operation, args: PythonValues, fn: Callable[[Any], Any]) -> PythonValues:
    with np.errstate(all="ignore"):
        return (finish(fn(args[0]), op.results[0].type),)


def _float_binary(op: Operation, args: PythonValues, fn: Callable[[Any, Any], Any]) -> PythonValues:
    with np.errstate(all="ignore"):
        return (finish(fn(args[0], args[1]), op.results[0].type),)


def _in_dtype(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`fn` computed in float64 and rounded back to the operand's dtype."""

    def apply(x: Any) -> Any:
        arr = np.asarray(x)
        return np.asarray(fn(arr)).astype(arr.dtype)[()]

    return apply


def _fma_f64(a: Any, b: Any, c: Any, dtype: Any) -> Any:
    """
    float64 a*b+c correctly rounded: the exact value as a Fraction, rounded
    once by Python's correctly rounded int division. Operands that are not
    all finite follow IEEE's fma through numpy's a*b+c (a NaN or infinite
    operand decides the result alike); an exact zero takes its sign from
    a*b+c when the product is zero (IEEE's rule for signed zeros), else +0.
    """
    aa, bb, cc = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64), np.asarray(c, np.float64))
    plain = np.add(np.multiply(aa, bb), cc)
    out = np.array(plain, dtype=np.float64, copy=True)
    finite = np.isfinite(aa) & np.isfinite(bb) & np.isfinite(cc)
    for i in zip(*np.nonzero(finite)) if out.ndim else ([()] if bool(finite) else []):
        x, y, z = float(aa[i]), float(bb[i]), float(cc[i])
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        if exact == 0:
            out[i] = plain[i] if x == 0 or y == 0 else 0.0
            continue
        try:
            out[i] = float(exact)
        except OverflowError:
            out[i] = np.inf if exact > 0 else -np.inf
    return out.astype(dtype)[()]


def _fma_narrow(a: Any, b: Any, c: Any, dtype: Any) -> Any:
    """
    f16/f32 a*b+c rounded once: the product is exact in float64 and the sum
    is taken exactly as s + t (Knuth's TwoSum); s is then rounded to odd
    (stepped one ulp towards s + t when t != 0 and s is even), and a float64
    rounded to odd rounds to any format of at most 51 bits as the exact
    value would (Boldo and Melquiond, "When double rounding is odd").
    """
    p = np.multiply(np.asarray(a, np.float64), np.asarray(b, np.float64))
    c64 = np.asarray(c, np.float64)
    s = np.add(p, c64)
    v = np.subtract(s, p)
    t = np.add(np.subtract(p, np.subtract(s, v)), np.subtract(c64, v))
    even = (np.asarray(s, np.float64).view(np.uint64) & np.uint64(1)) == 0
    inexact = np.isfinite(s) & (t != 0) & even
    s = np.where(inexact, np.nextafter(s, np.copysign(np.inf, t)), s)
    return np.asarray(s).astype(dtype)[()]


def _round_half_away(x: Any) -> Any:
    """math.round: halfway cases away from zero (numpy's round is to even)."""
    t = np.trunc(x)
    up = np.abs(np.subtract(x, t)) >= 0.5  # x - t is exact
    return np.copysign(np.where(up, t + np.sign(x), t), x)[()]


def _rsqrt(x: Any) -> Any:
    return np.reciprocal(np.sqrt(x))


def _ipowi(base: Any, exponent: Any) -> Any:
    """
    Integer power with wrap-around. A negative exponent gives 0 except for
    bases 1 and -1 (division by a zero base is poison in MLIR; 0 here).
    """
    positive = np.power(base, np.maximum(exponent, 0))
    odd = np.bitwise_and(exponent, 1) != 0
    negative = np.where(base == 1, 1, np.where(base == -1, np.where(odd, -1, 1), 0))
    return np.where(exponent < 0, negative, positive)


def _bit_length(u: np.ndarray) -> np.ndarray:
    """Vectorized int.bit_length of unsigned `u`, by binary search on its highest bit."""
    v = u.astype(np.uint64)
    length = np.zeros(v.shape, dtype=np.int64)
    for shift in (32, 16, 8, 4, 2, 1):
        high = v >= (np.uint64(1) << np.uint64(shift))
        length += np.where(high, shift, 0)
        v = np.where(high, v >> np.uint64(shift), v)
    return length + (v > 0)


@register_impls
class MathFunctions(InterpreterFunctions):
    """`math` ops on numpy scalars and arrays."""

    @impl(math.AbsFOp)
    def run_absf(self, interpreter: Interpreter, op: math.AbsFOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.abs)

    @impl(math.AbsIOp)
    def run_absi(self, interpreter: Interpreter, op: math.AbsIOp, args: PythonValues) -> PythonValues:
        t = op.result.type
        with np.errstate(all="ignore"):
            return (wrap_int(np.abs(to_signed(args[0], t)), t),)

    @impl(math.AcosOp)
    def run_acos(self, interpreter: Interpreter, op: math.AcosOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.arccos)

    @impl(math.AcoshOp)
    def run_acosh(self, interpreter: Interpreter, op: math.AcoshOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.arccosh)

    @impl(math.AsinOp)
    def run_asin(self, interpreter: Interpreter, op: math.AsinOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.arcsin)

    @impl(math.AsinhOp)
    def run_asinh(self, interpreter: Interpreter, op: math.AsinhOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.arcsinh)

    @impl(math.AtanOp)
    def run_atan(self, interpreter: Interpreter, op: math.AtanOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.arctan)

    @impl(math.AtanhOp)
    def run_atanh(self, interpreter: Interpreter, op: math.AtanhOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.arctanh)

    @impl(math.Atan2Op)
    def run_atan2(self, interpreter: Interpreter, op: math.Atan2Op, args: PythonValues) -> PythonValues:
        return _float_binary(op, args, np.arctan2)

    @impl(math.CbrtOp)
    def run_cbrt(self, interpreter: Interpreter, op: math.CbrtOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.cbrt)

    @impl(math.CeilOp)
    def run_ceil(self, interpreter: Interpreter, op: math.CeilOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.ceil)

    @impl(math.CopySignOp)
    def run_copysign(self, interpreter: Interpreter, op: math.CopySignOp, args: PythonValues) -> PythonValues:
        return _float_binary(op, args, np.copysign)

    @impl(math.CosOp)
    def run_cos(self, interpreter: Interpreter, op: math.CosOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.cos)

    @impl(math.CoshOp)
    def run_cosh(self, interpreter: Interpreter, op: math.CoshOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.cosh)

    @impl(math.CountLeadingZerosOp)
    def run_ctlz(self, interpreter: Interpreter, op: math.CountLeadingZerosOp, args: PythonValues) -> PythonValues:
        t = op.result.type
        return (wrap_int(bit_width(t) - _bit_length(to_unsigned(args[0], t)), t),)

    @impl(math.CountTrailingZerosOp)
    def run_cttz(self, interpreter: Interpreter, op: math.CountTrailingZerosOp, args: PythonValues) -> PythonValues:
        t = op.result.type
        u = to_unsigned(args[0], t)
        with np.errstate(all="ignore"):
            below_lowest = np.bitwise_and(u, np.negative(u)) - np.ones((), dtype=u.dtype)
        return (wrap_int(np.minimum(np.bitwise_count(below_lowest), bit_width(t)), t),)

    @impl(math.CtPopOp)
    def run_ctpop(self, interpreter: Interpreter, op: math.CtPopOp, args: PythonValues) -> PythonValues:
        t = op.result.type
        return (wrap_int(np.bitwise_count(to_unsigned(args[0], t)), t),)

    @impl(math.ErfOp)
    def run_erf(self, interpreter: Interpreter, op: math.ErfOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, _in_dtype(erf))

    @impl(math.Exp2Op)
    def run_exp2(self, interpreter: Interpreter, op: math.Exp2Op, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.exp2)

    @impl(math.ExpM1Op)
    def run_expm1(self, interpreter: Interpreter, op: math.ExpM1Op, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.expm1)

    @impl(math.ExpOp)
    def run_exp(self, interpreter: Interpreter, op: math.ExpOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.exp)

    @impl(math.FPowIOp)
    def run_fpowi(self, interpreter: Interpreter, op: math.FPowIOp, args: PythonValues) -> PythonValues:
        base, exponent = args
        dtype = np.asarray(base).dtype
        power = np.asarray(to_signed(exponent, op.rhs.type)).astype(dtype)
        with np.errstate(all="ignore"):
            return (finish(np.power(base, power), op.result.type),)

    @impl(math.FloorOp)
    def run_floor(self, interpreter: Interpreter, op: math.FloorOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.floor)

    @impl(math.FmaOp)
    def run_fma(self, interpreter: Interpreter, op: math.FmaOp, args: PythonValues) -> PythonValues:
        """
        a*b+c rounded once, as the lowering's float64 `fmod` needs (its exact
        remainder step is an fma): see `_fma_f64` and `_fma_narrow`.
        """
        a, b, c = args
        dtype = numpy_dtype(op.result.type)
        fused = _fma_f64 if dtype == np.float64 else _fma_narrow
        with np.errstate(all="ignore"):
            return (finish(fused(a, b, c, dtype), op.result.type),)

    @impl(math.IPowIOp)
    def run_ipowi(self, interpreter: Interpreter, op: math.IPowIOp, args: PythonValues) -> PythonValues:
        t = op.result.type
        with np.errstate(all="ignore"):
            return (wrap_int(_ipowi(to_signed(args[0], t), to_signed(args[1], t)), t),)

    @impl(math.Log10Op)
    def run_log10(self, interpreter: Interpreter, op: math.Log10Op, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.log10)

    @impl(math.Log1pOp)
    def run_log1p(self, interpreter: Interpreter, op: math.Log1pOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.log1p)

    @impl(math.Log2Op)
    def run_log2(self, interpreter: Interpreter, op: math.Log2Op, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.log2)

    @impl(math.LogOp)
    def run_log(self, interpreter: Interpreter, op: math.LogOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.log)

    @impl(math.PowFOp)
    def run_powf(self, interpreter: Interpreter, op: math.PowFOp, args: PythonValues) -> PythonValues:
        return _float_binary(op, args, np.power)

    @impl(math.RoundEvenOp)
    def run_roundeven(self, interpreter: Interpreter, op: math.RoundEvenOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.rint)

    @impl(math.RoundOp)
    def run_round(self, interpreter: Interpreter, op: math.RoundOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, _round_half_away)

    @impl(math.RsqrtOp)
    def run_rsqrt(self, interpreter: Interpreter, op: math.RsqrtOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, _rsqrt)

    @impl(math.SinOp)
    def run_sin(self, interpreter: Interpreter, op: math.SinOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.sin)

    @impl(math.SinhOp)
    def run_sinh(self, interpreter: Interpreter, op: math.SinhOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.sinh)

    @impl(math.SqrtOp)
    def run_sqrt(self, interpreter: Interpreter, op: math.SqrtOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.sqrt)

    @impl(math.TanOp)
    def run_tan(self, interpreter: Interpreter, op: math.TanOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.tan)

    @impl(math.TanhOp)
    def run_tanh(self, interpreter: Interpreter, op: math.TanhOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.tanh)

    @impl(math.TruncOp)
    def run_trunc(self, interpreter: Interpreter, op: math.TruncOp, args: PythonValues) -> PythonValues:
        return _float_unary(op, args, np.trunc)
