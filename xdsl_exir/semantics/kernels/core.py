"""
What the kernel families share, so that no family imports another (a kernel one family
calls of another's is reached through the table, `FUNCTIONAL["aten.select.int"]`):

* the window machinery of convolution and pooling (strided window views, the im2col
  convolution and its transpose, window scatters, pooling output sizes and divisors,
  adaptive averaging), which the forward kernels of `conv_pool` and the gradients of
  `backward` both run;
* `new_shape`, the size check every created tensor passes (the program may be hostile);
* `run_pointwise`, the promote-compute-cast driver of the pointwise kernels;
* the row reductions and the softmax that `reductions`, `norms` and attention share.
"""

from __future__ import annotations

import math
import mmap
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided, sliding_window_view

from xdsl_exir.semantics.kernels.dtypes import (
    cast_to,
    compute_dtype,
    finish,
    floating_dtype,
    result_type,
)
from xdsl_exir.utils.limits import check_tensor_bytes

__all__ = [
    "adaptive_avg",
    "avg_divisors",
    "conv_nd",
    "conv_transpose_nd",
    "DepthwiseTaps",
    "dense_in_order",
    "expand_param",
    "immutable_root",
    "new_shape",
    "pool_setup",
    "row_fmax",
    "row_sums",
    "run_pointwise",
    "softmax_rows",
    "storage_of",
    "storage_root",
    "sum_keepdims",
    "unbatch",
    "window_scatter",
    "windows",
]


def storage_of(a: np.ndarray) -> tuple[np.ndarray, int]:
    """The flat buffer `a` is a view of and `a`'s offset in it, in elements of `a`'s
    dtype: torch's storage and storage offset. numpy views keep their base (through
    `as_strided`'s wrapper too), so the root is the array that owns the memory, as the
    tensor that owns a torch storage is; its memory is read in ADDRESS order, not as
    its row-major copy: a pointwise result of a transposed input is laid out
    permuted (by numpy as by torch's TensorIterator, which both follow a lone
    operand's layout), and torch's `as_strided` of it reads that memory. A root of
    another dtype (`view(dtype)`, `view_as_real`) is read as bytes of `a`'s dtype,
    as torch's untyped storage is. A root whose memory is not one dense block
    (not one numpy creates) is refused rather than guessed."""
    root = storage_root(a)
    if root is a and a.flags.c_contiguous:
        return a.reshape(-1), 0
    memory = _dense_memory(root)
    if memory is None or memory.nbytes % a.itemsize:
        raise ValueError(
            f"the storage of a {a.dtype} tensor of shape {list(a.shape)} is not known: the array it views "
            f"(shape {list(root.shape)}, byte strides {list(root.strides)}) is not one dense block of "
            f"{a.dtype} elements; copy the tensor (clone) before addressing its storage"
        )
    flat = memory if memory.dtype == a.dtype else memory.view(np.uint8).view(a.dtype)
    delta = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    if delta % a.itemsize:
        raise ValueError(
            f"the storage offset of a {a.dtype} tensor is {delta} bytes, not a whole number of elements"
        )
    return flat, delta // a.itemsize


def storage_root(a: np.ndarray) -> np.ndarray:
    """The array owning the memory `a` views (`a` itself when it owns its memory): the
    end of its chain of numpy bases, through `as_strided`'s wrapper too."""
    root = a
    while True:
        base = root.base
        if isinstance(base, np.ndarray):
            root = base
        elif base is not None and isinstance(getattr(base, "base", None), np.ndarray):
            root = base.base  # numpy's as_strided wraps its base in a DummyArray
        else:
            return root


def dense_in_order(a: np.ndarray, dim_order: Sequence[int]) -> bool:
    """Whether `a`'s elements fill one block of memory laid out in `dim_order`, outermost
    dim first, as a dense torch tensor of that dim order is (size-1 dims anywhere)."""
    running = a.itemsize
    for d in reversed(dim_order):
        if a.shape[d] != 1 and a.strides[d] != running:
            return a.size == 0
        running *= a.shape[d]
    return True


