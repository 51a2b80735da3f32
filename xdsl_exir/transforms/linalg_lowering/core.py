"""
What the lowering families share, so that no family imports another (a helper two
families use lives here, not in one of them):

* reshapes and layout: `collapse` / `expand` (`tensor.collapse_shape` /
  `tensor.expand_shape` of possibly symbolic sizes), `transpose`, and
  `storage_view`, which follows a value's chain of views back to the tensor that
  owns its storage, with its strides and offset (`as_strided` in `views`, the
  stride and offset queries in `scalars`);
* gathers: `gather_generic` and its pieces (`dims_map`, `extract`, `loop_index`,
  `mixed_size`, `wrap_index`), a generic whose element is read at computed
  coordinates (the pads, `repeat` and `roll` of `views`, the gathers and scatters
  of `indexing`);
* reductions: `reduce` and `pointwise` (a reduction or parallel `linalg.generic`
  over an iteration space), `sum_over` (the float64, two-level sum; the reason is
  in `reductions`' docstring), `count`, `finish`, the identities `lowest` /
  `highest`, the order-independent arg-reduction combiner `better`, and the
  two-pass statistics `mean_and_sq_dev` / `rstd_of` of `var`, the normalisations
  (`norms`) and pooling (`conv_pool`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, cast

from xdsl.dialects import arith, math, tensor
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    IntegerAttr,
    i64,
)
from xdsl.dialects.builtin import (
    TensorType as BuiltinTensorType,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import DType, GetItemOp, TensorType
from xdsl_exir.semantics.decompositions.core import Layouts, Strides, is_contiguous, view_strides
from xdsl_exir.transforms.linalg_lowering.scalar import (
    add,
    compare,
    div,
    mul,
    select,
    sub,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    DYNAMIC,
    DYNAMIC_INDEX,
    PARALLEL,
    REDUCTION,
    LoweringState,
    element_type,
    identity_map,
    is_unsigned,
    sized,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    result_of as _result,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    type_of as _t,
)
from xdsl_exir.utils.symbolic import SymSize, sympy, to_sym

__all__ = [
    "BLOCK",
    "Body",
    "Mixed",
    "accumulator",
    "better",
    "builtin_tensor",
    "canonical_size",
    "collapse",
    "count",
    "dim_expr",
    "dims_map",
    "expand",
    "extract",
    "finish",
    "flat_storage",
    "gather_generic",
    "highest",
    "loop_index",
    "lowest",
    "mean_and_sq_dev",
    "mixed_size",
    "pointwise",
    "reduce",
    "reduced_map",
    "reduced_sizes",
    "rstd_of",
    "storage_view",
    "sum_over",
    "transpose",
    "wide_mean_and_sq_dev",
    "wrap_index",
]


# -- reshapes, transposes and slice bounds --------------------------------------------


def _reassociation(groups: Sequence[Sequence[int]]) -> ArrayAttr[ArrayAttr[IntegerAttr]]:
    return ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in g]) for g in groups])


def builtin_tensor(sizes: Sequence[object], el: Attribute) -> BuiltinTensorType[Attribute]:
    return BuiltinTensorType(el, [s if isinstance(s, int) else DYNAMIC for s in sizes])


def collapse(st: LoweringState, value: SSAValue, groups: Sequence[Sequence[int]], sizes: Sequence[object], el: Attribute) -> SSAValue:
    """`tensor.collapse_shape` to `sizes` (one per group)."""
    op = tensor.CollapseShapeOp.create(
        operands=[value],
        result_types=[builtin_tensor(sizes, el)],
        properties={"reassociation": _reassociation(groups)},
    )
    return st.emit(op)


def expand(st: LoweringState, value: SSAValue, groups: Sequence[Sequence[int]], sizes: Sequence[object], el: Attribute) -> SSAValue:
    """`tensor.expand_shape` to `sizes`, dynamic ones given as index values."""
    static = [s if isinstance(s, int) else DYNAMIC for s in sizes]
    return st.emit(
        tensor.ExpandShapeOp(value, st.dynamic_sizes(sizes), _reassociation(groups), static, builtin_tensor(sizes, el))
    )


def transpose(st: LoweringState, value: SSAValue, perm: Sequence[int], out: TensorType) -> SSAValue:
    if list(perm) == list(range(len(perm))):
        return value
    init = st.empty(out)
    op = linalg.TransposeOp(value, init, DenseArrayBase.from_list(i64, list(perm)))
    st.insert(op)
    return op.results[0]


def wrap_index(st: LoweringState, value: object, size: object, clamp: bool) -> SSAValue:
    """An index value for a start/end/index argument: negatives count from the end."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            if isinstance(size, int):
                v = value + size
                return st.index(max(v, 0) if clamp else v)
            return st.index(to_sym(cast(SymSize, size)) + value)
        if clamp and isinstance(size, int):
            return st.index(min(value, size))
        if clamp and value >= 2**62:
            return st.index(size)
        if clamp:
            return st.emit(arith.MinSIOp(st.index(value), st.index(size)))
        return st.index(value)
    lowered = st.lowered(value)
    if not isinstance(lowered, SSAValue):
        raise st.error(f"a slice bound {value!r} is not an integer")
    return lowered


