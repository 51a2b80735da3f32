"""Decompositions of the split family, the list-valued views and the view copies torch decomposes.

`tensor_split`, `hsplit`, `vsplit`, `dsplit`, the `unsafe_` splits and `unsafe_chunk` follow
torch/_refs: consecutive slices of one dimension, written as one `split_with_sizes` when the
slices tile the dimension (every index form torch's OpInfo samples use), otherwise as one
`slice` per `getitem` of the list. Export IR has no list constructor, so an operator whose
list result is built from several tensors (`broadcast_tensors`, `atleast_2d.Sequence`, the
`_copy` splits) replaces the `getitem`s of its list, as `unbind`'s rule does; a list used
whole is left alone, and the interpreter runs those operators through their numpy kernels
(`semantics.kernels.splits`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from xdsl.ir import Attribute, Operation, SSAValue

from xdsl_exir.dialects.exir import GetItemOp, ListType, MemoryFormat, TensorType
from xdsl_exir.semantics.decompositions.core import (
    Decline,
    Emitter,
    atleast_rank,
    op_name,
    rule,
    split_sizes,
    tensor_of,
)
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.utils.broadcast import broadcast_shapes
from xdsl_exir.utils.symbolic import SymSize

__all__: list[str] = []


def _bounds(total: int, cuts: Sequence[int]) -> list[tuple[int, int]]:
    """(start, end) of each piece of `tensor_split(indices)`: `slice(prev, cut)` in turn, with
    slice's wrapping of negative indices and clamping (a backwards pair is empty)."""

    def norm(i: int) -> int:
        return min(max(i + total if i < 0 else i, 0), total)

    edges = [0, *cuts]
    out: list[tuple[int, int]] = []
    for k, start in enumerate(edges):
        s = norm(start)
        end = norm(edges[k + 1]) if k + 1 < len(edges) else total
        out.append((s, max(s, end)))
    return out


def _replace_items(e: Emitter, op: Operation, count: int, make: Callable[[int], SSAValue]) -> Sequence[None]:
    """Replace each `getitem` of `op`'s list by `make(i)` (one value per index); decline when
    the list is used whole."""
    users = [use.operation for use in op.results[0].uses]
    if not all(isinstance(u, GetItemOp) for u in users):
        raise Decline()
    made: dict[int, SSAValue] = {}
    for user in cast(list[GetItemOp], users):
        i = user.index.data % count if count else user.index.data
        if i not in made:
            made[i] = make(i)
        e.rewriter.replace(user, [], [_typed_as(e, made[i], user.results[0])])
    return [None]  # every item has been read out: the list has no uses left


def _same_but_layout(new: Attribute, old: Attribute) -> bool:
    """`new` is `old` but for the dim order (inference gives the default layout; the graph
    records the one torch computed)."""
    if isinstance(new, ListType) and isinstance(old, ListType):
        return _same_but_layout(new.element_type, old.element_type)
    if isinstance(new, TensorType) and isinstance(old, TensorType):
        return old == TensorType(new.shape, new.dtype, new.device, old.dim_order)
    return False


def _typed_as(e: Emitter, new: SSAValue, old: SSAValue) -> SSAValue:
    """`new` with `old`'s type where they differ only in layout."""
    if new.type != old.type and _same_but_layout(new.type, old.type):
        return e.rewriter.replace_value_with_new_type(new, old.type)
    return new


def _split_at(e: Emitter, op: Operation, x: SSAValue, dim: int, pieces: list[tuple[int, int]]) -> Sequence[SSAValue | None]:
    """`x` cut along `dim` into `pieces` ((start, end) pairs): one `split_with_sizes` when they
    tile the dimension; otherwise a `slice` per `getitem`, or, for a list used whole, the slices
    concatenated and split again (the only list constructor core ATen has)."""
    sizes = [end - start for start, end in pieces]
    if all(pieces[k][1] == pieces[k + 1][0] for k in range(len(pieces) - 1)) and pieces[-1][1] == sum(sizes) + pieces[0][0]:
        if pieces[0][0] == 0:
            return [_typed_as(e, e.v("aten.split_with_sizes.default", x, sizes, dim), op.results[0])]
    try:
        return _replace_items(e, op, len(pieces), lambda i: e.v("aten.slice.Tensor", x, dim, *pieces[i]))
    except Decline:
        joined = e.v("aten.cat.default", [e.v("aten.slice.Tensor", x, dim, *p) for p in pieces], dim)
        return [_typed_as(e, e.v("aten.split_with_sizes.default", joined, sizes, dim), op.results[0])]


def _static_size(t_sizes: Sequence[SymSize], dim: int) -> int:
    size = t_sizes[dim]
    if not isinstance(size, int):
        raise Decline()
    return size


def _sections(total: int, sections: int) -> list[tuple[int, int]]:
    """torch's `tensor_split(sections)`: the first `total % sections` pieces one longer."""
    if sections <= 0:
        raise Decline()
    q, r = divmod(total, sections)
    out: list[tuple[int, int]] = []
    start = 0
    for k in range(sections):
        n = q + (1 if k < r else 0)
        out.append((start, start + n))
        start += n
    return out


@rule("aten.tensor_split.sections", "aten.tensor_split.indices")
def _tensor_split(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue | None]:
    x = b.value("self")
    t = tensor_of(x)
    if t.rank == 0:
        raise Decline()
    dim = b.int("dim") % t.rank
    total = _static_size(t.sizes, dim)
    if "sections" in b:
        return _split_at(e, op, x, dim, _sections(total, b.int("sections")))
    return _split_at(e, op, x, dim, _bounds(total, b.ints("indices")))


