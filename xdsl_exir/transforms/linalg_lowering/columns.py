"""
The im2col columns of a 2-D convolution as one `linalg.generic`
(`conv_columns`), for `conv_pool`'s matrix products over columns
(`conv_pool._WINDOW_COLUMNS`), where copying them tap by tap made one copy
dispatch per tap in IREE.

The generic iterates over the columns, `[N, G, C, kh, kw, OH, OW]` (or with
the taps before the channels), and reads the input with `tensor.extract` at
`[n, g*C + c, oh*s + i*d - top, ow + j*e]`. No affine map can say that read
as a projected permutation, the only maps MLIR's linalg vectorizer takes, but
the vectorizer reads a `tensor.extract` whose leading indices are invariant
along the vector and whose last index is the innermost loop index plus
invariant terms as one contiguous `vector.transfer_read` (MLIR's Linalg
vectorizer, "tensor.extract" vectorization). So the last index must be `ow`
plus a tap offset: a unit stride along the width, and the padding at the
left and right in memory (a `tensor.pad` of the width only).

The padding above and below is folded in: the row index is clamped into the
input and a mask `[kh, OH]` (int8, 1 where the row `oh*s + i*d - top` is
inside) selects the read or 0. The mask is also why IREE 3.13 keeps the loops
apart: its dimension collapsing merges the loops of a generic whose maps keep
them adjacent (with only the output's map, all seven into one), and the last
index then becomes a remainder, which the vectorizer reads element by element
(a gather: 1.05 ms against 0.12 for the columns of a 3x3 64->64 at 32x32).
The mask's map `(i, oh)` keeps `oh` and `ow` apart. An int8 mask tested
against 0 costs two vector instructions a row; an i1 mask was unpacked bit by
bit (a 128-channel 3x3 at 8x8: 27.8 us, 11.7 as int8, 9 for the nine copies).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.dialects.builtin import TensorType as BuiltinTensorType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineMap

from xdsl_exir.dialects.exir import DType
from xdsl_exir.transforms.linalg_lowering.core import dim_expr as _d
from xdsl_exir.transforms.linalg_lowering.state import (
    PARALLEL,
    LoweringState,
    drop_unused,
    element_type,
    identity_map,
)
from xdsl_exir.transforms.linalg_lowering.windows import pad


def conv_columns(
    st: LoweringState,
    x: SSAValue,
    xs: Sequence[object],
    kernel: Sequence[int],
    outs: Sequence[object],
    stride: Sequence[int],
    dilation: Sequence[int],
    groups: int,
    acc: DType,
    taps_first: bool = False,
) -> SSAValue | None:
    """
    The im2col columns of a 2-D convolution of `groups` groups over `x`, the
    NCHW input padded with zeros (sizes `xs`, output sizes `outs`), as one
    generic (`window_columns`): `[N, G, C, kh, kw, OH, OW]`, or `[N, G, kh,
    kw, C, OH, OW]` with `taps_first`. The padding above and below moves into
    the generic, and `x`'s own pad is erased when nothing else reads it. None
    (and nothing emitted) where the form does not apply: a stride along the
    width, symbolic or zero sizes, an input that is not a zero pad, or no
    padded row for the mask to drop (IREE would fold a constant mask away and
    collapse the loops).
    """
    if stride[1] != 1 or not all(isinstance(v, int) and v > 0 for v in (*xs, *outs)):
        return None
    source = _padded_source(x)
    if source is None:
        return None
    src, low = source
    ss = cast(BuiltinTensorType[Attribute], src.type).get_shape()
    if len(ss) != 4 or any(v <= 0 for v in ss) or low[:2] != [0, 0]:
        return None
    n, c, h, w = ss
    oh, ow = cast(int, outs[2]), cast(int, outs[3])
    top, left = low[2], low[3]
    kh, kw = kernel
    if all(0 <= o * stride[0] + i * dilation[0] - top < h for o in range(oh) for i in range(kh)):
        return None
    right = (ow - 1) + (kw - 1) * dilation[1] + 1 - w - left
    if right < 0:
        return None
    wide, _ = pad(st, src, ss, [0, 0, 0, left], [0, 0, 0, right], 0, acc)
    cols = window_columns(
        st, wide, [n, c, h, w + left + right], top, kernel, [oh, ow], stride, dilation, groups, acc, taps_first
    )
    drop_unused(x)
    return cols


def window_columns(
    st: LoweringState,
    x: SSAValue,
    xs: Sequence[int],
    top: int,
    kernel: Sequence[int],
    outs: Sequence[int],
    stride: Sequence[int],
    dilation: Sequence[int],
    groups: int,
    acc: DType,
    taps_first: bool = False,
) -> SSAValue:
    """
    The columns of the NCHW input `x` (sizes `xs`, static), padded at the
    left and right only, for output rows and columns `outs` and a unit stride
    along the width: element `[n, g, c, i, j, oh, ow]` (or `[n, g, i, j, c, oh,
    ow]` with `taps_first`) is `x[n, g*C + c, oh*s + i*d - top, ow + j*e]`, C
    the channels of a group, and 0 where that row is outside `x`.
    """
    n, cin, h, _ = xs
    c = cin // groups
    kh, kw = kernel
    oh, ow = outs
    inside = [int(0 <= o * stride[0] + i * dilation[0] - top < h) for i in range(kh) for o in range(oh)]
    mask = st.dense_constant(inside, DType.int8, [kh, oh])
    sizes = [n, groups, kh, kw, c, oh, ow] if taps_first else [n, groups, c, kh, kw, oh, ow]
    # the loop of each of (n, g, c, i, j, oh, ow)
    loops = (0, 1, 4, 2, 3, 5, 6) if taps_first else tuple(range(7))

    def read(args: Sequence[SSAValue]) -> list[SSAValue]:
        b, g, ch, i, j, y, z = (st.emit(linalg.IndexOp(loop)) for loop in loops)
        channel = st.emit(arith.AddiOp(st.emit(arith.MuliOp(g, st.index(c))), ch)) if groups > 1 else ch
        row = _plus_scaled(st, _scaled(st, y, stride[0]), i, dilation[0])
        if top:
            row = st.emit(arith.SubiOp(row, st.index(top)))
        row = st.emit(arith.MinSIOp(st.emit(arith.MaxSIOp(row, st.index(0))), st.index(h - 1)))
        col = _plus_scaled(st, z, j, dilation[1])
        value = st.emit(tensor.ExtractOp(x, [b, channel, row, col], element_type(acc)))
        keep = st.emit(arith.CmpiOp(args[0], st.constant(0, DType.int8), "ne"))
        return [st.emit(arith.SelectOp(keep, value, st.constant(0, acc)))]

    mask_map = AffineMap(7, 0, (_d(loops[3]), _d(5)))
    return st.generic([(mask, mask_map)], [(st.empty_of(sizes, acc), identity_map(7))], [PARALLEL] * 7, read)[0]


def _scaled(st: LoweringState, v: SSAValue, factor: int) -> SSAValue:
    return v if factor == 1 else st.emit(arith.MuliOp(v, st.index(factor)))


def _plus_scaled(st: LoweringState, base: SSAValue, v: SSAValue, factor: int) -> SSAValue:
    """`base + v * factor` as index arithmetic; `base` first, an `arith.addi` on top (the vectorizer's contiguous form)."""
    return st.emit(arith.AddiOp(base, _scaled(st, v, factor)))


def _padded_source(x: SSAValue) -> tuple[SSAValue, list[int]] | None:
    """
    The static tensor that `x` pads with +0 (`windows.pad`, maybe cropped at
    the high ends by `windows.fit`), and its padding before each dim; None
    when `x` is not such a pad.
    """
    op = x.owner
    if isinstance(op, tensor.ExtractSliceOp) and isinstance(op.source.owner, tensor.PadOp):
        if (
            op.offsets
            or op.strides
            or any(v != 0 for v in op.static_offsets.get_values())
            or any(v != 1 for v in op.static_strides.get_values())
        ):
            return None
        op = op.source.owner
    if not isinstance(op, tensor.PadOp) or op.low or op.high:
        return None
    last = op.region.block.last_op
    fill = last.operands[0].owner if isinstance(last, tensor.YieldOp) else None
    if not isinstance(fill, arith.ConstantOp) or not isinstance(fill.value, FloatAttr | IntegerAttr):
        return None
    value = fill.value.value.data
    if value != 0 or math.copysign(1.0, value) < 0:
        return None
    return op.source, list(op.static_low.get_values())


