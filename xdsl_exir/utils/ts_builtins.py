"""
TorchScript's builtin operators on values that are not tensors: the one table
the interpreter runs and `torchscript-to-exir` folds with.

A TorchScript node calls an overload (`aten::add.int`, `aten::len.t`,
`aten::__getitem__.Dict_str`) that `overloads.resolve_node` picks from the
input types. Those on numbers, strings, lists, dicts and size lists have one
implementation here, torch-free and dialect-free, so the interpreter
(`interpreters/ts_builtins.py` adds the tensor ones) and the lowering, which
evaluates them while specializing, cannot disagree.

`builtin_for(name, schema)` returns the implementation of one overload.
Implementations take the schema's arguments positionally (defaults already
filled in; a vararg schema's extra arguments follow) and return the result (a
tuple for several, None for none). Families share one implementation
specialised by the schema: every `add` overload on numbers is one function
cast to the schema's return type, every dict operation one function whatever
the key type.

Semantics are TorchScript's, which follow C++ where Python's would differ:
ints are int64 and wrap on overflow (`(2**63 - 1) + 1 == -2**63`); `//` and
`%` on ints floor as in Python and fail on a zero divisor ("division by 0");
float division by zero gives inf or nan instead of raising; float to int
conversion truncates, and gives -2**63 for nan, inf or out-of-range values
as torch does on x86; `str` and `format` print floats as TorchScript does
(`1.`, `0.10000000000000001`) and strings inside containers without quotes.
A program error is a `ScriptException` carrying the Python exception class
torch would raise.
"""

from __future__ import annotations

import math
import operator
import warnings
from collections.abc import Callable, Sequence
from functools import singledispatch
from typing import Any, cast

import numpy as np

from xdsl_exir.utils.broadcast import BroadcastError, broadcast_shapes
from xdsl_exir.utils.diagnostics import InterpreterError
from xdsl_exir.utils.function_schema import FunctionSchema, SchemaType, TypeKind

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "Builtin",
    "ScriptException",
    "as_int",
    "broadcast_sizes",
    "builtin_for",
    "float_to_int",
    "ts_str",
    "wrap_int",
]

Builtin = Callable[..., Any]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


class ScriptException(InterpreterError):
    """An exception the program raised (`prim::RaiseException`), or one TorchScript's runtime raises."""

    def __init__(self, message: str, python_class: str | None = None) -> None:
        super().__init__(f"{python_class}: {message}" if python_class else message)
        self.python_class = python_class
        self.text = message


# ---------------------------------------------------------------------------
# numbers
# ---------------------------------------------------------------------------


def wrap_int(v: int) -> int:
    """`v` as an int64 wraps it (TorchScript's ints are C++ int64_t)."""
    if INT64_MIN <= v <= INT64_MAX:
        return v
    return (v - INT64_MIN) % 2**64 + INT64_MIN


def float_to_int(v: float) -> int:
    """C++'s `static_cast<int64_t>(double)`: truncation; nan, inf and overflow give INT64_MIN (x86)."""
    if math.isfinite(v) and -(2.0**63) <= v < 2.0**63:
        return int(v)
    return INT64_MIN


def _checked_int(v: Any) -> int:
    """A float result that must be an int (`math.floor`): torch refuses nan, inf and overflow."""
    if isinstance(v, int):
        return v
    if not (math.isfinite(v) and -(2.0**63) <= v < 2.0**63):
        raise ScriptException(f"Cannot convert float {v:f} to integer", "RuntimeError")
    return int(v)


def as_int(v: object) -> int:
    """TorchScript's `int(v)` of a number: bools are 0/1, ints wrap to int64, floats truncate."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return wrap_int(v)
    if isinstance(v, float):
        return float_to_int(v)
    if isinstance(v, complex):
        return float_to_int(v.real)
    raise TypeError(f"expected a number, got {type(v).__name__}")


def _cast_to(ret: str | None) -> Callable[[Any], Any]:
    """The conversion of a computed number to the schema's return type."""
    if ret in ("int", "SymInt"):
        return as_int
    if ret in ("float", "SymFloat"):
        return lambda v: float(v.real) if isinstance(v, complex) else float(v)
    if ret in ("bool", "SymBool"):
        return bool
    if ret == "complex":
        return complex
    return lambda v: wrap_int(v) if type(v) is int else v


