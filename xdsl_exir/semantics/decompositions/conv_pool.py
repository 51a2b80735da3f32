"""Decompositions of convolution (every form torch names: `conv1d`..`conv3d`, `conv_transpose*`, `_convolution`, `conv_tbc`, the slow and THNN convolutions) and pooling."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.ir import Operation, SSAValue

from xdsl_exir.semantics.decompositions.core import (
    Decline,
    Emitter,
    op_name,
    rule,
    tensor_of,
)
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.utils.symbolic import SymSize

# -- convolution -----------------------------------------------------------------


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


# -- pooling -------------------------------------------------------------------------


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


@rule("aten._convolution.default", "aten._convolution.deprecated")
def _convolution_full(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [
        e.v(
            "aten.convolution.default", b["input"], b["weight"], b.get("bias"), b["stride"], b["padding"],
            b["dilation"], b["transposed"], b["output_padding"], b["groups"],
        )
    ]


@rule("aten.adaptive_avg_pool3d.default")
def _adaptive_avg_pool3d(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    out = b.ints("output_size", 3)
    if out == [1, 1, 1]:
        return [e.v("aten.mean.dim", x, [-1, -2, -3], True)]
    return [e.v("aten._adaptive_avg_pool3d.default", x, out)]


@rule("aten.max_pool3d.default")
def _max_pool3d(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    new = e.call("aten.max_pool3d_with_indices.default", b["self"], b["kernel_size"], b.get("stride", []),
                 b.get("padding", 0), b.get("dilation", 1), bool(b.get("ceil_mode")))
    return [e.item(new, 0)]


@rule("aten.conv_tbc.default")
def _conv_tbc(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Time-batch-channel convolution: input [T, B, C], weight [K, C, O] as a 1-d convolution of
    [B, C, T] with [O, C, K], padded by `pad` on both sides, back to [T', B, O]."""
    x, w, bias = (cast(SSAValue, b[n]) for n in ("self", "weight", "bias"))
    pad = b.int("pad")
    y = e.v("aten.convolution.default", e.v("aten.permute.default", x, [1, 2, 0]),
            e.v("aten.permute.default", w, [2, 1, 0]), bias, [1], [pad], [1], False, [0], 1)
    return [e.v("aten.permute.default", y, [2, 0, 1])]


@rule("aten._convolution_mode.default")
def _convolution_mode(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`_convolution_mode` (a string padding) is `conv{1,2,3}d.padding` of its rank."""
    x = b.value("input")
    n = tensor_of(b["weight"]).rank - 2
    if n not in (1, 2, 3):
        raise Decline()
    return [e.v(f"aten.conv{n}d.padding", x, b["weight"], b.get("bias"), b["stride"], b["padding"], b["dilation"],
                b["groups"])]


@rule("aten.slow_conv3d.default", "aten.slow_conv3d_forward.default", "aten.thnn_conv2d.default",
      "aten._slow_conv2d_forward.default", "aten.slow_conv_dilated2d.default", "aten.slow_conv_dilated3d.default",
      "aten.slow_conv_transpose2d.default", "aten.slow_conv_transpose3d.default")
def _slow_conv(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """The backend convolutions torch picks on CPU are `convolution` with their arguments (the
    kernel size is the weight's)."""
    x = b.value("self")
    n = len(b.ints("kernel_size"))
    if tensor_of(x).rank != n + 2:
        raise Decline()
    transposed = "transpose" in op_name(op)
    dilation = b.ints("dilation", n) if "dilation" in b else [1] * n
    output_padding = b.ints("output_padding", n) if "output_padding" in b else [0] * n
    return [e.v("aten.convolution.default", x, b["weight"], b.get("bias"), b.ints("stride", n), b.ints("padding", n),
                dilation, transposed, output_padding, 1)]


@rule("aten.conv_transpose1d.default", "aten.conv_transpose2d.input", "aten.conv_transpose3d.input")
def _conv_transpose(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """A transposed `convolution`; an unbatched input gets a unit batch, dropped after, as torch's
    `conv_transpose{n}d` does."""
    n = int(op_name(op).split(".")[1][-2])
    rank = tensor_of(b["input"]).rank
    if rank not in (n + 1, n + 2):
        raise Decline()
    x = b["input"] if rank == n + 2 else e.v("aten.unsqueeze.default", b["input"], 0)
    out = e.v(
        "aten.convolution.default", x, b["weight"], b.get("bias"), b.ints("stride", n),
        b.ints("padding", n), b.ints("dilation", n), True, b.ints("output_padding", n), b["groups"],
    )
    return [out if rank == n + 2 else e.v("aten.squeeze.dims", out, [0])]
