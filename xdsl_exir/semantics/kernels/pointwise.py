"""Pointwise kernels: unary (tables plus the ones with arguments), binary and
ternary, with torch's type promotion.

Each kernel promotes its operands, computes in the opmath type and casts the
result (:func:`run_pointwise`). :func:`erf` is here because numpy has none and
scipy is not a dependency; the upstream-dialect interpreter's ``math.erf`` uses
the same one, so both interpreters agree to the last bit.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike

from xdsl_exir.semantics.kernels.core import run_pointwise
from xdsl_exir.semantics.kernels.dtypes import (
    BOOL,
    F16,
    F32,
    I64,
    cast_to,
    compute_dtype,
    finish,
    floating_dtype,
    is_tensor,
    numpy_dtype,
    result_type,
    round_to_bfloat16,
)
from xdsl_exir.semantics.kernels.registry import LOW_PRECISION_OPERANDS, Kernel, register
from xdsl_exir.utils.aten_enums import require_enum
from xdsl_exir.utils.dtypes import DType
from xdsl_exir.utils.erfc_fit import ERFCX_P, ERFCX_Q

# Rational approximations of erf, fitted for this project by `scripts/fit_erf.py`
# (linearised least squares on Chebyshev nodes with Lawson reweighting, in
# mpmath at 60 digits, relative error). Coefficients are in increasing powers.
#
# float32 and float16: erf(x)/x = P(x^2)/Q(x^2) on |x| <= 4, relative error
# 2.0e-9 (float32's half ulp is 3.0e-8); beyond 4, erfc(x) < 1.6e-8 and erf
# rounds to +-1 in float32. Evaluated in float64, so the only error left is
# the final rounding: within one float32 ulp.
_ERF32_P = (
    1.1283791693525622336, 0.18520779176399323336, 0.054316915031520406519, 0.0038497204946059968085,
    0.00037958593309004425408, 4.6840529112081795129e-6, -1.3198789797883624375e-8,
)
_ERF32_Q = (
    1.0, 0.49746954524500718057, 0.11395977146747901796, 0.015462228674900759916, 0.0013075613145287475317,
    0.000063103752189614055339,
)
_ERF32_CLIP = 4.0
# float64: erf(x) = x + x P(x^2)/Q(x^2) on |x| <= 1 (the rational is erf(x)/x - 1,
# so its rounding errors are scaled down; error relative to erf 7.0e-19), and
# erfc(x) exp(x^2) = P(x)/Q(x) on 1 <= x <= 6 (1.5e-18; `utils/erfc_fit.py`), erf = 1 - erfc there;
# beyond 6, erfc(x) < 2.2e-17, under half an ulp of 1.
_ERF64_P = (
    0.12837916709551257468, -0.3170061787195335388, -0.048329359143174707977, -0.0088156524721662597239,
    -0.00049561107407745796947, -0.000020732427240378565407,
)
_ERF64_Q = (
    1.0, 0.46051249318605918157, 0.093812926083453520386, 0.010693050801051727784, 0.00069249531135621578785,
    0.00002081012503877942261,
)
_ERFCX_P, _ERFCX_Q = ERFCX_P, ERFCX_Q
_ERF64_CLIP = 6.0
# Float32 GELU is x/2 (1 + tanh(x G(x^2))), evaluated in float32 throughout: half
# the memory traffic and twice the SIMD width of a float64 evaluation, and numpy's
# float32 tanh is vectorised. The polynomial G fits atanh(erf(x/sqrt 2))/x on
# [0, 6] with absolute error 2.9e-8 on Phi (`scripts/fit_erf.py`); beyond 6,
# x G(x^2) > 11 and tanh is 1 in float32, so no clip is needed. torch's float32
# GELU is itself not correctly rounded (2-5 ulp where x Phi(x) is well
# conditioned, absolute error near |x| eps where 1 + erf cancels);
# `tests/test_erf.py` holds this one to torch's own error.
_GELU_F32_G = tuple(
    np.float32(c)
    for c in (
        0.7978849414197801, 0.036333084645392456, -3.259497666390902e-05, -5.5306220173591377e-05,
        3.964753778555017e-06, -1.322644312120488e-07, 1.7562107985308436e-09,
    )
)  # fmt: skip
# Elements per block: the temporaries of one block stay in cache, so the ~30
# numpy calls of a rational evaluation run at cache speed, not memory speed.
_BLOCK = 16384
# Float32 GELU's blocks: its three float32 block arrays (input, result, scratch) take
# 768 KiB, within a 1 MiB L2. Its ~18 numpy calls a block cost about a microsecond each
# beside the arithmetic, so fewer, larger blocks win while they stay in L2 (measured,
# one thread, interleaved, on 38k, 200k and 1.2M elements: 64k-element blocks 5-18%
# faster than 32k, and 96k or 128k no faster than 64k).
_BLOCK32 = 4 * _BLOCK
Block = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], None]


def _polyval(coeffs: tuple[float | np.float32, ...], t: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Horner's rule into `out`, in place: no temporaries (float32 coefficients keep a
    float32 evaluation in float32)."""
    np.multiply(t, coeffs[-1], out=out)
    np.add(out, coeffs[-2], out=out)
    for c in coeffs[-3::-1]:
        np.multiply(out, t, out=out)
        np.add(out, c, out=out)
    return out


