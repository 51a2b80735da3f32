"""
Indexing: gathers and scatters.

Gathers (`embedding`, `index_select`, `gather`, `index.Tensor`; and, in
`views`, `repeat`, `roll` and the mirrored pads, through `core.gather_generic`) are one `linalg.generic` over the result whose body reads the source
with `tensor.extract` at coordinates computed from `linalg.index` and from the
index operands (read through indexing maps); an index element becomes an
`index` with `arith.index_cast`, and a negative one counts from the end of its
dimension as torch's advanced indexing does.

Scatters (`scatter`, `scatter_add`, `scatter_reduce`, `index_put`) cannot write through a
data-dependent position in linalg on tensors, so each is a gather in the other
direction: a generic over the destination with a reduction over the index
tensor's elements, each output element keeping the last update whose index
names it (or adding them all, for `scatter_add` and `accumulate=True`, in the
order torch's CPU kernel visits them). That costs the destination's size times
the index count, and it is one parallel kernel that IREE compiles natively.
Index tensors separated by a slice (`x[i, :, j]`) put their broadcast dims
first, as torch does (`_indexed_layout`).

`select_scatter` and `slice_scatter` are `tensor.insert_slice`; so is
`as_strided_scatter` of a contiguous view, on both tensors flattened, and of
another view whose strides nest, a generic over the flattened storage that
divides each position by the strides to find the element writing it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, IndexType, i64
from xdsl.ir import SSAValue

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.semantics.decompositions.core import is_contiguous
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.transforms.linalg_lowering import lowers
from xdsl_exir.transforms.linalg_lowering.core import (
    Mixed,
    canonical_size,
    collapse,
    dims_map,
    expand,
    extract,
    flat_storage,
    gather_generic,
    highest,
    loop_index,
    lowest,
    mixed_size,
    storage_view,
)
from xdsl_exir.transforms.linalg_lowering.core import wrap_index as wrap_bound
from xdsl_exir.transforms.linalg_lowering.scalar import add, div, floor_divide, maximum, minimum, mul
from xdsl_exir.transforms.linalg_lowering.state import (
    PARALLEL,
    REDUCTION,
    LoweringState,
    as_index,
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
from xdsl_exir.utils.broadcast import broadcast_shapes
from xdsl_exir.utils.symbolic import SymSize, to_sym


def _index_dtype_check(st: LoweringState, t: TensorType, what: str) -> None:
    if t.element_dtype in (DType.bool, DType.uint8):
        raise st.error(f"{what}: a boolean mask index selects a data-dependent number of elements")
    if t.element_dtype.is_floating_point:
        raise st.error(f"{what}: index tensors must have an integer dtype, got {t.element_dtype}")


def wrap(st: LoweringState, raw: SSAValue, size: SSAValue, zero: SSAValue) -> SSAValue:
    """An index tensor element as an `index`, a negative one counted from the end (`size` + it)."""
    i = st.emit(arith.IndexCastOp(raw, IndexType()))
    negative = st.emit(arith.CmpiOp(i, zero, "slt"))
    return st.emit(arith.SelectOp(negative, st.emit(arith.AddiOp(i, size)), i))


def _broadcast_dims(sizes: Sequence[object], target: Sequence[object], first: int) -> list[int | None]:
    """Loop dims reading `sizes` right-aligned against `target`, whose dim 0 is loop dim `first`."""
    offset = len(target) - len(sizes)
    # Extra leading dims (of size 1, torch checked) read index 0.
    return [
        None if j + offset < 0 or (s == 1 and target[j + offset] != 1) else first + j + offset
        for j, s in enumerate(sizes)
    ]


# -- gathers ---------------------------------------------------------------------


@lowers("aten.embedding.default")
def _embedding(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """Row `indices[...]` of the weight; `padding_idx` only matters to the backward."""
    weight, indices = b["weight"], b["indices"]
    wt, it, out = _t(weight), _t(indices), _result(op)
    if wt.rank != 2:
        raise st.error(f"embedding weight of rank {wt.rank}, expected 2")
    _index_dtype_check(st, it, "embedding")
    w = st.tensor(weight)
    r = it.rank
    rows, zero = st.index(wt.sizes[0]), st.index(0)

    def body(args: list[SSAValue]) -> SSAValue:
        # torch rejects a negative row; wrapping it keeps the read in bounds.
        return extract(st, w, [wrap(st, args[0], rows, zero), loop_index(st, r)], out.element_dtype)

    return [gather_generic(st, out, [(st.tensor(indices), dims_map(r + 1, list(range(r))))], body)]


@lowers("aten.index_select.default")
def _index_select(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x, index = b["self"], b["index"]
    xt, it, out = _t(x), _t(index), _result(op)
    _index_dtype_check(st, it, "index_select")
    src = st.tensor(x)
    if xt.rank == 0:
        return [gather_generic(st, out, [], lambda args: extract(st, src, [], out.element_dtype))]
    dim = cast(int, b["dim"]) % xt.rank
    size, zero = st.index(xt.sizes[dim]), st.index(0)
    picks: list[int | None] = [dim] if it.rank == 1 else []

    def body(args: list[SSAValue]) -> SSAValue:
        coords = [loop_index(st, d) for d in range(xt.rank)]
        coords[dim] = wrap(st, args[0], size, zero)
        return extract(st, src, coords, out.element_dtype)

    return [gather_generic(st, out, [(st.tensor(index), dims_map(out.rank, picks))], body)]


@lowers("aten.gather.default")
def _gather(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x, index = b["self"], b["index"]
    xt, it, out = _t(x), _t(index), _result(op)
    _index_dtype_check(st, it, "gather")
    src = st.tensor(x)
    if xt.rank == 0:
        return [gather_generic(st, out, [], lambda args: extract(st, src, [], out.element_dtype))]
    if it.rank != xt.rank:
        raise st.error(f"gather: index of rank {it.rank} for a tensor of rank {xt.rank}")
    dim = cast(int, b["dim"]) % xt.rank
    size, zero = st.index(xt.sizes[dim]), st.index(0)

    def body(args: list[SSAValue]) -> SSAValue:
        coords = [loop_index(st, d) for d in range(xt.rank)]
        coords[dim] = wrap(st, args[0], size, zero)
        return extract(st, src, coords, out.element_dtype)

    return [gather_generic(st, out, [(st.tensor(index), identity_map(out.rank))], body)]


def _advanced(st: LoweringState, what: str, indices: object, rank: int) -> tuple[list[int], list[SSAValue]]:
    """The indexed dims and the index tensors of a `Tensor?[]` list."""
    entries = list(cast(Sequence[object], indices))
    if len(entries) > rank:
        raise st.error(f"{what}: {len(entries)} indices for a tensor of rank {rank}")
    positions = [i for i, v in enumerate(entries) if v is not None]
    return positions, [cast(SSAValue, entries[i]) for i in positions]


def _indexed_layout(positions: Sequence[int], rank: int, rb: int) -> tuple[int, list[int]]:
    """
    Where advanced indexing puts its dims: index tensors at consecutive dims
    put the rb broadcast index dims in their place (`x[:, i, j]` is
    x[:k] + broadcast + x[k+m:]); separated ones put them first, followed by
    the dims not indexed (torch's, and numpy's, rule). Returns the result dim
    of the first broadcast index dim, and the result dim of each dim of x
    that is not indexed, in order.
    """
    first = positions[0]
    plain = [d for d in range(rank) if d not in positions]
    if positions != list(range(first, first + len(positions))):
        return 0, [rb + j for j in range(len(plain))]
    return first, [d if d < first else d - len(positions) + rb for d in plain]


@lowers("aten.index.Tensor", "aten.index.Tensor_hacked_twin", note="boolean masks (data-dependent size) refused")
def _index(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """`x[..., i, ..., j, ...]`: the broadcast index dims where `_indexed_layout` puts them, then x's other dims."""
    x = b["self"]
    xt, out = _t(x), _result(op)
    positions, idx = _advanced(st, op.name, b["indices"], xt.rank)
    for v in idx:
        _index_dtype_check(st, _t(v), op.name)
    if not idx:
        return [st.tensor(x)]
    m = len(idx)
    rb = out.rank - (xt.rank - m)
    start, plain = _indexed_layout(positions, xt.rank, rb)
    bsizes = list(out.sizes[start : start + rb])
    src = st.tensor(x)
    sizes = [st.index(xt.sizes[d]) for d in positions]
    zero = st.index(0)
    inputs = [(st.tensor(v), dims_map(out.rank, _broadcast_dims(_t(v).sizes, bsizes, start))) for v in idx]
    plain_dims = [d for d in range(xt.rank) if d not in positions]

    def body(args: list[SSAValue]) -> SSAValue:
        coords: list[SSAValue] = [zero] * xt.rank
        for j, d in enumerate(positions):
            coords[d] = wrap(st, args[j], sizes[j], zero)
        for d, r in zip(plain_dims, plain):
            coords[d] = loop_index(st, r)
        return extract(st, src, coords, out.element_dtype)

    return [gather_generic(st, out, inputs, body)]


