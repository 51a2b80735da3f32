"""
Torch's dtypes, and the numpy dtype that carries each one.

Part of the torch-free core: the tensor bytes of archives and blobs
(`tensor_data`), the dialects' types, the kernels, the lowering and the
exporters all name dtypes, so the enumeration lives below all of them and the
`exir` dialect re-exports it. numpy has no bfloat16 or float8: `ml_dtypes` (the
numpy extension JAX uses) gives them, so a bfloat16 or float8 tensor is a real
numpy array of that dtype and item size. Those dtypes are of numpy kind `V`, not
`f`, so code asking "is this a float?" of a numpy dtype asks `is_floating`.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
from xdsl.utils.str_enum import StrEnum

__all__ = [
    "LOW_PRECISION",
    "NUMPY_OF",
    "DType",
    "cast_array",
    "dtype_of",
    "is_floating",
    "is_low_precision",
    "numpy_dtype",
    "round_to_bfloat16",
    "to_float32",
]


class DType(StrEnum):
    """Every `torch.dtype`, spelled as torch spells it."""

    bool = "bool"
    uint8 = "uint8"
    int8 = "int8"
    int16 = "int16"
    int32 = "int32"
    int64 = "int64"
    uint16 = "uint16"
    uint32 = "uint32"
    uint64 = "uint64"
    float16 = "float16"
    bfloat16 = "bfloat16"
    float32 = "float32"
    float64 = "float64"
    complex32 = "complex32"
    complex64 = "complex64"
    complex128 = "complex128"
    float8_e4m3fn = "float8_e4m3fn"
    float8_e4m3fnuz = "float8_e4m3fnuz"
    float8_e5m2 = "float8_e5m2"
    float8_e5m2fnuz = "float8_e5m2fnuz"
    float8_e8m0fnu = "float8_e8m0fnu"
    float4_e2m1fn_x2 = "float4_e2m1fn_x2"
    qint8 = "qint8"
    quint8 = "quint8"
    qint32 = "qint32"
    quint4x2 = "quint4x2"
    quint2x4 = "quint2x4"
    bits1x8 = "bits1x8"
    bits2x4 = "bits2x4"
    bits4x2 = "bits4x2"
    bits8 = "bits8"
    bits16 = "bits16"
    uint1 = "uint1"
    uint2 = "uint2"
    uint3 = "uint3"
    uint4 = "uint4"
    uint5 = "uint5"
    uint6 = "uint6"
    uint7 = "uint7"
    int1 = "int1"
    int2 = "int2"
    int3 = "int3"
    int4 = "int4"
    int5 = "int5"
    int6 = "int6"
    int7 = "int7"

    @property
    def is_floating_point(self) -> bool:
        return self.value.startswith(("float", "bfloat"))

    @property
    def is_complex(self) -> bool:
        return self.value.startswith("complex")

    @property
    def is_integral(self) -> bool:
        """Integral in torch's sense (bool excluded)."""
        return self.value.startswith(("int", "uint"))


NUMPY_OF: dict[DType, np.dtype[Any]] = {
    DType.bool: np.dtype(np.bool_),
    DType.uint8: np.dtype(np.uint8),
    DType.int8: np.dtype(np.int8),
    DType.int16: np.dtype(np.int16),
    DType.int32: np.dtype(np.int32),
    DType.int64: np.dtype(np.int64),
    DType.uint16: np.dtype(np.uint16),
    DType.uint32: np.dtype(np.uint32),
    DType.uint64: np.dtype(np.uint64),
    DType.float16: np.dtype(np.float16),
    DType.bfloat16: np.dtype(ml_dtypes.bfloat16),
    DType.float32: np.dtype(np.float32),
    DType.float64: np.dtype(np.float64),
    DType.complex32: np.dtype(np.complex64),
    DType.complex64: np.dtype(np.complex64),
    DType.complex128: np.dtype(np.complex128),
    DType.float8_e4m3fn: np.dtype(ml_dtypes.float8_e4m3fn),
    DType.float8_e4m3fnuz: np.dtype(ml_dtypes.float8_e4m3fnuz),
    DType.float8_e5m2: np.dtype(ml_dtypes.float8_e5m2),
    DType.float8_e5m2fnuz: np.dtype(ml_dtypes.float8_e5m2fnuz),
    DType.float8_e8m0fnu: np.dtype(ml_dtypes.float8_e8m0fnu),
}
"""The numpy dtype that carries each torch dtype numpy (with `ml_dtypes`) can hold."""

LOW_PRECISION: dict[DType, np.dtype[Any]] = {
    d: NUMPY_OF[d]
    for d in (
        DType.bfloat16,
        DType.float8_e4m3fn,
        DType.float8_e4m3fnuz,
        DType.float8_e5m2,
        DType.float8_e5m2fnuz,
        DType.float8_e8m0fnu,
    )
}
"""
The `ml_dtypes` floats. torch's CPU kernels compute on them in float32 (their
opmath type) and round the result once; the interpreter does the same
(`to_float32` on the way in, the result's dtype on the way out).
"""

_LOW_PRECISION_NUMPY = frozenset(LOW_PRECISION.values())


def is_low_precision(dt: np.dtype[Any]) -> bool:
    """Whether a numpy dtype is one of the `ml_dtypes` floats."""
    return dt in _LOW_PRECISION_NUMPY


def is_floating(dt: np.dtype[Any]) -> bool:
    """A real floating numpy dtype, the `ml_dtypes` ones (numpy kind `V`) included."""
    return dt.kind == "f" or dt in _LOW_PRECISION_NUMPY


def cast_array(value: np.ndarray, dtype: DType) -> np.ndarray:
    """
    `value` as an array of torch dtype `dtype`, rounded as torch's CPU casts round:
    to nearest even, except that torch saturates float8_e4m3fn (which has no
    infinity) to +-448, infinities included, where ml_dtypes gives NaN.
    """
    want = numpy_dtype(dtype)
    if dtype is DType.float8_e4m3fn and (value.dtype.kind == "f" or value.dtype in _LOW_PRECISION_NUMPY):
        value = np.clip(value.astype(np.float32), -448.0, 448.0)
    return value.astype(want)


def to_float32(value: Any) -> Any:
    """An `ml_dtypes` array widened (exactly) to float32; anything else as it is."""
    if isinstance(value, np.ndarray | np.generic) and value.dtype in _LOW_PRECISION_NUMPY:
        return np.asarray(value).astype(np.float32)
    return value


def numpy_dtype(dtype: DType) -> np.dtype[Any]:
    """The numpy dtype that carries a torch dtype (bfloat16 -> ml_dtypes.bfloat16)."""
    try:
        return NUMPY_OF[dtype]
    except KeyError:
        raise NotImplementedError(f"no numpy representation for torch dtype {dtype}") from None


def dtype_of(array: np.ndarray | np.generic) -> DType:
    """The torch dtype of a numpy array (complex64 arrays report complex64, never complex32)."""
    dt = np.asarray(array).dtype
    for torch_dt, np_dt in NUMPY_OF.items():
        if np_dt == dt and torch_dt is not DType.complex32:
            return torch_dt
    raise NotImplementedError(f"numpy dtype {dt} has no torch counterpart")


def round_to_bfloat16(a: np.ndarray | float) -> np.ndarray:
    """Round to the nearest bfloat16 value (ties to even), returned as float32
    (for code computing in float32 that needs bf16 values, e.g. the linalg interpreter)."""
    return np.asarray(a, dtype=np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)
