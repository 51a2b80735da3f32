"""
MLIR text as this project reads and writes it.

Reading: xDSL's parser with what this project needs from it, in time linear in
the text (a type written many times is parsed once), and dialect resources read
correctly when their keys are already in the process-wide blob storage.

Blobs: data too large for an attribute (weights) travels as MLIR does it, a
`dense_resource<key>` naming an entry of the builtin dialect's resources, printed
in the trailing `{-# dialect_resources: { builtin: { key: "0x..." } } #-}`
section. The hex text starts with a 4-byte little-endian alignment word (MLIR's
blob format). `declare_blob` puts data there and `ResourceParser` reads it back;
the `exir.state` weights and the linalg lowering's constants both use them.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable, Iterable
from typing import IO, cast

from xdsl.context import Context
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import ArrayAttr, Builtin, FunctionType, ModuleOp, StringAttr
from xdsl.ir import Attribute, Dialect
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from xdsl_exir.utils.tensor_data import TensorDataError
from xdsl_exir.utils.xdsl_compat import blob_storage, current_token, parse_token, printed_resources, resume_from

RESOURCE_ALIGNMENT = 16
"""Alignment word written before each blob (MLIR's blob format)."""

ELIDED = "__elided__"
"""What MLIR prints instead of a resource's data when told to leave it out."""


class BlobError(TensorDataError):
    """A resource's text is not a blob (hex with its alignment word), or its data is not in the text."""

    @staticmethod
    def elided(key: str) -> BlobError:
        return BlobError(
            f"the data of resource '{key}' is not in the text: it was elided when printed "
            "(print without --mlir-elide-resource-strings-if-larger to keep the weights)"
        )


def _builtin_resources() -> OpAsmDialectInterface:
    storage = Builtin.get_interface(OpAsmDialectInterface)
    assert storage is not None
    return storage


def blob_hex(data: bytes) -> str:
    """The resource text of `data`: `0x`, the alignment word, the bytes."""
    return "0x" + RESOURCE_ALIGNMENT.to_bytes(4, "little").hex().upper() + data.hex().upper()


def _blob_data_start(text: str, start: int, end: int) -> int:
    """Where the data of a resource's hex text (`text[start:end]`) starts, its `0x` and alignment word checked."""
    if not text.startswith("0x", start, end):
        raise BlobError("a blob is a hex string starting with 0x")
    try:
        word = hex_to_bytes(text, start + 2, min(start + 10, end))
    except ValueError:
        raise BlobError("malformed hex data in a blob") from None
    if len(word) < 4:
        raise BlobError("a blob starts with a 4-byte alignment word")
    alignment = int.from_bytes(word, "little")
    if alignment == 0 or alignment & (alignment - 1):
        raise BlobError(f"blob alignment {alignment} is not a power of two")
    return start + 10


_SPACE = re.compile(r"\s")
"""Whitespace, which `bytes.fromhex` skips but MLIR's hex blobs never hold."""


def hex_to_bytes(text: str, start: int, end: int) -> bytes:
    """`bytes.fromhex` of `text[start:end]`, refusing the whitespace it would skip."""
    if _SPACE.search(text, start, end) is not None:
        raise ValueError("whitespace in hex data")
    return bytes.fromhex(text[start:end])  # one copy of the text, none of the data


def blob_bytes(text: str, start: int = 0, end: int | None = None) -> bytes:
    """The data of a resource's hex text (`text[start:end]`), without its alignment word."""
    end = len(text) if end is None else end
    data_start = _blob_data_start(text, start, end)
    try:
        return hex_to_bytes(text, data_start, end)
    except ValueError:
        raise BlobError("malformed hex data in a blob") from None


class HexBlob:
    """
    The data of one resource, decoded from the hex text holding it the first time
    it is asked for. Weights are most of a file's text, and decoding them is most
    of a read that needs none of them (printing elided, a pass on the graph). Until
    then it keeps the text it was read from (the file's, not a copy); afterwards
    only the bytes. Its head (`0x`, alignment word) is checked when read; a bad
    character in the data is reported, at the reference, when decoded.

    A blob mentioned inside an attribute is made `pending` before the resources
    (the end of the file) are read: `bind` gives it its text then; one never
    bound looks its key up in the process-wide storage when used (xDSL's own
    parser leaves the data there), and says so when the text left it out.
    """

    __slots__ = ("_data", "_end", "_start", "_text", "_where", "key")

    def __init__(self, key: str, text: str, start: int, end: int, where: Span[str] | None = None) -> None:
        self.key = key
        self._text: str | None = text
        self._start = _blob_data_start(text, start, end)
        self._end = end
        self._where = where
        self._data: bytes | memoryview | None = None

    @classmethod
    def holding(cls, data: bytes | memoryview) -> HexBlob:
        """
        Data already in memory that must not be copied (a view of a mapped `.pt2`
        archive): "decoded" from the start, and printed from the view itself.
        """
        blob = cls.__new__(cls)
        blob.key, blob._text, blob._start, blob._end, blob._where = "", None, 0, 0, None
        blob._data = data
        return blob

    @classmethod
    def pending(cls, key: str) -> HexBlob:
        """The data of resource `key`, not read yet."""
        blob = cls.__new__(cls)
        blob.key, blob._text, blob._start, blob._end, blob._where, blob._data = key, None, 0, 0, None, None
        return blob

    def bind(self, source: HexBlob) -> None:
        """Take the text (or bytes) of `source`, the same resource read at the end of the file."""
        self._text, self._start, self._end = source._text, source._start, source._end
        self._where, self._data = source._where, source._data

    @property
    def left_out(self) -> bool:
        """Whether the text it was read from has no data for it (elided when printed)."""
        if self._text is not None or self._data is not None:
            return False
        text = _builtin_resources().lookup(self.key)
        return not text or text == ELIDED

    @property
    def decoded(self) -> bool:
        """Whether the bytes have been decoded (the text is then let go)."""
        return self._data is not None

    def data(self) -> bytes:
        """The bytes, decoded once."""
        data = self._data
        if data is None:
            text = self._text
            if text is None:  # never bound: the process-wide storage has it, or nothing does
                data = lookup_blob(self.key)
                if data is None:
                    raise BlobError.elided(self.key)
                self._data = data
                return data
            try:
                data = hex_to_bytes(text, self._start, self._end)
            except ValueError:
                where = f"{self._where.get_location()}: " if self._where is not None else ""
                raise BlobError(f"{where}resource '{self.key}': malformed hex data in a blob") from None
            self._data = data
            self._text = None
            self._where = None
        # A view held by `holding` stands in for bytes: its users take its length,
        # hex, numpy's frombuffer, ==, and hash, all of which a read-only byte view has.
        return cast(bytes, data)


_HELD: dict[str, memoryview] = {}
"""
Resources whose data is a view (of a mapped `.pt2` archive), by key: the
builtin storage holds an empty text for them, and `print_resources` writes
their hex from the view, a chunk at a time, so no hex copy of the weights is
ever made. `lookup_blob` gives the view back.
"""

_HEX_CHUNK = 1 << 20
"""Bytes of a held resource turned into hex at a time when printed."""

_WRITTEN: dict[str, str] = {}
"""
A builtin resource's key as a file writes it, by the key it was declared under,
where the two differ: the storage is the process's, so a key it already holds
(the same file read twice, a weight a lowering declared) is declared anew as
`w_0`, and a diagnostic about the resource names the `w` the user wrote.
"""


def written_key(key: str) -> str:
    """The builtin resource key `key` as the text it was read from writes it."""
    return _WRITTEN.get(key, key)


def declare_blob(name: str, data: bytes | memoryview) -> str:
    """
    Put `data` in the builtin dialect's resource storage under a key derived from
    `name`, and return the key; an equal blob already stored under that key is
    reused, so printing (or lowering) the same program twice gives the same text.
    A view is kept by reference (`_HELD`), never turned into hex here.
    """
    storage = _builtin_resources()
    base = "".join(c if c.isalnum() or c in "_." else "_" for c in name) or "blob"
    if not (base[0].isalpha() or base[0] == "_"):  # a resource key is an identifier: `0.weight` is not
        base = "_" + base
    key, n = base, 0
    existing = blob_storage(storage)
    if isinstance(data, memoryview):
        while key in existing and not _holds(key, existing[key], data):
            key = f"{base}_{n}"
            n += 1
        if key not in existing:
            key = storage.declare_resource(key)
            _WRITTEN.pop(key, None)
            _HELD[key] = data
        return key
    hex_blob = blob_hex(data)
    while key in existing and (
        existing[key] != hex_blob if key not in _HELD else not _holds(key, existing[key], data)
    ):
        key = f"{base}_{n}"
        n += 1
    if key not in existing:
        key = storage.declare_resource(key)
        _WRITTEN.pop(key, None)
        storage.parse_resource(key, hex_blob)
    return key


def _holds(key: str, text: str, data: bytes | memoryview) -> bool:
    """Whether resource `key` (stored `text`, or held) already has the bytes `data` (names collided)."""
    held = _HELD.get(key)
    if held is not None:
        return held is data or held == data
    if not text or text == ELIDED:
        return False
    try:
        return blob_bytes(text) == data
    except BlobError:
        return False


def lookup_blob(key: str) -> bytes | None:
    """The data stored under a builtin resource key; None when it has none (elided, or never read)."""
    held = _HELD.get(key)
    if held is not None:
        return cast(bytes, held)  # a read-only view stands in for bytes (see `HexBlob.data`)
    text = _builtin_resources().lookup(key)
    if not text or text == ELIDED:
        return None
    return blob_bytes(text)


def print_resources(printer: Printer, dialects: Iterable[Dialect], elide_if_larger: int | None = None) -> None:
    """
    The trailing `{-# dialect_resources: ... #-}` section of what `printer` printed:
    one entry a line (xDSL 0.74 writes them all on one line), and `"__elided__"`
    for an entry whose text is longer than `elide_if_larger` characters, as
    mlir-opt's `--mlir-elide-resource-strings-if-larger` leaves them out.
    """
    referenced = printed_resources(printer)
    if not referenced:
        return
    interfaces = {d.name: d.get_interface(OpAsmDialectInterface) for d in dialects}
    interfaces.setdefault(Builtin.name, _builtin_resources())  # its storage is process-wide, loaded or not
    sections: list[tuple[str, list[tuple[str, str | memoryview]]]] = []
    for dialect_name in sorted(referenced):
        interface = interfaces.get(dialect_name)
        if interface is None:
            continue
        entries: list[tuple[str, str | memoryview]] = []
        for key in sorted(referenced[dialect_name]):
            held = _HELD.get(key) if dialect_name == Builtin.name else None
            text: str | memoryview = held if held is not None else interface.lookup(key) or ELIDED
            length = 10 + 2 * len(text) if isinstance(text, memoryview) else len(text)
            if elide_if_larger is not None and length > elide_if_larger:
                text = ELIDED
            entries.append((key, text))
        sections.append((dialect_name, entries))
    if not sections:
        return
    # Piece by piece, newlines apart: the printer splits any text that holds one,
    # and the data run to megabytes. A held view is written a chunk of hex at a
    # time, so the stream (a file) gets the text without it ever being whole here.
    printer.print_string("\n\n{-#\n  dialect_resources: {", indent=0)
    for i, (dialect_name, entries) in enumerate(sections):
        printer.print_string(("," if i else "") + f"\n    {dialect_name}: {{", indent=0)
        for j, (key, text) in enumerate(entries):
            printer.print_string(("," if j else "") + "\n", indent=0)
            printer.print_string(f'      {key}: "')
            if isinstance(text, memoryview):
                printer.print_string(blob_hex(b""))
                for start in range(0, len(text), _HEX_CHUNK):
                    printer.print_string(text[start : start + _HEX_CHUNK].hex().upper())
            else:
                printer.print_string(text)
            printer.print_string('"')
        printer.print_string("\n    }", indent=0)
    printer.print_string("\n  }\n#-}", indent=0)


def print_module(
    module: ModuleOp,
    stream: IO[str],
    dialects: Iterable[Dialect],
    elide_if_larger: int | None = None,
    print_debuginfo: bool = False,
) -> None:
    """Print `module` and its resources as the `mlir` target writes them."""
    printer = Printer(stream=stream, print_debuginfo=print_debuginfo)
    printer.print_op(module)
    print_resources(printer, dialects, elide_if_larger)
    printer.print_string("\n")


_CACHED_BODY_LIMIT = 512
"""Longer bodies (inline data) are parsed each time: keying them would copy the data."""

_CACHED_DICT_LIMIT = 16384
"""Attribute dictionaries longer than this are parsed each time."""

_BRACES_AND_STRINGS = re.compile(r'"(?:[^"\\\n]|\\.)*"|[{}]')
"""What a scan for the end of an attribute dictionary must see: braces, and strings that may hold them."""

_PLAIN_STRING = r'"[^"\\\n]*"'
_STRING_LIST = rf"\[\s*(?:{_PLAIN_STRING}\s*(?:,\s*{_PLAIN_STRING}\s*)*)?\]"
_STRING_ARRAYS = re.compile(
    rf"\[\s*(?:(?:{_PLAIN_STRING}|{_STRING_LIST})\s*(?:,\s*(?:{_PLAIN_STRING}|{_STRING_LIST})\s*)*)?\]"
)
"""An array of strings without escapes, or of such arrays."""
_STRING_ARRAY_PIECES = re.compile(rf"{_PLAIN_STRING}|[\[\]]")
_STRING_ARRAY_ENTRY = re.compile(rf"([A-Za-z_][A-Za-z0-9_$.]*)\s*=\s*({_STRING_ARRAYS.pattern})")
_DICT_OF_STRING_ARRAYS = re.compile(
    rf"\{{\s*(?:{_STRING_ARRAY_ENTRY.pattern}\s*(?:,\s*{_STRING_ARRAY_ENTRY.pattern}\s*)*)?\}}"
)
"""A dictionary whose values are all such arrays (`{nn_module_stack = [...], torch_fn = [...]}`)."""

_ENTRY_PIECES = re.compile(r'->|"(?:[^"\\\n]|\\.)*"|[\[\](){}<>,]')
"""What a scan for the end of a dictionary entry must see: brackets, commas, strings, and `->` (not a bracket)."""


def _string_array(text: str) -> ArrayAttr[Attribute]:
    """The attribute of a `_STRING_ARRAYS` text."""
    stack: list[list[Attribute]] = [[]]
    for piece in _STRING_ARRAY_PIECES.finditer(text):
        token = piece.group()
        if token == "[":
            stack.append([])
        elif token == "]":
            done = ArrayAttr(stack.pop())
            stack[-1].append(done)
        else:
            stack[-1].append(StringAttr(token[1:-1]))
    return cast(ArrayAttr[Attribute], stack[0][0])


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
        self._dicts: dict[str, dict[str, Attribute]] = {}
        self._entries: dict[str, tuple[str, Attribute]] = {}
        self.cache_hits = 0
        """How many dialect types and attributes were taken from the cache (tests count them)."""
        self.cache_misses = 0
        """How many were parsed from their text."""
        self._mentions: dict[str, int] = {}
        self._deferred: list[tuple[str, Callable[[HexBlob], None], int]] = []
        self._deferred_count: dict[str, int] = {}
        self._loaded: dict[str, HexBlob] = {}
        self._elided: set[str] = set()
        self._given: set[str] = set()
        """Resource keys the `dialect_resources` section has given data for (each once)."""
        self._sections = 0
        self._handles: dict[str, str] = {}
        """The handle as the text writes it, by the key it was declared under."""

    def defer_blob(self, key: str, load: Callable[[HexBlob], None], pos: int) -> None:
        """
        Call `load` with the (not yet decoded) data of builtin resource `key` once
        the file's resources are read (they come last); not at all when the file
        has none for it (elided or left out), so the reference stays a reference.
        References to one key share one `HexBlob`. A malformed blob is reported at
        `pos`, the reference.
        """
        self._deferred.append((key, load, pos))
        self._deferred_count[key] = self._deferred_count.get(key, 0) + 1

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        """
        The module, its deferred blobs loaded. Python's cycle collector is paused
        meanwhile: reading makes objects that all stay alive, and each full
        collection walks the growing heap, which made a 50,000-op read cost a
        fifth more per op than a 2,000-op one.
        """
        collecting = gc.isenabled()
        gc.disable()
        try:
            module = super().parse_module(allow_implicit_module)
            self._load_deferred_blobs()
            self._drop_unreferenced_entries()
        finally:
            if collecting:
                gc.enable()
        return module

    def _load_deferred_blobs(self) -> None:
        """
        Hand each deferred reference its data, then drop from the process-wide
        storage the entries no other attribute refers to: their data now lives in
        the module, and reading many files would otherwise keep every copy.
        """
        if not self._deferred:
            return
        storage = _builtin_resources()
        claimed: dict[str, int] = {}
        for key, load, pos in self._deferred:
            claimed[key] = claimed.get(key, 0) + 1
            if key in self._loaded:
                load(self._loaded[key])
                continue
            text = storage.lookup(key)
            if key in self._elided:
                continue
            if not text:
                if self._sections:  # a file with a section that lacks the key: a typo, not an elision
                    written = self._handles.get(key, key)
                    self.raise_error(f"resource '{written}' has no entry in the file's dialect_resources section", pos)
                continue
            try:
                blob = HexBlob(key, text, 0, len(text), Span(pos, pos + 1, self.lexer.input))
            except BlobError as e:
                self.raise_error(f"resource '{key}': {e}", pos)
            self._loaded[key] = blob
            load(blob)
        section = 1
        for key, count in claimed.items():
            if self._mentions.get(key, 0) <= count + section:
                blob_storage(storage).pop(key, None)
        self._deferred.clear()
        self._loaded.clear()

    def _drop_unreferenced_entries(self) -> None:
        """
        Drop from the process-wide storage the builtin entries of this file's
        section that nothing in the module refers to: nothing can print or read
        them, and a process reading many files (a notebook, a server, the fuzz
        campaign) kept every one, the storage growing by the file's unused keys
        at each read.
        """
        storage = blob_storage(_builtin_resources())
        for dialect_name, key in self.dialect_resources:
            if dialect_name == Builtin.name and key in self._given and self._mentions.get(key, 0) <= 1:
                storage.pop(key, None)

    def _parse_dialect_resources(self) -> None:
        """MLIR's file has one `dialect_resources` section; a second would silently shadow the first."""
        self._sections += 1
        if self._sections > 1:
            self.raise_error("a second dialect_resources section: a file holds one")
        super()._parse_dialect_resources()

    def _parse_resource(self, dialect_name: str, interface: OpAsmDialectInterface) -> None:
        """An entry of `dialect_resources`; `"__elided__"` (MLIR's mark of left-out data) is kept as no data."""
        start = current_token(self).span.start
        key = self._parse_dialect_resource_handle(dialect_name, interface)
        if key in self._given:
            self.raise_error(f"resource '{self._handles.get(key, key)}' is given twice in dialect_resources", start)
        self._given.add(key)
        claimed = self._deferred_count.get(key, 0) if dialect_name == Builtin.name else 0
        if (
            claimed
            and self._mentions.get(key, 0) <= claimed + 1
            and (span := self._parse_blob_span(check_escapes=False)) is not None
        ):
            # Only states refer to it (the section comes last, so all mentions are
            # known): its data stays in the file's text until used, no copy in the storage.
            start, end = span
            content = self.lexer.input.content
            if content.startswith(ELIDED, start) and end - start == len(ELIDED):
                self._elided.add(key)
                return
            try:
                self._loaded[key] = HexBlob(key, content, start, end, Span(start, end, self.lexer.input))
            except BlobError as e:
                self.raise_error(f"resource '{key}': {e}", start - 1, end + 1)
            return
        value = self._parse_blob_text()
        if value is None:
            parse_token(self, MLIRTokenKind.COLON, "expected `:`")
            value = self.parse_str_literal()
        if value == ELIDED:
            self._elided.add(key)
            return
        try:
            interface.parse_resource(key, value)
        except (ValueError, KeyError) as e:
            self.raise_error(f"resource '{key}': {e}")

    def _parse_extended_type_or_attribute(self, attr_or_dialect_name: str, is_type: bool) -> Attribute:
        """
        The same text gives the same attribute, so each distinct `!dialect.type<...>`
        or `#dialect.attr<...>` is parsed once per file: an op's types are mostly
        ones already seen, and xDSL's lexer costs about a microsecond a token.
        """
        if "." not in attr_or_dialect_name:  # an alias or the opaque syntax
            return super()._parse_extended_type_or_attribute(attr_or_dialect_name, is_type)
        token = current_token(self)
        end = -1
        if token.kind == MLIRTokenKind.LESS:
            start = token.span.start + 1
            content = self.lexer.input.content
            end = content.find(">", start, start + _CACHED_BODY_LIMIT)
            if end < 0:
                return super()._parse_extended_type_or_attribute(attr_or_dialect_name, is_type)
            body = content[start:end]
            if "<" in body or '"' in body or "-" in body:  # nesting, strings, `->`: find the real end
                end = self._raw_scan_balanced(start)
                if end - start > _CACHED_BODY_LIMIT:
                    return super()._parse_extended_type_or_attribute(attr_or_dialect_name, is_type)
                body = content[start:end]
        else:
            body = ""
        key = (is_type, attr_or_dialect_name, body)
        cached = self._parsed.get(key)
        if cached is not None:
            self.cache_hits += 1
            if end >= 0:
                resume_from(self, end + 1)
            return cached
        self.cache_misses += 1
        first = token.span.start
        attr = super()._parse_extended_type_or_attribute(attr_or_dialect_name, is_type)
        if (end >= 0 and self._consumed_end() == end + 1) or (end < 0 and current_token(self).span.start == first):
            self._parsed[key] = attr  # only when the parse read exactly the text of the key
        return attr

    def _consumed_end(self) -> int:
        """The offset just after the last character read: a cache entry keyed by text must cover exactly it."""
        content = self.lexer.input.content
        i = current_token(self).span.start
        while i > 0 and content[i - 1] in " \t\r\n":
            i -= 1
        return i

    def parse_optional_function_type(self) -> FunctionType | None:
        """
        A custom op format most often ends its line with its function type, and
        the same signature recurs on many lines: such a tail is parsed once.
        """
        token = current_token(self)
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
            resume_from(self, eol)
            return cached
        self.cache_misses += 1
        ftype = super().parse_optional_function_type()
        if ftype is not None and current_token(self).span.start >= eol and self._consumed_end() <= eol:
            self._function_types[tail] = ftype
        return ftype

    def parse_optional_dictionary_attr_dict(self) -> dict[str, Attribute]:
        """
        An op's attribute dictionary, parsed once per distinct text: imported
        programs repeat the same `{nn_module_stack = [...], torch_fn = [...]}` on
        many lines. Dictionaries naming resources are parsed each time (a mention
        declares its handle).
        """
        token = current_token(self)
        if token.kind != MLIRTokenKind.L_BRACE:
            return super().parse_optional_dictionary_attr_dict()
        content = self.lexer.input.content
        start = token.span.start
        simple = _DICT_OF_STRING_ARRAYS.match(content, start)
        if simple is not None:
            fast = self._string_array_dict(simple)
            if fast is not None:
                return fast
        depth = 0
        end = -1
        for match in _BRACES_AND_STRINGS.finditer(content, start, min(len(content), start + _CACHED_DICT_LIMIT)):
            text = match.group()
            if text == "{":
                depth += 1
            elif text == "}":
                depth -= 1
                if depth == 0:
                    end = match.end()
                    break
        body = content[start:end] if end > 0 else ""
        if not body or "dense_resource" in body:
            return super().parse_optional_dictionary_attr_dict()
        cached = self._dicts.get(body)
        if cached is not None:
            self.cache_hits += 1
            resume_from(self, end)
            return dict(cached)
        self.cache_misses += 1
        parsed = super().parse_optional_dictionary_attr_dict()
        if self._consumed_end() == end:
            self._dicts[body] = dict(parsed)
        return parsed

    def _string_array_dict(self, match: re.Match[str]) -> dict[str, Attribute] | None:
        """
        A dictionary of string arrays read by regular expressions, its entries
        shared with the entry cache; None (nothing consumed) when a name repeats,
        which the general parser reports.
        """
        body = match.group()
        cached = self._dicts.get(body)
        if cached is not None:
            self.cache_hits += 1
            self.skip_raw(match.end())
            return dict(cached)
        parsed: dict[str, Attribute] = {}
        for entry in _STRING_ARRAY_ENTRY.finditer(body):
            name = entry.group(1)
            if name in parsed:
                return None
            known = self._entries.get(entry.group())
            if known is None:
                known = (name, _string_array(entry.group(2)))
                self._entries[entry.group()] = known
            parsed[name] = known[1]
        self.cache_misses += 1
        self._dicts[body] = dict(parsed)
        self.skip_raw(match.end())
        return parsed

    def peek_raw(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        """
        `pattern` matched on the text at the current token, nothing consumed: a
        custom syntax's fast path for its common, simple forms (see `skip_raw`).
        """
        return pattern.match(self.lexer.input.content, current_token(self).span.start)

    def skip_raw(self, end: int) -> None:
        """Go on reading at offset `end` (the end of what a `peek_raw` match covered)."""
        resume_from(self, end)

    def raw_span(self, start: int, end: int) -> Span[str]:
        """The span of the text between two offsets, for operands and errors."""
        return Span(start, end, self.lexer.input)

    def _parse_attribute_entry(self) -> tuple[str, Attribute]:
        """
        One `name = attribute` of a dictionary, parsed once per distinct text: when
        whole dictionaries differ (`torch_fn` names the op), their entries still
        repeat (`nn_module_stack` is the same for a module's ops).
        """
        content = self.lexer.input.content
        start = current_token(self).span.start
        depth = 0
        end = -1
        for match in _ENTRY_PIECES.finditer(content, start, min(len(content), start + _CACHED_DICT_LIMIT)):
            piece = match.group()
            if piece in "([{<":
                depth += 1
            elif piece in ")]}>":
                if depth == 0:
                    end = match.start()
                    break
                depth -= 1
            elif piece == "," and depth == 0:
                end = match.start()
                break
        body = content[start:end].rstrip() if end > 0 else ""
        if not body or "dense_resource" in body:
            return super()._parse_attribute_entry()
        cached = self._entries.get(body)
        if cached is not None:
            self.cache_hits += 1
            resume_from(self, start + len(body))
            return cached
        self.cache_misses += 1
        entry = super()._parse_attribute_entry()
        if current_token(self).span.start == end and self._consumed_end() == start + len(body):
            self._entries[body] = entry
        return entry

    def _parse_optional_array_attr(self) -> ArrayAttr[Attribute] | None:
        """
        Arrays of plain strings, nested once (`[["L__self__", "", "torch.nn.Linear"]]`,
        how `nn_module_stack` and `torch_fn` are kept), read from their text by a
        regular expression; anything else as xDSL reads it.
        """
        token = current_token(self)
        if token.kind == MLIRTokenKind.L_SQUARE:
            match = _STRING_ARRAYS.match(self.lexer.input.content, token.span.start)
            if match is not None:
                self.skip_raw(match.end())
                return _string_array(match.group())
        return super()._parse_optional_array_attr()

    def _parse_blob_span(self, check_escapes: bool = True) -> tuple[int, int] | None:
        """
        `: "0x..."` read by finding the closing quote: the offsets of the text
        between the quotes, or None (nothing consumed) when the string has
        escapes. A blob's text has none, and xDSL's lexer takes a regular
        expression and a copy per character class over megabytes. Text that goes
        straight to the hex decoder need not be checked: a backslash is not hex.
        """
        colon = current_token(self)
        if colon.kind != MLIRTokenKind.COLON:
            return None
        content = self.lexer.input.content
        start = colon.span.end
        while start < len(content) and content[start] in " \t\r\n":
            start += 1
        if not content.startswith('"', start):
            return None
        end = content.find('"', start + 1)
        if end < 0 or (
            check_escapes and (content.find("\\", start + 1, end) >= 0 or content.find("\n", start + 1, end) >= 0)
        ):
            return None
        resume_from(self, end + 1)
        return start + 1, end

    def _parse_blob_text(self) -> str | None:
        """`: "0x..."` as `_parse_blob_span` reads it, as text."""
        span = self._parse_blob_span()
        return None if span is None else self.lexer.input.content[span[0] : span[1]]

    def _parse_dialect_resource_handle(self, dialect_name: str, interface: OpAsmDialectInterface) -> str:
        """
        xDSL 0.74 declares a handle again at every mention when the storage already
        holds its key (as after lowering, or reading the same text twice in one
        process), so the blob of the `dialect_resources` section lands under
        another key than the `dense_resource` attributes use.
        """
        return self.declare_resource_handle(dialect_name, interface, self.parse_identifier(" for resource handle"))

    def declare_resource_handle(self, dialect_name: str, interface: OpAsmDialectInterface, key: str) -> str:
        """The key a mention of handle `key` refers to (declared once per file), its mention counted."""
        declared = self._resource_keys.get((dialect_name, key))
        if declared is None:
            declared = interface.declare_resource(key)
            self._resource_keys[(dialect_name, key)] = declared
            self._handles[declared] = key
            if dialect_name == Builtin.name:
                if declared != key:
                    _WRITTEN[declared] = key
                else:
                    _WRITTEN.pop(declared, None)
            self.dialect_resources.add((dialect_name, declared))
        self._mentions[declared] = self._mentions.get(declared, 0) + 1
        return declared
