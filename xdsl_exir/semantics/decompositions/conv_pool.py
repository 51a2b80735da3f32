"""Decompositions of convolution, normalization, pooling and stacking."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.exir import DeviceAttr, DType, Layout
from xdsl_exir.semantics.decompositions.core import (
    Decline,
    Emitter,
    atleast_rank,
    number_arg,
    op_name,
    rule,
    tensor_of,
)
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.utils.symbolic import SymSize

# -- convolution, normalization, pooling -----------------------------------------


@rule("aten.conv1d.default", "aten.conv2d.default", "aten.conv3d.default")
def _conv(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    n = int(op_name(op).split(".")[1][-2])
    if tensor_of(b["input"]).rank != n + 2:
        raise Decline()  # unbatched input
    return [
        e.v(
            "aten.convolution.default", b["input"], b["weight"], b.get("bias"),
            b.ints("stride", n), b.ints("padding", n), b.ints("dilation", n),
            False, [0] * n, b["groups"],
        )
    ]


@rule("aten.batch_norm.default")
def _batch_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Inference batch norm -> `_native_batch_norm_legit_no_training` + getitem 0."""
    if b["training"] or b.get("running_mean") is None or b.get("running_var") is None:
        raise Decline()  # training mode updates buffers: functionalization's business
    new = e.call(
        "aten._native_batch_norm_legit_no_training.default",
        b["input"], b.get("weight"), b.get("bias"), b["running_mean"], b["running_var"],
        b["momentum"], b["eps"],
    )
    return [e.item(new, 0)]


@rule("aten._native_batch_norm_legit_functional.default")
def _batch_norm_functional(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """
    The batch norm of training graphs, with the running statistics returned
    instead of written (torch's `_native_batch_norm_legit_functional`), as the
    interpreter's kernel and torch's CPU kernel compute it. Training: the
    biased variance and mean per channel, `(x - mean) * rsqrt(var + eps)`
    scaled and shifted, and the running statistics moved by `momentum`
    towards the mean and the unbiased variance (`var * n / (n - 1)`, n the
    elements per channel). Evaluation: one scale and shift per channel from
    the running statistics, which come back unchanged, and empty saved
    statistics. Float32 and float64 (lower precisions are left to the kernel).
    """
    x = b.value("input")
    t = tensor_of(x)
    if t.rank < 2 or t.element_dtype not in (DType.float32, DType.float64):
        raise Decline()
    running_mean, running_var = b.value("running_mean"), b.value("running_var")
    channels = t.sizes[1]
    numel = t.numel()
    if not isinstance(channels, int) or not isinstance(numel, int):
        raise Decline()
    momentum, eps = number_arg(b, "momentum"), number_arg(b, "eps")
    shape: list[SymSize] = [1] * t.rank
    shape[1] = channels
    weight, bias = b.get("weight"), b.get("bias")
    if not b.get("training"):
        scale = e.v("aten.rsqrt.default", e.v("aten.add.Tensor", running_var, eps))
        empty = e.v("aten.full.default", [0], 0.0, dtype=t.element_dtype, layout=Layout.strided,
                    device=DeviceAttr(t.device.data), pin_memory=False)
        if isinstance(weight, SSAValue):
            scale = e.v("aten.mul.Tensor", scale, weight)
        shift = e.v("aten.mul.Tensor", running_mean, scale)
        shift = e.v("aten.sub.Tensor", bias, shift) if isinstance(bias, SSAValue) else e.v("aten.neg.default", shift)
        out = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", x, e.v("aten.view.default", scale, shape)),
                  e.v("aten.view.default", shift, shape))
        return [out, empty, empty, running_mean, running_var]
    dims = [d for d in range(t.rank) if d != 1]
    stats = e.call("aten.var_mean.correction", x, dims, correction=0, keepdim=True)
    var, mean = e.item(stats, 0), e.item(stats, 1)
    rstd = e.v("aten.rsqrt.default", e.v("aten.add.Tensor", var, eps))
    out = e.v("aten.mul.Tensor", e.v("aten.sub.Tensor", x, mean), rstd)
    if isinstance(weight, SSAValue):
        out = e.v("aten.mul.Tensor", out, e.v("aten.view.default", weight, shape))
    if isinstance(bias, SSAValue):
        out = e.v("aten.add.Tensor", out, e.v("aten.view.default", bias, shape))
    save_mean, save_rstd = e.v("aten.squeeze.dims", mean, dims), e.v("aten.squeeze.dims", rstd, dims)
    count = numel // channels if channels else 0
    unbiased = e.v("aten.mul.Tensor", e.v("aten.squeeze.dims", var, dims), count / max(count - 1, 1))

    def moved(running: SSAValue, batch: SSAValue) -> SSAValue:
        stay = e.v("aten.mul.Tensor", running, 1 - momentum)
        return e.v("aten.add.Tensor", stay, e.v("aten.mul.Tensor", batch, momentum))

    return [out, save_mean, save_rstd, moved(running_mean, save_mean), moved(running_var, unbiased)]


