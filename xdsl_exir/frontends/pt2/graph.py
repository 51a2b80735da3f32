"""
One serialized graph as a block of IR: its placeholders, nodes (arguments bound by the
schema, results typed with the archive's own types, metadata), higher-order ops with their
subgraphs as regions, and outputs; and the graph signature's input and output specs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn, cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntAttr,
    NoneAttr,
    StringAttr,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xdsl_exir.dialects.exir import (
    AssertScalarOp,
    BoolType,
    CallFunctionOp,
    CondOp,
    ConstantOp,
    CustomObjType,
    DeviceAttr,
    DType,
    GetAttrOp,
    GetItemOp,
    GraphOp,
    InputKind,
    InputSpecAttr,
    Layout,
    ListType,
    MapOp,
    MemoryFormat,
    NoneType,
    OutputOp,
    OutputSpecAttr,
    ProgramOp,
    SymBoolType,
    SymFloatType,
    SymIntType,
    SymNumelOp,
    SymSizeOp,
    SymStrideOp,
    TensorType,
    TokenType,
    TupleType,
    WhileLoopOp,
    encode_arg,
)
from xdsl_exir.frontends.pt2.archive import JSON_ERRORS, Fail, fail, field, malformed, union
from xdsl_exir.frontends.pt2.codes import CONSTANT_TYPES, KEYWORD, LAYOUT_CODES, MEMORY_FORMAT_CODES, POSITIONAL
from xdsl_exir.frontends.pt2.dispatch import Target, target_ir_name
from xdsl_exir.frontends.pt2.metadata import META_ATTRS, stack_trace_location

if TYPE_CHECKING:
    from xdsl_exir.frontends.pt2.program import Importer


@dataclass
class InputSpec:
    attr: InputSpecAttr
    name: str
    target: str | None = None
    token: bool = False
    constant: tuple[str, object] | None = None


@dataclass
class OutputSpec:
    attr: OutputSpecAttr
    token: bool = False


_KIND_ATTRS = {k: StringAttr(k.value) for k in InputKind}
_NONE = NoneAttr()
_PERSISTENT = {True: BoolAttr.from_bool(True), False: BoolAttr.from_bool(False)}


def spec_attr(
    kind: InputKind, name: str, target: str | None = None, persistent: bool | None = None
) -> InputSpecAttr:
    """`InputSpecAttr(...)` with shared parameter attributes (programs have many)."""
    return InputSpecAttr.new(
        [
            _KIND_ATTRS[kind],
            StringAttr(name),
            _NONE if target is None else StringAttr(target),
            _NONE if persistent is None else _PERSISTENT[persistent],
        ]
    )


def argument_name(arg: object) -> str:
    """The value name a signature Argument refers to ('' for constants)."""
    kind, value = union(arg, "a signature argument")
    if kind in ("as_tensor", "as_custom_obj", "as_token"):
        return field(value, "name", str, kind)
    if kind in ("as_sym_int", "as_sym_float", "as_sym_bool"):
        inner_kind, inner = union(value, kind)
        return inner if inner_kind == "as_name" and isinstance(inner, str) else ""
    return ""


def _segments(*sizes: int) -> DenseArrayBase:
    return DenseArrayBase.from_list(i32, sizes)


_NO_ATTRS = DictionaryAttr({})
_FLOAT_WORDS = ("Infinity", "-Infinity", "NaN")


class _Multi(list[object]):
    """The values of a multi-output node, under the node's own name (for getitem)."""


