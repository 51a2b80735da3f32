"""Decompositions of views, copies and shape helpers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.aten_inference import Bound
from xdsl_exir.dialects.exir import (
    DeviceAttr,
    DType,
    Layout,
    MemoryFormat,
    TensorType,
)
from xdsl_exir.transforms.decompositions.core import (
    Decline,
    Emitter,
    _norm,  # pyright: ignore[reportPrivateUsage] - helpers shared by the family modules
    _prod,  # pyright: ignore[reportPrivateUsage] - helpers shared by the family modules
    _resolve_shape,  # pyright: ignore[reportPrivateUsage] - helpers shared by the family modules
    _tensor,  # pyright: ignore[reportPrivateUsage] - helpers shared by the family modules
    op_name,
    rule,
)
from xdsl_exir.utils.symbolic import SymSize

# -- views and copies ------------------------------------------------------------


@rule("aten.reshape.default")
def _reshape(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.reshape(cast(SSAValue, b["self"]), arg=b["shape"])]


@rule("aten._unsafe_view.default")
def _unsafe_view(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.view.default", b["self"], b["size"])]


@rule("aten.flatten.using_ints")
def _flatten(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    if t.rank == 0:
        return [e.reshape(x, [1])]
    start, end = b.int("start_dim") % t.rank, b.int("end_dim") % t.rank
    if start == end:
        return [x]
    sizes = [*t.sizes[:start], _prod(t.sizes[start : end + 1]), *t.sizes[end + 1 :]]
    return [e.reshape(x, sizes)]


@rule("aten.unflatten.int")
def _unflatten(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch's `unflatten`: a `view` splitting one dimension (one `-1` inferred)."""
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    if t.rank == 0:
        raise Decline()
    dim = b.int("dim") % t.rank
    parts = _resolve_shape(TensorType([t.sizes[dim]], t.element_dtype), cast(list[object], b["sizes"]))
    return [e.v("aten.view.default", x, e.sizes([*t.sizes[:dim], *parts, *t.sizes[dim + 1 :]]))]