# -- the storage behind a chain of views (as_strided) -------------------------------


_SAME_STORAGE = ("alias", "detach", "lift_fresh")
"""View kinds whose result has the strides and offset of their input."""


def canonical_size(e: object) -> SymSize:
    """A size expression expanded, and an int when it is one."""
    expr = sympy.expand(sympy.sympify(e))
    return int(expr) if expr.is_Integer else cast(SymSize, expr)


def _kind(op: AtenOp) -> str:
    return op.name.split(".")[1]


def _aliasing_source(value: SSAValue) -> AtenOp | None:
    """The aten op whose result `value` is a view of its first argument, if it is one."""
    owner = value.owner
    if not isinstance(owner, AtenOp) or not owner.results or value is not owner.results[0]:
        return None
    return owner if 0 in owner.SCHEMA.return_alias_map().get(0, ()) else None


def _storage_step(
    st: LoweringState, op: AtenOp, src: TensorType, strides: Strides, offset: SymSize
) -> tuple[Strides, SymSize]:
    """The strides and storage offset of `op`'s view from those of its input (torch's view rules)."""
    b = op.bound_arguments()
    out = _result(op)
    rank = src.rank
    kind = _kind(op)
    if kind in _SAME_STORAGE:
        return strides, offset
    if kind == "permute":
        return tuple(strides[d % rank] for d in b.ints("dims")), offset
    if kind in ("transpose", "t", "numpy_T"):
        perm = list(range(rank))
        if kind == "transpose" and rank:
            d0, d1 = b.int("dim0") % rank, b.int("dim1") % rank
            perm[d0], perm[d1] = perm[d1], perm[d0]
        elif kind != "transpose":
            perm.reverse()
        return tuple(strides[d] for d in perm), offset
    if kind == "expand":
        lead = out.rank - rank
        grown: list[SymSize] = [0] * lead
        for d in range(rank):
            grown.append(0 if src.sizes[d] == 1 and out.sizes[lead + d] != 1 else strides[d])
        return tuple(grown), offset
    if kind in ("view", "_unsafe_view", "unsqueeze", "squeeze", "flatten", "unflatten"):
        # These keep the element order; torch's computeStride says which strides do it.
        new = view_strides(src.sizes, strides, out.sizes)
        if new is None:
            raise st.error(f"as_strided: {op.name} of a non-contiguous view has no strides")
        return new, offset
    if kind == "select":
        dim = b.int("dim") % rank
        index = b.size("index")
        if isinstance(index, int) and index < 0:
            index = canonical_size(src.sizes[dim] + index)
        return tuple(s for d, s in enumerate(strides) if d != dim), canonical_size(offset + index * strides[dim])
    if kind == "slice":
        dim = b.int("dim") % rank
        start = b.opt_size("start") or 0
        size = src.sizes[dim]
        if isinstance(start, int) and isinstance(size, int):
            start = min(max(start + size if start < 0 else start, 0), size)
        elif isinstance(start, int) and start < 0:
            raise st.error("as_strided: a slice from the end of a symbolic dimension")
        step = b.int("step") if b.get("step") is not None else 1
        sliced = list(strides)
        sliced[dim] = canonical_size(strides[dim] * step)
        return tuple(sliced), canonical_size(offset + start * strides[dim])
    if kind == "diagonal":
        d1, d2 = b.int("dim1") % rank, b.int("dim2") % rank
        k = b.int("offset")
        kept = [s for d, s in enumerate(strides) if d not in (d1, d2)]
        if not any(s == 0 for s in out.sizes):
            offset = canonical_size(offset + (k * strides[d2] if k >= 0 else -k * strides[d1]))
        return (*kept, canonical_size(strides[d1] + strides[d2])), offset
    if kind == "as_strided":
        given = b.opt_size("storage_offset")
        return tuple(b.sizes("stride")), offset if given is None else given
    raise st.error(f"as_strided of a view made by {op.name}, whose strides the lowering does not follow")


