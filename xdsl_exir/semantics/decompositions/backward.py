"""Decompositions of gradient operators (`*_backward`, `_softmax_backward_data`): activations, losses, views, indexing, normalization and convolution (torch/_decomp)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.exir import (
    DeviceAttr,
    DType,
    Layout,
    TensorType,
)
from xdsl_exir.semantics.decompositions.core import (
    REDUCTIONS,
    Decline,
    Emitter,
    cast_to_dtype,
    computed_in_float32,
    fill_value_for,
    full_value,
    number_arg,
    one_minus,
    op_name,
    rule,
    scalar_tensor,
    tensor_of,
    zero_like,
)
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.utils.symbolic import SymSize


def _grad_where(e: Emitter, mask: SSAValue, grad: SSAValue, value: SSAValue | None = None) -> SSAValue:
    """`where(mask, 0, grad)`, or `where(mask, value, grad)`."""
    other = value if value is not None else zero_like(e, tensor_of(grad))
    return e.v("aten.where.self", mask, other, grad)


@rule("aten.sigmoid_backward.default")
def _sigmoid_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """grad * y * (1 - y), from the forward's output y."""
    y = b.value("output")
    return [e.v("aten.mul.Tensor", b["grad_output"], e.v("aten.mul.Tensor", y, one_minus(e, y)))]


@rule("aten.tanh_backward.default")
def _tanh_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """grad * (1 - y²), from the forward's output y."""
    y = b.value("output")
    return [e.v("aten.mul.Tensor", b["grad_output"], one_minus(e, e.v("aten.mul.Tensor", y, y)))]


@rule("aten.silu_backward.default")
def _silu_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """grad * σ(x) * (1 + x (1 - σ(x)))."""
    x = b.value("self")
    sig = e.v("aten.sigmoid.default", x)
    inner = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", x, one_minus(e, sig)), 1)
    return [e.v("aten.mul.Tensor", b["grad_output"], e.v("aten.mul.Tensor", sig, inner))]


