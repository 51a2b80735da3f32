"""
Matrix products: `mm` and `addmm` as `linalg.matmul`, `bmm` as a batch
contraction `linalg.generic` (xDSL 0.74 defines no `linalg.batch_matmul`; IREE
recognises the contraction either way).

`addmm` accumulates into the broadcast bias, which is what `beta * input +
alpha * (mat1 @ mat2)` is for the default `alpha = beta = 1`. float16 and
bfloat16 products accumulate in float32, as PyTorch's CPU BLAS path does.

An operand every element of which is the same scalar (`torch.zeros` as the
initial hidden state of an LSTM, say) is left out of the contraction: the
scalar goes into the body of a generic that reads only the other operand.
IREE 3.13 miscompiles a contraction with a zero-filled operand once an
elementwise add follows it in the same dispatch (a bias, or the accumulator IREE
itself splits off a non-zero init): MLIR's vector canonicalization that folds
`add(contract(a, b, 0), c)` into `contract(a, b, c)` substitutes `c` for every
use of the zero constant in the contraction, the zero operand's included when
its tile has the accumulator's vector type, so `h @ W + b` becomes `b @ W + b`.
Bias first or last, the product is wrong; without the operand there is no
constant for the fold to confuse, and no tile of zeros to multiply.

A product over an empty contraction (K = 0, known statically) is the
accumulator alone, zeros or `beta * input`: iree-compile crashes on a
`linalg.matmul` with a zero-size reduction.

`mm` and `addmm` on a static number of rows that IREE would tile narrowly (17
tokens: one row at a time, 17 passes over the weight) are one `linalg.matmul`
per band of rows, 16 + 1 (`row_bands`); each row's dot product is unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.dialects import arith, tensor
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.transforms.linalg_lowering import lowers
from xdsl_exir.transforms.linalg_lowering.scalar import add, mul
from xdsl_exir.transforms.linalg_lowering.state import (
    PARALLEL,
    REDUCTION,
    LoweringState,
    broadcast_map,
    identity_map,
    sized,
    tensor_type,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    type_of as _t,
)


def _operand(st: LoweringState, v: object, acc: DType) -> SSAValue:
    return st.convert(st.tensor(v), _t(v), acc)


def _scaled_operand(st: LoweringState, a: object, alpha: object, acc: DType) -> SSAValue:
    """The left operand in `acc`, times `alpha` unless that is 1."""
    if alpha in (None, 1):
        return _operand(st, a, acc)
    return st.elementwise(sized(_t(a).sizes, acc), [cast(SSAValue, a), alpha], acc, lambda v: mul(st, v[0], v[1], acc))


def _init(
    st: LoweringState, out: TensorType, acc: DType, bias: object | None, beta: object, rows: tuple[int, int] | None = None
) -> SSAValue:
    """
    The accumulator: zeros, or `beta * bias` broadcast to the result's sizes;
    with `rows` (start, count), that band of the result's rows.
    """
    if rows is not None:
        out = sized([rows[1], *out.sizes[1:]], out.element_dtype)
    if bias is None or beta == 0:
        return st.filled(out, 0, acc)
    bt = _t(bias)
    rank = out.rank
    source = st.tensor(bias)
    if rows is not None and bt.rank == 2 and bt.sizes[0] != 1:
        bt = sized([rows[1], bt.sizes[1]], bt.element_dtype)
        source = st.emit(tensor.ExtractSliceOp(source, [rows[0], 0], [rows[1], cast(int, bt.sizes[1])], [1, 1], tensor_type(bt)))

    def body(args: list[SSAValue] | tuple[SSAValue, ...]) -> list[SSAValue]:
        v = st.cast(args[0], bt.element_dtype, acc)
        if beta != 1:
            v = mul(st, v, st.scalar(beta, acc), acc)
        return [v]

    return st.generic(
        [(source, broadcast_map(bt.sizes, out.sizes))],
        [(st.empty(out, acc), identity_map(rank))],
        [PARALLEL] * rank,
        lambda args: body(list(args)),
    )[0]


def _finish(st: LoweringState, value: SSAValue, out: TensorType, acc: DType) -> SSAValue:
    if acc == out.element_dtype:
        return value
    return st.convert(value, sized(out.sizes, acc), out.element_dtype)


def _contract(st: LoweringState, a: object, b: object, alpha: object, init: SSAValue, maps: tuple[AffineMap, ...], acc: DType) -> SSAValue:
    """
    `init + (alpha * a) * b` summed over the last dim of `maps`' domain (the
    others are parallel): a `linalg.matmul` for a 3-d domain, else a generic;
    a generic reading one operand when the other is a splat (module docstring).
    """
    rank = maps[2].num_dims
    iterators = [PARALLEL] * rank
    iterators[-1] = REDUCTION
    splats = (st.splat(st.tensor(a)), st.splat(st.tensor(b)))
    k = 0 if splats[0] is not None else 1 if splats[1] is not None else None
    if k is None:
        lhs, rhs = _scaled_operand(st, a, alpha, acc), _operand(st, b, acc)
        if rank == 3:
            return st.emit(linalg.MatmulOp((lhs, rhs), (init,)))
        return st.generic(
            [(lhs, maps[0]), (rhs, maps[1])],
            [(init, maps[2])],
            iterators,
            lambda args: [add(st, args[2], mul(st, args[0], args[1], acc), acc)],
        )[0]
    scalar, src = cast(SSAValue, splats[k]), _t((a, b)[k]).element_dtype
    other = (b, a)[k]

    def body(args: Sequence[SSAValue]) -> list[SSAValue]:
        lhs, rhs = (st.cast(scalar, src, acc), args[0]) if k == 0 else (args[0], st.cast(scalar, src, acc))
        if alpha not in (None, 1):
            lhs = mul(st, lhs, st.scalar(alpha, acc), acc)
        return [add(st, args[1], mul(st, lhs, rhs, acc), acc)]

    return st.generic([(_operand(st, other, acc), maps[1 - k])], [(init, maps[2])], iterators, body)[0]


_MM_MAPS = (
    AffineMap(3, 0, (AffineExpr.dimension(0), AffineExpr.dimension(2))),
    AffineMap(3, 0, (AffineExpr.dimension(2), AffineExpr.dimension(1))),
    AffineMap(3, 0, (AffineExpr.dimension(0), AffineExpr.dimension(1))),
)
"""(m, n, k): `linalg.matmul`'s own maps."""


