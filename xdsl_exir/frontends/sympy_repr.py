"""
Symbolic sizes as `.pt2` archives spell them: sympy's `srepr` form,
`Mul(Integer(2), Symbol('s77', positive=True, integer=True))`.

torch reads these back with `sympy.sympify`, i.e. `eval`. Archives are untrusted,
so this module parses the same text with a small recursive-descent parser and
builds the expression from a fixed table of constructors; nothing is evaluated.
Symbols are made by `make_symbol`, so they are the ones the rest of xdsl-exir
uses (their torch assumptions such as `positive=True` are dropped).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from xdsl_exir.utils.symbolic import (
    MAX_INT_DIGITS,
    SymExprError,
    ceildiv,
    checked_pow,
    floordiv,
    make_symbol,
    sympy,
)

__all__ = ["parse_sympy_repr"]

_TOKEN = re.compile(
    r"\s*(?:"
    r"(?P<float>\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)"
    r"|(?P<int>\d+)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<string>'[^'\\]*'|\"[^\"\\]*\")"
    r"|(?P<punct>[-(),=])"
    r")"
)

_MAX_DEPTH = 256
_MAX_LENGTH = 1 << 16

if TYPE_CHECKING:
    Value = sympy.Basic | int | float | str | bool
else:
    Value = "sympy.Basic | int | float | str | bool"  # as text: sympy loads with the first expression read


def _modular_indexing(a: sympy.Expr, b: sympy.Expr, c: sympy.Expr) -> sympy.Expr:
    return sympy.Mod(floordiv(a, b), c)


@lru_cache(maxsize=1)
def _constructors() -> dict[str, Callable[..., sympy.Basic]]:
    """Constructors applied to already-built sympy arguments (made once sympy is loaded)."""
    return {
        "Add": sympy.Add,
        "Mul": sympy.Mul,
        "Pow": checked_pow,
        "PowByNatural": checked_pow,
        "FloatPow": checked_pow,
        "FloorDiv": floordiv,
        "CleanDiv": floordiv,
        "CeilDiv": ceildiv,
        "IntTrueDiv": lambda a, b: a / b,
        "FloatTrueDiv": lambda a, b: a / b,
        "Mod": sympy.Mod,
        "PythonMod": sympy.Mod,
        "ModularIndexing": _modular_indexing,
        "Max": sympy.Max,
        "Min": sympy.Min,
        "CeilToInt": sympy.ceiling,
        "FloorToInt": sympy.floor,
        "ToFloat": lambda a: a,
        "Identity": lambda a: a,
        "Equality": sympy.Equality,
        "Unequality": sympy.Unequality,
        "StrictLessThan": sympy.StrictLessThan,
        "LessThan": sympy.LessThan,
        "StrictGreaterThan": sympy.StrictGreaterThan,
        "GreaterThan": sympy.GreaterThan,
        "And": sympy.And,
        "Or": sympy.Or,
        "Not": sympy.Not,
    }

_CONSTANTS: dict[str, str] = {"oo": "oo", "int_oo": "oo", "true": "true", "false": "false"}
"""Names of sympy's constants, by their spelling in a repr."""


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens: list[tuple[str, str]] = []
        pos = 0
        text = text.rstrip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                raise SymExprError(f"cannot read '{text[pos:pos + 20].strip()}'", len(self.tokens))
            kind = m.lastgroup
            assert kind is not None
            self.tokens.append((kind, m.group(kind)))
            pos = m.end()
        self.pos = 0

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ("end", "")

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        self.pos += 1
        return tok

    def expect(self, text: str) -> None:
        if self.take()[1] != text:
            raise SymExprError(f"expected '{text}'", self.pos - 1)

    def value(self, depth: int) -> Value:
        if depth > _MAX_DEPTH:
            raise SymExprError("expression nested too deeply", self.pos)
        kind, text = self.take()
        if kind == "punct" and text == "-":
            inner = self.value(depth + 1)
            if isinstance(inner, sympy.Basic | int | float) and not isinstance(inner, bool):
                return -inner  # pyright: ignore[reportOperatorIssue] - sympy.Basic declares no __neg__; the expressions read here all negate
            raise SymExprError("'-' before a non-number", self.pos - 1)
        if kind == "int":
            if len(text.lstrip("-")) > MAX_INT_DIGITS:
                raise SymExprError(f"integer of {len(text)} digits", self.pos - 1)
            return int(text)
        if kind == "float":
            return float(text)
        if kind == "string":
            return text[1:-1]
        if kind == "name":
            if self.peek()[1] == "(":
                self.take()
                return self.call(text, depth)
            if text in ("True", "False"):
                return text == "True"
            if text in _CONSTANTS:
                return getattr(sympy, _CONSTANTS[text])
            raise SymExprError(f"unknown name '{text}'", self.pos - 1)
        what = "end of expression" if kind == "end" else f"'{text}'"
        raise SymExprError(f"unexpected {what}", self.pos - 1)

    def call(self, head: str, depth: int) -> sympy.Basic:
        start = self.pos - 2
        args: list[Value] = []
        kwargs: dict[str, Value] = {}
        if self.peek()[1] != ")":
            while True:
                kind, text = self.peek()
                if (
                    kind == "name"
                    and self.pos + 1 < len(self.tokens)
                    and self.tokens[self.pos + 1][1] == "="
                ):
                    self.pos += 2
                    kwargs[text] = self.value(depth + 1)
                else:
                    args.append(self.value(depth + 1))
                if self.peek()[1] != ",":
                    break
                self.take()
        self.expect(")")
        return _build(head, args, kwargs, start)


