"""Decompositions of factories, windows and ranges."""

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


# -- resampling, windows and ranges --------------------------------------------------------


def _resample_sizes(b: Bound, n: int) -> tuple[list[int], list[int], list[float | None]]:
    """An upsampling's static input and output sizes and its scale per spatial dim
    (None where the output size alone defines it), from either overload's arguments."""
    x = cast(SSAValue, b["input"] if "input" in b else b["self"])
    spatial = tensor_of(x).sizes[2:]
    if len(spatial) != n or not all(isinstance(s, int) for s in spatial):
        raise Decline()
    sizes_in = cast(list[int], list(spatial))
    scales: list[float | None] = [None] * n
    if "scale_factors" in b:
        out_arg, factors = b.get("output_size"), b.get("scale_factors")
        if out_arg is not None:
            out = b.ints("output_size", n)
        elif factors is not None:
            fs = [float(f) for f in cast(list[float], factors)]
            out = [int(math.floor(s * f)) for s, f in zip(sizes_in, fs)]
            scales = list(fs)
        else:
            raise Decline()
    else:
        out = b.ints("output_size", n)
        names = {1: ["scales"], 2: ["scales_h", "scales_w"], 3: ["scales_d", "scales_h", "scales_w"]}[n]
        scales = [cast(float | None, b.get(k)) for k in names]
    return sizes_in, out, scales


def _spatial_rank(op: Operation) -> int:
    """1, 2 or 3, from the operator's name (`upsample_linear1d`, `_upsample_nearest_exact3d`...)."""
    name = op_name(op).split(".")[1]
    return int(name[name.rindex("d") - 1])


@rule("aten.upsample_nearest1d.vec", "aten.upsample_nearest1d.default", "aten.upsample_nearest3d.vec",
      "aten.upsample_nearest3d.default", "aten._upsample_nearest_exact1d.vec", "aten._upsample_nearest_exact1d.default",
      "aten._upsample_nearest_exact2d.vec", "aten._upsample_nearest_exact2d.default",
      "aten._upsample_nearest_exact3d.vec", "aten._upsample_nearest_exact3d.default")
def _upsample_nearest(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_decomp's nearest upsampling: per spatial dim, the source index
    `int(i * in / out)` (or `i / scale`) in float32, `int((i + 0.5) * in / out)` for
    the `exact` variants (pixel centres, as PIL and scikit-image sample), then one
    `index.Tensor`."""
    x = cast(SSAValue, b["input"] if "input" in b else b["self"])
    t = tensor_of(x)
    n = _spatial_rank(op)
    if t.rank != n + 2:
        raise Decline()
    sizes_in, out, scales = _resample_sizes(b, n)
    offset = 0.5 if "exact" in op_name(op) else 0.0
    device = DeviceAttr(t.device.data)
    indices: list[object] = [None, None]
    for d in range(n):
        scale = scales[d]
        ratio = 1.0 / scale if scale else sizes_in[d] / out[d]
        pos = e.v("aten.arange.start_step", 0, out[d], dtype=DType.float32, layout=Layout.strided, device=device,
                  pin_memory=False)
        if offset:
            pos = e.v("aten.add.Tensor", pos, offset)
        idx = e.v("aten._to_copy.default", e.v("aten.mul.Tensor", pos, ratio), dtype=DType.int64)
        idx = e.v("aten.clamp.default", idx, None, sizes_in[d] - 1)
        if n - 1 - d:
            idx = e.v("aten.view.default", idx, [out[d]] + [1] * (n - 1 - d))
        indices.append(idx)
    return [e.v("aten.index.Tensor", x, indices)]


@rule("aten.upsample_linear1d.default", "aten.upsample_linear1d.vec", "aten.upsample_trilinear3d.default",
      "aten.upsample_trilinear3d.vec")
def _upsample_linear(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Linear upsampling one spatial dim at a time, with ATen's source coordinate
    (`area_pixel_compute_source_index`): `i * (in - 1) / (out - 1)` with
    `align_corners`, else `(i + 0.5) * in / out - 0.5` (or `/ scale`) clamped at 0;
    the neighbours `i0 = int(src)` and `min(i0 + 1, in - 1)` weighted `1 - l` and
    `l = src - i0`, in the input's floating dtype (float32 for half inputs)."""
    x = cast(SSAValue, b["input"] if "input" in b else b["self"])
    t = tensor_of(x)
    n = _spatial_rank(op)
    if t.rank != n + 2 or not t.element_dtype.is_floating_point:
        raise Decline()
    sizes_in, out, scales = _resample_sizes(b, n)
    align = bool(b["align_corners"])
    work = t.element_dtype.opmath()
    device = DeviceAttr(t.device.data)
    y = x if work == t.element_dtype else e.v("aten._to_copy.default", x, dtype=work)
    for d in range(n):
        size, o, scale = sizes_in[d], out[d], scales[d]
        if align:
            ratio = (size - 1) / (o - 1) if o > 1 else 0.0
        else:
            ratio = 1.0 / scale if scale and scale > 0 else size / o
        pos = e.v("aten.arange.start_step", 0, o, dtype=work, layout=Layout.strided, device=device, pin_memory=False)
        if align:
            src = e.v("aten.mul.Tensor", pos, ratio)
        else:
            src = e.v("aten.sub.Tensor", e.v("aten.mul.Tensor", e.v("aten.add.Tensor", pos, 0.5), ratio), 0.5)
            src = e.v("aten.clamp.default", src, 0.0, None)
        i0 = e.v("aten._to_copy.default", src, dtype=DType.int64)
        i1 = e.v("aten.clamp.default", e.v("aten.add.Tensor", i0, 1), None, size - 1)
        lam = e.v("aten.sub.Tensor", src, e.v("aten._to_copy.default", i0, dtype=work))
        if n - 1 - d:
            lam = e.v("aten.view.default", lam, [o] + [1] * (n - 1 - d))
        dim = 2 + d
        near = e.v("aten.index_select.default", y, dim, i0)
        far = e.v("aten.index_select.default", y, dim, i1)
        y = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", near, e.v("aten.rsub.Scalar", lam, 1.0)),
                e.v("aten.mul.Tensor", far, lam))
    return [y if work == t.element_dtype else e.v("aten._to_copy.default", y, dtype=t.element_dtype)]


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
