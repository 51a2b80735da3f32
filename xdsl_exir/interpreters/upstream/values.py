"""
How upstream-dialect values live in numpy, shared by every dialect's functions.

* A tensor is a numpy array. Ops never write into an array they were given
  (values are immutable, as SSA tensors are); an op that "updates" a tensor
  copies it first, so views and read-only constants may flow anywhere.
* `index` is a Python `int`; inside a `linalg.generic` body, where one
  evaluation covers a whole iteration grid, an index is an int64 array.
* Scalars of other types are numpy scalars or 0-d arrays of the element
  dtype: f16/f32/f64 as float16/float32/float64, i1 as `numpy.bool_`, and
  i8/i16/i32/i64 as *signed* numpy integers (MLIR integers are signless; the
  unsigned ops reinterpret the bits, see `to_unsigned`). Integer arithmetic
  wraps modulo 2^N, as MLIR's does.
* bf16 follows the project's convention (`utils.tensor_data`, the ATen
  kernels): a float32 array holding bf16-representable values, rounded to
  nearest-even after every op that produces bf16. This keeps the upstream
  interpreter bit-compatible with the exir interpreter without a new dtype.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, Literal, cast

import numpy as np
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import (
    BFloat16Type,
    Builtin,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ShapedType,
    TensorType,
)
from xdsl.ir import Attribute, Operation

from xdsl_exir.semantics.kernels import round_to_bfloat16
from xdsl_exir.utils.diagnostics import InterpreterError
from xdsl_exir.utils.dtypes import DType, dtype_of
from xdsl_exir.utils.limits import check_tensor_bytes
from xdsl_exir.utils.mlir_parser import BlobError, blob_bytes, lookup_blob, written_key
from xdsl_exir.utils.tensor_data import TensorDataError, check_data_size

Value = Any
"""A runtime value: `np.ndarray`, numpy scalar, or `int` for `index`."""

_INT_DTYPES: dict[int, np.dtype[Any]] = {
    8: np.dtype(np.int8),
    16: np.dtype(np.int16),
    32: np.dtype(np.int32),
    64: np.dtype(np.int64),
}
_UINT_DTYPES: dict[int, np.dtype[Any]] = {
    1: np.dtype(np.uint8),
    8: np.dtype(np.uint8),
    16: np.dtype(np.uint16),
    32: np.dtype(np.uint32),
    64: np.dtype(np.uint64),
}
_BOOL = np.dtype(np.bool_)
_INT64 = np.dtype(np.int64)


class UnsupportedTypeError(NotImplementedError):
    """An element type the numpy value model has no representation for."""


def element_type(t: Attribute) -> Attribute:
    """The element type of a shaped type, or the type itself for a scalar."""
    return cast(Any, t).get_element_type() if isinstance(t, ShapedType) else t  # ShapedType declares no element type


@dataclass(frozen=True)
class TypeInfo:
    """What the value model needs to know about a (shaped or scalar) type."""

    dtype: np.dtype[Any]
    kind: Literal["float", "bf16", "i1", "int", "index"]
    width: int
    shaped: bool


@cache
def type_info(t: Attribute) -> TypeInfo:
    """`t` described once: ops ask this on every run, so it is cached per type."""
    et = element_type(t)
    shaped = isinstance(t, ShapedType)
    match et:
        case BFloat16Type():
            return TypeInfo(np.dtype(np.float32), "bf16", 16, shaped)
        case Float16Type() | Float32Type() | Float64Type():
            dtype = {16: np.float16, 32: np.float32, 64: np.float64}[et.bitwidth]
            return TypeInfo(np.dtype(dtype), "float", et.bitwidth, shaped)
        case IndexType():
            return TypeInfo(_INT64, "index", 64, shaped)
        case IntegerType():
            width = et.width.data
            if width == 1:
                return TypeInfo(_BOOL, "i1", 1, shaped)
            if width in _INT_DTYPES:
                return TypeInfo(_INT_DTYPES[width], "int", width, shaped)
    raise UnsupportedTypeError(f"no numpy representation for element type {et}")


def numpy_dtype(t: Attribute) -> np.dtype[Any]:
    """The numpy dtype that holds values of element (or shaped) type `t`."""
    return type_info(t).dtype


def bit_width(t: Attribute) -> int:
    """Bits of an integer-like element type (index counts as 64)."""
    info = type_info(t)
    if info.kind not in ("i1", "int", "index"):
        raise UnsupportedTypeError(f"{t} is not an integer type")
    return info.width


def is_bf16(t: Attribute) -> bool:
    return type_info(t).kind == "bf16"


def is_index(t: Attribute) -> bool:
    return type_info(t).kind == "index"


def is_i1(t: Attribute) -> bool:
    return type_info(t).kind == "i1"


def finish(value: Value, t: Attribute) -> Value:
    """
    Bring a freshly computed value into the representation of type `t`:
    round bf16, hand back `index` scalars as Python ints.
    """
    info = type_info(t)
    if info.kind == "bf16":
        rounded = round_to_bfloat16(value)
        return rounded[()] if rounded.ndim == 0 else rounded
    if info.kind == "index" and not info.shaped and np.ndim(value) == 0:
        return int(value)
    return value


def wrap_int(value: Value, t: Attribute) -> Value:
    """
    Reduce an integer result modulo 2^N into the signed representation of `t`
    (i1 keeps the low bit, as a bool). `value` may be wider than `t`.
    """
    info = type_info(t)
    if info.kind == "index":
        return finish(np.asarray(value).astype(_INT64, copy=False), t)
    dtype = info.dtype
    if info.kind == "i1":
        return np.bitwise_and(np.asarray(value).astype(np.int64, copy=False), 1).astype(_BOOL)
    return np.asarray(value).astype(dtype, copy=False)[()]


def to_signed(value: Value, t: Attribute) -> Value:
    """The two's-complement value of an integer: an i1 `true` is -1."""
    if is_i1(t):
        return np.negative(np.asarray(value).astype(np.int8))
    if is_index(t):
        return np.asarray(value, dtype=_INT64)
    return value