def _storage_order(st: LoweringState, sizes: Sequence[SymSize], strides: Strides) -> list[int]:
    """
    The dims of a dense, non-overlapping tensor from the outermost to the
    innermost in memory (the identity for a contiguous one).
    """
    if is_contiguous(sizes, strides):
        return list(range(len(sizes)))
    if all(isinstance(s, int) for s in (*sizes, *strides)):
        order = sorted(range(len(sizes)), key=lambda d: -cast(int, strides[d]))
        if is_contiguous([sizes[d] for d in order], tuple(strides[d] for d in order)):
            return order
    raise st.error(
        f"as_strided of a tensor whose memory is not dense (sizes {list(sizes)}, strides {list(strides)}); "
        "call .contiguous() on it first"
    )


def storage_view(st: LoweringState, value: SSAValue) -> tuple[SSAValue, list[int], Strides, SymSize]:
    """
    Where `value` lives in torch's memory: the tensor that owns its storage
    (the first value up its chain of views made by an op that is not a view),
    the order of that owner's dims in memory, and `value`'s strides and storage
    offset in it. The owner's strides are those torch gives it (`Layouts`:
    the dim order of its type, a pointwise op following its input's layout).
    """
    chain: list[AtenOp] = []
    root = value
    while (producer := _aliasing_source(root)) is not None:
        chain.append(producer)
        root = producer.operands[0]
    if isinstance(root.owner, GetItemOp):
        raise st.error("as_strided of a piece of a split tensor (a view the lowering does not follow)")
    rt = _t(root)
    strides = Layouts().strides(root)
    order = _storage_order(st, rt.sizes, strides)
    offset: SymSize = 0
    for producer in reversed(chain):
        strides, offset = _storage_step(st, producer, _t(producer.operands[0]), strides, offset)
    return root, order, strides, offset


def flat_storage(st: LoweringState, root: SSAValue, order: Sequence[int]) -> tuple[SSAValue, SymSize]:
    """The storage of `root` (a `storage_view` owner, its dims in memory `order`) as a 1-D tensor, and its length."""
    rt = _t(root)
    value = st.tensor(root)
    el = element_type(rt.element_dtype)
    sizes = list(rt.sizes)
    if list(order) != list(range(rt.rank)):
        sizes = [sizes[d] for d in order]
        value = transpose(st, value, order, sized(sizes, rt.element_dtype))
    numel: object = 1
    for n in sizes:
        numel = numel * n
    numel = canonical_size(cast(SymSize, numel))
    if rt.rank == 1:
        return value, numel
    if rt.rank == 0:
        return expand(st, value, [], [1], el), 1
    return collapse(st, value, [list(range(rt.rank))], [numel], el), numel


# -- gathers: sizes, strides and offsets as values ----------------------------------


Mixed = SSAValue | int
"""A slice offset, size or stride: static, or an `index` value."""


def mixed_size(st: LoweringState, size: object) -> Mixed:
    return size if isinstance(size, int) else st.index(size)


def dims_map(rank: int, picks: Sequence[int | None]) -> AffineMap:
    """A map of `rank` loop dims to the given dims (None reads index 0, a broadcast)."""
    return AffineMap(
        rank, 0, tuple(AffineExpr.constant(0) if d is None else AffineExpr.dimension(d) for d in picks)
    )


def extract(st: LoweringState, source: SSAValue, coords: Sequence[SSAValue], dtype: DType) -> SSAValue:
    return st.emit(tensor.ExtractOp(source, list(coords), element_type(dtype)))


def gather_generic(
    st: LoweringState,
    out: TensorType,
    inputs: Sequence[tuple[SSAValue, AffineMap]],
    coords: Callable[[list[SSAValue]], SSAValue],
) -> SSAValue:
    """A generic over `out` whose element is `coords(block args)` (a scalar it computes)."""
    rank = out.rank
    return st.generic(inputs, [(st.empty(out), identity_map(rank))], [PARALLEL] * rank, lambda args: [coords(list(args))])[0]