def _dense_memory(root: np.ndarray) -> np.ndarray | None:
    """`root`'s elements in address order as a flat view of its memory, when they fill
    one block with no gap, overlap or negative stride; otherwise None."""
    if root.flags.c_contiguous or root.size == 0:
        return root.reshape(-1)
    order = sorted(range(root.ndim), key=lambda d: -root.strides[d])
    if not dense_in_order(root, order):
        return None
    flat = root.transpose(order).reshape(-1)  # C-contiguous once transposed: a view
    return flat if flat.__array_interface__["data"][0] == root.__array_interface__["data"][0] else None


def immutable_root(a: np.ndarray) -> object | None:
    """The object holding `a`'s memory when nothing can write that memory: every array on
    the way read-only, ending in `bytes`, in a view of a read-only memory map, or in a
    read-only array owning its data (the program's parameters: read-only views of their
    blobs, in memory or mapped from the archive); otherwise None. What a product or a
    convolution derives from such an operand once (a relaid or tiled copy of a weight)
    stays valid while the operand is the same memory."""
    o: object = a
    while isinstance(o, np.ndarray):
        if o.flags.writeable:
            return None
        if o.base is None:
            return o
        o = o.base
    if isinstance(o, bytes):
        return o
    if isinstance(o, memoryview) and isinstance(o.obj, mmap.mmap) and memoryview(o.obj).readonly:
        return o  # (a read-only view of a writable map is not enough: the map itself is asked)
    return None


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


def _row_tiled_taps(w: np.ndarray, k: Sequence[int], width: int) -> np.ndarray:
    """A depthwise weight (C, 1, *k) as (*k, width x C): each offset's C weights repeated
    along an output row of `width` positions."""
    n = len(k)
    return np.tile(w.reshape(w.shape[0], *k).transpose(*range(1, 1 + n), 0), (1,) * n + (width,))


_TAPS_MAX_BYTES = 32 << 20
"""The largest tiled weight `DepthwiseTaps` keeps (the tiling grows with the output row:
a 1-d depthwise convolution over a long sequence would otherwise hold its kernel size
times the sequence's activations for the program's life)."""


class DepthwiseTaps:
    """
    One depthwise convolution's weight tiled along an output row (the form
    `_depthwise_channels_last` multiplies by), made on the first call and reused while
    the weight is the same memory, which nothing can write (`immutable_root`: the
    program's parameters), up to `_TAPS_MAX_BYTES`; any other weight is tiled per call.
    The tiling is a pass over the whole row of weights, about a tenth of the
    convolution's own time (measured, one thread: 256 channels of 3x3 over rows of 28,
    20 us; 96 of 7x7 over rows of 16, 36 us).
    """

    __slots__ = ("entry",)

    def __init__(self) -> None:
        # (the memory's owner, the data address, the weight's layout and the row width, the
        # tiled copy): one attribute, read and replaced whole, so that two threads running
        # the program never mix two entries
        self.entry: tuple[object, int, tuple[object, ...], np.ndarray] | None = None

    def tiled(self, w: np.ndarray, k: Sequence[int], width: int) -> np.ndarray:
        root = immutable_root(w)
        if root is None or math.prod(k) * width * w.shape[0] * w.itemsize > _TAPS_MAX_BYTES:
            return _row_tiled_taps(w, k, width)
        ptr = w.__array_interface__["data"][0]
        key = (w.shape, w.strides, w.dtype, width)
        entry = self.entry
        if entry is None or entry[0] is not root or entry[1] != ptr or entry[2] != key:
            taps = _row_tiled_taps(w, k, width)
            taps.flags.writeable = False
            entry = self.entry = (root, ptr, key, taps)
        return entry[3]


