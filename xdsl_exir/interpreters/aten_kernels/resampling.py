"""Resampling kernels: nearest and bilinear upsampling and ``grid_sampler_2d``,
with torch's coordinate conventions (``align_corners``, scales, reflection).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from xdsl_exir.interpreters.aten_kernels.dtypes import cast_to, compute_dtype, finish
from xdsl_exir.interpreters.aten_kernels.registry import register


def _area_scale(in_size: int, out_size: int, align_corners: bool, scale: float | None) -> float:
    if align_corners:
        return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else in_size / out_size


def _upsample_sizes(x: np.ndarray, output_size: Sequence[int] | None, scale_factors: Sequence[float] | None) -> tuple[list[int], list[float | None]]:
    if output_size is not None:
        return [int(s) for s in output_size], [None, None]
    assert scale_factors is not None
    sizes = [int(math.floor(x.shape[-2 + i] * scale_factors[i])) for i in range(2)]
    return sizes, [float(f) for f in scale_factors]


@register("aten.upsample_nearest2d.default", "aten.upsample_nearest2d.vec")
def _upsample_nearest2d(
    self: np.ndarray | None = None, output_size: Sequence[int] | None = None, scales_h: float | None = None,
    scales_w: float | None = None, input: np.ndarray | None = None, scale_factors: Sequence[float] | None = None,
) -> np.ndarray:
    x = np.asarray(self if self is not None else input)
    sizes, scales = _upsample_sizes(x, output_size, scale_factors)
    if scale_factors is None:
        scales = [scales_h, scales_w]
    idx = []
    for i in range(2):
        in_size = x.shape[-2 + i]
        sc = _area_scale(in_size, sizes[i], False, scales[i])
        src = np.minimum(np.floor(np.arange(sizes[i]) * np.float32(sc)).astype(np.intp), in_size - 1)
        idx.append(src)
    return x[..., idx[0][:, None], idx[1][None, :]]


@register("aten.upsample_bilinear2d.default", "aten.upsample_bilinear2d.vec")
def _upsample_bilinear2d(
    self: np.ndarray | None = None, output_size: Sequence[int] | None = None, align_corners: bool = False,
    scales_h: float | None = None, scales_w: float | None = None, input: np.ndarray | None = None,
    scale_factors: Sequence[float] | None = None,
) -> np.ndarray:
    x = np.asarray(self if self is not None else input)
    dt = x.dtype
    cdt = compute_dtype(dt)
    sizes, scales = _upsample_sizes(x, output_size, scale_factors)
    if scale_factors is None:
        scales = [scales_h, scales_w]
    y = cast_to(x, cdt)
    for i in range(2):
        axis = y.ndim - 2 + i
        in_size = y.shape[axis]
        sc = _area_scale(in_size, sizes[i], align_corners, scales[i])
        dst = np.arange(sizes[i], dtype=cdt)
        src = dst * cdt.type(sc) if align_corners else np.maximum((dst + cdt.type(0.5)) * cdt.type(sc) - cdt.type(0.5), 0)
        i0 = np.minimum(np.floor(src).astype(np.intp), in_size - 1)
        i1 = np.minimum(i0 + 1, in_size - 1)
        lam = (src - i0).astype(cdt)
        shape = [1] * y.ndim
        shape[axis] = sizes[i]
        lam = lam.reshape(shape)
        y = np.take(y, i0, axis=axis) * (1 - lam) + np.take(y, i1, axis=axis) * lam
    return finish(y, dt)


def _reflect(x: np.ndarray, twice_low: int, twice_high: int) -> np.ndarray:
    if twice_low == twice_high:
        return np.zeros_like(x)
    mn = twice_low / 2
    span = (twice_high - twice_low) / 2
    x = np.abs(x - mn)
    extra = np.fmod(x, span)
    flips = np.floor(x / span)
    return np.where(flips % 2 == 0, extra + mn, span - extra + mn)


@register("aten.grid_sampler_2d.default")
def _grid_sampler_2d(input: np.ndarray, grid: np.ndarray, interpolation_mode: int, padding_mode: int, align_corners: bool) -> np.ndarray:
    """Bilinear (0) and nearest (1) sampling with zeros/border/reflection padding; bicubic (2) is not supported."""
    if interpolation_mode not in (0, 1):
        raise NotImplementedError("grid_sampler_2d: bicubic interpolation is not implemented")
    x = np.asarray(input)
    dt = x.dtype
    cdt = compute_dtype(dt)
    xc = cast_to(x, cdt)
    g = cast_to(grid, cdt)
    N, C, H, W = x.shape
    coords = []
    for size, comp in ((W, g[..., 0]), (H, g[..., 1])):
        c = (comp + 1) / 2 * (size - 1) if align_corners else ((comp + 1) * size - 1) / 2
        if padding_mode == 1:
            c = np.clip(c, 0, size - 1)
        elif padding_mode == 2:
            c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
            c = np.clip(c, 0, size - 1)
        coords.append(c)
    ix, iy = coords
    n_idx = np.arange(N).reshape(N, 1, 1)

    def tap(yy: np.ndarray, xx: np.ndarray) -> np.ndarray:
        valid = (xx >= 0) & (xx < W) & (yy >= 0) & (yy < H)
        v = xc[n_idx, :, np.clip(yy, 0, H - 1), np.clip(xx, 0, W - 1)]  # N, Ho, Wo, C
        return v * valid[..., None]

    if interpolation_mode == 1:
        out = tap(np.round(iy).astype(np.intp), np.round(ix).astype(np.intp))
    else:
        x0, y0 = np.floor(ix).astype(np.intp), np.floor(iy).astype(np.intp)
        wx1, wy1 = (ix - x0)[..., None], (iy - y0)[..., None]
        wx0, wy0 = 1 - wx1, 1 - wy1
        out = (
            tap(y0, x0) * wy0 * wx0 + tap(y0, x0 + 1) * wy0 * wx1
            + tap(y0 + 1, x0) * wy1 * wx0 + tap(y0 + 1, x0 + 1) * wy1 * wx1
        )
    return finish(np.moveaxis(out, -1, 1), dt)
