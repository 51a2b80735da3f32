"""Result types of pointwise ops: unary, binary with broadcasting and promotion, comparisons, masked fills."""

from __future__ import annotations

from xdsl.ir import Attribute

from xdsl_exir.dialects.exir import (
    DType,
    TensorType,
)
from xdsl_exir.semantics.inference.core import (
    Bound,
    InferenceError,
    Rule,
    floordiv,
    make_tensor,
    numel_of,
    pointwise_type,
    rule,
    same_as_self,
    wrap_dim,
)

# ---------------------------------------------------------------------------
# Pointwise
# ---------------------------------------------------------------------------


_UNARY_SAME = (
    "aten.neg.default", "aten.ceil.default", "aten.floor.default",
    "aten.round.default", "aten.round.decimals", "aten.trunc.default", "aten.sign.default",
    "aten.relu.default", "aten.relu6.default", "aten.hardtanh.default", "aten.leaky_relu.default",
    "aten.elu.default", "aten.gelu.default", "aten.silu.default", "aten.mish.default",
    "aten.hardswish.default", "aten.hardsigmoid.default", "aten.softplus.default", "aten.bitwise_not.default",
    "aten.tril.default", "aten.triu.default", "aten.nan_to_num.default",
)  # fmt: skip
_UNARY_FLOAT = (
    "aten.acos.default", "aten.acosh.default", "aten.asin.default", "aten.asinh.default",
    "aten.atan.default", "aten.atanh.default", "aten.cos.default", "aten.cosh.default", "aten.erf.default",
    "aten.exp.default", "aten.expm1.default", "aten.log.default", "aten.log10.default",
    "aten.log1p.default", "aten.log2.default", "aten.reciprocal.default", "aten.rsqrt.default",
    "aten.sigmoid.default", "aten.sin.default", "aten.sinh.default", "aten.sqrt.default",
    "aten.tan.default", "aten.tanh.default",
)  # fmt: skip


rule(*_UNARY_SAME)(same_as_self)


@rule(*_UNARY_FLOAT)
def _unary_float(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, t.element_dtype.to_floating(), t.device.data)


@rule("aten.isnan.default", "aten.isinf.default", "aten.logical_not.default")
def _unary_bool(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, DType.bool, t.device.data)


