"""Symbolic size queries (``sym_size``, ``sym_stride``, ``sym_numel``, ...) and
the few scalar and list operators TorchScript programs call on tensors
(``_local_scalar_dense``, ``eq.Tensor_list``, ``index.list_Tensor``, ...).

They return Python values, not arrays, because the IR types them as SymInts,
bools and ints.

Queries of dtypes and ranks a TorchScript graph can call at run time (torch.export resolves
them while tracing): `result_type`, `promote_types`, `can_cast` and `dim`, answered by the
core's dtype lattice (`utils/dtypes.py`), the one torch's promotion rules are written in.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xdsl_exir.dialects.exir import DType, MemoryFormat
from xdsl_exir.semantics.kernels.dtypes import as_memory_format, dtype_of, result_type
from xdsl_exir.semantics.kernels.registry import register, wrap_dim
from xdsl_exir.utils.dtypes import Category
from xdsl_exir.utils.dtypes import promote_types as lattice_promote


@register("aten.sym_size.int")
def _sym_size(self: np.ndarray, dim: int) -> int:
    a = np.asarray(self)
    return int(a.shape[wrap_dim(dim, a.ndim)])


@register("aten.sym_stride.int")
def _sym_stride(self: np.ndarray, dim: int) -> int:
    a = np.asarray(self)
    return int(a.strides[wrap_dim(dim, a.ndim)] // a.itemsize)


@register("aten.sym_numel.default")
def _sym_numel(self: np.ndarray) -> int:
    return int(np.size(self))


@register("aten.sym_storage_offset.default")
def _sym_storage_offset(self: np.ndarray) -> int:
    """Offset in elements from the buffer of the outermost base array."""
    a = np.asarray(self)
    base = a
    while isinstance(base.base, np.ndarray):
        base = base.base
    delta = a.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    return int(delta // a.itemsize) if a.itemsize else 0


@register("aten.sym_is_contiguous.default")
def _sym_is_contiguous(self: np.ndarray, memory_format: object = 0) -> bool:
    a = np.asarray(self)
    fmt = as_memory_format(memory_format)
    if fmt in (MemoryFormat.channels_last, MemoryFormat.channels_last_3d) and a.ndim in (4, 5):
        perm = (0, *range(2, a.ndim), 1)
        return bool(np.transpose(a, perm).flags.c_contiguous)
    return bool(a.flags.c_contiguous)


@register("aten._local_scalar_dense.default")
def _local_scalar_dense(self: np.ndarray) -> object:
    return np.asarray(self).item()


@register("aten.eq.Tensor_list")
def _eq_list(a: Sequence[np.ndarray], b: Sequence[np.ndarray]) -> bool:
    return len(a) == len(b) and all(np.shape(x) == np.shape(y) and bool(np.all(np.equal(x, y))) for x, y in zip(a, b))


@register("aten.ne.Tensor_list")
def _ne_list(a: Sequence[np.ndarray], b: Sequence[np.ndarray]) -> bool:
    return not _eq_list(a, b)


@register("aten.index.list_Tensor")
def _list_index(self: Sequence[np.ndarray], el: np.ndarray) -> int:
    for i, t in enumerate(self):
        if np.shape(t) == np.shape(el) and bool(np.all(np.equal(t, el))):
            return i
    raise ValueError("tensor not in list")


@register("aten.result_type.Tensor", "aten.result_type.Scalar", "aten.result_type.Scalar_Tensor",
          "aten.result_type.Scalar_Scalar")
def _result_type(tensor: object = None, other: object = None, scalar: object = None, scalar1: object = None,
                 scalar2: object = None) -> DType:
    """`torch.result_type`: tensors by their rank's priority, Python numbers as wrapped numbers;
    two numbers promote as the tensors they would become (an int and a float give float32)."""
    if scalar1 is not None or scalar2 is not None:
        return dtype_of(result_type(*_as_zero_dim(scalar1, scalar2)))
    operands = [v for v in (tensor, other, scalar) if v is not None]
    return dtype_of(result_type(*operands))


def _as_zero_dim(*scalars: object) -> list[object]:
    """Two Python numbers: torch wraps each in a 0-d tensor of its default dtype."""
    out: list[object] = []
    for s in scalars:
        if isinstance(s, bool):
            out.append(np.asarray(s))
        elif isinstance(s, int):
            out.append(np.asarray(s, dtype=np.int64))
        else:
            out.append(np.asarray(s, dtype=np.float32))
    return out


@register("aten.promote_types.default")
def _promote_types(type1: DType, type2: DType) -> DType:
    return lattice_promote(type1, type2)


@register("aten.can_cast.default")
def _can_cast(from_: DType, to: DType) -> bool:
    """torch's `canCast`: no complex to a real type, no float to an integer, nothing but bool to
    bool."""
    return not (
        (from_.category == Category.COMPLEX and to.category != Category.COMPLEX)
        or (from_.category == Category.FLOATING and to.category < Category.FLOATING)
        or (from_.category != Category.BOOL and to.category == Category.BOOL)
    )


@register("aten.dim.default")
def _dim(self: np.ndarray) -> int:
    return int(np.asarray(self).ndim)
