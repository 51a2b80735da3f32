"""Result types of the normalization layers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

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


def _differ(sizes: Sequence[SymSize], want: Sequence[SymSize]) -> bool:
    """Whether two shapes are known to differ (a symbolic size may be anything)."""
    return len(sizes) != len(want) or any(
        isinstance(s, int) and isinstance(w, int) and s != w for s, w in zip(sizes, want)
    )


def _check_parameters(b: Bound, op: str, names: Sequence[str], want: Sequence[SymSize], what: str) -> None:
    """
    A normalization's weight, bias or running statistics must have the sizes torch
    requires: the kernels would broadcast one element over every channel.
    """
    for name in names:
        t = b.opt_tensor(name) if name in b else None
        if t is not None and _differ(t.sizes, want):
            raise InferenceError(f"{op}: {name} of sizes {list(t.sizes)}{what}")


def _layer_norm_axis(b: Bound) -> int:
    x = b.tensor("input")
    normalized = b.sizes("normalized_shape")
    axis = x.rank - len(normalized)
    if axis < 0:
        raise InferenceError("normalized_shape has more dims than the input")
    if _differ(x.sizes[axis:], normalized):
        raise InferenceError(
            f"layer_norm: normalized_shape {list(normalized)} is not the input's last sizes (input {list(x.sizes)})"
        )
    _check_parameters(b, "layer_norm", ("weight", "bias"), normalized, f", but normalized_shape is {list(normalized)}")
    return axis


@rule("aten.native_layer_norm.default")
def _native_layer_norm(b: Bound) -> list[Attribute]:
    x = b.tensor("input")
    axis = _layer_norm_axis(b)
    stat = [*x.sizes[:axis], *([1] * (x.rank - axis))]
    return [x, _stats(x, stat), _stats(x, stat)]


_BATCH_NORM_PARAMETERS = ("weight", "bias", "running_mean", "running_var")


@rule("aten.layer_norm.default", "aten.batch_norm.default", "aten.group_norm.default")
def _norm_same(b: Bound) -> Attribute:
    x = b.tensor("input")
    name = b.schema.name
    if name == "layer_norm":
        _layer_norm_axis(b)
    elif x.rank > 1:
        c = _channels(x)
        parameters = _BATCH_NORM_PARAMETERS if name == "batch_norm" else ("weight", "bias")
        _check_parameters(b, name, parameters, [c], f" for {c} channels")
    return x


def _channels(x: TensorType) -> SymSize:
    return x.sizes[1] if x.rank > 1 else x.sizes[0]


@rule(
    "aten.native_batch_norm.default", "aten._native_batch_norm_legit.default",
    "aten._native_batch_norm_legit.no_stats",
)  # fmt: skip
def _native_batch_norm(b: Bound) -> list[Attribute]:
    x = b.tensor("input")
    training = bool(b["training"])
    _check_parameters(b, "batch_norm", _BATCH_NORM_PARAMETERS, [_channels(x)], f" for {_channels(x)} channels")
    c: SymSize = _channels(x) if training or b.schema.name == "_native_batch_norm_legit" else 0
    return [x, _stats(x, [c]), _stats(x, [c])]


@rule("aten._native_batch_norm_legit_no_training.default")
def _bn_no_training(b: Bound) -> list[Attribute]:
    x = b.tensor("input")
    _check_parameters(b, "batch_norm", _BATCH_NORM_PARAMETERS, [_channels(x)], f" for {_channels(x)} channels")
    return [x, _stats(x, [0]), _stats(x, [0])]


@rule("aten.native_group_norm.default")
def _native_group_norm(b: Bound) -> list[Attribute]:
    x = b.tensor("input")
    _check_parameters(b, "group_norm", ("weight", "bias"), [_channels(x)], f" for {_channels(x)} channels")
    stat = [b.size("N"), b.int("group")]
    return [x, _stats(x, stat), _stats(x, stat)]


@rule("aten.rms_norm.default")
def _rms_norm(b: Bound) -> Attribute:
    return b.tensor("input")


@rule("aten.instance_norm.default")
def _instance_norm(b: Bound) -> Attribute:
    """
    torch normalizes each (batch element, channel) pair as a batch norm of `batch *
    channels` features, its parameters and statistics repeated once per batch element:
    each must have one entry per channel, and it words a mismatch in the repeated
    counts. Without `use_input_stats` the running statistics must be given.
    """
    x = b.tensor("input")
    name = "instance_norm"
    if x.rank < 2:
        raise InferenceError(f"{name}: expected an input of at least 2 dims [batch, channels, ...], got sizes {list(x.sizes)}")
    if not b.get("use_input_stats") and (b.opt_tensor("running_mean") is None or b.opt_tensor("running_var") is None):
        raise InferenceError(f"{name}: Expected running_mean and running_var to be defined when use_input_stats is false")
    batch, c = x.sizes[0], x.sizes[1]
    for pname in ("running_mean", "running_var", "weight", "bias"):
        t = b.opt_tensor(pname)
        if t is None:
            continue
        if t.rank != 1:
            raise InferenceError(f"{name}: {pname} must be 1-d with one entry per channel ({c}), got sizes {list(t.sizes)}")
        got = t.sizes[0]
        if _differ([got], [c]):
            counts = (f"should contain {batch * c} elements not {batch * cast(int, got)}"
                      if isinstance(batch, int) and isinstance(c, int) else f"should contain {c} elements per batch element")
            raise InferenceError(f"{name}: {pname} {counts} (it is repeated for each of the {batch} batch elements: "
                                 f"it needs one entry per channel, {c}, and has {got})")
    return x


@rule("aten.renorm.default")
def _renorm(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.element_dtype.category < Category.FLOATING:
        raise InferenceError("renorm expects a floating point tensor")
    return t