# -- scatters ----------------------------------------------------------------------


Combine = Callable[[SSAValue, SSAValue], SSAValue]
"""How an update meets the destination element: (old, new) -> value."""


def _combine(st: LoweringState, reduce: str | None, dtype: DType) -> Combine:
    if reduce is None:
        return lambda old, new: new
    if reduce in ("add", "sum"):
        return lambda old, new: add(st, old, new, dtype)
    if reduce in ("multiply", "prod"):
        return lambda old, new: mul(st, old, new, dtype)
    raise st.error(f"scatter reduce '{reduce}' is not lowered")


def insert_slice(
    st: LoweringState, source: SSAValue, dest: SSAValue, offsets: Sequence[Mixed], sizes: Sequence[Mixed], strides: Sequence[Mixed]
) -> SSAValue:
    """`tensor.insert_slice` with static or dynamic offsets, sizes and strides (nothing for an empty source)."""
    if any(s == 0 for s in sizes if isinstance(s, int)):
        return dest
    parts: list[tuple[list[int], list[SSAValue]]] = []
    for values in (offsets, sizes, strides):
        parts.append(([v if isinstance(v, int) else DYNAMIC_INDEX for v in values], [v for v in values if isinstance(v, SSAValue)]))
    op = tensor.InsertSliceOp.build(
        operands=[source, dest, parts[0][1], parts[1][1], parts[2][1]],
        result_types=[dest.type],
        properties={
            "static_offsets": DenseArrayBase.from_list(i64, parts[0][0]),
            "static_sizes": DenseArrayBase.from_list(i64, parts[1][0]),
            "static_strides": DenseArrayBase.from_list(i64, parts[2][0]),
        },
    )
    return st.emit(op)