def _gelu_float32(x: np.ndarray) -> np.ndarray:
    """Float32 GELU over cache-sized blocks, one float32 scratch block reused."""
    flat = np.ascontiguousarray(x, dtype=np.float32).reshape(-1)
    res = np.empty(flat.shape, np.float32)
    n = flat.size
    m = min(n, _BLOCK32)
    t = np.empty(m, np.float32)
    half, one = np.float32(0.5), np.float32(1.0)
    # x^2 and G overflow to inf for |x| > 1e19 (tanh is 1 all the same); -inf gives
    # -inf * 0 = NaN, as torch's does
    with np.errstate(over="ignore", invalid="ignore"):
        for s in range(0, n, _BLOCK32):
            e = min(s + _BLOCK32, n)
            xb, rb, tb = flat[s:e], res[s:e], t[: e - s]
            np.multiply(xb, xb, out=tb)
            _polyval(_GELU_F32_G, tb, rb)
            np.multiply(rb, xb, out=rb)
            np.tanh(rb, out=rb)
            np.add(rb, one, out=rb)
            np.multiply(rb, xb, out=rb)
            np.multiply(rb, half, out=rb)
            if n > 1 and not xb.max() < np.inf:  # a +inf or a NaN in the block (still in cache)
                # torch's vectorized loop (any tensor of more than one element) gives NaN
                # at +inf; its scalar loop, for a single element, gives inf as here
                rb[xb == np.inf] = np.nan
    return res.reshape(x.shape)


def _erf32_block(
    p_coeffs: tuple[float, ...], q_coeffs: tuple[float, ...], bound: float
) -> Block:
    """erf for float32/float16 blocks: x P(x^2)/Q(x^2) in float64, rounded once into `out`."""

    def block(x: np.ndarray, out: np.ndarray, a: np.ndarray, t: np.ndarray, p: np.ndarray, q: np.ndarray) -> None:
        np.clip(x, -bound, bound, out=a)  # read in x's dtype, widened to float64 on the way
        np.multiply(a, a, out=t)
        _polyval(p_coeffs, t, p)
        _polyval(q_coeffs, t, q)
        np.divide(p, q, out=p)
        np.multiply(p, a, out=out)

    return block


def _erf64_block(scale: float) -> Block:
    """erf(x * scale) for float64 blocks, to float64 precision: both ranges, then a select."""

    def block(x: np.ndarray, out: np.ndarray, a: np.ndarray, t: np.ndarray, p: np.ndarray, q: np.ndarray) -> None:
        np.multiply(x, scale, out=a)
        b = np.abs(a)
        big = b >= 1.0
        any_big = bool(big.any())
        if any_big:
            np.clip(b, 1.0, _ERF64_CLIP, out=b)
            _polyval(_ERFCX_P, b, p)
            _polyval(_ERFCX_Q, b, q)
            np.divide(p, q, out=p)
            np.multiply(b, b, out=q)
            np.negative(q, out=q)
            np.exp(q, out=q)
            np.multiply(p, q, out=p)
            np.subtract(1.0, p, out=p)
            np.copysign(p, a, out=b)  # the large-|x| result waits in b
        np.clip(a, -1.0, 1.0, out=a)
        np.multiply(a, a, out=t)
        _polyval(_ERF64_P, t, p)
        _polyval(_ERF64_Q, t, q)
        np.divide(p, q, out=p)
        np.multiply(p, a, out=p)
        np.add(p, a, out=out)
        if any_big:
            np.copyto(out, b, where=big)

    return block


_ERF_BLOCKS: dict[np.dtype[Any], Block] = {
    F16: _erf32_block(_ERF32_P, _ERF32_Q, _ERF32_CLIP),
    F32: _erf32_block(_ERF32_P, _ERF32_Q, _ERF32_CLIP),
    np.dtype(np.float64): _erf64_block(1.0),
}
_GELU64_BLOCK = _erf64_block(1.0 / math.sqrt(2.0))


