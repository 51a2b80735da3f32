"""
The schema's type language: alias annotations (`AliasInfo`), the kinds of types and the type tree
(`SchemaType`) with its printing, and how a default value prints under its type, as
`str(torch._C.FunctionSchema)` prints it. Nothing here parses.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from typing import TypeAlias

WILDCARD = "*"
"""The alias set that conservatively aliases everything (``Tensor(*)``)."""

DefaultValue: TypeAlias = bool | int | float | complex | str | list["DefaultValue"] | None
"""Python value of an argument default, mirroring what torch's IValue holds."""

# Stored form of a default value: like ``DefaultValue`` but with tuples, so
# that a cached value cannot be mutated through the accessor.
Stored: TypeAlias = bool | int | float | complex | str | tuple["Stored", ...] | None

# Type names that torch accepts in a schema but prints under another name,
# because they are parsed into the same real type.
_PRINTED_TYPE_NAMES = {"DeviceIndex": "int", "ConstQuantizerPtr": "int"}

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


# --------------------------------------------------------------------------
# Data model
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class AliasInfo:
    """One alias annotation such as ``(a)``, ``(a!)``, ``(*)`` or ``(a -> *)``.

    Kept as data so that passes can reason about views and mutation without
    re-parsing strings.  ``before_set`` are the alias sets the value belongs
    to when the operator is called and ``after_set`` those it belongs to
    afterwards (equal unless ``->`` was written; ``(a -> *)`` says the value
    enters the wildcard set, e.g. because it is stored into a list).  Sets
    are tuples in the order written, which is also the printing order.

    ``contained`` is only non-empty in the argument-level view built by
    :attr:`Argument.alias_info`, which, like torch, describes a list whose
    elements are annotated (``Tensor(a)[]``) as a container annotation with
    the element annotation inside.
    """

    before_set: tuple[str, ...]
    after_set: tuple[str, ...]
    is_write: bool = False
    contained: tuple[AliasInfo, ...] = ()

    @staticmethod
    def of(*names: str, is_write: bool = False) -> AliasInfo:
        """Build the common ``(a)`` / ``(a!)`` form where before == after."""
        return AliasInfo(tuple(names), tuple(names), is_write)

    @property
    def is_wildcard(self) -> bool:
        """Whether the value may alias anything on entry (``(*)``)."""
        return WILDCARD in self.before_set

    @property
    def enters_wildcard(self) -> bool:
        """Whether the value is in the wildcard set afterwards (``(*)``, ``(a -> *)``)."""
        return WILDCARD in self.after_set

    @property
    def symbols(self) -> frozenset[str]:
        """All alias set names used here or in contained annotations, ``*`` included."""
        result = set(self.before_set) | set(self.after_set)
        for inner in self.contained:
            result |= inner.symbols
        return frozenset(result)

    def walk(self) -> Iterator[AliasInfo]:
        """Yield this annotation and, recursively, the contained ones."""
        yield self
        for inner in self.contained:
            yield from inner.walk()

    def __str__(self) -> str:
        text = "|".join(self.before_set)
        if self.is_write:
            text += "!"
        if set(self.after_set) != set(self.before_set):
            text += " -> " + "|".join(self.after_set)
        return f"({text})"


class TypeKind(Enum):
    """Shape of a :class:`SchemaType` node."""

    BASE = "base"
    """A named type: ``Tensor``, ``int``, ``t``, ``__torch__.torch.classes.x.Y``."""
    LIST = "list"
    """``T[]`` or the fixed-size ``T[N]``; one element type."""
    OPTIONAL = "optional"
    """``T?``; one element type."""
    TUPLE = "tuple"
    """``(T1, T2, ...)``; any number of element types."""
    GENERIC = "generic"
    """``Dict(K, V)``, ``Future(T)``, ``RRef(T)``, ``Await(T)``, ``Union(...)``."""


