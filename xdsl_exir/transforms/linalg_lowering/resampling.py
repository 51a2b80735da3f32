"""
Upsampling (`upsample_nearest2d`, `upsample_bilinear2d`, both the `.vec` form
export emits and the `.default` one), computing source positions exactly as
torch's CPU kernels do (`ATen/native/UpSample.h`).

The scale of a spatial dim is `1 / scale_factor` rounded to the kernel's
compute type when a scale factor was given (and is positive), else
`input_size / output_size` in that type; with `align_corners` it is
`(input_size - 1) / (output_size - 1)`. Given and computed scales differ
(`scale_factor=1.7` on 10 pixels gives 17 outputs, and 1/1.7 is not 10/17),
so the rule reads which one the op carries. Nearest takes
`min(floor(i * scale), in - 1)` in float32, except that an output as large as
the input copies and one twice as large takes `i >> 1`. Bilinear takes
`src = scale * (i + 0.5) - 0.5` clamped at 0 (or `scale * i` with
`align_corners`), `i0 = min(floor(src), in - 1)`, `i1 = i0 + 1` unless `i0` is
the last pixel, `lambda1 = clamp(src - i0, 0, 1)` rounded to the input dtype
and `lambda0 = 1 - lambda1`; an output as large as the input copies. The
generic CPU kernel nests the interpolations, the first spatial dim outermost;
its channels-last kernel, which torch also takes for small outputs, keeps
the weights in float32 and sums the four weighted corners
(`_channels_last_kernel`). The rule follows the same choice, so float16
results match torch's bit for bit and float32 ones to an ulp or two.

Per spatial dim, one 1-D `linalg.generic` computes the source indices and
weights of every output position; the main generic reads them through
indexing maps and the input with `tensor.extract`.

`grid_sampler_2d` computes each output's source position from the grid in
the same generic, as torch's `grid_sampler_compute_source_index` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.dialects import arith, math, tensor
from xdsl.dialects.builtin import IndexType, f32, i64
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.transforms.linalg_lowering import lowers
from xdsl_exir.transforms.linalg_lowering.scalar import fmod
from xdsl_exir.transforms.linalg_lowering.state import (
    PARALLEL,
    LoweringState,
    element_type,
    identity_map,
    sized,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    result_of as _result,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    type_of as _t,
)

_SPATIAL = 2


def _scales(b: Bound) -> list[float | None]:
    """The scale factor of each spatial dim that the op carries (None: computed from the sizes)."""
    factors = b.get("scale_factors")
    if factors is not None:
        return [float(cast(float, f)) for f in cast(Sequence[object], factors)]
    if "scales_h" in b:
        return [None if b.get(k) is None else float(cast(float, b[k])) for k in ("scales_h", "scales_w")]
    return [None] * _SPATIAL


def _check(st: LoweringState, op: AtenOp, xt: TensorType, out: TensorType) -> None:
    if xt.rank != 2 + _SPATIAL:
        raise st.error(f"{op.name} of a tensor of rank {xt.rank}, expected {2 + _SPATIAL}")
    if not xt.element_dtype.is_floating_point:
        raise st.error(f"{op.name} of {xt.element_dtype}: torch upsamples floating-point tensors only")
    for d in range(2, xt.rank):
        if not isinstance(xt.sizes[d], int) or not isinstance(out.sizes[d], int):
            raise st.error(f"{op.name}: symbolic spatial sizes are not lowered (the source positions depend on them)")


def _scale_value(st: LoweringState, n_in: int, n_out: int, align_corners: bool, given: float | None, acc: DType) -> SSAValue:
    """`area_pixel_compute_scale` (nearest: align_corners False) in the compute dtype `acc`."""
    if align_corners:
        if n_out <= 1:
            return st.constant(0.0, acc)
        return st.emit(arith.DivfOp(st.constant(n_in - 1, acc), st.constant(n_out - 1, acc)))
    if given is not None and given > 0:
        return st.constant(1.0 / given, acc)  # static_cast<acc>(1.0 / scale): a double, rounded once
    return st.emit(arith.DivfOp(st.constant(n_in, acc), st.constant(n_out, acc)))


def _position(st: LoweringState, acc: DType) -> SSAValue:
    """The output position of a 1-D generic as a float of `acc` (torch converts the int64)."""
    i = st.emit(arith.IndexCastOp(st.emit(IndexOp(0)), i64))
    return st.cast(i, DType.int64, acc)


def _floor_to_int(st: LoweringState, v: SSAValue, acc: DType) -> SSAValue:
    """`static_cast<int64_t>(floorf(v))`: floorf takes a float, so a double is rounded first."""
    if acc is DType.float64:
        v = st.emit(arith.TruncFOp(v, f32))
    return st.cast(st.emit(math.FloorOp(v)), DType.float32, DType.int64)


def _nearest_indices(st: LoweringState, n_in: int, n_out: int, given: float | None) -> SSAValue:
    """`nearest_idx` for each output position: an int64 tensor of `n_out` source indices."""
    out = sized([n_out], DType.int64)

    def body(args: Sequence[SSAValue]) -> list[SSAValue]:
        if n_out == n_in:
            return [_index_i64(st)]
        if n_out == 2 * n_in:
            return [st.emit(arith.ShRSIOp(_index_i64(st), st.constant(1, DType.int64)))]
        scale = _scale_value(st, n_in, n_out, False, given, DType.float32)
        src = _floor_to_int(st, st.emit(arith.MulfOp(_position(st, DType.float32), scale)), DType.float32)
        return [st.emit(arith.MinSIOp(src, st.constant(n_in - 1, DType.int64)))]

    return st.generic([], [(st.empty(out), identity_map(1))], [PARALLEL], body)[0]


def _index_i64(st: LoweringState) -> SSAValue:
    return st.emit(arith.IndexCastOp(st.emit(IndexOp(0)), i64))


def _linear_indices(
    st: LoweringState, n_in: int, n_out: int, align_corners: bool, given: float | None, dtype: DType
) -> list[SSAValue]:
    """
    `compute_source_index_and_lambda` for each output position: the tensors
    (i0, i1, lambda0, lambda1), the indices int64, the weights of `dtype`
    (float32 for float16 and bfloat16 inputs whose kernel keeps them unrounded).
    """
    acc = dtype.opmath()
    index_t, weight_t = sized([n_out], DType.int64), sized([n_out], dtype)

    def body(args: Sequence[SSAValue]) -> list[SSAValue]:
        if n_out == n_in:
            i = _index_i64(st)
            return [i, i, st.constant(1.0, dtype), st.constant(0.0, dtype)]
        scale = _scale_value(st, n_in, n_out, align_corners, given, acc)
        pos = _position(st, acc)
        if align_corners:
            src = st.emit(arith.MulfOp(scale, pos))
        else:
            half = st.constant(0.5, acc)
            src = st.emit(arith.SubfOp(st.emit(arith.MulfOp(scale, st.emit(arith.AddfOp(pos, half)))), half))
            zero = st.constant(0.0, acc)
            src = st.emit(arith.SelectOp(st.emit(arith.CmpfOp(src, zero, "olt")), zero, src))
        last = st.constant(n_in - 1, DType.int64)
        i0 = st.emit(arith.MinSIOp(_floor_to_int(st, src, acc), last))
        step = st.emit(arith.ExtUIOp(st.emit(arith.CmpiOp(i0, last, "slt")), i64))
        i1 = st.emit(arith.AddiOp(i0, step))
        frac = st.emit(arith.SubfOp(src, st.cast(i0, DType.int64, acc)))
        frac = st.emit(arith.MinimumfOp(st.emit(arith.MaximumfOp(frac, st.constant(0.0, acc))), st.constant(1.0, acc)))
        lambda1 = st.cast(frac, acc, dtype)
        # lambda0 = scalar_t(1) - lambda1: computed from the rounded lambda1, rounded again.
        lambda0 = st.cast(st.emit(arith.SubfOp(st.constant(1.0, acc), st.cast(lambda1, dtype, acc))), acc, dtype)
        return [i0, i1, lambda0, lambda1]

    outs = [(st.empty(index_t), identity_map(1)), (st.empty(index_t), identity_map(1))]
    outs += [(st.empty(weight_t), identity_map(1)), (st.empty(weight_t), identity_map(1))]
    return st.generic([], outs, [PARALLEL], body)


def _spatial_map(rank: int, d: int) -> AffineMap:
    return AffineMap(rank, 0, (AffineExpr.dimension(d),))


def _as_index(st: LoweringState, v: SSAValue) -> SSAValue:
    return st.emit(arith.IndexCastOp(v, IndexType()))


@lowers("aten.upsample_nearest2d.vec", "aten.upsample_nearest2d.default", note="symbolic spatial sizes refused")
def _upsample_nearest(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = cast(SSAValue, b.get("input", b.get("self")))
    xt, out = _t(x), _result(op)
    _check(st, op, xt, out)
    rank = out.rank
    scales = _scales(b)
    tables = [
        _nearest_indices(st, cast(int, xt.sizes[2 + k]), cast(int, out.sizes[2 + k]), scales[k]) for k in range(_SPATIAL)
    ]
    src = st.tensor(x)
    el = element_type(out.element_dtype)

    def body(args: Sequence[SSAValue]) -> list[SSAValue]:
        coords = [st.emit(IndexOp(0)), st.emit(IndexOp(1)), *(_as_index(st, a) for a in args[:_SPATIAL])]
        return [st.emit(tensor.ExtractOp(src, coords, el))]

    inputs = [(t, _spatial_map(rank, 2 + k)) for k, t in enumerate(tables)]
    return st.generic(inputs, [(st.empty(out), identity_map(rank))], [PARALLEL] * rank, body)


def _channels_last_kernel(xt: TensorType, out: TensorType) -> bool:
    """
    Whether torch's CPU kernel takes its channels-last path (for a channels-last
    input of more than 3 channels, or an output of height + width <= 128): it
    keeps the weights in float32 and sums the four products of weights, where
    the generic path rounds the weights to the input dtype and nests the sums.
    """
    channels_last = xt.get_dim_order() == (0, 2, 3, 1) and xt.sizes[1] != 1 and not (isinstance(xt.sizes[1], int) and xt.sizes[1] <= 3)
    return channels_last or cast(int, out.sizes[2]) + cast(int, out.sizes[3]) <= 128


@lowers("aten.upsample_bilinear2d.vec", "aten.upsample_bilinear2d.default", note="symbolic spatial sizes refused")
def _upsample_bilinear(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = cast(SSAValue, b.get("input", b.get("self")))
    xt, out = _t(x), _result(op)
    _check(st, op, xt, out)
    rank = out.rank
    dtype = out.element_dtype
    acc = dtype.opmath()
    align_corners = bool(b.get("align_corners"))
    scales = _scales(b)
    flat = _channels_last_kernel(xt, out)
    weights = acc if flat else dtype
    tables = [
        _linear_indices(st, cast(int, xt.sizes[2 + k]), cast(int, out.sizes[2 + k]), align_corners, scales[k], weights)
        for k in range(_SPATIAL)
    ]
    src = st.tensor(x)
    el = element_type(dtype)
    inputs = [(t, _spatial_map(rank, 2 + k)) for k, four in enumerate(tables) for t in four]

    def body(args: Sequence[SSAValue]) -> list[SSAValue]:
        lead = [st.emit(IndexOp(0)), st.emit(IndexOp(1))]
        per_dim = [args[4 * k : 4 * k + 4] for k in range(_SPATIAL)]

        def interpolate(k: int, picked: list[SSAValue]) -> SSAValue:
            """Weights of dim k applied to the interpolations over the dims after it."""
            if k == _SPATIAL:
                return st.cast(st.emit(tensor.ExtractOp(src, [*lead, *picked], el)), dtype, acc)
            i0, i1, w0, w1 = per_dim[k]
            t0 = interpolate(k + 1, [*picked, _as_index(st, i0)])
            t1 = interpolate(k + 1, [*picked, _as_index(st, i1)])
            a = st.emit(arith.MulfOp(t0, st.cast(w0, weights, acc)))
            return st.emit(arith.AddfOp(a, st.emit(arith.MulfOp(t1, st.cast(w1, weights, acc)))))

        def corner(h: SSAValue, w: SSAValue) -> SSAValue:
            coords = [*lead, _as_index(st, h), _as_index(st, w)]
            return st.cast(st.emit(tensor.ExtractOp(src, coords, el)), dtype, acc)

        if flat:
            (h0, h1, lh0, lh1), (w0, w1, lw0, lw1) = per_dim
            total: SSAValue | None = None
            for h, lh in ((h0, lh0), (h1, lh1)):
                for w, lw in ((w0, lw0), (w1, lw1)):
                    term = st.emit(arith.MulfOp(st.emit(arith.MulfOp(lh, lw)), corner(h, w)))
                    total = term if total is None else st.emit(arith.AddfOp(total, term))
            return [st.cast(cast(SSAValue, total), acc, dtype)]
        return [st.cast(interpolate(0, []), acc, dtype)]

    return st.generic(inputs, [(st.empty(out), identity_map(rank))], [PARALLEL] * rank, body)


# -- grid_sampler_2d ------------------------------------------------------------------

_INTERPOLATIONS = {0: "bilinear", 1: "nearest", 2: "bicubic"}
_PADDINGS = {0: "zeros", 1: "border", 2: "reflection"}


def _reflect(st: LoweringState, v: SSAValue, twice_low: int, twice_high: int, acc: DType) -> SSAValue:
    """torch's `reflect_coordinates`: fold `v` into [low, high] by reflecting at both ends."""
    if twice_low == twice_high:
        return st.constant(0.0, acc)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    dist = st.emit(math.AbsFOp(st.emit(arith.SubfOp(v, st.constant(low, acc)))))
    extra = fmod(st, dist, st.constant(span, acc), acc)
    flips = st.emit(math.FloorOp(st.emit(arith.DivfOp(dist, st.constant(span, acc)))))
    half = st.emit(arith.MulfOp(flips, st.constant(0.5, acc)))
    even = st.emit(arith.CmpfOp(st.emit(math.FloorOp(half)), half, "oeq"))
    up = st.emit(arith.AddfOp(extra, st.constant(low, acc)))
    down = st.emit(arith.AddfOp(st.emit(arith.SubfOp(st.constant(span, acc), extra)), st.constant(low, acc)))
    return st.emit(arith.SelectOp(even, up, down))


