"""Decompositions of views, shape helpers and the stacks.

The split family, the list-valued views and the view copies torch decomposes.

`tensor_split`, `hsplit`, `vsplit`, `dsplit`, the `unsafe_` splits and `unsafe_chunk` follow
torch/_refs: consecutive slices of one dimension, written as one `split_with_sizes` when the
slices tile the dimension (every index form torch's OpInfo samples use), otherwise as one
`slice` per `getitem` of the list. Export IR has no list constructor, so an operator whose
list result is built from several tensors (`broadcast_tensors`, `atleast_2d.Sequence`, the
`_copy` splits) replaces the `getitem`s of its list, as `unbind`'s rule does; a list used
whole is left alone, and the interpreter runs those operators through their numpy kernels
(`semantics.kernels.views`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from xdsl.ir import Attribute, Operation, SSAValue

from xdsl_exir.dialects.exir import (
    DeviceAttr,
    DType,
    GetItemOp,
    Layout,
    ListType,
    MemoryFormat,
    TensorType,
)
from xdsl_exir.semantics.decompositions.core import (
    Decline,
    Emitter,
    atleast_rank,
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
from xdsl_exir.utils.broadcast import broadcast_shapes
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


@rule("aten._reshape_alias.default")
def _reshape_alias(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.view.default", b["self"], b["size"])]


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


@rule("aten.mH.default", "aten.matrix_H.default")
def _adjoint_real(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """The conjugate transpose of a real matrix (batch) is its transpose."""
    x = b.value("self")
    t = tensor_of(x)
    if t.element_dtype.is_complex or t.rank < 2 or (op_name(op) == "aten.matrix_H.default" and t.rank != 2):
        raise Decline()
    perm = [*range(t.rank - 2), t.rank - 1, t.rank - 2]
    return [e.v("aten.permute.default", x, perm)]


@rule("aten.diag.default")
def _diag(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    rank = tensor_of(x).rank
    if rank == 1:
        return [e.v("aten.diag_embed.default", x, b.int("diagonal"))]
    if rank != 2:
        raise Decline()
    return [e.v("aten.clone.default", e.v("aten.diagonal.default", x, b.int("diagonal")))]


def _bounds(total: int, cuts: Sequence[int]) -> list[tuple[int, int]]:
    """(start, end) of each piece of `tensor_split(indices)`: `slice(prev, cut)` in turn, with
    slice's wrapping of negative indices and clamping (a backwards pair is empty)."""

    def norm(i: int) -> int:
        return min(max(i + total if i < 0 else i, 0), total)

    edges = [0, *cuts]
    out: list[tuple[int, int]] = []
    for k, start in enumerate(edges):
        s = norm(start)
        end = norm(edges[k + 1]) if k + 1 < len(edges) else total
        out.append((s, max(s, end)))
    return out


def _replace_items(e: Emitter, op: Operation, count: int, make: Callable[[int], SSAValue]) -> Sequence[None]:
    """Replace each `getitem` of `op`'s list by `make(i)` (one value per index); decline when
    the list is used whole."""
    users = [use.operation for use in op.results[0].uses]
    if not all(isinstance(u, GetItemOp) for u in users):
        raise Decline()
    made: dict[int, SSAValue] = {}
    for user in cast(list[GetItemOp], users):
        i = user.index.data % count if count else user.index.data
        if i not in made:
            made[i] = make(i)
        e.rewriter.replace(user, [], [_typed_as(e, made[i], user.results[0])])
    return [None]  # every item has been read out: the list has no uses left


def _same_but_layout(new: Attribute, old: Attribute) -> bool:
    """`new` is `old` but for the dim order (inference gives the default layout; the graph
    records the one torch computed)."""
    if isinstance(new, ListType) and isinstance(old, ListType):
        return _same_but_layout(new.element_type, old.element_type)
    if isinstance(new, TensorType) and isinstance(old, TensorType):
        return old == TensorType(new.shape, new.dtype, new.device, old.dim_order)
    return False


