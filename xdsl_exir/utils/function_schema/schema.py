"""
`FunctionSchema`, its arguments and returns and their alias queries, and the recursive-descent
parser that builds them. They share a module because an argument's default is kept as text and
parsed on first use, by the same parser that reads the schema.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

from xdsl_exir.utils.function_schema.lexer import SchemaParseError, Token, describe, tokenize
from xdsl_exir.utils.function_schema.types import (
    INT64_MAX,
    INT64_MIN,
    WILDCARD,
    AliasInfo,
    DefaultValue,
    SchemaType,
    Stored,
    TypeKind,
    format_default,
    list_element,
    thaw,
)

# Type constructors that take parenthesised element types, e.g. ``Dict(str, t)``.
_GENERIC_TYPES = frozenset({"Dict", "Future", "RRef", "Await", "Union"})

# Identifiers torch accepts as numeric defaults for any type, kept for
# backwards compatibility of old schemas: dtypes, layout, reduction and
# memory format enum members, each mapped to its integer value.
_ENUM_DEFAULTS = {
    "float": 6,
    "complex": 9,
    "long": 4,
    "strided": 0,
    "Mean": 1,
    "contiguous_format": 0,
}

# dtype names torch accepts as the default of a ``ScalarType`` argument,
# mapped to the integer value of ``c10::ScalarType``.
_DTYPE_DEFAULTS = {
    "uint8": 0,
    "int8": 1,
    "int16": 2,
    "short": 2,
    "int32": 3,
    "int": 3,
    "int64": 4,
    "long": 4,
    "float16": 5,
    "half": 5,
    "float32": 6,
    "float": 6,
    "float64": 7,
    "double": 7,
    "complex32": 8,
    "chalf": 8,
    "complex64": 9,
    "cfloat": 9,
    "complex128": 10,
    "cdouble": 10,
    "bool": 11,
    "qint8": 12,
    "quint8": 13,
    "qint32": 14,
    "bfloat16": 15,
    "quint4x2": 16,
    "quint2x4": 17,
    "bits1x8": 18,
    "bits2x4": 19,
    "bits4x2": 20,
    "bits8": 21,
    "bits16": 22,
    "float8_e5m2": 23,
    "float8_e4m3fn": 24,
    "float8_e5m2fnuz": 25,
    "float8_e4m3fnuz": 26,
    "uint16": 27,
    "uint32": 28,
    "uint64": 29,
    "uint1": 30,
    "bit": 30,
    "uint2": 31,
    "uint3": 32,
    "uint4": 33,
    "uint5": 34,
    "uint6": 35,
    "uint7": 36,
    "int1": 37,
    "int2": 38,
    "int3": 39,
    "int4": 40,
    "int5": 41,
    "int6": 42,
    "int7": 43,
    "float8_e8m0fnu": 44,
    "float4_e2m1fn_x2": 45,
}


@dataclass(frozen=True)
class Argument:
    """One formal argument; ``default`` keeps the source text as written.

    Keeping the text lets a caller see exactly what the schema author wrote
    (``long``, ``contiguous_format``), while :attr:`default_value` gives the
    value torch would use (``4``, ``0``) and printing uses torch's canonical
    spelling of that value.
    """

    name: str
    type: SchemaType
    default: str | None = None
    kwarg_only: bool = False

    @property
    def has_default(self) -> bool:
        return self.default is not None

    @cached_property
    def _stored_default(self) -> Stored:
        if self.default is None:
            raise ValueError(f"argument {self.name!r} has no default value")
        return _parse_default_text(self.default, self.type)

    @property
    def default_value(self) -> DefaultValue:
        """The parsed default (``None`` for ``=None``); ValueError if there is none.

        Numbers follow torch: a ``float`` argument's ``1`` is ``1.0``, enum
        names such as ``long`` or ``contiguous_format`` become their integer
        value, a scalar default of a fixed-size list is repeated ``N`` times
        and ``Device`` defaults are the device string.
        """
        return thaw(self._stored_default)

    @property
    def alias_info(self) -> AliasInfo | None:
        """The argument-level alias info, as torch's ``Argument.alias_info``."""
        return self.type.argument_alias()

    @property
    def is_write(self) -> bool:
        """Whether the operator may mutate this argument (``!``)."""
        info = self.alias_info
        return info is not None and info.is_write

    @property
    def is_out(self) -> bool:
        """Whether this is an ``out=`` argument: keyword-only and written."""
        return self.kwarg_only and self.is_write

    @property
    def size(self) -> int | None:
        """The fixed size ``N`` of an ``int[N]`` / ``int[N]?`` argument."""
        node = self.type.unwrap_optional()
        return node.size if node.kind is TypeKind.LIST else None

    def __str__(self) -> str:
        text = f"{self.type} {self.name}"
        if self.default is not None:
            text += "=" + format_default(self._stored_default, self.type)
        return text


