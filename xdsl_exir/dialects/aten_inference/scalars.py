"""Result types of scalar and metadata queries, and FFTs."""

from __future__ import annotations

from xdsl.ir import Attribute

from xdsl_exir.dialects.aten_inference.core import (
    _COMPLEX_OF,  # pyright: ignore[reportPrivateUsage] - helpers shared by the family modules
    Bound,
    _real,  # pyright: ignore[reportPrivateUsage] - helpers shared by the family modules
    _to_float,  # pyright: ignore[reportPrivateUsage] - helpers shared by the family modules
    add,
    category,
    floordiv,
    make_tensor,
    rule,
    wrap_dim,
)
from xdsl_exir.dialects.exir import (
    SymBoolType,
    SymFloatType,
    SymIntType,
)

# ---------------------------------------------------------------------------
# Scalars and metadata queries
# ---------------------------------------------------------------------------


@rule("aten._local_scalar_dense.default")
def _local_scalar(b: Bound) -> Attribute:
    c = category(b.tensor("self").element_dtype)
    return (SymBoolType() if c == 0 else SymIntType() if c == 1 else SymFloatType())


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


@rule("aten._fft_r2c.default")
def _fft_r2c(b: Bound) -> Attribute:
    t = b.tensor("self")
    shape = list(t.sizes)
    dims = [wrap_dim(d, t.rank) for d in b.ints("dim")]
    if b["onesided"] and dims:
        shape[dims[-1]] = add(floordiv(shape[dims[-1]], 2), 1)
    return make_tensor(shape, _COMPLEX_OF[_to_float(t.element_dtype)], t.device.data)


@rule("aten._fft_c2r.default")
def _fft_c2r(b: Bound) -> Attribute:
    t = b.tensor("self")
    shape = list(t.sizes)
    dims = [wrap_dim(d, t.rank) for d in b.ints("dim")]
    shape[dims[-1]] = b.size("last_dim_size")
    return make_tensor(shape, _real(t.element_dtype), t.device.data)
