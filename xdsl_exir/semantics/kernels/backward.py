"""Kernels of gradient operators: the input gradients of layer and group norm (their
affine gradients are sums over the normalized input) and of the embedding.

The gradients of convolution and pooling stay beside their forward kernels in
`conv_pool`, whose window machinery they run backwards."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

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
