"""
IREE's on-disk compile cache: where it lives (`default_cache_dir`), the key of a
module (`cache_key`: the compiler's version, the flags, what `-target-cpu=host`
reads of this machine, and the text), and the cached files, each ending with a
tag and the SHA-256 of the module so that a damaged one is dropped and compiled
again (`read_cached`, `write_cached`). `targets/iree.py` compiles through it.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import platform
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass


def default_cache_dir() -> pathlib.Path:
    if env := os.environ.get("EXIR_IREE_CACHE"):
        return pathlib.Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "xdsl-exir" / "iree"


def host_id() -> str:
    """What `-target-cpu=host` depends on: machine and CPU model and features."""
    parts = [platform.machine(), platform.system()]
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("model name", "flags", "Features")):
                    parts.append(line.strip())
                    if len(parts) >= 4:
                        break
    except OSError:
        parts.append(platform.processor())
    return "\n".join(parts)


def cache_key(text: str, flags: Sequence[str], compiler_version: str) -> str:
    h = hashlib.sha256()
    for part in (compiler_version, "\0".join(flags), host_id(), text):
        h.update(part.encode())
        h.update(b"\0\0")
    return h.hexdigest()


@dataclass
class CompileResult:
    vmfb: bytes
    from_cache: bool
    key: str


CACHE_TAG = b"exir-vmfb-sha256:"
"""A cached module ends with this tag and the SHA-256 of the module before it."""


def read_cached(path: pathlib.Path) -> bytes | None:
    """
    A cached module if it is whole: its recorded digest matches. A truncated or
    damaged file (a full disk, a killed writer, a stray edit) is deleted, so the
    caller compiles again instead of failing on it at every later run.
    """
    try:
        data = path.read_bytes()
    except OSError:
        return None
    cut = len(data) - len(CACHE_TAG) - 32
    if cut >= 0 and data[cut : cut + len(CACHE_TAG)] == CACHE_TAG:
        vmfb = data[:cut]
        if hashlib.sha256(vmfb).digest() == data[cut + len(CACHE_TAG) :]:
            return vmfb
    drop_cached(path)
    return None


def drop_cached(path: pathlib.Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def write_cached(cache: pathlib.Path, path: pathlib.Path, vmfb: bytes) -> None:
    try:
        cache.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=cache, prefix=".vmfb-")
        with os.fdopen(fd, "wb") as f:
            f.write(vmfb + CACHE_TAG + hashlib.sha256(vmfb).digest())
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache only costs a recompile next time
