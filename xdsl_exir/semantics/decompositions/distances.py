"""Decompositions of pairwise distances: `dist`, `pdist`, `_euclidean_dist`, `cosine_similarity`, `pairwise_distance`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.exir import (
    MemoryFormat,
)
from xdsl_exir.semantics.decompositions.core import (
    Decline,
    Emitter,
    rule,
    tensor_of,
    triangle_pairs,
)
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.utils.broadcast import broadcast_shapes


@rule("aten._euclidean_dist.default")
def _euclidean_dist(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_decomp `_euclidean_dist`: one matmul of [-2 x1, |x1|^2, 1] with [x2, 1, |x2|^2],
    clamped at 0, square-rooted."""
    x1, x2 = b.value("x1"), b.value("x2")
    n1 = e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", x1, x1), [-1], True)
    n2 = e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", x2, x2), [-1], True)
    one1 = e.v("aten.full_like.default", n1, 1, pin_memory=False, memory_format=MemoryFormat.preserve_format)
    one2 = e.v("aten.full_like.default", n2, 1, pin_memory=False, memory_format=MemoryFormat.preserve_format)
    left = e.v("aten.cat.default", [e.v("aten.mul.Tensor", x1, -2), n1, one1], -1)
    right = e.v("aten.cat.default", [x2, one2, n2], -1)
    rank = tensor_of(right).rank
    perm = [*range(rank - 2), rank - 1, rank - 2]
    prod = e.v("aten.matmul.default", left, e.v("aten.permute.default", right, perm))
    return [e.v("aten.sqrt.default", e.v("aten.clamp_min.default", prod, 0))]


@rule("aten.pdist.default")
def _pdist(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """The p-norm distance of every pair of rows i < j, in row-major order."""
    x = b.value("self")
    t = tensor_of(x)
    if t.rank != 2 or not isinstance(t.sizes[0], int):
        raise Decline()
    rows, cols = triangle_pairs(e, t.sizes[0], 1, x)
    diff = e.v("aten.sub.Tensor", e.v("aten.index_select.default", x, 0, rows),
               e.v("aten.index_select.default", x, 0, cols))
    return [e.v("aten.linalg_vector_norm.default", diff, float(cast(float, b.get("p", 2.0))), [1])]


@rule("aten.cosine_similarity.default")
def _cosine_similarity(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """ATen's form: each input divided by its norm (at least eps), then the dot product."""
    x1, x2 = b.value("x1"), b.value("x2")
    shape = broadcast_shapes(list(tensor_of(x1).sizes), list(tensor_of(x2).sizes))
    d = b.int("dim") % len(shape)
    if tensor_of(x1).sizes != shape:
        x1 = e.v("aten.expand.default", x1, e.sizes(shape))
    if tensor_of(x2).sizes != shape:
        x2 = e.v("aten.expand.default", x2, e.sizes(shape))
    eps = float(cast(float, b["eps"]))

    def normalized(v: SSAValue) -> SSAValue:
        n = e.v("aten.linalg_vector_norm.default", v, 2, [d], True)
        return e.v("aten.div.Tensor", v, e.v("aten.clamp.default", n, eps))

    return [e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", normalized(x1), normalized(x2)), [d])]


@rule("aten.pairwise_distance.default")
def _pairwise_distance(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x1 = b.value("x1")
    diff = e.v("aten.add.Tensor", e.v("aten.sub.Tensor", x1, b["x2"]), b["eps"])
    rank = max(tensor_of(x1).rank, tensor_of(b["x2"]).rank)
    return [e.v("aten.linalg_vector_norm.default", diff, b["p"], [-1] if rank else [], bool(b["keepdim"]))]


@rule("aten.dist.default")
def _dist(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    diff = e.v("aten.sub.Tensor", b["self"], b["other"])
    return [e.v("aten.linalg_vector_norm.default", diff, b["p"])]
