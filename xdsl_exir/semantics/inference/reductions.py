"""Result types of reductions over dims, scans, softmax, sorting and selection."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.ir import Attribute

from xdsl_exir.dialects.exir import (
    DType,
    TensorType,
)
from xdsl_exir.semantics.inference.core import (
    RULES,
    Bound,
    InferenceError,
    add,
    dims_arg,
    make_tensor,
    promote_types,
    reduced_shape,
    rule,
    sum_dtype,
    wrap_dim,
)
from xdsl_exir.utils.dtypes import Category
from xdsl_exir.utils.symbolic import SymSize

# ---------------------------------------------------------------------------
# Reductions over a dim, scans, softmax, sorting
# ---------------------------------------------------------------------------


@rule("aten.sum.default", "aten.sum.dim_IntList", "aten.prod.default", "aten.prod.dim_int")
def _sum(b: Bound) -> Attribute:
    t = b.tensor("self")
    dims = dims_arg(b) if "dim" in b else None
    shape = reduced_shape(t, dims, bool(b.get("keepdim", False)))
    return make_tensor(shape, sum_dtype(t, b.dtype("dtype")), t.device.data)


@rule("aten.mean.default", "aten.mean.dim")
def _mean(b: Bound) -> Attribute:
    t = b.tensor("self")
    dims = dims_arg(b) if "dim" in b else None
    shape = reduced_shape(t, dims, bool(b.get("keepdim", False)))
    dtype = b.dtype("dtype") or t.element_dtype
    if dtype.category < Category.FLOATING:
        raise InferenceError(f"mean of a {dtype.value} tensor needs a floating dtype")
    return make_tensor(shape, dtype, t.device.data)


@rule("aten.amax.default", "aten.amin.default", "aten.max.default", "aten.min.default")
def _amax(b: Bound) -> Attribute:
    t = b.tensor("self")
    dims = dims_arg(b) if "dim" in b else None
    shape = reduced_shape(t, dims, bool(b.get("keepdim", False)))
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule(
    "aten.all.default", "aten.all.dim", "aten.all.dims", "aten.any.default", "aten.any.dim",
    "aten.any.dims",
)  # fmt: skip
def _all(b: Bound) -> Attribute:
    t = b.tensor("self")
    dims = dims_arg(b) if "dim" in b else None
    shape = reduced_shape(t, dims, bool(b.get("keepdim", False)))
    dtype = DType.uint8 if t.element_dtype is DType.uint8 else DType.bool
    return make_tensor(shape, dtype, t.device.data)


@rule("aten.argmax.default", "aten.argmin.default")
def _argmax(b: Bound) -> Attribute:
    t = b.tensor("self")
    dims = dims_arg(b)
    keepdim = bool(b["keepdim"])
    if dims is None and keepdim:
        shape: list[SymSize] = [1] * t.rank
    else:
        shape = reduced_shape(t, dims, keepdim)
    return make_tensor(shape, DType.int64, t.device.data)


@rule("aten.max.dim", "aten.min.dim")
def _max_dim(b: Bound) -> list[Attribute]:
    t = b.tensor("self")
    shape = reduced_shape(t, [b.int("dim")], bool(b["keepdim"]))
    return [
        make_tensor(shape, t.element_dtype, t.device.data),
        make_tensor(shape, DType.int64, t.device.data),
    ]


@rule(
    "aten.std.default", "aten.std.correction", "aten.std.dim", "aten.var.default", "aten.var.correction",
    "aten.var.dim",
)  # fmt: skip
def _var(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.element_dtype.category < Category.FLOATING:
        raise InferenceError("std and var need a floating point or complex tensor")
    dims = dims_arg(b) if "dim" in b else None
    shape = reduced_shape(t, dims, bool(b.get("keepdim", False)))
    return make_tensor(shape, t.element_dtype.to_floating().to_real(), t.device.data)


@rule("aten.var_mean.default", "aten.var_mean.correction", "aten.var_mean.dim")
def var_mean_rule(b: Bound) -> list[Attribute]:
    t = b.tensor("self")
    v = cast(TensorType, _var(b))
    return [v, make_tensor(v.sizes, t.element_dtype.to_floating(), t.device.data)]


@rule("aten.softmax.int", "aten.log_softmax.int", "aten._softmax.default", "aten._log_softmax.default")
def _softmax(b: Bound) -> Attribute:
    t = b.tensor("self")
    wrap_dim(b.int("dim"), t.rank)
    if "half_to_float" in b:
        dtype = DType.float32 if b["half_to_float"] else t.element_dtype
    else:
        dtype = b.dtype("dtype") or t.element_dtype
    if dtype.category < Category.FLOATING:
        raise InferenceError(f"softmax of a {dtype.value} tensor")
    return make_tensor(t.sizes, dtype, t.device.data)


@rule("aten.sort.default", "aten.sort.stable", "aten.topk.default")
def _sort(b: Bound) -> list[Attribute]:
    t = b.tensor("self")
    shape = list(t.sizes)
    if "k" in b and t.rank:
        shape[wrap_dim(b.int("dim"), t.rank)] = b.size("k")
    return [
        make_tensor(shape, t.element_dtype, t.device.data),
        make_tensor(shape, DType.int64, t.device.data),
    ]


@rule("aten.trace.default")
def _trace(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor([], sum_dtype(t, None), t.device.data)


@rule("aten.diff.default")
def _diff(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.rank == 0:
        raise InferenceError("diff needs at least one dimension")
    d = wrap_dim(b.int("dim"), t.rank)
    length: SymSize = t.sizes[d]
    dtype = t.element_dtype
    for extra in ("prepend", "append"):
        if b.get(extra) is not None:
            other = b.tensor(extra)
            length = add(length, other.sizes[d] if other.rank else 1)
            dtype = promote_types(dtype, other.element_dtype)
    n = b.int("n")
    if isinstance(length, int):
        length = max(length - n, 0)
    else:
        length = add(length, -n)
    return make_tensor([*t.sizes[:d], length, *t.sizes[d + 1 :]], dtype, t.device.data)


@rule("aten.linalg_vector_norm.default")
def _vector_norm(b: Bound) -> Attribute:
    t = b.tensor("self")
    shape = reduced_shape(t, dims_arg(b), bool(b.get("keepdim", False)))
    return make_tensor(shape, (b.dtype("dtype") or t.element_dtype).to_real(), t.device.data)


@rule("aten.logsumexp.default")
def _logsumexp(b: Bound) -> Attribute:
    t = b.tensor("self")
    shape = reduced_shape(t, dims_arg(b), bool(b.get("keepdim", False)))
    return make_tensor(shape, t.element_dtype.to_floating(), t.device.data)


@rule("aten.nansum.default")
def _nansum(b: Bound) -> Attribute:
    t = b.tensor("self")
    shape = reduced_shape(t, dims_arg(b), bool(b.get("keepdim", False)))
    return make_tensor(shape, sum_dtype(t, b.dtype("dtype")), t.device.data)


@rule("aten.count_nonzero.dim_IntList", "aten.count_nonzero.default")
def _count_nonzero(b: Bound) -> Attribute:
    t = b.tensor("self")
    dim = b.get("dim")
    dims = None if dim is None else (b.ints("dim") if isinstance(dim, list) else [b.int("dim")])
    return make_tensor(reduced_shape(t, dims, False), DType.int64, t.device.data)


@rule("aten.aminmax.default")
def _aminmax(b: Bound) -> list[Attribute]:
    t = b.tensor("self")
    dims = None if b.get("dim") is None else [b.int("dim")]
    shape = reduced_shape(t, dims, bool(b.get("keepdim", False)))
    return [make_tensor(shape, t.element_dtype, t.device.data)] * 2


@rule("aten.argsort.default", "aten.argsort.stable")
def _argsort(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, DType.int64, t.device.data)


@rule("aten.msort.default", "aten._safe_softmax.default")
def _like_self(b: Bound) -> Attribute:
    t = b.tensor("self")
    if b.schema.name == "_safe_softmax" and b.dtype("dtype") is not None:
        return make_tensor(t.sizes, cast(DType, b.dtype("dtype")), t.device.data)
    return t


@rule("aten.std_mean.correction", "aten.std_mean.dim", "aten.std_mean.default")
def _std_mean(b: Bound) -> Attribute | Sequence[Attribute]:
    return RULES["aten.var_mean.correction"](b)


@rule("aten.kthvalue.default")
def _kthvalue(b: Bound) -> list[Attribute]:
    t = b.tensor("self")
    keepdim = bool(b.get("keepdim", False))
    if t.rank == 0:
        shape: list[SymSize] = []
    else:
        d = wrap_dim(b.int("dim"), t.rank)
        shape = [1 if i == d else s for i, s in enumerate(t.sizes) if keepdim or i != d]
    return [make_tensor(shape, t.element_dtype, t.device.data), make_tensor(shape, DType.int64, t.device.data)]


@rule("aten.cumsum.default")
def _cumsum(b: Bound) -> Attribute:
    t = b.tensor("self")
    wrap_dim(b.int("dim"), t.rank)
    dtype = b.dtype("dtype") or (DType.int64 if t.element_dtype.category < Category.FLOATING else t.element_dtype)
    return make_tensor(t.sizes, dtype, t.device.data)