def to_unsigned(value: Value, t: Attribute) -> np.ndarray:
    """The same bits read as an unsigned integer (for divui, shrui, cmpi ult, ...)."""
    width = bit_width(t)
    arr = np.asarray(value)
    if width == 1:
        return arr.astype(np.uint8)
    if arr.dtype == _BOOL:
        arr = arr.astype(np.uint8)
    return arr.astype(_INT_DTYPES[width], copy=False).view(_UINT_DTYPES[width])


def from_unsigned(value: Value, t: Attribute) -> Value:
    """Back from `to_unsigned`'s representation to the signed one of `t`."""
    width = bit_width(t)
    arr = np.asarray(value)
    if width == 1:
        return (np.bitwise_and(arr, 1) != 0)[()]
    out = arr.astype(_UINT_DTYPES[width], copy=False).view(_INT_DTYPES[width])
    return finish(out[()], t)


def scalar(value: int | float | bool, t: Attribute) -> Value:
    """A Python number as a scalar of element type `t`."""
    kind = type_info(t).kind
    if kind == "index":
        return int(value)
    if kind in ("i1", "int"):
        return wrap_int(int(value), t)
    return finish(numpy_dtype(t).type(value), t)


def convert_argument(value: Value, t: Attribute) -> Value:
    """A caller's argument (array, Python scalar) as a value of type `t`."""
    if isinstance(t, TensorType):
        arr = np.asarray(value)
        dtype = numpy_dtype(t)
        if arr.dtype != dtype:
            arr = arr.astype(dtype)
        shape = t.get_shape()
        if len(shape) != arr.ndim or any(s >= 0 and s != n for s, n in zip(shape, arr.shape)):
            raise ValueError(f"argument of shape {list(arr.shape)} does not match {t}")
        return finish(arr, t)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, np.generic):
        value = value.item()
    return scalar(cast(int | float | bool, value), t)


# ---------------------------------------------------------------------------
# constants
# ---------------------------------------------------------------------------


def _array_from_bytes(data: bytes, t: ShapedType) -> np.ndarray:
    """Raw little-endian element bytes as an array of shaped type `t`."""
    et = cast(Any, t).get_element_type()  # ShapedType declares no element type
    shape = tuple(t.get_shape())
    if isinstance(et, BFloat16Type):
        bits = np.frombuffer(data, dtype="<u2")
        arr = (bits.astype(np.uint32) << 16).view(np.float32)
    elif isinstance(et, IntegerType) and et.width.data == 1:
        arr = np.frombuffer(data, dtype=np.uint8) != 0
    else:
        dtype = numpy_dtype(et)
        arr = np.frombuffer(data, dtype=dtype.newbyteorder("<")).astype(dtype, copy=False)
    count = int(np.prod(shape, dtype=np.int64))
    if arr.size == 1 and count != 1:
        arr = np.broadcast_to(arr, (count,))  # a splat
    if arr.size != count:
        raise ValueError(f"constant holds {arr.size} elements, {t} needs {count}")
    return arr.reshape(shape)