def _matmul(st: LoweringState, op: AtenOp, a: object, b: object, bias: object | None, beta: object, alpha: object) -> list[SSAValue]:
    out = cast(TensorType, op.results[0].type)
    acc = out.element_dtype.opmath()
    if _t(a).sizes[-1] == 0:
        return [_finish(st, _init(st, out, acc, bias, beta), out, acc)]
    static = all(isinstance(s, int) and s > 0 for s in (*_t(a).sizes, *_t(b).sizes))
    k, n = _t(b).sizes
    bands = row_bands(_t(a).sizes[0], cast(int, k) * cast(int, n)) if static else None
    if bands is not None and st.splat(st.tensor(a)) is None and st.splat(st.tensor(b)) is None:
        return [_finish(st, _banded(st, out, acc, a, b, bias, beta, alpha, bands), out, acc)]
    init = _init(st, out, acc, bias, beta)
    return [_finish(st, _contract(st, a, b, alpha, init, _MM_MAPS, acc), out, acc)]


def _banded(
    st: LoweringState,
    out: TensorType,
    acc: DType,
    a: object,
    b: object,
    bias: object | None,
    beta: object,
    alpha: object,
    bands: Sequence[tuple[int, int]],
) -> SSAValue:
    """
    One `linalg.matmul` per band of rows (`row_bands`), each with its own
    accumulator (the bias of its rows), inserted into one result. Each row's dot
    product is the one the whole product computes, so the result is the same.
    """
    lhs, rhs = _scaled_operand(st, a, alpha, acc), _operand(st, b, acc)
    k, n = (cast(int, s) for s in _t(b).sizes)
    result = st.empty(out, acc)
    for start, count in bands:
        band = st.emit(tensor.ExtractSliceOp(lhs, [start, 0], [count, k], [1, 1], tensor_type(sized([count, k], acc))))
        init = _init(st, out, acc, bias, beta, (start, count))
        product = st.emit(linalg.MatmulOp((band, rhs), (init,)))
        result = st.insert_slice(product, result, [start, 0], [count, n])
    return result


_SPLIT_ROWS = 8
"""
The multiple of rows at which a product that IREE would tile narrowly is cut
(`row_bands`); 0 keeps every product whole (`--variant "matmul._SPLIT_ROWS=0"`).
A multiple of 16, the rows of a data-tiled tile, measured no better: 31 rows as
16 + 15 against 24 + 7 within noise (benchmarks/compile.py).
"""

