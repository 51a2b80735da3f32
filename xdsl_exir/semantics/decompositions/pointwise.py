"""Decompositions of masks and pointwise formulas (torch/_refs).

The activations (`silu`, `hardsigmoid`, `hardswish`, `relu6`) follow torch/_decomp.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

import ml_dtypes
from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.exir import (
    DeviceAttr,
    DType,
    Layout,
    TensorType,
)
from xdsl_exir.semantics.decompositions.core import (
    Decline,
    Emitter,
    as_tensor_like,
    fill_value_for,
    number_arg,
    one_minus,
    op_name,
    rule,
    scalar_tensor,
    sizes_equal,
    tensor_of,
    xlogy_of,
    zero_like,
)
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.utils.dtypes import numpy_dtype
from xdsl_exir.utils.symbolic import SymSize


@rule("aten.masked_fill.Scalar", "aten.masked_fill.Tensor")
def _masked_fill(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    t = tensor_of(x)
    value = b["value"]
    if not isinstance(value, SSAValue) or not isinstance(value.type, TensorType):
        if isinstance(value, SSAValue):
            raise Decline()
        value = scalar_tensor(e, fill_value_for(t.element_dtype, value), t)
    return [e.v("aten.where.self", b["mask"], value, x)]


@rule("aten.triu.default", "aten.tril.default")
def _triangle(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch._refs.triu/tril: a mask from two aranges, then `logical_and` (bool) or `where`."""
    x = b.value("self")
    t = tensor_of(x)
    if t.rank < 2:
        raise Decline()
    h, w = t.sizes[-2], t.sizes[-1]
    device = DeviceAttr(t.device.data)
    cols = e.v("aten.arange.start_step", 0, e.size(w), layout=Layout.strided, device=device, pin_memory=False)
    cols = e.v("aten.unsqueeze.default", cols, -2)
    rows = e.v("aten.arange.start_step", 0, e.size(h), layout=Layout.strided, device=device, pin_memory=False)
    rows = e.v("aten.unsqueeze.default", rows, -1)
    diff = e.v("aten.sub.Tensor", cols, rows)
    cmp = "aten.ge.Scalar" if op_name(op).startswith("aten.triu") else "aten.le.Scalar"
    mask = e.v(cmp, diff, b.int("diagonal"))
    if t.element_dtype == DType.bool:
        return [e.v("aten.logical_and.default", mask, x)]
    return [e.v("aten.where.self", mask, x, scalar_tensor(e, fill_value_for(t.element_dtype, 0), t))]


# -- pointwise formulas (torch/_refs) ----------------------------------------------


