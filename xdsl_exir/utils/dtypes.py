"""
Torch's dtypes, and the numpy dtype that carries each one.

Part of the torch-free core: the tensor bytes of archives and blobs
(`tensor_data`), the dialects' types, the kernels, the lowering and the
exporters all name dtypes, so the enumeration lives below all of them and the
`exir` dialect re-exports it. numpy has no bfloat16: a bfloat16 tensor travels
as float32 holding bfloat16-representable values (`round_to_bfloat16`), the
convention the kernels, the tensor bytes and the generated Python share.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.utils.str_enum import StrEnum

__all__ = ["NUMPY_OF", "DType", "dtype_of", "numpy_dtype", "round_to_bfloat16"]


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
    DType.bfloat16: np.dtype(np.float32),  # carried as float32, see the module docstring
    DType.float32: np.dtype(np.float32),
    DType.float64: np.dtype(np.float64),
    DType.complex32: np.dtype(np.complex64),
    DType.complex64: np.dtype(np.complex64),
    DType.complex128: np.dtype(np.complex128),
}
"""The numpy dtype that carries each torch dtype numpy can compute with."""


def numpy_dtype(dtype: DType) -> np.dtype[Any]:
    """The numpy dtype that carries a torch dtype (bfloat16 -> float32)."""
    try:
        return NUMPY_OF[dtype]
    except KeyError:
        raise NotImplementedError(f"no numpy representation for torch dtype {dtype}") from None


def dtype_of(array: np.ndarray | np.generic) -> DType:
    """The torch dtype of a numpy array (float32 arrays report float32, never bf16)."""
    dt = np.asarray(array).dtype
    for torch_dt, np_dt in NUMPY_OF.items():
        if np_dt == dt and torch_dt not in (DType.bfloat16, DType.complex32):
            return torch_dt
    raise NotImplementedError(f"numpy dtype {dt} has no torch counterpart")


def round_to_bfloat16(a: np.ndarray | float) -> np.ndarray:
    """Round to the nearest bfloat16 value (ties to even), returned as float32.

    bfloat16 is the top half of an IEEE float32, so rounding is adding half an
    ulp of the dropped 16 bits (plus the tie-breaking lsb) and truncating.
    """
    f = np.asarray(a, dtype=np.float32)
    bits = f.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(f), f, out).astype(np.float32)
