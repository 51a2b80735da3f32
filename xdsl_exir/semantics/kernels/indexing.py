"""Indexing kernels: advanced indexing and ``index_put``, gather/scatter and their
reductions, ``*_scatter`` of views, masked ops, ``nonzero``/``nonzero_static``/``where(cond)`` and embeddings.

Advanced indices become numpy index tuples the way torch's ``index`` reads them
(``None`` for a dimension taken whole), so both agree on the result's layout.

Functional scatters torch keeps in core IR: `diagonal_scatter`, `as_strided_scatter` (of
`self`'s storage, a view's included), `put` (flat indices, negative ones
wrapped, `accumulate` adding repeats) and `embedding_renorm` (rows the indices name scaled to
`max_norm` where their norm exceeds it, by max_norm / (norm + 1e-7) as torch's kernel).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from xdsl_exir.semantics.kernels.core import storage_of
from xdsl_exir.semantics.kernels.dtypes import (
    BOOL,
    F16,
    F32,
    cast_to,
    compute_dtype,
    finish,
)
from xdsl_exir.semantics.kernels.registry import FUNCTIONAL, register, wrap_dim
from xdsl_exir.utils.aten_enums import require_enum


def _index_tuple(indices: Sequence[np.ndarray | None]) -> tuple[np.ndarray | slice, ...]:
    """torch's index list: None is a full slice, uint8 masks are bool masks."""
    out: list[np.ndarray | slice] = []
    for i in indices:
        if i is None:
            out.append(slice(None))
            continue
        arr = np.asarray(i)
        if arr.dtype == np.uint8:
            arr = arr.astype(bool)
        out.append(arr if arr.dtype == BOOL else arr.astype(np.intp))
    return tuple(out)


def _check_index_tuple(op: str, shape: tuple[int, ...], idx: tuple[np.ndarray | slice, ...]) -> None:
    """
    Refuse an integer index outside [-size, size) of its dimension, in torch's terms (numpy
    says "axis"); a negative one counts from the end, as in torch. A mask takes as many
    dimensions as it has.
    """
    d = 0
    for i in idx:
        if isinstance(i, np.ndarray) and i.dtype != BOOL:
            n = shape[d] if d < len(shape) else 0
            if i.size and d < len(shape):
                low, high = int(i.min()), int(i.max())
                if low < -n or high >= n:
                    raise IndexError(f"{op}: index {low if low < -n else high} is out of range for dimension {d} of size {n}")
            d += 1
        else:
            d += i.ndim if isinstance(i, np.ndarray) else 1


@register("aten.index.Tensor", "aten.index.Tensor_hacked_twin")
def _index(self: np.ndarray, indices: Sequence[np.ndarray | None]) -> np.ndarray:
    a = np.asarray(self)
    idx = _index_tuple(indices)
    _check_index_tuple("index", a.shape, idx)
    return np.array(a[idx], copy=True)


@register("aten.index_put.default", "aten.index_put.hacked_twin")
def index_put_kernel(self: np.ndarray, indices: Sequence[np.ndarray | None], values: np.ndarray, accumulate: bool = False) -> np.ndarray:
    out = np.array(self, copy=True)
    idx = _index_tuple(indices)
    _check_index_tuple("index_put", out.shape, idx)
    vals = np.asarray(values).astype(out.dtype)
    if accumulate:
        expanded: list[np.ndarray | slice] = []
        for i in idx:
            if isinstance(i, np.ndarray) and i.dtype == BOOL:
                expanded.extend(np.nonzero(i))
            else:
                expanded.append(i)
        target_shape = out[tuple(expanded)].shape
        np.add.at(out, tuple(expanded), np.broadcast_to(vals, target_shape))  # pyright: ignore[reportArgumentType] - numpy's stub for ufunc.at omits the tuple of index arrays its documentation allows
    else:
        out[idx] = vals
    return out


def check_index_range(op: str, index: np.ndarray, size: int, dim: int = 0) -> None:
    """
    Refuse an index outside [0, size), as torch's gather, scatter, index_select and
    embedding do: numpy would take a negative index from the end, a silent wrong
    answer, and say a too-large one in its own words.
    """
    if index.size == 0:
        return
    low, high = int(index.min()), int(index.max())
    if low < 0 or high >= size:
        bad = low if low < 0 else high
        raise IndexError(f"{op}: index {bad} is out of range for dimension {dim} of size {size}")


