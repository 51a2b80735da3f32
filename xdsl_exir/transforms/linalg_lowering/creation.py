"""
Factory ops: tensors made from sizes and scalars, not from other tensors' values.

`full`/`zeros`/`ones` and their `_like`/`new_` forms are a 0-d `linalg.fill`
broadcast by a copying `linalg.generic` into a `tensor.empty` of the result's
sizes (the result type, which torch computed, gives them; symbolic ones become
`index` values); `fill` says why not a whole-tensor `linalg.fill`. `empty` is a bare
`tensor.empty`: torch leaves its values unspecified. `arange` is a generic over
`linalg.index` computing `start + step * i` the way torch's CPU kernel
(`RangeFactoriesKernel.cpp`) does: in the accumulate type of the result
(int64 for integers, double for float32/float64, float for float16/bfloat16),
then converted once. That is the kernel's scalar path; its vectorized path
rounds each vector's first element to the result dtype before adding
`i * step`, so eager's floats can differ from these by one ulp (exactly which
elements depends on the CPU's vector width). `tril`/`triu` select on a
comparison of the last two `linalg.index` values with the diagonal. `fill`
and `copy` make a new value of `self`'s sizes; `native_dropout` lowers in
evaluation only.
"""

from __future__ import annotations

from typing import cast

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import IndexType, i64
from xdsl.dialects.linalg.ops import FillOp, IndexOp
from xdsl.ir import SSAValue

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import DType, SymBoolType, SymFloatType, SymIntType, TensorType
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.transforms.linalg_lowering import lowers
from xdsl_exir.transforms.linalg_lowering.scalar import add, mul
from xdsl_exir.transforms.linalg_lowering.state import (
    PARALLEL,
    LoweringState,
    broadcast_map,
    element_type,
    identity_map,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    result_of as _result,
)


def fill(st: LoweringState, out: TensorType, value: object) -> SSAValue:
    """
    A tensor of `out`'s sizes and dtype holding `value` (a number or a symbolic scalar).

    A 0-d `linalg.fill` broadcast by a copying `linalg.generic`, not a `linalg.fill`
    of the whole tensor: iree-compile 3.13 miscompiles a reduction whose input is a
    whole-tensor fill (or a generic yielding a captured scalar): `ones(5).sum()`
    gives 1 and `ones(5, 5, 5).sum()` 8, where the 0-d broadcast form gives 5 and
    125. `LoweringState.splat` still sees the scalar through the broadcast.
    """
    scalar_type = TensorType((), out.element_dtype)
    if isinstance(value, bool | int | float):
        scalar = st.filled(scalar_type, value)
    else:
        init = st.empty(scalar_type)
        op = FillOp((st.scalar(value, out.element_dtype),), (init,), (init.type,))
        st.insert(op)
        scalar = op.results[0]
    if out.rank == 0:
        return scalar
    rank = out.rank
    (result,) = st.generic(
        [(scalar, broadcast_map((), out.sizes))],
        [(st.empty(out), identity_map(rank))],
        [PARALLEL] * rank,
        lambda args: [args[0]],
    )
    return result


def as_index(st: LoweringState, value: object) -> SSAValue:
    """An `index` value for an int or a lowered SymInt argument."""
    if isinstance(value, int):
        return st.index(value)
    lowered = st.lowered(value)
    if not isinstance(lowered, SSAValue) or not isinstance(lowered.type, IndexType):
        raise st.error(f"expected an integer, got {value!r}")
    return lowered


