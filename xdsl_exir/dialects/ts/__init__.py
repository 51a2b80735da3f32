"""
The `ts` dialect: TorchScript's types and program structure.

TorchScript (JIT Technical Overview) keeps a program as a Module of slots (parameters,
buffers, attributes, submodules) and Methods, each a Graph of Nodes in Blocks.
Here a Module is `ts.module`, a Method (or a free function) is `ts.method`
whose region is its graph, a slot is `ts.slot`, and a Node whose kind has no
dedicated op is `ts.node` (the universe of node kinds is open). The prim ops
with structure of their own live in the `prim` dialect (`dialects/prim.py`).

Types spell TorchScript's own: `!ts.tensor<Float(2, 3, strides=[3, 1],
requires_grad=0, device=cpu)>`, `!ts.tensor` (plain `Tensor`), `!ts.int`,
`!ts.list<!ts.tensor>`, `!ts.optional<!ts.int>`, `!ts.class<"__torch__.M">`.
`ts_type_str` / `parse_ts_type` convert to and from the spelling of graph
dumps (`Float(*, *)`, `int[]`, `(Tensor, int)`, `Tensor?`, `Dict(str, Tensor)`),
and `is_subtype` gives TorchScript's subtyping.

The dialect is a package, as xDSL keeps its large dialects: `types` (the types, their dump and
annotation spellings), `subtyping` (TorchScript's subtype relation and joins) and `ops` (the
ops, tensor constants and the `TS` dialect). This module re-exports their public names.
"""

from __future__ import annotations

from xdsl_exir.dialects.ts.ops import (
    SLOT_KINDS,
    TS,
    MethodOp,
    NodeOp,
    ScriptModuleOp,
    SlotOp,
    TensorValueAttr,
    TSCanonicalization,
)
from xdsl_exir.dialects.ts.subtyping import is_subtype, join_types, unrefined
from xdsl_exir.dialects.ts.types import (
    DTYPE_CODES,
    SCALAR_TYPE_OF,
    SCALAR_TYPES,
    TS_TYPES,
    UNKNOWN,
    TSAnyType,
    TSBoolType,
    TSClassType,
    TSComplexType,
    TSDeviceType,
    TSDictType,
    TSFloatType,
    TSFunctionType,
    TSFutureType,
    TSGeneratorType,
    TSIntType,
    TSListType,
    TSNoneType,
    TSNumberType,
    TSOpaqueType,
    TSOptionalType,
    TSStrType,
    TSTensorType,
    TSTupleType,
    TSTypeError,
    TSUnionType,
    parse_ts_type,
    parse_ts_type_prefix,
    ts_annotation_str,
    ts_type_str,
)

__all__ = [
    "DTYPE_CODES", "MethodOp", "NodeOp", "SCALAR_TYPES", "SCALAR_TYPE_OF", "SLOT_KINDS", "ScriptModuleOp",
    "SlotOp", "TS", "TSAnyType", "TSBoolType", "TSCanonicalization", "TSClassType", "TSComplexType",
    "TSDeviceType", "TSDictType", "TSFloatType", "TSFunctionType", "TSFutureType", "TSGeneratorType",
    "TSIntType", "TSListType", "TSNoneType", "TSNumberType", "TSOpaqueType", "TSOptionalType", "TSStrType",
    "TSTensorType", "TSTupleType", "TSTypeError", "TSUnionType", "TS_TYPES", "TensorValueAttr", "UNKNOWN",
    "is_subtype", "join_types", "parse_ts_type", "parse_ts_type_prefix", "ts_annotation_str", "ts_type_str",
    "unrefined",
]
