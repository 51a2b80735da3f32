"""Result types of factories, copies and conversions (and of `triu_indices`/`tril_indices`: [2, N] with N the size of the triangle, counted from the static row and column counts and the offset)."""

from __future__ import annotations

import math
from typing import cast

from xdsl.ir import Attribute

from xdsl_exir.dialects.exir import (
    DType,
)
from xdsl_exir.semantics.inference.core import (
    Bound,
    InferenceError,
    NoInference,
    add,
    as_sympy,
    ceildiv,
    dim_order_of,
    factory_type,
    make_tensor,
    normalize_size,
    number_value,
    rule,
    same_as_self,
    scalar_dtype,
)
from xdsl_exir.utils.dtypes import DEFAULT_FLOAT
from xdsl_exir.utils.symbolic import SymSize, sympy

# ---------------------------------------------------------------------------
# Creation, copies and conversion
# ---------------------------------------------------------------------------


@rule("aten.empty.memory_format", "aten.zeros.default", "aten.ones.default", "aten.empty_strided.default")
def _empty(b: Bound) -> Attribute:
    return factory_type(b, b.sizes("size"), DEFAULT_FLOAT)


@rule("aten.full.default")
def _full(b: Bound) -> Attribute:
    fill = scalar_dtype(b["fill_value"]) or DEFAULT_FLOAT
    default = {DType.float64: DEFAULT_FLOAT}.get(fill, fill)
    return factory_type(b, b.sizes("size"), default)


@rule("aten.scalar_tensor.default")
def _scalar_tensor(b: Bound) -> Attribute:
    return factory_type(b, [], DEFAULT_FLOAT)


@rule("aten.arange.default", "aten.arange.start", "aten.arange.start_step")
def _arange(b: Bound) -> Attribute:
    start = b.get("start", 0)
    end, step = b["end"], b.get("step", 1)
    floating = any(scalar_dtype(v) in (DType.float64,) for v in (start, end, step))
    s, e, st = number_value(start), number_value(end), number_value(step)
    if b.dtype("dtype") == DType.int64 and all(isinstance(v, int | float) for v in (s, e, st)):
        # torch's int64 arange converts start, end and step to int64 before sizing the
        # result; other dtypes size it from the arguments as doubles
        s, e, st = int(cast(float, s)), int(cast(float, e)), int(cast(float, st))
    if all(isinstance(v, int | float) for v in (s, e, st)):
        if st == 0:
            raise InferenceError("arange step must be nonzero")
        n: SymSize = max(0, math.ceil((float(e) - float(s)) / float(st)))
    elif all(isinstance(v, int | sympy.Expr) and not isinstance(v, float) for v in (s, e, st)):
        n = ceildiv(add(normalize_size(cast(SymSize, e)), -as_sympy(cast(SymSize, s))), cast(SymSize, st))
    else:
        n = normalize_size(sympy.ceiling((as_sympy(e) - as_sympy(s)) / as_sympy(st)))  # pyright: ignore[reportArgumentType] - floats mixed with symbols: sympy takes all three, as_sympy is typed for sizes
    return factory_type(b, [n], DEFAULT_FLOAT if floating else DType.int64)


@rule("aten.new_empty.default", "aten.new_zeros.default", "aten.new_ones.default", "aten.new_full.default")
def _new(b: Bound) -> Attribute:
    t = b.tensor("self")
    dtype = b.dtype("dtype") or t.element_dtype
    device = b.device("device") or t.device.data
    return make_tensor(b.sizes("size"), dtype, device)


@rule(
    "aten.zeros_like.default", "aten.ones_like.default", "aten.full_like.default", "aten._to_copy.default",
    "aten.to.dtype_layout",
)  # fmt: skip
def _like(b: Bound) -> Attribute:
    t = b.tensor("self")
    dtype = b.dtype("dtype") or t.element_dtype
    device = b.device("device") or t.device.data
    return make_tensor(t.sizes, dtype, device, dim_order_of(b.get("memory_format"), t, t.rank))


@rule("aten.to.dtype", "aten.to.device", "aten.to.prim_dtype", "aten.to.prim_Device")
def _to(b: Bound) -> Attribute:
    t = b.tensor("self")
    dtype = b.dtype("dtype") or t.element_dtype
    device = b.device("device") if "device" in b else None
    return make_tensor(t.sizes, dtype, device or t.device.data, dim_order_of(b.get("memory_format"), t, t.rank))


@rule("aten.to.other")
def _to_other(b: Bound) -> Attribute:
    t, o = b.tensor("self"), b.tensor("other")
    return make_tensor(t.sizes, o.element_dtype, o.device.data)


@rule("aten.to.prim_other")
def _to_prim_other(b: Bound) -> Attribute:
    return b.tensor("self")


