"""
The data of an `#exir.blob` as a numpy array, and back.

A blob holds raw storage bytes; what they mean (dtype, sizes) is the type of
the `exir.state` holding it. The byte conventions are the core's
(`utils/tensor_data.py`); this module adds what needs the dialect's attribute
and tensor type, so the core stays free of dialects.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np

from xdsl_exir.dialects.exir.args import DenseBlobAttr
from xdsl_exir.dialects.exir.types import TensorType
from xdsl_exir.utils.dtypes import DType
from xdsl_exir.utils.tensor_data import TensorDataError, array_from_bytes, bytes_from_array, storage_dtype

__all__ = ["array_from_blob", "blob_from_array"]


def blob_from_array(array: np.ndarray, dtype: DType) -> DenseBlobAttr:
    """The blob holding `array` as a `dtype` tensor (contiguous, little-endian)."""
    return DenseBlobAttr(bytes_from_array(array, dtype))


def array_from_blob(blob: DenseBlobAttr, tensor_type: TensorType) -> np.ndarray:
    """The array a blob holds, shaped by the (static) sizes of `tensor_type`."""
    if not all(isinstance(s, int) for s in tensor_type.sizes):
        raise TensorDataError(f"state data needs static sizes, got {tensor_type}")
    sizes = cast(list[int], list(tensor_type.sizes))
    sdt = storage_dtype(tensor_type.element_dtype)
    expected = math.prod(sizes) * sdt.itemsize
    if len(blob.data) != expected:
        raise TensorDataError(
            f"blob of {len(blob.data)} bytes does not hold a {tensor_type.element_dtype} tensor "
            f"of sizes {list(sizes)} ({expected} bytes)"
        )
    return array_from_bytes(blob.data, tensor_type.element_dtype, sizes)
