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


@rule("aten.nll_loss.default", "aten.nll_loss_nd.default", "aten.nll_loss2d.default", "aten.cross_entropy_loss.default")
def _nll_loss(b: Bound) -> Attribute:
    return _nll_output(b)


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
