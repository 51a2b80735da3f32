"""
The scalar queries: `_local_scalar_dense` (a 0-d tensor's element as a scalar) and the
symbolic size queries (`sym_size`, `sym_numel`, `sym_stride`, `sym_storage_offset`,
`sym_is_contiguous`) as `index` values; strides and offsets come from the chain of views
(`core.storage_view`). The scalar bodies of generics are in `scalar.py`, not here.
"""

from __future__ import annotations

from typing import cast

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    IndexType,
)
from xdsl.ir import SSAValue

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import DType, SymBoolType, SymFloatType, SymIntType, TensorType
from xdsl_exir.semantics.decompositions.core import is_contiguous
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.transforms.linalg_lowering import lowers
from xdsl_exir.transforms.linalg_lowering.core import storage_view
from xdsl_exir.transforms.linalg_lowering.state import (
    LoweringState,
    element_type,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    type_of as _t,
)


def _dim_value(st: LoweringState, x: SSAValue, d: int) -> SSAValue:
    size = _t(x).sizes[d]
    if isinstance(size, int):
        return st.index(size)
    return st.emit(tensor.DimOp(st.tensor(x), st.index(d)))


@lowers("aten.sym_size.int")
def _sym_size(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b.value("self")
    rank = _t(x).rank
    return [_dim_value(st, x, b.int("dim") % max(rank, 1))]


@lowers("aten.sym_numel.default")
def _sym_numel(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b.value("self")
    total = st.index(1)
    for d in range(_t(x).rank):
        total = st.emit(arith.MuliOp(total, _dim_value(st, x, d)))
    return [total]


@lowers("aten.sym_stride.int", note="strides of views the lowering does not follow refused, as for as_strided")
def _sym_stride(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """The stride torch's tensor has, from its chain of views (`storage_view`)."""
    x = b.value("self")
    _, _, strides, _ = storage_view(st, x)
    return [st.index(strides[b.int("dim") % max(_t(x).rank, 1)])]


@lowers("aten.sym_storage_offset.default", note="offsets of views the lowering does not follow refused, as for as_strided")
def _sym_storage_offset(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    _, _, _, offset = storage_view(st, b.value("self"))
    return [st.index(offset)]


@lowers("aten.sym_is_contiguous.default", note="layouts the lowering does not follow refused, as for as_strided")
def _sym_is_contiguous(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """Whether the strides torch's tensor has (`storage_view`) are dense in the memory format's dim order."""
    x = b.value("self")
    xt = _t(x)
    _, _, strides, _ = storage_view(st, x)
    fmt = str(b.get("memory_format") or "contiguous_format").rsplit(".", 1)[-1]
    orders = {"contiguous_format": list(range(xt.rank)), "channels_last": [0, 2, 3, 1], "channels_last_3d": [0, 2, 3, 4, 1]}
    order = orders.get(fmt)
    if order is None or len(order) != xt.rank:
        raise st.error(f"sym_is_contiguous: memory format {fmt} for a tensor of rank {xt.rank}")
    dense = is_contiguous([xt.sizes[d] for d in order], tuple(strides[d] for d in order))
    return [st.constant(dense, DType.bool)]


@lowers("aten._local_scalar_dense.default")
def _local_scalar_dense(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """
    `.item()`: the one element of `self` as the lowering's scalar of the
    result's kind: a SymInt is an `index`, a SymFloat an `f64`, a SymBool an `i1`.
    """
    x = b.value("self")
    xt = cast(TensorType, x.type)
    if any(s != 1 for s in xt.sizes):
        raise st.error(f"_local_scalar_dense of a tensor of sizes {list(xt.sizes)}: .item() needs exactly one element")
    value = st.emit(tensor.ExtractOp(st.tensor(x), [st.index(0)] * xt.rank, element_type(xt.element_dtype)))
    kind = op.results[0].type
    if isinstance(kind, SymFloatType):
        return [st.cast(value, xt.element_dtype, DType.float64)]
    if isinstance(kind, SymBoolType):
        return [st.cast(value, xt.element_dtype, DType.bool)]
    if not isinstance(kind, SymIntType) or xt.element_dtype.is_floating_point:
        raise st.error(f"_local_scalar_dense of {xt.element_dtype} to {kind}")
    return [st.emit(arith.IndexCastOp(st.cast(value, xt.element_dtype, DType.int64), IndexType()))]
