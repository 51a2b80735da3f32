"""
`arith` on numpy values: every op works elementwise on scalars and whole
arrays alike, so the same implementation serves a scalar in `scf` control
flow and a `linalg.generic` body evaluated once over its iteration grid.

Integers are held signed and wrap modulo 2^N; the unsigned ops reinterpret
the bits (`values.to_unsigned`). Division by zero and signed overflow of
`divsi` are undefined behaviour in MLIR; here they give whatever numpy gives
(0 for a zero divisor), without a warning.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Attribute, Operation

from xdsl_exir.interpreters.upstream.values import (
    Value,
    bit_width,
    constant_value,
    element_type,
    finish,
    from_unsigned,
    is_bf16,
    is_i1,
    numpy_dtype,
    to_signed,
    to_unsigned,
    wrap_int,
)

_Binary = Callable[[Any, Any], Any]


def _float_binary(op: Operation, args: PythonValues, fn: _Binary) -> PythonValues:
    return (finish(fn(args[0], args[1]), op.results[0].type),)


def _int_binary(op: Operation, args: PythonValues, fn: _Binary) -> PythonValues:
    """`fn` on the two's-complement values, wrapped back into the result type."""
    t = op.results[0].type
    with np.errstate(all="ignore"):
        return (wrap_int(fn(to_signed(args[0], t), to_signed(args[1], t)), t),)


def _uint_binary(op: Operation, args: PythonValues, fn: _Binary) -> PythonValues:
    """`fn` on the operands' bits read as unsigned integers."""
    t = op.operands[0].type
    with np.errstate(all="ignore"):
        result = fn(to_unsigned(args[0], t), to_unsigned(args[1], t))
    return (from_unsigned(result, op.results[0].type),)