@rule("aten.contiguous.default")
def _contiguous(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    if e.layouts.is_contiguous(x):
        return [x]
    return [e.v("aten.clone.default", x, memory_format=MemoryFormat.contiguous_format)]


@rule("aten.t.default", "aten.transpose.int")
def _transpose(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    rank = _tensor(x).rank
    if rank < 2:
        return [x]
    d0, d1 = (b.int("dim0") % rank, b.int("dim1") % rank) if "dim0" in b else (0, 1)
    perm = list(range(rank))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return [e.v("aten.permute.default", x, perm)]


def _split_sizes(total: SymSize, chunk: int) -> list[int]:
    """Sizes of `split(chunk)` along a dimension of `total` elements (the last one shorter)."""
    if not isinstance(total, int):
        raise Decline()
    sizes = [chunk] * (total // chunk) if chunk else [total]
    if chunk and total % chunk:
        sizes.append(total % chunk)
    return sizes or [0]


@rule("aten.chunk.default")
def _chunk(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    dim = b.int("dim") % t.rank
    total = t.sizes[dim]
    if not isinstance(total, int):
        raise Decline()
    chunks = b.int("chunks")
    return [e.v("aten.split_with_sizes.default", x, _split_sizes(total, -(-total // chunks)), dim)]


@rule("aten.split.Tensor")
def _split(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    dim = b.int("dim") % t.rank
    return [e.v("aten.split_with_sizes.default", x, _split_sizes(t.sizes[dim], b.int("split_size")), dim)]


@rule("aten.copy.default", core=True)
def _copy(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_decomp `copy`: `src.to(self)`, expanded (as a copy) when the sizes differ."""
    dst, src = _tensor(b["self"]), cast(SSAValue, b["src"])
    out = src
    if _tensor(src).element_dtype != dst.element_dtype:
        out = e.v("aten._to_copy.default", out, dtype=dst.element_dtype)
    if _tensor(out).sizes != dst.sizes:
        out = e.v("aten.expand.default", out, e.sizes(dst.sizes))
        out = e.v("aten.clone.default", out, memory_format=MemoryFormat.contiguous_format)
    return [out]


@rule("aten.to.dtype", "aten.to.dtype_layout", "aten.type_as.default")
def _to(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    dtype = _tensor(b["other"]).element_dtype if "other" in b else b.dtype("dtype")
    if (dtype is None or dtype == _tensor(x).element_dtype) and not b.get("copy"):
        return [x]
    return [e.v("aten._to_copy.default", x, dtype=dtype)]


# -- shape helpers -----------------------------------------------------------------------


@rule("aten.ravel.default")
def _ravel(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    return [e.reshape(x, [_tensor(x).numel()])]


@rule("aten.fliplr.default", "aten.flipud.default")
def _fliplr(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.flip.default", b["self"], [1] if op_name(op) == "aten.fliplr.default" else [0])]


@rule("aten.tile.default")
def _tile(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    dims = b.ints("dims")
    rank = _tensor(x).rank
    dims = [1] * (rank - len(dims)) + dims
    return [e.v("aten.repeat.default", x, dims)]


@rule("aten.repeat_interleave.self_int")
def _repeat_interleave(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """An int count: each element repeated along `dim` (flattened first when dim is None)."""
    x = cast(SSAValue, b["self"])
    repeats = b.int("repeats")
    if b.get("dim") is None:
        x = e.reshape(x, [_tensor(x).numel()])
        d = 0
    else:
        d = b.int("dim") % max(_tensor(x).rank, 1)
    t = _tensor(x)
    y = e.v("aten.unsqueeze.default", x, d + 1)
    y = e.v("aten.expand.default", y, e.sizes([*t.sizes[: d + 1], repeats, *t.sizes[d + 1 :]]))
    y = e.v("aten.clone.default", y, memory_format=MemoryFormat.contiguous_format)
    return [e.v("aten.view.default", y, e.sizes([*t.sizes[:d], _norm(t.sizes[d] * repeats), *t.sizes[d + 1 :]]))]


@rule("aten.one_hot.default")
def _one_hot(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    n = b.int("num_classes")
    if n < 0:
        raise Decline()  # the class count read from the data is a data-dependent size
    x = cast(SSAValue, b["self"])
    classes = e.v("aten.arange.start_step", 0, n, layout=Layout.strided, device=DeviceAttr(_tensor(x).device.data),
                  pin_memory=False)
    hit = e.v("aten.eq.Tensor", e.v("aten.unsqueeze.default", x, -1), classes)
    return [e.v("aten._to_copy.default", hit, dtype=DType.int64)]


@rule("aten._reshape_alias.default")
def _reshape_alias(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.view.default", b["self"], b["size"])]


@rule("aten.rms_norm.default")
def _rms_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """x * rsqrt(mean(x^2 over the normalized dims) + eps) * weight; eps defaults to the
    dtype's machine epsilon, as torch's rms_norm."""
    x = cast(SSAValue, b["input"])
    t = _tensor(x)
    n = len(b.ints("normalized_shape"))
    dims = list(range(t.rank - n, t.rank))
    eps = b.get("eps")
    if eps is None:
        eps = {DType.float64: 2.220446049250313e-16, DType.float16: 0.0009765625,
               DType.bfloat16: 0.0078125}.get(t.element_dtype, 1.1920928955078125e-07)
    ms = e.v("aten.mean.dim", e.v("aten.mul.Tensor", x, x), dims, True)
    out = e.v("aten.mul.Tensor", x, e.v("aten.rsqrt.default", e.v("aten.add.Tensor", ms, eps)))
    if isinstance(b.get("weight"), SSAValue):
        out = e.v("aten.mul.Tensor", out, b["weight"])
    return [out]


@rule("aten.conv_transpose1d.default", "aten.conv_transpose2d.input", "aten.conv_transpose3d.input")
def _conv_transpose(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    n = int(op_name(op).split(".")[1][-2])
    if _tensor(b["input"]).rank != n + 2:
        raise Decline()
    return [
        e.v(
            "aten.convolution.default", b["input"], b["weight"], b.get("bias"), b.ints("stride", n),
            b.ints("padding", n), b.ints("dilation", n), True, b.ints("output_padding", n), b["groups"],
        )
    ]