def _is_intlike(v: object) -> bool:
    return isinstance(v, int)  # bools too: C++ promotes them


def _zero_division() -> ScriptException:
    return ScriptException("division by 0", "ZeroDivisionError")


def _f64(v: object) -> np.float64:
    return np.float64(cast(float, v))


def _true_div(a: Any, b: Any) -> Any:
    if isinstance(a, complex) or isinstance(b, complex):
        if b == 0:
            raise _zero_division()
        return a / b
    with np.errstate(all="ignore"):
        return float(_f64(a) / _f64(b))


def _floordiv(a: Any, b: Any) -> Any:
    if _is_intlike(a) and _is_intlike(b):
        if b == 0:
            raise _zero_division()
        return int(a) // int(b)
    with np.errstate(all="ignore"):
        return float(np.floor_divide(_f64(a), _f64(b)))


def _remainder(a: Any, b: Any) -> Any:
    if _is_intlike(a) and _is_intlike(b):
        if b == 0:
            raise ScriptException("modulo by 0", "ZeroDivisionError")
        return int(a) % int(b)
    with np.errstate(all="ignore"):
        return float(np.remainder(_f64(a), _f64(b)))


def _fmod(a: Any, b: Any) -> Any:
    with np.errstate(all="ignore"):
        return float(np.fmod(_f64(a), _f64(b)))


def _pow(a: Any, b: Any) -> Any:
    if isinstance(a, complex) or isinstance(b, complex):
        return complex(a) ** complex(b)
    if a == 0 and b < 0:
        raise ScriptException("0.0 cannot be raised to a negative power", "ZeroDivisionError")
    with np.errstate(all="ignore"):
        return float(np.power(_f64(a), _f64(b)))


def _int_pow(a: Any, b: Any) -> Any:
    if b < 0:
        if a == 0:
            raise ScriptException("0 cannot be raised to a negative power", "ZeroDivisionError")
        return _pow(a, b)
    return wrap_int(pow(int(a), int(b), 2**64))


def _shift(left: bool) -> Callable[[Any, Any], Any]:
    def shift(a: Any, b: Any) -> Any:
        if b < 0:
            raise ScriptException("negative shift count", "ValueError")
        if left:
            return wrap_int(int(a) << (int(b) & 63))
        return int(a) >> min(int(b), 63)

    return shift


def _minmax(fn: Callable[[Any, Any], bool]) -> Callable[[Any, Any], Any]:
    # std::min / std::max: the first argument unless the second compares strictly better
    return lambda a, b: b if fn(b, a) else a


_NUMBER_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "div": _true_div,
    "floordiv": _floordiv,
    "remainder": _remainder,
    "fmod": _fmod,
    "pow": _pow,
    "__and__": operator.and_,
    "__or__": operator.or_,
    "__xor__": operator.xor,
    "__iand__": operator.and_,
    "__ior__": operator.or_,
    "__ixor__": operator.xor,
    "__lshift__": _shift(True),
    "__rshift__": _shift(False),
    "__ilshift__": _shift(True),
    "__irshift__": _shift(False),
    "min": _minmax(operator.lt),
    "max": _minmax(operator.gt),
    "atan2": lambda a, b: float(np.arctan2(_f64(a), _f64(b))),
    "copysign": lambda a, b: math.copysign(float(a), float(b)),
    "log": lambda a, b: float(np.log(_f64(a)) / np.log(_f64(b))),
    "mathremainder": lambda a, b: math.remainder(float(a), float(b)),
    "gcd": lambda a, b: math.gcd(int(a), int(b)),
}
"""Binary operators on numbers (and bools), Python semantics unless TorchScript's differ."""

_COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
}


