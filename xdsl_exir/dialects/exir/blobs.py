"""
The data of `exir.state` weights as numpy arrays, and back.

A blob holds raw storage bytes; what they mean (dtype, sizes) is the type of
the `exir.state` holding it. In memory the bytes are a `DenseBlobAttr`; in text
they are MLIR's `dense_resource<key>`, the bytes in the file's resources
(`utils/mlir_parser.py`), and a state whose data the text left out holds a
`ResourceBlobAttr` naming the key. The byte conventions are the core's
(`utils/tensor_data.py`); this module adds what needs the dialect's attributes
and tensor type, so the core stays free of dialects.
"""

from __future__ import annotations

from typing import cast

import numpy as np
from xdsl.ir import Attribute

from xdsl_exir.dialects.exir.args import DenseBlobAttr, ResourceBlobAttr
from xdsl_exir.dialects.exir.types import TensorType
from xdsl_exir.utils.dtypes import DType
from xdsl_exir.utils.mlir_parser import BlobError, HexBlob, lookup_blob
from xdsl_exir.utils.tensor_data import TensorDataError, array_view, bytes_from_array, check_data_size

__all__ = ["array_from_blob", "blob_data", "blob_from_array", "blob_of_buffer", "is_blob"]


def blob_from_array(array: np.ndarray, dtype: DType) -> DenseBlobAttr:
    """The blob holding `array` as a `dtype` tensor (contiguous, little-endian)."""
    return DenseBlobAttr(bytes_from_array(array, dtype))


def blob_of_buffer(data: bytes | memoryview) -> DenseBlobAttr:
    """
    The blob holding `data` as it is: a `memoryview` (of a mapped archive) is
    kept, not copied, so weights cost no heap until printed, and `blob_data`
    gives the same view back.
    """
    if isinstance(data, bytes):
        return DenseBlobAttr(data)
    return DenseBlobAttr.from_hex(HexBlob.holding(data.toreadonly().cast("B")))


def is_blob(value: Attribute | None) -> bool:
    """Whether a state's value is raw tensor data, loaded or left in the resources."""
    return isinstance(value, DenseBlobAttr | ResourceBlobAttr)


def blob_data(blob: DenseBlobAttr | ResourceBlobAttr, tensor_type: TensorType | None = None) -> bytes:
    """
    The bytes of a blob; with `tensor_type`, checked to be exactly the bytes of
    that (static) tensor (`check_data_size`: no reader takes a short, long or
    splat blob). A resource whose data the text left out (printed with
    `--mlir-elide-resource-strings-if-larger`) has none: that is an error here,
    never zeros, so an elided program cannot run as if it had its weights.
    """
    if tensor_type is not None and not all(isinstance(s, int) for s in tensor_type.sizes):
        raise TensorDataError(f"state data needs static sizes, got {tensor_type}")
    if isinstance(blob, DenseBlobAttr):
        try:
            data = blob.data  # a blob read from text is decoded here, the first time
        except BlobError as e:
            raise TensorDataError(str(e)) from None
    else:
        try:
            held = lookup_blob(blob.data)
        except BlobError as e:
            raise TensorDataError(f"resource '{blob.data}': {e}") from None
        if held is None:
            raise TensorDataError(str(BlobError.elided(blob.data)))
        data = held
    if tensor_type is not None:
        check_data_size(len(data), tensor_type.element_dtype, cast(list[int], list(tensor_type.sizes)))
    return data


def array_from_blob(blob: DenseBlobAttr | ResourceBlobAttr, tensor_type: TensorType) -> np.ndarray:
    """The array a blob holds, shaped by the (static) sizes of `tensor_type`."""
    data = blob_data(blob, tensor_type)
    # A read-only view of the blob's own memory (a mapped archive's pages): states
    # are replaced, never written in place, so nothing needs a private copy.
    return array_view(data, tensor_type.element_dtype, cast(list[int], list(tensor_type.sizes)))
