"""
`--verify-diagnostics` as mlir-opt has it: the input says which diagnostics it
expects, in comments, and the run fails unless exactly those are produced.

    %r = exir.sym_mul %a, 3 : ... // expected-error {{result is recorded as}}
    // expected-error@+1 {{unknown operator}}
    %s = exir.call_function "aten.nope"(%x) : ...
    // expected-error@-2 {{...}}    (two lines up), @above / @below (the line above / below)
    // expected-warning {{...}}, expected-note {{...}}, expected-remark {{...}}

An expectation matches a diagnostic of its severity on its line whose message
contains the text between the braces. Every diagnostic nobody expected and
every expectation that nothing produced is reported, each on its own line, the
way mlir-opt words them, and the run then exits with code 1. As with mlir-opt,
an input with no `expected-*` comment expects no diagnostic: any error fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Diagnostic", "Expectation", "check", "parse_expectations", "split_location"]

_EXPECTED = re.compile(
    r"//\s*expected-(?P<kind>error|warning|note|remark)(?:@(?P<where>[+-]\d+|above|below|\d+))?\s*(?P<rest>.*)"
)
_TEXT = re.compile(r"\{\{(.*?)\}\}")
_LOCATION = re.compile(r"^(?P<file>[^\n]*?):(?P<line>\d+):(?P<col>\d+): ", re.DOTALL)


@dataclass
class Expectation:
    """One `expected-<kind>` comment: the line it is about and the text it wants."""

    kind: str
    line: int
    text: str
    comment_line: int
    matched: bool = False


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic the run produced (`line` 0 when it names no line)."""

    kind: str
    line: int
    col: int
    message: str


def parse_expectations(text: str, line_offset: int = 0) -> tuple[list[Expectation], list[str]]:
    """
    The expectations of `text` (a chunk starting `line_offset` lines into the
    file), and the malformed ones as messages (`file` is not known here).
    """
    found: list[Expectation] = []
    errors: list[str] = []
    for index, line_text in enumerate(text.splitlines()):
        line = index + 1 + line_offset
        m = _EXPECTED.search(line_text)
        if m is None:
            continue
        texts = _TEXT.match(m.group("rest").strip())
        if texts is None:
            errors.append(f"{line}: expected '{{{{' in the expected-{m.group('kind')} directive")
            continue
        where = m.group("where")
        target = line
        if where in ("above", "below"):
            target = line - 1 if where == "above" else line + 1
        elif where is not None and where[0] in "+-":
            target = line + int(where)
        elif where is not None:
            target = int(where)
        found.append(Expectation(m.group("kind"), target, texts.group(1), line))
    return found, errors


def split_location(message: str) -> tuple[int, int, str]:
    """`file:line:col: rest` -> (line, col, rest); (0, 0, message) without a location."""
    m = _LOCATION.match(message)
    if m is None:
        return 0, 0, message
    return int(m.group("line")), int(m.group("col")), message[m.end() :]


def check(file: str, expectations: list[Expectation], produced: list[Diagnostic]) -> list[str]:
    """mlir-opt's messages for every mismatch; empty when all is as expected."""
    problems: list[str] = []
    for diag in produced:
        match = next(
            (
                e
                for e in expectations
                if not e.matched and e.kind == diag.kind and e.line == diag.line and e.text in diag.message
            ),
            None,
        )
        if match is None:
            where = f"{file}:{diag.line}:{diag.col}" if diag.line else file
            first = diag.message.splitlines()[0] if diag.message else ""
            problems.append(f"{where}: error: unexpected {diag.kind}: {first}")
        else:
            match.matched = True
    for e in expectations:
        if not e.matched:
            problems.append(f'{file}:{e.comment_line}: error: expected {e.kind} "{e.text}" was not produced')
    return problems