def _ufunc(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A numpy float64 ufunc on a number: IEEE results (nan, inf) instead of Python's exceptions."""

    def run(a: Any) -> Any:
        if isinstance(a, complex):
            return complex(fn(np.complex128(a)))
        with np.errstate(all="ignore"):
            return float(fn(_f64(a)))

    return run


def _safe(fn: Callable[[float], float]) -> Callable[[Any], float]:
    def run(a: Any) -> float:
        try:
            return fn(float(a))
        except (ValueError, OverflowError):
            return math.nan if not math.isinf(float(a)) else math.inf

    return run


def _floor_or_ceil(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda a: a if _is_intlike(a) else float(fn(_f64(a)))


def _round_half_even(a: Any) -> Any:
    return float(np.round(_f64(a)))


_NUMBER_UNARY: dict[str, Callable[[Any], Any]] = {
    "neg": operator.neg,
    "abs": abs,
    "floor": _floor_or_ceil(np.floor),
    "ceil": _floor_or_ceil(np.ceil),
    "round": _round_half_even,
    "trunc": lambda a: a if _is_intlike(a) else float(np.trunc(_f64(a))),
    "sqrt": _ufunc(np.sqrt),
    "exp": _ufunc(np.exp),
    "expm1": _ufunc(np.expm1),
    "log": _ufunc(np.log),
    "log10": _ufunc(np.log10),
    "log1p": _ufunc(np.log1p),
    "sin": _ufunc(np.sin),
    "cos": _ufunc(np.cos),
    "tan": _ufunc(np.tan),
    "asin": _ufunc(np.arcsin),
    "acos": _ufunc(np.arccos),
    "atan": _ufunc(np.arctan),
    "sinh": _ufunc(np.sinh),
    "cosh": _ufunc(np.cosh),
    "tanh": _ufunc(np.tanh),
    "asinh": _ufunc(np.arcsinh),
    "acosh": _ufunc(np.arccosh),
    "atanh": _ufunc(np.arctanh),
    "erf": _safe(math.erf),
    "erfc": _safe(math.erfc),
    "gamma": _safe(math.gamma),
    "lgamma": _safe(math.lgamma),
    "degrees": lambda a: math.degrees(float(a)),
    "radians": lambda a: math.radians(float(a)),
    "isnan": lambda a: not _is_intlike(a) and math.isnan(a),
    "isinf": lambda a: not _is_intlike(a) and math.isinf(a),
    "isfinite": lambda a: _is_intlike(a) or math.isfinite(a),
    "factorial": lambda a: math.factorial(int(a)),
    "__not__": operator.not_,
}
"""Unary operators on numbers; the result is cast to the schema's return type."""

_NUMBER_TYPES = frozenset({"int", "float", "bool", "complex", "Scalar", "number", "SymInt", "SymFloat", "SymBool"})


def _base_name(st: SchemaType) -> str | None:
    return st.name if st.kind is TypeKind.BASE else None


def _is_number_type(st: SchemaType) -> bool:
    return _base_name(st) in _NUMBER_TYPES


# ---------------------------------------------------------------------------
# printing (`aten::str`, `aten::format`, `prim::Print`)
# ---------------------------------------------------------------------------


def _float_str(v: float) -> str:
    if math.isfinite(v) and v == int(v) and -(2.0**63) <= v < 2.0**63:
        return f"{int(v)}."
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v:.17g}"


@singledispatch
def ts_str(v: object) -> str:
    """
    A value printed as TorchScript's `str()` and `format` print it. Layers
    above add their own values with `ts_str.register` (the interpreter its
    tensors and futures), so containers of them print through here too.
    """
    if v is None:
        return "None"
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _float_str(v)
    if isinstance(v, complex):
        return f"{_float_str(v.real)}+{_float_str(v.imag)}j" if v.imag >= 0 else f"{_float_str(v.real)}{_float_str(v.imag)}j"
    if isinstance(v, str):
        return v
    if isinstance(v, list):
        return "[" + ", ".join(ts_str(x) for x in cast(list[object], v)) + "]"
    if isinstance(v, tuple):
        items = [ts_str(x) for x in cast(tuple[object, ...], v)]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(v, dict):
        d = cast(dict[object, object], v)
        return "{" + ", ".join(f"{ts_str(k)}: {ts_str(x)}" for k, x in d.items()) + "}"
    return str(v)


def _format(fmt: str, *args: object) -> str:
    out: list[str] = []
    begin = 0
    used = 0
    while True:
        loc = fmt.find("{}", begin)
        if loc < 0:
            out.append(fmt[begin:])
            break
        out.append(fmt[begin:loc])
        if used >= len(args):
            raise ScriptException(f"Too few arguments for format string: {fmt}", "RuntimeError")
        out.append(ts_str(args[used]))
        begin = loc + 2
        used += 1
    return "".join(out)


def _print(*args: object) -> None:
    print(" ".join(ts_str(a) for a in args))


# ---------------------------------------------------------------------------
# size lists
# ---------------------------------------------------------------------------


def broadcast_sizes(*sizes: Sequence[int]) -> list[int]:
    """`prim::BroadcastSizes` / `aten::_infer_size`: the broadcast of size lists (the core's broadcast)."""
    try:
        return cast(list[int], broadcast_shapes(*(list(s) for s in sizes)))
    except BroadcastError as e:
        raise ScriptException(f"sizes do not broadcast: {e}", "RuntimeError") from None


# ---------------------------------------------------------------------------
# lists, strings, dicts
# ---------------------------------------------------------------------------


def _index(seq: Sequence[Any], i: int, what: str = "list") -> int:
    n = len(seq)
    j = i + n if i < 0 else i
    if not 0 <= j < n:
        raise ScriptException(f"{what} index out of range", "IndexError")
    return j


def _getitem(seq: Sequence[Any], i: int) -> Any:
    return seq[_index(seq, i)]


def _set_item(seq: list[Any], i: int, v: Any) -> list[Any]:
    seq[_index(seq, i)] = v
    return seq


def _pop(seq: list[Any], i: int = -1) -> Any:
    if not seq:
        raise ScriptException("pop from empty list", "IndexError")
    return seq.pop(_index(seq, i))


def _insert(seq: list[Any], i: int, v: Any) -> None:
    seq.insert(i, v)


def _remove(seq: list[Any], v: Any) -> None:
    for i, x in enumerate(seq):
        if _equal(x, v):
            del seq[i]
            return
    raise ScriptException("list.remove(x): x not in list", "ValueError")


def _list_index(seq: list[Any], v: Any) -> int:
    for i, x in enumerate(seq):
        if _equal(x, v):
            return i
    raise ScriptException("'list.index(x)': x not in list", "ValueError")


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return a is b or bool(np.asarray(a == b).all()) if np.shape(a) == np.shape(b) else False
    return bool(a == b)


def _list_eq(a: Sequence[Any], b: Sequence[Any]) -> bool:
    return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))


