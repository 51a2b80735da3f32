"""Decompositions of the normalizations torch writes from reductions: weight normalization (`_weight_norm`, `_weight_norm_interface`, `norm_except_dim`), `renorm` and `rms_norm`."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.exir import (
    DType,
)
from xdsl_exir.semantics.decompositions.core import (
    Decline,
    Emitter,
    op_name,
    rule,
    tensor_of,
)
from xdsl_exir.semantics.inference import Bound


def _norm_except_dim(e: Emitter, v: SSAValue, p: float, dim: int) -> SSAValue:
    """The p-norm over every dim but `dim`, kept as size-1 dims (`dim == -1`: the whole tensor)."""
    rank = tensor_of(v).rank
    if dim == -1:
        return e.v("aten.linalg_vector_norm.default", v, p)
    dims = [d for d in range(rank) if d != dim % max(rank, 1)]
    return e.v("aten.linalg_vector_norm.default", v, p, dims, True)


@rule("aten.norm_except_dim.default")
def _norm_except_dim_rule(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [_norm_except_dim(e, b.value("v"), float(b.int("pow")), b.int("dim"))]


@rule("aten._weight_norm.default", "aten._weight_norm_interface.default")
def _weight_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """w = v * (g / ||v||) with the norm over every dim but `dim`; `_weight_norm_interface` also
    returns the norm."""
    v, g = b.value("v"), b.value("g")
    norm = _norm_except_dim(e, v, 2.0, b.int("dim"))
    w = e.v("aten.mul.Tensor", v, e.v("aten.div.Tensor", g, norm))
    if op_name(op) == "aten._weight_norm_interface.default":
        return [w, norm]
    return [w]


@rule("aten.renorm.default")
def _renorm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_decomp `renorm`: each slice along `dim` whose p-norm exceeds `maxnorm` scaled by
    `maxnorm / (norm + 1e-7)`."""
    x = b.value("self")
    t = tensor_of(x)
    p, maxnorm = b["p"], b["maxnorm"]
    if isinstance(p, SSAValue) or isinstance(maxnorm, SSAValue) or t.rank == 0 or not t.element_dtype.is_floating_point:
        raise Decline()
    dim = b.int("dim") % t.rank
    dims = [d for d in range(t.rank) if d != dim]
    norm = e.v("aten.linalg_vector_norm.default", x, p, dims, True)
    factor = e.v("aten.mul.Tensor", e.v("aten.reciprocal.default", e.v("aten.add.Tensor", norm, 1e-7)), maxnorm)
    one = e.v("aten.full_like.default", norm, 1.0)
    scale = e.v("aten.where.self", e.v("aten.gt.Scalar", norm, maxnorm), factor, one)
    return [e.v("aten.mul.Tensor", x, scale)]


@rule("aten.rms_norm.default")
def _rms_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """x * rsqrt(mean(x^2 over the normalized dims) + eps) * weight; eps defaults to the
    dtype's machine epsilon, as torch's rms_norm. float16 and bfloat16 are computed
    in float32, weight included, and rounded once, as torch's kernel and its own
    decomposition do (rounding each step differs by an ulp in a quarter of the values)."""
    x = b.value("input")
    t = tensor_of(x)
    n = len(b.ints("normalized_shape"))
    dims = list(range(t.rank - n, t.rank))
    eps = b.get("eps")
    if eps is None:
        eps = {DType.float64: 2.220446049250313e-16, DType.float16: 0.0009765625,
               DType.bfloat16: 0.0078125}.get(t.element_dtype, 1.1920928955078125e-07)
    wide = t.element_dtype.opmath()
    if wide != t.element_dtype:
        x = e.v("aten._to_copy.default", x, dtype=wide)
    ms = e.v("aten.mean.dim", e.v("aten.mul.Tensor", x, x), dims, True)
    out = e.v("aten.mul.Tensor", x, e.v("aten.rsqrt.default", e.v("aten.add.Tensor", ms, eps)))
    weight = b.get("weight")
    if isinstance(weight, SSAValue):
        if tensor_of(weight).element_dtype != tensor_of(out).element_dtype:
            weight = e.v("aten._to_copy.default", weight, dtype=tensor_of(out).element_dtype)
        out = e.v("aten.mul.Tensor", out, weight)
    if wide != t.element_dtype:
        out = e.v("aten._to_copy.default", out, dtype=t.element_dtype)
    return [out]
