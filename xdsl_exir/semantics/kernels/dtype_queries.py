"""
Queries of dtypes and ranks a TorchScript graph can call at run time (torch.export resolves
them while tracing): `result_type`, `promote_types`, `can_cast` and `dim`, answered by the
core's dtype lattice (`utils/dtypes.py`), the one torch's promotion rules are written in.
"""

from __future__ import annotations

import numpy as np

from xdsl_exir.dialects.exir import DType
from xdsl_exir.semantics.kernels.dtypes import dtype_of, result_type
from xdsl_exir.semantics.kernels.registry import register
from xdsl_exir.utils.dtypes import Category
from xdsl_exir.utils.dtypes import promote_types as lattice_promote

__all__: list[str] = []


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