def _blockwise(x: np.ndarray, block: Block, post: Callable[[np.ndarray, np.ndarray], None] | None) -> np.ndarray:
    """Run `block(x_block, result_block, *float64 scratch)` over cache-sized blocks of
    `x` into a result of `x`'s dtype and shape; `post(result_block, x_block)` then
    runs in `x`'s dtype (so GELU's `1 + erf` is float32 arithmetic on a rounded erf,
    as in torch)."""
    flat = np.ascontiguousarray(x).reshape(-1)
    res = np.empty(flat.shape, x.dtype)
    n = flat.size
    m = min(n, _BLOCK)
    a, t, p, q = (np.empty(m) for _ in range(4))
    for s in range(0, n, _BLOCK):
        e = min(s + _BLOCK, n)
        k = e - s
        xb, rb = flat[s:e], res[s:e]
        block(xb, rb, a[:k], t[:k], p[:k], q[:k])
        if post is not None:
            post(rb, xb)
    return res.reshape(x.shape)


def erf(x: np.ndarray) -> np.ndarray:
    """The error function, vectorised, to the last ulp of float32 and float64.

    numpy has no erf and scipy is not a dependency. Float32 and float16 inputs
    use one rational approximation in x^2 evaluated in float64; float64 uses
    two (|x| < 1, and erfc times exp(x^2) beyond), as in W. J. Cody's
    "Rational Chebyshev approximations for the error function" (1969).
    Other inputs compute in float64.
    """
    a = np.asarray(x)
    if a.dtype not in _ERF_BLOCKS:
        a = a.astype(np.float64)
    return _blockwise(a, _ERF_BLOCKS[a.dtype], None)


# ---------------------------------------------------------------------------
# unary pointwise
# ---------------------------------------------------------------------------


def _sigmoid(x: np.ndarray) -> np.ndarray:
    """1/(1 + e^-x) with one temporary."""
    e = np.negative(x, out=np.empty_like(x))
    np.exp(e, out=e)
    np.add(e, 1, out=e)
    return np.divide(1, e, out=e)


def _silu(x: np.ndarray) -> np.ndarray:
    """x/(1 + e^-x) with one temporary."""
    e = np.negative(x, out=np.empty_like(x))
    np.exp(e, out=e)
    np.add(e, 1, out=e)
    return np.divide(x, e, out=e)


def _softplus_fn(x: np.ndarray, beta: float = 1.0, threshold: float = 20.0) -> np.ndarray:
    return np.where(x * beta > threshold, x, np.log1p(np.exp(x * beta)) / beta)


def _sign(x: np.ndarray) -> np.ndarray:
    """np.sign, except that NaN's sign is 0 as torch's CPU kernel gives (numpy keeps NaN)."""
    return np.nan_to_num(np.sign(x), nan=0.0)


def _relu(x: np.ndarray) -> np.ndarray:
    """max(x, 0) as torch's: NaN passes (np.maximum returns it) and so does -0.0, to which
    np.maximum may give +0.0, so the zeros, rare, are put back. A select on the sign costs
    15x as much on a random sign pattern (the graph compiler's fast path does the same)."""
    r = np.asarray(np.maximum(x, x.dtype.type(0)))
    zero = x == 0
    if zero.any():
        r[zero] = x[zero]
    return r


# name -> (function on the compute array, promotes integers to float)
_UNARY: dict[str, tuple[Callable[[np.ndarray], np.ndarray], bool]] = {
    "abs": (np.abs, False),
    "neg": (np.negative, False),
    "ceil": (np.ceil, False),
    "floor": (np.floor, False),
    "trunc": (np.trunc, False),
    "round": (np.round, False),
    "sign": (_sign, False),
    "relu": (_relu, False),
    "relu6": (lambda x: np.minimum(_relu(x), x.dtype.type(6)), False),
    "bitwise_not": (np.invert, False),
    "acos": (np.arccos, True), "acosh": (np.arccosh, True),
    "asin": (np.arcsin, True), "asinh": (np.arcsinh, True),
    "atan": (np.arctan, True), "atanh": (np.arctanh, True),
    "cos": (np.cos, True), "cosh": (np.cosh, True),
    "sin": (np.sin, True), "sinh": (np.sinh, True),
    "tan": (np.tan, True), "tanh": (np.tanh, True),
    "exp": (np.exp, True), "expm1": (np.expm1, True),
    "log": (np.log, True), "log10": (np.log10, True),
    "log1p": (np.log1p, True), "log2": (np.log2, True),
    "sqrt": (np.sqrt, True), "rsqrt": (lambda x: 1.0 / np.sqrt(x), True),
    "reciprocal": (lambda x: 1.0 / x, True),
    "sigmoid": (_sigmoid, True),
    "erf": (erf, True),
    "silu": (_silu, True),
    "mish": (lambda x: x * np.tanh(_softplus_fn(x)), True),
    "hardsigmoid": (lambda x: np.minimum(np.maximum(x + 3, 0), 6) / 6, True),
    "hardswish": (lambda x: x * np.minimum(np.maximum(x + 3, 0), 6) / 6, True),
}


