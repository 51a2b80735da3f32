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

from enum import auto
from typing import Any

import numpy as np
from xdsl.utils.str_enum import StrEnum

__all__ = ["NUMPY_OF", "DType", "dtype_of", "numpy_dtype", "round_to_bfloat16"]


class DType(StrEnum):
    """Every `torch.dtype`, spelled as torch spells it."""

    bool = auto()
    uint8 = auto()
    int8 = auto()
    int16 = auto()
    int32 = auto()
    int64 = auto()
    uint16 = auto()
    uint32 = auto()
    uint64 = auto()
    float16 = auto()
    bfloat16 = auto()
    float32 = auto()
    float64 = auto()
    complex32 = auto()
    complex64 = auto()
    complex128 = auto()
    float8_e4m3fn = auto()
    float8_e4m3fnuz = auto()
    float8_e5m2 = auto()
    float8_e5m2fnuz = auto()
    float8_e8m0fnu = auto()
    float4_e2m1fn_x2 = auto()
    qint8 = auto()
    quint8 = auto()
    qint32 = auto()
    quint4x2 = auto()
    quint2x4 = auto()
    bits1x8 = auto()
    bits2x4 = auto()
    bits4x2 = auto()
    bits8 = auto()
    bits16 = auto()
    uint1 = auto()
    uint2 = auto()
    uint3 = auto()
    uint4 = auto()
    uint5 = auto()
    uint6 = auto()
    uint7 = auto()
    int1 = auto()
    int2 = auto()
    int3 = auto()
    int4 = auto()
    int5 = auto()
    int6 = auto()
    int7 = auto()

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
