"""Result types of indexing, gathers, embeddings and data-dependent selections."""

from __future__ import annotations

from xdsl.ir import Attribute

from xdsl_exir.dialects.exir import (
    DType,
)
from xdsl_exir.semantics.inference.core import (
    Bound,
    InferenceError,
    NoInference,
    add,
    as_list,
    broadcast_shapes,
    list_type,
    make_tensor,
    numel_of,
    rule,
    same_as_self,
    tensor_type,
    unbacked_symbol,
    wrap_dim,
)
from xdsl_exir.utils.symbolic import SymSize

# ---------------------------------------------------------------------------
# Indexing
# ---------------------------------------------------------------------------


@rule("aten.index.Tensor", "aten.index.Tensor_hacked_twin")
def _index(b: Bound) -> Attribute:
    t = b.tensor("self")
    raw = as_list(b["indices"])
    if len(raw) > t.rank:
        raise InferenceError("too many indices for the tensor")
    # Boolean masks index as many dims as they have, with a data-dependent count.
    index_shapes: list[list[SymSize] | None] = []
    for v in raw:
        if v is None:
            index_shapes.append(None)
            continue
        it = tensor_type(v, "indices")
        if it.element_dtype in (DType.bool, DType.uint8):
            u: list[SymSize] = [unbacked_symbol()]
            index_shapes.extend([u] * max(it.rank, 1))
        else:
            index_shapes.append(list(it.sizes))
    positions = [i for i, s in enumerate(index_shapes) if s is not None]
    if not positions:
        return t
    bshape = broadcast_shapes(*(s for s in index_shapes if s is not None))
    adjacent = positions == list(range(positions[0], positions[-1] + 1))
    rest_after = list(t.sizes[len(index_shapes) :])
    if adjacent:
        before = [t.sizes[i] for i in range(positions[0])]
        middle = [t.sizes[i] for i in range(positions[-1] + 1, len(index_shapes))]
        shape = [*before, *bshape, *middle, *rest_after]
    else:
        kept = [t.sizes[i] for i, s in enumerate(index_shapes) if s is None]
        shape = [*bshape, *kept, *rest_after]
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.index_select.default")
def _index_select(b: Bound) -> Attribute:
    t, i = b.tensor("self"), b.tensor("index")
    if i.rank > 1:
        raise InferenceError("index_select index must be 0-d or 1-d")
    if t.rank == 0:
        return t
    d = wrap_dim(b.int("dim"), t.rank)
    shape = list(t.sizes)
    shape[d] = i.sizes[0] if i.rank else 1
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.gather.default")
def _gather(b: Bound) -> Attribute:
    t, i = b.tensor("self"), b.tensor("index")
    wrap_dim(b.int("dim"), t.rank)
    return make_tensor(i.sizes, t.element_dtype, t.device.data)


@rule("aten.embedding.default")
def _embedding(b: Bound) -> Attribute:
    w, i = b.tensor("weight"), b.tensor("indices")
    if w.rank != 2:
        raise InferenceError("embedding weight must be 2-d")
    return make_tensor([*i.sizes, w.sizes[1]], w.element_dtype, w.device.data)


@rule(
    "aten._embedding_bag.default", "aten._embedding_bag_forward_only.default",
    "aten.embedding_bag.default", "aten.embedding_bag.padding_idx",
)  # fmt: skip
def _embedding_bag(b: Bound) -> list[Attribute]:
    w, i, o = b.tensor("weight"), b.tensor("indices"), b.tensor("offsets")
    bags = add(o.sizes[0], -1) if b["include_last_offset"] else o.sizes[0]
    dev = w.device.data
    mode = b.int("mode")
    # torch's CPU sum of float32/float16 rows without a padding index skips offset2bag;
    # the public overloads' padding index is None for none (any other value pads)
    public = b.schema.name == "embedding_bag"
    padded = b.get("padding_idx") is not None if public else b.int("padding_idx") >= 0
    fast = mode == 0 and not padded and w.element_dtype in (DType.float32, DType.float16)
    offset2bag: list[SymSize] = [0] if fast else [i.sizes[0]]
    # the forward-only and public forms size sum mode's (zero) bag sizes and max indices by the offsets
    sized_by_offsets = mode == 0 and bool(b["include_last_offset"]) and b.schema.name != "_embedding_bag"
    return [
        make_tensor([bags, w.sizes[1]], w.element_dtype, dev),
        make_tensor(offset2bag, i.element_dtype, dev),
        make_tensor([o.sizes[0]] if sized_by_offsets else [bags], i.element_dtype, dev),
        make_tensor([bags, w.sizes[1]] if mode == 2 else [o.sizes[0]] if sized_by_offsets else [bags], i.element_dtype, dev),
    ]