def _unary(fn: Callable[[np.ndarray], np.ndarray], to_float: bool) -> Kernel:
    def kernel(self: np.ndarray, **_: object) -> np.ndarray:
        a = np.asarray(self)
        dt = floating_dtype(a.dtype) if to_float else a.dtype
        if fn is _sign and dt == BOOL:
            return a.copy()
        res = fn(cast_to(a, compute_dtype(dt)))
        if dt.kind == "c" and res.dtype.kind == "f":  # abs of a complex tensor is real, as torch's
            return res
        return finish(res, dt)

    return kernel


for _name, (_fn, _tf) in _UNARY.items():
    register(f"aten.{_name}.default")(_unary(_fn, _tf))


@register("aten.logical_not.default")
def _logical_not(self: np.ndarray) -> np.ndarray:
    return np.logical_not(self)


@register("aten.isnan.default")
def _isnan(self: np.ndarray) -> np.ndarray:
    a = np.asarray(self)
    return np.isnan(a) if a.dtype.kind in "fc" else np.zeros(a.shape, bool)


@register("aten.isinf.default")
def _isinf(self: np.ndarray) -> np.ndarray:
    a = np.asarray(self)
    return np.isinf(a) if a.dtype.kind in "fc" else np.zeros(a.shape, bool)


def _float_unary_with_args(fn: Callable[..., np.ndarray], to_float: bool = True) -> Kernel:
    """Pointwise ops with extra scalar parameters (gelu, elu, softplus, ...)."""

    def kernel(self: np.ndarray, **kw: object) -> np.ndarray:
        a = np.asarray(self)
        dt = floating_dtype(a.dtype) if to_float else a.dtype
        return finish(fn(cast_to(a, compute_dtype(dt)), **kw), dt)

    return kernel


def _gelu_finish(e: np.ndarray, x: np.ndarray) -> None:
    """x/2 (1 + erf(x/sqrt 2)) from the erf block `e`, in place."""
    np.add(e, 1.0, out=e)
    np.multiply(e, x, out=e)
    np.multiply(e, 0.5, out=e)


def _gelu(x: np.ndarray, approximate: str = "none") -> np.ndarray:
    """GELU in one pass over cache-sized blocks (erf form) or in place (tanh form)."""
    require_enum("aten.gelu", "approximate", approximate)
    if x.dtype == F32 and x.size == 1:
        # torch's scalar loop, which a single element takes, computes in double
        # (gelu(3e38) is finite there, inf in the vectorized float32 loop)
        return _gelu(x.astype(np.float64), approximate).astype(F32)
    if approximate == "tanh":
        y = np.multiply(x, x, out=np.empty_like(x))
        np.multiply(y, x.dtype.type(0.044715 * math.sqrt(2.0 / math.pi)), out=y)
        np.add(y, x.dtype.type(math.sqrt(2.0 / math.pi)), out=y)
        np.multiply(y, x, out=y)
        np.tanh(y, out=y)
        np.add(y, x.dtype.type(1.0), out=y)
        np.multiply(y, np.multiply(x, x.dtype.type(0.5)), out=y)  # x/2 first, as torch: finite at 3e38
        return y
    if x.dtype == F32:
        return _gelu_float32(x)
    return _blockwise(x.astype(np.float64, copy=False), _GELU64_BLOCK, _gelu_finish)


def _elu(x: np.ndarray, alpha: float = 1, scale: float = 1, input_scale: float = 1) -> np.ndarray:
    return np.where(x > 0, x * scale, (np.expm1(x * input_scale)) * alpha * scale)


def _leaky_relu(x: np.ndarray, negative_slope: float = 0.01) -> np.ndarray:
    return np.where(x > 0, x, x * negative_slope)


def _hardtanh(x: np.ndarray, min_val: float = -1, max_val: float = 1) -> np.ndarray:
    """Clamped by comparisons, as torch's: -0.0 stays -0.0 at a bound of 0 (relu6), NaN passes."""
    lo, hi = x.dtype.type(min_val), x.dtype.type(max_val)
    return np.where(x < lo, lo, np.where(x > hi, hi, x))


def _softplus(x: np.ndarray, beta: float = 1, threshold: float = 20) -> np.ndarray:
    return _softplus_fn(x, beta, threshold)


register("aten.gelu.default")(_float_unary_with_args(_gelu))
register("aten.elu.default")(_float_unary_with_args(_elu))
register("aten.leaky_relu.default")(_float_unary_with_args(_leaky_relu, to_float=False))
register("aten.hardtanh.default")(_float_unary_with_args(_hardtanh, to_float=False))
register("aten.softplus.default")(_float_unary_with_args(_softplus))


