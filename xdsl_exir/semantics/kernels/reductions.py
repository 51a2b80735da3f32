"""Reductions (sum, mean, extremes, var/std, cumulative ones), softmax and sorting.

Integer sums accumulate in int64 and floating ones in the opmath type, as torch's
CPU kernels do; :func:`softmax_impl` is shared with scaled dot-product attention.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from xdsl_exir.semantics.kernels.core import softmax_rows
from xdsl_exir.semantics.kernels.dtypes import (
    F32,
    I64,
    cast_to,
    compute_dtype,
    dtype_of,
    finish,
    floating_dtype,
    numpy_dtype,
    numpy_dtype_or_none,
)
from xdsl_exir.semantics.kernels.registry import Kernel, reduction_dims, register, wrap_dim


def _acc_input(a: np.ndarray, dtype: object, int_to: np.dtype[Any] | None) -> tuple[np.ndarray, np.dtype[Any]]:
    """Input cast for sum-like reductions and the result dtype."""
    want = numpy_dtype_or_none(dtype)
    if want is not None:
        return cast_to(a, compute_dtype(want)), want
    dt = a.dtype
    if int_to is not None and dt.kind in "biu":
        dt = int_to
    return cast_to(a, compute_dtype(dt)), dt


@register("aten.sum.default", "aten.sum.dim_IntList")
def _sum(self: np.ndarray, dim: object = None, keepdim: bool = False, dtype: object = None) -> np.ndarray:
    a, dt = _acc_input(np.asarray(self), dtype, I64)
    return finish(np.sum(a, axis=reduction_dims(dim, a.ndim), keepdims=keepdim), dt)


@register("aten.mean.default", "aten.mean.dim")
def _mean(self: np.ndarray, dim: object = None, keepdim: bool = False, dtype: object = None) -> np.ndarray:
    a, dt = _acc_input(np.asarray(self), dtype, None)
    if dt.kind not in "fc":
        raise TypeError("mean(): input dtype should be floating point")
    return finish(np.mean(a, axis=reduction_dims(dim, a.ndim), keepdims=keepdim), dt)


@register("aten.prod.default", "aten.prod.dim_int")
def _prod(self: np.ndarray, dim: object = None, keepdim: bool = False, dtype: object = None) -> np.ndarray:
    a, dt = _acc_input(np.asarray(self), dtype, I64)
    return finish(np.prod(a, axis=reduction_dims(dim, a.ndim), keepdims=keepdim), dt)


def _checked_extreme(fn: Callable[..., np.ndarray], name: str) -> Callable[..., np.ndarray]:
    def red(a: np.ndarray, axis: tuple[int, ...], keepdims: bool) -> np.ndarray:
        # Only a reduced dim of size 0 has no extreme: an empty tensor reduced over other dims
        # gives an empty result.
        empty = [d for d in axis if a.shape[d] == 0]
        if empty:
            raise ValueError(
                f"{name}: the reduced dimension {empty[0]} has size 0, and the {name} of no elements is not defined"
            )
        # numpy returns a scalar, not a 0-d array, when every dim is reduced
        return np.asarray(fn(a, axis=axis, keepdims=keepdims))

    return red


@register("aten.amax.default")
def _amax(self: np.ndarray, dim: object = (), keepdim: bool = False) -> np.ndarray:
    a = np.asarray(self)
    return _checked_extreme(np.max, "amax")(a, reduction_dims(dim, a.ndim), keepdim)


@register("aten.amin.default")
def _amin(self: np.ndarray, dim: object = (), keepdim: bool = False) -> np.ndarray:
    a = np.asarray(self)
    return _checked_extreme(np.min, "amin")(a, reduction_dims(dim, a.ndim), keepdim)


@register("aten.max.default")
def _max_all(self: np.ndarray) -> np.ndarray:
    a = np.asarray(self)
    if a.size == 0:
        raise ValueError("max: the tensor has no elements, so it has no maximum; give a dim (max.dim) to reduce")
    return np.asarray(np.max(a))


@register("aten.min.default")
def _min_all(self: np.ndarray) -> np.ndarray:
    a = np.asarray(self)
    if a.size == 0:
        raise ValueError("min: the tensor has no elements, so it has no minimum; give a dim (min.dim) to reduce")
    return np.asarray(np.min(a))


def _arg_extreme(a: np.ndarray, dim: int | None, keepdim: bool, largest: bool) -> np.ndarray:
    fn = np.argmax if largest else np.argmin
    if dim is None:
        idx = np.asarray(fn(a.reshape(-1))).astype(np.int64)
        return idx.reshape((1,) * a.ndim) if keepdim else idx
    if a.ndim == 0:
        return np.asarray(0, dtype=np.int64)
    d = wrap_dim(dim, a.ndim)
    return np.asarray(fn(a, axis=d, keepdims=keepdim)).astype(np.int64)


@register("aten.argmax.default")
def _argmax(self: np.ndarray, dim: int | None = None, keepdim: bool = False) -> np.ndarray:
    return _arg_extreme(np.asarray(self), dim, keepdim, True)


@register("aten.argmin.default")
def _argmin(self: np.ndarray, dim: int | None = None, keepdim: bool = False) -> np.ndarray:
    return _arg_extreme(np.asarray(self), dim, keepdim, False)


def _extreme_dim(self: np.ndarray, dim: int, keepdim: bool, largest: bool) -> tuple[np.ndarray, np.ndarray]:
    """`max.dim` / `min.dim`: the values at the indices `_arg_extreme` picks, so both agree on ties and NaN."""
    a = np.asarray(self)
    idx = _arg_extreme(a, dim, True, largest)
    vals = np.take_along_axis(a, idx, axis=wrap_dim(dim, a.ndim)) if a.ndim else a.copy()
    if not keepdim and a.ndim:
        d = wrap_dim(dim, a.ndim)
        return np.squeeze(vals, d), np.squeeze(idx, d)
    return vals, idx


@register("aten.max.dim")
def _max_dim(self: np.ndarray, dim: int, keepdim: bool = False) -> tuple[np.ndarray, np.ndarray]:
    return _extreme_dim(self, dim, keepdim, True)


@register("aten.min.dim")
def _min_dim(self: np.ndarray, dim: int, keepdim: bool = False) -> tuple[np.ndarray, np.ndarray]:
    return _extreme_dim(self, dim, keepdim, False)


def _bool_reduce(fn: Callable[..., Any]) -> Kernel:
    def kernel(self: np.ndarray, dim: object = None, keepdim: bool = False) -> np.ndarray:
        a = np.asarray(self)
        res = np.asarray(fn(a, axis=reduction_dims(dim, a.ndim), keepdims=keepdim))
        return res.astype(np.uint8) if a.dtype == np.uint8 else res

    return kernel


register("aten.any.default", "aten.any.dim", "aten.any.dims")(_bool_reduce(np.any))
register("aten.all.default", "aten.all.dim", "aten.all.dims")(_bool_reduce(np.all))


def _var_impl(
    a: np.ndarray, dim: object, correction: float, keepdim: bool, root: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """
    Variance (its square root with `root`) and mean, accumulated in double as
    torch's CPU kernel accumulates float32 (its `acc_type`) and rounded once:
    the sum of squares of values near 1e30 overflows float32, yet their standard
    deviation does not (torch gives a finite std beside an infinite var).
    """
    dt = dtype_of(a.dtype)
    if not (dt.is_floating_point or dt.is_complex):
        raise TypeError(f"var/std need a floating point or complex input, not {dt} (as torch); cast it first")
    c = cast_to(a, np.dtype(np.complex128 if dt.is_complex else np.float64))
    axes = reduction_dims(dim, a.ndim)
    n = int(np.prod([a.shape[d] for d in axes])) if axes else (1 if a.ndim == 0 else a.size)
    mean = np.mean(c, axis=axes, keepdims=True)
    sq = np.sum(np.abs(c - mean) ** 2, axis=axes, keepdims=keepdim)
    var = sq / max(0.0, n - correction) if n - correction > 0 else sq / 0.0
    if root:
        var = np.sqrt(var)
    m = mean if keepdim else np.squeeze(mean, axis=axes) if axes else mean.reshape(a.shape)
    return finish(var, numpy_dtype(dt.to_real())), finish(m, a.dtype)


def _correction(unbiased: bool | None, correction: object) -> float:
    if correction is not None:
        return float(correction)  # pyright: ignore[reportArgumentType] - a schema Scalar: an int or float once bound
    return 1.0 if unbiased is None or unbiased else 0.0


@register("aten.var.default", "aten.var.dim", "aten.var.correction")
def _var(
    self: np.ndarray, dim: object = None, unbiased: bool = True, keepdim: bool = False, correction: object = None
) -> np.ndarray:
    return _var_impl(np.asarray(self), dim, _correction(unbiased, correction), keepdim)[0]


@register("aten.std.default", "aten.std.dim", "aten.std.correction")
def _std(
    self: np.ndarray, dim: object = None, unbiased: bool = True, keepdim: bool = False, correction: object = None
) -> np.ndarray:
    return _var_impl(np.asarray(self), dim, _correction(unbiased, correction), keepdim, root=True)[0]


@register("aten.var_mean.default", "aten.var_mean.dim", "aten.var_mean.correction")
def _var_mean(
    self: np.ndarray, dim: object = None, unbiased: bool = True, keepdim: bool = False, correction: object = None
) -> tuple[np.ndarray, np.ndarray]:
    return _var_impl(np.asarray(self), dim, _correction(unbiased, correction), keepdim)


@register("aten.std_mean.default", "aten.std_mean.dim", "aten.std_mean.correction")
def _std_mean(
    self: np.ndarray, dim: object = None, unbiased: bool = True, keepdim: bool = False, correction: object = None
) -> tuple[np.ndarray, np.ndarray]:
    return _var_impl(np.asarray(self), dim, _correction(unbiased, correction), keepdim, root=True)


@register("aten.cumsum.default")
def _cumsum(self: np.ndarray, dim: int, dtype: object = None) -> np.ndarray:
    a, dt = _acc_input(np.asarray(self), dtype, I64)
    if a.ndim == 0:
        return finish(a, dt)
    return finish(np.cumsum(a, axis=wrap_dim(dim, a.ndim)), dt)


def softmax_impl(x: np.ndarray, dim: int, log: bool, dtype: np.dtype[Any] | None, safe: bool = False) -> np.ndarray:
    a = np.asarray(x)
    out_dt = dtype if dtype is not None else floating_dtype(a.dtype)
    c = cast_to(a, compute_dtype(out_dt))
    if c.ndim == 0:
        if safe and c == -np.inf:
            return finish(np.zeros_like(c), out_dt)
        return finish(np.zeros_like(c) if log else np.ones_like(c), out_dt)
    return finish(softmax_rows(c, wrap_dim(dim, c.ndim), log, safe), out_dt)


@register("aten.softmax.int")
def _softmax(self: np.ndarray, dim: int, dtype: object = None) -> np.ndarray:
    return softmax_impl(self, dim, False, numpy_dtype_or_none(dtype))


@register("aten.log_softmax.int")
def _log_softmax(self: np.ndarray, dim: int, dtype: object = None) -> np.ndarray:
    return softmax_impl(self, dim, True, numpy_dtype_or_none(dtype))


@register("aten._softmax.default")
def _softmax_h(self: np.ndarray, dim: int, half_to_float: bool) -> np.ndarray:
    return softmax_impl(self, dim, False, F32 if half_to_float else None)


@register("aten._safe_softmax.default")
def _safe_softmax(self: np.ndarray, dim: int, dtype: object = None) -> np.ndarray:
    return softmax_impl(self, dim, False, numpy_dtype_or_none(dtype), safe=True)


@register("aten._log_softmax.default")
def _log_softmax_h(self: np.ndarray, dim: int, half_to_float: bool) -> np.ndarray:
    return softmax_impl(self, dim, True, F32 if half_to_float else None)


# ---------------------------------------------------------------------------
# sorting
# ---------------------------------------------------------------------------


def _sort_impl(a: np.ndarray, dim: int, descending: bool) -> tuple[np.ndarray, np.ndarray]:
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    d = wrap_dim(dim, a.ndim)
    if descending:
        n = a.shape[d]
        idx = n - 1 - np.flip(np.argsort(np.flip(a, d), axis=d, kind="stable"), d)
    else:
        idx = np.argsort(a, axis=d, kind="stable")
    return np.take_along_axis(a, idx, d), idx.astype(np.int64)


@register("aten.sort.default", "aten.sort.stable")
def _sort(self: np.ndarray, dim: int = -1, descending: bool = False, stable: bool | None = None) -> tuple[np.ndarray, np.ndarray]:
    return _sort_impl(np.asarray(self), dim, descending)


@register("aten.topk.default")
def _topk(self: np.ndarray, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(self)
    vals, idx = _sort_impl(a, dim, largest)
    if a.ndim == 0:
        return vals, idx
    d = wrap_dim(dim, a.ndim)
    sl = (slice(None),) * d + (slice(0, k),)
    return vals[sl].copy(), idx[sl].copy()


@register("aten.sort.Tensor")
def _sort_list(self: list[np.ndarray], reverse: bool = False) -> None:
    """Sorts a list of one-element tensors in place, as TorchScript's list.sort()."""
    self.sort(key=lambda t: np.asarray(t).item(), reverse=reverse)


