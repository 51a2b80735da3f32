"""Decompositions of views, copies and shape helpers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.exir import (
    DeviceAttr,
    DType,
    GetItemOp,
    Layout,
    MemoryFormat,
    TensorType,
)
from xdsl_exir.semantics.decompositions.core import (
    Decline,
    Emitter,
    fill_value_for,
    movedim,
    op_name,
    resolve_shape,
    rule,
    simplify_size,
    size_product,
    split_sizes,
    tensor_of,
    wrapped_dim,
    zero_like,
)
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.utils.op_registry import lookup
from xdsl_exir.utils.symbolic import SymSize

# -- views and copies ------------------------------------------------------------


@rule("aten.reshape.default")
def _reshape(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.reshape(b.value("self"), arg=b["shape"])]


@rule("aten._unsafe_view.default")
def _unsafe_view(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.view.default", b["self"], b["size"])]


@rule("aten.flatten.using_ints")
def _flatten(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    t = tensor_of(x)
    if t.rank == 0:
        return [e.reshape(x, [1])]
    start, end = b.int("start_dim") % t.rank, b.int("end_dim") % t.rank
    if start == end:
        return [x]
    sizes = [*t.sizes[:start], size_product(t.sizes[start : end + 1]), *t.sizes[end + 1 :]]
    return [e.reshape(x, sizes)]


@rule("aten.unflatten.int")
def _unflatten(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch's `unflatten`: a `view` splitting one dimension (one `-1` inferred)."""
    x = b.value("self")
    t = tensor_of(x)
    if t.rank == 0:
        raise Decline()
    dim = b.int("dim") % t.rank
    parts = resolve_shape(TensorType([t.sizes[dim]], t.element_dtype), cast(list[object], b["sizes"]))
    return [e.v("aten.view.default", x, e.sizes([*t.sizes[:dim], *parts, *t.sizes[dim + 1 :]]))]


