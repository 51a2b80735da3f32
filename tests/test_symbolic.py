"""Symbolic sizes: both spellings parse to the same sympy expression and print back."""

from __future__ import annotations

import pytest
import sympy

from xdsl_exir.utils.symbolic import (
    FloorDiv,
    SymExprError,
    make_symbol,
    parse_python_expr,
    print_expr,
    print_python_expr,
)

s0, s1 = make_symbol("s0"), make_symbol("s1")

CASES = [
    ("s0", "s0", s0),
    ("2*s0 + 1", "2*s0 + 1", 2 * s0 + 1),
    ("((s0 - 3)//2) + 1", "(s0 - 3) floordiv 2 + 1", FloorDiv(s0 - 3, 2) + 1),
    ("Max(1, s0)", "max(1, s0)", sympy.Max(1, s0)),
    ("Mod(s0, 4)*2", "2*(s0 mod 4)", 2 * sympy.Mod(s0, 4)),
    ("s0*s1 - 4", "s0*s1 - 4", s0 * s1 - 4),
    ("(s0 + 1)**2", "(s0 + 1)**2", (s0 + 1) ** 2),
    ("2*(s0//2)", "2*(s0 floordiv 2)", 2 * FloorDiv(s0, 2)),
    ("-s0", "-s0", -s0),
]


@pytest.mark.parametrize(("python", "ir", "expected"), CASES)
def test_spellings_agree(python: str, ir: str, expected: sympy.Expr) -> None:
    parsed = parse_python_expr(python)
    assert parsed == expected
    assert print_expr(parsed) == ir
    assert parse_python_expr(print_python_expr(parsed)) == parsed


def test_floordiv_simplifies_exact_multiples() -> None:
    assert FloorDiv(2 * s0 + 4, 2) == s0 + 2
    assert FloorDiv(s0 + 4, 2) == FloorDiv(s0, 2) + 2
    assert FloorDiv(7, 2) == 3
    assert FloorDiv(-7, 2) == -4  # Python's floor semantics, as torch's SymInt
    assert FloorDiv(s0, 1) == s0


def test_symbols_are_shared() -> None:
    assert make_symbol("u0") is make_symbol("u0")
    assert make_symbol("s0").is_integer


@pytest.mark.parametrize("bad", ["s0 +", "(s0", "2 ** ", "s0 $ 1", "Foo(s0)", ""])
def test_malformed_expressions_are_rejected(bad: str) -> None:
    with pytest.raises(SymExprError):
        parse_python_expr(bad)


def test_no_eval_of_untrusted_text() -> None:
    with pytest.raises(SymExprError):
        parse_python_expr("__import__('os').system('true')")
