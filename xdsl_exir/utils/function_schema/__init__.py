"""Parse and print PyTorch ``FunctionSchema`` strings without importing torch.

The schema language is the one used by ``native_functions.yaml``, operator
registrations and ``torch._C._jit_get_all_schemas()``::

    aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)

The dialects need the signature and, above all, the aliasing and mutation
annotations of every operator they model, and they must be able to do so in
environments where torch is not installed.  This module therefore implements
the grammar from scratch (a hand written tokenizer and a recursive descent
parser) and prints schemas back in the canonical form that
``str(torch._C.FunctionSchema)`` produces, so that a schema string can be used
as a stable key and compared against what torch reports.

Printing follows torch: default values are printed from their parsed value
(``1e-05`` becomes ``1.0000000000000001e-05``, ``long`` becomes ``4``,
``int[2] stride=[1, 1]`` becomes ``int[2] stride=1``), a single return whose
text starts with ``(`` is parenthesised, ``*`` is printed before the first
keyword-only argument and ``...`` marks varargs / varret.  Known deliberate
differences from torch, all for inputs that never occur in torch's own
schemas, are documented on :func:`parse_schema`.

The alias annotation language (see "Handling Mutability" in the TorchScript
overview) is kept as data: :class:`AliasInfo` is attached to the
:class:`SchemaType` node where it was written, :attr:`Argument.alias_info`
gives the argument-level view torch exposes, and :class:`FunctionSchema` has
queries for written arguments, aliasing between results and arguments, and
the wildcard set.

The module is a package: `types` (the type language, alias annotations, printing defaults),
`lexer` (tokens and `SchemaParseError`) and `schema` (`FunctionSchema` and the parser). This
module re-exports their public names.
"""

from __future__ import annotations

from xdsl_exir.utils.function_schema.lexer import SchemaParseError
from xdsl_exir.utils.function_schema.schema import (
    AliasSet,
    Argument,
    FunctionSchema,
    Return,
    parse_default_value,
    parse_schema,
    parse_type,
)
from xdsl_exir.utils.function_schema.types import (
    WILDCARD,
    AliasInfo,
    DefaultValue,
    SchemaType,
    TypeKind,
    format_default_value,
)

__all__ = ["AliasInfo", "AliasSet", "Argument", "DefaultValue", "FunctionSchema", "Return", "SchemaParseError", "SchemaType", "TypeKind", "WILDCARD", "format_default_value", "parse_default_value", "parse_schema", "parse_type"]