@rule("aten.square.default")
def _square(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.pow.Tensor_Scalar", b["self"], 2)]


@rule("aten.rad2deg.default", "aten.deg2rad.default")
def _rad2deg(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    factor = 180.0 / math.pi if op_name(op) == "aten.rad2deg.default" else math.pi / 180.0
    return [e.v("aten.mul.Tensor", b["self"], factor)]


@rule("aten.frac.default")
def _frac(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b["self"]
    return [e.v("aten.sub.Tensor", x, e.v("aten.trunc.default", x))]


@rule("aten.threshold.default")
def _threshold(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    t = tensor_of(x)
    mask = e.v("aten.le.Scalar", x, b["threshold"])
    return [e.v("aten.where.self", mask, scalar_tensor(e, fill_value_for(t.element_dtype, b["value"]), t), x)]


@rule("aten.hardshrink.default")
def _hardshrink(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    mask = e.v("aten.le.Scalar", e.v("aten.abs.default", x), b["lambd"])
    return [e.v("aten.where.self", mask, zero_like(e, tensor_of(x)), x)]


@rule("aten.softshrink.default")
def _softshrink(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """ATen's kernel: `x - l` above `l`, `x + l` below `-l`, else `x * 0` (NaN stays NaN, and a
    zero keeps the sign of `x`)."""
    x = b.value("self")
    lambd = float(cast(float, b["lambd"]))
    inside = e.v("aten.mul.Tensor", x, 0)
    low = e.v("aten.where.self", e.v("aten.lt.Scalar", x, -lambd), e.v("aten.add.Tensor", x, lambd), inside)
    return [e.v("aten.where.self", e.v("aten.gt.Scalar", x, lambd), e.v("aten.sub.Tensor", x, lambd), low)]


@rule("aten.logaddexp.default")
def _logaddexp(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_refs: max + log1p(exp(-|a - b|)), and the infinity itself where both are it."""
    x, y = b.value("self"), b.value("other")
    m = e.v("aten.maximum.default", x, y)
    spread = e.v("aten.neg.default", e.v("aten.abs.default", e.v("aten.sub.Tensor", x, y)))
    out = e.v("aten.add.Tensor", m, e.v("aten.log1p.default", e.v("aten.exp.default", spread)))
    same_inf = e.v("aten.logical_and.default", e.v("aten.isinf.default", x), e.v("aten.eq.Tensor", x, y))
    return [e.v("aten.where.self", same_inf, x, out)]


@rule("aten.hypot.default")
def _hypot(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """C's `hypot`, which torch's kernel calls: `m sqrt(1 + (n/m)^2)` with m the larger
    magnitude (no overflow of the squares near 1e30, no underflow near 1e-30), 0 where both
    are 0, and +inf where either is infinite, even if the other is NaN (C99 Annex F)."""
    x, y = b.value("self"), b.value("other")
    ax, ay = e.v("aten.abs.default", x), e.v("aten.abs.default", y)
    big, small = e.v("aten.maximum.default", ax, ay), e.v("aten.minimum.default", ax, ay)
    q = e.v("aten.div.Tensor", small, big)
    h = e.v("aten.mul.Tensor", big, e.v("aten.sqrt.default", e.v("aten.add.Tensor", e.v("aten.mul.Tensor", q, q), 1)))
    t = tensor_of(h)
    h = e.v("aten.where.self", e.v("aten.eq.Scalar", big, 0), zero_like(e, t), h)
    inf = e.v("aten.logical_or.default", e.v("aten.isinf.default", x), e.v("aten.isinf.default", y))
    return [e.v("aten.where.self", inf, scalar_tensor(e, math.inf, t), h)]


@rule("aten.sinc.default", "aten.special_sinc.default")
def _sinc(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    if not tensor_of(x).element_dtype.is_floating_point:
        x = e.v("aten._to_copy.default", x, dtype=DType.float32)
    px = e.v("aten.mul.Tensor", x, math.pi)
    ratio = e.v("aten.div.Tensor", e.v("aten.sin.default", px), px)
    one = scalar_tensor(e, 1.0, tensor_of(ratio))
    return [e.v("aten.where.self", e.v("aten.eq.Scalar", x, 0), one, ratio)]


@rule("aten.logit.default", "aten.special_logit.default")
def _logit(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    if not tensor_of(x).element_dtype.is_floating_point:
        # in the default float type first, as torch: `1 - x` of an int64 wraps at its extremes
        x = e.v("aten._to_copy.default", x, dtype=DType.float32)
    eps = b.get("eps")
    if eps is not None:
        x = e.v("aten.clamp.default", x, float(cast(float, eps)), 1.0 - float(cast(float, eps)))
    return [e.v("aten.log.default", e.v("aten.div.Tensor", x, e.v("aten.rsub.Scalar", x, 1)))]


@rule("aten.log_sigmoid.default")
def _log_sigmoid(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """min(0, x) - log1p(exp(-|x|)), stable for large |x|."""
    x = b.value("self")
    low = e.v("aten.clamp.default", x, None, 0)
    tail = e.v("aten.log1p.default", e.v("aten.exp.default", e.v("aten.neg.default", e.v("aten.abs.default", x))))
    return [e.v("aten.sub.Tensor", low, tail)]


@rule("aten.celu.default")
def _celu(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    alpha = float(cast(float, b["alpha"]))
    return [e.v("aten.elu.default", b["self"], alpha, 1.0, 1.0 / alpha)]


@rule("aten.selu.default")
def _selu(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.elu.default", b["self"], 1.6732632423543772848170429916717, 1.0507009873554804934193349852946)]


@rule("aten.glu.default")
def _glu(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    t = tensor_of(x)
    d = b.int("dim") % t.rank
    n = t.sizes[d]
    if not isinstance(n, int) or n % 2:
        raise Decline()
    a = e.v("aten.slice.Tensor", x, d, 0, n // 2)
    g = e.v("aten.slice.Tensor", x, d, n // 2, n)
    return [e.v("aten.mul.Tensor", a, e.v("aten.sigmoid.default", g))]


@rule("aten.prelu.default", "aten._prelu_kernel.default")
def _prelu(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`where(x > 0, x, w * x)`; `prelu` puts a weight of one slope per channel along dim 1
    first, `_prelu_kernel` (what torch's own decomposition of prelu calls, the weight
    already placed) broadcasts the weight as it is."""
    x, w = b.value("self"), b.value("weight")
    t, tw = tensor_of(x), tensor_of(w)
    per_channel = op_name(op) == "aten.prelu.default"
    if per_channel and t.rank >= 2 and tw.rank == 1 and not sizes_equal(tw.sizes[0], 1):
        shape: list[SymSize] = [1] * t.rank
        shape[1] = tw.sizes[0]
        w = e.v("aten.view.default", w, e.sizes(shape))
    positive = e.v("aten.gt.Scalar", x, 0)
    return [e.v("aten.where.self", positive, x, e.v("aten.mul.Tensor", w, x))]


@rule("aten.isposinf.default", "aten.isneginf.default")
def _isposinf(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    value = math.inf if op_name(op) == "aten.isposinf.default" else -math.inf
    return [e.v("aten.eq.Scalar", b["self"], value)]


@rule("aten.isfinite.default")
def _isfinite(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    if not tensor_of(x).element_dtype.is_floating_point:
        return [e.v("aten.eq.Tensor", x, x)]  # integers are always finite
    bad = e.v("aten.logical_or.default", e.v("aten.isinf.default", x), e.v("aten.isnan.default", x))
    return [e.v("aten.logical_not.default", bad)]


@rule("aten.heaviside.default")
def _heaviside(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x, values = b.value("self"), b.value("values")
    t = tensor_of(x)
    step = e.v("aten._to_copy.default", e.v("aten.gt.Scalar", x, 0), dtype=t.element_dtype)
    return [e.v("aten.where.self", e.v("aten.eq.Scalar", x, 0), values, step)]


# -- the Scalar overloads of where, softplus (torch/_refs) ----------------------------


@rule("aten.where.ScalarOther", "aten.where.ScalarSelf", "aten.where.Scalar")
def _where_scalar(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`where.self` with each Scalar branch a 0-d tensor of the result's dtype (the type torch
    promotes the call to), so the core call promotes to the same dtype."""
    out = tensor_of(op.results[0])
    branches: list[SSAValue] = []
    for name in ("self", "other"):
        value = b[name]
        if isinstance(value, SSAValue) and isinstance(value.type, TensorType):
            branches.append(value)
        elif isinstance(value, SSAValue) or value is None:
            raise Decline()  # a SymInt/SymFloat branch
        else:
            branches.append(scalar_tensor(e, fill_value_for(out.element_dtype, value), out))
    return [e.v("aten.where.self", b["condition"], *branches)]


@rule("aten.softplus.default")
def _softplus(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_refs `softplus`: `log1p(exp(beta * x)) / beta`, and `x` itself where
    `beta * x > threshold`."""
    x = b.value("self")
    beta, threshold = b.get("beta", 1), b.get("threshold", 20)
    if isinstance(beta, SSAValue) or isinstance(threshold, SSAValue):
        raise Decline()
    scaled = x if beta == 1 else e.v("aten.mul.Tensor", x, beta)
    soft = e.v("aten.log1p.default", e.v("aten.exp.default", scaled))
    if beta != 1:
        soft = e.v("aten.div.Tensor", soft, beta)
    return [e.v("aten.where.self", e.v("aten.gt.Scalar", scaled, threshold), x, soft)]


# -- fused multiply-adds, interpolation, finite replacement (torch/_refs) --------------


@rule("aten.addcmul.default", "aten.addcdiv.default")
def _addcmul(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`self + value * (tensor1 * tensor2)` (or `/`), value applied when it is not 1."""
    kind = "aten.mul.Tensor" if op_name(op) == "aten.addcmul.default" else "aten.div.Tensor"
    value = b.get("value", 1)
    if isinstance(value, SSAValue):  # before any op is emitted: a rule that emits and then declines loops
        raise Decline()
    prod = e.v(kind, b["tensor1"], b["tensor2"])
    if value != 1:
        prod = e.v("aten.mul.Tensor", prod, value)
    return [e.v("aten.add.Tensor", b["self"], prod)]


@rule("aten.lerp.Scalar", "aten.lerp.Tensor")
def _lerp(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_refs `lerp`: `start + w * (end - start)` where |w| < 0.5, else
    `end - (end - start) * (1 - w)` (exact at w = 1)."""
    start, end, weight = b["self"], b["end"], b["weight"]
    if not isinstance(weight, SSAValue) and (isinstance(weight, bool) or not isinstance(weight, int | float)):
        raise Decline()  # before any op is emitted
    diff = e.v("aten.sub.Tensor", end, start)
    if not isinstance(weight, SSAValue):
        if abs(weight) < 0.5:
            return [e.v("aten.add.Tensor", start, e.v("aten.mul.Tensor", diff, weight))]
        return [e.v("aten.sub.Tensor", end, e.v("aten.mul.Tensor", diff, 1 - weight))]
    low = e.v("aten.add.Tensor", start, e.v("aten.mul.Tensor", weight, diff))
    high = e.v("aten.sub.Tensor", end, e.v("aten.mul.Tensor", diff, e.v("aten.rsub.Scalar", weight, 1)))
    small = e.v("aten.lt.Scalar", e.v("aten.abs.default", weight), 0.5)
    return [e.v("aten.where.self", small, low, high)]


@rule("aten.mish.default")
def _mish(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b["self"]
    return [e.v("aten.mul.Tensor", x, e.v("aten.tanh.default", e.v("aten.softplus.default", x)))]


@rule("aten.nan_to_num.default")
def _nan_to_num(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """NaN, +inf and -inf replaced (by 0 and the dtype's largest and lowest finite values unless
    given); integer and bool tensors are returned as they are."""
    x = b.value("self")
    t = tensor_of(x)
    if not t.element_dtype.is_floating_point:
        return [e.v("aten.clone.default", x)]
    info = ml_dtypes.finfo(numpy_dtype(t.element_dtype))
    nan, posinf, neginf = b.get("nan"), b.get("posinf"), b.get("neginf")
    values = (0.0 if nan is None else nan, float(info.max) if posinf is None else posinf,
              float(info.min) if neginf is None else neginf)
    out = e.v("aten.where.self", e.v("aten.isnan.default", x), scalar_tensor(e, values[0], t), x)
    out = e.v("aten.where.self", e.v("aten.eq.Scalar", x, math.inf), scalar_tensor(e, values[1], t), out)
    return [e.v("aten.where.self", e.v("aten.eq.Scalar", x, -math.inf), scalar_tensor(e, values[2], t), out)]


@rule("aten.float_power.Tensor_Tensor", "aten.float_power.Tensor_Scalar", "aten.float_power.Scalar")
def _float_power(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`pow` computed in double: tensors converted to float64, Scalars to float."""
    for name in ("self", "exponent"):  # every check before any op is emitted
        v = b[name]
        if (
            tensor_of(v).element_dtype.is_complex if isinstance(v, SSAValue)
            else isinstance(v, bool) or not isinstance(v, int | float)
        ):  # fmt: skip
            raise Decline()
    args: list[object] = []
    for name in ("self", "exponent"):
        v = b[name]
        if isinstance(v, SSAValue):
            t = tensor_of(v)
            args.append(v if t.element_dtype == DType.float64 else e.v("aten._to_copy.default", v, dtype=DType.float64))
        else:
            args.append(float(cast(float, v)))
    target = {"Tensor_Tensor": "aten.pow.Tensor_Tensor", "Tensor_Scalar": "aten.pow.Tensor_Scalar",
              "Scalar": "aten.pow.Scalar"}[op_name(op).split(".")[2]]
    return [e.v(target, *args)]


@rule("aten.floor_divide.Scalar")
def _floor_divide_scalar(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.div.Scalar_mode", b["self"], b["other"], rounding_mode="floor")]


@rule("aten.rsub.Scalar", "aten.rsub.Tensor")
def _rsub(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`other - alpha * self` (`sub.Tensor` with the Scalar first, as torch writes it)."""
    alpha = b.get("alpha", 1)
    if alpha != 1:
        return [e.v("aten.sub.Tensor", b["other"], b["self"], alpha=alpha)]
    return [e.v("aten.sub.Tensor", b["other"], b["self"])]


@rule("aten.exp2.default")
def _exp2(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.pow.Scalar", 2.0, b["self"])]


@rule("aten.xlogy.Tensor", "aten.xlogy.Scalar_Self", "aten.xlogy.Scalar_Other")
def _xlogy(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch._refs.xlogy: 0 where self is 0, NaN where other is NaN, else self * log(other)."""
    x, y = b["self"], b["other"]
    like = tensor_of(x) if isinstance(x, SSAValue) else tensor_of(y)
    return [xlogy_of(e, as_tensor_like(e, x, like), as_tensor_like(e, y, like))]


@rule("aten.fmax.default", "aten.fmin.default")
def _fmax(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """The larger (smaller) of two values, the other where one is NaN."""
    x, y = b.value("self"), b.value("other")
    cmp = "aten.ge.Tensor" if op_name(op) == "aten.fmax.default" else "aten.le.Tensor"
    pick = e.v(cmp, x, y)
    if tensor_of(y).element_dtype.is_floating_point:
        pick = e.v("aten.logical_or.default", pick, e.v("aten.isnan.default", y))
    return [e.v("aten.where.self", pick, x, y)]


@rule("aten.erfc.default")
def _erfc(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [one_minus(e, e.v("aten.erf.default", b["self"]))]


@rule("aten.logaddexp2.default")
def _logaddexp2(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """log2(2^a + 2^b) = logaddexp(a ln 2, b ln 2) / ln 2."""
    ln2 = math.log(2)
    a = e.v("aten.mul.Tensor", b["self"], ln2)
    c = e.v("aten.mul.Tensor", b["other"], ln2)
    return [e.v("aten.div.Tensor", e.v("aten.logaddexp.default", a, c), ln2)]


@rule("aten.sgn.default")
def _sgn(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """sign(x) for real tensors, but 0 at NaN as torch's `sgn` gives (where `sign` keeps the NaN);
    x / |x| for complex ones."""
    x = b.value("self")
    if tensor_of(x).element_dtype.is_complex:  # x / |x|, 0 where |x| is 0 (torch._refs.sgn)
        a = e.v("aten.abs.default", x)
        return [e.v("aten.where.self", e.v("aten.eq.Scalar", a, 0), zero_like(e, tensor_of(x)), e.v("aten.div.Tensor", x, e.v("aten._to_copy.default", a, dtype=tensor_of(x).element_dtype)))]
    sign = e.v("aten.sign.default", x)
    if not tensor_of(x).element_dtype.is_floating_point:
        return [sign]
    return [e.v("aten.where.self", e.v("aten.isnan.default", x), zero_like(e, tensor_of(x)), sign)]


@rule("aten.isclose.default")
def _isclose(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """a == b, or |a - b| <= atol + rtol |b| where that bound is finite; NaNs equal with `equal_nan`."""
    x, y = b.value("self"), b.value("other")
    rtol, atol = number_arg(b, "rtol", 1e-5), number_arg(b, "atol", 1e-8)
    close = e.v("aten.eq.Tensor", x, y)
    if b.get("equal_nan"):
        both = e.v("aten.logical_and.default", e.v("aten.isnan.default", x), e.v("aten.isnan.default", y))
        close = e.v("aten.logical_or.default", close, both)
    if rtol == 0 and atol == 0:
        return [close]
    if not tensor_of(x).element_dtype.is_floating_point:
        # ATen's isclose computes the error of integers and booleans in the default float
        # type (an int64 difference wraps at its extremes; booleans do not subtract)
        x = e.v("aten._to_copy.default", x, dtype=DType.float32)
        y = e.v("aten._to_copy.default", y, dtype=DType.float32)
    diff = e.v("aten.abs.default", e.v("aten.sub.Tensor", x, y))
    allowed = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", e.v("aten.abs.default", y), rtol), atol)
    within = e.v("aten.logical_and.default", e.v("aten.isfinite.default", allowed), e.v("aten.le.Tensor", diff, allowed))
    return [e.v("aten.logical_or.default", close, within)]


_FLOAT_MAX = {DType.float32: 3.4028234663852886e38, DType.float64: 1.7976931348623157e308}


def _add_clamp(e: Emitter, s: SSAValue) -> SSAValue:
    """
    What ATen's fused `add_clamp` kernel makes of the sum `s`: `s` where it is
    above 0, else 0 (a NaN sum and -0.0 give +0.0, where `relu` keeps them), and
    at most the dtype's largest finite value (an infinite or overflowing float32
    sum gives 3.4e38). Integer sums wrap first, as the kernel's do.
    """
    t = tensor_of(s)
    zero = e.v("aten.scalar_tensor.default", 0.0 if t.element_dtype.is_floating_point else 0, dtype=t.element_dtype,
               layout=Layout.strided, device=DeviceAttr(t.device.data))
    out = e.v("aten.where.self", e.v("aten.gt.Scalar", s, 0), s, zero)
    top = _FLOAT_MAX.get(t.element_dtype)
    if top is not None:
        out = e.v("aten.clamp.default", out, None, top)
    return out


@rule("aten._add_relu.Scalar")
def _add_relu_scalar(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [_add_clamp(e, e.v("aten.add.Scalar", b["self"], b["other"], alpha=b.get("alpha", 1)))]


@rule("aten._add_relu.Tensor")
def _add_relu(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    alpha = b.get("alpha", 1)
    if alpha != 1:
        return [_add_clamp(e, e.v("aten.add.Tensor", b["self"], b["other"], alpha=alpha))]
    return [_add_clamp(e, e.v("aten.add.Tensor", b["self"], b["other"]))]


@rule("aten.log_sigmoid_forward.default")
def _log_sigmoid_forward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_decomp `log_sigmoid_forward`: min(x, 0) - log1p(e^-|x|), and e^-|x| as the buffer
    torch's CPU kernel keeps for the backward."""
    x = b.value("self")
    z = e.v("aten.exp.default", e.v("aten.neg.default", e.v("aten.abs.default", x)))
    t = tensor_of(x)
    zero = e.v("aten.scalar_tensor.default", 0.0, dtype=t.element_dtype, layout=Layout.strided,
               device=DeviceAttr(t.device.data))
    low = e.v("aten.minimum.default", zero, x)
    return [e.v("aten.sub.Tensor", low, e.v("aten.log1p.default", z)), z]


# -- activations (torch/_decomp) ----------------------------------------------------


@rule("aten.silu.default")
def _silu(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b["self"]
    return [e.v("aten.mul.Tensor", x, e.v("aten.sigmoid.default", x))]


@rule("aten.hardsigmoid.default")
def _hardsigmoid(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = e.v("aten.add.Tensor", b["self"], 3)
    x = e.v("aten.clamp.default", x, 0, 6)
    return [e.v("aten.div.Tensor", x, 6)]


@rule("aten.hardswish.default")
def _hardswish(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b["self"]
    y = e.v("aten.add.Tensor", x, 3)
    y = e.v("aten.clamp.default", y, 0, 6)
    y = e.v("aten.mul.Tensor", x, y)
    return [e.v("aten.div.Tensor", y, 6)]


@rule("aten.relu6.default")
def _relu6(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`hardtanh(x, 0, 6)`, the bounds integers on an integer tensor (no float promotion)."""
    x = b.value("self")
    lo, hi = (0.0, 6.0) if tensor_of(x).element_dtype.is_floating_point else (0, 6)
    return [e.v("aten.hardtanh.default", x, lo, hi)]
