"""
Pairwise distances (`_cdist_forward`, `_pdist_forward`) as torch's CPU kernels
compute them. The direct form reduces over the feature dim: a sum of
`|a - b| ** p` then its `1/p`-th power, a square root for p = 2, the count of
nonzero differences for p = 0 (`min(ceil(|a - b|), 1)` each, so that NaN
stays NaN), the largest difference for p = inf (as `std::max` keeps it: a
NaN difference is skipped). For p = 2
`cdist` takes torch's matrix-product form when torch does (compute_mode
`use_mm_for_euclid_dist`, or the default with more than 25 rows on either
side): `sqrt(max(sum(-2 a b) + |a|^2 + |b|^2, 0))`, which rounds differently
from the direct form (with symbolic row counts, both forms and a select at
run time). `pdist` is the direct form over the pairs i < j in
row-major order: a distance matrix, then a gather of its upper triangle.
"""

from __future__ import annotations

import math as pymath
from collections.abc import Sequence
from typing import cast

from xdsl.dialects import arith, math, tensor
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import TensorType
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.transforms.linalg_lowering import lowers
from xdsl_exir.transforms.linalg_lowering.scalar import pow_
from xdsl_exir.transforms.linalg_lowering.state import (
    PARALLEL,
    REDUCTION,
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


def _side_map(t: TensorType, out: Sequence[object], row_loop: int) -> AffineMap:
    """x [..., rows, M] read from loops (batch..., i, j, k): batch broadcast, rows at `row_loop`, M at k."""
    loops = len(out) + 1
    lead = len(out) - 2 - (t.rank - 2)
    exprs: list[AffineExpr] = []
    for d in range(t.rank - 2):
        o = d + lead
        exprs.append(AffineExpr.constant(0) if t.sizes[d] == 1 and out[o] != 1 else AffineExpr.dimension(o))
    exprs += [AffineExpr.dimension(row_loop), AffineExpr.dimension(loops - 1)]
    return AffineMap(loops, 0, tuple(exprs))


def _direct(st: LoweringState, a: SSAValue, at: TensorType, b: SSAValue, bt: TensorType, out: TensorType, p: float) -> SSAValue:
    """The direct distance of every (row of a, row of b) pair, in `out`'s sizes and dtype."""
    rank = out.rank
    dtype = out.element_dtype
    acc = dtype.opmath()
    out_map = AffineMap(rank + 1, 0, tuple(AffineExpr.dimension(d) for d in range(rank)))
    power = st.constant(p, acc)

    def body(args: Sequence[SSAValue]) -> list[SSAValue]:
        x, y, total = st.cast(args[0], dtype, acc), st.cast(args[1], dtype, acc), args[2]
        diff = st.emit(math.AbsFOp(st.emit(arith.SubfOp(x, y))))
        if p == 0:
            # min(ceil(|a - b|), 1), as torch's kernel counts: NaN stays NaN
            term = st.emit(arith.MinimumfOp(st.emit(math.CeilOp(diff)), st.constant(1.0, acc)))
        elif pymath.isinf(p):
            # std::max(agg, diff): a NaN difference never replaces the running maximum
            return [st.emit(arith.SelectOp(st.emit(arith.CmpfOp(total, diff, "olt")), diff, total))]
        elif p == 1:
            term = diff
        elif p == 2:
            term = st.emit(arith.MulfOp(diff, diff))
        else:
            term = pow_(st, diff, power, acc)
        return [st.emit(arith.AddfOp(total, term))]

    sums = st.generic(
        [(a, _side_map(at, out.sizes, rank - 2)), (b, _side_map(bt, out.sizes, rank - 1))],
        [(st.filled(out, 0.0, acc), out_map)],
        [PARALLEL] * rank + [REDUCTION],
        body,
    )[0]

    def finish(args: Sequence[SSAValue]) -> list[SSAValue]:
        v = args[0]
        if p == 2:
            v = st.emit(math.SqrtOp(v))
        elif p not in (0, 1) and not pymath.isinf(p):
            v = pow_(st, v, st.constant(1.0 / p, acc), acc)
        return [st.cast(v, acc, dtype)]

    ident = identity_map(rank)
    return st.generic([(sums, ident)], [(st.empty(out), ident)], [PARALLEL] * rank, finish)[0]


def _by_products(st: LoweringState, a: SSAValue, at: TensorType, b: SSAValue, bt: TensorType, out: TensorType) -> SSAValue:
    """torch's `_euclidean_dist`: [-2a, |a|^2, 1] . [b, 1, |b|^2], clamped at 0, square-rooted."""
    rank = out.rank
    dtype = out.element_dtype
    acc = dtype.opmath()
    out_map = AffineMap(rank + 1, 0, tuple(AffineExpr.dimension(d) for d in range(rank)))
    minus_two = st.constant(-2.0, acc)

    def body(args: Sequence[SSAValue]) -> list[SSAValue]:
        x, y = st.cast(args[0], dtype, acc), st.cast(args[1], dtype, acc)
        dot, n1, n2 = args[2], args[3], args[4]
        return [
            st.emit(arith.AddfOp(dot, st.emit(arith.MulfOp(st.emit(arith.MulfOp(minus_two, x)), y)))),
            st.emit(arith.AddfOp(n1, st.emit(arith.MulfOp(x, x)))),
            st.emit(arith.AddfOp(n2, st.emit(arith.MulfOp(y, y)))),
        ]

    parts = st.generic(
        [(a, _side_map(at, out.sizes, rank - 2)), (b, _side_map(bt, out.sizes, rank - 1))],
        [(st.filled(out, 0.0, acc), out_map) for _ in range(3)],
        [PARALLEL] * rank + [REDUCTION],
        body,
    )

    def finish(args: Sequence[SSAValue]) -> list[SSAValue]:
        v = st.emit(arith.AddfOp(st.emit(arith.AddfOp(args[0], args[1])), args[2]))
        zero = st.constant(0.0, acc)
        v = st.emit(arith.SelectOp(st.emit(arith.CmpfOp(v, zero, "olt")), zero, v))  # clamp_min keeps NaN
        return [st.cast(st.emit(math.SqrtOp(v)), acc, dtype)]

    ident = identity_map(rank)
    return st.generic([(v, ident) for v in parts], [(st.empty(out), ident)], [PARALLEL] * rank, finish)[0]


@lowers("aten._cdist_forward.default")
def _cdist(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x1, x2 = b.value("x1"), b.value("x2")
    t1, t2, out = _t(x1), _t(x2), _result(op)
    if not out.element_dtype.is_floating_point:
        raise st.error(f"cdist of {out.element_dtype}: torch computes distances of floating-point tensors only")
    p = float(cast(float, b["p"]))
    mode = b.get("compute_mode")
    a, b_ = st.tensor(x1), st.tensor(x2)
    if p == 2 and mode != 2:
        rows = (t1.sizes[-2], t2.sizes[-2])
        if mode == 1 or any(isinstance(r, int) and r > 25 for r in rows):
            return [_by_products(st, a, t1, b_, t2, out)]
        if not all(isinstance(r, int) for r in rows):
            # The form depends on the row counts, known at run time: both, and a select.
            many = [st.emit(arith.CmpiOp(st.index(r), st.index(25), "sgt")) for r in rows]
            use_products = st.emit(arith.OrIOp(many[0], many[1]))
            products = _by_products(st, a, t1, b_, t2, out)
            direct = _direct(st, a, t1, b_, t2, out, p)
            ident = identity_map(out.rank)
            return st.generic(
                [(products, ident), (direct, ident)], [(st.empty(out), ident)], [PARALLEL] * out.rank,
                lambda v: [st.emit(arith.SelectOp(use_products, v[0], v[1]))],
            )  # fmt: skip
    return [_direct(st, a, t1, b_, t2, out, p)]


@lowers("aten._pdist_forward.default", note="a symbolic row count refused")
def _pdist(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b.value("self")
    xt, out = _t(x), _result(op)
    n = xt.sizes[0]
    if xt.rank != 2 or not isinstance(n, int):
        raise st.error("pdist needs a 2-d tensor with a static row count")
    if not out.element_dtype.is_floating_point:
        raise st.error(f"pdist of {out.element_dtype}: torch computes distances of floating-point tensors only")
    p = float(cast(float, b.get("p", 2.0)))
    dtype = out.element_dtype
    value = st.tensor(x)
    full = _direct(st, value, xt, value, xt, sized([n, n], dtype), p)

    def body(args: Sequence[SSAValue]) -> list[SSAValue]:
        """Pair k is (i, k - start(i) + i + 1) for the row i whose range holds k."""
        acc = args[1]
        k = st.emit(IndexOp(0))
        i = st.emit(IndexOp(1))
        # start(i) = i * (2n - i - 1) / 2, exact in integers
        start = st.emit(arith.DivUIOp(st.emit(arith.MuliOp(i, st.emit(arith.SubiOp(st.index(2 * n - 1), i)))), st.index(2)))
        j = st.emit(arith.AddiOp(st.emit(arith.SubiOp(k, start)), st.emit(arith.AddiOp(i, st.index(1)))))
        hit = st.emit(arith.AndIOp(st.emit(arith.CmpiOp(k, start, "sge")), st.emit(arith.CmpiOp(j, st.index(n), "slt"))))
        column = st.emit(arith.SelectOp(hit, j, st.index(0)))
        d = st.emit(tensor.ExtractOp(full, [i, column], element_type(dtype)))
        return [st.emit(arith.SelectOp(hit, d, acc))]

    # The first column of the distance matrix gives the loop over i its extent.
    rows = AffineMap(2, 0, (AffineExpr.dimension(1), AffineExpr.constant(0)))
    first = AffineMap(2, 0, (AffineExpr.dimension(0),))
    return st.generic([(full, rows)], [(st.filled(out, 0.0), first)], [PARALLEL, REDUCTION], body)
