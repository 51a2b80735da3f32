"""
Fixes of the pinned xDSL (0.74) that the tools' promises depend on, applied
when `xdsl_exir` is imported (so also inside the stock `xdsl-opt`). Each keeps
the language xDSL accepts and only removes a failure; `apply()` is idempotent.

- The lexer matches a string literal with `"(?:[^"\\\n\v\f]+|\\(...))*"`: a `+`
  inside a `*`, so on a string that is never closed (`"aten.add.Tensor(%x)` with
  a quote forgotten) the regex engine tries every way to split the characters
  into runs before it gives up: seconds at 25 characters, forever at 70. The
  same language with possessive quantifiers (Python 3.11) never backtracks, so
  an unclosed string fails at once and a long closed one (a `#exir.blob` of
  weights) lexes as fast as before.
- The printer escapes every non-ASCII character of a string (`"é"` prints as
  `"\C3\A9"`), but the lexer reads an escaped non-ASCII string as a bytes
  literal, so printed IR with a non-ASCII file name in a location, op name or
  attribute key did not parse again, and a string attribute came back as
  `BytesAttr`. As its docstring says it should, the lexer now reads an escaped
  literal whose bytes are UTF-8 as a string (the two print alike anyway).
- A value name hint loses a `_<digits>` suffix, so `%_1` (valid MLIR, and a
  TorchScript dump's name for a Python variable `_1`) gets the empty hint `""`,
  which xDSL's own `replace_all_uses_with` then refuses to copy: every pass that
  replaces such a value failed. A hint that would be empty is no hint.
"""

from __future__ import annotations

import re
from typing import Any

from xdsl.ir import SSAValue
from xdsl.utils.lexer import Position, Token
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken, MLIRTokenKind, StringLiteral

__all__ = ["apply"]

_STRING_LITERAL = re.compile(r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"')

_extract_valid_name = SSAValue.extract_valid_name.__func__  # pyright: ignore[reportFunctionMemberAccess]


def _no_empty_hint(cls: type[SSAValue], name: str | None) -> str | None:
    return _extract_valid_name(cls, name) or None


_lex_string_literal = MLIRLexer._lex_string_literal  # pyright: ignore[reportPrivateUsage]


def _utf8_is_string(self: MLIRLexer, start_pos: Position) -> MLIRToken:
    token = _lex_string_literal(self, start_pos)
    if token.kind is MLIRTokenKind.BYTES_LIT:
        try:
            StringLiteral.from_span(token.span).bytes_contents.decode("utf-8")
        except UnicodeDecodeError:
            return token
        return Token(MLIRTokenKind.STRING_LIT, token.span)
    return token


def apply() -> None:
    """Install the fixes."""
    MLIRLexer._unescaped_characters_regex = _STRING_LITERAL  # pyright: ignore[reportPrivateUsage]
    fixed: Any = classmethod(_no_empty_hint)
    SSAValue.extract_valid_name = fixed
    if MLIRLexer._lex_string_literal is _lex_string_literal:  # pyright: ignore[reportPrivateUsage]
        MLIRLexer._lex_string_literal = _utf8_is_string  # pyright: ignore[reportPrivateUsage]
