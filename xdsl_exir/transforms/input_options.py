"""
The options that type a program's inputs from the command line, shared by the
passes that take them: `torchscript-to-exir` and `shape-propagation`.

* `input-types`: `x=f32[3, 10];h=float32[s0, 20]` (or TorchScript's
  `Float(3, 10)`), exir tensor types by input name; sizes may be symbols or
  expressions of them.
* `ranges`: `s0=[2, 64];s1=[1, inf]`, range constraints of size symbols.

Both passes parse the same spellings with the same messages, so the parsing
lives here, beside them, rather than in one of them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import cast

from xdsl_exir.dialects import ts
from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.utils.symbolic import SymSize, make_symbol, normalize, parse_python_expr, sympy

__all__ = ["InputOptionError", "exir_tensor_type", "parse_input_types", "parse_ranges", "split_entries"]


class InputOptionError(Exception):
    """An option value that cannot be read; the pass reports it as a diagnostic."""


_DTYPE_NAMES: dict[str, DType] = {
    "f16": DType.float16, "half": DType.float16, "bf16": DType.bfloat16,
    "f32": DType.float32, "float": DType.float32, "f64": DType.float64, "double": DType.float64,
    "i8": DType.int8, "i16": DType.int16, "i32": DType.int32, "i64": DType.int64, "long": DType.int64,
    "int": DType.int32, "u8": DType.uint8, "b8": DType.bool, "bool": DType.bool,
    "c64": DType.complex64, "c128": DType.complex128,
}  # fmt: skip
"""Short dtype spellings of `input-types`, besides torch's (`float32`) and TorchScript's (`Float`)."""


def _dtype_named(name: str) -> DType | None:
    if name in _DTYPE_NAMES:
        return _DTYPE_NAMES[name]
    if name in DType.__members__:
        return DType(name)
    return ts.SCALAR_TYPES.get(name)


def split_entries(text: str, what: str) -> Iterator[tuple[str, str]]:
    """The `NAME=VALUE` entries of a `;`-separated option value (`what` names the option in errors)."""
    for entry in text.split(";"):
        entry = entry.strip()
        if not entry:
            continue
        name, eq, spec = entry.partition("=")
        if not eq or not name.strip():
            raise InputOptionError(f"{what}: expected NAME=VALUE, got '{entry}'")
        yield name.strip(), spec.strip()


def parse_input_types(text: str) -> dict[str, TensorType]:
    """
    `x=f32[3,10];h=float32[s0, 20]` (or TorchScript's `Float(3, 10)`) ->
    exir tensor types by input name.
    """
    out: dict[str, TensorType] = {}
    for name, spec in split_entries(text, "input-types"):
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)\s*\[(.*)\]", spec)
        if m is not None and _dtype_named(m.group(1)) is not None:
            dtype = cast(DType, _dtype_named(m.group(1)))
            sizes: list[SymSize] = []
            for item in (s.strip() for s in m.group(2).split(",")):
                if not item:
                    if m.group(2).strip():
                        raise InputOptionError(f"input-types: empty size in '{spec}' for '{name}'")
                    continue
                try:
                    expr = parse_python_expr(item)
                except Exception as e:
                    raise InputOptionError(f"input-types: bad size '{item}' for '{name}': {e}") from None
                renamed = expr.xreplace({s: make_symbol(str(s)) for s in expr.free_symbols})
                sizes.append(normalize(cast(sympy.Expr, renamed)))  # xreplace of an Expr is an Expr
            out[name] = TensorType(sizes, dtype)
            continue
        try:
            t = ts.parse_ts_type(spec)
        except ts.TSTypeError:
            t = None
        exir_t = exir_tensor_type(t) if isinstance(t, ts.TSTensorType) else None
        if exir_t is not None:
            out[name] = exir_t
            continue
        raise InputOptionError(
            f"input-types: cannot read '{spec}' for '{name}'; write DTYPE[SIZES], e.g. f32[3, 10] or "
            "float32[s0, 4] (dtypes: f16, bf16, f32, f64, i8, i16, i32, i64, u8, bool or torch's names)"
        )
    return out


def parse_ranges(text: str) -> dict[sympy.Symbol, tuple[int | float, int | float]]:
    """`s0=[2,64];s1=[1,inf]` -> symbol ranges."""
    out: dict[sympy.Symbol, tuple[int | float, int | float]] = {}
    for name, spec in split_entries(text, "ranges"):
        m = re.fullmatch(r"\[\s*(-?\d+)\s*,\s*(-?\d+|inf)\s*\]", spec)
        if m is None:
            raise InputOptionError(f"ranges: expected {name}=[MIN, MAX] (MAX may be inf), got '{spec}'")
        upper = math.inf if m.group(2) == "inf" else int(m.group(2))
        out[make_symbol(name)] = (int(m.group(1)), upper)
    return out


def exir_tensor_type(t: ts.TSTensorType) -> TensorType | None:
    """
    The exir type of a refined TorchScript tensor type, None unless dtype and
    sizes are known. Strides are dropped: Export IR types are dense, and the
    interpreter's arrays carry their own layout.
    """
    shape = t.shape
    dtype = t.dtype
    if dtype is None or shape is None or any(d is None for d in shape):
        return None
    return TensorType([cast(int, d) for d in shape], dtype, t.device_name or "cpu")
