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

from collections.abc import Iterable
from enum import IntEnum
from typing import Any

import ml_dtypes
import numpy as np
from xdsl.utils.str_enum import StrEnum

__all__ = [
    "DEFAULT_COMPLEX",
    "DEFAULT_FLOAT",
    "LOW_PRECISION",
    "NUMPY_OF",
    "Category",
    "DType",
    "Priority",
    "PromotionError",
    "cast_array",
    "dtype_of",
    "is_floating",
    "is_low_precision",
    "numpy_dtype",
    "promote_types",
    "result_type",
    "round_to_bfloat16",
    "scalar_dtype",
    "to_float32",
]


class Category(IntEnum):
    """The kinds type promotion orders: a higher category wins over any width of a lower one."""

    BOOL = 0
    INTEGRAL = 1
    FLOATING = 2
    COMPLEX = 3


class Priority(IntEnum):
    """
    How much an operand's dtype counts in `result_type`: torch's ResultTypeState
    keeps one running dtype per priority (tensors with dimensions, 0-d tensors,
    Python numbers), and a lower priority can only raise the result's category.
    """

    WRAPPED = 0
    ZERO_DIM = 1
    DIMENSIONED = 2


class PromotionError(TypeError):
    """Two dtypes torch refuses to promote (float8 with any other dtype, uint16 with int8...)."""


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

    @property
    def category(self) -> Category:
        """bool < integral < floating < complex, the order type promotion respects."""
        return _CATEGORY_OF[self]

    @property
    def itemsize(self) -> int:
        """Bytes per element in torch's storage, `torch.dtype.itemsize` (complex32 is 4, though numpy carries it in 8)."""
        return _ITEMSIZE.get(self, 1)

    def to_complex(self) -> DType:
        """
        The complex dtype of this float's width, as c10's `toComplexType`:
        float16 -> complex32, bfloat16 -> complex64 (bfloat16 has float32's
        range), float32 -> complex64, float64 -> complex128; complex stays.
        """
        if self.is_complex:
            return self
        try:
            return _COMPLEX_OF[self]
        except KeyError:
            raise PromotionError(f"{self} has no complex counterpart") from None

    def to_real(self) -> DType:
        """The real dtype of a complex one's parts (`view_as_real`, `abs`); others stay."""
        return _REAL_OF.get(self, self)

    def opmath(self) -> DType:
        """
        The dtype torch's CPU kernels compute an op of this dtype in (their
        `opmath_type`): float16, bfloat16 and the float8s in float32, once
        rounded back; every other dtype in itself.
        """
        return DType.float32 if self is DType.float16 or self in LOW_PRECISION else self

    def to_floating(self) -> DType:
        """The dtype a floating op computes bool and integer inputs in: the default float."""
        return self if self.category >= Category.FLOATING else DEFAULT_FLOAT


DEFAULT_FLOAT = DType.float32
"""torch's default dtype, `torch.get_default_dtype()`, assumed never changed."""
DEFAULT_COMPLEX = DType.complex64
"""The complex dtype of the default float's width."""

_COMPLEX_OF = {
    DType.float16: DType.complex32,
    DType.bfloat16: DType.complex64,
    DType.float32: DType.complex64,
    DType.float64: DType.complex128,
}
_REAL_OF = {
    DType.complex32: DType.float16,
    DType.complex64: DType.float32,
    DType.complex128: DType.float64,
}
_INT_BITS = {
    DType.uint8: 8, DType.int8: 8, DType.int16: 16, DType.int32: 32, DType.int64: 64,
}  # fmt: skip
_ITEMSIZE = {
    DType.int16: 2, DType.int32: 4, DType.int64: 8, DType.uint16: 2, DType.uint32: 4,
    DType.uint64: 8, DType.float16: 2, DType.bfloat16: 2, DType.float32: 4, DType.float64: 8,
    DType.complex32: 4, DType.complex64: 8, DType.complex128: 16, DType.qint32: 4, DType.bits16: 2,
}  # fmt: skip
"""Element sizes other than one byte (as `torch.dtype.itemsize`; the sub-byte dtypes count one)."""
_FLOAT_WIDTH = {DType.float16: 1, DType.bfloat16: 1, DType.float32: 2, DType.float64: 3}
_BARE_UNSIGNED = frozenset((DType.uint16, DType.uint32, DType.uint64))


def _category(d: DType) -> Category:
    if d is DType.bool:
        return Category.BOOL
    if d.is_complex:
        return Category.COMPLEX
    if d.is_floating_point:
        return Category.FLOATING
    return Category.INTEGRAL


_CATEGORY_OF = {d: _category(d) for d in DType}


