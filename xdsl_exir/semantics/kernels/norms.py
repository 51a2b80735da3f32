"""Layer, group and batch norm, and `renorm` (their backward kernels are in `backward`).

Statistics are computed in float32 for half inputs, as torch's CPU kernels do;
inference batch norm is one scale and shift per channel, as in torch's CPU kernel,
and training mode updates the running statistics in place.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from xdsl_exir.semantics.kernels.core import row_sums
from xdsl_exir.semantics.kernels.dtypes import F32, cast_to, compute_dtype, finish
from xdsl_exir.semantics.kernels.registry import register, wrap_dim

_CHUNK = 16
"""Vectors per Welford chunk in torch's CPU `RowwiseMoments` (`kChunkSize`)."""


def _add_moments(
    m0_add: int, m1_add: np.ndarray, m2_add: np.ndarray, m0: int, m1: np.ndarray, m2: np.ndarray, lanes: bool = False
) -> tuple[int, np.ndarray, np.ndarray]:
    """Chan's update of (count, mean, M2) by another part's, in torch's order of
    operations: `M2 += M2' + delta * delta * c * count` is inf * 0 = NaN where the
    count is 0 and the mean's square overflows (beyond about 1.8e19 in float32):
    torch's NaN variance of a row of huge values. Between SIMD-lane
    accumulators (`lanes`) an empty side leaves the other as it is in torch's
    build (measured: a row of nine float32 3e19 has variance 0, of eight NaN, of
    1100 0)."""
    if lanes and m0 == 0:
        return m0_add, m1_add, m2_add
    if lanes and m0_add == 0:
        return m0, m1, m2
    dt = m1.dtype.type
    n = m0 + m0_add
    c = dt(0) if n == 0 else dt(m0_add) / dt(n)
    delta = m1_add - m1
    return n, m1 + c * delta, m2 + (m2_add + delta * delta * c * dt(m0))