@rule("aten.contiguous.default")
def _contiguous(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    if e.layouts.is_contiguous(x):
        return [x]
    return [e.v("aten.clone.default", x, memory_format=MemoryFormat.contiguous_format)]


@rule("aten.t.default", "aten.transpose.int")
def _transpose(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    rank = tensor_of(x).rank
    if rank < 2:
        return [x]
    d0, d1 = (b.int("dim0") % rank, b.int("dim1") % rank) if "dim0" in b else (0, 1)
    perm = list(range(rank))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return [e.v("aten.permute.default", x, perm)]


@rule("aten.chunk.default")
def _chunk(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    t = tensor_of(x)
    dim = b.int("dim") % t.rank
    total = t.sizes[dim]
    if not isinstance(total, int):
        raise Decline()
    chunks = b.int("chunks")
    if total == 0:  # torch's chunk: `chunks` empty pieces (a split by 0 would give one)
        return [e.v("aten.split_with_sizes.default", x, [0] * chunks, dim)]
    return [e.v("aten.split_with_sizes.default", x, split_sizes(total, -(-total // chunks)), dim)]


@rule("aten.split.Tensor")
def _split(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    t = tensor_of(x)
    dim = b.int("dim") % t.rank
    return [e.v("aten.split_with_sizes.default", x, split_sizes(t.sizes[dim], b.int("split_size")), dim)]


@rule("aten.copy.default", core=True)
def _copy(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_decomp `copy`: `src.to(self)`, expanded (as a copy) when the sizes differ."""
    dst, src = tensor_of(b["self"]), b.value("src")
    out = src
    if tensor_of(src).element_dtype != dst.element_dtype:
        out = e.v("aten._to_copy.default", out, dtype=dst.element_dtype)
    if tensor_of(out).sizes != dst.sizes:
        out = e.v("aten.expand.default", out, e.sizes(dst.sizes))
        out = e.v("aten.clone.default", out, memory_format=MemoryFormat.contiguous_format)
    return [out]


@rule("aten.to.dtype", "aten.to.dtype_layout", "aten.to.device", "aten.to.other", "aten.type_as.default")
def _to(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    dtype = tensor_of(b["other"]).element_dtype if "other" in b else b.dtype("dtype")
    if (dtype is None or dtype == tensor_of(x).element_dtype) and not b.get("copy"):
        return [x]
    return [e.v("aten._to_copy.default", x, dtype=dtype)]


# -- shape helpers -----------------------------------------------------------------------


@rule("aten.ravel.default")
def _ravel(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    return [e.reshape(x, [tensor_of(x).numel()])]


@rule("aten.fliplr.default", "aten.flipud.default")
def _fliplr(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.flip.default", b["self"], [1] if op_name(op) == "aten.fliplr.default" else [0])]


@rule("aten.tile.default")
def _tile(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    dims = b.ints("dims")
    rank = tensor_of(x).rank
    dims = [1] * (rank - len(dims)) + dims
    return [e.v("aten.repeat.default", x, dims)]


@rule("aten.repeat_interleave.self_int")
def _repeat_interleave(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """An int count: each element repeated along `dim` (flattened first when dim is None)."""
    x = b.value("self")
    repeats = b.int("repeats")
    if b.get("dim") is None:
        x = e.reshape(x, [tensor_of(x).numel()])
        d = 0
    else:
        d = b.int("dim") % max(tensor_of(x).rank, 1)
    t = tensor_of(x)
    y = e.v("aten.unsqueeze.default", x, d + 1)
    y = e.v("aten.expand.default", y, e.sizes([*t.sizes[: d + 1], repeats, *t.sizes[d + 1 :]]))
    y = e.v("aten.clone.default", y, memory_format=MemoryFormat.contiguous_format)
    return [e.v("aten.view.default", y, e.sizes([*t.sizes[:d], simplify_size(t.sizes[d] * repeats), *t.sizes[d + 1 :]]))]


@rule("aten.one_hot.default")
def _one_hot(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    n = b.int("num_classes")
    if n < 0:
        raise Decline()  # the class count read from the data is a data-dependent size
    x = b.value("self")
    classes = e.v("aten.arange.start_step", 0, n, layout=Layout.strided, device=DeviceAttr(tensor_of(x).device.data),
                  pin_memory=False)
    hit = e.v("aten.eq.Tensor", e.v("aten.unsqueeze.default", x, -1), classes)
    return [e.v("aten._to_copy.default", hit, dtype=DType.int64)]


@rule("aten._reshape_alias.default")
def _reshape_alias(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.view.default", b["self"], b["size"])]


@rule("aten.rms_norm.default")
def _rms_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """x * rsqrt(mean(x^2 over the normalized dims) + eps) * weight; eps defaults to the
    dtype's machine epsilon, as torch's rms_norm. float16 and bfloat16 are computed
    in float32, weight included, and rounded once, as torch's kernel and its own
    decomposition do (rounding each step differs by an ulp in a quarter of the values)."""
    x = b.value("input")
    t = tensor_of(x)
    n = len(b.ints("normalized_shape"))
    dims = list(range(t.rank - n, t.rank))
    eps = b.get("eps")
    if eps is None:
        eps = {DType.float64: 2.220446049250313e-16, DType.float16: 0.0009765625,
               DType.bfloat16: 0.0078125}.get(t.element_dtype, 1.1920928955078125e-07)
    wide = t.element_dtype.opmath()
    if wide != t.element_dtype:
        x = e.v("aten._to_copy.default", x, dtype=wide)
    ms = e.v("aten.mean.dim", e.v("aten.mul.Tensor", x, x), dims, True)
    out = e.v("aten.mul.Tensor", x, e.v("aten.rsqrt.default", e.v("aten.add.Tensor", ms, eps)))
    weight = b.get("weight")
    if isinstance(weight, SSAValue):
        if tensor_of(weight).element_dtype != tensor_of(out).element_dtype:
            weight = e.v("aten._to_copy.default", weight, dtype=tensor_of(out).element_dtype)
        out = e.v("aten.mul.Tensor", out, weight)
    if wide != t.element_dtype:
        out = e.v("aten._to_copy.default", out, dtype=t.element_dtype)
    return [out]


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


@rule("aten.stack.default")
def _stack(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_refs `stack`: `cat` along `dim` viewed with the new dimension, or, stacking on a new
    last dimension, each tensor unsqueezed there and then `cat`."""
    tensors = cast(list[SSAValue], b["tensors"])
    if not tensors:
        raise Decline()
    first = tensor_of(tensors[0])
    dim = b.int("dim") % (first.rank + 1)
    if dim < first.rank:
        if any(tensor_of(t).sizes != first.sizes for t in tensors):
            raise Decline()
        sizes = list(first.sizes)
        sizes.insert(dim, len(tensors))
        return [e.v("aten.view.default", e.v("aten.cat.default", tensors, dim), e.sizes(sizes))]
    return [e.v("aten.cat.default", [e.v("aten.unsqueeze.default", t, dim) for t in tensors], dim)]


@rule("aten.squeeze.default")
def _squeeze_all(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`squeeze()` is `squeeze.dims` over the dims of size 1 (a symbolic size might be 1: declined)."""
    x = b.value("self")
    sizes = tensor_of(x).sizes
    if not all(isinstance(s, int) for s in sizes):
        raise Decline()
    return [e.v("aten.squeeze.dims", x, [d for d, s in enumerate(sizes) if s == 1])]


@rule("aten.unbind.int")
def _unbind(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue | None]:
    """torch/_refs `unbind`: row `i` is a one-wide `slice` along `dim`, squeezed. Export IR has no
    list constructor, so the rows replace the `getitem`s of the list; a list used otherwise
    (passed whole to another operator) is left alone."""
    x = b.value("self")
    t = tensor_of(x)
    if t.rank == 0:
        raise Decline()
    dim = b.int("dim") % t.rank
    result = op.results[0]
    users = [use.operation for use in result.uses]
    if not all(isinstance(u, GetItemOp) for u in users) or not isinstance(t.sizes[dim], int):
        raise Decline()
    count = cast(int, t.sizes[dim])
    rows: dict[int, SSAValue] = {}
    for user in cast(list[GetItemOp], users):
        i = user.index.data % count if count else user.index.data
        if i not in rows:
            rows[i] = e.v("aten.squeeze.dims", e.v("aten.slice.Tensor", x, dim, i, i + 1), [dim])
        e.rewriter.replace(user, [], [rows[i]])
    return [None]  # every row has been read out: the list has no uses left


@rule("aten.roll.default")
def _roll(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_decomp `roll`: per rolled dim, `index_select` by `(arange(n) + (n - shift)) fmod n`;
    with no dims, the flattened tensor rolled and viewed back."""
    x = b.value("self")
    t = tensor_of(x)
    shifts, dims = b.ints("shifts"), b.ints("dims")
    if not dims:
        if len(shifts) != 1:
            raise Decline()
        flat = e.reshape(x, [t.numel()])
        rolled = _roll_dim(e, flat, shifts[0], 0)
        return [e.v("aten.view.default", rolled, e.sizes(t.sizes))]
    if len(shifts) != len(dims):
        raise Decline()
    out = x
    for shift, dim in zip(shifts, dims):
        out = _roll_dim(e, out, shift, dim % t.rank)
    return [out]


def _roll_dim(e: Emitter, x: SSAValue, shift: int, dim: int) -> SSAValue:
    t = tensor_of(x)
    size = t.sizes[dim]
    if not isinstance(size, int):
        raise Decline()
    if size == 0:
        return e.v("aten.clone.default", x)
    start = (size - shift % size) % size
    device = DeviceAttr(t.device.data)
    idx = e.v("aten.arange.start_step", start, start + size, dtype=DType.int64, layout=Layout.strided,
              device=device, pin_memory=False)
    idx = e.v("aten.fmod.Scalar", idx, size)
    return e.v("aten.index_select.default", x, dim, idx)


_PADS = {"reflect": "reflection", "replicate": "replication"}


@rule("aten.pad.default")
def _pad(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`F.pad`'s ATen form (`_pad_enum`): `constant_pad_nd`, `reflection_pad{1,2,3}d`,
    `replication_pad{1,2,3}d`, or the circular padding built from slices and `cat`."""
    x = b.value("self")
    pad = b.ints("pad")
    mode = cast(str, b.get("mode") or "constant")
    if mode == "constant":
        value = b.get("value")
        return [e.v("aten.constant_pad_nd.default", x, pad, 0 if value is None else value)]
    if b.get("value") is not None or len(pad) % 2 or not 2 <= len(pad) <= 6:
        raise Decline()
    n = len(pad) // 2
    if mode in _PADS:
        if tensor_of(x).rank not in (n + 1, n + 2):
            raise Decline()
        return [e.v(f"aten.{_PADS[mode]}_pad{n}d.default", x, pad)]
    if mode == "circular":
        return [_pad_circular(e, x, pad)]
    raise Decline()


def _pad_circular(e: Emitter, x: SSAValue, pad: list[int]) -> SSAValue:
    """Circular padding: per padded dim (the last first), the tail and head wrapped around by `cat`;
    negative pads crop."""
    t = tensor_of(x)
    out = x
    for k in range(len(pad) // 2):
        left, right = pad[2 * k], pad[2 * k + 1]
        dim = t.rank - 1 - k
        size = tensor_of(out).sizes[dim]
        if not isinstance(size, int) or left > size or right > size:
            raise Decline()
        if left < 0 or right < 0:
            out = e.v("aten.slice.Tensor", out, dim, max(-left, 0), size - max(-right, 0))
            left, right = max(left, 0), max(right, 0)
            size = tensor_of(out).sizes[dim]
            assert isinstance(size, int)
        parts: list[SSAValue] = []
        if left:
            parts.append(e.v("aten.slice.Tensor", out, dim, size - left, size))
        parts.append(out)
        if right:
            parts.append(e.v("aten.slice.Tensor", out, dim, 0, right))
        if len(parts) > 1:
            out = e.v("aten.cat.default", parts, dim)
    return out


@rule("aten._pad_circular.default")
def _pad_circular_rule(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [_pad_circular(e, b.value("self"), b.ints("pad"))]


@rule("aten.replication_pad1d.default")
def _replication_pad1d(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`replication_pad1d` (not core) as `replication_pad2d` over a unit height."""
    x = b.value("self")
    left, right = b.ints("padding")
    wide = e.v("aten.replication_pad2d.default", e.v("aten.unsqueeze.default", x, -2), [left, right, 0, 0])
    return [e.v("aten.squeeze.dims", wide, [tensor_of(x).rank - 1])]


@rule("aten.narrow.default")
def _narrow(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`narrow(dim, start, length)` is `slice(dim, start, start + length)`; a negative start
    counts from the end."""
    x = b.value("self")
    t = tensor_of(x)
    dim = b.int("dim") % t.rank
    start, length = b["start"], b["length"]
    if not isinstance(start, int) or not isinstance(length, int):
        raise Decline()
    if start < 0:
        size = t.sizes[dim]
        if not isinstance(size, int):
            raise Decline()
        start += size
    return [e.v("aten.slice.Tensor", x, dim, start, start + length)]


@rule("aten.where.default")
def _where_nonzero(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue | None]:
    """`torch.where(cond)` is `nonzero(cond)` split into its columns (`select` of each); as with
    `unbind`, the columns replace the `getitem`s of the list."""
    cond = b.value("condition")
    rank = tensor_of(cond).rank
    result = op.results[0]
    users = [use.operation for use in result.uses]
    if not all(isinstance(u, GetItemOp) for u in users) or rank == 0:
        raise Decline()
    nz = e.v("aten.nonzero.default", cond)
    cols: dict[int, SSAValue] = {}
    for user in cast(list[GetItemOp], users):
        i = user.index.data % rank
        if i not in cols:
            cols[i] = e.v("aten.select.int", nz, 1, i)
        e.rewriter.replace(user, [], [cols[i]])
    return [None]  # every column has been read out: the list has no uses left


@rule("aten.meshgrid.default", "aten.meshgrid.indexing")
def _meshgrid(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue | None]:
    """torch/_refs `meshgrid`: each 0-d or 1-d input viewed along its own dim and expanded to the
    grid (with `xy` indexing the first two dims swap places); the grids replace the `getitem`s of
    the list, as with `unbind`."""
    tensors = cast(list[SSAValue], b["tensors"])
    indexing = b.get("indexing") or "ij"
    if not tensors or any(tensor_of(t).rank > 1 for t in tensors) or indexing not in ("ij", "xy"):
        raise Decline()
    users = [use.operation for use in op.results[0].uses]
    if not all(isinstance(u, GetItemOp) for u in users):
        raise Decline()
    sizes = [tensor_of(t).numel() for t in tensors]
    axes = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        axes[0], axes[1] = 1, 0
    shape = [sizes[axes.index(d)] for d in range(len(tensors))]
    grids: dict[int, SSAValue] = {}
    for user in cast(list[GetItemOp], users):
        i = user.index.data % len(tensors)
        if i not in grids:
            view: list[SymSize] = [1] * len(tensors)
            view[axes[i]] = sizes[i]
            line = e.v("aten.view.default", tensors[i], e.sizes(view))
            grids[i] = e.v("aten.expand.default", line, e.sizes(shape))
        e.rewriter.replace(user, [], [grids[i]])
    return [None]  # every grid has been read out: the list has no uses left


@rule("aten.reshape_as.default")
def _reshape_as(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.reshape(b.value("self"), list(tensor_of(b["other"]).sizes))]


@rule("aten.view_as.default")
def _view_as(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.view.default", b["self"], e.sizes(tensor_of(b["other"]).sizes))]


@rule("aten.expand_as.default")
def _expand_as(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.expand.default", b["self"], e.sizes(tensor_of(b["other"]).sizes))]


@rule("aten.broadcast_to.default")
def _broadcast_to(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.expand.default", b["self"], b["size"])]


@rule("aten.swapaxes.default", "aten.swapdims.default")
def _swapaxes(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    rank = tensor_of(x).rank
    d0, d1 = (b.int("axis0"), b.int("axis1")) if "axis0" in b else (b.int("dim0"), b.int("dim1"))
    perm = list(range(rank))
    if rank:
        d0, d1 = d0 % rank, d1 % rank
        perm[d0], perm[d1] = perm[d1], perm[d0]
    return [e.v("aten.permute.default", x, perm)]


@rule("aten.numpy_T.default")
def _numpy_t(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    return [e.v("aten.permute.default", x, list(reversed(range(tensor_of(x).rank))))]


@rule("aten.mT.default", "aten.adjoint.default")
def _mt(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    if tensor_of(x).rank < 2 or tensor_of(x).element_dtype.is_complex:
        raise Decline()
    return [movedim(e, x, -1, -2)]


@rule("aten.movedim.int", "aten.moveaxis.int")
def _movedim_int(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [movedim(e, b.value("self"), b.int("source"), b.int("destination"))]


@rule("aten.movedim.intlist", "aten.moveaxis.intlist")
def _movedim_list(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    rank = tensor_of(x).rank
    src = [wrapped_dim(rank, d) for d in b.ints("source")]
    dst = [wrapped_dim(rank, d) for d in b.ints("destination")]
    order: list[int | None] = [None] * rank
    for s_, d_ in zip(src, dst):
        order[d_] = s_
    rest = iter(d for d in range(rank) if d not in src)
    return [e.v("aten.permute.default", x, [o if o is not None else next(rest) for o in order])]


@rule("aten.diag_embed.default")
def _diag_embed(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch._refs.diag_embed: put the last dim on a diagonal of two new dims, by a mask."""
    x = b.value("self")
    t = tensor_of(x)
    rank = t.rank + 1
    d1, d2, offset = b.int("dim1") % rank, b.int("dim2") % rank, b.int("offset")
    if d1 == d2:
        raise Decline()
    if d1 > d2:
        d1, d2, offset = d2, d1, -offset
    last = t.sizes[-1]
    if not isinstance(last, int):
        raise Decline()
    if offset:
        zeros = e.v(
            "aten.full.default", e.sizes([*t.sizes[:-1], abs(offset)]), fill_value_for(t.element_dtype, 0),
            dtype=t.element_dtype, layout=Layout.strided, device=DeviceAttr(t.device.data), pin_memory=False,
        )
        x = e.v("aten.cat.default", [zeros, x] if offset > 0 else [x, zeros], -1)
        last += abs(offset)
    x = movedim(e, e.v("aten.unsqueeze.default", x, d1), -1, d2)
    device = DeviceAttr(t.device.data)
    cols = e.v("aten.arange.start_step", 0, last, layout=Layout.strided, device=device, pin_memory=False)
    rows = e.v("aten.arange.start_step", offset, last + offset, layout=Layout.strided, device=device, pin_memory=False)
    cond = e.v("aten.eq.Tensor", cols, e.v("aten.unsqueeze.default", rows, -1))
    cond = e.v("aten.view.default", cond, [last if i in (d1, d2) else 1 for i in range(rank)])
    return [e.v("aten.where.self", cond, x, zero_like(e, t))]


def _storage_read(value: SSAValue) -> bool:
    """Whether an `as_strided` reads `value`'s storage: it uses `value` or a view of it."""
    pending, seen = [value], set[SSAValue]()
    while pending:
        v = pending.pop()
        if v in seen:
            continue
        seen.add(v)
        for use in v.uses:
            name = op_name(use.operation)
            if name.startswith("aten.as_strided"):
                return True
            entry = lookup(name)
            if entry is not None and use.index == 0 and use.operation.results:
                if 0 in entry.schema.return_alias_map().get(0, ()):  # a view of its first argument
                    pending.append(use.operation.results[0])
    return False


@rule("aten.unfold.default")
def _unfold(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`Tensor.unfold`: windows of `size` every `step` along `dimension`, as a new last dim,
    gathered with `index_select` of `arange(n) * step + arange(size)`. That is a copy,
    not torch's view: where an `as_strided` reads the windows' storage (torch's
    is `self`'s), the rule declines, and to-core-aten refuses rather than give
    the copy's elements."""
    x = b.value("self")
    t = tensor_of(x)
    if t.rank == 0 or _storage_read(op.results[0]):
        raise Decline()
    dim, size, step = b.int("dimension") % t.rank, b.int("size"), b.int("step")
    length = t.sizes[dim]
    if not isinstance(length, int) or size > length:
        raise Decline()
    windows = (length - size) // step + 1
    device = DeviceAttr(t.device.data)
    starts = e.v("aten.arange.start_step", 0, windows * step, step, layout=Layout.strided, device=device, pin_memory=False)
    offsets = e.v("aten.arange.start_step", 0, size, layout=Layout.strided, device=device, pin_memory=False)
    index = e.v("aten.add.Tensor", e.v("aten.unsqueeze.default", starts, -1), offsets)
    index = e.v("aten.view.default", index, [windows * size])
    y = e.v("aten.index_select.default", x, dim, index)
    y = e.v("aten.view.default", y, e.sizes([*t.sizes[:dim], windows, size, *t.sizes[dim + 1 :]]))
    return [movedim(e, y, dim + 1, -1)]


def _swap(e: Emitter, x: SSAValue, d0: int, d1: int) -> SSAValue:
    order = list(range(tensor_of(x).rank))
    order[d0], order[d1] = order[d1], order[d0]
    return e.v("aten.permute.default", x, order)


@rule("aten.rot90.default")
def _rot90(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Quarter turns from the first towards the second of `dims`, by flips and a transpose."""
    x = b.value("self")
    rank = tensor_of(x).rank
    dims = b.ints("dims") if b.get("dims") is not None else [0, 1]
    if len(dims) != 2 or rank < 2:
        raise Decline()
    d0, d1 = dims[0] % rank, dims[1] % rank
    if d0 == d1:
        raise Decline()
    k = b.int("k") % 4 if b.get("k") is not None else 1
    if k == 1:
        return [_swap(e, e.v("aten.flip.default", x, [d1]), d0, d1)]
    if k == 2:
        return [e.v("aten.flip.default", x, [d0, d1])]
    if k == 3:
        return [_swap(e, e.v("aten.flip.default", x, [d0]), d0, d1)]
    return [e.v("aten.clone.default", x)]


@rule("aten.diagflat.default")
def _diagflat(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    flat = e.reshape(x, [tensor_of(x).numel()])
    return [e.v("aten.diag_embed.default", flat, b.get("offset", 0) or 0)]
