"""Decompositions of factories, windows, ranges, copies and conversions (`to`, `type_as`, `contiguous`, `copy`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.exir import (
    DeviceAttr,
    DType,
    Layout,
    MemoryFormat,
)
from xdsl_exir.semantics.decompositions.core import (
    Decline,
    Emitter,
    cast_to_dtype,
    fill_value_for,
    full_value,
    number_arg,
    op_name,
    rule,
    tensor_of,
)
from xdsl_exir.semantics.inference import Bound

_FILL = {"zeros": 0, "ones": 1}


@rule("aten.zeros.default", "aten.ones.default")
def _zeros_ones(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [full_value(e, b, b["size"], _FILL[op_name(op).split(".")[1]], None)]


@rule("aten.new_zeros.default", "aten.new_ones.default", "aten.new_full.default")
def _new_full(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    kind = op_name(op).split(".")[1]
    value = b["fill_value"] if kind == "new_full" else _FILL[kind.removeprefix("new_")]
    like = tensor_of(b["self"])
    dtype = b.dtype("dtype") or like.element_dtype
    device = b.get("device") or DeviceAttr(like.device.data)
    return [
        e.v("aten.full.default", b["size"], fill_value_for(dtype, value), dtype=dtype,
            layout=Layout.strided, device=device, pin_memory=False)
    ]


@rule("aten.zeros_like.default", "aten.ones_like.default")
def _zeros_like(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    like = tensor_of(b["self"])
    return [full_value(e, b, like.sizes, _FILL[op_name(op).split(".")[1].removesuffix("_like")], like)]


# -- creation -------------------------------------------------------------------------


@rule("aten.linspace.default")
def _linspace(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """ATen's CPU linspace: `start + step * i` for the first half, `end - step * (steps - 1 - i)`
    for the second, in the result dtype (double for integral results, then truncated)."""
    start, end, steps = b["start"], b["end"], b.int("steps")
    if isinstance(start, SSAValue) or isinstance(end, SSAValue) or steps < 0:
        raise Decline()
    dtype = b.dtype("dtype") or DType.float32
    device = b.get("device") or DeviceAttr("cpu")
    work = dtype if dtype.is_floating_point else DType.float64
    s, en = float(cast(float, start)), float(cast(float, end))
    if steps <= 1:
        values = [s] if steps == 1 else []
        out = e.v("aten.full.default", [len(values)], s, dtype=work, layout=Layout.strided, device=device,
                  pin_memory=False)
        return [out if work == dtype else e.v("aten._to_copy.default", out, dtype=dtype)]
    step = (en - s) / (steps - 1)
    index = e.v("aten.arange.start_step", 0, steps, dtype=work, layout=Layout.strided, device=device,
                pin_memory=False)
    low = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", index, step), s)
    back = e.v("aten.sub.Tensor", e.v("aten.mul.Tensor", index, -1), -(steps - 1))
    high = e.v("aten.sub.Tensor", e.v("aten.mul.Tensor", back, -step), -en)
    first = e.v("aten.lt.Scalar", index, steps // 2)
    out = e.v("aten.where.self", first, low, high)
    return [out if work == dtype else e.v("aten._to_copy.default", out, dtype=dtype)]


# -- windows and ranges ----------------------------------------------------------------


_WINDOWS = ("hann_window", "hamming_window", "blackman_window", "bartlett_window")


@rule(*(f"aten.{w}.{ov}" for w in _WINDOWS for ov in ("default", "periodic")))
def _window(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch's window functions over n = 0 .. N-1 with denominator N (periodic, the
    default) or N - 1, computed in float64 and converted."""
    length = b.int("window_length")
    dtype = b.dtype("dtype") or DType.float32
    device = b.get("device") or DeviceAttr("cpu")
    kind = op_name(op).split(".")[1]
    if length <= 1:
        return [e.v("aten.full.default", [length], 1.0, dtype=dtype, layout=Layout.strided, device=device,
                    pin_memory=False)]
    denom = length if b.get("periodic", True) else length - 1
    n = e.v("aten.arange.start_step", 0, length, dtype=DType.float64, layout=Layout.strided, device=device,
            pin_memory=False)
    if kind == "bartlett_window":
        w = e.v("aten.rsub.Scalar", e.v("aten.abs.default", e.v("aten.sub.Tensor", e.v("aten.mul.Tensor", n, 2.0 / denom), 1)), 1)
    else:
        c1 = e.v("aten.cos.default", e.v("aten.mul.Tensor", n, 2 * math.pi / denom))
        a0, a1 = {"hann_window": (0.5, 0.5), "hamming_window": (0.54, 0.46), "blackman_window": (0.42, 0.5)}[kind]
        w = e.v("aten.rsub.Scalar", e.v("aten.mul.Tensor", c1, a1), a0)
        if kind == "blackman_window":
            c2 = e.v("aten.cos.default", e.v("aten.mul.Tensor", n, 4 * math.pi / denom))
            w = e.v("aten.add.Tensor", w, e.v("aten.mul.Tensor", c2, 0.08))
    return [e.v("aten._to_copy.default", w, dtype=dtype)]


