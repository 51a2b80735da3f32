"""Decompositions of the statistics and set composites torch decomposes: `isin`, `argwhere`,
`cov`, `corrcoef`, `trapezoid`/`trapz`/`cumulative_trapezoid`, `cartesian_prod` and
`block_diag` (torch/_refs and ATen's composite kernels: `Integration.cpp` for the trapezoid
rule, with its two forms for a scalar and a tensor spacing)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.exir import DType
from xdsl_exir.semantics.decompositions.core import (
    Decline,
    Emitter,
    cast_to_dtype,
    op_name,
    rule,
    tensor_of,
    triangle_pairs,
)
from xdsl_exir.semantics.inference import Bound, result_type
from xdsl_exir.utils.symbolic import SymSize

__all__: list[str] = []


# -- isin ------------------------------------------------------------------------


@rule("aten.isin.Tensor_Tensor", "aten.isin.Tensor_Scalar", "aten.isin.Scalar_Tensor")
def _isin(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_refs `isin` (its elementwise form): each element compared with every test element,
    both in their common dtype, then `any`; NaN is in nothing. `invert` negates."""
    elements, test = b["elements"] if "elements" in b else b["element"], b["test_elements"] if "test_elements" in b \
        else b["test_element"]
    common = result_type([elements, test])
    if isinstance(test, SSAValue):
        t = cast_to_dtype(e, test, common)
        flat = e.v("aten.view.default", e.v("aten.clone.default", t), [-1])
        if isinstance(elements, SSAValue):
            x = cast_to_dtype(e, elements, common)
            hit = e.v("aten.any.dim", e.v("aten.eq.Tensor", e.v("aten.unsqueeze.default", x, -1), flat), -1)
        else:
            hit = e.v("aten.any.dim", e.v("aten.eq.Scalar", flat, elements), 0)
    else:
        x = cast_to_dtype(e, cast(SSAValue, elements), common)
        hit = e.v("aten.eq.Scalar", x, test)
    if b.get("invert"):
        hit = e.v("aten.logical_not.default", hit)
    return [hit]


# -- covariance and correlation ----------------------------------------------------------


