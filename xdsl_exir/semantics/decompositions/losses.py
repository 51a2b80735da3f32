"""Decompositions of loss functions."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.exir import (
    DeviceAttr,
    Layout,
)
from xdsl_exir.semantics.decompositions.core import (
    REDUCTIONS,
    Decline,
    Emitter,
    as_float,
    number_arg,
    op_name,
    reduce_loss,
    rule,
    tensor_of,
    xlogy_of,
    zero_like,
)
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.utils.symbolic import SymSize

# -- losses ---------------------------------------------------------------------


def _nll_forward(
    e: Emitter, x: SSAValue, target: SSAValue, weight: object, reduction: int, ignore_index: object
) -> tuple[SSAValue, SSAValue]:
    """torch/_decomp's `nll_loss_forward`: minus the target class's (weighted) log-probability,
    zero at `ignore_index`; the sum, the mean over the weights of the counted targets, or
    each term; and the total weight."""
    t = tensor_of(x)
    cdim = 1 if t.rank >= 2 else 0
    w = None
    if isinstance(weight, SSAValue):
        w = weight
        if t.rank > 1:
            shape: list[SymSize] = [1] * t.rank
            shape[cdim] = tensor_of(weight).sizes[0]
            w = e.v("aten.view.default", weight, e.sizes(shape))
        x = e.v("aten.mul.Tensor", x, w)
    keep = e.v("aten.ne.Scalar", target, ignore_index)
    safe = e.v("aten.where.self", keep, target, zero_like(e, tensor_of(target)))
    safe_u = e.v("aten.unsqueeze.default", safe, cdim)
    picked = e.v("aten.squeeze.dims", e.v("aten.gather.default", x, cdim, safe_u), [cdim])
    result = e.v("aten.neg.default", picked)
    result = e.v("aten.where.self", keep, result, zero_like(e, tensor_of(result)))
    zero_total = e.v("aten.full.default", [], 0.0, dtype=t.element_dtype, layout=Layout.strided,
                     device=DeviceAttr(t.device.data), pin_memory=False)
    if REDUCTIONS.get(reduction) == "none" and t.rank > 1:
        return result, zero_total
    if w is not None:
        wx = e.v("aten.expand.default", w, e.sizes(t.sizes))
        wsum = e.v("aten.squeeze.dims", e.v("aten.gather.default", wx, cdim, safe_u), [cdim])
        wsum = e.v("aten.where.self", keep, wsum, zero_like(e, tensor_of(wsum)))
        total = e.v("aten.sum.dim_IntList", wsum, [])
    else:
        count = e.v("aten.sum.dim_IntList", keep, [])
        total = e.v("aten._to_copy.default", count, dtype=t.element_dtype)
    if REDUCTIONS.get(reduction) == "sum":
        result = e.v("aten.sum.dim_IntList", result, [])
    elif REDUCTIONS.get(reduction) == "mean":
        result = e.v("aten.div.Tensor", e.v("aten.sum.dim_IntList", result, []), total)
    return result, total


@rule("aten.nll_loss_forward.default", "aten.nll_loss2d_forward.default")
def _nll_loss_forward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    out, total = _nll_forward(
        e, b.value("self"), b.value("target"), b.get("weight"), b.int("reduction"),
        b["ignore_index"],
    )
    return [out, total]


@rule("aten.nll_loss.default", "aten.nll_loss_nd.default", "aten.nll_loss2d.default")
def _nll_loss(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    if op_name(op) == "aten.nll_loss_nd.default" and tensor_of(x).rank > 2:
        raise Decline()  # flattening the spatial dims is left to torch's own decomposition
    return [_nll_forward(e, x, b.value("target"), b.get("weight"), b.int("reduction"), b["ignore_index"])[0]]


@rule("aten.cross_entropy_loss.default")
def _cross_entropy(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """
    torch's `cross_entropy_loss`, term for term as its own decomposition: the log-softmax
    over the class dim, then for a floating-point target (class probabilities, the input's
    sizes) minus the sum of log-probability times target (smoothed to
    `t * (1 - s) + s / classes`, times the class weights), the mean dividing by the number
    of rows (NaN when there are none); for class indices `nll_loss`, and with smoothing
    `(1 - s) * nll + s / classes * smooth`, where `smooth` is minus the (weighted) sum of the
    row's log-probabilities, zero at `ignore_index`, its mean over the counted targets'
    weights. Class indices past 2-d are left to torch's `nll_loss_nd`.
    """
    x, target = b.value("self"), b.value("target")
    xt = tensor_of(x)
    cdim = 1 if xt.rank >= 2 else 0
    reduction = REDUCTIONS.get(b.int("reduction"))
    smoothing = float(cast(float, b.get("label_smoothing") or 0.0))
    weight = b.get("weight")
    n = xt.sizes[cdim] if xt.rank else 1
    probabilities = tensor_of(target).element_dtype.is_floating_point
    if not isinstance(n, int) or (not probabilities and xt.rank > 2) or reduction is None:
        raise Decline()
    logp = e.v("aten._log_softmax.default", x, cdim, False)
    w = None
    if isinstance(weight, SSAValue):
        shape: list[SymSize] = [1] * xt.rank
        shape[cdim] = n
        w = e.v("aten.view.default", weight, e.sizes(shape)) if xt.rank > 1 else weight
    if probabilities:
        rows = 1
        for d, size in enumerate(xt.sizes):
            if d != cdim:
                if not isinstance(size, int):
                    raise Decline()
                rows *= size
        t = target
        if smoothing > 0:
            t = e.v("aten.add.Scalar", e.v("aten.mul.Scalar", target, 1 - smoothing), smoothing / n)
        terms = e.v("aten.mul.Tensor", logp, t)
        if w is not None:
            terms = e.v("aten.mul.Tensor", terms, w)
        if reduction == "none":
            return [e.v("aten.neg.default", e.v("aten.sum.dim_IntList", terms, [cdim]))]
        loss = e.v("aten.neg.default", e.v("aten.sum.dim_IntList", terms, []))
        return [e.v("aten.div.Scalar", loss, rows) if reduction == "mean" else loss]
    ignore = b["ignore_index"]
    nll = _nll_forward(e, logp, target, weight, b.int("reduction"), ignore)[0]
    if smoothing <= 0:
        return [nll]
    ignored = e.v("aten.eq.Scalar", target, ignore)
    weighted = logp if w is None else e.v("aten.mul.Tensor", logp, w)
    smooth = e.v("aten.neg.default", e.v("aten.sum.dim_IntList", weighted, [cdim]))
    smooth = e.v("aten.where.self", ignored, zero_like(e, tensor_of(smooth)), smooth)
    if reduction == "mean":
        if isinstance(weight, SSAValue):
            safe = e.v("aten.where.self", ignored, zero_like(e, tensor_of(target)), target)
            picked = e.v("aten.gather.default", weight, 0, e.v("aten.view.default", safe, e.sizes([-1])))
            picked = e.v("aten.where.self", e.v("aten.view.default", ignored, e.sizes([-1])),
                         zero_like(e, tensor_of(picked)), picked)
            total = e.v("aten.sum.dim_IntList", picked, [])
        else:
            count = e.v("aten.sum.dim_IntList", e.v("aten.logical_not.default", ignored), [])
            total = e.v("aten._to_copy.default", count, dtype=tensor_of(smooth).element_dtype)
        smooth = e.v("aten.div.Tensor", e.v("aten.sum.dim_IntList", smooth, []), total)
    elif reduction == "sum":
        smooth = e.v("aten.sum.dim_IntList", smooth, [])
    return [e.v("aten.add.Tensor", e.v("aten.mul.Scalar", nll, 1 - smoothing), e.v("aten.mul.Scalar", smooth, smoothing / n))]


# -- more losses ---------------------------------------------------------------------


@rule("aten.mse_loss.default", "aten.l1_loss.default")
def _mse_loss(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    d = e.v("aten.sub.Tensor", b["self"], b["target"])
    loss = e.v("aten.mul.Tensor", d, d) if op_name(op) == "aten.mse_loss.default" else e.v("aten.abs.default", d)
    return [reduce_loss(e, loss, b.int("reduction"))]


@rule("aten.smooth_l1_loss.default", "aten.huber_loss.default")
def _smooth_l1(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Quadratic below `beta` (`delta`), linear above: smooth L1 divides the quadratic
    part by beta, Huber multiplies the linear part by delta."""
    d = e.v("aten.abs.default", e.v("aten.sub.Tensor", b["self"], b["target"]))
    huber = op_name(op) == "aten.huber_loss.default"
    beta = float(cast(float, b["delta"] if huber else b["beta"]))
    if not huber and beta == 0:
        return [reduce_loss(e, d, b.int("reduction"))]
    square = e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", d, d), 0.5 if huber else 0.5 / beta)
    linear = e.v("aten.sub.Tensor", d, 0.5 * beta)
    if huber:
        linear = e.v("aten.mul.Tensor", linear, beta)
    loss = e.v("aten.where.self", e.v("aten.lt.Scalar", d, beta), square, linear)
    return [reduce_loss(e, loss, b.int("reduction"))]