@dataclass(frozen=True)
class SchemaType:
    """A schema type as a tree, with alias annotations where they were written.

    ``Tensor(a)[]`` is a LIST node whose element is a BASE ``Tensor`` node
    carrying ``(a)``, while ``t[](a!)`` carries ``(a!)`` on the LIST node
    itself; keeping the annotation on the node it was written on is what
    lets the printer reproduce the text and lets alias queries tell element
    aliasing from container aliasing.
    """

    kind: TypeKind
    name: str = ""
    elements: tuple[SchemaType, ...] = ()
    size: int | None = None
    alias: AliasInfo | None = None

    def __post_init__(self) -> None:
        if self.kind in (TypeKind.LIST, TypeKind.OPTIONAL) and len(self.elements) != 1:
            raise ValueError(f"{self.kind.value} type needs exactly one element type")
        if self.kind is TypeKind.OPTIONAL and self.alias is not None:
            raise ValueError("alias annotations go on the element of an optional type")
        if self.size is not None and self.kind is not TypeKind.LIST:
            raise ValueError("only list types have a fixed size")

    # -- constructors -----------------------------------------------------

    @staticmethod
    def base(name: str, alias: AliasInfo | None = None) -> SchemaType:
        """A named type such as ``Tensor`` or ``int``."""
        return SchemaType(TypeKind.BASE, name, alias=alias)

    @staticmethod
    def list_of(
        element: SchemaType, size: int | None = None, alias: AliasInfo | None = None
    ) -> SchemaType:
        """``element[]`` or ``element[size]``."""
        return SchemaType(TypeKind.LIST, elements=(element,), size=size, alias=alias)

    @staticmethod
    def optional(element: SchemaType) -> SchemaType:
        """``element?``; optional of optional collapses, as in torch."""
        if element.kind is TypeKind.OPTIONAL:
            return element
        return SchemaType(TypeKind.OPTIONAL, elements=(element,))

    @staticmethod
    def tuple_of(
        elements: tuple[SchemaType, ...], alias: AliasInfo | None = None
    ) -> SchemaType:
        """``(T1, T2, ...)``."""
        return SchemaType(TypeKind.TUPLE, elements=tuple(elements), alias=alias)

    @staticmethod
    def generic(
        name: str, elements: tuple[SchemaType, ...], alias: AliasInfo | None = None
    ) -> SchemaType:
        """``Dict(K, V)``, ``Future(T)``, ``Union(A, B)`` and friends."""
        return SchemaType(TypeKind.GENERIC, name, tuple(elements), alias=alias)

    # -- queries ----------------------------------------------------------

    @property
    def is_optional(self) -> bool:
        return self.kind is TypeKind.OPTIONAL

    @property
    def is_list(self) -> bool:
        return self.kind is TypeKind.LIST

    @property
    def element(self) -> SchemaType:
        """The element type of a LIST or OPTIONAL node."""
        if self.kind not in (TypeKind.LIST, TypeKind.OPTIONAL):
            raise ValueError(f"{self} has no single element type")
        return self.elements[0]

    def unwrap_optional(self) -> SchemaType:
        """``T`` for ``T?``, the type itself otherwise."""
        return self.elements[0] if self.kind is TypeKind.OPTIONAL else self

    @property
    def printed_name(self) -> str:
        """The name torch prints for a BASE type (``DeviceIndex`` prints as ``int``)."""
        return _PRINTED_TYPE_NAMES.get(self.name, self.name)

    def is_base(self, *names: str) -> bool:
        """Whether this is a BASE node named one of ``names``."""
        return self.kind is TypeKind.BASE and self.name in names

    def aliases(self) -> Iterator[AliasInfo]:
        """Every alias annotation written anywhere in this type, outermost first."""
        if self.alias is not None:
            yield self.alias
        for element in self.elements:
            yield from element.aliases()

    def argument_alias(self) -> AliasInfo | None:
        """The alias info torch would attach to an argument of this type.

        An optional is transparent; a list whose element is annotated gets a
        container annotation holding the element's one, and that container
        is a write when the element is (unless the list carries its own
        annotation).  Annotations nested in tuples or generics are ignored,
        as torch does.
        """
        node = self.unwrap_optional()
        if node.kind is not TypeKind.LIST:
            return node.alias
        inner = node.elements[0].argument_alias()
        own = node.alias
        if inner is None:
            return own
        if own is None:
            return AliasInfo((), (), inner.is_write, (inner,))
        return AliasInfo(own.before_set, own.after_set, own.is_write, (inner,))

    def __str__(self) -> str:
        kind = self.kind
        if kind is TypeKind.OPTIONAL:
            return f"{self.elements[0]}?"
        if kind is TypeKind.BASE:
            text = self.printed_name
        elif kind is TypeKind.LIST:
            size = "" if self.size is None else str(self.size)
            text = f"{self.elements[0]}[{size}]"
        elif kind is TypeKind.TUPLE:
            text = "(" + ", ".join(str(e) for e in self.elements) + ")"
        else:
            text = f"{self.name}(" + ", ".join(str(e) for e in self.elements) + ")"
        if self.alias is not None:
            text += str(self.alias)
        return text


