"""
The tokenizer of the schema language: identifiers, numbers, string literals (with the escapes
torch's lexer accepts) and punctuation, each token with its column, and `SchemaParseError`, the
one error of malformed schema text.
"""

from __future__ import annotations

from typing import NamedTuple

# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


class SchemaParseError(ValueError):
    """A schema or type string is malformed; ``column`` locates the problem.

    ``column`` is the 0-based character offset into ``text`` (the string that
    was being parsed) of the token at which parsing failed.
    """

    message: str
    column: int
    text: str

    def __init__(self, message: str, column: int, text: str = "") -> None:
        self.message = message
        self.column = column
        self.text = text
        rendered = f"{message} (at column {column})"
        if text:
            rendered += f"\n    {text}\n    {' ' * column}^"
        super().__init__(rendered)

    def __reduce__(self) -> tuple[type[SchemaParseError], tuple[str, int, str]]:
        # Keep message/column/text when the error crosses a process boundary.
        return (SchemaParseError, (self.message, self.column, self.text))


# --------------------------------------------------------------------------
# Tokenizer
# --------------------------------------------------------------------------


class Token(NamedTuple):
    kind: str
    """``ident``, ``number``, ``string``, ``eof`` or the punctuation itself."""
    text: str
    start: int
    end: int
    value: str
    """Decoded contents for ``string`` tokens, the text otherwise."""


_IDENT_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_IDENT_CHARS = _IDENT_START | frozenset("0123456789")
_DIGITS = frozenset("0123456789")
_OCTAL = frozenset("01234567")
_WHITESPACE = frozenset(" \t\r\n")
_SINGLE_PUNCT = frozenset("()[],*?!|=+")
_STRING_ESCAPES_IN = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}


def describe(token: Token) -> str:
    if token.kind == "eof":
        return "end of input"
    if token.kind in ("ident", "number", "string"):
        return f"{token.kind} {token.text!r}"
    return repr(token.text)


_MULTI_PUNCT = ("...", "->", "::")
"""Punctuation longer than one character."""


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens with one left-to-right scan."""
    tokens: list[Token] = []
    append = tokens.append
    n = len(text)
    i = 0
    while i < n:
        c = text[i]
        if c in _WHITESPACE:
            i += 1
            continue
        start = i
        if c in _IDENT_START:
            i += 1
            while i < n and text[i] in _IDENT_CHARS:
                i += 1
            word = text[start:i]
            append(Token("ident", word, start, i, word))
        elif c in _SINGLE_PUNCT:
            i += 1
            append(Token(c, c, start, i, c))
        elif c in _DIGITS or (c == "." and i + 1 < n and text[i + 1] in _DIGITS):
            i = _scan_number(text, i)
            word = text[start:i]
            append(Token("number", word, start, i, word))
        elif c in ".-:":
            # `...`, `->` and `::` before their one-character prefixes.
            punct = next((m for m in _MULTI_PUNCT if text.startswith(m, i)), c)
            i += len(punct)
            append(Token(punct, punct, start, i, punct))
        elif c == '"' or c == "'":
            i, decoded = _scan_string(text, i)
            append(Token("string", text[start:i], start, i, decoded))
        else:
            raise SchemaParseError(f"unexpected character {c!r}", i, text)
    append(Token("eof", "", n, n, ""))
    return tokens


def _scan_number(text: str, i: int) -> int:
    """Return the end of the numeric literal starting at ``i``."""
    n = len(text)
    start = i
    while i < n and text[i] in _DIGITS:
        i += 1
    if i < n and text[i] == "." and not text.startswith("...", i):
        i += 1
        while i < n and text[i] in _DIGITS:
            i += 1
    if i < n and text[i] in "eE":
        j = i + 1
        if j < n and text[j] in "+-":
            j += 1
        if j < n and text[j] in _DIGITS:
            i = j
            while i < n and text[i] in _DIGITS:
                i += 1
        else:
            raise SchemaParseError("malformed exponent in number", start, text)
    if i < n and text[i] in "jJ":
        i += 1
    if i < n and text[i] in _IDENT_CHARS:
        raise SchemaParseError("malformed number", start, text)
    return i


def _scan_string(text: str, i: int) -> tuple[int, str]:
    """Return the end and decoded value of the string literal starting at ``i``."""
    n = len(text)
    quote = text[i]
    start = i
    i += 1
    chunk_start = i
    parts: list[str] = []
    while True:
        if i >= n:
            raise SchemaParseError("unterminated string literal", start, text)
        c = text[i]
        if c == quote:
            parts.append(text[chunk_start:i])
            return i + 1, "".join(parts)
        if c == "\n":
            raise SchemaParseError("newline in string literal", i, text)
        if c != "\\":
            i += 1
            continue
        parts.append(text[chunk_start:i])
        if i + 1 >= n:
            raise SchemaParseError("unterminated string literal", start, text)
        e = text[i + 1]
        simple = _STRING_ESCAPES_IN.get(e)
        if simple is not None:
            parts.append(simple)
            i += 2
        elif e in _OCTAL:
            j = i + 1
            while j < n and j < i + 4 and text[j] in _OCTAL:
                j += 1
            parts.append(chr(int(text[i + 1 : j], 8)))
            i = j
        else:
            raise SchemaParseError(f"unsupported escape sequence '\\{e}'", i, text)
        chunk_start = i
