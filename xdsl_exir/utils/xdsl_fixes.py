r"""
Fixes of the pinned xDSL (0.74) that the tools' promises depend on, applied
when `xdsl_exir` is imported (so also inside the stock `xdsl-opt`). Each keeps
the language xDSL accepts and only removes a failure; `apply()` is idempotent.
The private xDSL methods they wrap are reached through `xdsl_compat.py`.
The private methods they wrap are reached through `xdsl_compat.py`.

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
- An integer type of any width was accepted, and its value range is computed
  with `1 << width`: `i100000000000` in a file of a few bytes asked for 25 GB.
  Widths above MLIR's `IntegerType::kMaxWidth` (2**24 - 1) are refused.
- A splat `dense<1.0> : tensor<1000000000xf32>` is expanded by the parser into
  a Python list of every element (8 bytes a slot, plus the packed data): a
  one-line file asked for 12 GB. The size a dense literal's type gives is
  checked against the tensor size limit of `limits.py` first (counting the
  list), and refused with a parse error naming it.
- A value name hint loses a `_<digits>` suffix, so `%_1` (valid MLIR, and a
  TorchScript dump's name for a Python variable `_1`) gets the empty hint `""`,
  which xDSL's own `replace_all_uses_with` then refuses to copy: every pass that
  replaces such a value failed. A hint that would be empty is no hint.
"""

from __future__ import annotations

import re
from typing import Any

from xdsl.dialects.builtin import IntegerType
from xdsl.ir import SSAValue
from xdsl.parser.attribute_parser import AttrParser
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.lexer import Position, Token
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken, MLIRTokenKind, StringLiteral

from xdsl_exir.utils.limits import TensorSizeError, check_tensor_bytes
from xdsl_exir.utils.xdsl_compat import (
    install_dense_literal_type,
    install_string_literal_lexer,
    original_dense_literal_type,
    original_string_literal_lexer,
)

__all__ = ["apply"]

_STRING_LITERAL = re.compile(r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"')

_extract_valid_name = SSAValue.extract_valid_name.__func__


def _no_empty_hint(cls: type[SSAValue], name: str | None) -> str | None:
    return _extract_valid_name(cls, name) or None


MAX_INTEGER_WIDTH = (1 << 24) - 1
"""MLIR's `IntegerType::kMaxWidth`."""

_verify_integer_type = IntegerType.verify


def _verify_width(self: IntegerType) -> None:
    if self.width.data > MAX_INTEGER_WIDTH:
        raise VerifyException(f"integer type bitwidth {self.width.data} exceeds MLIR's limit of {MAX_INTEGER_WIDTH}")
    _verify_integer_type(self)


_LIST_SLOT = 8
"""Bytes of a Python list slot: what xDSL's expanded splat costs per element beside the data."""

_parse_dense_elements = AttrParser.parse_dense_int_or_fp_elements_attr


def _check_dense_size(parser: AttrParser, type: Any) -> None:
    element = getattr(type.element_type, "compile_time_size", None)
    itemsize = element if isinstance(element, int) else 8
    try:
        check_tensor_bytes("the dense literal (parsed as a list)", list(type.get_shape()), itemsize + _LIST_SLOT)
    except TensorSizeError as e:
        parser.raise_error(str(e))


def _sized_dense_literal_type(self: AttrParser) -> Any:
    type = original_dense_literal_type(self)
    _check_dense_size(self, type)
    return type


def _sized_dense_elements(self: AttrParser, type: Any) -> Any:
    if type is not None:
        _check_dense_size(self, type)
    return _parse_dense_elements(self, type)


def _utf8_is_string(self: MLIRLexer, start_pos: Position) -> MLIRToken:
    token = original_string_literal_lexer(self, start_pos)
    if token.kind is MLIRTokenKind.BYTES_LIT:
        try:
            StringLiteral.from_span(token.span).bytes_contents.decode("utf-8")
        except UnicodeDecodeError:
            return token
        return Token(MLIRTokenKind.STRING_LIT, token.span)
    return token


def apply() -> None:
    """Install the fixes."""
    fixed: Any = classmethod(_no_empty_hint)
    SSAValue.extract_valid_name = fixed
    IntegerType.verify = _verify_width
    install_dense_literal_type(_sized_dense_literal_type)
    AttrParser.parse_dense_int_or_fp_elements_attr = _sized_dense_elements
    install_string_literal_lexer(_STRING_LITERAL, _utf8_is_string)