_SPLIT_DIM = {"hsplit": (1, 1), "vsplit": (0, 2), "dsplit": (2, 3)}
"""`hsplit`/`vsplit`/`dsplit`: the dim they cut and the least rank they take (`hsplit` cuts a
1-d tensor along dim 0)."""


@rule("aten.hsplit.int", "aten.hsplit.array", "aten.vsplit.int", "aten.vsplit.array", "aten.dsplit.int",
      "aten.dsplit.array")
def _hvdsplit(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue | None]:
    """torch/_refs `hsplit`: `tensor_split` along its dim; an int count must divide the size."""
    x = b.value("self")
    t = tensor_of(x)
    dim, least = _SPLIT_DIM[op_name(op).split(".")[1]]
    if t.rank < least:
        raise Decline()  # torch refuses: too few dims
    if t.rank == 1:
        dim = 0
    total = _static_size(t.sizes, dim)
    if "sections" in b:
        sections = b.int("sections")
        if sections <= 0 or total % sections:
            raise Decline()  # torch refuses an uneven split
        return _split_at(e, op, x, dim, _sections(total, sections))
    return _split_at(e, op, x, dim, _bounds(total, b.ints("indices")))


@rule("aten.unsafe_split.Tensor")
def _unsafe_split(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`unsafe_split` is `split` without the aliasing checks (functional IR has none)."""
    x = b.value("self")
    t = tensor_of(x)
    dim = b.int("dim") % t.rank
    pieces = e.v("aten.split_with_sizes.default", x, split_sizes(t.sizes[dim], b.int("split_size")), dim)
    return [_typed_as(e, pieces, op.results[0])]


@rule("aten.unsafe_chunk.default")
def _unsafe_chunk(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    t = tensor_of(x)
    dim = b.int("dim") % t.rank
    total = _static_size(t.sizes, dim)
    chunks = b.int("chunks")
    if chunks <= 0:
        raise Decline()
    # as `chunk`: an empty dim gives `chunks` empty pieces (a split by 0 would give one)
    sizes = [0] * chunks if total == 0 else split_sizes(total, -(-total // chunks))
    pieces = e.v("aten.split_with_sizes.default", x, sizes, dim)
    return [_typed_as(e, pieces, op.results[0])]




@rule("aten._reshape_copy.default")
def _reshape_copy(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch's `_reshape_copy`: a fresh contiguous tensor of the new shape."""
    x = e.v("aten.clone.default", b["self"], memory_format=MemoryFormat.contiguous_format)
    return [e.v("aten.view.default", x, b["size"])]


@rule("aten.view_copy.dtype")
def _view_copy_dtype(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    view = e.v("aten.view.dtype", b["self"], b["dtype"])
    return [e.v("aten.clone.default", view, memory_format=MemoryFormat.contiguous_format)]


@rule("aten._neg_view.default", "aten._neg_view_copy.default")
def _neg_view(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """A negated view of a real tensor holds `-self` (its lazy negation bit resolves to `neg`)."""
    return [e.v("aten.neg.default", b["self"])]


@rule("aten.lift.default", "aten.pin_memory.default", "aten._pin_memory.default")
def _identity(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """No-ops on a CPU value: lifting a constant into the graph, pinning host memory."""
    return [b.value("self")]


@rule("aten.split_copy.Tensor", "aten.split_with_sizes_copy.default", "aten.unbind_copy.int")
def _split_copies(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue | None]:
    """The `_copy` forms of `split` and `unbind`: each piece a fresh tensor."""
    x = b.value("self")
    t = tensor_of(x)
    if t.rank == 0:
        raise Decline()
    dim = b.int("dim") % t.rank
    total = _static_size(t.sizes, dim)
    name = op_name(op)
    if name == "aten.unbind_copy.int":
        return _replace_items(e, op, total, lambda i: e.v(
            "aten.clone.default", e.v("aten.select.int", x, dim, i), memory_format=MemoryFormat.contiguous_format))
    sizes = b.ints("split_sizes") if "split_sizes" in b else split_sizes(total, b.int("split_size"))
    starts = [sum(sizes[:k]) for k in range(len(sizes))]
    return _replace_items(e, op, len(sizes), lambda i: e.v(
        "aten.clone.default", e.v("aten.slice.Tensor", x, dim, starts[i], starts[i] + sizes[i]),
        memory_format=MemoryFormat.contiguous_format))


@rule("aten.broadcast_tensors.default")
def _broadcast_tensors(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue | None]:
    """torch/_refs `broadcast_tensors`: each tensor expanded to the common shape."""
    tensors = cast(list[SSAValue], b["tensors"])
    shape = broadcast_shapes(*[tensor_of(x).sizes for x in tensors])
    return _replace_items(e, op, len(tensors), lambda i: e.v("aten.expand.default", tensors[i], e.sizes(shape)))


@rule("aten.atleast_1d.Sequence", "aten.atleast_2d.Sequence", "aten.atleast_3d.Sequence")
def _atleast_sequence(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue | None]:
    """`atleast_{1,2,3}d` of each tensor of the list, as the one-tensor overloads."""
    tensors = cast(list[SSAValue], b["tensors"])
    least = int(op_name(op).split(".")[1][-2])
    return _replace_items(e, op, len(tensors), lambda i: atleast_rank(e, tensors[i], least))