def promote_types(a: DType, b: DType) -> DType:
    """
    `torch.promote_types`: the smallest dtype both convert to without losing
    their category. As torch 2.13's table: int8 + uint8 is int16; float16 +
    bfloat16 is float32; complex + float is the complex of the wider real part;
    the float8s, the quantized and bit dtypes promote only with themselves, and
    uint16/32/64 only with themselves and the real floats.
    """
    if a is b:
        return a
    pa, pb = _FLOAT_WIDTH.get(a), _FLOAT_WIDTH.get(b)
    if a in _BARE_UNSIGNED or b in _BARE_UNSIGNED:
        if pa is not None:
            return a
        if pb is not None:
            return b
        raise PromotionError(f"torch does not promote {a} with {b}")
    ca, cb = _CATEGORY_OF[a], _CATEGORY_OF[b]
    for d, c in ((a, ca), (b, cb)):
        if c is Category.FLOATING and d not in _FLOAT_WIDTH or c is Category.INTEGRAL and d not in _INT_BITS:
            raise PromotionError(f"torch does not promote {a} with {b}")
    if ca is not cb:
        hi, lo = (a, b) if ca > cb else (b, a)
        if hi.is_complex and lo.is_floating_point:
            return promote_types(hi.to_real(), lo).to_complex()
        return hi
    if ca is Category.INTEGRAL:
        return _promote_integral(a, b)
    if ca is Category.FLOATING:
        assert pa is not None and pb is not None
        if pa == pb:
            return DType.float32  # float16 with bfloat16: neither holds the other
        return a if pa > pb else b
    return promote_types(a.to_real(), b.to_real()).to_complex()  # complex


def _promote_integral(a: DType, b: DType) -> DType:
    bits_a, bits_b = _INT_BITS[a], _INT_BITS[b]
    if (a is DType.uint8) == (b is DType.uint8):
        return a if bits_a >= bits_b else b
    signed = b if a is DType.uint8 else a
    return signed if _INT_BITS[signed] > 8 else DType.int16


def _combine(higher: DType | None, lower: DType | None) -> DType | None:
    """
    A lower-priority group's dtype counts only if it is of a higher category
    (c10's `combine_categories`): a complex one makes a floating result complex
    of the result's own width; a floating one turns a bool or integer result
    into the promotion of both; a bool result takes an integer's dtype.
    """
    if higher is None:
        return lower
    if lower is None:
        return higher
    ch, cl = _CATEGORY_OF[higher], _CATEGORY_OF[lower]
    if ch is Category.COMPLEX:
        return higher
    if cl is Category.COMPLEX:
        return higher.to_complex() if ch is Category.FLOATING else lower
    if ch is Category.FLOATING:
        return higher
    if ch is Category.BOOL or cl is Category.FLOATING:
        return promote_types(higher, lower)
    return higher


def scalar_dtype(value: object) -> DType | None:
    """The dtype a Python number takes part in promotion with (bool, int64, float64, complex128)."""
    if isinstance(value, bool | np.bool_):
        return DType.bool
    if isinstance(value, int):
        return DType.int64
    if isinstance(value, float):
        return DType.float64
    if isinstance(value, complex):
        return DType.complex128
    return None


def result_type(operands: Iterable[tuple[DType, Priority]]) -> DType:
    """
    `torch.result_type` over dtypes, each with its operand's priority: dtypes
    of one priority promote together; Python numbers count as their category's
    default (float64 as float32, complex128 as complex64); then 0-d tensors
    combine under dimensioned tensors and numbers under both, each lower group
    counting only for its category (a float32 tensor plus a float64 0-d tensor
    is float32, plus a complex128 0-d tensor is complex64).
    """
    groups: list[DType | None] = [None, None, None]
    for dt, priority in operands:
        if priority is Priority.WRAPPED:
            c = _CATEGORY_OF[dt]
            if c is Category.FLOATING:
                dt = DEFAULT_FLOAT
            elif c is Category.COMPLEX:
                dt = DEFAULT_COMPLEX
        cur = groups[priority]
        groups[priority] = dt if cur is None else promote_types(cur, dt)
    res = _combine(groups[Priority.DIMENSIONED], _combine(groups[Priority.ZERO_DIM], groups[Priority.WRAPPED]))
    if res is None:
        raise PromotionError("type promotion needs at least one operand")
    return res


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


_DTYPE_OF_NUMPY = {np_dt: d for d, np_dt in NUMPY_OF.items()}  # complex64, listed last, wins over complex32


def dtype_of(array: np.ndarray | np.generic | np.dtype[Any]) -> DType:
    """The torch dtype of a numpy array or dtype (complex64 reports complex64, never complex32)."""
    dt = array if isinstance(array, np.dtype) else np.asarray(array).dtype
    try:
        return _DTYPE_OF_NUMPY[dt]
    except KeyError:
        raise NotImplementedError(f"numpy dtype {dt} has no torch counterpart") from None


def round_to_bfloat16(a: np.ndarray | float) -> np.ndarray:
    """Round to the nearest bfloat16 value (ties to even), returned as float32
    (for code computing in float32 that needs bf16 values, e.g. the linalg interpreter)."""
    return np.asarray(a, dtype=np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)
