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
notes before `_reduce_pio2`, and `erf_f64`, for their accuracy; sin, cos and
tan of |x| >= 1.7e12 give NaN); float32 `erf` (so float32 `gelu`) is two
polynomials (`erf_f32`).

This module registers the lowerings; the scalar bodies they share with the other
families are in `scalar`, the float64 functions written without libm in `float64_math`.
"""

from __future__ import annotations

import math as pymath
from collections.abc import Callable, Sequence
from typing import cast

from xdsl.dialects import arith, math
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.semantics.inference import Bound, result_type
from xdsl_exir.transforms.linalg_lowering import lowers
from xdsl_exir.transforms.linalg_lowering.float64_math import (
    acosh_f64,
    asinh_f64,
    atan2_f64,
    atanh_f64,
    cos_f64,
    erf_f64,
    exp2_f64,
    expm1_f64,
    horner,
    log1p_f64,
    log2_f64,
    sin_f64,
    sinh_f64,
    sqrt_one_minus_square,
    tan_f64,
    tanh_f64,
    wide_log10,
)
from xdsl_exir.transforms.linalg_lowering.scalar import (
    add,
    compare,
    constant_power,
    div,
    floor_divide,
    fmod,
    is_float,
    maximum,
    minimum,
    mul,
    pointwise_maximum,
    pointwise_minimum,
    pow_,
    refuse_zero_divisor,
    remainder,
    select,
    sub,
    trunc_divide,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    PARALLEL,
    LoweringState,
    as_index,
    identity_map,
    is_unsigned,
)
from xdsl_exir.transforms.linalg_lowering.state import result_of as _result


def sigmoid(st: LoweringState, x: SSAValue, dt: DType) -> SSAValue:
    one = st.constant(1.0, dt)
    e = st.emit(math.ExpOp(st.emit(arith.NegfOp(x))))
    return st.emit(arith.DivfOp(one, st.emit(arith.AddfOp(one, e))))


_ERF_ARITH = True
"""float32 erf (GELU's included) as `erf_f32`, else IREE's expansion of `math.erf`; a switch for benchmarks/compile.py."""
_ERF_SPLIT = 1.05
_ERF_MIDDLE = (_ERF_SPLIT + 3.925) / 2
"""The middle of the interval the second polynomial was fitted on, [`_ERF_SPLIT`, 3.925]."""
_ERF_ONE = 3.8325071
"""The least float32 at which torch's float32 erf gives exactly 1 (so that GELU gives -0.0 below
-5.42, as torch's does); the polynomial gives 0.99999994 from there on."""
_ERF_NEAR_ZERO = (
    1.1283791065216064, -0.37612196803092957, 0.11278985440731049, -0.026674091815948486,
    0.0048712207935750484, -0.0005432756734080613,
)  # fmt: skip
"""erf(x) / x as a polynomial in x**2 on |x| < `_ERF_SPLIT`."""
_ERF_AWAY = (
    0.9995649456977844, 0.0023182379081845284, -0.005768017843365669, 0.008793558925390244,
    -0.009003912098705769, 0.006316737737506628, -0.0028656453359872103, 0.0005397667991928756,
    0.0003171536955051124, -0.00028624761034734547, 5.9437476011225954e-05, 2.2368922145687975e-05,
    -9.217286788043566e-06,
)  # fmt: skip
"""erf(|x|) as a polynomial in |x| - `_ERF_MIDDLE` on [`_ERF_SPLIT`, `_ERF_ONE`)."""


def erf_f32(st: LoweringState, x: SSAValue) -> SSAValue:
    """
    float32 erf in arithmetic: two polynomials, both evaluated and one selected (19
    multiply-adds a vector), where IREE's expansion of `math.erf` takes three intervals of
    rational functions: a division and 18 per-lane selects of coefficients a vector. As fast
    or a few percent faster where the GELU is fused into a matrix product's dispatch
    (ViT-tiny's fc1, benchmarks/compile.py), and closer to torch's float32 erf: 2 of 440k
    float32 values in [-8, 8] beyond 2.4e-7 relative (subnormal results IREE flushes to
    zero), 26 with IREE's expansion (up to 3.0e-7). The coefficients are weighted
    least-squares (Lawson) fits to erf in float64, rounded to float32. NaN stays
    NaN (`minimumf` propagates it), |x| from `_ERF_ONE` on (+-inf included) gives +-1,
    -0.0 gives -0.0 (x times the first polynomial).
    """
    dt = DType.float32
    near = st.emit(arith.MulfOp(x, horner(st, st.emit(arith.MulfOp(x, x)), _ERF_NEAR_ZERO, dt)))
    ax = st.emit(math.AbsFOp(x))
    bound = st.constant(_ERF_ONE, dt)
    u = st.emit(arith.SubfOp(st.emit(arith.MinimumfOp(ax, bound)), st.constant(_ERF_MIDDLE, dt)))
    away = st.emit(arith.MinimumfOp(horner(st, u, _ERF_AWAY, dt), st.constant(1.0, dt)))
    # `ult`: NaN keeps the polynomial's NaN
    away = select(st, st.emit(arith.CmpfOp(ax, bound, "ult")), away, st.constant(1.0, dt))
    away = st.emit(math.CopySignOp(away, x))
    return select(st, st.emit(arith.CmpfOp(ax, st.constant(_ERF_SPLIT, dt), "olt")), near, away)


def gelu(st: LoweringState, x: SSAValue, dt: DType, approximate: str, halve_last: bool = False) -> SSAValue:
    """x/2 (1 + erf(x/sqrt 2)), or its tanh form; `halve_last` multiplies x (1 + erf) first and
    halves that, the order in which a float32 x above 1.7e38 overflows to inf as in torch's
    vectorized loop."""
    half = st.constant(0.5, dt)
    one = st.constant(1.0, dt)
    if approximate == "tanh":
        inner = st.emit(arith.MulfOp(st.emit(arith.MulfOp(x, x)), x))
        inner = st.emit(arith.AddfOp(x, st.emit(arith.MulfOp(st.constant(0.044715, dt), inner))))
        inner = st.emit(arith.MulfOp(st.constant(pymath.sqrt(2.0 / pymath.pi), dt), inner))
        t = tanh_f64(st, inner) if dt is DType.float64 else st.emit(math.TanhOp(inner))
    else:
        scaled = st.emit(arith.MulfOp(x, st.constant(pymath.sqrt(0.5), dt)))
        if dt is DType.float64:
            t = erf_f64(st, scaled)
        else:
            t = erf_f32(st, scaled) if _ERF_ARITH else st.emit(math.ErfOp(scaled))
        if halve_last:
            return st.emit(arith.MulfOp(st.emit(arith.MulfOp(x, st.emit(arith.AddfOp(one, t)))), half))
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


_F64_UNARY: dict[str, Callable[[LoweringState, SSAValue], SSAValue]] = {
    "log2": log2_f64,
    "atan": lambda st, x: atan2_f64(st, x, st.constant(1.0, DType.float64)),
    "asin": lambda st, x: atan2_f64(st, x, sqrt_one_minus_square(st, x)),
    "acos": lambda st, x: atan2_f64(st, sqrt_one_minus_square(st, x), x),
    "tanh": tanh_f64,
    "expm1": expm1_f64,
    "log1p": log1p_f64,
    "sinh": sinh_f64,
    "asinh": asinh_f64,
    "atanh": atanh_f64,
    "sin": sin_f64,
    "cos": cos_f64,
    "tan": tan_f64,
    "erf": erf_f64,
    "acosh": acosh_f64,
    "exp2": exp2_f64,
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
                return wide_log10(st, v[0], dt)
            if dt is DType.float64 and name in _F64_UNARY:
                return _F64_UNARY[name](st, v[0])
            if name in _WIDENED:
                wide = DType.float64
                return st.cast(_F64_UNARY[name](st, st.cast(v[0], dt, wide)), wide, dt)
            if name == "erf" and dt is DType.float32 and _ERF_ARITH:
                return erf_f32(st, v[0])
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
    """The erf form computed in float32 gives NaN at +inf and inf above 1.7e38 for a
    tensor of more than one element, as torch's vectorized float32 loop does (its scalar
    loop, which a single element takes, computes in double: inf at +inf, finite below;
    so does the numpy kernel, which follows both)."""
    approximate = cast(str, b["approximate"])
    sizes = _result(op).sizes
    single = all(isinstance(n, int) for n in sizes) and pymath.prod(cast(list[int], sizes)) == 1

    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        vectorized = approximate != "tanh" and dt is DType.float32 and not single
        y = gelu(st, v[0], dt, approximate, halve_last=vectorized)
        if not vectorized:
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
        if is_float(dt):
            return st.emit(arith.NegfOp(v[0]))
        return st.emit(arith.SubiOp(st.constant(0, dt), v[0]))

    return _pointwise(st, op, [b["self"]], body)


@lowers("aten.abs.default")
def _abs(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        if is_float(dt):
            return st.emit(math.AbsFOp(v[0]))
        if is_unsigned(dt):
            return v[0]
        return st.emit(math.AbsIOp(v[0]))

    return _pointwise(st, op, [b["self"]], body)


def _rounding(name: str, make: Callable[[SSAValue], object]) -> None:
    @lowers(f"aten.{name}.default")
    def rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
        def body(v: list[SSAValue], dt: DType) -> SSAValue:
            return st.emit(cast(Operation, make(v[0]))) if is_float(dt) else v[0]

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
        if not is_float(inner):
            return st.constant(False, DType.bool)
        return st.emit(arith.CmpfOp(v[0], v[0], "uno"))

    return _pointwise(st, op, [x], body, compute=dt, fn_dtype=DType.bool)


@lowers("aten.isinf.default")
def _isinf(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    dt = cast(TensorType, cast(SSAValue, x).type).element_dtype

    def body(v: list[SSAValue], inner: DType) -> SSAValue:
        if not is_float(inner):
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
    refuse_zero_divisor(st, op, b["other"])

    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        if mode == "floor":
            return floor_divide(st, v[0], v[1], dt)
        if mode == "trunc":
            return trunc_divide(st, v[0], v[1], dt)
        return div(st, v[0], v[1], dt)

    return _pointwise(st, op, [b["self"], b["other"]], body)


@lowers("aten.floor_divide.default", "aten.floor_divide.Scalar")
def _floor_divide(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    refuse_zero_divisor(st, op, b["other"])
    return _pointwise(st, op, [b["self"], b["other"]], lambda v, dt: floor_divide(st, v[0], v[1], dt))


@lowers("aten.remainder.Tensor", "aten.remainder.Scalar")
def _remainder(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    refuse_zero_divisor(st, op, b["other"])
    return _pointwise(st, op, [b["self"], b["other"]], lambda v, dt: remainder(st, v[0], v[1], dt))


@lowers("aten.fmod.Tensor", "aten.fmod.Scalar")
def _fmod(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    refuse_zero_divisor(st, op, b["other"])
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
        return _pointwise(st, op, [b["self"]], lambda v, dt: constant_power(st, v[0], e, dt))
    special = (1.0, 2.0, 3.0, 0.5, -0.5, -1.0, -2.0)
    if isinstance(e, int | float) and not isinstance(e, bool) and float(e) in special and _result(op).element_dtype is not DType.float16:
        # The exponents PyTorch's kernel special-cases (not for float16, which goes through `pow`),
        # computed the same way: sqrt and 1/sqrt give -0.0 and -inf at -0.0 and NaN at -inf,
        # where C's pow gives +0.0, +inf, +inf and 0.
        def body(v: list[SSAValue], dt: DType) -> SSAValue:
            x = v[0]
            if e == 1:
                return x
            if e == 2:
                return mul(st, x, x, dt)
            if e == 3:
                return mul(st, mul(st, x, x, dt), x, dt)
            if e == 0.5 and is_float(dt):
                return st.emit(math.SqrtOp(x))
            if e == -0.5 and is_float(dt):
                return div(st, st.constant(1.0, dt), st.emit(math.SqrtOp(x)), dt)
            if e == -1 and is_float(dt):
                return div(st, st.constant(1.0, dt), x, dt)
            if e == -2 and is_float(dt):
                return div(st, st.constant(1.0, dt), mul(st, x, x, dt), dt)
            return pow_(st, x, st.scalar(e, dt), dt)

        return _pointwise(st, op, [b["self"]], body)
    return _pointwise(st, op, [b["self"], e], lambda v, dt: pow_(st, v[0], v[1], dt))


@lowers("aten.maximum.default", "aten.fmax.default")
def _maximum(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    fmax = op.name == "aten.fmax.default"
    return _pointwise(
        st, op, [b["self"], b["other"]],
        lambda v, dt: st.emit(arith.MaxnumfOp(v[0], v[1])) if fmax and is_float(dt) else pointwise_maximum(st, v[0], v[1], dt),
    )  # fmt: skip


@lowers("aten.minimum.default", "aten.fmin.default")
def _minimum(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    fmin = op.name == "aten.fmin.default"
    return _pointwise(
        st, op, [b["self"], b["other"]],
        lambda v, dt: st.emit(arith.MinnumfOp(v[0], v[1])) if fmin and is_float(dt) else pointwise_minimum(st, v[0], v[1], dt),
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


def _triangle(st: LoweringState, op: AtenOp, b: Bound, lower: bool) -> list[SSAValue]:
    x = b.value("self")
    out = _result(op)
    rank = out.rank
    if rank < 2:
        raise st.error(f"{op.name} needs a tensor of at least 2 dimensions, got {rank}")
    diagonal = as_index(st, b.get("diagonal", 0))
    dtype = out.element_dtype
    zero = st.constant(0, dtype)

    def body(args: object) -> list[SSAValue]:
        row = st.emit(IndexOp(rank - 2))
        col = st.emit(IndexOp(rank - 1))
        edge = st.emit(arith.AddiOp(row, diagonal))
        # tril keeps col - row <= diagonal, triu keeps col - row >= diagonal.
        keep = st.emit(arith.CmpiOp(col, edge, "sle" if lower else "sge"))
        return [st.emit(arith.SelectOp(keep, cast(list[SSAValue], args)[0], zero))]

    return st.generic(
        [(st.tensor(x), identity_map(rank))],
        [(st.empty(out), identity_map(rank))],
        [PARALLEL] * rank,
        lambda args: body(list(args)),
    )


@lowers("aten.tril.default")
def _tril(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _triangle(st, op, b, lower=True)


@lowers("aten.triu.default")
def _triu(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _triangle(st, op, b, lower=False)
