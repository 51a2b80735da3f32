"""The Environment of TorchScript's IR emitter: one frame per block being emitted,
holding variable types and sugared names, and the refinements a condition
implies (`x is not None` makes an Optional `x` its element type in the branch
where it holds).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xdsl.ir import Attribute, Block, SSAValue

if TYPE_CHECKING:
    from xdsl_exir.frontends.torchscript_script.errors import ScriptError
    from xdsl_exir.frontends.torchscript_script.sugared import Sugared


class Frame:
    """One block's scope: first-class variables (types), sugared values, and deferred errors."""

    def __init__(self, block: Block, parent: Frame | None) -> None:
        self.block = block
        self.parent = parent
        self.types: dict[str, Attribute] = {}
        self.sugared: dict[str, Sugared] = {}
        self.errors: dict[str, ScriptError] = {}

    def find_type(self, name: str) -> Attribute | None:
        frame: Frame | None = self
        while frame is not None:
            if name in frame.types:
                return frame.types[name]
            frame = frame.parent
        return None

    def find_sugared(self, name: str) -> Sugared | None:
        frame: Frame | None = self
        while frame is not None:
            if name in frame.sugared:
                return frame.sugared[name]
            frame = frame.parent
        return None

    def find_error(self, name: str) -> ScriptError | None:
        frame: Frame | None = self
        while frame is not None:
            if name in frame.errors:
                return frame.errors[name]
            frame = frame.parent
        return None

    def find_in_parent(self, name: str) -> Attribute | None:
        return self.parent.find_type(name) if self.parent is not None else None


@dataclass
class Refinements:
    """Variables known to have a narrower type when a condition is true / false."""

    true: dict[str, Attribute] = field(default_factory=dict[str, Attribute])
    false: dict[str, Attribute] = field(default_factory=dict[str, Attribute])

    def negate(self) -> Refinements:
        return Refinements(dict(self.false), dict(self.true))

    def both(self, other: Refinements) -> Refinements:
        """For `a and b`."""
        return Refinements({**self.true, **other.true}, _intersect(self.false, other.false))

    def either(self, other: Refinements) -> Refinements:
        """For `a or b`."""
        return Refinements(_intersect(self.true, other.true), {**self.false, **other.false})


def _intersect(a: dict[str, Attribute], b: dict[str, Attribute]) -> dict[str, Attribute]:
    return {k: v for k, v in a.items() if b.get(k) == v}


@dataclass
class Cond:
    value: SSAValue
    refinements: Refinements = field(default_factory=Refinements)
    static: bool | None = None


