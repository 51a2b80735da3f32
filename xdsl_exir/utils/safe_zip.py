"""
Zip archives from strangers: the `.pt2` reader and `exir-run --inputs IN.npz`
both open zips a user handed them, so both go through the one set of rules here.

`CheckedZip` refuses an archive whose central directory is unsound, holds more
than `MAX_ENTRIES` entries, has entry names that are absolute or climb out with
`..`, names an entry twice, is encrypted, uses an unknown compression method,
or declares uncompressed sizes no honest archive has (zip bombs: an entry above
`MAX_COMPRESSION_RATIO`, or entries that together claim more than that ratio of
the archive's size). Those checks look only at the directory, so nothing is
inflated before they pass, and no two entries' data may overlap (so a map
of one entry never shows another's bytes); `read` then checks each entry's local
header, size and CRC-32, and `open` streams an entry for callers that want to
look at its first bytes (an `.npy` header) before inflating the rest.

`view` is how weights are read without copying them. An archive opened from a
file on disk is memory-mapped (read-only), and an uncompressed entry (torch
stores every entry so) is a `memoryview` of the map at its data offset: the
operating system pages it in when it is used and can drop it again, so a
multi-gigabyte `.pt2` costs no heap. A compressed entry is inflated once. The
local header, the bounds, the sizes and the CRC-32 of a mapped entry are checked
as `read` checks them: a damaged weight would otherwise give wrong numbers without
a word, and a wrong answer is worse than a refusal. Checking the CRC reads each
page once (file-backed pages, which the operating system can drop again; no heap
copy). A file changed on disk while mapped
changes what the view shows (truncating it makes reads past its new end fail
with SIGBUS): archives are treated as immutable inputs, as torch treats them.
"""

from __future__ import annotations

import io
import mmap
import re
import struct
import zipfile
import zlib
from typing import IO

__all__ = [
    "is_pickle",
    "MAX_COMPRESSION_RATIO",
    "MAX_ENTRIES",
    "SMALL_ENTRY",
    "CheckedZip",
    "ZipRefused",
]

MAX_ENTRIES = 200_000
"""More zip entries than any real archive has (a `.pt2` has one per weight storage)."""

MAX_COMPRESSION_RATIO = 200
"""
torch stores entries uncompressed and `numpy.savez` too; deflate reaches ~1000:1
only on degenerate data. An entry claiming more than this ratio (and more than
`SMALL_ENTRY`) is treated as a zip bomb, as is an archive whose entries together
claim more than this ratio of its own size (plus `SMALL_ENTRY` of slack).
"""

SMALL_ENTRY = 1 << 20
"""Entries up to this size are cheap whatever their compression ratio."""

_SUPPORTED_COMPRESSION = {
    zipfile.ZIP_STORED,
    zipfile.ZIP_DEFLATED,
    zipfile.ZIP_BZIP2,
    zipfile.ZIP_LZMA,
}

_READ_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    EOFError,
    OSError,
    ValueError,
    struct.error,
    RuntimeError,
    NotImplementedError,
)
"""What `zipfile` raises on a damaged archive or entry (lzma/bz2 errors are OSError/ValueError)."""


class ZipRefused(Exception):
    """An archive or entry refused by the rules; the message says why (no file name)."""


def unsafe_name(name: str) -> str | None:
    """Why a zip entry name may not be used, or None."""
    if "\x00" in name:
        return "contains a NUL character"
    if name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name):
        return "is an absolute path"
    if ".." in re.split(r"[/\\]", name):
        return "has a '..' component"
    return None


