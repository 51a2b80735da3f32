"""
xDSL's MLIR parser with what this project needs from it: reading in time linear
in the text (a type written many times is parsed once), and dialect resources
read correctly when their keys are already in the process-wide blob storage.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import FunctionType
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.utils.mlir_lexer import MLIRTokenKind

_CACHED_BODY_LIMIT = 512
"""Longer bodies (inline data) are parsed each time: keying them would copy the data."""


class ResourceParser(Parser):
    """
    A `Parser` that remembers the dialect types and attributes it has read, and
    renames a clashing resource handle once per file, not per mention.
    """

    def __init__(self, ctx: Context, text: str, name: str = "<unknown>") -> None:
        super().__init__(ctx, text, name)
        self._resource_keys: dict[tuple[str, str], str] = {}
        self._parsed: dict[tuple[bool, str, str], Attribute] = {}
        self._function_types: dict[str, FunctionType] = {}
        self.cache_hits = 0
        """How many dialect types and attributes were taken from the cache (tests count them)."""
        self.cache_misses = 0
        """How many were parsed from their text."""

    def _parse_extended_type_or_attribute(self, attr_or_dialect_name: str, is_type: bool) -> Attribute:  # pyright: ignore[reportIncompatibleMethodOverride]
        """
        The same text gives the same attribute, so each distinct `!dialect.type<...>`
        or `#dialect.attr<...>` is parsed once per file: an op's types are mostly
        ones already seen, and xDSL's lexer costs about a microsecond a token.
        """
        if "." not in attr_or_dialect_name:  # an alias or the opaque syntax
            return super()._parse_extended_type_or_attribute(attr_or_dialect_name, is_type)  # pyright: ignore[reportCallIssue, reportArgumentType]
        token = self._current_token
        end = -1
        if token.kind == MLIRTokenKind.LESS:
            start = token.span.start + 1
            content = self.lexer.input.content
            end = content.find(">", start, start + _CACHED_BODY_LIMIT)
            if end < 0:
                return super()._parse_extended_type_or_attribute(attr_or_dialect_name, is_type)  # pyright: ignore[reportCallIssue, reportArgumentType]
            body = content[start:end]
            if "<" in body or '"' in body or "-" in body:  # nesting, strings, `->`: find the real end
                end = self._raw_scan_balanced(start)
                if end - start > _CACHED_BODY_LIMIT:
                    return super()._parse_extended_type_or_attribute(attr_or_dialect_name, is_type)  # pyright: ignore[reportCallIssue, reportArgumentType]
                body = content[start:end]
        else:
            body = ""
        key = (is_type, attr_or_dialect_name, body)
        cached = self._parsed.get(key)
        if cached is not None:
            self.cache_hits += 1
            if end >= 0:
                self.lexer.pos = end + 1
                self._parser_state.current_token = self.lexer.lex()
            return cached
        self.cache_misses += 1
        attr = super()._parse_extended_type_or_attribute(attr_or_dialect_name, is_type)  # pyright: ignore[reportCallIssue, reportArgumentType]
        self._parsed[key] = attr
        return attr

    def parse_optional_function_type(self) -> FunctionType | None:
        """
        A custom op format most often ends its line with its function type, and
        the same signature recurs on many lines: such a tail is parsed once.
        """
        token = self._current_token
        if token.kind != MLIRTokenKind.L_PAREN:
            return None
        content = self.lexer.input.content
        start = token.span.start
        eol = content.find("\n", start)
        if eol < 0:
            eol = len(content)
        tail = content[start:eol]
        cached = self._function_types.get(tail)
        if cached is not None:
            self.cache_hits += 1
            self.lexer.pos = eol
            self._parser_state.current_token = self.lexer.lex()
            return cached
        self.cache_misses += 1
        ftype = super().parse_optional_function_type()
        if ftype is not None and self._current_token.span.start >= eol:
            self._function_types[tail] = ftype
        return ftype

    def _parse_dialect_resource_handle(self, dialect_name: str, interface: OpAsmDialectInterface) -> str:
        """
        xDSL 0.74 declares a handle again at every mention when the storage already
        holds its key (as after lowering, or reading the same text twice in one
        process), so the blob of the `dialect_resources` section lands under
        another key than the `dense_resource` attributes use.
        """
        key = self.parse_identifier(" for resource handle")
        declared = self._resource_keys.get((dialect_name, key))
        if declared is None:
            declared = interface.declare_resource(key)
            self._resource_keys[(dialect_name, key)] = declared
            self.dialect_resources.add((dialect_name, declared))
        return declared
