"""
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

from xdsl.dialects import arith
from xdsl.dialects.builtin import i64
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.transforms.linalg_lowering import lowers
from xdsl_exir.transforms.linalg_lowering.scalar import compare
from xdsl_exir.transforms.linalg_lowering.state import (
    PARALLEL,
    REDUCTION,
    LoweringState,
    sized,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    result_of as _result,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    type_of as _t,
)
from xdsl_exir.utils.symbolic import SymSize


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

