"""
Normalization layers: `native_layer_norm` and `native_group_norm` (batch norm is in
`conv_pool` for now), each a two-pass mean and sum of squared deviations in float64
(`reductions.mean_and_sq_dev`), then one generic applying the normalization and the
affine parameters.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.transforms.linalg_lowering import lowers
from xdsl_exir.transforms.linalg_lowering.reductions import (
    count,
    finish,
    mean_and_sq_dev,
    pointwise,
    reduced_map,
    reduced_sizes,
    rstd_of,
)
from xdsl_exir.transforms.linalg_lowering.scalar import (
    add,
    mul,
    sub,
)
from xdsl_exir.transforms.linalg_lowering.state import (
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
from xdsl_exir.transforms.linalg_lowering.views import collapse, expand


def _d(i: int) -> AffineExpr:
    return AffineExpr.dimension(i)


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