_BINARY = {
    "aten.add.Scalar": ("self", "other"),
    "aten.add.Tensor": ("self", "other"),
    "aten.sub.Scalar": ("self", "other"),
    "aten.sub.Tensor": ("self", "other"),
    "aten.mul.Scalar": ("self", "other"),
    "aten.mul.Tensor": ("self", "other"),
    "aten.rsub.Scalar": ("self", "other"),
    "aten.rsub.Tensor": ("self", "other"),
    "aten.maximum.default": ("self", "other"),
    "aten.minimum.default": ("self", "other"),
    "aten.max.other": ("self", "other"),
    "aten.min.other": ("self", "other"),
    "aten.remainder.Scalar": ("self", "other"),
    "aten.remainder.Scalar_Tensor": ("self", "other"),
    "aten.remainder.Tensor": ("self", "other"),
    "aten.fmod.Scalar": ("self", "other"),
    "aten.fmod.Tensor": ("self", "other"),
    "aten.bitwise_and.Scalar": ("self", "other"),
    "aten.bitwise_and.Scalar_Tensor": ("self", "other"),
    "aten.bitwise_and.Tensor": ("self", "other"),
    "aten.bitwise_or.Scalar": ("self", "other"),
    "aten.bitwise_or.Scalar_Tensor": ("self", "other"),
    "aten.bitwise_or.Tensor": ("self", "other"),
    "aten.bitwise_xor.Scalar": ("self", "other"),
    "aten.bitwise_xor.Scalar_Tensor": ("self", "other"),
    "aten.bitwise_xor.Tensor": ("self", "other"),
    "aten.pow.Tensor_Scalar": ("self", "exponent"),
    "aten.pow.Tensor_Tensor": ("self", "exponent"),
    "aten.pow.Scalar": ("self", "exponent"),
    "aten.clamp.default": ("self", "min", "max"),
    "aten.clamp.Tensor": ("self", "min", "max"),
    "aten.clamp_min.default": ("self", "min"),
    "aten.clamp_min.Tensor": ("self", "min"),
    "aten.clamp_max.default": ("self", "max"),
    "aten.clamp_max.Tensor": ("self", "max"),
    "aten.where.self": ("condition", "self", "other"),
    "aten.where.ScalarOther": ("condition", "self", "other"),
    "aten.where.ScalarSelf": ("condition", "self", "other"),
    "aten.where.Scalar": ("condition", "self", "other"),
    "aten.lerp.Scalar": ("self", "end", "weight"),
    "aten.lerp.Tensor": ("self", "end", "weight"),
    "aten.addcmul.default": ("self", "tensor1", "tensor2"),
    "aten.__and__.Scalar": ("self", "other"),
    "aten.__and__.Tensor": ("self", "other"),
    "aten.__or__.Scalar": ("self", "other"),
    "aten.__or__.Tensor": ("self", "other"),
    "aten.__xor__.Scalar": ("self", "other"),
    "aten.__xor__.Tensor": ("self", "other"),
    "aten.__lshift__.Scalar": ("self", "other"),
    "aten.__lshift__.Tensor": ("self", "other"),
    "aten.__rshift__.Scalar": ("self", "other"),
    "aten.__rshift__.Tensor": ("self", "other"),
    "aten.bitwise_left_shift.Scalar_Tensor": ("self", "other"),
    "aten.bitwise_left_shift.Tensor": ("self", "other"),
    "aten.bitwise_left_shift.Tensor_Scalar": ("self", "other"),
    "aten.bitwise_right_shift.Scalar_Tensor": ("self", "other"),
    "aten.bitwise_right_shift.Tensor": ("self", "other"),
    "aten.bitwise_right_shift.Tensor_Scalar": ("self", "other"),
    "aten.floor_divide.default": ("self", "other"),
    "aten.floor_divide.Scalar": ("self", "other"),
}  # fmt: skip


def _binary_rule(names: tuple[str, ...]) -> Rule:
    def infer(b: Bound) -> Attribute:
        promote = [n for n in names if n != "condition"]
        shape, dtype, device = pointwise_type(b, names, promote)
        return make_tensor(shape, dtype, device)

    return infer


for _name, _names in _BINARY.items():
    rule(_name)(_binary_rule(_names))


@rule(
    "aten.div.Scalar", "aten.div.Scalar_mode", "aten.div.Tensor", "aten.div.Tensor_mode",
    "aten.atan2.default", "aten.addcdiv.default",
)  # fmt: skip
def _true_divide(b: Bound) -> Attribute:
    names = {"div": ("self", "other"), "atan2": ("self", "other")}.get(
        b.schema.name.rstrip("_"), ("self", "tensor1", "tensor2")
    )
    shape, dtype, device = pointwise_type(b, names)
    if b.get("rounding_mode") is None:
        dtype = dtype.to_floating()
    return make_tensor(shape, dtype, device)


@rule(
    "aten.eq.Scalar", "aten.eq.Tensor", "aten.ne.Scalar", "aten.ne.Tensor", "aten.lt.Scalar",
    "aten.lt.Tensor", "aten.le.Scalar", "aten.le.Tensor", "aten.gt.Scalar", "aten.gt.Tensor",
    "aten.ge.Scalar", "aten.ge.Tensor", "aten.logical_and.default", "aten.logical_or.default",
    "aten.logical_xor.default",
)  # fmt: skip
def _compare(b: Bound) -> Attribute:
    shape, _, device = pointwise_type(b, ("self", "other"))
    return make_tensor(shape, DType.bool, device)


@rule("aten.masked_fill.Scalar", "aten.masked_fill.Tensor")
def _masked_fill(b: Bound) -> Attribute:
    t = b.tensor("self")
    shape, _, device = pointwise_type(b, ("self", "mask"), ("self",))
    return make_tensor(shape, t.element_dtype, device)


