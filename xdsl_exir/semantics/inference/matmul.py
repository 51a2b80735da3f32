"""Result types of the matrix, vector and tensor products and attention."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import cast

from xdsl.ir import Attribute

from xdsl_exir.dialects.exir import (
    DType,
    TensorType,
)
from xdsl_exir.semantics.inference.core import (
    Bound,
    InferenceError,
    broadcast_shapes,
    make_tensor,
    pointwise_type,
    promote_types,
    result_type,
    rule,
    wrap_dim,
)
from xdsl_exir.utils.symbolic import SymSize

# ---------------------------------------------------------------------------
# Matrix, vector and tensor products, attention
# ---------------------------------------------------------------------------


def _check_inner(a: SymSize, b: SymSize, what: str) -> None:
    if isinstance(a, int) and isinstance(b, int) and a != b:
        raise InferenceError(f"{what}: inner sizes {a} and {b} differ")


def _mm_dtype(b: Bound, a: TensorType, c: TensorType) -> DType:
    out = b.dtype("out_dtype") if "out_dtype" in b else None
    if out is not None:
        return out
    if a.element_dtype is not c.element_dtype:
        raise InferenceError(
            f"expected both operands to have the same dtype, got "
            f"{a.element_dtype.value} and {c.element_dtype.value}"
        )
    return a.element_dtype


@rule("aten.mm.default", "aten.mm.dtype", "aten.addmm.default", "aten.addmm.dtype")
def _mm(b: Bound) -> Attribute:
    names = ("mat1", "mat2") if "mat1" in b else ("self", "mat2")
    a, c = b.tensor(names[0]), b.tensor(names[1])
    if a.rank != 2 or c.rank != 2:
        raise InferenceError("mm expects 2-d tensors")
    _check_inner(a.sizes[1], c.sizes[0], "mm")
    return make_tensor([a.sizes[0], c.sizes[1]], _mm_dtype(b, a, c), a.device.data)


@rule("aten.bmm.default", "aten.bmm.dtype", "aten.baddbmm.default", "aten.baddbmm.dtype")
def _bmm(b: Bound) -> Attribute:
    names = ("batch1", "batch2") if "batch1" in b else ("self", "mat2")
    a, c = b.tensor(names[0]), b.tensor(names[1])
    if a.rank != 3 or c.rank != 3:
        raise InferenceError("bmm expects 3-d tensors")
    if isinstance(a.sizes[0], int) and isinstance(c.sizes[0], int) and a.sizes[0] != c.sizes[0]:
        raise InferenceError(f"bmm: batch sizes {a.sizes[0]} and {c.sizes[0]} differ")  # bmm does not broadcast
    _check_inner(a.sizes[2], c.sizes[1], "bmm")
    return make_tensor([a.sizes[0], a.sizes[1], c.sizes[2]], _mm_dtype(b, a, c), a.device.data)


@rule("aten.dot.default")
def _dot(b: Bound) -> Attribute:
    a, c = b.tensor("self"), b.tensor("tensor")
    if a.rank != 1 or c.rank != 1:
        raise InferenceError("dot expects 1-d tensors")
    return make_tensor([], _mm_dtype(b, a, c), a.device.data)


@rule("aten.outer.default")
def _outer(b: Bound) -> Attribute:
    a, c = b.tensor("self"), b.tensor("vec2")
    return make_tensor([a.sizes[0], c.sizes[0]], result_type([b["self"], b["vec2"]]), a.device.data)


def matmul_shape(a: Sequence[SymSize], c: Sequence[SymSize]) -> list[SymSize]:
    if not a or not c:
        raise InferenceError("matmul needs tensors of at least one dimension")
    if len(a) == 1 and len(c) == 1:
        _check_inner(a[0], c[0], "matmul")
        return []
    if len(c) == 1:
        _check_inner(a[-1], c[0], "matmul")
        return list(a[:-1])
    if len(a) == 1:
        _check_inner(a[0], c[-2], "matmul")
        return [*c[:-2], c[-1]]
    _check_inner(a[-1], c[-2], "matmul")
    batch = broadcast_shapes(a[:-2], c[:-2])
    return [*batch, a[-2], c[-1]]


@rule("aten.matmul.default")
def _matmul(b: Bound) -> Attribute:
    a, c = b.tensor("self"), b.tensor("other")
    return make_tensor(matmul_shape(a.sizes, c.sizes), _mm_dtype(b, a, c), a.device.data)


@rule("aten.linear.default")
def _linear(b: Bound) -> Attribute:
    x, w = b.tensor("input"), b.tensor("weight")
    if w.rank == 1:
        shape = matmul_shape(x.sizes, w.sizes)
    else:
        shape = matmul_shape(x.sizes, [w.sizes[1], w.sizes[0]])
    bias = b.opt_tensor("bias")
    if bias is not None:
        shape = broadcast_shapes(shape, bias.sizes)
    return make_tensor(shape, _mm_dtype(b, x, w), x.device.data)


@rule("aten.einsum.default", "aten.einsum.sublist")
def _einsum(b: Bound) -> Attribute:
    eq = cast(str, b["equation"]).replace(" ", "")
    tensors = b.tensors("tensors")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(tensors):
        raise InferenceError("einsum equation and operand count differ")
    sizes: dict[str, SymSize] = {}
    ell: list[SymSize] = []
    for term, t in zip(terms, tensors):
        letters = term.replace("...", "")
        n_ell = t.rank - len(letters)
        head, has_ell, tail = term.partition("...")
        dims = list(t.sizes)
        if has_ell:
            ell = broadcast_shapes(ell, dims[len(head) : len(head) + n_ell])
            dims = dims[: len(head)] + dims[len(head) + n_ell :]
            letters = head + tail
        elif len(letters) != t.rank:
            raise InferenceError(f"einsum term '{term}' does not fit a {t.rank}-d tensor")
        for ch, s in zip(letters, dims):
            cur = sizes.get(ch)
            sizes[ch] = s if cur is None or cur == 1 else cur
    if not arrow:
        counts = {ch: lhs.count(ch) for ch in sizes}
        rhs = ("..." if "..." in lhs else "") + "".join(sorted(c for c, k in counts.items() if k == 1))
    head, has_ell, tail = rhs.partition("...")
    shape = [sizes[c] for c in head] + (ell if has_ell else []) + [sizes[c] for c in tail]
    dtype = functools.reduce(promote_types, [t.element_dtype for t in tensors])
    return make_tensor(shape, dtype, tensors[0].device.data)


@rule("aten.scaled_dot_product_attention.default")
def _sdpa(b: Bound) -> Attribute:
    q, v = b.tensor("query"), b.tensor("value")
    return make_tensor([*q.sizes[:-1], v.sizes[-1]], q.element_dtype, q.device.data)


@rule("aten._scaled_dot_product_flash_attention_for_cpu.default")
def _sdpa_flash_cpu(b: Bound) -> Sequence[Attribute]:
    """The attention, laid out [batch, length, heads, head size] in memory as torch's CPU
    flash kernel allocates it (a later `permute` and `view` rely on it), and the float32
    (float64 for float64) logsumexp of each query row."""
    q, v = b.tensor("query"), b.tensor("value")
    lse = DType.float64 if q.element_dtype == DType.float64 else DType.float32
    return [
        make_tensor([*q.sizes[:-1], v.sizes[-1]], q.element_dtype, q.device.data, [0, 2, 1, 3] if q.rank == 4 else None),
        make_tensor(q.sizes[:-1], lse, q.device.data),
    ]


@rule("aten.linalg_cross.default")
def _linalg_cross(b: Bound) -> Attribute:
    shape, dtype, device = pointwise_type(b, ("self", "other"))
    return make_tensor(shape, dtype, device)


@rule("aten.mv.default", "aten.addmv.default")
def _mv(b: Bound) -> Attribute:
    m = b.tensor("self" if b.schema.name == "mv" else "mat")
    dtype = result_type([b[n] for n in (("self", "vec") if b.schema.name == "mv" else ("self", "mat", "vec"))])
    return make_tensor([m.sizes[0]], dtype, m.device.data)


@rule("aten.ger.default", "aten.addr.default")
def _outer_product(b: Bound) -> Attribute:
    v1, v2 = (b.tensor("self"), b.tensor("vec2")) if b.schema.name == "ger" else (b.tensor("vec1"), b.tensor("vec2"))
    names = ("self", "vec2") if b.schema.name == "ger" else ("self", "vec1", "vec2")
    return make_tensor([v1.sizes[0], v2.sizes[0]], result_type([b[n] for n in names]), v1.device.data)


@rule("aten.inner.default")
def _inner(b: Bound) -> Attribute:
    x, y = b.tensor("self"), b.tensor("other")
    dtype, device = result_type([b["self"], b["other"]]), x.device.data
    if x.rank == 0 or y.rank == 0:
        return make_tensor(broadcast_shapes(x.sizes, y.sizes), dtype, device)
    return make_tensor([*x.sizes[:-1], *y.sizes[:-1]], dtype, device)


@rule("aten._addmm_activation.default")
def _addmm_activation(b: Bound) -> Attribute:
    m1, m2 = b.tensor("mat1"), b.tensor("mat2")
    dtype = result_type([b[n] for n in ("self", "mat1", "mat2")])
    return make_tensor([m1.sizes[0], m2.sizes[1]], dtype, m1.device.data)


@rule("aten._int_mm.default")
def _int_mm(b: Bound) -> Attribute:
    x, y = b.tensor("self"), b.tensor("mat2")
    if x.rank != 2 or y.rank != 2 or x.element_dtype is not DType.int8 or y.element_dtype is not DType.int8:
        raise InferenceError("_int_mm expects two 2-d int8 matrices")
    return make_tensor([x.sizes[0], y.sizes[1]], DType.int32, x.device.data)


@rule("aten.vdot.default")
def _vdot(b: Bound) -> Attribute:
    x, y = b.tensor("self"), b.tensor("other")
    if x.rank != 1 or y.rank != 1:
        raise InferenceError("vdot: expected 1-D tensors")
    if x.element_dtype != y.element_dtype:
        raise InferenceError(f"vdot: expected both tensors of one dtype, got {x.element_dtype.value} and {y.element_dtype.value}")
    return make_tensor([], x.element_dtype, x.device.data)


@rule("aten.linalg_vecdot.default")
def _linalg_vecdot(b: Bound) -> Attribute:
    shape, dtype, device = pointwise_type(b, ("x", "y"))
    if not (dtype.is_floating_point or dtype.is_complex):
        raise InferenceError(f"linalg.vecdot: expected a floating point tensor, got {dtype.value}")
    d = wrap_dim(b.int("dim") if b.get("dim") is not None else -1, len(shape))
    return make_tensor([s for i, s in enumerate(shape) if i != d], dtype, device)