ScatterBody = Callable[[SSAValue, SSAValue, SSAValue | None, Sequence[SSAValue]], list[SSAValue]]
"""(whether this update names the position, index element, src element or None, accumulators) -> new accumulators."""


def scatter_loop(
    st: LoweringState, xt: TensorType, dim: int, index: SSAValue, src: SSAValue | None, inits: Sequence[SSAValue], body: ScatterBody
) -> list[SSAValue]:
    """
    The loop of a scatter along `dim`: a generic over `self`'s dims and, as a
    reduction, the index's extent along `dim`; the body sees each index
    element (and src element) whose position in the other dims is the
    output's, and whether it names the output position. Where the index
    covers all of `self` in the other dims, index and src are read through
    indexing maps; otherwise with `tensor.extract` at clamped coordinates, the
    positions outside the index's extent seeing no update (not a generic over
    a slice of `self` inserted back: IREE 3.13 computes that in place in
    `self`'s buffer, and refuses it when `self` is a function argument).
    """
    it = _t(index)
    rank = xt.rank
    k_size = it.sizes[dim]
    covered = all(it.sizes[d] == xt.sizes[d] for d in range(rank) if d != dim)
    srct = _t(src) if src is not None else None
    if srct is not None and any(srct.sizes[d] != it.sizes[d] for d in range(rank)):
        covered = False
    picks: list[int | None] = [rank if d == dim else d for d in range(rank)]
    size, zero = st.index(xt.sizes[dim]), st.index(0)
    true = st.constant(True, DType.bool)
    every = dims_map(rank + 1, list(range(rank)))
    lowered_index = st.tensor(index)
    lowered_src = st.tensor(src) if src is not None else None
    if covered:
        inputs = [(lowered_index, dims_map(rank + 1, picks))]
        if lowered_src is not None:
            inputs.append((lowered_src, dims_map(rank + 1, picks)))
    else:
        # A tensor of the index's extent along `dim` gives the reduction loop its size.
        inputs = [(st.empty_of([k_size], DType.int8), dims_map(rank + 1, [rank]))]
    limits = [st.index(it.sizes[d]) for d in range(rank)]
    n_in = len(inputs)

    def loop_body(args: Sequence[SSAValue]) -> list[SSAValue]:
        accs = args[n_in:]
        if covered:
            raw, new = args[0], (args[1] if lowered_src is not None else None)
            inside = true
        else:
            inside = true
            coords: list[SSAValue] = []
            for d in range(rank):
                c = loop_index(st, rank if d == dim else d)
                if d != dim and it.sizes[d] != xt.sizes[d]:
                    below = st.emit(arith.CmpiOp(c, limits[d], "slt"))
                    inside = st.emit(arith.AndIOp(inside, below))
                    c = st.emit(arith.SelectOp(below, c, zero))
                coords.append(c)
            raw = extract(st, lowered_index, coords, it.element_dtype)
            new = None
            if lowered_src is not None and srct is not None:
                new = extract(st, lowered_src, coords, srct.element_dtype)
        hit = st.emit(arith.CmpiOp(wrap(st, raw, size, zero), loop_index(st, dim), "eq"))
        if not covered:
            hit = st.emit(arith.AndIOp(hit, inside))
        return body(hit, raw, new, accs)

    return st.generic(inputs, [(v, every) for v in inits], [PARALLEL] * rank + [REDUCTION], loop_body)