class GraphImporter:
    """One serialized Graph: its own namespace of values, turned into a Block."""

    def __init__(self, importer: Importer, graph: dict[str, Any]) -> None:
        self.imp = importer
        self.graph = graph
        self.tensor_values: dict[str, Any] = field(graph, "tensor_values", dict, "the graph")
        self.sym_int_values: dict[str, Any] = graph.get("sym_int_values") or {}
        self.sym_bool_values: dict[str, Any] = graph.get("sym_bool_values") or {}
        self.sym_float_values: dict[str, Any] = graph.get("sym_float_values") or {}
        self.values: dict[str, object] = {}
        self.block = Block()
        self.with_effects_token = False

    # -- graphs -----------------------------------------------------------------

    def build_entry(self, inputs: Sequence[InputSpec], outputs: Sequence[OutputSpec]) -> GraphOp:
        """The `@forward` graph, checked against the signature."""
        graph_inputs = field(self.graph, "inputs", list, "the graph")
        if len(graph_inputs) != len(inputs):
            fail(
                f"the signature lists {len(inputs)} inputs but the graph has "
                f"{len(graph_inputs)} placeholders"
            )
        arg_attrs: list[DictionaryAttr] = []
        placeholders: list[tuple[str, Attribute]] = []
        any_constant = False
        for i, (arg, spec) in enumerate(zip(graph_inputs, inputs)):
            kind, body = union(arg, f"graph input {i}")
            if spec.constant is not None or kind in CONSTANT_TYPES:
                name = spec.name or f"arg{i}"
                ckind, cvalue = spec.constant or (kind, body)
                placeholders.append((name, CONSTANT_TYPES[ckind]()))
                value = None if ckind == "as_none" else self._constant(ckind, cvalue)
                arg_attrs.append(DictionaryAttr({"exir.constant": encode_arg(value, [])}))
                any_constant = True
                continue
            name, t = self._input(arg, i, token=spec.token)
            if name != spec.name:
                fail(f"signature input {i} is '{spec.name}' but graph placeholder {i} is '{name}'")
            placeholders.append((name, t))
            arg_attrs.append(_NO_ATTRS)
        self._placeholders(placeholders)
        self._nodes()
        graph_outputs = field(self.graph, "outputs", list, "the graph")
        if len(graph_outputs) != len(outputs):
            fail(
                f"the signature lists {len(outputs)} outputs but the graph returns "
                f"{len(graph_outputs)} values"
            )
        self._output(graph_outputs)
        block = self.block
        out_types = [v.type for v in cast(OutputOp, block.last_op).values]
        op = GraphOp(ProgramOp.ENTRY, block.arg_types, out_types, Region(block))
        if any_constant:
            op.arg_attrs = ArrayAttr(arg_attrs)
        return op

    def build_region(self) -> Region:
        """A subgraph as a region: placeholders are block arguments."""
        self._placeholders(
            [
                self._input(arg, i)
                for i, arg in enumerate(field(self.graph, "inputs", list, "the subgraph"))
            ]
        )
        self._nodes()
        self._output(field(self.graph, "outputs", list, "the subgraph"))
        return Region(self.block)

    def _input(self, arg: object, i: int, token: bool = False) -> tuple[str, Attribute]:
        """The name and type of one placeholder."""
        kind, body = union(arg, f"graph input {i}")
        if kind == "as_tensor":
            name = field(body, "name", str, "a tensor input")
            return name, TokenType() if token else self._tensor_type(name)
        if kind == "as_sym_int":
            name = self._sym_name(body, kind)
            return name, self._sym_int_type(name)
        if kind == "as_sym_float":
            return self._sym_name(body, kind), SymFloatType()
        if kind == "as_sym_bool":
            return self._sym_name(body, kind), SymBoolType()
        if kind == "as_custom_obj":
            name = field(body, "name", str, kind)
            return name, CustomObjType(StringAttr(field(body, "class_fqn", str, kind)))
        fail(f"graph input {i} is of unsupported kind '{kind}'")

    def _sym_name(self, body: object, what: str) -> str:
        kind, name = union(body, what)
        if kind != "as_name" or not isinstance(name, str):
            fail(f"a {what} placeholder must be named, got {body!r}"[:300])
        return name

    def _placeholders(self, placeholders: Sequence[tuple[str, Attribute]]) -> None:
        self.block = Block(arg_types=[t for _, t in placeholders])
        for (name, _), value in zip(placeholders, self.block.args):
            value.name_hint = name
            self._define(name, value)

    def _define(self, name: str, value: object) -> None:
        if name in self.values:
            fail(f"'{name}' is defined twice")
        self.values[name] = value

    def _output(self, outputs: list[Any]) -> None:
        values: list[SSAValue] = []
        for i, out in enumerate(outputs):
            kind, body = union(out, f"graph output {i}")
            if kind == "as_tensor":
                value = self.lookup(field(body, "name", str, "a tensor output"))
            elif kind in ("as_sym_int", "as_sym_float", "as_sym_bool"):
                value = self._sym_arg(kind, body)
                if not isinstance(value, SSAValue):  # a SymInt torch knew to be constant
                    value = self._constant_output(value)
            elif kind == "as_custom_obj":
                value = self.lookup(field(body, "name", str, kind))
            elif kind in ("as_int", "as_float", "as_bool", "as_string", "as_none"):
                # `return x, True`: torch.export's ConstantArgument output.
                value = self._constant_output(None if kind == "as_none" else self._constant(kind, body))
            else:
                fail(f"graph output {i} is of unsupported kind '{kind}'")
            if not isinstance(value, SSAValue):
                fail(f"graph output {i} is not a single value")
            values.append(value)
        self.block.add_op(OutputOp(values))

    def _constant_output(self, value: object) -> SSAValue:
        op = ConstantOp(cast(bool | int | float | str | None, value))
        self.block.add_op(op)
        return op.result

    def _nodes(self) -> None:
        for node in field(self.graph, "nodes", list, "the graph"):
            try:
                self._node(node)
            except Fail as e:
                raise Fail(f"{_node_place(node)}: {e.message}") from None
            except JSON_ERRORS as e:
                raise Fail(f"{_node_place(node)}: {malformed(e)}") from None

    # -- values and types -------------------------------------------------------

    def lookup(self, name: object) -> object:
        value = self.values.get(name) if isinstance(name, str) else None
        if value is None:
            fail(f"uses '{name}', which is not defined before it")
        return value

    def _tensor_type(self, name: str) -> TensorType:
        meta = self.tensor_values.get(name)
        if meta is None:
            fail(f"no tensor_values entry for '{name}'")
        try:
            return self.imp.tensor_type(meta)
        except Fail as e:
            raise Fail(f"tensor_values['{name}']: {e.message}") from None

    def _sym_int_type(self, name: str) -> SymIntType:
        value = self.sym_int_values.get(name)
        if value is None:
            fail(f"no sym_int_values entry for '{name}'")
        kind, body = union(value, f"sym_int_values['{name}']")
        if kind == "as_int" and type(body) is int:
            return SymIntType(body)
        if kind == "as_expr":
            text = field(body, "expr_str", str, f"sym_int_values['{name}']")
            try:
                return SymIntType(self.imp.expr(text))
            except Fail:
                return SymIntType()  # kept opaque: the value has no IR spelling
        fail(f"malformed sym_int_values['{name}']")

    def _result_type(self, out: object, i: int) -> tuple[Attribute, str | None, list[Any] | None]:
        """(type, name, list elements) of one node output."""
        kind, body = union(out, f"output {i}")
        if kind == "as_tensor":
            name = field(body, "name", str, "a tensor output")
            if self.with_effects_token and i == 0:
                return TokenType(), name, None
            return self._tensor_type(name), name, None
        if kind == "as_tensors":
            if not isinstance(body, list):
                fail(f"output {i} is not a list")
            elems = [field(e, "name", str, "a tensor list element") for e in cast(list[Any], body)]
            types = [self._tensor_type(e) for e in elems]
            if types and all(t == types[0] for t in types):
                return ListType(types[0]), None, elems
            return TupleType(types), None, elems
        if kind == "as_none":
            return NoneType(), None, None
        if kind in ("as_sym_int", "as_sym_float", "as_sym_bool"):
            inner_kind, name = union(body, kind)
            if inner_kind != "as_name" or not isinstance(name, str):
                fail(f"output {i} is a constant {kind}")
            if kind == "as_sym_int":
                return self._sym_int_type(name), name, None
            table = self.sym_float_values if kind == "as_sym_float" else self.sym_bool_values
            if name not in table:
                table_name = "sym_float_values" if kind == "as_sym_float" else "sym_bool_values"
                fail(f"no {table_name} entry for '{name}'")
            return (SymFloatType() if kind == "as_sym_float" else SymBoolType()), name, None
        fail(f"output {i} is of unsupported kind '{kind}'")

    # -- arguments --------------------------------------------------------------

    def arg(self, a: object) -> object:
        """An Argument as an FX-style Python value (SSA values, constants, lists).

        Each serialized kind has its reader in `_ARG_READERS`; tensors, the common case,
        are looked up first."""
        kind, v = union(a, "an argument")
        if kind == "as_tensor":
            return self.lookup(v["name"])
        reader = self._ARG_READERS.get(kind)
        if reader is None:
            fail(f"unknown argument kind '{kind}'")
        return reader(self, kind, v)

    # -- the readers of `_ARG_READERS`, one per kind or family of kinds ------------

    def _none_arg(self, kind: str, v: object) -> None:
        return None

    def _constant_list(self, kind: str, v: object) -> list[object]:
        """`as_ints`, `as_floats`, `as_bools`, `as_strings`."""
        if not isinstance(v, list):
            fail(f"{kind} is not a list")
        elem = kind[:-1]
        return [self._constant(elem, x) for x in cast(list[Any], v)]

    def _constant_rows(self, kind: str, v: Any) -> list[list[object]]:
        """`as_int_lists`, `as_float_lists`."""
        elem = kind.removesuffix("_lists")
        return [[self._constant(elem, x) for x in row] for row in v]

    def _tensor_list(self, kind: str, v: Any) -> list[object]:
        return [self.lookup(field(t, "name", str, kind)) for t in v]

    def _nested_tensors(self, kind: str, v: Any) -> list[list[object]]:
        return [[self.lookup(field(t, "name", str, kind)) for t in row] for row in v]

    def _sym_list(self, kind: str, v: object) -> list[object]:
        """`as_sym_ints`, `as_sym_floats`, `as_sym_bools`."""
        if not isinstance(v, list):
            fail(f"{kind} is not a list")
        return [self._sym_arg(kind[:-1], x) for x in cast(list[Any], v)]

    def _optional_tensor_arg(self, kind: str, v: object) -> object:
        return self._optional_tensor(v)

    def _optional_tensors(self, kind: str, v: Any) -> list[object]:
        return [self._optional_tensor(x) for x in v]

    def _scalar_type(self, kind: str, v: object) -> DType:
        return self.imp.dtype(v)

    def _memory_format(self, kind: str, v: object) -> MemoryFormat:
        fmt = MEMORY_FORMAT_CODES.get(v) if type(v) is int else None
        if fmt is None:
            fail(f"unknown memory format code {v!r}")
        return fmt

    def _layout(self, kind: str, v: object) -> Layout:
        layout = LAYOUT_CODES.get(v) if type(v) is int else None
        if layout is None:
            fail(f"unknown layout code {v!r}")
        return layout

    def _device(self, kind: str, v: Any) -> DeviceAttr:
        dev_type = field(v, "type", str, "a device")
        index = v.get("index")
        if index is not None and type(index) is not int:
            fail(f"malformed device {v!r}")
        return DeviceAttr(dev_type if index is None else f"{dev_type}:{index}")

    def _operator(self, kind: str, v: object) -> str:
        if not isinstance(v, str):
            fail("as_operator is not a string")
        return target_ir_name(v)

    def _custom_obj(self, kind: str, v: Any) -> object:
        name = field(v, "name", str, kind)
        if name in self.values:
            return self.values[name]
        fail(
            f"uses the custom object '{name}' ({v.get('class_fqn')}), which is stored "
            "pickled and cannot be loaded"
        )

    def _graph_arg(self, kind: str, v: object) -> SSAValue:
        return self._graph_attr(v)

    def _complex(self, kind: str, v: object) -> complex:
        re_ = self._constant("as_float", field(v, "real", (int, float, str), kind))
        im = self._constant("as_float", field(v, "imag", (int, float, str), kind))
        return complex(cast(float, re_), cast(float, im))

    def _dict_arg(self, kind: str, v: object) -> NoReturn:
        fail("dict arguments (as_string_to_argument) are not supported")

    def _constant(self, kind: str, v: object) -> object:
        if kind == "as_int":
            ok = type(v) is int
        elif kind == "as_float":
            if type(v) is int or v in _FLOAT_WORDS:
                v = float(cast(int | str, v))  # torch writes inf and nan as words
            ok = type(v) is float
        elif kind == "as_bool":
            ok = type(v) is bool
        else:
            ok = type(v) is str
        if not ok:
            fail(f"{kind} holds {v!r}"[:300])
        return v

    def _sym_arg(self, kind: str, v: object) -> object:
        inner_kind, inner = union(v, kind)
        if inner_kind == "as_name":
            return self.lookup(inner)
        if inner_kind in ("as_int", "as_float", "as_bool"):
            return self._constant(inner_kind, inner)
        fail(f"malformed {kind}: {v!r}"[:300])

    def _optional_tensor(self, v: object) -> object:
        kind, body = union(v, "an optional tensor")
        if kind == "as_none":
            return None
        if kind == "as_tensor":
            return self.lookup(field(body, "name", str, "an optional tensor"))
        fail(f"malformed optional tensor {v!r}"[:300])

    def _graph_attr(self, v: object) -> SSAValue:
        """A subgraph argument of an unmodelled higher-order op: a sibling graph."""
        name = field(v, "name", str, "a graph argument")
        graph = field(v, "graph", dict, "a graph argument")
        try:
            region = GraphImporter(self.imp, graph).build_region()
        except Fail as e:
            raise Fail(f"subgraph '{name}': {e.message}") from None
        block = region.block
        out = cast(OutputOp, block.last_op)
        symbol = self.imp.unique_symbol(name)
        self.imp.extra_graphs.append(GraphOp(symbol, block.arg_types, out.values.types, region))
        op = GetAttrOp(symbol)
        op.results[0].name_hint = name
        self.block.add_op(op)
        return op.results[0]

    _ARG_READERS: ClassVar[dict[str, Callable[[GraphImporter, str, Any], object]]] = {
        **dict.fromkeys(("as_int", "as_float", "as_bool", "as_string"), _constant),
        "as_none": _none_arg,
        **dict.fromkeys(("as_ints", "as_floats", "as_bools", "as_strings"), _constant_list),
        "as_tensors": _tensor_list,
        **dict.fromkeys(("as_sym_int", "as_sym_float", "as_sym_bool"), _sym_arg),
        **dict.fromkeys(("as_sym_ints", "as_sym_floats", "as_sym_bools"), _sym_list),
        "as_optional_tensors": _optional_tensors,
        "as_optional_tensor": _optional_tensor_arg,
        "as_scalar_type": _scalar_type,
        "as_memory_format": _memory_format,
        "as_layout": _layout,
        "as_device": _device,
        "as_operator": _operator,
        **dict.fromkeys(("as_int_lists", "as_float_lists"), _constant_rows),
        "as_nested_tensors": _nested_tensors,
        "as_custom_obj": _custom_obj,
        "as_graph": _graph_arg,
        "as_complex": _complex,
        "as_string_to_argument": _dict_arg,
    }
    """The reader of each kind of serialized Argument (torch/_export/serde/schema.py) but `as_tensor`."""

    def _split_inputs(
        self, inputs: list[Any], info: Target
    ) -> tuple[list[object], dict[str, object]]:
        """
        FX args/kwargs of a node. With a schema, an argument is positional when the
        archive says so (or, lacking a kind, when it has no default) and every
        schema argument before it was passed positionally too.
        """
        args: list[object] = []
        kwargs: dict[str, object] = {}
        index = info.schema_index
        if index is not None:
            last = -1
            computed: dict[str, object] = {}
            values = self.values
            for inp in inputs:
                name = inp["name"]
                entry = index.get(name)
                if entry is None:
                    fail(f"argument '{name}' is not in the operator's schema")
                position, kwarg_only, has_default = entry
                if position <= last:  # out of schema order: take the general path
                    return self._split_by_schema(inputs, cast(Any, info.schema_args), computed)
                last = position
                a = inp["arg"]
                tensor = a.get("as_tensor") if type(a) is dict and len(a) == 1 else None
                tname = tensor.get("name") if type(tensor) is dict else None
                value = values.get(tname) if isinstance(tname, str) else None
                if value is None:
                    value = self.arg(a)
                computed[name] = value
                kind = inp.get("kind")
                if (
                    (kind == POSITIONAL or (kind != KEYWORD and not has_default))
                    and position == len(args)
                    and not kwarg_only
                ):
                    args.append(value)
                else:
                    kwargs[name] = value
            return args, kwargs
        if info.schema_args is None:
            for inp in inputs:
                name = inp["name"]
                value = self.arg(inp["arg"])
                if inp.get("kind") == POSITIONAL or name == "":
                    if kwargs:
                        fail("positional argument after keyword arguments")
                    args.append(value)
                else:
                    kwargs[name] = value
            return args, kwargs
        return self._split_by_schema(inputs, info.schema_args, {})

    def _split_by_schema(
        self,
        inputs: list[Any],
        schema_args: tuple[tuple[str, bool, bool], ...],
        computed: dict[str, object],
    ) -> tuple[list[object], dict[str, object]]:
        """`_split_inputs` for inputs in any order (values already read are reused)."""
        args: list[object] = []
        kwargs: dict[str, object] = {}
        given: dict[str, Any] = {}
        for inp in inputs:
            name = inp["name"]
            if name in given:
                fail(f"argument '{name}' given twice")
            given[name] = inp
        known = {a[0] for a in schema_args}
        for name in given:
            if name not in known:
                fail(f"argument '{name}' is not in the operator's schema")
        in_order = True
        for name, kwarg_only, has_default in schema_args:
            inp = given.get(name)
            if inp is None:
                in_order = False
                continue
            value = computed[name] if name in computed else self.arg(inp["arg"])
            kind = inp.get("kind")
            positional = kind == POSITIONAL or (
                kind not in (POSITIONAL, KEYWORD) and not has_default
            )
            if positional and in_order and not kwarg_only:
                args.append(value)
            else:
                kwargs[name] = value
                in_order = False
        return args, kwargs

    # -- nodes ------------------------------------------------------------------

    def _node(self, node: dict[str, Any]) -> None:
        target = node["target"]
        if not isinstance(target, str):
            fail("node target is not a string")
        info = self.imp.target(target)
        kind = info.kind
        if kind == "aten" or kind == "call":
            op = self._call(node, info)
        elif kind == "sym":
            op = self._sym(node, info)
        elif kind in ("sym_size", "sym_stride", "sym_numel"):
            op = self._dim(node, info)
        elif kind == "getitem":
            op = self._getitem(node)
        elif kind == "assert_scalar":
            op = self._assert_scalar(node, info)
        elif kind == "cond":
            op = self._cond(node, info)
        elif kind == "while_loop":
            op = self._while(node, info)
        elif kind == "map":
            op = self._map(node, info)
        else:
            self.with_effects_token = info.ir_name == "higher_order.with_effects"
            try:
                op = self._call(node, info)
            finally:
                self.with_effects_token = False
        if op is not None:
            self._annotate(op, node)

    def _annotate(self, op: Operation, node: dict[str, Any]) -> None:
        meta = node.get("metadata")
        if not meta:
            return
        imp = self.imp
        attrs = op.attributes
        for key, text in meta.items():
            if not isinstance(text, str) or not text:
                continue
            if key == "stack_trace":
                if text in imp.locations:
                    loc = imp.locations[text]
                else:
                    loc = imp.locations[text] = stack_trace_location(text)
                if loc is not None:
                    op.location = loc
                continue
            cache = imp.meta_attrs.get(key)
            if cache is None:
                continue  # metadata xdsl-exir does not keep (`from_node`, ...)
            attr = cache.get(text)
            if attr is None:
                attr = cache[text] = META_ATTRS[key](text)
            attrs[key] = attr

    def _bind_results(
        self,
        op: Operation,
        node: dict[str, Any],
        results: list[tuple[Attribute, str | None, list[Any] | None]],
    ) -> None:
        """Name results after the archive's names; list results get getitems."""
        if len(results) == 1 and results[0][1] is not None:
            name = cast(str, results[0][1])
            result = op.results[0]
            result.name_hint = name
            self._define(name, result)
            return
        multi = _Multi()
        for result, (_, name, elems) in zip(op.results, results):
            if name is not None:
                result.name_hint = name
                self._define(name, result)
                multi.append(result)
            elif elems is not None:
                if isinstance(node.get("name"), str):
                    result.name_hint = node["name"]
                items: list[SSAValue] = []
                for j, elem in enumerate(elems):
                    item = GetItemOp.create(
                        operands=[result],
                        result_types=[self._tensor_type(elem)],
                        properties={"index": IntAttr(j)},
                    )
                    item.results[0].name_hint = elem
                    self.block.add_op(item)
                    self._annotate(item, node)
                    self._define(elem, item.results[0])
                    items.append(item.results[0])
                multi.append(items)
            else:
                multi.append(result)
        node_name = node.get("name")
        if isinstance(node_name, str) and node_name not in self.values:
            if len(results) != 1:
                self.values[node_name] = multi
            elif results[0][2] is not None:
                self.values[node_name] = _Multi(cast(list[object], multi[0]))

    def _results(
        self, node: dict[str, Any]
    ) -> list[tuple[Attribute, str | None, list[Any] | None]]:
        outputs = node["outputs"]
        if not isinstance(outputs, list):
            fail("node outputs is not a list")
        return [self._result_type(out, i) for i, out in enumerate(cast(list[Any], outputs))]

    def _call(self, node: dict[str, Any], info: Target) -> Operation:
        inputs = node["inputs"]
        args, kwargs = self._split_inputs(inputs, info)
        results = self._results(node)
        types = [r[0] for r in results]
        aten = info.aten
        if (
            aten is not None
            and len(types) == info.n_returns
            and not any(isinstance(t, NoneType) for t in types)
            and "result_types" not in kwargs
            and "cls" not in kwargs
        ):
            op: Operation = aten.build(*args, result_types=types, **kwargs)
        else:
            try:
                op = CallFunctionOp(info.ir_name, args, kwargs, types)
            except TypeError as e:
                fail(f"cannot represent the arguments: {e}")
        self.block.add_op(op)
        self._bind_results(op, node, results)
        return op

    def _positional(self, node: dict[str, Any]) -> list[object]:
        return [self.arg(inp["arg"]) for inp in node["inputs"]]

    def _sym(self, node: dict[str, Any], info: Target) -> Operation:
        args = self._positional(node)
        results = self._results(node)
        if len(results) != 1 or any(not isinstance(a, SSAValue | int | float | bool) for a in args):
            return self._call(node, self.imp.generic(node["target"]))
        operands: list[SSAValue] = []
        arg_attrs = [encode_arg(a, operands) for a in args]
        assert info.sym is not None
        op = info.sym.create(
            operands=operands,
            result_types=[results[0][0]],
            properties={"args": ArrayAttr(arg_attrs)},
        )
        self.block.add_op(op)
        self._bind_results(op, node, results)
        return op

    def _dim(self, node: dict[str, Any], info: Target) -> Operation:
        args = self._positional(node)
        results = self._results(node)
        ok = (
            len(results) == 1
            and isinstance(results[0][0], SymIntType)
            and args
            and isinstance(args[0], SSAValue)
        )
        if info.kind == "sym_numel":
            ok = ok and len(args) == 1
        else:
            ok = ok and len(args) == 2 and type(args[1]) is int
        if not ok:
            return self._call(node, self.imp.generic(node["target"]))
        value = cast(SSAValue, args[0])
        if info.kind == "sym_numel":
            op: Operation = SymNumelOp.create(operands=[value], result_types=[results[0][0]])
        else:
            cls = SymSizeOp if info.kind == "sym_size" else SymStrideOp
            op = cls.create(
                operands=[value],
                result_types=[results[0][0]],
                properties={"dim": IntAttr(cast(int, args[1]))},
            )
        self.block.add_op(op)
        self._bind_results(op, node, results)
        return op

    def _getitem(self, node: dict[str, Any]) -> Operation | None:
        args = self._positional(node)
        results = self._results(node)
        if len(args) != 2 or type(args[1]) is not int or len(results) != 1:
            fail("getitem takes a value and an integer index")
        seq, index = args[0], cast(int, args[1])
        name = results[0][1]
        if isinstance(seq, list):
            items = cast(list[object], seq)
            if not -len(items) <= index < len(items):
                fail(f"getitem index {index} out of range")
            if name is not None:
                self._define(name, items[index])
            return None
        if not isinstance(seq, SSAValue) or not isinstance(seq.type, TupleType | ListType):
            fail("getitem of a value that is not a list or tuple")
        op = GetItemOp.create(
            operands=[seq], result_types=[results[0][0]], properties={"index": IntAttr(index)}
        )
        self.block.add_op(op)
        self._bind_results(op, node, results)
        return op

    def _assert_scalar(self, node: dict[str, Any], info: Target) -> Operation:
        inputs = node["inputs"]
        args, kwargs = self._split_inputs(inputs, info)
        values = [*args, *kwargs.values()]
        if (
            len(values) == 2
            and isinstance(values[0], SSAValue)
            and isinstance(values[0].type, SymBoolType | BoolType)
            and isinstance(values[1], str)
            and not any(union(o, "output")[0] != "as_none" for o in node["outputs"])
        ):
            op = AssertScalarOp(values[0], values[1])
            self.block.add_op(op)
            return op
        return self._call(node, self.imp.generic(node["target"]))

    # -- higher-order ops -------------------------------------------------------

    def _hop_args(self, node: dict[str, Any]) -> list[Any]:
        """The raw positional Arguments of a higher-order op."""
        out: list[Any] = []
        for inp in node["inputs"]:
            if inp.get("kind") not in (POSITIONAL, None) and inp.get("name"):
                return []  # keyword arguments: keep the generic form
            out.append(inp["arg"])
        return out

    def _region(self, arg: object, what: str) -> Region | None:
        kind, body = union(arg, what)
        if kind != "as_graph":
            return None
        name = field(body, "name", str, "a graph argument")
        try:
            return GraphImporter(
                self.imp, field(body, "graph", dict, "a graph argument")
            ).build_region()
        except Fail as e:
            raise Fail(f"subgraph '{name}': {e.message}") from None

    def _value_list(self, arg: object) -> list[SSAValue] | None:
        value = self.arg(arg)
        if isinstance(value, list) and all(
            isinstance(v, SSAValue) for v in cast(list[object], value)
        ):
            return cast(list[SSAValue], value)
        return None

    def _structured(
        self, node: dict[str, Any], n_graphs: int, n_lists: int, lead_value: bool
    ) -> tuple[list[Region], SSAValue | None, list[list[SSAValue]]] | None:
        """Check the cond/while/map argument pattern; None means use the generic form."""
        raw = self._hop_args(node)
        expected = n_graphs + n_lists + (1 if lead_value else 0)
        if len(raw) != expected:
            return None
        kinds = [union(a, "an argument")[0] for a in raw]
        start = 1 if lead_value else 0
        if any(k != "as_graph" for k in kinds[start : start + n_graphs]):
            return None
        if any(k not in ("as_tensors", "as_sym_ints") for k in kinds[start + n_graphs :]):
            return None
        lead: SSAValue | None = None
        if lead_value:
            value = self.arg(raw[0])
            if not isinstance(value, SSAValue):
                return None
            lead = value
        lists: list[list[SSAValue]] = []
        for a in raw[start + n_graphs :]:
            values = self._value_list(a)
            if values is None:
                return None
            lists.append(values)
        regions = [
            cast(Region, self._region(a, "a subgraph")) for a in raw[start : start + n_graphs]
        ]
        return regions, lead, lists

    def _finish_hop(
        self,
        op: Operation,
        node: dict[str, Any],
        results: list[tuple[Attribute, str | None, list[Any] | None]],
    ) -> Operation:
        self.block.add_op(op)
        self._bind_results(op, node, results)
        return op

    def _plain_results(
        self, node: dict[str, Any]
    ) -> list[tuple[Attribute, str | None, list[Any] | None]] | None:
        results = self._results(node)
        if any(name is None for _, name, _ in results):
            return None
        return results

    def _cond(self, node: dict[str, Any], info: Target) -> Operation:
        results = self._plain_results(node)
        parts = self._structured(node, 2, 1, True) if results is not None else None
        if parts is None or results is None:
            return self._call(node, info)
        (true_region, false_region), pred, (operands,) = parts
        assert pred is not None
        op = CondOp(pred, operands, [r[0] for r in results], true_region, false_region)
        return self._finish_hop(op, node, results)

    def _while(self, node: dict[str, Any], info: Target) -> Operation:
        results = self._plain_results(node)
        parts = self._structured(node, 2, 2, False) if results is not None else None
        if parts is None or results is None:
            return self._call(node, info)
        (cond_region, body_region), _, (carried, additional) = parts
        op = WhileLoopOp.create(
            operands=[*carried, *additional],
            result_types=[r[0] for r in results],
            regions=[cond_region, body_region],
            properties={"operandSegmentSizes": _segments(len(carried), len(additional))},
        )
        return self._finish_hop(op, node, results)

    def _map(self, node: dict[str, Any], info: Target) -> Operation:
        results = self._plain_results(node)
        parts = self._structured(node, 1, 2, False) if results is not None else None
        if parts is None or results is None:
            return self._call(node, info)
        (body,), _, (xs, extra) = parts
        op = MapOp.create(
            operands=[*xs, *extra],
            result_types=[r[0] for r in results],
            regions=[body],
            properties={"operandSegmentSizes": _segments(len(xs), len(extra))},
        )
        return self._finish_hop(op, node, results)



def _node_place(node: object) -> str:
    if not isinstance(node, dict):
        return "a node"
    d = cast(dict[str, Any], node)
    name = d.get("name")
    if not isinstance(name, str):
        outputs = d.get("outputs")
        name = "?"
        if isinstance(outputs, list) and outputs:
            try:
                name = argument_name(cast(list[Any], outputs)[0]) or "?"
            except Fail:
                pass
    return f"node '{name}' ({d.get('target')})"
