"""
Reductions, softmax and the normalisations that reduce: one `linalg.generic`
with `reduction` iterators per pass over the data.

The iteration space of a reduction is the input's; the output's indexing map
drops the reduced dimensions, or maps them to the constant 0 for `keepdim`
(the result keeps a dimension of size 1). Accumulators start from a
`linalg.fill` with the identity of the combiner (0, 1, -inf, +inf, the
integer extremes). Sums of integers and bools accumulate in int64, as
PyTorch's CPU kernels do (the result type, computed by torch, says which).
`dim=None` or `[]` reduces every dimension, negative dims wrap, and a 0-d
tensor reduces over nothing.

Floating-point sums (`sum`, `mean`, the statistics of `var`/`std` and of the
normalisations, softmax denominators, vector norms) accumulate in float64 and
round once to the result type. A `linalg.generic` reduction is a sequential
loop per output element (IREE splits it into a few vector lanes, no more), so
a float32 accumulator loses about `n * 2**-24` of the sum: 2**23 values in
[100, 101) average to 107.9. torch's CPU kernels use a cascade of float32
partial sums instead; a float64 accumulator is within their error at any
length, needs no reshaping of symbolic or non-contiguous reduced dims, and
costs about 1.5x on a reduction that does nothing else (IREE, one thread).

Index-returning reductions (`argmax`, `max.dim`, the max-pool indices in
`conv_pool`) use a combiner that does not depend on the order the compiler
visits the window in: NaN beats every number, a larger value beats a smaller
one, and on a tie the smaller index wins. That is torch's answer (the first
maximum, the first NaN) whatever order IREE chooses to reduce in.

Two-pass statistics (`var` here, batch, layer and group norm in `norms`) compute the mean first and then the sum of squared
deviations from it, both in float64, never `E[x^2] - E[x]^2`, which cancels
catastrophically; PyTorch's kernels use Welford's algorithm in double, a
one-pass way of getting the same numbers.

`sort` and `topk` by counting: linalg on tensors has no sort, so the position
of element i along the sorted dim is the number of elements that come before
it (smaller, or equal and earlier: a stable sort, as torch's CPU kernel is),
one generic with a reduction over the dim; a second generic gathers, for each
position, the element whose rank it is, and its index. NaN sorts after every
number ascending and before every number descending, as in torch. That is
quadratic in the length of the sorted dim (a 1024-long row costs a million
comparisons), which suits the short rows of detection heads and samplers; a
vocabulary-wide `topk` is slow.

`topk` is the first k positions of the descending (`largest`) or ascending
sort; with `sorted=False` torch leaves the order of those k unspecified, and
this rule gives them sorted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    i64,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.transforms.linalg_lowering import lowers
from xdsl_exir.transforms.linalg_lowering.core import (
    accumulator,
    better,
    count,
    dim_expr,
    finish,
    highest,
    lowest,
    reduce,
    reduced_map,
    sum_over,
    wide_mean_and_sq_dev,
)
from xdsl_exir.transforms.linalg_lowering.scalar import (
    add,
    compare,
    div,
    float_power,
    maximum,
    minimum,
    mul,
    select,
    sub,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    PARALLEL,
    REDUCTION,
    LoweringState,
    identity_map,
    sized,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    result_of as _out,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    result_of as _result,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    type_of as _t,
)
from xdsl_exir.utils.symbolic import SymSize

INT64_MAX = 2**63 - 1


# -- shapes and maps -----------------------------------------------------------


def reduction_dims(dim: object, rank: int) -> list[int]:
    """The reduced dims, sorted: None or [] mean all, negatives wrap, a 0-d tensor has none."""
    if rank == 0:
        return []
    if dim is None:
        return list(range(rank))
    dims = [dim] if isinstance(dim, int) else list(cast(Sequence[int], dim))
    if not dims:
        return list(range(rank))
    return sorted({int(d) % rank for d in dims})


# -- builders ------------------------------------------------------------------


def linear_index(st: LoweringState, sizes: Sequence[object], dims: Sequence[int]) -> SSAValue:
    """Inside a generic body: the row-major index over `dims` (of `sizes`) as an i64."""
    if not dims:
        return st.constant(0, DType.int64)
    acc = st.emit(linalg.IndexOp(dims[0]))
    for d in dims[1:]:
        acc = st.emit(arith.MuliOp(acc, st.index(sizes[d])))
        acc = st.emit(arith.AddiOp(acc, st.emit(linalg.IndexOp(d))))
    return st.emit(arith.IndexCastOp(acc, i64))


# -- sums, means, products -----------------------------------------------------


def _sum(st: LoweringState, x: SSAValue, dims: Sequence[int], acc: DType) -> SSAValue:
    """The sum of exir tensor `x` over `dims` (dropped), in `acc`."""
    xt = _t(x)
    src = xt.element_dtype
    return sum_over(st, xt.sizes, dims, [(st.tensor(x), identity_map(xt.rank))], lambda a: st.cast(a[0], src, acc), acc)


@lowers("aten.sum.dim_IntList", "aten.sum.default")
def _sum_rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b.value("self")
    out = _out(op)
    dims = reduction_dims(b.get("dim"), _t(x).rank)
    keepdim = bool(b.get("keepdim", False))
    acc = accumulator(out.element_dtype)
    return [finish(st, _sum(st, x, dims, acc), dims, keepdim, acc, out)]


@lowers("aten.mean.dim", "aten.mean.default")
def _mean_rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b.value("self")
    xt, out = _t(x), _out(op)
    if not out.element_dtype.is_floating_point:
        raise st.error("mean of a non-floating-point result")
    dims = reduction_dims(b.get("dim"), xt.rank)
    keepdim = bool(b.get("keepdim", False))
    acc = accumulator(out.element_dtype)
    red = _sum(st, x, dims, acc)
    n = count(st, xt.sizes, dims, acc)
    return [finish(st, red, dims, keepdim, acc, out, lambda v: div(st, v, n, acc))]


@lowers("aten.prod.dim_int", "aten.prod.default")
def _prod_rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b.value("self")
    xt, out = _t(x), _out(op)
    dims = reduction_dims(b.get("dim"), xt.rank)
    keepdim = bool(b.get("keepdim", False))
    acc = out.element_dtype.opmath()
    src = xt.element_dtype
    red = reduce(
        st, xt.sizes, dims, keepdim, [(st.tensor(x), identity_map(xt.rank))], [(1, acc)],
        lambda a: [mul(st, st.cast(a[0], src, acc), a[1], acc)],
    )[0]  # fmt: skip
    return [st.convert(red, sized(out.sizes, acc), out.element_dtype)]


@lowers("aten.linalg_vector_norm.default", note="integer and complex inputs and a symbolic ord refused")
def _vector_norm(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """
    torch.linalg.vector_norm by `ord`: the largest (inf) or smallest (-inf)
    |x|, the count of non-zeros (0), or `(sum |x|**p)**(1/p)` (x*x for 2).
    Each term is computed in the result dtype as torch does (so a float32
    square of 1e20 overflows as torch's does); the sum accumulates in float64
    and the root is taken there. `dtype=` converts the input first.
    """
    x = b.value("self")
    xt, out = _t(x), _out(op)
    src = xt.element_dtype
    cd = out.element_dtype.opmath()
    if not (src.is_floating_point and cd.is_floating_point):
        raise st.error("linalg_vector_norm of a non-floating-point tensor has no linalg lowering")
    order = b.get("ord", 2)
    if isinstance(order, bool) or not isinstance(order, int | float):
        raise st.error("linalg_vector_norm with a symbolic ord has no linalg lowering")
    p = float(order)
    dims = reduction_dims(b.get("dim"), xt.rank)
    keepdim = bool(b.get("keepdim", False))
    inputs = [(st.tensor(x), identity_map(xt.rank))]

    def magnitude(v: SSAValue) -> SSAValue:
        return st.emit(math.AbsFOp(st.cast(v, src, cd)))

    if p in (float("inf"), float("-inf")):
        largest = p > 0
        combine = maximum if largest else minimum
        red = reduce(
            st, xt.sizes, dims, False, inputs, [(0.0 if largest else float("inf"), cd)],
            lambda a: [combine(st, magnitude(a[0]), a[1], cd)],
        )[0]  # fmt: skip
        return [finish(st, red, dims, keepdim, cd, out)]
    wide = accumulator(cd)

    def term(a: Sequence[SSAValue]) -> SSAValue:
        if p == 0:
            nonzero = st.emit(arith.CmpfOp(st.cast(a[0], src, cd), st.constant(0.0, cd), "une"))
            return select(st, nonzero, st.constant(1.0, wide), st.constant(0.0, wide))
        if p == 1:
            return st.cast(magnitude(a[0]), cd, wide)
        if p == 2:
            v = st.cast(a[0], src, cd)
            return st.cast(mul(st, v, v, cd), cd, wide)
        return st.cast(float_power(st, magnitude(a[0]), st.constant(p, cd), cd), cd, wide)

    def root(v: SSAValue) -> SSAValue:
        if p == 2:
            return st.emit(math.SqrtOp(v))
        if p in (0, 1):
            return v
        return float_power(st, v, st.constant(1.0 / p, wide), wide)

    red = sum_over(st, xt.sizes, dims, inputs, term, wide)
    return [finish(st, red, dims, keepdim, wide, out, root)]


# -- extremes ------------------------------------------------------------------


def _extreme(st: LoweringState, op: AtenOp, b: Bound, largest: bool) -> list[SSAValue]:
    x = b.value("self")
    xt, out = _t(x), _out(op)
    dt = xt.element_dtype
    dims = reduction_dims(b.get("dim"), xt.rank)
    keepdim = bool(b.get("keepdim", False))
    combine = maximum if largest else minimum
    red = reduce(
        st, xt.sizes, dims, keepdim, [(st.tensor(x), identity_map(xt.rank))],
        [(lowest(dt) if largest else highest(dt), dt)],
        lambda a: [combine(st, a[0], a[1], dt)],
    )[0]  # fmt: skip
    return [st.convert(red, sized(out.sizes, dt), out.element_dtype)]


@lowers("aten.amax.default")
def _amax(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _extreme(st, op, b, True)


@lowers("aten.amin.default")
def _amin(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _extreme(st, op, b, False)


def arg_reduce(
    st: LoweringState, x: SSAValue, dims: Sequence[int], keepdim: bool, largest: bool
) -> tuple[SSAValue, SSAValue]:
    """The extreme values and their int64 indices (row-major over `dims`) of `x`."""
    xt = _t(x)
    dt = xt.element_dtype
    sizes = xt.sizes

    def body(a: Sequence[SSAValue]) -> list[SSAValue]:
        val, cur, ci = a
        i = linear_index(st, sizes, dims)
        take = better(st, val, i, cur, ci, dt, largest)
        return [select(st, take, val, cur), select(st, take, i, ci)]

    vals, idx = reduce(
        st, sizes, dims, keepdim, [(st.tensor(x), identity_map(xt.rank))],
        [(lowest(dt) if largest else highest(dt), dt), (INT64_MAX, DType.int64)], body,
    )  # fmt: skip
    return vals, idx


@lowers("aten.max.dim", "aten.min.dim")
def _max_min_dim(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b.value("self")
    dims = reduction_dims(b.int("dim"), _t(x).rank)
    vals, idx = arg_reduce(st, x, dims, bool(b.get("keepdim", False)), op.name == "aten.max.dim")
    return [vals, idx]


@lowers("aten.argmax.default", "aten.argmin.default")
def _argmax(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b.value("self")
    dim = b.get("dim")
    # dim=None: the index into the flattened tensor (all dims, row-major).
    dims = reduction_dims(None if dim is None else int(cast(int, dim)), _t(x).rank)
    _, idx = arg_reduce(st, x, dims, bool(b.get("keepdim", False)), op.name == "aten.argmax.default")
    return [idx]


# -- any / all -----------------------------------------------------------------


def _any_all(st: LoweringState, op: AtenOp, b: Bound, is_any: bool) -> list[SSAValue]:
    x = b.value("self")
    xt, out = _t(x), _out(op)
    src = xt.element_dtype
    dims = reduction_dims(b.get("dim"), xt.rank)
    keepdim = bool(b.get("keepdim", False))
    combine = arith.OrIOp if is_any else arith.AndIOp
    red = reduce(
        st, xt.sizes, dims, keepdim, [(st.tensor(x), identity_map(xt.rank))], [(not is_any, DType.bool)],
        lambda a: [st.emit(combine(st.cast(a[0], src, DType.bool), a[1]))],
    )[0]  # fmt: skip
    return [st.convert(red, sized(out.sizes, DType.bool), out.element_dtype)]


@lowers("aten.any.dim", "aten.any.dims", "aten.any.default")
def _any(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _any_all(st, op, b, True)


@lowers("aten.all.dim", "aten.all.dims", "aten.all.default")
def _all(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _any_all(st, op, b, False)


# -- variance ------------------------------------------------------------------


@lowers("aten.var.correction", "aten.var_mean.correction", "aten.var.dim")
def _var(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """var, and for `var_mean` the mean too (the op's results say which)."""
    x = b.value("self")
    xt, out = _t(x), _out(op)
    cd = out.element_dtype.opmath()
    if not cd.is_floating_point:
        raise st.error("var of a non-floating-point tensor")
    dims = reduction_dims(b.get("dim"), xt.rank)
    keepdim = bool(b.get("keepdim", False))
    correction = b.get("correction")
    if "unbiased" in b:  # var.dim: Bessel's correction or none
        correction = 1 if b["unbiased"] else 0
    c = 1.0 if correction is None else correction
    if not isinstance(c, int | float):
        raise st.error("var with a symbolic correction")
    mean, ssd, wide = wide_mean_and_sq_dev(st, st.tensor(x), xt, dims)
    # torch divides by max(N - correction, 0): a zero divisor gives inf or NaN.
    n = count(st, xt.sizes, dims, wide)
    divisor = maximum(st, sub(st, n, st.constant(float(c), wide), wide), st.constant(0.0, wide), wide)
    var = finish(st, ssd, dims, keepdim, wide, out, lambda v: div(st, v, divisor, wide))
    if len(op.results) == 1:
        return [var]
    return [var, finish(st, mean, dims, keepdim, wide, _out(op, 1))]


# -- softmax -------------------------------------------------------------------


def _softmax(st: LoweringState, op: AtenOp, b: Bound, log: bool) -> list[SSAValue]:
    x = b.value("self")
    xt, out = _t(x), _out(op)
    src = xt.element_dtype
    cd = out.element_dtype.opmath()
    rank = xt.rank
    dims = reduction_dims(b.int("dim"), rank)
    lx = st.tensor(x)
    full, rmap = identity_map(rank), reduced_map(rank, dims, False)
    # max-subtracted, as torch's kernels compute it
    m = reduce(
        st, xt.sizes, dims, False, [(lx, full)], [(float("-inf"), cd)],
        lambda a: [maximum(st, st.cast(a[0], src, cd), a[1], cd)],
    )[0]  # fmt: skip

    def shifted(v: SSAValue, mx: SSAValue) -> SSAValue:
        return sub(st, st.cast(v, src, cd), mx, cd)

    wide = accumulator(cd)
    if not log and _EXP_ONCE:
        e = st.generic(
            [(lx, full), (m, rmap)], [(st.empty_of(xt.sizes, cd), full)], [PARALLEL] * rank,
            lambda a: [st.emit(math.ExpOp(shifted(a[0], a[1])))],
        )[0]  # fmt: skip
        total = sum_over(st, xt.sizes, dims, [(e, full)], lambda a: st.cast(a[0], cd, wide), wide)

        def scaled(a: Sequence[SSAValue]) -> list[SSAValue]:
            r = mul(st, a[0], div(st, st.scalar(1.0, cd), st.cast(a[1], wide, cd), cd), cd)
            return [st.cast(r, cd, out.element_dtype)]

        return st.generic([(e, full), (total, rmap)], [(st.empty(out), full)], [PARALLEL] * rank, scaled)
    s = sum_over(
        st, xt.sizes, dims, [(lx, full), (m, rmap)],
        lambda a: st.cast(st.emit(math.ExpOp(shifted(a[0], a[1]))), cd, wide), wide,
    )  # fmt: skip

    def body(a: Sequence[SSAValue]) -> list[SSAValue]:
        z = shifted(a[0], a[1])
        denominator = st.cast(a[2], wide, cd)
        if log:
            r = sub(st, z, st.emit(math.LogOp(denominator)), cd)
        else:
            r = div(st, st.emit(math.ExpOp(z)), denominator, cd)
        return [st.cast(r, cd, out.element_dtype)]

    init = st.empty(out)
    return st.generic([(lx, full), (m, rmap), (s, rmap)], [(init, full)], [PARALLEL] * rank, body)


_EXP_ONCE = True
"""
Softmax as torch's CPU kernel over the last dim computes it (`_vec_softmax_lastdim`): `exp(x -
max)` written once (its own generic), summed, and multiplied by the sum's reciprocal; not
recomputed in the pass that divides by the sum (the form before, `--variant
"reductions._EXP_ONCE=0"`). IREE fuses the exponentials into the max's
dispatch and the scaling into the packing of `attn @ v`'s operand. Per dispatch (one thread,
`iree-benchmark-module --device_profiling_mode=host-execution`, least times, us a layer, twice /
once): the 4-layer encoder's softmax over 4x4x128x128 56 + 261 / 116 + 124, the LLaMA block's
over 4x128x128 14 + 62 / 29 + 25 (onnxruntime's node: 100 and 27). Whole models
(`benchmarks/compile.py`, one thread, CPU time, interleaved, ms, once / twice), two runs: the
encoder 39.2 / 39.1 and 38.0 / 38.8, the LLaMA block 3.32 / 3.16 and 2.91 / 2.94, ViT-tiny 3.49 /
3.74 and 3.28 / 3.48: within those runs' noise, kept for torch's arithmetic.
"""


@lowers("aten._softmax.default")
def _softmax_rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _softmax(st, op, b, False)


@lowers("aten._log_softmax.default")
def _log_softmax_rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _softmax(st, op, b, True)


# -- scans ---------------------------------------------------------------------


@lowers("aten.cumsum.default")
def _cumsum(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """
    A prefix sum as a reduction over a triangular window: output position `i`
    adds the inputs at `j <= i` (quadratic in the scanned dimension's size, but
    one parallel-friendly generic; IREE has no upstream scan op to target).
    Floats accumulate in float64, as torch's CPU kernel does (its `acc_type`).
    """
    x = b.value("self")
    xt, out = _t(x), _out(op)
    rank = xt.rank
    acc = accumulator(out.element_dtype)
    src = xt.element_dtype
    if rank == 0:
        return [st.convert(st.tensor(x), xt, out.element_dtype)]
    d = b.int("dim") % rank
    # iteration space: the output's dims, then j (the scanned input position)
    in_map = AffineMap(rank + 1, 0, tuple(dim_expr(rank) if i == d else dim_expr(i) for i in range(rank)))
    out_map = AffineMap(rank + 1, 0, tuple(dim_expr(i) for i in range(rank)))

    def body(a: Sequence[SSAValue]) -> list[SSAValue]:
        inside = st.emit(arith.CmpiOp(st.emit(linalg.IndexOp(rank)), st.emit(linalg.IndexOp(d)), "ule"))
        v = select(st, inside, st.cast(a[0], src, acc), st.constant(0, acc))
        return [add(st, v, a[1], acc)]

    init = st.filled(sized(out.sizes, acc), 0)
    red = st.generic([(st.tensor(x), in_map)], [(init, out_map)], [PARALLEL] * rank + [REDUCTION], body)[0]
    return [st.convert(red, sized(out.sizes, acc), out.element_dtype)]


def _map(rank: int, dim: int, along: int) -> AffineMap:
    """Loop dims 0..rank-1 with `dim` replaced by loop dim `along` (of rank + 1 loops)."""
    return AffineMap(rank + 1, 0, tuple(AffineExpr.dimension(along if d == dim else d) for d in range(rank)))


def _before(st: LoweringState, a: SSAValue, b: SSAValue, dtype: DType, descending: bool) -> SSAValue:
    """Whether `a` sorts strictly before `b` (NaN the largest value)."""
    if not dtype.is_floating_point:
        return compare(st, "gt" if descending else "lt", a, b, dtype)
    a_nan = st.emit(arith.CmpfOp(a, a, "uno"))
    b_nan = st.emit(arith.CmpfOp(b, b, "uno"))
    if descending:
        # a NaN before any number; otherwise a > b
        return st.emit(arith.OrIOp(st.emit(arith.AndIOp(a_nan, st.emit(arith.XOrIOp(b_nan, st.constant(True, DType.bool))))), st.emit(arith.CmpfOp(a, b, "ogt"))))
    # a number before a NaN; otherwise a < b
    a_num = st.emit(arith.XOrIOp(a_nan, st.constant(True, DType.bool)))
    return st.emit(arith.OrIOp(st.emit(arith.AndIOp(a_num, b_nan)), st.emit(arith.CmpfOp(a, b, "olt"))))


def _same(st: LoweringState, a: SSAValue, b: SSAValue, dtype: DType) -> SSAValue:
    """Equal, two NaN included (their order is then the index order)."""
    if not dtype.is_floating_point:
        return compare(st, "eq", a, b, dtype)
    both_nan = st.emit(arith.AndIOp(st.emit(arith.CmpfOp(a, a, "uno")), st.emit(arith.CmpfOp(b, b, "uno"))))
    return st.emit(arith.OrIOp(st.emit(arith.CmpfOp(a, b, "oeq")), both_nan))


def sort_along(st: LoweringState, x: SSAValue, dim: int, descending: bool, keep: SymSize | None) -> list[SSAValue]:
    """The first `keep` sorted values and their int64 indices along `dim` (keep: all, or a size)."""
    xt = _t(x)
    rank = xt.rank
    dtype = xt.element_dtype
    src = st.tensor(x)
    j = rank
    ranks_t = sized(xt.sizes, DType.int64)
    one = st.constant(1, DType.int64)

    def rank_body(args: Sequence[SSAValue]) -> list[SSAValue]:
        mine, other, acc = args
        earlier = st.emit(arith.CmpiOp(st.emit(IndexOp(j)), st.emit(IndexOp(dim)), "slt"))
        tie = st.emit(arith.AndIOp(_same(st, other, mine, dtype), earlier))
        first = st.emit(arith.OrIOp(_before(st, other, mine, dtype, descending), tie))
        return [st.emit(arith.SelectOp(first, st.emit(arith.AddiOp(acc, one)), acc))]

    ranks = st.generic(
        [(src, _map(rank, dim, dim)), (src, _map(rank, dim, j))],
        [(st.filled(ranks_t, 0), _map(rank, dim, dim))],
        [PARALLEL] * rank + [REDUCTION],
        rank_body,
    )[0]
    sizes: list[SymSize] = list(xt.sizes)
    sizes[dim] = keep if keep is not None else xt.sizes[dim]
    values_t, indices_t = sized(sizes, dtype), sized(sizes, DType.int64)

    def gather_body(args: Sequence[SSAValue]) -> list[SSAValue]:
        r, v, acc_v, acc_i = args
        position = st.emit(arith.IndexCastOp(st.emit(IndexOp(dim)), i64))
        hit = st.emit(arith.CmpiOp(r, position, "eq"))
        index = st.emit(arith.IndexCastOp(st.emit(IndexOp(j)), i64))
        return [st.emit(arith.SelectOp(hit, v, acc_v)), st.emit(arith.SelectOp(hit, index, acc_i))]

    return st.generic(
        [(ranks, _map(rank, dim, j)), (src, _map(rank, dim, j))],
        # Filled, not empty: every position is written once, but IREE warns on reading an empty init.
        [(st.filled(values_t, 0), _map(rank, dim, dim)), (st.filled(indices_t, 0), _map(rank, dim, dim))],
        [PARALLEL] * rank + [REDUCTION],
        gather_body,
    )


def _zero_d(st: LoweringState, x: SSAValue, op: AtenOp) -> list[SSAValue]:
    """A 0-d tensor sorts to itself, at index 0."""
    return [st.tensor(x), st.filled(_result(op, 1), 0)]


@lowers("aten.sort.default")
def _sort(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b.value("self")
    rank = _t(x).rank
    if rank == 0:
        return _zero_d(st, x, op)
    return sort_along(st, x, b.int("dim") % rank, bool(b.get("descending")), None)


@lowers("aten.topk.default", note="sorted=False gives the k sorted, one of the orders torch allows")
def _topk(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b.value("self")
    xt: TensorType = _t(x)
    if xt.rank == 0:
        return _zero_d(st, x, op)
    dim = b.int("dim") % xt.rank
    return sort_along(st, x, dim, bool(b.get("largest", True)), _result(op).sizes[dim])