@rule("aten.binary_cross_entropy.default")
def _bce(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """-(t * log(x) + (1 - t) * log(1 - x)), each log clamped at -100 as torch does."""
    x, t = b.value("self"), b.value("target")
    log_x = e.v("aten.clamp.default", e.v("aten.log.default", x), -100)
    log_1mx = e.v("aten.clamp.default", e.v("aten.log1p.default", e.v("aten.neg.default", x)), -100)
    one_minus_t = e.v("aten.rsub.Scalar", t, 1)
    loss = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", one_minus_t, log_1mx), e.v("aten.mul.Tensor", t, log_x))
    loss = e.v("aten.neg.default", loss)
    if isinstance(b.get("weight"), SSAValue):
        loss = e.v("aten.mul.Tensor", loss, b["weight"])
    return [reduce_loss(e, loss, b.int("reduction"))]


@rule("aten.binary_cross_entropy_with_logits.default")
def _bce_logits(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch's stable form: (1 - t) * x + w_pos * (log1p(exp(-|x|)) + relu(-x))."""
    x, t = b.value("self"), b.value("target")
    softplus_neg = e.v("aten.add.Tensor",
                       e.v("aten.log1p.default", e.v("aten.exp.default", e.v("aten.neg.default", e.v("aten.abs.default", x)))),
                       e.v("aten.relu.default", e.v("aten.neg.default", x)))
    pos_weight = b.get("pos_weight")
    if isinstance(pos_weight, SSAValue):
        log_weight = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", e.v("aten.sub.Tensor", pos_weight, 1), t), 1)
        softplus_neg = e.v("aten.mul.Tensor", log_weight, softplus_neg)
    loss = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", e.v("aten.rsub.Scalar", t, 1), x), softplus_neg)
    if isinstance(b.get("weight"), SSAValue):
        loss = e.v("aten.mul.Tensor", loss, b["weight"])
    return [reduce_loss(e, loss, b.int("reduction"))]


@rule("aten.kl_div.default")
def _kl_div(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch's kl_div: `xlogy(t, t) - t * x`, or `exp(t) * (t - x)` for a log target."""
    x, target = b.value("self"), b.value("target")
    if b.get("log_target"):
        loss = e.v("aten.mul.Tensor", e.v("aten.exp.default", target), e.v("aten.sub.Tensor", target, x))
    else:
        loss = e.v("aten.sub.Tensor", xlogy_of(e, target, target), e.v("aten.mul.Tensor", target, x))
    return [reduce_loss(e, loss, b.int("reduction"))]


@rule("aten.margin_ranking_loss.default")
def _margin_ranking_loss(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """max(0, -target (input1 - input2) + margin); integer inputs in float32, as torch's float margin makes them."""
    x1, x2, target = (as_float(e, cast(SSAValue, b[n])) for n in ("input1", "input2", "target"))
    diff = e.v("aten.sub.Tensor", x1, x2)
    z = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", e.v("aten.neg.default", target), diff), number_arg(b, "margin", 0.0))
    return [reduce_loss(e, e.v("aten.clamp_min.default", z, 0), b.int("reduction"))]


@rule("aten.hinge_embedding_loss.default")
def _hinge_embedding_loss(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """x where target is 1, max(0, margin - x) where target is -1 (both terms where it is neither)."""
    x, target = b.value("self"), b.value("target")
    zero = zero_like(e, tensor_of(x))
    margin = e.v("aten.clamp_min.default", e.v("aten.add.Tensor", e.v("aten.neg.default", x), number_arg(b, "margin", 1.0)), 0)
    out_margin = e.v("aten.where.self", e.v("aten.ne.Scalar", target, 1), margin, zero)
    out_self = e.v("aten.where.self", e.v("aten.ne.Scalar", target, -1), x, zero)
    return [reduce_loss(e, e.v("aten.add.Tensor", out_margin, out_self), b.int("reduction"))]


@rule("aten.soft_margin_loss.default")
def _soft_margin_loss(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """log(1 + e^(-target x))."""
    z = e.v("aten.mul.Tensor", e.v("aten.neg.default", b["target"]), b["self"])
    return [reduce_loss(e, e.v("aten.log1p.default", e.v("aten.exp.default", z)), b.int("reduction"))]


@rule("aten.poisson_nll_loss.default")
def _poisson_nll_loss(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """e^x - t x (log input), or x - t log(x + eps); `full` adds Stirling's t log t - t + ½ log(2π t) where t > 1."""
    x0, t0 = b.value("input"), b.value("target")
    x, t = as_float(e, x0), as_float(e, t0)  # torch: exp/log of an integer is float32
    if b.get("log_input"):  # t x in the inputs' own dtype, as torch (an int64 product wraps)
        loss = e.v("aten.sub.Tensor", e.v("aten.exp.default", x), as_float(e, e.v("aten.mul.Tensor", t0, x0)))
    else:
        logx = e.v("aten.log.default", e.v("aten.add.Tensor", x, number_arg(b, "eps", 1e-8)))
        loss = e.v("aten.sub.Tensor", x, e.v("aten.mul.Tensor", t, logx))
    if b.get("full"):
        logt = e.v("aten.log.default", t)
        stirling = e.v("aten.add.Tensor", e.v("aten.sub.Tensor", e.v("aten.mul.Tensor", t, logt), t),
                       e.v("aten.mul.Tensor", e.v("aten.log.default", e.v("aten.mul.Tensor", t, 2 * math.pi)), 0.5))
        stirling = e.v("aten.where.self", e.v("aten.gt.Scalar", t, 1), stirling, zero_like(e, tensor_of(stirling)))
        loss = e.v("aten.add.Tensor", loss, stirling)
    return [reduce_loss(e, loss, b.int("reduction"))]