@rule("aten.empty_like.default")
def _empty_like(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, b.dtype("dtype") or t.element_dtype, b.device("device") or t.device.data,
                       dim_order_of(b.get("memory_format"), t, t.rank))


@rule("aten.empty_permuted.default")
def _empty_permuted(b: Bound) -> Attribute:
    return factory_type(b, b.sizes("size"), DEFAULT_FLOAT)


@rule("aten.eye.default", "aten.eye.m")
def _eye(b: Bound) -> Attribute:
    n = b.size("n")
    return factory_type(b, [n, b.size("m") if "m" in b else n], DEFAULT_FLOAT)


@rule("aten.linspace.default")
def _linspace(b: Bound) -> Attribute:
    return factory_type(b, [b.size("steps")], DEFAULT_FLOAT)


@rule(
    "quantized_decomposed.quantize_per_tensor.default", "quantized_decomposed.quantize_per_tensor.tensor",
    "quantized_decomposed.quantize_per_tensor.tensor2",
)  # fmt: skip
def _quantize_per_tensor(b: Bound) -> Attribute:
    t = b.tensor("input")
    return make_tensor(t.sizes, b.dtype("dtype") or DType.int8, t.device.data)


@rule(
    "quantized_decomposed.dequantize_per_tensor.default", "quantized_decomposed.dequantize_per_tensor.tensor",
    "quantized_decomposed.dequantize_per_tensor.tensor2",
)  # fmt: skip
def _dequantize_per_tensor(b: Bound) -> Attribute:
    t = b.tensor("input")
    return make_tensor(t.sizes, b.dtype("out_dtype") or DType.float32, t.device.data)


@rule(*(f"aten.{w}.{ov}" for w in ("hann_window", "hamming_window", "blackman_window", "bartlett_window")
        for ov in ("default", "periodic")))  # fmt: skip
def _window(b: Bound) -> Attribute:
    return factory_type(b, [b.int("window_length")], DEFAULT_FLOAT)


@rule("aten.range.step", "aten.range.default")
def _range(b: Bound) -> Attribute:
    s, e, st = (float(cast(float, number_value(b.get(k, 1)))) for k in ("start", "end", "step"))
    if st == 0:
        raise InferenceError("range step must be nonzero")
    return factory_type(b, [max(int(math.floor((e - s) / st)) + 1, 0)], DEFAULT_FLOAT)


@rule("aten.new_empty_strided.default")
def _new_empty_strided(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(b.sizes("size"), b.dtype("dtype") or t.element_dtype, b.device("device") or t.device.data)


@rule("quantized_decomposed.quantize_per_channel.default")
def _quantize_per_channel(b: Bound) -> Attribute:
    t = b.tensor("input")
    return make_tensor(t.sizes, b.dtype("dtype") or DType.int8, t.device.data)


@rule("quantized_decomposed.dequantize_per_channel.default")
def _dequantize_per_channel(b: Bound) -> Attribute:
    t = b.tensor("input")
    return make_tensor(t.sizes, b.dtype("out_dtype") or DType.float32, t.device.data)


rule(
    "aten.clone.default", "aten.contiguous.default", "aten.alias.default", "aten.detach.default", "aten.copy.default",
    "aten.copy.Dict_Tensor", "aten.fill.Scalar", "aten.fill.Tensor", "aten.lift_fresh.default",
)(same_as_self)  # fmt: skip


@rule("aten.type_as.default")
def _type_as(b: Bound) -> Attribute:
    t, o = b.tensor("self"), b.tensor("other")
    return make_tensor(t.sizes, o.element_dtype, t.device.data)


@rule("aten.lift_fresh_copy.default")
def _lift_fresh_copy(b: Bound) -> Attribute:
    return b.tensor("self")


def triangle_size(rows: int, cols: int, offset: int, upper: bool) -> int:
    """How many (i, j) of a rows x cols matrix have j - i >= offset (upper) or <= offset (lower)."""
    count = 0
    for i in range(rows):
        if upper:
            count += max(0, cols - max(0, i + offset))
        else:
            count += max(0, min(cols, i + offset + 1))
    return count


@rule("aten.triu_indices.default", "aten.tril_indices.default")
def _triangle_indices(b: Bound) -> Attribute:
    row, col, offset = b.get("row"), b.get("col"), b.get("offset", 0)
    if not all(isinstance(v, int) for v in (row, col, offset)):
        raise NoInference("a symbolic triangle size")
    upper = b.schema.name.endswith("triu_indices")
    n = triangle_size(int(row), int(col), int(offset), upper)  # pyright: ignore[reportArgumentType] - ints, checked above
    return make_tensor([2, n], b.dtype("dtype") or DType.int64, b.device("device") or "cpu")
