"""
Order statistics, searching, counting and the data-dependent set operators: `median`,
`nanmedian`, `mode`, `quantile`, `nanquantile`, `searchsorted`, `histc`, `equal`,
`allclose`, the `unique` family, `bincount` and `bucketize` (`_logcumsumexp` is
`logcumsumexp`'s kernel under torch's other name, in `reductions`).

Each follows torch's CPU kernel: `median` is the lower median and NaN wherever a NaN is
present (its index the first NaN's), `nanmedian` skips NaNs, `mode` is the smallest of the most
frequent values at its last position; `quantile` sorts (NaN last) and interpolates with
torch's `lerp`, in the input's dtype; the `unique` operators sort (NaNs stay distinct, as
torch's sort-based kernel compares them unequal). One choice is torch's own and not
reproduced: which of several equal values `median.dim` indexes (its selection algorithm's
order); the index returned here is one of the positions holding the median.
"""

from __future__ import annotations

import itertools

import numpy as np

from xdsl_exir.semantics.kernels.dtypes import F32
from xdsl_exir.semantics.kernels.registry import register, wrap_dim
from xdsl_exir.utils.aten_enums import require_enum

__all__: list[str] = []


def _rows(a: np.ndarray, dim: int) -> tuple[np.ndarray, int]:
    """`a` with `dim` moved last (a 0-d tensor is one row of one element), and that dim."""
    if a.ndim == 0:
        return a.reshape(1), 0
    d = wrap_dim(dim, a.ndim)
    return np.moveaxis(a, d, -1), d


def _back(values: np.ndarray, a: np.ndarray, d: int, keepdim: bool) -> np.ndarray:
    """A per-row result put back where the reduced dim was."""
    if a.ndim == 0:
        return values.reshape(())
    return np.expand_dims(values, d) if keepdim else values