def _slice(seq: Any, start: int | None = None, end: int | None = None, step: int = 1) -> Any:
    if step == 0:
        raise ScriptException("slice step cannot be zero", "ValueError")
    return seq[start:end:step]


def _delete(seq: list[Any], i: int) -> None:
    del seq[_index(seq, i)]


def _range_length(lo: int, hi: int, step: int) -> int:
    if step == 0:
        raise ScriptException("range() arg 3 must not be zero", "ValueError")
    if step > 0 and lo < hi:
        return 1 + (hi - 1 - lo) // step
    if step < 0 and lo > hi:
        return 1 + (lo - 1 - hi) // (-step)
    return 0


def _list_mul(seq: list[Any], n: int) -> list[Any]:
    return seq * max(n, 0)


def _sort(seq: list[Any], reverse: bool = False) -> None:
    seq.sort(reverse=reverse)


def _sum_list(seq: Sequence[Any]) -> Any:
    total: Any = 0
    for v in seq:
        total = total + v
    return wrap_int(total) if type(total) is int else total


def _str_end(s: str, end: int) -> int:
    return len(s) + end + 1 if end < 0 else end


def _find(s: str, sub: str, start: int = 0, end: int = -1) -> int:
    return s.find(sub, start, _str_end(s, end))


def _str_index(s: str, sub: str, start: int = 0, end: int = -1) -> int:
    r = _find(s, sub, start, end)
    if r < 0:
        raise ScriptException("substring not found", "ValueError")
    return r


def _split_str(s: str, separator: str | None = None, max: int = -1) -> list[str]:
    return s.split(separator, max)


def _strip(which: str) -> Callable[..., str]:
    def strip(s: str, chars: str = " \n\t\f\v") -> str:
        return cast(str, getattr(s, which)(chars))

    return strip


