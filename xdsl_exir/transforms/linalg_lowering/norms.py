"""
Normalization layers: batch norm (`_native_batch_norm_legit` and its forms),
`native_layer_norm` and `native_group_norm`, each a two-pass mean and sum of squared deviations in float64
(`reductions.mean_and_sq_dev`), then one generic applying the normalization and the
affine parameters.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.dialects import math
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.transforms.linalg_lowering import lowers
from xdsl_exir.transforms.linalg_lowering.core import (
    collapse,
    count,
    expand,
    finish,
    mean_and_sq_dev,
    pointwise,
    reduced_map,
    reduced_sizes,
    rstd_of,
)
from xdsl_exir.transforms.linalg_lowering.core import dim_expr as _d
from xdsl_exir.transforms.linalg_lowering.scalar import (
    add,
    mul,
    sub,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    PARALLEL,
    LoweringState,
    broadcast_map,
    element_type,
    identity_map,
    sized,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    result_of as _out,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    type_of as _t,
)

Param = tuple[SSAValue, DType, AffineMap] | None
"""A lowered weight or bias, its dtype and the map it is read through (None when absent)."""


def _param(st: LoweringState, value: object, amap: AffineMap) -> Param:
    return None if value is None else (st.tensor(value), _t(value).element_dtype, amap)


def _affine(
    st: LoweringState,
    x: SSAValue,
    xt: TensorType,
    out_dtype: DType,
    stats: Sequence[tuple[SSAValue, AffineMap]],
    weight: Param,
    bias: Param,
    cd: DType,
) -> SSAValue:
    """`(x - mean) * rstd [* weight] [+ bias]` over `x` (lowered, of type `xt`), the rest read through their maps."""
    rank = xt.rank
    src = xt.element_dtype
    present = [p for p in (weight, bias) if p is not None]
    inputs = [(x, identity_map(rank)), *stats, *((v, m) for v, _, m in present)]

    def body(a: Sequence[SSAValue]) -> list[SSAValue]:
        y = mul(st, sub(st, st.cast(a[0], src, cd), a[1], cd), a[2], cd)
        k = 3
        if weight is not None:
            y = mul(st, y, st.cast(a[k], weight[1], cd), cd)
            k += 1
        if bias is not None:
            y = add(st, y, st.cast(a[k], bias[1], cd), cd)
        return [st.cast(y, cd, out_dtype)]

    return pointwise(st, xt.sizes, inputs, out_dtype, body)


@lowers("aten.native_layer_norm.default")
def _layer_norm(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b.value("input")
    xt, out = _t(x), _out(op)
    rank = xt.rank
    k = len(cast(Sequence[object], b["normalized_shape"]))
    dims = list(range(rank - k, rank))
    cd = xt.element_dtype.opmath()
    mean, ssd = mean_and_sq_dev(st, st.tensor(x), xt, dims, cd)
    rsizes = reduced_sizes(xt.sizes, dims, False)
    rstd = rstd_of(st, ssd, rsizes, count(st, xt.sizes, dims, cd), b["eps"], cd)
    rmap = reduced_map(rank, dims, False)
    weight, bias = b.get("weight"), b.get("bias")
    y = _affine(
        st, st.tensor(x), xt, out.element_dtype, [(mean, rmap), (rstd, rmap)],
        _param(st, weight, broadcast_map(_t(weight).sizes, xt.sizes)) if weight is not None else None,
        _param(st, bias, broadcast_map(_t(bias).sizes, xt.sizes)) if bias is not None else None,
        cd,
    )  # fmt: skip
    return [
        y,
        finish(st, mean, dims, True, cd, _out(op, 1)),
        finish(st, rstd, dims, True, cd, _out(op, 2)),
    ]


@lowers("aten.native_group_norm.default", note="a symbolic channel count refused")
def _group_norm(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b.value("input")
    xt, out = _t(x), _out(op)
    rank = xt.rank
    groups = b.int("group")
    channels = xt.sizes[1] if rank >= 2 else None
    if not isinstance(channels, int) or groups <= 0 or channels % groups:
        raise st.error("native_group_norm needs a static channel count divisible by the groups")
    per = channels // groups
    cd = xt.element_dtype.opmath()
    # [N, C, *S] -> [N, G, C/G, *S]; reduce over everything after G.
    gsizes = [xt.sizes[0], groups, per, *xt.sizes[2:]]
    split = [[0], [1, 2], *([i + 1] for i in range(2, rank))]
    grouped = expand(st, st.tensor(x), split, gsizes, element_type(xt.element_dtype))
    gt = sized(gsizes, xt.element_dtype)
    dims = list(range(2, rank + 1))
    mean, ssd = mean_and_sq_dev(st, grouped, gt, dims, cd)
    stat_sizes = [xt.sizes[0], groups]
    rstd = rstd_of(st, ssd, stat_sizes, count(st, gsizes, dims, cd), b["eps"], cd)
    # normalised in the grouped shape, where every map is a projection (IREE
    # cannot tile a `c floordiv (C/G)` map), then merged back to [N, C, *S]
    grank = rank + 1
    smap = AffineMap(grank, 0, (_d(0), _d(1)))
    cmap = AffineMap(grank, 0, (_d(1), _d(2)))

    def param(value: object) -> Param:
        if value is None:
            return None
        dt = _t(value).element_dtype
        return (expand(st, st.tensor(value), [[0, 1]], [groups, per], element_type(dt)), dt, cmap)

    y = _affine(st, grouped, gt, out.element_dtype, [(mean, smap), (rstd, smap)], param(b.get("weight")), param(b.get("bias")), cd)
    return [
        collapse(st, y, split, out.sizes, element_type(out.element_dtype)),
        st.convert(mean, sized(stat_sizes, cd), _out(op, 1).element_dtype),
        st.convert(rstd, sized(stat_sizes, cd), _out(op, 2).element_dtype),
    ]


Stat = tuple[SSAValue, DType]
"""A lowered per-channel tensor and its dtype."""


def _normalize_channels(
    st: LoweringState,
    x: SSAValue,
    out: TensorType,
    mean: Stat,
    spread: Stat,
    spread_is_var: bool,
    weight: object | None,
    bias: object | None,
    eps: object,
) -> SSAValue:
    """
    `x * scale + shift` with `scale = weight * rstd` and `shift = bias - mean *
    scale`, the one scale and shift per channel (dimension 1) torch's CPU
    kernel applies; `rstd` is `spread`, or `rsqrt(spread + eps)` for a variance.
    One elementwise generic reading the per-channel tensors along dimension 1.
    """
    xt = _t(x)
    rank = xt.rank
    cd = out.element_dtype.opmath()
    channel = AffineMap(rank, 0, (_d(1),))
    params = [(st.tensor(p), _t(p).element_dtype) if p is not None else None for p in (weight, bias)]
    stats: list[Stat] = [mean, spread, *(p for p in params if p is not None)]
    inputs = [(st.tensor(x), identity_map(rank)), *((v, channel) for v, _ in stats)]
    dtypes = [xt.element_dtype, *(dt for _, dt in stats)]

    def body(a: Sequence[SSAValue]) -> list[SSAValue]:
        vals = [st.cast(v, dt, cd) for v, dt in zip(a, dtypes)]
        value, mu, spread_v, rest = vals[0], vals[1], vals[2], vals[3:]
        scale = st.emit(math.RsqrtOp(add(st, spread_v, st.scalar(eps, cd), cd))) if spread_is_var else spread_v
        if params[0] is not None:
            scale = mul(st, scale, rest.pop(0), cd)
        shift = sub(st, st.constant(0.0, cd), mul(st, mu, scale, cd), cd)
        if params[1] is not None:
            shift = add(st, rest.pop(0), shift, cd)
        return [st.cast(add(st, mul(st, value, scale, cd), shift, cd), cd, out.element_dtype)]

    return st.generic(inputs, [(st.empty(out), identity_map(rank))], [PARALLEL] * rank, body)[0]


def _stat(st: LoweringState, v: object) -> Stat:
    return st.tensor(v), _t(v).element_dtype


@lowers("aten._native_batch_norm_legit_no_training.default")
def _batch_norm(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """Inference batch norm from the running statistics; the saved mean and rstd of training are empty."""
    x = b.value("input")
    mean, var = _stat(st, b["running_mean"]), _stat(st, b["running_var"])
    y = _normalize_channels(st, x, _out(op), mean, var, True, b.get("weight"), b.get("bias"), b["eps"])
    return [y, st.empty(_out(op, 1)), st.empty(_out(op, 2))]


def _training_batch_norm(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """Batch norm from the batch's own statistics (biased variance), which are also its 2nd and 3rd results."""
    x = b.value("input")
    xt, out = _t(x), _out(op)
    cd = xt.element_dtype.opmath()
    dims = [i for i in range(xt.rank) if i != 1]
    mean, ssd = mean_and_sq_dev(st, st.tensor(x), xt, dims, cd)
    rstd = rstd_of(st, ssd, [xt.sizes[1]], count(st, xt.sizes, dims, cd), b["eps"], cd)
    y = _normalize_channels(st, x, out, (mean, cd), (rstd, cd), False, b.get("weight"), b.get("bias"), b["eps"])
    channels = sized([xt.sizes[1]], cd)
    return [y, st.convert(mean, channels, _out(op, 1).element_dtype), st.convert(rstd, channels, _out(op, 2).element_dtype)]


@lowers("aten._native_batch_norm_legit.no_stats", note="training=False refused: no statistics to normalise with")
def _batch_norm_no_stats(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    if not b["training"]:
        raise st.error("_native_batch_norm_legit.no_stats with training=False has no statistics to normalise with")
    return _training_batch_norm(st, op, b)


@lowers("aten._native_batch_norm_legit.default", note="training=True refused: it updates the running statistics in place")
def _batch_norm_legit(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    if b["training"]:
        raise st.error(
            "_native_batch_norm_legit with training=True updates running_mean and running_var in place, "
            "which the value-semantics lowering does not express; export the model in eval mode"
        )
    return list(_batch_norm(st, op, b))
