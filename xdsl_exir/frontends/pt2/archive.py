"""
The archive itself: checked, read-only access to the entries of a `torch.export.save` zip
(by the rules of `utils/safe_zip.py`), the names of the entries the program is read from, and
the error types. `Fail` is raised deep in the import and carries one message; `load_pt2` turns it
into a `Pt2Error` naming the archive. `field` and `union` read the serialized JSON, failing with
a message instead of a Python error on malformed data.
"""

from __future__ import annotations

import json
from typing import IO, Any, NoReturn, cast

from xdsl.utils.exceptions import VerifyException

from xdsl_exir.utils.safe_zip import CheckedZip, ZipRefused


class Pt2Error(Exception):
    """A `.pt2` archive that cannot be imported; the message names the place."""


# ---------------------------------------------------------------------------
# Limits and entry names
# ---------------------------------------------------------------------------

MAX_UNUSED_ENTRIES = 1_000
"""
Entries the program does not refer to that an archive may hold. torch writes a
handful (`archive_version`, `.data/*`, sample inputs, extra files); the storage
files are counted by the payload configs that name them, so a real archive with
many weights still passes, while one padded with thousands of stray entries is
refused. (The zip rules of `safe_zip` cap the total beforehand.)
"""

ARCHIVE_VERSION = "0"
"""The `archive_version` record torch 2.13 writes and `torch.export.load` insists on."""

SCHEMA_MAJOR = 8
MODEL_JSON = "models/model.json"
WEIGHTS_DIR = "data/weights/"
CONSTANTS_DIR = "data/constants/"
WEIGHTS_CONFIG = WEIGHTS_DIR + "model_weights_config.json"
CONSTANTS_CONFIG = CONSTANTS_DIR + "model_constants_config.json"


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


class Fail(Exception):
    """An import failure; callers up the stack prefix the place they are at."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def fail(message: str) -> NoReturn:
    raise Fail(message)


def malformed(e: Exception) -> str:
    """Describe a Python error raised while walking malformed JSON."""
    if isinstance(e, KeyError):
        return f"malformed entry: missing field {e.args[0]!r}"
    return f"malformed entry ({type(e).__name__}: {e})"


JSON_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError, VerifyException)
"""What walking malformed JSON raises (attributes verify their data when built)."""


def field(obj: object, key: str, kind: type | tuple[type, ...], what: str) -> Any:
    """`obj[key]`, checked to be of `kind`."""
    if type(obj) is not dict:
        fail(f"{what} is not a JSON object")
    value = cast(dict[str, object], obj).get(key)
    if type(value) is kind:
        return value
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        if key not in cast(dict[str, object], obj):
            fail(f"{what} has no field '{key}'")
        fail(f"field '{key}' of {what} is not {_kind_name(kind)}: {value!r}"[:300])
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {
        dict: "an object",
        list: "a list",
        str: "a string",
        int: "an integer",
        bool: "a boolean",
    }
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def union(obj: object, what: str) -> tuple[str, Any]:
    """The single `(kind, value)` of a serialized union (`{"as_tensor": ...}`)."""
    if type(obj) is dict and len(obj) == 1:
        for item in obj.items():
            return cast(tuple[str, Any], item)
    fail(f"{what} is not a one-field union object: {obj!r}"[:300])


# ---------------------------------------------------------------------------
# The zip archive
# ---------------------------------------------------------------------------


class Archive:
    """Checked, read-only access to the entries of a pt2 zip archive (the rules of `safe_zip`)."""

    def __init__(self, data: bytes | IO[bytes], filename: str) -> None:
        self.filename = filename
        try:
            self.zip = CheckedZip(data)
        except ZipRefused as e:
            raise Pt2Error(f"{filename}: {e}") from None
        self.byte_order = "little"
        infos = list(self.zip.infos.values())
        files = [i.filename for i in infos if not i.is_dir()]
        roots = {n.split("/", 1)[0] for n in files if "/" in n}
        if not files:
            raise Pt2Error(f"{filename}: the zip archive is empty")
        if len(roots) != 1 or any("/" not in n for n in files):
            raise Pt2Error(
                f"{filename}: not a torch.export archive: entries must sit under one top "
                f"folder (found {', '.join(sorted(roots)) or 'entries at the top level'})"
            )
        self.root = roots.pop() + "/"
        self.names = {n[len(self.root) :] for n in files}

    def has(self, rel: str) -> bool:
        return rel in self.names

    def read(self, rel: str) -> bytes:
        """The bytes of entry `rel` (relative to the archive's top folder)."""
        if rel not in self.names:
            raise Fail(f"missing entry '{rel}'")
        try:
            return self.zip.read(self.root + rel)
        except ZipRefused as e:
            raise Fail(f"{rel}: {e}") from None

    def view(self, rel: str) -> bytes | memoryview:
        """The data of entry `rel` without a copy where it can be mapped (`CheckedZip.view`)."""
        if rel not in self.names:
            raise Fail(f"missing entry '{rel}'")
        try:
            return self.zip.view(self.root + rel)
        except ZipRefused as e:
            raise Fail(f"{rel}: {e}") from None

    def read_json(self, rel: str) -> dict[str, Any]:
        raw = self.read(rel)
        try:
            value = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as e:
            raise Fail(f"{rel}: not UTF-8 text ({e})") from None
        except json.JSONDecodeError as e:
            raise Fail(
                f"{rel}: malformed JSON at line {e.lineno} column {e.colno}: {e.msg}"
            ) from None
        except RecursionError:
            raise Fail(f"{rel}: JSON nested too deeply") from None
        except ValueError as e:  # an integer beyond Python's int-string limit
            raise Fail(f"{rel}: malformed JSON ({e})") from None
        if not isinstance(value, dict):
            raise Fail(f"{rel}: expected a JSON object at the top level")
        return cast(dict[str, Any], value)