@rule("aten.gelu_backward.default")
def _gelu_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """The derivative of x Φ(x) (Φ(x) + x φ(x)), or of the tanh approximation, times grad."""
    x, grad = b.value("self"), b.value("grad_output")
    if b.get("approximate", "none") == "tanh":
        beta = math.sqrt(2) * (2 / math.sqrt(math.pi)) * 0.5
        kappa = 0.044715
        x_sq = e.v("aten.mul.Tensor", x, x)
        inner = e.v("aten.mul.Tensor", e.v("aten.add.Tensor", x, e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", x_sq, x), kappa)), beta)
        t = e.v("aten.tanh.default", inner)
        left_derivative = e.v("aten.mul.Tensor", e.v("aten.add.Tensor", t, 1), 0.5)
        right_derivative = e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", x, 0.5), one_minus(e, e.v("aten.mul.Tensor", t, t)))
        inner_derivative = e.v("aten.mul.Tensor", e.v("aten.add.Tensor", e.v("aten.mul.Tensor", x_sq, 3 * kappa), 1), beta)
        d = e.v("aten.add.Tensor", left_derivative, e.v("aten.mul.Tensor", right_derivative, inner_derivative))
        return [e.v("aten.mul.Tensor", grad, d)]
    cdf = e.v("aten.mul.Tensor", e.v("aten.add.Tensor", e.v("aten.erf.default", e.v("aten.mul.Tensor", x, math.sqrt(0.5))), 1), 0.5)
    pdf = e.v("aten.mul.Tensor", e.v("aten.exp.default", e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", x, x), -0.5)),
              1 / math.sqrt(2 * math.pi))
    return [e.v("aten.mul.Tensor", grad, e.v("aten.add.Tensor", cdf, e.v("aten.mul.Tensor", x, pdf)))]


@rule("aten.hardswish_backward.default")
def _hardswish_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """0 below -3, grad (x/3 + 1/2) up to 3, grad above."""
    x, grad = b.value("self"), b.value("grad_output")
    mid = e.v("aten.mul.Tensor", grad, e.v("aten.add.Tensor", e.v("aten.div.Tensor", x, 3), 0.5))
    inner = e.v("aten.where.self", e.v("aten.le.Scalar", x, 3), mid, grad)
    return [_grad_where(e, e.v("aten.lt.Scalar", x, -3), inner)]


@rule("aten.hardsigmoid_backward.default")
def _hardsigmoid_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x, grad = b.value("self"), b.value("grad_output")
    inside = e.v("aten.logical_and.default", e.v("aten.gt.Scalar", x, -3), e.v("aten.lt.Scalar", x, 3))
    return [e.v("aten.where.self", inside, e.v("aten.div.Tensor", grad, 6), zero_like(e, tensor_of(grad)))]


@rule("aten.hardtanh_backward.default")
def _hardtanh_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x, grad = b.value("self"), b.value("grad_output")
    outside = e.v("aten.logical_or.default", e.v("aten.le.Scalar", x, number_arg(b, "min_val")),
                  e.v("aten.ge.Scalar", x, number_arg(b, "max_val")))
    return [_grad_where(e, outside, grad)]


@rule("aten.leaky_relu_backward.default")
def _leaky_relu_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x, grad = b.value("self"), b.value("grad_output")
    scaled = e.v("aten.mul.Tensor", grad, number_arg(b, "negative_slope"))
    return [e.v("aten.where.self", e.v("aten.gt.Scalar", x, 0), grad, scaled)]


@rule("aten.softplus_backward.default")
def _softplus_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """grad * e^(βx) / (e^(βx) + 1), and grad itself where βx exceeds the threshold (the linear part)."""
    x, grad = b.value("self"), b.value("grad_output")
    bx = e.v("aten.mul.Tensor", x, number_arg(b, "beta", 1.0))
    z = e.v("aten.exp.default", bx)
    soft = e.v("aten.mul.Tensor", grad, e.v("aten.div.Tensor", z, e.v("aten.add.Tensor", z, 1)))
    return [e.v("aten.where.self", e.v("aten.gt.Scalar", bx, number_arg(b, "threshold", 20.0)), grad, soft)]


@rule("aten.elu_backward.default")
def _elu_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """From the input (x ≤ 0: grad·input_scale·alpha·scale·e^(x·input_scale)) or from the
    output y (y ≤ 0: grad·input_scale·(y + alpha·scale)); grad·scale elsewhere."""
    v, grad = b.value("self_or_result"), b.value("grad_output")
    negcoef = number_arg(b, "alpha") * number_arg(b, "scale")
    poscoef, negiptcoef = number_arg(b, "scale"), number_arg(b, "input_scale")
    if b.get("is_result"):
        neg = e.v("aten.mul.Tensor", grad, e.v("aten.mul.Tensor", e.v("aten.add.Tensor", v, negcoef), negiptcoef))
    else:
        ex = e.v("aten.exp.default", e.v("aten.mul.Tensor", v, negiptcoef))
        neg = e.v("aten.mul.Tensor", grad, e.v("aten.mul.Tensor", ex, negiptcoef * negcoef))
    return [e.v("aten.where.self", e.v("aten.le.Scalar", v, 0), neg, e.v("aten.mul.Tensor", grad, poscoef))]


@rule("aten.mish_backward.default")
def _mish_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """grad (tanh(softplus x) + x σ(x) (1 - tanh²(softplus x)))."""
    x, grad = b.value("self"), b.value("grad_output")
    t = e.v("aten.tanh.default", e.v("aten.softplus.default", x, 1, 20))
    s = e.v("aten.sigmoid.default", x)
    d = e.v("aten.add.Tensor", t, e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", x, s), one_minus(e, e.v("aten.mul.Tensor", t, t))))
    return [e.v("aten.mul.Tensor", grad, d)]


@rule("aten.hardshrink_backward.default", "aten.softshrink_backward.default")
def _shrink_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x, grad = b.value("self"), cast(SSAValue, b.get("grad_out", b.get("grad_output")))
    lambd = number_arg(b, "lambd")
    inside = e.v("aten.logical_and.default", e.v("aten.ge.Scalar", x, -lambd), e.v("aten.le.Scalar", x, lambd))
    return [_grad_where(e, inside, grad)]


@rule("aten.log_sigmoid_backward.default")
def _log_sigmoid_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """grad (max' - sign · z / (1 + z)) with z = e^-|x| (the forward's buffer is not needed)."""
    x, grad = b.value("self"), b.value("grad_output")
    t = tensor_of(x)
    neg = e.v("aten.lt.Scalar", x, 0)
    max_deriv = e.v("aten.where.self", neg, scalar_tensor(e, 1.0, t), scalar_tensor(e, 0.0, t))
    sign = e.v("aten.where.self", neg, scalar_tensor(e, 1.0, t), scalar_tensor(e, -1.0, t))
    z = e.v("aten.exp.default", e.v("aten.neg.default", e.v("aten.abs.default", x)))
    frac = e.v("aten.div.Tensor", z, e.v("aten.add.Tensor", z, 1))
    return [e.v("aten.mul.Tensor", grad, e.v("aten.sub.Tensor", max_deriv, e.v("aten.mul.Tensor", sign, frac)))]


@rule("aten.logit_backward.default")
def _logit_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """grad / (x (1 - x)) inside [eps, 1 - eps] (0 outside), or inside [0, 1] (NaN outside) without eps."""
    x, grad = b.value("self"), b.value("grad_output")
    d = e.v("aten.div.Tensor", grad, e.v("aten.mul.Tensor", x, one_minus(e, x)))
    eps = b.get("eps")
    lo, hi = (0.0, 1.0) if eps is None else (number_arg(b, "eps"), 1.0 - number_arg(b, "eps"))
    outside = e.v("aten.logical_or.default", e.v("aten.lt.Scalar", x, lo), e.v("aten.gt.Scalar", x, hi))
    fill = scalar_tensor(e, math.nan if eps is None else 0.0, tensor_of(grad))
    return [e.v("aten.where.self", outside, fill, d)]


@rule("aten.mse_loss_backward.default")
def _mse_loss_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """2 (x - target) grad, over the element count for the mean."""
    x, grad = b.value("self"), b.value("grad_output")
    numel = tensor_of(x).numel()
    if REDUCTIONS.get(b.int("reduction")) == "mean" and not isinstance(numel, int):
        raise Decline()
    norm = 2.0 / cast(int, numel) if REDUCTIONS.get(b.int("reduction")) == "mean" else 2.0
    diff = e.v("aten.sub.Tensor", x, b["target"])
    return [e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", diff, norm), grad)]


@rule("aten._softmax_backward_data.default")
def _softmax_backward_data(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """y (g - Σ g y) over `dim`, in `input_dtype`, in that order as torch's CPU kernel
    (`g y - y Σ g y` makes inf - inf = NaN where torch has an infinity)."""
    g, y = b.value("grad_output"), b.value("output")
    dim = b.int("dim")
    total = e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", g, y), [dim], True)
    out = e.v("aten.mul.Tensor", y, e.v("aten.sub.Tensor", g, total))
    return [cast_to_dtype(e, out, b.dtype("input_dtype"))]


@rule("aten._log_softmax_backward_data.default")
def _log_softmax_backward_data(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """g - e^y Σ g over `dim`, in `input_dtype`."""
    g, y = b.value("grad_output"), b.value("output")
    total = e.v("aten.sum.dim_IntList", g, [b.int("dim")], True)
    out = e.v("aten.sub.Tensor", g, e.v("aten.mul.Tensor", e.v("aten.exp.default", y), total))
    return [cast_to_dtype(e, out, b.dtype("input_dtype"))]


@rule("aten.native_dropout_backward.default")
def _native_dropout_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    grad = b.value("grad_output")
    mask = e.v("aten._to_copy.default", b["mask"], dtype=tensor_of(grad).element_dtype)
    return [e.v("aten.mul.Tensor", grad, e.v("aten.mul.Tensor", mask, number_arg(b, "scale")))]


# -- backward of views, indexing and more losses (torch/_decomp) ------------------------------


def _zeros_sized(e: Emitter, size: object, like: TensorType) -> SSAValue:
    """zeros(size) in `like`'s dtype and device: the gradient a view or gather scatters into."""
    return e.v("aten.full.default", size, fill_value_for(like.element_dtype, 0), dtype=like.element_dtype,
               layout=Layout.strided, device=DeviceAttr(like.device.data), pin_memory=False)


@rule("aten.select_backward.default")
def _select_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    grad = b.value("grad_output")
    zeros = _zeros_sized(e, b["input_sizes"], tensor_of(grad))
    return [e.v("aten.select_scatter.default", zeros, grad, b["dim"], b["index"])]


@rule("aten.slice_backward.default")
def _slice_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    grad = b.value("grad_output")
    zeros = _zeros_sized(e, b["input_sizes"], tensor_of(grad))
    return [e.v("aten.slice_scatter.default", zeros, grad, b["dim"], b["start"], b["end"], b["step"])]


@rule("aten.index_select_backward.default")
def _index_select_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    grad = b.value("grad")
    zeros = _zeros_sized(e, b["self_sizes"], tensor_of(grad))
    return [e.v("aten.index_add.default", zeros, b["dim"], b["index"], grad)]


@rule("aten.gather_backward.default")
def _gather_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    grad = b.value("grad")
    zeros = _zeros_sized(e, e.sizes(tensor_of(b["self"]).sizes), tensor_of(grad))
    return [e.v("aten.scatter_add.default", zeros, b["dim"], b["index"], grad)]


@rule("aten.trace_backward.default")
def _trace_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """The 0-d gradient on the diagonal of a matrix of `sizes`: grad * eye(n, m)."""
    grad = b.value("grad")
    sizes = b["sizes"]
    if not isinstance(sizes, list) or len(sizes) != 2:
        raise Decline()
    t = tensor_of(grad)
    eye = e.v("aten.eye.m", sizes[0], sizes[1], dtype=t.element_dtype, layout=Layout.strided,
              device=DeviceAttr(t.device.data), pin_memory=False)
    return [e.v("aten.mul.Tensor", eye, grad)]


@rule("aten.embedding_backward.default")
def _embedding_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue] | None:
    if b.get("sparse"):
        return None
    return [e.v("aten.embedding_dense_backward.default", b["grad"], b["indices"], b["num_weights"], b["padding_idx"],
                bool(b.get("scale_grad_by_freq")))]


def _loss_norm(b: Bound, x: SSAValue) -> float:
    """1 / numel for the mean reduction (the gradient of a mean), 1 otherwise."""
    if REDUCTIONS.get(b.int("reduction")) != "mean":
        return 1.0
    numel = tensor_of(x).numel()
    if not isinstance(numel, int):
        raise Decline()
    return 1.0 / numel if numel else math.nan


@rule("aten.smooth_l1_loss_backward.default")
def _smooth_l1_loss_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """ATen's kernel, with d = x - t: `-norm * grad` where d <= -beta, `norm * grad` where
    d >= beta, else `d * norm / beta * grad` (so a NaN difference gives NaN, and beta = 0 is the
    L1 gradient, -norm * grad at d = 0)."""
    x, grad = b.value("self"), b.value("grad_output")
    norm, beta = _loss_norm(b, x), number_arg(b, "beta")
    d = e.v("aten.sub.Tensor", x, b["target"])
    pos = e.v("aten.mul.Tensor", grad, norm)
    neg = e.v("aten.mul.Tensor", grad, -norm)
    inner = e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", d, norm / beta if beta else 1.0), grad)
    out = e.v("aten.where.self", e.v("aten.ge.Scalar", d, beta), pos, inner)
    return [e.v("aten.where.self", e.v("aten.le.Scalar", d, -beta), neg, out)]


@rule("aten.huber_loss_backward.default")
def _huber_loss_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """(x - t) inside [-delta, delta], ±delta outside, times grad and the reduction's norm."""
    x, grad = b.value("self"), b.value("grad_output")
    norm, delta = _loss_norm(b, x), number_arg(b, "delta")
    d = e.v("aten.sub.Tensor", x, b["target"])
    clipped = e.v("aten.clamp.default", d, -delta, delta)
    return [e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", clipped, norm), grad)]


@rule("aten.binary_cross_entropy_backward.default")
def _binary_cross_entropy_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """grad (x - t) / max(x (1 - x), 1e-12), weighted, over numel for the mean."""
    x, grad = b.value("self"), b.value("grad_output")
    denom = e.v("aten.clamp_min.default", e.v("aten.mul.Tensor", x, one_minus(e, x)), 1e-12)
    out = e.v("aten.div.Tensor", e.v("aten.mul.Tensor", grad, e.v("aten.sub.Tensor", x, b["target"])), denom)
    if isinstance(b.get("weight"), SSAValue):
        out = e.v("aten.mul.Tensor", out, b["weight"])
    norm = _loss_norm(b, x)
    return [out if norm == 1.0 else e.v("aten.mul.Tensor", out, norm)]


@rule("aten.glu_backward.default")
def _glu_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """With self = [a, c] halves along dim: [grad σ(c), grad a σ(c) (1 - σ(c))]."""
    x, grad = b.value("self"), b.value("grad_output")
    t = tensor_of(x)
    dim = b.int("dim") % t.rank
    n = t.sizes[dim]
    if not isinstance(n, int):
        raise Decline()
    a = e.v("aten.slice.Tensor", x, dim, 0, n // 2)
    c = e.v("aten.sigmoid.default", e.v("aten.slice.Tensor", x, dim, n // 2, n))
    ga = e.v("aten.mul.Tensor", grad, c)
    gc = e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", ga, a), one_minus(e, c))
    return [e.v("aten.cat.default", [ga, gc], dim)]


@rule("aten.rrelu_with_noise_backward.default")
def _rrelu_with_noise_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """grad * noise in training (the slopes drawn forward), else leaky_relu's backward at the mean slope."""
    x, grad = b.value("self"), b.value("grad_output")
    lower, upper = number_arg(b, "lower"), number_arg(b, "upper")
    if b.get("training") and upper - lower > 1e-6:
        return [e.v("aten.mul.Tensor", grad, b["noise"])]
    scaled = e.v("aten.mul.Tensor", grad, (lower + upper) / 2)
    return [e.v("aten.where.self", e.v("aten.gt.Scalar", x, 0), grad, scaled)]


# -- convolution, batch norm and pooling backward (training graphs of CNNs) ------------------


def _static(sizes: Sequence[object]) -> list[int]:
    """Sizes known at rewrite time (the rules below compute paddings and slices from them)."""
    if not all(isinstance(s, int) for s in sizes):
        raise Decline()
    return cast(list[int], list(sizes))


def _mask(b: Bound, n: int = 3) -> list[bool]:
    mask = b.get("output_mask")
    if not isinstance(mask, list) or len(cast(list[object], mask)) != n:
        raise Decline()
    return [bool(m) for m in cast(list[object], mask)]


@rule("aten.convolution_backward.default")
@computed_in_float32
def _convolution_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue | None]:
    """
    The three gradients of a (non-transposed) convolution as convolutions, as
    torch-mlir's `DecomposeComplexOps` writes them, each only where
    `output_mask` asks for it (the others are undefined, as in torch):

    - grad_input: the transposed convolution of grad_output with the same
      weight, stride, padding, dilation and groups, its `output_padding` the
      rows the forward's floor division dropped (so it has the input's sizes);
      a padding beyond `dilation * (k - 1)` (which the transposed form cannot
      take) is the unpadded transposed convolution sliced;
    - grad_weight: a convolution of the input with grad_output as its window,
      batch and channels swapped (in groups: `[C_in/g, g*N, ...]` by
      `[C_out, N, ...]`), stride and dilation exchanged, cut to the kernel's
      sizes (the last rows a stride skipped contribute nothing);
    - grad_bias: grad_output summed over all dims but the channels.
    """
    go, x, w = b.value("grad_output"), b.value("input"), b.value("weight")
    tx, tw, tg = tensor_of(x), tensor_of(w), tensor_of(go)
    n = tx.rank - 2
    if n < 1 or tw.rank != n + 2 or tg.rank != n + 2 or b.get("transposed"):
        raise Decline()  # unbatched inputs and transposed convolutions: the interpreter's kernel
    xs, ws, gs = _static(tx.sizes), _static(tw.sizes), _static(tg.sizes)
    stride, padding, dilation = b.ints("stride", n), b.ints("padding", n), b.ints("dilation", n)
    groups = b.int("groups")
    mask = _mask(b)
    spatial = list(range(2, n + 2))
    grad_input = grad_weight = grad_bias = None
    if mask[0]:
        full = [(o - 1) * s + d * (k - 1) + 1 for o, s, d, k in zip(gs[2:], stride, dilation, ws[2:])]
        if all(p <= d * (k - 1) for p, d, k in zip(padding, dilation, ws[2:])):
            extra = [h + 2 * p - f for h, p, f in zip(xs[2:], padding, full)]
            grad_input = e.v("aten.convolution.default", go, w, None, stride, padding, dilation, True, extra, groups)
        else:
            extra = [max(0, p + h - f) for h, p, f in zip(xs[2:], padding, full)]
            grad_input = e.v("aten.convolution.default", go, w, None, stride, [0] * n, dilation, True, extra, groups)
            for dim, p, h in zip(spatial, padding, xs[2:]):
                grad_input = e.v("aten.slice.Tensor", grad_input, dim, p, p + h, 1)
    if mask[1]:
        batch, c_in, c_out = xs[0], xs[1], ws[0]
        if groups == 1:
            xi, gw = e.v("aten.transpose.int", x, 0, 1), e.v("aten.transpose.int", go, 0, 1)
        else:
            rest = list(range(3, n + 3))
            xi = e.v("aten.view.default", x, [batch, groups, c_in // groups, *xs[2:]])
            xi = e.reshape(e.v("aten.permute.default", xi, [2, 1, 0, *rest]), [c_in // groups, groups * batch, *xs[2:]])
            gw = e.v("aten.view.default", go, [batch, groups, c_out // groups, *gs[2:]])
            gw = e.reshape(e.v("aten.permute.default", gw, [1, 2, 0, *rest]), [c_out, batch, *gs[2:]])
        r = e.v("aten.convolution.default", xi, gw, None, dilation, padding, stride, False, [0] * n, groups)
        for dim, k, got in zip(spatial, ws[2:], _static(tensor_of(r).sizes[2:])):
            if got != k:
                r = e.v("aten.slice.Tensor", r, dim, 0, k, 1)
        grad_weight = e.v("aten.transpose.int", r, 0, 1)
    if mask[2]:
        grad_bias = e.v("aten.sum.dim_IntList", go, [0, *spatial], False)
    return [grad_input, grad_weight, grad_bias]


@rule("aten.native_batch_norm_backward.default")
@computed_in_float32
def _native_batch_norm_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue | None]:
    """
    torch's decomposition (`torch/_decomp/decompositions.py`), with the
    statistics of training (`save_mean`, `save_invstd`) or of the running
    buffers (evaluation), per channel over N = numel / C elements:
    grad_input = (g - (x - mean) · Σg(x - mean) / N · invstd² - Σg / N) · invstd · weight
    in training, g · invstd · weight in evaluation; grad_weight = Σg(x - mean) · invstd;
    grad_bias = Σg. Float16 and bfloat16 on float32 copies (`computed_in_float32`).
    """
    g, x = b.value("grad_out"), b.value("input")
    t = tensor_of(x)
    if t.rank < 2 or t.element_dtype not in (DType.float32, DType.float64):
        raise Decline()
    sizes = _static(t.sizes)
    mask = _mask(b)
    dims = [d for d in range(t.rank) if d != 1]
    shape = [1] * t.rank
    shape[1] = sizes[1]
    numel = math.prod(sizes)
    count = numel // sizes[1] if sizes[1] else 0
    train = bool(b.get("train"))
    if train:
        if not isinstance(b.get("save_mean"), SSAValue) or not isinstance(b.get("save_invstd"), SSAValue):
            raise Decline()
        mean, invstd = b.value("save_mean"), b.value("save_invstd")
    else:
        if not isinstance(b.get("running_mean"), SSAValue) or not isinstance(b.get("running_var"), SSAValue):
            raise Decline()
        mean = b.value("running_mean")
        invstd = e.v("aten.rsqrt.default", e.v("aten.add.Tensor", b["running_var"], number_arg(b, "eps")))
    mean_b = e.v("aten.view.default", mean, shape)
    invstd_b = e.v("aten.view.default", invstd, shape)
    grad_sum = e.v("aten.sum.dim_IntList", g, dims, False)
    centered = e.v("aten.sub.Tensor", x, mean_b)
    dot = e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", g, centered), dims, False)
    weight = b.get("weight")
    scale = invstd_b if not isinstance(weight, SSAValue) else e.v(
        "aten.mul.Tensor", invstd_b, e.v("aten.view.default", weight, shape))
    grad_input = grad_weight = None
    if mask[0]:
        if train:
            norm = 1.0 / count if count else math.nan
            grad_mean = e.v("aten.view.default", e.v("aten.mul.Tensor", grad_sum, norm), shape)
            proj_scale = e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", e.v("aten.view.default", dot, shape), norm),
                             e.v("aten.mul.Tensor", invstd_b, invstd_b))
            proj = e.v("aten.mul.Tensor", centered, proj_scale)
            inner = e.v("aten.sub.Tensor", e.v("aten.sub.Tensor", g, proj), grad_mean)
            grad_input = e.v("aten.mul.Tensor", inner, scale)
        else:
            grad_input = e.v("aten.mul.Tensor", g, scale)
    if mask[1]:
        grad_weight = e.v("aten.mul.Tensor", dot, invstd)
    return [grad_input, grad_weight, grad_sum if mask[2] else None]


@rule("aten.native_layer_norm_backward.default")
@computed_in_float32
def _native_layer_norm_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue | None]:
    """
    torch's decomposition (`torch/_decomp/decompositions.py`), over the N
    normalized elements of each of the M rows, with x̂ = (x - mean) · rstd and
    ĝ = grad · weight: grad_input = rstd / N · (N ĝ - Σĝ - x̂ Σ(x̂ ĝ));
    grad_weight = Σ over the rows of grad · x̂; grad_bias = Σ over the rows of
    grad. Nothing to normalize (M or N zero) gives zeros. Float16 and bfloat16 on float32 copies.
    """
    g, x = b.value("grad_out"), b.value("input")
    t = tensor_of(x)
    if t.element_dtype not in (DType.float32, DType.float64):
        raise Decline()
    sizes = _static(t.sizes)
    normalized = b.ints("normalized_shape")
    axis = t.rank - len(normalized)
    inner, outer = list(range(axis, t.rank)), list(range(axis))
    n, m = math.prod(sizes[axis:]), math.prod(sizes[:axis])
    mask = _mask(b)
    weight, bias = b.get("weight"), b.get("bias")
    if n == 0 or m == 0:
        zeros = [_zeros_sized(e, sizes, t), None, None]
        for i, param in ((1, weight), (2, bias)):
            if mask[i] and isinstance(param, SSAValue):
                zeros[i] = _zeros_sized(e, _static(tensor_of(param).sizes), tensor_of(param))
        return [zeros[0] if mask[0] else None, zeros[1], zeros[2]]
    x_hat = e.v("aten.mul.Tensor", e.v("aten.sub.Tensor", x, b["mean"]), b["rstd"])
    grad_x_hat = e.v("aten.mul.Tensor", g, weight) if isinstance(weight, SSAValue) else g
    grad_input = grad_weight = grad_bias = None
    if mask[0]:
        a = e.v("aten.mul.Tensor", grad_x_hat, n)
        total = e.v("aten.sum.dim_IntList", grad_x_hat, inner, True)
        dot = e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", x_hat, grad_x_hat), inner, True)
        inner_value = e.v("aten.sub.Tensor", e.v("aten.sub.Tensor", a, total), e.v("aten.mul.Tensor", x_hat, dot))
        grad_input = e.v("aten.mul.Tensor", e.v("aten.div.Tensor", b["rstd"], n), inner_value)
    if mask[1] and isinstance(weight, SSAValue):
        product = e.v("aten.mul.Tensor", g, x_hat)
        grad_weight = e.v("aten.sum.dim_IntList", product, outer, False) if outer else product
    if mask[2] and isinstance(bias, SSAValue):
        grad_bias = e.v("aten.sum.dim_IntList", g, outer, False) if outer else g
    return [grad_input, grad_weight, grad_bias]


@rule("aten.native_group_norm_backward.default")
@computed_in_float32
def _native_group_norm_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue | None]:
    """
    torch's decomposition, per sample n and group: with the per-channel sums
    ds = Σ grad · x and db = Σ grad over the HxW positions, and s = 1 / (HxW · C/G),
    grad_input = grad · rstd · γ + x · c2 + c3 where c2 = (Σγ db · mean - Σγ ds) ·
    rstd³ · s and c3 = -c2 · mean - Σγ db · rstd · s (Σγ: over the group's channels,
    weighted by γ); grad_weight = Σ_n (ds - db · mean) · rstd; grad_bias = Σ_n db.
    Float16 and bfloat16 on float32 copies.
    """
    g, x = b.value("grad_out"), b.value("input")
    t = tensor_of(x)
    if t.element_dtype not in (DType.float32, DType.float64):
        raise Decline()
    n, c, hw, groups = b.int("N"), b.int("C"), b.int("HxW"), b.int("group")
    if groups <= 0 or c % groups or n * c * hw != tensor_of(x).numel():
        raise Decline()
    cpg = c // groups
    mask = _mask(b)
    mean, rstd = b.value("mean"), b.value("rstd")
    gamma = b.get("weight")
    planes = [n, c, hw]
    ds = e.v("aten.sum.dim_IntList", e.reshape(e.v("aten.mul.Tensor", g, x), planes), [2], False)
    db = e.v("aten.sum.dim_IntList", e.reshape(g, planes), [2], False)
    grad_input = grad_weight = grad_bias = None
    if mask[0]:
        scale = 1.0 / (hw * cpg) if hw * cpg else math.nan
        weighted_ds, weighted_db = ds, db
        c1 = e.v("aten.unsqueeze.default", rstd, -1)  # [N, G, 1]
        if isinstance(gamma, SSAValue):
            gamma_row = e.v("aten.unsqueeze.default", gamma, 0)
            weighted_ds, weighted_db = e.v("aten.mul.Tensor", ds, gamma_row), e.v("aten.mul.Tensor", db, gamma_row)
            c1 = e.v("aten.mul.Tensor", c1, e.v("aten.view.default", gamma, [1, groups, cpg]))
        ds_val = e.v("aten.sum.dim_IntList", e.v("aten.view.default", weighted_ds, [n, groups, cpg]), [2], False)
        db_val = e.v("aten.sum.dim_IntList", e.v("aten.view.default", weighted_db, [n, groups, cpg]), [2], False)
        rstd3 = e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", rstd, rstd), rstd)
        c2 = e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", e.v("aten.sub.Tensor", e.v("aten.mul.Tensor", db_val, mean), ds_val),
                                        rstd3), scale)
        c3 = e.v("aten.sub.Tensor", e.v("aten.mul.Tensor", e.v("aten.neg.default", c2), mean),
                 e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", db_val, rstd), scale))
        grouped = [n, groups, cpg, hw]
        out = e.v("aten.add.Tensor",
                  e.v("aten.mul.Tensor", e.reshape(g, grouped), e.v("aten.unsqueeze.default", c1, -1)),
                  e.v("aten.mul.Tensor", e.reshape(x, grouped), e.v("aten.view.default", c2, [n, groups, 1, 1])))
        out = e.v("aten.add.Tensor", out, e.v("aten.view.default", c3, [n, groups, 1, 1]))
        grad_input = e.reshape(out, _static(t.sizes))
    if mask[1]:
        centered = e.v("aten.sub.Tensor", e.v("aten.view.default", ds, [n, groups, cpg]),
                       e.v("aten.mul.Tensor", e.v("aten.view.default", db, [n, groups, cpg]),
                           e.v("aten.unsqueeze.default", mean, -1)))
        scaled = e.v("aten.mul.Tensor", centered, e.v("aten.unsqueeze.default", rstd, -1))
        grad_weight = e.v("aten.view.default", e.v("aten.sum.dim_IntList", scaled, [0], False), [c])
    if mask[2]:
        grad_bias = e.v("aten.sum.dim_IntList", db, [0], False)
    return [grad_input, grad_weight, grad_bias]


@rule("aten.embedding_dense_backward.default")
@computed_in_float32
def _embedding_dense_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """
    torch's decomposition: each row of grad_output added into the weight row its
    index names (`index_put` accumulating), rows of `padding_idx` left out, and,
    with `scale_grad_by_freq`, each divided first by how often its index occurs.
    """
    g, idx = b.value("grad_output"), b.value("indices")
    tg = tensor_of(g)
    if tg.element_dtype not in (DType.float32, DType.float64):
        raise Decline()
    dim = _static(tg.sizes)[-1]
    num_weights, padding_idx = b.int("num_weights"), b.int("padding_idx")
    if b.get("scale_grad_by_freq"):
        ones = e.v("aten.ones_like.default", idx, dtype=tg.element_dtype)
        counts = e.v("aten.index_put.default", _zeros_sized(e, [num_weights], tg), [idx], ones, True)
        g = e.v("aten.div.Tensor", g, e.v("aten.unsqueeze.default", e.v("aten.index.Tensor", counts, [idx]), -1))
    padded = e.v("aten.unsqueeze.default", e.v("aten.eq.Scalar", idx, padding_idx), -1)
    g = e.v("aten.where.self", padded, zero_like(e, tg), g)
    rows = e.reshape(g, [tensor_of(idx).numel(), dim])
    flat = e.reshape(idx, [tensor_of(idx).numel()])
    return [e.v("aten.index_put.default", _zeros_sized(e, [num_weights, dim], tg), [flat], rows, True)]


@rule("aten.max_pool2d_with_indices_backward.default")
@computed_in_float32
def _max_pool2d_with_indices_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Each gradient added at the input position its window's maximum came from: the indices
    are flat positions in each `H * W` plane, so a `scatter_add` into zeros over the flattened
    planes (windows that overlap add where they share their maximum, as torch's kernel does)."""
    g, x, idx = b.value("grad_output"), b.value("self"), b.value("indices")
    t, tg = tensor_of(x), tensor_of(g)
    if t.rank not in (3, 4):
        raise Decline()
    sizes, gsizes = _static(t.sizes), _static(tg.sizes)
    planes = math.prod(sizes[:-2])
    flat_g = e.reshape(g, [planes, math.prod(gsizes[-2:])])
    flat_i = e.reshape(idx, [planes, math.prod(gsizes[-2:])])
    zeros = _zeros_sized(e, [planes, sizes[-2] * sizes[-1]], tg)
    return [e.v("aten.view.default", e.v("aten.scatter_add.default", zeros, 1, flat_i, flat_g), sizes)]


@rule("aten.avg_pool2d_backward.default")
@computed_in_float32
def _avg_pool2d_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """
    Each gradient divided by its window's divisor and spread evenly over the
    window: a transposed depthwise convolution of `grad / divisor` with a
    window of ones (stride as the forward's, unpadded, then the padding sliced
    off). The divisor is `divisor_override`, or the window's size where no
    window reaches past the padded input (count_include_pad), else per window
    as ATen's kernel counts it: the window clipped to the padded input
    (count_include_pad) or to the input (not), found by summing a plane of
    ones the same way (`avg_pool2d` with divisor 1).
    """
    g, x = b.value("grad_output"), b.value("self")
    t, tg = tensor_of(x), tensor_of(g)
    if t.rank not in (3, 4) or tg.rank != t.rank or t.element_dtype not in (DType.float32, DType.float64):
        raise Decline()
    sizes, gsizes = _static(t.sizes), _static(tg.sizes)
    kernel = b.ints("kernel_size", 2)
    stride = b.ints("stride", 2) if b.get("stride") else kernel
    padding = b.ints("padding", 2)
    (h, w), (oh, ow) = sizes[-2:], gsizes[-2:]
    dtype = t.element_dtype
    override = b.get("divisor_override")
    inside = all((o - 1) * st + k <= n + p for o, st, k, n, p in zip((oh, ow), stride, kernel, (h, w), padding))
    if override is not None:
        scaled = e.v("aten.div.Tensor", g, float(cast(int, override)))
    elif b.get("count_include_pad") and inside:
        scaled = e.v("aten.div.Tensor", g, float(kernel[0] * kernel[1]))
    else:
        ones = e.v("aten.full.default", [1, 1, h, w], 1.0, dtype=dtype, layout=Layout.strided,
                   device=DeviceAttr(t.device.data), pin_memory=False)
        pad = padding
        if b.get("count_include_pad"):  # the padded plane is part of each window, its far edge is not
            ones = e.v("aten.constant_pad_nd.default", ones, [padding[1], padding[1], padding[0], padding[0]], 1.0)
            pad = [0, 0]
        counts = e.v("aten.avg_pool2d.default", ones, kernel, stride, pad, bool(b.get("ceil_mode")), True, 1)
        # In ceil mode the padded plane may fit a window more (one starting in the right
        # padding, which ATen drops); the first windows are the same.
        got = _static(tensor_of(counts).sizes)[-2:]
        if got[0] < oh or got[1] < ow:
            raise Decline()
        for dim, n, want in ((2, got[0], oh), (3, got[1], ow)):
            if n != want:
                counts = e.v("aten.slice.Tensor", counts, dim, 0, want, 1)
        scaled = e.v("aten.div.Tensor", g, e.v("aten.view.default", counts, [oh, ow]))
    batched = scaled if t.rank == 4 else e.v("aten.unsqueeze.default", scaled, 0)
    channels = sizes[-3]
    window = e.v("aten.full.default", [channels, 1, *kernel], 1.0, dtype=dtype, layout=Layout.strided,
                 device=DeviceAttr(t.device.data), pin_memory=False)
    full = [(o - 1) * st + k for o, st, k in zip((oh, ow), stride, kernel)]
    extra = [max(0, p + n - f) for p, n, f in zip(padding, (h, w), full)]
    out = e.v("aten.convolution.default", batched, window, None, stride, [0, 0], [1, 1], True, extra, channels)
    for dim, p, n in ((2, padding[0], h), (3, padding[1], w)):
        out = e.v("aten.slice.Tensor", out, dim, p, p + n, 1)
    return [out if t.rank == 4 else e.v("aten.squeeze.dims", out, [0])]


def _spread_windows(e: Emitter, grad: SSAValue, dim: int, size: int, out: int) -> SSAValue:
    """
    The adaptive-average-pooling gradient along one dim: position i of `size`
    takes grad[o] / (end_o - start_o) from each window o of `out` that holds it
    (ATen's window [start_o, end_o), start_o = floor(o · size / out), end_o =
    ceil((o + 1) · size / out)). The windows holding i are consecutive from
    floor(i · out / size); each of the K candidates (K the most windows any
    position is in) is gathered and kept where it holds i, so a NaN or an
    infinity reaches only the positions of its own window.
    """
    t = tensor_of(grad)
    device = DeviceAttr(t.device.data)
    i = e.v("aten.arange.default", size, dtype=DType.int64, layout=Layout.strided, device=device, pin_memory=False)
    first = e.v("aten.floor_divide.default", e.v("aten.mul.Tensor", i, out), size)
    most = max(
        sum(1 for o in range(out) if (o * size) // out <= p < -((-(o + 1) * size) // out)) for p in range(size)
    )
    shape = [1] * t.rank
    shape[dim] = size
    total: SSAValue | None = None
    for k in range(most):
        o = e.v("aten.add.Tensor", first, k)
        safe = e.v("aten.clamp_max.default", o, out - 1)
        start = e.v("aten.floor_divide.default", e.v("aten.mul.Tensor", safe, size), out)
        end = e.v("aten.floor_divide.default", e.v("aten.add.Tensor", e.v("aten.mul.Tensor", safe, size), size + out - 1), out)
        holds = e.v("aten.logical_and.default", e.v("aten.lt.Scalar", o, out), e.v("aten.le.Tensor", start, i))
        share = e.v("aten.div.Tensor", e.v("aten.index_select.default", grad, dim, safe),
                    e.v("aten.view.default", e.v("aten._to_copy.default", e.v("aten.sub.Tensor", end, start),
                                                 dtype=t.element_dtype), shape))
        part = e.v("aten.where.self", e.v("aten.view.default", holds, shape), share, zero_like(e, t))
        total = part if total is None else e.v("aten.add.Tensor", total, part)
    assert total is not None
    return total


@rule("aten._adaptive_avg_pool2d_backward.default", "aten._adaptive_avg_pool3d_backward.default")
@computed_in_float32
def _adaptive_avg_pool_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Each gradient spread evenly over its window, one spatial dim after the other
    (`_spread_windows`: the window is the product of its ranges)."""
    spatial = 3 if "3d" in op_name(op) else 2
    g, x = b.value("grad_output"), b.value("self")
    t, tg = tensor_of(x), tensor_of(g)
    if t.rank not in (spatial + 1, spatial + 2) or tg.rank != t.rank:
        raise Decline()
    if t.element_dtype not in (DType.float32, DType.float64):
        raise Decline()
    sizes, gsizes = _static(t.sizes), _static(tg.sizes)
    if 0 in sizes or 0 in gsizes:
        raise Decline()
    out = g
    for dim in range(t.rank - 1, t.rank - 1 - spatial, -1):
        out = _spread_windows(e, out, dim, sizes[dim], gsizes[dim])
    return [out]


@rule("aten.threshold_backward.default")
def _threshold_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`self <= threshold ? 0 : grad`, in the dtype eager gives: grad and self promoted together
    (an integer grad of a float input gives a float gradient; torch's own decomposition keeps
    the grad's dtype)."""
    grad = b.value("grad_output")
    out = tensor_of(op.results[0]).element_dtype
    if tensor_of(grad).element_dtype != out:
        grad = e.v("aten._to_copy.default", grad, dtype=out)
    mask = e.v("aten.le.Scalar", b["self"], b["threshold"])
    return [e.v("aten.where.self", mask, zero_like(e, tensor_of(grad)), grad)]


@rule("aten.nll_loss_backward.default", "aten.nll_loss2d_backward.default")
def _nll_loss_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_decomp's `nll_loss_backward`: -grad (weighted, over the total weight for a
    mean) scattered at each target class, zero at `ignore_index` and elsewhere."""
    x, target, grad = b.value("self"), b.value("target"), b.value("grad_output")
    t = tensor_of(x)
    cdim = 1 if t.rank >= 2 else 0
    if REDUCTIONS.get(b.int("reduction")) == "mean":
        grad = e.v("aten.div.Tensor", grad, b["total_weight"])
    tu = e.v("aten.unsqueeze.default", target, cdim)
    keep = e.v("aten.ne.Scalar", tu, b["ignore_index"])
    safe = e.v("aten.where.self", keep, tu, zero_like(e, tensor_of(tu)))
    zeros = full_value(e, b, t.sizes, 0, t)
    grad_input = e.v("aten.scatter.value", zeros, cdim, safe, -1.0)
    if t.rank > tensor_of(grad).rank > 0:
        grad = e.v("aten.unsqueeze.default", grad, cdim)
    weight = b.get("weight")
    if isinstance(weight, SSAValue):
        shape: list[SymSize] = [1] * t.rank
        shape[cdim] = tensor_of(weight).sizes[0]
        grad = e.v("aten.mul.Tensor", grad, e.v("aten.view.default", weight, e.sizes(shape)))
    grad = e.v("aten.where.self", keep, grad, zero_like(e, tensor_of(grad)))
    # Only the target entries are written; the others stay +0.0 as in ATen's kernel (a product
    # with a negative gradient would give them -0.0).
    product = e.v("aten.mul.Tensor", grad_input, grad)
    written = e.v("aten.logical_and.default", e.v("aten.ne.Scalar", grad_input, 0), keep)
    return [e.v("aten.where.self", written, product, zero_like(e, tensor_of(product)))]