_LIST_BUILTINS: dict[str, Builtin] = {
    "aten::len.t": len,
    "aten::len.any": len,
    "aten::len.str": len,
    "aten::__getitem__.t": _getitem,
    "aten::__getitem__.str": lambda s, i: s[_index(s, i, "string")],
    "aten::_set_item.t": _set_item,
    "aten::append.t": lambda seq, v: (seq.append(v), seq)[1],
    "aten::extend.t": lambda seq, other: seq.extend(list(other)),
    "aten::insert.t": _insert,
    "aten::pop.t": _pop,
    "aten::clear.t": lambda seq: seq.clear(),
    "aten::copy.t": lambda seq: list(seq),
    "aten::list.t": lambda seq: list(seq),
    "aten::list": lambda s: list(s),
    "aten::reverse.t": lambda seq: seq.reverse(),
    "aten::Delete.t": _delete,
    "aten::slice.t": _slice,
    "aten::slice.str": _slice,
    "aten::add.t": lambda a, b: list(a) + list(b),
    "aten::add_.t": lambda a, b: (a.extend(list(b)), a)[1],
    "aten::mul.left_t": _list_mul,
    "aten::mul.right_": lambda n, seq: _list_mul(seq, n),
    "aten::mul_.t": lambda seq, n: (seq.__setitem__(slice(None), _list_mul(seq, n)), seq)[1],
    "aten::__range_length": _range_length,
    "aten::__derive_index": lambda index, start, step: wrap_int(start + index * step),
    "aten::add.str": operator.add,
    "aten::str": ts_str,
    "aten::format": _format,
    "aten::percentFormat": lambda fmt, *args: fmt % (args[0] if len(args) == 1 else tuple(args)),
    "prim::Print": _print,
    "aten::join": lambda sep, values: sep.join(values),
    "aten::split.str": _split_str,
    "aten::find": _find,
    "aten::rfind": lambda s, sub, start=0, end=-1: s.rfind(sub, start, _str_end(s, end)),
    "aten::index.str": _str_index,
    "aten::count": lambda s, sub, start=0, end=-1: s.count(sub, start, _str_end(s, end)),
    "aten::startswith": lambda s, sub, start=0, end=-1: s.startswith(sub, start, _str_end(s, end)),
    "aten::endswith": lambda s, sub, start=0, end=-1: s.endswith(sub, start, _str_end(s, end)),
    "aten::replace": lambda s, old, new, max=-1: s.replace(old, new, max),
    "aten::strip": _strip("strip"),
    "aten::lstrip": _strip("lstrip"),
    "aten::rstrip": _strip("rstrip"),
    "aten::ord": ord,
    "aten::chr": chr,
    "aten::Int.str": lambda s: _parse_number(s, int),
    "aten::Float.str": lambda s: _parse_number(s, float),
    "aten::device": lambda s: s,
    "aten::device.with_index": lambda s, i: f"{s}:{i}",
    "aten::sum.int": _sum_list,
    "aten::sum.float": _sum_list,
    "aten::sum.bool": lambda seq: sum(int(v) for v in seq),
    "aten::sum.complex": _sum_list,
    "aten::any.bool": any,
    "aten::any.int": any,
    "aten::any.float": any,
    "aten::any.str": any,
    "aten::all.bool": all,
    "aten::all.int": all,
    "aten::all.float": all,
    "aten::__is__": operator.is_,
    "aten::__isnot__": operator.is_not,
    "aten::__not__": operator.not_,
    "prim::unchecked_cast": lambda v: v,
    "prim::unchecked_unwrap_optional": lambda v: v,
    "aten::_unwrap_optional": lambda v: _unwrap(v),
    "aten::wait": lambda fut: fut.value,
    "aten::warn": lambda message, stacklevel=2: warnings.warn(message, UserWarning, stacklevel=2),
    "aten::dict": dict,
}



def _assert_scalar(cond: Any, message: str) -> None:
    if not cond:
        raise ScriptException(message, "RuntimeError")


def _divmod(a: Any, b: Any) -> tuple[Any, Any]:
    return _floordiv(a, b), _remainder(a, b)


