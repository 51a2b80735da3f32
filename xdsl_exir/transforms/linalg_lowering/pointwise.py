"""
Pointwise core ATen ops: one `linalg.generic` each, with `arith`/`math` in the body.

Broadcasting comes from the exir types; the dtype an op computes in is PyTorch's
type promotion of its operands (`aten_inference.result_type`, wrapped numbers
included), float16/bfloat16 computing in float32 as the CPU kernels do. The
formulas are those of PyTorch's CPU kernels: `sigmoid` is `1 / (1 + exp(-x))`,
`gelu` the erf form or the tanh approximation, integer `remainder` and
`div(rounding_mode="floor")` round toward negative infinity, comparisons on NaN
are false except `!=`.
"""

from __future__ import annotations

import math as pymath
from collections.abc import Callable, Sequence
from typing import cast

from xdsl.dialects import arith, math
from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.aten_inference import Bound, result_type
from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.transforms.linalg_lowering import lowers
from xdsl_exir.transforms.linalg_lowering.state import (
    LoweringState,
    is_unsigned,
    opmath,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    result_of as _result,
)

Body = Callable[[LoweringState, list[SSAValue], DType], SSAValue]


def _is_float(dt: DType) -> bool:
    return dt.is_floating_point


# -- scalar building blocks (operands already in the compute dtype) ----------


