"""
Tensors as at::print writes them in a dump (a scale factor, `(1,.,.) =` matrix heads, `Columns
m to n` chunks), read back into values, and values turned into the bytes of a tensor whose
print gives the same text back (an element nudged by one ulp where needed).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

from xdsl_exir.dialects.ts import SCALAR_TYPES
from xdsl_exir.utils.dtypes import DType
from xdsl_exir.utils.tensor_data import bytes_from_array, storage_dtype
from xdsl_exir.utils.tensor_print import format_tensor_print

NUMBER = re.compile(r"[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf|nan)(?![\w.])")
_MATRIX_HEAD = re.compile(r"\((?:\d+,)+\.,\.\) =")
_COLUMNS = re.compile(r"Columns (\d+) to (\d+)")
_SCALE = re.compile(r"\s*([-+]?[\d.]+(?:e[-+]?\d+)?) \*")


_NUDGEABLE = {"Half": "<f2", "Float": "<f4", "Double": "<f8", "BFloat16": "<f4"}


def keep_layout(
    values: list[float | int], dims: list[int], scalar: str, printed: str, body: str
) -> list[float | int]:
    """
    The values read from a print, nudged (by one ulp) where that keeps the print.

    torch prints four decimals, so `100000 *  3.2122` reads back as the integer
    321220, which torch would print as an integer. Where a block printed with
    decimals reads back all integers, moving one element off the integer (far
    below the print's own precision) makes it print as torch printed it.
    """
    if scalar not in _NUDGEABLE or not values:
        return values
    if scalar == "BFloat16":  # float32 holding bfloat16 values; one bfloat16 ulp is 1 << 16 in the bits
        bits = np.frombuffer(tensor_bytes(values, scalar), dtype="<u2").astype(np.uint32) << 16
        arr = bits.view(np.float32).copy()
    else:
        arr = np.asarray(values, dtype=_NUDGEABLE[scalar])  # the values as stored
    if format_tensor_print([float(x) for x in arr.astype(np.float64)], dims, scalar) == printed:
        return values
    if len(dims) > 2:  # at::print formats each matrix alone
        size = dims[-2] * dims[-1]
        heads = list(_MATRIX_HEAD.finditer(body))
        texts = [body[h.end() : heads[i + 1].start() if i + 1 < len(heads) else len(body)] for i, h in enumerate(heads)]
        order = [_matrix_offset(h.group(0), dims) for h in heads]
    else:
        size, texts, order = len(values), [body], [0]
    def away_from_zero(i: int) -> None:
        if scalar == "BFloat16":
            arr[i : i + 1] = (arr[i : i + 1].view(np.uint32) + np.uint32(1 << 16)).view(np.float32)
        else:
            arr[i] = np.nextafter(arr[i], np.copysign(np.inf, arr[i]), dtype=arr.dtype)

    # an element printed as a power of ten but stored just below it changes at::print's exponents
    for i, x in enumerate(arr.astype(np.float64)):
        if math.isfinite(x) and x != 0:
            p = 10.0 ** round(math.log10(abs(x)))
            for _ in range(4):
                if not (abs(float(arr[i])) < p and math.isclose(abs(float(arr[i])), p, rel_tol=1e-6)):
                    break
                away_from_zero(i)
    for start, text in zip(order, texts):
        block = arr[start : start + size]
        finite = np.isfinite(block)
        if not finite.any() or (block[finite] != np.ceil(block[finite])).any():
            continue
        if "." not in text or ("e" in text and np.abs(block[finite]).max() >= 1e9):
            continue  # printed as integers (the scientific form too, past 1e9): nothing to keep
        k = int(np.argmax(np.where(finite, np.abs(block), -1)))
        if block[k] != 0:
            away_from_zero(start + k)
    nudged: list[float | int] = [float(x) for x in arr.astype(np.float64)]
    return nudged if format_tensor_print(nudged, dims, scalar) == printed else values


def _matrix_offset(head: str, dims: list[int]) -> int:
    """The offset of the first element of the matrix headed `(i,j,.,.) =`."""
    base = 0
    for d, i in zip(dims[:-2], head[1:].split(",")[:-2]):
        base = base * d + int(i) - 1
    return base * dims[-2] * dims[-1]


def tensor_print_values(body: str, dims: list[int]) -> list[float | int]:
    """The elements of torch's small-tensor print, in row-major order."""
    numel = math.prod(dims)
    if numel == 0:
        if body.strip():
            raise ValueError("an empty tensor prints no elements")
        return []
    if len(dims) <= 2:
        rows, cols = (1, dims[0]) if len(dims) == 1 else (dims[0], dims[1])
        if len(dims) == 1:
            body = _COLUMNS.sub(" ", body)  # never printed for vectors; harmless
            scale, rest = _split_scale(body)
            vals = _numbers(rest)
            if len(vals) != numel:
                raise ValueError(f"{len(vals)} elements for sizes {dims}")
            return [v * scale for v in vals]
        return _matrix_values(body, rows, cols)
    # (i,j,.,.) = <matrix> ..., the first index varying fastest
    heads = list(_MATRIX_HEAD.finditer(body))
    lead = dims[:-2]
    count = math.prod(lead)
    if len(heads) != count:
        raise ValueError(f"{len(heads)} matrices for sizes {dims}")
    rows, cols = dims[-2], dims[-1]
    out: list[float | int] = [0] * numel
    for k, h in enumerate(heads):
        end = heads[k + 1].start() if k + 1 < len(heads) else len(body)
        index = [int(x) - 1 for x in h.group(0)[1:].split(",")[:-2]]
        base = 0
        for d, i in zip(lead, index):
            if not 0 <= i < d:
                raise ValueError(f"matrix index {index} out of sizes {dims}")
            base = base * d + i
        for j, v in enumerate(_matrix_values(body[h.end() : end], rows, cols)):
            out[base * rows * cols + j] = v
    return out


def _matrix_values(body: str, rows: int, cols: int) -> list[float | int]:
    """One printed matrix, maybe split into `Columns a to b` blocks, each maybe scaled."""
    parts = list(_COLUMNS.finditer(body))
    spans: list[tuple[int, int, str]] = []
    if not parts:
        spans.append((0, cols - 1, body))
    else:
        if body[: parts[0].start()].strip():
            raise ValueError("text before 'Columns'")
        for k, p in enumerate(parts):
            end = parts[k + 1].start() if k + 1 < len(parts) else len(body)
            spans.append((int(p.group(1)) - 1, int(p.group(2)) - 1, body[p.end() : end]))
    out: list[float | int] = [0] * (rows * cols)
    for first, last, text in spans:
        if not 0 <= first <= last < cols:
            raise ValueError(f"columns {first + 1} to {last + 1} of a matrix of {cols} columns")
        scale, rest = _split_scale(text)
        vals = _numbers(rest)
        width = last - first + 1
        if len(vals) != rows * width:
            raise ValueError(f"{len(vals)} elements in columns {first + 1} to {last + 1} of {rows} rows")
        for r in range(rows):
            for c in range(width):
                out[r * cols + first + c] = vals[r * width + c] * scale
    return out


def _split_scale(text: str) -> tuple[float, str]:
    m = _SCALE.match(text)
    if m is None:
        return 1, text
    return float(m.group(1)), text[m.end() :]


def _numbers(text: str) -> list[float | int]:
    out: list[float | int] = []
    for tok in text.split():
        if not NUMBER.fullmatch(tok):
            raise ValueError(f"unexpected '{tok}'")
        out.append(int(tok) if re.fullmatch(r"[-+]?\d+", tok) else float(tok))
    return out


def tensor_bytes(values: Sequence[float | int | complex], scalar: str) -> bytes:
    """Little-endian contiguous bytes of `values` as a tensor of TorchScript scalar type `scalar`."""
    dtype = SCALAR_TYPES[scalar]
    if dtype.is_complex:
        array = np.asarray(values, dtype=np.complex128)
    elif dtype is DType.bool:
        array = np.asarray([bool(x) for x in values], dtype=np.bool_)
    elif dtype.is_integral:  # clamped: a print like -9.2234e+18 rounds past the range
        info = np.iinfo(storage_dtype(dtype))
        reals = [x for x in values if not isinstance(x, complex)]  # the builder stores complex values as complex only
        ints = [min(max(int(x), int(info.min)), int(info.max)) if math.isfinite(x) else 0 for x in reals]
        array = np.asarray(ints, dtype=object).astype(storage_dtype(dtype))
    else:
        array = np.asarray(values, dtype=np.float32 if dtype is DType.bfloat16 else np.float64)
    return bytes_from_array(array, dtype)
