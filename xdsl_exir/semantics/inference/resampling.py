"""Result types of resampling: upsampling, grid sampling and pixel and channel shuffles."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

from xdsl.ir import Attribute

from xdsl_exir.semantics.inference.core import (
    Bound,
    InferenceError,
    NoInference,
    floordiv,
    make_tensor,
    mul,
    normalize_size,
    rule,
)
from xdsl_exir.utils.symbolic import sympy


@rule("aten.channel_shuffle.default", "aten.native_channel_shuffle.default")
def _channel_shuffle(b: Bound) -> Attribute:
    return b.tensor("self")


@rule("aten.pixel_shuffle.default", "aten.pixel_unshuffle.default")
def _pixel_shuffle(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.rank < 3:
        raise InferenceError("pixel (un)shuffle needs at least 3 dimensions")
    c, h, w = t.sizes[-3:]
    if b.schema.name == "pixel_shuffle":
        r = b.int("upscale_factor")
        out = [floordiv(c, r * r), mul(h, r), mul(w, r)]
    else:
        r = b.int("downscale_factor")
        out = [mul(c, r * r), floordiv(h, r), floordiv(w, r)]
    return make_tensor([*t.sizes[:-3], *out], t.element_dtype, t.device.data)


@rule("aten.upsample_nearest1d.vec", "aten.upsample_nearest1d.default", "aten.upsample_nearest3d.vec",
      "aten.upsample_nearest3d.default")  # fmt: skip
def _upsample_nearest_nd(b: Bound) -> Attribute:
    t = b.tensor("input" if "input" in b else "self")
    n = t.rank - 2
    out_arg = b.get("output_size")
    if out_arg is not None:
        out = b.sizes("output_size", n)
    else:
        factors = cast(list[float] | None, b.get("scale_factors"))
        if factors is None:
            raise InferenceError("either output_size or scale_factors is required")
        out = []
        for s, f in zip(t.sizes[2:], factors):
            if not isinstance(s, int):
                raise NoInference("a symbolic size scaled by a float")
            out.append(int(math.floor(s * float(f))))
    return make_tensor([*t.sizes[:2], *out], t.element_dtype, t.device.data)


def _upsample(b: Bound, input_name: str) -> Attribute:
    t = b.tensor(input_name)
    if t.rank != 4:
        raise InferenceError("upsample2d expects a 4-d input")
    if b.get("output_size") is not None:
        out = b.sizes("output_size", 2)
    else:
        scales = cast(Sequence[float], b.get("scale_factors"))
        if scales is None:
            raise InferenceError("either output_size or scale_factors is required")
        out = []
        for s, f in zip(t.sizes[2:], scales):
            if isinstance(s, int):
                out.append(int(math.floor(s * float(f))))
            else:
                out.append(normalize_size(sympy.floor(s * sympy.nsimplify(f))))
    return make_tensor([*t.sizes[:2], *out], t.element_dtype, t.device.data)


@rule("aten.upsample_bilinear2d.default", "aten.upsample_nearest2d.default")
def _upsample_default(b: Bound) -> Attribute:
    return _upsample(b, "self")


@rule("aten.upsample_bilinear2d.vec", "aten.upsample_nearest2d.vec")
def _upsample_vec(b: Bound) -> Attribute:
    return _upsample(b, "input")


@rule("aten.grid_sampler_2d.default")
def _grid_sampler(b: Bound) -> Attribute:
    x, g = b.tensor("input"), b.tensor("grid")
    return make_tensor([x.sizes[0], x.sizes[1], g.sizes[1], g.sizes[2]], x.element_dtype, x.device.data)