@register("aten.index_select.default")
def _index_select(self: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    a = np.asarray(self)
    idx = np.asarray(index).reshape(-1).astype(np.intp)
    if a.ndim == 0:
        check_index_range("index_select", idx, 1)
        return a.reshape(1)[idx].reshape(())  # torch: 0-d, from an index of one element (of any rank)
    d = wrap_dim(dim, a.ndim)
    check_index_range("index_select", idx, a.shape[d], d)
    return np.take(a, idx, axis=d)


def _scatter_index(index: np.ndarray, dim: int, shape: tuple[int, ...], op: str) -> tuple[np.ndarray, ...]:
    """
    The numpy index of gather's and scatter's `index` along `dim`, checked as torch
    checks it: as many dims as `self`, no larger than `self` outside `dim` (numpy would
    read past the end or take fewer dims), values in range.
    """
    idx = np.asarray(index).astype(np.intp)
    if idx.ndim != len(shape) or any(i > n for d, (i, n) in enumerate(zip(idx.shape, shape)) if d != dim):
        raise ValueError(
            f"{op}: an index of sizes {list(idx.shape)} for a tensor of sizes {list(shape)}: it must have as many "
            f"dims and be no larger outside dimension {dim}"
        )
    check_index_range(op, idx, shape[dim], dim)
    grids: list[np.ndarray] = list(np.indices(idx.shape, sparse=True))
    grids[dim] = idx
    return tuple(grids)


@register("aten.gather.default")
def _gather(self: np.ndarray, dim: int, index: np.ndarray, sparse_grad: bool = False) -> np.ndarray:
    a = np.asarray(self)
    if a.ndim == 0:
        check_index_range("gather", np.asarray(index), 1)
        return a.reshape(np.shape(index)).copy()
    d = wrap_dim(dim, a.ndim)
    return a[_scatter_index(index, d, a.shape, "gather")]


def _src_for(src: object, index: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    s = np.asarray(src).astype(dtype)
    if s.ndim == 0:
        return np.broadcast_to(s, np.shape(index))
    shape = np.shape(index)
    if s.ndim != len(shape) or any(i > n for i, n in zip(shape, s.shape)):  # numpy would broadcast a smaller src
        raise ValueError(f"scatter: an index of sizes {list(shape)} for a src of sizes {list(s.shape)}: it must have "
                         "as many dims and be no larger")
    return s[tuple(slice(0, n) for n in np.shape(index))]


_SCATTER_UFUNC: dict[str, np.ufunc] = {
    "add": np.add, "sum": np.add, "multiply": np.multiply, "prod": np.multiply,
    "amax": np.maximum, "amin": np.minimum,
}


@register("aten.scatter.src", "aten.scatter.value", "aten.scatter.reduce", "aten.scatter.value_reduce")
def _scatter(self: np.ndarray, dim: int, index: np.ndarray, src: object = None, value: object = None, reduce: str | None = None) -> np.ndarray:
    out = np.array(self, copy=True)
    if out.ndim == 0:
        out = out.reshape(1)
    d = wrap_dim(dim, out.ndim)
    s = _src_for(src if src is not None else value, index, out.dtype)
    idx = _scatter_index(index, d, out.shape, "scatter")
    if reduce is None:
        out[idx] = s
    else:
        require_enum("aten.scatter", "reduce", reduce)
        _SCATTER_UFUNC[reduce].at(out, idx, s)
    return out.reshape(np.shape(self))


@register("aten.scatter_add.default")
def _scatter_add(self: np.ndarray, dim: int, index: np.ndarray, src: np.ndarray) -> np.ndarray:
    return _scatter(self, dim, index, src, reduce="add")


@register("aten.scatter_reduce.two")
def _scatter_reduce(self: np.ndarray, dim: int, index: np.ndarray, src: np.ndarray, reduce: str, include_self: bool = True) -> np.ndarray:
    require_enum("aten.scatter_reduce", "reduce", reduce)
    out = np.array(self, copy=True)
    if reduce == "mean" and out.dtype == np.bool_:
        raise ValueError("scatter_reduce: reduce='mean' is not defined for a bool tensor (torch refuses it); "
                         "convert the tensor to a number type first")
    d = wrap_dim(dim, out.ndim)
    s = _src_for(src, index, out.dtype)
    idx = _scatter_index(index, d, out.shape if out.ndim else (1,), "scatter_reduce")
    if reduce == "mean":
        count = np.ones(out.shape, dtype=np.int64) if include_self else np.zeros(out.shape, dtype=np.int64)
        if not include_self:
            out[idx] = 0
        np.add.at(out, idx, s)
        np.add.at(count, idx, 1)
        count = np.maximum(count, 1)
        if out.dtype.kind in "iu":
            return np.floor_divide(out, count).astype(out.dtype)
        return (out / count).astype(out.dtype)
    if not include_self:
        if reduce in ("sum", "prod"):
            init: object = 0 if reduce == "sum" else 1
        elif out.dtype == np.bool_:
            init = reduce == "amin"  # the identities of or (amax) and and (amin)
        else:
            info = np.finfo(out.dtype) if out.dtype.kind == "f" else np.iinfo(out.dtype)
            init = (-np.inf if out.dtype.kind == "f" else info.min) if reduce == "amax" else (np.inf if out.dtype.kind == "f" else info.max)
        out[idx] = init
    _SCATTER_UFUNC[reduce].at(out, idx, s)
    return out


@register("aten.select_scatter.default")
def _select_scatter(self: np.ndarray, src: np.ndarray, dim: int, index: int) -> np.ndarray:
    out = np.array(self, copy=True)
    FUNCTIONAL["aten.select.int"](out, dim, index)[...] = src
    return out


@register("aten.slice_scatter.default")
def _slice_scatter(self: np.ndarray, src: np.ndarray, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1) -> np.ndarray:
    out = np.array(self, copy=True)
    FUNCTIONAL["aten.slice.Tensor"](out, dim, start, end, step)[...] = src
    return out


@register("aten.masked_scatter.default")
def _masked_scatter(self: np.ndarray, mask: np.ndarray, source: np.ndarray) -> np.ndarray:
    m = np.broadcast_to(np.asarray(mask, dtype=bool), np.broadcast_shapes(np.shape(self), np.shape(mask)))
    out = np.array(np.broadcast_to(self, m.shape), copy=True)
    n = int(m.sum())
    out[m] = np.asarray(source).reshape(-1)[:n].astype(out.dtype)
    return out


@register("aten.masked_select.default")
def _masked_select(self: np.ndarray, mask: np.ndarray) -> np.ndarray:
    a, m = np.broadcast_arrays(np.asarray(self), np.asarray(mask, dtype=bool))
    return a[m].copy()


@register("aten.nonzero.default")
def _nonzero(self: np.ndarray) -> np.ndarray:
    return np.argwhere(np.asarray(self)).astype(np.int64)


@register("aten.embedding.default")
def _embedding(weight: np.ndarray, indices: np.ndarray, padding_idx: int = -1, **_: object) -> np.ndarray:
    w = np.asarray(weight)
    idx = np.asarray(indices).astype(np.intp)
    check_index_range("embedding", idx, w.shape[0])
    return w[idx]


@register("aten._embedding_bag.default")
def _embedding_bag(
    weight: np.ndarray, indices: np.ndarray, offsets: np.ndarray, scale_grad_by_freq: bool = False, mode: int = 0,
    sparse: bool = False, per_sample_weights: np.ndarray | None = None, include_last_offset: bool = False, padding_idx: int = -1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Bags as torch's 1-D indices + offsets form; returns (output, offset2bag, bag_size, max_indices).

    Only ``output`` is numerically meaningful to callers; the auxiliary
    results are what a backward pass needs (bag of each index, bag sizes,
    arg-max rows for mode=max).
    """
    w = np.asarray(weight)
    idx = np.asarray(indices).reshape(-1).astype(np.intp)
    check_index_range("embedding_bag", idx, w.shape[0])
    offs = np.asarray(offsets).reshape(-1).astype(np.intp)
    nbags = len(offs) - 1 if include_last_offset else len(offs)
    bag_of = np.searchsorted(offs, np.arange(idx.size), side="right") - 1
    if include_last_offset and (offs.size == 0 or int(offs[-1]) != idx.size):
        # torch's CPU results are inconsistent then (its sum path stops at the last offset, its
        # other paths count the rest into the last bag): refused rather than guessed
        raise ValueError(
            f"embedding_bag: with include_last_offset the last offset must be the number of indices ({idx.size}), "
            f"not {int(offs[-1]) if offs.size else 'missing'}"
        )
    valid = (idx != padding_idx) & (bag_of < nbags)
    rows = cast_to(w[idx], compute_dtype(w.dtype))
    if per_sample_weights is not None:
        rows = rows * np.asarray(per_sample_weights).reshape(-1, 1)
    sizes = np.bincount(bag_of[valid], minlength=nbags)[:nbags].astype(np.int64)
    if mode == 2:
        out = np.full((nbags, w.shape[1]), -np.inf, dtype=rows.dtype)
        np.maximum.at(out, bag_of[valid], rows[valid])
        out[sizes == 0] = 0
        # the first position holding each bag's maximum, reported as its weight row
        pos = np.full(out.shape, idx.size, dtype=np.int64)
        vpos = np.nonzero(valid)[0]
        hit = rows[vpos] == out[bag_of[vpos]]
        cand = np.where(hit, vpos[:, None], idx.size)
        np.minimum.at(pos, bag_of[vpos], cand)
        max_idx = np.where(pos < idx.size, np.append(idx, 0)[np.minimum(pos, idx.size)], 0).astype(np.int64)
    else:
        out = np.zeros((nbags, w.shape[1]), dtype=rows.dtype)
        np.add.at(out, bag_of[valid], rows[valid])
        if mode == 1:
            out = out / np.maximum(sizes, 1)[:, None]
        max_idx = sizes.copy() if mode == 1 else np.zeros(nbags, dtype=np.int64)
    # torch's CPU sum fast path (float/half weights, no padding_idx) skips offset2bag and bag_size
    if mode == 0:
        fast = padding_idx < 0 and w.dtype in (F32, F16)
        offset2bag = np.zeros(0, dtype=np.int64) if fast else bag_of.astype(np.int64)
        sizes = np.zeros(nbags, dtype=np.int64)
    else:
        offset2bag = bag_of.astype(np.int64)
    return finish(out, w.dtype), offset2bag, sizes, max_idx


@register("aten._embedding_bag_forward_only.default")
def _embedding_bag_forward_only(
    weight: np.ndarray, indices: np.ndarray, offsets: np.ndarray, scale_grad_by_freq: bool = False, mode: int = 0,
    sparse: bool = False, per_sample_weights: np.ndarray | None = None, include_last_offset: bool = False,
    padding_idx: int = -1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`_embedding_bag` without what only a backward pass reads: in sum mode with
    `include_last_offset`, torch sizes the (zero) bag sizes and max indices by the offsets."""
    out, offset2bag, sizes, max_idx = _embedding_bag(
        weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights, include_last_offset, padding_idx
    )
    if mode == 0 and include_last_offset:
        sizes = np.zeros(np.asarray(offsets).size, dtype=np.int64)
        max_idx = sizes.copy()
    return out, offset2bag, sizes, max_idx


@register("aten.embedding_bag.default", "aten.embedding_bag.padding_idx")
def _embedding_bag_public(
    weight: np.ndarray, indices: np.ndarray, offsets: np.ndarray, scale_grad_by_freq: bool = False, mode: int = 0,
    sparse: bool = False, per_sample_weights: np.ndarray | None = None, include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`torch.nn.functional.embedding_bag`'s operator: `_embedding_bag` with the public
    padding index (None for none; a negative one counts from the end of the weight's rows)."""
    return _embedding_bag_forward_only(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                                       include_last_offset, embedding_bag_padding(padding_idx, np.asarray(weight).shape[0]))


def embedding_bag_padding(padding_idx: int | None, num_weights: int) -> int:
    """The internal padding index of the public one: -1 for none, a negative one wrapped."""
    if padding_idx is None:
        return -1
    if not -num_weights <= padding_idx < num_weights:
        raise ValueError(f"embedding_bag: padding_idx {padding_idx} must be within the {num_weights} rows")
    return padding_idx % num_weights


@register("aten.where.default")
def _where_nonzero(condition: np.ndarray) -> list[np.ndarray]:
    """`torch.where(cond)`: the nonzero positions, one index tensor per dim; a 0-d tensor counts as
    one of one element (torch gives `[tensor([0])]` or an empty one)."""
    return [i.astype(np.int64) for i in np.nonzero(np.atleast_1d(np.asarray(condition)))]


@register("aten.nonzero_numpy.default")
def _nonzero_numpy(self: np.ndarray) -> list[np.ndarray]:
    """`nonzero(as_tuple=True)`, what torch.export records for it: `torch.where(self)`."""
    return _where_nonzero(self)


@register("aten.nonzero_static.default")
def _nonzero_static(self: np.ndarray, size: int, fill_value: int = -1) -> np.ndarray:
    """The first `size` rows of `nonzero`, padded with `fill_value`."""
    a = np.asarray(self)
    nz = np.argwhere(a)[:size] if a.ndim else np.argwhere(a.reshape(1))[:size, :0]
    out = np.full((size, a.ndim), fill_value, np.int64)
    out[: nz.shape[0]] = nz
    return out


@register("aten.diagonal_scatter.default")
def _diagonal_scatter(self: np.ndarray, src: np.ndarray, offset: int = 0, dim1: int = 0, dim2: int = 1) -> np.ndarray:
    a = np.array(self, copy=True)
    d1, d2 = wrap_dim(dim1, a.ndim), wrap_dim(dim2, a.ndim)
    view = np.moveaxis(a, (d1, d2), (-2, -1))  # a view: writes reach `a`
    rows, cols = view.shape[-2], view.shape[-1]
    n = max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))
    r = np.arange(n) + max(-offset, 0)
    c = np.arange(n) + max(offset, 0)
    s = np.asarray(src)
    if s.shape != view.shape[:-2] + (n,):
        raise ValueError(f"diagonal_scatter: src of shape {s.shape}, the diagonal has {view.shape[:-2] + (n,)}")
    view[..., r, c] = s.astype(a.dtype, copy=False)
    return a


@register("aten.as_strided_scatter.default")
def _as_strided_scatter(self: np.ndarray, src: np.ndarray, size: Sequence[int], stride: Sequence[int],
                        storage_offset: int | None = None) -> np.ndarray:
    """
    `self` copied, `src` written through `as_strided` of the copy. torch copies `self`'s
    whole storage and returns `self`'s view of the copy (its strides and storage offset
    kept), so the view's size, strides and offset address that storage, the offset
    defaulting to `self`'s own: a narrowed `self` sees positions outside its elements,
    which a write may reach without showing in the result. A `self` whose elements
    share a position (an expanded one) is copied alone instead, its dims in the order of
    their strides (numpy's 'K' order), offset 0.
    """
    a = np.asarray(self)
    if any(st == 0 and n > 1 for n, st in zip(a.shape, a.strides)):
        out = np.array(a, copy=True, order="K")
        flat, own = out.ravel(order="K"), 0
        if not np.shares_memory(flat, out):  # a layout numpy cannot keep dense
            out = np.array(a, copy=True, order="C")
            flat = out.reshape(-1)
    else:
        storage, own = storage_of(a)
        if np.shares_memory(storage, a):
            flat = storage.copy()
            out = np.lib.stride_tricks.as_strided(flat[own:], a.shape, a.strides, writeable=True)
        else:  # `a` is its own storage, copied row-major
            flat, out = storage, storage.reshape(a.shape)
    offset = own if storage_offset is None else int(storage_offset)
    size_t, stride_t = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    last = offset + sum((n - 1) * st for n, st in zip(size_t, stride_t) if n > 0)
    if any(n == 0 for n in size_t):
        return out
    if offset < 0 or last >= flat.size or any(st < 0 for st in stride_t):
        raise ValueError(f"as_strided_scatter: size {list(size_t)}, stride {list(stride_t)} and offset {offset} "
                         f"reach outside the {flat.size} elements of the storage")
    positions = offset + sum(np.arange(n).reshape([-1 if k == d else 1 for k in range(len(size_t))]) * st
                             for d, (n, st) in enumerate(zip(size_t, stride_t)))
    if np.unique(np.asarray(positions)).size != int(np.prod(size_t)):
        raise ValueError("as_strided_scatter: several elements of the view share one storage location (torch "
                         "refuses to write through it)")
    view = np.lib.stride_tricks.as_strided(flat[offset:], size_t, tuple(st * a.itemsize for st in stride_t),
                                           writeable=True)
    view[...] = np.asarray(src).astype(a.dtype, copy=False)
    return out


@register("aten.put.default")
def _put(self: np.ndarray, index: np.ndarray, source: np.ndarray, accumulate: bool = False) -> np.ndarray:
    a = np.array(self, copy=True)
    flat = a.reshape(-1)
    idx = np.asarray(index).reshape(-1).astype(np.int64)
    vals = np.asarray(source).reshape(-1).astype(a.dtype, copy=False)
    if idx.size != vals.size:
        raise ValueError(f"put: {idx.size} indices and {vals.size} source elements")
    if idx.size and (idx.min() < -flat.size or idx.max() >= flat.size):
        raise IndexError(f"put: index out of range for a tensor of {flat.size} elements")
    idx = np.where(idx < 0, idx + flat.size, idx)
    if accumulate:
        np.add.at(flat, idx, vals)
    else:
        flat[idx] = vals
    return a


@register("aten.embedding_renorm.default")
def _embedding_renorm(self: np.ndarray, indices: np.ndarray, max_norm: float, norm_type: float) -> np.ndarray:
    a = np.array(self, copy=True)
    rows = np.unique(np.asarray(indices).reshape(-1).astype(np.int64))
    if rows.size == 0:
        return a
    w = a[rows].astype(np.float64)
    if norm_type == np.inf:
        norms = np.abs(w).max(axis=1)
    elif norm_type == 0:
        norms = (w != 0).sum(axis=1).astype(np.float64)
    else:
        norms = (np.abs(w) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
    norms = norms.astype(a.dtype).astype(np.float64)
    scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(a.dtype)
    a[rows] = (a[rows] * scale[:, None]).astype(a.dtype)
    return a
