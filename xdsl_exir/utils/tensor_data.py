"""
Tensor bytes <-> numpy arrays, shared by the `.pt2` reader, the `#exir.blob`
weights of a printed module (`dialects/exir/blobs.py`) and the interpreter.
Part of the torch-free core: it knows dtypes (`utils/dtypes.py`) and bytes,
no dialect.

Archives and blobs hold raw little-endian element bytes; bfloat16 and float8
tensors are arrays of their `ml_dtypes` dtype, whose bytes are torch's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from xdsl_exir.utils.dtypes import LOW_PRECISION, DType, cast_array, is_floating
from xdsl_exir.utils.limits import check_tensor_bytes

STORAGE_DTYPES: dict[DType, np.dtype[Any]] = {
    DType.bool: np.dtype("?"),
    DType.uint8: np.dtype("<u1"),
    DType.int8: np.dtype("<i1"),
    DType.int16: np.dtype("<i2"),
    DType.int32: np.dtype("<i4"),
    DType.int64: np.dtype("<i8"),
    DType.uint16: np.dtype("<u2"),
    DType.uint32: np.dtype("<u4"),
    DType.uint64: np.dtype("<u8"),
    DType.float16: np.dtype("<f2"),
    DType.float32: np.dtype("<f4"),
    DType.float64: np.dtype("<f8"),
    DType.complex64: np.dtype("<c8"),
    DType.complex128: np.dtype("<c16"),
    **LOW_PRECISION,  # ml_dtypes: torch's bit layouts, one or two bytes (no byte order to mind in one)
}
"""How each supported torch dtype is laid out in bytes."""


class TensorDataError(ValueError):
    """Bytes that cannot back the tensor they are said to hold."""


def element_size(dtype: DType) -> int:
    """Bytes per element of `dtype` in storage."""
    return storage_dtype(dtype).itemsize


def storage_dtype(dtype: DType) -> np.dtype[Any]:
    try:
        return STORAGE_DTYPES[dtype]
    except KeyError:
        raise TensorDataError(f"tensors of dtype {dtype} cannot be loaded (no numpy representation)") from None


def _widen(raw: np.ndarray, dtype: DType) -> np.ndarray:
    """From the storage representation to the native byte order the kernels compute on."""
    if dtype in LOW_PRECISION:  # ml_dtypes types are native already (and float8_e5m2, of kind "f", has no '<f1')
        return raw
    return raw.astype(raw.dtype.newbyteorder("="), copy=False)


def array_from_bytes(
    data: bytes | memoryview,
    dtype: DType,
    sizes: Sequence[int],
    strides: Sequence[int] | None = None,
    storage_offset: int = 0,
) -> np.ndarray:
    """
    The tensor `sizes`/`strides`/`storage_offset` (in elements) views in the
    storage `data`, as a fresh contiguous array.

    Raises `TensorDataError` when the storage is too small for the view, or
    a stride or offset is negative, and `TensorSizeError` when the copy would
    exceed the tensor size limit (`utils/limits.py`).
    """
    sdt = storage_dtype(dtype)
    sizes = [int(s) for s in sizes]
    if any(s < 0 for s in sizes):
        raise TensorDataError(f"negative size in {sizes}")
    if strides is None:
        strides = contiguous_strides(sizes)
    strides = [int(s) for s in strides]
    if len(strides) != len(sizes):
        raise TensorDataError(f"{len(sizes)} sizes but {len(strides)} strides")
    if storage_offset < 0 or any(s < 0 for s in strides):
        raise TensorDataError("negative strides or storage offsets are not valid tensor views")
    n_storage = len(data) // sdt.itemsize
    if len(data) % sdt.itemsize:
        raise TensorDataError(f"storage of {len(data)} bytes is not a whole number of {dtype} elements")
    numel = math.prod(sizes)
    if numel == 0:
        return _widen(np.zeros(sizes, dtype=sdt), dtype)
    last = storage_offset + sum((n - 1) * s for n, s in zip(sizes, strides))
    if last >= n_storage:
        raise TensorDataError(
            f"a {dtype} tensor of sizes {sizes}, strides {strides} and offset {storage_offset} "
            f"needs {last + 1} elements but its storage holds {n_storage}"
        )
    # A view can repeat its storage (stride 0): the copy is what the sizes say.
    check_tensor_bytes("tensor view", sizes, sdt.itemsize)
    # ml_dtypes types are copied as same-size words (as_strided cannot describe float8_e5m2).
    word = np.dtype(f"<u{sdt.itemsize}") if dtype in LOW_PRECISION else sdt
    flat = np.frombuffer(data, dtype=word, count=n_storage)
    view = np.lib.stride_tricks.as_strided(
        flat[storage_offset:],
        shape=sizes,
        strides=[s * sdt.itemsize for s in strides],
        writeable=False,
    )
    out = _widen(np.array(view).view(sdt), dtype)
    # (np.ascontiguousarray would turn a 0-d tensor into a 1-d one)
    return out if out.flags.c_contiguous else out.copy(order="C")


def check_data_size(nbytes: int, dtype: DType, sizes: Sequence[int]) -> None:
    """
    Refuse raw data (a weight's blob, a `dense_resource`) whose byte count is
    not exactly that of the contiguous `dtype` tensor of `sizes`. A blob has no
    splat form and no padding: a short one would be read past its end or, as
    one element, broadcast into a wrong answer; a long one would hide data the
    type does not explain; MLIR's and iree-compile's readers refuse both. Every
    reader of blobs (the interpreters, the linalg lowering, the emitters) checks
    with this one function, so they refuse the same inputs in the same words.
    """
    sizes = [int(s) for s in sizes]
    if any(s < 0 for s in sizes):
        raise TensorDataError(f"negative size in {sizes}")
    expected = math.prod(sizes) * element_size(dtype)
    if nbytes != expected:
        raise TensorDataError(f"its data is {nbytes} bytes, but a {dtype} tensor of sizes {sizes} holds {expected} bytes")


def array_view(data: bytes | memoryview, dtype: DType, sizes: Sequence[int]) -> np.ndarray:
    """
    The contiguous `dtype` tensor of `sizes` that `data` holds exactly, as a
    read-only array over the same memory: no copy, so a weight mapped from an
    archive is computed on where it lies. (Storage dtypes are little-endian,
    which is native on every platform numpy and torch ship for, so `_widen`
    copies nothing here; on a big-endian host it would copy.)
    """
    sdt = storage_dtype(dtype)
    sizes = [int(s) for s in sizes]
    check_data_size(len(data), dtype, sizes)
    # ml_dtypes types are read as same-size words, then viewed (as `array_from_bytes` does).
    word = np.dtype(f"<u{sdt.itemsize}") if dtype in LOW_PRECISION else sdt
    flat = np.frombuffer(data, dtype=word).view(sdt)
    out = _widen(flat, dtype).reshape(sizes)
    out.flags.writeable = False
    return out


def contiguous_strides(sizes: Sequence[int]) -> list[int]:
    strides: list[int] = []
    acc = 1
    for n in reversed(sizes):
        strides.append(acc)
        acc *= max(int(n), 1)
    return strides[::-1]


def bytes_from_array(array: np.ndarray, dtype: DType) -> bytes:
    """The contiguous little-endian storage bytes of `array` as a `dtype` tensor."""
    sdt = storage_dtype(dtype)
    a = np.ascontiguousarray(array)
    if dtype in LOW_PRECISION and a.dtype != sdt:
        a = cast_array(a, dtype)  # e.g. float32 values for a bfloat16 tensor, rounded as torch rounds
    return a.astype(sdt, copy=False).tobytes()


_RANDOM_CHUNK = 1 << 20
"""Elements drawn at a time: the float64 draws stay small beside the array they fill."""


def random_array(rng: np.random.Generator, shape: Sequence[int], dtype: np.dtype[Any], what: str) -> np.ndarray:
    """
    Random values of `dtype` for an input named `what` (`--random-inputs`):
    normal floats (complex: real parts, then imaginary parts), fair booleans,
    integers in [0, 4). The size is checked against the tensor size limit
    first, and the array is filled in chunks, so the peak memory is the array
    itself; numpy's generators give the same values drawn whole or in chunks.
    """
    check_tensor_bytes(what, shape, dtype.itemsize)
    out = np.empty(tuple(int(s) for s in shape), dtype=dtype)
    flat = out.reshape(-1)
    parts = [np.real(flat), np.imag(flat)] if dtype.kind == "c" else [flat]  # views: written through below
    for part in parts:
        for start in range(0, flat.size, _RANDOM_CHUNK):
            n = min(_RANDOM_CHUNK, flat.size - start)
            if dtype.kind == "c" or is_floating(dtype):
                chunk = rng.standard_normal(n)
            elif dtype.kind == "b":
                chunk = rng.random(n) < 0.5
            else:
                chunk = rng.integers(0, 4, n)
            part[start : start + n] = chunk
    return out
