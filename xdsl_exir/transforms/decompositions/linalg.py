"""Decompositions of the linear-algebra family and the fused forms torch's passes emit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.aten_inference import Bound
from xdsl_exir.dialects.exir import (
    MemoryFormat,
    TensorType,
)
from xdsl_exir.transforms.decompositions.core import Decline, Emitter, Strides, _eq, _norm, _prod, _tensor, rule  # pyright: ignore[reportPrivateUsage] - helpers shared by the family modules
from xdsl_exir.utils.symbolic import SymSize

# -- linear algebra --------------------------------------------------------------


@rule("aten.linear.default")
def _linear(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """
    ATen's `linear`: `addmm(bias, x, w.permute(1, 0))` for a 2-d input, or a
    contiguous n-d one viewed to 2-d and back; otherwise `matmul(x, w.t())`
    then `add` of the bias (a transposed input, as in `nn.MultiheadAttention`).
    """
    x, w, bias = cast(SSAValue, b["input"]), cast(SSAValue, b["weight"]), b.get("bias")
    t, wt = _tensor(x), _tensor(w)
    if wt.rank != 2 or t.rank == 0:
        raise Decline()
    if t.rank != 2 and (bias is None or not e.layouts.is_contiguous(x)):
        out = e.v("aten.matmul.default", x, e.v("aten.permute.default", w, [1, 0]))
        return [out if bias is None else e.v("aten.add.Tensor", out, bias)]
    lead = list(t.sizes[:-1])
    x2 = x if t.rank == 2 else e.reshape(x, [_prod(lead), t.sizes[-1]])
    w_t = e.v("aten.permute.default", w, [1, 0])
    if bias is not None:
        out = e.v("aten.addmm.default", bias, x2, w_t)
    else:
        out = e.v("aten.mm.default", x2, w_t)
    if t.rank != 2:
        out = e.v("aten.view.default", out, e.sizes([*lead, wt.sizes[0]]))
    return [out]


@rule("aten.matmul.default")
def _matmul(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """ATen's `_matmul_impl`: `mm`, folded `mm` for (n-d, 2-d), else broadcast `bmm`."""
    a, c = cast(SSAValue, b["self"]), cast(SSAValue, b["other"])
    ta, tc = _tensor(a), _tensor(c)
    da, dc = ta.rank, tc.rank
    if da < 2 or dc < 2:
        raise Decline()  # vector cases (dot, mv) are left to torch's own ops
    if da == 2 and dc == 2:
        return [e.v("aten.mm.default", a, c)]
    if da >= 3 and dc == 2 and _should_fold(ta, e.layouts.strides(a)):
        lead = list(ta.sizes[:-1])
        a2 = e.reshape(a, [_prod(lead), ta.sizes[-1]])
        out = e.v("aten.mm.default", a2, c)
        return [e.v("aten.view.default", out, e.sizes([*lead, tc.sizes[-1]]))]
    batch_a, batch_c = list(ta.sizes[:-2]), list(tc.sizes[:-2])
    batch = _broadcast(batch_a, batch_c)
    n, m, p = ta.sizes[-2], ta.sizes[-1], tc.sizes[-1]
    bsz = _prod(batch)
    ea = e.v("aten.expand.default", a, e.sizes([*batch, n, m]))
    ea = e.reshape(ea, [bsz, n, m])
    ec = e.v("aten.expand.default", c, e.sizes([*batch, m, p]))
    ec = e.reshape(ec, [bsz, m, p])
    out = e.v("aten.bmm.default", ea, ec)
    return [e.v("aten.view.default", out, e.sizes([*batch, n, p]))]


def _should_fold(t: TensorType, strides: Strides) -> bool:
    """
    ATen's `should_fold` for an n-d left operand (no gradient is taken here):
    fold to one `mm` when `view(-1, k)` needs no copy.
    """
    if any(_eq(s, 0) for s in t.sizes):
        return True
    sizes = t.sizes
    return all(_eq(strides[i], _norm(strides[i + 1] * sizes[i + 1])) for i in range(len(sizes) - 2))


def _broadcast(x: list[SymSize], y: list[SymSize]) -> list[SymSize]:
    n = max(len(x), len(y))
    x = [1] * (n - len(x)) + x
    y = [1] * (n - len(y)) + y
    return [b if _eq(a, 1) else a for a, b in zip(x, y)]


@rule("aten.baddbmm.default")
def _baddbmm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch's decomposition: `beta * self + alpha * bmm(batch1, batch2)`."""
    out = e.v("aten.bmm.default", b["batch1"], b["batch2"])
    if b["alpha"] != 1:
        out = e.v("aten.mul.Tensor", out, b["alpha"])
    s = b["self"]
    if b["beta"] == 0:
        return [out]
    if b["beta"] != 1:
        s = e.v("aten.mul.Tensor", s, b["beta"])
    return [e.v("aten.add.Tensor", s, out)]


# -- fused forms torch's passes emit ---------------------------------------------------------


@rule("aten._safe_softmax.default")
def _safe_softmax(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """softmax, with zeros (not NaN) in slices that are all -inf."""
    x = cast(SSAValue, b["self"])
    dtype = b.dtype("dtype")
    if dtype is not None and dtype != _tensor(x).element_dtype:
        x = e.v("aten._to_copy.default", x, dtype=dtype)
    d = b.int("dim")
    attn = e.v("aten._softmax.default", x, d, False)
    live = e.v("aten.any.dim", e.v("aten.logical_not.default", e.v("aten.eq.Scalar", x, float("-inf"))), d, True)
    zeros = e.v("aten.full_like.default", attn, 0, pin_memory=False, memory_format=MemoryFormat.preserve_format)
    return [e.v("aten.where.self", e.v("aten.logical_not.default", live), zeros, attn)]


@rule("aten._add_relu.Tensor")
def _add_relu(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    alpha = b.get("alpha", 1)
    s = e.v("aten.add.Tensor", b["self"], b["other"], alpha=alpha) if alpha != 1 else e.v(
        "aten.add.Tensor", b["self"], b["other"])
    return [e.v("aten.relu.default", s)]


@rule("aten._addmm_activation.default")
def _addmm_activation(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    out = e.v("aten.addmm.default", b["self"], b["mat1"], b["mat2"], beta=b.get("beta", 1), alpha=b.get("alpha", 1))
    return [e.v("aten.gelu.default", out) if b.get("use_gelu") else e.v("aten.relu.default", out)]