def loop_index(st: LoweringState, d: int) -> SSAValue:
    return st.emit(IndexOp(d))


# -- reductions: shapes, maps and identities ----------------------------------------


Body = Callable[[Sequence[SSAValue]], Sequence[SSAValue]]


def dim_expr(i: int) -> AffineExpr:
    return AffineExpr.dimension(i)


def reduced_sizes(sizes: Sequence[object], dims: Sequence[int], keepdim: bool) -> list[object]:
    if keepdim:
        return [1 if i in dims else s for i, s in enumerate(sizes)]
    return [s for i, s in enumerate(sizes) if i not in dims]


def reduced_map(rank: int, dims: Sequence[int], keepdim: bool) -> AffineMap:
    """The map from the input's iteration space to the reduced tensor."""
    if keepdim:
        exprs = [AffineExpr.constant(0) if i in dims else dim_expr(i) for i in range(rank)]
    else:
        exprs = [dim_expr(i) for i in range(rank) if i not in dims]
    return AffineMap(rank, 0, tuple(exprs))


def lowest(dtype: DType) -> float | int:
    """The identity of `max` over `dtype`."""
    if dtype.is_floating_point:
        return float("-inf")
    if is_unsigned(dtype):
        return 0
    return -(2 ** (_bits(dtype) - 1))


def highest(dtype: DType) -> float | int:
    """The identity of `min` over `dtype`."""
    if dtype.is_floating_point:
        return float("inf")
    if dtype is DType.bool:
        return 1
    if dtype is DType.uint8:
        return 255
    return 2 ** (_bits(dtype) - 1) - 1


def _bits(dtype: DType) -> int:
    return {DType.int8: 8, DType.int16: 16, DType.int32: 32, DType.int64: 64}[dtype]


def accumulator(dtype: DType) -> DType:
    """The dtype a sum producing `dtype` accumulates in: float64 for every float (see above)."""
    return DType.float64 if dtype.is_floating_point else dtype.opmath()


# -- reduction builders -------------------------------------------------------------


def reduce(
    st: LoweringState,
    sizes: Sequence[object],
    dims: Sequence[int],
    keepdim: bool,
    inputs: Sequence[tuple[SSAValue, AffineMap]],
    inits: Sequence[tuple[float | int | bool, DType]],
    body: Body,
) -> list[SSAValue]:
    """
    A reduction `linalg.generic` over the iteration space `sizes`: each output
    starts filled with its `(identity, dtype)` and is indexed by `reduced_map`;
    `body` gets the input elements then the accumulators and returns the new
    accumulators.
    """
    rank = len(sizes)
    out_map = reduced_map(rank, dims, keepdim)
    out_sizes = reduced_sizes(sizes, dims, keepdim)
    outputs = [(st.filled(sized(out_sizes, dt), value), out_map) for value, dt in inits]
    iterators = [REDUCTION if i in dims else PARALLEL for i in range(rank)]
    return st.generic(inputs, outputs, iterators, body)


def pointwise(
    st: LoweringState,
    sizes: Sequence[object],
    inputs: Sequence[tuple[SSAValue, AffineMap]],
    out_dtype: DType,
    body: Body,
) -> SSAValue:
    """A parallel `linalg.generic` over `sizes` making one tensor of `out_dtype`."""
    rank = len(sizes)
    init = st.empty(sized(sizes, out_dtype))
    return st.generic(inputs, [(init, identity_map(rank))], [PARALLEL] * rank, body)[0]


BLOCK = 4096
"""The inner length of a two-level sum (see `sum_over`)."""


def _split_map(amap: AffineMap, r: int) -> tuple[AffineMap, int | None]:
    """
    `amap` (a projection of an iteration space) on the space with dim `r` split
    in two (`r` the block, `r + 1` the position in it); also the operand
    position that read `d_r`, now two positions, or None.
    """
    exprs: list[AffineExpr] = []
    split_at: int | None = None
    for p, e in enumerate(amap.results):
        pos = _dim_position(e)
        if pos is None:
            exprs.append(e)
        elif pos == r:
            split_at = p
            exprs += [dim_expr(r), dim_expr(r + 1)]
        else:
            exprs.append(dim_expr(pos + 1 if pos > r else pos))
    return AffineMap(amap.num_dims + 1, 0, tuple(exprs)), split_at


def _dim_position(e: AffineExpr) -> int | None:
    return e.position if isinstance(e, AffineDimExpr) else None


