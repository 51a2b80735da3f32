"""
A convolution's matrix product over its im2col columns, for `conv_pool`'s dense
convolutions of a batch of one (`conv_pool._taps_im2col`, and 1x1 kernels,
`conv_pool._pointwise`): the weight `[F, K]` times the columns `[K, P]` onto the
accumulator `[F, P]`, a `linalg.matmul` marked `IM2COL_MARK` for IREE's options
(`targets.iree`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import UnitAttr
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import SSAValue

from xdsl_exir.transforms.linalg_lowering.state import LoweringState

IM2COL_MARK = "exir.im2col"
"""A unit attribute on the product of `conv_pool._taps_im2col` and of a 1x1 convolution of a batch
of one (`conv_pool._pointwise`), which IREE ignores: `IreeOptions` gives such a program the flags of
one with a convolution (counted as a wide matrix product it took the data tiling that packs the
weight on each call: 3x3 512->512 at 2x2 0.98 -> 4.4 ms), and leaves such products of few output
positions untiled (`targets.iree.data_tiling_hints`)."""


def marked_product(st: LoweringState, w: SSAValue, cols: SSAValue, acc0: SSAValue) -> SSAValue:
    """A convolution's product `w [F, K] x cols [K, P]` onto `acc0 [F, P]`: a `linalg.matmul` marked `IM2COL_MARK`."""
    matmul = linalg.MatmulOp((w, cols), (acc0,))
    matmul.attributes[IM2COL_MARK] = UnitAttr()
    return st.emit(matmul)