def _typed_as(e: Emitter, new: SSAValue, old: SSAValue) -> SSAValue:
    """`new` with `old`'s type where they differ only in layout."""
    if new.type != old.type and _same_but_layout(new.type, old.type):
        return e.rewriter.replace_value_with_new_type(new, old.type)
    return new


def _split_at(e: Emitter, op: Operation, x: SSAValue, dim: int, pieces: list[tuple[int, int]]) -> Sequence[SSAValue | None]:
    """`x` cut along `dim` into `pieces` ((start, end) pairs): one `split_with_sizes` when they
    tile the dimension; otherwise a `slice` per `getitem`, or, for a list used whole, the slices
    concatenated and split again (the only list constructor core ATen has)."""
    sizes = [end - start for start, end in pieces]
    if all(pieces[k][1] == pieces[k + 1][0] for k in range(len(pieces) - 1)) and pieces[-1][1] == sum(sizes) + pieces[0][0]:
        if pieces[0][0] == 0:
            return [_typed_as(e, e.v("aten.split_with_sizes.default", x, sizes, dim), op.results[0])]
    try:
        return _replace_items(e, op, len(pieces), lambda i: e.v("aten.slice.Tensor", x, dim, *pieces[i]))
    except Decline:
        joined = e.v("aten.cat.default", [e.v("aten.slice.Tensor", x, dim, *p) for p in pieces], dim)
        return [_typed_as(e, e.v("aten.split_with_sizes.default", joined, sizes, dim), op.results[0])]


def _static_size(t_sizes: Sequence[SymSize], dim: int) -> int:
    size = t_sizes[dim]
    if not isinstance(size, int):
        raise Decline()
    return size


def _sections(total: int, sections: int) -> list[tuple[int, int]]:
    """torch's `tensor_split(sections)`: the first `total % sections` pieces one longer."""
    if sections <= 0:
        raise Decline()
    q, r = divmod(total, sections)
    out: list[tuple[int, int]] = []
    start = 0
    for k in range(sections):
        n = q + (1 if k < r else 0)
        out.append((start, start + n))
        start += n
    return out


@rule("aten.tensor_split.sections", "aten.tensor_split.indices")
def _tensor_split(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue | None]:
    x = b.value("self")
    t = tensor_of(x)
    if t.rank == 0:
        raise Decline()
    dim = b.int("dim") % t.rank
    total = _static_size(t.sizes, dim)
    if "sections" in b:
        return _split_at(e, op, x, dim, _sections(total, b.int("sections")))
    return _split_at(e, op, x, dim, _bounds(total, b.ints("indices")))


_SPLIT_DIM = {"hsplit": (1, 1), "vsplit": (0, 2), "dsplit": (2, 3)}
"""`hsplit`/`vsplit`/`dsplit`: the dim they cut and the least rank they take (`hsplit` cuts a
1-d tensor along dim 0)."""


@rule("aten.hsplit.int", "aten.hsplit.array", "aten.vsplit.int", "aten.vsplit.array", "aten.dsplit.int",
      "aten.dsplit.array")
def _hvdsplit(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue | None]:
    """torch/_refs `hsplit`: `tensor_split` along its dim; an int count must divide the size."""
    x = b.value("self")
    t = tensor_of(x)
    dim, least = _SPLIT_DIM[op_name(op).split(".")[1]]
    if t.rank < least:
        raise Decline()  # torch refuses: too few dims
    if t.rank == 1:
        dim = 0
    total = _static_size(t.sizes, dim)
    if "sections" in b:
        sections = b.int("sections")
        if sections <= 0 or total % sections:
            raise Decline()  # torch refuses an uneven split
        return _split_at(e, op, x, dim, _sections(total, sections))
    return _split_at(e, op, x, dim, _bounds(total, b.ints("indices")))