def sum_over(
    st: LoweringState,
    sizes: Sequence[object],
    dims: Sequence[int],
    inputs: Sequence[tuple[SSAValue, AffineMap]],
    term: Callable[[Sequence[SSAValue]], SSAValue],
    acc: DType,
) -> SSAValue:
    """
    The sum over `dims` of the iteration space `sizes` (reduced dims dropped,
    in `acc`) of `term(input elements)`. When the last reduced dim is static,
    a multiple of `BLOCK` and at least twice it, the sum goes in two levels:
    partial sums of `BLOCK` consecutive elements (a parallel dim for IREE to
    distribute and vectorise), then their sum; each input reading that dim is
    viewed with it split (`tensor.expand_shape`, no copy).
    """
    dims = sorted(dims)
    r = dims[-1] if dims else -1
    n = sizes[r] if dims else None
    projections = all(all(_dim_position(e) is not None or e == AffineExpr.constant(0) for e in m.results) for _, m in inputs)
    if not (isinstance(n, int) and n >= 2 * BLOCK and n % BLOCK == 0 and projections):
        return reduce(st, sizes, dims, False, inputs, [(0, acc)], lambda a: [add(st, term(a[:-1]), a[-1], acc)])[0]
    split_sizes = [*sizes[:r], n // BLOCK, BLOCK, *sizes[r + 1 :]]
    split_inputs: list[tuple[SSAValue, AffineMap]] = []
    for value, amap in inputs:
        new_map, at = _split_map(amap, r)
        if at is not None:
            vt = cast(Any, value.type)
            shape = [s if s != DYNAMIC_INDEX else None for s in vt.get_shape()]
            operand_sizes: list[object] = []
            for p, s in enumerate(shape):
                operand_sizes.append(s if s is not None else _operand_size(sizes, amap, p))
            groups = [[p] for p in range(at)] + [[at, at + 1]] + [[p + 1] for p in range(at + 1, len(shape))]
            value = expand(st, value, groups, [*operand_sizes[:at], n // BLOCK, BLOCK, *operand_sizes[at + 1 :]], vt.element_type)
        split_inputs.append((value, new_map))
    inner_dims = [*dims[:-1], r + 1]
    partial = reduce(st, split_sizes, inner_dims, False, split_inputs, [(0, acc)], lambda a: [add(st, term(a[:-1]), a[-1], acc)])[0]
    kept = reduced_sizes(split_sizes, inner_dims, False)
    block_at = r - len(dims[:-1])
    return reduce(st, kept, [block_at], False, [(partial, identity_map(len(kept)))], [(0, acc)], lambda a: [add(st, a[0], a[1], acc)])[0]


def _operand_size(sizes: Sequence[object], amap: AffineMap, p: int) -> object:
    """The exir size of an operand's dim `p`, read through its map from the iteration space."""
    pos = _dim_position(amap.results[p])
    return sizes[pos] if pos is not None else 1


def count(st: LoweringState, sizes: Sequence[object], dims: Sequence[int], dtype: DType) -> SSAValue:
    """The number of reduced elements as a scalar of `dtype` (index arithmetic when symbolic)."""
    n: object = functools.reduce(lambda a, b: a * b, (cast(Any, sizes[i]) for i in dims), 1)
    if isinstance(n, sympy.Integer):
        n = int(n)
    if isinstance(n, int):
        return st.constant(float(n) if dtype.is_floating_point else n, dtype)
    as_i64 = st.emit(arith.IndexCastOp(st.index(n), i64))
    return st.cast(as_i64, DType.int64, dtype)


def finish(
    st: LoweringState,
    red: SSAValue,
    dims: Sequence[int],
    keepdim: bool,
    red_dtype: DType,
    out: TensorType,
    fn: Callable[[SSAValue], SSAValue] | None = None,
) -> SSAValue:
    """
    A reduced tensor (reduced dims dropped, elements of `red_dtype`) as the
    result of type `out`: `fn` applied, converted to the result dtype, and with
    the unit dims of `keepdim`.
    """
    if not keepdim and fn is None and red_dtype == out.element_dtype:
        return red
    rank = out.rank
    in_map = reduced_map(rank, dims, False) if keepdim else identity_map(rank)

    def body(args: Sequence[SSAValue]) -> list[SSAValue]:
        v = fn(args[0]) if fn is not None else args[0]
        return [st.cast(v, red_dtype, out.element_dtype)]

    return st.generic([(red, in_map)], [(st.empty(out), identity_map(rank))], [PARALLEL] * rank, body)[0]


def better(
    st: LoweringState, val: SSAValue, i: SSAValue, cur: SSAValue, ci: SSAValue, dtype: DType, largest: bool,
    last_nan: bool = False,
) -> SSAValue:
    """
    Whether `val` at index `i` replaces `cur` at `ci` in an arg-reduction, in an
    order-independent way: NaN first (the earlier of two NaNs, or the later with
    `last_nan`, as torch's max pooling keeps it), then the larger (smaller)
    value, then the earlier index.
    """
    strict = compare(st, "gt" if largest else "lt", val, cur, dtype)
    same = compare(st, "eq", val, cur, dtype)
    earlier = st.emit(arith.CmpiOp(i, ci, "slt"))
    plain = st.emit(arith.OrIOp(strict, st.emit(arith.AndIOp(same, earlier))))
    if not dtype.is_floating_point:
        return plain
    nan_v = st.emit(arith.CmpfOp(val, val, "uno"))
    nan_c = st.emit(arith.CmpfOp(cur, cur, "uno"))
    number_c = st.emit(arith.XOrIOp(nan_c, st.constant(True, DType.bool)))
    nan_order = st.emit(arith.CmpiOp(i, ci, "sgt")) if last_nan else earlier
    return select(st, nan_v, st.emit(arith.OrIOp(number_c, nan_order)), st.emit(arith.AndIOp(number_c, plain)))


# -- two-pass statistics (var, the normalisations) ----------------------------------


def wide_mean_and_sq_dev(
    st: LoweringState, x: SSAValue, xt: TensorType, dims: Sequence[int]
) -> tuple[SSAValue, SSAValue, DType]:
    """
    The mean over `dims` and the sum of squared deviations from it (reduced
    dims dropped), both computed and returned in the accumulator dtype (also
    returned): two passes, the deviations taken from the wide mean.
    """
    rank = xt.rank
    src = xt.element_dtype
    cd = accumulator(src)
    full = identity_map(rank)
    rmap = reduced_map(rank, dims, False)
    rsizes = reduced_sizes(xt.sizes, dims, False)
    total = sum_over(st, xt.sizes, dims, [(x, full)], lambda a: st.cast(a[0], src, cd), cd)
    n = count(st, xt.sizes, dims, cd)
    mean = pointwise(st, rsizes, [(total, identity_map(len(rsizes)))], cd, lambda a: [div(st, a[0], n, cd)])

    def sq(a: Sequence[SSAValue]) -> SSAValue:
        dev = sub(st, st.cast(a[0], src, cd), a[1], cd)
        return mul(st, dev, dev, cd)

    ssd = sum_over(st, xt.sizes, dims, [(x, full), (mean, rmap)], sq, cd)
    return mean, ssd, cd


def mean_and_sq_dev(
    st: LoweringState, x: SSAValue, xt: TensorType, dims: Sequence[int], cd: DType
) -> tuple[SSAValue, SSAValue]:
    """The mean over `dims` and the sum of squared deviations from it (reduced dims dropped), rounded once to `cd`."""
    mean, ssd, wide = wide_mean_and_sq_dev(st, x, xt, dims)
    if wide == cd:
        return mean, ssd
    rsizes = reduced_sizes(xt.sizes, dims, False)
    rank = len(rsizes)
    both = st.generic(
        [(mean, identity_map(rank)), (ssd, identity_map(rank))],
        [(st.empty(sized(rsizes, cd)), identity_map(rank)), (st.empty(sized(rsizes, cd)), identity_map(rank))],
        [PARALLEL] * rank,
        lambda a: [st.cast(a[0], wide, cd), st.cast(a[1], wide, cd)],
    )
    return both[0], both[1]


def rstd_of(st: LoweringState, ssd: SSAValue, sizes: Sequence[object], n: SSAValue, eps: object, cd: DType) -> SSAValue:
    """`rsqrt(biased variance + eps)` from the sum of squared deviations."""
    e = st.scalar(eps, cd)
    rank = len(sizes)
    return pointwise(
        st, sizes, [(ssd, identity_map(rank))], cd,
        lambda a: [st.emit(math.RsqrtOp(add(st, div(st, a[0], n, cd), e, cd)))],
    )  # fmt: skip
