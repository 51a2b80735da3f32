"""Decompositions of the resampling operators: upsampling, pixel shuffle and unshuffle, channel shuffle."""

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
    op_name,
    rule,
    simplify_size,
    tensor_of,
)
from xdsl_exir.semantics.inference import Bound


@rule("aten.channel_shuffle.default", "aten.native_channel_shuffle.default")
def _channel_shuffle(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    t = tensor_of(x)
    g = b.int("groups")
    c = t.sizes[1]
    if t.rank < 3 or not isinstance(c, int) or c % g:
        raise Decline()
    n, rest = t.sizes[0], list(t.sizes[2:])
    y = e.v("aten.view.default", x, e.sizes([n, g, c // g, *rest]))
    y = e.v("aten.permute.default", y, [0, 2, 1, *range(3, t.rank + 1)])
    y = e.v("aten.clone.default", y, memory_format=MemoryFormat.contiguous_format)
    return [e.v("aten.view.default", y, e.sizes(t.sizes))]


@rule("aten.pixel_shuffle.default")
def _pixel_shuffle(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    t = tensor_of(x)
    r = b.int("upscale_factor")
    if t.rank < 3:
        raise Decline()
    lead = list(t.sizes[:-3])
    c, h, w = t.sizes[-3:]
    if not isinstance(c, int):
        raise Decline()
    oc = c // (r * r)
    k = len(lead)
    y = e.v("aten.view.default", x, e.sizes([*lead, oc, r, r, h, w]))
    y = e.v("aten.permute.default", y, [*range(k), k, k + 3, k + 1, k + 4, k + 2])
    y = e.v("aten.clone.default", y, memory_format=MemoryFormat.contiguous_format)
    return [e.v("aten.view.default", y, e.sizes([*lead, oc, simplify_size(h * r), simplify_size(w * r)]))]


@rule("aten.pixel_unshuffle.default")
def _pixel_unshuffle(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    t = tensor_of(x)
    r = b.int("downscale_factor")
    if t.rank < 3 or not all(isinstance(s, int) for s in t.sizes[-2:]):
        raise Decline()
    lead = list(t.sizes[:-3])
    c, h, w = t.sizes[-3], cast(int, t.sizes[-2]), cast(int, t.sizes[-1])
    k = len(lead)
    y = e.v("aten.view.default", x, e.sizes([*lead, c, h // r, r, w // r, r]))
    y = e.v("aten.permute.default", y, [*range(k), k, k + 2, k + 4, k + 1, k + 3])
    y = e.v("aten.clone.default", y, memory_format=MemoryFormat.contiguous_format)
    return [e.v("aten.view.default", y, e.sizes([*lead, simplify_size(c * r * r), h // r, w // r]))]


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


@rule("aten.upsample_nearest2d.default")
def _upsample_nearest2d(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """The sized overload is the core `vec` overload with the same output size (explicit scales,
    which change the source index, are left alone)."""
    if b.get("scales_h") is not None or b.get("scales_w") is not None:
        raise Decline()
    return [e.v("aten.upsample_nearest2d.vec", b["self"], b["output_size"], None)]
