"""Decompositions of activations (torch/_decomp)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.exir import (
    DType,
    MemoryFormat,
)
from xdsl_exir.semantics.decompositions.core import Decline, Emitter, rule, tensor_of
from xdsl_exir.semantics.inference import Bound

# -- activations (torch/_decomp) ----------------------------------------------------


@rule("aten.silu.default")
def _silu(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b["self"]
    return [e.v("aten.mul.Tensor", x, e.v("aten.sigmoid.default", x))]


@rule("aten.hardsigmoid.default")
def _hardsigmoid(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = e.v("aten.add.Tensor", b["self"], 3)
    x = e.v("aten.clamp.default", x, 0, 6)
    return [e.v("aten.div.Tensor", x, 6)]


@rule("aten.hardswish.default")
def _hardswish(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b["self"]
    y = e.v("aten.add.Tensor", x, 3)
    y = e.v("aten.clamp.default", y, 0, 6)
    y = e.v("aten.mul.Tensor", x, y)
    return [e.v("aten.div.Tensor", y, 6)]


@rule("aten.relu6.default")
def _relu6(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`hardtanh(x, 0, 6)`, the bounds integers on an integer tensor (no float promotion)."""
    x = b.value("self")
    lo, hi = (0.0, 6.0) if tensor_of(x).element_dtype.is_floating_point else (0, 6)
    return [e.v("aten.hardtanh.default", x, lo, hi)]


@rule("aten.scaled_dot_product_attention.default")
def _sdpa(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """ATen's math path of `scaled_dot_product_attention` (no dropout): q and k^T each
    scaled by sqrt(scale), `matmul`, the mask added, and `_safe_softmax` (rows whose
    scores are all -inf give zeros, not NaN). Grouped-query attention (`enable_gqa`)
    repeats each key/value head for its query heads, as that path does; float16 and
    bfloat16 are computed in float32 and rounded once, as torch's own decomposition."""
    if b.get("dropout_p"):
        raise Decline()
    q, k, v = (cast(SSAValue, b[n]) for n in ("query", "key", "value"))
    tq, tk = tensor_of(q), tensor_of(k)
    e_dim = tq.sizes[-1]
    if not isinstance(e_dim, int):
        raise Decline()
    if b.get("enable_gqa") and tq.rank >= 3 and tq.sizes[-3] != tk.sizes[-3]:
        hq, hk = tq.sizes[-3], tk.sizes[-3]
        if not isinstance(hq, int) or not isinstance(hk, int) or hk == 0 or hq % hk:
            raise Decline()
        k = e.v("aten.repeat_interleave.self_int", k, hq // hk, -3)
        v = e.v("aten.repeat_interleave.self_int", v, hq // hk, -3)
    dtype = tq.element_dtype
    wide = dtype.opmath()
    if wide != dtype:
        q, k, v = (e.v("aten._to_copy.default", x, dtype=wide) for x in (q, k, v))
    scale = b.get("scale")
    scale = float(cast(float, scale)) if scale is not None else 1.0 / math.sqrt(e_dim)
    factor = math.sqrt(scale)
    q = e.v("aten.mul.Scalar", q, factor)
    kt = e.v("aten.mul.Scalar", e.v("aten.transpose.int", k, -2, -1), factor)
    scores = e.v("aten.matmul.default", q, kt)
    mask = b.get("attn_mask")
    if b.get("is_causal"):
        ones = e.v("aten.ones.default", e.sizes([tq.sizes[-2], tk.sizes[-2]]), dtype=DType.bool)
        upper = e.v("aten.triu.default", ones, 1)
        scores = e.v("aten.masked_fill.Scalar", scores, upper, float("-inf"))
    if isinstance(mask, SSAValue):
        if tensor_of(mask).element_dtype == DType.bool:
            inv = e.v("aten.logical_not.default", mask)
            scores = e.v("aten.masked_fill.Scalar", scores, inv, float("-inf"))
        else:
            if tensor_of(mask).element_dtype != wide:
                mask = e.v("aten._to_copy.default", mask, dtype=wide)
            scores = e.v("aten.add.Tensor", scores, mask)
    attn = e.v("aten._softmax.default", scores, -1, False)
    masked = e.v("aten.eq.Scalar", scores, float("-inf"))
    live = e.v("aten.any.dim", e.v("aten.logical_not.default", masked), -1, True)
    dead = e.v("aten.logical_not.default", live)
    zeros = e.v("aten.full_like.default", attn, 0, pin_memory=False, memory_format=MemoryFormat.preserve_format)
    attn = e.v("aten.where.self", dead, zeros, attn)
    out = e.v("aten.matmul.default", attn, v)
    return [out if wide == dtype else e.v("aten._to_copy.default", out, dtype=dtype)]