# --------------------------------------------------------------------------
# Default values: conversion and printing
# --------------------------------------------------------------------------


def thaw(value: Stored) -> DefaultValue:
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    return value


def _freeze(value: DefaultValue) -> Stored:
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def _format_float(value: float) -> str:
    # Integral values in int64 range print as an integer with a trailing dot,
    # everything else with 17 significant digits (round-trip precision).
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value.is_integer() and INT64_MIN <= value < 2.0**63:
        return f"{int(value)}."
    text = f"{value:.17g}"
    if "." not in text and "e" not in text:
        text += "."
    return text


def _quote_string(value: str) -> str:
    out = ['"']
    for ch in value:
        escaped = _STRING_ESCAPES_OUT.get(ch)
        if escaped is not None:
            out.append(escaped)
        elif ch < " " or ch == "\x7f":
            out.append(f"\\{ord(ch):03o}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


_STRING_ESCAPES_OUT = {
    "\\": "\\\\",
    "'": "\\'",
    '"': '\\"',
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
}


def _format_scalar(value: Stored, context: SchemaType | None) -> str:
    if value is None:
        return "None"
    if value is True:
        return "True"
    if value is False:
        return "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _format_float(value)
    if isinstance(value, complex):
        sign = "+" if value.imag >= 0 else ""
        return f"{_format_float(value.real)}{sign}{_format_float(value.imag)}j"
    if isinstance(value, str):
        if context is not None and context.unwrap_optional().is_base("Device"):
            return value
        return _quote_string(value)
    element = list_element(context)
    return "[" + ", ".join(_format_scalar(v, element) for v in value) + "]"


def list_element(schema_type: SchemaType | None) -> SchemaType | None:
    if schema_type is None:
        return None
    node = schema_type.unwrap_optional()
    return node.elements[0] if node.kind is TypeKind.LIST else None


def format_default_value(value: DefaultValue, schema_type: SchemaType) -> str:
    """Spell a default value of an argument of ``schema_type`` as torch prints it.

    Floats get 17 significant digits (``1.`` for integral ones), strings are
    double-quoted with C escapes, ``Device`` defaults are bare, and an
    ``int[N]`` default whose elements are all equal is printed as the single
    element (``int[2] stride=1``), as native_functions.yaml writes it.
    """
    return format_default(_freeze(value), schema_type)


def format_default(stored: Stored, schema_type: SchemaType) -> str:
    if (
        isinstance(stored, tuple)
        and len(stored) > 1
        and schema_type.kind is TypeKind.LIST
        and schema_type.elements[0].kind is TypeKind.BASE
        and schema_type.elements[0].printed_name == "int"
        and all(v == stored[0] and type(v) is type(stored[0]) for v in stored)
    ):
        return _format_scalar(stored[0], schema_type.elements[0])
    return _format_scalar(stored, schema_type)