def torch_row_moments(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and biased variance of each row of a 2-d float array, as torch's CPU
    `RowwiseMoments` (layer and group norm) computes them: Welford's algorithm per
    SIMD lane (32-byte vectors: 8 float32 or 4 float64 lanes) over chunks of 16
    vectors, the chunks combined pairwise, the tail of the row by a scalar
    Welford, then the lanes added to the tail one by one.

    The values are those of any accurate method up to rounding; the order
    matters where an intermediate overflows, which decides whether a row of
    huge values normalises to NaN (torch) or to zeros. Rows with no value near
    overflow take the two-pass statistics instead (see `_row_stats`).
    """
    rows, N = d.shape
    dt = d.dtype
    lanes = max(32 // dt.itemsize, 1)
    n = N // lanes
    chunks = -(-n // _CHUNK)
    depth = 1 if chunks <= 2 else (chunks - 1).bit_length()  # utils::CeilLog2
    zero = np.zeros((rows, lanes), dtype=dt)
    stack: list[tuple[int, np.ndarray, np.ndarray]] = [(0, zero, zero) for _ in range(depth)]
    vec = d[:, : n * lanes].reshape(rows, n, lanes)
    for i in range(chunks):
        count = min(_CHUNK, n - i * _CHUNK)
        m1v, m2v = zero, zero
        for j in range(count):
            x = vec[:, i * _CHUNK + j]
            delta = x - m1v
            m1v = m1v + delta * dt.type(1 / (j + 1))
            m2v = m2v + delta * (x - m1v)
        stack[0] = _add_moments(count, m1v, m2v, *stack[0], lanes=True)
        mask = i + 1
        j = 1
        while j < depth and mask & 1 == 0:
            stack[j] = _add_moments(*stack[j - 1], *stack[j], lanes=True)
            stack[j - 1] = (0, zero, zero)
            mask >>= 1
            j += 1
    for i in range(1, depth):
        stack[0] = _add_moments(*stack[i], *stack[0], lanes=True)
    m1_lanes, m2_lanes = stack[0][1], stack[0][2]
    m0 = 0
    m1 = np.zeros(rows, dtype=dt)
    m2 = np.zeros(rows, dtype=dt)
    for k in range(n * lanes, N):
        x = d[:, k]
        delta = x - m1
        m0 += 1
        m1 = m1 + delta / dt.type(m0)
        m2 = m2 + delta * (x - m1)
    for lane in range(lanes):
        m0, m1, m2 = _add_moments(n, m1_lanes[:, lane], m2_lanes[:, lane], m0, m1, m2)
    return m1, m2 / dt.type(max(N, 1))


def near_overflow(d: np.ndarray) -> np.ndarray | None:
    """The rows of a 2-d float array where torch's order of operations matters
    (a NaN or infinity, or a value whose square times the row length may
    overflow), or None when there is none: those rows take `torch_row_moments`,
    the others two vectorised passes, equal up to rounding."""
    limit = np.sqrt(np.finfo(d.dtype).max / (16 * max(d.shape[1], 1)))
    if d.size == 0 or bool(np.maximum(d.max(), -d.min()) < limit):  # False for a NaN
        # the usual case, from two whole-array reductions: reducing each row on its own
        # costs more than the layer norm around it on short rows (64 channels)
        return None
    safe = np.maximum(d.max(axis=1), -d.min(axis=1)) < limit
    return None if bool(safe.all()) else ~safe


@register("aten.native_layer_norm.default")
def _native_layer_norm(
    input: np.ndarray, normalized_shape: Sequence[int], weight: np.ndarray | None, bias: np.ndarray | None, eps: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of a dense copy, vectorised row sums and in-place updates.

    The output is C-contiguous whatever the input's layout, as torch's is: a
    channels-last LayerNorm (the NHWC view of an NCHW buffer that ConvNeXt
    normalises) costs one copy, after which every pass runs along contiguous rows.
    """
    a = np.asarray(input)
    k = len(normalized_shape)
    want = [int(s) for s in normalized_shape]
    if k > a.ndim or list(a.shape[a.ndim - k :]) != want:  # else the rows would be other lengths: a wrong answer
        raise ValueError(f"layer_norm: normalized_shape {want} is not the input's last sizes (input {list(a.shape)})")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and list(np.shape(t)) != want:
            raise ValueError(f"layer_norm: {name} of sizes {list(np.shape(t))}, but normalized_shape is {want}")
    dt = a.dtype
    x = cast_to(a, compute_dtype(dt))
    lead = a.shape[: a.ndim - k]
    count = math.prod(a.shape[a.ndim - k :])
    rows = math.prod(lead)
    stat_shape = lead + (1,) * k
    if x.size == 0:
        nan = np.full(stat_shape, np.nan, x.dtype)
        return finish(x.copy(), dt), finish(nan, dt), finish(nan.copy(), dt)
    w = cast_to(weight, x.dtype) if weight is not None else None
    y, mean, rstd = layer_norm_rows(x, rows, count, w, cast_to(bias, x.dtype) if bias is not None else None, eps)
    return finish(y.reshape(a.shape), dt), finish(mean.reshape(stat_shape), dt), finish(rstd.reshape(stat_shape), dt)


def layer_norm_rows(
    x: np.ndarray, rows: int, count: int, weight: np.ndarray | None, bias: np.ndarray | None, eps: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Layer norm of a non-empty float array `x` seen as `rows` rows of `count`, weight and
    bias (if any) in `x`'s dtype: the normalized rows as a new (rows, count) array, and
    the rows' means and reciprocal standard deviations. The kernel calls it, and the
    graph compiler, which has settled the argument checks when it compiled the graph."""
    # a dense input is read in place; any other is copied once and centred in place
    d = x.reshape(rows, count) if x.flags.c_contiguous else np.array(x, order="C", copy=True).reshape(rows, count)
    fast = _plain_moments(d, count)
    mean, d, var = fast if fast is not None else _careful_moments(d, count, x.flags.c_contiguous)
    np.add(var, np.asarray(eps).astype(x.dtype), out=var)
    np.sqrt(var, out=var)
    rstd = np.divide(1, var, out=var)
    np.multiply(d, rstd[:, None], out=d)
    if weight is not None:
        np.multiply(d, weight.reshape(-1), out=d)
    # torch adds the bias, or 0 without one: a -0.0 (a row with rstd 0) comes out +0.0
    np.add(d, bias.reshape(-1) if bias is not None else x.dtype.type(0), out=d)
    return d, mean, rstd


_SAFE_LIMIT: dict[tuple[np.dtype[Any], int], float] = {}
"""`near_overflow`'s bound on the magnitudes of a row, by dtype and row length."""


def _plain_moments(d: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The rows' means, the centred rows and their variances by two vectorised passes,
    when they show that no value of the rows comes near overflow (the usual case), else
    None. Each value's distance from its row's mean is at most the square root of the
    sum of the squared distances, so the row's largest magnitude is at most
    |mean| + sqrt(count * var): a bound from the statistics themselves, without
    `near_overflow`'s two extra passes over the rows. (A NaN or infinity makes the bound
    NaN or infinite; `d` is left as it was.)"""
    key = (d.dtype, count)
    limit = _SAFE_LIMIT.get(key)
    if limit is None:
        limit = _SAFE_LIMIT[key] = float(np.sqrt(np.finfo(d.dtype).max / (16 * max(count, 1))))
    mean = row_sums(d)
    np.divide(mean, count, out=mean)
    c = np.subtract(d, mean[:, None])
    var = np.einsum("ij,ij->i", c, c)
    np.divide(var, count, out=var)
    bound = np.sqrt(var * count)
    bound += np.abs(mean)
    if not bool(bound.max() < limit):  # (False for a NaN)
        return None
    return mean, c, var


def _careful_moments(d: np.ndarray, count: int, dense: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows' means, the centred rows and their variances where some rows may hold
    values near overflow: those rows (`near_overflow`) take torch's own order of
    operations. A copy made for the kernel (not `dense`) is centred in place."""
    odd = near_overflow(d)
    odd_rows = None if odd is None else d[odd]
    mean = row_sums(d)
    np.divide(mean, count, out=mean)
    d = np.subtract(d, mean[:, None], out=None if dense else d)
    var = np.einsum("ij,ij->i", d, d)
    np.divide(var, count, out=var)
    if odd is not None and odd_rows is not None:  # torch's statistics where they may overflow
        odd_mean, odd_var = torch_row_moments(odd_rows)
        mean[odd], var[odd] = odd_mean, odd_var
        d[odd] = odd_rows - odd_mean[:, None]
    return mean, d, var


@register("aten.layer_norm.default")
def _layer_norm(
    input: np.ndarray, normalized_shape: Sequence[int], weight: np.ndarray | None = None,
    bias: np.ndarray | None = None, eps: float = 1e-5, cudnn_enable: bool = True,
) -> np.ndarray:
    return _native_layer_norm(input, normalized_shape, weight, bias, eps)[0]


@register("aten.native_group_norm.default")
def _native_group_norm(
    input: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None, N: int, C: int, HxW: int, group: int, eps: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """torch's CPU kernel: the statistics of each (sample, group) row as
    `RowwiseMoments` computes them, then one scale `rstd * weight` and shift
    `bias - mean * scale` per (sample, channel): `x * scale + shift`, so that an
    infinite weight makes a zero input NaN there, as in torch."""
    a = np.asarray(input)
    dt = a.dtype
    n, c, g = int(N), int(C), int(group)
    x = cast_to(a, compute_dtype(dt))
    if x.size == 0:
        nan = np.full((n, g), np.nan, x.dtype)
        return finish(x.reshape(a.shape).copy(), dt), finish(nan, dt), finish(nan.copy(), dt)
    rows = np.ascontiguousarray(x.reshape(n * g, -1))
    mean = rows.mean(axis=1)
    var = np.square(rows - mean[:, None]).mean(axis=1)
    odd = near_overflow(rows)
    if odd is not None:
        mean[odd], var[odd] = torch_row_moments(rows[odd])
    rstd = 1.0 / np.sqrt(var + np.asarray(eps).astype(x.dtype))
    scale = np.repeat(rstd.reshape(n, g), c // g, axis=1)  # n, c
    if weight is not None:
        scale = scale * cast_to(weight, x.dtype).reshape(1, c)
    shift = np.repeat(mean.reshape(n, g), c // g, axis=1) * scale
    shift = (cast_to(bias, x.dtype).reshape(1, c) if bias is not None else np.zeros((), x.dtype)) - shift
    y = x.reshape(n, c, -1) * scale[..., None] + shift[..., None]
    return finish(y.reshape(a.shape), dt), finish(mean.reshape(n, g), dt), finish(rstd.reshape(n, g), dt)


@register("aten.group_norm.default")
def _group_norm(
    input: np.ndarray, num_groups: int, weight: np.ndarray | None = None, bias: np.ndarray | None = None,
    eps: float = 1e-5, cudnn_enabled: bool = True,
) -> np.ndarray:
    a = np.asarray(input)
    n, c = a.shape[0], a.shape[1]
    hxw = int(np.prod(a.shape[2:]))
    return _native_group_norm(a, weight, bias, n, c, hxw, num_groups, eps)[0]


def _batch_norm_stat_dtype(dt: np.dtype[Any], params: Sequence[np.ndarray | None]) -> np.dtype[Any]:
    """The dtype of batch norm's saved statistics for an input of dtype `dt` and these
    parameters (weight, bias, running mean and variance, each maybe absent)."""
    given = {np.asarray(p).dtype for p in params if p is not None}
    if not given or given == {dt}:
        return dt
    if compute_dtype(dt) != dt and given == {F32}:
        return F32
    raise ValueError(
        f"batch_norm: a {dt} input with parameters of dtypes {sorted(str(g) for g in given)}: torch takes "
        f"parameters of the input's dtype, or all float32 for a float16 or bfloat16 input; cast them"
    )


def _batch_norm_core(
    input: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None, running_mean: np.ndarray | None,
    running_var: np.ndarray | None, training: bool, momentum: float, eps: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Shared batch norm; training updates the running stats in place like torch.
    The saved statistics (empty outside training) have the parameters' dtype: the
    input's, or float32 for a float16 or bfloat16 input with float32 parameters
    (torch's mixed-dtype CPU batch norm); other mixes are refused, as torch does."""
    a = np.asarray(input)
    channels = a.shape[1] if a.ndim > 1 else 0
    for name, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and np.shape(t) != (channels,):  # numpy would broadcast one element over the channels
            raise ValueError(f"batch_norm: {name} of sizes {list(np.shape(t))} for {channels} channels")
    dt = a.dtype
    stat_dt = _batch_norm_stat_dtype(dt, (weight, bias, running_mean, running_var))
    x = cast_to(a, compute_dtype(dt))
    axes = tuple(i for i in range(a.ndim) if i != 1)
    shape = [1] * a.ndim
    shape[1] = a.shape[1]
    if training:
        mean = np.mean(x, axis=axes)
        var = np.mean((x - mean.reshape(shape)) ** 2, axis=axes)
        n = a.size // a.shape[1]
        if running_mean is not None:
            np.copyto(running_mean, (1 - momentum) * running_mean + momentum * mean, casting="unsafe")
        if running_var is not None:
            unbiased = var * n / max(n - 1, 1)
            np.copyto(running_var, (1 - momentum) * running_var + momentum * unbiased, casting="unsafe")
        invstd = 1.0 / np.sqrt(var + eps)
        save_mean, save_invstd = mean, invstd
    else:
        assert running_mean is not None and running_var is not None
        mean = cast_to(running_mean, x.dtype)
        invstd = 1.0 / np.sqrt(cast_to(running_var, x.dtype) + np.asarray(eps).astype(x.dtype))
        save_mean = save_invstd = np.zeros((0,), dtype=x.dtype)
        # Inference folds the statistics into one scale and shift per channel,
        # as torch's CPU kernel does: two passes over the input instead of four.
        scale = invstd if weight is None else invstd * cast_to(weight, x.dtype)
        # torch's absent bias is 0, so the shift is 0 - mean * scale: +0.0 where mean * scale is a zero
        shift = np.subtract(0, mean * scale) if bias is None else cast_to(bias, x.dtype) - mean * scale
        y = x * scale.reshape(shape)
        y += shift.reshape(shape)
        return finish(y, dt), finish(save_mean, stat_dt), finish(save_invstd, stat_dt)
    y = (x - mean.reshape(shape)) * invstd.reshape(shape)
    if weight is not None:
        y = y * cast_to(weight, x.dtype).reshape(shape)
    if bias is not None:
        y = y + cast_to(bias, x.dtype).reshape(shape)
    return finish(y, dt), finish(save_mean, stat_dt), finish(save_invstd, stat_dt)


@register("aten._native_batch_norm_legit.default", "aten.native_batch_norm.default")
def _bn_legit(
    input: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None, running_mean: np.ndarray | None,
    running_var: np.ndarray | None, training: bool, momentum: float, eps: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return _batch_norm_core(input, weight, bias, running_mean, running_var, training, momentum, eps)


@register("aten._native_batch_norm_legit.no_stats")
def _bn_no_stats(
    input: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None, training: bool, momentum: float, eps: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return _batch_norm_core(input, weight, bias, None, None, True, momentum, eps)


@register("aten._native_batch_norm_legit_no_training.default")
def _bn_no_training(
    input: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None, running_mean: np.ndarray,
    running_var: np.ndarray, momentum: float, eps: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return _batch_norm_core(input, weight, bias, running_mean, running_var, False, momentum, eps)


@register("aten.batch_norm.default")
def _batch_norm(
    input: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None, running_mean: np.ndarray | None,
    running_var: np.ndarray | None, training: bool, momentum: float, eps: float, cudnn_enabled: bool,
) -> np.ndarray:
    return _batch_norm_core(input, weight, bias, running_mean, running_var, training, momentum, eps)[0]


@register("aten._native_batch_norm_legit_functional.default")
def _bn_legit_functional(
    input: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None, running_mean: np.ndarray,
    running_var: np.ndarray, training: bool, momentum: float, eps: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The functional batch norm of torch's core ATen training graphs (`run_decompositions`
    of a module in training mode): the updated running statistics are returned as new
    tensors instead of written into the buffers."""
    mean, var = np.array(running_mean, copy=True), np.array(running_var, copy=True)
    out, save_mean, save_rstd = _batch_norm_core(input, weight, bias, mean, var, training, momentum, eps)
    return out, save_mean, save_rstd, mean, var


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
