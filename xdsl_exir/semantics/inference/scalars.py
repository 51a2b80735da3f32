"""Result types of scalar and metadata queries."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute

from xdsl_exir.dialects.exir import (
    BoolType,
    IntType,
    SymBoolType,
    SymFloatType,
    SymIntType,
)
from xdsl_exir.semantics.inference.core import (
    RULES,
    Bound,
    rule,
    wrap_dim,
)
from xdsl_exir.utils.dtypes import Category

# ---------------------------------------------------------------------------
# Scalars and metadata queries
# ---------------------------------------------------------------------------


@rule("aten._local_scalar_dense.default")
def local_scalar_rule(b: Bound) -> Attribute:
    c = b.tensor("self").element_dtype.category
    return (SymBoolType() if c is Category.BOOL else SymIntType() if c is Category.INTEGRAL else SymFloatType())


@rule("aten.sym_size.int")
def _sym_size(b: Bound) -> Attribute:
    t = b.tensor("self")
    return SymIntType(t.sizes[wrap_dim(b.int("dim"), t.rank)])


@rule("aten.sym_stride.int")
def _sym_stride(b: Bound) -> Attribute:
    t = b.tensor("self")
    return SymIntType(t.strides()[wrap_dim(b.int("dim"), t.rank)])


@rule("aten.sym_numel.default")
def _sym_numel(b: Bound) -> Attribute:
    return SymIntType(b.tensor("self").numel())


@rule("aten.sym_storage_offset.default")
def _sym_storage_offset(b: Bound) -> Attribute:
    b.tensor("self")
    return SymIntType(0)


@rule("aten.sym_is_contiguous.default")
def _sym_is_contiguous(b: Bound) -> Attribute:
    b.tensor("self")
    return SymBoolType()


@rule("aten.item.default")
def _item(b: Bound) -> Attribute | Sequence[Attribute]:
    return RULES["aten._local_scalar_dense.default"](b)


@rule("aten.eq.Tensor_list", "aten.ne.Tensor_list")
def _list_compare(b: Bound) -> Attribute:
    return BoolType()


@rule("aten.index.list_Tensor")
def _index_list(b: Bound) -> Attribute:
    return IntType()
