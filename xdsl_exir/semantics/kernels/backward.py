"""Kernels of gradient operators: the input gradients of layer and group norm (their
affine gradients are sums over the normalized input), of the embedding, and of
convolution and pooling, which run `conv_pool`'s window machinery backwards (the
gradient of a convolution is a transposed convolution and a convolution of the input
with the output gradient; a pooling gradient scatters into its windows)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from xdsl_exir.semantics.kernels.core import (
    adaptive_avg,
    avg_divisors,
    conv_nd,
    conv_transpose_nd,
    expand_param,
    pool_setup,
    unbatch,
    window_scatter,
    windows,
)
from xdsl_exir.semantics.kernels.dtypes import cast_to, compute_dtype, finish
from xdsl_exir.semantics.kernels.registry import register


@register("aten.embedding_dense_backward.default")
def _embedding_dense_backward(
    grad_output: np.ndarray, indices: np.ndarray, num_weights: int, padding_idx: int, scale_grad_by_freq: bool
) -> np.ndarray:
    g = np.asarray(grad_output)
    dt = g.dtype
    d = g.shape[-1]
    idx = np.asarray(indices).reshape(-1).astype(np.intp)
    rows = cast_to(g.reshape(-1, d), compute_dtype(dt))
    if scale_grad_by_freq:
        counts = np.bincount(idx, minlength=int(num_weights))
        rows = rows / counts[idx][:, None]
    out = np.zeros((int(num_weights), d), dtype=rows.dtype)
    keep = idx != padding_idx
    np.add.at(out, idx[keep], rows[keep])
    return finish(out, dt)


def _norm_input_grad(gw: np.ndarray, x: np.ndarray, mean: np.ndarray, rstd: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """Input gradient of a normalisation from the *given* mean/rstd.

    Written in terms of sums of ``gw`` and ``gw * x`` (not of x-hat) so that,
    like torch's kernels, the result depends on the statistics passed in even
    when they are not the input's own.
    """
    count = int(np.prod([x.shape[a] for a in axes]))
    ds = np.sum(gw * x, axis=axes, keepdims=True)
    db = np.sum(gw, axis=axes, keepdims=True)
    b = (db * mean - ds) * rstd**3 / count
    c = -b * mean - db * rstd / count
    return rstd * gw + b * x + c


@register("aten.native_layer_norm_backward.default")
def _native_layer_norm_backward(
    grad_out: np.ndarray, input: np.ndarray, normalized_shape: Sequence[int], mean: np.ndarray, rstd: np.ndarray,
    weight: np.ndarray | None, bias: np.ndarray | None, output_mask: Sequence[bool],
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    a = np.asarray(input)
    dt = a.dtype
    cdt = compute_dtype(dt)
    x, g = cast_to(a, cdt), cast_to(grad_out, cdt)
    k = len(normalized_shape)
    axes = tuple(range(a.ndim - k, a.ndim))
    batch = tuple(range(a.ndim - k))
    m, r = cast_to(mean, cdt), cast_to(rstd, cdt)
    xhat = (x - m) * r
    gw = g * cast_to(weight, cdt) if weight is not None else g
    dx = _norm_input_grad(gw, x, m, r, axes)
    dw = np.sum(g * xhat, axis=batch) if weight is not None else None
    db = np.sum(g, axis=batch) if bias is not None else None
    return (
        finish(dx, dt) if output_mask[0] else None,
        finish(dw, dt) if output_mask[1] and dw is not None else None,
        finish(db, dt) if output_mask[2] and db is not None else None,
    )


@register("aten.native_group_norm_backward.default")
def _native_group_norm_backward(
    grad_out: np.ndarray, input: np.ndarray, mean: np.ndarray, rstd: np.ndarray, weight: np.ndarray | None,
    N: int, C: int, HxW: int, group: int, output_mask: Sequence[bool],
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    a = np.asarray(input)
    dt = a.dtype
    cdt = compute_dtype(dt)
    n, c, g_ = int(N), int(C), int(group)
    x = cast_to(a, cdt).reshape(n, c, -1)
    g = cast_to(grad_out, cdt).reshape(n, c, -1)
    m = cast_to(mean, cdt).reshape(n, g_, 1, 1)
    r = cast_to(rstd, cdt).reshape(n, g_, 1, 1)
    xg = x.reshape(n, g_, c // g_, -1)
    xhat = (xg - m) * r
    gg = g if weight is None else g * cast_to(weight, cdt).reshape(1, c, 1)
    dx = _norm_input_grad(gg.reshape(n, g_, c // g_, -1), xg, m, r, (2, 3))
    xhat_c = xhat.reshape(n, c, -1)
    dw = np.sum(g * xhat_c, axis=(0, 2))
    db = np.sum(g, axis=(0, 2))
    return (
        finish(dx.reshape(a.shape), dt) if output_mask[0] else None,
        finish(dw, dt) if output_mask[1] else None,
        finish(db, dt) if output_mask[2] else None,
    )


@register("aten.convolution_backward.default")
def _convolution_backward(
    grad_output: np.ndarray, input: np.ndarray, weight: np.ndarray, bias_sizes: Sequence[int] | None,
    stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int], transposed: bool,
    output_padding: Sequence[int], groups: int, output_mask: Sequence[bool],
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    w = np.asarray(weight)
    n = w.ndim - 2
    x, unb = unbatch(np.asarray(input), n)
    go, _ = unbatch(np.asarray(grad_output), n)
    dt = x.dtype
    cdt = compute_dtype(dt)
    xc, wc, gc = cast_to(x, cdt), cast_to(w, cdt), cast_to(go, cdt)
    st, pd, dl = expand_param(stride, n), expand_param(padding, n), expand_param(dilation, n)
    g = int(groups)
    gi = gw = gb = None
    if output_mask[0]:
        if transposed:
            gi = conv_nd(gc, wc, st, pd, pd, dl, g)
        else:
            full = conv_transpose_nd(gc, wc, st, pd, dl, [0] * n, g)
            # the transposed conv may be short of the input size when the stride skipped rows
            extra = [x.shape[2 + i] - full.shape[2 + i] for i in range(n)]
            gi = conv_transpose_nd(gc, wc, st, pd, dl, extra, g)
        gi = finish(gi[0] if unb else gi, dt)
    if output_mask[1]:
        # correlate the (grouped) data with the (grouped) output gradient
        src, dst = (gc, xc) if transposed else (xc, gc)
        k = w.shape[2:]
        xp = np.pad(src, [(0, 0), (0, 0)] + [(p, p) for p in pd])
        out = dst.shape[2:]
        win = windows(xp, k, st, dl, out)  # N, Cs, *out, *k
        N, Cs = src.shape[:2]
        Cd = dst.shape[1]
        P, K = math.prod(out), math.prod(k)
        win = win.reshape((N, g, Cs // g) + tuple(out) + tuple(k))
        perm = (1, 0) + tuple(range(3, 3 + n)) + (2,) + tuple(range(3 + n, 3 + 2 * n))
        cols = np.transpose(win, perm).reshape(g, N * P, (Cs // g) * K)
        d = np.moveaxis(dst.reshape((N, g, Cd // g, P)), 1, 0)  # g, N, Cd/g, P
        d = np.swapaxes(d, 2, 3).reshape(g, N * P, Cd // g)
        res = np.matmul(np.swapaxes(d, 1, 2), cols)  # g, Cd/g, Cs/g*K
        if transposed:
            # weight is (Cin, Cout/g, *k): Cin belongs to dst=x, Cout to src=grad_out
            gw = res.reshape((g * (Cd // g), Cs // g) + tuple(k))
        else:
            gw = res.reshape((g * (Cd // g), Cs // g) + tuple(k))
        gw = finish(gw, w.dtype)
    if output_mask[2]:
        gb = finish(np.sum(gc, axis=(0,) + tuple(range(2, 2 + n))), dt)
    return gi, gw, gb


@register("aten.max_pool2d_with_indices_backward.default")
def _max_pool2d_backward(
    grad_output: np.ndarray, self: np.ndarray, kernel_size: Sequence[int], stride: Sequence[int], padding: Sequence[int],
    dilation: Sequence[int], ceil_mode: bool, indices: np.ndarray,
) -> np.ndarray:
    a = np.asarray(self)
    dt = a.dtype
    plane = a.shape[-2] * a.shape[-1]
    lead = math.prod(a.shape[:-2])
    out = np.zeros((lead, plane), dtype=compute_dtype(dt))
    if out.size == 0:
        return finish(out.reshape(a.shape), dt)
    idx = np.asarray(indices).reshape(lead, -1).astype(np.intp)
    np.add.at(out, (np.arange(lead)[:, None], idx), cast_to(grad_output, out.dtype).reshape(lead, -1))
    return finish(out.reshape(a.shape), dt)


@register("aten.avg_pool2d_backward.default")
def _avg_pool2d_backward(
    grad_output: np.ndarray, self: np.ndarray, kernel_size: Sequence[int], stride: Sequence[int], padding: Sequence[int],
    ceil_mode: bool, count_include_pad: bool, divisor_override: int | None,
) -> np.ndarray:
    a = np.asarray(self)
    unb = a.ndim == 3
    x = a[None] if unb else a
    g = np.asarray(grad_output)
    g = g[None] if unb else g
    dt = x.dtype
    cdt = compute_dtype(dt)
    k, s, p, _, out = pool_setup(x, 2, kernel_size, stride, padding, [1, 1], ceil_mode)
    div = avg_divisors(x.shape[2:], k, s, p, out, count_include_pad, divisor_override, cdt)
    per = cast_to(g, cdt) / div
    vals = np.broadcast_to(per[..., None, None], per.shape + tuple(k))
    H, W = x.shape[2:]
    need = [max((out[i] - 1) * s[i] + k[i], x.shape[2 + i] + 2 * p[i]) for i in range(2)]
    full = window_scatter(np.ascontiguousarray(vals), need, s, [1, 1])
    res = finish(full[:, :, p[0] : p[0] + H, p[1] : p[1] + W], dt)
    return res[0] if unb else res


@register("aten._adaptive_avg_pool2d_backward.default")
def _adaptive_avg_pool2d_backward(grad_output: np.ndarray, self: np.ndarray) -> np.ndarray:
    g = np.asarray(grad_output)
    return adaptive_avg(g, g.shape[-2:], transpose=True, like=np.asarray(self)).astype(np.asarray(self).dtype)
