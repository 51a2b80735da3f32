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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.dialects import arith
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
)
from xdsl_exir.transforms.linalg_lowering.state import (
    type_of as _t,
)


def _operand(st: LoweringState, v: object, acc: DType) -> SSAValue:
    return st.convert(st.tensor(v), _t(v), acc)


def _init(st: LoweringState, out: TensorType, acc: DType, bias: object | None, beta: object) -> SSAValue:
    """The accumulator: zeros, or `beta * bias` broadcast to the result's sizes."""
    if bias is None or beta == 0:
        return st.filled(out, 0, acc)
    bt = _t(bias)
    rank = out.rank

    def body(args: list[SSAValue] | tuple[SSAValue, ...]) -> list[SSAValue]:
        v = st.cast(args[0], bt.element_dtype, acc)
        if beta != 1:
            v = mul(st, v, st.scalar(beta, acc), acc)
        return [v]

    return st.generic(
        [(st.tensor(bias), broadcast_map(bt.sizes, out.sizes))],
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
    scaled = alpha not in (None, 1)
    rank = maps[2].num_dims
    iterators = [PARALLEL] * rank
    iterators[-1] = REDUCTION
    splats = (st.splat(st.tensor(a)), st.splat(st.tensor(b)))
    k = 0 if splats[0] is not None else 1 if splats[1] is not None else None
    if k is None:
        lhs, rhs = _operand(st, a, acc), _operand(st, b, acc)
        if scaled:
            lhs = st.elementwise(sized(_t(a).sizes, acc), [cast(SSAValue, a), alpha], acc, lambda v: mul(st, v[0], v[1], acc))
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
        if scaled:
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
    init = _init(st, out, acc, bias, beta)
    if _t(a).sizes[-1] == 0:
        return [_finish(st, init, out, acc)]
    return [_finish(st, _contract(st, a, b, alpha, init, _MM_MAPS, acc), out, acc)]


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
