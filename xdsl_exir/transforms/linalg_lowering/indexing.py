"""
Indexing: gathers, scatters, padding, repetition.

Gathers (`embedding`, `index_select`, `gather`, `index.Tensor`, `repeat`,
`roll`) are one `linalg.generic` over the result whose body reads the source
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

`select_scatter` and `slice_scatter` are `tensor.insert_slice`;
`constant_pad_nd` is `tensor.pad` after an `extract_slice` for negative pads;
reflection and replication padding are gathers at mirrored or clamped
coordinates.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, IndexType, i64
from xdsl.dialects.builtin import TensorType as BuiltinTensorType
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.transforms.linalg_lowering import lowers
from xdsl_exir.transforms.linalg_lowering.reductions import highest, lowest
from xdsl_exir.transforms.linalg_lowering.scalar import add, div, floor_divide, maximum, minimum, mul
from xdsl_exir.transforms.linalg_lowering.state import (
    DYNAMIC,
    PARALLEL,
    REDUCTION,
    LoweringState,
    as_index,
    element_type,
    identity_map,
    tensor_type,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    result_of as _result,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    type_of as _t,
)
from xdsl_exir.transforms.linalg_lowering.views import collapse
from xdsl_exir.transforms.linalg_lowering.views import extract_slice as slice_or_empty
from xdsl_exir.transforms.linalg_lowering.views import wrap_index as wrap_bound
from xdsl_exir.utils.broadcast import broadcast_shapes
from xdsl_exir.utils.symbolic import sympy, to_sym

Mixed = SSAValue | int
"""A slice offset, size or stride: static, or an `index` value."""


def _mixed(st: LoweringState, size: object) -> Mixed:
    return size if isinstance(size, int) else st.index(size)


def _builtin(sizes: Sequence[object], dtype: DType) -> BuiltinTensorType[Attribute]:
    return BuiltinTensorType(element_type(dtype), [s if isinstance(s, int) else DYNAMIC for s in sizes])


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


def _dims(rank: int, picks: Sequence[int | None]) -> AffineMap:
    """A map of `rank` loop dims to the given dims (None reads index 0, a broadcast)."""
    return AffineMap(
        rank, 0, tuple(AffineExpr.constant(0) if d is None else AffineExpr.dimension(d) for d in picks)
    )


def _broadcast_dims(sizes: Sequence[object], target: Sequence[object], first: int) -> list[int | None]:
    """Loop dims reading `sizes` right-aligned against `target`, whose dim 0 is loop dim `first`."""
    offset = len(target) - len(sizes)
    # Extra leading dims (of size 1, torch checked) read index 0.
    return [
        None if j + offset < 0 or (s == 1 and target[j + offset] != 1) else first + j + offset
        for j, s in enumerate(sizes)
    ]


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

    return [gather_generic(st, out, [(st.tensor(indices), _dims(r + 1, list(range(r))))], body)]


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

    return [gather_generic(st, out, [(st.tensor(index), _dims(out.rank, picks))], body)]


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
    inputs = [(st.tensor(v), _dims(out.rank, _broadcast_dims(_t(v).sizes, bsizes, start))) for v in idx]
    plain_dims = [d for d in range(xt.rank) if d not in positions]

    def body(args: list[SSAValue]) -> SSAValue:
        coords: list[SSAValue] = [zero] * xt.rank
        for j, d in enumerate(positions):
            coords[d] = wrap(st, args[j], sizes[j], zero)
        for d, r in zip(plain_dims, plain):
            coords[d] = loop_index(st, r)
        return extract(st, src, coords, out.element_dtype)

    return [gather_generic(st, out, inputs, body)]


@lowers("aten.repeat.default")
def _repeat(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """Broadcast to (r0, s0, r1, s1, ...) and collapse each pair: tiling with affine maps only."""
    x = b["self"]
    xt, out = _t(x), _result(op)
    repeats = b.sizes("repeats")
    lead = len(repeats) - xt.rank
    if lead < 0:
        raise st.error(f"repeat: {len(repeats)} repeats for a tensor of rank {xt.rank}")
    expanded: list[object] = list(repeats[:lead])
    picks: list[int | None] = []
    groups: list[list[int]] = [[d] for d in range(lead)]
    for j, size in enumerate(xt.sizes):
        d = len(expanded)
        expanded += [repeats[lead + j], size]
        picks.append(d + 1)
        groups.append([d, d + 1])
    rank = len(expanded)
    dtype = out.element_dtype
    tiled = st.generic(
        [(st.tensor(x), _dims(rank, picks))],
        [(st.empty_of(expanded, dtype), identity_map(rank))],
        [PARALLEL] * rank,
        lambda args: [args[0]],
    )[0]
    if rank == out.rank:
        return [tiled]
    return [collapse(st, tiled, groups, out.sizes, element_type(dtype))]


def _mod(st: LoweringState, shift: object, size: object) -> SSAValue:
    """`shift mod size` in [0, size) as an index (Python's modulo; a size of 0 gives 0)."""
    if isinstance(shift, int) and isinstance(size, int):
        return st.index(shift % size if size else 0)
    n = st.emit(arith.MaxSIOp(st.index(size), st.index(1)))
    r = st.emit(arith.RemSIOp(st.index(shift), n))
    negative = st.emit(arith.CmpiOp(r, st.index(0), "slt"))
    return st.emit(arith.SelectOp(negative, st.emit(arith.AddiOp(r, n)), r))


def _unroll(st: LoweringState, i: SSAValue, shift: SSAValue, size: SSAValue) -> SSAValue:
    """The source position of result position `i` of a roll by `shift` (in [0, size)): (i - shift) mod size."""
    back = st.emit(arith.SubiOp(i, shift))
    negative = st.emit(arith.CmpiOp(back, st.index(0), "slt"))
    return st.emit(arith.SelectOp(negative, st.emit(arith.AddiOp(back, size)), back))


@lowers("aten.roll.default")
def _roll(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """out[i] = x[(i - shift) mod n] per rolled dim; with no dims, over the flattened tensor."""
    x = b["self"]
    xt, out = _t(x), _result(op)
    rank = xt.rank
    shifts = b.sizes("shifts")
    dims = [d % max(rank, 1) for d in cast(Sequence[int], b.get("dims") or [])]
    src = st.tensor(x)
    if dims and len(dims) != len(shifts):
        raise st.error(f"roll: {len(shifts)} shifts for {len(dims)} dims")
    if not dims and len(shifts) != 1:
        raise st.error("roll without dims takes one shift")
    if rank == 0:
        return [src]
    sizes = [st.index(s) for s in xt.sizes]
    if not dims:
        numel = _size_sum(sympy.Mul(*(to_sym(cast(int, s)) for s in xt.sizes)))
        shift = _mod(st, shifts[0], numel)
        total = st.index(numel)

        def flat_body(args: list[SSAValue]) -> SSAValue:
            flat = loop_index(st, 0)
            for d in range(1, rank):
                flat = st.emit(arith.AddiOp(st.emit(arith.MuliOp(flat, sizes[d])), loop_index(st, d)))
            flat = _unroll(st, flat, shift, total)
            coords: list[SSAValue] = []
            for d in reversed(range(1, rank)):
                coords.append(st.emit(arith.RemUIOp(flat, sizes[d])))
                flat = st.emit(arith.DivUIOp(flat, sizes[d]))
            return extract(st, src, [flat, *reversed(coords)], out.element_dtype)

        return [gather_generic(st, out, [], flat_body)]
    # A dim given twice is rolled twice, as torch does: the shifts add up.
    per_dim: dict[int, object] = {}
    for d, s in zip(dims, shifts):
        per_dim[d] = _size_sum(per_dim.get(d, 0), s)
    shift_of = {d: _mod(st, s, xt.sizes[d]) for d, s in per_dim.items()}

    def body(args: list[SSAValue]) -> SSAValue:
        coords = [loop_index(st, d) for d in range(rank)]
        for d, shift in shift_of.items():
            coords[d] = _unroll(st, coords[d], shift, sizes[d])
        return extract(st, src, coords, out.element_dtype)

    return [gather_generic(st, out, [], body)]


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


def extract_slice(st: LoweringState, source: SSAValue, offsets: Sequence[Mixed], sizes: Sequence[object], dtype: DType) -> SSAValue:
    """A unit-stride slice of static or symbolic `sizes`."""
    mixed = [_mixed(st, s) for s in sizes]
    return slice_or_empty(st, source, list(offsets), mixed, [1] * len(mixed), _builtin(sizes, dtype))


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
    every = _dims(rank + 1, list(range(rank)))
    lowered_index = st.tensor(index)
    lowered_src = st.tensor(src) if src is not None else None
    if covered:
        inputs = [(lowered_index, _dims(rank + 1, picks))]
        if lowered_src is not None:
            inputs.append((lowered_src, _dims(rank + 1, picks)))
    else:
        # A tensor of the index's extent along `dim` gives the reduction loop its size.
        inputs = [(st.empty_of([k_size], DType.int8), _dims(rank + 1, [rank]))]
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
    inputs = [(st.tensor(v), _dims(loops, _broadcast_dims(_t(v).sizes, bsizes, rank))) for v in idx]
    inputs.append((st.tensor(values), _dims(loops, vpicks)))
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
        [(st.tensor(x), _dims(loops, list(range(rank))))],
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
        (st.tensor(mask), _dims(rank, list(range(first, first + q)))),
        (st.tensor(values), _dims(rank, vpicks)),
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
        sizes: list[Mixed] = [_mixed(st, s) for s in xt.sizes]
        sizes[dim] = _mixed(st, srct.sizes[dim]) if keep_dim else 1
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


def _pad_amount(st: LoweringState, pad: object) -> tuple[object, object]:
    """(grow, crop) of one pad entry, as sizes: a positive pad grows, a negative one crops."""
    if isinstance(pad, int):
        return max(pad, 0), max(-pad, 0)
    expr = cast(sympy.Expr, pad)
    if expr.is_nonnegative:
        return expr, 0
    if expr.is_nonpositive:
        return 0, -expr
    raise st.error(f"constant_pad_nd: the sign of the pad {expr} is unknown")


def _size_sum(*terms: object) -> object:
    total = sum((to_sym(cast(int, t)) for t in terms), sympy.Integer(0))
    return int(total) if isinstance(total, sympy.Integer) else total


@lowers("aten.constant_pad_nd.default", note="symbolic pads of unknown sign refused")
def _constant_pad_nd(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """torch's pad list runs from the last dim, (low, high) each; negative pads crop first."""
    x = b["self"]
    xt, out = _t(x), _result(op)
    rank = xt.rank
    dtype = out.element_dtype
    pads = b.sizes("pad")
    if len(pads) % 2 or len(pads) // 2 > rank:
        raise st.error(f"constant_pad_nd: {len(pads)} pad values for a tensor of rank {rank}")
    grow: list[list[object]] = [[0, 0] for _ in range(rank)]
    crop: list[list[object]] = [[0, 0] for _ in range(rank)]
    for i, pad in enumerate(pads):
        d, side = rank - 1 - i // 2, i % 2
        grow[d][side], crop[d][side] = _pad_amount(st, pad)
    value = st.tensor(x)
    if any(c != 0 for pair in crop for c in pair):
        sizes = [_size_sum(s, -to_sym(cast(int, lo)), -to_sym(cast(int, hi))) for s, (lo, hi) in zip(xt.sizes, crop)]
        value = extract_slice(st, value, [_mixed(st, lo) for lo, _ in crop], sizes, dtype)
    else:
        sizes = list(xt.sizes)
    if all(g == 0 for pair in grow for g in pair):
        return [value]
    fill = st.scalar(b["value"], dtype)
    region = Block(arg_types=[IndexType()] * rank)
    with st.at_block(region):
        st.insert(tensor.YieldOp(fill))
    low = [_mixed(st, lo) for lo, _ in grow]
    high = [_mixed(st, hi) for _, hi in grow]
    # tensor.pad's verifier wants a dim dynamic exactly when its input or a pad amount is.
    padded_sizes = [
        _size_sum(s, lo, hi) if isinstance(s, int) and isinstance(lo, int) and isinstance(hi, int) else None
        for s, (lo, hi) in zip(sizes, grow)
    ]
    padded = st.emit(
        tensor.PadOp(
            value,
            [v for v in low if isinstance(v, SSAValue)],
            [v for v in high if isinstance(v, SSAValue)],
            Region(region),
            [v if isinstance(v, int) else DYNAMIC_INDEX for v in low],
            [v if isinstance(v, int) else DYNAMIC_INDEX for v in high],
            BuiltinTensorType(element_type(dtype), [s if isinstance(s, int) else DYNAMIC for s in padded_sizes]),
        )
    )
    want = tensor_type(out)
    if padded.type != want:
        padded = st.emit(tensor.CastOp(padded, want))
    return [padded]


def _mirror_pad(st: LoweringState, op: AtenOp, b: Bound, nd: int, reflect: bool) -> list[SSAValue]:
    """
    Reflection and replication padding of the last `nd` dims (padding from the
    last dim, (low, high) each): out[i] = x[j] with j = i - low reflected at
    the edges (-j below 0, 2 * (n - 1) - j past the end; torch checks that the
    pads are smaller than the size) or clamped to [0, n - 1]. A negative pad
    crops, by the same formula.
    """
    x = b.value("self")
    xt, out = _t(x), _result(op)
    rank = xt.rank
    pads = b.sizes("padding")
    if len(pads) != 2 * nd or rank < nd:
        raise st.error(f"{op.name}: {len(pads)} pads for a tensor of rank {rank}")
    src = st.tensor(x)
    zero = st.index(0)
    lows = {rank - 1 - k: st.index(pads[2 * k]) for k in range(nd)}
    lasts = {d: st.index(_size_sum(xt.sizes[d], -1)) for d in lows}

    def body(args: list[SSAValue]) -> SSAValue:
        coords = [loop_index(st, d) for d in range(rank)]
        for d, low in lows.items():
            j = st.emit(arith.SubiOp(coords[d], low))
            last = lasts[d]
            if reflect:
                j = st.emit(arith.SelectOp(st.emit(arith.CmpiOp(j, zero, "slt")), st.emit(arith.SubiOp(zero, j)), j))
                past = st.emit(arith.CmpiOp(j, last, "sgt"))
                j = st.emit(arith.SelectOp(past, st.emit(arith.SubiOp(st.emit(arith.AddiOp(last, last)), j)), j))
            else:
                j = st.emit(arith.MinSIOp(st.emit(arith.MaxSIOp(j, zero)), last))
            coords[d] = j
        return extract(st, src, coords, out.element_dtype)

    return [gather_generic(st, out, [], body)]


@lowers("aten.reflection_pad1d.default")
def _reflection_pad1d(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _mirror_pad(st, op, b, 1, reflect=True)


@lowers("aten.reflection_pad2d.default")
def _reflection_pad2d(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _mirror_pad(st, op, b, 2, reflect=True)


@lowers("aten.reflection_pad3d.default")
def _reflection_pad3d(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _mirror_pad(st, op, b, 3, reflect=True)


@lowers("aten.replication_pad2d.default")
def _replication_pad2d(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _mirror_pad(st, op, b, 2, reflect=False)


@lowers("aten.replication_pad3d.default")
def _replication_pad3d(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _mirror_pad(st, op, b, 3, reflect=False)
