"""
Every suppression names what it suppresses and says why.

A bare `# noqa` or `# pyright: ignore` hides whatever a later edit breaks on the same line,
and one without a reason cannot be judged by the next reader. So each one here names its
rules and carries a reason after ` - `:

    x = lambda: 1  # noqa: E731 - a one-line closure, named for the call below
    p._current_token  # pyright: ignore[reportPrivateUsage] - no public way to peek in xDSL 0.74

`# type: ignore` is refused: pyright, the project's checker (`make lint`), reads it as "ignore
everything on this line" whatever its brackets say. A rule turned off for a whole file
(`# pyright: reportX=false`) takes no text after its value (pyright refuses the directive
then), so its reason is the comment line right above it.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ("xdsl_exir", "tests", "scripts", "benchmarks")

_DIRECTIVE = re.compile(r"\b(?:noqa|type:\s*ignore|pyright:\s*(?:ignore|report))", re.IGNORECASE)
_REASON = r" - \S.{8,}"
_NOQA = re.compile(r"(?:ruff: )?noqa: [A-Z]+[0-9]+(?:, [A-Z]+[0-9]+)*" + _REASON)
_PYRIGHT_IGNORE = re.compile(r"pyright: ignore\[report[A-Za-z]+(?:, report[A-Za-z]+)*\]" + _REASON)
_PYRIGHT_RULE = re.compile(r"pyright: report[A-Za-z]+=(?:false|none|warning|information)")


def suppression_problem(comment: str, above: str | None = None) -> str | None:
    """
    What is wrong with the suppressions in one comment, or None if each names its rules and
    reason; `above` is the comment on the line above, if any (a file-wide rule's reason).
    """
    if _PYRIGHT_RULE.fullmatch(comment.lstrip("# ").rstrip()):
        if above is None or _DIRECTIVE.search(above) or len(above.strip("# ")) < 10:
            return "a rule turned off for the file gives its reason on the comment line above it"
        return None
    found = list(_DIRECTIVE.finditer(comment))
    for i, m in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(comment)
        text = comment[m.start() : end].rstrip(" #")
        if m.group(0).lower().startswith("type"):
            return "`type: ignore` silences every rule of pyright: write `pyright: ignore[<rule>] - <reason>`"
        if text.lower().startswith("noqa") and m.start() >= 6 and comment[m.start() - 6 : m.start()] == "ruff: ":
            text = "ruff: " + text
        if not (_NOQA.fullmatch(text) or _PYRIGHT_IGNORE.fullmatch(text)):
            return "name the rules and give a reason: `# noqa: E731 - why` or `# pyright: ignore[reportX] - why`"
    return None


def _python_files() -> list[Path]:
    return sorted(p for d in CHECKED for p in (ROOT / d).rglob("*.py") if "__pycache__" not in p.parts)


def _comments(path: Path) -> list[tuple[int, str]]:
    """The comments of a file (never text inside strings), with their line numbers."""
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    return [(t.start[0], t.string) for t in tokens if t.type == tokenize.COMMENT]


def test_every_suppression_names_its_rules_and_reason() -> None:
    files = _python_files()
    assert len(files) > 100
    problems = []
    for path in files:
        comments = _comments(path)
        lines = dict(comments)
        for line, comment in comments:
            if _DIRECTIVE.search(comment) and (problem := suppression_problem(comment, lines.get(line - 1))) is not None:
                problems.append(f"{path.relative_to(ROOT)}:{line}: {comment}\n    {problem}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    "comment",
    [
        "# noqa: E731 - a one-line closure, named for the call below",
        "# noqa: E402, F401 - after importorskip, so the module skips without torch",
        "# pyright: ignore[reportPrivateUsage] - no public way to peek at a token",
        "# pyright: ignore[reportCallIssue, reportArgumentType] - typed object by its table",
        "# ruff: noqa: E501 - generated tables, one entry a line",
        "# an explanation that mentions no suppression at all",
    ],
)
def test_accepted(comment: str) -> None:
    assert suppression_problem(comment) is None


def test_file_wide_rule_needs_its_reason_above() -> None:
    rule = "# pyright: reportPrivateUsage=false"
    assert suppression_problem(rule, "# The one module that reaches into xDSL's internals:") is None
    assert suppression_problem(rule) is not None
    assert suppression_problem(rule, "# why") is not None
    assert suppression_problem(rule, "# pyright: reportCallIssue=false") is not None
    assert suppression_problem(rule + " - pyright refuses text after the value") is not None


@pytest.mark.parametrize(
    "comment",
    [
        "# noqa",
        "# noqa: E731",
        "# noqa: E731 (the reason in brackets)",
        "# noqa: E731 - short",
        "# pyright: ignore",
        "# pyright: ignore[reportPrivateUsage]",
        "# pyright: ignore[reportPrivateUsage]  (no public lookup)",
        "# type: ignore[arg-type] - the reason does not make it specific",
        "# type: ignore",
        "# noqa: E402 - after importorskip, so the module skips  # pyright: ignore",
    ],
)
def test_refused(comment: str) -> None:
    assert suppression_problem(comment) is not None
