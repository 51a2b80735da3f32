"""Decompositions of neural-network composites and helpers torch decomposes or rewrites through
its CompositeImplicit kernels: `_add_relu` (ATen's fused add and clamp), `bilinear`, weight normalization
(`_weight_norm`, `_weight_norm_interface`, `norm_except_dim`), `log_sigmoid_forward`,
`_euclidean_dist`, `pdist`, `combinations` (pairs), `conv_tbc`, `_convolution_mode`, the slow
and THNN convolutions (one `convolution`), `_dim_arange`, `pad_sequence`, `_pad_enum`,
`isreal`, `mH`/`matrix_H` of real tensors and the SymInt queries
`size.int` and `numel`."""

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

__all__: list[str] = []


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


