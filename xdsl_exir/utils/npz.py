"""
`.npz` files from strangers (`exir-run --inputs IN.npz`).

`numpy.load` inflates a member whole before it reads the member's header, so an
entry that inflates to gigabytes, or a header claiming shape `(10**12,)`, costs
that memory before anything can refuse it. Here the archive goes through the
zip rules of `safe_zip` (the ones `.pt2` archives get), each `.npy` header is read
from the entry's stream first and checked — no object arrays (they would need
unpickling), sizes within the tensor size limit of `limits`, data exactly as long
as the header says — and only then is the data inflated.

bfloat16 and float8 tensors (`ml_dtypes` arrays in the interpreter) have no
`.npy` form numpy reads back without `ml_dtypes` (their header is an opaque
`|V2`), so `.npz` files carry them as float32 (`npz_array`), which holds every
bfloat16 and float8 value exactly: an output is written widened, and a float32
input of a bfloat16 or float8 tensor is rounded to that dtype by the runner, so
an output fed back as an input gives the same bits.
"""

from __future__ import annotations

import math
import os
import tokenize
import zipfile
import zlib
from typing import IO, Any

import numpy as np

from xdsl_exir.utils.dtypes import to_float32
from xdsl_exir.utils.limits import check_tensor_bytes
from xdsl_exir.utils.safe_zip import CheckedZip, ZipRefused

__all__ = ["NpzError", "npz_array", "read_npz"]


def npz_array(value: Any) -> np.ndarray:
    """A value as `.npz` stores it: bfloat16 and float8 widened (exactly) to float32."""
    return np.asarray(to_float32(np.asarray(value)))

_MAX_HEADER = 1 << 16
"""numpy writes headers of well under a kilobyte; its own reader stops at 10,000 bytes by default."""


_HEADER_ERRORS = (
    ValueError,  # malformed header dict, numbers beyond the int-string limit
    TypeError,
    SyntaxError,
    OverflowError,
    MemoryError,
    RecursionError,  # ast.literal_eval of a deeply nested header
    EOFError,
    OSError,
    zipfile.BadZipFile,
    zlib.error,
    tokenize.TokenError,  # numpy re-tokenizes headers of old files
)
"""What reading an `.npy` header from a hostile, possibly corrupt, stream raises."""


_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
"""
A zip starts with its first member's local header; one without members (what
`np.savez()` writes for a program of no inputs) is only its end-of-central-
directory record, whose signature is the second.
"""


class NpzError(ValueError):
    """An `.npz` that cannot be read safely; the message names the file and member."""


def read_npz(path: str) -> dict[str, np.ndarray]:
    """Every array of the `.npz` at `path`, by key (member name without `.npy`)."""
    if not os.path.isfile(path):
        raise NpzError(f"{path}: no such file")
    with open(path, "rb") as f:
        if f.read(4) not in _ZIP_MAGIC:
            raise NpzError(f"{path}: not an .npz file (numpy.savez output)")
        try:
            archive = CheckedZip(f)
            arrays: dict[str, np.ndarray] = {}
            for name, info in archive.infos.items():
                if info.is_dir():
                    continue
                if not name.endswith(".npy"):
                    raise NpzError(f"{path}: member '{name}' is not an .npy array")
                arrays[name[:-4]] = _read_member(archive, name, f"{path}: '{name[:-4]}'")
        except ZipRefused as e:
            raise NpzError(f"{path}: {e}") from None
    return arrays


def _read_member(archive: CheckedZip, name: str, where: str) -> np.ndarray:
    with archive.open(name) as stream:
        shape, fortran, dtype, header_len = _read_header(stream, where)
    if dtype.hasobject:
        raise NpzError(f"{where}: holds Python objects (dtype {dtype}), which would need unpickling; refused")
    try:
        nbytes = check_tensor_bytes(where, shape, dtype.itemsize)
    except ValueError as e:
        raise NpzError(str(e)) from None
    stored = archive.infos[name].file_size - header_len
    if stored != nbytes:
        raise NpzError(
            f"{where}: the header says {dtype} of shape {list(shape)} ({nbytes} bytes) but the "
            f"member holds {stored} bytes of data"
        )
    raw = archive.read(name)
    try:
        flat = np.frombuffer(raw, dtype=dtype, count=math.prod(shape), offset=header_len)
        return flat.reshape(shape, order="F" if fortran else "C").copy(order="K")
    except ValueError as e:  # e.g. a zero-sized dtype
        raise NpzError(f"{where}: cannot hold {dtype} of shape {list(shape)} ({e})") from None


def _read_header(stream: IO[bytes], where: str) -> tuple[tuple[int, ...], bool, np.dtype[Any], int]:
    """Shape, Fortran order, dtype and header length of an `.npy` stream, without its data."""
    fmt = np.lib.format
    try:
        version = fmt.read_magic(stream)
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(stream, max_header_size=_MAX_HEADER)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = fmt.read_array_header_2_0(stream, max_header_size=_MAX_HEADER)
        else:
            raise NpzError(f"{where}: unknown .npy format version {version}")
    except NpzError:
        raise
    except (*_HEADER_ERRORS, ZipRefused) as e:
        raise NpzError(f"{where}: not a readable .npy header ({e})") from None
    return tuple(int(s) for s in shape), bool(fortran), dtype, stream.tell()