def _build(head: str, args: Sequence[Value], kwargs: dict[str, Value], where: int) -> sympy.Basic:
    """Apply one constructor of the table (keyword arguments are assumptions only)."""
    if head == "Symbol":
        if len(args) != 1 or not isinstance(args[0], str):
            raise SymExprError("Symbol takes one name", where)
        name = args[0]
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) is None:
            raise SymExprError(f"'{name}' is not a symbol name", where)
        return make_symbol(name)
    if head == "Integer":
        if len(args) != 1 or type(args[0]) is not int:
            raise SymExprError("Integer takes one integer", where)
        return sympy.Integer(args[0])
    if head == "Rational":
        if len(args) != 2 or any(type(a) is not int for a in args):
            raise SymExprError("Rational takes two integers", where)
        if args[1] == 0:
            raise SymExprError("Rational with a zero denominator", where)
        return sympy.Rational(args[0], args[1])
    if head == "Float":
        if (
            len(args) != 1
            or not isinstance(args[0], str | int | float)
            or isinstance(args[0], bool)
        ):
            raise SymExprError("Float takes one number", where)
        try:
            return sympy.Float(args[0])
        except (ValueError, TypeError):
            raise SymExprError(f"malformed Float {args[0]!r}", where) from None
    fn = _constructors().get(head)
    if fn is None:
        raise SymExprError(f"unsupported function '{head}'", where)
    if kwargs:
        raise SymExprError(f"'{head}' takes no keyword arguments", where)
    values: list[sympy.Basic] = []
    for a in args:
        if isinstance(a, bool):
            values.append(sympy.true if a else sympy.false)
        elif isinstance(a, int):
            values.append(sympy.Integer(a))
        elif isinstance(a, sympy.Basic):
            values.append(a)
        else:
            raise SymExprError(f"'{head}' applied to {a!r}", where)
    try:
        return fn(*values)
    except (TypeError, ValueError, ZeroDivisionError, AttributeError) as e:
        raise SymExprError(f"invalid {head}(...): {e}", where) from None


@lru_cache(maxsize=8192)
def parse_sympy_repr(text: str) -> sympy.Basic:
    """
    The expression `text` spells in sympy's `srepr` form, built without `eval`.

    Raises `SymExprError` for anything outside the supported constructors.
    """
    if len(text) > _MAX_LENGTH:
        raise SymExprError("expression too long", 0)
    parser = _Parser(text)
    result = parser.value(0)
    if parser.pos != len(parser.tokens):
        raise SymExprError(f"unexpected '{parser.peek()[1]}' after the expression", parser.pos)
    if isinstance(result, bool):
        return sympy.true if result else sympy.false
    if isinstance(result, int):
        return sympy.Integer(result)
    if not isinstance(result, sympy.Basic):
        raise SymExprError("not an expression", 0)
    return result