def _median_rows(rows: np.ndarray, skip_nan: bool) -> tuple[np.ndarray, np.ndarray]:
    """(lower median, its index) of each row (the last axis)."""
    n = rows.shape[-1]
    if n == 0:
        raise ValueError("median(): cannot compute the median of an empty dimension")
    order = np.argsort(rows, axis=-1, kind="stable")  # NaN last
    isnan = np.isnan(rows) if rows.dtype.kind in "fc" else np.zeros(rows.shape, bool)
    count = n - isnan.sum(axis=-1) if skip_nan else np.full(rows.shape[:-1], n)
    k = np.where(count > 0, (count - 1) // 2, 0)
    idx = np.take_along_axis(order, k[..., None], axis=-1)[..., 0]
    if not skip_nan:
        has_nan = isnan.any(axis=-1)
        idx = np.where(has_nan, np.argmax(isnan, axis=-1), idx)  # NaN wins, at its first position
    else:
        idx = np.where(count > 0, idx, 0)
    values = np.take_along_axis(rows, idx[..., None], axis=-1)[..., 0]
    if skip_nan and rows.dtype.kind in "fc":
        values = np.where(count > 0, values, np.nan).astype(rows.dtype)
    return values, idx.astype(np.int64)


@register("aten.median.default")
def _median(self: np.ndarray) -> np.ndarray:
    a = np.asarray(self).reshape(-1)
    if a.size == 0:
        return np.asarray(np.nan, dtype=a.dtype) if a.dtype.kind == "f" else np.zeros((), a.dtype)
    return _median_rows(a, skip_nan=False)[0].reshape(())


@register("aten.nanmedian.default")
def _nanmedian(self: np.ndarray) -> np.ndarray:
    a = np.asarray(self).reshape(-1)
    if a.size == 0:
        return np.asarray(np.nan, dtype=a.dtype) if a.dtype.kind == "f" else np.zeros((), a.dtype)
    return _median_rows(a, skip_nan=True)[0].reshape(())


def _median_dim(self: np.ndarray, dim: int, keepdim: bool, skip_nan: bool) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(self)
    rows, d = _rows(a, dim)
    values, idx = _median_rows(rows, skip_nan)
    return _back(values, a, d, keepdim), _back(idx, a, d, keepdim)


@register("aten.median.dim")
def _median_dim_kernel(self: np.ndarray, dim: int, keepdim: bool = False) -> tuple[np.ndarray, np.ndarray]:
    return _median_dim(self, dim, keepdim, skip_nan=False)


@register("aten.nanmedian.dim")
def _nanmedian_dim_kernel(self: np.ndarray, dim: int, keepdim: bool = False) -> tuple[np.ndarray, np.ndarray]:
    return _median_dim(self, dim, keepdim, skip_nan=True)


@register("aten.mode.default")
def _mode(self: np.ndarray, dim: int = -1, keepdim: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The most frequent value of each row (the smallest of equally frequent ones) and the last
    position holding it; NaNs compare unequal, so each counts once."""
    a = np.asarray(self)
    rows, d = _rows(a, dim)
    n = rows.shape[-1]
    if n == 0:
        raise ValueError("mode(): cannot compute the mode of an empty dimension")
    flat = rows.reshape(-1, n)
    values = np.empty(flat.shape[0], a.dtype)
    idx = np.empty(flat.shape[0], np.int64)
    for r, row in enumerate(flat):
        order = np.argsort(row, kind="stable")
        s = row[order]
        same = np.concatenate([[False], s[1:] == s[:-1]])
        starts = np.flatnonzero(~same)
        lengths = np.diff(np.append(starts, n))
        k = int(np.argmax(lengths))  # the first longest run: the smallest value
        last = starts[k] + int(lengths[k]) - 1  # torch reports the run's last element (in input order)
        values[r] = s[last]
        idx[r] = int(order[last])
    shape = rows.shape[:-1]
    return _back(values.reshape(shape), a, d, keepdim), _back(idx.reshape(shape), a, d, keepdim)


# ---------------------------------------------------------------------------
# quantiles
# ---------------------------------------------------------------------------


def _lerp(start: np.ndarray, end: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """torch's `lerp`: from the nearer end, so that weight 1 gives `end` exactly."""
    diff = end - start
    return np.where(np.abs(weight) < 0.5, start + weight * diff, end - diff * (1 - weight))


def _quantile(self: np.ndarray, q: object, dim: int | None, keepdim: bool, interpolation: str, skip_nan: bool,
              name: str) -> np.ndarray:
    a = np.asarray(self)
    if a.dtype.kind != "f":
        raise ValueError(f"{name}() input tensor must be either float or double dtype")
    qa = np.asarray(q, dtype=a.dtype)
    if qa.ndim > 1:
        raise ValueError(f"{name}() q must be a scalar or 1D tensor")
    if qa.size and (np.any(qa < 0) or np.any(qa > 1) or np.any(np.isnan(qa))):
        raise ValueError(f"{name}() q values must be in the range [0, 1]")
    require_enum(f"aten.{name}", "interpolation", interpolation)
    if dim is None:
        rows = a.reshape(-1)
        out_shape: list[int] = [1] * a.ndim if keepdim else []
    else:
        rows, d = _rows(a, dim)
        out_shape = list(a.shape)
        if a.ndim:
            if keepdim:
                out_shape[d] = 1
            else:
                del out_shape[d]
    n = rows.shape[-1]
    if n == 0:
        raise ValueError(f"{name}() input tensor must be non-empty")
    s = np.sort(rows, axis=-1)  # NaN last
    nans = np.isnan(rows).sum(axis=-1)
    dt = a.dtype.type
    qs = qa.reshape(-1)
    if skip_nan:
        last = (n - nans - 1).astype(a.dtype)
        ranks = qs[:, None] * last[None]
        ranks = np.where(last[None] >= 0, ranks, dt(n - 1))  # all NaN: the last (a NaN)
    else:
        ranks = qs[:, None] * dt(n - 1) * np.ones(rows.shape[:-1], a.dtype).reshape(1, -1)
        ranks = np.where(nans.reshape(1, -1) > 0, dt(n - 1), ranks)  # any NaN: the last (a NaN)
    ranks = ranks.astype(a.dtype)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)  # half to even, as torch's round
    flat = s.reshape(-1, n)
    below = np.floor(ranks).astype(np.int64)
    lo = np.take_along_axis(flat, below.T, axis=-1).T
    if interpolation in ("linear", "midpoint"):
        above = np.ceil(ranks).astype(np.int64)
        hi = np.take_along_axis(flat, above.T, axis=-1).T
        weight = np.full_like(ranks, 0.5) if interpolation == "midpoint" else (ranks - below).astype(a.dtype)
        res = _lerp(lo, hi, weight).astype(a.dtype)
    else:
        res = lo
    res = res.reshape([qs.size, *out_shape]) if qa.ndim == 1 else res.reshape(out_shape)
    return res


@register("aten.quantile.default", "aten.quantile.scalar")
def _quantile_kernel(self: np.ndarray, q: object, dim: int | None = None, keepdim: bool = False,
                     interpolation: str = "linear") -> np.ndarray:
    return _quantile(self, q, dim, keepdim, interpolation, False, "quantile")


@register("aten.nanquantile.default", "aten.nanquantile.scalar")
def _nanquantile_kernel(self: np.ndarray, q: object, dim: int | None = None, keepdim: bool = False,
                        interpolation: str = "linear") -> np.ndarray:
    return _quantile(self, q, dim, keepdim, interpolation, True, "nanquantile")


# ---------------------------------------------------------------------------
# searching and counting
# ---------------------------------------------------------------------------


def _bound(seq: np.ndarray, vals: np.ndarray, right: bool) -> np.ndarray:
    """Binary search of each row of `vals` in the matching row of `seq` (rows: the leading dims),
    with torch's tests: left moves on while not `seq[mid] >= v`, right while not `seq[mid] > v`
    (so a NaN sorts after everything, infinities included)."""
    n = seq.shape[-1]
    start = np.zeros(vals.shape, np.int64)
    end = np.full(vals.shape, n, np.int64)
    while True:
        active = start < end
        if not active.any():
            return start
        mid = (start + end) >> 1
        mv = np.take_along_axis(seq, np.minimum(mid, max(n - 1, 0)), axis=-1)
        with np.errstate(invalid="ignore"):
            go_right = ~(mv > vals) if right else ~(mv >= vals)
        start = np.where(active & go_right, mid + 1, start)
        end = np.where(active & ~go_right, mid, end)


@register("aten.searchsorted.Tensor", "aten.searchsorted.Scalar")
def _searchsorted(sorted_sequence: np.ndarray, self: object, out_int32: bool = False, right: bool = False,
                  side: str | None = None, sorter: np.ndarray | None = None) -> np.ndarray:
    """The insertion index of each value in its row of `sorted_sequence` (a 1-d sequence serves
    every value); `side="right"` or `right` puts it after equal elements."""
    seq = np.asarray(sorted_sequence)
    require_enum("aten.searchsorted", "side", side)
    if side == "left" and right:
        raise ValueError("searchsorted: side and right cannot disagree")
    on_right = right or side == "right"
    vals = np.asarray(self)
    if sorter is not None:
        seq = np.take_along_axis(seq, np.asarray(sorter).astype(np.int64), axis=-1)
    out_dt = np.int32 if out_int32 else np.int64
    if seq.ndim <= 1:
        flat = vals.reshape(1, -1)
        return _bound(seq.reshape(1, -1), flat, on_right).reshape(vals.shape).astype(out_dt)
    if vals.ndim == 0 or seq.shape[:-1] != vals.shape[:-1]:
        raise ValueError("searchsorted: boundaries and input must have the same leading dimensions")
    rows_seq = seq.reshape(-1, seq.shape[-1])
    rows_val = vals.reshape(-1, vals.shape[-1])
    return _bound(rows_seq, rows_val, on_right).reshape(vals.shape).astype(out_dt)


@register("aten.histc.default")
def _histc(self: np.ndarray, bins: int = 100, min: object = 0, max: object = 0) -> np.ndarray:
    """`bins` equal bins over [min, max] (the data's range when both are 0), elements outside
    left out, the maximum in the last bin; computed in the input's dtype as torch does."""
    a = np.asarray(self)
    if a.dtype.kind != "f":
        raise ValueError(f"histc: \"histogram_cpu\" not implemented for {a.dtype}")
    if bins <= 0:
        raise ValueError("histc: bins must be > 0")
    dt = a.dtype.type
    lo, hi = dt(float(min)), dt(float(max))  # pyright: ignore[reportArgumentType] - a Scalar argument, a number once bound
    if lo == hi and a.size:
        lo, hi = dt(np.min(a)), dt(np.max(a))
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise ValueError(f"histc: range of [{lo}, {hi}] is not finite")
    if lo > hi:
        raise ValueError("histc: max must be larger than min")
    flat = a.reshape(-1)
    keep = (flat >= lo) & (flat <= hi)
    v = flat[keep]
    pos = ((v - lo) / (hi - lo) * dt(bins)).astype(np.int64)
    pos = np.where(pos == bins, bins - 1, pos)
    return np.bincount(pos, minlength=bins)[:bins].astype(a.dtype)


@register("aten.equal.default")
def _equal(self: np.ndarray, other: np.ndarray) -> bool:
    a, b = np.asarray(self), np.asarray(other)
    return a.shape == b.shape and bool(np.all(a == b))


@register("aten.allclose.default")
def _allclose(self: np.ndarray, other: np.ndarray, rtol: float = 1e-05, atol: float = 1e-08,
              equal_nan: bool = False) -> bool:
    """torch.isclose everywhere: equal values (infinities included), or finite ones within
    atol + rtol |other|."""
    a, b = np.asarray(self), np.asarray(other)
    if a.dtype != b.dtype:
        raise ValueError(f"allclose: {a.dtype} and {b.dtype} differ; torch needs one dtype")
    if a.dtype.kind == "b":
        return bool(np.all(np.broadcast_to(a == b, np.broadcast_shapes(a.shape, b.shape))))
    x, y = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(all="ignore"):
        close = (x == y) | (np.isfinite(x) & np.isfinite(y) & (np.abs(x - y) <= atol + rtol * np.abs(y)))
    if equal_nan:
        close |= np.isnan(x) & np.isnan(y)
    return bool(np.all(close))


# ---------------------------------------------------------------------------
# unique
# ---------------------------------------------------------------------------


def _unique_flat(a: np.ndarray, consecutive: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(values, inverse, counts) of the flattened `a`: sorted distinct values, or runs of equal
    neighbours; NaNs compare unequal."""
    flat = a.reshape(-1)
    if flat.size == 0:
        return flat.copy(), np.zeros(a.shape, np.int64), np.zeros(0, np.int64)
    if consecutive:
        order = np.arange(flat.size)
        s = flat
    else:
        order = np.argsort(flat, kind="stable")
        s = flat[order]
    new = np.concatenate([[True], ~(s[1:] == s[:-1])])
    group = np.cumsum(new) - 1
    inverse = np.empty(flat.size, np.int64)
    inverse[order] = group
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, flat.size))
    return s[starts], inverse.reshape(a.shape), counts.astype(np.int64)


def _unique_dim(a: np.ndarray, dim: int, consecutive: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unique slices along `dim`, sorted lexicographically (or runs of equal neighbours)."""
    d = wrap_dim(dim, a.ndim)
    moved = np.moveaxis(a, d, 0)
    n = moved.shape[0]
    rows = moved.reshape(n, -1)
    if consecutive:
        order = np.arange(n)
    else:
        order = np.lexsort(rows.T[::-1]) if rows.shape[1] else np.arange(n)
    s = rows[order]
    new = np.ones(n, bool)
    if n > 1:
        new[1:] = ~np.all(s[1:] == s[:-1], axis=1)
    group = np.cumsum(new) - 1
    inverse = np.empty(n, np.int64)
    inverse[order] = group
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, n)).astype(np.int64)
    values = np.moveaxis(moved[order[starts]], 0, d)
    return values, inverse, counts


