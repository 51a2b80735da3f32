"""
Located diagnostics: every error names the place it is about.

Ops parsed by `exir-opt` carry the `file:line:col` they were read from, ops
imported from PyTorch carry their stack trace; failing that, an op is named by
its path in the IR (`@forward: %add = exir.call_function`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from typing import cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    LocationAttr,
    NameLoc,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import VerifyException


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`; did you mean 'a' or 'b'?` for the names closest to a mistyped one, or nothing."""
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)
    if not close:
        return ""
    return "; did you mean " + " or ".join(f"'{c}'" for c in close) + "?"


LIBRARY_FILE = re.compile(
    r"(^|[/\\])torch[/\\]"
    r"|(^|[/\\])lib[/\\]python\d+(\.\d+)?[/\\](?!(site|dist)-packages[/\\])"
    r"|^<"
)
"""
A file in torch's own package (`.../torch/nn/modules/conv.py`) or in Python's
standard library (`.../lib/python3.11/contextlib.py`, `<frozen ...>`): a frame
there is where a module call was carried out, not where the user wrote it, so
an op's location is the innermost frame outside them where one exists.
"""


def is_library_location(loc: Attribute) -> bool:
    """Whether `loc` is a `file:line:col` (named or not) in torch or the standard library."""
    if isinstance(loc, NameLoc):
        return is_library_location(loc.location)
    return isinstance(loc, FileLineColLoc) and LIBRARY_FILE.search(loc.filename.data) is not None


def user_location(frames: Sequence[LocationAttr]) -> LocationAttr:
    """
    The location of an op reached through calls, `frames` innermost first (the op's
    own location, then each call site's): the innermost frames in torch or the
    standard library are dropped where an outer frame is not, unknown ones always,
    and the rest chained as MLIR's `callsite(callee at caller)`. An `nn.Linear`'s
    `aten::linear` is then located at the user's `self.lin(x)`, not at
    `torch/nn/modules/linear.py`, as a `.pt2` node's stack trace is read.
    """
    known = [f for f in frames if not isinstance(f, UnknownLoc)]
    if not known:
        return UnknownLoc()
    if any(not is_library_location(f) for f in known):
        while is_library_location(known[0]):
            known.pop(0)
    loc = known[0]
    for frame in known[1:]:
        loc = CallSiteLoc(loc, frame)
    return loc


def format_location(loc: Attribute) -> str | None:
    """`file:line:col` for the innermost known frame of a location."""
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    if isinstance(loc, CallSiteLoc):
        return format_location(loc.callee) or format_location(loc.caller)
    if isinstance(loc, NameLoc):
        inner = format_location(loc.location)
        return f"{loc.desc.data} at {inner}" if inner else loc.desc.data
    if isinstance(loc, FusedLoc):
        for inner in cast(ArrayAttr[Attribute], loc.locations):
            if (text := format_location(inner)) is not None:
                return text
    return None


def op_title(op: Operation) -> str:
    """
    The name a person knows `op` by: a TorchScript node's kind (`aten::linear`,
    what the graph dump and torch's own messages say), every other op's name. Every
    node is one generic `ts.node`, so its op name tells nothing; the kind is read
    from its properties, the core not importing the dialect that defines it. A
    `prim` op is one of TorchScript's primitive nodes, named as TorchScript writes
    it too (`prim.CallMethod` is `prim::CallMethod`).
    """
    if op.name == "ts.node" and isinstance(kind := op.properties.get("kind"), StringAttr):
        return kind.data
    if op.name.startswith("prim."):
        return "prim::" + op.name[len("prim.") :]
    return op.name


def describe_op(op: Operation) -> str:
    """`'exir.call_function' (%add) in @forward`, `'aten::linear' (%y) in @forward`: how a person finds the op."""
    text = f"'{op_title(op)}'"
    if op.results and op.results[0].name_hint:
        text += f" (%{op.results[0].name_hint})"
    parent = op.parent_op()
    while parent is not None:
        if (sym := symbol_name(parent)) is not None:
            text += f" in @{sym}"
            break
        parent = parent.parent_op()
    return text


def locate(op: Operation) -> str:
    """The best place to report about `op`: source location, else its IR path."""
    loc = format_location(op.location) if not isinstance(op.location, UnknownLoc) else None
    return f"{loc}: {describe_op(op)}" if loc else describe_op(op)


class InterpreterError(Exception):
    """
    A failure while compiling or running a program, tied to an op if known.
    It lives in the core because TorchScript's builtins (`utils/ts_builtins.py`)
    raise it too; `interpreters/compiler.py` fills in the op.
    """

    def __init__(self, message: str, op: Operation | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.op = op
        self.call_sites: list[Operation] = []
        """The calls (a TorchScript `prim::CallMethod`) the failing op was reached through, innermost first."""

    def __str__(self) -> str:
        if self.op is None:
            return self.message
        if self.call_sites:
            # A failure inside a method of an `nn.Module` (its ops located in torch) is
            # reported at the user's call of the module, as an op's location is read.
            where = user_location([self.op.location, *(c.location for c in self.call_sites)])
            if where is not self.op.location and (text := format_location(where)) is not None:
                if format_location(self.op.location) != text:
                    return f"{text}: {describe_op(self.op)}, in the call made here: {self.message}"
        return f"{locate(self.op)}: {self.message}"


class ExirDiagnostic(VerifyException):
    """A verification failure tied to the op it is about."""

    def __init__(self, op: Operation, message: str, rule: str | None = None) -> None:
        self.op = op
        self.rule = rule
        prefix = f"[{rule}] " if rule else ""
        super().__init__(f"{locate(op)}: {prefix}{message}")


def symbol_name(op: Operation) -> str | None:
    attr = op.properties.get("sym_name")
    return attr.data if isinstance(attr, StringAttr) else None
