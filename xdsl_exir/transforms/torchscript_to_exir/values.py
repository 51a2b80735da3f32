"""The values the lowering computes with. Tensors are SSA values of the new graph,
reached as views of storages (so writes through views can be scattered back);
everything else TorchScript computes is a Python value known while lowering:
numbers, strings, devices, lists (`TSList`, shared by reference as in
TorchScript), tuples, dicts, module and function references, futures, and
scalars derived from tensors (`TensorScalar`) or sizes (`SymScalar`). The
tables of scalar builtins on such values are here too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from xdsl.ir import Block, BlockArgument, OpResult, SSAValue

from xdsl_exir.dialects import ts
from xdsl_exir.dialects.exir import DType, Layout, MemoryFormat
from xdsl_exir.transforms.torchscript_to_exir.errors import TorchScriptLoweringError
from xdsl_exir.transforms.view_scatter import ViewLayout

# Values the lowering computes with
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Device:
    """A TorchScript `Device` value."""

    name: str

    def __str__(self) -> str:
        return self.name  # how TorchScript's `str()` and `format` print a device


@dataclass(frozen=True, eq=False)
class ModRef:
    """A module object: a `ts.module` of the tree and its path from the root."""

    module: ts.ScriptModuleOp
    path: str

    def qualify(self, name: str) -> str:
        return f"{self.path}.{name}" if self.path else name


@dataclass(frozen=True, eq=False)
class Detached:
    """A module input of a graph lowered without its `ts.module` (a method dump): usable only if unused."""

    qualname: str


@dataclass(frozen=True)
class FuncRef:
    """A function constant (`prim::Constant[name="f"]`)."""

    name: str


@dataclass(frozen=True, eq=False)
class Future:
    """The result of `prim::fork`, computed at once."""

    values: tuple[object, ...]


@dataclass(frozen=True, eq=False)
class GradMode:
    """A `torch.no_grad()` / `enable_grad()` context: Export IR has no autograd, so it does nothing."""

    qualname: str


GRAD_MODE_CLASSES = frozenset(
    f"__torch__.torch.autograd.grad_mode.{n}" for n in ("no_grad", "enable_grad", "set_grad_enabled",
                                                        "inference_mode")
)  # fmt: skip


class _Uninitialized:
    def __repr__(self) -> str:
        return "<uninitialized>"


UNINITIALIZED = _Uninitialized()


class TSList(list[object]):
    """A TorchScript list (mutable), remembering the branch depth it was made at."""

    depth: int = 0


@dataclass(eq=False)
class Storage:
    """
    The data behind tensors that alias: its current value in the graph, and
    what it is to the program (a parameter, buffer, user input or lifted
    constant, by name) so mutations can be reported.
    """

    value: SSAValue
    role: str | None = None
    name: str | None = None
    version: int = 0

    def __post_init__(self) -> None:
        self.initial = self.value


@dataclass(frozen=True, eq=False)
class ViewStep:
    """How one view is made from its base: an aten op applied to the base and fixed arguments."""

    op: str
    args: tuple[object, ...]
    kwargs: tuple[tuple[str, object], ...] = ()
    layout: ViewLayout | None = None
    """The view's sizes and strides in its storage (`view_scatter`), None when unknown."""


@dataclass(eq=False)
class TensorRef:
    """A TorchScript tensor: a view (`path`, possibly empty) of a storage."""

    storage: Storage
    path: tuple[ViewStep, ...]
    cached: SSAValue
    version: int
    const: bool | int | float | None = None
    """The value of a 0-d tensor made from a known number (`NumToTensor`)."""


@dataclass(frozen=True, eq=False)
class TensorScalar:
    """An int, float or bool computed from tensor data (`t.item()`, `aten::Bool(t)`)."""

    value: SSAValue
    kind: str


@dataclass(frozen=True, eq=False)
class SymScalar:
    """An int or bool that depends on symbolic sizes (`x.size(0)` of an `s0`)."""

    value: SSAValue


LV = object
"""A lowered value: one of the classes above or a plain Python value."""


# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------


def getitem(container: Any, index: Any) -> Any:
    try:
        return container[index]
    except IndexError:
        raise TorchScriptLoweringError(f"index {index} out of range for a sequence of {len(container)}") from None
    except KeyError:
        raise TorchScriptLoweringError(f"key {index!r} not in the dict") from None


# Binary scalar builtins on tensor-derived scalars: (aten base name, result kind or None for promotion).
TENSOR_SCALAR_OPS: dict[str, tuple[str, str | None]] = {
    "add": ("add", None), "sub": ("sub", None), "mul": ("mul", None), "div": ("div", "float"),
    "eq": ("eq", "bool"), "ne": ("ne", "bool"), "lt": ("lt", "bool"), "le": ("le", "bool"),
    "gt": ("gt", "bool"), "ge": ("ge", "bool"), "remainder": ("remainder", None),
    "floordiv": ("floor_divide", None), "__and__": ("logical_and", "bool"), "__or__": ("logical_or", "bool"),
}  # fmt: skip
FLIPPED = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le", "eq": "eq", "ne": "ne", "add": "add", "mul": "mul",
            "__and__": "__and__", "__or__": "__or__"}  # fmt: skip

# Python operators on SymInts, as exir.sym_* ops.
SYM_OPS: dict[str, str] = {
    "add": "operator.add", "sub": "operator.sub", "mul": "operator.mul", "floordiv": "operator.floordiv",
    "remainder": "operator.mod", "eq": "operator.eq", "ne": "operator.ne", "lt": "operator.lt",
    "le": "operator.le", "gt": "operator.gt", "ge": "operator.ge", "neg": "operator.neg",
}  # fmt: skip

LAYOUTS = tuple(Layout)
MEMORY_FORMATS = (
    MemoryFormat.contiguous_format, MemoryFormat.preserve_format,
    MemoryFormat.channels_last, MemoryFormat.channels_last_3d,
)  # fmt: skip

FUNCTIONAL_SPELLING: dict[str, tuple[str, tuple[object, ...]]] = {
    "aten.zero.default": ("aten.fill.Scalar", (0,)),
}
"""Functional variants the aten dialect lacks, spelled with an op it has: op and extra arguments."""


def dtype_code_of(d: DType) -> int:
    return ts.DTYPE_CODES.index(d)


def is_number(v: object) -> bool:
    return isinstance(v, int | float | complex) and not isinstance(v, bool)


def same_constant(a: object, b: object) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        la, lb = cast(Sequence[object], a), cast(Sequence[object], b)
        return len(la) == len(lb) and all(same_constant(x, y) for x, y in zip(la, lb))
    if isinstance(a, SSAValue) or isinstance(b, SSAValue):
        return a is b
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def scalar_kind(value: bool | int | float) -> str:
    return "bool" if isinstance(value, bool) else "int" if isinstance(value, int) else "float"


def with_article(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def sanitize(name: str | None, fallback: str) -> str:
    if not name:
        return fallback
    name = re.sub(r"\.\d+$", "", name)
    name = re.sub(r"\W", "_", name)
    if not name or name[0].isdigit():
        name = f"{fallback}_{name}" if name else fallback
    return name


def owner_block(value: SSAValue) -> Block | None:
    if isinstance(value, BlockArgument):
        return value.block
    if isinstance(value, OpResult):
        return value.op.parent_block()
    return None


# ---------------------------------------------------------------------------
