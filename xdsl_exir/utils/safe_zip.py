"""
Zip archives from strangers: the `.pt2` reader and `exir-run --inputs IN.npz`
both open zips a user handed them, so both go through the one set of rules here.

`CheckedZip` refuses an archive whose central directory is unsound, holds more
than `MAX_ENTRIES` entries, has entry names that are absolute or climb out with
`..`, names an entry twice, is encrypted, uses an unknown compression method,
or declares uncompressed sizes no honest archive has (zip bombs: an entry above
`MAX_COMPRESSION_RATIO`, or entries that together claim more than that ratio of
the archive's size). Those checks look only at the directory, so nothing is
inflated before they pass; `read` then checks each entry's local header, size
and CRC-32, and `open` streams an entry for callers that want to look at its
first bytes (an `.npy` header) before inflating the rest.
"""

from __future__ import annotations

import io
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
        """`data` is the whole archive, or a seekable binary file holding it (not read whole)."""
        self.file: IO[bytes] = io.BytesIO(data) if isinstance(data, bytes) else data
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
        self.size = size
        self.infos: dict[str, zipfile.ZipInfo] = {i.filename: i for i in infos}

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

    def open(self, name: str) -> IO[bytes]:
        """A stream over entry `name`, inflated as it is read (for looking at a header first)."""
        try:
            return self.zip.open(self.infos[name])
        except _READ_ERRORS as e:
            raise ZipRefused(f"corrupt zip entry ({e})") from None

    def _read_stored(self, info: zipfile.ZipInfo) -> bytes:
        """An uncompressed entry, sliced from the archive (what torch and numpy write)."""
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
        raw = self._slice(start, info.compress_size)
        if zlib.crc32(raw) != info.CRC:
            raise ZipRefused("corrupt zip entry (bad CRC-32)")
        return raw

    def _slice(self, start: int, length: int) -> bytes:
        if isinstance(self.file, io.BytesIO):
            return self.file.getbuffer()[start : start + length].tobytes()
        self.file.seek(start)
        return self.file.read(length)


def is_pickle(head: bytes) -> bool:
    """Whether bytes start like a pickle of protocol 2 to 5 (torch.save's legacy format among them),
    which the readers refuse by its first bytes, never unpickling it."""
    return len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5
