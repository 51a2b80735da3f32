"""NumPy kernels for the ATen overloads of ``aten_ops.txt``.

Every kernel receives the operator's arguments bound by schema name as plain
Python values (numpy arrays for tensors, ``int``/``float``/``bool`` for
scalars, lists, ``None`` and :class:`DType`/:class:`Layout`/:class:`MemoryFormat`
members) and returns numpy arrays, Python scalars or tuples/lists of them.

Only the *functional* overloads are written by hand, once per operator family
(unary and binary pointwise tables, comparisons, reductions, ...).  In-place
(``op_``) and ``out=`` overloads are derived from the schema's alias
annotations: the functional kernel with the matching argument names is
called and its result is copied into the written argument(s) with
``np.copyto``, so in-place ops really mutate the caller's array.

Numerics follow PyTorch's CPU eager mode where that is cheap to do:

* type promotion is torch's (dimensioned tensors > 0-d tensors > Python
  scalars, by category bool < integer < floating < complex);
* float16 is computed in float32 and rounded at the end, as torch's CPU
  kernels do through their ``opmath`` type;
* bfloat16 has no numpy dtype: bf16 tensors are carried as float32 arrays that
  hold bf16-representable values.  Kernels compute in float32 and
  :func:`run_kernel` rounds a result with :func:`round_to_bfloat16` when
  ``result_dtypes`` says it is bfloat16.

Random operators (``rand``, ``randn``, ``randperm``, ``dropout``/
``native_dropout`` in training mode, ``scaled_dot_product_attention`` with
``dropout_p > 0``) draw from a module-level ``numpy.random.Generator`` that is
seeded deterministically (see :func:`manual_seed`); they are reproducible but
do not reproduce torch's random streams.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import numpy as np
from numpy.lib.stride_tricks import as_strided, sliding_window_view

from xdsl_exir.dialects.exir import DType, MemoryFormat
from xdsl_exir.utils.function_schema import FunctionSchema
from xdsl_exir.utils.limits import check_tensor_bytes
from xdsl_exir.utils.op_registry import functional_variant, lookup, selected_operators
from xdsl_exir.utils.schema_binding import bind

__all__ = [
    "KERNELS",
    "SKIPPED",
    "dtype_of",
    "has_kernel",
    "manual_seed",
    "numpy_dtype",
    "result_type",
    "round_to_bfloat16",
    "run_kernel",
]

Kernel = Callable[..., Any]

# ---------------------------------------------------------------------------
# dtypes
# ---------------------------------------------------------------------------

_NUMPY_OF: dict[DType, np.dtype[Any]] = {
    DType.bool: np.dtype(np.bool_),
    DType.uint8: np.dtype(np.uint8),
    DType.int8: np.dtype(np.int8),
    DType.int16: np.dtype(np.int16),
    DType.int32: np.dtype(np.int32),
    DType.int64: np.dtype(np.int64),
    DType.uint16: np.dtype(np.uint16),
    DType.uint32: np.dtype(np.uint32),
    DType.uint64: np.dtype(np.uint64),
    DType.float16: np.dtype(np.float16),
    DType.bfloat16: np.dtype(np.float32),  # carried as float32, see module doc
    DType.float32: np.dtype(np.float32),
    DType.float64: np.dtype(np.float64),
    DType.complex32: np.dtype(np.complex64),
    DType.complex64: np.dtype(np.complex64),
    DType.complex128: np.dtype(np.complex128),
}

# torch's ScalarType enumeration order: schema defaults and `int? dtype`
# arguments (`to.prim_dtype`) spell dtypes as these integers.
_SCALAR_TYPE_CODES: tuple[DType, ...] = (
    DType.uint8, DType.int8, DType.int16, DType.int32, DType.int64,
    DType.float16, DType.float32, DType.float64, DType.complex32,
    DType.complex64, DType.complex128, DType.bool, DType.qint8, DType.quint8,
    DType.qint32, DType.bfloat16, DType.quint4x2, DType.quint2x4,
    DType.bits1x8, DType.bits2x4, DType.bits4x2, DType.bits8, DType.bits16,
    DType.float8_e5m2, DType.float8_e4m3fn, DType.float8_e5m2fnuz,
    DType.float8_e4m3fnuz, DType.uint16, DType.uint32, DType.uint64,
)
_MEMORY_FORMAT_CODES: tuple[MemoryFormat, ...] = (
    MemoryFormat.contiguous_format, MemoryFormat.preserve_format,
    MemoryFormat.channels_last, MemoryFormat.channels_last_3d,
)

_F32 = np.dtype(np.float32)
_F16 = np.dtype(np.float16)
_I64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)


def numpy_dtype(dtype: DType) -> np.dtype[Any]:
    """The numpy dtype that carries a torch dtype (bfloat16 -> float32)."""
    try:
        return _NUMPY_OF[dtype]
    except KeyError:
        raise NotImplementedError(f"no numpy representation for torch dtype {dtype}") from None


def dtype_of(array: np.ndarray | np.generic) -> DType:
    """The torch dtype of a numpy array (float32 arrays report float32, never bf16)."""
    dt = np.asarray(array).dtype
    for torch_dt, np_dt in _NUMPY_OF.items():
        if np_dt == dt and torch_dt not in (DType.bfloat16, DType.complex32):
            return torch_dt
    raise NotImplementedError(f"numpy dtype {dt} has no torch counterpart")


def _as_dtype(value: object) -> DType | None:
    """Normalise a ScalarType argument (enum member, integer code, name, numpy dtype)."""
    if value is None or isinstance(value, DType):
        return value
    if isinstance(value, bool):
        raise TypeError(f"not a dtype: {value!r}")
    if isinstance(value, int):
        return _SCALAR_TYPE_CODES[value]
    if isinstance(value, str):
        return DType(value.removeprefix("torch."))
    return dtype_of(np.empty(0, dtype=np.dtype(value)))  # type: ignore[arg-type]


def _np_dt(value: object) -> np.dtype[Any] | None:
    dt = _as_dtype(value)
    return None if dt is None else numpy_dtype(dt)


def _as_memory_format(value: object) -> MemoryFormat | None:
    if value is None or isinstance(value, MemoryFormat):
        return value
    if isinstance(value, int):
        return _MEMORY_FORMAT_CODES[value]
    return MemoryFormat(str(value))


def round_to_bfloat16(a: np.ndarray | float) -> np.ndarray:
    """Round to the nearest bfloat16 value (ties to even), returned as float32.

    bfloat16 is the top half of an IEEE float32, so rounding is adding half an
    ulp of the dropped 16 bits (plus the tie-breaking lsb) and truncating.
    """
    f = np.asarray(a, dtype=np.float32)
    bits = f.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(f), f, out).astype(np.float32)


# ---------------------------------------------------------------------------
# type promotion
# ---------------------------------------------------------------------------


def _category(dt: np.dtype[Any]) -> int:
    if dt == _BOOL:
        return 0
    if dt.kind in "iu":
        return 1
    if dt.kind == "f":
        return 2
    return 3


def promote_types(a: np.dtype[Any] | None, b: np.dtype[Any] | None) -> np.dtype[Any] | None:
    """torch.promote_types: a higher category wins outright (int + float16 = float16)."""
    if a is None:
        return b
    if b is None:
        return a
    ca, cb = _category(a), _category(b)
    if ca == cb:
        return np.promote_types(a, b)
    if {ca, cb} == {2, 3}:
        return np.promote_types(a, b)
    return a if ca > cb else b


def _combine(higher: np.dtype[Any] | None, lower: np.dtype[Any] | None) -> np.dtype[Any] | None:
    """A lower-priority operand only matters when it is of a higher category."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    ch, cl = _category(higher), _category(lower)
    if ch == 3:
        return higher
    if cl == 3:
        return np.promote_types(higher, lower) if ch == 2 else lower
    if ch == 2:
        return higher
    if ch == 0 or cl == 2:
        return promote_types(higher, lower)
    return higher


def _is_tensor(x: object) -> bool:
    return isinstance(x, (np.ndarray, np.generic))


def result_type(*operands: object) -> np.dtype[Any]:
    """torch.result_type over tensors (numpy arrays) and Python scalars."""
    dim: np.dtype[Any] | None = None
    zero: np.dtype[Any] | None = None
    wrapped: np.dtype[Any] | None = None
    for x in operands:
        if x is None:
            continue
        if _is_tensor(x):
            arr = np.asarray(x)
            if arr.ndim == 0:
                zero = promote_types(zero, arr.dtype)
            else:
                dim = promote_types(dim, arr.dtype)
        elif isinstance(x, bool):
            wrapped = promote_types(wrapped, _BOOL)
        elif isinstance(x, int):
            wrapped = promote_types(wrapped, _I64)
        elif isinstance(x, float):
            wrapped = promote_types(wrapped, _F32)
        elif isinstance(x, complex):
            wrapped = promote_types(wrapped, np.dtype(np.complex64))
        else:
            raise TypeError(f"cannot promote {type(x).__name__}")
    res = _combine(dim, _combine(zero, wrapped))
    if res is None:
        raise TypeError("result_type of no operands")
    return res


def _compute_dtype(dt: np.dtype[Any]) -> np.dtype[Any]:
    """torch's opmath type on CPU: half is computed in float."""
    return _F32 if dt == _F16 else dt


def _to_float(dt: np.dtype[Any]) -> np.dtype[Any]:
    """Integer and bool inputs of floating ops promote to the default dtype."""
    return dt if dt.kind in "fc" else _F32


def _cast(x: object, dt: np.dtype[Any]) -> np.ndarray:
    return np.asarray(x).astype(dt, copy=False)


def _finish(res: Any, dt: np.dtype[Any]) -> np.ndarray:
    return np.asarray(res).astype(dt, copy=False)


# ---------------------------------------------------------------------------
# kernel registry
# ---------------------------------------------------------------------------

_FUNCTIONAL: dict[str, Kernel] = {}


def _reg(*names: str) -> Callable[[Kernel], Kernel]:
    def deco(fn: Kernel) -> Kernel:
        for n in names:
            _FUNCTIONAL[n] = fn
        return fn

    return deco


def _dims(dim: object, ndim: int) -> tuple[int, ...]:
    """Reduction dims: None/[] mean all, negatives wrap, 0-d tensors accept 0/-1."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        dim = [dim]
    dims = list(dim)  # type: ignore[call-overload]
    if not dims:
        return tuple(range(ndim))
    if ndim == 0:
        return ()
    return tuple(sorted({d % ndim for d in dims}))


def _wrap(d: int, ndim: int) -> int:
    return d % max(ndim, 1) if ndim else 0


# ---------------------------------------------------------------------------
# erf (numpy has none and scipy is not a dependency)
# ---------------------------------------------------------------------------


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to ~1e-15 in float64: positive series below 3, continued fraction above.

    erf(x) = 2/sqrt(pi) e^{-x^2} sum_n 2^n x^{2n+1} / (2n+1)!! has only
    positive terms (no cancellation); for |x| >= 3 erfc is evaluated with its
    Laplace continued fraction, which converges fast there.
    """
    x = np.asarray(x, dtype=np.float64)
    ax = np.abs(x)
    small = np.minimum(ax, 3.0)
    term = small.copy()
    total = small.copy()
    x2 = small * small
    for n in range(1, 90):
        term = term * (2.0 * x2) / (2 * n + 1)
        total = total + term
    series = 2.0 / math.sqrt(math.pi) * np.exp(-x2) * total
    big = np.maximum(ax, 3.0)
    frac = big.copy()
    for n in range(60, 0, -1):
        frac = big + (n / 2.0) / frac
    erfc_big = np.exp(-big * big) / math.sqrt(math.pi) / frac
    res = np.where(ax < 3.0, series, 1.0 - erfc_big)
    res = np.where(np.isnan(x), np.nan, res)
    return np.copysign(res, x)


# ---------------------------------------------------------------------------
# unary pointwise
# ---------------------------------------------------------------------------


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _softplus_fn(x: np.ndarray, beta: float = 1.0, threshold: float = 20.0) -> np.ndarray:
    return np.where(x * beta > threshold, x, np.log1p(np.exp(x * beta)) / beta)


# name -> (function on the compute array, promotes integers to float)
_UNARY: dict[str, tuple[Callable[[np.ndarray], np.ndarray], bool]] = {
    "abs": (np.abs, False),
    "neg": (np.negative, False),
    "ceil": (np.ceil, False),
    "floor": (np.floor, False),
    "trunc": (np.trunc, False),
    "round": (np.round, False),
    "sign": (np.sign, False),
    "relu": (lambda x: np.maximum(x, 0).astype(x.dtype), False),
    "relu6": (lambda x: np.minimum(np.maximum(x, 0), 6).astype(x.dtype), False),
    "bitwise_not": (np.invert, False),
    "acos": (np.arccos, True), "acosh": (np.arccosh, True),
    "asin": (np.arcsin, True), "asinh": (np.arcsinh, True),
    "atan": (np.arctan, True), "atanh": (np.arctanh, True),
    "cos": (np.cos, True), "cosh": (np.cosh, True),
    "sin": (np.sin, True), "sinh": (np.sinh, True),
    "tan": (np.tan, True), "tanh": (np.tanh, True),
    "exp": (np.exp, True), "expm1": (np.expm1, True),
    "log": (np.log, True), "log10": (np.log10, True),
    "log1p": (np.log1p, True), "log2": (np.log2, True),
    "sqrt": (np.sqrt, True), "rsqrt": (lambda x: 1.0 / np.sqrt(x), True),
    "reciprocal": (lambda x: 1.0 / x, True),
    "sigmoid": (_sigmoid, True),
    "erf": (lambda x: _erf(x).astype(x.dtype), True),
    "silu": (lambda x: x / (1.0 + np.exp(-x)), True),
    "mish": (lambda x: x * np.tanh(_softplus_fn(x)), True),
    "hardsigmoid": (lambda x: np.minimum(np.maximum(x + 3, 0), 6) / 6, True),
    "hardswish": (lambda x: x * np.minimum(np.maximum(x + 3, 0), 6) / 6, True),
}


def _unary(fn: Callable[[np.ndarray], np.ndarray], to_float: bool) -> Kernel:
    def kernel(self: np.ndarray, **_: object) -> np.ndarray:
        a = np.asarray(self)
        dt = _to_float(a.dtype) if to_float else a.dtype
        if fn is np.sign and dt == _BOOL:
            return a.copy()
        return _finish(fn(_cast(a, _compute_dtype(dt))), dt)

    return kernel


for _name, (_fn, _tf) in _UNARY.items():
    _reg(f"aten.{_name}.default")(_unary(_fn, _tf))


@_reg("aten.logical_not.default")
def _logical_not(self: np.ndarray) -> np.ndarray:
    return np.logical_not(self)


@_reg("aten.isnan.default")
def _isnan(self: np.ndarray) -> np.ndarray:
    a = np.asarray(self)
    return np.isnan(a) if a.dtype.kind in "fc" else np.zeros(a.shape, bool)


@_reg("aten.isinf.default")
def _isinf(self: np.ndarray) -> np.ndarray:
    a = np.asarray(self)
    return np.isinf(a) if a.dtype.kind in "fc" else np.zeros(a.shape, bool)


def _float_unary_with_args(fn: Callable[..., np.ndarray], to_float: bool = True) -> Kernel:
    """Pointwise ops with extra scalar parameters (gelu, elu, softplus, ...)."""

    def kernel(self: np.ndarray, **kw: object) -> np.ndarray:
        a = np.asarray(self)
        dt = _to_float(a.dtype) if to_float else a.dtype
        return _finish(fn(_cast(a, _compute_dtype(dt)), **kw), dt)

    return kernel


def _gelu(x: np.ndarray, approximate: str = "none") -> np.ndarray:
    if approximate == "tanh":
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)
        return 0.5 * x * (1.0 + np.tanh(inner))
    return x * 0.5 * (1.0 + _erf(x * (1.0 / math.sqrt(2.0))).astype(x.dtype))


def _elu(x: np.ndarray, alpha: float = 1, scale: float = 1, input_scale: float = 1) -> np.ndarray:
    return np.where(x > 0, x * scale, (np.expm1(x * input_scale)) * alpha * scale)


def _leaky_relu(x: np.ndarray, negative_slope: float = 0.01) -> np.ndarray:
    return np.where(x > 0, x, x * negative_slope)


