"""
How large a tensor may be before the tools refuse to allocate it.

Sizes reach us from places a stranger controls: a program's static types, the
header of an `.npy` in an input `.npz`, an archive's tensor metadata, the sizes a
creation op is called with. Left to numpy, `[10**11, 10**11]` fails deep inside
with "array is too big" and `[40000, 40000]` with a `MemoryError` (or the machine
swaps). Every place that materializes a tensor from such a claim asks
`check_tensor_bytes` first, so the refusal names the tensor, its size in bytes
and the limit, and says how to raise it.

The limit is a context variable rather than a parameter threaded through every
layer: the tools set it once per run (`--max-tensor-bytes`) with
`max_tensor_bytes(n)`, and library users can do the same around their own calls.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

__all__ = [
    "DEFAULT_MAX_TENSOR_BYTES",
    "TensorSizeError",
    "check_tensor_bytes",
    "format_bytes",
    "max_tensor_bytes",
    "parse_byte_size",
    "tensor_bytes_limit",
]

DEFAULT_MAX_TENSOR_BYTES = 8 << 30
"""8 GiB: more than any one tensor of a model a numpy interpreter runs, less than most machines hold."""

NUMPY_MAX_BYTES = int(np.iinfo(np.intp).max)
"""numpy cannot represent an array of more bytes than this, whatever the limit."""

_LIMIT: ContextVar[int] = ContextVar("max_tensor_bytes", default=DEFAULT_MAX_TENSOR_BYTES)

LIMIT_HINT = "--max-tensor-bytes raises the limit"
"""How a user raises the limit (both tools take the option)."""


class TensorSizeError(ValueError):
    """A tensor refused before allocation: negative sizes, or more bytes than allowed."""


def tensor_bytes_limit() -> int:
    """The limit in force for the current context."""
    return _LIMIT.get()


@contextmanager
def max_tensor_bytes(limit: int) -> Iterator[None]:
    """Refuse tensors of more than `limit` bytes inside the `with` block."""
    token = _LIMIT.set(limit)
    try:
        yield
    finally:
        _LIMIT.reset(token)


def format_bytes(n: int) -> str:
    """`12884901888 bytes (12.0 GiB)`: exact for grep, rounded for people."""
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n} bytes ({n / (1 << shift):.1f} {unit})"
    return f"{n} bytes"


def check_tensor_bytes(what: str, shape: Sequence[int], itemsize: int) -> int:
    """
    The byte size of a `shape` tensor of `itemsize`-byte elements; raises
    `TensorSizeError` naming `what` if it is negative, beyond numpy, or over the limit.
    """
    sizes = [int(s) for s in shape]
    if any(s < 0 for s in sizes):
        raise TensorSizeError(f"{what}: negative size in {sizes}")
    nbytes = math.prod(sizes) * itemsize
    if nbytes > NUMPY_MAX_BYTES:
        raise TensorSizeError(
            f"{what}: a tensor of {_shown(sizes)} would need {nbytes} bytes, more than numpy can "
            "represent; refusing to allocate it"
        )
    limit = _LIMIT.get()
    if nbytes > limit:
        raise TensorSizeError(
            f"{what}: a tensor of {_shown(sizes)} would need {format_bytes(nbytes)}, more than the "
            f"limit of {format_bytes(limit)}; refusing to allocate it ({LIMIT_HINT})"
        )
    return nbytes


def _shown(sizes: list[int]) -> str:
    """The sizes in a refusal (built only when refusing: the check runs on every allocation)."""
    return f"sizes {sizes}" if len(sizes) <= 8 else f"{len(sizes)} dimensions"


_SIZE = re.compile(r"(\d+)\s*([KMGT]?)(?:i?B)?", re.IGNORECASE)


def parse_byte_size(text: str) -> int:
    """`8G`, `512MiB`, `1000000`: a byte count with an optional binary suffix (for argparse)."""
    m = _SIZE.fullmatch(text.strip())
    if m is None or len(m.group(1)) > 30:
        raise ValueError(f"not a byte count: {text!r} (write e.g. 4096, 512M or 16G)")
    return int(m.group(1)) << (10 * " KMGT".index(m.group(2).upper() or " "))
