"""
Kernels of the list-valued operators whose decompositions replace the `getitem`s of their
list (`semantics/decompositions/splits.py`): when a program passes the list whole, or the
interpreter runs the operator on its own, these give the list. Each piece is what the rule
builds: a `_copy` form gives fresh arrays, `broadcast_tensors` read-only broadcast views
(torch's expand), `atleast_nd` the reshaped tensors.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xdsl_exir.semantics.kernels.registry import register, wrap_dim

__all__: list[str] = []


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