def add(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    if _is_float(dt):
        return st.emit(arith.AddfOp(a, b))
    if dt is DType.bool:
        return st.emit(arith.OrIOp(a, b))
    return st.emit(arith.AddiOp(a, b))


def sub(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    return st.emit(arith.SubfOp(a, b)) if _is_float(dt) else st.emit(arith.SubiOp(a, b))


def mul(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    if _is_float(dt):
        return st.emit(arith.MulfOp(a, b))
    if dt is DType.bool:
        return st.emit(arith.AndIOp(a, b))
    return st.emit(arith.MuliOp(a, b))


def div(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    return st.emit(arith.DivfOp(a, b))


def maximum(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    if _is_float(dt):
        return st.emit(arith.MaximumfOp(a, b))
    return st.emit(arith.MaxUIOp(a, b) if is_unsigned(dt) else arith.MaxSIOp(a, b))


def minimum(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    if _is_float(dt):
        return st.emit(arith.MinimumfOp(a, b))
    return st.emit(arith.MinUIOp(a, b) if is_unsigned(dt) else arith.MinSIOp(a, b))


_FLOAT_PRED = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}
_SIGNED_PRED = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}
_UNSIGNED_PRED = {"eq": "eq", "ne": "ne", "lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge"}


def compare(st: LoweringState, kind: str, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    if _is_float(dt):
        return st.emit(arith.CmpfOp(a, b, _FLOAT_PRED[kind]))
    preds = _UNSIGNED_PRED if is_unsigned(dt) else _SIGNED_PRED
    return st.emit(arith.CmpiOp(a, b, preds[kind]))


def select(st: LoweringState, c: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
    return st.emit(arith.SelectOp(c, a, b))


def floor_divide(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    if _is_float(dt):
        return st.emit(math.FloorOp(st.emit(arith.DivfOp(a, b))))
    return st.emit(arith.FloorDivSIOp(a, b))


def remainder(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    """Python's modulo: the result takes the divisor's sign."""
    if _is_float(dt):
        q = st.emit(math.FloorOp(st.emit(arith.DivfOp(a, b))))
        return st.emit(arith.SubfOp(a, st.emit(arith.MulfOp(q, b))))
    if is_unsigned(dt):
        return st.emit(arith.RemUIOp(a, b))
    r = st.emit(arith.RemSIOp(a, b))
    zero = st.constant(0, dt)
    nonzero = st.emit(arith.CmpiOp(r, zero, "ne"))
    signs_differ = st.emit(arith.XOrIOp(st.emit(arith.CmpiOp(r, zero, "slt")), st.emit(arith.CmpiOp(b, zero, "slt"))))
    fix = st.emit(arith.AndIOp(nonzero, signs_differ))
    return select(st, fix, st.emit(arith.AddiOp(r, b)), r)


def pow_(st: LoweringState, a: SSAValue, b: SSAValue, dt: DType) -> SSAValue:
    if _is_float(dt):
        return st.emit(math.PowFOp(a, b))
    return st.emit(math.IPowIOp(a, b))


def sigmoid(st: LoweringState, x: SSAValue, dt: DType) -> SSAValue:
    one = st.constant(1.0, dt)
    e = st.emit(math.ExpOp(st.emit(arith.NegfOp(x))))
    return st.emit(arith.DivfOp(one, st.emit(arith.AddfOp(one, e))))


def gelu(st: LoweringState, x: SSAValue, dt: DType, approximate: str) -> SSAValue:
    half = st.constant(0.5, dt)
    one = st.constant(1.0, dt)
    if approximate == "tanh":
        inner = st.emit(arith.MulfOp(st.emit(arith.MulfOp(x, x)), x))
        inner = st.emit(arith.AddfOp(x, st.emit(arith.MulfOp(st.constant(0.044715, dt), inner))))
        inner = st.emit(arith.MulfOp(st.constant(pymath.sqrt(2.0 / pymath.pi), dt), inner))
        t = st.emit(math.TanhOp(inner))
    else:
        t = st.emit(math.ErfOp(st.emit(arith.MulfOp(x, st.constant(pymath.sqrt(0.5), dt)))))
    return st.emit(arith.MulfOp(st.emit(arith.MulfOp(half, x)), st.emit(arith.AddfOp(one, t))))


# -- registration -------------------------------------------------------------


def _pointwise(
    st: LoweringState,
    op: AtenOp,
    operands: Sequence[object],
    body: Callable[[list[SSAValue], DType], SSAValue],
    compute: DType | None = None,
    fn_dtype: DType | None = None,
    operand_dtypes: Sequence[DType | None] | None = None,
) -> list[SSAValue]:
    out = _result(op)
    dt = compute or out.element_dtype
    inner = opmath(dt)
    return [
        st.elementwise(
            out,
            operands,
            dt,
            lambda vals: body(vals, inner),
            fn_dtype=fn_dtype,
            operand_dtypes=operand_dtypes,
        )
    ]


_FLOAT_UNARY: dict[str, Callable[[SSAValue], object]] = {
    "exp": math.ExpOp, "exp2": math.Exp2Op, "expm1": math.ExpM1Op, "log": math.LogOp,
    "log2": math.Log2Op, "log10": math.Log10Op, "log1p": math.Log1pOp, "sqrt": math.SqrtOp,
    "rsqrt": math.RsqrtOp, "sin": math.SinOp, "cos": math.CosOp, "tan": math.TanOp,
    "asin": math.AsinOp, "acos": math.AcosOp, "atan": math.AtanOp, "sinh": math.SinhOp,
    "cosh": math.CoshOp, "tanh": math.TanhOp, "asinh": math.AsinhOp, "acosh": math.AcoshOp,
    "atanh": math.AtanhOp, "erf": math.ErfOp,
}  # fmt: skip


def _register_float_unary(name: str, make: Callable[[SSAValue], object]) -> None:
    @lowers(f"aten.{name}.default")
    def rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
        return _pointwise(st, op, [b["self"]], lambda v, dt: st.emit(cast(Operation, make(v[0]))))

    _ = rule


for _name, _make in _FLOAT_UNARY.items():
    _register_float_unary(_name, _make)


@lowers("aten.sigmoid.default")
def _sigmoid(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"]], lambda v, dt: sigmoid(st, v[0], dt))


@lowers("aten.reciprocal.default")
def _reciprocal(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"]], lambda v, dt: div(st, st.constant(1.0, dt), v[0], dt))


@lowers("aten.gelu.default")
def _gelu(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    approximate = cast(str, b["approximate"])
    return _pointwise(st, op, [b["self"]], lambda v, dt: gelu(st, v[0], dt, approximate))


@lowers("aten.silu.default")
def _silu(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"]], lambda v, dt: mul(st, v[0], sigmoid(st, v[0], dt), dt))


@lowers("aten.relu.default")
def _relu(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"]], lambda v, dt: maximum(st, v[0], st.constant(0, dt), dt))


@lowers("aten.neg.default")
def _neg(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        if _is_float(dt):
            return st.emit(arith.NegfOp(v[0]))
        return st.emit(arith.SubiOp(st.constant(0, dt), v[0]))

    return _pointwise(st, op, [b["self"]], body)


@lowers("aten.abs.default")
def _abs(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        if _is_float(dt):
            return st.emit(math.AbsFOp(v[0]))
        if is_unsigned(dt):
            return v[0]
        return st.emit(math.AbsIOp(v[0]))

    return _pointwise(st, op, [b["self"]], body)


def _rounding(name: str, make: Callable[[SSAValue], object]) -> None:
    @lowers(f"aten.{name}.default")
    def rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
        def body(v: list[SSAValue], dt: DType) -> SSAValue:
            return st.emit(cast(Operation, make(v[0]))) if _is_float(dt) else v[0]

        return _pointwise(st, op, [b["self"]], body)

    _ = rule


_rounding("floor", math.FloorOp)
_rounding("ceil", math.CeilOp)
_rounding("round", math.RoundEvenOp)
_rounding("trunc", math.TruncOp)


@lowers("aten.sign.default")
def _sign(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        zero, one, minus = st.constant(0, dt), st.constant(1, dt), st.constant(-1, dt)
        pos = select(st, compare(st, "gt", v[0], zero, dt), one, zero)
        return select(st, compare(st, "lt", v[0], zero, dt), minus, pos)

    return _pointwise(st, op, [b["self"]], body)


@lowers("aten.isnan.default")
def _isnan(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    dt = cast(TensorType, cast(SSAValue, x).type).element_dtype

    def body(v: list[SSAValue], inner: DType) -> SSAValue:
        if not _is_float(inner):
            return st.constant(False, DType.bool)
        return st.emit(arith.CmpfOp(v[0], v[0], "uno"))

    return _pointwise(st, op, [x], body, compute=dt, fn_dtype=DType.bool)


@lowers("aten.isinf.default")
def _isinf(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    dt = cast(TensorType, cast(SSAValue, x).type).element_dtype

    def body(v: list[SSAValue], inner: DType) -> SSAValue:
        if not _is_float(inner):
            return st.constant(False, DType.bool)
        return st.emit(arith.CmpfOp(st.emit(math.AbsFOp(v[0])), st.constant(float("inf"), inner), "oeq"))

    return _pointwise(st, op, [x], body, compute=dt, fn_dtype=DType.bool)


@lowers("aten.logical_not.default")
def _logical_not(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(
        st, op, [b["self"]], lambda v, dt: st.emit(arith.XOrIOp(v[0], st.constant(True, DType.bool))),
        compute=DType.bool, fn_dtype=DType.bool,
    )  # fmt: skip


@lowers("aten.bitwise_not.default")
def _bitwise_not(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"]], lambda v, dt: st.emit(arith.XOrIOp(v[0], st.constant(-1 if dt is not DType.bool else True, dt))))


# -- binary -------------------------------------------------------------------


def _with_alpha(st: LoweringState, v: SSAValue, alpha: object, dt: DType) -> SSAValue:
    if alpha is None or alpha == 1:
        return v
    return mul(st, v, st.scalar(alpha, dt), dt)


@lowers("aten.add.Tensor", "aten.add.Scalar")
def _add(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    alpha = b.get("alpha")
    return _pointwise(st, op, [b["self"], b["other"]], lambda v, dt: add(st, v[0], _with_alpha(st, v[1], alpha, dt), dt))


@lowers("aten.sub.Tensor", "aten.sub.Scalar")
def _sub(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    alpha = b.get("alpha")
    return _pointwise(st, op, [b["self"], b["other"]], lambda v, dt: sub(st, v[0], _with_alpha(st, v[1], alpha, dt), dt))


@lowers("aten.rsub.Scalar", "aten.rsub.Tensor")
def _rsub(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    alpha = b.get("alpha")
    return _pointwise(st, op, [b["self"], b["other"]], lambda v, dt: sub(st, v[1], _with_alpha(st, v[0], alpha, dt), dt))


@lowers("aten.mul.Tensor", "aten.mul.Scalar")
def _mul(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"], b["other"]], lambda v, dt: mul(st, v[0], v[1], dt))


@lowers("aten.div.Tensor", "aten.div.Scalar")
def _div(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"], b["other"]], lambda v, dt: div(st, v[0], v[1], dt))


@lowers("aten.div.Tensor_mode", "aten.div.Scalar_mode")
def _div_mode(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    mode = b.get("rounding_mode")

    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        if mode == "floor":
            return floor_divide(st, v[0], v[1], dt)
        if mode == "trunc":
            if _is_float(dt):
                return st.emit(math.TruncOp(st.emit(arith.DivfOp(v[0], v[1]))))
            return st.emit(arith.DivUIOp(v[0], v[1]) if is_unsigned(dt) else arith.DivSIOp(v[0], v[1]))
        return div(st, v[0], v[1], dt)

    return _pointwise(st, op, [b["self"], b["other"]], body)


@lowers("aten.floor_divide.default", "aten.floor_divide.Scalar")
def _floor_divide(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"], b["other"]], lambda v, dt: floor_divide(st, v[0], v[1], dt))


@lowers("aten.remainder.Tensor", "aten.remainder.Scalar")
def _remainder(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"], b["other"]], lambda v, dt: remainder(st, v[0], v[1], dt))


@lowers("aten.fmod.Tensor", "aten.fmod.Scalar")
def _fmod(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        if _is_float(dt):
            q = st.emit(math.TruncOp(st.emit(arith.DivfOp(v[0], v[1]))))
            return st.emit(arith.SubfOp(v[0], st.emit(arith.MulfOp(q, v[1]))))
        return st.emit(arith.RemUIOp(v[0], v[1]) if is_unsigned(dt) else arith.RemSIOp(v[0], v[1]))

    return _pointwise(st, op, [b["self"], b["other"]], body)


@lowers("aten.pow.Tensor_Tensor", "aten.pow.Scalar")
def _pow(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"], b["exponent"]], lambda v, dt: pow_(st, v[0], v[1], dt))


@lowers("aten.pow.Tensor_Scalar")
def _pow_scalar(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    e = b["exponent"]
    if isinstance(e, int | float) and not isinstance(e, bool) and float(e) in (1.0, 2.0, 3.0, 0.5, -1.0):
        # The exponents PyTorch's kernel special-cases, computed the same way.
        def body(v: list[SSAValue], dt: DType) -> SSAValue:
            x = v[0]
            if e == 1:
                return x
            if e == 2:
                return mul(st, x, x, dt)
            if e == 3:
                return mul(st, mul(st, x, x, dt), x, dt)
            if e == 0.5 and _is_float(dt):
                return st.emit(math.SqrtOp(x))
            if e == -1 and _is_float(dt):
                return div(st, st.constant(1.0, dt), x, dt)
            return pow_(st, x, st.scalar(e, dt), dt)

        return _pointwise(st, op, [b["self"]], body)
    return _pointwise(st, op, [b["self"], e], lambda v, dt: pow_(st, v[0], v[1], dt))


@lowers("aten.maximum.default", "aten.fmax.default")
def _maximum(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    fmax = op.name == "aten.fmax.default"
    return _pointwise(
        st, op, [b["self"], b["other"]],
        lambda v, dt: st.emit(arith.MaxnumfOp(v[0], v[1])) if fmax and _is_float(dt) else maximum(st, v[0], v[1], dt),
    )  # fmt: skip


@lowers("aten.minimum.default", "aten.fmin.default")
def _minimum(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    fmin = op.name == "aten.fmin.default"
    return _pointwise(
        st, op, [b["self"], b["other"]],
        lambda v, dt: st.emit(arith.MinnumfOp(v[0], v[1])) if fmin and _is_float(dt) else minimum(st, v[0], v[1], dt),
    )  # fmt: skip


@lowers("aten.atan2.default")
def _atan2(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"], b["other"]], lambda v, dt: st.emit(math.Atan2Op(v[0], v[1])))


def _bitwise(name: str, make: Callable[[SSAValue, SSAValue], object]) -> None:
    @lowers(f"aten.{name}.Tensor", f"aten.{name}.Scalar")
    def rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
        return _pointwise(st, op, [b["self"], b["other"]], lambda v, dt: st.emit(cast(Operation, make(v[0], v[1]))))

    _ = rule


_bitwise("bitwise_and", arith.AndIOp)
_bitwise("bitwise_or", arith.OrIOp)
_bitwise("bitwise_xor", arith.XOrIOp)


def _shift(names: tuple[str, ...], left: bool) -> None:
    @lowers(*names)
    def rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
        def body(v: list[SSAValue], dt: DType) -> SSAValue:
            if left:
                return st.emit(arith.ShLIOp(v[0], v[1]))
            return st.emit(arith.ShRUIOp(v[0], v[1]) if is_unsigned(dt) else arith.ShRSIOp(v[0], v[1]))

        return _pointwise(st, op, [b["self"], b["other"]], body)

    _ = rule


_shift(("aten.bitwise_left_shift.Tensor", "aten.bitwise_left_shift.Tensor_Scalar", "aten.__lshift__.Scalar", "aten.__lshift__.Tensor"), True)
_shift(("aten.bitwise_right_shift.Tensor", "aten.bitwise_right_shift.Tensor_Scalar", "aten.__rshift__.Scalar", "aten.__rshift__.Tensor"), False)


def _logical(name: str, make: Callable[[SSAValue, SSAValue], object]) -> None:
    @lowers(f"aten.{name}.default")
    def rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
        return _pointwise(
            st, op, [b["self"], b["other"]], lambda v, dt: st.emit(cast(Operation, make(v[0], v[1]))),
            compute=DType.bool, fn_dtype=DType.bool,
        )  # fmt: skip

    _ = rule


_logical("logical_and", arith.AndIOp)
_logical("logical_or", arith.OrIOp)
_logical("logical_xor", arith.XOrIOp)


def _comparison(kind: str) -> None:
    @lowers(f"aten.{kind}.Tensor", f"aten.{kind}.Scalar")
    def rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
        operands = [b["self"], b["other"]]
        dt = result_type(operands)
        return _pointwise(st, op, operands, lambda v, inner: compare(st, kind, v[0], v[1], inner), compute=dt, fn_dtype=DType.bool)

    _ = rule


for _kind in ("eq", "ne", "lt", "le", "gt", "ge"):
    _comparison(_kind)


# -- ternary and parametrized -------------------------------------------------


@lowers("aten.where.self", "aten.where.ScalarSelf", "aten.where.ScalarOther", "aten.where.Scalar")
def _where(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(
        st, op, [b["condition"], b["self"], b["other"]], lambda v, dt: select(st, v[0], v[1], v[2]),
        operand_dtypes=[DType.bool, None, None],
    )  # fmt: skip


@lowers("aten.masked_fill.Scalar", "aten.masked_fill.Tensor")
def _masked_fill(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(
        st, op, [b["mask"], b["value"], b["self"]], lambda v, dt: select(st, v[0], v[1], v[2]),
        operand_dtypes=[DType.bool, None, None],
    )  # fmt: skip


def _clamp_body(st: LoweringState, lo: object, hi: object) -> Callable[[list[SSAValue], DType], SSAValue]:
    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        x = v[0]
        k = 1
        if lo is not None:
            x = maximum(st, x, v[k], dt)
            k += 1
        if hi is not None:
            x = minimum(st, x, v[k], dt)
        return x

    return body


@lowers("aten.clamp.default", "aten.clamp.Tensor")
def _clamp(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    lo, hi = b.get("min"), b.get("max")
    operands = [b["self"], *(x for x in (lo, hi) if x is not None)]
    return _pointwise(st, op, operands, _clamp_body(st, lo, hi))


@lowers("aten.clamp_min.default", "aten.clamp_min.Tensor")
def _clamp_min(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"], b["min"]], _clamp_body(st, b["min"], None))


@lowers("aten.clamp_max.default", "aten.clamp_max.Tensor")
def _clamp_max(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return _pointwise(st, op, [b["self"], b["max"]], _clamp_body(st, None, b["max"]))


@lowers("aten.hardtanh.default")
def _hardtanh(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    lo, hi = b["min_val"], b["max_val"]
    return _pointwise(st, op, [b["self"], lo, hi], _clamp_body(st, lo, hi))


@lowers("aten.leaky_relu.default")
def _leaky_relu(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        x = v[0]
        positive = compare(st, "gt", x, st.constant(0.0, dt), dt)
        return select(st, positive, x, mul(st, x, v[1], dt))

    return _pointwise(st, op, [b["self"], b["negative_slope"]], body)


@lowers("aten.elu.default")
def _elu(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        x, alpha, scale, input_scale = v
        positive = compare(st, "gt", x, st.constant(0.0, dt), dt)
        neg = mul(st, alpha, st.emit(math.ExpM1Op(mul(st, x, input_scale, dt))), dt)
        return mul(st, select(st, positive, x, neg), scale, dt)

    return _pointwise(st, op, [b["self"], b["alpha"], b["scale"], b["input_scale"]], body)


@lowers("aten.hardsigmoid.default")
def _hardsigmoid(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        y = div(st, add(st, v[0], st.constant(3.0, dt), dt), st.constant(6.0, dt), dt)
        return minimum(st, maximum(st, y, st.constant(0.0, dt), dt), st.constant(1.0, dt), dt)

    return _pointwise(st, op, [b["self"]], body)


@lowers("aten.hardswish.default")
def _hardswish(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        r = add(st, v[0], st.constant(3.0, dt), dt)
        r = minimum(st, maximum(st, r, st.constant(0.0, dt), dt), st.constant(6.0, dt), dt)
        return div(st, mul(st, v[0], r, dt), st.constant(6.0, dt), dt)

    return _pointwise(st, op, [b["self"]], body)


@lowers("aten.lerp.Scalar", "aten.lerp.Tensor")
def _lerp(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    def body(v: list[SSAValue], dt: DType) -> SSAValue:
        start, end, w = v
        return add(st, start, mul(st, w, sub(st, end, start, dt), dt), dt)

    return _pointwise(st, op, [b["self"], b["end"], b["weight"]], body)


@lowers("aten._to_copy.default", "aten.clone.default", "aten.alias.default", "aten.lift_fresh_copy.default", "aten.detach.default", "aten.alias_copy.default", "aten.detach_copy.default")
def _copy(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
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
    return _pointwise(st, op, [value], lambda v, dt: v[0])