@register("aten.cumprod.default")
def _cumprod(self: np.ndarray, dim: int, dtype: object = None) -> np.ndarray:
    """Running product along `dim`; integral and bool inputs accumulate in int64, as torch."""
    a, dt = _acc_input(np.asarray(self), dtype, I64)
    if a.ndim == 0:
        return finish(a, dt)
    return finish(np.cumprod(a, axis=wrap_dim(dim, a.ndim)), dt)


def _cum_extreme(better: Callable[[Any, Any], Any]) -> Kernel:
    def kernel(self: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray]:
        """Running max (min) along `dim` and the index where it was reached (the last one on
        ties, NaN sticking once seen), as torch's `cummax` / `cummin`."""
        a = np.asarray(self)
        if a.ndim == 0:
            return a.copy(), np.zeros((), dtype=np.int64)
        d = wrap_dim(dim, a.ndim)
        if a.size == 0:
            return a.copy(), np.zeros(a.shape, dtype=np.int64)
        x = np.moveaxis(a, d, 0)
        values = np.empty_like(x)
        indices = np.empty(x.shape, dtype=np.int64)
        best, where = x[0].copy(), np.zeros(x.shape[1:], dtype=np.int64)
        floating = dtype_of(a.dtype).is_floating_point
        for i in range(x.shape[0]):
            cur = x[i]
            nan_best = np.isnan(best) if floating else np.zeros(best.shape, bool)
            take = ~nan_best & ((better(cur, best) | (cur == best)) | (np.isnan(cur) if floating else False))
            if i == 0:
                take = np.ones(best.shape, bool)
            best = np.where(take, cur, best)
            where = np.where(take, i, where)
            values[i], indices[i] = best, where
        return np.moveaxis(values, 0, d), np.moveaxis(indices, 0, d)

    return kernel


register("aten.cummax.default")(_cum_extreme(np.greater))
register("aten.cummin.default")(_cum_extreme(np.less))


@register("aten.logcumsumexp.default", "aten._logcumsumexp.default")  # the second: torch's other name for it
def _logcumsumexp(self: np.ndarray, dim: int) -> np.ndarray:
    """log(cumsum(exp(x))) computed stably: a running logaddexp along `dim`."""
    a = np.asarray(self)
    dt = floating_dtype(a.dtype)
    c = cast_to(a, compute_dtype(dt))
    if c.ndim == 0:
        return finish(c, dt)
    return finish(np.logaddexp.accumulate(c, axis=wrap_dim(dim, c.ndim)), dt)


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
