"""Result types of pairwise distances: `cdist`, `pdist`, `dist`, `cosine_similarity`, `pairwise_distance`."""

from __future__ import annotations

from xdsl.ir import Attribute

from xdsl_exir.semantics.inference.core import (
    Bound,
    add,
    broadcast_shapes,
    floordiv,
    make_tensor,
    mul,
    pointwise_type,
    rule,
    wrap_dim,
)


@rule("aten.dist.default")
def _dist(b: Bound) -> Attribute:
    _, dtype, device = pointwise_type(b, ("self", "other"))
    return make_tensor([], dtype, device)


@rule("aten.cosine_similarity.default")
def _cosine_similarity(b: Bound) -> Attribute:
    shape, dtype, device = pointwise_type(b, ("x1", "x2"))
    d = wrap_dim(b.int("dim"), len(shape))
    return make_tensor([s for i, s in enumerate(shape) if i != d], dtype, device)


@rule("aten.pairwise_distance.default")
def _pairwise_distance(b: Bound) -> Attribute:
    shape, dtype, device = pointwise_type(b, ("x1", "x2"))
    dtype = dtype.to_floating()  # x1 - x2 + eps
    if not shape:
        return make_tensor([], dtype, device)
    return make_tensor([*shape[:-1], 1] if b.get("keepdim") else shape[:-1], dtype, device)


@rule("aten._cdist_forward.default")
def _cdist(b: Bound) -> Attribute:
    a, c = b.tensor("x1"), b.tensor("x2")
    batch = broadcast_shapes(a.sizes[:-2], c.sizes[:-2])
    return make_tensor([*batch, a.sizes[-2], c.sizes[-2]], a.element_dtype, a.device.data)


@rule("aten._pdist_forward.default")
def _pdist(b: Bound) -> Attribute:
    t = b.tensor("self")
    n = t.sizes[0]
    return make_tensor([floordiv(mul(n, add(n, -1)), 2)], t.element_dtype, t.device.data)