def _channels_last(strides: Sequence[SymSize]) -> bool:
    """4-d strides in channels-last order (N, H, W, C outermost to innermost), C dense."""
    if not all(isinstance(s, int) for s in strides):
        return False
    st = cast(list[int], list(strides))
    return st[1] == 1 and st[0] >= st[2] >= st[3] >= st[1] and st[3] > 1


@rule("aten.adaptive_avg_pool2d.default")
def _adaptive_avg_pool2d(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Output 1x1 is a mean (restrided to channels-last strides when the input is channels-last,
    as ATen's composite kernel does with `as_strided`); evenly dividing windows an avg_pool2d;
    else the core op."""
    x = b.value("self")
    t = tensor_of(x)
    out = b.ints("output_size", 2)
    h, w = t.sizes[-2], t.sizes[-1]
    if out == [1, 1]:
        mean = e.v("aten.mean.dim", x, [-1, -2], True)
        if t.rank == 4 and _channels_last(e.layouts.strides(x)):
            n, c = t.sizes[0], t.sizes[1]
            mean = e.v("aten.as_strided.default", mean, e.sizes([n, c, 1, 1]), e.sizes([c, 1, c, c]))
        return [mean]
    if isinstance(h, int) and isinstance(w, int) and h % out[0] == 0 and w % out[1] == 0:
        k = [h // out[0], w // out[1]]
        return [e.v("aten.avg_pool2d.default", x, k, k)]
    return [e.v("aten._adaptive_avg_pool2d.default", x, out)]


# -- pooling and stacking ----------------------------------------------------------------------


@rule("aten.max_pool1d.default", "aten.max_pool1d_with_indices.default")
def _max_pool1d(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """2-D max pooling over a unit height, as torch's decomposition: the flat index into
    a `[1, L]` plane is the 1-D index."""
    x = e.v("aten.unsqueeze.default", b["self"], -2)
    k = b.ints("kernel_size", 1)
    stride = b.ints("stride", 1) if b.get("stride") else k
    new = e.call(
        "aten.max_pool2d_with_indices.default", x, [1, *k], [1, *stride], [0, *b.ints("padding", 1)],
        [1, *b.ints("dilation", 1)], b["ceil_mode"],
    )
    values = e.v("aten.squeeze.dims", e.item(new, 0), [-2])
    if op_name(op) == "aten.max_pool1d.default":
        return [values]
    return [values, e.v("aten.squeeze.dims", e.item(new, 1), [-2])]


@rule("aten.atleast_1d.default", "aten.atleast_2d.default", "aten.atleast_3d.default")
def _atleast_nd(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [atleast_rank(e, b.value("self"), int(op_name(op).split(".")[1][-2]))]


@rule("aten.vstack.default", "aten.row_stack.default", "aten.hstack.default", "aten.dstack.default",
      "aten.column_stack.default")
def _stacks(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    tensors = cast(list[SSAValue], b["tensors"])
    kind = op_name(op).split(".")[1]
    if kind in ("vstack", "row_stack"):
        return [e.v("aten.cat.default", [atleast_rank(e, t, 2) for t in tensors], 0)]
    if kind == "dstack":
        return [e.v("aten.cat.default", [atleast_rank(e, t, 3) for t in tensors], 2)]
    if kind == "column_stack":
        cols = [e.reshape(t, [tensor_of(t).numel(), 1]) if tensor_of(t).rank <= 1 else t for t in tensors]
        return [e.v("aten.cat.default", cols, 1)]
    ones = [atleast_rank(e, t, 1) for t in tensors]
    return [e.v("aten.cat.default", ones, 0 if all(tensor_of(t).rank == 1 for t in ones) else 1)]


@rule("aten.var_mean.correction", "aten.var_mean.dim", "aten.var_mean.default")
def _var_mean(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`var.correction` and `mean.dim` over the same dims (an `unbiased` flag is correction 1 or 0)."""
    x = b.value("self")
    if not tensor_of(x).element_dtype.is_floating_point:
        raise Decline()
    dim = b.get("dim")
    dims = None if dim is None else (b.ints("dim") if isinstance(dim, list) else [b.int("dim")])
    if "correction" in b:
        correction = b.get("correction")
        correction = 1 if correction is None else correction
    else:
        correction = 1 if b.get("unbiased", True) else 0
    keep = bool(b.get("keepdim", False))
    var = e.v("aten.var.correction", x, dims, correction=correction, keepdim=keep)
    mean = e.v("aten.mean.dim", x, dims if dims is not None else list(range(tensor_of(x).rank)), keep)
    return [var, mean]


@rule("aten.instance_norm.default")
def _instance_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Input statistics per sample and channel over the spatial dims (biased variance);
    running statistics are not updated. The result is `x * alpha + beta` with
    `alpha = rstd * weight` and `beta = bias - mean * alpha`, the one scale and
    shift per (sample, channel) of torch's CPU batch norm, which instance norm
    runs on: with an infinite weight a zero `x` is then NaN, as in torch, where
    `(x - mean) * rstd * weight + bias` would give an infinity."""
    if not b.get("use_input_stats"):
        raise Decline()  # evaluation with running statistics: a batch norm of them
    x = b.value("input")
    t = tensor_of(x)
    if t.rank < 3 or not t.element_dtype.is_floating_point:
        raise Decline()
    dims = list(range(2, t.rank))
    stats = e.call("aten.var_mean.correction", x, dims, correction=0, keepdim=True)
    var, mean = e.item(stats, 0), e.item(stats, 1)
    alpha = e.v("aten.rsqrt.default", e.v("aten.add.Tensor", var, b["eps"]))
    shape: list[SymSize] = [1] * t.rank
    shape[1] = t.sizes[1]
    if isinstance(b.get("weight"), SSAValue):
        alpha = e.v("aten.mul.Tensor", alpha, e.v("aten.view.default", b["weight"], e.sizes(shape)))
    shift = e.v("aten.mul.Tensor", mean, alpha)
    if isinstance(b.get("bias"), SSAValue):
        beta = e.v("aten.sub.Tensor", e.v("aten.view.default", b["bias"], e.sizes(shape)), shift)
    else:
        beta = e.v("aten.rsub.Scalar", shift, 0)  # 0 - shift, as torch's absent bias: +0.0, never -0.0
    return [e.v("aten.add.Tensor", e.v("aten.mul.Tensor", x, alpha), beta)]


@rule("aten.group_norm.default")
def _group_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """ATen's `group_norm`: `native_group_norm` with N, C and the product of the spatial
    sizes, its first result."""
    x = b.value("input")
    t = tensor_of(x)
    if t.rank < 2:
        raise Decline()
    spatial: SymSize = 1
    for s in t.sizes[2:]:
        spatial = spatial * s
    n, c, hw = e.sizes([t.sizes[0], t.sizes[1], spatial])
    stats = e.call("aten.native_group_norm.default", x, b.get("weight"), b.get("bias"), n, c, hw,
                   b.int("num_groups"), b["eps"])
    return [e.item(stats, 0)]


@rule("aten.conv1d.padding", "aten.conv2d.padding", "aten.conv3d.padding")
def _conv_padding_mode(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """ATen's `_convolution_mode`: `valid` is no padding; `same` pads `dilation * (k - 1)` in all
    per dim, half on each side, the odd element after (`constant_pad_nd` on the input first)."""
    n = int(op_name(op).split(".")[1][-2])
    x, w = b.value("input"), b.value("weight")
    if tensor_of(x).rank != n + 2:
        raise Decline()  # unbatched input
    stride, dilation = b.ints("stride", n), b.ints("dilation", n)
    mode = b["padding"]
    if mode == "valid":
        padding = [0] * n
    elif mode == "same":
        kernel = tensor_of(w).sizes[2:]
        if not all(isinstance(k, int) for k in kernel) or any(s != 1 for s in stride):
            raise Decline()
        totals = [d * (cast(int, k) - 1) for d, k in zip(dilation, kernel)]
        padding = [t // 2 for t in totals]
        extra = [t - 2 * p for t, p in zip(totals, padding)]
        if any(extra):
            pad: list[int] = []
            for d in reversed(range(n)):  # constant_pad_nd lists the last dim first
                pad += [0, extra[d]]
            x = e.v("aten.constant_pad_nd.default", x, pad, 0)
    else:
        raise Decline()
    return [
        e.v("aten.convolution.default", x, w, b.get("bias"), stride, padding, dilation, False, [0] * n, b["groups"])
    ]


@rule("aten.upsample_nearest2d.default")
def _upsample_nearest2d(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """The sized overload is the core `vec` overload with the same output size (explicit scales,
    which change the source index, are left alone)."""
    if b.get("scales_h") is not None or b.get("scales_w") is not None:
        raise Decline()
    return [e.v("aten.upsample_nearest2d.vec", b["self"], b["output_size"], None)]
