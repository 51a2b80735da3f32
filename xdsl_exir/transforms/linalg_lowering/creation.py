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

from xdsl.dialects import arith
from xdsl.dialects.builtin import i64
from xdsl.dialects.linalg.ops import FillOp, IndexOp
from xdsl.ir import SSAValue

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.transforms.linalg_lowering import lowers
from xdsl_exir.transforms.linalg_lowering.scalar import (
    add,
    mul,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    PARALLEL,
    LoweringState,
    broadcast_map,
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


@lowers("aten._to_copy.default", "aten.clone.default", "aten.alias.default", "aten.lift_fresh_copy.default", "aten.detach.default", "aten.alias_copy.default", "aten.detach_copy.default")
def _value_copy(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """Value semantics: a copy is the value itself, converted to the result dtype."""
    x = cast(SSAValue, b["self"])
    t = cast(TensorType, x.type)
    return [st.convert(st.tensor(x), t, _result(op).element_dtype)]


@lowers("aten.scalar_tensor.default")
def _scalar_tensor(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    out = _result(op)
    value = b["s"]
    if isinstance(value, bool | int | float):
        return [st.filled(out, value)]
    return [st.elementwise(out, [value], out.element_dtype, lambda vals: vals[0])]
