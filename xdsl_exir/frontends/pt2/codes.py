"""
The codes of torch's export serialization schema (torch/_export/serde/schema.py) the importer
decodes: dtypes with their element sizes, layouts, memory formats, the types of constant graph
inputs, and the kinds of a node's arguments.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Attribute

from xdsl_exir.dialects.exir import BoolType, DType, FloatType, IntType, Layout, MemoryFormat, NoneType, StrType

POSITIONAL = 1
KEYWORD = 2

DTYPE_CODES: dict[int, DType] = {
    1: DType.uint8,
    2: DType.int8,
    3: DType.int16,
    4: DType.int32,
    5: DType.int64,
    6: DType.float16,
    7: DType.float32,
    8: DType.float64,
    9: DType.complex32,
    10: DType.complex64,
    11: DType.complex128,
    12: DType.bool,
    13: DType.bfloat16,
    28: DType.uint16,
    29: DType.float8_e4m3fn,
    30: DType.float8_e5m2,
    31: DType.float8_e4m3fnuz,
    32: DType.float8_e5m2fnuz,
    33: DType.float8_e8m0fnu,
    34: DType.uint32,
    35: DType.uint64,
}
"""torch's serialized `ScalarType` codes (torch/_export/serde/schema.py)."""

ELEMENT_BYTES: dict[DType, tuple[int, int]] = {
    DType.uint8: (1, 1),
    DType.int8: (1, 1),
    DType.int16: (2, 2),
    DType.int32: (4, 4),
    DType.int64: (8, 8),
    DType.float16: (2, 2),
    DType.float32: (4, 4),
    DType.float64: (8, 8),
    DType.complex32: (4, 2),
    DType.complex64: (8, 4),
    DType.complex128: (16, 8),
    DType.bool: (1, 1),
    DType.bfloat16: (2, 2),
    DType.uint16: (2, 2),
    DType.float8_e4m3fn: (1, 1),
    DType.float8_e5m2: (1, 1),
    DType.float8_e4m3fnuz: (1, 1),
    DType.float8_e5m2fnuz: (1, 1),
    DType.float8_e8m0fnu: (1, 1),
    DType.uint32: (4, 4),
    DType.uint64: (8, 8),
}
"""Bytes per element, and per scalar component (what a byte swap reverses)."""

CARRIERS: dict[int, DType] = {
    1: DType.uint8,
    2: DType.uint16,
    4: DType.uint32,
    8: DType.uint64,
    16: DType.complex128,
}
"""
A dtype of the same width whose numpy storage is a plain copy: elements are cut
from storage as opaque words, so bf16, float8 and complex32 need no numpy type.
"""

LAYOUT_CODES: dict[int, Layout] = {
    1: Layout.sparse_coo,
    2: Layout.sparse_csr,
    3: Layout.sparse_csc,
    4: Layout.sparse_bsr,
    5: Layout.sparse_bsc,
    6: Layout("_mkldnn"),  # by value: torch calls the layout _mkldnn, so its member name is private
    7: Layout.strided,
}

MEMORY_FORMAT_CODES: dict[int, MemoryFormat] = {
    1: MemoryFormat.contiguous_format,
    2: MemoryFormat.channels_last,
    3: MemoryFormat.channels_last_3d,
    4: MemoryFormat.preserve_format,
}

CONSTANT_TYPES: dict[str, Callable[[], Attribute]] = {
    "as_int": IntType,
    "as_float": FloatType,
    "as_bool": BoolType,
    "as_string": StrType,
    "as_none": NoneType,
}
"""Types of graph inputs that are Python constants (`constant_input` specs)."""

_HOP_PREFIX = "torch.ops.higher_order."
