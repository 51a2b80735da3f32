"""Torch dtypes carried by numpy arrays, and torch's type promotion.

Every family promotes, computes and casts the same way, so the rules live once
here: :func:`result_type` is ``torch.result_type`` (dimensioned tensors over 0-d
tensors over Python scalars, by category), :func:`compute_dtype` is the CPU
kernels' opmath type (float16 computed in float32), and :func:`finish` casts a
result back. bfloat16 has no numpy dtype and travels as float32 holding
bf16-representable values (:func:`round_to_bfloat16`); that carrying convention
(`NUMPY_OF`, `numpy_dtype`, `dtype_of`, `round_to_bfloat16`) lives in the core
(`utils/dtypes.py`), shared with the tensor bytes and the lowering, and is
re-exported here for the kernel families.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from xdsl_exir.dialects.exir import MemoryFormat
from xdsl_exir.utils.dtypes import NUMPY_OF, DType, dtype_of, numpy_dtype, round_to_bfloat16

__all__ = [
    "BOOL",
    "F16",
    "F32",
    "I64",
    "NUMPY_OF",
    "as_dtype",
    "as_memory_format",
    "cast_to",
    "compute_dtype",
    "dtype_of",
    "finish",
    "floating_dtype",
    "is_tensor",
    "numpy_dtype",
    "numpy_dtype_or_none",
    "promote_types",
    "result_type",
    "round_to_bfloat16",
]

# torch's ScalarType enumeration order: schema defaults and `int? dtype`
# arguments (`to.prim_dtype`) spell dtypes as these integers.
_SCALAR_TYPE_CODES: tuple[DType, ...] = (
    DType.uint8, DType.int8, DType.int16, DType.int32, DType.int64,
    DType.float16, DType.float32, DType.float64, DType.complex32,
    DType.complex64, DType.complex128, DType.bool, DType.qint8, DType.quint8,
    DType.qint32, DType.bfloat16, DType.quint4x2, DType.quint2x4,
    DType.bits1x8, DType.bits2x4, DType.bits4x2, DType.bits8, DType.bits16,
    DType.float8_e5m2, DType.float8_e4m3fn, DType.float8_e5m2fnuz,
    DType.float8_e4m3fnuz, DType.uint16, DType.uint32, DType.uint64,
)
_MEMORY_FORMAT_CODES: tuple[MemoryFormat, ...] = (
    MemoryFormat.contiguous_format, MemoryFormat.preserve_format,
    MemoryFormat.channels_last, MemoryFormat.channels_last_3d,
)

F32 = np.dtype(np.float32)
F16 = np.dtype(np.float16)
I64 = np.dtype(np.int64)
BOOL = np.dtype(np.bool_)


def as_dtype(value: object) -> DType | None:
    """Normalise a ScalarType argument (enum member, integer code, name, numpy dtype)."""
    if value is None or isinstance(value, DType):
        return value
    if isinstance(value, bool):
        raise TypeError(f"not a dtype: {value!r}")
    if isinstance(value, int):
        return _SCALAR_TYPE_CODES[value]
    if isinstance(value, str):
        return DType(value.removeprefix("torch."))
    return dtype_of(np.empty(0, dtype=np.dtype(value)))  # pyright: ignore[reportArgumentType, reportCallIssue] - value is a numpy dtype-like here, typed object


def numpy_dtype_or_none(value: object) -> np.dtype[Any] | None:
    dt = as_dtype(value)
    return None if dt is None else numpy_dtype(dt)


def as_memory_format(value: object) -> MemoryFormat | None:
    if value is None or isinstance(value, MemoryFormat):
        return value
    if isinstance(value, int):
        return _MEMORY_FORMAT_CODES[value]
    return MemoryFormat(str(value))


# ---------------------------------------------------------------------------
# type promotion
# ---------------------------------------------------------------------------


def _category(dt: np.dtype[Any]) -> int:
    if dt == BOOL:
        return 0
    if dt.kind in "iu":
        return 1
    if dt.kind == "f":
        return 2
    return 3


def promote_types(a: np.dtype[Any] | None, b: np.dtype[Any] | None) -> np.dtype[Any] | None:
    """torch.promote_types: a higher category wins outright (int + float16 = float16)."""
    if a is None:
        return b
    if b is None:
        return a
    ca, cb = _category(a), _category(b)
    if ca == cb:
        return np.promote_types(a, b)
    if {ca, cb} == {2, 3}:
        return np.promote_types(a, b)
    return a if ca > cb else b


def _combine(higher: np.dtype[Any] | None, lower: np.dtype[Any] | None) -> np.dtype[Any] | None:
    """A lower-priority operand only matters when it is of a higher category."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    ch, cl = _category(higher), _category(lower)
    if ch == 3:
        return higher
    if cl == 3:
        return np.promote_types(higher, lower) if ch == 2 else lower
    if ch == 2:
        return higher
    if ch == 0 or cl == 2:
        return promote_types(higher, lower)
    return higher


def is_tensor(x: object) -> bool:
    return isinstance(x, (np.ndarray, np.generic))


def result_type(*operands: object) -> np.dtype[Any]:
    """torch.result_type over tensors (numpy arrays) and Python scalars."""
    dim: np.dtype[Any] | None = None
    zero: np.dtype[Any] | None = None
    wrapped: np.dtype[Any] | None = None
    for x in operands:
        if x is None:
            continue
        if is_tensor(x):
            arr = np.asarray(x)
            if arr.ndim == 0:
                zero = promote_types(zero, arr.dtype)
            else:
                dim = promote_types(dim, arr.dtype)
        elif isinstance(x, bool):
            wrapped = promote_types(wrapped, BOOL)
        elif isinstance(x, int):
            wrapped = promote_types(wrapped, I64)
        elif isinstance(x, float):
            wrapped = promote_types(wrapped, F32)
        elif isinstance(x, complex):
            wrapped = promote_types(wrapped, np.dtype(np.complex64))
        else:
            raise TypeError(f"cannot promote {type(x).__name__}")
    res = _combine(dim, _combine(zero, wrapped))
    if res is None:
        raise TypeError("result_type of no operands")
    return res


def compute_dtype(dt: np.dtype[Any]) -> np.dtype[Any]:
    """torch's opmath type on CPU: half is computed in float."""
    return F32 if dt == F16 else dt


def floating_dtype(dt: np.dtype[Any]) -> np.dtype[Any]:
    """Integer and bool inputs of floating ops promote to the default dtype."""
    return dt if dt.kind in "fc" else F32


def cast_to(x: object, dt: np.dtype[Any]) -> np.ndarray:
    return np.asarray(x).astype(dt, copy=False)


def finish(res: Any, dt: np.dtype[Any]) -> np.ndarray:
    return np.asarray(res).astype(dt, copy=False)