@register("aten.round.decimals")
def _round_decimals(self: np.ndarray, decimals: int) -> np.ndarray:
    a = np.asarray(self)
    if a.dtype.kind not in "fc":
        return a.copy()
    c = cast_to(a, compute_dtype(a.dtype))
    if decimals >= 0:
        scale = c.dtype.type(10.0**decimals)
        res = np.round(c * scale) / scale
    else:
        scale = c.dtype.type(10.0 ** (-decimals))
        res = np.round(c / scale) * scale
    return finish(res, a.dtype)


@register("aten.nan_to_num.default")
def _nan_to_num(
    self: np.ndarray, nan: float | None = None, posinf: float | None = None, neginf: float | None = None
) -> np.ndarray:
    a = np.asarray(self)
    if a.dtype.kind not in "fc":
        return a.copy()
    info = np.finfo(a.dtype)
    return np.nan_to_num(
        a,
        nan=0.0 if nan is None else nan,
        posinf=info.max if posinf is None else posinf,
        neginf=info.min if neginf is None else neginf,
    )


# ---------------------------------------------------------------------------
# binary / ternary pointwise
# ---------------------------------------------------------------------------


def dense_broadcast_operands(x: Any, y: Any) -> tuple[Any, Any]:
    """Make the smaller operand of a broadcasting binary op C-contiguous when it is a
    strided view (a permuted attention bias added to scores, as Swin's is): numpy's
    loops over a broadcast, non-contiguous inner dim run about four times slower than
    the copy of the small operand costs."""
    if type(x) is np.ndarray and type(y) is np.ndarray:
        if x.size < y.size and not x.flags.c_contiguous:
            return np.ascontiguousarray(x), y
        if y.size < x.size and not y.flags.c_contiguous:
            return x, np.ascontiguousarray(y)
    return x, y


def _alpha_scale(x: np.ndarray, alpha: object) -> np.ndarray:
    if alpha is None or alpha == 1:
        return x
    return x * np.asarray(alpha).astype(x.dtype)


@register("aten.add.Tensor", "aten.add.Scalar")
def _add(self: object, other: object, alpha: object = 1) -> np.ndarray:
    if np.asarray(self).dtype == BOOL and np.asarray(other).dtype == BOOL and is_tensor(other):
        return np.logical_or(cast(ArrayLike, self), cast(ArrayLike, other))
    return run_pointwise(lambda a, b: a + _alpha_scale(b, alpha), self, other)


@register("aten.sub.Tensor", "aten.sub.Scalar")
def _sub(self: object, other: object, alpha: object = 1) -> np.ndarray:
    return run_pointwise(lambda a, b: a - _alpha_scale(b, alpha), self, other)


@register("aten.rsub.Tensor", "aten.rsub.Scalar")
def _rsub(self: object, other: object, alpha: object = 1) -> np.ndarray:
    return run_pointwise(lambda a, b: b - _alpha_scale(a, alpha), self, other)


@register("aten.mul.Tensor", "aten.mul.Scalar")
def _mul(self: object, other: object) -> np.ndarray:
    if result_type(self, other) == BOOL:
        return np.logical_and(cast(ArrayLike, self), cast(ArrayLike, other))
    return run_pointwise(np.multiply, self, other)


