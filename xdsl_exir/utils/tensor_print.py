"""
Tensors as torch's ATen formatting prints them (`at::print`, `std::ostream << tensor`
of a CPU tensor): the layout TorchScript dumps give tensor constants of up to ten
elements.

Part of the torch-free core because two layers use it: the dump printer
(`targets/torchscript_dump_printer.py`) writes it, and the dump reader
(`frontends/torchscript_dump_reader/`) checks that the values it read back
print as torch printed them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["format_tensor_print"]


@dataclass
class _Format:
    scale: float
    width: int
    mode: str  # "g" (defaultfloat), "e" (scientific, 4 digits) or "f" (fixed, 4 digits)

    def __call__(self, x: float) -> str:
        x = x / self.scale
        if self.mode == "g":
            return f"{x:>{self.width}g}"
        return f"{x:>{self.width}.4{self.mode}}"


def _print_format(values: Sequence[float]) -> _Format:
    """at::print's choice of width, scale and notation for a set of elements."""
    if not values:
        return _Format(1.0, 0, "g")
    finite = [x for x in values if math.isfinite(x)]
    int_mode = all(x == math.ceil(x) for x in finite)
    if not finite:
        exp_min = exp_max = 1.0
    else:
        exp_min = min(abs(x) for x in finite)
        exp_max = max(abs(x) for x in finite)
        exp_min = math.floor(math.log10(exp_min)) + 1 if exp_min != 0 else 1
        exp_max = math.floor(math.log10(exp_max)) + 1 if exp_max != 0 else 1
    if int_mode:
        if exp_max > 9:
            return _Format(1.0, 11, "e")
        return _Format(1.0, int(exp_max) + 1, "g")
    if exp_max - exp_min > 4:
        width = 12 if abs(exp_max) > 99 or abs(exp_min) > 99 else 11
        return _Format(1.0, width, "e")
    if exp_max > 5 or exp_max < 0:
        return _Format(10.0 ** (exp_max - 1), 7, "f")
    return _Format(1.0, 7 if exp_max == 0 else int(exp_max) + 6, "f")


def _scale_line(scale: float) -> str:
    text = repr(scale)  # the shortest round-trip digits, as fmt's `{}` writes them
    return (text[:-2] if text.endswith(".0") else text) + " *\n"


def _print_matrix(values: Sequence[float], rows: int, cols: int, indent: int, linesize: int = 80) -> str:
    fmt = _print_format(values)
    pad = " " * indent
    out = [pad]
    per_line = (linesize - indent) // (fmt.width + 1)
    first = 0
    while first < cols:
        last = first + per_line - 1 if first + per_line <= cols else cols - 1
        if per_line < cols:
            if first != 0:
                out.append("\n")
            out.append(f"Columns {first + 1} to {last + 1}")
            out.append(pad)
        if fmt.scale != 1:
            out.append(_scale_line(fmt.scale))
            out.append(pad)
        for r in range(rows):
            for c in range(first, last + 1):
                out.append(fmt(values[r * cols + c]))
                if c == last:
                    out.append("\n")
                    if r != rows - 1:
                        out.append(pad + " " if fmt.scale != 1 else pad)
                else:
                    out.append(" ")
        first = last + 1
    return "".join(out)


def format_tensor_print(values: Sequence[float], shape: list[int], scalar: str) -> str:
    """`std::ostream << tensor` for a CPU tensor (torch's ATen Formatting), newlines made spaces as in dumps."""
    return _at_print(values, shape, scalar).replace("\n", " ")


def _at_print(values: Sequence[float], shape: list[int], scalar: str) -> str:
    out: list[str] = []
    n = len(values)
    if len(shape) == 1:
        if n:
            fmt = _print_format(values)
            if fmt.scale != 1:
                out.append(_scale_line(fmt.scale))
            out.extend(fmt(x) + "\n" for x in values)
    elif len(shape) == 2:
        if n:
            out.append(_print_matrix(values, shape[0], shape[1], 0))
    elif n:
        lead = shape[:-2]
        rows, cols = shape[-2], shape[-1]
        counter = [0] * len(lead)
        counter[0] = -1
        start = True
        while True:
            i = 0
            finished = False
            while True:  # the odometer turns its first digit fastest
                counter[i] += 1
                if counter[i] >= lead[i]:
                    if i == len(lead) - 1:
                        finished = True
                        break
                    counter[i] = 0
                    i += 1
                else:
                    break
            if finished:
                break
            if not start:
                out.append("\n")
            start = False
            out.append("(" + "".join(f"{c + 1}," for c in counter) + ".,.) =\n")
            base = 0
            for d, c in zip(lead, counter):
                base = base * d + c
            size = rows * cols
            out.append(_print_matrix(values[base * size : (base + 1) * size], rows, cols, 1))
    dims = ",".join(str(d) for d in shape)
    out.append(f"[ CPU{scalar}Type{{{dims}}} ]")
    return "".join(out)