@rule("aten.range.step", "aten.range.default")
def _range(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`torch.range`: both ends included, `start + i * step` computed in double."""
    start, end, step = b["start"], b["end"], b.get("step", 1)
    if any(isinstance(v, SSAValue) for v in (start, end, step)):
        raise Decline()
    s, en, st = float(cast(float, start)), float(cast(float, end)), float(cast(float, step))
    if st == 0:
        raise Decline()
    count = max(int(math.floor((en - s) / st)) + 1, 0)
    dtype = b.dtype("dtype") or DType.float32
    device = b.get("device") or DeviceAttr("cpu")
    i = e.v("aten.arange.start_step", 0, count, dtype=DType.float64, layout=Layout.strided, device=device,
            pin_memory=False)
    values = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", i, st), s)
    return [e.v("aten._to_copy.default", values, dtype=dtype)]


@rule("aten.fill.Tensor")
def _fill_tensor(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`fill` with a 0-d tensor value: the value in `self`'s dtype, expanded to `self`'s sizes and copied."""
    like = tensor_of(b["self"])
    value = b.value("value")
    if tensor_of(value).rank != 0:
        raise Decline()
    if tensor_of(value).element_dtype != like.element_dtype:
        value = e.v("aten._to_copy.default", value, dtype=like.element_dtype)
    expanded = e.v("aten.expand.default", value, e.sizes(like.sizes))
    return [e.v("aten.clone.default", expanded, memory_format=MemoryFormat.contiguous_format)]


@rule("aten.new_empty.default")
def _new_empty(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`new_empty`: `empty.memory_format` with `self`'s dtype and device unless given."""
    like = tensor_of(b["self"])
    dtype = b.dtype("dtype") or like.element_dtype
    device = b.get("device") or DeviceAttr(like.device.data)
    return [e.v("aten.empty.memory_format", b["size"], dtype=dtype, layout=Layout.strided, device=device,
                pin_memory=False)]


@rule("aten.detach.default", "aten.alias.default")
def _identity(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """No autograd here: `detach` and `alias` are their argument (torch drops them too)."""
    return [b.value("self")]


@rule("aten.lift_fresh_copy.default")
def _lift_fresh_copy(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.clone.default", b["self"])]


@rule("aten.empty_like.default", "aten.empty_permuted.default")
def _empty_like(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Uninitialized memory in torch; zeros here, so that results are reproducible."""
    if "self" in b:
        like = tensor_of(b["self"])
        return [full_value(e, b, like.sizes, 0, like)]
    return [full_value(e, b, b["size"], 0, None)]


@rule("aten.eye.default", "aten.eye.m")
def _eye(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    n = b["n"]
    m = b.get("m", n) if "m" in b else n
    device = b.get("device") or DeviceAttr("cpu")
    rows = e.v("aten.arange.start_step", 0, n, layout=Layout.strided, device=device, pin_memory=False)
    cols = e.v("aten.arange.start_step", 0, m, layout=Layout.strided, device=device, pin_memory=False)
    mask = e.v("aten.eq.Tensor", e.v("aten.unsqueeze.default", rows, -1), cols)
    return [e.v("aten._to_copy.default", mask, dtype=b.dtype("dtype") or DType.float32)]


@rule("aten.logspace.default")
def _logspace(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """base ** linspace(start, end, steps), computed in float and cast to the requested dtype."""
    dtype = b.dtype("dtype") or DType.float32
    wide = dtype if dtype.is_floating_point else DType.float64
    exps = e.v("aten.linspace.default", b["start"], b["end"], b["steps"], dtype=wide,
               layout=Layout.strided, device=b.get("device") or DeviceAttr("cpu"), pin_memory=False)
    out = e.v("aten.pow.Scalar", number_arg(b, "base", 10.0), exps)
    return [cast_to_dtype(e, out, dtype)]


@rule("aten.zero.default")
def _zero(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    return [e.v("aten.full_like.default", x, fill_value_for(tensor_of(x).element_dtype, 0))]


@rule("aten._dim_arange.default")
def _dim_arange(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """arange(like.size(dim)) in int64."""
    like = tensor_of(b["like"])
    size = like.sizes[b.int("dim") % max(like.rank, 1)]
    return [e.v("aten.arange.start_step", 0, e.size(size), dtype=DType.int64, layout=Layout.strided,
                device=DeviceAttr(like.device.data), pin_memory=False)]


@rule("aten.linalg_vander.default", "aten.vander.default")
def _vander(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Powers 0 .. N-1 of each element along a new last dim (`vander` reverses them unless
    `increasing`); integer and bool inputs are computed in int64, as torch's are."""
    x = b.value("x")
    t = tensor_of(x)
    n = b.get("N")
    n = t.sizes[-1] if n is None and t.rank else n
    if t.rank < 1 or t.element_dtype.is_complex or not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise Decline()
    if op_name(op) == "aten.vander.default" and t.rank != 1:
        raise Decline()
    if op_name(op) == "aten.linalg_vander.default" and (t.element_dtype == DType.bool or n < 2):
        raise Decline()  # torch refuses bool, and N below 2, here (vander takes both)
    dtype = t.element_dtype if t.element_dtype.is_floating_point else DType.int64
    if dtype != t.element_dtype:
        x = e.v("aten._to_copy.default", x, dtype=dtype)
    powers = e.v("aten.arange.start_step", 0, n, dtype=dtype, layout=Layout.strided, device=DeviceAttr(t.device.data),
                 pin_memory=False)
    out = e.v("aten.pow.Tensor_Tensor", e.v("aten.unsqueeze.default", x, -1), powers)
    if op_name(op) == "aten.vander.default" and not b.get("increasing"):
        out = e.v("aten.flip.default", out, [-1])
    return [out]


@rule("aten.contiguous.default")
def _contiguous(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    if e.layouts.is_contiguous(x):
        return [x]
    return [e.v("aten.clone.default", x, memory_format=MemoryFormat.contiguous_format)]


@rule("aten.copy.default", core=True)
def _copy(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_decomp `copy`: `src.to(self)`, expanded (as a copy) when the sizes differ."""
    dst, src = tensor_of(b["self"]), b.value("src")
    out = src
    if tensor_of(src).element_dtype != dst.element_dtype:
        out = e.v("aten._to_copy.default", out, dtype=dst.element_dtype)
    if tensor_of(out).sizes != dst.sizes:
        out = e.v("aten.expand.default", out, e.sizes(dst.sizes))
        out = e.v("aten.clone.default", out, memory_format=MemoryFormat.contiguous_format)
    return [out]


@rule("aten.to.dtype", "aten.to.dtype_layout", "aten.to.device", "aten.to.other", "aten.type_as.default")
def _to(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    dtype = tensor_of(b["other"]).element_dtype if "other" in b else b.dtype("dtype")
    if (dtype is None or dtype == tensor_of(x).element_dtype) and not b.get("copy"):
        return [x]
    return [e.v("aten._to_copy.default", x, dtype=dtype)]