_EMPTY = np.zeros(0, np.int64)


@register("aten._unique2.default")
def _unique2(self: np.ndarray, sorted: bool = True, return_inverse: bool = False,
             return_counts: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    values, inverse, counts = _unique_flat(np.asarray(self), consecutive=False)
    return values, inverse if return_inverse else _EMPTY.copy(), counts if return_counts else _EMPTY.copy()


@register("aten._unique.default")
def _unique(self: np.ndarray, sorted: bool = True, return_inverse: bool = False) -> tuple[np.ndarray, np.ndarray]:
    values, inverse, _ = _unique_flat(np.asarray(self), consecutive=False)
    return values, inverse if return_inverse else _EMPTY.copy()


@register("aten.unique_consecutive.default")
def _unique_consecutive(self: np.ndarray, return_inverse: bool = False, return_counts: bool = False,
                        dim: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = np.asarray(self)
    values, inverse, counts = _unique_flat(a, True) if dim is None else _unique_dim(a, dim, True)
    return values, inverse if return_inverse else _EMPTY.copy(), counts if return_counts else _EMPTY.copy()


@register("aten.unique_dim.default")
def _unique_dim_kernel(self: np.ndarray, dim: int, sorted: bool = True, return_inverse: bool = False,
                       return_counts: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    values, inverse, counts = _unique_dim(np.asarray(self), dim, False)
    return values, inverse if return_inverse else _EMPTY.copy(), counts if return_counts else _EMPTY.copy()


@register("aten.unique_dim_consecutive.default")
def _unique_dim_consecutive(self: np.ndarray, dim: int, return_inverse: bool = False,
                            return_counts: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    values, inverse, counts = _unique_dim(np.asarray(self), dim, True)
    return values, inverse if return_inverse else _EMPTY.copy(), counts if return_counts else _EMPTY.copy()


@register("aten.combinations.default")
def _combinations(self: np.ndarray, r: int = 2, with_replacement: bool = False) -> np.ndarray:
    """The r-element combinations of a 1-d tensor's elements, in lexicographic order of position
    (the decomposition covers pairs; this serves every r the interpreter meets)."""
    a = np.asarray(self)
    if a.ndim != 1:
        raise ValueError(f"combinations: expect a 1D vector, but got shape {list(a.shape)}")
    if r < 0:
        raise ValueError(f"combinations: r must be non-negative, got {r}")
    if r == 0:
        return np.zeros(0, a.dtype)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(pick(range(a.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return a[idx]


_F64 = np.dtype(np.float64)


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
