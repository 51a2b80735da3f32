"""Result types of set and counting statistics: `bincount`, `bucketize`."""

from __future__ import annotations

from xdsl.ir import Attribute

from xdsl_exir.dialects.exir import (
    DType,
)
from xdsl_exir.semantics.inference.core import (
    Bound,
    InferenceError,
    make_tensor,
    rule,
    unbacked_symbol,
)
from xdsl_exir.utils.dtypes import Category


@rule("aten.bincount.default")
def _bincount(b: Bound) -> Attribute:
    """The length is one past the largest value (data-dependent): an unbacked size, as torch's."""
    t, w = b.tensor("self"), b.opt_tensor("weights")
    if t.rank != 1 or t.element_dtype.category is not Category.INTEGRAL:
        raise InferenceError("bincount only supports 1-d non-negative integral inputs")
    dtype = DType.int64 if w is None else w.element_dtype if w.element_dtype in (DType.float32, DType.float64) else DType.float64
    return make_tensor([unbacked_symbol()], dtype, t.device.data)


@rule("aten.bucketize.Tensor", "aten.bucketize.Scalar")
def _bucketize(b: Bound) -> Attribute:
    bounds = b.tensor("boundaries")
    shape = list(b.tensor("self").sizes) if b.schema.overload_name == "Tensor" else []
    return make_tensor(shape, DType.int32 if b.get("out_int32") else DType.int64, bounds.device.data)