def _source_coordinate(st: LoweringState, g: SSAValue, size: int, padding: str, align_corners: bool, acc: DType) -> SSAValue:
    """`grid_sampler_compute_source_index`: unnormalize a grid value, then apply the padding mode."""
    one = st.constant(1.0, acc)
    if align_corners:
        v = st.emit(arith.MulfOp(st.emit(arith.DivfOp(st.emit(arith.AddfOp(g, one)), st.constant(2.0, acc))), st.constant(size - 1, acc)))
    else:
        scaled = st.emit(arith.MulfOp(st.emit(arith.AddfOp(g, one)), st.constant(size, acc)))
        v = st.emit(arith.DivfOp(st.emit(arith.SubfOp(scaled, one)), st.constant(2.0, acc)))
    if padding == "reflection":
        v = _reflect(st, v, 0, 2 * (size - 1), acc) if align_corners else _reflect(st, v, -1, 2 * size - 1, acc)
    if padding in ("border", "reflection"):
        # clip_coordinates as the vectorized kernel computes it: max(v, 0) gives 0 for NaN.
        zero, top = st.constant(0.0, acc), st.constant(size - 1, acc)
        v = st.emit(arith.SelectOp(st.emit(arith.CmpfOp(v, zero, "ogt")), v, zero))
        v = st.emit(arith.SelectOp(st.emit(arith.CmpfOp(v, top, "olt")), v, top))
    return v


