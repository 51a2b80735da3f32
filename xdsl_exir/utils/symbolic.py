"""
Symbolic sizes: sympy expressions over named integer symbols (`s0`, `u0`).

PyTorch describes dynamic shapes with sympy; we keep the same representation so a
size read from a `.pt2` archive, a range constraint and a shape computed by type
inference are the same kind of object and compare with `==`.

Two textual spellings exist and both are parsed by the one grammar below:

* the IR spelling, made of MLIR tokens (`//` starts a comment in MLIR, so floor
  division is written `floordiv`, like affine maps): `(s0 - 3) floordiv 2 + 1`;
* the Python spelling PyTorch itself prints and serializes:
  `((s0 - 3)//2) + 1`, `FloorDiv(s0, 2)`, `Max(1, s0)`, `Mod(s0, 4)`.

Neither path ever calls `eval`: serialized archives are untrusted input.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

from xdsl_exir.utils.lazy_modules import is_loaded, lazy

if TYPE_CHECKING:
    import sympy
else:
    sympy = lazy("sympy")  # loaded by the first symbolic size: static-shape programs never import it

__all__ = [
    "FloorDiv",
    "SymExprError",
    "SymSize",
    "free_symbol_names",
    "is_static",
    "make_symbol",
    "parse_python_expr",
    "parse_tokens",
    "print_expr",
    "print_python_expr",
    "to_sym",
]


@lru_cache(maxsize=1)
def _floordiv_class() -> type[sympy.Function]:
    """`FloorDiv`, defined on first use: a sympy class cannot exist before sympy is loaded."""

    class FloorDiv(sympy.Function):
        """Integer floor division, kept unevaluated on symbols so it prints back."""

        is_integer = True

        @classmethod
        def eval(cls, base: sympy.Expr, divisor: sympy.Expr) -> sympy.Expr | None:
            return _floordiv_eval(cls, base, divisor)

    return FloorDiv


if TYPE_CHECKING:
    FloorDiv: type[sympy.Function]


def __getattr__(name: str) -> Any:
    # PEP 562: `symbolic.FloorDiv` is the class made on first use (see `_floordiv_class`).
    if name == "FloorDiv":
        return _floordiv_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def is_floordiv(expr: object) -> bool:
    """Whether `expr` is a `FloorDiv` term (never true before sympy is loaded)."""
    return is_loaded("sympy") and isinstance(expr, _floordiv_class())


def _floordiv_eval(cls: type[sympy.Function], base: sympy.Expr, divisor: sympy.Expr) -> sympy.Expr | None:
    if divisor == 0:
        raise ZeroDivisionError("floor division by zero in a symbolic size")
    if base.is_Integer and divisor.is_Integer:
        return sympy.Integer(int(base) // int(divisor))
    if divisor == 1:
        return base
    if base == 0:
        return sympy.Integer(0)
    if divisor.is_Integer:
        d = int(divisor)
        # Pull out terms that are integer multiples of the divisor:
        # floor((a + k*d) / d) == floor(a / d) + k for integer a, k.
        exact: list[sympy.Expr] = []
        rest: list[sympy.Expr] = []
        for term in sympy.Add.make_args(base):
            coeff, other = term.as_coeff_Mul()
            if coeff.is_Integer and int(coeff) % d == 0 and other.is_integer:
                exact.append(sympy.Integer(int(coeff) // d) * other)
            else:
                rest.append(term)
        if exact:
            remainder = sympy.Add(*rest)
            return sympy.Add(*exact) + (cls(remainder, divisor) if rest else 0)
    return None


def floordiv(a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
    """`FloorDiv(a, b)` typed as the expression it is (sympy's stubs type a Function call as a class)."""
    return cast(sympy.Expr, _floordiv_class()(a, b))


def ceildiv(a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
    """Ceiling division as torch's sympy printer spells it, `-((-a) // b)`."""
    return -floordiv(-a, b)


if TYPE_CHECKING:
    SymSize = int | sympy.Expr
    """One dimension of a tensor: a Python int or a sympy expression."""
else:
    SymSize = "int | sympy.Expr"  # the alias as text: spelling the union would load sympy


@lru_cache(maxsize=4096)
def make_symbol(name: str) -> sympy.Symbol:
    """All size symbols are created here, so equal names are equal symbols."""
    return sympy.Symbol(name, integer=True)


def to_sym(value: SymSize) -> sympy.Expr:
    if isinstance(value, int):
        return sympy.Integer(value)
    return value


def is_static(value: SymSize) -> bool:
    return isinstance(value, int) or bool(getattr(value, "is_Integer", False))


def free_symbol_names(values: Iterable[SymSize]) -> set[str]:
    names: set[str] = set()
    for v in values:
        if not isinstance(v, int):
            names.update(s.name for s in v.free_symbols)  # pyright: ignore[reportAttributeAccessIssue] - free symbols are sympy Symbols, typed Basic
    return names


def normalize(value: SymSize) -> SymSize:
    """Plain ints for constant sizes, so `[2, 3]` is not `[Integer(2), ...]`."""
    if isinstance(value, int):
        return value  # without touching sympy, which a static shape never loads
    if value.is_Integer:
        return int(value)
    return value


class SymExprError(ValueError):
    """A malformed expression; `index` is the offending token's position."""

    def __init__(self, message: str, index: int) -> None:
        super().__init__(message)
        self.index = index


@dataclass(frozen=True)
class Tok:
    """A token of either spelling: kind is 'int', 'name', 'op' or 'end'."""

    kind: str
    text: str


@lru_cache(maxsize=1)
def _funcs() -> dict[str, Callable[..., sympy.Expr]]:
    """The functions of both spellings, by name (built when sympy is loaded)."""
    return {
        "max": sympy.Max,
        "min": sympy.Min,
        "Max": sympy.Max,
        "Min": sympy.Min,
        "FloorDiv": floordiv,
        "floordiv": floordiv,
        "Mod": sympy.Mod,
        "PythonMod": sympy.Mod,
        "mod": sympy.Mod,
        "CeilDiv": ceildiv,
        "CleanDiv": floordiv,
        "IntTrueDiv": lambda a, b: a / b,
    }

_BINARY_WORDS = {"floordiv": "//", "mod": "%", "ceildiv": "ceildiv"}


MAX_INT_DIGITS = 100
"""Sizes are int64 in torch; an integer literal this long is an error, not a size."""

_MAX_POWER_BITS = 4096
"""Integer powers computed while parsing stay below this many bits."""


def checked_pow(base: sympy.Expr, exponent: sympy.Expr, index: int = 0) -> sympy.Expr:
    """`base**exponent`; sympy computes integer powers exactly, so `9**9**9` is refused, not computed."""
    if base.is_Integer and exponent.is_Integer and abs(int(base)) > 1:
        if abs(int(exponent)) * abs(int(base)).bit_length() > _MAX_POWER_BITS:
            raise SymExprError("integer power too large in symbolic expression", index)
    return base**exponent


def parse_tokens(tokens: Sequence[Tok], allow_infinity: bool = False) -> sympy.Expr:
    """Pratt-style parser over a token list (the shared grammar)."""
    pos = 0

    def peek() -> Tok:
        return tokens[pos] if pos < len(tokens) else Tok("end", "")

    def take() -> Tok:
        nonlocal pos
        tok = peek()
        pos += 1
        return tok

    def expect(text: str) -> None:
        tok = take()
        if tok.text != text:
            raise SymExprError(f"expected '{text}' in symbolic expression", pos - 1)

    def binary_op(tok: Tok) -> str | None:
        if tok.kind == "op" and tok.text in ("+", "-", "*", "//", "%", "**"):
            return tok.text
        if tok.kind == "name" and tok.text in _BINARY_WORDS:
            return _BINARY_WORDS[tok.text]
        return None

    def expression() -> sympy.Expr:
        result = term()
        while (op := binary_op(peek())) in ("+", "-"):
            take()
            rhs = term()
            result = result + rhs if op == "+" else result - rhs
        return result

    def term() -> sympy.Expr:
        result = unary()
        while (op := binary_op(peek())) in ("*", "//", "%", "ceildiv"):
            take()
            rhs = unary()
            if op == "*":
                result = result * rhs
            elif op == "//":
                result = floordiv(result, rhs)
            elif op == "%":
                result = sympy.Mod(result, rhs)
            else:
                result = ceildiv(result, rhs)
        return result

    def unary() -> sympy.Expr:
        if peek().kind == "op" and peek().text == "-":
            take()
            return -unary()
        if peek().kind == "op" and peek().text == "+":
            take()
            return unary()
        return power()

    def power() -> sympy.Expr:
        base = atom()
        if binary_op(peek()) == "**":
            at = pos
            take()
            return checked_pow(base, unary(), at)
        return base

    def atom() -> sympy.Expr:
        tok = take()
        if tok.kind == "int":
            if len(tok.text) > MAX_INT_DIGITS:
                raise SymExprError(f"integer of {len(tok.text)} digits in symbolic expression", pos - 1)
            return sympy.Integer(int(tok.text))
        if tok.kind == "op" and tok.text == "(":
            inner = expression()
            expect(")")
            return inner
        if tok.kind == "name":
            if tok.text in ("inf", "oo", "int_oo") and allow_infinity:
                return sympy.oo
            if peek().text == "(" and tok.text in _funcs():
                take()
                args = [expression()]
                while peek().text == ",":
                    take()
                    args.append(expression())
                expect(")")
                return _funcs()[tok.text](*args)
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", tok.text) is None:
                raise SymExprError(f"'{tok.text}' is not a symbol name", pos - 1)
            return make_symbol(tok.text)
        what = "end of expression" if tok.kind == "end" else f"'{tok.text}'"
        raise SymExprError(f"unexpected {what} in symbolic expression", pos - 1)

    result = expression()
    if pos != len(tokens):
        raise SymExprError(f"unexpected '{tokens[pos].text}' after expression", pos)
    return result


_PY_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(\*\*|//|[-+*%(),]))")


@lru_cache(maxsize=4096)
def parse_python_expr(text: str, allow_infinity: bool = False) -> sympy.Expr:
    """Parse PyTorch's own spelling of a size expression (as in `.pt2` archives)."""
    tokens: list[Tok] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _PY_TOKEN.match(text, pos)
        if m is None:
            raise SymExprError(f"cannot read '{text[pos:].strip()}'", len(tokens))
        if m.group(1):
            tokens.append(Tok("int", m.group(1)))
        elif m.group(2):
            tokens.append(Tok("name", m.group(2)))
        else:
            tokens.append(Tok("op", m.group(3)))
        pos = m.end()
    return parse_tokens(tokens, allow_infinity)


# Printing ------------------------------------------------------------------

_PREC_ADD, _PREC_MUL, _PREC_UNARY, _PREC_POW, _PREC_ATOM = 1, 2, 3, 4, 5


def _print(expr: sympy.Expr, python: bool) -> tuple[str, int]:
    if expr.is_Integer:
        value = int(expr)
        return str(value), (_PREC_ATOM if value >= 0 else _PREC_UNARY)
    if expr is sympy.oo:
        return ("int_oo" if python else "inf"), _PREC_ATOM
    if expr is sympy.S.NegativeInfinity:  # an unbounded range's lower end
        return ("-int_oo" if python else "-inf"), _PREC_UNARY
    if expr.is_Symbol:
        return expr.name, _PREC_ATOM  # pyright: ignore[reportAttributeAccessIssue] - is_Symbol above: a Symbol, typed Expr
    if expr.is_Add:
        terms = cast(list[sympy.Expr], expr.as_ordered_terms())
        text = _wrap(terms[0], _PREC_ADD, python)
        for t in terms[1:]:
            coeff, rest = t.as_coeff_Mul()
            if coeff.is_Number and coeff < 0:
                text += " - " + _wrap(-t, _PREC_MUL, python)
            else:
                text += " + " + _wrap(t, _PREC_MUL, python)
        return text, _PREC_ADD
    if expr.is_Mul:
        coeff, rest = expr.as_coeff_Mul()
        if coeff == -1:
            return "-" + _wrap(rest, _PREC_UNARY, python), _PREC_UNARY
        factors = sympy.Mul.make_args(expr)
        return "*".join(_wrap(f, _PREC_UNARY, python) for f in factors), _PREC_MUL
    if expr.is_Pow:
        base, exp = cast(tuple[sympy.Expr, sympy.Expr], expr.args)
        return (
            _wrap(base, _PREC_ATOM, python) + "**" + _wrap(exp, _PREC_ATOM, python),
            _PREC_POW,
        )
    if is_floordiv(expr) or isinstance(expr, sympy.Mod):
        a, b = cast(tuple[sympy.Expr, sympy.Expr], expr.args)
        word = ("//" if python else "floordiv") if is_floordiv(expr) else (
            "%" if python else "mod"
        )
        sep = word if python else f" {word} "
        return _wrap(a, _PREC_MUL, python) + sep + _wrap(b, _PREC_UNARY, python), (
            _PREC_MUL
        )
    if isinstance(expr, sympy.Max | sympy.Min):
        name = type(expr).__name__
        name = name if python else name.lower()
        args = ", ".join(_print(cast(sympy.Expr, a), python)[0] for a in expr.args)
        return f"{name}({args})", _PREC_ATOM
    raise ValueError(f"cannot print symbolic size '{expr}'")


def _wrap(expr: sympy.Expr, min_prec: int, python: bool) -> str:
    text, prec = _print(expr, python)
    # Floor division and modulo bind like `*` but are not associative with it:
    # parenthesize them inside any other product.
    if prec < min_prec or (
        min_prec >= _PREC_UNARY and (is_floordiv(expr) or isinstance(expr, sympy.Mod))
    ):
        return f"({text})"
    return text


def print_expr(value: SymSize) -> str:
    """The IR spelling (MLIR tokens only)."""
    if isinstance(value, int):
        return str(value)
    return _print(value, python=False)[0]


def print_python_expr(value: SymSize) -> str:
    """PyTorch's spelling, e.g. for FX text and generated Python."""
    if isinstance(value, int):
        return str(value)
    return _print(value, python=True)[0]
