"""Creation (zeros, full, arange, ..._like, new_..., vander, triangle indices),
conversion (``to``, ``_to_copy``) and copy kernels.

Sizes of created tensors come from the program, which may be hostile, so every
created shape passes :func:`new_shape`, which checks it against the tensor size
limit before anything is allocated.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from xdsl_exir.dialects.exir import DType, MemoryFormat
from xdsl_exir.semantics.kernels.core import new_shape
from xdsl_exir.semantics.kernels.dtypes import (
    F32,
    I64,
    as_dtype,
    as_memory_format,
    dtype_of,
    is_tensor,
    numpy_dtype,
    numpy_dtype_or_none,
    result_type,
)
from xdsl_exir.semantics.kernels.registry import register, wrap_dim
from xdsl_exir.utils.dtypes import LOW_PRECISION, cast_array, is_floating


def _fill_dtype(value: object) -> np.dtype[Any]:
    if is_tensor(value):
        return np.asarray(value).dtype
    return result_type(value)


@register("aten.zeros.default", "aten.empty.memory_format", "aten.empty_strided.default")
def _zeros(size: Sequence[int], dtype: object = None, **_: object) -> np.ndarray:
    """``empty`` is deterministic: zero-filled, so programs stay reproducible."""
    dt = numpy_dtype_or_none(dtype) or F32
    return np.zeros(new_shape(size, dt), dtype=dt)


@register("aten.ones.default")
def _ones(size: Sequence[int], dtype: object = None, **_: object) -> np.ndarray:
    dt = numpy_dtype_or_none(dtype) or F32
    return np.ones(new_shape(size, dt), dtype=dt)


@register("aten.full.default")
def _full(size: Sequence[int], fill_value: object, dtype: object = None, **_: object) -> np.ndarray:
    dt = numpy_dtype_or_none(dtype) or _fill_dtype(fill_value)
    return np.full(new_shape(size, dt), fill_value, dtype=dt)


@register("aten.scalar_tensor.default")
def _scalar_tensor(s: object, dtype: object = None, **_: object) -> np.ndarray:
    return np.asarray(s, dtype=numpy_dtype_or_none(dtype) or F32)


def _like(self: np.ndarray, dtype: object) -> tuple[tuple[int, ...], np.dtype[Any]]:
    a = np.asarray(self)
    return a.shape, numpy_dtype_or_none(dtype) or a.dtype


@register("aten.zeros_like.default")
def _zeros_like(self: np.ndarray, dtype: object = None, **_: object) -> np.ndarray:
    return np.zeros(*_like(self, dtype))


@register("aten.ones_like.default")
def _ones_like(self: np.ndarray, dtype: object = None, **_: object) -> np.ndarray:
    return np.ones(*_like(self, dtype))


@register("aten.full_like.default")
def _full_like(self: np.ndarray, fill_value: object, dtype: object = None, **_: object) -> np.ndarray:
    shape, dt = _like(self, dtype)
    return np.full(shape, fill_value, dtype=dt)


@register("aten.new_zeros.default", "aten.new_empty.default")
def _new_zeros(self: np.ndarray, size: Sequence[int], dtype: object = None, **_: object) -> np.ndarray:
    dt = numpy_dtype_or_none(dtype) or np.asarray(self).dtype
    return np.zeros(new_shape(size, dt), dtype=dt)


@register("aten.new_ones.default")
def _new_ones(self: np.ndarray, size: Sequence[int], dtype: object = None, **_: object) -> np.ndarray:
    dt = numpy_dtype_or_none(dtype) or np.asarray(self).dtype
    return np.ones(new_shape(size, dt), dtype=dt)


@register("aten.new_full.default")
def _new_full(self: np.ndarray, size: Sequence[int], fill_value: object, dtype: object = None, **_: object) -> np.ndarray:
    dt = numpy_dtype_or_none(dtype) or np.asarray(self).dtype
    return np.full(new_shape(size, dt), fill_value, dtype=dt)


@register("aten.fill.Scalar", "aten.fill.Tensor")
def _fill(self: np.ndarray, value: object) -> np.ndarray:
    a = np.asarray(self)
    return np.full(a.shape, np.asarray(value).astype(a.dtype), dtype=a.dtype)


@register("aten.arange.default", "aten.arange.start", "aten.arange.start_step")
def _arange(end: object, start: object = 0, step: object = 1, dtype: object = None, **_: object) -> np.ndarray:
    vals = [np.asarray(v).item() for v in (start, end, step)]
    dt = numpy_dtype_or_none(dtype) or (F32 if any(isinstance(v, float) for v in vals) else I64)
    if dt == I64:
        # torch's int64 arange converts start, end and step to int64 before sizing the
        # result; other dtypes size it from the arguments as doubles
        vals = [int(v) for v in vals]
        if vals[2] == 0:
            raise ValueError("arange: step must be nonzero")
    s, e, st = (float(v) for v in vals)
    n = max(0, math.ceil((e - s) / st))
    new_shape([n], np.dtype(np.float64))
    if dt.kind in "iu":
        return (int(vals[0]) + np.arange(n, dtype=np.int64) * int(vals[2])).astype(dt)
    return (s + np.arange(n, dtype=np.float64) * st).astype(dt)


def arange_out_kernel(end: object, start: object = 0, step: object = 1, *, out: np.ndarray) -> np.ndarray:
    """torch's `arange_out` resizes `out` only when its number of elements differs: an `out`
    of shape [3, 4] receives arange(12) in its own shape (the derived out= kernels resize
    to the result's shape, as `resize_output` does for other operators)."""
    values = _arange(end, start, step, dtype=dtype_of(out))
    if out.size != values.size:
        out.resize(values.shape, refcheck=False)
    np.copyto(out, values.reshape(out.shape), casting="unsafe")
    return out


def _convert(a: np.ndarray, dtype: DType | None, copy: bool) -> np.ndarray:
    if dtype is None:
        return a.copy() if copy else a
    dt = numpy_dtype(dtype)
    if dtype in LOW_PRECISION:  # bfloat16, float8: rounded (float8_e4m3fn saturated) as torch does
        return cast_array(np.real(a) if a.dtype.kind == "c" else a, dtype)
    if is_floating(a.dtype) and dt.kind in "iu":
        # torch truncates toward zero; NaN/inf give unspecified values
        with np.errstate(invalid="ignore"):
            return np.trunc(a).astype(dt)
    if a.dtype == dt and not copy:
        return a
    return a.astype(dt, copy=True)


@register("aten._to_copy.default")
def _to_copy(self: np.ndarray, dtype: object = None, **_: object) -> np.ndarray:
    return _convert(np.asarray(self), as_dtype(dtype), True)


@register("aten.to.dtype", "aten.to.device", "aten.to.dtype_layout", "aten.to.prim_dtype", "aten.to.prim_Device")
def _to(self: np.ndarray, dtype: object = None, copy: bool = False, **_: object) -> np.ndarray:
    return _convert(np.asarray(self), as_dtype(dtype), bool(copy))


@register("aten.to.other")
def _to_other(self: np.ndarray, other: np.ndarray, copy: bool = False, **_: object) -> np.ndarray:
    return _convert(np.asarray(self), dtype_of(other), bool(copy))


@register("aten.to.prim_other")
def _to_prim_other(self: np.ndarray, copy: bool = False, **_: object) -> np.ndarray:
    return np.array(self, copy=True) if copy else np.asarray(self)


@register("aten.type_as.default")
def _type_as(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    return _convert(np.asarray(self), dtype_of(other), False)


_LAST = {4: (0, 2, 3, 1), 5: (0, 2, 3, 4, 1)}
"""The storage order of channels-last (4-d) and channels-last-3d (5-d) tensors."""


def in_memory_format(a: np.ndarray, memory_format: object) -> np.ndarray:
    """A copy of `a` laid out as torch lays out `memory_format`: channels-last copies
    are NHWC buffers seen as NCHW (so views and `as_strided` see torch's storage);
    `preserve_format` keeps a dense input's layout, as numpy's order 'K' does."""
    fmt = as_memory_format(memory_format)
    if fmt in (MemoryFormat.channels_last, MemoryFormat.channels_last_3d) and a.ndim in _LAST:
        order = _LAST[a.ndim]
        return np.ascontiguousarray(a.transpose(order)).transpose(np.argsort(order))
    if fmt is MemoryFormat.contiguous_format:
        return np.array(a, copy=True, order="C")
    return np.array(a, copy=True, order="K")


@register("aten.clone.default")
def _clone(self: np.ndarray, memory_format: object = None) -> np.ndarray:
    return in_memory_format(np.asarray(self), memory_format)


@register("aten.contiguous.default")
def _contiguous(self: np.ndarray, memory_format: object = 0) -> np.ndarray:
    a = np.asarray(self)
    fmt = as_memory_format(memory_format)
    if fmt in (MemoryFormat.channels_last, MemoryFormat.channels_last_3d) and a.ndim in _LAST:
        order = _LAST[a.ndim]
        if a.transpose(order).flags.c_contiguous:
            return a
        return in_memory_format(a, fmt)
    return a if a.flags.c_contiguous else np.ascontiguousarray(a)  # numpy's makes a 0-d array 1-d


@register("aten.alias.default", "aten.detach.default")
def _alias(self: np.ndarray) -> np.ndarray:
    return np.asarray(self).view()


@register("aten.copy.default")
def _copy(self: np.ndarray, src: np.ndarray, non_blocking: bool = False) -> np.ndarray:
    a = np.asarray(self)
    out = np.empty_like(a)
    np.copyto(out, _convert(np.asarray(src), None, False), casting="unsafe")
    return out


def _tri(upper: bool) -> Callable[..., np.ndarray]:
    """`triu_indices` / `tril_indices`: the [2, N] row and column indices of a triangle
    of a `row` x `col` matrix, in row-major order."""

    def kernel(row: int, col: int, offset: int = 0, dtype: object = 4, **_: object) -> np.ndarray:
        r, c = np.indices((int(row), int(col)))
        keep = (c - r >= int(offset)) if upper else (c - r <= int(offset))
        out = np.stack([r[keep], c[keep]])
        return out.astype(numpy_dtype_or_none(dtype) or I64)

    return kernel


register("aten.triu_indices.default")(_tri(True))
register("aten.tril_indices.default")(_tri(False))


# ---------------------------------------------------------------------------
# quantized_decomposed: PT2E quantization's per-tensor (de)quantization
# ---------------------------------------------------------------------------


def _qparam(value: object) -> float:
    return float(np.asarray(value).reshape(-1)[0])


@register(
    "quantized_decomposed.quantize_per_tensor.default",
    "quantized_decomposed.quantize_per_tensor.tensor",
    "quantized_decomposed.quantize_per_tensor.tensor2",
)
def _quantize_per_tensor(
    input: np.ndarray, scale: object, zero_point: object, quant_min: object, quant_max: object, dtype: object
) -> np.ndarray:
    """clamp(round(x / scale) + zero_point, quant_min, quant_max) in float32 (rounding half to
    even, as torch.round), converted to the integer dtype."""
    x = np.asarray(input, dtype=np.float32)
    inv_scale = np.float32(1.0 / _qparam(scale))
    q = np.round(x * inv_scale) + np.float32(_qparam(zero_point))
    q = np.clip(q, _qparam(quant_min), _qparam(quant_max))
    return q.astype(numpy_dtype_or_none(dtype) or np.dtype(np.int8))


@register(
    "quantized_decomposed.dequantize_per_tensor.default",
    "quantized_decomposed.dequantize_per_tensor.tensor",
    "quantized_decomposed.dequantize_per_tensor.tensor2",
)
def _dequantize_per_tensor(
    input: np.ndarray, scale: object, zero_point: object, quant_min: object, quant_max: object, dtype: object,
    out_dtype: object = None,
) -> np.ndarray:
    """(q - zero_point) * scale, in `out_dtype` (float32 by default)."""
    out = numpy_dtype_or_none(out_dtype) or F32
    q = np.asarray(input).astype(out)
    return ((q - out.type(_qparam(zero_point))) * out.type(_qparam(scale))).astype(out)


def _channel_view(params: np.ndarray, axis: int, ndim: int) -> np.ndarray:
    """One parameter per channel of `axis`, shaped to broadcast against the tensor."""
    shape = [1] * ndim
    shape[axis] = -1
    return np.asarray(params).reshape(shape)


@register("quantized_decomposed.quantize_per_channel.default")
def _quantize_per_channel(
    input: np.ndarray, scales: np.ndarray, zero_points: np.ndarray, axis: int, quant_min: int, quant_max: int,
    dtype: object,
) -> np.ndarray:
    """clamp(round(x * (1 / scale)) + zero_point, quant_min, quant_max) per channel of `axis`,
    promoted as torch's reference promotes (float64 scales compute in float64)."""
    x = np.asarray(input)
    if x.dtype != F32:
        raise ValueError(f"quantize_per_channel expects a float32 input, got {x.dtype}")
    d = wrap_dim(axis, x.ndim)
    s = _channel_view(scales, d, x.ndim)
    inv = 1.0 / s
    prod = x.astype(result_type(x, inv)) * inv
    q = np.round(prod)
    q = q + _channel_view(zero_points, d, x.ndim).astype(q.dtype)
    q = np.clip(q, quant_min, quant_max)
    return q.astype(numpy_dtype_or_none(dtype) or np.dtype(np.int8))


@register("quantized_decomposed.dequantize_per_channel.default")
def _dequantize_per_channel(
    input: np.ndarray, scales: np.ndarray, zero_points: np.ndarray | None, axis: int, quant_min: int, quant_max: int,
    dtype: object, out_dtype: object = None,
) -> np.ndarray:
    """(q - zero_point) * scale per channel of `axis`, promoted as torch's reference, in `out_dtype` (float32)."""
    q = np.asarray(input)
    d = wrap_dim(axis, q.ndim)
    s = _channel_view(scales, d, q.ndim)
    if zero_points is None:
        centred = q
    else:
        zp = _channel_view(zero_points, d, q.ndim)
        common = result_type(q, zp)
        centred = q.astype(common) - zp.astype(common)
    res = centred.astype(result_type(centred, s)) * s
    return res.astype(numpy_dtype_or_none(out_dtype) or F32)


@register("aten.new_empty_strided.default")
def _new_empty_strided(
    self: np.ndarray,
    size: Sequence[int],
    stride: Sequence[int],
    dtype: object = None,
    layout: object = None,
    device: object = None,
    pin_memory: object = None,
) -> np.ndarray:
    """Uninitialized in torch: zeros here, of `self`'s dtype unless one is given (the strides do not change values)."""
    if len(size) != len(stride) or any(int(s) < 0 for s in size):
        raise ValueError(f"new_empty_strided: invalid size {list(size)} or stride {list(stride)}")
    dt = numpy_dtype_or_none(dtype) or np.asarray(self).dtype
    return np.zeros(tuple(int(s) for s in size), dtype=dt)


@register("aten.linalg_vander.default")
def _linalg_vander(x: np.ndarray, N: int | None = None) -> np.ndarray:
    """Columns x⁰, x¹, ..., x^(N-1) (increasing powers, over the last dim; a 0-d x is one element)."""
    a = np.asarray(x)
    a = a.reshape(1) if a.ndim == 0 else a
    n = a.shape[-1] if N is None else int(N)
    if n <= 0:
        raise ValueError(f"N must be greater than 1, but got N={n}")
    return np.cumprod(np.concatenate([np.ones((*a.shape, 1), a.dtype), np.repeat(a[..., None], n - 1, -1)], -1), -1)


@register("aten.vander.default")
def _vander(x: np.ndarray, N: int | None = None, increasing: bool = False) -> np.ndarray:
    out = _linalg_vander(x, N)
    return out if increasing else out[..., ::-1].copy()


@register("aten.copy.Dict_Tensor")
def _copy_dict(self: Mapping[object, object]) -> dict[object, object]:
    return dict(self)
