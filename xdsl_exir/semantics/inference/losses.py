"""Result types of loss functions (their gradients are in `backward`)."""

from __future__ import annotations

from xdsl.ir import Attribute

from xdsl_exir.dialects.exir import (
    DType,
    TensorType,
)
from xdsl_exir.semantics.inference.core import (
    NONE_REDUCTION,
    Bound,
    InferenceError,
    make_tensor,
    pointwise_type,
    promote_types,
    rule,
)


@rule("aten.kl_div.default")
def _kl_div(b: Bound) -> Attribute:
    shape, dtype, device = pointwise_type(b, ("self", "target"))
    return make_tensor(shape if b.int("reduction") == NONE_REDUCTION else [], dtype, device)


def _check_target(t: TensorType, target: TensorType, name: str) -> None:
    """
    torch compares the target's batch size (past 2-d, its other sizes too) with the
    input's, and wants a 1-d input's target 0-d or of size 1. The decomposition
    gathers the target's classes along the class dim, which would take a smaller
    target's rows from the first ones (a silent wrong answer) or refuse a larger
    one in gather's words. A symbolic size may be anything: only known ones differ.
    """
    def differ(a: object, c: object) -> bool:
        return isinstance(a, int) and isinstance(c, int) and a != c

    if t.rank == 1:
        if target.rank == 1 and differ(target.sizes[0], 1):
            raise InferenceError(f"{name}: for 1D input, 1D target must have size 1, but got target size: {target.sizes[0]}")
        return
    if t.rank >= 2 and target.rank >= 1 and differ(t.sizes[0], target.sizes[0]):
        raise InferenceError(f"{name}: expected input batch_size ({t.sizes[0]}) to match target batch_size ({target.sizes[0]})")
    # class probabilities (a float target, cross_entropy) have the input's sizes; class indices lack dim 1
    want = list(t.sizes) if target.element_dtype.is_floating_point else [t.sizes[0], *t.sizes[2:]]
    if t.rank >= 2 and (target.rank != len(want) or any(differ(a, c) for a, c in zip(target.sizes, want))):
        raise InferenceError(f"{name}: expected target size {want}, got {list(target.sizes)}")


def _nll_output(b: Bound) -> TensorType:
    t, target = b.tensor("self"), b.tensor("target")
    _check_target(t, target, b.schema.name)
    shape = list(target.sizes) if b.int("reduction") == NONE_REDUCTION and t.rank > 1 else []
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.nll_loss_forward.default", "aten.nll_loss2d_forward.default")
def _nll_loss_forward(b: Bound) -> list[Attribute]:
    t = b.tensor("self")
    return [_nll_output(b), make_tensor([], t.element_dtype, t.device.data)]


@rule("aten.nll_loss.default", "aten.nll_loss_nd.default", "aten.nll_loss2d.default")
def _nll_loss(b: Bound) -> Attribute:
    return _nll_output(b)


@rule("aten.cross_entropy_loss.default")
def _cross_entropy(b: Bound) -> Attribute:
    """
    Integer targets are class indices, as for `nll_loss`; a floating-point target
    gives each class's probability, has the input's sizes and takes no
    `ignore_index`, a `weight` has one entry per class, and the loss has the
    promoted dtype of input and target (torch's `cross_entropy_loss_prob_target`).
    A label smoothing above 1 is refused, as torch does; one below 0 smooths nothing.
    """
    t, target = b.tensor("self"), b.tensor("target")
    name = "cross_entropy_loss"
    smoothing = b.get("label_smoothing")
    if isinstance(smoothing, (int, float)) and smoothing > 1:
        raise InferenceError(f"{name}: label_smoothing must be between 0.0 and 1.0. Got: {float(smoothing)}")
    same = target.rank == t.rank and all(isinstance(a, int) and a == c for a, c in zip(target.sizes, t.sizes))
    if not target.element_dtype.is_floating_point:
        if same:
            raise InferenceError(f"{name}: Expected floating point type for target with class probabilities, "
                                 f"got {target.element_dtype}")
        return _nll_output(b)
    if target.rank != t.rank or any(isinstance(a, int) and isinstance(c, int) and a != c for a, c in zip(target.sizes, t.sizes)):
        raise InferenceError(f"{name}: a floating-point target holds class probabilities and must have the input's "
                             f"sizes {list(t.sizes)}, got {list(target.sizes)} (class indices are integers)")
    ignore = b.get("ignore_index")
    if isinstance(ignore, int) and ignore >= 0:
        raise InferenceError(f"{name}: ignore_index is not supported for floating point target")
    class_dim = 1 if t.rank >= 2 else 0
    n = t.sizes[class_dim] if t.rank else 1
    w = b.opt_tensor("weight")
    if w is not None and (w.rank != 1 or (isinstance(w.sizes[0], int) and isinstance(n, int) and w.sizes[0] != n)):
        raise InferenceError(f"{name}: weight tensor should be defined either for all {n} classes or no classes but "
                             f"got weight tensor of shape: {list(w.sizes)}")
    keep = b.int("reduction") == NONE_REDUCTION
    shape = [s for d, s in enumerate(t.sizes) if d != class_dim] if keep else []
    return make_tensor(shape, promote_types(t.element_dtype, target.element_dtype), t.device.data)


@rule("aten.mse_loss.default", "aten.l1_loss.default", "aten.smooth_l1_loss.default", "aten.huber_loss.default",
      "aten.binary_cross_entropy.default", "aten.binary_cross_entropy_with_logits.default")  # fmt: skip
def _pointwise_loss(b: Bound) -> Attribute:
    shape, dtype, device = pointwise_type(b, ("self", "target"))
    return make_tensor(shape if b.int("reduction") == NONE_REDUCTION else [], dtype, device)


@rule("aten.margin_ranking_loss.default", "aten.hinge_embedding_loss.default", "aten.soft_margin_loss.default",
      "aten.poisson_nll_loss.default")
def _more_losses(b: Bound) -> Attribute:
    names = [n for n in ("input1", "input2", "input", "self", "target") if n in b]
    shape, dtype, device = pointwise_type(b, names)
    if not dtype.is_floating_point and b.schema.name in ("margin_ranking_loss", "poisson_nll_loss"):
        dtype = DType.float32  # torch computes these through float ops (clamp_min of a difference, exp or log)
    return make_tensor(shape if b.int("reduction") == NONE_REDUCTION else [], dtype, device)
