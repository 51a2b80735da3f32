"""
Sliding windows, shared by convolution and pooling (`conv_pool`): an input
padded with a constant (`pad`), or padded and cropped to exactly what the
windows of a static output size read (`window_extent`, `fit`); the stride and
dilation attributes of the named window ops (`pair`); the window taps of a 2-D
window as slices the size of the output (`tap_slices`, from the input's stride
phases when strided); 2-D max pooling over strided taps of the channels-last
input (`max_of_channels_last_taps`); a pooling window over the trailing dims, whose taps
are reduction dimensions of a generic (`Window`), and the sums over windows that average
pooling divides: a reduction over the taps (`window_sum`), one elementwise sum of the taps
(`mean_of_taps`), and adaptive windows of any static sizes (`adaptive_avg_separable`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.dialects import tensor
from xdsl.dialects.builtin import DenseIntElementsAttr, DenseIntOrFPElementsAttr, IndexType, i64
from xdsl.dialects.builtin import TensorType as BuiltinTensorType
from xdsl.ir import Block, Region, SSAValue
from xdsl.ir.affine import AffineMap

from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.transforms.linalg_lowering.core import accumulator, expand, lowest, transpose
from xdsl_exir.transforms.linalg_lowering.core import dim_expr as _d
from xdsl_exir.transforms.linalg_lowering.scalar import add, div, pointwise_maximum, select
from xdsl_exir.transforms.linalg_lowering.state import (
    PARALLEL,
    REDUCTION,
    LoweringState,
    element_type,
    identity_map,
    sized,
    tensor_type,
)
from xdsl_exir.utils.symbolic import sympy


def pair(values: Sequence[int]) -> DenseIntElementsAttr:
    """The `dense<[a, b]> : tensor<2xi64>` strides and dilations of the named ops."""
    return cast(DenseIntElementsAttr, DenseIntOrFPElementsAttr.from_list(BuiltinTensorType(i64, [len(values)]), list(values)))


def plus(size: object, extra: int) -> object:
    if extra == 0:
        return size
    if isinstance(size, int):
        return size + extra
    return cast(sympy.Expr, size) + extra


def pad(
    st: LoweringState, value: SSAValue, sizes: Sequence[object], low: Sequence[int], high: Sequence[int], fill: float, dtype: DType
) -> tuple[SSAValue, list[object]]:
    """`value` padded with the constant `fill` (`tensor.pad`), and its new sizes."""
    if not any(low) and not any(high):
        return value, list(sizes)
    new = [plus(s, lo + hi) for s, lo, hi in zip(sizes, low, high)]
    block = Block(arg_types=[IndexType()] * len(sizes))
    with st.at_block(block):
        st.insert(tensor.YieldOp(st.constant(fill, dtype)))
    op = tensor.PadOp(value, [], [], Region(block), list(low), list(high), tensor_type(sized(new, dtype)))
    return st.emit(op), new


def window_extent(out: object, kernel: int, stride: int, dilation: int) -> int | None:
    """How many (padded) input elements the windows of a dim read, when the output size is static."""
    return (out - 1) * stride + (kernel - 1) * dilation + 1 if isinstance(out, int) else None


def fit(
    st: LoweringState,
    value: SSAValue,
    sizes: Sequence[object],
    low: Sequence[int],
    extents: Sequence[int | None],
    high: Sequence[int],
    fill: float,
    dtype: DType,
) -> tuple[SSAValue, list[object]]:
    """
    `value` padded by `low` before each dim and after it up to exactly the
    extent the windows read, when that is static, cropping a tail no window
    reaches (IREE folds a unit output dim into a pure window dim, whose size
    must then equal the input's); else padded by `high` after it. Returns the
    new sizes too.
    """
    after: list[int] = []
    target: list[object] = []
    for size, lo, extent, hi in zip(sizes, low, extents, high):
        if extent is not None and isinstance(size, int):
            after.append(max(extent - size - lo, 0))
            target.append(extent)
        else:
            after.append(hi)
            target.append(None)
    padded, new = pad(st, value, sizes, low, after, fill, dtype)
    final = [n if t is None else t for n, t in zip(new, target)]
    if final == new:
        return padded, new
    if any(v == 0 for v in final if isinstance(v, int)):
        return st.empty_of(final, dtype), final  # MLIR's verifier rejects a slice's offset 0 in a dim of size 0
    op = tensor.ExtractSliceOp(
        padded,
        [0] * len(final),
        [f if isinstance(f, int) else st.index(f) for f in final],
        [1] * len(final),
        tensor_type(sized(final, dtype)),
    )
    return st.emit(op), final


def all_positive(sizes: Sequence[object]) -> bool:
    """Whether every size is static and not 0 (the tap copies index into every dim)."""
    return all(isinstance(v, int) and v > 0 for v in sizes)


def tap_slices(
    st: LoweringState,
    x: SSAValue,
    xs: Sequence[object],
    kernel: Sequence[int],
    outs: Sequence[object],
    stride: Sequence[int],
    dilation: Sequence[int],
    acc: DType,
    stride_phases: bool = True,
) -> list[SSAValue]:
    """
    The window taps of a 2-D convolution over the padded NCHW input `x`: for
    each kernel offset `(i, j)` in order, the tensor `[N, C, OH, OW]` (output
    sizes `outs`) of the input elements it reads, `x[n, c, oh * s + i * d, ow
    * t + j * e]`.
    With a stride (`stride_phases`, static sizes) `x`, padded further to
    multiples of the strides `(s, t)`, is split into its `s * t` phases `[N,
    C, s, t, H/s, W/t]` (a reshape and one transpose: space-to-depth), where
    input row `s * oh + a` is row `oh + a // s` of phase `a % s`: each tap is
    a unit-stride slice of one phase, which IREE vectorizes along the output
    row, where it reads a strided slice element by element. Else each tap is
    a strided slice of `x`.
    """
    el = element_type(acc)
    tap_sizes = [xs[0], xs[1], outs[2], outs[3]]
    sizes = [v if isinstance(v, int) else st.index(v) for v in tap_sizes]
    rt = tensor_type(sized(tap_sizes, acc))
    kh, kw = kernel
    offsets = [(i * dilation[0], j * dilation[1]) for i in range(kh) for j in range(kw)]
    if any(v == 0 for v in tap_sizes if isinstance(v, int)):
        # nothing to read: MLIR's verifier rejects a slice's offset 0 in a dim of size 0
        return [st.empty_of(tap_sizes, acc) for _ in offsets]
    if not (stride_phases and any(v > 1 for v in stride) and all_positive(xs)):
        return [
            st.emit(tensor.ExtractSliceOp(x, [0, 0, a, b], sizes, [1, 1, stride[0], stride[1]], rt)) for a, b in offsets
        ]
    n, c, hp, wp = cast(list[int], list(xs))
    sh, sw = stride
    hq, wq = -(-hp // sh), -(-wp // sw)
    x, _ = pad(st, x, xs, [0, 0, 0, 0], [0, 0, hq * sh - hp, wq * sw - wp], 0, acc)
    split = expand(st, x, [[0], [1], [2, 3], [4, 5]], [n, c, hq, sh, wq, sw], el)
    phases = transpose(st, split, [0, 1, 3, 5, 2, 4], sized([n, c, sh, sw, hq, wq], acc))
    phase_sizes = [sizes[0], sizes[1], 1, 1, sizes[2], sizes[3]]
    return [
        st.emit(tensor.ExtractSliceOp(phases, [0, 0, a % sh, b % sw, a // sh, b // sw], phase_sizes, [1] * 6, rt))
        for a, b in offsets
    ]


def max_of_channels_last_taps(st: LoweringState, win: Window, x: SSAValue, xt: TensorType, out: TensorType) -> SSAValue:
    """
    2-D max pooling of the NCHW input `x` (static, positive sizes) as one
    elementwise generic over its window taps read from the input moved
    channels-last (`[N, H, W, C]`, one transpose): each tap is a slice strided
    along the rows and columns and contiguous along the channels, so the
    generic runs over `(n, oh, ow, c)`, is vectorized along the channels and
    writes the NCHW result. The taps are compared in window order as torch's
    CPU kernel does (`pointwise_maximum`: NaN wins, and of equal values the
    first). The input is padded with -inf only where the windows reach past it
    (`fit`: explicit padding, or a last window of `ceil_mode`), which IREE
    copies in a dispatch of its own; the stride needs no rounding, as no phase
    is taken. See `conv_pool._MAX_POOL_CHANNELS_LAST`.
    """
    dt = out.element_dtype
    n, c, h, w = cast(list[int], list(xt.sizes))
    oh, ow = cast(int, out.sizes[2]), cast(int, out.sizes[3])
    (sh, sw), (dh, dw) = win.stride, win.dilation
    last = transpose(st, x, [0, 2, 3, 1], sized([n, h, w, c], dt))
    extents = [window_extent(o, k, s, d) for o, k, s, d in zip((oh, ow), win.kernel, win.stride, win.dilation)]
    padded, _ = fit(st, last, [n, h, w, c], [0, *win.padding, 0], [None, *extents, None], [0, 0, 0, 0], lowest(dt), dt)
    tap_type = tensor_type(sized([n, oh, ow, c], dt))
    taps = [
        st.emit(tensor.ExtractSliceOp(padded, [0, i * dh, j * dw, 0], [n, oh, ow, c], [1, sh, sw, 1], tap_type))
        for i in range(win.kernel[0])
        for j in range(win.kernel[1])
    ]

    def body(a: Sequence[SSAValue]) -> list[SSAValue]:
        best = a[0]
        for tap in a[1 : len(taps)]:
            best = pointwise_maximum(st, tap, best, dt)
        return [best]

    nchw = AffineMap(4, 0, (_d(0), _d(3), _d(1), _d(2)))
    return st.generic([(t, identity_map(4)) for t in taps], [(st.empty(out), nchw)], [PARALLEL] * 4, body)[0]


class Window:
    """A pooling window over the last `len(kernel)` dims (any leading dims): sizes, strides, padding."""

    def __init__(
        self, kernel: Sequence[int], stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int],
        ceil_mode: bool, xt: TensorType, out: TensorType,
    ) -> None:  # fmt: skip
        self.kernel, self.stride, self.padding, self.dilation = list(kernel), list(stride), list(padding), list(dilation)
        self.ceil_mode = ceil_mode
        self.nd = len(kernel)
        self.lead = xt.rank - self.nd
        self.in_sizes = list(xt.sizes[self.lead :])
        self.out_sizes = list(out.sizes[self.lead :])

    @classmethod
    def of(cls, b: Bound, xt: TensorType, out: TensorType, nd: int = 2) -> Window:
        """The window of an `nd`-D pooling op's arguments (an empty stride means the kernel size)."""
        kernel = b.ints("kernel_size", nd)
        stride = b.ints("stride", nd) if cast(Sequence[object], b["stride"]) else kernel
        dilation = b.ints("dilation", nd) if "dilation" in b else [1] * nd
        return cls(kernel, stride, b.ints("padding", nd), dilation, bool(b["ceil_mode"]), xt, out)

    def padded(self, st: LoweringState, x: SSAValue, xt: TensorType, fill: float, dtype: DType) -> SSAValue:
        """The input padded so that the windows of the output torch computed fit exactly."""
        extents = [window_extent(self.out_sizes[i], self.kernel[i], self.stride[i], self.dilation[i]) for i in range(self.nd)]
        # symbolic sizes: ceil_mode adds at most one window starting inside the input
        high = [p + (s - 1 if self.ceil_mode else 0) for p, s in zip(self.padding, self.stride)]
        lead = [0] * self.lead
        low = [*lead, *self.padding]
        return fit(st, x, xt.sizes, low, [*(None for _ in lead), *extents], [*lead, *high], fill, dtype)[0]

    def maps(self) -> tuple[AffineMap, AffineMap, AffineMap]:
        """Input, window and output maps over (*lead, *out, *window)."""
        lead, nd = self.lead, self.nd
        rank = lead + 2 * nd
        outs = [_d(lead + i) for i in range(nd)]
        taps = [_d(lead + nd + i) for i in range(nd)]
        leading = tuple(_d(i) for i in range(lead))
        reads = (o * s + k * d for o, k, s, d in zip(outs, taps, self.stride, self.dilation))
        return (
            AffineMap(rank, 0, (*leading, *reads)),
            AffineMap(rank, 0, tuple(taps)),
            AffineMap(rank, 0, (*leading, *outs)),
        )

    def iterators(self) -> list[str]:
        return [PARALLEL] * (self.lead + self.nd) + [REDUCTION] * self.nd

    def window_tensor(self, st: LoweringState, dtype: DType) -> SSAValue:
        """The `kernel`-shaped operand that gives the window loops their bounds."""
        return st.empty_of(self.kernel, dtype)


def window_sum(st: LoweringState, win: Window, x: SSAValue, xt: TensorType, out: TensorType, acc: DType) -> SSAValue:
    """The sum in `acc` of each window of `x` (padded with zeros), a reduction over the window's taps."""
    xp = win.padded(st, st.convert(x, xt, acc), xt, 0, acc)
    in_map, w_map, o_map = win.maps()
    init = st.filled(out, 0, acc)
    return st.generic(
        [(xp, in_map), (win.window_tensor(st, acc), w_map)], [(init, o_map)], win.iterators(),
        lambda a: [add(st, a[0], a[2], acc)],
    )[0]  # fmt: skip


def mean_of_taps(st: LoweringState, win: Window, x: SSAValue, xt: TensorType, out: TensorType, acc: DType, n: object) -> SSAValue:
    """
    2-D average pooling of the NCHW input `x` (static, positive sizes, no
    padding, full windows) as one elementwise generic over its window taps
    (`tap_slices`, strided slices): each added in window order to a sum in `acc`
    started from 0, as `window_sum` adds them, then divided by `n` and cast to
    the result's dtype. See `conv_pool._AVG_POOL_TAPS`.
    """
    dt = out.element_dtype
    taps = tap_slices(st, x, xt.sizes, win.kernel, out.sizes, win.stride, win.dilation, dt, stride_phases=False)
    zero, divisor = st.scalar(0, acc), st.scalar(n, acc)

    def body(a: Sequence[SSAValue]) -> list[SSAValue]:
        total = zero
        for tap in a[: len(taps)]:
            total = add(st, st.cast(tap, dt, acc), total, acc)
        return [st.cast(div(st, total, divisor, acc), acc, dt)]

    return st.generic([(t, identity_map(4)) for t in taps], [(st.empty(out), identity_map(4))], [PARALLEL] * 4, body)[0]


def full_windows(win: Window, count_include_pad: bool) -> bool:
    """Whether every window counts the product of the kernel sizes (known statically)."""
    for i in range(win.nd):
        size, o, p, k, s = win.in_sizes[i], win.out_sizes[i], win.padding[i], win.kernel[i], win.stride[i]
        if not isinstance(size, int) or not isinstance(o, int):
            return False
        last = (o - 1) * s - p
        if count_include_pad:
            if last + k > size + p:
                return False
        elif p != 0 or last + k > size:
            return False
    return True


def adaptive_window(size: int, out: int, o: int) -> tuple[int, int]:
    """torch's adaptive window `[floor(o * size / out), ceil((o + 1) * size / out))` along one dim."""
    return o * size // out, -(-(o + 1) * size // out)


def adaptive_avg_separable(st: LoweringState, x: SSAValue, xt: TensorType, out: TensorType, k: int, what: str) -> SSAValue:
    """
    Adaptive average pooling over the last `k` dims with any static windows: a
    window is a box, so its sum is a sum along each pooled dim in turn, one
    contraction with a constant 0/1 `[out, in]` window-membership matrix per
    dim (an element outside a window is selected away, not multiplied by 0,
    which would make an infinity NaN); each sum is then divided by its box's
    element count (a constant over the pooled dims), as torch divides each
    window's sum.
    """
    if not out.element_dtype.is_floating_point:
        raise st.error(f"integer {what} has no linalg lowering")
    acc = accumulator(out.element_dtype)
    rank = xt.rank
    if not all(isinstance(v, int) for v in (*xt.sizes[rank - k :], *out.sizes[rank - k :])):
        shape = "x".join(str(v) for v in xt.sizes[rank - k :])
        raise st.error(f"{what} over the symbolic sizes {shape}: only static windows are lowered")
    ins, outs = cast(list[int], list(xt.sizes[rank - k :])), cast(list[int], list(out.sizes[rank - k :]))
    value = st.convert(x, xt, acc)
    sizes = list(xt.sizes)
    lens: list[list[int]] = []
    for j, (n, o) in enumerate(zip(ins, outs)):
        dim = rank - k + j
        windows = [adaptive_window(n, o, i) for i in range(o)]
        lens.append([hi - lo for lo, hi in windows])
        if n == o:
            continue
        member = st.dense_constant([float(lo <= c < hi) for lo, hi in windows for c in range(n)], acc, [o, n])
        sizes[dim] = o
        r = _d(rank)
        in_map = AffineMap(rank + 1, 0, tuple(r if i == dim else _d(i) for i in range(rank)))
        value = st.generic(
            [(value, in_map), (member, AffineMap(rank + 1, 0, (_d(dim), r)))],
            [(st.filled(sized(sizes, acc), 0), AffineMap(rank + 1, 0, tuple(_d(i) for i in range(rank))))],
            [PARALLEL] * rank + [REDUCTION],
            lambda a: [add(st, select(st, st.cast(a[1], acc, DType.bool), a[0], st.constant(0.0, acc)), a[2], acc)],
        )[0]  # fmt: skip
    counts: list[float] = [1.0]
    for per_dim in lens:
        counts = [c * n for c in counts for n in per_dim]
    divisor = st.dense_constant(counts, acc, outs)
    return st.generic(
        [(value, identity_map(rank)), (divisor, AffineMap(rank, 0, tuple(_d(i) for i in range(rank - k, rank))))],
        [(st.empty(out), identity_map(rank))], [PARALLEL] * rank,
        lambda a: [st.cast(div(st, a[0], a[1], acc), acc, out.element_dtype)],
    )[0]  # fmt: skip