def _scatter(st: LoweringState, op: AtenOp, b: Bound, reduce: str | None) -> list[SSAValue]:
    """
    `self.scatter(dim, index, src)`: out[..., index[i, k, j], ...] = src[i, k, j]
    for the index's extent. On the sub-block of self the index covers, loop over
    (that block, k) with k a reduction: a position takes the src element of every
    k whose index names it, in increasing k (torch's CPU loop order).
    """
    x, index = b["self"], b["index"]
    xt, it, out = _t(x), _t(index), _result(op)
    if xt.rank == 0:
        raise st.error(f"{op.name} of a 0-d tensor is not lowered")
    if it.rank != xt.rank:
        raise st.error(f"{op.name}: index of rank {it.rank} for a tensor of rank {xt.rank}")
    _index_dtype_check(st, it, op.name)
    rank = xt.rank
    dim = cast(int, b["dim"]) % rank
    dtype = out.element_dtype
    combine = _combine(st, reduce, dtype)
    src = b.get("src")
    value: SSAValue | None = None
    src_dtype = dtype
    if isinstance(src, SSAValue) and isinstance(src.type, TensorType):
        src_dtype = src.type.element_dtype
    else:
        src, value = None, st.scalar(b["value"], dtype)

    def body(hit: SSAValue, raw: SSAValue, given: SSAValue | None, accs: Sequence[SSAValue]) -> list[SSAValue]:
        acc = accs[0]
        new = value if value is not None else st.cast(cast(SSAValue, given), src_dtype, dtype)
        return [st.emit(arith.SelectOp(hit, combine(acc, new), acc))]

    return scatter_loop(st, xt, dim, cast(SSAValue, index), cast(SSAValue | None, src), [st.tensor(x)], body)


