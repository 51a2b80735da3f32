"""
A convolution's matrix product over its im2col columns, for `conv_pool`'s dense
convolutions of a batch of one (`conv_pool._taps_im2col`, and 1x1 kernels,
`conv_pool._pointwise`): the weight `[F, K]` times the columns `[K, P]` onto the
accumulator `[F, P]`, a `linalg.matmul` marked `IM2COL_MARK` for IREE's options
(`targets.iree`). Over 5 to 15 output positions its last position may be
computed apart (`_LAST_POSITION_APART`, `apart_start`), so that IREE's data
tiling pads none of the others.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import FloatAttr, UnitAttr
from xdsl.dialects.builtin import TensorType as BuiltinTensorType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap

from xdsl_exir.dialects.exir import DType
from xdsl_exir.transforms.linalg_lowering.core import dim_expr as _d
from xdsl_exir.transforms.linalg_lowering.core import expand
from xdsl_exir.transforms.linalg_lowering.scalar import add, mul
from xdsl_exir.transforms.linalg_lowering.state import (
    PARALLEL,
    REDUCTION,
    LoweringState,
    element_type,
    identity_map,
    sized,
    tensor_type,
)

IM2COL_MARK = "exir.im2col"
"""A unit attribute on the product of `conv_pool._taps_im2col` and of a 1x1 convolution of a batch
of one (`conv_pool._pointwise`), which IREE ignores: `IreeOptions` gives such a program the flags of
one with a convolution (counted as a wide matrix product it took the data tiling that packs the
weight on each call: 3x3 512->512 at 2x2 0.98 -> 4.4 ms), and leaves such products of few output
positions untiled (`targets.iree.data_tiling_hints`)."""

_LAST_POSITION_APART = True
"""
Compute the last output position of a float32 convolution's product apart, as
a matrix-vector product, where IREE's data tiling would pad its 5 to 15
positions by a quarter or more of what it computes (`position_tiles`: 9
positions are 16 rows, 8 are 8), its weight has at least
`_APART_LEAST_WEIGHT` elements and its reduction is shorter than
`_APART_DEPTH_BELOW`: the other positions then fill whole tiles. A 1x1
convolution of a batch of one then takes the matrix product form
(`conv_pool._pointwise`) whatever `conv_pool._POINTWISE_MATMUL` says. See
`apart_start` for the figures and the forms IREE 3.13 ran slower.
"""

_APART_LEAST_WEIGHT = 65536
"""The fewest weight elements (filters x channels x taps) of a product `_LAST_POSITION_APART`
splits: below, the padding saved is worth a few microseconds, about what the second dispatch costs."""

_APART_DEPTH_BELOW = 2048
"""Products of this reduction size or more are not split (`_LAST_POSITION_APART`): over so few
positions IREE runs them untiled (`targets.iree._UNTILED_DEPTH`), with nothing padded to save, and
would leave the matrix-vector generic untiled too."""


def position_tiles(positions: int) -> int:
    """
    The positions IREE 3.13's data tiling computes for a float32 product over
    `positions` on x86 (`chooseMatmulTile`): fewer than 16 rounded up to a power
    of two, more to whole 16-row tiles.
    """
    return 1 << (positions - 1).bit_length() if positions < 16 else -(-positions // 16) * 16


def apart_start(
    init: SSAValue, xs: Sequence[object], ws: Sequence[object], os: Sequence[object], acc: DType
) -> tuple[SSAValue | None] | None:
    """
    Where the product of a 2-D convolution (input, weight and output sizes `xs`,
    `ws`, `os`) onto `init` (`conv_pool._channel_init`'s accumulator) computes its
    last position apart (`_LAST_POSITION_APART`), what that position's sum starts
    from: `(bias,)`, the float32 vector broadcast into `init`, or `(None,)` for
    zeros; None where it is computed with the others.

    The apart position is a matrix-vector generic from zeros, its start added
    after it, read from the bias vector itself: IREE 3.13 fuses that addition
    into the product, and given the accumulator's column instead (a strided
    read of the broadcast) packs it in the product's dispatch, which ran 4.5x
    slower. A 3x3 convolution's apart position reads its window from the padded
    input, not the last column of its im2col columns: IREE fused the columns'
    generic into the matrix-vector dispatch, 10-40x slower (`256x9x576` 40 ->
    1,258 us). Per dispatch in SqueezeNet 1.1 at 64x64 (`benchmarks/dispatches.py`,
    least times, one thread, an AMD EPYC; us): the classifier `1000x9x512` 142
    as one product, 85 + 34 apart (155 + 85 from the accumulator's column); the
    3x3 expands `256x9x576` 40.7 -> 23.9 + 9.1 and `192x9x432` 22.9 -> 14.9 +
    5.0, twice each; the call 0.677 -> 0.644 ms (`benchmarks/compile.py`, 21
    interleaved samples, CPU time; onnxruntime 0.456). Not split: 49 positions
    as 48 + 1 (iree-compile exceeds its stack limit on `128x48x288`), smaller
    weights (`_APART_LEAST_WEIGHT`; SqueezeNet's 1x1 `48x9x384` 5.1 -> 3.3 +
    2.5), and the float32 matrix-vector product as a one-column `linalg.matmul`
    (143 us for the classifier's).
    """
    if not (_LAST_POSITION_APART and acc is DType.float32 and xs[0] == 1 and all(isinstance(v, int) for v in (*ws, *os[2:]))):
        return None
    positions, depth = cast(int, os[2]) * cast(int, os[3]), math.prod(cast(list[int], ws[1:]))
    if not 4 < positions < 16 or cast(int, ws[0]) * depth < _APART_LEAST_WEIGHT or depth >= _APART_DEPTH_BELOW:
        return None
    if 4 * (position_tiles(positions) - position_tiles(positions - 1)) < position_tiles(positions):
        return None
    op = init.owner
    if isinstance(op, linalg.FillOp) and isinstance(op.inputs[0].owner, arith.ConstantOp):
        value = op.inputs[0].owner.value
        zero = isinstance(value, FloatAttr) and value.value.data == 0.0 and math.copysign(1.0, value.value.data) > 0
        return (None,) if zero else None
    if isinstance(op, linalg.GenericOp) and len(op.inputs) == 1 and len(op.body.block.ops) == 1:
        bias, bt = op.inputs[0], op.inputs[0].type
        if isinstance(bt, BuiltinTensorType) and bt.get_shape() == (ws[0],) and bt.element_type == element_type(acc):
            return (bias,)
    return None


def marked_product(
    st: LoweringState,
    w: SSAValue,
    cols: SSAValue,
    acc0: SSAValue,
    apart: tuple[SSAValue | None] | None = None,
    last: SSAValue | None = None,
) -> SSAValue:
    """
    A convolution's product `w [F, K] x cols [K, P]` onto `acc0 [F, P]`: a
    `linalg.matmul` marked `IM2COL_MARK`. With `apart` (`apart_start`), that
    product over the first P - 1 positions onto `acc0`'s, and a matrix-vector
    generic over the last from zeros, `apart`'s start added after it; `last` is
    the last position's column `[K]` where the caller reads it (default: the
    last of `cols`).
    """
    if apart is None:
        matmul = linalg.MatmulOp((w, cols), (acc0,))
        matmul.attributes[IM2COL_MARK] = UnitAttr()
        return st.emit(matmul)
    f, k = cast(BuiltinTensorType, w.type).get_shape()
    p = cast(BuiltinTensorType, cols.type).get_shape()[1]
    acc = DType.float32  # `apart_start` splits float32 products only
    first = st.emit(tensor.ExtractSliceOp(cols, [0, 0], [k, p - 1], [1, 1], tensor_type(sized([k, p - 1], acc))))
    head = st.emit(tensor.ExtractSliceOp(acc0, [0, 0], [f, p - 1], [1, 1], tensor_type(sized([f, p - 1], acc))))
    main = marked_product(st, w, first, head)
    if last is None:
        last = st.emit(tensor.ExtractSliceOp(cols, [0, p - 1], [k, 1], [1, 1], tensor_type(sized([k], acc))))
    zeros = st.emit(linalg.FillOp((st.constant(0.0, acc),), (st.empty_of([f], acc),), (tensor_type(sized([f], acc)),)))
    fo, r = _d(0), _d(1)
    dot = st.generic(
        [(w, AffineMap(2, 0, (fo, r))), (last, AffineMap(2, 0, (r,)))],
        [(zeros, AffineMap(2, 0, (fo,)))],
        [PARALLEL, REDUCTION],
        lambda a: [add(st, a[2], mul(st, a[0], a[1], acc), acc)],
    )[0]
    if (start := apart[0]) is not None:
        dot = st.generic(
            [(dot, identity_map(1)), (start, identity_map(1))],
            [(st.empty_of([f], acc), identity_map(1))],
            [PARALLEL],
            lambda a: [add(st, a[1], a[0], acc)],
        )[0]
    out = st.insert_slice(main, acc0, [0, 0], [f, p - 1])
    return st.insert_slice(expand(st, dot, [[0, 1]], [f, 1], element_type(acc)), out, [0, p - 1], [f, 1])
