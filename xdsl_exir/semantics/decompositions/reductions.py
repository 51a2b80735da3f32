"""Decompositions of reductions, scans, norms of vectors, sorting and selection."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.exir import (
    DType,
    MemoryFormat,
)
from xdsl_exir.semantics.decompositions.core import (
    Decline,
    Emitter,
    op_name,
    rule,
    simplify_size,
    sizes_equal,
    tensor_of,
    zero_like,
)
from xdsl_exir.semantics.inference import Bound

# -- reductions ----------------------------------------------------------------------


@rule("aten.logsumexp.default", "aten.special_logsumexp.default")
def _logsumexp(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_refs.logsumexp: the max taken out (0 where it is infinite), then log-sum-exp."""
    x = b.value("self")
    t = tensor_of(x)
    if not t.element_dtype.is_floating_point:
        x = e.v("aten._to_copy.default", x, dtype=DType.float32)
    dims = b.ints("dim") or list(range(t.rank))
    keep = bool(b.get("keepdim", False))
    m = e.v("aten.amax.default", x, dims, True)
    m = e.v("aten.where.self", e.v("aten.isinf.default", m), zero_like(e, tensor_of(m)), m)
    s = e.v("aten.sum.dim_IntList", e.v("aten.exp.default", e.v("aten.sub.Tensor", x, m)), dims, keep)
    if not keep:
        m = e.v("aten.squeeze.dims", m, dims)
    return [e.v("aten.add.Tensor", e.v("aten.log.default", s), m)]


