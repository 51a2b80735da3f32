"""
Every use this package makes of xDSL's private API, in one place.

The pinned xDSL (0.74) keeps a few things private that the dialects' custom
syntax, the blob store and the fixes of `xdsl_fixes.py` need: peeking at and
consuming one token, skipping text the parser read by hand, the resource-handle
parser its own `dense_resource` attribute uses, the builtin blob storage, the
resources a printer saw, and the lexer and parser methods the fixes wrap. Each
accessor below names the upstream change that would let it go; when xDSL is
upgraded, this is the one module to check.

Not accessed here but also tied to xDSL's internals: `ResourceParser`
(`mlir_parser.py`) overrides six of `Parser`'s private methods (the resource
section, one resource entry, the resource handle, the extended type or
attribute, an attribute dictionary's entry, an array attribute) to read blobs
lazily and cache repeated attribute text; upstream hooks for a lazily read
resource section and for attribute caching would remove them. Its other uses of the parser's internals (the
current token, skipping text it read by hand) go through the accessors here.
"""

# The package's one gateway to xDSL's private API (see the docstring), so the rule is off here only:
# pyright: reportPrivateUsage=false

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.parser.attribute_parser import AttrParser
from xdsl.parser.base_parser import BaseParser
from xdsl.printer import Printer
from xdsl.utils.lexer import Position
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken, MLIRTokenKind

__all__ = [
    "blob_storage",
    "consume_token",
    "current_token",
    "install_dense_literal_type",
    "install_string_literal_lexer",
    "original_dense_literal_type",
    "original_string_literal_lexer",
    "parse_resource_handle",
    "parse_token",
    "printed_resources",
    "resume_from",
]


# --- the parser ---------------------------------------------------------------


def current_token(parser: BaseParser) -> MLIRToken:
    """
    The token the parser is at, not consumed: custom syntax that branches on
    what comes next (a pytree spec, a symbolic size, a keyword argument).
    Upstream: a public `current_token` (or `peek`) on `GenericParser`.
    """
    return parser._current_token


def consume_token(parser: BaseParser) -> MLIRToken:
    """
    Consume one token whatever its kind (a symbolic size is read token by token).
    Upstream: a public `consume_token` on `GenericParser`.
    """
    return parser._consume_token()


def parse_token(parser: BaseParser, kind: MLIRTokenKind, error: str) -> MLIRToken:
    """
    Consume a token of `kind`, or raise `error` at the current one (the blob
    reader's `:` after a resource key, with MLIR's own message).
    Upstream: a public `parse_token` on `GenericParser`.
    """
    return parser._parse_token(kind, error)


def resume_from(parser: BaseParser, pos: Position) -> None:
    """
    Continue parsing at `pos`, after text read by hand from the input (a
    TorchScript type is read as raw text up to its closing `>`; the blob reader
    skips a blob's hex text and a cached attribute dictionary's).
    Upstream: a public way to skip input, such as `GenericParser.resume_from`.
    """
    parser._resume_from(pos)


def parse_resource_handle(parser: AttrParser, dialect: str, interface: OpAsmDialectInterface) -> str:
    """
    Parse a resource key and declare it in `interface`'s storage, as xDSL's own
    `dense_resource<...>` attribute does, so that the file's resource section
    fills it. Upstream: `AttrParser.parse_dialect_resource_handle` made public.
    """
    return parser._parse_dialect_resource_handle(dialect, interface)


# --- resources ----------------------------------------------------------------


def blob_storage(interface: OpAsmDialectInterface) -> dict[str, str]:
    """
    The storage's key -> hex text table itself: the blob store reuses an equal
    blob's key and forgets a blob no IR refers to any more (the interface only
    declares, sets and looks up one key). Upstream: `OpAsmDialectInterface`
    methods to test whether a key is declared and to remove one.
    """
    return interface._blob_storage


def printed_resources(printer: Printer) -> dict[str, set[str]]:
    """
    Dialect name -> the resource keys the printed IR referred to, for writing the
    resource section one entry a line with large entries elided. Upstream: a
    public accessor on `Printer` (or the elision option of mlir-opt's printer).
    """
    return printer._dialect_resources


# --- what the fixes of `xdsl_fixes.py` wrap ---------------------------------------

original_dense_literal_type: Callable[[AttrParser], Any] = AttrParser._parse_dense_literal_type
"""xDSL's parser of a dense literal's type, which `xdsl_fixes` wraps with a size check."""

original_string_literal_lexer: Callable[[MLIRLexer, Position], MLIRToken] = MLIRLexer._lex_string_literal
"""xDSL's lexer of a string literal, which `xdsl_fixes` wraps to read UTF-8 escapes as a string."""


def install_dense_literal_type(parse: Callable[..., Any]) -> None:
    """
    Replace the parser of a dense literal's type. Upstream: the dense literal's
    size checked before its splat is expanded (see `xdsl_fixes`).
    """
    AttrParser._parse_dense_literal_type = parse


def install_string_literal_lexer(pattern: re.Pattern[str], lex: Callable[..., MLIRToken]) -> None:
    """
    Replace the string literal's regex and lexer (once: a second call keeps the
    first). Upstream: a non-backtracking string literal regex, and an escaped
    UTF-8 literal lexed as a string (see `xdsl_fixes`).
    """
    MLIRLexer._unescaped_characters_regex = pattern
    if MLIRLexer._lex_string_literal is original_string_literal_lexer:
        MLIRLexer._lex_string_literal = lex