@rule("aten.exp2.default")
def _exp2(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, t.element_dtype.to_floating(), t.device.data)


@rule("aten.xlogy.Tensor", "aten.xlogy.Scalar_Self", "aten.xlogy.Scalar_Other")
def _xlogy(b: Bound) -> Attribute:
    shape, dtype, device = pointwise_type(b, ("self", "other"))
    return make_tensor(shape, dtype.to_floating(), device)


@rule("aten.fmax.default", "aten.fmin.default")
def _fmax_fmin(b: Bound) -> Attribute:
    shape, dtype, device = pointwise_type(b, ("self", "other"))
    return make_tensor(shape, dtype, device)


@rule(
    "aten.square.default", "aten.threshold.default", "aten.glu.default", "aten.celu.default",
    "aten.selu.default", "aten.prelu.default", "aten.hardshrink.default", "aten.softshrink.default",
    "aten.frac.default", "aten.positive.default", "aten.log_sigmoid.default",
)  # fmt: skip
def _unary_like_self(b: Bound) -> Attribute:
    t = b.tensor("self")
    if b.schema.name == "glu":
        d = wrap_dim(b.int("dim"), t.rank)
        sizes = list(t.sizes)
        sizes[d] = floordiv(sizes[d], 2)
        return make_tensor(sizes, t.element_dtype, t.device.data)
    if b.schema.name == "square" and t.element_dtype == DType.bool:
        return make_tensor(t.sizes, DType.int64, t.device.data)
    if b.schema.name == "prelu":
        _check_prelu_weight(t, b.tensor("weight"))
    return t


def _check_prelu_weight(t: TensorType, w: TensorType) -> None:
    """
    torch's `prelu` takes one slope, or one per channel (dim 1; a 1-d input has one
    channel), of the input's dtype, as a scalar or a 1-d tensor; the decomposition would
    broadcast another weight against the input or refuse in broadcasting's words.
    """
    if w.element_dtype != t.element_dtype:
        raise InferenceError(f"prelu: Type promoting not supported. Got {t.element_dtype} and {w.element_dtype}")
    n = numel_of(w.sizes)
    if not (isinstance(n, int) and n == 1):
        if t.rank == 0:
            raise InferenceError("prelu: Not allow zero-dim input tensor.")
        channels = t.sizes[1] if t.rank > 1 else 1
        if isinstance(n, int) and isinstance(channels, int) and n != channels:
            raise InferenceError(f"prelu: Mismatch of parameter numbers and input channel size. Found parameter "
                                 f"numbers = {n} and channel size = {channels}.")
    if w.rank > 1:
        raise InferenceError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {w.rank}")


@rule("aten.sinc.default", "aten.logit.default", "aten.rad2deg.default", "aten.deg2rad.default")
def _float_unary(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, t.element_dtype.to_floating(), t.device.data)


@rule("aten.isfinite.default", "aten.isposinf.default", "aten.isneginf.default")
def _bool_unary(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, DType.bool, t.device.data)


@rule("aten.logaddexp.default", "aten.hypot.default", "aten.heaviside.default")
def _promoted_binary(b: Bound) -> Attribute:
    names = ("self", "values") if b.schema.name == "heaviside" else ("self", "other")
    shape, dtype, device = pointwise_type(b, names)
    return make_tensor(shape, dtype, device)


@rule("aten._add_relu.Tensor")
def _add_relu(b: Bound) -> Attribute:
    shape, dtype, device = pointwise_type(b, ("self", "other"))
    return make_tensor(shape, dtype, device)


@rule("aten.isclose.default")
def _isclose(b: Bound) -> Attribute:
    shape, _, device = pointwise_type(b, ("self", "other"))
    return make_tensor(shape, DType.bool, device)


@rule("aten.abs.default")
def _abs(b: Bound) -> Attribute:
    """The magnitude of a complex tensor is real (complex64 -> float32); other dtypes stay."""
    t = b.tensor("self")
    return make_tensor(t.sizes, t.element_dtype.to_real(), t.device.data) if t.element_dtype.is_complex else t