@dataclass(frozen=True)
class Return:
    """One result; results may be named (``-> (Tensor values, Tensor indices)``)."""

    type: SchemaType
    name: str | None = None

    @property
    def alias_info(self) -> AliasInfo | None:
        """The result-level alias info, as torch's ``Argument.alias_info``."""
        return self.type.argument_alias()

    @property
    def is_write(self) -> bool:
        info = self.alias_info
        return info is not None and info.is_write

    def __str__(self) -> str:
        return str(self.type) if self.name is None else f"{self.type} {self.name}"


@dataclass(frozen=True)
class AliasSet:
    """Who is in one named alias set of a schema, for quick aliasing queries."""

    name: str
    arguments: tuple[int, ...]
    """Indices of the arguments annotated with this set."""
    returns: tuple[int, ...]
    """Indices of the results annotated with this set."""
    is_written: bool
    """Whether some annotation of this set carries ``!``."""


@dataclass(frozen=True)
class FunctionSchema:
    """A parsed operator schema; ``str()`` prints it exactly as torch does."""

    namespace: str
    name: str
    overload_name: str = ""
    arguments: tuple[Argument, ...] = ()
    returns: tuple[Return, ...] = ()
    is_vararg: bool = False
    is_varret: bool = False

    def __post_init__(self) -> None:
        seen_kwarg_only = False
        for argument in self.arguments:
            if argument.kwarg_only:
                seen_kwarg_only = True
            elif seen_kwarg_only:
                raise ValueError(
                    f"positional argument {argument.name!r} follows keyword-only ones"
                )

    # -- naming -----------------------------------------------------------

    @property
    def qualified_name(self) -> str:
        """``aten::add``: namespace and name, without the overload."""
        return f"{self.namespace}::{self.name}" if self.namespace else self.name

    @property
    def full_name(self) -> str:
        """``aten::add.Tensor``: qualified name and overload, as in the schema text."""
        if self.overload_name:
            return f"{self.qualified_name}.{self.overload_name}"
        return self.qualified_name

    @property
    def op_name(self) -> str:
        """``aten.add.Tensor``: the ``torch.ops`` path, ``default`` for no overload."""
        overload = self.overload_name or "default"
        if self.namespace:
            return f"{self.namespace}.{self.name}.{overload}"
        return f"{self.name}.{overload}"

    # -- arguments --------------------------------------------------------

    def argument(self, name: str) -> Argument:
        """The argument called ``name``; KeyError if there is none."""
        for argument in self.arguments:
            if argument.name == name:
                return argument
        raise KeyError(name)

    @property
    def positional_arguments(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if not a.kwarg_only)

    @property
    def kwarg_only_arguments(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if a.kwarg_only)

    # -- mutation and aliasing --------------------------------------------

    @property
    def written_arguments(self) -> tuple[Argument, ...]:
        """Arguments the operator may mutate (annotated with ``!``)."""
        return tuple(a for a in self.arguments if a.is_write)

    @property
    def out_arguments(self) -> tuple[Argument, ...]:
        """Keyword-only written arguments, i.e. the ``out=`` tensors."""
        return tuple(a for a in self.arguments if a.is_out)

    @property
    def is_mutable(self) -> bool:
        """Whether some argument may be mutated (torch's ``is_mutable()``)."""
        return any(a.is_write for a in self.arguments)

    @property
    def is_functional(self) -> bool:
        """Whether no argument or result carries any alias annotation."""
        types = [a.type for a in self.arguments] + [r.type for r in self.returns]
        return not any(True for t in types for _ in t.aliases())

    @property
    def is_inplace(self) -> bool:
        """Whether this is an in-place variant: name ends in ``_`` and ``self`` is written."""
        if not self.name.endswith("_"):
            return False
        return any(a.name == "self" and a.is_write for a in self.arguments)

    @property
    def is_out(self) -> bool:
        """Whether this is an out= variant: it has keyword-only written arguments."""
        return any(a.is_out for a in self.arguments)

    def alias_sets(self) -> dict[str, AliasSet]:
        """Every named alias set (``*`` excluded) with its arguments and results."""
        arguments: dict[str, list[int]] = {}
        returns: dict[str, list[int]] = {}
        written: set[str] = set()
        order: list[str] = []

        def visit(index: int, item_type: SchemaType, members: dict[str, list[int]]) -> None:
            for info in item_type.aliases():
                for symbol in (*info.before_set, *info.after_set):
                    if symbol == WILDCARD:
                        continue
                    if symbol not in arguments:
                        order.append(symbol)
                        arguments[symbol] = []
                        returns[symbol] = []
                    indices = members[symbol]
                    if not indices or indices[-1] != index:
                        indices.append(index)
                    if info.is_write and symbol in info.before_set:
                        written.add(symbol)

        for i, argument in enumerate(self.arguments):
            visit(i, argument.type, arguments)
        for i, result in enumerate(self.returns):
            visit(i, result.type, returns)
        return {
            name: AliasSet(
                name, tuple(arguments[name]), tuple(returns[name]), name in written
            )
            for name in order
        }

    def aliases_of_return(self, index: int) -> tuple[Argument, ...]:
        """Arguments that result ``index`` may alias (shares a named alias set with).

        For ``aten::add_.Tensor`` result 0 aliases ``self``; for
        ``aten::split.Tensor`` (``Tensor(a -> *) self -> Tensor(a)[]``) the
        list elements alias ``self``.
        """
        symbols = _named_symbols(self.returns[index].type)
        return tuple(
            a for a in self.arguments if symbols & _named_symbols(a.type)
        )

    def return_alias_map(self) -> dict[int, tuple[int, ...]]:
        """Result index -> indices of the arguments it may alias, for aliasing results."""
        argument_symbols = [_named_symbols(a.type) for a in self.arguments]
        result: dict[int, tuple[int, ...]] = {}
        for i, ret in enumerate(self.returns):
            symbols = _named_symbols(ret.type)
            if not symbols:
                continue
            hits = tuple(j for j, s in enumerate(argument_symbols) if symbols & s)
            if hits:
                result[i] = hits
        return result

    @property
    def wildcard_arguments(self) -> tuple[Argument, ...]:
        """Arguments that are (or whose elements are) in the wildcard set afterwards."""
        return tuple(
            a for a in self.arguments if any(i.enters_wildcard for i in a.type.aliases())
        )

    @property
    def wildcard_returns(self) -> tuple[Return, ...]:
        """Results that are (or whose elements are) in the wildcard set."""
        return tuple(
            r for r in self.returns if any(i.enters_wildcard for i in r.type.aliases())
        )

    # -- printing ---------------------------------------------------------

    def _format_arguments(self) -> str:
        parts: list[str] = []
        star_printed = False
        for argument in self.arguments:
            if argument.kwarg_only and not star_printed:
                parts.append("*")
                star_printed = True
            parts.append(str(argument))
        if self.is_vararg:
            parts.append("...")
        return ", ".join(parts)

    def _format_returns(self) -> str:
        if len(self.returns) == 1 and not self.is_varret:
            text = str(self.returns[0])
            # A lone tuple-typed result needs its own parentheses, otherwise
            # it would read back as a list of several results.
            return f"({text})" if text.startswith("(") else text
        if not self.returns and self.is_varret:
            return "..."
        parts = [str(r) for r in self.returns]
        if self.is_varret:
            parts.append("...")
        return "(" + ", ".join(parts) + ")"

    def __str__(self) -> str:
        return f"{self.full_name}({self._format_arguments()}) -> {self._format_returns()}"


