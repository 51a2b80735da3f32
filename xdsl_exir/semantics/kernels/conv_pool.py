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
from typing import cast

import numpy as np
from numpy.typing import ArrayLike

from xdsl_exir.semantics.kernels.core import (
    DepthwiseTaps,
    adaptive_avg,
    avg_divisors,
    conv_nd,
    conv_transpose_nd,
    expand_param,
    pool_setup,
    unbatch,
    window_scatter,
)
from xdsl_exir.semantics.kernels.dtypes import F16, cast_to, compute_dtype, finish, floating_dtype, result_type
from xdsl_exir.semantics.kernels.registry import FUNCTIONAL, Kernel, register
from xdsl_exir.utils.dtypes import DType, numpy_dtype


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


def conv_forward(
    x: np.ndarray, w: np.ndarray, bias: np.ndarray | None, stride: Sequence[int], pad_lo: Sequence[int],
    pad_hi: Sequence[int], dilation: Sequence[int], groups: int, taps: DepthwiseTaps | None = None,
) -> np.ndarray:
    """Batched convolution plus bias, everything already in one compute dtype and every
    parameter expanded to one value per spatial axis: what `aten.convolution` does once
    its arguments are normalized, so a caller that normalized them once (the graph
    compiler, for a float32 program) runs only this per call, with its own `taps` to keep
    a depthwise weight's tiled form between calls."""
    res = conv_nd(x, w, stride, pad_lo, pad_hi, dilation, groups, taps)
    if bias is not None:  # `res` is a fresh array of the compute dtype
        res += bias.reshape((1, -1) + (1,) * (w.ndim - 2))
    return res


@register("aten.convolution.default")
def _convolution(
    input: np.ndarray, weight: np.ndarray, bias: np.ndarray | None, stride: Sequence[int], padding: Sequence[int] | str,
    dilation: Sequence[int], transposed: bool, output_padding: Sequence[int], groups: int,
) -> np.ndarray:
    w = np.asarray(weight)
    n = w.ndim - 2
    x, unb = unbatch(np.asarray(input), n)
    channels = w.shape[1] * int(groups) if transposed else w.shape[0]
    if bias is not None and np.shape(bias) != (channels,):  # numpy would broadcast a bias of 1 element
        raise ValueError(
            f"convolution: a bias of sizes {list(np.shape(bias))} for {channels} output channels "
            f"(a 1-d bias of {channels} elements)"
        )
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


# ---------------------------------------------------------------------------
# pooling
# ---------------------------------------------------------------------------


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
