"""
Kernels of the long tail that torch-mlir's e2e programs use and no
decomposition covers yet (issue 21's list, most frequent first): order
statistics, counting and bucketing, repetition, grids, renormalization,
strided factories, int8 matmul and 1-d adaptive max pooling. Each follows
torch's CPU kernel on dtypes and edge values (NaN is the largest value for
`kthvalue`; `bincount`'s weights give float64 unless they are float32 or
float64).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xdsl_exir.semantics.kernels.conv_pool import adaptive_max_pool2d_kernel
from xdsl_exir.semantics.kernels.dtypes import F32, compute_dtype, finish, numpy_dtype_or_none
from xdsl_exir.semantics.kernels.registry import register, wrap_dim

__all__: list[str] = []

_F64 = np.dtype(np.float64)


@register("aten.kthvalue.default")
def _kthvalue(self: np.ndarray, k: int, dim: int = -1, keepdim: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The k-th smallest along `dim` and its index; NaN sorts last, as in torch's CPU kernel."""
    a = np.asarray(self)
    d = wrap_dim(dim, a.ndim) if a.ndim else 0
    work = a.reshape(1) if a.ndim == 0 else a
    n = work.shape[d]
    if not 1 <= k <= n:
        raise ValueError(f"kthvalue: k ({k}) out of range for a dimension of size {n}")
    order = np.argsort(work, axis=d, kind="stable")
    idx = np.take(order, [k - 1], axis=d)
    values = np.take_along_axis(work, idx, axis=d)
    if not keepdim or a.ndim == 0:
        values, idx = np.squeeze(values, axis=d), np.squeeze(idx, axis=d)
    return values.astype(a.dtype, copy=False), idx.astype(np.int64, copy=False)


@register("aten.bincount.default")
def _bincount(self: np.ndarray, weights: np.ndarray | None = None, minlength: int = 0) -> np.ndarray:
    a = np.asarray(self)
    if a.ndim != 1 or a.dtype.kind not in "iu" or (a.size and int(a.min()) < 0):
        raise ValueError("bincount only supports 1-d non-negative integral inputs (as torch)")
    if minlength < 0:
        raise ValueError("bincount: minlength must be non-negative")
    if weights is None:
        return np.bincount(a, minlength=int(minlength)).astype(np.int64)
    w = np.asarray(weights)
    if w.shape != a.shape:
        raise ValueError("bincount: weights must have the input's shape")
    out_dt = w.dtype if w.dtype in (F32, _F64) else _F64
    return np.bincount(a, weights=w.astype(_F64), minlength=int(minlength)).astype(out_dt)


@register("aten.bucketize.Tensor", "aten.bucketize.Scalar")
def _bucketize(self: object, boundaries: np.ndarray, out_int32: bool = False, right: bool = False) -> np.ndarray:
    """Index of each value's bucket in the sorted 1-d `boundaries`; NaN goes past the last."""
    b = np.asarray(boundaries)
    if b.ndim != 1:
        raise ValueError("bucketize: boundaries must be 1-d")
    x = np.asarray(self)
    common = np.promote_types(x.dtype, b.dtype)
    res = np.searchsorted(b.astype(common), x.astype(common), side="right" if right else "left")
    return np.asarray(res).astype(np.int32 if out_int32 else np.int64)


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


@register("aten.renorm.default")
def _renorm(self: np.ndarray, p: float, dim: int, maxnorm: float) -> np.ndarray:
    """Each slice along `dim` whose p-norm exceeds `maxnorm` scaled to `maxnorm` (torch's 1e-7 guard included)."""
    a = np.asarray(self)
    if a.dtype.kind not in "fc":
        raise ValueError("renorm: expected a floating point tensor")
    if p <= 0 or maxnorm < 0:
        raise ValueError("renorm: p must be positive and maxnorm non-negative")
    c = a.astype(compute_dtype(a.dtype), copy=False)
    d = wrap_dim(dim, a.ndim) if a.ndim else 0
    axes = tuple(i for i in range(a.ndim) if i != d)
    mag = np.abs(c)
    norms = np.max(mag, axis=axes, keepdims=True) if p == np.inf else np.sum(mag**p, axis=axes, keepdims=True) ** (1.0 / p)
    # torch rounds the norm and the factor to the tensor's dtype, each a tensor of its own
    norms = finish(norms, a.dtype).astype(c.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = finish(np.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0), a.dtype).astype(c.dtype)
    return finish(c * factor, a.dtype)


@register("aten.new_empty_strided.default")
def _new_empty_strided(
    self: np.ndarray,
    size: Sequence[int],
    stride: Sequence[int],
    dtype: object = None,
    layout: object = None,
    device: object = None,
    pin_memory: object = None,
) -> np.ndarray:
    """Uninitialized in torch: zeros here, of `self`'s dtype unless one is given (the strides do not change values)."""
    if len(size) != len(stride) or any(int(s) < 0 for s in size):
        raise ValueError(f"new_empty_strided: invalid size {list(size)} or stride {list(stride)}")
    dt = numpy_dtype_or_none(dtype) or np.asarray(self).dtype
    return np.zeros(tuple(int(s) for s in size), dtype=dt)


@register("aten._int_mm.default")
def _int_mm(self: np.ndarray, mat2: np.ndarray) -> np.ndarray:
    """int8 x int8 -> int32 matrix product, accumulated exactly (int64, then wrapped to int32 as torch's)."""
    a, b = np.asarray(self), np.asarray(mat2)
    if a.dtype != np.int8 or b.dtype != np.int8 or a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ValueError("_int_mm expects two 2-d int8 matrices of matching inner size")
    return (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32)


@register("aten.adaptive_max_pool1d.default")
def _adaptive_max_pool1d(self: np.ndarray, output_size: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """The 2-d kernel over a unit height: torch's 1-d op is that view of the 2-d one."""
    a = np.asarray(self)
    if a.ndim not in (2, 3):
        raise ValueError("adaptive_max_pool1d expects a 2-d or 3-d input")
    values, indices = adaptive_max_pool2d_kernel(a[..., None, :], [1, int(output_size[0])])
    return values[..., 0, :], indices[..., 0, :]