def _named_symbols(schema_type: SchemaType) -> frozenset[str]:
    symbols: set[str] = set()
    for info in schema_type.aliases():
        symbols.update(info.before_set)
        symbols.update(info.after_set)
    symbols.discard(WILDCARD)
    return frozenset(symbols)


# --------------------------------------------------------------------------
# Parser
# --------------------------------------------------------------------------


class _Parser:
    """Recursive descent over the token list of one schema or type string."""

    __slots__ = ("pos", "text", "tokens")

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.pos = 0

    # -- token helpers ----------------------------------------------------

    def error(self, message: str, token: Token | None = None) -> SchemaParseError:
        token = token if token is not None else self.tokens[self.pos]
        return SchemaParseError(message, token.start, self.text)

    def _peek_kind(self) -> str:
        return self.tokens[self.pos].kind

    def _next(self) -> Token:
        token = self.tokens[self.pos]
        if token.kind != "eof":
            self.pos += 1
        return token

    def _accept(self, kind: str) -> bool:
        if self.tokens[self.pos].kind == kind:
            self.pos += 1
            return True
        return False

    def _expect(self, kind: str, what: str | None = None) -> Token:
        token = self.tokens[self.pos]
        if token.kind != kind:
            wanted = what if what is not None else repr(kind)
            raise self.error(f"expected {wanted} but found {describe(token)}", token)
        self.pos += 1
        return token

    def expect_end(self) -> None:
        token = self.tokens[self.pos]
        if token.kind != "eof":
            raise self.error(f"expected end of input but found {describe(token)}", token)

    # -- schema -----------------------------------------------------------

    def schema(self) -> FunctionSchema:
        namespace, name, overload = self._operator_name()
        if self._peek_kind() == "eof":
            raise self.error(
                "expected '(' and an argument list: only an operator name was given"
            )
        self._expect("(")
        arguments, is_vararg = self._arguments()
        self._expect("->", "'->' and the results")
        returns, is_varret = self._returns()
        self.expect_end()
        return FunctionSchema(
            namespace, name, overload, arguments, returns, is_vararg, is_varret
        )

    def _operator_name(self) -> tuple[str, str, str]:
        first = self._expect("ident", "an operator name")
        namespace = ""
        name = first.text
        if self._accept("::"):
            namespace = name
            name = self._expect("ident", "an operator name after '::'").text
        overload = ""
        if self._accept("."):
            overload = self._expect("ident", "an overload name after '.'").text
        return namespace, name, overload

    def _arguments(self) -> tuple[tuple[Argument, ...], bool]:
        arguments: list[Argument] = []
        if self._accept(")"):
            return (), False
        kwarg_only = False
        is_vararg = False
        seen_default: Argument | None = None
        while True:
            token = self.tokens[self.pos]
            if is_vararg:
                raise self.error("'...' must be the last element of the argument list")
            if token.kind == "*":
                if kwarg_only:
                    raise self.error("'*' may appear only once in an argument list")
                self.pos += 1
                kwarg_only = True
            elif token.kind == "...":
                self.pos += 1
                is_vararg = True
            else:
                argument = self._argument(kwarg_only)
                if not kwarg_only:
                    if argument.default is not None:
                        seen_default = argument
                    elif seen_default is not None:
                        raise self.error(
                            f"argument {argument.name!r} without a default follows "
                            f"argument {seen_default.name!r} with a default",
                            token,
                        )
                arguments.append(argument)
            if self._accept(","):
                continue
            self._expect(")", "',' or ')'")
            return tuple(arguments), is_vararg

    def _argument(self, kwarg_only: bool) -> Argument:
        schema_type = self.type()
        name = self._expect("ident", "an argument name").text
        if self._accept("="):
            first = self.tokens[self.pos]
            value = self.parse_default(schema_type)
            default = self.text[first.start : self.tokens[self.pos - 1].end]
            argument = Argument(name, schema_type, default, kwarg_only)
            # Pre-fill the cache so the value is not parsed a second time.
            argument.__dict__["_stored_default"] = value
            return argument
        return Argument(name, schema_type, None, kwarg_only)

    def _returns(self) -> tuple[tuple[Return, ...], bool]:
        kind = self._peek_kind()
        if kind == "...":
            self.pos += 1
            return (), True
        if kind != "(":
            return (self._return(),), False
        self.pos += 1
        returns: list[Return] = []
        if self._accept(")"):
            return (), False
        while True:
            if self._accept("..."):
                self._expect(")", "')' after '...' (it must be the last result)")
                return tuple(returns), True
            returns.append(self._return())
            if self._accept(","):
                continue
            self._expect(")", "',' or ')'")
            return tuple(returns), False

    def _return(self) -> Return:
        schema_type = self.type()
        if self._peek_kind() == "ident":
            return Return(schema_type, self._next().text)
        return Return(schema_type)

    # -- types ------------------------------------------------------------

    def type(self) -> SchemaType:
        token = self._next()
        if token.kind == "(":
            node = SchemaType.tuple_of(self._type_list(token, allow_empty=True))
        elif token.kind == "ident":
            name = token.text
            if name in _GENERIC_TYPES:
                opening = self._expect("(", f"'(' and element types after {name!r}")
                node = SchemaType.generic(name, self._type_list(opening, allow_empty=False))
            else:
                tokens = self.tokens
                while tokens[self.pos].kind == "." and tokens[self.pos + 1].kind == "ident":
                    name += "." + tokens[self.pos + 1].text
                    self.pos += 2
                node = SchemaType.base(name)
        else:
            raise self.error(f"expected a type but found {describe(token)}", token)
        if self._peek_kind() == "(":
            node = _with_alias(node, self._alias_annotation())
        while True:
            kind = self._peek_kind()
            if kind == "[":
                self.pos += 1
                size: int | None = None
                if self._peek_kind() == "number":
                    size_token = self._next()
                    if not size_token.text.isdigit():
                        raise self.error("list size must be a non-negative integer", size_token)
                    size = int(size_token.text)
                self._expect("]", "']'" if size is not None else "a list size or ']'")
                alias = self._alias_annotation() if self._peek_kind() == "(" else None
                node = SchemaType.list_of(node, size, alias)
            elif kind == "?":
                self.pos += 1
                node = SchemaType.optional(node)
                if self._peek_kind() == "(":
                    raise self.error(
                        "an alias annotation must come before '?' (e.g. 'Tensor(a)?')"
                    )
            else:
                return node

    def _type_list(self, opening: Token, allow_empty: bool) -> tuple[SchemaType, ...]:
        if self._peek_kind() == ")":
            if not allow_empty:
                raise self.error("expected at least one element type")
            self.pos += 1
            return ()
        elements: list[SchemaType] = []
        while True:
            elements.append(self.type())
            if self._accept(","):
                continue
            self._expect(")", "',' or ')' in a type list")
            return tuple(elements)

    def _alias_annotation(self) -> AliasInfo:
        self._expect("(")
        before = self._alias_set()
        is_write = self._accept("!")
        after = before
        if self._accept("->"):
            after = self._alias_set()
        self._expect(")", "')' to close the alias annotation")
        return AliasInfo(before, after, is_write)

    def _alias_set(self) -> tuple[str, ...]:
        names: list[str] = []
        while True:
            token = self._next()
            if token.kind == "ident":
                names.append(token.text)
            elif token.kind == "*":
                names.append(WILDCARD)
            else:
                raise self.error(
                    f"expected an alias set name or '*' but found {describe(token)}", token
                )
            if not self._accept("|"):
                return tuple(names)

    # -- default values ---------------------------------------------------

    def parse_default(self, schema_type: SchemaType) -> Stored:
        if self._peek_kind() == "[":
            return self._list_literal(list_element(schema_type))
        if schema_type.kind is TypeKind.LIST:
            element = schema_type.elements[0]
            value = self._scalar(element)
            if value is None or schema_type.size is None:
                return value
            # ``int[2] stride=1`` means ``[1, 1]``.
            return (value,) * schema_type.size
        return self._scalar(schema_type)

    def _list_literal(self, element: SchemaType | None) -> tuple[Stored, ...]:
        self._expect("[")
        if self._accept("]"):
            return ()
        items: list[Stored] = []
        while True:
            if self._peek_kind() == "[":
                items.append(self._list_literal(list_element(element)))
            else:
                items.append(self._scalar(element))
            if self._accept(","):
                continue
            self._expect("]", "',' or ']' in a list default")
            return tuple(items)

    def _scalar(self, context: SchemaType | None) -> Stored:
        token = self._next()
        kind = token.kind
        if kind == "string":
            return token.value
        if kind == "ident":
            word = token.text
            if word == "True":
                return True
            if word == "False":
                return False
            if word == "None":
                return None
            enum_value = _ENUM_DEFAULTS.get(word)
            if enum_value is not None:
                return enum_value
            target = context.unwrap_optional() if context is not None else None
            if target is not None and target.is_base("ScalarType"):
                dtype = _DTYPE_DEFAULTS.get(word)
                if dtype is not None:
                    return dtype
            if target is not None and target.is_base("Device"):
                # Torch prints Device defaults bare (``cuda:0``); read them back.
                if self._accept(":"):
                    index = self._expect("number", "a device index")
                    return f"{word}:{index.text}"
                return word
            raise self.error(f"invalid default value {word!r}", token)
        if kind == "-":
            number = self._expect("number", "a number after '-'")
            return self._maybe_complex("-" + number.text, context, number)
        if kind == "number":
            return self._maybe_complex(token.text, context, token)
        raise self.error(f"expected a default value but found {describe(token)}", token)


    def _maybe_complex(self, text: str, context: SchemaType | None, token: Token) -> Stored:
        # Torch prints complex defaults as ``0.+2.j``; accept that form back.
        tokens = self.tokens
        sign = tokens[self.pos].kind
        if (
            sign in ("+", "-")
            and tokens[self.pos + 1].kind == "number"
            and tokens[self.pos + 1].text[-1] in "jJ"
            and text[-1] not in "jJ"
        ):
            imaginary = tokens[self.pos + 1].text
            self.pos += 2
            real = float(text)
            imag = float(imaginary[:-1])
            return complex(real, -imag if sign == "-" else imag)
        return _convert_number(text, context, token, self)


