"""
The dump as a tree, before any IR: graphs, nodes, blocks, value definitions and uses, and the
attribute values as read (tensor text, raw text kept verbatim), with `TorchScriptParseError`,
the one error of malformed or inconsistent dump text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.ir import Attribute

RECURSION = "Python's recursion limit"


class TorchScriptParseError(ValueError):
    """Malformed or inconsistent dump text, at a 1-based `line` and `col`."""

    def __init__(self, message: str, line: int, col: int) -> None:
        super().__init__(f"{line}:{col}: {message}")
        self.message = message
        self.line = line
        self.col = col


@dataclass(slots=True)
class TensorText:
    """A tensor attribute as printed: `{v}`, torch's small-tensor print, or `<Tensor>`."""

    scalar: str | None  # from the print's `CPUFloatType`, else unknown
    dims: list[int] | None  # from the print's `{2,3}`, else unknown
    values: Sequence[float | int | complex] | None  # None: data not printed


@dataclass(slots=True)
class Raw:
    """Attribute text kept verbatim."""

    text: str


@dataclass(slots=True)
class Attr:
    name: str
    value: object
    raw: str
    pos: int


@dataclass(slots=True)
class Def:
    name: str
    type: Attribute
    pos: int


@dataclass(slots=True)
class Use:
    name: str
    pos: int


@dataclass(slots=True)
class DumpBlock:
    index: int
    params: list[Def]
    nodes: list[DumpNode]
    outputs: list[Use]
    pos: int
    end_pos: int  # of the `->`


@dataclass(slots=True)
class DumpNode:
    outs: list[Def]
    kind: str
    attrs: list[Attr]
    args: list[Use]
    loc: tuple[str, int, int] | None
    scope: str | None
    blocks: list[DumpBlock]
    pos: int
    kind_pos: int
    subgraph: DumpGraph | None = None


@dataclass(slots=True)
class DumpGraph:
    params: list[Def]
    nodes: list[DumpNode]
    outputs: list[Use]
    pos: int
    return_pos: int
    # `kind_N` nodes waiting for their `with kind_N = graph(...)`
    pending: dict[str, list[DumpNode]] = field(default_factory=dict[str, list[DumpNode]])