def _hardtanh(x: np.ndarray, min_val: float = -1, max_val: float = 1) -> np.ndarray:
    return np.minimum(np.maximum(x, min_val), max_val)


def _softplus(x: np.ndarray, beta: float = 1, threshold: float = 20) -> np.ndarray:
    return _softplus_fn(x, beta, threshold)


_reg("aten.gelu.default")(_float_unary_with_args(_gelu))
_reg("aten.elu.default")(_float_unary_with_args(_elu))
_reg("aten.leaky_relu.default")(_float_unary_with_args(_leaky_relu, to_float=False))
_reg("aten.hardtanh.default")(_float_unary_with_args(_hardtanh, to_float=False))
_reg("aten.softplus.default")(_float_unary_with_args(_softplus))


@_reg("aten.round.decimals")
def _round_decimals(self: np.ndarray, decimals: int) -> np.ndarray:
    a = np.asarray(self)
    if a.dtype.kind not in "fc":
        return a.copy()
    c = _cast(a, _compute_dtype(a.dtype))
    if decimals >= 0:
        scale = c.dtype.type(10.0**decimals)
        res = np.round(c * scale) / scale
    else:
        scale = c.dtype.type(10.0 ** (-decimals))
        res = np.round(c / scale) * scale
    return _finish(res, a.dtype)


@_reg("aten.nan_to_num.default")
def _nan_to_num(
    self: np.ndarray, nan: float | None = None, posinf: float | None = None, neginf: float | None = None
) -> np.ndarray:
    a = np.asarray(self)
    if a.dtype.kind not in "fc":
        return a.copy()
    info = np.finfo(a.dtype)
    return np.nan_to_num(
        a,
        nan=0.0 if nan is None else nan,
        posinf=info.max if posinf is None else posinf,
        neginf=info.min if neginf is None else neginf,
    )


# ---------------------------------------------------------------------------
# binary / ternary pointwise
# ---------------------------------------------------------------------------


def _pointwise(
    fn: Callable[..., Any],
    *operands: object,
    to_float: bool = False,
    dtype: np.dtype[Any] | None = None,
    result: np.dtype[Any] | None = None,
) -> np.ndarray:
    """Promote, compute in the opmath type, cast to the result dtype."""
    dt = dtype if dtype is not None else result_type(*operands)
    if to_float:
        dt = _to_float(dt)
    cdt = _compute_dtype(dt)
    args = [None if o is None else _cast(o, cdt) for o in operands]
    return _finish(fn(*args), result if result is not None else dt)


def _alpha_scale(x: np.ndarray, alpha: object) -> np.ndarray:
    if alpha is None or alpha == 1:
        return x
    return x * np.asarray(alpha).astype(x.dtype)


@_reg("aten.add.Tensor", "aten.add.Scalar")
def _add(self: object, other: object, alpha: object = 1) -> np.ndarray:
    if np.asarray(self).dtype == _BOOL and np.asarray(other).dtype == _BOOL and _is_tensor(other):
        return np.logical_or(self, other)
    return _pointwise(lambda a, b: a + _alpha_scale(b, alpha), self, other)


@_reg("aten.sub.Tensor", "aten.sub.Scalar")
def _sub(self: object, other: object, alpha: object = 1) -> np.ndarray:
    return _pointwise(lambda a, b: a - _alpha_scale(b, alpha), self, other)


@_reg("aten.rsub.Tensor", "aten.rsub.Scalar")
def _rsub(self: object, other: object, alpha: object = 1) -> np.ndarray:
    return _pointwise(lambda a, b: b - _alpha_scale(a, alpha), self, other)


@_reg("aten.mul.Tensor", "aten.mul.Scalar")
def _mul(self: object, other: object) -> np.ndarray:
    if result_type(self, other) == _BOOL:
        return np.logical_and(self, other)
    return _pointwise(np.multiply, self, other)