def _trunc_div_int(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    q = np.floor_divide(a, b)
    fix = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
    return q + fix.astype(q.dtype)


@register("aten.div.Tensor", "aten.div.Scalar", "aten.div.Tensor_mode", "aten.div.Scalar_mode")
def _div(self: object, other: object, rounding_mode: str | None = None) -> np.ndarray:
    dt = result_type(self, other)
    if rounding_mode is None:
        return run_pointwise(np.true_divide, self, other, to_float=True)
    require_enum("aten.div", "rounding_mode", rounding_mode)
    if dt.kind in "iub":
        fn = np.floor_divide if rounding_mode == "floor" else _trunc_div_int
        return run_pointwise(fn, self, other, dtype=I64 if dt == BOOL else dt)
    if rounding_mode == "floor":
        return run_pointwise(np.floor_divide, self, other)
    return run_pointwise(lambda a, b: np.trunc(a / b), self, other)


@register("aten.floor_divide.default", "aten.floor_divide.Scalar")
def _floor_divide(self: object, other: object) -> np.ndarray:
    return _div(self, other, rounding_mode="floor")


def _binary(fn: Callable[..., Any], to_float: bool = False, result: np.dtype[Any] | None = None) -> Kernel:
    def kernel(self: object, other: object) -> np.ndarray:
        return run_pointwise(fn, self, other, to_float=to_float, result=result)

    return kernel


def _pow_fn(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """
    An integer power with a negative exponent is 1 / a**-b truncated, as torch's
    CPU kernel computes it: 1 for a base of 1, +-1 for -1 (by the exponent's
    parity), 0 for any other base, 0 included (numpy refuses negative powers).
    numpy computes a float power to a lone exponent of 0.5 as `sqrt`, which
    gives -0.0 at -0.0 and NaN at -inf; C's `pow` (torch's, for a tensor
    exponent) gives +0.0 and +inf.
    """
    if a.dtype.kind in "iu":
        neg = b < 0
        res = np.power(a, np.where(neg, 0, b))
        if np.any(neg):
            unit = np.where(a == -1, np.where(b % 2 == 0, 1, -1), np.where(a == 1, 1, 0)).astype(res.dtype)
            res = np.where(neg, unit, res)
        return res
    res = np.power(a, b)
    if a.dtype.kind == "f" and b.size == 1 and b.reshape(-1)[0] == 0.5:
        res = np.where((a == 0) | (a == -np.inf), np.abs(a), res)
    return res


def _pow_by_number(e: float, bf16: bool) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """
    torch's CPU pow of a float tensor to a Python number computes these
    exponents otherwise than `pow`: 0.5 as `sqrt` and -0.5 as `rsqrt` (so
    -0.0 gives -0.0 and -inf, and -inf gives NaN, where C's `pow` gives +0.0,
    +inf, +inf and 0), 2, 3 and -2 as products (`x*x*x`, `1/(x*x)`, rounded
    at each step) and -1 as a reciprocal. A bfloat16 product rounds to
    bfloat16 at each step, as torch's bfloat16 arithmetic does.
    """
    rnd: Callable[[np.ndarray], np.ndarray] = round_to_bfloat16 if bf16 else (lambda v: v)

    def fn(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        del b
        if e == 0.5:
            return np.sqrt(a)
        if e == -0.5:
            return _UNARY["rsqrt"][0](a)
        if e == -1.0:
            return _UNARY["reciprocal"][0](a)
        sq = rnd(a * a)
        if e == 2.0:
            return sq
        return sq * a if e == 3.0 else _UNARY["reciprocal"][0](sq)

    return fn


_POW_BY_NUMBER = frozenset((0.5, -0.5, -1.0, 2.0, 3.0, -2.0))
_F64 = np.dtype(np.float64)
_BF16 = numpy_dtype(DType.bfloat16)


def _pow(self: object, exponent: object) -> np.ndarray:
    if (
        is_tensor(self)
        and np.asarray(self).dtype.kind in "iub"
        and isinstance(exponent, int)
        and not isinstance(exponent, bool)
        and exponent < 0
    ):
        raise ValueError("pow: integers to negative integer powers are not allowed (as torch refuses them); use a float exponent")
    if is_tensor(self) and isinstance(exponent, int | float) and not isinstance(exponent, bool) and float(exponent) in _POW_BY_NUMBER:
        # float16 (and the float8s) go through `pow` in torch too; complex is left to numpy's `power`
        dt = result_type(self, exponent)
        if dt in (F32, _F64, _BF16):
            return run_pointwise(_pow_by_number(float(exponent), dt == _BF16), self, exponent)
    return run_pointwise(_pow_fn, self, exponent)


register("aten.pow.Tensor_Tensor", "aten.pow.Scalar")(_pow)
register("aten.pow.Tensor_Scalar", low_precision_operands=True)(_pow)  # bfloat16 products round at each step
LOW_PRECISION_OPERANDS.update(("aten.pow_.Scalar", "aten.pow.Tensor_Scalar_out"))  # its derived variants too


def _remainder_fn(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """
    Python's modulo, as torch's CPU kernel computes it for floats: `fmod`, plus
    the divisor when the two differ in sign. So `remainder(5, inf)` is 5 and
    `remainder(-5, inf)` inf, and a zero result keeps the dividend's sign, where
    `a - b * floor(a / b)` gives NaN and loses -0.0.
    """
    if a.dtype.kind in "iu":
        return np.remainder(a, b)
    mod = np.fmod(a, b)
    return np.where((mod != 0) & ((b < 0) != (mod < 0)), mod + b, mod)


_BINARY_TABLE: dict[str, tuple[Callable[..., Any], bool, np.dtype[Any] | None]] = {
    "atan2": (np.arctan2, True, None),
    "fmod": (np.fmod, False, None),
    "remainder": (_remainder_fn, False, None),
    "maximum": (np.maximum, False, None),
    "minimum": (np.minimum, False, None),
    "bitwise_and": (np.bitwise_and, False, None),
    "bitwise_or": (np.bitwise_or, False, None),
    "bitwise_xor": (np.bitwise_xor, False, None),
    "logical_and": (np.logical_and, False, BOOL),
    "logical_or": (np.logical_or, False, BOOL),
    "logical_xor": (np.logical_xor, False, BOOL),
    "eq": (np.equal, False, BOOL),
    "ne": (np.not_equal, False, BOOL),
    "lt": (np.less, False, BOOL),
    "le": (np.less_equal, False, BOOL),
    "gt": (np.greater, False, BOOL),
    "ge": (np.greater_equal, False, BOOL),
}
for _name, (_fn, _tf, _res) in _BINARY_TABLE.items():
    _k = _binary(_fn, _tf, _res)
    for _ov in ("default", "Tensor", "Scalar", "Scalar_Tensor"):
        register(f"aten.{_name}.{_ov}")(_k)
register("aten.max.other")(_binary(np.maximum))


def _shift_fn(left: bool) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """torch's shifts: a shift by a negative count or by the bit width or more
    gives 0 (left) or the sign fill (right) instead of C's undefined result."""

    def shift(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if a.dtype.kind not in "iub":
            raise TypeError(f"shifts need integer tensors, got {a.dtype}")
        bits = 8 * a.dtype.itemsize
        b = np.asarray(b)
        out_of_range = (b < 0) | (b >= bits)
        safe = np.where(out_of_range, 0, b).astype(a.dtype, copy=False)
        if left:
            return np.where(out_of_range, a.dtype.type(0), np.left_shift(a, safe))
        return np.where(out_of_range, np.right_shift(a, a.dtype.type(bits - 1)), np.right_shift(a, safe))

    return shift


for _dunder, (_fn, _tf, _res) in {
    "__and__": _BINARY_TABLE["bitwise_and"],
    "__or__": _BINARY_TABLE["bitwise_or"],
    "__xor__": _BINARY_TABLE["bitwise_xor"],
}.items():
    register(f"aten.{_dunder}.Tensor", f"aten.{_dunder}.Scalar")(_binary(_fn, _tf, _res))
for _names, _left in ((("__lshift__", "bitwise_left_shift"), True), (("__rshift__", "bitwise_right_shift"), False)):
    _k = _binary(_shift_fn(_left))
    for _n in _names:
        for _ov in ("Tensor", "Scalar", "Tensor_Scalar", "Scalar_Tensor"):
            register(f"aten.{_n}.{_ov}")(_k)
register("aten.min.other")(_binary(np.minimum))


@register("aten.addcmul.default")
def _addcmul(self: object, tensor1: object, tensor2: object, value: object = 1) -> np.ndarray:
    return run_pointwise(lambda s, a, b: s + _alpha_scale(a * b, value), self, tensor1, tensor2)


@register("aten.addcdiv.default")
def _addcdiv(self: object, tensor1: object, tensor2: object, value: object = 1) -> np.ndarray:
    return run_pointwise(lambda s, a, b: s + _alpha_scale(a / b, value), self, tensor1, tensor2)


@register("aten.lerp.Scalar", "aten.lerp.Tensor")
def _lerp(self: object, end: object, weight: object) -> np.ndarray:
    def fn(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> np.ndarray:
        return np.where(np.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (1 - w))

    return run_pointwise(fn, self, end, weight, dtype=result_type(self, end))


def clamp_scalar_bounds(x: object, lo: object, hi: object) -> tuple[Any, Any] | None:
    """The bounds in `x`'s dtype when `clamp(x, lo, hi)` is one `np.clip`: a float32/float64
    array and Python numbers (or None) that are not NaN, the common `clamp(x, 0, 6)` of
    ReLU6 and hardswish. `np.clip` then equals `minimum(maximum(x, lo), hi)`, NaN in x
    included, in a third of the time."""
    if type(x) is not np.ndarray or x.dtype not in _CLIP_DTYPES or (lo is None and hi is None):
        return None
    bounds = []
    for b in (lo, hi):
        if b is None:
            bounds.append(None)
        elif type(b) in (int, float) and not math.isnan(cast(float, b)):  # bool is not int here
            bounds.append(x.dtype.type(b))
        else:
            return None
    return bounds[0], bounds[1]


_CLIP_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


@register("aten.clamp.default", "aten.clamp.Tensor")
def _clamp(self: object, min: object = None, max: object = None) -> np.ndarray:
    if (fast := clamp_scalar_bounds(self, min, max)) is not None:
        return np.clip(cast(np.ndarray, self), *fast)

    def fn(x: np.ndarray, lo: np.ndarray | None, hi: np.ndarray | None) -> np.ndarray:
        if lo is not None:
            x = np.where(np.isnan(lo) if lo.dtype.kind == "f" else False, lo, np.maximum(x, lo))
        if hi is not None:
            x = np.where(np.isnan(hi) if hi.dtype.kind == "f" else False, hi, np.minimum(x, hi))
        return x

    return run_pointwise(fn, self, min, max)


@register("aten.clamp_min.default", "aten.clamp_min.Tensor")
def _clamp_min(self: object, min: object) -> np.ndarray:
    return _clamp(self, min=min)


@register("aten.clamp_max.default", "aten.clamp_max.Tensor")
def _clamp_max(self: object, max: object) -> np.ndarray:
    return _clamp(self, max=max)


@register("aten.where.self", "aten.where.ScalarOther", "aten.where.ScalarSelf", "aten.where.Scalar")
def _where(condition: np.ndarray, self: object, other: object) -> np.ndarray:
    cond = np.asarray(condition).astype(bool)

    def select(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        # a condition that picks one side everywhere (attention's "is the whole row
        # masked" test almost always does) is a copy of that side: np.where over a
        # broadcast condition costs several times more
        if cond.size and not cond.any():
            return np.array(np.broadcast_to(b, np.broadcast_shapes(cond.shape, np.shape(a), np.shape(b))))
        if cond.size and cond.all():
            return np.array(np.broadcast_to(a, np.broadcast_shapes(cond.shape, np.shape(a), np.shape(b))))
        return np.where(cond, a, b)

    return run_pointwise(select, self, other)


@register("aten.masked_fill.Scalar", "aten.masked_fill.Tensor")
def _masked_fill(self: np.ndarray, mask: np.ndarray, value: object) -> np.ndarray:
    a = np.asarray(self)
    v = np.asarray(value).astype(a.dtype)
    return np.where(np.asarray(mask, dtype=bool), v, a).astype(a.dtype)


# ---------------------------------------------------------------------------
# the long tail: numpy's own elementwise functions (issue 12)
# ---------------------------------------------------------------------------


@register("aten.copysign.Tensor", "aten.copysign.Scalar")
def _copysign(self: np.ndarray, other: object) -> np.ndarray:
    """|self| with the sign of `other` (the sign bit: -0.0 counts), in a floating type."""
    dt = floating_dtype(result_type(self, other))
    c = compute_dtype(dt)
    return finish(np.copysign(cast_to(self, c), cast_to(other, c)), dt)


@register("aten.signbit.default")
def _signbit(self: np.ndarray) -> np.ndarray:
    a = np.asarray(self)
    return np.signbit(a) if a.dtype.kind == "f" else a < 0


@register("aten.nextafter.default")
def _nextafter(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    dt = result_type(self, other)
    return np.nextafter(cast_to(self, dt), cast_to(other, dt))


def _int_pair(fn: Callable[[Any, Any], Any]) -> Kernel:
    """`gcd` / `lcm` of integer tensors (numpy's; both non-negative, as torch's)."""

    def kernel(self: np.ndarray, other: np.ndarray) -> np.ndarray:
        dt = result_type(self, other)
        return np.asarray(fn(cast_to(self, dt), cast_to(other, dt))).astype(dt)

    return kernel


def _gcd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Euclid's algorithm on |a| and |b| with C's truncating remainder, as torch's kernel
    runs it: the same as numpy's gcd except where |a| or |b| wraps (the type's minimum),
    where torch's loop gives what it gives (gcd(-2^63, 2^63 - 1) is -1)."""
    a, b = np.broadcast_arrays(np.abs(a), np.abs(b))
    a, b = a.copy(), b.copy()
    live = a != 0
    while live.any():
        rem = np.fmod(b[live], a[live])
        b[live] = a[live]
        a[live] = rem
        live = a != 0
    return b


register("aten.gcd.default")(_int_pair(_gcd))
register("aten.lcm.default")(_int_pair(np.lcm))


@register("aten.i0.default", "aten.special_i0.default")
def _i0(self: np.ndarray) -> np.ndarray:
    """The modified Bessel function of the first kind, order 0 (numpy's Clenshaw series)."""
    dt = floating_dtype(np.asarray(self).dtype)
    return finish(np.i0(cast_to(self, compute_dtype(dt))), dt)


@register("aten.float_power.Tensor_Tensor", "aten.float_power.Tensor_Scalar", "aten.float_power.Scalar")
def _float_power(self: object, exponent: object) -> np.ndarray:
    """`pow` computed and returned in float64, whatever the inputs."""
    return np.power(np.asarray(self, dtype=np.float64), np.asarray(exponent, dtype=np.float64))


@register("aten.ldexp.Tensor")
def _ldexp(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    """self * 2 ** other, in a floating type."""
    dt = floating_dtype(result_type(self, other))
    c = compute_dtype(dt)
    return finish(cast_to(self, c) * np.power(c.type(2), cast_to(other, c)), dt)


@register("aten.tril.default")
def _tril(self: np.ndarray, diagonal: int = 0) -> np.ndarray:
    return np.tril(self, int(diagonal))


@register("aten.triu.default")
def _triu(self: np.ndarray, diagonal: int = 0) -> np.ndarray:
    return np.triu(self, int(diagonal))