_MISC_BUILTINS: dict[str, Builtin] = {
    "aten::Size": lambda sizes: list(sizes),
    "aten::select.t": _getitem,
    "aten::__round_to_zero_floordiv.int": lambda a, b: wrap_int(int(a / b)) if b else _floordiv(a, b),
    "aten::_assert_scalar": _assert_scalar,
    "aten::divmod.int": _divmod,
    "aten::divmod.float": _divmod,
    "aten::divmod.int_float": _divmod,
    "aten::divmod.float_int": _divmod,
    "aten::frexp": lambda a: math.frexp(a),
    "aten::ldexp": lambda a, i: math.ldexp(a, i),
    "aten::modf": lambda a: math.modf(a)[::-1],
    "aten::hex": hex,
    "aten::oct": oct,
    "aten::bin": bin,
    "aten::center": lambda s, width, fill=" ": s.center(width, fill),
    "aten::ljust": lambda s, width, fill=" ": s.ljust(width, fill),
    "aten::rjust": lambda s, width, fill=" ": s.rjust(width, fill),
    "aten::zfill": lambda s, width: s.zfill(width),
    "aten::expandtabs": lambda s, tabsize=8: s.expandtabs(tabsize),
    "aten::partition": lambda s, sep: s.partition(sep),
    "aten::rpartition": lambda s, sep: s.rpartition(sep),
    "aten::rsplit": lambda s, sep=" ", max=-1: s.rsplit(sep, max),
    "aten::splitlines": lambda s, keepends=False: s.splitlines(keepends),
    "aten::rindex": lambda s, sub, start=0, end=-1: s.rindex(sub, start, _str_end(s, end)),
    "aten::broadcast_shapes": broadcast_sizes,
    "aten::_infer_size": broadcast_sizes,
    "prim::BroadcastSizes": broadcast_sizes,
    "aten::_size_if_not_equal": lambda a, b: None if list(a) == list(b) else a,
    "aten::is_scripting": lambda: True,
    "aten::is_grad_enabled": lambda: False,
    "aten::set_grad_enabled": lambda enabled: None,
    "aten::_get_tracing_state": lambda: False,
    "aten::is_autocast_enabled": lambda: False,
    "aten::is_autocast_cpu_enabled": lambda: False,
    "aten::hash.generic": hash,
    "aten::cpu": lambda a: a,
    "prim::StringIndex": lambda s, i: s[_index(s, i, "string")],
    "prim::rangelist": lambda n: list(range(n)),
    "prim::type": lambda device: device.split(":")[0],
    "prim::IfThenElse": lambda cond, x, y: x if cond else y,
    "prim::AutogradAnyNonZero": lambda *xs: any(x is not None for x in xs),
    "prim::AutogradAllNonZero": lambda *xs: all(x is not None for x in xs),
    "prim::AutogradAllZero": lambda *xs: all(x is None for x in xs),
    "prim::id": id,
}
"""Python builtins and runtime queries (no autograd, no autocast, no tracing here)."""

for _n in ("Complex.bool_bool", "Complex.bool_float", "Complex.bool_int", "Complex.float_bool", "Complex.float_float",
           "Complex.float_int", "Complex.int_bool", "Complex.int_float", "Complex.int_int"):
    _MISC_BUILTINS[f"aten::{_n}"] = lambda re, im: complex(re, im)
for _n in ("fabs.float", "fabs.int", "fabs.Scalar"):
    _MISC_BUILTINS[f"aten::{_n}"] = lambda a: math.fabs(a)

for _m in ("lower", "upper", "title", "capitalize", "swapcase", "isdigit", "isalpha", "isspace",
           "isalnum", "islower", "isupper", "istitle", "isdecimal", "isnumeric", "isidentifier",
           "isprintable", "casefold"):
    _LIST_BUILTINS[f"aten::{_m}"] = operator.methodcaller(_m)


def _unwrap(v: Any) -> Any:
    if v is None:
        raise ScriptException("Unwrapping null optional", "RuntimeError")
    return v


def _parse_number(s: str, kind: type) -> Any:
    try:
        return kind(s)
    except ValueError:
        raise ScriptException(f"could not convert string to {kind.__name__}: '{s}'", "ValueError") from None


def _dict_getitem(d: dict[Any, Any], key: Any) -> Any:
    try:
        return d[key]
    except KeyError:
        raise ScriptException(ts_str(key), "KeyError") from None


def _dict_pop(d: dict[Any, Any], key: Any, *default: Any) -> Any:
    if key in d:
        return d.pop(key)
    if default:
        return default[0]
    raise ScriptException(ts_str(key), "KeyError")