def _trunc_div_int(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    q = np.floor_divide(a, b)
    fix = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
    return q + fix.astype(q.dtype)


@_reg("aten.div.Tensor", "aten.div.Scalar", "aten.div.Tensor_mode", "aten.div.Scalar_mode")
def _div(self: object, other: object, rounding_mode: str | None = None) -> np.ndarray:
    dt = result_type(self, other)
    if rounding_mode is None:
        return _pointwise(np.true_divide, self, other, to_float=True)
    if dt.kind in "iub":
        fn = np.floor_divide if rounding_mode == "floor" else _trunc_div_int
        return _pointwise(fn, self, other, dtype=_I64 if dt == _BOOL else dt)
    if rounding_mode == "floor":
        return _pointwise(np.floor_divide, self, other)
    return _pointwise(lambda a, b: np.trunc(a / b), self, other)


@_reg("aten.floor_divide.default", "aten.floor_divide.Scalar")
def _floor_divide(self: object, other: object) -> np.ndarray:
    return _div(self, other, rounding_mode="floor")


def _binary(fn: Callable[..., Any], to_float: bool = False, result: np.dtype[Any] | None = None) -> Kernel:
    def kernel(self: object, other: object) -> np.ndarray:
        return _pointwise(fn, self, other, to_float=to_float, result=result)

    return kernel


def _pow_fn(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind in "iu":
        return np.power(a, np.maximum(b, 0))
    return np.power(a, b)


def _pow(self: object, exponent: object) -> np.ndarray:
    return _pointwise(_pow_fn, self, exponent)


_reg("aten.pow.Tensor_Tensor", "aten.pow.Tensor_Scalar", "aten.pow.Scalar")(_pow)


def _remainder_fn(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind in "iu":
        return np.remainder(a, b)
    return a - b * np.floor(a / b)


_BINARY_TABLE: dict[str, tuple[Callable[..., Any], bool, np.dtype[Any] | None]] = {
    "atan2": (np.arctan2, True, None),
    "fmod": (np.fmod, False, None),
    "remainder": (_remainder_fn, False, None),
    "maximum": (np.maximum, False, None),
    "minimum": (np.minimum, False, None),
    "bitwise_and": (np.bitwise_and, False, None),
    "bitwise_or": (np.bitwise_or, False, None),
    "bitwise_xor": (np.bitwise_xor, False, None),
    "logical_and": (np.logical_and, False, _BOOL),
    "logical_or": (np.logical_or, False, _BOOL),
    "logical_xor": (np.logical_xor, False, _BOOL),
    "eq": (np.equal, False, _BOOL),
    "ne": (np.not_equal, False, _BOOL),
    "lt": (np.less, False, _BOOL),
    "le": (np.less_equal, False, _BOOL),
    "gt": (np.greater, False, _BOOL),
    "ge": (np.greater_equal, False, _BOOL),
}
for _name, (_fn, _tf, _res) in _BINARY_TABLE.items():
    _k = _binary(_fn, _tf, _res)
    for _ov in ("default", "Tensor", "Scalar", "Scalar_Tensor"):
        _reg(f"aten.{_name}.{_ov}")(_k)
_reg("aten.max.other")(_binary(np.maximum))


def _shift_fn(left: bool) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """torch's shifts: a shift by a negative count or by the bit width or more
    gives 0 (left) or the sign fill (right) instead of C's undefined result."""

    def shift(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if a.dtype.kind not in "iub":
            raise TypeError(f"shifts need integer tensors, got {a.dtype}")
        bits = 8 * a.dtype.itemsize
        b = np.asarray(b)
        out_of_range = (b < 0) | (b >= bits)
        safe = np.where(out_of_range, 0, b).astype(a.dtype, copy=False)
        if left:
            return np.where(out_of_range, a.dtype.type(0), np.left_shift(a, safe))
        return np.where(out_of_range, np.right_shift(a, a.dtype.type(bits - 1)), np.right_shift(a, safe))

    return shift


for _dunder, (_fn, _tf, _res) in {
    "__and__": _BINARY_TABLE["bitwise_and"],
    "__or__": _BINARY_TABLE["bitwise_or"],
    "__xor__": _BINARY_TABLE["bitwise_xor"],
}.items():
    _reg(f"aten.{_dunder}.Tensor", f"aten.{_dunder}.Scalar")(_binary(_fn, _tf, _res))
for _names, _left in ((("__lshift__", "bitwise_left_shift"), True), (("__rshift__", "bitwise_right_shift"), False)):
    _k = _binary(_shift_fn(_left))
    for _n in _names:
        for _ov in ("Tensor", "Scalar", "Tensor_Scalar", "Scalar_Tensor"):
            _reg(f"aten.{_n}.{_ov}")(_k)
_reg("aten.min.other")(_binary(np.minimum))


@_reg("aten.addcmul.default")
def _addcmul(self: object, tensor1: object, tensor2: object, value: object = 1) -> np.ndarray:
    return _pointwise(lambda s, a, b: s + _alpha_scale(a * b, value), self, tensor1, tensor2)


@_reg("aten.addcdiv.default")
def _addcdiv(self: object, tensor1: object, tensor2: object, value: object = 1) -> np.ndarray:
    return _pointwise(lambda s, a, b: s + _alpha_scale(a / b, value), self, tensor1, tensor2)


@_reg("aten.lerp.Scalar", "aten.lerp.Tensor")
def _lerp(self: object, end: object, weight: object) -> np.ndarray:
    def fn(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> np.ndarray:
        return np.where(np.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (1 - w))

    return _pointwise(fn, self, end, weight, dtype=result_type(self, end))


@_reg("aten.clamp.default", "aten.clamp.Tensor")
def _clamp(self: object, min: object = None, max: object = None) -> np.ndarray:  # noqa: A002
    def fn(x: np.ndarray, lo: np.ndarray | None, hi: np.ndarray | None) -> np.ndarray:
        if lo is not None:
            x = np.where(np.isnan(lo) if lo.dtype.kind == "f" else False, lo, np.maximum(x, lo))
        if hi is not None:
            x = np.where(np.isnan(hi) if hi.dtype.kind == "f" else False, hi, np.minimum(x, hi))
        return x

    return _pointwise(fn, self, min, max)


@_reg("aten.clamp_min.default", "aten.clamp_min.Tensor")
def _clamp_min(self: object, min: object) -> np.ndarray:  # noqa: A002
    return _clamp(self, min=min)


@_reg("aten.clamp_max.default", "aten.clamp_max.Tensor")
def _clamp_max(self: object, max: object) -> np.ndarray:  # noqa: A002
    return _clamp(self, max=max)


@_reg("aten.where.self", "aten.where.ScalarOther", "aten.where.ScalarSelf", "aten.where.Scalar")
def _where(condition: np.ndarray, self: object, other: object) -> np.ndarray:
    cond = np.asarray(condition).astype(bool)
    return _pointwise(lambda a, b: np.where(cond, a, b), self, other)


@_reg("aten.where.default")
def _where_nonzero(condition: np.ndarray) -> list[np.ndarray]:
    return [i.astype(np.int64) for i in np.nonzero(np.asarray(condition))]


@_reg("aten.masked_fill.Scalar", "aten.masked_fill.Tensor")
def _masked_fill(self: np.ndarray, mask: np.ndarray, value: object) -> np.ndarray:
    a = np.asarray(self)
    v = np.asarray(value).astype(a.dtype)
    return np.where(np.asarray(mask, dtype=bool), v, a).astype(a.dtype)


# ---------------------------------------------------------------------------
# reductions
# ---------------------------------------------------------------------------


def _acc_input(a: np.ndarray, dtype: object, int_to: np.dtype[Any] | None) -> tuple[np.ndarray, np.dtype[Any]]:
    """Input cast for sum-like reductions and the result dtype."""
    want = _np_dt(dtype)
    if want is not None:
        return _cast(a, _compute_dtype(want)), want
    dt = a.dtype
    if int_to is not None and dt.kind in "biu":
        dt = int_to
    return _cast(a, _compute_dtype(dt)), dt


@_reg("aten.sum.default", "aten.sum.dim_IntList")
def _sum(self: np.ndarray, dim: object = None, keepdim: bool = False, dtype: object = None) -> np.ndarray:
    a, dt = _acc_input(np.asarray(self), dtype, _I64)
    return _finish(np.sum(a, axis=_dims(dim, a.ndim), keepdims=keepdim), dt)


@_reg("aten.mean.default", "aten.mean.dim")
def _mean(self: np.ndarray, dim: object = None, keepdim: bool = False, dtype: object = None) -> np.ndarray:
    a, dt = _acc_input(np.asarray(self), dtype, None)
    if dt.kind not in "fc":
        raise TypeError("mean(): input dtype should be floating point")
    return _finish(np.mean(a, axis=_dims(dim, a.ndim), keepdims=keepdim), dt)


@_reg("aten.prod.default", "aten.prod.dim_int")
def _prod(self: np.ndarray, dim: object = None, keepdim: bool = False, dtype: object = None) -> np.ndarray:
    a, dt = _acc_input(np.asarray(self), dtype, _I64)
    return _finish(np.prod(a, axis=_dims(dim, a.ndim), keepdims=keepdim), dt)


def _checked_extreme(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    def red(a: np.ndarray, axis: tuple[int, ...], keepdims: bool) -> np.ndarray:
        if a.size == 0 and axis:
            raise ValueError("max/min of an empty tensor is not defined")
        return fn(a, axis=axis, keepdims=keepdims)

    return red


@_reg("aten.amax.default")
def _amax(self: np.ndarray, dim: object = (), keepdim: bool = False) -> np.ndarray:
    a = np.asarray(self)
    return _checked_extreme(np.max)(a, _dims(dim, a.ndim), keepdim)


@_reg("aten.amin.default")
def _amin(self: np.ndarray, dim: object = (), keepdim: bool = False) -> np.ndarray:
    a = np.asarray(self)
    return _checked_extreme(np.min)(a, _dims(dim, a.ndim), keepdim)


@_reg("aten.max.default")
def _max_all(self: np.ndarray) -> np.ndarray:
    return np.asarray(np.max(self))


@_reg("aten.min.default")
def _min_all(self: np.ndarray) -> np.ndarray:
    return np.asarray(np.min(self))


def _arg_extreme(a: np.ndarray, dim: int | None, keepdim: bool, largest: bool) -> np.ndarray:
    fn = np.argmax if largest else np.argmin
    if dim is None:
        idx = np.asarray(fn(a.reshape(-1))).astype(np.int64)
        return idx.reshape((1,) * a.ndim) if keepdim else idx
    if a.ndim == 0:
        return np.asarray(0, dtype=np.int64)
    d = _wrap(dim, a.ndim)
    return np.asarray(fn(a, axis=d, keepdims=keepdim)).astype(np.int64)


@_reg("aten.argmax.default")
def _argmax(self: np.ndarray, dim: int | None = None, keepdim: bool = False) -> np.ndarray:
    return _arg_extreme(np.asarray(self), dim, keepdim, True)


@_reg("aten.argmin.default")
def _argmin(self: np.ndarray, dim: int | None = None, keepdim: bool = False) -> np.ndarray:
    return _arg_extreme(np.asarray(self), dim, keepdim, False)


@_reg("aten.max.dim")
def _max_dim(self: np.ndarray, dim: int, keepdim: bool = False) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(self)
    idx = _arg_extreme(a, dim, True, True)
    vals = np.take_along_axis(a, idx, axis=_wrap(dim, a.ndim)) if a.ndim else a.copy()
    if not keepdim and a.ndim:
        d = _wrap(dim, a.ndim)
        return np.squeeze(vals, d), np.squeeze(idx, d)
    return vals, idx


@_reg("aten.min.dim")
def _min_dim(self: np.ndarray, dim: int, keepdim: bool = False) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(self)
    idx = _arg_extreme(a, dim, True, False)
    vals = np.take_along_axis(a, idx, axis=_wrap(dim, a.ndim)) if a.ndim else a.copy()
    if not keepdim and a.ndim:
        d = _wrap(dim, a.ndim)
        return np.squeeze(vals, d), np.squeeze(idx, d)
    return vals, idx


def _bool_reduce(fn: Callable[..., Any]) -> Kernel:
    def kernel(self: np.ndarray, dim: object = None, keepdim: bool = False) -> np.ndarray:
        a = np.asarray(self)
        res = np.asarray(fn(a, axis=_dims(dim, a.ndim), keepdims=keepdim))
        return res.astype(np.uint8) if a.dtype == np.uint8 else res

    return kernel


_reg("aten.any.default", "aten.any.dim", "aten.any.dims")(_bool_reduce(np.any))
_reg("aten.all.default", "aten.all.dim", "aten.all.dims")(_bool_reduce(np.all))


def _var_impl(a: np.ndarray, dim: object, correction: float, keepdim: bool) -> tuple[np.ndarray, np.ndarray]:
    if a.dtype.kind not in "fc":
        raise TypeError("var/std need a floating point input")
    c = _cast(a, _compute_dtype(a.dtype))
    axes = _dims(dim, a.ndim)
    n = int(np.prod([a.shape[d] for d in axes])) if axes else (1 if a.ndim == 0 else a.size)
    mean = np.mean(c, axis=axes, keepdims=True)
    sq = np.sum(np.abs(c - mean) ** 2, axis=axes, keepdims=keepdim)
    var = sq / max(0.0, n - correction) if n - correction > 0 else sq / 0.0
    m = mean if keepdim else np.squeeze(mean, axis=axes) if axes else mean.reshape(a.shape)
    return _finish(var, a.dtype), _finish(m, a.dtype)


def _correction(unbiased: bool | None, correction: object) -> float:
    if correction is not None:
        return float(correction)  # type: ignore[arg-type]
    return 1.0 if unbiased is None or unbiased else 0.0


@_reg("aten.var.default", "aten.var.dim", "aten.var.correction")
def _var(
    self: np.ndarray, dim: object = None, unbiased: bool = True, keepdim: bool = False, correction: object = None
) -> np.ndarray:
    return _var_impl(np.asarray(self), dim, _correction(unbiased, correction), keepdim)[0]


@_reg("aten.std.default", "aten.std.dim", "aten.std.correction")
def _std(
    self: np.ndarray, dim: object = None, unbiased: bool = True, keepdim: bool = False, correction: object = None
) -> np.ndarray:
    v = _var_impl(np.asarray(self), dim, _correction(unbiased, correction), keepdim)[0]
    return _finish(np.sqrt(_cast(v, _compute_dtype(v.dtype))), v.dtype)


@_reg("aten.var_mean.default", "aten.var_mean.dim", "aten.var_mean.correction")
def _var_mean(
    self: np.ndarray, dim: object = None, unbiased: bool = True, keepdim: bool = False, correction: object = None
) -> tuple[np.ndarray, np.ndarray]:
    return _var_impl(np.asarray(self), dim, _correction(unbiased, correction), keepdim)


@_reg("aten.cumsum.default")
def _cumsum(self: np.ndarray, dim: int, dtype: object = None) -> np.ndarray:
    a, dt = _acc_input(np.asarray(self), dtype, _I64)
    if a.ndim == 0:
        return _finish(a, dt)
    return _finish(np.cumsum(a, axis=_wrap(dim, a.ndim)), dt)


def _softmax_impl(x: np.ndarray, dim: int, log: bool, dtype: np.dtype[Any] | None) -> np.ndarray:
    a = np.asarray(x)
    out_dt = dtype if dtype is not None else _to_float(a.dtype)
    c = _cast(a, _compute_dtype(out_dt))
    if c.ndim == 0:
        return _finish(np.zeros_like(c) if log else np.ones_like(c), out_dt)
    d = _wrap(dim, c.ndim)
    # Rows holding +inf or only -inf come out NaN, as in torch.
    m = np.max(c, axis=d, keepdims=True) if c.size else c
    shifted = c - m
    if log:
        res = shifted - np.log(np.sum(np.exp(shifted), axis=d, keepdims=True))
    else:
        e = np.exp(shifted)
        res = e / np.sum(e, axis=d, keepdims=True)
    return _finish(res, out_dt)


@_reg("aten.softmax.int")
def _softmax(self: np.ndarray, dim: int, dtype: object = None) -> np.ndarray:
    return _softmax_impl(self, dim, False, _np_dt(dtype))


@_reg("aten.log_softmax.int")
def _log_softmax(self: np.ndarray, dim: int, dtype: object = None) -> np.ndarray:
    return _softmax_impl(self, dim, True, _np_dt(dtype))


@_reg("aten._softmax.default")
def _softmax_h(self: np.ndarray, dim: int, half_to_float: bool) -> np.ndarray:
    return _softmax_impl(self, dim, False, _F32 if half_to_float else None)


@_reg("aten._log_softmax.default")
def _log_softmax_h(self: np.ndarray, dim: int, half_to_float: bool) -> np.ndarray:
    return _softmax_impl(self, dim, True, _F32 if half_to_float else None)


# ---------------------------------------------------------------------------
# sorting
# ---------------------------------------------------------------------------


def _sort_impl(a: np.ndarray, dim: int, descending: bool) -> tuple[np.ndarray, np.ndarray]:
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    d = _wrap(dim, a.ndim)
    if descending:
        n = a.shape[d]
        idx = n - 1 - np.flip(np.argsort(np.flip(a, d), axis=d, kind="stable"), d)
    else:
        idx = np.argsort(a, axis=d, kind="stable")
    return np.take_along_axis(a, idx, d), idx.astype(np.int64)


@_reg("aten.sort.default", "aten.sort.stable")
def _sort(self: np.ndarray, dim: int = -1, descending: bool = False, stable: bool | None = None) -> tuple[np.ndarray, np.ndarray]:
    return _sort_impl(np.asarray(self), dim, descending)


@_reg("aten.topk.default")
def _topk(self: np.ndarray, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> tuple[np.ndarray, np.ndarray]:  # noqa: A002
    a = np.asarray(self)
    vals, idx = _sort_impl(a, dim, largest)
    if a.ndim == 0:
        return vals, idx
    d = _wrap(dim, a.ndim)
    sl = (slice(None),) * d + (slice(0, k),)
    return vals[sl].copy(), idx[sl].copy()


@_reg("aten.sort.Tensor")
def _sort_list(self: list[np.ndarray], reverse: bool = False) -> None:
    """Sorts a list of one-element tensors in place, as TorchScript's list.sort()."""
    self.sort(key=lambda t: np.asarray(t).item(), reverse=reverse)


# ---------------------------------------------------------------------------
# views and shape ops
# ---------------------------------------------------------------------------


def _infer_shape(size: Sequence[int], numel: int) -> tuple[int, ...]:
    shape = [int(s) for s in size]
    if -1 in shape:
        i = shape.index(-1)
        rest = math.prod(s for j, s in enumerate(shape) if j != i)
        shape[i] = numel // rest if rest else 0
    return tuple(shape)


@_reg("aten.view.default", "aten._unsafe_view.default", "aten.reshape.default")
def _view(self: np.ndarray, size: Sequence[int] | None = None, shape: Sequence[int] | None = None) -> np.ndarray:
    a = np.asarray(self)
    s = size if size is not None else shape
    assert s is not None
    return a.reshape(_infer_shape(s, a.size))


@_reg("aten.view.dtype")
def _view_dtype(self: np.ndarray, dtype: object) -> np.ndarray:
    return np.asarray(self).view(_np_dt(dtype))


@_reg("aten.expand.default")
def _expand(self: np.ndarray, size: Sequence[int], implicit: bool = False) -> np.ndarray:
    a = np.asarray(self)
    lead = len(size) - a.ndim
    shape = []
    strides = []
    for i, s in enumerate(size):
        if i < lead:
            shape.append(int(s))
            strides.append(0)
            continue
        cur = a.shape[i - lead]
        s = cur if s == -1 else int(s)
        shape.append(s)
        strides.append(a.strides[i - lead] if cur == s else 0)
    return as_strided(a, tuple(shape), tuple(strides))


@_reg("aten.expand_as.default")
def _expand_as(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    return _expand(self, np.shape(other))


@_reg("aten.permute.default")
def _permute(self: np.ndarray, dims: Sequence[int]) -> np.ndarray:
    return np.transpose(self, [_wrap(d, np.ndim(self)) for d in dims])


@_reg("aten.transpose.int")
def _transpose(self: np.ndarray, dim0: int, dim1: int) -> np.ndarray:
    a = np.asarray(self)
    if a.ndim == 0:
        return a.view()
    return np.swapaxes(a, _wrap(dim0, a.ndim), _wrap(dim1, a.ndim))


@_reg("aten.t.default")
def _t(self: np.ndarray) -> np.ndarray:
    a = np.asarray(self)
    return a.T if a.ndim == 2 else a.view()


@_reg("aten.movedim.int", "aten.movedim.intlist")
def _movedim(self: np.ndarray, source: int | Sequence[int], destination: int | Sequence[int]) -> np.ndarray:
    return np.moveaxis(self, source, destination)  # type: ignore[arg-type]


@_reg("aten.squeeze.default", "aten.squeeze.dim", "aten.squeeze.dims")
def _squeeze(self: np.ndarray, dim: int | Sequence[int] | None = None) -> np.ndarray:
    a = np.asarray(self)
    if a.ndim == 0:
        return a.view()
    if dim is None:
        return np.squeeze(a)
    dims = [dim] if isinstance(dim, int) else list(dim)
    axes = tuple(d % a.ndim for d in dims if a.shape[d % a.ndim] == 1)
    return np.squeeze(a, axis=axes) if axes else a.view()


@_reg("aten.unsqueeze.default")
def _unsqueeze(self: np.ndarray, dim: int) -> np.ndarray:
    a = np.asarray(self)
    return np.expand_dims(a, dim % (a.ndim + 1))


@_reg("aten.flatten.using_ints")
def _flatten(self: np.ndarray, start_dim: int = 0, end_dim: int = -1) -> np.ndarray:
    a = np.asarray(self)
    if a.ndim == 0:
        return a.reshape(1)
    s, e = _wrap(start_dim, a.ndim), _wrap(end_dim, a.ndim)
    return a.reshape(a.shape[:s] + (-1,) + a.shape[e + 1 :])


@_reg("aten.unflatten.int")
def _unflatten(self: np.ndarray, dim: int, sizes: Sequence[int]) -> np.ndarray:
    a = np.asarray(self)
    d = _wrap(dim, a.ndim)
    return a.reshape(a.shape[:d] + _infer_shape(sizes, a.shape[d]) + a.shape[d + 1 :])


@_reg("aten.select.int")
def _select(self: np.ndarray, dim: int, index: int) -> np.ndarray:
    a = np.asarray(self)
    d = _wrap(dim, a.ndim)
    return a[(slice(None),) * d + (int(index) % a.shape[d], Ellipsis)]


def _slice_bounds(n: int, start: int | None, end: int | None) -> tuple[int, int]:
    s = 0 if start is None else int(start)
    e = n if end is None else int(end)
    if s < 0:
        s += n
    if e < 0:
        e += n
    s = min(max(s, 0), n)
    e = min(max(e, s), n)
    return s, e


@_reg("aten.slice.Tensor")
def _slice(self: np.ndarray, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1) -> np.ndarray:
    a = np.asarray(self)
    d = _wrap(dim, a.ndim)
    s, e = _slice_bounds(a.shape[d], start, end)
    return a[(slice(None),) * d + (slice(s, e, int(step)),)]


@_reg("aten.narrow.default", "aten.narrow.Tensor")
def _narrow(self: np.ndarray, dim: int, start: object, length: int) -> np.ndarray:
    a = np.asarray(self)
    d = _wrap(dim, a.ndim)
    st = int(np.asarray(start))
    if st < 0:
        st += a.shape[d]
    return a[(slice(None),) * d + (slice(st, st + int(length)),)]


@_reg("aten.diagonal.default")
def _diagonal(self: np.ndarray, offset: int = 0, dim1: int = 0, dim2: int = 1) -> np.ndarray:
    """A writable diagonal view (np.diagonal's is read-only)."""
    a = np.asarray(self)
    d1, d2 = _wrap(dim1, a.ndim), _wrap(dim2, a.ndim)
    if offset >= 0:
        a = a[(slice(None),) * d2 + (slice(min(offset, a.shape[d2]), None),)]
    else:
        a = a[(slice(None),) * d1 + (slice(min(-offset, a.shape[d1]), None),)]
    n = min(a.shape[d1], a.shape[d2])
    keep = [i for i in range(a.ndim) if i not in (d1, d2)]
    shape = tuple(a.shape[i] for i in keep) + (n,)
    strides = tuple(a.strides[i] for i in keep) + (a.strides[d1] + a.strides[d2],)
    return as_strided(a, shape, strides)


def _split_sizes(n: int, split_size: int) -> list[int]:
    if split_size == 0:
        return [0] if n == 0 else []
    sizes = [split_size] * (n // split_size)
    if n % split_size or not sizes:
        sizes.append(n % split_size)
    return sizes


def _split_by_sizes(a: np.ndarray, sizes: Sequence[int], dim: int) -> list[np.ndarray]:
    d = _wrap(dim, a.ndim)
    out, pos = [], 0
    for s in sizes:
        out.append(a[(slice(None),) * d + (slice(pos, pos + int(s)),)])
        pos += int(s)
    return out


@_reg("aten.split.Tensor", "aten.split.sizes", "aten.split.default", "aten.split_with_sizes.default")
def _split(
    self: np.ndarray, split_size: int | Sequence[int] | None = None, dim: int = 0, split_sizes: Sequence[int] | None = None
) -> list[np.ndarray]:
    a = np.asarray(self)
    sizes = split_sizes if split_sizes is not None else split_size
    if isinstance(sizes, int):
        sizes = _split_sizes(a.shape[_wrap(dim, a.ndim)], sizes)
    assert sizes is not None
    return _split_by_sizes(a, sizes, dim)


@_reg("aten.chunk.default")
def _chunk(self: np.ndarray, chunks: int, dim: int = 0) -> list[np.ndarray]:
    a = np.asarray(self)
    n = a.shape[_wrap(dim, a.ndim)]
    size = -(-n // chunks) if n else 0
    return _split_by_sizes(a, _split_sizes(n, size) if size else [0] * 1, dim)


@_reg("aten.unbind.int")
def _unbind(self: np.ndarray, dim: int = 0) -> list[np.ndarray]:
    a = np.asarray(self)
    d = _wrap(dim, a.ndim)
    return [a[(slice(None),) * d + (i, Ellipsis)] for i in range(a.shape[d])]


@_reg("aten.cat.default")
def _cat(tensors: Sequence[np.ndarray], dim: int = 0) -> np.ndarray:
    arrs = [np.asarray(t) for t in tensors]
    dt = result_type(*[a if a.ndim else a.reshape(1) for a in arrs])
    kept = [a for a in arrs if not (a.ndim == 1 and a.shape[0] == 0)] or arrs
    nd = kept[0].ndim
    return np.concatenate([a.astype(dt, copy=False) for a in kept], axis=_wrap(dim, nd))


@_reg("aten.stack.default")
def _stack(tensors: Sequence[np.ndarray], dim: int = 0) -> np.ndarray:
    arrs = [np.asarray(t) for t in tensors]
    dt = result_type(*[a if a.ndim else a.reshape(1) for a in arrs])
    return np.stack([a.astype(dt, copy=False) for a in arrs], axis=dim % (arrs[0].ndim + 1))


@_reg("aten.flip.default")
def _flip(self: np.ndarray, dims: Sequence[int]) -> np.ndarray:
    a = np.asarray(self)
    return np.flip(a, axis=tuple(_wrap(d, a.ndim) for d in dims)).copy() if dims else a.copy()


@_reg("aten.roll.default")
def _roll(self: np.ndarray, shifts: Sequence[int], dims: Sequence[int] = ()) -> np.ndarray:
    a = np.asarray(self)
    if not dims:
        return np.roll(a.reshape(-1), int(shifts[0])).reshape(a.shape)
    return np.roll(a, tuple(int(s) for s in shifts), axis=tuple(_wrap(d, a.ndim) for d in dims))


@_reg("aten.repeat.default")
def _repeat(self: np.ndarray, repeats: Sequence[int]) -> np.ndarray:
    a = np.asarray(self)
    a = a.reshape((1,) * (len(repeats) - a.ndim) + a.shape)
    return np.tile(a, tuple(int(r) for r in repeats))


def _pad_pairs(pad: Sequence[int], ndim: int) -> list[tuple[int, int]]:
    """torch's pad list (last dim first, lo/hi pairs) as numpy pad_width."""
    pairs = [(0, 0)] * ndim
    for i in range(len(pad) // 2):
        pairs[ndim - 1 - i] = (int(pad[2 * i]), int(pad[2 * i + 1]))
    return pairs


def _pad_any(a: np.ndarray, pad: Sequence[int], mode: str, value: object = 0) -> np.ndarray:
    pairs = _pad_pairs(pad, a.ndim)
    # Negative padding crops; apply the crop first, then the positive part.
    crop = tuple(slice(max(-lo, 0), a.shape[i] - max(-hi, 0)) for i, (lo, hi) in enumerate(pairs))
    a = a[crop]
    width = [(max(lo, 0), max(hi, 0)) for lo, hi in pairs]
    if mode == "constant":
        v = 0 if value is None else value
        return np.pad(a, width, mode="constant", constant_values=np.asarray(v).astype(a.dtype))
    np_mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode]
    return np.pad(a, width, mode=np_mode)


@_reg("aten.constant_pad_nd.default")
def _constant_pad_nd(self: np.ndarray, pad: Sequence[int], value: object = 0) -> np.ndarray:
    return _pad_any(np.asarray(self), pad, "constant", value)


@_reg("aten.pad.default")
def _pad(self: np.ndarray, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> np.ndarray:
    return _pad_any(np.asarray(self), pad, mode, value)


@_reg("aten.reflection_pad1d.default", "aten.reflection_pad2d.default", "aten.reflection_pad3d.default")
def _reflection_pad(self: np.ndarray, padding: Sequence[int]) -> np.ndarray:
    return _pad_any(np.asarray(self), padding, "reflect")


@_reg("aten.replication_pad2d.default", "aten.replication_pad3d.default")
def _replication_pad(self: np.ndarray, padding: Sequence[int]) -> np.ndarray:
    return _pad_any(np.asarray(self), padding, "replicate")


@_reg("aten.as_strided.default")
def _as_strided(self: np.ndarray, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> np.ndarray:
    """Strides and offset count elements from the start of ``self``'s buffer.

    A non-contiguous ``self`` is made contiguous first (so the result is then
    a view of a copy): numpy has no notion of a storage shared by views.
    """
    a = np.asarray(self)
    flat = a.reshape(-1) if a.flags.c_contiguous else np.ascontiguousarray(a).reshape(-1)
    off = int(storage_offset or 0)
    base = flat[off:]
    return as_strided(base, tuple(int(s) for s in size), tuple(int(s) * a.itemsize for s in stride))


@_reg("aten.tril.default")
def _tril(self: np.ndarray, diagonal: int = 0) -> np.ndarray:
    return np.tril(self, int(diagonal))


@_reg("aten.triu.default")
def _triu(self: np.ndarray, diagonal: int = 0) -> np.ndarray:
    return np.triu(self, int(diagonal))


@_reg("aten.view_as_real.default")
def _view_as_real(self: np.ndarray) -> np.ndarray:
    a = np.asarray(self)
    real = np.float32 if a.dtype == np.complex64 else np.float64
    return a.view(real).reshape(a.shape + (2,))


# ---------------------------------------------------------------------------
# symbolic size queries and scalars
# ---------------------------------------------------------------------------


@_reg("aten.sym_size.int")
def _sym_size(self: np.ndarray, dim: int) -> int:
    a = np.asarray(self)
    return int(a.shape[_wrap(dim, a.ndim)])


@_reg("aten.sym_stride.int")
def _sym_stride(self: np.ndarray, dim: int) -> int:
    a = np.asarray(self)
    return int(a.strides[_wrap(dim, a.ndim)] // a.itemsize)


@_reg("aten.sym_numel.default")
def _sym_numel(self: np.ndarray) -> int:
    return int(np.size(self))


@_reg("aten.sym_storage_offset.default")
def _sym_storage_offset(self: np.ndarray) -> int:
    """Offset in elements from the buffer of the outermost base array."""
    a = np.asarray(self)
    base = a
    while isinstance(base.base, np.ndarray):
        base = base.base
    delta = a.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    return int(delta // a.itemsize) if a.itemsize else 0


@_reg("aten.sym_is_contiguous.default")
def _sym_is_contiguous(self: np.ndarray, memory_format: object = 0) -> bool:
    a = np.asarray(self)
    fmt = _as_memory_format(memory_format)
    if fmt in (MemoryFormat.channels_last, MemoryFormat.channels_last_3d) and a.ndim in (4, 5):
        perm = (0, *range(2, a.ndim), 1)
        return bool(np.transpose(a, perm).flags.c_contiguous)
    return bool(a.flags.c_contiguous)


@_reg("aten._local_scalar_dense.default")
def _local_scalar_dense(self: np.ndarray) -> object:
    return np.asarray(self).item()


@_reg("aten.eq.Tensor_list")
def _eq_list(a: Sequence[np.ndarray], b: Sequence[np.ndarray]) -> bool:
    return len(a) == len(b) and all(np.shape(x) == np.shape(y) and bool(np.all(np.equal(x, y))) for x, y in zip(a, b))


@_reg("aten.ne.Tensor_list")
def _ne_list(a: Sequence[np.ndarray], b: Sequence[np.ndarray]) -> bool:
    return not _eq_list(a, b)


@_reg("aten.index.list_Tensor")
def _list_index(self: Sequence[np.ndarray], el: np.ndarray) -> int:
    for i, t in enumerate(self):
        if np.shape(t) == np.shape(el) and bool(np.all(np.equal(t, el))):
            return i
    raise ValueError("tensor not in list")


@_reg("aten.copy.Dict_Tensor")
def _copy_dict(self: Mapping[object, object]) -> dict[object, object]:
    return dict(self)


# ---------------------------------------------------------------------------
# creation, conversion, copies
# ---------------------------------------------------------------------------

_GENERATOR: list[np.random.Generator] = [np.random.default_rng(0)]


def manual_seed(seed: int) -> None:
    """Reseed the generator behind the random kernels."""
    _GENERATOR[0] = np.random.default_rng(seed)


def _rng() -> np.random.Generator:
    return _GENERATOR[0]


def _fill_dtype(value: object) -> np.dtype[Any]:
    if _is_tensor(value):
        return np.asarray(value).dtype
    return result_type(value)


def _new_shape(size: Sequence[int], dtype: np.dtype[Any]) -> tuple[int, ...]:
    """The shape a creation op makes, checked against the tensor size limit (sizes come from the program)."""
    shape = tuple(int(s) for s in size)
    check_tensor_bytes("the created tensor", shape, dtype.itemsize)
    return shape


@_reg("aten.zeros.default", "aten.empty.memory_format", "aten.empty_strided.default")
def _zeros(size: Sequence[int], dtype: object = None, **_: object) -> np.ndarray:
    """``empty`` is deterministic: zero-filled, so programs stay reproducible."""
    dt = _np_dt(dtype) or _F32
    return np.zeros(_new_shape(size, dt), dtype=dt)


@_reg("aten.ones.default")
def _ones(size: Sequence[int], dtype: object = None, **_: object) -> np.ndarray:
    dt = _np_dt(dtype) or _F32
    return np.ones(_new_shape(size, dt), dtype=dt)


@_reg("aten.full.default")
def _full(size: Sequence[int], fill_value: object, dtype: object = None, **_: object) -> np.ndarray:
    dt = _np_dt(dtype) or _fill_dtype(fill_value)
    return np.full(_new_shape(size, dt), fill_value, dtype=dt)


@_reg("aten.scalar_tensor.default")
def _scalar_tensor(s: object, dtype: object = None, **_: object) -> np.ndarray:
    return np.asarray(s, dtype=_np_dt(dtype) or _F32)


def _like(self: np.ndarray, dtype: object) -> tuple[tuple[int, ...], np.dtype[Any]]:
    a = np.asarray(self)
    return a.shape, _np_dt(dtype) or a.dtype


@_reg("aten.zeros_like.default")
def _zeros_like(self: np.ndarray, dtype: object = None, **_: object) -> np.ndarray:
    return np.zeros(*_like(self, dtype))


@_reg("aten.ones_like.default")
def _ones_like(self: np.ndarray, dtype: object = None, **_: object) -> np.ndarray:
    return np.ones(*_like(self, dtype))


@_reg("aten.full_like.default")
def _full_like(self: np.ndarray, fill_value: object, dtype: object = None, **_: object) -> np.ndarray:
    shape, dt = _like(self, dtype)
    return np.full(shape, fill_value, dtype=dt)


@_reg("aten.new_zeros.default", "aten.new_empty.default")
def _new_zeros(self: np.ndarray, size: Sequence[int], dtype: object = None, **_: object) -> np.ndarray:
    dt = _np_dt(dtype) or np.asarray(self).dtype
    return np.zeros(_new_shape(size, dt), dtype=dt)


@_reg("aten.new_ones.default")
def _new_ones(self: np.ndarray, size: Sequence[int], dtype: object = None, **_: object) -> np.ndarray:
    dt = _np_dt(dtype) or np.asarray(self).dtype
    return np.ones(_new_shape(size, dt), dtype=dt)


@_reg("aten.new_full.default")
def _new_full(self: np.ndarray, size: Sequence[int], fill_value: object, dtype: object = None, **_: object) -> np.ndarray:
    dt = _np_dt(dtype) or np.asarray(self).dtype
    return np.full(_new_shape(size, dt), fill_value, dtype=dt)


@_reg("aten.fill.Scalar", "aten.fill.Tensor")
def _fill(self: np.ndarray, value: object) -> np.ndarray:
    a = np.asarray(self)
    return np.full(a.shape, np.asarray(value).astype(a.dtype), dtype=a.dtype)


@_reg("aten.arange.default", "aten.arange.start", "aten.arange.start_step")
def _arange(end: object, start: object = 0, step: object = 1, dtype: object = None, **_: object) -> np.ndarray:
    vals = [np.asarray(v).item() for v in (start, end, step)]
    dt = _np_dt(dtype) or (_F32 if any(isinstance(v, float) for v in vals) else _I64)
    s, e, st = (float(v) for v in vals)
    n = max(0, math.ceil((e - s) / st))
    _new_shape([n], np.dtype(np.float64))
    if dt.kind in "iu":
        return (int(vals[0]) + np.arange(n, dtype=np.int64) * int(vals[2])).astype(dt)
    return (s + np.arange(n, dtype=np.float64) * st).astype(dt)


@_reg("aten.rand.default")
def _rand(size: Sequence[int], dtype: object = None, **_: object) -> np.ndarray:
    return _rng().random(_new_shape(size, np.dtype(np.float64))).astype(_np_dt(dtype) or _F32)


@_reg("aten.randn.default")
def _randn(size: Sequence[int], dtype: object = None, **_: object) -> np.ndarray:
    return _rng().standard_normal(_new_shape(size, np.dtype(np.float64))).astype(_np_dt(dtype) or _F32)


@_reg("aten.randperm.default")
def _randperm(n: int, dtype: object = 4, **_: object) -> np.ndarray:
    return _rng().permutation(int(n)).astype(_np_dt(dtype) or _I64)


def _convert(a: np.ndarray, dtype: DType | None, copy: bool) -> np.ndarray:
    if dtype is None:
        return a.copy() if copy else a
    dt = numpy_dtype(dtype)
    if dtype == DType.bfloat16:
        return round_to_bfloat16(a.real if a.dtype.kind == "c" else a)
    if a.dtype.kind == "f" and dt.kind in "iu":
        # torch truncates toward zero; NaN/inf give unspecified values
        with np.errstate(invalid="ignore"):
            return np.trunc(a).astype(dt)
    if a.dtype == dt and not copy:
        return a
    return a.astype(dt, copy=True)


@_reg("aten._to_copy.default")
def _to_copy(self: np.ndarray, dtype: object = None, **_: object) -> np.ndarray:
    return _convert(np.asarray(self), _as_dtype(dtype), True)


@_reg("aten.to.dtype", "aten.to.device", "aten.to.dtype_layout", "aten.to.prim_dtype", "aten.to.prim_Device")
def _to(self: np.ndarray, dtype: object = None, copy: bool = False, **_: object) -> np.ndarray:
    return _convert(np.asarray(self), _as_dtype(dtype), bool(copy))


@_reg("aten.to.other")
def _to_other(self: np.ndarray, other: np.ndarray, copy: bool = False, **_: object) -> np.ndarray:
    return _convert(np.asarray(self), dtype_of(other), bool(copy))


@_reg("aten.to.prim_other")
def _to_prim_other(self: np.ndarray, copy: bool = False, **_: object) -> np.ndarray:
    return np.array(self, copy=True) if copy else np.asarray(self)


@_reg("aten.type_as.default")
def _type_as(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    return _convert(np.asarray(self), dtype_of(other), False)


@_reg("aten.clone.default")
def _clone(self: np.ndarray, memory_format: object = None) -> np.ndarray:
    return np.array(self, copy=True)


@_reg("aten.contiguous.default")
def _contiguous(self: np.ndarray, memory_format: object = 0) -> np.ndarray:
    return np.ascontiguousarray(self)


@_reg("aten.alias.default", "aten.detach.default")
def _alias(self: np.ndarray) -> np.ndarray:
    return np.asarray(self).view()


@_reg("aten.copy.default")
def _copy(self: np.ndarray, src: np.ndarray, non_blocking: bool = False) -> np.ndarray:
    a = np.asarray(self)
    out = np.empty_like(a)
    np.copyto(out, _convert(np.asarray(src), None, False), casting="unsafe")
    return out


@_reg("aten.resize.default")
def _resize(self: np.ndarray, size: Sequence[int], memory_format: object = None) -> np.ndarray:
    """A tensor of the new size holding self's leading elements, zeros after."""
    a = np.asarray(self).reshape(-1)
    shape = tuple(int(s) for s in size)
    out = np.zeros(int(np.prod(shape)), dtype=a.dtype)
    n = min(out.size, a.size)
    out[:n] = a[:n]
    return out.reshape(shape)


# ---------------------------------------------------------------------------
# indexing
# ---------------------------------------------------------------------------


def _index_tuple(indices: Sequence[np.ndarray | None]) -> tuple[object, ...]:
    """torch's index list: None is a full slice, uint8 masks are bool masks."""
    out: list[object] = []
    for i in indices:
        if i is None:
            out.append(slice(None))
            continue
        arr = np.asarray(i)
        if arr.dtype == np.uint8:
            arr = arr.astype(bool)
        out.append(arr if arr.dtype == _BOOL else arr.astype(np.intp))
    return tuple(out)


@_reg("aten.index.Tensor", "aten.index.Tensor_hacked_twin")
def _index(self: np.ndarray, indices: Sequence[np.ndarray | None]) -> np.ndarray:
    return np.array(np.asarray(self)[_index_tuple(indices)], copy=True)


@_reg("aten.index_put.default", "aten.index_put.hacked_twin")
def _index_put(self: np.ndarray, indices: Sequence[np.ndarray | None], values: np.ndarray, accumulate: bool = False) -> np.ndarray:
    out = np.array(self, copy=True)
    idx = _index_tuple(indices)
    vals = np.asarray(values).astype(out.dtype)
    if accumulate:
        expanded: list[object] = []
        for i in idx:
            if isinstance(i, np.ndarray) and i.dtype == _BOOL:
                expanded.extend(np.nonzero(i))
            else:
                expanded.append(i)
        target_shape = out[tuple(expanded)].shape
        np.add.at(out, tuple(expanded), np.broadcast_to(vals, target_shape))
    else:
        out[idx] = vals
    return out


@_reg("aten.index_select.default")
def _index_select(self: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    a = np.asarray(self)
    idx = np.asarray(index).reshape(-1).astype(np.intp)
    if a.ndim == 0:
        return a.reshape(1)[idx].reshape(() if np.ndim(index) == 0 else (-1,))
    return np.take(a, idx, axis=_wrap(dim, a.ndim))


def _scatter_index(index: np.ndarray, dim: int) -> tuple[np.ndarray, ...]:
    idx = np.asarray(index).astype(np.intp)
    grids = list(np.indices(idx.shape, sparse=True))
    grids[dim] = idx
    return tuple(grids)


@_reg("aten.gather.default")
def _gather(self: np.ndarray, dim: int, index: np.ndarray, sparse_grad: bool = False) -> np.ndarray:
    a = np.asarray(self)
    if a.ndim == 0:
        return a.reshape(np.shape(index)).copy()
    return a[_scatter_index(index, _wrap(dim, a.ndim))]


def _src_for(src: object, index: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    s = np.asarray(src).astype(dtype)
    if s.ndim == 0:
        return np.broadcast_to(s, np.shape(index))
    return s[tuple(slice(0, n) for n in np.shape(index))]


_SCATTER_UFUNC: dict[str, np.ufunc] = {
    "add": np.add, "sum": np.add, "multiply": np.multiply, "prod": np.multiply,
    "amax": np.maximum, "amin": np.minimum,
}


@_reg("aten.scatter.src", "aten.scatter.value", "aten.scatter.reduce", "aten.scatter.value_reduce")
def _scatter(self: np.ndarray, dim: int, index: np.ndarray, src: object = None, value: object = None, reduce: str | None = None) -> np.ndarray:
    out = np.array(self, copy=True)
    if out.ndim == 0:
        out = out.reshape(1)
    d = _wrap(dim, out.ndim)
    s = _src_for(src if src is not None else value, index, out.dtype)
    idx = _scatter_index(index, d)
    if reduce is None:
        out[idx] = s
    else:
        _SCATTER_UFUNC[reduce].at(out, idx, s)
    return out.reshape(np.shape(self))


@_reg("aten.scatter_add.default")
def _scatter_add(self: np.ndarray, dim: int, index: np.ndarray, src: np.ndarray) -> np.ndarray:
    return _scatter(self, dim, index, src, reduce="add")


@_reg("aten.scatter_reduce.two")
def _scatter_reduce(self: np.ndarray, dim: int, index: np.ndarray, src: np.ndarray, reduce: str, include_self: bool = True) -> np.ndarray:
    out = np.array(self, copy=True)
    d = _wrap(dim, out.ndim)
    s = _src_for(src, index, out.dtype)
    idx = _scatter_index(index, d)
    if reduce == "mean":
        count = np.ones(out.shape, dtype=np.int64) if include_self else np.zeros(out.shape, dtype=np.int64)
        if not include_self:
            out[idx] = 0
        np.add.at(out, idx, s)
        np.add.at(count, idx, 1)
        count = np.maximum(count, 1)
        if out.dtype.kind in "iu":
            return np.floor_divide(out, count).astype(out.dtype)
        return (out / count).astype(out.dtype)
    if not include_self:
        if reduce in ("sum", "prod"):
            init: object = 0 if reduce == "sum" else 1
        else:
            info = np.finfo(out.dtype) if out.dtype.kind == "f" else np.iinfo(out.dtype)
            init = (-np.inf if out.dtype.kind == "f" else info.min) if reduce == "amax" else (np.inf if out.dtype.kind == "f" else info.max)
        out[idx] = init
    _SCATTER_UFUNC[reduce].at(out, idx, s)
    return out


@_reg("aten.select_scatter.default")
def _select_scatter(self: np.ndarray, src: np.ndarray, dim: int, index: int) -> np.ndarray:
    out = np.array(self, copy=True)
    _select(out, dim, index)[...] = src
    return out


@_reg("aten.slice_scatter.default")
def _slice_scatter(self: np.ndarray, src: np.ndarray, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1) -> np.ndarray:
    out = np.array(self, copy=True)
    _slice(out, dim, start, end, step)[...] = src
    return out


@_reg("aten.masked_scatter.default")
def _masked_scatter(self: np.ndarray, mask: np.ndarray, source: np.ndarray) -> np.ndarray:
    m = np.broadcast_to(np.asarray(mask, dtype=bool), np.broadcast_shapes(np.shape(self), np.shape(mask)))
    out = np.array(np.broadcast_to(self, m.shape), copy=True)
    n = int(m.sum())
    out[m] = np.asarray(source).reshape(-1)[:n].astype(out.dtype)
    return out


@_reg("aten.masked_select.default")
def _masked_select(self: np.ndarray, mask: np.ndarray) -> np.ndarray:
    a, m = np.broadcast_arrays(np.asarray(self), np.asarray(mask, dtype=bool))
    return a[m].copy()


@_reg("aten.nonzero.default")
def _nonzero(self: np.ndarray) -> np.ndarray:
    return np.argwhere(np.asarray(self)).astype(np.int64)


@_reg("aten.embedding.default")
def _embedding(weight: np.ndarray, indices: np.ndarray, padding_idx: int = -1, **_: object) -> np.ndarray:
    return np.asarray(weight)[np.asarray(indices).astype(np.intp)]


@_reg("aten.embedding_dense_backward.default")
def _embedding_dense_backward(
    grad_output: np.ndarray, indices: np.ndarray, num_weights: int, padding_idx: int, scale_grad_by_freq: bool
) -> np.ndarray:
    g = np.asarray(grad_output)
    dt = g.dtype
    d = g.shape[-1]
    idx = np.asarray(indices).reshape(-1).astype(np.intp)
    rows = _cast(g.reshape(-1, d), _compute_dtype(dt))
    if scale_grad_by_freq:
        counts = np.bincount(idx, minlength=int(num_weights))
        rows = rows / counts[idx][:, None]
    out = np.zeros((int(num_weights), d), dtype=rows.dtype)
    keep = idx != padding_idx
    np.add.at(out, idx[keep], rows[keep])
    return _finish(out, dt)


@_reg("aten._embedding_bag.default")
def _embedding_bag(
    weight: np.ndarray, indices: np.ndarray, offsets: np.ndarray, scale_grad_by_freq: bool = False, mode: int = 0,
    sparse: bool = False, per_sample_weights: np.ndarray | None = None, include_last_offset: bool = False, padding_idx: int = -1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Bags as torch's 1-D indices + offsets form; returns (output, offset2bag, bag_size, max_indices).

    Only ``output`` is numerically meaningful to callers; the auxiliary
    results are what a backward pass needs (bag of each index, bag sizes,
    arg-max rows for mode=max).
    """
    w = np.asarray(weight)
    idx = np.asarray(indices).reshape(-1).astype(np.intp)
    offs = np.asarray(offsets).reshape(-1).astype(np.intp)
    nbags = len(offs) - 1 if include_last_offset else len(offs)
    bag_of = np.searchsorted(offs, np.arange(idx.size), side="right") - 1
    valid = (idx != padding_idx) & (bag_of < nbags)
    rows = _cast(w[idx], _compute_dtype(w.dtype))
    if per_sample_weights is not None:
        rows = rows * np.asarray(per_sample_weights).reshape(-1, 1)
    sizes = np.bincount(bag_of[valid], minlength=nbags)[:nbags].astype(np.int64)
    if mode == 2:
        out = np.full((nbags, w.shape[1]), -np.inf, dtype=rows.dtype)
        np.maximum.at(out, bag_of[valid], rows[valid])
        out[sizes == 0] = 0
        # the first position holding each bag's maximum, reported as its weight row
        pos = np.full(out.shape, idx.size, dtype=np.int64)
        vpos = np.nonzero(valid)[0]
        hit = rows[vpos] == out[bag_of[vpos]]
        cand = np.where(hit, vpos[:, None], idx.size)
        np.minimum.at(pos, bag_of[vpos], cand)
        max_idx = np.where(pos < idx.size, np.append(idx, 0)[np.minimum(pos, idx.size)], 0).astype(np.int64)
    else:
        out = np.zeros((nbags, w.shape[1]), dtype=rows.dtype)
        np.add.at(out, bag_of[valid], rows[valid])
        if mode == 1:
            out = out / np.maximum(sizes, 1)[:, None]
        max_idx = sizes.copy() if mode == 1 else np.zeros(nbags, dtype=np.int64)
    # torch's CPU sum fast path (float/half weights, no padding_idx) skips offset2bag and bag_size
    if mode == 0:
        fast = padding_idx < 0 and w.dtype in (_F32, _F16)
        offset2bag = np.zeros(0, dtype=np.int64) if fast else bag_of.astype(np.int64)
        sizes = np.zeros(nbags, dtype=np.int64)
    else:
        offset2bag = bag_of.astype(np.int64)
    return _finish(out, w.dtype), offset2bag, sizes, max_idx


# ---------------------------------------------------------------------------
# linear algebra
# ---------------------------------------------------------------------------


def _matmul_typed(a: object, b: object, out_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    dt = result_type(a, b)
    cdt = _compute_dtype(dt)
    return _finish(np.matmul(_cast(a, cdt), _cast(b, cdt)), out_dtype or dt)


@_reg("aten.mm.default", "aten.bmm.default", "aten.matmul.default", "aten.mm.dtype", "aten.bmm.dtype")
def _mm(self: np.ndarray, mat2: np.ndarray | None = None, other: np.ndarray | None = None, out_dtype: object = None) -> np.ndarray:
    return _matmul_typed(self, mat2 if mat2 is not None else other, _np_dt(out_dtype))


@_reg("aten.dot.default")
def _dot(self: np.ndarray, tensor: np.ndarray) -> np.ndarray:
    return _matmul_typed(self, tensor)


@_reg("aten.outer.default")
def _outer(self: np.ndarray, vec2: np.ndarray) -> np.ndarray:
    return _pointwise(np.multiply.outer, self, vec2)


def _add_scaled(acc: np.ndarray, self: object, beta: object, alpha: object, dt: np.dtype[Any]) -> np.ndarray:
    cdt = _compute_dtype(dt)
    acc = acc.astype(cdt, copy=False)
    if alpha != 1:
        acc = acc * np.asarray(alpha).astype(cdt)
    if beta != 0:
        s = _cast(self, cdt)
        acc = acc + (s if beta == 1 else s * np.asarray(beta).astype(cdt))
    return _finish(acc, dt)


@_reg("aten.addmm.default", "aten.addmm.dtype")
def _addmm(self: np.ndarray, mat1: np.ndarray, mat2: np.ndarray, beta: object = 1, alpha: object = 1, out_dtype: object = None) -> np.ndarray:
    dt = result_type(mat1, mat2)
    prod = np.matmul(_cast(mat1, _compute_dtype(dt)), _cast(mat2, _compute_dtype(dt)))
    return _add_scaled(prod, self, beta, alpha, _np_dt(out_dtype) or dt)


@_reg("aten.baddbmm.default", "aten.baddbmm.dtype")
def _baddbmm(self: np.ndarray, batch1: np.ndarray, batch2: np.ndarray, beta: object = 1, alpha: object = 1, out_dtype: object = None) -> np.ndarray:
    return _addmm(self, batch1, batch2, beta, alpha, out_dtype)


@_reg("aten.linear.default")
def _linear(input: np.ndarray, weight: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:  # noqa: A002
    dt = result_type(input, weight)
    w = np.asarray(weight)
    prod = np.matmul(_cast(input, _compute_dtype(dt)), _cast(w.T if w.ndim == 2 else w, _compute_dtype(dt)))
    return _add_scaled(prod, bias, 0 if bias is None else 1, 1, dt)


@_reg("aten.einsum.default")
def _einsum(equation: str, tensors: Sequence[np.ndarray], path: object = None) -> np.ndarray:
    dt = result_type(*tensors)
    cdt = _compute_dtype(dt)
    return _finish(np.einsum(equation.replace(" ", ""), *[_cast(t, cdt) for t in tensors], optimize=True), dt)


@_reg("aten.einsum.sublist")
def _einsum_sublist(a: np.ndarray, *rest: object) -> np.ndarray:
    tensors = [a] + [r for r in rest if _is_tensor(r)]
    dt = result_type(*tensors)
    cdt = _compute_dtype(dt)
    ops = [_cast(r, cdt) if _is_tensor(r) else r for r in (a, *rest)]
    return _finish(np.einsum(*ops), dt)


@_reg("aten._cdist_forward.default")
def _cdist(x1: np.ndarray, x2: np.ndarray, p: float, compute_mode: int | None = None) -> np.ndarray:
    a, b = np.asarray(x1), np.asarray(x2)
    dt = a.dtype
    c1, c2 = _cast(a, _compute_dtype(dt)), _cast(b, _compute_dtype(dt))
    diff = np.abs(c1[..., :, None, :] - c2[..., None, :, :])
    if p == 0:
        res = np.sum(diff != 0, axis=-1).astype(c1.dtype)
    elif math.isinf(p):
        res = np.max(diff, axis=-1) if diff.shape[-1] else np.zeros(diff.shape[:-1], c1.dtype)
    else:
        res = np.sum(diff**p, axis=-1) ** (1.0 / p)
    return _finish(res, dt)


@_reg("aten._pdist_forward.default")
def _pdist(self: np.ndarray, p: float = 2.0) -> np.ndarray:
    a = np.asarray(self)
    i, j = np.triu_indices(a.shape[0], 1)
    full = _cdist(a, a, p)
    return full[i, j].copy()


@_reg("aten._fft_r2c.default")
def _fft_r2c(self: np.ndarray, dim: Sequence[int], normalization: int, onesided: bool) -> np.ndarray:
    a = np.asarray(self)
    norm = ("backward", "ortho", "forward")[normalization]
    axes = [_wrap(d, a.ndim) for d in dim]
    cdt = np.complex128 if a.dtype == np.float64 else np.complex64
    res = np.fft.rfftn(a, axes=axes, norm=norm) if onesided else np.fft.fftn(a, axes=axes, norm=norm)
    return res.astype(cdt)


@_reg("aten._fft_c2r.default")
def _fft_c2r(self: np.ndarray, dim: Sequence[int], normalization: int, last_dim_size: int) -> np.ndarray:
    a = np.asarray(self)
    # normalization counts the inverse's scaling: none, 1/sqrt(n), 1/n
    norm = ("forward", "ortho", "backward")[normalization]
    axes = [_wrap(d, a.ndim) for d in dim]
    sizes = [a.shape[ax] for ax in axes[:-1]] + [int(last_dim_size)]
    rdt = np.float64 if a.dtype == np.complex128 else np.float32
    return np.fft.irfftn(a, s=sizes, axes=axes, norm=norm).astype(rdt)


# ---------------------------------------------------------------------------
# normalisation
# ---------------------------------------------------------------------------


@_reg("aten.native_layer_norm.default")
def _native_layer_norm(
    input: np.ndarray, normalized_shape: Sequence[int], weight: np.ndarray | None, bias: np.ndarray | None, eps: float  # noqa: A002
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = np.asarray(input)
    dt = a.dtype
    x = _cast(a, _compute_dtype(dt))
    k = len(normalized_shape)
    axes = tuple(range(a.ndim - k, a.ndim))
    mean = np.mean(x, axis=axes, keepdims=True)
    var = np.mean((x - mean) ** 2, axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(var + np.asarray(eps).astype(x.dtype))
    y = (x - mean) * rstd
    if weight is not None:
        y = y * _cast(weight, x.dtype)
    if bias is not None:
        y = y + _cast(bias, x.dtype)
    return _finish(y, dt), _finish(mean, dt), _finish(rstd, dt)


@_reg("aten.layer_norm.default")
def _layer_norm(
    input: np.ndarray, normalized_shape: Sequence[int], weight: np.ndarray | None = None,  # noqa: A002
    bias: np.ndarray | None = None, eps: float = 1e-5, cudnn_enable: bool = True,
) -> np.ndarray:
    return _native_layer_norm(input, normalized_shape, weight, bias, eps)[0]


def _norm_input_grad(gw: np.ndarray, x: np.ndarray, mean: np.ndarray, rstd: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """Input gradient of a normalisation from the *given* mean/rstd.

    Written in terms of sums of ``gw`` and ``gw * x`` (not of x-hat) so that,
    like torch's kernels, the result depends on the statistics passed in even
    when they are not the input's own.
    """
    count = int(np.prod([x.shape[a] for a in axes]))
    ds = np.sum(gw * x, axis=axes, keepdims=True)
    db = np.sum(gw, axis=axes, keepdims=True)
    b = (db * mean - ds) * rstd**3 / count
    c = -b * mean - db * rstd / count
    return rstd * gw + b * x + c


@_reg("aten.native_layer_norm_backward.default")
def _native_layer_norm_backward(
    grad_out: np.ndarray, input: np.ndarray, normalized_shape: Sequence[int], mean: np.ndarray, rstd: np.ndarray,  # noqa: A002
    weight: np.ndarray | None, bias: np.ndarray | None, output_mask: Sequence[bool],
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    a = np.asarray(input)
    dt = a.dtype
    cdt = _compute_dtype(dt)
    x, g = _cast(a, cdt), _cast(grad_out, cdt)
    k = len(normalized_shape)
    axes = tuple(range(a.ndim - k, a.ndim))
    batch = tuple(range(a.ndim - k))
    m, r = _cast(mean, cdt), _cast(rstd, cdt)
    xhat = (x - m) * r
    gw = g * _cast(weight, cdt) if weight is not None else g
    dx = _norm_input_grad(gw, x, m, r, axes)
    dw = np.sum(g * xhat, axis=batch) if weight is not None else None
    db = np.sum(g, axis=batch) if bias is not None else None
    return (
        _finish(dx, dt) if output_mask[0] else None,
        _finish(dw, dt) if output_mask[1] and dw is not None else None,
        _finish(db, dt) if output_mask[2] and db is not None else None,
    )


@_reg("aten.native_group_norm.default")
def _native_group_norm(
    input: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None, N: int, C: int, HxW: int, group: int, eps: float  # noqa: A002, N803
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = np.asarray(input)
    dt = a.dtype
    x = _cast(a, _compute_dtype(dt)).reshape(int(N), int(group), -1)
    mean = np.mean(x, axis=2, keepdims=True)
    var = np.mean((x - mean) ** 2, axis=2, keepdims=True)
    rstd = 1.0 / np.sqrt(var + np.asarray(eps).astype(x.dtype))
    y = ((x - mean) * rstd).reshape(int(N), int(C), -1)
    if weight is not None:
        y = y * _cast(weight, x.dtype).reshape(1, -1, 1)
    if bias is not None:
        y = y + _cast(bias, x.dtype).reshape(1, -1, 1)
    return _finish(y.reshape(a.shape), dt), _finish(mean.reshape(int(N), int(group)), dt), _finish(rstd.reshape(int(N), int(group)), dt)


@_reg("aten.group_norm.default")
def _group_norm(
    input: np.ndarray, num_groups: int, weight: np.ndarray | None = None, bias: np.ndarray | None = None,  # noqa: A002
    eps: float = 1e-5, cudnn_enabled: bool = True,
) -> np.ndarray:
    a = np.asarray(input)
    n, c = a.shape[0], a.shape[1]
    hxw = int(np.prod(a.shape[2:]))
    return _native_group_norm(a, weight, bias, n, c, hxw, num_groups, eps)[0]


@_reg("aten.native_group_norm_backward.default")
def _native_group_norm_backward(
    grad_out: np.ndarray, input: np.ndarray, mean: np.ndarray, rstd: np.ndarray, weight: np.ndarray | None,  # noqa: A002
    N: int, C: int, HxW: int, group: int, output_mask: Sequence[bool],  # noqa: N803
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    a = np.asarray(input)
    dt = a.dtype
    cdt = _compute_dtype(dt)
    n, c, g_ = int(N), int(C), int(group)
    x = _cast(a, cdt).reshape(n, c, -1)
    g = _cast(grad_out, cdt).reshape(n, c, -1)
    m = _cast(mean, cdt).reshape(n, g_, 1, 1)
    r = _cast(rstd, cdt).reshape(n, g_, 1, 1)
    xg = x.reshape(n, g_, c // g_, -1)
    xhat = (xg - m) * r
    gg = g if weight is None else g * _cast(weight, cdt).reshape(1, c, 1)
    dx = _norm_input_grad(gg.reshape(n, g_, c // g_, -1), xg, m, r, (2, 3))
    xhat_c = xhat.reshape(n, c, -1)
    dw = np.sum(g * xhat_c, axis=(0, 2))
    db = np.sum(g, axis=(0, 2))
    return (
        _finish(dx.reshape(a.shape), dt) if output_mask[0] else None,
        _finish(dw, dt) if output_mask[1] else None,
        _finish(db, dt) if output_mask[2] else None,
    )


def _batch_norm_core(
    input: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None, running_mean: np.ndarray | None,  # noqa: A002
    running_var: np.ndarray | None, training: bool, momentum: float, eps: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Shared batch norm; training updates the running stats in place like torch."""
    a = np.asarray(input)
    dt = a.dtype
    x = _cast(a, _compute_dtype(dt))
    axes = tuple(i for i in range(a.ndim) if i != 1)
    shape = [1] * a.ndim
    shape[1] = a.shape[1]
    if training:
        mean = np.mean(x, axis=axes)
        var = np.mean((x - mean.reshape(shape)) ** 2, axis=axes)
        n = a.size // a.shape[1]
        if running_mean is not None:
            np.copyto(running_mean, (1 - momentum) * running_mean + momentum * mean, casting="unsafe")
        if running_var is not None:
            unbiased = var * n / max(n - 1, 1)
            np.copyto(running_var, (1 - momentum) * running_var + momentum * unbiased, casting="unsafe")
        invstd = 1.0 / np.sqrt(var + eps)
        save_mean, save_invstd = mean, invstd
    else:
        assert running_mean is not None and running_var is not None
        mean = _cast(running_mean, x.dtype)
        invstd = 1.0 / np.sqrt(_cast(running_var, x.dtype) + np.asarray(eps).astype(x.dtype))
        save_mean = save_invstd = np.zeros((0,), dtype=x.dtype)
        # Inference folds the statistics into one scale and shift per channel,
        # as torch's CPU kernel does: two passes over the input instead of four.
        scale = invstd if weight is None else invstd * _cast(weight, x.dtype)
        shift = -mean * scale if bias is None else _cast(bias, x.dtype) - mean * scale
        y = x * scale.reshape(shape)
        y += shift.reshape(shape)
        stat_dt = dt if dt != _F16 else _F32
        return _finish(y, dt), _finish(save_mean, stat_dt), _finish(save_invstd, stat_dt)
    y = (x - mean.reshape(shape)) * invstd.reshape(shape)
    if weight is not None:
        y = y * _cast(weight, x.dtype).reshape(shape)
    if bias is not None:
        y = y + _cast(bias, x.dtype).reshape(shape)
    stat_dt = dt if dt != _F16 else _F32
    return _finish(y, dt), _finish(save_mean, stat_dt), _finish(save_invstd, stat_dt)


@_reg("aten._native_batch_norm_legit.default", "aten.native_batch_norm.default")
def _bn_legit(
    input: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None, running_mean: np.ndarray | None,  # noqa: A002
    running_var: np.ndarray | None, training: bool, momentum: float, eps: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return _batch_norm_core(input, weight, bias, running_mean, running_var, training, momentum, eps)


@_reg("aten._native_batch_norm_legit.no_stats")
def _bn_no_stats(
    input: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None, training: bool, momentum: float, eps: float  # noqa: A002
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return _batch_norm_core(input, weight, bias, None, None, True, momentum, eps)


@_reg("aten._native_batch_norm_legit_no_training.default")
def _bn_no_training(
    input: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None, running_mean: np.ndarray,  # noqa: A002
    running_var: np.ndarray, momentum: float, eps: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return _batch_norm_core(input, weight, bias, running_mean, running_var, False, momentum, eps)


@_reg("aten.batch_norm.default")
def _batch_norm(
    input: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None, running_mean: np.ndarray | None,  # noqa: A002
    running_var: np.ndarray | None, training: bool, momentum: float, eps: float, cudnn_enabled: bool,
) -> np.ndarray:
    return _batch_norm_core(input, weight, bias, running_mean, running_var, training, momentum, eps)[0]


# ---------------------------------------------------------------------------
# dropout and attention
# ---------------------------------------------------------------------------


@_reg("aten.native_dropout.default")
def _native_dropout(input: np.ndarray, p: float, train: bool | None) -> tuple[np.ndarray, np.ndarray]:  # noqa: A002
    """Training mode draws the keep mask from the module generator (scaled by 1/(1-p))."""
    a = np.asarray(input)
    if train is False or p == 0:
        return a.copy(), np.ones(a.shape, dtype=bool)
    keep = _rng().random(a.shape) >= p
    scale = 0.0 if p >= 1 else 1.0 / (1.0 - p)
    return _finish(_cast(a, _compute_dtype(a.dtype)) * keep * scale, a.dtype), keep


@_reg("aten.dropout.default")
def _dropout(input: np.ndarray, p: float, train: bool) -> np.ndarray:  # noqa: A002
    return _native_dropout(input, p, train)[0]


@_reg("aten.scaled_dot_product_attention.default")
def _sdpa(
    query: np.ndarray, key: np.ndarray, value: np.ndarray, attn_mask: np.ndarray | None = None, dropout_p: float = 0.0,
    is_causal: bool = False, scale: float | None = None, enable_gqa: bool = False,
) -> np.ndarray:
    dt = np.asarray(query).dtype
    cdt = _compute_dtype(dt)
    q, k, v = _cast(query, cdt), _cast(key, cdt), _cast(value, cdt)
    if enable_gqa and q.ndim >= 3 and k.shape[-3] != q.shape[-3]:
        rep = q.shape[-3] // k.shape[-3]
        k, v = np.repeat(k, rep, axis=-3), np.repeat(v, rep, axis=-3)
    s = scale if scale is not None else 1.0 / math.sqrt(q.shape[-1])
    scores = np.matmul(q, np.swapaxes(k, -1, -2)) * np.asarray(s, cdt)
    L, S = q.shape[-2], k.shape[-2]
    if is_causal:
        scores = np.where(np.tril(np.ones((L, S), dtype=bool)), scores, -np.inf)
    if attn_mask is not None:
        m = np.asarray(attn_mask)
        scores = np.where(m, scores, -np.inf) if m.dtype == _BOOL else scores + _cast(m, cdt)
    attn = _softmax_impl(scores, -1, False, None)
    # a fully masked row attends to nothing: torch's safe softmax yields zeros there, not NaN
    attn = np.where(np.all(scores == -np.inf, axis=-1, keepdims=True), 0, attn).astype(attn.dtype)
    if dropout_p > 0:
        attn = _native_dropout(attn, dropout_p, True)[0]
    return _finish(np.matmul(attn, v), dt)


# ---------------------------------------------------------------------------
# convolution
# ---------------------------------------------------------------------------


def _expand_param(v: Sequence[int] | int, n: int) -> list[int]:
    vals = [int(v)] if isinstance(v, int) else [int(x) for x in v]
    return vals * n if len(vals) == 1 else vals


def _windows(x: np.ndarray, k: Sequence[int], stride: Sequence[int], dilation: Sequence[int], out: Sequence[int]) -> np.ndarray:
    """Strided window view (N, C, *out, *k) of an already padded (N, C, *spatial) array."""
    n = len(k)
    ext = [(kk - 1) * d + 1 for kk, d in zip(k, dilation)]
    win = sliding_window_view(x, ext, axis=tuple(range(2, 2 + n)))
    sel = (slice(None), slice(None)) + tuple(slice(0, (o - 1) * s + 1, s) for o, s in zip(out, stride))
    sel += tuple(slice(None, None, d) for d in dilation)
    return win[sel]


def _offset_slices(
    xp: np.ndarray, k: Sequence[int], stride: Sequence[int], dilation: Sequence[int], out: Sequence[int], lead: int = 2
) -> list[tuple[int, tuple[int, ...], np.ndarray]]:
    """For each kernel offset (row-major): its flat index, its position and the
    strided view of the (already padded) input it meets, shaped (*lead, *out).

    Looping over the few kernel offsets with whole-array ops is much faster in
    numpy than reducing over a strided window view or copying im2col columns.
    """
    views = []
    for flat, pos in enumerate(np.ndindex(*k)):
        sel = (slice(None),) * lead + tuple(
            slice(q * d, q * d + (o - 1) * st + 1, st) for q, d, o, st in zip(pos, dilation, out, stride)
        )
        views.append((flat, tuple(pos), xp[sel]))
    return views


def _conv_nd(
    x: np.ndarray, w: np.ndarray, stride: Sequence[int], pad_lo: Sequence[int], pad_hi: Sequence[int],
    dilation: Sequence[int], groups: int,
) -> np.ndarray:
    """Cross-correlation; x, w already in the compute dtype.

    The padded input is built channel-major (C, N, *spatial) in one zero buffer
    (np.pad is slow), so that each kernel offset copies whole rows into the
    column matrix; then one GEMM (or one per group) does the arithmetic.
    """
    n = w.ndim - 2
    N, C = x.shape[:2]
    spatial = x.shape[2:]
    lo = [max(p, 0) for p in pad_lo]
    padded = [s_ + lo[i] + max(pad_hi[i], 0) for i, s_ in enumerate(spatial)]
    xp = np.zeros((C, N, *padded), dtype=x.dtype)
    xp[(slice(None), slice(None), *(slice(lo[i], lo[i] + spatial[i]) for i in range(n)))] = np.swapaxes(x, 0, 1)
    crop = (slice(None), slice(None)) + tuple(
        slice(max(-a, 0), padded[i] - max(-b, 0)) for i, (a, b) in enumerate(zip(pad_lo, pad_hi))
    )
    xp = xp[crop]
    k = w.shape[2:]
    out = [(xp.shape[2 + i] - (k[i] - 1) * dilation[i] - 1) // stride[i] + 1 for i in range(n)]
    oc = w.shape[0]
    cg, ocg = C // groups, oc // groups
    kk = int(np.prod(k))
    dt = np.result_type(x.dtype, w.dtype)
    if min(out, default=1) <= 0 or N == 0 or C == 0:
        return np.zeros((N, oc, *[max(o, 0) for o in out]), dtype=dt)
    cols = np.empty((kk, C, N, *out), dtype=x.dtype)
    for flat, _, view in _offset_slices(xp, k, stride, dilation, out):
        cols[flat] = view
    p = N * int(np.prod(out))
    # columns ordered (offset, channel); weights to (out channel, offset, channel)
    if groups == 1:
        wm = np.moveaxis(w.reshape(oc, C, kk), 1, 2).reshape(oc, kk * C)
        res = wm @ cols.reshape(kk * C, p)
    else:
        cols_g = np.moveaxis(cols.reshape(kk, groups, cg, p), 1, 0).reshape(groups, kk * cg, p)
        wg = np.moveaxis(w.reshape(groups, ocg, cg, kk), 2, 3).reshape(groups, ocg, kk * cg)
        res = np.matmul(wg, cols_g).reshape(oc, p)
    return np.ascontiguousarray(np.swapaxes(res.reshape(oc, N, *out), 0, 1)).astype(dt, copy=False)


def _conv_transpose_nd(
    x: np.ndarray, w: np.ndarray, stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int],
    output_padding: Sequence[int], groups: int,
) -> np.ndarray:
    """Transposed conv as a stride-1 conv of the zero-stuffed input with the flipped kernel."""
    n = w.ndim - 2
    N, C = x.shape[:2]
    spatial = x.shape[2:]
    stuffed_shape = (N, C) + tuple((s - 1) * st + 1 for s, st in zip(spatial, stride))
    z = np.zeros(stuffed_shape, dtype=x.dtype)
    z[(slice(None), slice(None)) + tuple(slice(None, None, st) for st in stride)] = x
    cin, ocg = w.shape[0], w.shape[1]
    k = w.shape[2:]
    wg = w.reshape((groups, cin // groups, ocg) + tuple(k))
    wg = np.swapaxes(wg, 1, 2).reshape((groups * ocg, cin // groups) + tuple(k))
    wf = np.flip(wg, axis=tuple(range(2, 2 + n)))
    lo = [d * (kk - 1) - p for d, kk, p in zip(dilation, k, padding)]
    hi = [lo_ + op for lo_, op in zip(lo, output_padding)]
    return _conv_nd(z, np.ascontiguousarray(wf), [1] * n, lo, hi, dilation, groups)


def _unbatch(x: np.ndarray, n: int) -> tuple[np.ndarray, bool]:
    return (x[None], True) if x.ndim == n + 1 else (x, False)


@_reg("aten.convolution.default")
def _convolution(
    input: np.ndarray, weight: np.ndarray, bias: np.ndarray | None, stride: Sequence[int], padding: Sequence[int] | str,  # noqa: A002
    dilation: Sequence[int], transposed: bool, output_padding: Sequence[int], groups: int,
) -> np.ndarray:
    w = np.asarray(weight)
    n = w.ndim - 2
    x, unb = _unbatch(np.asarray(input), n)
    dt = result_type(x, w)
    cdt = _compute_dtype(dt)
    xc, wc = _cast(x, cdt), _cast(w, cdt)
    st, dl = _expand_param(stride, n), _expand_param(dilation, n)
    if isinstance(padding, str):
        if padding == "valid":
            lo = hi = [0] * n
        else:  # "same": extra padding goes on the high side, as torch does
            total = [d * (kk - 1) for d, kk in zip(dl, w.shape[2:])]
            lo = [t // 2 for t in total]
            hi = [t - l_ for t, l_ in zip(total, lo)]
    else:
        lo = hi = _expand_param(padding, n)
    if transposed:
        res = _conv_transpose_nd(xc, wc, st, lo, dl, _expand_param(output_padding, n) if output_padding else [0] * n, int(groups))
    else:
        res = _conv_nd(xc, wc, st, lo, hi, dl, int(groups))
    if bias is not None:
        res = res + _cast(bias, cdt).reshape((1, -1) + (1,) * n)
    res = _finish(res, dt)
    return res[0] if unb else res


def _conv_k(n: int) -> Kernel:
    def kernel(
        input: np.ndarray, weight: np.ndarray, bias: np.ndarray | None = None, stride: Sequence[int] = (1,),  # noqa: A002
        padding: Sequence[int] | str = (0,), dilation: Sequence[int] = (1,), groups: int = 1,
    ) -> np.ndarray:
        return _convolution(input, weight, bias, stride, padding, dilation, False, [0] * n, groups)

    return kernel


for _n in (1, 2, 3):
    _reg(f"aten.conv{_n}d.default", f"aten.conv{_n}d.padding")(_conv_k(_n))


@_reg("aten.convolution_backward.default")
def _convolution_backward(
    grad_output: np.ndarray, input: np.ndarray, weight: np.ndarray, bias_sizes: Sequence[int] | None,  # noqa: A002
    stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int], transposed: bool,
    output_padding: Sequence[int], groups: int, output_mask: Sequence[bool],
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    w = np.asarray(weight)
    n = w.ndim - 2
    x, unb = _unbatch(np.asarray(input), n)
    go, _ = _unbatch(np.asarray(grad_output), n)
    dt = x.dtype
    cdt = _compute_dtype(dt)
    xc, wc, gc = _cast(x, cdt), _cast(w, cdt), _cast(go, cdt)
    st, pd, dl = _expand_param(stride, n), _expand_param(padding, n), _expand_param(dilation, n)
    g = int(groups)
    gi = gw = gb = None
    if output_mask[0]:
        if transposed:
            gi = _conv_nd(gc, wc, st, pd, pd, dl, g)
        else:
            full = _conv_transpose_nd(gc, wc, st, pd, dl, [0] * n, g)
            # the transposed conv may be short of the input size when the stride skipped rows
            extra = [x.shape[2 + i] - full.shape[2 + i] for i in range(n)]
            gi = _conv_transpose_nd(gc, wc, st, pd, dl, extra, g)
        gi = _finish(gi[0] if unb else gi, dt)
    if output_mask[1]:
        # correlate the (grouped) data with the (grouped) output gradient
        src, dst = (gc, xc) if transposed else (xc, gc)
        k = w.shape[2:]
        xp = np.pad(src, [(0, 0), (0, 0)] + [(p, p) for p in pd])
        out = dst.shape[2:]
        win = _windows(xp, k, st, dl, out)  # N, Cs, *out, *k
        N, Cs = src.shape[:2]
        Cd = dst.shape[1]
        P, K = int(np.prod(out)), int(np.prod(k))
        win = win.reshape((N, g, Cs // g) + tuple(out) + tuple(k))
        perm = (1, 0) + tuple(range(3, 3 + n)) + (2,) + tuple(range(3 + n, 3 + 2 * n))
        cols = np.transpose(win, perm).reshape(g, N * P, (Cs // g) * K)
        d = np.moveaxis(dst.reshape((N, g, Cd // g, P)), 1, 0)  # g, N, Cd/g, P
        d = np.swapaxes(d, 2, 3).reshape(g, N * P, Cd // g)
        res = np.matmul(np.swapaxes(d, 1, 2), cols)  # g, Cd/g, Cs/g*K
        if transposed:
            # weight is (Cin, Cout/g, *k): Cin belongs to dst=x, Cout to src=grad_out
            gw = res.reshape((g * (Cd // g), Cs // g) + tuple(k))
        else:
            gw = res.reshape((g * (Cd // g), Cs // g) + tuple(k))
        gw = _finish(gw, w.dtype)
    if output_mask[2]:
        gb = _finish(np.sum(gc, axis=(0,) + tuple(range(2, 2 + n))), dt)
    return gi, gw, gb


@_reg("aten.col2im.default")
def _col2im(
    self: np.ndarray, output_size: Sequence[int], kernel_size: Sequence[int], dilation: Sequence[int],
    padding: Sequence[int], stride: Sequence[int],
) -> np.ndarray:
    a, unb = _unbatch(np.asarray(self), 1)
    dt = a.dtype
    k, dl, pd, st = (_expand_param(v, 2) for v in (kernel_size, dilation, padding, stride))
    H, W = (int(s) for s in output_size)
    N = a.shape[0]
    C = a.shape[1] // (k[0] * k[1])
    oh = (H + 2 * pd[0] - dl[0] * (k[0] - 1) - 1) // st[0] + 1
    ow = (W + 2 * pd[1] - dl[1] * (k[1] - 1) - 1) // st[1] + 1
    vals = _cast(a, _compute_dtype(dt)).reshape(N, C, k[0], k[1], oh, ow)
    out = _window_scatter(np.transpose(vals, (0, 1, 4, 5, 2, 3)), (H + 2 * pd[0], W + 2 * pd[1]), st, dl)
    out = out[:, :, pd[0] : pd[0] + H, pd[1] : pd[1] + W]
    out = _finish(out, dt)
    return out[0] if unb else out


def _window_scatter(vals: np.ndarray, spatial: Sequence[int], stride: Sequence[int], dilation: Sequence[int]) -> np.ndarray:
    """Adjoint of :func:`_windows`: add (N, C, *out, *k) window values back into (N, C, *spatial)."""
    n = len(spatial)
    N, C = vals.shape[:2]
    out = vals.shape[2 : 2 + n]
    k = vals.shape[2 + n :]
    flat = np.zeros((N, C, int(np.prod(spatial))), dtype=vals.dtype)
    pos = np.zeros(tuple(out) + tuple(k), dtype=np.intp)
    mul = 1
    for i in reversed(range(n)):
        o = np.arange(out[i]) * stride[i]
        kk = np.arange(k[i]) * dilation[i]
        shape_o = [1] * (2 * n)
        shape_o[i] = out[i]
        shape_k = [1] * (2 * n)
        shape_k[n + i] = k[i]
        pos = pos + (o.reshape(shape_o) + kk.reshape(shape_k)) * mul
        mul *= spatial[i]
    idx = pos.reshape(-1)
    v = vals.reshape(N, C, -1)
    # one add.at over the flattened (N*C, positions) array
    rows = np.arange(N * C)[:, None]
    np.add.at(flat.reshape(N * C, -1), (rows, idx[None, :]), v.reshape(N * C, -1))
    return flat.reshape((N, C) + tuple(spatial))


# ---------------------------------------------------------------------------
# pooling
# ---------------------------------------------------------------------------


def _pool_out(size: int, k: int, s: int, p: int, d: int, ceil: bool) -> int:
    num = size + 2 * p - d * (k - 1) - 1
    o = (-(-num // s) if ceil else num // s) + 1
    if ceil and (o - 1) * s >= size + p:
        o -= 1
    return o


def _pool_setup(
    x: np.ndarray, n: int, kernel_size: Sequence[int], stride: Sequence[int], padding: Sequence[int],
    dilation: Sequence[int], ceil_mode: bool,
) -> tuple[list[int], list[int], list[int], list[int], list[int]]:
    k = _expand_param(kernel_size, n)
    s = _expand_param(stride, n) if stride else list(k)
    p = _expand_param(padding, n)
    d = _expand_param(dilation, n)
    spatial = x.shape[-n:]
    out = [_pool_out(spatial[i], k[i], s[i], p[i], d[i], ceil_mode) for i in range(n)]
    return k, s, p, d, out


def _pad_for_pool(x: np.ndarray, n: int, k: Sequence[int], s: Sequence[int], p: Sequence[int], d: Sequence[int], out: Sequence[int], value: object) -> np.ndarray:
    spatial = x.shape[2:]
    width = [(0, 0), (0, 0)]
    for i in range(n):
        need = (out[i] - 1) * s[i] + (k[i] - 1) * d[i] + 1
        width.append((p[i], max(need - spatial[i] - p[i], 0)))
    return np.pad(x, width, mode="constant", constant_values=value)


def _max_pool_nd(
    self: np.ndarray, n: int, kernel_size: Sequence[int], stride: Sequence[int], padding: Sequence[int],
    dilation: Sequence[int], ceil_mode: bool, with_indices: bool = True,
) -> tuple[np.ndarray, np.ndarray | None]:
    a = np.asarray(self)
    unb = a.ndim == n + 1
    x = a[None] if unb else a
    k, s, p, d, out = _pool_setup(x, n, kernel_size, stride, padding, dilation, ceil_mode)
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min if x.dtype.kind in "iu" else False
    xp = _pad_for_pool(x, n, k, s, p, d, out, low)
    views = _offset_slices(xp, k, s, d, out)
    vals = views[0][2].copy()
    floating = x.dtype.kind == "f"
    if not with_indices:
        for _, _, view in views[1:]:
            np.maximum(vals, view, out=vals)  # propagates NaN, as torch does
        return (vals[0] if unb else vals), None
    arg = np.zeros(vals.shape, dtype=np.int64)
    for flat, _, view in views[1:]:
        # the first maximum wins, and a NaN beats any number, as in torch
        better = view > vals
        if floating:
            better |= np.isnan(view) & ~np.isnan(vals)
        np.copyto(vals, view, where=better)
        np.copyto(arg, flat, where=better)
    # flat index into the unpadded input spatial plane
    kidx = np.unravel_index(arg, k)
    spatial = x.shape[2:]
    flat = np.zeros(arg.shape, dtype=np.int64)
    for i in range(n):
        shape = [1] * arg.ndim
        shape[2 + i] = out[i]
        coord = np.arange(out[i]).reshape(shape) * s[i] - p[i] + kidx[i] * d[i]
        flat = flat * spatial[i] + coord
    if unb:
        return vals[0], flat[0]
    return vals, flat


@_reg("aten.max_pool2d_with_indices.default")
def _max_pool2d_wi(
    self: np.ndarray, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,), ceil_mode: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    return _max_pool_nd(self, 2, kernel_size, stride, padding, dilation, ceil_mode)


@_reg("aten.max_pool3d_with_indices.default")
def _max_pool3d_wi(
    self: np.ndarray, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,), ceil_mode: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    return _max_pool_nd(self, 3, kernel_size, stride, padding, dilation, ceil_mode)


@_reg("aten.max_pool2d.default")
def _max_pool2d(
    self: np.ndarray, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,), ceil_mode: bool = False,
) -> np.ndarray:
    return cast(np.ndarray, _max_pool_nd(self, 2, kernel_size, stride, padding, dilation, ceil_mode, False)[0])


@_reg("aten.max_pool2d_with_indices_backward.default")
def _max_pool2d_backward(
    grad_output: np.ndarray, self: np.ndarray, kernel_size: Sequence[int], stride: Sequence[int], padding: Sequence[int],
    dilation: Sequence[int], ceil_mode: bool, indices: np.ndarray,
) -> np.ndarray:
    a = np.asarray(self)
    dt = a.dtype
    plane = a.shape[-2] * a.shape[-1]
    lead = int(np.prod(a.shape[:-2]))
    out = np.zeros((lead, plane), dtype=_compute_dtype(dt))
    idx = np.asarray(indices).reshape(lead, -1).astype(np.intp)
    np.add.at(out, (np.arange(lead)[:, None], idx), _cast(grad_output, out.dtype).reshape(lead, -1))
    return _finish(out.reshape(a.shape), dt)


def _avg_divisors(
    spatial: Sequence[int], k: Sequence[int], s: Sequence[int], p: Sequence[int], out: Sequence[int],
    count_include_pad: bool, divisor_override: int | None, dt: np.dtype[Any],
) -> np.ndarray:
    if divisor_override:
        return np.asarray(float(divisor_override), dtype=dt)
    div = np.ones((), dtype=dt)
    n = len(k)
    for i in range(n):
        start = np.arange(out[i]) * s[i] - p[i]
        end = np.minimum(start + k[i], spatial[i] + p[i])
        size = end - start
        if not count_include_pad:
            size = np.minimum(end, spatial[i]) - np.maximum(start, 0)
        shape = [1] * n
        shape[i] = out[i]
        div = div * size.reshape(shape).astype(dt)
    return div


def _avg_pool_nd(
    self: np.ndarray, n: int, kernel_size: Sequence[int], stride: Sequence[int], padding: Sequence[int],
    ceil_mode: bool, count_include_pad: bool, divisor_override: int | None,
) -> np.ndarray:
    a = np.asarray(self)
    unb = a.ndim == n + 1
    x = a[None] if unb else a
    dt = x.dtype
    cdt = _compute_dtype(_to_float(dt)) if dt.kind == "f" else np.dtype(np.float64)
    k, s, p, d, out = _pool_setup(x, n, kernel_size, stride, padding, [1] * n, ceil_mode)
    xp = _pad_for_pool(_cast(x, cdt), n, k, s, p, d, out, 0)
    views = _offset_slices(xp, k, s, d, out)
    sums = views[0][2].copy()
    for _, _, view in views[1:]:
        sums += view
    res = sums / _avg_divisors(x.shape[2:], k, s, p, out, count_include_pad, divisor_override, cdt)
    if dt.kind in "iu":
        res = np.trunc(res)
    res = _finish(res, dt)
    return res[0] if unb else res


@_reg("aten.avg_pool1d.default")
def _avg_pool1d(
    self: np.ndarray, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0,),
    ceil_mode: bool = False, count_include_pad: bool = True,
) -> np.ndarray:
    return _avg_pool_nd(self, 1, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


@_reg("aten.avg_pool2d.default")
def _avg_pool2d(
    self: np.ndarray, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0,),
    ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None,
) -> np.ndarray:
    return _avg_pool_nd(self, 2, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


@_reg("aten.avg_pool3d.default")
def _avg_pool3d(
    self: np.ndarray, kernel_size: Sequence[int], stride: Sequence[int] = (), padding: Sequence[int] = (0,),
    ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None,
) -> np.ndarray:
    return _avg_pool_nd(self, 3, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


@_reg("aten.avg_pool2d_backward.default")
def _avg_pool2d_backward(
    grad_output: np.ndarray, self: np.ndarray, kernel_size: Sequence[int], stride: Sequence[int], padding: Sequence[int],
    ceil_mode: bool, count_include_pad: bool, divisor_override: int | None,
) -> np.ndarray:
    a = np.asarray(self)
    unb = a.ndim == 3
    x = a[None] if unb else a
    g = np.asarray(grad_output)
    g = g[None] if unb else g
    dt = x.dtype
    cdt = _compute_dtype(dt)
    k, s, p, _, out = _pool_setup(x, 2, kernel_size, stride, padding, [1, 1], ceil_mode)
    div = _avg_divisors(x.shape[2:], k, s, p, out, count_include_pad, divisor_override, cdt)
    per = _cast(g, cdt) / div
    vals = np.broadcast_to(per[..., None, None], per.shape + tuple(k))
    H, W = x.shape[2:]
    need = [max((out[i] - 1) * s[i] + k[i], x.shape[2 + i] + 2 * p[i]) for i in range(2)]
    full = _window_scatter(np.ascontiguousarray(vals), need, s, [1, 1])
    res = _finish(full[:, :, p[0] : p[0] + H, p[1] : p[1] + W], dt)
    return res[0] if unb else res


def _adaptive_matrix(in_size: int, out_size: int, dt: np.dtype[Any]) -> np.ndarray:
    """Averaging matrix of one adaptive-pool axis: bins [floor(i*I/O), ceil((i+1)*I/O))."""
    i = np.arange(out_size)
    start = (i * in_size) // out_size
    end = -((-(i + 1) * in_size) // out_size)
    j = np.arange(in_size)
    mask = (j[None, :] >= start[:, None]) & (j[None, :] < end[:, None])
    return (mask / (end - start)[:, None]).astype(dt)


def _adaptive_avg(a: np.ndarray, output_size: Sequence[int], transpose: bool = False, like: np.ndarray | None = None) -> np.ndarray:
    n = len(output_size)
    dt = a.dtype
    cdt = _compute_dtype(_to_float(dt))
    x = _cast(a, cdt)
    for i in range(n):
        axis = x.ndim - n + i
        if transpose:
            assert like is not None
            m = _adaptive_matrix(like.shape[axis], x.shape[axis], cdt).T
        else:
            m = _adaptive_matrix(x.shape[axis], int(output_size[i]), cdt)
        x = np.moveaxis(np.tensordot(m, np.moveaxis(x, axis, 0), axes=1), 0, axis)
    return _finish(x, dt)


@_reg("aten.adaptive_avg_pool1d.default")
def _adaptive_avg_pool1d(self: np.ndarray, output_size: Sequence[int]) -> np.ndarray:
    return _adaptive_avg(np.asarray(self), _expand_param(output_size, 1))


@_reg("aten._adaptive_avg_pool2d.default", "aten.adaptive_avg_pool2d.default")
def _adaptive_avg_pool2d(self: np.ndarray, output_size: Sequence[int]) -> np.ndarray:
    return _adaptive_avg(np.asarray(self), _expand_param(output_size, 2))


@_reg("aten._adaptive_avg_pool3d.default")
def _adaptive_avg_pool3d(self: np.ndarray, output_size: Sequence[int]) -> np.ndarray:
    return _adaptive_avg(np.asarray(self), _expand_param(output_size, 3))


@_reg("aten._adaptive_avg_pool2d_backward.default")
def _adaptive_avg_pool2d_backward(grad_output: np.ndarray, self: np.ndarray) -> np.ndarray:
    g = np.asarray(grad_output)
    return _adaptive_avg(g, g.shape[-2:], transpose=True, like=np.asarray(self)).astype(np.asarray(self).dtype)


# ---------------------------------------------------------------------------
# resampling
# ---------------------------------------------------------------------------


def _area_scale(in_size: int, out_size: int, align_corners: bool, scale: float | None) -> float:
    if align_corners:
        return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else in_size / out_size


def _upsample_sizes(x: np.ndarray, output_size: Sequence[int] | None, scale_factors: Sequence[float] | None) -> tuple[list[int], list[float | None]]:
    if output_size is not None:
        return [int(s) for s in output_size], [None, None]
    assert scale_factors is not None
    sizes = [int(math.floor(x.shape[-2 + i] * scale_factors[i])) for i in range(2)]
    return sizes, [float(f) for f in scale_factors]


@_reg("aten.upsample_nearest2d.default", "aten.upsample_nearest2d.vec")
def _upsample_nearest2d(
    self: np.ndarray | None = None, output_size: Sequence[int] | None = None, scales_h: float | None = None,
    scales_w: float | None = None, input: np.ndarray | None = None, scale_factors: Sequence[float] | None = None,  # noqa: A002
) -> np.ndarray:
    x = np.asarray(self if self is not None else input)
    sizes, scales = _upsample_sizes(x, output_size, scale_factors)
    if scale_factors is None:
        scales = [scales_h, scales_w]
    idx = []
    for i in range(2):
        in_size = x.shape[-2 + i]
        sc = _area_scale(in_size, sizes[i], False, scales[i])
        src = np.minimum(np.floor(np.arange(sizes[i]) * np.float32(sc)).astype(np.intp), in_size - 1)
        idx.append(src)
    return x[..., idx[0][:, None], idx[1][None, :]]


@_reg("aten.upsample_bilinear2d.default", "aten.upsample_bilinear2d.vec")
def _upsample_bilinear2d(
    self: np.ndarray | None = None, output_size: Sequence[int] | None = None, align_corners: bool = False,
    scales_h: float | None = None, scales_w: float | None = None, input: np.ndarray | None = None,  # noqa: A002
    scale_factors: Sequence[float] | None = None,
) -> np.ndarray:
    x = np.asarray(self if self is not None else input)
    dt = x.dtype
    cdt = _compute_dtype(dt)
    sizes, scales = _upsample_sizes(x, output_size, scale_factors)
    if scale_factors is None:
        scales = [scales_h, scales_w]
    y = _cast(x, cdt)
    for i in range(2):
        axis = y.ndim - 2 + i
        in_size = y.shape[axis]
        sc = _area_scale(in_size, sizes[i], align_corners, scales[i])
        dst = np.arange(sizes[i], dtype=cdt)
        src = dst * cdt.type(sc) if align_corners else np.maximum((dst + cdt.type(0.5)) * cdt.type(sc) - cdt.type(0.5), 0)
        i0 = np.minimum(np.floor(src).astype(np.intp), in_size - 1)
        i1 = np.minimum(i0 + 1, in_size - 1)
        lam = (src - i0).astype(cdt)
        shape = [1] * y.ndim
        shape[axis] = sizes[i]
        lam = lam.reshape(shape)
        y = np.take(y, i0, axis=axis) * (1 - lam) + np.take(y, i1, axis=axis) * lam
    return _finish(y, dt)


def _reflect(x: np.ndarray, twice_low: int, twice_high: int) -> np.ndarray:
    if twice_low == twice_high:
        return np.zeros_like(x)
    mn = twice_low / 2
    span = (twice_high - twice_low) / 2
    x = np.abs(x - mn)
    extra = np.fmod(x, span)
    flips = np.floor(x / span)
    return np.where(flips % 2 == 0, extra + mn, span - extra + mn)


@_reg("aten.grid_sampler_2d.default")
def _grid_sampler_2d(input: np.ndarray, grid: np.ndarray, interpolation_mode: int, padding_mode: int, align_corners: bool) -> np.ndarray:  # noqa: A002
    """Bilinear (0) and nearest (1) sampling with zeros/border/reflection padding; bicubic (2) is not supported."""
    if interpolation_mode not in (0, 1):
        raise NotImplementedError("grid_sampler_2d: bicubic interpolation is not implemented")
    x = np.asarray(input)
    dt = x.dtype
    cdt = _compute_dtype(dt)
    xc = _cast(x, cdt)
    g = _cast(grid, cdt)
    N, C, H, W = x.shape
    coords = []
    for size, comp in ((W, g[..., 0]), (H, g[..., 1])):
        c = (comp + 1) / 2 * (size - 1) if align_corners else ((comp + 1) * size - 1) / 2
        if padding_mode == 1:
            c = np.clip(c, 0, size - 1)
        elif padding_mode == 2:
            c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
            c = np.clip(c, 0, size - 1)
        coords.append(c)
    ix, iy = coords
    n_idx = np.arange(N).reshape(N, 1, 1)

    def tap(yy: np.ndarray, xx: np.ndarray) -> np.ndarray:
        valid = (xx >= 0) & (xx < W) & (yy >= 0) & (yy < H)
        v = xc[n_idx, :, np.clip(yy, 0, H - 1), np.clip(xx, 0, W - 1)]  # N, Ho, Wo, C
        return v * valid[..., None]

    if interpolation_mode == 1:
        out = tap(np.round(iy).astype(np.intp), np.round(ix).astype(np.intp))
    else:
        x0, y0 = np.floor(ix).astype(np.intp), np.floor(iy).astype(np.intp)
        wx1, wy1 = (ix - x0)[..., None], (iy - y0)[..., None]
        wx0, wy0 = 1 - wx1, 1 - wy1
        out = (
            tap(y0, x0) * wy0 * wx0 + tap(y0, x0 + 1) * wy0 * wx1
            + tap(y0 + 1, x0) * wy1 * wx0 + tap(y0 + 1, x0 + 1) * wy1 * wx1
        )
    return _finish(np.moveaxis(out, -1, 1), dt)


# ---------------------------------------------------------------------------
# hand-written mutating kernels (in-place view ops, copy_)
# ---------------------------------------------------------------------------


def _inplace_view(fn: Kernel) -> Kernel:
    """In-place metadata ops: mutate ``self``'s shape when numpy can, else return the view.

    numpy can re-shape an array in place only when no strides change
    (squeeze_/unsqueeze_/contiguous resizes); transposing in place would need
    setting ``strides``, which NumPy 2.4 deprecates, so ``t_``/``transpose_``/
    ``as_strided_`` return the new view and the caller must rebind it.
    """

    def kernel(self: np.ndarray, **kw: object) -> np.ndarray:
        view = fn(self, **kw)
        try:
            if view.size == self.size and np.shares_memory(view, self) and view.flags.c_contiguous and self.flags.c_contiguous:
                self.shape = view.shape
                return self
        except (AttributeError, ValueError):
            pass
        return view

    return kernel


_HANDWRITTEN_MUTATING: dict[str, Kernel] = {
    "aten.squeeze_.default": _inplace_view(_squeeze),
    "aten.squeeze_.dim": _inplace_view(_squeeze),
    "aten.squeeze_.dims": _inplace_view(_squeeze),
    "aten.unsqueeze_.default": _inplace_view(_unsqueeze),
    "aten.t_.default": _inplace_view(_t),
    "aten.transpose_.default": _inplace_view(_transpose),
    "aten.as_strided_.default": _inplace_view(_as_strided),
}


def _detach_inplace(self: np.ndarray) -> np.ndarray:
    """No autograd here: detaching in place changes nothing."""
    return self


_HANDWRITTEN_MUTATING["aten.detach_.default"] = _detach_inplace


def _copy_inplace(self: np.ndarray, src: object = None, other: object = None, non_blocking: bool = False) -> np.ndarray:
    value = src if src is not None else other
    np.copyto(self, np.asarray(value), casting="unsafe")
    return self


for _n in ("aten.copy_.default", "aten.copy_.Tensor", "aten.copy_.float", "aten.copy_.int"):
    _HANDWRITTEN_MUTATING[_n] = _copy_inplace


def _resize_inplace(self: np.ndarray, size: Sequence[int], memory_format: object = None) -> np.ndarray:
    """ndarray.resize: works when ``self`` owns its buffer; new elements are zero."""
    self.resize(tuple(int(s) for s in size), refcheck=False)
    return self


_HANDWRITTEN_MUTATING["aten.resize_.default"] = _resize_inplace


# ---------------------------------------------------------------------------
# deriving in-place and out= variants from the schema
# ---------------------------------------------------------------------------


def _schema(name: str) -> FunctionSchema:
    entry = lookup(name)
    if entry is None:
        raise KeyError(f"unknown operator {name}")
    return entry.schema


def _write_into(dst: np.ndarray, value: object) -> np.ndarray:
    """Copy a result into a caller-provided tensor, resizing it like torch's out=."""
    v = np.asarray(value)
    if dst.shape != v.shape:
        dst.resize(v.shape, refcheck=False)
    np.copyto(dst, v, casting="unsafe")
    return dst


def _derive_inplace(functional: Kernel, self_name: str) -> Kernel:
    def kernel(self: np.ndarray, **kw: object) -> np.ndarray:
        res = functional(**{self_name: self}, **kw)
        np.copyto(self, np.asarray(res), casting="unsafe")
        return self

    return kernel


def _derive_out(functional: Kernel, out_names: Sequence[str], bind_names: set[str]) -> Kernel:
    def kernel(**kw: object) -> object:
        outs = [kw.pop(n) for n in out_names]
        res = functional(**{k: v for k, v in kw.items() if k in bind_names})
        results = list(res) if isinstance(res, (tuple, list)) else [res]
        written = [r if o is None else _write_into(o, r) for o, r in zip(outs, results)]  # type: ignore[arg-type]
        return tuple(written) if len(written) > 1 else written[0]

    return kernel


def _bind_names(name: str) -> set[str]:
    return {a.name for a in _schema(name).arguments}


SKIPPED: dict[str, str] = {}
"""Listed operators without a kernel, with the reason."""


def _build() -> dict[str, Kernel]:
    kernels: dict[str, Kernel] = {}
    for name in selected_operators():
        if name in _FUNCTIONAL:
            kernels[name] = _FUNCTIONAL[name]
            continue
        if name in _HANDWRITTEN_MUTATING:
            kernels[name] = _HANDWRITTEN_MUTATING[name]
            continue
        schema = _schema(name)
        out_names = [a.name for a in schema.out_arguments]
        if schema.is_inplace:
            f = functional_variant(name)
            if f in _FUNCTIONAL:
                fnames = [a.name for a in _schema(f).arguments]
                kernels[name] = _derive_inplace(_FUNCTIONAL[f], "self" if "self" in fnames else fnames[0])
                continue
        elif out_names:
            # the out= form of a mutating op (batch norm updating its running statistics) runs that op
            f = functional_variant(name, mutable=True)
            if f in _FUNCTIONAL:
                kernels[name] = _derive_out(_FUNCTIONAL[f], out_names, _bind_names(f))
                continue
        SKIPPED[name] = "no functional kernel to derive from"
    return kernels


_FUNCTIONAL["aten.resize.default"] = _resize  # functional base for aten.resize.out
_FUNCTIONAL["aten.index_put.hacked_twin"] = _index_put

KERNELS: dict[str, Kernel] = _build()


def _accepts(fn: Kernel, schema: FunctionSchema) -> bool:
    """Whether a kernel's parameters cover the schema's argument names."""
    params = inspect.signature(fn).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return True
    return all(a.name in params for a in schema.arguments)


# functional kernels of overloads outside the list (e.g. bitwise_xor.Scalar_Tensor) are usable
# too, unless the name belongs to an unrelated overload (aten::eq(Scalar a, Scalar b) -> bool)
for _name, _fn in _FUNCTIONAL.items():
    _entry = lookup(_name)
    if _name not in KERNELS and _entry is not None and _accepts(_fn, _entry.schema):
        KERNELS[_name] = _fn
"""Kernel of every listed operator, keyed by IR name (``aten.add.Tensor``)."""


def has_kernel(name: str) -> bool:
    return name in KERNELS


# ---------------------------------------------------------------------------
# calling convention
# ---------------------------------------------------------------------------


def _apply_dtype(value: object, dtype: DType | None) -> object:
    if dtype is None or not isinstance(value, np.ndarray):
        return value
    if dtype == DType.bfloat16:
        if value.dtype == np.float32 and value.flags.writeable:
            # in place, so that in-place and out= results stay the caller's array
            np.copyto(value, round_to_bfloat16(value))
            return value
        return round_to_bfloat16(value)
    want = _NUMPY_OF.get(dtype)
    if want is not None and value.dtype != want:
        return value.astype(want)
    return value


def run_kernel(
    op_name: str, args: Sequence[object], kwargs: Mapping[str, object], result_dtypes: Sequence[DType | None] = ()
) -> object:
    """Bind ``args``/``kwargs`` to the schema of ``op_name`` and run its kernel.

    ``result_dtypes`` gives the torch dtype of each result when known; a
    bfloat16 result is rounded to bf16 values (see module docstring) and any
    other mismatch is cast.
    """
    kernel = KERNELS.get(op_name)
    if kernel is None:
        raise NotImplementedError(f"no numpy kernel for {op_name}")
    schema = _schema(op_name)
    bound, extra = bind(schema, args, kwargs, missing="none")
    with np.errstate(all="ignore"):
        if extra:
            lead = [bound.pop(a.name) for a in schema.arguments if not a.kwarg_only]
            result = kernel(*lead, *extra, **bound)
        else:
            result = kernel(**bound)
        if not result_dtypes:
            return result
        if isinstance(result, (tuple, list)) and not (len(result_dtypes) == 1 and isinstance(result, list)):
            fixed = [_apply_dtype(r, d) for r, d in zip(result, result_dtypes)] + list(result[len(result_dtypes) :])
            return type(result)(fixed)
        if isinstance(result, list):
            return [_apply_dtype(r, result_dtypes[0]) for r in result]
        return _apply_dtype(result, result_dtypes[0])


def bind_kernel(
    op_name: str, args: Sequence[object], kwargs: Mapping[str, object]
) -> tuple[Kernel, dict[str, object], list[object]]:
    """Bind once, call many times: the kernel of `op_name`, its arguments by name
    (defaults filled in) and the extra positional ones of a vararg schema.

    The interpreter binds each node when it compiles a graph, with placeholders
    for the values only known at run time, and then calls the kernel directly.
    """
    kernel = KERNELS.get(op_name)
    if kernel is None:
        raise NotImplementedError(f"no numpy kernel for {op_name}")
    bound, extra = bind(_schema(op_name), args, kwargs, missing="none")
    return kernel, bound, extra


def apply_result_dtype(value: object, dtype: DType | None) -> object:
    """Give a kernel result the dtype the IR says it has (bf16 rounding included)."""
    return _apply_dtype(value, dtype)