class CheckedZip:
    """Read-only access to a zip archive whose directory passed the rules above."""

    def __init__(self, data: bytes | IO[bytes], max_entries: int = MAX_ENTRIES) -> None:
        """
        `data` is the whole archive, or a seekable binary file holding it (not read
        whole; a file on disk is also mapped, for `view`).
        """
        self.file: IO[bytes] = io.BytesIO(data) if isinstance(data, bytes) else data
        self.map: mmap.mmap | None = None
        self._crc_checked: set[str] = set()
        try:
            size = self.file.seek(0, io.SEEK_END)
            self.file.seek(0)
            self.zip = zipfile.ZipFile(self.file)
            infos = self.zip.infolist()
        except _READ_ERRORS as e:
            raise ZipRefused(f"not a readable zip archive ({e})") from None
        if len(infos) > max_entries:
            raise ZipRefused(
                f"{len(infos)} zip entries; more than {max_entries} is not a plausible archive"
            )
        seen: set[str] = set()
        total = 0
        for info in infos:
            name = info.filename
            if (why := unsafe_name(name)) is not None:
                raise ZipRefused(f"zip entry {name!r} {why}; refusing the archive")
            if name in seen:
                raise ZipRefused(f"zip entry {name!r} appears twice; refusing the archive")
            seen.add(name)
            if info.flag_bits & 0x1:
                raise ZipRefused(f"zip entry {name!r} is encrypted")
            if info.compress_type not in _SUPPORTED_COMPRESSION:
                raise ZipRefused(
                    f"zip entry {name!r} uses unsupported compression method {info.compress_type}"
                )
            if info.file_size > SMALL_ENTRY and info.file_size > info.compress_size * MAX_COMPRESSION_RATIO:
                raise ZipRefused(
                    f"zip entry {name!r} claims {info.file_size} bytes from {info.compress_size} "
                    f"compressed (more than {MAX_COMPRESSION_RATIO}:1); refusing a likely zip bomb"
                )
            total += info.file_size
        if total > size * MAX_COMPRESSION_RATIO + SMALL_ENTRY:
            raise ZipRefused(
                f"entries claim {total} bytes in an archive of {size} bytes; "
                "refusing a likely zip bomb"
            )
        _check_no_overlap(infos, getattr(self.zip, "start_dir", size))
        self.size = size
        self.infos: dict[str, zipfile.ZipInfo] = {i.filename: i for i in infos}
        if not isinstance(self.file, io.BytesIO) and size > 0:
            try:
                self.map = mmap.mmap(self.file.fileno(), 0, access=mmap.ACCESS_READ)
            except (OSError, ValueError, io.UnsupportedOperation):
                self.map = None  # a pipe or an in-memory stream: entries are read, not mapped

    def read(self, name: str) -> bytes:
        """The bytes of entry `name`, checked against its declared size and CRC-32."""
        info = self.infos[name]
        if info.compress_type == zipfile.ZIP_STORED:
            return self._read_stored(info)
        try:
            raw = self.zip.read(info)
        except _READ_ERRORS as e:
            raise ZipRefused(f"corrupt zip entry ({e})") from None
        if len(raw) != info.file_size:  # zipfile trusts the directory's size
            raise ZipRefused("corrupt zip entry (truncated or inconsistent sizes)")
        return raw

    def view(self, name: str) -> bytes | memoryview:
        """
        The data of entry `name` without a copy where possible: a read-only view of
        the mapped archive for an uncompressed entry of a file on disk, else the
        bytes of `read` (compressed entries are inflated once, here). Its CRC-32 is
        checked the first time it is viewed.
        """
        info = self.infos[name]
        if self.map is None or info.compress_type != zipfile.ZIP_STORED:
            return self.read(name)
        start = self._stored_start(info)
        view = memoryview(self.map)[start : start + info.compress_size]
        if name not in self._crc_checked:
            if zlib.crc32(view) != info.CRC:
                raise ZipRefused("corrupt zip entry (bad CRC-32)")
            self._crc_checked.add(name)
        return view

    def check_crc(self, name: str) -> None:
        """Refuse entry `name` if its data does not match the CRC-32 its directory entry records."""
        if zlib.crc32(self.view(name)) != self.infos[name].CRC:
            raise ZipRefused("corrupt zip entry (bad CRC-32)")

    def open(self, name: str) -> IO[bytes]:
        """A stream over entry `name`, inflated as it is read (for looking at a header first)."""
        try:
            return self.zip.open(self.infos[name])
        except _READ_ERRORS as e:
            raise ZipRefused(f"corrupt zip entry ({e})") from None

    def _read_stored(self, info: zipfile.ZipInfo) -> bytes:
        """An uncompressed entry, sliced from the archive (what torch and numpy write)."""
        raw = self._slice(self._stored_start(info), info.compress_size)
        if zlib.crc32(raw) != info.CRC:
            raise ZipRefused("corrupt zip entry (bad CRC-32)")
        return raw

    def _stored_start(self, info: zipfile.ZipInfo) -> int:
        """Where the data of an uncompressed entry starts, its local header and bounds checked."""
        offset = info.header_offset
        header = self._slice(offset, 30)
        if len(header) != 30 or header[:4] != b"PK\x03\x04":
            raise ZipRefused("corrupt zip entry (bad local header)")
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        name = self._slice(offset + 30, name_len)
        if name.decode("utf-8", "replace") != info.orig_filename and name.decode("cp437") != info.orig_filename:
            raise ZipRefused("corrupt zip entry (file name in directory and header differ)")
        start = offset + 30 + name_len + extra_len
        if info.file_size != info.compress_size or start + info.compress_size > self.size:
            raise ZipRefused("corrupt zip entry (truncated or inconsistent sizes)")
        return start

    def _slice(self, start: int, length: int) -> bytes:
        if isinstance(self.file, io.BytesIO):
            return self.file.getbuffer()[start : start + length].tobytes()
        self.file.seek(start)
        return self.file.read(length)


def _check_no_overlap(infos: list[zipfile.ZipInfo], directory_start: int) -> None:
    """
    Refuse entries whose data, as the central directory places it, runs into the
    next entry or the directory itself (an overlapping-entry zip bomb, or a view
    of one entry that would show another's bytes). The local extra field's length
    is only known from the local header, so each entry is given at least its
    fixed header, its name and its compressed size.
    """
    spans: list[tuple[int, int, str]] = []
    for info in infos:
        utf8 = bool(info.flag_bits & 0x800)
        try:
            name_len = len(info.orig_filename.encode("utf-8" if utf8 else "cp437"))
        except UnicodeEncodeError:
            name_len = len(info.orig_filename.encode("utf-8"))
        spans.append((info.header_offset, info.header_offset + 30 + name_len + info.compress_size, info.filename))
    spans.sort()
    for (_, end, name), (next_start, _, next_name) in zip(spans, spans[1:]):
        if end > next_start:
            raise ZipRefused(f"zip entries {name!r} and {next_name!r} overlap; refusing the archive")
    if spans and spans[-1][1] > directory_start:
        raise ZipRefused(f"zip entry {spans[-1][2]!r} runs into the central directory; refusing the archive")


def is_pickle(head: bytes) -> bool:
    """Whether bytes start like a pickle of protocol 2 to 5 (torch.save's legacy format among them),
    which the readers refuse by its first bytes, never unpickling it."""
    return len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5