@rule("aten.nansum.default")
def _nansum(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    t = tensor_of(x)
    if t.element_dtype.is_floating_point:
        x = e.v("aten.where.self", e.v("aten.isnan.default", x), zero_like(e, t), x)
    return [e.v("aten.sum.dim_IntList", x, b.get("dim") or [], bool(b.get("keepdim", False)), dtype=b.dtype("dtype"))]


@rule("aten.count_nonzero.dim_IntList", "aten.count_nonzero.default")
def _count_nonzero(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    nz = e.v("aten.ne.Scalar", b["self"], 0)
    dim = b.get("dim")
    dims = [] if dim is None else (b.ints("dim") if isinstance(dim, list) else [b.int("dim")])
    return [e.v("aten.sum.dim_IntList", nz, dims, False, dtype=DType.int64)]


@rule("aten.aminmax.default")
def _aminmax(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    dim = b.get("dim")
    dims = list(range(tensor_of(x).rank)) if dim is None else [b.int("dim")]
    keep = bool(b.get("keepdim", False))
    return [e.v("aten.amin.default", x, dims, keep), e.v("aten.amax.default", x, dims, keep)]


# -- sorting and selection ---------------------------------------------------------


@rule("aten.argsort.default", "aten.argsort.stable", "aten.msort.default")
def _argsort(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b["self"]
    name = op_name(op)
    if name == "aten.msort.default":
        return [e.item(e.call("aten.sort.default", x, 0), 0)]
    if name == "aten.argsort.stable":
        new = e.call("aten.sort.stable", x, stable=b["stable"], dim=b.int("dim"), descending=b["descending"])
    else:
        new = e.call("aten.sort.default", x, b.int("dim"), b["descending"])
    return [e.item(new, 1)]


def _std(e: Emitter, x: SSAValue, dims: object, kwargs: dict[str, object]) -> SSAValue:
    """`sqrt(var.correction)`, in double for a narrower float: torch's std accumulates and takes
    the root in double, so the std of values near 1e30 is finite even where their float32
    variance overflows."""
    dtype = tensor_of(x).element_dtype
    wide = dtype in (DType.float32, DType.float16, DType.bfloat16)
    src = e.v("aten._to_copy.default", x, dtype=DType.float64) if wide else x
    std = e.v("aten.sqrt.default", e.v("aten.var.correction", src, dims, **kwargs))
    return e.v("aten._to_copy.default", std, dtype=dtype) if wide else std


def _stat_dims(b: Bound) -> list[int] | None:
    dim = b.get("dim")
    if dim is None:
        return None
    return b.ints("dim") if isinstance(dim, list) else [b.int("dim")]


@rule("aten.std_mean.correction", "aten.std_mean.dim", "aten.std_mean.default")
def _std_mean(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """The standard deviation (`_std`) and `mean.dim` over the same dims."""
    x = b.value("self")
    if not tensor_of(x).element_dtype.is_floating_point:
        raise Decline()
    dims = _stat_dims(b)
    correction = _correction(b)
    keep = bool(b.get("keepdim", False))
    std = _std(e, x, dims, {"correction": 1 if correction is None else correction, "keepdim": keep})
    mean = e.v("aten.mean.dim", x, dims if dims is not None else list(range(tensor_of(x).rank)), keep)
    return [std, mean]


# -- variance and standard deviation overloads -----------------------------------------


def _correction(b: Bound) -> object:
    if "correction" in b:
        return b.get("correction")
    return 1 if b.get("unbiased", True) else 0


@rule("aten.var.default", "aten.std.default", "aten.std.dim", "aten.std.correction")
def _var_std(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Every `var`/`std` overload is `var.correction` (std its square root): `unbiased` is a
    correction of 1 or 0."""
    x = b.value("self")
    dims = b.get("dim")
    correction = _correction(b)
    kwargs: dict[str, object] = {"keepdim": bool(b.get("keepdim", False))}
    if correction is not None:
        kwargs["correction"] = correction
    if op_name(op).startswith("aten.var"):
        return [e.v("aten.var.correction", x, dims, **kwargs)]
    return [_std(e, x, dims, kwargs)]


@rule("aten.all.default", "aten.all.dim", "aten.all.dims")
def _all(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`all(x) = not any(not x)`, over the same dims, as torch's core IR writes it."""
    inverted = e.v("aten.logical_not.default", b["self"])
    keep = bool(b.get("keepdim", False))
    name = op_name(op)
    if name == "aten.all.default":
        anyv = e.v("aten.any.dims", inverted)
    elif name == "aten.all.dim":
        anyv = e.v("aten.any.dim", inverted, b.int("dim"), keep)
    else:
        anyv = e.v("aten.any.dims", inverted, b.get("dim"), keep)
    return [e.v("aten.logical_not.default", anyv)]


@rule("aten.trace.default")
def _trace(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    if tensor_of(x).rank != 2:
        raise Decline()
    return [e.v("aten.sum.dim_IntList", e.v("aten.diagonal.default", x), [])]


@rule("aten.diff.default")
def _diff(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch._refs.diff: `n` times `x[1:] - x[:-1]` (`!=` for bool) along `dim`, after
    concatenating `prepend` and `append`."""
    x = b.value("self")
    t = tensor_of(x)
    if t.rank == 0:
        raise Decline()
    dim = b.int("dim") % t.rank
    parts = [p for p in (b.get("prepend"), x, b.get("append")) if p is not None]
    if len(parts) > 1:
        x = e.v("aten.cat.default", parts, dim)
    for _ in range(b.int("n")):
        length = tensor_of(x).sizes[dim]
        if isinstance(length, int) and length == 0:
            break
        hi = e.v("aten.slice.Tensor", x, dim, 1, e.size(length))
        lo = e.v("aten.slice.Tensor", x, dim, 0, e.size(simplify_size(length - 1)))
        x = e.v("aten.ne.Tensor" if t.element_dtype == DType.bool else "aten.sub.Tensor", hi, lo)
    return [x]


@rule("aten.linalg_vector_norm.default", "aten.norm.ScalarOpt_dim", "aten.norm.Scalar", "aten.norm.ScalarOpt_dtype",
      "aten.norm.ScalarOpt_dim_dtype")
def _vector_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch._refs.linalg.vector_norm: by `ord`, max/min of |x|, count of non-zeros,
    sum of |x|, sqrt of the sum of squares, or the p-th root of the sum of |x|^p."""
    x = b.value("self")
    t = tensor_of(x)
    dtype = b.dtype("dtype")
    if t.element_dtype.is_complex and (dtype is None or dtype.is_complex):
        # a complex tensor's norms are those of its magnitudes, which are real (torch._refs)
        if dtype is not None and dtype != t.element_dtype:
            x = e.v("aten._to_copy.default", x, dtype=dtype)
        x, dtype = e.v("aten.abs.default", x), None
        t = tensor_of(x)
    if not (t.element_dtype.is_floating_point):
        raise Decline()
    ord_ = b.get("ord", b.get("p", 2.0))
    ord_ = 2.0 if ord_ is None else float(cast(float, ord_))
    dim = b.get("dim")
    dims = [] if dim is None else (b.ints("dim") if isinstance(dim, list) else [b.int("dim")])
    keep = bool(b.get("keepdim", False))
    if dtype is not None and dtype != t.element_dtype:
        x = e.v("aten._to_copy.default", x, dtype=dtype)
    all_dims = dims or list(range(t.rank))
    a = e.v("aten.abs.default", x)
    if ord_ == math.inf:
        return [e.v("aten.amax.default", a, all_dims, keep)]
    if ord_ == -math.inf:
        return [e.v("aten.amin.default", a, all_dims, keep)]
    if ord_ == 0:
        nz = e.v("aten._to_copy.default", e.v("aten.ne.Scalar", x, 0), dtype=tensor_of(x).element_dtype)
        return [e.v("aten.sum.dim_IntList", nz, dims, keep)]
    if ord_ == 1:
        return [e.v("aten.sum.dim_IntList", a, dims, keep)]
    if ord_ == 2:
        return [e.v("aten.sqrt.default", e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", x, x), dims, keep))]
    s = e.v("aten.sum.dim_IntList", e.v("aten.pow.Tensor_Scalar", a, ord_), dims, keep)
    return [e.v("aten.pow.Tensor_Scalar", s, 1.0 / ord_)]


@rule("aten.sum_to_size.default")
def _sum_to_size(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Sum over the leading dims and the dims `size` has as 1, back to `size`."""
    x = b.value("self")
    t = tensor_of(x)
    size = b.ints("size")
    lead = t.rank - len(size)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size) if s == 1 and not sizes_equal(t.sizes[lead + i], 1)]
    if not size:  # torch's sum_to: `tensor.sum()`, which promotes bool and integers to int64
        return [e.v("aten.sum.default", x)]
    if not dims:
        return [x]
    summed = e.v("aten.sum.dim_IntList", x, dims, True)
    return [e.reshape(summed, list(size))] if lead else [summed]


@rule("aten.frobenius_norm.dim")
def _frobenius_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    sq = e.v("aten.mul.Tensor", x, x)
    return [e.v("aten.sqrt.default", e.v("aten.sum.dim_IntList", sq, b.ints("dim"), bool(b.get("keepdim"))))]


@rule("aten.nanmean.default")
def _nanmean(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """nansum / the count of non-NaN elements."""
    x = b.value("self")
    dim = b.get("dim")
    dims = [] if dim is None else b.ints("dim")
    keep = bool(b.get("keepdim"))
    total = e.v("aten.nansum.default", x, dims, keep, dtype=b.dtype("dtype"))
    # counted in the sum's dtype: core IR divides without implicit promotion (torch divides by an
    # int64 count, which promotes to that dtype the same way)
    count = e.v("aten.sum.dim_IntList", e.v("aten.logical_not.default", e.v("aten.isnan.default", x)), dims, keep,
                dtype=tensor_of(total).element_dtype)
    return [e.v("aten.div.Tensor", total, count)]


@rule("aten._safe_softmax.default")
def _safe_softmax(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """softmax, with zeros (not NaN) in slices that are all -inf."""
    x = b.value("self")
    dtype = b.dtype("dtype")
    if dtype is not None and dtype != tensor_of(x).element_dtype:
        x = e.v("aten._to_copy.default", x, dtype=dtype)
    d = b.int("dim")
    attn = e.v("aten._softmax.default", x, d, False)
    live = e.v("aten.any.dim", e.v("aten.logical_not.default", e.v("aten.eq.Scalar", x, float("-inf"))), d, True)
    zeros = e.v("aten.full_like.default", attn, 0, pin_memory=False, memory_format=MemoryFormat.preserve_format)
    return [e.v("aten.where.self", e.v("aten.logical_not.default", live), zeros, attn)]


@rule("aten.var_mean.correction", "aten.var_mean.dim", "aten.var_mean.default")
def _var_mean(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`var.correction` and `mean.dim` over the same dims (an `unbiased` flag is correction 1 or 0)."""
    x = b.value("self")
    if not tensor_of(x).element_dtype.is_floating_point:
        raise Decline()
    dim = b.get("dim")
    dims = None if dim is None else (b.ints("dim") if isinstance(dim, list) else [b.int("dim")])
    if "correction" in b:
        correction = b.get("correction")
        correction = 1 if correction is None else correction
    else:
        correction = 1 if b.get("unbiased", True) else 0
    keep = bool(b.get("keepdim", False))
    var = e.v("aten.var.correction", x, dims, correction=correction, keepdim=keep)
    mean = e.v("aten.mean.dim", x, dims if dims is not None else list(range(tensor_of(x).rank)), keep)
    return [var, mean]