@lowers("aten.scatter.src", "aten.scatter.value", note="0-d self refused")
def _scatter_plain(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _scatter(st, op, b, None)


@lowers("aten.scatter_add.default", note="0-d self refused")
def _scatter_add(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _scatter(st, op, b, "add")


@lowers("aten.scatter.reduce", "aten.scatter.value_reduce", note="0-d self refused")
def _scatter_reduce(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """torch accepts reduce='add' or 'multiply' here."""
    return _scatter(st, op, b, cast(str, b["reduce"]))


@lowers("aten.scatter_reduce.two", note="0-d self refused")
def _scatter_reduce_two(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """
    `scatter_reduce(dim, index, src, reduce, include_self)` with sum, prod,
    mean, amax or amin. As torch's CPU kernel does, `include_self=False`
    first fills the positions the index names with the reduction's identity
    (0, 1, -inf, +inf); a second output counts the updates of each position,
    which `mean` divides by (plus one with `include_self`; floor division for
    integers, as torch's `div_(count, "floor")`). amax and amin propagate NaN.
    """
    x, index, src = b["self"], b["index"], b["src"]
    xt, it, srct, out = _t(x), _t(index), _t(src), _result(op)
    reduce = cast(str, b["reduce"])
    include_self = bool(b.get("include_self", True))
    if xt.rank == 0:
        raise st.error(f"{op.name} of a 0-d tensor is not lowered")
    if it.rank != xt.rank:
        raise st.error(f"{op.name}: index of rank {it.rank} for a tensor of rank {xt.rank}")
    _index_dtype_check(st, it, op.name)
    rank = xt.rank
    dim = cast(int, b["dim"]) % rank
    dtype = out.element_dtype
    identities: dict[str, float | int] = {"sum": 0, "mean": 0, "prod": 1, "amax": lowest(dtype), "amin": highest(dtype)}
    combines: dict[str, Combine] = {
        "sum": lambda a, c: add(st, a, c, dtype),
        "mean": lambda a, c: add(st, a, c, dtype),
        "prod": lambda a, c: mul(st, a, c, dtype),
        "amax": lambda a, c: maximum(st, a, c, dtype),
        "amin": lambda a, c: minimum(st, a, c, dtype),
    }
    if reduce not in combines:
        raise st.error(f"{op.name}: unknown reduce '{reduce}' (sum, prod, mean, amax, amin)")
    combine = combines[reduce]
    dest = st.tensor(x)
    init = dest if include_self else st.filled(xt, identities[reduce])
    counting = reduce == "mean" or not include_self
    one = st.constant(1, DType.int64)

    def body(hit: SSAValue, raw: SSAValue, given: SSAValue | None, accs: Sequence[SSAValue]) -> list[SSAValue]:
        acc = accs[0]
        new = st.cast(cast(SSAValue, given), srct.element_dtype, dtype)
        updated = [st.emit(arith.SelectOp(hit, combine(acc, new), acc))]
        if counting:
            seen = accs[1]
            updated.append(st.emit(arith.SelectOp(hit, st.emit(arith.AddiOp(seen, one)), seen)))
        return updated

    inits = [init, st.filled(xt, 0, DType.int64)] if counting else [init]
    made = scatter_loop(st, xt, dim, cast(SSAValue, index), cast(SSAValue, src), inits, body)
    if not counting:
        return [made[0]]

    def finish(args: Sequence[SSAValue]) -> list[SSAValue]:
        old, value, n = args[0], args[1], args[2]
        if reduce == "mean":
            total = st.emit(arith.AddiOp(n, one)) if include_self else n
            total = st.emit(arith.MaxSIOp(total, one))
            denominator = st.cast(total, DType.int64, dtype)
            value = div(st, value, denominator, dtype) if dtype.is_floating_point else floor_divide(st, value, denominator, dtype)
        if not include_self:
            untouched = st.emit(arith.CmpiOp(n, st.constant(0, DType.int64), "eq"))
            value = st.emit(arith.SelectOp(untouched, old, value))
        return [value]

    ident = identity_map(rank)
    return st.generic([(dest, ident), (made[0], ident), (made[1], ident)], [(st.empty(xt), ident)], [PARALLEL] * rank, finish)


@lowers("aten.index_put.default", note="masks mixed with indices or with per-element values refused")
def _index_put(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """
    `x[..., i, ..., j, ...] = values`: a generic over x's dims and, as
    reductions, the broadcast index dims; a position takes the value of every
    index tuple naming it (`accumulate`: adds them). The values broadcast
    against the indexed shape, whose broadcast index dims sit where
    `_indexed_layout` puts them. A single boolean mask with a broadcast value
    is a select.
    """
    x, values = b["self"], b["values"]
    xt, vt, out = _t(x), _t(values), _result(op)
    rank = xt.rank
    dtype = out.element_dtype
    accumulate = bool(b.get("accumulate"))
    entries = list(cast(Sequence[object], b["indices"]))
    masks = [v for v in entries if v is not None and _t(v).element_dtype in (DType.bool, DType.uint8)]
    if masks:
        return [_masked_put(st, op, b, entries, accumulate)]
    positions, idx = _advanced(st, op.name, entries, rank)
    for v in idx:
        _index_dtype_check(st, _t(v), op.name)
    if not idx:
        raise st.error(f"{op.name} without index tensors")
    m = len(idx)
    bsizes: list[object] = list(broadcast_shapes(*(_t(v).sizes for v in idx)))
    rb = len(bsizes)
    loops = rank + rb
    start, plain = _indexed_layout(positions, rank, rb)
    plain_dims = [d for d in range(rank) if d not in positions]
    # The indexed shape, and the loop dim of each of its dims.
    target: list[object] = [0] * (rank - m + rb)
    loop_of: list[int] = [0] * len(target)
    for j in range(rb):
        target[start + j], loop_of[start + j] = bsizes[j], rank + j
    for d, r in zip(plain_dims, plain):
        target[r], loop_of[r] = xt.sizes[d], d

    vpicks = [None if p is None else loop_of[p] for p in _broadcast_dims(vt.sizes, target, 0)]
    inputs = [(st.tensor(v), dims_map(loops, _broadcast_dims(_t(v).sizes, bsizes, rank))) for v in idx]
    inputs.append((st.tensor(values), dims_map(loops, vpicks)))
    sizes = [st.index(xt.sizes[d]) for d in positions]
    zero = st.index(0)
    true = st.constant(True, DType.bool)

    def body(args: Sequence[SSAValue]) -> list[SSAValue]:
        acc = args[-1]
        new = st.cast(args[m], vt.element_dtype, dtype)
        hit = true
        for j, d in enumerate(positions):
            eq = st.emit(arith.CmpiOp(wrap(st, args[j], sizes[j], zero), loop_index(st, d), "eq"))
            hit = eq if j == 0 else st.emit(arith.AndIOp(hit, eq))
        if accumulate:
            new = add(st, acc, new, dtype)
        return [st.emit(arith.SelectOp(hit, new, acc))]

    return st.generic(
        inputs,
        [(st.tensor(x), dims_map(loops, list(range(rank))))],
        [PARALLEL] * rank + [REDUCTION] * rb,
        body,
    )


def _masked_put(st: LoweringState, op: AtenOp, b: Bound, entries: Sequence[object], accumulate: bool) -> SSAValue:
    """`x[mask] = v` with one mask and a value broadcast along the masked elements."""
    x, values = b["self"], b["values"]
    xt, vt = _t(x), _t(values)
    rank = xt.rank
    dtype = xt.element_dtype
    positions = [i for i, v in enumerate(entries) if v is not None]
    if len(positions) != 1:
        raise st.error(f"{op.name}: a boolean mask mixed with other indices is not lowered")
    first = positions[0]
    mask = cast(SSAValue, entries[first])
    mt = _t(mask)
    q = mt.rank
    # The masked elements form one dim (of data-dependent length) at `first`.
    target_rank = rank - q + 1
    offset = target_rank - vt.rank
    if offset < 0 or (first - offset >= 0 and first - offset < vt.rank and vt.sizes[first - offset] != 1):
        raise st.error(f"{op.name}: values that differ per masked element need a prefix count; only broadcast values are lowered")
    target = [*xt.sizes[:first], 1, *xt.sizes[first + q :]]
    vpicks: list[int | None] = []
    for j, size in enumerate(vt.sizes):
        t = j + offset
        if t == first or (size == 1 and target[t] != 1):
            vpicks.append(None)
        else:
            vpicks.append(t if t < first else t - 1 + q)
    inputs = [
        (st.tensor(mask), dims_map(rank, list(range(first, first + q)))),
        (st.tensor(values), dims_map(rank, vpicks)),
    ]

    def body(args: Sequence[SSAValue]) -> list[SSAValue]:
        hit = st.cast(args[0], mt.element_dtype, DType.bool)
        new = st.cast(args[1], vt.element_dtype, dtype)
        if accumulate:
            new = add(st, args[2], new, dtype)
        return [st.emit(arith.SelectOp(hit, new, args[2]))]

    return st.generic(inputs, [(st.tensor(x), identity_map(rank))], [PARALLEL] * rank, body)[0]


def _slice_of(value: SSAValue, dest: SSAValue) -> bool:
    """Whether `value` is `dest` seen through slices and reshapes (the same memory in IREE)."""
    while True:
        if value is dest:
            return True
        owner = value.owner
        if not isinstance(owner, tensor.ExtractSliceOp | tensor.CollapseShapeOp | tensor.ExpandShapeOp | tensor.CastOp):
            return False
        value = owner.operands[0]


def _write_slice(st: LoweringState, b: Bound, dim: int, start: SSAValue, step: Mixed, keep_dim: bool) -> SSAValue:
    """
    `self` with `src` written at `start`, `start + step`, ... along `dim`: a
    `tensor.insert_slice`, unless `src` is itself a slice of `self`. IREE 3.13
    then turns an overlapping insert into a copy within one buffer, which its
    runtime rejects ("source and target ranges overlap"), so that case reads
    `src` from a generic over `self` instead.
    """
    x, src = b["self"], b["src"]
    xt, srct = _t(x), _t(src)
    rank = xt.rank
    dtype = xt.element_dtype
    dest, value = st.tensor(x), st.tensor(src)
    if not _slice_of(value, dest):
        offsets: list[Mixed] = [0] * rank
        offsets[dim] = start
        strides: list[Mixed] = [1] * rank
        strides[dim] = step
        sizes: list[Mixed] = [mixed_size(st, s) for s in xt.sizes]
        sizes[dim] = mixed_size(st, srct.sizes[dim]) if keep_dim else 1
        return insert_slice(st, st.convert(value, srct, dtype), dest, offsets, sizes, strides)
    length = st.index(srct.sizes[dim] if keep_dim else 1)
    step_v = step if isinstance(step, SSAValue) else st.index(step)
    zero = st.index(0)

    def body(args: Sequence[SSAValue]) -> list[SSAValue]:
        rel = st.emit(arith.SubiOp(loop_index(st, dim), start))
        q = st.emit(arith.DivSIOp(rel, step_v))
        on_step = st.emit(arith.CmpiOp(st.emit(arith.RemSIOp(rel, step_v)), zero, "eq"))
        inside = st.emit(arith.AndIOp(st.emit(arith.CmpiOp(rel, zero, "sge")), on_step))
        inside = st.emit(arith.AndIOp(inside, st.emit(arith.CmpiOp(q, length, "slt"))))
        coords = [loop_index(st, d) for d in range(rank)]
        if keep_dim:
            coords[dim] = st.emit(arith.SelectOp(inside, q, zero))
        else:
            del coords[dim]
        new = st.cast(extract(st, value, coords, srct.element_dtype), srct.element_dtype, dtype)
        return [st.emit(arith.SelectOp(inside, new, args[0]))]

    return st.generic([(dest, identity_map(rank))], [(st.empty(xt), identity_map(rank))], [PARALLEL] * rank, body)[0]


@lowers("aten.select_scatter.default")
def _select_scatter(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """`src` written into `self` at `index` along `dim` (a rank-reducing insert_slice)."""
    xt = _t(b["self"])
    dim = cast(int, b["dim"]) % xt.rank
    index = wrap_bound(st, b["index"], xt.sizes[dim], clamp=False)
    return [_write_slice(st, b, dim, index, 1, keep_dim=False)]


@lowers("aten.slice_scatter.default")
def _slice_scatter(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """`src` written into `self[start:end:step]` along `dim` (start normalized as `slice` does)."""
    xt = _t(b["self"])
    dim = cast(int, b.get("dim", 0)) % xt.rank
    start = b.get("start")
    step = b.get("step", 1)
    first = wrap_bound(st, 0 if start is None else start, xt.sizes[dim], clamp=True)
    stride: Mixed = step if isinstance(step, int) else as_index(st, 1 if step is None else step)
    return [_write_slice(st, b, dim, first, stride, keep_dim=True)]


# -- padding ---------------------------------------------------------------------




# -- as_strided_scatter ------------------------------------------------------------


def _flattened(st: LoweringState, value: SSAValue, sizes: Sequence[SymSize], dtype: DType) -> SSAValue:
    """A lowered tensor of `sizes` as 1-D (a 0-d one as one element): its elements in row-major order."""
    el = element_type(dtype)
    if len(sizes) == 1:
        return value
    if not sizes:
        return expand(st, value, [], [1], el)
    return collapse(st, value, [list(range(len(sizes)))], [canonical_size(_numel(sizes))], el)


def _unflattened(st: LoweringState, flat: SSAValue, sizes: Sequence[SymSize], dtype: DType) -> SSAValue:
    el = element_type(dtype)
    if len(sizes) == 1:
        return flat
    if not sizes:
        return collapse(st, flat, [], [], el)
    return expand(st, flat, [list(range(len(sizes)))], list(sizes), el)


def _numel(sizes: Sequence[SymSize]) -> object:
    n: object = 1
    for s in sizes:
        n = n * s if isinstance(n, int) and isinstance(s, int) else to_sym(cast(SymSize, n)) * to_sym(s)
    return n


def _nested_order(sizes: Sequence[SymSize], strides: Sequence[SymSize]) -> list[int] | None:
    """
    The dims (size-1 ones left out) from the largest stride down, when each
    stride steps over everything the smaller-strided dims reach (the view is a
    slice of a possibly padded row-major layout, so a storage position names at
    most one element and a division per dim finds it); None otherwise (static
    sizes and strides only).
    """
    if is_contiguous(sizes, tuple(strides)):
        return [d for d, n in enumerate(sizes) if n != 1]
    if not all(isinstance(s, int) for s in (*sizes, *strides)):
        return None
    dims = sorted((d for d, n in enumerate(sizes) if n != 1), key=lambda d: cast(int, strides[d]))
    reach = 0
    for d in dims:
        if cast(int, strides[d]) <= reach:
            return None
        reach += (cast(int, sizes[d]) - 1) * cast(int, strides[d])
    return dims[::-1]


@lowers("aten.as_strided_scatter.default", note="views whose storage positions interleave or overlap, a self whose elements overlap, and views the lowering does not follow, refused")
def _as_strided_scatter(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """
    `self` copied, then `src` written through `as_strided(size, stride,
    offset)` of the copy: torch copies `self`'s whole storage and returns
    `self`'s view of the copy, so the write addresses that storage (rebuilt as
    `as_strided` rebuilds it, from the tensor owning it: `storage_view`), the
    offset defaulting to `self`'s own, and the result reads `self`'s elements
    back from it (a narrowed `self` does not show a write outside it). A `self`
    whose elements overlap (expanded), which torch copies alone, is refused.
    A contiguous view (size-1 dims aside), as autograd's
    restrides give, is a `tensor.insert_slice` of `src` flattened into `self`
    flattened. Any other view whose strides nest (each steps over all that the
    smaller ones reach) is a generic over `self`'s storage that finds, for a
    position, the element of `src` writing it by dividing by each stride in
    turn. Views whose positions interleave (size [3, 2], stride [2, 3]) or
    overlap (a stride 0, which makes the written value depend on the order of
    the writes) are refused, and so is a static view reaching past the storage,
    which torch rejects.
    """
    x, src = b.value("self"), b.value("src")
    xt, srct = _t(x), _t(src)
    dtype = _result(op).element_dtype
    sizes, strides = b.sizes("size"), b.sizes("stride")
    given = b.opt_size("storage_offset")
    where = f"as_strided_scatter (size {list(sizes)}, stride {list(strides)}, offset {0 if given is None else given})"
    if len(strides) != len(sizes) or any(isinstance(s, int) and s < 0 for s in (*sizes, *strides, given or 0)):
        raise st.error(f"{where}: needs one non-negative stride per size and a non-negative offset")
    if list(srct.sizes) != list(sizes):
        raise st.error(f"{where}: src has sizes {list(srct.sizes)}, the view {list(sizes)}")
    if any(n == 0 for n in sizes):
        return [st.convert(st.tensor(x), xt, dtype)]
    root, memory_order, own_strides, own_offset = storage_view(st, x)
    if any(s == 0 and n != 1 for n, s in zip(xt.sizes, own_strides)):
        raise st.error(f"{where} of a self whose elements share memory (expanded), which torch copies alone: "
                       "make it contiguous first (aten.clone with memory_format=torch.contiguous_format)")
    offset: SymSize = own_offset if given is None else given
    whole = root is x and memory_order == list(range(xt.rank))  # `self` is its own storage, in row-major order
    order = _nested_order(sizes, strides)
    if order is None:
        raise st.error(f"{where}: the view's storage positions interleave or overlap, which the lowering does not "
                       "invert; run this part on the interpreter")
    if whole:
        numel = canonical_size(_numel(xt.sizes))
        flat = _flattened(st, st.tensor(x), xt.sizes, dtype)
    else:
        flat, numel = flat_storage(st, root, memory_order)
    last = canonical_size(to_sym(offset) + sum((to_sym(n) - 1) * to_sym(s) for n, s in zip(sizes, strides)))
    inside = canonical_size(to_sym(numel) - 1 - to_sym(last))
    if isinstance(inside, int) and inside < 0:
        raise st.error(f"{where} reaches element {last} of a storage of {numel} elements")
    value = st.convert(st.tensor(src), srct, dtype)
    el = element_type(dtype)
    if is_contiguous(sizes, tuple(strides)) and isinstance(inside, int) and not _slice_of(value, st.tensor(x)):
        count = canonical_size(_numel(sizes))
        piece = _flattened(st, value, sizes, dtype)
        written = insert_slice(st, piece, flat, [mixed_size(st, offset)], [mixed_size(st, count)], [1])
        return [_read_back(st, written, xt, dtype, own_strides, own_offset) if not whole else
                _unflattened(st, written, xt.sizes, dtype)]
    zero, start = st.index(0), st.index(offset)
    steps = {d: st.index(strides[d]) for d in order}
    limits = {d: st.index(sizes[d]) for d in order}

    def body(args: Sequence[SSAValue]) -> list[SSAValue]:
        rel = st.emit(arith.SubiOp(loop_index(st, 0), start))
        hit = st.emit(arith.CmpiOp(rel, zero, "sge"))
        rest = st.emit(arith.SelectOp(hit, rel, zero))
        coords: list[SSAValue] = [zero] * len(sizes)
        for d in order:
            q = st.emit(arith.DivUIOp(rest, steps[d]))
            hit = st.emit(arith.AndIOp(hit, st.emit(arith.CmpiOp(q, limits[d], "ult"))))
            rest = st.emit(arith.SubiOp(rest, st.emit(arith.MuliOp(q, steps[d]))))
            coords[d] = q
        hit = st.emit(arith.AndIOp(hit, st.emit(arith.CmpiOp(rest, zero, "eq"))))
        coords = [st.emit(arith.SelectOp(hit, c, zero)) for c in coords]
        new = st.emit(tensor.ExtractOp(value, coords, el))
        return [st.emit(arith.SelectOp(hit, new, args[0]))]

    written = st.generic([(flat, identity_map(1))], [(st.empty_of([numel], dtype), identity_map(1))], [PARALLEL], body)[0]
    if not whole:
        return [_read_back(st, written, xt, dtype, own_strides, own_offset)]
    return [_unflattened(st, written, xt.sizes, dtype)]


def _read_back(
    st: LoweringState, flat: SSAValue, xt: TensorType, dtype: DType, strides: Sequence[SymSize], offset: SymSize
) -> SSAValue:
    """`self`'s elements read from its rewritten storage `flat` at its strides and storage offset."""
    el = element_type(dtype)
    base = st.index(offset)
    steps = [st.index(s) for s in strides]

    def at(args: list[SSAValue]) -> SSAValue:
        pos = base
        for d in range(xt.rank):
            pos = st.emit(arith.AddiOp(pos, st.emit(arith.MuliOp(loop_index(st, d), steps[d]))))
        return st.emit(tensor.ExtractOp(flat, [pos], el))

    return gather_generic(st, sized(list(xt.sizes), dtype), [], at)
