"""
Functional scatters torch keeps in core IR: `diagonal_scatter`, `as_strided_scatter` (of a
contiguous tensor's storage, as a program input's is), `put` (flat indices, negative ones
wrapped, `accumulate` adding repeats) and `embedding_renorm` (rows the indices name scaled to
`max_norm` where their norm exceeds it, by max_norm / (norm + 1e-7) as torch's kernel).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xdsl_exir.semantics.kernels.registry import register, wrap_dim

__all__: list[str] = []


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
    a = np.array(self, copy=True, order="C")
    flat = a.reshape(-1)
    offset = int(storage_offset or 0)
    size_t, stride_t = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    last = offset + sum((n - 1) * st for n, st in zip(size_t, stride_t) if n > 0)
    if any(n == 0 for n in size_t):
        return a
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
    return a


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