def _resource_error(key: str, problem: object, op: Operation | None) -> InterpreterError:
    """
    A refusal of `dense_resource<key>`, located at `op` (the constant that reads it)
    and naming the key as the file writes it: the process-wide storage renames a
    key it already holds (`w` read twice is declared `w_0`), which the user never wrote.
    """
    return InterpreterError(f"dense_resource<{written_key(key)}>: {problem}", op)


def _check_resource_size(key: str, size: int, t: ShapedType, op: Operation | None) -> None:
    """
    A `dense_resource` blob holds every element: unlike a `dense<"0x...">`
    literal, it has no splat form (MLIR and iree-compile refuse a short one), so
    one element for many is malformed, not a splat to broadcast. Checked as every
    blob is, in torch's terms of the element type (i8 as int8, i1 as bool).
    """
    info = type_info(t)
    dtype = DType.bfloat16 if info.kind == "bf16" else dtype_of(info.dtype)
    try:
        check_data_size(size, dtype, tuple(t.get_shape()))
    except TensorDataError as e:
        raise _resource_error(key, e, op) from None


_RESOURCE_CACHE: dict[tuple[str, Attribute], tuple[str, np.ndarray]] = {}
"""Decoded `dense_resource` blobs by (key, type), with the hex they came from."""


def resource_array(attr: DenseResourceAttr, op: Operation | None = None) -> np.ndarray:
    """
    The array behind `dense_resource<key>`, read by `op` (where a refusal is
    located). Its bytes live in the builtin dialect's `OpAsmDialectInterface`
    blob storage as "0x" + hex, the first 4 bytes a little-endian alignment word
    and the rest raw element data (MLIR's blob encoding). Decoded once per key;
    re-decoded if the blob changed.
    """
    key = attr.resource_handle.data
    interface = Builtin.get_interface(OpAsmDialectInterface)
    blob = interface.lookup(key) if interface is not None else None
    if not blob:
        held = lookup_blob(key)  # weights kept by reference (a mapped archive's pages) have no hex text
        if held is None:
            raise _resource_error(key, "it has no blob in the builtin dialect's resources", op)
        _check_resource_size(key, len(held), attr.type, op)
        arr = _array_from_bytes(held, attr.type)
        arr.flags.writeable = False
        return arr
    cached = _RESOURCE_CACHE.get((key, attr.type))
    if cached is not None and (cached[0] is blob or cached[0] == blob):
        return cached[1]
    try:
        data = blob_bytes(blob)
    except BlobError as e:
        raise _resource_error(key, e, op) from None
    _check_resource_size(key, len(data), attr.type, op)
    arr = _array_from_bytes(data, attr.type)
    arr.flags.writeable = False
    _RESOURCE_CACHE[(key, attr.type)] = (blob, arr)
    return arr


def constant_value(attr: Attribute, t: Attribute, cache: dict[Attribute, Value], op: Operation | None = None) -> Value:
    """
    The value of an `arith.constant` attribute of result type `t` (of `op`, where
    a refusal is located). Tensor constants are decoded once per attribute into
    `cache` and kept read-only.
    """
    if isinstance(attr, IntegerAttr):
        return scalar(attr.value.data, t)
    if isinstance(attr, FloatAttr):
        return scalar(attr.value.data, t)
    if isinstance(attr, DenseResourceAttr):
        return resource_array(attr, op)
    hit = cache.get(attr)
    if hit is not None:
        return hit
    if isinstance(attr, DenseIntOrFPElementsAttr) and isinstance(t, ShapedType):
        arr = np.asarray(finish(_array_from_bytes(attr.data.data, t), t))
    else:
        raise NotImplementedError(f"arith.constant with value {attr} is not supported")
    arr.flags.writeable = False
    cache[attr] = arr
    return arr


def shaped_zeros(t: TensorType[Any], dynamic: list[int], what: str | None = None) -> np.ndarray:
    """
    A zero-filled tensor of type `t`, its `?` sizes taken from `dynamic` in order;
    refused (`TensorSizeError`) past `--max-tensor-bytes`, as the exir interpreter's.
    """
    it = iter(dynamic)
    shape = tuple(int(next(it)) if s < 0 else s for s in t.get_shape())
    dtype = numpy_dtype(t)
    check_tensor_bytes(what or f"a {t}", shape, dtype.itemsize)
    return np.zeros(shape, dtype=dtype)

