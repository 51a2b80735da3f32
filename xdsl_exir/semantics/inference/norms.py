"""Result types of the normalization layers."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute

from xdsl_exir.dialects.exir import (
    DType,
    TensorType,
)
from xdsl_exir.semantics.inference.core import (
    Bound,
    InferenceError,
    make_tensor,
    rule,
)
from xdsl_exir.utils.dtypes import Category
from xdsl_exir.utils.symbolic import SymSize

# ---------------------------------------------------------------------------
# Normalization layers
# ---------------------------------------------------------------------------


def _stats(x: TensorType, shape: Sequence[SymSize]) -> TensorType:
    dtype = DType.float32 if x.element_dtype in (DType.float16, DType.bfloat16) else x.element_dtype
    return make_tensor(shape, dtype, x.device.data)


@rule("aten.native_layer_norm.default")
def _native_layer_norm(b: Bound) -> list[Attribute]:
    x = b.tensor("input")
    axis = x.rank - len(b.sizes("normalized_shape"))
    if axis < 0:
        raise InferenceError("normalized_shape has more dims than the input")
    stat = [*x.sizes[:axis], *([1] * (x.rank - axis))]
    return [x, _stats(x, stat), _stats(x, stat)]


@rule("aten.layer_norm.default", "aten.batch_norm.default", "aten.group_norm.default")
def _norm_same(b: Bound) -> Attribute:
    return b.tensor("input")


def _channels(x: TensorType) -> SymSize:
    return x.sizes[1] if x.rank > 1 else x.sizes[0]


@rule(
    "aten.native_batch_norm.default", "aten._native_batch_norm_legit.default",
    "aten._native_batch_norm_legit.no_stats",
)  # fmt: skip
def _native_batch_norm(b: Bound) -> list[Attribute]:
    x = b.tensor("input")
    training = bool(b["training"])
    c: SymSize = _channels(x) if training or b.schema.name == "_native_batch_norm_legit" else 0
    return [x, _stats(x, [c]), _stats(x, [c])]


@rule("aten._native_batch_norm_legit_no_training.default")
def _bn_no_training(b: Bound) -> list[Attribute]:
    x = b.tensor("input")
    return [x, _stats(x, [0]), _stats(x, [0])]


@rule("aten.native_group_norm.default")
def _native_group_norm(b: Bound) -> list[Attribute]:
    x = b.tensor("input")
    stat = [b.size("N"), b.int("group")]
    return [x, _stats(x, stat), _stats(x, stat)]


@rule("aten.rms_norm.default")
def _rms_norm(b: Bound) -> Attribute:
    return b.tensor("input")


@rule("aten.instance_norm.default")
def _instance_norm(b: Bound) -> Attribute:
    return b.tensor("input")


@rule("aten.renorm.default")
def _renorm(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.element_dtype.category < Category.FLOATING:
        raise InferenceError("renorm expects a floating point tensor")
    return t
