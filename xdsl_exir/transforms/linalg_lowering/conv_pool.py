"""
Convolution and pooling on NCHW (NCDHW, ...) tensors (batch norm is in `norms`).

A 1-D or 2-D `convolution` pads its input with `tensor.pad` and becomes the named
`linalg.conv_2d_nchw_fchw` (one group; a 1x1 kernel can be a matrix product,
`_pointwise`), im2col columns and a batched
contraction (several groups: PyTorch's weight `[G*F, C, kh, kw]` is `[G, F,
C*kh*kw]` after reshapes, the input's and the output's channels split the same
way; `_grouped_im2col`; `linalg.conv_2d_ngchw_gfchw` when an output size is
symbolic) or, for depthwise convolutions, a `linalg.generic` (IREE 3.13 ran that form
10-15% faster than the grouped named op with G = C groups of one channel, at
the same compile time, on MobileNet-like shapes; see `_DEPTHWISE_GENERIC`):
for kernels of up to `_MAX_TAPS` taps an elementwise one over a slice per
tap, another 30% faster, else a windowed reduction. Every operand of the tap
generic is read through a projected permutation (a weight slice per tap,
`_TAP_WEIGHT_SLICES`; a strided convolution's taps sliced from the stride
phases of its input, `_STRIDE_PHASES`), the only maps MLIR's vectorizer takes. A 1-D convolution is a
2-D one over a unit height,
an unbatched input gets a unit batch. Spatial ranks xDSL has no named op for
(3-D and up) are sums of convolutions with one spatial dim fewer, down to the
2-D ones, over the taps of the leading kernel dim (`_conv_nd`). A transposed
convolution is a direct
one at stride 1 over the input dilated by the stride and padded by
`dilation * (kernel - 1) - padding`, with the weight's channels swapped per
group and its window flipped (see `_transposed`). The bias is the
accumulator's initial value, broadcast along the channels, as `addmm`'s is in
`matmul.py`; float16 and bfloat16 convolutions accumulate in float32.

Pooling windows (1-D to 3-D, `Window`) are reduction dimensions: `out *
stride + window * dilation` reads the padded input. The padding is torch's on the low side; on the high side the
input is padded, or cropped, to exactly what the windows of the output size
torch computed (the result type) read, which is more than the padding in
`ceil_mode` (convolutions do the same, see `fit`). Max pooling pads with -inf
(the smallest integer), average pooling with 0 and then divides each window by
the count torch uses: the whole window clipped to the padded input
(`count_include_pad`), only the input elements in it (otherwise), or
`divisor_override`; when every window is full that count is one constant, and a
static 2-D pooling without padding is one elementwise sum of its window taps
(`_AVG_POOL_TAPS`). Adaptive average pooling with uneven (static) windows sums along one pooled
dim at a time, a masked sum against a 0/1 window-membership matrix each, then
divides by each box's element count (`adaptive_avg_separable`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import cast

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    DenseIntElementsAttr,
    i64,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import OpResult, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.transforms.linalg_lowering import lowers
from xdsl_exir.transforms.linalg_lowering.columns import conv_columns
from xdsl_exir.transforms.linalg_lowering.conv_products import apart_start, marked_product
from xdsl_exir.transforms.linalg_lowering.core import (
    accumulator,
    better,
    collapse,
    count,
    expand,
    finish,
    lowest,
    sum_over,
    transpose,
)
from xdsl_exir.transforms.linalg_lowering.core import dim_expr as _d
from xdsl_exir.transforms.linalg_lowering.scalar import (
    add,
    div,
    mul,
    pointwise_maximum,
    select,
    trunc_divide,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    PARALLEL,
    REDUCTION,
    LoweringState,
    drop_unused,
    element_type,
    identity_map,
    sized,
    tensor_type,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    result_of as _out,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    type_of as _t,
)
from xdsl_exir.transforms.linalg_lowering.windows import (
    Window,
    adaptive_avg_separable,
    all_positive,
    fit,
    full_windows,
    max_of_channels_last_taps,
    mean_of_taps,
    pair,
    plus,
    tap_slices,
    window_extent,
    window_sum,
)
from xdsl_exir.utils.symbolic import sympy

_DEPTHWISE_GENERIC = True
"""
Lower depthwise convolutions (one input channel per group) to a `linalg.generic`.
MLIR's named depthwise ops were no faster on IREE 3.13 (written by hand, one
thread, interleaved, MobileNet shapes 32-512 channels, 4x4 to 32x32, 3x3 and 5x5
kernels, each form's better time with or without data tiling):
`linalg.depthwise_conv_2d_nchw_chw` took 1.4-4x the tap-wise generic's time,
`linalg.depthwise_conv_2d_nhwc_hwc` 2.2-5x with the transposes to and from
channels-last and 1.0-3x on a channels-last input without them.
"""

_GROUPED_IM2COL = True
"""
Lower grouped convolutions (other than depthwise) to im2col columns and a
batched contraction, not `linalg.conv_2d_ngchw_gfchw`: IREE 3.13 ran RegNet-X's
grouped 3x3 convolutions (16 channels a group, 2 to 25 groups) 4-11x faster
that way than the named op with `--iree-global-opt-use-im2col-for-convs`, and
as fast as or faster than splitting the convolution into one per group, with one
op whatever the group count (interleaved in one process, one thread).
"""

_POINTWISE_MATMUL = False
"""
Lower 1x1 convolutions of one group to a matrix product (`_pointwise`), for a
batch of one marked as a convolution's product (`conv_products.IM2COL_MARK`), which IREE's
data-tiling hint then reaches (`targets.iree.data_tiling_hints`; IREE's own
im2col of the named op drops it). Off: one convolution at a time (32-512
channels, 4x4 to 16x16, one thread), IREE 3.13 ran `linalg.matmul` no faster
than the named convolution, which `--iree-global-opt-use-im2col-for-convs`
turns into a matrix product; on whole models (one thread, CPU time,
interleaved, load 4-6, with the hint) MobileNetV3-small 0.84 -> 1.21 ms and
DenseNet-121 10.0 -> 11.6 in one run, MobileNetV3-small 1.64 -> 1.34 in
another, the rest within noise. `benchmarks/compile.py --lowering
conv_pool._POINTWISE_MATMUL=1` compares the two on whole models. (A 1x1 convolution
whose last position is computed apart takes the product form whatever this
says: `conv_products._LAST_POSITION_APART`.)
"""

_CHANNELS_LAST = False
"""
Lower 2-D convolutions of one group to `linalg.conv_2d_nhwc_hwcf` between
transposes (the input and the accumulator to channels-last, the weight to
`[kh, kw, C, F]`, the result back to NCHW), for IREE to cancel the transposes
between consecutive convolutions and fold the weight's into the constant (see
`_conv_2d_nhwc`). Off: on IREE 3.13 (one thread, an AVX-512 Xeon, interleaved,
`benchmarks/compile.py --lowering conv_pool._CHANNELS_LAST=1`) it ran a lone
dense 3x3 convolution 1.3x faster and a 1x1 1.2x, but ResNet-18 and MobileNet-v1
5-8% slower, and 25x slower a lone 3x3 without IREE's im2col.
"""

_TAP_WEIGHT_SLICES = True
"""
Give each tap of the tap-wise depthwise generic its own weight slice `[C]`
(an identity-like map), not the whole weight read at constant taps. MLIR's
vectorizer takes only projected-permutation maps, so IREE 3.13 compiled the
constant-tap form to scalar code: EfficientNet-B0's depthwise 3x3 (144
channels at 16x16, with batch norm and SiLU) 0.39 -> 0.13 ms, one thread.
"""

_DEPTHWISE_NHWC = False
"""
Compute the tap-wise depthwise generic channels-last, between transposes of
its (padded) input, accumulator and result, so that IREE vectorizes it along
the channels, not along a short or strided output row.
"""

_STRIDE_PHASES = True
"""
Compute a strided tap-wise depthwise generic over the stride's phases of its
input (space-to-depth, `_depthwise_phases`), so that every tap is a unit-stride
slice: IREE 3.13 reads a strided slice element by element. A 3x3 stride-2
depthwise convolution (96 channels, 32x32) 0.22 -> 0.14 ms, one thread.
"""

_DENSE_TAPS_IM2COL = True
"""
Lower a 2-D convolution of one group, a batch of one and a kernel larger than
1x1 to im2col columns copied from its window taps and one `linalg.matmul`
(`_taps_im2col`), not the named op, which `--iree-global-opt-use-im2col-for-convs`
turns into an im2col gather IREE 3.13 does not vectorize (14% of ResNet-18's
time). One thread, interleaved (`benchmarks/compile.py` has the table):
DenseNet-121 15.5 -> 12.1 ms, SqueezeNet 1.80 -> 1.41, ResNet-18 9.55 -> 9.38.
Over 5 to 15 positions the product may compute its last one apart
(`conv_products._LAST_POSITION_APART`).
"""

_WINDOW_COLUMNS = True
"""
Build the im2col columns of `_taps_im2col` and `_grouped_im2col` as one generic
(`columns.conv_columns`: a contiguous read per output row, the padding of the
rows above and below folded in as a mask) where the stride along the width is 1
and some padding row is read, not one copy per tap, which IREE 3.13 made one
dispatch each:
DenseNet-121 878 -> 414 dispatches a call at equal work (the copies 736 us,
the generics and the narrower pads 775; one thread). Whole models: see
`benchmarks/compile.py` (`--variant "conv_pool._WINDOW_COLUMNS=0"`).
"""

_GROUPED_TAPS = True
"""
Copy the im2col columns of a grouped convolution from its window taps
(`tap_slices`: unit-stride slices, from the stride phases when strided), tap
by tap, instead of one windowed gather generic, which IREE 3.13 does not
vectorize (static sizes only): a grouped 3x3 (128 channels in 8 groups at
16x16) 0.40 -> 0.35 ms, RegNet-X-400MF 4.37 -> 3.98 ms (one thread, CPU time,
interleaved).
"""

_MAX_POOL_TAPS = True
"""
Lower 2-D max pooling of static sizes whose indices nothing reads to the
elementwise maximum of its window taps read from the stride phases of its input
(`_max_of_taps`), not `linalg.pooling_nchw_max`, which IREE 3.13 vectorizes
along a few output columns read with a stride (vector tiles of 8 channels by 5
columns for a 3x3/2 pool with 15 output columns). SqueezeNet 1.1's three pools
took 138 of its 727 us of dispatches. With the taps, one thread, CPU time,
interleaved: SqueezeNet 1.84 -> 1.55 and 1.57 -> 1.23 ms in two runs,
ResNet-18, ShuffleNetV2 and DenseNet-121 within noise (DenseNet's pool, 64
channels at 32x32 padded by one, 47.7 us as the named op, 45.2 as its phases'
transpose, into which IREE fuses the stem's batch norm, and the taps'
maximum); the lone SqueezeNet pool 0.096 -> 0.099 ms.
"""

_MAX_POOL_CHANNELS_LAST = True
"""
Take those taps (`_MAX_POOL_TAPS`) as slices strided along the rows and columns
of the input moved channels-last (`windows.max_of_channels_last_taps`), the
maximum vectorized along the channels, not as unit-stride slices of the NCHW
input's stride phases: no -inf pad that rounds the input up to the stride (a
copy dispatch and a fill, where no window reaches past the input) and no phase
transpose, while IREE fuses the one transpose into the input's producer where it
can. The phase form's maximum ran on 15-, 7- and 3-wide rows, one workgroup per
channel, with the next product's operand packing fused in. SqueezeNet 1.1's three
pools, per dispatch (least times, one thread): 77 -> 27 us (onnxruntime's nodes
24), 150 -> 146 dispatches a call. Whole models, one thread, CPU time,
interleaved (channels-last / phases, ms, load 4-7): SqueezeNet 1.04 / 1.25,
1.21 / 1.37, 2.44 / 2.76, 1.00 / 1.00; the lone pool 0.064 / 0.095, 0.059 /
0.084; ShuffleNetV2 0.956 / 1.43, 0.917 / 0.888; ResNet-18 6.74 / 6.90, 6.46 /
6.52; DenseNet-121 10.6 / 11.0, 9.36 / 9.89 (`benchmarks/compile.py`).
"""

_POOL_BEFORE_POINTWISE = True
"""
Lower an average pooling of full windows over a 1x1 convolution nothing else
reads (stride 1, no padding, float32 or float64) as that convolution of the
pooled input (`_pooled_pointwise`): both are linear, so the product runs on a
quarter of the positions for a 2x2 pool. DenseNet's transitions (batch norm,
ReLU, a 1x1 convolution, 2x2 average pooling): their three products 697 -> 291
us a call per dispatch, their poolings, over twice the channels, 83 -> 156
(one thread; `benchmarks/compile.py`, which measures the whole model). The sums
are reassociated: torch's result up to rounding, NaN and infinities alike.
"""

_AVG_POOL_TAPS = True
"""
Lower 2-D average pooling of static sizes without padding whose windows are all
full to one elementwise generic over its window taps (`mean_of_taps`: strided
slices of the input), not a reduction over the window (`window_sum`) and a
division after it: the sum IREE computes for the reduction (float64 from 0, tap
by tap in window order), so natively the same result bit for bit (xDSL's
interpreter sums a window reduction in numpy's order: a float64 input's mean
may differ in its last bit). DenseNet-121's transition pools (2x2, stride 2,
after batch norm and ReLU), per dispatch with their batch-norm prologue (one
thread, least times): 105 -> 71 us a call; the whole model (one thread, CPU
time, interleaved, taps / reduction) 6.56 / 6.47 and 6.60 / 6.68 ms, within the
runs' noise (ResNet-18, the same program twice, 4.74 / 4.62). Channels-last taps
(as `_MAX_POOL_CHANNELS_LAST`) made the pools 14 us but their prologue, which
then transposes, 92: 110 in all, not kept. torch's CPU kernel sums a float32
window in float32 (1e8 + 1 - 1e8 averages to 0): summed so, the taps took 43 us,
but the lowering's sums are float64 (`core.accumulator`).
"""

_LIVE_TAPS = True
"""
Crop a float32 depthwise kernel to the taps that read some input element
(`_live_taps`): a tap whose window lies wholly in the padding of every output
adds zero times its weight. At EfficientNet-B0's 5x5 depthwise convolutions on
2x2 inputs (padding 2) 16 of the 25 taps read padding alone, and the cropped
3x3 generic takes 22.5 us a call instead of 46.9 (1152 channels, one thread).
Finite weights give the same sums either way. An infinite or NaN weight on such
a tap: torch's CPU kernel leaves the padding out of its sums (finite) or
multiplies it in (NaN) by its choice of oneDNN kernel. Measured on torch 2.13 at
stride 1 without dilation (kernels of 1x3 to 7x7, every padding narrower than
the kernel, inputs of 1x1 to 6x6): left out wherever no kernel dim exceeds 5
and the input is 2 or more wide, multiplied in for some 7-wide kernels and
one-column inputs. So the crop is taken only there, where it gives torch's
result, which the uncropped form did not.
"""

_MAX_TAPS = 49
"""
Depthwise kernels of at most this many taps (7x7) are one elementwise generic
over strided slices, one per tap: IREE 3.13 runs MobileNet-v1 about 30% faster
that way than with the windowed reduction generic (interleaved in one process,
bit-identical results); larger kernels keep the reduction form. Dense kernels
of more taps (a ViT's 16x16 patches) keep the named op, not a copy per tap
(ViT-tiny 6.45 ms, 6.38 with 256 tap copies: no gain for the 256 copies).
"""


# -- convolution ---------------------------------------------------------------


def _channel_init(st: LoweringState, sizes: Sequence[object], bias: object | None, acc: DType) -> SSAValue:
    """The accumulator: zeros, or the bias broadcast along dimension 1."""
    t = sized(sizes, acc)
    if bias is None:
        return st.filled(t, 0)
    bt = _t(bias)
    rank = len(sizes)
    return st.generic(
        [(st.tensor(bias), AffineMap(rank, 0, (_d(1),)))],
        [(st.empty(t), identity_map(rank))],
        [PARALLEL] * rank,
        lambda a: [st.cast(a[0], bt.element_dtype, acc)],
    )[0]


def _depthwise(
    st: LoweringState, x: SSAValue, w: SSAValue, init: SSAValue, stride: Sequence[int], dilation: Sequence[int], acc: DType
) -> SSAValue:
    """A depthwise convolution (weight `[C, 1, kh, kw]`) as a generic over (n, c, oh, ow, kh, kw)."""
    n, c, oh, ow, kh, kw = (_d(i) for i in range(6))
    maps = (
        AffineMap(6, 0, (n, c, oh * stride[0] + kh * dilation[0], ow * stride[1] + kw * dilation[1])),
        AffineMap(6, 0, (c, AffineExpr.constant(0), kh, kw)),
        AffineMap(6, 0, (n, c, oh, ow)),
    )
    return st.generic(
        [(x, maps[0]), (w, maps[1])], [(init, maps[2])], [PARALLEL] * 4 + [REDUCTION] * 2,
        lambda a: [add(st, mul(st, a[0], a[1], acc), a[2], acc)],
    )[0]  # fmt: skip


def _depthwise_taps(
    st: LoweringState, x: SSAValue, xs: Sequence[object], w: SSAValue, ws: Sequence[object], init: SSAValue,
    outs: Sequence[object], stride: Sequence[int], dilation: Sequence[int], acc: DType
) -> SSAValue:
    """
    A depthwise convolution as one elementwise generic over its kernel taps: each
    tap is a strided slice of the (padded) input the size of the output, times
    that tap's per-channel weight, all summed onto the bias. Each tap's weight
    is a slice `[C]` of its own, read along the channels: with every operand's
    map a projected permutation IREE 3.13 vectorizes the generic, where a
    weight map with constant taps, `(c, 0, i, j)`, left it scalar (3x slower
    on EfficientNet-B0's 3x3 layers; `_TAP_WEIGHT_SLICES`).
    """
    kh, kw = cast(int, ws[2]), cast(int, ws[3])
    channels = cast(int, ws[0])
    nhwc = _DEPTHWISE_NHWC and all(isinstance(v, int) for v in xs)
    # channels-last: the channels (index 3) are the innermost, contiguous dim of every tap
    order = [0, 2, 3, 1] if nhwc else [0, 1, 2, 3]
    if nhwc:
        x = transpose(st, x, order, sized([xs[i] for i in order], acc))
        init = transpose(st, init, order, sized([outs[i] for i in order], acc))
    tap_sizes = [outs[i] for i in order]
    sizes = [v if isinstance(v, int) else st.index(v) for v in tap_sizes]
    rt = tensor_type(sized(tap_sizes, acc))
    channel = _d(order.index(1))
    taps: list[tuple[SSAValue, AffineMap]] = []
    wmaps: list[tuple[SSAValue, AffineMap]] = []
    per_channel = tensor_type(sized([channels], acc))
    slices = None if nhwc else tap_slices(st, x, xs, [kh, kw], outs, stride, dilation, acc, _STRIDE_PHASES)
    for i in range(kh):
        for j in range(kw):
            if slices is None:
                offsets = [0, 0, i * dilation[0], j * dilation[1]]
                steps = [1, 1, stride[0], stride[1]]
                sl = tensor.ExtractSliceOp(x, [offsets[d] for d in order], sizes, [steps[d] for d in order], rt)
                taps.append((st.emit(sl), identity_map(4)))
            else:
                taps.append((slices[i * kw + j], identity_map(4)))
            if _TAP_WEIGHT_SLICES or nhwc:
                tap_w = st.emit(tensor.ExtractSliceOp(w, [0, 0, i, j], [channels, 1, 1, 1], [1, 1, 1, 1], per_channel))
                wmaps.append((tap_w, AffineMap(4, 0, (channel,))))
            else:
                wmaps.append((w, AffineMap(4, 0, (_d(1), AffineExpr.constant(0), AffineExpr.constant(i), AffineExpr.constant(j)))))
    res = _tap_sum(st, taps, wmaps, init, acc)
    return transpose(st, res, [0, 3, 1, 2], sized(list(outs), acc)) if nhwc else res


def _tap_sum(
    st: LoweringState, taps: Sequence[tuple[SSAValue, AffineMap]], weights: Sequence[tuple[SSAValue, AffineMap]], init: SSAValue, acc: DType
) -> SSAValue:
    """One elementwise generic summing `tap * weight` over the taps onto `init`, tap by tap in order."""
    k = len(taps)

    def body(a: Sequence[SSAValue]) -> list[SSAValue]:
        total = a[2 * k]
        for t in range(k):
            total = add(st, total, mul(st, a[t], a[k + t], acc), acc)
        return [total]

    return st.generic([*taps, *weights], [(init, identity_map(4))], [PARALLEL] * 4, body)[0]


def _transposed(
    st: LoweringState,
    lx: SSAValue,
    xs: Sequence[object],
    lw: SSAValue,
    ws: Sequence[object],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    output_padding: Sequence[int],
    groups: int,
    acc: DType,
) -> tuple[SSAValue, list[object], SSAValue, list[object], list[int], list[int]]:
    """
    An N-d transposed convolution as a direct one at stride 1: the input dilated
    by the stride (zeros between its elements, a strided `tensor.insert_slice`),
    padded by `dilation * (kernel - 1) - padding` on each side (plus
    `output_padding` after), and the weight `[G*Ci, Co, *kernel]` turned into
    `[G*Co, Ci, *kernel]` with its window flipped. Returns the new input and its
    sizes, the new weight and its sizes, and the low and high padding still to
    apply.
    """
    if not all(isinstance(v, int) for v in ws):
        raise st.error("transposed convolution with a symbolic weight size")
    cin_total, co, *kernel = cast(list[int], list(ws))
    nd = len(kernel)
    ci = cin_total // groups
    low = [dilation[i] * (kernel[i] - 1) - padding[i] for i in range(nd)]
    high = [low[i] + output_padding[i] for i in range(nd)]
    if min(*low, *high) < 0:
        raise st.error("transposed convolution whose padding exceeds dilation * (kernel - 1) is not lowered")
    gsizes = [groups, co, ci, *kernel]

    def gather(a: Sequence[SSAValue]) -> list[SSAValue]:
        # w[g*Ci + c, f, k0-1-i0, k1-1-i1, ...], read with tensor.extract: IREE
        # rejects the negative coefficients an affine map would need for the flip
        g, f, c, *taps = (st.emit(linalg.IndexOp(k)) for k in range(3 + nd))
        row = st.emit(arith.AddiOp(st.emit(arith.MuliOp(g, st.index(ci))), c))
        rows = [st.emit(arith.SubiOp(st.index(kernel[n] - 1), v)) for n, v in enumerate(taps)]
        return [st.emit(tensor.ExtractOp(lw, [row, f, *rows], element_type(acc)))]

    flipped = st.generic([], [(st.empty_of(gsizes, acc), identity_map(3 + nd))], [PARALLEL] * (3 + nd), gather)[0]
    new_ws: list[object] = [groups * co, ci, *kernel]
    lw = collapse(st, flipped, [[0, 1], *([i] for i in range(2, 3 + nd))], new_ws, element_type(acc))
    if any(s > 1 for s in stride):
        # dilated and padded at once: the input is inserted with a stride into
        # zeros of the padded size (IREE 3.13 miscomputes a tensor.pad of a
        # strided insert_slice)
        psizes = [*xs[:2], *(plus(_dilated(xs[2 + i], stride[i]), low[i] + high[i]) for i in range(nd))]
        zeros = st.filled(sized(psizes, acc), 0)
        sizes = [v if isinstance(v, int) else st.index(v) for v in xs]
        lx = st.insert_slice(lx, zeros, [0, 0, *low], sizes, [1, 1, *stride])
        return lx, psizes, lw, new_ws, [0] * nd, [0] * nd
    return lx, list(xs), lw, new_ws, low, high


def _conv_2d(
    st: LoweringState,
    lx: SSAValue,
    xs: Sequence[object],
    lw: SSAValue,
    ws: Sequence[object],
    init: SSAValue,
    os: Sequence[object],
    groups: int,
    stride: Sequence[int],
    dilation: Sequence[int],
    acc: DType,
) -> SSAValue:
    """A 2-D convolution of the padded input `lx`, accumulated onto `init`: a named op, or a depthwise generic."""
    strides, dilations = pair(stride), pair(dilation)
    if groups == 1 and ws[2:] == [1, 1] and all(isinstance(v, int) for v in (*xs[1:], *os[1:])):
        apart = apart_start(init, xs, ws, os, acc)
        if _POINTWISE_MATMUL or apart is not None:
            return _pointwise(st, lx, xs, lw, ws, init, os, stride, acc, apart)
    dense_taps = groups == 1 and _DENSE_TAPS_IM2COL and xs[0] == 1 and ws[2:] != [1, 1] and all_positive([*xs, *ws, *os])
    if dense_taps and cast(int, ws[2]) * cast(int, ws[3]) <= _MAX_TAPS:
        return _taps_im2col(st, lx, xs, lw, ws, init, os, stride, dilation, acc)
    if groups == 1 and _CHANNELS_LAST:
        return _conv_2d_nhwc(st, lx, xs, lw, ws, init, os, strides, dilations, acc)
    if groups == 1:
        return st.emit(linalg.Conv2DNchwFchwOp((lx, lw), (init,), (init.type,), strides=strides, dilations=dilations))
    if _DEPTHWISE_GENERIC and ws[1] == 1 and xs[1] == groups == ws[0]:
        kernel = ws[2:]
        if all(isinstance(k, int) for k in kernel) and cast(int, kernel[0]) * cast(int, kernel[1]) <= _MAX_TAPS:
            return _depthwise_taps(st, lx, xs, lw, ws, init, os, stride, dilation, acc)
        return _depthwise(st, lx, lw, init, stride, dilation, acc)
    cin, fout = xs[1], ws[0]
    if not isinstance(cin, int) or not isinstance(fout, int):
        raise st.error("grouped convolution with a symbolic channel count")
    c, f = cin // groups, fout // groups
    if _GROUPED_IM2COL and all(isinstance(v, int) for v in (*ws[2:], *os[2:])):
        return _grouped_im2col(st, lx, xs, lw, ws, init, os, groups, stride, dilation, acc)
    gx = expand(st, lx, [[0], [1, 2], [3], [4]], [xs[0], groups, c, xs[2], xs[3]], element_type(acc))
    gw = expand(st, lw, [[0, 1], [2], [3], [4]], [groups, f, *ws[1:]], element_type(acc))
    gsizes = [os[0], groups, f, os[2], os[3]]
    ginit = expand(st, init, [[0], [1, 2], [3], [4]], gsizes, element_type(acc))
    conv = linalg.Conv2DNgchwGfchwOp((gx, gw), (ginit,), (ginit.type,), strides=strides, dilations=dilations)
    return collapse(st, st.emit(conv), [[0], [1, 2], [3], [4]], os, element_type(acc))


def _conv_2d_nhwc(
    st: LoweringState,
    lx: SSAValue,
    xs: Sequence[object],
    lw: SSAValue,
    ws: Sequence[object],
    init: SSAValue,
    os: Sequence[object],
    strides: DenseIntElementsAttr,
    dilations: DenseIntElementsAttr,
    acc: DType,
) -> SSAValue:
    """A 2-D convolution of one group computed channels-last (see `_CHANNELS_LAST`):
    the same sums in the same order as the NCHW named op, on transposed operands."""
    nhwc = [0, 2, 3, 1]
    x = transpose(st, lx, nhwc, sized([xs[i] for i in nhwc], acc))
    w = transpose(st, lw, [2, 3, 1, 0], sized([ws[2], ws[3], ws[1], ws[0]], acc))
    out = transpose(st, init, nhwc, sized([os[i] for i in nhwc], acc))
    conv = st.emit(linalg.Conv2DNhwc_HwcfOp((x, w), (out,), (out.type,), strides=strides, dilations=dilations))
    return transpose(st, conv, [0, 3, 1, 2], sized(os, acc))


def _taps_im2col(
    st: LoweringState,
    lx: SSAValue,
    xs: Sequence[object],
    lw: SSAValue,
    ws: Sequence[object],
    init: SSAValue,
    os: Sequence[object],
    stride: Sequence[int],
    dilation: Sequence[int],
    acc: DType,
) -> SSAValue:
    """
    A 2-D convolution of one group, batch one, as a matrix product over im2col columns
    (`_DENSE_TAPS_IM2COL`): each tap (`tap_slices`) is copied into the columns `[C,
    kh*kw, OH, OW]`, rows in the order of the weight's `[F, C, kh, kw]`, which multiplies
    them as stored (a reordered weight is computed on each call, or copied at load time
    when IREE hoists it). The product carries `conv_products.IM2COL_MARK`. Static sizes only.
    """
    el = element_type(acc)
    f, c, kh, kw = cast(list[int], list(ws))
    oh, ow = cast(int, os[2]), cast(int, os[3])
    apart, last = apart_start(init, xs, ws, os, acc), None
    if apart is not None:
        # the last position's window, read from the padded input before the columns (which may erase its pad)
        window = tensor.ExtractSliceOp(
            lx, [0, 0, (oh - 1) * stride[0], (ow - 1) * stride[1]], [1, c, kh, kw], [1, 1, *dilation], tensor_type(sized([c, kh, kw], acc))
        )
        last = collapse(st, st.emit(window), [[0, 1, 2]], [c * kh * kw], el)
    cols = conv_columns(st, lx, xs, [kh, kw], os, stride, dilation, 1, acc) if _WINDOW_COLUMNS else None
    if cols is not None:
        cols = collapse(st, cols, [[0, 1, 2, 3, 4], [5, 6]], [c * kh * kw, oh * ow], el)
    else:
        taps = tap_slices(st, lx, xs, [kh, kw], os, stride, dilation, acc, _STRIDE_PHASES)
        cols = st.empty_of([c, len(taps), oh, ow], acc)
        for t, tap in enumerate(taps):
            tap = expand(st, collapse(st, tap, [[0, 1], [2], [3]], [c, oh, ow], el), [[0, 1], [2], [3]], [c, 1, oh, ow], el)
            cols = st.insert_slice(tap, cols, [0, t, 0, 0], [c, 1, oh, ow])
        cols = collapse(st, cols, [[0, 1], [2, 3]], [c * len(taps), oh * ow], el)
    w = collapse(st, lw, [[0], [1, 2, 3]], [f, c * kh * kw], el)
    acc0 = collapse(st, init, [[0, 1], [2, 3]], [f, oh * ow], el)
    return expand(st, marked_product(st, w, cols, acc0, apart, last), [[0, 1], [2, 3]], os, el)


def _pointwise(
    st: LoweringState,
    lx: SSAValue,
    xs: Sequence[object],
    lw: SSAValue,
    ws: Sequence[object],
    init: SSAValue,
    os: Sequence[object],
    stride: Sequence[int],
    acc: DType,
    apart: tuple[SSAValue | None] | None = None,
) -> SSAValue:
    """
    A 1x1 convolution of one group as a matrix product: the weight `[F, C]` times
    the input `[C, OH*OW]` (a strided slice first when the stride is not 1), a
    `linalg.matmul` for a batch of one (its last position apart with `apart`,
    `conv_products.apart_start`), else a contraction generic over the batch
    (see `_POINTWISE_MATMUL`). Channel and spatial sizes are static.
    """
    el = element_type(acc)
    n, c, f = xs[0], cast(int, xs[1]), cast(int, ws[0])
    oh, ow = cast(int, os[2]), cast(int, os[3])
    if [xs[2], xs[3]] != [oh, ow]:
        sizes = [n if isinstance(n, int) else st.index(n), c, oh, ow]
        sl = tensor.ExtractSliceOp(lx, [0, 0, 0, 0], sizes, [1, 1, *stride], tensor_type(sized([n, c, oh, ow], acc)))
        lx = st.emit(sl)
    w = collapse(st, lw, [[0], [1, 2, 3]], [f, c], el)
    if n == 1:
        x = collapse(st, lx, [[0, 1], [2, 3]], [c, oh * ow], el)
        acc0 = collapse(st, init, [[0, 1], [2, 3]], [f, oh * ow], el)
        return expand(st, marked_product(st, w, x, acc0, apart), [[0, 1], [2, 3]], os, el)
    x = collapse(st, lx, [[0], [1], [2, 3]], [n, c, oh * ow], el)
    acc0 = collapse(st, init, [[0], [1], [2, 3]], [n, f, oh * ow], el)
    b, fo, q, r = (_d(v) for v in range(4))
    prod = st.generic(
        [(w, AffineMap(4, 0, (fo, r))), (x, AffineMap(4, 0, (b, r, q)))],
        [(acc0, AffineMap(4, 0, (b, fo, q)))],
        [PARALLEL] * 3 + [REDUCTION],
        lambda a: [add(st, a[2], mul(st, a[0], a[1], acc), acc)],
    )[0]
    return expand(st, prod, [[0], [1], [2, 3]], os, el)


def _grouped_im2col(
    st: LoweringState,
    lx: SSAValue,
    xs: Sequence[object],
    lw: SSAValue,
    ws: Sequence[object],
    init: SSAValue,
    os: Sequence[object],
    groups: int,
    stride: Sequence[int],
    dilation: Sequence[int],
    acc: DType,
) -> SSAValue:
    """
    A grouped 2-D convolution as a batched matrix product over im2col columns:
    the padded input's windows gathered into `[N, G, C*kh*kw, OH*OW]` (a copying
    generic), contracted with the weight `[G, F, C*kh*kw]` per batch and group
    onto the accumulator `[N, G, F, OH*OW]` (see `_GROUPED_IM2COL`). Kernel and
    output sizes are static; the batch may be symbolic.
    """
    el = element_type(acc)
    n = xs[0]
    c, f = cast(int, xs[1]) // groups, cast(int, ws[0]) // groups
    kh, kw, oh, ow = (cast(int, v) for v in (*ws[2:], *os[2:]))
    k, p = c * kh * kw, oh * ow
    window = conv_columns(st, lx, xs, [kh, kw], os, stride, dilation, groups, acc, True) if _WINDOW_COLUMNS else None
    if window is not None:
        cols = collapse(st, window, [[0], [1], [2, 3, 4], [5, 6]], [n, groups, k, p], el)
        w = transpose(st, lw, [0, 2, 3, 1], sized([groups * f, kh, kw, c], acc))
        gw = expand(st, collapse(st, w, [[0], [1, 2, 3]], [groups * f, k], el), [[0, 1], [2]], [groups, f, k], el)
    elif _GROUPED_TAPS and all_positive([*xs, *os]):
        # the columns [N, G, kh*kw, C, OH, OW] copied tap by tap (`tap_slices`), the weight to [G, F, kh, kw, C]
        taps = tap_slices(st, lx, xs, [kh, kw], os, stride, dilation, acc, _STRIDE_PHASES)
        cols = st.empty_of([n, groups, kh * kw, c, oh, ow], acc)
        for t, tap in enumerate(taps):
            grouped = expand(st, tap, [[0], [1, 2, 3], [4], [5]], [n, groups, 1, c, oh, ow], el)
            cols = st.insert_slice(grouped, cols, [0, 0, t, 0, 0, 0], [cast(int, n), groups, 1, c, oh, ow])
        cols = collapse(st, cols, [[0], [1], [2, 3], [4, 5]], [n, groups, k, p], el)
        w = transpose(st, lw, [0, 2, 3, 1], sized([groups * f, kh, kw, c], acc))
        gw = expand(st, collapse(st, w, [[0], [1, 2, 3]], [groups * f, k], el), [[0, 1], [2]], [groups, f, k], el)
    else:
        gx = expand(st, lx, [[0], [1, 2], [3], [4]], [n, groups, c, xs[2], xs[3]], el)
        b, g, ch, i, j, y, x = (_d(q) for q in range(7))
        gather = AffineMap(7, 0, (b, g, ch, y * stride[0] + i * dilation[0], x * stride[1] + j * dilation[1]))
        cols = st.generic(
            [(gx, gather)], [(st.empty_of([n, groups, c, kh, kw, oh, ow], acc), identity_map(7))], [PARALLEL] * 7, lambda a: [a[0]]
        )[0]
        cols = collapse(st, cols, [[0], [1], [2, 3, 4], [5, 6]], [n, groups, k, p], el)
        gw = expand(st, collapse(st, lw, [[0], [1, 2, 3]], [groups * f, k], el), [[0, 1], [2]], [groups, f, k], el)
    ginit = collapse(st, expand(st, init, [[0], [1, 2], [3], [4]], [n, groups, f, oh, ow], el), [[0], [1], [2], [3, 4]], [n, groups, f, p], el)
    b, g, fo, q, r = (_d(v) for v in range(5))
    prod = st.generic(
        [(gw, AffineMap(5, 0, (g, fo, r))), (cols, AffineMap(5, 0, (b, g, r, q)))],
        [(ginit, AffineMap(5, 0, (b, g, fo, q)))],
        [PARALLEL] * 4 + [REDUCTION],
        lambda a: [add(st, a[2], mul(st, a[0], a[1], acc), acc)],
    )[0]
    out = expand(st, prod, [[0], [1], [2], [3, 4]], [n, groups, f, oh, ow], el)
    return collapse(st, out, [[0], [1, 2], [3], [4]], os, el)


def _move_dim(st: LoweringState, value: SSAValue, sizes: Sequence[object], src: int, dst: int, acc: DType) -> SSAValue:
    """`value` with its dim `src` moved to position `dst` (a copying generic)."""
    order = list(range(len(sizes)))
    order.insert(dst, order.pop(src))
    rank = len(order)
    read = AffineMap(rank, 0, tuple(_d(order.index(i)) for i in range(rank)))
    out = st.empty_of([sizes[i] for i in order], acc)
    return st.generic([(value, read)], [(out, identity_map(rank))], [PARALLEL] * rank, lambda a: [a[0]])[0]


def _conv_nd(
    st: LoweringState,
    lx: SSAValue,
    xs: Sequence[object],
    lw: SSAValue,
    ws: Sequence[object],
    init: SSAValue,
    os: Sequence[object],
    groups: int,
    stride: Sequence[int],
    dilation: Sequence[int],
    acc: DType,
) -> SSAValue:
    """
    A convolution of the padded input `lx` with any number of spatial dims,
    accumulated onto `init`, down to the named 2-D ops (xDSL has no 3-D ones):
    above two spatial dims it is the sum, over the taps `k` of its leading
    kernel dim, of a convolution with one spatial dim fewer, of `weight[:, :,
    k]` with the input positions `k * dilation + o * stride` (a strided slice),
    that dim folded into the batch, as the output's is. Each tap accumulates
    onto the previous one's result. On IREE 3.13 this runs the conv3d zoo model
    3.5x faster than one windowed `linalg.generic` over all dims.
    """
    nd = len(stride)
    if nd == 2:
        return _conv_2d(st, lx, xs, lw, ws, init, os, groups, stride, dilation, acc)
    taps = ws[2]
    if not isinstance(taps, int):
        raise st.error("convolution with a symbolic kernel size")
    el = element_type(acc)
    rank = nd + 2
    n, c, _, *x_rest = xs
    f, cw, _, *w_rest = ws
    _, _, depth, *o_rest = os
    batch: object = n * depth if isinstance(n, int) and isinstance(depth, int) else sympy.Mul(cast(sympy.Expr, n), cast(sympy.Expr, depth))
    fold = [[0, 1], *([i] for i in range(2, rank))]
    x_moved = _move_dim(st, lx, xs, 2, 1, acc)
    acc_v = collapse(st, _move_dim(st, init, os, 2, 1, acc), fold, [batch, f, *o_rest], el)
    slice_sizes = [n, depth, c, *x_rest]
    dynamic = [v if isinstance(v, int) else st.index(v) for v in slice_sizes]
    for k in range(taps):
        offsets = [0, k * dilation[0], *([0] * (rank - 2))]
        sl = tensor.ExtractSliceOp(x_moved, offsets, dynamic, [1, stride[0], *([1] * (rank - 2))], tensor_type(sized(slice_sizes, acc)))
        x_k = collapse(st, st.emit(sl), fold, [batch, c, *x_rest], el)
        w_sizes = [f, cw, 1, *w_rest]
        w_dynamic = [v if isinstance(v, int) else st.index(v) for v in w_sizes]
        wl = tensor.ExtractSliceOp(lw, [0, 0, k, *([0] * (rank - 3))], w_dynamic, [1] * rank, tensor_type(sized(w_sizes, acc)))
        w_k = collapse(st, st.emit(wl), [[0], [1], [2, 3], *([i] for i in range(4, rank))], [f, cw, *w_rest], el)
        acc_v = _conv_nd(st, x_k, [batch, c, *x_rest], w_k, [f, cw, *w_rest], acc_v, [batch, f, *o_rest], groups, stride[1:], dilation[1:], acc)
    res = expand(st, acc_v, fold, [n, depth, f, *o_rest], el)
    return _move_dim(st, res, [n, depth, f, *o_rest], 1, 2, acc)


def _live_taps(
    st: LoweringState, lw: SSAValue, xs: Sequence[object], ws: Sequence[object], os: Sequence[object],
    stride: Sequence[int], dilation: Sequence[int], low: list[int], groups: int, acc: DType,
) -> tuple[SSAValue, list[object], list[int]]:
    """
    The weight of a 2-D depthwise convolution cropped, along each spatial dim,
    to the kernel taps from the first to the last that read an input element
    at some output position, with the low padding reduced by the taps cut
    before (`_LIVE_TAPS`); the weight, its sizes and the low padding unchanged
    otherwise, and where torch's kernel may multiply the padding in (see
    `_LIVE_TAPS`). At stride 1 without dilation the first live tap is at most the
    low padding (tap `low` reads input 0 at output 0), so the padding stays
    non-negative; `fit` crops the high side to what the kept taps read.
    """
    kernel, spatial, out = ws[2:], xs[2:], os[2:]
    sizes = [*xs, *ws, *os]
    if not (
        len(kernel) == 2 and ws[1] == 1 and xs[1] == groups == ws[0] and all_positive(sizes)
        and all(d == 1 for d in dilation) and all(s == 1 for s in stride)
        and all(p < cast(int, k) <= 5 for p, k in zip(low, kernel)) and cast(int, spatial[1]) >= 2
    ):  # fmt: skip
        return lw, list(ws), low
    first: list[int] = []
    last: list[int] = []
    for k, h, o, p in zip(cast(list[int], kernel), cast(list[int], spatial), cast(list[int], out), low):
        live = [i for i in range(k) if any(0 <= r + i - p < h for r in range(o))]
        first.append(live[0])
        last.append(live[-1])
    if first == [0, 0] and last == [k - 1 for k in cast(list[int], kernel)]:
        return lw, list(ws), low
    cropped = [ws[0], 1, *(b - a + 1 for a, b in zip(first, last))]
    lw = st.emit(tensor.ExtractSliceOp(lw, [0, 0, *first], cropped, [1, 1, 1, 1], tensor_type(sized(cropped, acc))))
    return lw, cropped, [p - a for p, a in zip(low, first)]


def _dilated(size: object, stride: int) -> object:
    """The size of a dim with `stride - 1` zeros put between its elements."""
    if isinstance(size, int):
        return (size - 1) * stride + 1
    return cast(sympy.Expr, size) * stride - (stride - 1)


@lowers("aten.convolution.default", note="transposed convolutions padded by more than dilation * (kernel - 1) refused")
def _convolution(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x, w, bias = b.value("input"), b.value("weight"), b.get("bias")
    xt, wt, out = _t(x), _t(w), _out(op)
    nd = wt.rank - 2
    transposed = bool(b["transposed"])
    if nd < 1:
        raise st.error("convolution without a spatial dim has no linalg lowering")
    stride, padding, dilation = b.ints("stride", nd), b.ints("padding", nd), b.ints("dilation", nd)
    groups = b.int("groups")
    acc = out.element_dtype.opmath()
    lx = st.convert(st.tensor(x), xt, acc)
    lw = st.convert(st.tensor(w), wt, acc)
    xs, ws, os = list(xt.sizes), list(wt.sizes), list(out.sizes)
    batched = xt.rank == nd + 2
    if not batched:
        lx = expand(st, lx, [[0, 1], *([i + 1] for i in range(1, len(xs)))], [1, *xs], element_type(acc))
        xs, os = [1, *xs], [1, *os]
    if nd == 1:
        lx = expand(st, lx, [[0], [1], [2, 3]], [xs[0], xs[1], 1, xs[2]], element_type(acc))
        lw = expand(st, lw, [[0], [1], [2, 3]], [ws[0], ws[1], 1, ws[2]], element_type(acc))
        xs, ws, os = [xs[0], xs[1], 1, xs[2]], [ws[0], ws[1], 1, ws[2]], [os[0], os[1], 1, os[2]]
        stride, padding, dilation = [1, *stride], [0, *padding], [1, *dilation]
    low, high = list(padding), list(padding)
    if _LIVE_TAPS and not transposed and out.element_dtype is DType.float32:
        lw, ws, low = _live_taps(st, lw, xs, ws, os, stride, dilation, low, groups, acc)
    if transposed:
        output_padding = b.ints("output_padding", nd)
        output_padding = [0, *output_padding] if nd == 1 else output_padding
        lx, xs, lw, ws, low, high = _transposed(st, lx, xs, lw, ws, stride, padding, dilation, output_padding, groups, acc)
        stride = [1] * len(stride)
    extents = [None, None, *(window_extent(os[2 + i], cast(int, ws[2 + i]), s, d) for i, (s, d) in enumerate(zip(stride, dilation)))]
    lx, xs = fit(st, lx, xs, [0, 0, *low], extents, [0, 0, *high], 0, acc)
    init = _channel_init(st, os, bias, acc)
    res = _conv_nd(st, lx, xs, lw, ws, init, os, groups, stride, dilation, acc)
    if nd == 1:
        os = [os[0], os[1], os[3]]
        res = collapse(st, res, [[0], [1], [2, 3]], os, element_type(acc))
    if not batched:
        os = os[1:]
        res = collapse(st, res, [[0, 1], *([i + 1] for i in range(1, len(os)))], os, element_type(acc))
    return [st.convert(res, sized(out.sizes, acc), out.element_dtype)]


# -- pooling -------------------------------------------------------------------


def _max_of_taps(st: LoweringState, win: Window, x: SSAValue, xt: TensorType, out: TensorType) -> SSAValue:
    """
    2-D max pooling of the NCHW input `x` (static sizes) as one elementwise
    generic over its window taps (`tap_slices`, unit-stride slices of the stride
    phases when strided), each compared in window order as torch's CPU kernel
    does, `tap > best or isnan(tap)`: NaN wins, and of equal values (zeros of
    either sign) the first (`pointwise_maximum`'s rule). The input is padded with
    -inf (cropped) in one `tensor.pad` to what the windows read rounded up to a
    multiple of the stride, which the phases need: no tap reads the rounding.
    See `_MAX_POOL_TAPS`.
    """
    dt = out.element_dtype
    extents = [
        -(-cast(int, window_extent(o, k, s, d)) // s) * s
        for o, k, s, d in zip(out.sizes[2:], win.kernel, win.stride, win.dilation)
    ]
    xp, xs = fit(st, x, xt.sizes, [0, 0, *win.padding], [None, None, *extents], [0, 0, 0, 0], lowest(dt), dt)
    taps = tap_slices(st, xp, xs, win.kernel, out.sizes, win.stride, win.dilation, dt, _STRIDE_PHASES)

    def body(a: Sequence[SSAValue]) -> list[SSAValue]:
        best = a[0]
        for tap in a[1 : len(taps)]:
            best = pointwise_maximum(st, tap, best, dt)
        return [best]

    return st.generic([(t, identity_map(4)) for t in taps], [(st.empty(out), identity_map(4))], [PARALLEL] * 4, body)[0]


@lowers("aten.max_pool2d_with_indices.default")
def _max_pool2d(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _max_pool(st, op, b, 2)


@lowers("aten.max_pool3d_with_indices.default")
def _max_pool3d(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _max_pool(st, op, b, 3)


def _max_pool(st: LoweringState, op: AtenOp, b: Bound, nd: int) -> list[SSAValue]:
    """
    `nd`-D max pooling with its indices (flat over the unpadded spatial dims,
    the first maximum winning, or the last NaN, as in torch's CPU kernel). For
    2-D float NCHW when nothing reads the indices, the elementwise maximum of
    the window taps (`_max_of_taps`, `_MAX_POOL_TAPS`), or the named
    `linalg.pooling_nchw_max`.
    """
    x = b.value("self")
    xt, out, idx_t = _t(x), _out(op), _out(op, 1)
    dt = xt.element_dtype
    win = Window.of(b, xt, out, nd)
    need_indices = bool(op.results[1].uses)
    plain = not need_indices and nd == 2 and xt.rank == 4 and dt.is_floating_point
    if plain and _MAX_POOL_TAPS and all_positive([*xt.sizes, *out.sizes]) and math.prod(win.kernel) <= _MAX_TAPS:
        if _MAX_POOL_CHANNELS_LAST:
            return [max_of_channels_last_taps(st, win, st.tensor(x), xt, out), st.empty(idx_t)]
        return [_max_of_taps(st, win, st.tensor(x), xt, out), st.empty(idx_t)]
    xp = win.padded(st, st.tensor(x), xt, lowest(dt), dt)
    init = st.filled(out, lowest(dt))
    if plain:
        pool = linalg.PoolingNchwMaxOp(
            (xp, win.window_tensor(st, dt)), (init,), (init.type,), strides=pair(win.stride), dilations=pair(win.dilation)
        )
        return [st.emit(pool), st.empty(idx_t)]
    in_map, w_map, o_map = win.maps()
    lead = win.lead
    sizes = [st.index(s) for s in win.in_sizes]

    def coordinate(i: int) -> SSAValue:
        """The unpadded input coordinate a window element reads along spatial dim `i`."""
        o = st.emit(linalg.IndexOp(lead + i))
        k = st.emit(linalg.IndexOp(lead + nd + i))
        pos = st.emit(arith.AddiOp(st.emit(arith.MuliOp(o, st.index(win.stride[i]))), st.emit(arith.MuliOp(k, st.index(win.dilation[i])))))
        return st.emit(arith.SubiOp(pos, st.index(win.padding[i])))

    def inside(c: SSAValue, size: SSAValue) -> SSAValue:
        nonneg = st.emit(arith.CmpiOp(c, st.index(0), "sge"))
        return st.emit(arith.AndIOp(nonneg, st.emit(arith.CmpiOp(c, size, "slt"))))

    def body(a: Sequence[SSAValue]) -> list[SSAValue]:
        val, _, cur, ci = a
        coords = [coordinate(i) for i in range(nd)]
        valid = inside(coords[0], sizes[0])
        flat_index = coords[0]
        for c, size in zip(coords[1:], sizes[1:]):
            valid = st.emit(arith.AndIOp(valid, inside(c, size)))
            flat_index = st.emit(arith.AddiOp(st.emit(arith.MuliOp(flat_index, size)), c))
        flat = st.emit(arith.IndexCastOp(flat_index, i64))
        take = st.emit(arith.AndIOp(valid, better(st, val, flat, cur, ci, dt, True, last_nan=True)))
        return [select(st, take, val, cur), select(st, take, flat, ci)]

    idx_init = st.filled(idx_t, 2**63 - 1)
    vals, idx = st.generic(
        [(xp, in_map), (win.window_tensor(st, dt), w_map)], [(init, o_map), (idx_init, o_map)], win.iterators(), body
    )
    return [vals, idx]


def _avg(
    st: LoweringState, win: Window, x: SSAValue, xt: TensorType, out: TensorType, count_include_pad: bool, divisor_override: object
) -> SSAValue:
    """
    Average pooling of the lowered `x` (of exir type `xt`) to `out`. torch's
    CPU kernel pools int64 too: it sums in int64 and divides as C++ does,
    truncating toward zero.
    """
    if not out.element_dtype.is_floating_point and out.element_dtype.opmath() is not DType.int64:
        raise st.error(f"average pooling of {out.element_dtype}: torch's CPU kernel pools floating-point and int64 tensors only")
    acc = accumulator(out.element_dtype)  # float64 for floats, so each window's mean is rounded once

    def quotient(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
        return div(st, a, b, dt) if dt.is_floating_point else trunc_divide(st, a, b, dt)

    taps = _AVG_POOL_TAPS and win.nd == 2 and xt.rank == 4 and out.element_dtype.is_floating_point
    if taps and all_positive([*xt.sizes, *out.sizes]) and not any(win.padding) and full_windows(win, count_include_pad):
        if math.prod(win.kernel) <= _MAX_TAPS:
            n = divisor_override if divisor_override is not None else math.prod(win.kernel)
            return mean_of_taps(st, win, x, xt, out, acc, n)
    total = window_sum(st, win, x, xt, out, acc)
    rank = out.rank
    if divisor_override is not None or full_windows(win, count_include_pad):
        n = divisor_override if divisor_override is not None else math.prod(win.kernel)
        divisor = st.scalar(n, acc)
        return st.generic(
            [(total, identity_map(rank))], [(st.empty(out), identity_map(rank))], [PARALLEL] * rank,
            lambda a: [st.cast(quotient(st, a[0], divisor, acc), acc, out.element_dtype)],
        )[0]  # fmt: skip
    sizes = [st.index(s) for s in win.in_sizes]

    def extent(i: int) -> SSAValue:
        """torch's window extent along spatial dim `i`: the pool size, or the input elements in it."""
        o = st.emit(linalg.IndexOp(win.lead + i))
        start = st.emit(arith.SubiOp(st.emit(arith.MuliOp(o, st.index(win.stride[i]))), st.index(win.padding[i])))
        end = st.emit(arith.MinSIOp(st.emit(arith.AddiOp(start, st.index(win.kernel[i]))), st.emit(arith.AddiOp(sizes[i], st.index(win.padding[i])))))
        if not count_include_pad:
            start = st.emit(arith.MaxSIOp(start, st.index(0)))
            end = st.emit(arith.MinSIOp(end, sizes[i]))
        return st.emit(arith.SubiOp(end, start))

    def body(a: Sequence[SSAValue]) -> list[SSAValue]:
        n = extent(0)
        for i in range(1, win.nd):
            n = st.emit(arith.MuliOp(n, extent(i)))
        divisor = st.cast(st.emit(arith.IndexCastOp(n, i64)), DType.int64, acc)
        return [st.cast(quotient(st, a[0], divisor, acc), acc, out.element_dtype)]

    return st.generic([(total, identity_map(rank))], [(st.empty(out), identity_map(rank))], [PARALLEL] * rank, body)[0]


def _unit_height(t: TensorType) -> TensorType:
    """`[..., L]` as `[..., 1, L]`: 1-D pooling is 2-D pooling over a unit height."""
    return sized([*t.sizes[:-1], 1, t.sizes[-1]], t.element_dtype)


def _height_groups(rank: int) -> list[list[int]]:
    return [*([i] for i in range(rank - 1)), [rank - 1, rank]]


def _pool_1d(st: LoweringState, x: SSAValue, out: TensorType, pool: Callable[[SSAValue, TensorType, TensorType], SSAValue]) -> SSAValue:
    """A 1-D pooling done by `pool` on the `[..., 1, L]` view of `x`, the result viewed back."""
    xt = _t(x)
    xt2, out2 = _unit_height(xt), _unit_height(out)
    x2 = expand(st, st.tensor(x), _height_groups(xt.rank), xt2.sizes, element_type(xt.element_dtype))
    return collapse(st, pool(x2, xt2, out2), _height_groups(out.rank), out.sizes, element_type(out.element_dtype))


def _pooled_pointwise(st: LoweringState, op: AtenOp, b: Bound, win: Window) -> SSAValue | None:
    """
    The 2-D average pooling `op` of a 1x1 convolution as that convolution of
    the pooled convolution input (`_POOL_BEFORE_POINTWISE`), or None when the
    pooling or its input is not of that kind. The convolution, already lowered
    for its one reader, is dropped from the lowered program.
    """
    x, out = b.value("self"), _out(op)
    conv = x.owner if isinstance(x, OpResult) else None
    if not _POOL_BEFORE_POINTWISE or not isinstance(conv, AtenOp) or conv.name != "aten.convolution.default" or not x.has_one_use():
        return None
    cb = conv.bound_arguments()
    cx, w, bias = cb.value("input"), cb.value("weight"), cb.get("bias")
    xt, wt = _t(cx), _t(w)
    if cb["transposed"] or xt.rank != 4 or list(wt.sizes[2:]) != [1, 1] or cb.ints("stride", 2) != [1, 1] or cb.ints("padding", 2) != [0, 0]:
        return None
    types = [xt, wt, _t(x), out] + ([_t(bias)] if bias is not None else [])
    if any(t.element_dtype not in (DType.float32, DType.float64) or t.element_dtype != out.element_dtype for t in types):
        return None
    if b.get("divisor_override") is not None or any(win.padding) or not full_windows(win, False):
        return None
    pooled_t = sized([*xt.sizes[:2], *out.sizes[2:]], xt.element_dtype)
    if not all_positive([*xt.sizes, *pooled_t.sizes]):
        return None
    lowered_conv = st.tensor(x)
    pool = Window(win.kernel, win.stride, win.padding, win.dilation, win.ceil_mode, xt, pooled_t)
    pooled = _avg(st, pool, st.tensor(cx), xt, pooled_t, False, None)
    acc, os = out.element_dtype, list(out.sizes)
    init = _channel_init(st, os, bias, acc)
    res = _conv_2d(st, pooled, list(pooled_t.sizes), st.tensor(w), list(wt.sizes), init, os, cb.int("groups"), [1, 1], [1, 1], acc)
    drop_unused(lowered_conv)
    return res


@lowers("aten.avg_pool2d.default", note="integer inputs other than int64 refused, as torch refuses them")
def _avg_pool2d(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b.value("self")
    xt, out = _t(x), _out(op)
    win = Window.of(b, xt, out)
    if (pooled := _pooled_pointwise(st, op, b, win)) is not None:
        return [pooled]
    return [_avg(st, win, st.tensor(x), xt, out, bool(b["count_include_pad"]), b.get("divisor_override"))]


@lowers("aten.avg_pool3d.default", note="integer inputs other than int64 refused, as torch refuses them")
def _avg_pool3d(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b.value("self")
    xt, out = _t(x), _out(op)
    win = Window.of(b, xt, out, 3)
    return [_avg(st, win, st.tensor(x), xt, out, bool(b["count_include_pad"]), b.get("divisor_override"))]


@lowers("aten.avg_pool1d.default", note="integer inputs other than int64 refused, as torch refuses them")
def _avg_pool1d(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b.value("self")
    out = _out(op)
    kernel = b.ints("kernel_size", 1)
    stride = b.ints("stride", 1) if cast(Sequence[object], b["stride"]) else kernel
    padding = b.ints("padding", 1)

    def pool(x2: SSAValue, xt2: TensorType, out2: TensorType) -> SSAValue:
        win = Window([1, *kernel], [1, *stride], [0, *padding], [1, 1], bool(b["ceil_mode"]), xt2, out2)
        return _avg(st, win, x2, xt2, out2, bool(b["count_include_pad"]), None)

    return [_pool_1d(st, x, out, pool)]


def _adaptive_avg(st: LoweringState, x: SSAValue, xt: TensorType, out: TensorType, what: str) -> SSAValue:
    """Adaptive average pooling over the last two dims."""
    acc = accumulator(out.element_dtype)
    oh, ow = out.sizes[-2:]
    h, w = xt.sizes[-2:]
    rank = xt.rank
    if oh == 1 and ow == 1:
        dims = [rank - 2, rank - 1]
        src = xt.element_dtype
        total = sum_over(st, xt.sizes, dims, [(x, identity_map(rank))], lambda a: st.cast(a[0], src, acc), acc)
        n = count(st, xt.sizes, dims, acc)
        return finish(st, total, dims, True, acc, out, lambda v: div(st, v, n, acc))
    if not all(isinstance(s, int) for s in (oh, ow, h, w)) or cast(int, h) % cast(int, oh) or cast(int, w) % cast(int, ow):
        return adaptive_avg_separable(st, x, xt, out, 2, what)
    kernel = [cast(int, h) // cast(int, oh), cast(int, w) // cast(int, ow)]
    win = Window(kernel, kernel, [0, 0], [1, 1], False, xt, out)
    return _avg(st, win, x, xt, out, True, None)


_ADAPTIVE = "symbolic pooled sizes refused unless the output size is 1"


@lowers("aten._adaptive_avg_pool3d.default", note="symbolic pooled sizes refused; integer inputs refused")
def _adaptive_avg_pool3d(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b.value("self")
    return [adaptive_avg_separable(st, st.tensor(x), _t(x), _out(op), 3, "adaptive_avg_pool3d")]


@lowers("aten._adaptive_avg_pool2d.default", note=_ADAPTIVE)
def _adaptive_avg_pool2d(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b.value("self")
    return [_adaptive_avg(st, st.tensor(x), _t(x), _out(op), "adaptive_avg_pool2d")]


@lowers("aten.adaptive_avg_pool1d.default", note=_ADAPTIVE)
def _adaptive_avg_pool1d(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b.value("self")

    def pool(x2: SSAValue, xt2: TensorType, out2: TensorType) -> SSAValue:
        return _adaptive_avg(st, x2, xt2, out2, "adaptive_avg_pool1d")

    return [_pool_1d(st, x, _out(op), pool)]


# -- batch norm ----------------------------------------------------------------


@lowers("aten.col2im.default", note="symbolic block counts refused")
def _col2im(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """
    `fold`: input [N, C * kh * kw, L] of blocks laid over an [H, W] image; out[n,
    c, y, x] sums, over the kernel offsets (i, j) in increasing order (torch's
    CPU loop adds them in that order), the block whose offset (i, j) lands on
    (y, x): block row (y + pad - i * dilation) / stride when that divides,
    likewise the column. A gather with the offsets as reductions.
    """
    x = b.value("self")
    xt, out = _t(x), _out(op)
    unbatched = xt.rank == 2
    k, dl, pd, sd = (b.ints(name, 2) for name in ("kernel_size", "dilation", "padding", "stride"))
    h, w = out.sizes[-2], out.sizes[-1]
    if not isinstance(h, int) or not isinstance(w, int):
        raise st.error("col2im: a symbolic output size is not lowered")
    blocks = [(size + 2 * p - d * (kk - 1) - 1) // s + 1 for size, p, d, kk, s in zip((h, w), pd, dl, k, sd)]
    dtype = out.element_dtype
    acc = dtype.opmath()
    src = st.tensor(x)
    el = element_type(xt.element_dtype)
    rank = out.rank
    loops = rank + 2
    # A [kh, kw] tensor gives the two reduction loops their extents.
    offsets = st.empty_of(k, DType.int8)
    zero_i = st.index(0)

    def body(args: Sequence[SSAValue]) -> list[SSAValue]:
        total = args[1]
        y, xx = st.emit(linalg.IndexOp(rank - 2)), st.emit(linalg.IndexOp(rank - 1))
        i, j = st.emit(linalg.IndexOp(rank)), st.emit(linalg.IndexOp(rank + 1))
        inside = st.constant(True, DType.bool)
        where: list[SSAValue] = []
        for pos, off, d in ((y, i, 0), (xx, j, 1)):
            shifted = st.emit(arith.SubiOp(st.emit(arith.AddiOp(pos, st.index(pd[d]))), st.emit(arith.MuliOp(off, st.index(dl[d])))))
            q = st.emit(arith.FloorDivSIOp(shifted, st.index(sd[d])))
            exact = st.emit(arith.CmpiOp(st.emit(arith.MuliOp(q, st.index(sd[d]))), shifted, "eq"))
            ok = st.emit(arith.AndIOp(st.emit(arith.CmpiOp(q, zero_i, "sge")), st.emit(arith.CmpiOp(q, st.index(blocks[d]), "slt"))))
            inside = st.emit(arith.AndIOp(inside, st.emit(arith.AndIOp(exact, ok))))
            where.append(q)
        block = st.emit(arith.AddiOp(st.emit(arith.MuliOp(where[0], st.index(blocks[1]))), where[1]))
        block = st.emit(arith.SelectOp(inside, block, zero_i))
        c = st.emit(linalg.IndexOp(rank - 3))
        row = st.emit(arith.AddiOp(st.emit(arith.MuliOp(c, st.index(k[0] * k[1]))), st.emit(arith.AddiOp(st.emit(arith.MuliOp(i, st.index(k[1]))), j))))
        coords = [row, block] if unbatched else [st.emit(linalg.IndexOp(0)), row, block]
        value = st.cast(st.emit(tensor.ExtractOp(src, coords, el)), xt.element_dtype, acc)
        return [st.emit(arith.SelectOp(inside, add(st, total, value, acc), total))]

    kmap = AffineMap(loops, 0, (_d(rank), _d(rank + 1)))
    omap = AffineMap(loops, 0, tuple(_d(d) for d in range(rank)))
    summed = st.generic([(offsets, kmap)], [(st.filled(out, 0, acc), omap)], [PARALLEL] * rank + [REDUCTION] * 2, body)[0]
    return [st.convert(summed, sized(out.sizes, acc), dtype)]
