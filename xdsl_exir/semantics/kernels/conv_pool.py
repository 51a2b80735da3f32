"""Convolution (forward, transposed, ``col2im``) and pooling (max, average, adaptive
average); their gradients are in ``backward``, which runs the window helpers exported here.

Convolution copies the padded input into a (channel, kernel offset) column
matrix in one strided copy and does one GEMM per sample (and group) against the
weight as it is stored; depthwise convolution works on channels-last windows
with one ``einsum``. Pooling folds the kernel offsets with whole-array
``maximum``/``add``. In numpy these are far faster than reducing strided window
views op by op.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from numpy.lib.stride_tricks import as_strided, sliding_window_view
from numpy.typing import ArrayLike

from xdsl_exir.semantics.kernels.dtypes import F16, cast_to, compute_dtype, finish, floating_dtype, result_type
from xdsl_exir.semantics.kernels.registry import FUNCTIONAL, Kernel, register
from xdsl_exir.utils.dtypes import DType, numpy_dtype


def expand_param(v: Sequence[int] | int, n: int) -> list[int]:
    vals = [int(v)] if isinstance(v, int) else [int(x) for x in v]
    return vals * n if len(vals) == 1 else vals


def windows(x: np.ndarray, k: Sequence[int], stride: Sequence[int], dilation: Sequence[int], out: Sequence[int]) -> np.ndarray:
    """Strided window view (N, C, *out, *k) of an already padded (N, C, *spatial) array."""
    n = len(k)
    ext = [(kk - 1) * d + 1 for kk, d in zip(k, dilation)]
    win = sliding_window_view(x, ext, axis=tuple(range(2, 2 + n)))
    sel = (slice(None), slice(None)) + tuple(slice(0, (o - 1) * s + 1, s) for o, s in zip(out, stride))
    sel += tuple(slice(None, None, d) for d in dilation)
    return win[sel]


def _offset_slices(
    xp: np.ndarray, k: Sequence[int], stride: Sequence[int], dilation: Sequence[int], out: Sequence[int], lead: int = 2
) -> list[tuple[int, tuple[int, ...], np.ndarray]]:
    """For each kernel offset (row-major): its flat index, its position and the
    strided view of the (already padded) input it meets, shaped (*lead, *out).

    Looping over the few kernel offsets with whole-array ops is much faster in
    numpy than reducing over a strided window view or copying im2col columns.
    """
    views = []
    for flat, pos in enumerate(np.ndindex(*k)):
        sel = (slice(None),) * lead + tuple(
            slice(q * d, q * d + (o - 1) * st + 1, st) for q, d, o, st in zip(pos, dilation, out, stride)
        )
        views.append((flat, tuple(pos), xp[sel]))
    return views


def _depthwise_channels_last(
    x: np.ndarray, w: np.ndarray, stride: Sequence[int], pad_lo: Sequence[int], pad_hi: Sequence[int],
    dilation: Sequence[int], out: Sequence[int],
) -> np.ndarray:
    """Depthwise convolution (one input channel per group, `m` outputs each) as one
    `einsum` over a channels-last window view: (position, kernel offset, channel)
    times (kernel offset, channel), summed over the offsets.

    With the channels innermost the sum runs over long contiguous rows even when
    the planes are tiny (ConvNeXt's 7x7 on 4x4, MobileNet's 5x5 on 3x3), where a GEMM
    per channel or a multiply-add per offset costs numpy calls, not arithmetic; the
    view is read in place, no column matrix is copied. With stride 1 along the last
    axis (and one output per channel) a whole output row of that axis, (width x
    channel), is one contiguous run of the padded input per kernel offset, so the
    einsum's inner loop covers the row against the weights tiled along it: a
    handful of long inner loops instead of one per output position.
    """
    n = len(out)
    N, C = x.shape[:2]
    m = w.shape[0] // C
    k = w.shape[2:]
    lo = [max(v, 0) for v in pad_lo]
    padded = [s_ + lo[i] + max(pad_hi[i], 0) for i, s_ in enumerate(x.shape[2:])]
    xp = np.zeros((N, *padded, C), dtype=x.dtype)
    xp[(slice(None), *(slice(lo[i], lo[i] + x.shape[2 + i]) for i in range(n)))] = x.transpose(0, *range(2, 2 + n), 1)
    xp = xp[(slice(None),) + tuple(slice(max(-a, 0), padded[i] - max(-b, 0)) for i, (a, b) in enumerate(zip(pad_lo, pad_hi)))]
    o, kd = "def"[:n], "ijk"[:n]
    if m == 1 and stride[-1] == 1:
        sx = xp.strides
        rows = as_strided(
            xp,
            (N, *out[:-1], *k, out[-1] * C),
            (sx[0], *(st * sx[1 + i] for i, st in enumerate(stride[:-1])), *(d * sx[1 + i] for i, d in enumerate(dilation)),
             sx[n + 1]),
            writeable=False,
        )  # N, *out[:-1], *k, (last out x C)
        wt = np.tile(w.reshape(C, *k).transpose(*range(1, 1 + n), 0), (1,) * n + (out[-1],))  # *k, (last out x C)
        res = np.einsum(f"z{o[:-1]}{kd}m,{kd}m->z{o[:-1]}m", rows, wt).reshape(N, *out, C)
        return np.ascontiguousarray(res.transpose(0, n + 1, *range(1, n + 1)))
    ext = [(kk_ - 1) * d + 1 for kk_, d in zip(k, dilation)]
    win = sliding_window_view(xp, ext, axis=tuple(range(1, 1 + n)))  # N, *positions, C, *ext
    win = win[(slice(None), *(slice(0, (o - 1) * s + 1, s) for o, s in zip(out, stride)), slice(None),
               *(slice(None, None, d) for d in dilation))]
    view = win.transpose(0, *range(1, 1 + n), *range(2 + n, 2 + 2 * n), 1 + n)  # N, *out, *k, C
    wl = w.reshape(C, m, *k).transpose(*range(2, 2 + n), 0, 1)  # *k, C, m
    if m == 1:
        res = np.einsum(f"z{o}{kd}c,{kd}c->z{o}c", view, np.ascontiguousarray(wl[..., 0]))
    else:
        res = np.einsum(f"z{o}{kd}c,{kd}cm->z{o}cm", view, np.ascontiguousarray(wl)).reshape(N, *out, C * m)
    return np.ascontiguousarray(res.transpose(0, n + 1, *range(1, n + 1)))


def conv_nd(
    x: np.ndarray, w: np.ndarray, stride: Sequence[int], pad_lo: Sequence[int], pad_hi: Sequence[int],
    dilation: Sequence[int], groups: int,
) -> np.ndarray:
    """Cross-correlation; x, w already in the compute dtype.

    Depthwise convolutions go to `_depthwise_channels_last` when their planes are
    small or their last axis has stride 1 (measured faster there than a GEMM per
    channel). Otherwise the (padded) input is copied into a column matrix ordered
    (channel, kernel offset) in one strided copy (none for an unpadded 1x1 kernel),
    so that the weight is used as it is stored, (out channel, in channel x
    offsets): one GEMM per sample and group writes the output in NC* order, with no
    weight or output relayout.
    """
    n = w.ndim - 2
    N, C = x.shape[:2]
    spatial = x.shape[2:]
    oc = w.shape[0]
    k = w.shape[2:]
    out = [(spatial[i] + pad_lo[i] + pad_hi[i] - (k[i] - 1) * dilation[i] - 1) // stride[i] + 1 for i in range(n)]
    if min(out, default=1) <= 0 or N == 0 or C == 0 or oc == 0:
        return np.zeros((N, oc, *[max(o, 0) for o in out]), dtype=result_type(x, w))
    p = math.prod(out)
    if groups == C and groups > 1 and w.shape[1] == 1 and (N * p <= 4 * C or (oc == C and stride[-1] == 1)):
        return _depthwise_channels_last(x, w, stride, pad_lo, pad_hi, dilation, out)
    cg, ocg = C // groups, oc // groups
    kk = math.prod(k)
    padded_input = any(pad_lo) or any(pad_hi)
    if kk == 1 and not padded_input:
        cols = x if all(s == 1 for s in stride) else x[(slice(None), slice(None), *(slice(None, None, s) for s in stride))]
    else:
        if padded_input:
            lo = [max(v, 0) for v in pad_lo]
            padded = [s_ + lo[i] + max(pad_hi[i], 0) for i, s_ in enumerate(spatial)]
            xp = np.zeros((N, C, *padded), dtype=x.dtype)
            xp[(slice(None), slice(None), *(slice(lo[i], lo[i] + spatial[i]) for i in range(n)))] = x
            xp = xp[(slice(None), slice(None)) + tuple(
                slice(max(-a, 0), padded[i] - max(-b, 0)) for i, (a, b) in enumerate(zip(pad_lo, pad_hi))
            )]
        else:
            xp = x
        win = windows(xp, k, stride, dilation, out)  # N, C, *out, *k
        cols = np.ascontiguousarray(win.transpose(0, 1, *range(2 + n, 2 + 2 * n), *range(2, 2 + n)))
    if groups == 1:
        wm = w.reshape(oc, C * kk)
        if N == 1:
            return (wm @ cols.reshape(C * kk, p)).reshape(1, oc, *out)
        return np.matmul(wm, cols.reshape(N, C * kk, p)).reshape(N, oc, *out)
    res = np.matmul(w.reshape(groups, ocg, cg * kk), cols.reshape(N, groups, cg * kk, p))
    return res.reshape(N, oc, *out)


def conv_forward(
    x: np.ndarray, w: np.ndarray, bias: np.ndarray | None, stride: Sequence[int], pad_lo: Sequence[int],
    pad_hi: Sequence[int], dilation: Sequence[int], groups: int,
) -> np.ndarray:
    """Batched convolution plus bias, everything already in one compute dtype and every
    parameter expanded to one value per spatial axis: what `aten.convolution` does once
    its arguments are normalized, so a caller that normalized them once (the graph
    compiler, for a float32 program) runs only this per call."""
    res = conv_nd(x, w, stride, pad_lo, pad_hi, dilation, groups)
    if bias is not None:  # `res` is a fresh array of the compute dtype
        res += bias.reshape((1, -1) + (1,) * (w.ndim - 2))
    return res


def conv_transpose_nd(
    x: np.ndarray, w: np.ndarray, stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int],
    output_padding: Sequence[int], groups: int,
) -> np.ndarray:
    """Transposed convolution as torch's CPU kernel computes it: one GEMM per group
    gives every (output channel, kernel offset) contribution of every input
    position (the weight, transposed, times the input), and the contributions are
    added into the output at `position * stride + offset * dilation - padding`,
    one strided add per kernel offset (col2im).

    A stride-1 convolution of the zero-stuffed input with the flipped kernel
    gives the same sums of finite values, but it multiplies the stuffed zeros by
    the weights: an infinite weight then makes NaN where torch's sum has none.
    """
    N, C = x.shape[:2]
    spatial = x.shape[2:]
    cin, ocg = w.shape[0], w.shape[1]
    k = tuple(w.shape[2:])
    full = [(s_ - 1) * st + (kk - 1) * d + 1 + op for s_, st, kk, d, op in zip(spatial, stride, k, dilation, output_padding)]
    out = [f - 2 * p for f, p in zip(full, padding)]
    buf = np.zeros((N, groups * ocg, *[max(f, 0) for f in full]), dtype=result_type(x, w))
    if N and C and ocg and all(s_ > 0 for s_ in spatial):
        P, K = math.prod(spatial), math.prod(k)
        wt = np.swapaxes(w.reshape(groups, cin // groups, ocg * K), 1, 2)  # g, ocg*K, cin/g
        cols = np.matmul(wt, x.reshape(N, groups, cin // groups, P))  # N, g, ocg*K, P
        cols = cols.reshape(N, groups * ocg, *k, *spatial)
        lead = (slice(None), slice(None))
        for pos in np.ndindex(*k):
            dst = lead + tuple(slice(q * d, q * d + (s_ - 1) * st + 1, st) for q, d, s_, st in zip(pos, dilation, spatial, stride))
            buf[dst] += cols[lead + pos]
    crop = (slice(None), slice(None)) + tuple(slice(p, p + max(o, 0)) for p, o in zip(padding, out))
    return np.ascontiguousarray(buf[crop])


def unbatch(x: np.ndarray, n: int) -> tuple[np.ndarray, bool]:
    return (x[None], True) if x.ndim == n + 1 else (x, False)


@register("aten.convolution.default")
def _convolution(
    input: np.ndarray, weight: np.ndarray, bias: np.ndarray | None, stride: Sequence[int], padding: Sequence[int] | str,
    dilation: Sequence[int], transposed: bool, output_padding: Sequence[int], groups: int,
) -> np.ndarray:
    w = np.asarray(weight)
    n = w.ndim - 2
    x, unb = unbatch(np.asarray(input), n)
    dt = result_type(x, w)
    cdt = compute_dtype(dt)
    xc, wc = cast_to(x, cdt), cast_to(w, cdt)
    st, dl = expand_param(stride, n), expand_param(dilation, n)
    if isinstance(padding, str):
        if padding == "valid":
            lo = hi = [0] * n
        else:  # "same": extra padding goes on the high side, as torch does
            total = [d * (kk - 1) for d, kk in zip(dl, w.shape[2:])]
            lo = [t // 2 for t in total]
            hi = [t - l_ for t, l_ in zip(total, lo)]
    else:
        lo = hi = expand_param(padding, n)
    if transposed:
        res = conv_transpose_nd(xc, wc, st, lo, dl, expand_param(output_padding, n) if output_padding else [0] * n, int(groups))
        if bias is not None:  # `res` is a fresh array of the compute dtype
            res += cast_to(bias, cdt).reshape((1, -1) + (1,) * n)
    else:
        res = conv_forward(xc, wc, None if bias is None else cast_to(bias, cdt), st, lo, hi, dl, int(groups))
    res = finish(res, dt)
    return res[0] if unb else res


def _conv_k(n: int) -> Kernel:
    def kernel(
        input: np.ndarray, weight: np.ndarray, bias: np.ndarray | None = None, stride: Sequence[int] = (1,),
        padding: Sequence[int] | str = (0,), dilation: Sequence[int] = (1,), groups: int = 1,
    ) -> np.ndarray:
        return _convolution(input, weight, bias, stride, padding, dilation, False, [0] * n, groups)

    return kernel


for _n in (1, 2, 3):
    register(f"aten.conv{_n}d.default", f"aten.conv{_n}d.padding")(_conv_k(_n))


@register("aten.col2im.default")
def _col2im(
    self: np.ndarray, output_size: Sequence[int], kernel_size: Sequence[int], dilation: Sequence[int],
    padding: Sequence[int], stride: Sequence[int],
) -> np.ndarray:
    a, unb = unbatch(np.asarray(self), 1)
    dt = a.dtype
    k, dl, pd, st = (expand_param(v, 2) for v in (kernel_size, dilation, padding, stride))
    H, W = (int(s) for s in output_size)
    N = a.shape[0]
    C = a.shape[1] // (k[0] * k[1])
    oh = (H + 2 * pd[0] - dl[0] * (k[0] - 1) - 1) // st[0] + 1
    ow = (W + 2 * pd[1] - dl[1] * (k[1] - 1) - 1) // st[1] + 1
    vals = cast_to(a, compute_dtype(dt)).reshape(N, C, k[0], k[1], oh, ow)
    out = window_scatter(np.transpose(vals, (0, 1, 4, 5, 2, 3)), (H + 2 * pd[0], W + 2 * pd[1]), st, dl)
    out = out[:, :, pd[0] : pd[0] + H, pd[1] : pd[1] + W]
    out = finish(out, dt)
    return out[0] if unb else out


def window_scatter(vals: np.ndarray, spatial: Sequence[int], stride: Sequence[int], dilation: Sequence[int]) -> np.ndarray:
    """Adjoint of :func:`windows`: add (N, C, *out, *k) window values back into (N, C, *spatial)."""
    n = len(spatial)
    N, C = vals.shape[:2]
    out = vals.shape[2 : 2 + n]
    k = vals.shape[2 + n :]
    flat = np.zeros((N, C, math.prod(spatial)), dtype=vals.dtype)
    pos = np.zeros(tuple(out) + tuple(k), dtype=np.intp)
    mul = 1
    for i in reversed(range(n)):
        o = np.arange(out[i]) * stride[i]
        kk = np.arange(k[i]) * dilation[i]
        shape_o = [1] * (2 * n)
        shape_o[i] = out[i]
        shape_k = [1] * (2 * n)
        shape_k[n + i] = k[i]
        pos = pos + (o.reshape(shape_o) + kk.reshape(shape_k)) * mul
        mul *= spatial[i]
    idx = pos.reshape(-1)
    v = vals.reshape(N, C, -1)
    # one add.at over the flattened (N*C, positions) array
    rows = np.arange(N * C)[:, None]
    np.add.at(flat.reshape(N * C, -1), (rows, idx[None, :]), v.reshape(N * C, -1))
    return flat.reshape((N, C) + tuple(spatial))


# ---------------------------------------------------------------------------
# pooling
# ---------------------------------------------------------------------------


def _pool_out(size: int, k: int, s: int, p: int, d: int, ceil: bool) -> int:
    num = size + 2 * p - d * (k - 1) - 1
    o = (-(-num // s) if ceil else num // s) + 1
    if ceil and (o - 1) * s >= size + p:
        o -= 1
    return o


def pool_setup(
    x: np.ndarray, n: int, kernel_size: Sequence[int], stride: Sequence[int], padding: Sequence[int],
    dilation: Sequence[int], ceil_mode: bool,
) -> tuple[list[int], list[int], list[int], list[int], list[int]]:
    k = expand_param(kernel_size, n)
    s = expand_param(stride, n) if stride else list(k)
    p = expand_param(padding, n)
    d = expand_param(dilation, n)
    spatial = x.shape[-n:]
    out = [_pool_out(spatial[i], k[i], s[i], p[i], d[i], ceil_mode) for i in range(n)]
    return k, s, p, d, out


def _pad_for_pool(x: np.ndarray, n: int, k: Sequence[int], s: Sequence[int], p: Sequence[int], d: Sequence[int], out: Sequence[int], value: object) -> np.ndarray:
    spatial = x.shape[2:]
    width = [(0, 0), (0, 0)]
    for i in range(n):
        need = (out[i] - 1) * s[i] + (k[i] - 1) * d[i] + 1
        width.append((p[i], max(need - spatial[i] - p[i], 0)))
    return np.pad(x, width, mode="constant", constant_values=cast(ArrayLike, value))


def _max_pool_nd(
    self: np.ndarray, n: int, kernel_size: Sequence[int], stride: Sequence[int], padding: Sequence[int],
    dilation: Sequence[int], ceil_mode: bool, with_indices: bool = True,
) -> tuple[np.ndarray, np.ndarray | None]:
    a = np.asarray(self)
    unb = a.ndim == n + 1
    x = a[None] if unb else a
    k, s, p, d, out = pool_setup(x, n, kernel_size, stride, padding, dilation, ceil_mode)
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min if x.dtype.kind in "iu" else False
    xp = _pad_for_pool(x, n, k, s, p, d, out, low)
    views = _offset_slices(xp, k, s, d, out)
    vals = views[0][2].copy()
    for _, _, view in views[1:]:
        np.maximum(vals, view, out=vals)  # propagates NaN, as torch does; ties keep the first
    if not with_indices:
        return (vals[0] if unb else vals), None
    # The index torch's CPU kernel reports: it scans the window in order and
    # replaces its candidate when `val > max || isnan(val)`, so the first maximum
    # wins among numbers and the *last* NaN wins once there is one. Comparing
    # against the finished maximum costs one compare per offset instead of a
    # running compare, NaN tests and two masked copies of a running argmax:
    # offsets from last to first overwrite where they hold the maximum (never in
    # a NaN window, where `view == vals` is false), then, in NaN windows only,
    # offsets from first to last overwrite where they hold a NaN.
    # A padded element is never the index (a window of -inf keeps its first
    # element inside the input, as torch's starts there): where the input is
    # padded, a hit counts only inside it.
    spatial = x.shape[2:]
    plane = [math.prod(spatial[i + 1 :]) for i in range(n)]  # row-major strides of the input plane
    arg = np.zeros(vals.shape, dtype=np.int64)  # the offset's part of the flat index
    padded = xp.shape[2:] != spatial
    for _, pos, view in reversed(views):
        hit = view == vals
        if padded:
            for i, q in enumerate(pos):
                c = np.arange(out[i]) * s[i] - p[i] + q * d[i]
                shape = [1] * vals.ndim
                shape[2 + i] = out[i]
                hit &= ((c >= 0) & (c < spatial[i])).reshape(shape)
        np.copyto(arg, sum(q * d[i] * plane[i] for i, q in enumerate(pos)), where=hit)
        np.copyto(vals, view, where=hit)  # the first of -0.0 and 0.0, as torch keeps it
    if x.dtype.kind == "f" and bool(np.isnan(vals).any()):
        for _, pos, view in views:
            np.copyto(arg, sum(q * d[i] * plane[i] for i, q in enumerate(pos)), where=np.isnan(view))
    # plus the window origin's part: flat index into the unpadded input plane
    flat = arg
    for i in range(n):
        shape = [1] * arg.ndim
        shape[2 + i] = out[i]
        flat = flat + ((np.arange(out[i]) * s[i] - p[i]) * plane[i]).reshape(shape)
    if unb:
        return vals[0], flat[0]
    return vals, flat


@register("aten.max_pool2d_with_indices.default")
def _max_pool2d_wi(
    self: np.ndarray, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,), ceil_mode: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    vals, indices = _max_pool_nd(self, 2, kernel_size, stride, padding, dilation, ceil_mode)
    assert indices is not None  # with_indices=True
    return vals, indices


@register("aten.max_pool3d_with_indices.default")
def _max_pool3d_wi(
    self: np.ndarray, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,), ceil_mode: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    vals, indices = _max_pool_nd(self, 3, kernel_size, stride, padding, dilation, ceil_mode)
    assert indices is not None  # with_indices=True
    return vals, indices


@register("aten.max_pool2d.default")
def _max_pool2d(
    self: np.ndarray, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,), ceil_mode: bool = False,
) -> np.ndarray:
    return cast(np.ndarray, _max_pool_nd(self, 2, kernel_size, stride, padding, dilation, ceil_mode, False)[0])


def avg_divisors(
    spatial: Sequence[int], k: Sequence[int], s: Sequence[int], p: Sequence[int], out: Sequence[int],
    count_include_pad: bool, divisor_override: int | None, dt: np.dtype[Any],
) -> np.ndarray:
    if divisor_override:
        return np.asarray(float(divisor_override), dtype=dt)
    div = np.ones((), dtype=dt)
    n = len(k)
    for i in range(n):
        start = np.arange(out[i]) * s[i] - p[i]
        end = np.minimum(start + k[i], spatial[i] + p[i])
        size = end - start
        if not count_include_pad:
            size = np.minimum(end, spatial[i]) - np.maximum(start, 0)
        shape = [1] * n
        shape[i] = out[i]
        div = div * size.reshape(shape).astype(dt)
    return div


def _avg_pool_nd(
    self: np.ndarray, n: int, kernel_size: Sequence[int], stride: Sequence[int], padding: Sequence[int],
    ceil_mode: bool, count_include_pad: bool, divisor_override: int | None,
) -> np.ndarray:
    a = np.asarray(self)
    unb = a.ndim == n + 1
    x = a[None] if unb else a
    dt = x.dtype
    # torch's CPU kernel sums integers in int64 (wrapping as C++ does) and divides
    # the sum by the integer window count, truncating toward zero
    integer = dt.kind in "iu"
    cdt = np.dtype(np.int64) if integer else compute_dtype(floating_dtype(dt))
    k, s, p, d, out = pool_setup(x, n, kernel_size, stride, padding, [1] * n, ceil_mode)
    xp = _pad_for_pool(cast_to(x, cdt), n, k, s, p, d, out, 0)
    views = _offset_slices(xp, k, s, d, out)
    sums = views[0][2].copy()
    for _, _, view in views[1:]:
        sums += view
    if integer:
        div = avg_divisors(x.shape[2:], k, s, p, out, count_include_pad, divisor_override, np.dtype(np.float64))
        count = np.broadcast_to(div.astype(np.int64), sums.shape)
        res = FUNCTIONAL["aten.div.Tensor_mode"](sums, count, rounding_mode="trunc")
    else:
        res = sums / avg_divisors(x.shape[2:], k, s, p, out, count_include_pad, divisor_override, cdt)
    res = finish(res, dt)
    return res[0] if unb else res


@register("aten.avg_pool1d.default")
def _avg_pool1d(
    self: np.ndarray, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0,),
    ceil_mode: bool = False, count_include_pad: bool = True,
) -> np.ndarray:
    return _avg_pool_nd(self, 1, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


@register("aten.avg_pool2d.default")
def _avg_pool2d(
    self: np.ndarray, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0,),
    ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None,
) -> np.ndarray:
    return _avg_pool_nd(self, 2, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


@register("aten.avg_pool3d.default")
def _avg_pool3d(
    self: np.ndarray, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0,),
    ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None,
) -> np.ndarray:
    return _avg_pool_nd(self, 3, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def _adaptive_matrix(in_size: int, out_size: int, dt: np.dtype[Any]) -> np.ndarray:
    """Averaging matrix of one adaptive-pool axis: bins [floor(i*I/O), ceil((i+1)*I/O))."""
    i = np.arange(out_size)
    start = (i * in_size) // out_size
    end = -((-(i + 1) * in_size) // out_size)
    j = np.arange(in_size)
    mask = (j[None, :] >= start[:, None]) & (j[None, :] < end[:, None])
    return (mask / (end - start)[:, None]).astype(dt)


def adaptive_avg(a: np.ndarray, output_size: Sequence[int], transpose: bool = False, like: np.ndarray | None = None) -> np.ndarray:
    n = len(output_size)
    dt = a.dtype
    cdt = compute_dtype(floating_dtype(dt))
    x = cast_to(a, cdt)
    sizes = x.shape[x.ndim - n :]
    if not transpose and all(o > 0 and s_ % o == 0 for s_, o in zip(sizes, output_size)):
        # equal bins (global pooling, 8 -> 4): one mean over a reshape, no averaging matrices
        lead = x.shape[: x.ndim - n]
        split = [v for s_, o in zip(sizes, output_size) for v in (int(o), s_ // int(o))]
        axes = tuple(range(len(lead) + 1, len(lead) + 2 * n, 2))
        return finish(x.reshape(*lead, *split).mean(axis=axes), dt)
    if not transpose:
        count = np.ones((), dtype=cdt)
        for i in range(n):
            x, lens = _adaptive_window_sums(x, x.ndim - n + i, int(output_size[i]))
            count = count * lens.astype(cdt)
        return finish(x / count, dt)
    for i in range(n):
        axis = x.ndim - n + i
        assert like is not None
        m = _adaptive_matrix(like.shape[axis], x.shape[axis], cdt).T
        x = np.moveaxis(np.tensordot(m, np.moveaxis(x, axis, 0), axes=1), 0, axis)
    return finish(x, dt)


def _adaptive_window_sums(x: np.ndarray, axis: int, out_size: int) -> tuple[np.ndarray, np.ndarray]:
    """The sums of ATen's adaptive windows [floor(i*I/O), ceil((i+1)*I/O)) along
    `axis`, and the window lengths shaped to broadcast against them.

    Each window is summed from its own elements only, one strided gather per
    offset into the longest window (a few numpy calls, vectorised over the
    windows), so that an infinity or NaN reaches only the windows holding it, as
    in torch's kernel; a product with a 0/1 membership matrix would spread it as
    `0 * inf = nan` to every window. The sum over a box is the sum along each
    axis in turn; the caller divides by the box's element count once, as torch does.
    """
    size = x.shape[axis]
    i = np.arange(out_size)
    start = (i * size) // out_size
    end = -((-(i + 1) * size) // out_size)
    lens = end - start
    shape = [1] * (x.ndim - axis)
    shape[0] = out_size
    total = np.zeros(x.shape[:axis] + (out_size,) + x.shape[axis + 1 :], dtype=x.dtype)
    for k in range(int(lens.max(initial=0))):
        inside = (k < lens).reshape(shape)
        total += np.where(inside, np.take(x, np.minimum(start + k, max(size - 1, 0)), axis=axis), 0)
    return total, lens.reshape(shape)


@register("aten.adaptive_avg_pool1d.default")
def _adaptive_avg_pool1d(self: np.ndarray, output_size: Sequence[int]) -> np.ndarray:
    return adaptive_avg(np.asarray(self), expand_param(output_size, 1))


@register("aten._adaptive_avg_pool2d.default", "aten.adaptive_avg_pool2d.default")
def _adaptive_avg_pool2d(self: np.ndarray, output_size: Sequence[int]) -> np.ndarray:
    return adaptive_avg(np.asarray(self), expand_param(output_size, 2))


BF16 = numpy_dtype(DType.bfloat16)


@register("aten._adaptive_avg_pool3d.default", low_precision_operands=True)
def _adaptive_avg_pool3d(self: np.ndarray, output_size: Sequence[int]) -> np.ndarray:
    a = np.asarray(self)
    out = expand_param(output_size, 3)
    if a.dtype in (F16, BF16) and a.ndim >= 3:
        return _adaptive_avg3d_reduced(a, [int(o) for o in out])
    return adaptive_avg(a.astype(np.float32) if compute_dtype(a.dtype) != a.dtype else a, out)


def _adaptive_avg3d_reduced(a: np.ndarray, out: list[int]) -> np.ndarray:
    """
    float16/bfloat16 as torch's CPU kernel computes them (it has no opmath here):
    each window summed in the dtype, element after element in (t, h, w) order, each
    addition rounded, then divided by its depth, height and width in turn, each
    division rounded. A float32 mean differs from it by an ulp in most windows.
    """
    dt = a.dtype
    sizes = a.shape[-3:]
    res = np.empty(a.shape[:-3] + tuple(out), dtype=dt)
    bounds = [[(i * n // o, -(-(i + 1) * n // o)) for i in range(o)] for n, o in zip(sizes, out)]
    for i, (t0, t1) in enumerate(bounds[0]):
        for j, (h0, h1) in enumerate(bounds[1]):
            for k, (w0, w1) in enumerate(bounds[2]):
                acc = np.zeros(a.shape[:-3], dtype=dt)
                for t in range(t0, t1):
                    for h in range(h0, h1):
                        for w in range(w0, w1):
                            acc = (acc + a[..., t, h, w]).astype(dt)
                for length in (t1 - t0, h1 - h0, w1 - w0):
                    acc = (acc / np.asarray(length, dt)).astype(dt)
                res[..., i, j, k] = acc
    return res


def _adaptive_max(a: np.ndarray, output_size: Sequence[int | None], n: int) -> tuple[np.ndarray, np.ndarray]:
    """Max and flat (row-major over the last `n` dims) argmax over ATen's adaptive
    windows [floor(i * I / O), ceil((i + 1) * I / O)), as torch's CPU kernel scans
    them (`val > max || isnan(val)`): the first maximum wins among numbers, the
    last NaN once there is one."""
    spatial = a.shape[a.ndim - n :]
    lead = a.shape[: a.ndim - n]
    out = [int(o) if o is not None else s_ for o, s_ in zip(output_size, spatial)]
    values = np.empty(lead + tuple(out), dtype=a.dtype)
    indices = np.empty(lead + tuple(out), dtype=np.int64)
    strides = [math.prod(spatial[i + 1 :]) for i in range(n)]
    if values.size == 0:
        return values, indices
    for cell in np.ndindex(*out):
        bounds = [((c * s_) // o, -(-((c + 1) * s_) // o)) for c, s_, o in zip(cell, spatial, out)]
        window = a[(..., *(slice(lo, hi) for lo, hi in bounds))]
        shape = window.shape[a.ndim - n :]
        flat = window.reshape(lead + (-1,))
        k = flat.argmax(-1) if flat.shape[-1] else np.zeros(lead, np.intp)
        if a.dtype.kind == "f":
            nan = np.isnan(flat)
            last_nan = flat.shape[-1] - 1 - nan[..., ::-1].argmax(-1)
            k = np.where(nan.any(-1), last_nan, k)
        values[(..., *cell)] = np.take_along_axis(flat, k[..., None], -1)[..., 0]
        pos = np.unravel_index(k, shape) if shape else ()
        indices[(..., *cell)] = sum((lo + q) * st for (lo, _), q, st in zip(bounds, pos, strides))
    return values, indices


@register("aten.adaptive_max_pool2d.default")
def adaptive_max_pool2d_kernel(self: np.ndarray, output_size: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Max and flat (h * W + w) argmax over ATen's adaptive windows (`_adaptive_max`)."""
    return _adaptive_max(np.asarray(self), output_size, 2)


@register("aten.adaptive_max_pool3d.default")
def _adaptive_max_pool3d(self: np.ndarray, output_size: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Max and flat (d * H * W + h * W + w) argmax over ATen's adaptive windows (`_adaptive_max`)."""
    return _adaptive_max(np.asarray(self), output_size, 3)


@register("aten.adaptive_max_pool1d.default")
def _adaptive_max_pool1d(self: np.ndarray, output_size: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """The 2-d kernel over a unit height: torch's 1-d op is that view of the 2-d one."""
    a = np.asarray(self)
    if a.ndim not in (2, 3):
        raise ValueError("adaptive_max_pool1d expects a 2-d or 3-d input")
    values, indices = adaptive_max_pool2d_kernel(a[..., None, :], [1, int(output_size[0])])
    return values[..., 0, :], indices[..., 0, :]