def _cov(e: Emitter, x: SSAValue, correction: int, fweights: object, aweights: object) -> SSAValue:
    """torch/_refs `cov`: observations along dim 1 (a 1-d input is one variable), weighted by
    `fweights * aweights`, normalized by the weighted count less the correction (clamped at 0)."""
    t = tensor_of(x)
    if not t.element_dtype.is_floating_point or t.rank > 2:
        raise Decline()  # torch refuses integer inputs of cov and more than 2 dims
    if t.rank < 2:
        x = e.v("aten.view.default", x, [1, -1])
        t = tensor_of(x)
    n = t.sizes[1]
    w: SSAValue | None = None
    for weights in (fweights, aweights):
        if isinstance(weights, SSAValue):
            wt = cast_to_dtype(e, weights, t.element_dtype)
            w = wt if w is None else e.v("aten.mul.Tensor", w, wt)
    if w is None:
        avg = e.v("aten.mean.dim", x, [1], True)
        if not isinstance(n, int):
            raise Decline()
        norm: SSAValue | float = float(max(n - correction, 0))
    else:
        w_sum = e.v("aten.sum.dim_IntList", w, [])
        avg = e.v("aten.div.Tensor", e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", x, w), [1], True), w_sum)
        if correction == 0:
            norm = w_sum
        elif not isinstance(aweights, SSAValue):
            norm = e.v("aten.sub.Tensor", w_sum, correction)
        else:
            aw = cast_to_dtype(e, aweights, t.element_dtype)
            spread = e.v("aten.div.Tensor", e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", w, aw), []), w_sum)
            norm = e.v("aten.sub.Tensor", w_sum, e.v("aten.mul.Tensor", spread, correction))
        norm = e.v("aten.clamp_min.default", norm, 0)
    centered = e.v("aten.sub.Tensor", x, avg)
    right = centered if w is None else e.v("aten.mul.Tensor", centered, w)
    c = e.v("aten.mm.default", centered, e.v("aten.permute.default", right, [1, 0]))
    c = e.v("aten.div.Tensor", c, norm)
    rows = tensor_of(c).sizes[0]
    return e.v("aten.squeeze.dims", c, [0, 1]) if rows == 1 else c


@rule("aten.cov.default")
def _cov_rule(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [_cov(e, b.value("self"), b.int("correction"), b.get("fweights"), b.get("aweights"))]


@rule("aten.corrcoef.default")
def _corrcoef(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_refs `corrcoef`: the covariance divided by both standard deviations, clipped to
    [-1, 1]; one variable gives c / c."""
    c = _cov(e, b.value("self"), 1, None, None)
    if tensor_of(c).rank == 0:
        return [e.v("aten.div.Tensor", c, c)]
    stddev = e.v("aten.sqrt.default", e.v("aten.diagonal.default", c))
    c = e.v("aten.div.Tensor", c, e.v("aten.unsqueeze.default", stddev, 1))
    c = e.v("aten.div.Tensor", c, e.v("aten.unsqueeze.default", stddev, 0))
    return [e.v("aten.clamp.default", c, -1, 1)]


# -- the trapezoid rule ------------------------------------------------------------------------


def _edges(e: Emitter, y: SSAValue, dim: int) -> tuple[SSAValue, SSAValue]:
    """y without its last and without its first element along `dim`."""
    size = tensor_of(y).sizes[dim]
    if not isinstance(size, int):
        raise Decline()
    return (e.v("aten.slice.Tensor", y, dim, 0, max(size - 1, 0)), e.v("aten.slice.Tensor", y, dim, 1, max(size, 1)))


def _spacing(e: Emitter, y: SSAValue, x: SSAValue, dim: int) -> SSAValue:
    """The differences of the sample points `x` along `dim` (a 1-d `x` lies along `dim`)."""
    ty, tx = tensor_of(y), tensor_of(x)
    if tx.rank == 1:
        shape: list[SymSize] = [1] * ty.rank
        shape[dim] = tx.sizes[0]
        x = e.v("aten.view.default", x, e.sizes(shape))
        xdim = dim
    else:
        xdim = dim % tx.rank if tx.rank else 0
    left, right = _edges(e, x, xdim)
    return e.v("aten.sub.Tensor", right, left)


_FLOAT_RESULT = {DType.bool, DType.uint8, DType.int8, DType.int16, DType.int32, DType.int64}


@rule("aten.trapezoid.x", "aten.trapz.x", "aten.trapezoid.dx", "aten.trapz.dx", "aten.cumulative_trapezoid.x",
      "aten.cumulative_trapezoid.dx")
def _trapezoid(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """ATen's trapezoid rule: with sample points, sum((y[1:] + y[:-1]) * dx) / 2 (the cumulative
    form a `cumsum`); with a scalar spacing, (sum(y) - (y[0] + y[-1]) / 2) * dx, and its
    cumulative form cumsum(dx / 2 * (y[1:] + y[:-1])). An empty dimension gives zeros."""
    y = b.value("y")
    ty = tensor_of(y)
    if ty.rank == 0:
        raise Decline()
    # integer samples are added (and summed) in their own dtype, wrapping as torch's do, and only
    # then meet the float spacing: core IR promotes explicitly
    dtype = result_type([y, b["x"]] if "x" in b else [y, b.get("dx", 1)]).to_floating()
    dim = b.int("dim") % ty.rank
    cumulative = op_name(op).startswith("aten.cumulative_trapezoid")
    size = ty.sizes[dim]
    if not isinstance(size, int):
        raise Decline()
    if size == 0:
        y = cast_to_dtype(e, y, dtype)
        zero = e.v("aten.mul.Tensor", e.v("aten.sum.dim_IntList", y, [dim], True), 0) if cumulative \
            else e.v("aten.mul.Tensor", e.v("aten.sum.dim_IntList", y, [dim]), 0)
        return [e.v("aten.slice.Tensor", zero, dim, 0, 0) if cumulative else zero]
    left, right = _edges(e, y, dim)
    pair = e.v("aten.add.Tensor", left, right)
    if "x" in b:
        x = cast(SSAValue, b["x"])
        common = result_type([y, x])  # torch multiplies and sums in the operands' common dtype
        dx = cast_to_dtype(e, _spacing(e, y, x, dim), common)
        prod = e.v("aten.mul.Tensor", cast_to_dtype(e, pair, common), dx)
        acc = e.v("aten.cumsum.default", prod, dim) if cumulative else e.v("aten.sum.dim_IntList", prod, [dim])
        return [e.v("aten.div.Tensor", cast_to_dtype(e, acc, dtype), 2.0)]
    pair = cast_to_dtype(e, pair, dtype)
    dx = b.get("dx", 1)
    if isinstance(dx, SSAValue):
        raise Decline()
    if cumulative:
        return [e.v("aten.cumsum.default", e.v("aten.mul.Tensor", pair, cast(float, dx) / 2), dim)]
    ends = cast_to_dtype(e, e.v("aten.add.Tensor", e.v("aten.select.int", y, dim, 0), e.v("aten.select.int", y, dim, -1)),
                     dtype)
    total = cast_to_dtype(e, e.v("aten.sum.dim_IntList", y, [dim]), dtype)
    inner = e.v("aten.sub.Tensor", total, e.v("aten.mul.Tensor", ends, 0.5))
    return [e.v("aten.mul.Tensor", inner, dx)]


# -- products and block matrices ----------------------------------------------------------------


@rule("aten.cartesian_prod.default")
def _cartesian_prod(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch's `cartesian_prod`: the `meshgrid` (ij) of the 1-d inputs, each flattened, stacked
    as columns; one input is itself."""
    tensors = cast(list[SSAValue], b["tensors"])
    if not tensors or any(tensor_of(t).rank != 1 for t in tensors):
        raise Decline()
    if len(tensors) == 1:
        return [tensors[0]]
    sizes = [tensor_of(t).sizes[0] for t in tensors]
    columns: list[SSAValue] = []
    for i, t in enumerate(tensors):
        view: list[SymSize] = [1] * len(tensors)
        view[i] = sizes[i]
        grid = e.v("aten.expand.default", e.v("aten.view.default", t, e.sizes(view)), e.sizes(sizes))
        columns.append(e.reshape(grid, [tensor_of(grid).numel()]))
    return [e.v("aten.stack.default", columns, 1)]


@rule("aten.block_diag.default")
def _block_diag(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch's `block_diag`: each input as a 2-d block (0-d: 1x1, 1-d: one row) in the common
    dtype, padded with zeros to the full width at its column offset, the rows concatenated."""
    tensors = cast(list[SSAValue], b["tensors"])
    if not tensors:
        raise Decline()
    common = result_type(tensors)
    blocks: list[SSAValue] = []
    for t in tensors:
        x = cast_to_dtype(e, t, common)
        rank = tensor_of(x).rank
        if rank > 2:
            raise Decline()  # torch refuses more than 2 dims
        if rank < 2:
            x = e.v("aten.view.default", x, [1, -1])
        blocks.append(x)
    widths = [tensor_of(x).sizes[1] for x in blocks]
    if not all(isinstance(w, int) for w in widths):
        raise Decline()
    total = sum(cast(list[int], widths))
    out: list[SSAValue] = []
    offset = 0
    for x, w in zip(blocks, cast(list[int], widths)):
        out.append(e.v("aten.constant_pad_nd.default", x, [offset, total - offset - w], 0))
        offset += w
    return [e.v("aten.cat.default", out, 0)]


@rule("aten.combinations.default")
def _combinations(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Pairs of elements of a 1-d tensor (r = 2) in lexicographic order, with or without repeats."""
    x = b.value("self")
    t = tensor_of(x)
    if t.rank != 1 or b.int("r") != 2 or not isinstance(t.sizes[0], int):
        raise Decline()
    rows, cols = triangle_pairs(e, t.sizes[0], 0 if b.get("with_replacement") else 1, x)
    a = e.v("aten.index_select.default", x, 0, rows)
    c = e.v("aten.index_select.default", x, 0, cols)
    return [e.v("aten.stack.default", [a, c], 1)]