_SPLIT_BELOW = 64
"""
Products of this many rows or more stay whole unless their weight has more
than `DATA_TILING_MAX_WEIGHT` elements: from 96 rows (12 passes) data tiling
takes a product of a smaller weight, and split bands then each pack the weight
on each call (Linear(192, 768) on 197 rows 0.75 -> 1.14 ms as 192 + 5; Linear(768,
768) on 97 rows within noise, 1.59 -> 1.52 as 96 + 1). A larger weight is never data-tiled,
and its bands gain as below: Linear(4096, 4096) on 97 rows 236 -> 66.8 ms as 96
+ 1, on 197 rows 491 -> 147 as 192 + 5.
"""

DATA_TILING_MAX_WEIGHT = 1024 * 2816
"""The most elements of a product's right operand at which IREE's data tiling packing it on each
call was measured not to lose (a LLaMA block of width 1024; `targets.iree.IreeOptions.auto_data_tiling`)."""


def weight_passes(rows: int) -> int:
    """
    How many times IREE 3.13 reads a matrix product's right operand without data
    tiling: it tiles the `rows` by their largest divisor up to 8
    (`--iree-hal-dump-executable-configurations-to`: `vector_common_parallel`
    [1, 16] for 17 rows, [7, 16] for 63, [8, 16] for 64 and 128).
    """
    return rows // max(d for d in range(1, 9) if rows % d == 0) if rows > 0 else 0


def row_bands(rows: object, weight: int = 0) -> list[tuple[int, int]] | None:
    """
    (start, count) of each band a product of `rows` rows and a right operand
    of `weight` elements is split into, or None to keep it whole: the largest
    multiple of `_SPLIT_ROWS` and the rest, where the whole product would read
    its weight at least twice as often as the two bands together
    (`weight_passes`: 17 rows read it 17 times, 16 + 1 rows 2 + 1), below
    `_SPLIT_BELOW` rows or with a weight too large for data tiling.

    IREE 3.13 tiles an untiled product's rows by their largest divisor up to 8,
    and pads them to 16 when data tiling: 17 rows are 17 passes over the weight,
    or 32 padded rows. Split, the bands take neither: one thread, CPU time,
    interleaved (benchmarks/compile.py `lin<rows>_<in>x<out>`, ms, whole /
    split): Linear(4096, 4096) on 17 rows 27.8 / 12.5 and on 31 rows 51.4 / 18.4,
    Linear(768, 3072) on 17 rows 3.79 / 1.64, Linear(768, 768) on 13 rows 0.59 /
    0.32, on 17 0.72 / 0.44, on 33 0.91 / 0.71; ViT-tiny's fc1 + GELU 0.143 /
    0.114, ViT-tiny 7.53 / 6.18, a LLaMA block at 17 tokens 0.82 / 0.65. Where
    the passes fall by less than half the split is even or loses a few percent:
    9 rows as 8 + 1 (3 passes against 2) 0.35 / 0.37, 25 as 24 + 1 0.67 / 0.67,
    63 as 56 + 7 1.12 / 1.16.
    """
    if not _SPLIT_ROWS or not isinstance(rows, int) or rows <= _SPLIT_ROWS:
        return None
    if rows >= _SPLIT_BELOW and weight <= DATA_TILING_MAX_WEIGHT:
        return None
    cut = rows - rows % _SPLIT_ROWS
    if cut == rows or 2 * (weight_passes(cut) + weight_passes(rows - cut)) > weight_passes(rows):
        return None
    return [(0, cut), (cut, rows - cut)]


@lowers("aten.mm.default")
def _mm(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _matmul(st, op, b["self"], b["mat2"], None, 0, 1)


@lowers("aten.addmm.default")
def _addmm(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _matmul(st, op, b["mat1"], b["mat2"], b["self"], b["beta"], b["alpha"])


@lowers("aten.bmm.default")
def _bmm(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    out = cast(TensorType, op.results[0].type)
    acc = out.element_dtype.opmath()
    d = AffineExpr.dimension
    # (batch, m, n, k)
    maps = (
        AffineMap(4, 0, (d(0), d(1), d(3))),
        AffineMap(4, 0, (d(0), d(3), d(2))),
        AffineMap(4, 0, (d(0), d(1), d(2))),
    )
    init = st.filled(out, 0, acc)
    if _t(b["self"]).sizes[-1] == 0:
        return [_finish(st, init, out, acc)]
    res = _contract(st, b["self"], b["mat2"], 1, init, maps, acc)
    return [_finish(st, res, out, acc)]


_ = arith
