"""Views and shape ops: reshapes, permutations, slicing, splitting, padding.

Views return numpy views wherever torch's return views, so an in-place kernel
writing through one reaches its base as in torch (the derived in-place view ops
and indexing rely on these kernels).

Kernels of the list-valued operators whose decompositions replace the `getitem`s of their
list (`semantics/decompositions/views.py`): when a program passes the list whole, or the
interpreter runs the operator on its own, these give the list. Each piece is what the rule
builds: a `_copy` form gives fresh arrays, `broadcast_tensors` read-only broadcast views
(torch's expand), `atleast_nd` the reshaped tensors.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
from numpy.lib.stride_tricks import as_strided

from xdsl_exir.semantics.kernels.core import storage_of
from xdsl_exir.semantics.kernels.dtypes import (
    numpy_dtype_or_none,
    result_type,
)
from xdsl_exir.semantics.kernels.registry import FUNCTIONAL, register, wrap_dim
from xdsl_exir.utils.aten_enums import require_enum


def _infer_shape(size: Sequence[int], numel: int) -> tuple[int, ...]:
    shape = [int(s) for s in size]
    if -1 in shape:
        i = shape.index(-1)
        rest = math.prod(s for j, s in enumerate(shape) if j != i)
        shape[i] = numel // rest if rest else 0
    return tuple(shape)


@register("aten.view.default", "aten._unsafe_view.default", "aten.reshape.default")
def _view(self: np.ndarray, size: Sequence[int] | None = None, shape: Sequence[int] | None = None) -> np.ndarray:
    a = np.asarray(self)
    s = size if size is not None else shape
    assert s is not None
    return a.reshape(_infer_shape(s, a.size))


@register("aten.view.dtype")
def _view_dtype(self: np.ndarray, dtype: object) -> np.ndarray:
    dt = numpy_dtype_or_none(dtype)
    return np.asarray(self).view() if dt is None else np.asarray(self).view(dt)


@register("aten.expand.default")
def _expand(self: np.ndarray, size: Sequence[int], implicit: bool = False) -> np.ndarray:
    a = np.asarray(self)
    lead = len(size) - a.ndim
    if lead < 0:
        raise ValueError(f"expand: {len(size)} sizes {list(size)} for a {a.ndim}-d tensor: give at least one per dimension")
    shape = []
    strides = []
    for i, s in enumerate(size):
        if i < lead:
            shape.append(int(s))
            strides.append(0)
            continue
        cur = a.shape[i - lead]
        s = cur if s == -1 else int(s)
        if cur not in (s, 1):
            raise ValueError(f"expand: dimension {i - lead} of size {cur} cannot be expanded to {s} "
                             f"(only a dimension of size 1 expands) for the shape {list(size)}")
        shape.append(s)
        strides.append(a.strides[i - lead] if cur == s else 0)
    return as_strided(a, tuple(shape), tuple(strides))


@register("aten.expand_as.default")
def _expand_as(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    return _expand(self, np.shape(other))


@register("aten.permute.default")
def _permute(self: np.ndarray, dims: Sequence[int]) -> np.ndarray:
    return np.transpose(self, [wrap_dim(d, np.ndim(self)) for d in dims])


@register("aten.transpose.int")
def transpose_kernel(self: np.ndarray, dim0: int, dim1: int) -> np.ndarray:
    a = np.asarray(self)
    if a.ndim == 0:
        return a.view()
    return np.swapaxes(a, wrap_dim(dim0, a.ndim), wrap_dim(dim1, a.ndim))


@register("aten.t.default")
def t_kernel(self: np.ndarray) -> np.ndarray:
    a = np.asarray(self)
    return a.T if a.ndim == 2 else a.view()


@register("aten.movedim.int", "aten.movedim.intlist")
def _movedim(self: np.ndarray, source: int | Sequence[int], destination: int | Sequence[int]) -> np.ndarray:
    return np.moveaxis(self, source, destination)


@register("aten.squeeze.default", "aten.squeeze.dim", "aten.squeeze.dims")
def squeeze_kernel(self: np.ndarray, dim: int | Sequence[int] | None = None) -> np.ndarray:
    a = np.asarray(self)
    if a.ndim == 0:
        return a.view()
    if dim is None:
        return np.squeeze(a)
    dims = [dim] if isinstance(dim, int) else list(dim)
    axes = tuple(d % a.ndim for d in dims if a.shape[d % a.ndim] == 1)
    return np.squeeze(a, axis=axes) if axes else a.view()


@register("aten.unsqueeze.default")
def unsqueeze_kernel(self: np.ndarray, dim: int) -> np.ndarray:
    a = np.asarray(self)
    return np.expand_dims(a, dim % (a.ndim + 1))


@register("aten.flatten.using_ints")
def _flatten(self: np.ndarray, start_dim: int = 0, end_dim: int = -1) -> np.ndarray:
    a = np.asarray(self)
    if a.ndim == 0:
        return a.reshape(1)
    s, e = wrap_dim(start_dim, a.ndim), wrap_dim(end_dim, a.ndim)
    return a.reshape(a.shape[:s] + (-1,) + a.shape[e + 1 :])


@register("aten.unflatten.int")
def _unflatten(self: np.ndarray, dim: int, sizes: Sequence[int]) -> np.ndarray:
    a = np.asarray(self)
    d = wrap_dim(dim, a.ndim)
    return a.reshape(a.shape[:d] + _infer_shape(sizes, a.shape[d]) + a.shape[d + 1 :])


@register("aten.select.int")
def select_kernel(self: np.ndarray, dim: int, index: int) -> np.ndarray:
    a = np.asarray(self)
    d = wrap_dim(dim, a.ndim)
    n, i = a.shape[d], int(index)
    if not -n <= i < n:
        raise IndexError(f"select: index {i} is out of range for dimension {d} of size {n}")
    return a[(slice(None),) * d + (i % n, Ellipsis)]


def _slice_bounds(n: int, start: int | None, end: int | None) -> tuple[int, int]:
    s = 0 if start is None else int(start)
    e = n if end is None else int(end)
    if s < 0:
        s += n
    if e < 0:
        e += n
    s = min(max(s, 0), n)
    e = min(max(e, s), n)
    return s, e


@register("aten.slice.Tensor")
def slice_kernel(self: np.ndarray, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1) -> np.ndarray:
    a = np.asarray(self)
    d = wrap_dim(dim, a.ndim)
    s, e = _slice_bounds(a.shape[d], start, end)
    return a[(slice(None),) * d + (slice(s, e, int(step)),)]


@register("aten.narrow.default", "aten.narrow.Tensor")
def _narrow(self: np.ndarray, dim: int, start: object, length: int) -> np.ndarray:
    a = np.asarray(self)
    d = wrap_dim(dim, a.ndim)
    st = int(np.asarray(start))
    if st < 0:
        st += a.shape[d]
    return a[(slice(None),) * d + (slice(st, st + int(length)),)]


@register("aten.diagonal.default")
def _diagonal(self: np.ndarray, offset: int = 0, dim1: int = 0, dim2: int = 1) -> np.ndarray:
    """A writable diagonal view (np.diagonal's is read-only)."""
    a = np.asarray(self)
    d1, d2 = wrap_dim(dim1, a.ndim), wrap_dim(dim2, a.ndim)
    if offset >= 0:
        a = a[(slice(None),) * d2 + (slice(min(offset, a.shape[d2]), None),)]
    else:
        a = a[(slice(None),) * d1 + (slice(min(-offset, a.shape[d1]), None),)]
    n = min(a.shape[d1], a.shape[d2])
    keep = [i for i in range(a.ndim) if i not in (d1, d2)]
    shape = tuple(a.shape[i] for i in keep) + (n,)
    strides = tuple(a.strides[i] for i in keep) + (a.strides[d1] + a.strides[d2],)
    return as_strided(a, shape, strides)


def _split_sizes(n: int, split_size: int) -> list[int]:
    if split_size == 0:
        return [0] if n == 0 else []
    sizes = [split_size] * (n // split_size)
    if n % split_size or not sizes:
        sizes.append(n % split_size)
    return sizes


def _split_by_sizes(a: np.ndarray, sizes: Sequence[int], dim: int) -> list[np.ndarray]:
    d = wrap_dim(dim, a.ndim)
    out, pos = [], 0
    for s in sizes:
        out.append(a[(slice(None),) * d + (slice(pos, pos + int(s)),)])
        pos += int(s)
    return out


@register("aten.split.Tensor", "aten.split.sizes", "aten.split.default", "aten.split_with_sizes.default")
def _split(
    self: np.ndarray, split_size: int | Sequence[int] | None = None, dim: int = 0, split_sizes: Sequence[int] | None = None
) -> list[np.ndarray]:
    a = np.asarray(self)
    sizes = split_sizes if split_sizes is not None else split_size
    n = a.shape[wrap_dim(dim, a.ndim)]
    if isinstance(sizes, int):
        sizes = _split_sizes(n, sizes)
    assert sizes is not None
    if sum(int(s) for s in sizes) != n:  # the last piece would silently be short or the rest dropped
        raise ValueError(f"split sizes {[int(s) for s in sizes]} do not sum to {n}")
    return _split_by_sizes(a, sizes, dim)


@register("aten.chunk.default")
def _chunk(self: np.ndarray, chunks: int, dim: int = 0) -> list[np.ndarray]:
    a = np.asarray(self)
    n = a.shape[wrap_dim(dim, a.ndim)]
    size = -(-n // chunks) if n else 0
    return _split_by_sizes(a, _split_sizes(n, size) if size else [0] * chunks, dim)  # torch: `chunks` empty pieces


@register("aten.unbind.int")
def _unbind(self: np.ndarray, dim: int = 0) -> list[np.ndarray]:
    a = np.asarray(self)
    d = wrap_dim(dim, a.ndim)
    return [a[(slice(None),) * d + (i, Ellipsis)] for i in range(a.shape[d])]


@register("aten.cat.default")
def _cat(tensors: Sequence[np.ndarray], dim: int = 0) -> np.ndarray:
    arrs = [np.asarray(t) for t in tensors]
    dt = result_type(*[a if a.ndim else a.reshape(1) for a in arrs])
    kept = [a for a in arrs if not (a.ndim == 1 and a.shape[0] == 0)] or arrs
    d = wrap_dim(dim, kept[0].ndim)
    try:
        return np.concatenate([a.astype(dt, copy=False) for a in kept], axis=d)
    except ValueError:
        raise ValueError(f"cat: tensors of shapes {_shapes(kept)} do not join along dimension {d}: they must "
                         f"have one rank and agree in every other dimension") from None


@register("aten.stack.default")
def _stack(tensors: Sequence[np.ndarray], dim: int = 0) -> np.ndarray:
    arrs = [np.asarray(t) for t in tensors]
    dt = result_type(*[a if a.ndim else a.reshape(1) for a in arrs])
    d = wrap_dim(dim, arrs[0].ndim + 1)
    try:
        return np.stack([a.astype(dt, copy=False) for a in arrs], axis=d)
    except ValueError:
        raise ValueError(f"stack: tensors of shapes {_shapes(arrs)} differ; stack needs them all of one shape") from None


def _shapes(arrs: Sequence[np.ndarray]) -> str:
    return ", ".join(str(list(a.shape)) for a in arrs)


@register("aten.flip.default")
def _flip(self: np.ndarray, dims: Sequence[int]) -> np.ndarray:
    a = np.asarray(self)
    return np.flip(a, axis=tuple(wrap_dim(d, a.ndim) for d in dims)).copy() if dims else a.copy()


@register("aten.roll.default")
def _roll(self: np.ndarray, shifts: Sequence[int], dims: Sequence[int] = ()) -> np.ndarray:
    a = np.asarray(self)
    if not dims:
        return np.roll(a.reshape(-1), int(shifts[0])).reshape(a.shape)
    return np.roll(a, tuple(int(s) for s in shifts), axis=tuple(wrap_dim(d, a.ndim) for d in dims))


@register("aten.repeat.default")
def _repeat(self: np.ndarray, repeats: Sequence[int]) -> np.ndarray:
    a = np.asarray(self)
    a = a.reshape((1,) * (len(repeats) - a.ndim) + a.shape)
    return np.tile(a, tuple(int(r) for r in repeats))


def _pad_pairs(pad: Sequence[int], ndim: int) -> list[tuple[int, int]]:
    """torch's pad list (last dim first, lo/hi pairs) as numpy pad_width."""
    pairs = [(0, 0)] * ndim
    for i in range(len(pad) // 2):
        pairs[ndim - 1 - i] = (int(pad[2 * i]), int(pad[2 * i + 1]))
    return pairs


def _pad_refusal(shape: tuple[int, ...], pairs: list[tuple[int, int]], mode: str) -> str | None:
    """Why torch refuses these paddings of a tensor of `shape` (None when it takes them).
    Circular padding is taken only where its wrap reads the cropped input alone: where a pad
    is wider than what the crop leaves, torch either refuses or copies from the output's
    unwritten memory, so there is no value to agree with."""
    for axis, (lo, hi) in enumerate(pairs):
        if (lo, hi) == (0, 0):
            continue
        n, out = shape[axis], shape[axis] + lo + hi
        where = f"dimension {axis} (size {n}) padded by ({lo}, {hi})"
        if out < 0 or (out < 1 and mode in ("reflect", "replicate")):
            return f"{mode} padding of {where} leaves {out} elements"
        if mode == "constant" and max(-lo, 0) + max(-hi, 0) > n:
            return f"constant padding of {where}: the negative pads crop more elements than the dimension has"
        if mode == "reflect" and max(lo, hi) >= n:
            return f"reflect padding of {where}: a pad must be smaller than the dimension"
        if mode == "replicate" and n == 0:
            return f"replicate padding of {where}: an empty dimension has no edge to repeat"
        if mode == "circular" and max(lo, hi) > n:
            return f"circular padding of {where}: a pad larger than the dimension wraps around more than once"
        if mode == "circular" and out > 0:
            kept = n - max(-lo, 0) - max(-hi, 0)
            if kept < 1 or max(lo, hi) > kept:
                return (f"circular padding of {where}: the crop keeps {kept} elements, fewer than a pad "
                        f"wraps around (torch refuses it or reads memory it never wrote)")
    return None


def _pad_any(a: np.ndarray, pad: Sequence[int], mode: str, value: object = 0) -> np.ndarray:
    """torch's pads, negative ones included: output position j of a padded axis reads the
    input at j - lo, replicate clamping that index into the input, reflect mirroring it at
    both ends, constant putting `value` outside it; a negative pad crops. numpy's `pad`
    does the common case (no negative pad), constant and circular padding of the cropped input."""
    require_enum("aten.pad", "mode", mode)
    pairs = _pad_pairs(pad, a.ndim)
    why = _pad_refusal(a.shape, pairs, mode)
    if why is not None:
        raise ValueError(f"pad: {why}")
    v = np.asarray(0 if value is None else value).astype(a.dtype)
    out_shape = tuple(n + lo + hi for n, (lo, hi) in zip(a.shape, pairs))
    if 0 in out_shape:
        return np.full(out_shape, v, dtype=a.dtype)
    if mode in ("constant", "circular") or all(lo >= 0 and hi >= 0 for lo, hi in pairs):
        crop = tuple(slice(max(-lo, 0), a.shape[i] - max(-hi, 0)) for i, (lo, hi) in enumerate(pairs))
        a = a[crop]
        width = [(max(lo, 0), max(hi, 0)) for lo, hi in pairs]
        if mode == "constant":
            return np.pad(a, width, mode="constant", constant_values=v)
        modes: dict[str, Literal["reflect", "edge", "wrap"]] = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}
        return np.pad(a, width, mode=modes[mode])
    for axis, (lo, hi) in enumerate(pairs):
        if (lo, hi) == (0, 0):
            continue
        n = a.shape[axis]
        j = np.arange(n + lo + hi) - lo  # the input position each output position reads
        if mode == "replicate":
            a = np.take(a, np.clip(j, 0, n - 1), axis=axis)
        else:  # reflect: torch's pads are smaller than the dimension, so one mirror at each end
            mirrored = np.abs(j)
            a = np.take(a, np.where(mirrored > n - 1, 2 * (n - 1) - mirrored, mirrored), axis=axis)
    return a


@register("aten.constant_pad_nd.default")
def _constant_pad_nd(self: np.ndarray, pad: Sequence[int], value: object = 0) -> np.ndarray:
    return _pad_any(np.asarray(self), pad, "constant", value)


@register("aten.pad.default")
def _pad(self: np.ndarray, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> np.ndarray:
    return _pad_any(np.asarray(self), pad, mode, value)


@register("aten.reflection_pad1d.default", "aten.reflection_pad2d.default", "aten.reflection_pad3d.default")
def _reflection_pad(self: np.ndarray, padding: Sequence[int]) -> np.ndarray:
    return _pad_any(np.asarray(self), padding, "reflect")


@register("aten.replication_pad2d.default", "aten.replication_pad3d.default")
def _replication_pad(self: np.ndarray, padding: Sequence[int]) -> np.ndarray:
    return _pad_any(np.asarray(self), padding, "replicate")


@register("aten.as_strided.default")
def as_strided_kernel(self: np.ndarray, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> np.ndarray:
    """torch's `as_strided`: sizes, strides and offset address `self`'s STORAGE, not its
    elements; the offset defaults to `self`'s own storage offset (a narrowed view keeps it).
    A transposed, narrowed, moved-dim, expanded or channels-last `self` is read through
    the buffer it views (`storage_of`), as torch reads the storage it shares."""
    a = np.asarray(self)
    flat, own_offset = storage_of(a)
    off = own_offset if storage_offset is None else int(storage_offset)
    shape = tuple(int(s) for s in size)
    strides = tuple(int(s) for s in stride)
    if len(shape) != len(strides) or any(s < 0 for s in shape) or any(s < 0 for s in strides) or off < 0:
        raise ValueError(f"as_strided: invalid size {list(shape)}, stride {list(strides)} or offset {off}")
    if all(shape):
        last = off + sum((n - 1) * st for n, st in zip(shape, strides))
        if last >= flat.size:
            raise ValueError(
                f"as_strided: size {list(shape)}, stride {list(strides)} and offset {off} reach element "
                f"{last} of a storage of {flat.size} elements"
            )
    return as_strided(flat[off:], shape, tuple(st * a.itemsize for st in strides))


@register("aten.unfold.default")
def unfold_kernel(self: np.ndarray, dimension: int, size: int, step: int) -> np.ndarray:
    """
    `Tensor.unfold`: windows of `size` every `step` along `dimension`, as a new
    last dim. A view of `self`, as torch's is: `as_strided` over the result
    then reads `self`'s storage, not a copy of the windows (overlapping windows
    would repeat elements).
    """
    a = np.asarray(self)
    if a.ndim == 0:
        if size > 1:
            raise ValueError(f"unfold: size {size} exceeds the size 1 of a 0-d tensor")
        return a.reshape(1)[: max(int(size), 0)]
    d = wrap_dim(dimension, a.ndim)
    n, size, step = a.shape[d], int(size), int(step)
    if step <= 0 or size < 0 or size > n:
        raise ValueError(f"unfold: size {size} and step {step} do not fit dimension {d} of size {n} (step must be positive)")
    count = (n - size) // step + 1
    shape = a.shape[:d] + (count,) + a.shape[d + 1 :] + (size,)
    strides = a.strides[:d] + (a.strides[d] * step,) + a.strides[d + 1 :] + (a.strides[d],)
    return as_strided(a, shape, strides, writeable=False)


def with_dim_order(value: np.ndarray, dim_order: Sequence[int] | None) -> np.ndarray:
    """
    `value` (its logical elements) laid out in memory in `dim_order`, outermost
    dim first, as a torch tensor of that dim order (channels-last: 0, 2, 3, 1) is:
    a permuted view of a contiguous buffer, so that `as_strided`, which reads
    the storage, sees torch's element order. An empty order is the identity.
    """
    order = list(dim_order) if dim_order else list(range(value.ndim))
    if order == list(range(value.ndim)):
        return value
    inverse = [order.index(i) for i in range(value.ndim)]
    return np.ascontiguousarray(np.transpose(value, order)).transpose(inverse)


@register("aten.repeat_interleave.Tensor")
def _repeat_interleave(repeats: np.ndarray, output_size: int | None = None) -> np.ndarray:
    r = np.asarray(repeats)
    if r.ndim > 1 or r.dtype.kind not in "iu":
        raise ValueError("repeat_interleave: repeats must be a 0-d or 1-d integer tensor")
    r = r.reshape(-1)
    if r.size and int(r.min()) < 0:
        raise ValueError("repeat_interleave: repeats cannot be negative")
    out = np.repeat(np.arange(r.size, dtype=np.int64), r)
    if output_size is not None and out.size != output_size:
        raise ValueError(f"repeat_interleave: output_size {output_size} differs from the total {out.size}")
    return out


@register("aten.repeat_interleave.self_Tensor")
def _repeat_interleave_self(
    self: np.ndarray, repeats: np.ndarray, dim: int | None = None, output_size: int | None = None
) -> np.ndarray:
    a = np.asarray(self)
    r = np.asarray(repeats).reshape(-1).astype(np.int64)
    if dim is None:
        a, d = a.reshape(-1), 0
    else:
        d = wrap_dim(dim, a.ndim)
    if r.size == 1:
        r = np.full(a.shape[d], int(r[0]), np.int64)
    out = np.repeat(a, r, axis=d)
    if output_size is not None and out.shape[d] != output_size:
        raise ValueError(f"repeat_interleave: output_size {output_size} differs from the total {out.shape[d]}")
    return out


@register("aten.meshgrid.default", "aten.meshgrid.indexing")
def _meshgrid(tensors: Sequence[np.ndarray], indexing: str = "ij") -> list[np.ndarray]:
    """Views of the 0-d or 1-d inputs expanded to the grid (`ij`: matrix order, `xy`: the first two swapped)."""
    if indexing not in ("ij", "xy"):
        raise ValueError(f"meshgrid: indexing must be 'ij' or 'xy', not {indexing!r}")
    arrays = [np.asarray(t) for t in tensors]
    if any(a.ndim > 1 for a in arrays):
        raise ValueError("meshgrid expects 0-d or 1-d tensors")
    if len({a.dtype for a in arrays}) > 1:
        raise ValueError("meshgrid expects all tensors to have the same dtype")
    return list(np.meshgrid(*[a.reshape(-1) for a in arrays], indexing=indexing, copy=False))


@register("aten.resize.default")
def resize_kernel(self: np.ndarray, size: Sequence[int], memory_format: object = None) -> np.ndarray:
    """A tensor of the new size holding self's leading elements, zeros after."""
    a = np.asarray(self).reshape(-1)
    shape = tuple(int(s) for s in size)
    out = np.zeros(int(np.prod(shape)), dtype=a.dtype)
    n = min(out.size, a.size)
    out[:n] = a[:n]
    return out.reshape(shape)


@register("aten.linalg_diagonal.default")
def _linalg_diagonal(A: np.ndarray, offset: int = 0, dim1: int = -2, dim2: int = -1) -> np.ndarray:
    return FUNCTIONAL["aten.diagonal.default"](A, offset, dim1, dim2)


def _pieces(a: np.ndarray, dim: int, sizes: Sequence[int]) -> list[np.ndarray]:
    d = wrap_dim(dim, a.ndim)
    out: list[np.ndarray] = []
    pos = 0
    for s in sizes:
        out.append(a[(slice(None),) * d + (slice(pos, pos + int(s)),)].copy())
        pos += int(s)
    if pos != a.shape[d]:
        raise ValueError(f"split sizes {list(sizes)} do not add up to the dimension's size {a.shape[d]}")
    return out


@register("aten.split_copy.Tensor")
def _split_copy(self: np.ndarray, split_size: int, dim: int = 0) -> list[np.ndarray]:
    a = np.asarray(self)
    n = a.shape[wrap_dim(dim, a.ndim)]
    if split_size < 0 or (split_size == 0 and n):
        raise ValueError(f"split_copy: split_size {split_size} cannot split a dimension of size {n}")
    sizes = [split_size] * (n // split_size) if split_size else []
    if not sizes or n % split_size:
        sizes.append(n % split_size if split_size else 0)
    return _pieces(a, dim, sizes)


@register("aten.split_with_sizes_copy.default")
def _split_with_sizes_copy(self: np.ndarray, split_sizes: Sequence[int], dim: int = 0) -> list[np.ndarray]:
    return _pieces(np.asarray(self), dim, split_sizes)


@register("aten.unbind_copy.int")
def _unbind_copy(self: np.ndarray, dim: int = 0) -> list[np.ndarray]:
    a = np.asarray(self)
    d = wrap_dim(dim, a.ndim)
    return [np.take(a, i, axis=d) for i in range(a.shape[d])]


@register("aten.broadcast_tensors.default")
def _broadcast_tensors(tensors: Sequence[np.ndarray]) -> list[np.ndarray]:
    return list(np.broadcast_arrays(*[np.asarray(t) for t in tensors]))


def _atleast(a: np.ndarray, least: int) -> np.ndarray:
    if a.ndim >= least:
        return a
    if a.ndim == 0:
        return a.reshape((1,) * least)
    if least == 2:
        return a[None]
    return a[None, :, None] if a.ndim == 1 else a[..., None]


@register("aten.atleast_1d.Sequence")
def _atleast_1d(tensors: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [_atleast(np.asarray(t), 1) for t in tensors]


@register("aten.atleast_2d.Sequence")
def _atleast_2d(tensors: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [_atleast(np.asarray(t), 2) for t in tensors]


@register("aten.atleast_3d.Sequence")
def _atleast_3d(tensors: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [_atleast(np.asarray(t), 3) for t in tensors]
