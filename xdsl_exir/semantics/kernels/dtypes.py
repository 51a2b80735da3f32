"""Torch dtypes carried by numpy arrays, and torch's type promotion on them.

Every family promotes, computes and casts the same way: :func:`result_type` is
``torch.result_type`` over numpy arrays and Python numbers, computed by the
core's dtype lattice (`utils/dtypes.py`, shared with the inference rules, the
lowering and the TorchScript runner) so that the kernels cannot disagree with
the types the IR records; :func:`compute_dtype` is the CPU kernels' opmath type
(float16, bfloat16 and float8 computed in float32), and :func:`finish` casts a
result back, rounding as torch rounds. The carrying convention (`NUMPY_OF`,
`numpy_dtype`, `dtype_of`: bfloat16 and float8 as `ml_dtypes` arrays) lives in
the core too and is re-exported here for the kernel families.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from xdsl_exir.dialects.exir import MemoryFormat
from xdsl_exir.utils import dtypes as lattice
from xdsl_exir.utils.dtypes import (
    NUMPY_OF,
    DType,
    Priority,
    cast_array,
    dtype_of,
    is_low_precision,
    numpy_dtype,
    round_to_bfloat16,
)

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
# type promotion: the core's dtype lattice, over numpy dtypes
# ---------------------------------------------------------------------------


def promote_types(a: np.dtype[Any] | None, b: np.dtype[Any] | None) -> np.dtype[Any] | None:
    """`torch.promote_types` of two numpy-carried dtypes (`DType`'s lattice); None is no operand."""
    if a is None:
        return b
    if b is None:
        return a
    return numpy_dtype(lattice.promote_types(dtype_of(a), dtype_of(b)))


def is_tensor(x: object) -> bool:
    return isinstance(x, (np.ndarray, np.generic))


def result_type(*operands: object) -> np.dtype[Any]:
    """
    `torch.result_type` over tensors (numpy arrays; a numpy scalar is a 0-d
    tensor) and Python numbers, by the core's lattice; None operands are absent.
    """
    keyed: list[tuple[DType, Priority]] = []
    for x in operands:
        if x is None:
            continue
        if is_tensor(x):
            arr = cast(np.ndarray, x)
            keyed.append((dtype_of(arr.dtype), Priority.DIMENSIONED if arr.ndim else Priority.ZERO_DIM))
            continue
        d = lattice.scalar_dtype(x)
        if d is None:
            raise TypeError(f"cannot promote {type(x).__name__}")
        keyed.append((d, Priority.WRAPPED))
    return numpy_dtype(lattice.result_type(keyed))


def compute_dtype(dt: np.dtype[Any]) -> np.dtype[Any]:
    """torch's opmath type on CPU (`DType.opmath`): float16, bfloat16 and the float8s are computed in float32."""
    return F32 if dt == F16 or is_low_precision(dt) else dt  # DType.opmath, without the lookups on this hot path


def floating_dtype(dt: np.dtype[Any]) -> np.dtype[Any]:
    """Bool and integer inputs of floating ops promote to the default dtype; floats and complex stay."""
    return dt if dt.kind in "fc" or is_low_precision(dt) else F32


def cast_to(x: object, dt: np.dtype[Any]) -> np.ndarray:
    return np.asarray(x).astype(dt, copy=False)


def finish(res: Any, dt: np.dtype[Any]) -> np.ndarray:
    """The result in its dtype, rounded (and float8_e4m3fn saturated) as torch's casts are."""
    arr = np.asarray(res)
    if is_low_precision(dt) and arr.dtype != dt:
        return cast_array(arr, dtype_of(dt))
    return arr.astype(dt, copy=False)