def _dict_delete(d: dict[Any, Any], key: Any) -> None:
    if key not in d:
        raise ScriptException(ts_str(key), "KeyError")
    del d[key]


def _popitem(d: dict[Any, Any]) -> tuple[Any, Any]:
    if not d:
        raise ScriptException("popitem(): dictionary is empty", "KeyError")
    return d.popitem()


_DICT_FAMILY: dict[str, Builtin] = {
    "keys": lambda d: list(d.keys()),
    "values": lambda d: list(d.values()),
    "items": lambda d: [(k, v) for k, v in d.items()],
    "__getitem__": _dict_getitem,
    "_set_item": lambda d, k, v: d.__setitem__(k, v),
    "__contains__": lambda d, k: k in d,
    "len": len,
    "get": lambda d, k, *default: d.get(k, default[0] if default else None),
    "setdefault": lambda d, k, v: d.setdefault(k, v),
    "pop": _dict_pop,
    "popitem": _popitem,
    "clear": lambda d: d.clear(),
    "update": lambda d, other: d.update(other),
    "copy": lambda d: dict(d),
    "dict": lambda d: dict(d) if isinstance(d, dict) else dict(cast(list[tuple[Any, Any]], d)),
    "Delete": _dict_delete,
}
"""Dict operators by base name, whatever the key type (the first argument is the dict)."""

_LIST_FAMILY: dict[str, Builtin] = {
    "__contains__": lambda seq, v: any(_equal(x, v) for x in seq),
    "remove": _remove,
    "index": _list_index,
    "count": lambda seq, v: sum(1 for x in seq if _equal(x, v)),
    "sort": _sort,
    "sorted": lambda seq: sorted(seq),
    "eq": _list_eq,
    "ne": lambda a, b: not _list_eq(a, b),
    "min": lambda a, b=None: min(a) if b is None else min(a, b),
    "max": lambda a, b=None: max(a) if b is None else max(a, b),
}
"""Operators on typed lists (`__contains__.int_list`, `remove.str`, `eq.int_list`, `min.self_int`)."""


# ---------------------------------------------------------------------------
# lookup
# ---------------------------------------------------------------------------

_TABLE: dict[str, Builtin] = {**_LIST_BUILTINS, **_MISC_BUILTINS}


def _return_name(schema: FunctionSchema) -> str | None:
    if len(schema.returns) != 1:
        return None
    return _base_name(schema.returns[0].type)


def builtin_for(name: str, schema: FunctionSchema) -> Builtin | None:
    """The implementation of the overload `name` (`aten::add.int`), or None if there is none."""
    fn = _TABLE.get(name)
    if fn is not None:
        return fn
    base = schema.name
    args = schema.arguments
    ret = _return_name(schema)
    first = args[0].type if args else None
    if first is not None and first.kind is not TypeKind.LIST and first.name == "Dict" and base in _DICT_FAMILY:
        return _DICT_FAMILY[base]
    if base == "dict" and first is not None and first.kind is TypeKind.LIST:
        return _DICT_FAMILY["dict"]
    if first is not None and first.kind is TypeKind.LIST and base in _LIST_FAMILY:
        return _LIST_FAMILY[base]
    scalar_args = all(_is_number_type(a.type) for a in args)
    if ret is None or not scalar_args and base not in _COMPARISONS:
        return None
    cast_result = _cast_to(ret)
    if len(args) == 2 and base in _COMPARISONS and ret == "bool":
        cmp = _COMPARISONS[base]
        if all(_base_name(a.type) in ("str", "Device", "bool", *_NUMBER_TYPES) for a in args):
            return lambda a, b: bool(cmp(a, b))
        return None
    if len(args) == 2 and base in _NUMBER_BINARY and scalar_args:
        fn2 = _int_pow if base == "pow" and ret == "int" else _NUMBER_BINARY[base]
        return lambda a, b: cast_result(fn2(a, b))
    if len(args) == 1 and base in _NUMBER_UNARY and scalar_args:
        fn1 = _NUMBER_UNARY[base]
        if base in ("floor", "ceil") and ret == "int":
            return lambda a: _checked_int(fn1(a))
        return lambda a: cast_result(fn1(a))
    if len(args) == 1 and base in ("Int", "Float", "Bool", "Complex", "ScalarImplicit") and scalar_args:
        return cast_result
    return None