def _trunc_div(a: Any, b: Any) -> Any:
    """Division rounding toward zero (C's, MLIR's divsi), on numpy integers."""
    b_safe = np.where(b == 0, 1, b)
    return np.where(b == 0, 0, (a - np.fmod(a, b_safe)) // b_safe)


def _ceil_div(a: Any, b: Any) -> Any:
    b_safe = np.where(b == 0, 1, b)
    return np.where(b == 0, 0, np.floor_divide(a, b_safe) + (np.remainder(a, b_safe) != 0))


def _floor_div(a: Any, b: Any) -> Any:
    b_safe = np.where(b == 0, 1, b)
    return np.where(b == 0, 0, np.floor_divide(a, b_safe))


def _rem(a: Any, b: Any) -> Any:
    """Remainder with the dividend's sign (remsi); 0 for a zero divisor."""
    b_safe = np.where(b == 0, 1, b)
    return np.where(b == 0, 0, np.fmod(a, b_safe))


def _zero_signs(both: Any, r: Any, zeros: Any) -> Any:
    return np.where(both, zeros, r) if np.any(both) else r


def _maximumf(a: Any, b: Any) -> Any:
    """IEEE maximum: NaN wins, and +0 is larger than -0 (so max(-0, +0) = +0)."""
    r = np.maximum(a, b)
    return _zero_signs((a == 0) & (b == 0), r, np.add(a, b))


def _minimumf(a: Any, b: Any) -> Any:
    """IEEE minimum: NaN wins, and -0 is smaller than +0."""
    r = np.minimum(a, b)
    return _zero_signs((a == 0) & (b == 0), r, np.negative(np.add(np.negative(a), np.negative(b))))


def _shift_amount(b: Any, width: int) -> Any:
    """
    The shift amount (unsigned bits) capped at `width`: shifting by `width`
    or more is poison in MLIR; here it shifts everything out.
    """
    return np.minimum(np.asarray(b), width).astype(np.int64)


def _shift_left(width: int) -> _Binary:
    def shift(a: Any, b: Any) -> Any:
        amount = _shift_amount(b, width)
        return np.where(amount >= width, 0, np.left_shift(a, amount.astype(a.dtype)))

    return shift


def _shift_right(width: int) -> _Binary:
    """Logical shift: `a` is already unsigned."""

    def shift(a: Any, b: Any) -> Any:
        amount = _shift_amount(b, width)
        return np.where(amount >= width, 0, np.right_shift(a, amount.astype(a.dtype)))

    return shift


def _cmpf(predicate: int, a: Any, b: Any) -> Any:
    """
    The 16 `arith.cmpf` predicates. "o" predicates are false and "u" ones true
    when either operand is NaN; numpy's == < ... are already ordered, and
    `!=` is already unordered.
    """
    match predicate:
        case 0:  # false
            return np.zeros(np.broadcast(a, b).shape, dtype=np.bool_)[()]
        case 1:  # oeq
            return np.equal(a, b)
        case 2:  # ogt
            return np.greater(a, b)
        case 3:  # oge
            return np.greater_equal(a, b)
        case 4:  # olt
            return np.less(a, b)
        case 5:  # ole
            return np.less_equal(a, b)
        case 6:  # one
            return np.less(a, b) | np.greater(a, b)
        case 7:  # ord
            return ~(np.isnan(a) | np.isnan(b))
        case 8:  # ueq
            return ~(np.less(a, b) | np.greater(a, b))
        case 9:  # ugt
            return ~np.less_equal(a, b)
        case 10:  # uge
            return ~np.less(a, b)
        case 11:  # ult
            return ~np.greater_equal(a, b)
        case 12:  # ule
            return ~np.greater(a, b)
        case 13:  # une
            return np.not_equal(a, b)
        case 14:  # uno
            return np.isnan(a) | np.isnan(b)
        case 15:  # true
            return np.ones(np.broadcast(a, b).shape, dtype=np.bool_)[()]
    raise ValueError(f"unknown arith.cmpf predicate {predicate}")


_CMPI_SIGNED: dict[int, _Binary] = {
    0: np.equal,
    1: np.not_equal,
    2: np.less,
    3: np.less_equal,
    4: np.greater,
    5: np.greater_equal,
}
_CMPI_UNSIGNED: dict[int, _Binary] = {
    6: np.less,
    7: np.less_equal,
    8: np.greater,
    9: np.greater_equal,
}


def _bits(value: Value, t: Attribute) -> np.ndarray:
    """The raw bits of a value as an unsigned integer array."""
    if is_bf16(t):
        return (np.asarray(value, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)
    if is_i1(t):
        return np.asarray(value).astype(np.uint8)
    arr = np.asarray(value, dtype=numpy_dtype(t))
    return arr.view(f"u{arr.dtype.itemsize}")


def _from_bits(bits: np.ndarray, t: Attribute) -> Value:
    if is_bf16(t):
        return (bits.astype(np.uint32) << 16).view(np.float32)[()]
    if is_i1(t):
        return (bits != 0)[()]
    return finish(bits.view(numpy_dtype(t))[()], t)


@register_impls
class ArithFunctions(InterpreterFunctions):
    """`arith` ops on numpy scalars and arrays."""

    @impl(arith.ConstantOp)
    def run_constant(self, interpreter: Interpreter, op: arith.ConstantOp, args: PythonValues) -> PythonValues:
        cache = interpreter.get_data(ArithFunctions, "constants", dict)
        return (constant_value(op.value, op.result.type, cache, op),)

    # -- float arithmetic ----------------------------------------------------

    @impl(arith.AddfOp)
    def run_addf(self, interpreter: Interpreter, op: arith.AddfOp, args: PythonValues) -> PythonValues:
        return _float_binary(op, args, np.add)

    @impl(arith.SubfOp)
    def run_subf(self, interpreter: Interpreter, op: arith.SubfOp, args: PythonValues) -> PythonValues:
        return _float_binary(op, args, np.subtract)

    @impl(arith.MulfOp)
    def run_mulf(self, interpreter: Interpreter, op: arith.MulfOp, args: PythonValues) -> PythonValues:
        return _float_binary(op, args, np.multiply)

    @impl(arith.DivfOp)
    def run_divf(self, interpreter: Interpreter, op: arith.DivfOp, args: PythonValues) -> PythonValues:
        with np.errstate(all="ignore"):
            return _float_binary(op, args, np.divide)

    @impl(arith.NegfOp)
    def run_negf(self, interpreter: Interpreter, op: arith.NegfOp, args: PythonValues) -> PythonValues:
        return (np.negative(args[0]),)

    @impl(arith.MaximumfOp)
    def run_maximumf(self, interpreter: Interpreter, op: arith.MaximumfOp, args: PythonValues) -> PythonValues:
        return _float_binary(op, args, _maximumf)

    @impl(arith.MinimumfOp)
    def run_minimumf(self, interpreter: Interpreter, op: arith.MinimumfOp, args: PythonValues) -> PythonValues:
        return _float_binary(op, args, _minimumf)

    @impl(arith.MaxnumfOp)
    def run_maxnumf(self, interpreter: Interpreter, op: arith.MaxnumfOp, args: PythonValues) -> PythonValues:
        return _float_binary(op, args, np.fmax)

    @impl(arith.MinnumfOp)
    def run_minnumf(self, interpreter: Interpreter, op: arith.MinnumfOp, args: PythonValues) -> PythonValues:
        return _float_binary(op, args, np.fmin)

    @impl(arith.CmpfOp)
    def run_cmpf(self, interpreter: Interpreter, op: arith.CmpfOp, args: PythonValues) -> PythonValues:
        with np.errstate(invalid="ignore"):
            return (_cmpf(op.predicate.value.data, args[0], args[1]),)

    # -- integer arithmetic --------------------------------------------------

    @impl(arith.AddiOp)
    def run_addi(self, interpreter: Interpreter, op: arith.AddiOp, args: PythonValues) -> PythonValues:
        return _int_binary(op, args, np.add)

    @impl(arith.SubiOp)
    def run_subi(self, interpreter: Interpreter, op: arith.SubiOp, args: PythonValues) -> PythonValues:
        return _int_binary(op, args, np.subtract)

    @impl(arith.MuliOp)
    def run_muli(self, interpreter: Interpreter, op: arith.MuliOp, args: PythonValues) -> PythonValues:
        return _int_binary(op, args, np.multiply)

    @impl(arith.DivSIOp)
    def run_divsi(self, interpreter: Interpreter, op: arith.DivSIOp, args: PythonValues) -> PythonValues:
        return _int_binary(op, args, _trunc_div)

    @impl(arith.DivUIOp)
    def run_divui(self, interpreter: Interpreter, op: arith.DivUIOp, args: PythonValues) -> PythonValues:
        return _uint_binary(op, args, _floor_div)

    @impl(arith.RemSIOp)
    def run_remsi(self, interpreter: Interpreter, op: arith.RemSIOp, args: PythonValues) -> PythonValues:
        return _int_binary(op, args, _rem)

    @impl(arith.RemUIOp)
    def run_remui(self, interpreter: Interpreter, op: arith.RemUIOp, args: PythonValues) -> PythonValues:
        return _uint_binary(op, args, _rem)

    @impl(arith.FloorDivSIOp)
    def run_floordivsi(self, interpreter: Interpreter, op: arith.FloorDivSIOp, args: PythonValues) -> PythonValues:
        return _int_binary(op, args, _floor_div)

    @impl(arith.CeilDivSIOp)
    def run_ceildivsi(self, interpreter: Interpreter, op: arith.CeilDivSIOp, args: PythonValues) -> PythonValues:
        return _int_binary(op, args, _ceil_div)

    @impl(arith.CeilDivUIOp)
    def run_ceildivui(self, interpreter: Interpreter, op: arith.CeilDivUIOp, args: PythonValues) -> PythonValues:
        return _uint_binary(op, args, _ceil_div)

    @impl(arith.MaxSIOp)
    def run_maxsi(self, interpreter: Interpreter, op: arith.MaxSIOp, args: PythonValues) -> PythonValues:
        return _int_binary(op, args, np.maximum)

    @impl(arith.MinSIOp)
    def run_minsi(self, interpreter: Interpreter, op: arith.MinSIOp, args: PythonValues) -> PythonValues:
        return _int_binary(op, args, np.minimum)

    @impl(arith.MaxUIOp)
    def run_maxui(self, interpreter: Interpreter, op: arith.MaxUIOp, args: PythonValues) -> PythonValues:
        return _uint_binary(op, args, np.maximum)

    @impl(arith.MinUIOp)
    def run_minui(self, interpreter: Interpreter, op: arith.MinUIOp, args: PythonValues) -> PythonValues:
        return _uint_binary(op, args, np.minimum)

    @impl(arith.AndIOp)
    def run_andi(self, interpreter: Interpreter, op: arith.AndIOp, args: PythonValues) -> PythonValues:
        return _int_binary(op, args, np.bitwise_and)

    @impl(arith.OrIOp)
    def run_ori(self, interpreter: Interpreter, op: arith.OrIOp, args: PythonValues) -> PythonValues:
        return _int_binary(op, args, np.bitwise_or)

    @impl(arith.XOrIOp)
    def run_xori(self, interpreter: Interpreter, op: arith.XOrIOp, args: PythonValues) -> PythonValues:
        return _int_binary(op, args, np.bitwise_xor)

    @impl(arith.ShLIOp)
    def run_shli(self, interpreter: Interpreter, op: arith.ShLIOp, args: PythonValues) -> PythonValues:
        return _uint_binary(op, args, _shift_left(bit_width(op.result.type)))

    @impl(arith.ShRUIOp)
    def run_shrui(self, interpreter: Interpreter, op: arith.ShRUIOp, args: PythonValues) -> PythonValues:
        return _uint_binary(op, args, _shift_right(bit_width(op.result.type)))

    @impl(arith.ShRSIOp)
    def run_shrsi(self, interpreter: Interpreter, op: arith.ShRSIOp, args: PythonValues) -> PythonValues:
        width = bit_width(op.result.type)
        shift = _shift_amount(to_unsigned(args[1], op.result.type), width - 1)
        signed = to_signed(args[0], op.result.type)
        return (wrap_int(np.right_shift(signed, shift.astype(np.asarray(signed).dtype)), op.result.type),)

    @impl(arith.CmpiOp)
    def run_cmpi(self, interpreter: Interpreter, op: arith.CmpiOp, args: PythonValues) -> PythonValues:
        predicate = op.predicate.value.data
        t = op.lhs.type
        if predicate in _CMPI_SIGNED:
            return (_CMPI_SIGNED[predicate](to_signed(args[0], t), to_signed(args[1], t)),)
        return (_CMPI_UNSIGNED[predicate](to_unsigned(args[0], t), to_unsigned(args[1], t))[()],)

    @impl(arith.SelectOp)
    def run_select(self, interpreter: Interpreter, op: arith.SelectOp, args: PythonValues) -> PythonValues:
        cond, lhs, rhs = args
        if np.ndim(cond) == 0:
            return (lhs if cond else rhs,)
        return (finish(np.where(cond, lhs, rhs), op.result.type),)

    # -- casts -----------------------------------------------------------------

    @impl(arith.ExtFOp)
    def run_extf(self, interpreter: Interpreter, op: arith.ExtFOp, args: PythonValues) -> PythonValues:
        return (np.asarray(args[0]).astype(numpy_dtype(op.result.type))[()],)

    @impl(arith.TruncFOp)
    def run_truncf(self, interpreter: Interpreter, op: arith.TruncFOp, args: PythonValues) -> PythonValues:
        with np.errstate(over="ignore"):
            narrowed = np.asarray(args[0]).astype(numpy_dtype(op.result.type))[()]
        return (finish(narrowed, op.result.type),)

    @impl(arith.ExtSIOp)
    def run_extsi(self, interpreter: Interpreter, op: arith.ExtSIOp, args: PythonValues) -> PythonValues:
        return (wrap_int(to_signed(args[0], op.input.type), op.result.type),)

    @impl(arith.ExtUIOp)
    def run_extui(self, interpreter: Interpreter, op: arith.ExtUIOp, args: PythonValues) -> PythonValues:
        return (wrap_int(to_unsigned(args[0], op.input.type).astype(np.uint64), op.result.type),)

    @impl(arith.TruncIOp)
    def run_trunci(self, interpreter: Interpreter, op: arith.TruncIOp, args: PythonValues) -> PythonValues:
        return (wrap_int(to_signed(args[0], op.input.type), op.result.type),)

    @impl(arith.SIToFPOp)
    def run_sitofp(self, interpreter: Interpreter, op: arith.SIToFPOp, args: PythonValues) -> PythonValues:
        t = op.result.type
        return (finish(np.asarray(to_signed(args[0], op.input.type)).astype(numpy_dtype(t))[()], t),)

    @impl(arith.UIToFPOp)
    def run_uitofp(self, interpreter: Interpreter, op: arith.UIToFPOp, args: PythonValues) -> PythonValues:
        t = op.result.type
        return (finish(to_unsigned(args[0], op.input.type).astype(numpy_dtype(t))[()], t),)

    @impl(arith.FPToSIOp)
    def run_fptosi(self, interpreter: Interpreter, op: arith.FPToSIOp, args: PythonValues) -> PythonValues:
        """
        NaN and values outside the result's range are poison in MLIR; here they give what
        torch's CPU casts (x86's truncating conversions) and IREE give: the minimum of a
        32-bit carrier for results of up to 32 bits (then wrapped, so 0 for i8 and i16),
        of a 64-bit one above. numpy's own cast leaves them platform-defined.
        """
        width = bit_width(op.result.type)
        carrier = np.int64 if width > 32 else np.int32
        lo, hi = float(np.iinfo(carrier).min), -float(np.iinfo(carrier).min)
        x = np.asarray(args[0], dtype=np.float64)
        bad = ~((x >= lo) & (x < hi))  # NaN compares false
        with np.errstate(invalid="ignore"):
            ints = np.where(bad, 0.0, np.trunc(x)).astype(np.int64)
        ints = np.where(bad, np.iinfo(carrier).min, ints)
        return (wrap_int(ints, op.result.type),)

    @impl(arith.FPToUIOp)
    def run_fptoui(self, interpreter: Interpreter, op: arith.FPToUIOp, args: PythonValues) -> PythonValues:
        with np.errstate(invalid="ignore"):
            return (from_unsigned(np.asarray(args[0]).astype(np.uint64), op.result.type),)

    @impl(arith.IndexCastOp)
    def run_index_cast(self, interpreter: Interpreter, op: arith.IndexCastOp, args: PythonValues) -> PythonValues:
        """Sign-extends into `index`, truncates out of it."""
        return (wrap_int(to_signed(args[0], op.input.type), op.result.type),)

    @impl(arith.BitcastOp)
    def run_bitcast(self, interpreter: Interpreter, op: arith.BitcastOp, args: PythonValues) -> PythonValues:
        return (_from_bits(_bits(args[0], element_type(op.input.type)), element_type(op.result.type)),)