@lowers("aten.full.default", "aten.full_like.default", "aten.new_full.default")
def _full(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return [fill(st, _result(op), b["fill_value"])]


@lowers("aten.zeros.default", "aten.zeros_like.default", "aten.new_zeros.default")
def _zeros(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return [st.filled(_result(op), 0)]


@lowers("aten.ones.default", "aten.ones_like.default", "aten.new_ones.default")
def _ones(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return [st.filled(_result(op), 1)]


@lowers("aten.empty.memory_format", "aten.empty_strided.default", "aten.new_empty.default")
def _empty(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """Values unspecified, as in torch; strides and memory formats do not exist on value tensors."""
    return [st.empty(_result(op))]


def _accumulate_dtype(dtype: DType) -> DType:
    """`at::acc_type<T, /*is_cuda=*/false>`: what torch's CPU arange computes in."""
    if dtype.is_floating_point:
        return DType.float32 if dtype in (DType.float16, DType.bfloat16) else DType.float64
    return DType.int64


@lowers("aten.arange.default", "aten.arange.start", "aten.arange.start_step")
def _arange(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    out = _result(op)
    if out.rank != 1:
        raise st.error(f"arange with a result of rank {out.rank}")
    dtype = out.element_dtype
    acc = _accumulate_dtype(dtype)
    # Scalar.to<acc_t>(): a float start or step truncates toward zero for integer results.
    start = st.scalar(b.get("start", 0), acc)
    step = st.scalar(b.get("step", 1), acc)

    def body(args: object) -> list[SSAValue]:
        i = st.emit(arith.IndexCastOp(st.emit(IndexOp(0)), i64))
        v = add(st, start, mul(st, step, st.cast(i, DType.int64, acc), acc), acc)
        return [st.cast(v, acc, dtype)]

    return st.generic([], [(st.empty(out), identity_map(1))], [PARALLEL], lambda args: body(args))


def _triangle(st: LoweringState, op: AtenOp, b: Bound, lower: bool) -> list[SSAValue]:
    x = b.value("self")
    out = _result(op)
    rank = out.rank
    if rank < 2:
        raise st.error(f"{op.name} needs a tensor of at least 2 dimensions, got {rank}")
    diagonal = as_index(st, b.get("diagonal", 0))
    dtype = out.element_dtype
    zero = st.constant(0, dtype)

    def body(args: object) -> list[SSAValue]:
        row = st.emit(IndexOp(rank - 2))
        col = st.emit(IndexOp(rank - 1))
        edge = st.emit(arith.AddiOp(row, diagonal))
        # tril keeps col - row <= diagonal, triu keeps col - row >= diagonal.
        keep = st.emit(arith.CmpiOp(col, edge, "sle" if lower else "sge"))
        return [st.emit(arith.SelectOp(keep, cast(list[SSAValue], args)[0], zero))]

    return st.generic(
        [(st.tensor(x), identity_map(rank))],
        [(st.empty(out), identity_map(rank))],
        [PARALLEL] * rank,
        lambda args: body(list(args)),
    )


@lowers("aten.tril.default")
def _tril(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _triangle(st, op, b, lower=True)


@lowers("aten.triu.default")
def _triu(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _triangle(st, op, b, lower=False)


@lowers("aten.fill.Scalar")
def _fill_scalar(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """`self` with every element `value` (converted to self's dtype): only the sizes of self matter."""
    return [fill(st, _result(op), b["value"])]


@lowers("aten.copy.default")
def _copy(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """`self.copy_(src)` as a value: src broadcast to self's sizes, converted once to self's dtype."""
    src = b.value("src")
    srct, out = cast(TensorType, src.type), _result(op)
    rank = out.rank
    return st.generic(
        [(st.tensor(src), broadcast_map(srct.sizes, out.sizes))],
        [(st.empty(out), identity_map(rank))],
        [PARALLEL] * rank,
        lambda args: [st.cast(args[0], srct.element_dtype, out.element_dtype)],
    )


@lowers("aten.native_dropout.default", note="train=True refused: its mask comes from torch's random generator")
def _native_dropout(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """In evaluation (`train` False or None) dropout is the identity and its mask all true, as torch's kernel gives."""
    if b.get("train"):
        raise st.error(
            "native_dropout with train=True draws its mask from torch's random generator, which native code "
            "cannot reproduce; export the model in eval() mode"
        )
    return [st.tensor(b["input"]), st.filled(_result(op, 1), True)]


@lowers("aten._local_scalar_dense.default")
def _local_scalar_dense(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """
    `.item()`: the one element of `self` as the lowering's scalar of the
    result's kind: a SymInt is an `index`, a SymFloat an `f64`, a SymBool an `i1`.
    """
    x = b.value("self")
    xt = cast(TensorType, x.type)
    if any(s != 1 for s in xt.sizes):
        raise st.error(f"_local_scalar_dense of a tensor of sizes {list(xt.sizes)}: .item() needs exactly one element")
    value = st.emit(tensor.ExtractOp(st.tensor(x), [st.index(0)] * xt.rank, element_type(xt.element_dtype)))
    kind = op.results[0].type
    if isinstance(kind, SymFloatType):
        return [st.cast(value, xt.element_dtype, DType.float64)]
    if isinstance(kind, SymBoolType):
        return [st.cast(value, xt.element_dtype, DType.bool)]
    if not isinstance(kind, SymIntType) or xt.element_dtype.is_floating_point:
        raise st.error(f"_local_scalar_dense of {xt.element_dtype} to {kind}")
    return [st.emit(arith.IndexCastOp(st.cast(value, xt.element_dtype, DType.int64), IndexType()))]
