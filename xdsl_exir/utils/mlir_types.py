"""
Torch dtypes as upstream MLIR builtin element types, and the error for what upstream MLIR
cannot express.

The linalg lowering writes these types and the upstream interpreter reads them back at a
lowered program's boundary (`interpreters/upstream/program.py`), so both ask this one
table, which sits in the core below them both.
"""

from __future__ import annotations

from xdsl.dialects.builtin import bf16, f16, f32, f64, i1, i8, i16, i32, i64
from xdsl.ir import Attribute, Operation

from xdsl_exir.utils.dtypes import DType

__all__ = ["LoweringError", "element_type"]

_ELEMENT_TYPES: dict[DType, Attribute] = {
    DType.bool: i1,
    DType.uint8: i8,
    DType.int8: i8,
    DType.int16: i16,
    DType.int32: i32,
    DType.int64: i64,
    DType.float16: f16,
    DType.bfloat16: bf16,
    DType.float32: f32,
    DType.float64: f64,
}


class LoweringError(Exception):
    """An op (or type) the lowering cannot express; names the op when known."""

    def __init__(self, message: str, op: Operation | None = None) -> None:
        super().__init__(message)
        self.op = op


def element_type(dtype: DType) -> Attribute:
    """The builtin element type of a torch dtype (uint8 is a signless i8)."""
    try:
        return _ELEMENT_TYPES[dtype]
    except KeyError:
        raise LoweringError(f"dtype {dtype} has no upstream MLIR element type here") from None