def _depthwise_channels_last(
    x: np.ndarray, w: np.ndarray, stride: Sequence[int], pad_lo: Sequence[int], pad_hi: Sequence[int],
    dilation: Sequence[int], out: Sequence[int], taps: DepthwiseTaps | None = None,
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
        wt = _row_tiled_taps(w, k, out[-1]) if taps is None else taps.tiled(w, k, out[-1])  # *k, (last out x C)
        res = np.einsum(f"z{o[:-1]}{kd}m,{kd}m->z{o[:-1]}m", rows, wt).reshape(N, *out, C)
        return channels_first(res)
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
    return channels_first(res)


def _padding_left_out(k: Sequence[int], pad_lo: Sequence[int], pad_hi: Sequence[int], dilation: Sequence[int]) -> bool:
    """Whether torch's CPU leaves the padding out of a float32 depthwise convolution with
    a non-finite weight (see `_depthwise_without_padding`), as measured on torch 2.13 over
    1-3 spatial axes, kernels of 1-4, paddings of 1-4, dilations and strides of 1-3: in
    1 and 2 dims a padding as wide as the dilated kernel multiplies it in, a narrower one
    leaves it out when there is no dilation, and with dilation it depends on the stride
    and sizes in a way not modelled (refused, rather than guessed); in 3 dims it is left
    out without dilation and multiplied in with it. A one-element 3-d kernel torch 2.13
    multiplies in on one thread and leaves out on more: multiplied in here, as the
    convolution's definition and the single-threaded kernel have it."""
    dilated = any(d != 1 for d in dilation)
    if len(k) == 3:
        return not dilated and any(kk != 1 for kk in k)
    if any(max(lo, hi) >= (kk - 1) * d + 1 for kk, lo, hi, d in zip(k, pad_lo, pad_hi, dilation)):
        return False
    if dilated:
        raise ValueError(
            "convolution: a float32 depthwise convolution with an infinite or NaN weight, padding and dilation: "
            "whether torch's CPU kernel multiplies the padding in (giving NaN) depends on its choice of oneDNN "
            "kernel, which the interpreter does not model; pad the input explicitly (constant_pad_nd) or run in float64"
        )
    return True


def _depthwise_without_padding(
    x: np.ndarray, w: np.ndarray, stride: Sequence[int], pad_lo: Sequence[int], dilation: Sequence[int],
    out: Sequence[int],
) -> np.ndarray:
    """A float32 depthwise convolution (one output per channel) as torch's CPU takes it
    (oneDNN's depthwise kernel): each kernel offset adds its weight times the input
    positions it meets, the padding left out of the sum, where a padded input
    multiplies it in. The two differ only when a weight is infinite or NaN (0 x inf is
    NaN), so `conv_nd` comes here only then; a float64 one and one with other groups
    go to torch's im2col kernel, which multiplies the padding in, as `conv_nd` does.
    A one-element kernel is multiplied in too: measured, torch 2.13."""
    n = len(out)
    N, C = x.shape[:2]
    spatial = x.shape[2:]
    k = w.shape[2:]
    res = np.zeros((N, C, *out), dtype=x.dtype)
    for pos in np.ndindex(*k):
        dst: list[slice] = []
        src: list[slice] = []
        for i in range(n):
            shift = pos[i] * dilation[i] - pad_lo[i]  # input index = o * stride + shift
            first = max(0, -(shift // stride[i]))  # ceil(-shift / stride), at least 0
            last = min(out[i] - 1, (spatial[i] - 1 - shift) // stride[i])
            if last < first:
                break
            dst.append(slice(first, last + 1))
            begin = first * stride[i] + shift
            src.append(slice(begin, begin + (last - first) * stride[i] + 1, stride[i]))
        else:
            tap = w[(slice(None), 0, *pos)].reshape((1, C) + (1,) * n)
            res[(slice(None), slice(None), *dst)] += x[(slice(None), slice(None), *src)] * tap
    return res


_TRANSPOSE_BLOCK = 32
"""Positions per block of `channels_first`'s copy."""


def channels_first(a: np.ndarray) -> np.ndarray:
    """A C-contiguous (N, C, *spatial) copy of a C-contiguous channels-last (N, *spatial, C)
    array. numpy copies a transposed view element by element along the destination's
    rows, reading the source `C` elements apart: from about 128 channels and 32k
    elements a sample on, the lines it reads stop fitting in the L1 cache, so blocks
    of 32 positions are copied one after another instead (measured, one thread, two
    runs: 256 channels of 28 x 28 0.29-0.33 -> 0.14-0.26 ms, of 14 x 14 74-84 -> 33-62
    us, 512 of 8 x 8 42 -> 32 us); on smaller arrays the plain copy is faster (192 x 8
    x 8: 8.6 against 16 us, 96 x 16 x 16: 14 against 29)."""
    n = a.ndim - 2
    N, C = a.shape[0], a.shape[-1]
    spatial = a.shape[1:-1]
    p = math.prod(spatial)
    if C < 128 or p * C < 32768 or p < 2 * _TRANSPOSE_BLOCK:
        return np.ascontiguousarray(a.transpose(0, n + 1, *range(1, n + 1)))
    src = a.reshape(N, p, C)
    out = np.empty((N, C, p), a.dtype)
    for s in range(0, p, _TRANSPOSE_BLOCK):
        out[:, :, s : s + _TRANSPOSE_BLOCK] = src[:, s : s + _TRANSPOSE_BLOCK].transpose(0, 2, 1)
    return out.reshape(N, C, *spatial)


def conv_nd(
    x: np.ndarray, w: np.ndarray, stride: Sequence[int], pad_lo: Sequence[int], pad_hi: Sequence[int],
    dilation: Sequence[int], groups: int, taps: DepthwiseTaps | None = None,
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
    if (groups == C and groups > 1 and oc == C and w.shape[1] == 1 and x.dtype == np.float32
            and (any(pad_lo) or any(pad_hi)) and not np.isfinite(w).all() and _padding_left_out(k, pad_lo, pad_hi, dilation)):
        return _depthwise_without_padding(x, w, stride, pad_lo, dilation, out)
    if groups == C and groups > 1 and w.shape[1] == 1 and (N * p <= 4 * C or (oc == C and stride[-1] == 1)):
        return _depthwise_channels_last(x, w, stride, pad_lo, pad_hi, dilation, out, taps)
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


def new_shape(size: Sequence[int], dtype: np.dtype[Any]) -> tuple[int, ...]:
    """The shape a creation op makes, checked against the tensor size limit (sizes come from the program)."""
    shape = tuple(int(s) for s in size)
    check_tensor_bytes("the created tensor", shape, dtype.itemsize)
    return shape


def run_pointwise(
    fn: Callable[..., Any],
    *operands: object,
    to_float: bool = False,
    dtype: np.dtype[Any] | None = None,
    result: np.dtype[Any] | None = None,
) -> np.ndarray:
    """Promote, compute in the opmath type, cast to the result dtype."""
    dt = dtype if dtype is not None else result_type(*operands)
    if to_float:
        dt = floating_dtype(dt)
    cdt = compute_dtype(dt)
    args = [None if o is None else cast_to(o, cdt) for o in operands]
    try:
        out = fn(*args)
    except ValueError:
        shapes = [np.shape(a) for a in args if a is not None]
        try:
            np.broadcast_shapes(*shapes)
        except ValueError:
            # numpy says "operands could not be broadcast together"; a traced program meets
            # the shapes only at run time
            raise ValueError(
                f"the operands' shapes {', '.join(str(list(sh)) for sh in shapes)} do not broadcast "
                f"(aligned from the last dimension, each pair of sizes must be equal or one of them 1)"
            ) from None
        raise
    return finish(out, result if result is not None else dt)


_ROW_SUM_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def row_sums(x: np.ndarray) -> np.ndarray:
    """Sums of the rows of a C-contiguous 2-d float array.

    `einsum("ij->i")` runs a vectorised loop per row: several times faster than
    numpy's reduction over short rows (attention rows are 49 to a few hundred
    long), and without the pathological cases of BLAS matrix-vector products
    with ones (OpenBLAS takes a thousand times longer on 9408x49 than on 9408x48).
    Accumulation is in the array's dtype, as torch's CPU sums.
    """
    return np.einsum("ij->i", x)


def sum_keepdims(x: np.ndarray, dim: int) -> np.ndarray:
    """`x.sum(dim, keepdims=True)`, by :func:`row_sums` along a contiguous last dim."""
    n = x.shape[dim]
    if dim == x.ndim - 1 and x.dtype in _ROW_SUM_DTYPES and x.flags.c_contiguous and x.size and n > 1:
        return row_sums(x.reshape(-1, n)).reshape(x.shape[:-1] + (1,))
    return np.add.reduce(x, axis=dim, keepdims=True)


def row_fmax(x: np.ndarray) -> np.ndarray:
    """`np.fmax.reduce(x, axis=-1, keepdims=True)` of a non-empty C-contiguous array, as
    `reduceat` over its flat buffer at the row starts: numpy's axis reduction pays a loop
    setup per row, several times the work on short rows (attention's 49 to a few
    hundred); the maximum of the same values is the same value."""
    n = x.shape[-1]
    return np.fmax.reduceat(x.reshape(-1), np.arange(0, x.size, n)).reshape(x.shape[:-1] + (1,))


_EXP_SHIFT_FREE = (0.0, 64.0)
"""Rows of float32 or float64 whose largest value lies in this range need no shift before
`exp`: exp(x) cannot overflow (nor their sum, up to 10^10 elements a row), and where it
underflows torch's exp(x - max) underflows too. Narrower floats always take the shift
(float16's exp overflows from 11.1)."""


def _unshifted_exp(x: np.ndarray, shift: np.ndarray) -> np.ndarray | None:
    """exp(x) of a C-contiguous array, its rows that need the shift (largest value outside
    `_EXP_SHIFT_FREE`, NaN, infinite) as exp(x - shift); None when more than an eighth of
    the rows need it. The probabilities come out as torch's: the shift only scales a
    row's exponentials and their sum alike, and without it exp(x) carries no rounding
    of x - max. It saves a pass over the array (attention's scores, where a row's
    largest score is rarely negative; a causal mask's first rows hold a few scores)."""
    if x.dtype not in (np.float32, np.float64):
        return None
    lo, hi = _EXP_SHIFT_FREE
    flat = shift.reshape(-1)
    good = (flat >= lo) & (flat <= hi)
    bad = np.flatnonzero(~good) if not good.all() else None
    if bad is not None and 8 * bad.size > flat.size:
        return None
    e = np.exp(x)
    if bad is not None:
        n = x.shape[-1]
        e2, x2 = e.reshape(-1, n), x.reshape(-1, n)
        e2[bad] = np.exp(x2[bad] - flat[bad, None])
    return e


def softmax_rows(x: np.ndarray, dim: int, log: bool = False, safe: bool = False) -> np.ndarray:
    """(log-)softmax of a float array along a wrapped `dim`, in its own dtype: one new
    array written in place (log adds one temporary for the exponentials).

    Rows holding NaN, +inf or only -inf come out NaN, as in torch. The shift is
    `fmax`, faster than `max` (no NaN propagation to check) and alike here: a NaN
    in a row makes its exponentials' sum NaN all the same. Along a contiguous last
    dim, rows whose largest value lies in [0, 64] skip it (`_unshifted_exp`). `safe` is
    `_safe_softmax` (attention's): rows of only -inf come out 0 instead; only rows
    whose `fmax` is -inf (no finite value) are looked at again.
    """
    if x.size == 0:
        return x.copy()
    rows = dim == x.ndim - 1 and x.flags.c_contiguous
    shift = row_fmax(x) if rows else np.fmax.reduce(x, axis=dim, keepdims=True)
    if log:
        e = np.subtract(x, shift)
        lse = sum_keepdims(np.exp(e), dim)
        np.log(lse, out=lse)
        return np.subtract(e, lse, out=e)
    e = _unshifted_exp(x, shift) if rows else None
    if e is None:
        e = np.subtract(x, shift)
        np.exp(e, out=e)
    total = sum_keepdims(e, dim)
    if dim == x.ndim - 1:
        # torch's last-dim kernel multiplies by the sum's reciprocal, one division per row
        # (and a multiply is cheaper than a division per element)
        np.multiply(e, np.true_divide(1, total, out=total), out=e)
    else:
        np.divide(e, total, out=e)
    if safe and bool(np.any(shift == -np.inf)):
        np.copyto(e, 0, where=np.all(x == -np.inf, axis=dim, keepdims=True))
    return e
