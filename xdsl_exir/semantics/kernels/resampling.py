"""Resampling kernels: nearest and bilinear upsampling and ``grid_sampler_2d``,
with torch's coordinate conventions (``align_corners``, scales, reflection).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from xdsl_exir.semantics.kernels.dtypes import cast_to, compute_dtype, finish
from xdsl_exir.semantics.kernels.registry import register
from xdsl_exir.utils.aten_enums import require_enum


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


def _floor_index(c: np.ndarray) -> np.ndarray:
    """`floor(c)` as an index; NaN and infinities become an index far outside any input
    (the corner is then skipped, as torch's out-of-range cast lands outside too)."""
    f = np.floor(np.where(np.isfinite(c), c, -(2.0**40)))
    return np.clip(f, -(2.0**40), 2.0**40).astype(np.int64)


def _nearbyint(c: np.ndarray) -> np.ndarray:
    """Round half to even (`std::nearbyint`), as an index like `_floor_index`."""
    return _floor_index(np.round(c))


@register("aten.grid_sampler_2d.default")
def _grid_sampler_2d(input: np.ndarray, grid: np.ndarray, interpolation_mode: int, padding_mode: int, align_corners: bool) -> np.ndarray:
    """Bilinear (0) and nearest (1) sampling with zeros/border/reflection padding; bicubic (2) is not supported."""
    require_enum("aten.grid_sampler_2d", "interpolation_mode", interpolation_mode)
    require_enum("aten.grid_sampler_2d", "padding_mode", padding_mode)
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

    def tap(yy: np.ndarray, xx: np.ndarray, weight: np.ndarray | None = None) -> np.ndarray:
        """One corner's value times its weight; a corner outside the input reads 0, as
        torch's masked gather does (an infinity clipped in from the edge must not make
        `0 * inf` NaN), while a NaN weight (a NaN coordinate) still makes NaN."""
        valid = (xx >= 0) & (xx < W) & (yy >= 0) & (yy < H)
        v = np.where(valid[..., None], xc[n_idx, :, np.clip(yy, 0, H - 1), np.clip(xx, 0, W - 1)], 0)  # N, Ho, Wo, C
        return v if weight is None else v * weight

    if interpolation_mode == 1:
        out = tap(_nearbyint(iy), _nearbyint(ix))
    else:
        x0, y0 = _floor_index(ix), _floor_index(iy)
        fx, fy = np.floor(ix), np.floor(iy)
        wx1, wy1 = (ix - fx)[..., None], (iy - fy)[..., None]
        wx0, wy0 = 1 - wx1, 1 - wy1
        # torch's order: the four corners north-west, north-east, south-west, south-east
        out = tap(y0, x0, wy0 * wx0) + tap(y0, x0 + 1, wy0 * wx1)
        out = out + tap(y0 + 1, x0, wy1 * wx0)
        out = out + tap(y0 + 1, x0 + 1, wy1 * wx1)
    return finish(np.moveaxis(out, -1, 1), dt)