def _convert_number(
    text: str, context: SchemaType | None, token: Token, parser: _Parser
) -> Stored:
    """Turn a numeric literal into int/float/complex the way torch decides.

    The literal's spelling decides first (``j`` -> complex, ``.``/exponent ->
    float); otherwise a (non-optional) ``float`` or ``complex`` argument
    turns an integer literal into that type.
    """
    context_name = context.name if context is not None and context.kind is TypeKind.BASE else ""
    if "j" in text or "J" in text or context_name == "complex":
        return complex(text)
    if context_name in ("float", "SymFloat") or "." in text or "e" in text or "E" in text:
        value = float(text)
        if math.isinf(value):
            raise parser.error(f"float literal {text} is out of range", token)
        return value
    value_int = int(text)
    if not INT64_MIN <= value_int <= INT64_MAX:
        raise parser.error(f"integer literal {text} does not fit in 64 bits", token)
    return value_int


def _with_alias(node: SchemaType, alias: AliasInfo) -> SchemaType:
    return SchemaType(node.kind, node.name, node.elements, node.size, alias)


def _parse_default_text(text: str, schema_type: SchemaType) -> Stored:
    parser = _Parser(text)
    value = parser.parse_default(schema_type)
    parser.expect_end()
    return value


# --------------------------------------------------------------------------
# Public entry points
# --------------------------------------------------------------------------


