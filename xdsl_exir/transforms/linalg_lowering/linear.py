"""
Matrix products: `mm` and `addmm` as `linalg.matmul`, `bmm` as a batch
contraction `linalg.generic` (xDSL 0.74 defines no `linalg.batch_matmul`; IREE
recognises the contraction either way).

`addmm` accumulates into the broadcast bias, which is what `beta * input +
alpha * (mat1 @ mat2)` is for the default `alpha = beta = 1`. float16 and
bfloat16 products accumulate in float32, as PyTorch's CPU BLAS path does.
"""

from __future__ import annotations

from typing import cast

from xdsl.dialects import arith
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.aten_inference import Bound
from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.transforms.linalg_lowering import lowers
from xdsl_exir.transforms.linalg_lowering.pointwise import add, mul
from xdsl_exir.transforms.linalg_lowering.state import (
    PARALLEL,
    REDUCTION,
    LoweringState,
    broadcast_map,
    identity_map,
    opmath,
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


def _matmul(st: LoweringState, op: AtenOp, a: object, b: object, bias: object | None, beta: object, alpha: object) -> list[SSAValue]:
    out = cast(TensorType, op.results[0].type)
    acc = opmath(out.element_dtype)
    lhs, rhs = _operand(st, a, acc), _operand(st, b, acc)
    if alpha not in (None, 1):
        lhs = st.elementwise(sized(_t(a).sizes, acc), [cast(SSAValue, a), alpha], acc, lambda v: mul(st, v[0], v[1], acc))
    init = _init(st, out, acc, bias, beta)
    mm = linalg.MatmulOp((lhs, rhs), (init,))
    st.insert(mm)
    return [_finish(st, mm.results[0], out, acc)]


@lowers("aten.mm.default")
def _mm(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _matmul(st, op, b["self"], b["mat2"], None, 0, 1)


@lowers("aten.addmm.default")
def _addmm(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _matmul(st, op, b["mat1"], b["mat2"], b["self"], b["beta"], b["alpha"])


@lowers("aten.bmm.default")
def _bmm(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    out = cast(TensorType, op.results[0].type)
    acc = opmath(out.element_dtype)
    lhs, rhs = _operand(st, b["self"], acc), _operand(st, b["mat2"], acc)
    d = AffineExpr.dimension
    # (batch, m, n, k)
    maps = (
        AffineMap(4, 0, (d(0), d(1), d(3))),
        AffineMap(4, 0, (d(0), d(3), d(2))),
        AffineMap(4, 0, (d(0), d(1), d(2))),
    )
    init = st.filled(out, 0, acc)
    res = st.generic(
        [(lhs, maps[0]), (rhs, maps[1])],
        [(init, maps[2])],
        [PARALLEL, PARALLEL, PARALLEL, REDUCTION],
        lambda args: [add(st, args[2], mul(st, args[0], args[1], acc), acc)],
    )[0]
    return [_finish(st, res, out, acc)]


_ = arith
