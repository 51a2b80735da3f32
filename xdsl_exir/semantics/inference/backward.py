"""Result types of gradient operators (`*_backward`, `_softmax_backward_data`)."""

from __future__ import annotations

from xdsl.ir import Attribute, SSAValue

from xdsl_exir.semantics.inference.core import (
    Bound,
    as_size,
    make_tensor,
    pointwise_type,
    rule,
)

# -- gradients (decompositions in semantics/decompositions/backward.py) ----------------------


@rule("aten.select_backward.default", "aten.slice_backward.default", "aten.index_select_backward.default",
      "aten.trace_backward.default")
def _view_backward(b: Bound) -> Attribute:
    """The gradient has the shape of the viewed tensor (`input_sizes`) and the gradient's dtype."""
    g = b.tensor("grad_output" if "grad_output" in b else "grad")
    name = next(n for n in ("input_sizes", "self_sizes", "sizes") if n in b)
    return make_tensor(b.sizes(name), g.element_dtype, g.device.data)


@rule("aten.gather_backward.default")
def _gather_backward(b: Bound) -> Attribute:
    g, x = b.tensor("grad"), b.tensor("self")
    return make_tensor(x.sizes, g.element_dtype, g.device.data)


@rule("aten.embedding_backward.default")
def _embedding_backward_any(b: Bound) -> Attribute:
    g = b.tensor("grad")
    return make_tensor([as_size(b["num_weights"], "num_weights"), g.sizes[-1]], g.element_dtype, g.device.data)


@rule("aten.smooth_l1_loss_backward.default", "aten.huber_loss_backward.default",
      "aten.binary_cross_entropy_backward.default", "aten.rrelu_with_noise_backward.default")
def _loss_backward(b: Bound) -> Attribute:
    names = [n for n in ("grad_output", "self", "target", "weight", "noise") if isinstance(b.get(n), SSAValue)]
    shape, dtype, device = pointwise_type(b, names)
    return make_tensor(shape, dtype, device)


@rule("aten.glu_backward.default")
def _glu_backward(b: Bound) -> Attribute:
    return b.tensor("self")


@rule("aten.threshold_backward.default")
def _threshold_backward(b: Bound) -> Attribute:
    """Eager's TensorIterator promotes the gradient with `self` (int64 grad, float32 self: float32)."""
    return make_tensor(*pointwise_type(b, ("grad_output", "self")))


@rule("aten.nll_loss_backward.default", "aten.nll_loss2d_backward.default")
def _nll_loss_backward(b: Bound) -> Attribute:
    return b.tensor("self")


@rule(
    "aten.sigmoid_backward.default", "aten.tanh_backward.default", "aten.silu_backward.default",
    "aten.gelu_backward.default", "aten.hardswish_backward.default", "aten.hardsigmoid_backward.default",
    "aten.hardtanh_backward.default", "aten.leaky_relu_backward.default", "aten.softplus_backward.default",
    "aten.elu_backward.default", "aten.mish_backward.default", "aten.hardshrink_backward.default",
    "aten.softshrink_backward.default", "aten.log_sigmoid_backward.default", "aten.logit_backward.default",
    "aten.mse_loss_backward.default", "aten.native_dropout_backward.default",
)  # fmt: skip
def _pointwise_backward(b: Bound) -> Attribute:
    """The gradient of a pointwise activation or loss: the broadcast of the gradient and the saved tensor."""
    names = [a.name for a in b.schema.arguments if a.name in _BACKWARD_TENSORS]
    shape, dtype, device = pointwise_type(b, names)
    return make_tensor(shape, dtype, device)


_BACKWARD_TENSORS = frozenset({"grad_output", "grad_out", "self", "output", "self_or_result", "target", "buffer"})


@rule("aten._softmax_backward_data.default", "aten._log_softmax_backward_data.default")
def _softmax_backward_data(b: Bound) -> Attribute:
    t = b.tensor("grad_output")
    return make_tensor(t.sizes, b.dtype("input_dtype") or t.element_dtype, t.device.data)


@rule("aten.embedding_dense_backward.default")
def _embedding_backward(b: Bound) -> Attribute:
    g = b.tensor("grad_output")
    return make_tensor([b.size("num_weights"), g.sizes[-1]], g.element_dtype, g.device.data)


@rule("aten.native_layer_norm_backward.default")
def _layer_norm_backward(b: Bound) -> list[Attribute]:
    x = b.tensor("input")
    ns = b.sizes("normalized_shape")
    w, bias = b.opt_tensor("weight"), b.opt_tensor("bias")
    return [x, w or make_tensor(ns, x.element_dtype, x.device.data),
            bias or make_tensor(ns, x.element_dtype, x.device.data)]  # fmt: skip


@rule("aten.native_group_norm_backward.default")
def _group_norm_backward(b: Bound) -> list[Attribute]:
    x = b.tensor("input")
    c = make_tensor([b.size("C")], x.element_dtype, x.device.data)
    return [x, c, c]


@rule("aten.convolution_backward.default")
def _conv_backward(b: Bound) -> list[Attribute]:
    x, w = b.tensor("input"), b.tensor("weight")
    bias_sizes = b.get("bias_sizes")
    nb = b.sizes("bias_sizes") if bias_sizes is not None else [w.sizes[0]]
    return [x, w, make_tensor(nb, w.element_dtype, w.device.data)]


@rule(
    "aten.avg_pool2d_backward.default", "aten.max_pool2d_with_indices_backward.default",
    "aten._adaptive_avg_pool2d_backward.default",
)  # fmt: skip
def _grad_input(b: Bound) -> Attribute:
    """Pooling backward: the gradient has the forward input's type."""
    return b.tensor("self")
