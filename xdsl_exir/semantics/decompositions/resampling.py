"""Decompositions of the resampling operators: pixel shuffle and unshuffle, channel shuffle."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.exir import (
    MemoryFormat,
)
from xdsl_exir.semantics.decompositions.core import (
    Decline,
    Emitter,
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
