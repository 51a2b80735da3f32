"""Decompositions of the long tail of operators torch.export's training IR emits (torch/_refs, torch/_decomp)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation, SSAValue

from xdsl_exir.semantics.decompositions.core import (
    Emitter,
    rule,
    tensor_of,
    zero_like,
)
from xdsl_exir.semantics.inference import Bound

# -- the long tail: operators torch.export's training IR emits ---------------------
# Each follows the semantics of torch/_refs or torch/_decomp (read for semantics,
# written here in this table's terms); the interpreter runs them through the
# same rules (semantics/kernels/decomposed.py).


@rule("aten._convolution.default", "aten._convolution.deprecated")
def _convolution_full(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [
        e.v(
            "aten.convolution.default", b["input"], b["weight"], b.get("bias"), b["stride"], b["padding"],
            b["dilation"], b["transposed"], b["output_padding"], b["groups"],
        )
    ]


@rule("aten.adaptive_avg_pool3d.default")
def _adaptive_avg_pool3d(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    out = b.ints("output_size", 3)
    if out == [1, 1, 1]:
        return [e.v("aten.mean.dim", x, [-1, -2, -3], True)]
    return [e.v("aten._adaptive_avg_pool3d.default", x, out)]


@rule("aten.threshold_backward.default")
def _threshold_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`self <= threshold ? 0 : grad`, in the dtype eager gives: grad and self promoted together
    (an integer grad of a float input gives a float gradient; torch's own decomposition keeps
    the grad's dtype)."""
    grad = b.value("grad_output")
    out = tensor_of(op.results[0]).element_dtype
    if tensor_of(grad).element_dtype != out:
        grad = e.v("aten._to_copy.default", grad, dtype=out)
    mask = e.v("aten.le.Scalar", b["self"], b["threshold"])
    return [e.v("aten.where.self", mask, zero_like(e, tensor_of(grad)), grad)]


# -- pooling, spacing and special functions of the long tail ---------------------------------


@rule("aten.max_pool3d.default")
def _max_pool3d(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    new = e.call("aten.max_pool3d_with_indices.default", b["self"], b["kernel_size"], b.get("stride", []),
                 b.get("padding", 0), b.get("dilation", 1), bool(b.get("ceil_mode")))
    return [e.item(new, 0)]


# -- more of the long tail: pointwise formulas, losses, products (torch/_refs, torch/_decomp) ---


