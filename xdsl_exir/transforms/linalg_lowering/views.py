"""
Views and shape ops. Value semantics make a view a new tensor: reshapes become
`tensor.collapse_shape` + `tensor.expand_shape`, slices `tensor.extract_slice`,
`permute` `linalg.transpose`, `expand` a broadcasting `linalg.generic`, `cat`
`tensor.insert_slice`s into one `tensor.empty`.

Padding, `repeat` and `roll` are layout ops too: `constant_pad_nd` is `tensor.pad`
after an `extract_slice` for negative pads; reflection and replication padding,
`repeat` and `roll` are gathers (`core.gather_generic`, shared with `indexing`) at
mirrored, clamped or wrapped coordinates.

A reshape between symbolic shapes is split into groups whose size products are
equal symbolically (`[s0, s1, 16] -> [s0*s1, 16]` is `[[0, 1], [2]]`), so it
stays a pair of reassociations that IREE folds away, with no data movement.

`as_strided` addresses torch's storage rather than a tensor's elements, so
its rule rebuilds the storage from the value that owns it (`core.storage_view`
follows the chain of views back to it, as torch's view rules compute strides
and offsets). `flip` and `diagonal` read their input with `tensor.extract`
at computed coordinates. A slice with a static size of 0 is a `tensor.empty`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
)
from xdsl.dialects.builtin import (
    TensorType as BuiltinTensorType,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, Block, Region, SSAValue

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.semantics.decompositions.core import is_contiguous
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.transforms.linalg_lowering import lowers
from xdsl_exir.transforms.linalg_lowering.core import (
    Mixed,
    builtin_tensor,
    canonical_size,
    collapse,
    dims_map,
    expand,
    extract,
    flat_storage,
    gather_generic,
    loop_index,
    mixed_size,
    storage_view,
    transpose,
    wrap_index,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    DYNAMIC,
    PARALLEL,
    LoweringState,
    broadcast_map,
    element_type,
    identity_map,
    sized,
    tensor_type,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    result_of as _result,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    type_of as _t,
)
from xdsl_exir.utils.symbolic import SymSize, sympy, to_sym


def _same(a: object, b: object) -> bool:
    return sympy.expand(to_sym(cast(int, a)) - to_sym(cast(int, b))) == 0


def _product(sizes: Sequence[object]) -> object:
    p: object = 1
    for s in sizes:
        p = p * s  # pyright: ignore[reportOperatorIssue] - sizes are ints and sympy expressions, which multiply
    return sympy.expand(p) if isinstance(p, sympy.Basic) else p


def _divides(a: object, b: object) -> bool:
    """Whether `b / a` is a polynomial in the symbols (so `a` can grow towards `b`)."""
    ratio = sympy.cancel(to_sym(cast(int, b)) / to_sym(cast(int, a)))
    return sympy.fraction(ratio)[1] == 1


def reshape_groups(src: Sequence[object], dst: Sequence[object]) -> list[tuple[list[int], list[int]]] | None:
    """
    Split a reshape into consecutive groups of source and result dims whose size
    products are equal; trailing size-1 dims join the last group. None when the
    sizes have no such common structure.
    """
    groups: list[tuple[list[int], list[int]]] = []
    i = j = 0
    n, m = len(src), len(dst)
    while i < n and j < m:
        gi, gj = [i], [j]
        pa, pb = src[i], dst[j]
        i, j = i + 1, j + 1
        while not _same(pa, pb):
            if i < n and _divides(pa, pb):
                gi.append(i)
                pa = _product([pa, src[i]])
                i += 1
            elif j < m and _divides(pb, pa):
                gj.append(j)
                pb = _product([pb, dst[j]])
                j += 1
            else:
                return None
        groups.append((gi, gj))
    if not groups:
        return None
    for k in range(i, n):
        if src[k] != 1:
            return None
        groups[-1][0].append(k)
    for k in range(j, m):
        if dst[k] != 1:
            return None
        groups[-1][1].append(k)
    return groups


def _add(a: object, b: object) -> object:
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    return sympy.expand(to_sym(cast(int, a)) + to_sym(cast(int, b)))


def reshape(st: LoweringState, value: SSAValue, src: Sequence[object], dst: Sequence[object], el: Attribute) -> SSAValue:
    """Reshape a contiguous tensor of sizes `src` to sizes `dst`."""
    if len(src) == len(dst) and all(_same(a, b) for a, b in zip(src, dst)):
        return value
    groups = reshape_groups(src, dst)
    if groups is None or not groups:
        # No common structure (or a rank-0 side): through a 1-D tensor.
        flat = [_product(src)]
        if src:
            value = collapse(st, value, [list(range(len(src)))], flat, el)
        else:
            value = expand(st, value, [], [1], el)
            flat = [1]
        if dst:
            return expand(st, value, [list(range(len(dst)))], dst, el)
        return collapse(st, value, [], [], el)
    middle = [_product([src[i] for i in gi]) for gi, _ in groups]
    if any(len(gi) > 1 for gi, _ in groups):
        value = collapse(st, value, [gi for gi, _ in groups], middle, el)
    if any(len(gj) > 1 for _, gj in groups):
        value = expand(st, value, [gj for _, gj in groups], dst, el)
    return value


@lowers("aten.view.default", "aten._unsafe_view.default", "aten.reshape.default", "aten.view_copy.default", "aten._reshape_alias.default")
def _view(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    out = _result(op)
    return [reshape(st, st.tensor(x), _t(x).sizes, out.sizes, element_type(out.element_dtype))]


@lowers(
    "aten.unsqueeze.default", "aten.squeeze.dims", "aten.squeeze.dim", "aten.squeeze.default",
    "aten.flatten.using_ints", "aten.unflatten.int", "aten.unsqueeze_copy.default", "aten.squeeze_copy.dims",
)  # fmt: skip
def _squeeze_like(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return list(_view(st, op, b))


@lowers("aten.permute.default", "aten.permute_copy.default")
def _permute(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    rank = _t(x).rank
    perm = [d % rank if rank else 0 for d in cast(list[int], b["dims"])]
    return [transpose(st, st.tensor(x), perm, _result(op))]


@lowers("aten.transpose.int", "aten.transpose_copy.int")
def _transpose(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    rank = _t(x).rank
    perm = list(range(rank))
    if rank:
        d0, d1 = cast(int, b["dim0"]) % rank, cast(int, b["dim1"]) % rank
        perm[d0], perm[d1] = perm[d1], perm[d0]
    return [transpose(st, st.tensor(x), perm, _result(op))]


@lowers("aten.t.default", "aten.t_copy.default", "aten.numpy_T.default")
def _t_rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    perm = list(reversed(range(_t(x).rank)))
    return [transpose(st, st.tensor(x), perm, _result(op))]


@lowers("aten.expand.default", "aten.expand_copy.default", "aten.broadcast_to.default", "aten.expand_as.default")
def _expand(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    out = _result(op)
    xt = _t(x)
    if len(xt.sizes) == len(out.sizes) and all(_same(a, c) for a, c in zip(xt.sizes, out.sizes)):
        return [st.tensor(x)]
    rank = out.rank
    return st.generic(
        [(st.tensor(x), broadcast_map(xt.sizes, out.sizes))],
        [(st.empty(out), identity_map(rank))],
        [PARALLEL] * rank,
        lambda args: [args[0]],
    )


# -- slicing -------------------------------------------------------------------


def extract_slice(
    st: LoweringState,
    source: SSAValue,
    offsets: Sequence[SSAValue | int],
    sizes: Sequence[SSAValue | int],
    strides: Sequence[SSAValue | int],
    result: BuiltinTensorType[Attribute],
) -> SSAValue:
    """
    `tensor.extract_slice`, or a `tensor.empty` when a static size is 0: MLIR's
    verifier rejects an offset that is not inside its dim ("offset 0 is
    out-of-bounds: 0 >= 0") even for an empty slice, and an empty slice reads nothing.
    """
    if any(s == 0 for s in sizes if isinstance(s, int)):
        return st.emit(tensor.EmptyOp([s for s in sizes if isinstance(s, SSAValue)], result))
    return st.emit(tensor.ExtractSliceOp(source, list(offsets), list(sizes), list(strides), result))


@lowers("aten.slice.Tensor", "aten.slice_copy.Tensor")
def _slice(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    xt, out = _t(x), _result(op)
    rank = xt.rank
    dim = cast(int, b["dim"]) % rank
    start = b.get("start")
    step = cast(int, b.get("step") or 1)
    start_v = wrap_index(st, 0 if start is None else start, xt.sizes[dim], clamp=True)
    offsets: list[SSAValue | int] = [0] * rank
    sizes: list[SSAValue | int] = [s if isinstance(s, int) else st.index(s) for s in out.sizes]
    strides: list[SSAValue | int] = [1] * rank
    offsets[dim] = start_v
    strides[dim] = step
    return [extract_slice(st, st.tensor(x), offsets, sizes, strides, tensor_type(out))]


@lowers("aten.select.int", "aten.select_copy.int")
def _select(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    xt, out = _t(x), _result(op)
    rank = xt.rank
    dim = cast(int, b["dim"]) % rank
    index = b["index"]
    if isinstance(index, int) and index < 0 and not isinstance(xt.sizes[dim], int):
        idx = st.index(to_sym(xt.sizes[dim]) + index)
    else:
        idx = wrap_index(st, index, xt.sizes[dim], clamp=False)
    offsets: list[SSAValue | int] = [0] * rank
    offsets[dim] = idx
    sizes: list[SSAValue | int] = [s if isinstance(s, int) else st.index(s) for s in xt.sizes]
    sizes[dim] = 1
    return [extract_slice(st, st.tensor(x), offsets, sizes, [1] * rank, tensor_type(out))]


def _split(st: LoweringState, x: object, dim: int, pieces: Sequence[object], outs: Sequence[TensorType]) -> list[SSAValue]:
    xt = _t(x)
    rank = xt.rank
    values: list[SSAValue] = []
    offset: object = 0
    for size, out in zip(pieces, outs):
        offsets: list[SSAValue | int] = [0] * rank
        offsets[dim] = offset if isinstance(offset, int) else st.index(offset)
        sizes: list[SSAValue | int] = [s if isinstance(s, int) else st.index(s) for s in out.sizes]
        values.append(extract_slice(st, st.tensor(x), offsets, sizes, [1] * rank, tensor_type(out)))
        offset = _add(offset, size)
    return values


@lowers("aten.split_with_sizes.default", "aten.split_with_sizes_copy.default", "aten.split.Tensor", "aten.split_copy.Tensor")
def _split_rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    xt = _t(x)
    rank = xt.rank
    dim = cast(int, b.get("dim", 0)) % rank
    total = xt.sizes[dim]
    if "split_sizes" in b:
        pieces = list(cast(list[object], b["split_sizes"]))
    else:
        size = cast(int, b["split_size"])
        if not isinstance(total, int):
            raise st.error("split of a symbolic dimension by a fixed size")
        pieces = [min(size, total - k) for k in range(0, total, size)] or [0]
    outs: list[TensorType] = []
    for p in pieces:
        sizes: list[object] = list(xt.sizes)
        sizes[dim] = p
        outs.append(sized(sizes, xt.element_dtype))
    return [cast(SSAValue, _split(st, x, dim, pieces, outs))]


@lowers("aten.unbind.int", "aten.unbind_copy.int")
def _unbind(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    xt = _t(x)
    rank = xt.rank
    dim = cast(int, b.get("dim", 0)) % rank
    n = xt.sizes[dim]
    if not isinstance(n, int):
        raise st.error("unbind of a symbolic dimension")
    out_sizes = [s for k, s in enumerate(xt.sizes) if k != dim]
    values: list[SSAValue] = []
    for i in range(n):
        offsets: list[SSAValue | int] = [0] * rank
        offsets[dim] = i
        sizes: list[SSAValue | int] = [s if isinstance(s, int) else st.index(s) for s in xt.sizes]
        sizes[dim] = 1
        out = sized(out_sizes, xt.element_dtype)
        values.append(extract_slice(st, st.tensor(x), offsets, sizes, [1] * rank, tensor_type(out)))
    return [cast(SSAValue, values)]


@lowers("aten.cat.default", "aten.concat.default")
def _cat(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    out = _result(op)
    rank = out.rank
    dim = cast(int, b.get("dim", 0)) % rank
    acc = st.empty(out)
    offset: object = 0
    for x in cast(list[object], b["tensors"]):
        xt = _t(x)
        if xt.rank == 1 and xt.sizes[0] == 0 and rank != 1:
            continue  # torch skips legacy empty [0] tensors in cat
        if any(s == 0 for s in xt.sizes):
            continue  # nothing to insert (and MLIR rejects its offset at the end of the dim)
        value = st.convert(st.tensor(x), xt, out.element_dtype)
        offsets: list[SSAValue | int] = [0] * rank
        offsets[dim] = offset if isinstance(offset, int) else st.index(offset)
        sizes: list[SSAValue | int] = [s if isinstance(s, int) else st.index(s) for s in xt.sizes]
        acc = st.insert_slice(value, acc, offsets, sizes)
        size = xt.sizes[dim]
        offset = _add(offset, size)
    return [acc]


@lowers("aten.flip.default")
def _flip(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """
    out[..., i, ...] = x[..., n - 1 - i, ...] on the flipped dims: index
    arithmetic and `tensor.extract` in a generic (an indexing map `n - 1 - d`
    has a negative coefficient, which linalg's shape inference rejects).
    """
    x = b["self"]
    xt, out = _t(x), _result(op)
    rank = xt.rank
    dims = {d % rank for d in cast(list[int], b["dims"])} if rank else set()
    if not dims:
        return [st.tensor(x)]
    src = st.tensor(x)
    last = {d: st.index(canonical_size(to_sym(xt.sizes[d]) - 1)) for d in dims}
    el = element_type(out.element_dtype)

    def body(args: Sequence[SSAValue]) -> list[SSAValue]:
        coords = [st.emit(linalg.IndexOp(d)) for d in range(rank)]
        for d in dims:
            coords[d] = st.emit(arith.SubiOp(last[d], coords[d]))
        return [st.emit(tensor.ExtractOp(src, coords, el))]

    return st.generic([], [(st.empty(out), identity_map(rank))], [PARALLEL] * rank, body)


@lowers("aten.diagonal.default")
def _diagonal(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """
    The diagonal `offset` of dims (dim1, dim2), as the last dim after the
    others: out[..., k] = x[..., k + max(-offset, 0), ..., k + max(offset, 0), ...],
    read with `tensor.extract` in a generic over the result.
    """
    x = b["self"]
    xt, out = _t(x), _result(op)
    rank = xt.rank
    d1, d2 = b.int("dim1") % rank, b.int("dim2") % rank
    if d1 == d2:
        raise st.error(f"diagonal: dim1 and dim2 are both {d1}")
    offset = b.int("offset")
    src = st.tensor(x)
    el = element_type(out.element_dtype)
    kept = [d for d in range(rank) if d not in (d1, d2)]
    shift1, shift2 = st.index(max(-offset, 0)), st.index(max(offset, 0))
    r = out.rank

    def body(args: Sequence[SSAValue]) -> list[SSAValue]:
        coords: list[SSAValue] = [st.index(0)] * rank
        for j, d in enumerate(kept):
            coords[d] = st.emit(linalg.IndexOp(j))
        k = st.emit(linalg.IndexOp(r - 1))
        coords[d1] = st.emit(arith.AddiOp(k, shift1))
        coords[d2] = st.emit(arith.AddiOp(k, shift2))
        return [st.emit(tensor.ExtractOp(src, coords, el))]

    return st.generic([], [(st.empty(out), identity_map(r))], [PARALLEL] * r, body)


# -- as_strided and diagonal ------------------------------------------------------


def _provably(condition: object) -> bool:
    return bool(condition is True or (isinstance(condition, sympy.Basic) and condition == sympy.true))


@lowers("aten.as_strided.default", note="views of a split's pieces, and storage owners not dense in memory, refused")
def _as_strided(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """
    `as_strided` addresses the STORAGE of `self`, not its elements: element
    `i` of the result is storage[offset + sum(i_k * stride_k)], the offset
    defaulting to `self`'s own. Value tensors have no storage, so the rule
    rebuilds it: the tensor owning it (`storage_view`) flattened in its memory
    order. A contiguous request (size-1 dims aside), like the channels-last
    restride of a pooled `[N, C, 1, 1]`, is a slice and a reshape of that;
    any other is a generic reading the flattened storage with `tensor.extract`.
    A read beyond the storage, which torch rejects, is refused when the sizes
    are static and clamped into the storage when they are symbolic.
    """
    x = b.value("self")
    out = _result(op)
    sizes = list(out.sizes)
    strides = tuple(b.sizes("stride"))
    if len(strides) != len(sizes) or any(isinstance(s, int) and s < 0 for s in strides):
        raise st.error(f"as_strided: strides {list(strides)} for sizes {sizes}")
    root, order, _, own_offset = storage_view(st, x)
    given = b.opt_size("storage_offset")
    offset = own_offset if given is None else given
    if any(s == 0 for s in sizes):
        return [st.empty(out)]
    flat, numel = flat_storage(st, root, order)
    last = canonical_size(offset + sum((to_sym(n) - 1) * to_sym(s) for n, s in zip(sizes, strides)))
    inside = canonical_size(numel - 1 - last)
    if isinstance(inside, int) and inside < 0:
        raise st.error(
            f"as_strided: size {sizes}, stride {list(strides)} and offset {offset} reach element {last} "
            f"of a storage of {numel} elements"
        )
    proven = isinstance(inside, int) or _provably(sympy.sympify(inside) >= 0)
    el = element_type(out.element_dtype)
    if proven and is_contiguous(sizes, strides):
        count = cast(SymSize, _product(sizes))
        if not (_same(offset, 0) and _same(count, numel)):
            flat = st.emit(
                tensor.ExtractSliceOp(
                    flat, [st.index(offset)], [count if isinstance(count, int) else st.index(count)], [1],
                    builtin_tensor([count], el),
                )
            )
        return [reshape(st, flat, [count], sizes, el)]
    base = st.index(offset)
    steps = [st.index(s) for s in strides]
    top = None if proven else st.index(sympy.Max(to_sym(numel) - 1, 0))
    rank = out.rank

    def body(args: Sequence[SSAValue]) -> list[SSAValue]:
        at = base
        for d in range(rank):
            at = st.emit(arith.AddiOp(at, st.emit(arith.MuliOp(st.emit(linalg.IndexOp(d)), steps[d]))))
        if top is not None:
            at = st.emit(arith.MinSIOp(at, top))
        return [st.emit(tensor.ExtractOp(flat, [at], el))]

    return st.generic([], [(st.empty(out), identity_map(rank))], [PARALLEL] * rank, body)


# -- repeat, roll and padding (gathers) ----------------------------------------


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
        [(st.tensor(x), dims_map(rank, picks))],
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


def unit_slice(st: LoweringState, source: SSAValue, offsets: Sequence[Mixed], sizes: Sequence[object], dtype: DType) -> SSAValue:
    """A unit-stride slice of static or symbolic `sizes`."""
    mixed = [mixed_size(st, s) for s in sizes]
    return extract_slice(st, source, list(offsets), mixed, [1] * len(mixed), builtin_tensor(sizes, element_type(dtype)))


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
        value = unit_slice(st, value, [mixed_size(st, lo) for lo, _ in crop], sizes, dtype)
    else:
        sizes = list(xt.sizes)
    if all(g == 0 for pair in grow for g in pair):
        return [value]
    fill = st.scalar(b["value"], dtype)
    region = Block(arg_types=[IndexType()] * rank)
    with st.at_block(region):
        st.insert(tensor.YieldOp(fill))
    low = [mixed_size(st, lo) for lo, _ in grow]
    high = [mixed_size(st, hi) for _, hi in grow]
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
