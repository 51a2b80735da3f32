"""
A node's metadata as IR: its `stack_trace` as a location (the innermost frame outside torch and
the standard library), and `nn_module_stack`, `source_fn_stack`, `torch_fn` and `custom` as
discardable attributes, shared between the many nodes that repeat them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import cast

from xdsl.dialects.builtin import ArrayAttr, CallSiteLoc, FileLineColLoc, IntAttr, LocationAttr, StringAttr
from xdsl.ir import Attribute

from xdsl_exir.utils.diagnostics import LIBRARY_FILE

_FRAME = re.compile(r'File "([^"\n]*)", line (\d+)')


def stack_trace_location(stack_trace: str) -> LocationAttr | None:
    """`callsite(innermost at callsite(... at outermost))` from a Python traceback.

    The innermost frames inside torch or the standard library are dropped, so
    the location of an `nn.Module` call names the line of the user's model that
    made it, not `torch/nn/modules/conv.py`; a trace with no frame outside them
    keeps all its frames.
    """
    frames: list[tuple[str, str]] = _FRAME.findall(stack_trace)
    if any(not LIBRARY_FILE.search(path) for path, _ in frames):
        while LIBRARY_FILE.search(frames[-1][0]):
            frames.pop()
    loc: LocationAttr | None = None
    for path, line in frames:
        frame = FileLineColLoc(StringAttr(path), IntAttr(int(line)), IntAttr(0))
        loc = frame if loc is None else CallSiteLoc(frame, loc)
    return loc


def _split_top_level(text: str) -> list[str]:
    """Split at commas outside brackets, as torch's own reader does."""
    out: list[str] = []
    start = depth = 0
    for i, c in enumerate(text):
        if c in "[(":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return out


def _string_rows(rows: Sequence[Sequence[str]]) -> ArrayAttr[Attribute]:
    return ArrayAttr(ArrayAttr(StringAttr(c) for c in row) for row in rows)


_STACK_ROWS: dict[str, Attribute | None] = {}


def _stack_row(item: str) -> Attribute | None:
    """One `key,path,type` entry (shared by the many stacks that contain it)."""
    row = _STACK_ROWS.get(item, _STACK_ROWS)
    if row is _STACK_ROWS:
        parts = _split_top_level(item) if "[" in item or "(" in item else item.split(",")
        row = ArrayAttr(StringAttr(p) for p in parts) if len(parts) == 3 else None
        if len(_STACK_ROWS) < 1 << 16:
            _STACK_ROWS[item] = row
    return cast(Attribute | None, row)


def _nn_module_stack(text: str) -> Attribute:
    rows = [_stack_row(item) for item in text.split(";")]
    if any(r is None for r in rows):
        return StringAttr(text)
    return ArrayAttr(cast(list[Attribute], rows))


def _source_fn_stack(text: str) -> Attribute:
    rows = [item.split(",") for item in text.split(";")]
    if any(len(r) != 2 for r in rows):
        return StringAttr(text)
    return _string_rows(rows)


_FN_NAMES: dict[str, StringAttr] = {}


def _torch_fn(text: str) -> Attribute:
    """`name;qualified` (the name is per node, the qualified function is shared)."""
    parts = text.split(";")
    if len(parts) != 2:
        return ArrayAttr(tuple(StringAttr(p) for p in parts))
    fn = _FN_NAMES.get(parts[1])
    if fn is None:
        fn = StringAttr(parts[1])
        if len(_FN_NAMES) < 1 << 16:
            _FN_NAMES[parts[1]] = fn
    return ArrayAttr((StringAttr(parts[0]), fn))


META_ATTRS: dict[str, Callable[[str], Attribute]] = {
    "nn_module_stack": _nn_module_stack,
    "source_fn_stack": _source_fn_stack,
    "torch_fn": _torch_fn,
    "custom": StringAttr,
}
"""Node metadata kept as discardable attributes (`from_node` provenance is dropped)."""