@rule("aten.nonzero.default")
def _nonzero(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor([unbacked_symbol(), t.rank], DType.int64, t.device.data)


@rule("aten.masked_select.default")
def _masked_select(b: Bound) -> Attribute:
    t = b.tensor("self")
    broadcast_shapes(t.sizes, b.tensor("mask").sizes)
    return make_tensor([unbacked_symbol()], t.element_dtype, t.device.data)


@rule("aten.where.default", "aten.nonzero_numpy.default")
def _where_nonzero(b: Bound) -> Attribute:
    """One index tensor per dim (a 0-d tensor has one, as torch reads it as a 1-element one)."""
    t = b.tensor("condition" if "condition" in b else "self")
    u = unbacked_symbol()
    return list_type([make_tensor([u], DType.int64, t.device.data)] * max(t.rank, 1))


@rule("aten._index_put_impl.default")
def _index_put_impl(b: Bound) -> Attribute:
    return b.tensor("self")


@rule("aten.one_hot.default")
def _one_hot(b: Bound) -> Attribute:
    t = b.tensor("self")
    n = b.int("num_classes")
    if n < 0:
        raise NoInference("one_hot without num_classes has a data-dependent size")
    return make_tensor([*t.sizes, n], DType.int64, t.device.data)


@rule("aten.take_along_dim.default", "aten.index_add.default", "aten.index_copy.default",
      "aten.index_fill.int_Scalar", "aten.index_fill.int_Tensor")  # fmt: skip
def _indexed_like_self(b: Bound) -> Attribute:
    t = b.tensor("self")
    if b.schema.name == "take_along_dim":
        i = b.tensor("indices")
        if b.get("dim") is None:
            return make_tensor([numel_of(i.sizes)], t.element_dtype, t.device.data)
        d = wrap_dim(b.int("dim"), t.rank)
        shape = broadcast_shapes([1 if k == d else s for k, s in enumerate(t.sizes)],
                                 [1 if k == d else s for k, s in enumerate(i.sizes)])
        shape[d] = i.sizes[d]
        return make_tensor(shape, t.element_dtype, t.device.data)
    if b.schema.name in ("index_add", "index_copy"):
        _check_index_source(b)
    return t


def _check_index_source(b: Bound) -> None:
    """
    `index_add` and `index_copy` put the source's slices along `dim` at the indices: torch
    wants a vector of indices, one per source slice, and the source's other sizes equal to
    self's (the decomposition's `index_put` would broadcast a smaller source, or refuse in
    its own words). Refused as torch refuses, its checks in its order; a symbolic size may
    be anything.
    """

    def differ(a: object, c: object) -> bool:
        return isinstance(a, int) and isinstance(c, int) and a != c

    name = b.schema.name
    t, i, src = b.tensor("self"), b.tensor("index"), b.tensor("source")
    if i.rank > 1:
        raise InferenceError(f"{name}: index is supposed to be a vector, but got dim: {i.rank} and size: {list(i.sizes)}")
    d = wrap_dim(b.int("dim"), t.rank) if t.rank else 0
    n = numel_of(i.sizes)
    if src.rank and t.rank:
        self_rest = [s for k, s in enumerate(t.sizes) if k != d]
        src_rest = [s for k, s in enumerate(src.sizes) if k != d]
    else:
        self_rest, src_rest = list(t.sizes), list(src.sizes)
    shapes_differ = len(self_rest) != len(src_rest) or any(differ(a, c) for a, c in zip(self_rest, src_rest))
    if name == "index_add":
        if d != 0 and d >= src.rank:
            raise InferenceError(f"{name}: indexing dim {d} is out of bounds of the source tensor with dim {src.rank}")
        count = src.sizes[d] if src.rank else 1
        if differ(n, count):
            raise InferenceError(f"{name}: number of indices ({n}) should be equal to source.size(dim): ({count}), for dim: {d}")
        if shapes_differ:
            raise InferenceError(f"{name}: source tensor shape must match self tensor shape, excluding the specified "
                                 f"dimension. Got self.shape = {list(t.sizes)} source.shape = {list(src.sizes)}")
        return
    if src.rank and t.rank and src.rank != t.rank:
        raise InferenceError(f"{name}: when source and destination are not scalars, their dimensionality must match. "
                             f"Source dimensionality ({src.rank}), destination dimensionality ({t.rank})")
    if not src.rank and differ(n, 1):
        raise InferenceError(f"{name}: when source is scalar, index should have one element (got {n})")
    if shapes_differ:
        raise InferenceError(f"{name}: source/destination tensor must have same slice shapes. Destination slice shape: "
                             f"{self_rest} at dimension {d} and source slice shape: {src_rest} at dimension 0")
    if src.rank and differ(n, src.sizes[d]):
        raise InferenceError(f"{name}: number of indices ({n}) should be equal to source.size(dim) ({src.sizes[d]})")


@rule("aten.take.default")
def _take(b: Bound) -> Attribute:
    t, i = b.tensor("self"), b.tensor("index")
    return make_tensor(i.sizes, t.element_dtype, t.device.data)


rule(
    "aten.index_put.default", "aten.index_put.hacked_twin", "aten.scatter.reduce", "aten.scatter.src",
    "aten.scatter.value", "aten.scatter.value_reduce", "aten.scatter_add.default", "aten.scatter_reduce.two",
    "aten.select_scatter.default", "aten.slice_scatter.default", "aten.as_strided_scatter.default",
)(same_as_self)  # fmt: skip


@rule("aten.masked_scatter.default")
def _masked_scatter(b: Bound) -> Attribute:
    t = b.tensor("self")
    shape = broadcast_shapes(t.sizes, b.tensor("mask").sizes)
    return make_tensor(shape, t.element_dtype, t.device.data)
