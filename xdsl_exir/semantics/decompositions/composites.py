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

from xdsl_exir.dialects.exir import DeviceAttr, DType, Layout, MemoryFormat
from xdsl_exir.semantics.decompositions.core import (
    Decline,
    Emitter,
    op_name,
    rule,
    tensor_of,
)
from xdsl_exir.semantics.inference import Bound

__all__: list[str] = []


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


@rule("aten.bilinear.default")
def _bilinear(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """y[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j] + b[o]: x1 times W (as [I, O*J]) in one
    `mm`, then the product with x2 summed over j."""
    x1, x2, w = (cast(SSAValue, b[n]) for n in ("input1", "input2", "weight"))
    t1, t2, tw = tensor_of(x1), tensor_of(x2), tensor_of(w)
    if tw.rank != 3 or t1.rank < 1 or t1.sizes[:-1] != t2.sizes[:-1]:
        raise Decline()
    out_f, in1, in2 = tw.sizes
    lead = list(t1.sizes[:-1])
    rows = 1
    for s in lead:
        if not isinstance(s, int):
            raise Decline()
        rows *= s
    a = e.reshape(x1, [rows, in1])
    c = e.reshape(x2, [rows, in2])
    wm = e.reshape(e.v("aten.permute.default", w, [1, 0, 2]), [in1, out_f * in2])
    t = e.v("aten.view.default", e.v("aten.mm.default", a, wm), [rows, out_f, in2])
    y = e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", t, e.v("aten.unsqueeze.default", c, 1)), [2])
    if isinstance(b.get("bias"), SSAValue):
        y = e.v("aten.add.Tensor", y, b["bias"])
    return [e.v("aten.view.default", y, e.sizes([*lead, out_f]))]


def _norm_except_dim(e: Emitter, v: SSAValue, p: float, dim: int) -> SSAValue:
    """The p-norm over every dim but `dim`, kept as size-1 dims (`dim == -1`: the whole tensor)."""
    rank = tensor_of(v).rank
    if dim == -1:
        return e.v("aten.linalg_vector_norm.default", v, p)
    dims = [d for d in range(rank) if d != dim % max(rank, 1)]
    return e.v("aten.linalg_vector_norm.default", v, p, dims, True)


@rule("aten.norm_except_dim.default")
def _norm_except_dim_rule(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [_norm_except_dim(e, b.value("v"), float(b.int("pow")), b.int("dim"))]


@rule("aten._weight_norm.default", "aten._weight_norm_interface.default")
def _weight_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """w = v * (g / ||v||) with the norm over every dim but `dim`; `_weight_norm_interface` also
    returns the norm."""
    v, g = b.value("v"), b.value("g")
    norm = _norm_except_dim(e, v, 2.0, b.int("dim"))
    w = e.v("aten.mul.Tensor", v, e.v("aten.div.Tensor", g, norm))
    if op_name(op) == "aten._weight_norm_interface.default":
        return [w, norm]
    return [w]


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


@rule("aten._euclidean_dist.default")
def _euclidean_dist(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_decomp `_euclidean_dist`: one matmul of [-2 x1, |x1|^2, 1] with [x2, 1, |x2|^2],
    clamped at 0, square-rooted."""
    x1, x2 = b.value("x1"), b.value("x2")
    n1 = e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", x1, x1), [-1], True)
    n2 = e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", x2, x2), [-1], True)
    one1 = e.v("aten.full_like.default", n1, 1, pin_memory=False, memory_format=MemoryFormat.preserve_format)
    one2 = e.v("aten.full_like.default", n2, 1, pin_memory=False, memory_format=MemoryFormat.preserve_format)
    left = e.v("aten.cat.default", [e.v("aten.mul.Tensor", x1, -2), n1, one1], -1)
    right = e.v("aten.cat.default", [x2, one2, n2], -1)
    rank = tensor_of(right).rank
    perm = [*range(rank - 2), rank - 1, rank - 2]
    prod = e.v("aten.matmul.default", left, e.v("aten.permute.default", right, perm))
    return [e.v("aten.sqrt.default", e.v("aten.clamp_min.default", prod, 0))]


def _pairs(e: Emitter, n: int, offset: int, like: SSAValue) -> tuple[SSAValue, SSAValue]:
    """The row and column indices of the upper triangle of an n x n matrix (`triu_indices`)."""
    device = DeviceAttr(tensor_of(like).device.data)
    idx = e.v("aten.triu_indices.default", n, n, offset, dtype=DType.int64, layout=Layout.strided, device=device,
              pin_memory=False)
    return e.v("aten.select.int", idx, 0, 0), e.v("aten.select.int", idx, 0, 1)


@rule("aten.pdist.default")
def _pdist(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """The p-norm distance of every pair of rows i < j, in row-major order."""
    x = b.value("self")
    t = tensor_of(x)
    if t.rank != 2 or not isinstance(t.sizes[0], int):
        raise Decline()
    rows, cols = _pairs(e, t.sizes[0], 1, x)
    diff = e.v("aten.sub.Tensor", e.v("aten.index_select.default", x, 0, rows),
               e.v("aten.index_select.default", x, 0, cols))
    return [e.v("aten.linalg_vector_norm.default", diff, float(cast(float, b.get("p", 2.0))), [1])]


@rule("aten.combinations.default")
def _combinations(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Pairs of elements of a 1-d tensor (r = 2) in lexicographic order, with or without repeats."""
    x = b.value("self")
    t = tensor_of(x)
    if t.rank != 1 or b.int("r") != 2 or not isinstance(t.sizes[0], int):
        raise Decline()
    rows, cols = _pairs(e, t.sizes[0], 0 if b.get("with_replacement") else 1, x)
    a = e.v("aten.index_select.default", x, 0, rows)
    c = e.v("aten.index_select.default", x, 0, cols)
    return [e.v("aten.stack.default", [a, c], 1)]


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


@rule("aten._dim_arange.default")
def _dim_arange(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """arange(like.size(dim)) in int64."""
    like = tensor_of(b["like"])
    size = like.sizes[b.int("dim") % max(like.rank, 1)]
    return [e.v("aten.arange.start_step", 0, e.size(size), dtype=DType.int64, layout=Layout.strided,
                device=DeviceAttr(like.device.data), pin_memory=False)]


@rule("aten.pad_sequence.default")
def _pad_sequence(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Each sequence padded with `padding_value` to the longest along dim 0 (on the right or the
    left), stacked on a new dim 1, or dim 0 when `batch_first`."""
    seqs = cast(list[SSAValue], b["sequences"])
    if not seqs:
        raise Decline()
    lengths = [tensor_of(s).sizes[0] if tensor_of(s).rank else None for s in seqs]
    if not all(isinstance(n, int) for n in lengths):
        raise Decline()
    longest = max(cast(list[int], lengths))
    value = float(cast(float, b.get("padding_value", 0.0)))
    left = b.get("padding_side", "right") == "left"
    padded: list[SSAValue] = []
    for s, n in zip(seqs, cast(list[int], lengths)):
        rank = tensor_of(s).rank
        pad = [0, 0] * (rank - 1) + ([longest - n, 0] if left else [0, longest - n])
        padded.append(e.v("aten.constant_pad_nd.default", s, pad, value) if longest != n else s)
    return [e.v("aten.stack.default", padded, 0 if b.get("batch_first") else 1)]


_PAD_MODES = {0: "reflect", 1: "replicate", 2: "circular", 3: "constant"}
"""ATen's `padding_mode` enum."""


@rule("aten._pad_enum.default")
def _pad_enum(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`_pad_enum` is `pad` with its mode as torch's enum number."""
    mode = _PAD_MODES.get(b.int("mode"))
    if mode is None:
        raise Decline()
    return [e.v("aten.pad.default", b["self"], b["pad"], mode, b.get("value"))]


@rule("aten.isreal.default")
def _isreal(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Every element of a real tensor is real (NaN included)."""
    x = b.value("self")
    if tensor_of(x).element_dtype.is_complex:
        raise Decline()
    return [e.v("aten.full_like.default", x, True, dtype=DType.bool, pin_memory=False,
                memory_format=MemoryFormat.preserve_format)]


@rule("aten.mH.default", "aten.matrix_H.default")
def _adjoint_real(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """The conjugate transpose of a real matrix (batch) is its transpose."""
    x = b.value("self")
    t = tensor_of(x)
    if t.element_dtype.is_complex or t.rank < 2 or (op_name(op) == "aten.matrix_H.default" and t.rank != 2):
        raise Decline()
    perm = [*range(t.rank - 2), t.rank - 1, t.rank - 2]
    return [e.v("aten.permute.default", x, perm)]


@rule("aten.size.int")
def _size_int(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`size(dim)` is the SymInt query `sym_size.int`."""
    return [e.v("aten.sym_size.int", b["self"], b["dim"])]


@rule("aten.numel.default")
def _numel(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.sym_numel.default", b["self"])]