@rule("aten.unsafe_split.Tensor")
def _unsafe_split(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`unsafe_split` is `split` without the aliasing checks (functional IR has none)."""
    x = b.value("self")
    t = tensor_of(x)
    dim = b.int("dim") % t.rank
    pieces = e.v("aten.split_with_sizes.default", x, split_sizes(t.sizes[dim], b.int("split_size")), dim)
    return [_typed_as(e, pieces, op.results[0])]


@rule("aten.unsafe_chunk.default")
def _unsafe_chunk(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    t = tensor_of(x)
    dim = b.int("dim") % t.rank
    total = _static_size(t.sizes, dim)
    chunks = b.int("chunks")
    if chunks <= 0:
        raise Decline()
    # as `chunk`: an empty dim gives `chunks` empty pieces (a split by 0 would give one)
    sizes = [0] * chunks if total == 0 else split_sizes(total, -(-total // chunks))
    pieces = e.v("aten.split_with_sizes.default", x, sizes, dim)
    return [_typed_as(e, pieces, op.results[0])]


@rule("aten._reshape_copy.default")
def _reshape_copy(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch's `_reshape_copy`: a fresh contiguous tensor of the new shape."""
    x = e.v("aten.clone.default", b["self"], memory_format=MemoryFormat.contiguous_format)
    return [e.v("aten.view.default", x, b["size"])]


@rule("aten.view_copy.dtype")
def _view_copy_dtype(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    view = e.v("aten.view.dtype", b["self"], b["dtype"])
    return [e.v("aten.clone.default", view, memory_format=MemoryFormat.contiguous_format)]


@rule("aten._neg_view.default", "aten._neg_view_copy.default")
def _neg_view(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """A negated view of a real tensor holds `-self` (its lazy negation bit resolves to `neg`)."""
    return [e.v("aten.neg.default", b["self"])]


@rule("aten.lift.default", "aten.pin_memory.default", "aten._pin_memory.default")
def _identity(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """No-ops on a CPU value: lifting a constant into the graph, pinning host memory."""
    return [b.value("self")]


@rule("aten.split_copy.Tensor", "aten.split_with_sizes_copy.default", "aten.unbind_copy.int")
def _split_copies(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue | None]:
    """The `_copy` forms of `split` and `unbind`: each piece a fresh tensor."""
    x = b.value("self")
    t = tensor_of(x)
    if t.rank == 0:
        raise Decline()
    dim = b.int("dim") % t.rank
    total = _static_size(t.sizes, dim)
    name = op_name(op)
    if name == "aten.unbind_copy.int":
        return _replace_items(e, op, total, lambda i: e.v(
            "aten.clone.default", e.v("aten.select.int", x, dim, i), memory_format=MemoryFormat.contiguous_format))
    sizes = b.ints("split_sizes") if "split_sizes" in b else split_sizes(total, b.int("split_size"))
    starts = [sum(sizes[:k]) for k in range(len(sizes))]
    return _replace_items(e, op, len(sizes), lambda i: e.v(
        "aten.clone.default", e.v("aten.slice.Tensor", x, dim, starts[i], starts[i] + sizes[i]),
        memory_format=MemoryFormat.contiguous_format))


@rule("aten.broadcast_tensors.default")
def _broadcast_tensors(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue | None]:
    """torch/_refs `broadcast_tensors`: each tensor expanded to the common shape."""
    tensors = cast(list[SSAValue], b["tensors"])
    shape = broadcast_shapes(*[tensor_of(x).sizes for x in tensors])
    return _replace_items(e, op, len(tensors), lambda i: e.v("aten.expand.default", tensors[i], e.sizes(shape)))


@rule("aten.atleast_1d.Sequence", "aten.atleast_2d.Sequence", "aten.atleast_3d.Sequence")
def _atleast_sequence(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue | None]:
    """`atleast_{1,2,3}d` of each tensor of the list, as the one-tensor overloads."""
    tensors = cast(list[SSAValue], b["tensors"])
    least = int(op_name(op).split(".")[1][-2])
    return _replace_items(e, op, len(tensors), lambda i: atleast_rank(e, tensors[i], least))


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