def parse_schema(text: str) -> FunctionSchema:
    """Parse a schema such as ``aten::add.Tensor(Tensor self, ...) -> Tensor``.

    Raises :class:`SchemaParseError` with the column of the offending token.

    The parser is driven by the grammar only, so type names are not checked
    against a registry (``Dimname``, ``Foo`` are accepted where torch's
    parser may refuse them).  Deliberate differences in printing, all for
    inputs that torch's own schemas never contain: alias sets are printed in
    the order written (torch prints a hash-set order, reversing e.g.
    ``Tensor(a|b)``, so its output is not a fixed point while ours is);
    ``Union`` types are printed as written rather than flattened and sorted;
    alias annotations inside tuple / generic element types are kept rather
    than dropped; ``Tensor(a)?[]`` prints as written rather than torch's
    unparseable ``Tensor?(a)[]``; non-ASCII characters in string defaults are
    printed as they are rather than as mangled octal bytes.
    """
    return _Parser(text).schema()


def parse_type(text: str) -> SchemaType:
    """Parse a schema type such as ``Tensor(a!)[]`` or ``Dict(str, Tensor)?``."""
    parser = _Parser(text)
    schema_type = parser.type()
    parser.expect_end()
    return schema_type


def parse_default_value(text: str, schema_type: SchemaType) -> DefaultValue:
    """Parse the default-value text of an argument of type ``schema_type``."""
    return thaw(_parse_default_text(text, schema_type))