def _safe(st: LoweringState, v: SSAValue, acc: DType) -> SSAValue:
    """`safe_downgrade_to_int_range`: a NaN, infinite or huge coordinate reads nothing (-100)."""
    finite = st.emit(arith.CmpfOp(st.emit(math.AbsFOp(v)), st.constant(2.0**31 - 2, acc), "olt"))
    return st.emit(arith.SelectOp(finite, v, st.constant(-100.0, acc)))


@lowers("aten.grid_sampler_2d.default", note="bicubic interpolation refused")
def _grid_sampler_2d(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """
    Sampling `input` [N, C, H, W] at `grid` [N, Ho, Wo, 2] (x then y, in
    [-1, 1]) as torch's CPU kernel does: the grid value unnormalized (with or
    without `align_corners`), padded (zeros: taps outside read 0; border:
    clamped; reflection: reflected, then clamped), then bilinear (four taps
    weighted by the distances to the far corner) or nearest (rounded half to
    even) in the input dtype.
    """
    x, grid = b.value("input"), b.value("grid")
    xt, gt, out = _t(x), _t(grid), _result(op)
    interpolation = _INTERPOLATIONS.get(b.int("interpolation_mode"))
    padding = _PADDINGS.get(b.int("padding_mode"))
    if interpolation not in ("bilinear", "nearest") or padding is None:
        raise st.error(f"grid_sampler_2d: {interpolation or 'unknown'} interpolation with {padding or 'unknown'} padding is not lowered")
    if xt.rank != 4 or gt.rank != 4 or not xt.element_dtype.is_floating_point:
        raise st.error(f"grid_sampler_2d of a {xt.element_dtype} input of rank {xt.rank}, expected a 4-d floating-point one")
    h, w = xt.sizes[2], xt.sizes[3]
    if not isinstance(h, int) or not isinstance(w, int):
        raise st.error("grid_sampler_2d: symbolic input height and width are not lowered")
    dtype = out.element_dtype
    acc = dtype
    align_corners = bool(b.get("align_corners"))
    src = st.tensor(x)
    el = element_type(dtype)
    gx = AffineMap(4, 0, (AffineExpr.dimension(0), AffineExpr.dimension(2), AffineExpr.dimension(3), AffineExpr.constant(0)))
    gy = AffineMap(4, 0, (AffineExpr.dimension(0), AffineExpr.dimension(2), AffineExpr.dimension(3), AffineExpr.constant(1)))
    g = st.tensor(grid)

    def body(args: Sequence[SSAValue]) -> list[SSAValue]:
        ix = _source_coordinate(st, args[0], w, padding, align_corners, acc)
        iy = _source_coordinate(st, args[1], h, padding, align_corners, acc)
        if padding != "zeros":
            # The clamped coordinate is read and weighs; with zeros padding torch
            # weighs by the raw one (a NaN coordinate gives NaN) and reads the safe one.
            ix, iy = _safe(st, ix, acc), _safe(st, iy, acc)
        n, c = st.emit(IndexOp(0)), st.emit(IndexOp(1))
        zero = st.constant(0.0, acc)

        def tap(yf: SSAValue, xf: SSAValue) -> SSAValue:
            """The input at integral float coordinates, 0 outside."""
            yi = st.emit(arith.FPToSIOp(_safe(st, yf, acc), i64))
            xi = st.emit(arith.FPToSIOp(_safe(st, xf, acc), i64))
            inside = st.emit(arith.AndIOp(
                st.emit(arith.AndIOp(st.emit(arith.CmpiOp(xi, st.constant(0, DType.int64), "sge")), st.emit(arith.CmpiOp(xi, st.constant(w, DType.int64), "slt")))),
                st.emit(arith.AndIOp(st.emit(arith.CmpiOp(yi, st.constant(0, DType.int64), "sge")), st.emit(arith.CmpiOp(yi, st.constant(h, DType.int64), "slt")))),
            ))  # fmt: skip
            yc = st.emit(arith.MinSIOp(st.emit(arith.MaxSIOp(yi, st.constant(0, DType.int64))), st.constant(h - 1, DType.int64)))
            xc = st.emit(arith.MinSIOp(st.emit(arith.MaxSIOp(xi, st.constant(0, DType.int64))), st.constant(w - 1, DType.int64)))
            value = st.emit(tensor.ExtractOp(src, [n, c, _as_index(st, yc), _as_index(st, xc)], el))
            return st.emit(arith.SelectOp(inside, value, zero))

        if interpolation == "nearest":
            return [tap(st.emit(math.RoundEvenOp(iy)), st.emit(math.RoundEvenOp(ix)))]
        one = st.constant(1.0, acc)
        x0, y0 = st.emit(math.FloorOp(ix)), st.emit(math.FloorOp(iy))
        x1, y1 = st.emit(arith.AddfOp(x0, one)), st.emit(arith.AddfOp(y0, one))
        wx1, wy1 = st.emit(arith.SubfOp(ix, x0)), st.emit(arith.SubfOp(iy, y0))
        wx0, wy0 = st.emit(arith.SubfOp(x1, ix)), st.emit(arith.SubfOp(y1, iy))
        total: SSAValue | None = None
        for yy, wy in ((y0, wy0), (y1, wy1)):
            for xx, wx in ((x0, wx0), (x1, wx1)):
                term = st.emit(arith.MulfOp(tap(yy, xx), st.emit(arith.MulfOp(wx, wy))))
                total = term if total is None else st.emit(arith.AddfOp(total, term))
        return [cast(SSAValue, total)]

    rank = out.rank
    return st.generic([(g, gx), (g, gy)], [(st.empty(out), identity_map(rank))], [PARALLEL] * rank, body)
