"""
The FX view of an exir graph: the nodes torch.fx would hold for it.

Both exporters (`fx_text`, `python_source`) read this view rather than the IR,
so the two agree on node names and on how each op reads as an FX node:

* the entry graph's placeholders are named by the graph signature, other
  nodes by their SSA name hints, else by FX's default for the target
  (`add`, `sum_1`, `getitem`...), made unique the way `torch.fx` does it;
* an op with several results is one call node followed by an
  `operator.getitem` node per used result, as FX records it;
* the region form of `exir.cond` / `exir.while_loop` / `exir.map` becomes
  what `torch.export` records: `get_attr` nodes of subgraphs, the
  `torch.ops.higher_order.*` call and `getitem`s of its tuple result;
* SymInt ops, `sym_size` and `assert_scalar` become calls of the callables
  FX records (`operator.mul`, `torch.ops.aten.sym_size.int`, ...);
* `exir.fusion_group` becomes what torch's own partitioner makes of a
  partition (`torch.fx.passes.utils.fuser_utils.fuse_by_partitions`, used by
  `CapabilityBasedPartitioner`): a `call_module` of a submodule `fused_<k>`
  whose graph takes the group's inputs, named as in the caller, and returns
  its one result bare or several as a tuple read by `getitem`s. A torch user
  reads a fused program in the form torch's fusers print, and the grouping
  stays visible (inlining would print the unfused program);
* the `fx` dialect of `symbolic_trace` graphs gives `call_module`,
  `call_method` and `get_attr` nodes; its `slice` / `ellipsis` values are
  constants inside the arguments that use them, as in FX.

Names. xDSL drops a numeric suffix from a name hint (`add_1` reads back as
`add`), so suffixes are made again by FX's own rule, which gives back the
original names whenever torch made them in node order (the usual case;
`sym_size_int_1` after a deleted `sym_size_int` is the common exception).
Signature names are kept whole: placeholders and outputs of the entry graph
are named exactly. A subgraph placeholder hinted `arg<i>` is torch's made-up
`arg<i>_1`. An importer that keeps full hints (bypassing the setter) gets
exactly its names back.

Our IR keeps FX argument trees as arrays, so it cannot tell a tuple from a
list; nested sequences read as lists except where FX records tuples (the
operands of `cond` and `while_loop`, `getitem` indices), see `_TUPLE_ARGS`.
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from types import EllipsisType
from typing import TypeAlias, cast

from xdsl.dialects.builtin import ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import (
    ArgsOpMixin,
    ArgValue,
    AssertScalarOp,
    CallFunctionOp,
    CondOp,
    ConstantOp,
    DeviceAttr,
    DType,
    FusionGroupOp,
    GetAttrOp,
    GetItemOp,
    GraphOp,
    Layout,
    ListType,
    MapOp,
    MemoryFormat,
    OutputKind,
    OutputOp,
    ProgramOp,
    SymArithOp,
    SymNumelOp,
    SymSizeOp,
    SymStrideOp,
    TupleType,
    WhileLoopOp,
)
from xdsl_exir.utils.diagnostics import ExirDiagnostic

__all__ = [
    "FxArg",
    "FxGraph",
    "FxNamespace",
    "FxNode",
    "FxProgram",
    "FxSlice",
    "SubgraphRef",
    "build_fx_programs",
    "fx_target",
]

# ---------------------------------------------------------------------------
# Names, as torch.fx makes them
# ---------------------------------------------------------------------------

_NAME_RE = re.compile(r"^([a-zA-Z_][0-9a-zA-Z_]*?)(?:_(\d+))?$")
_ILLEGAL_CHARS = re.compile(r"[^0-9a-zA-Z_]+")
_ILLEGAL_NAMES: frozenset[str] = frozenset(
    {*keyword.kwlist, *vars(builtins), "inf", "nan", "NoneType", "torch", "device"}
    | {"fx_pytree", "pytree"}
)
"""Names FX never gives a node: keywords, builtins and the globals of its code."""


class FxNamespace:
    """
    Unique node names by torch.fx's rule: a candidate keeps its numeric suffix
    when free, else gets the next `_<n>` of its base; keywords and builtins
    (`sum`, `max`, `input`) always get a suffix.
    """

    def __init__(self, reserved: Iterable[str] = ()) -> None:
        self._used: set[str] = set(reserved)
        self._counts: dict[str, int] = {}

    def reserve(self, name: str) -> None:
        """Keep `name` for a node met later, which takes it with `claim`."""
        self._used.add(name)

    def claim(self, name: str) -> str:
        """Take a reserved name, counting its suffix as FX would when creating it."""
        match = _NAME_RE.match(name)
        if match is not None and match.group(2) is not None:
            base = match.group(1)
            self._counts[base] = max(self._counts.get(base, 0), int(match.group(2)))
        return name

    def create(self, candidate: str) -> str:
        """A fresh name for `candidate` (an FX name, a hint, a target)."""
        match = _NAME_RE.match(candidate)
        if match is None:
            candidate = _ILLEGAL_CHARS.sub("_", candidate) or "_unnamed"
            if candidate[0].isdigit():
                candidate = "_" + candidate
            match = _NAME_RE.match(candidate)
            assert match is not None
        base, suffix = match.group(1), match.group(2)
        if suffix is None or candidate in self._used:
            num = self._counts.get(base, 0)
            if candidate in _ILLEGAL_NAMES:
                num += 1
                candidate = f"{base}_{num}"
        else:
            num = int(suffix)
        while candidate in self._used:
            num += 1
            candidate = f"{base}_{num}"
        self._used.add(candidate)
        self._counts[base] = num
        return candidate


# ---------------------------------------------------------------------------
# Nodes
# ---------------------------------------------------------------------------

# One string: type checkers do not read a forward reference split over implicitly joined literals.
FxArg: TypeAlias = "FxNode | int | float | bool | str | None | DType | Layout | MemoryFormat | DeviceAttr | FxSlice | EllipsisType | list[FxArg] | tuple[FxArg, ...]"
"""An FX argument: a node, a constant, or a (nested) list or tuple of them."""


@dataclass(frozen=True)
class FxSlice:
    """A Python `slice` in a `getitem` index (`fx.slice`); parts may be nodes."""

    start: FxArg
    stop: FxArg
    step: FxArg


@dataclass(eq=False)
class SubgraphRef:
    """
    What a `get_attr` node reads (a program-level graph or a region's graph),
    or the submodule a fusion group's `call_module` node calls.
    """

    attr: str
    """The attribute name in the owning graph module (`true_graph_0`, `fused_0`)."""
    graph: FxGraph
    program_level: bool
    """True for an `exir.graph` symbol of the program, False for an op's region."""


@dataclass(eq=False)
class FxNode:
    """One FX node; `kind` says which IR construct it stands for."""

    op: str
    """FX opcode: placeholder, get_attr, call_function, call_module, call_method or output."""
    name: str
    kind: str
    """
    The canonical callable: an IR op name (`aten.add.Tensor`), an FX Python
    target (`operator.mul`), `higher_order.cond`, ...; the placeholder or
    attribute name for those opcodes.
    """
    args: tuple[FxArg, ...] = ()
    kwargs: dict[str, FxArg] = field(default_factory=lambda: {})
    source: Operation | None = None
    """The IR op the node comes from (None for placeholders and output)."""
    value: SSAValue | None = None
    """The IR value the node computes, when it computes exactly one."""
    subgraph: SubgraphRef | None = None
    single_result: bool = False
    """
    A call of a subgraph-taking op whose IR result is the subgraph's one output
    itself (no tuple, no getitem), as in older Export IR.
    """
    users: list[FxNode] = field(default_factory=lambda: [])

    @property
    def target(self) -> str:
        """The target as `str(fx.Graph)` prints it."""
        if self.op != "call_function":
            return self.kind
        return fx_target(self.kind)

    def __repr__(self) -> str:
        return self.name


_PYTHON_MODULES = ("operator.", "_operator.", "builtins.", "math.", "torch.")


def fx_target(kind: str) -> str:
    """
    `aten.add.Tensor` -> `torch.ops.aten.add.Tensor`; Python callables keep
    their module (`_operator.add` prints as `operator.add`, as FX prints it).
    """
    if kind.startswith("_operator."):
        return "operator." + kind[len("_operator.") :]
    if kind.startswith(_PYTHON_MODULES) or not _is_operator_name(kind):
        return kind
    return "torch.ops." + kind


def _is_operator_name(kind: str) -> bool:
    """`ns.op.overload` or `higher_order.op`: an operator of `torch.ops`."""
    parts = kind.split(".")
    return len(parts) == 3 or (len(parts) == 2 and parts[0] == "higher_order")


def default_name(kind: str) -> str:
    """FX's name for a node of this callable, before uniquing."""
    if kind.startswith(_PYTHON_MODULES):
        return kind.rsplit(".", 1)[-1]
    parts = kind.split(".")
    if len(parts) == 3:
        return parts[1]
    return parts[-1]


_NOT_CONSTANT = object()

_TUPLE_ARGS: dict[str, frozenset[int]] = {
    "operator.getitem": frozenset({1}),
    "_operator.getitem": frozenset({1}),
    "higher_order.cond": frozenset({3}),
    "higher_order.while_loop": frozenset({2, 3}),
}
"""Arguments FX records as tuples (everything else is a list): HOP operands, getitem indices."""


@dataclass(eq=False)
class FxGraph:
    """The FX nodes of one graph, and the subgraphs its get_attr nodes read."""

    path: str
    """`""` for the entry graph, else the attribute path (`true_graph_0`)."""
    nodes: list[FxNode] = field(default_factory=lambda: [])
    values: dict[SSAValue, FxNode] = field(default_factory=lambda: {})
    subgraphs: list[SubgraphRef] = field(default_factory=lambda: [])
    """The region subgraphs defined by this graph's ops, in order."""
    bare_output: bool = False
    """`return x` rather than `return (x,)`: FX does so for while_loop conditions."""

    @property
    def placeholders(self) -> list[FxNode]:
        return [n for n in self.nodes if n.op == "placeholder"]

    @property
    def output(self) -> FxNode:
        return self.nodes[-1]


@dataclass(eq=False)
class FxProgram:
    """An exported program (or a module of bare graphs) in FX form."""

    entry: FxGraph
    graphs: dict[str, FxGraph]
    """Program-level graphs other than the entry, by symbol name, in order."""
    program: ProgramOp | None

    def all_graphs(self) -> list[FxGraph]:
        """Every graph, each followed by its region subgraphs (depth first)."""
        out: list[FxGraph] = []

        def visit(g: FxGraph) -> None:
            out.append(g)
            for sub in g.subgraphs:
                visit(sub.graph)

        visit(self.entry)
        for g in self.graphs.values():
            visit(g)
        return out


# ---------------------------------------------------------------------------
# Building the view
# ---------------------------------------------------------------------------


_AOT_ARG = re.compile(r"arg\d+")


def _subgraph_placeholder(hint: str | None, index: int) -> str:
    """
    A subgraph placeholder's name. torch names those it makes up `arg<i>_1`;
    after xDSL strips the suffix such a hint reads `arg<i>`, so the suffix is
    put back (a user argument really called `arg0` would print as `arg0_1`).
    """
    if hint is None:
        return f"arg{index}_1"
    return hint + "_1" if _AOT_ARG.fullmatch(hint) else hint


class _GraphBuilder:
    """Turns one IR block (a graph body or a region) into FX nodes."""

    def __init__(
        self,
        program: _ProgramBuilder,
        graph: FxGraph,
        block: Block,
        placeholder_names: Sequence[str | None] = (),
        output_names: Sequence[str | None] = (),
    ) -> None:
        self.program = program
        self.graph = graph
        self.block = block
        self.ns = FxNamespace(program.reserved)
        self.attr_names: set[str] = set()
        self.attr_counts: dict[str, int] = {}
        self._placeholder_names = placeholder_names
        self._output_names = output_names
        self._exact: dict[SSAValue, str] = {}

    # -- helpers ------------------------------------------------------------

    def _add(self, node: FxNode) -> FxNode:
        self.graph.nodes.append(node)
        if node.value is not None:
            self.graph.values[node.value] = node
        return node

    def _node_of(self, value: SSAValue, user: Operation) -> FxNode:
        node = self.graph.values.get(value)
        if node is None:
            raise ExirDiagnostic(
                user,
                "uses a value defined outside its graph; an FX subgraph takes "
                "every value it reads as a placeholder",
            )
        return node

    def _convert(self, value: ArgValue, user: Operation) -> FxArg:
        if isinstance(value, SSAValue):
            constant = self._inline_constant(value, user)
            if constant is not _NOT_CONSTANT:
                return cast(FxArg, constant)
            return self._node_of(value, user)
        if isinstance(value, list | tuple):
            return [self._convert(v, user) for v in cast(Sequence[ArgValue], value)]
        return cast(FxArg, value)

    def _inline_constant(self, value: SSAValue, user: Operation) -> object:
        """FX keeps `slice(...)` and `...` inside arguments; the fx dialect makes them values."""
        if not isinstance(value, OpResult):
            return _NOT_CONSTANT
        if isinstance(value.op, ConstantOp):
            return value.op.python_value  # torch.export's ConstantArgument output
        if value.op.name == "fx.ellipsis":
            return Ellipsis
        if value.op.name == "fx.slice":
            start, stop, step = (
                self._convert(a, user) for a in cast(ArgsOpMixin, value.op).get_args()
            )
            return FxSlice(start, stop, step)
        return _NOT_CONSTANT

    def _name_for(self, value: SSAValue | None, kind: str) -> str:
        """Exact signature name, else the name hint, else FX's default."""
        if value is not None:
            exact = self._exact.get(value)
            if exact is not None:
                return self.ns.claim(exact)
            if value.name_hint:
                return self.ns.create(value.name_hint)
        return self.ns.create(default_name(kind))

    def _new_attr(self, base: str) -> str:
        """A fresh attribute name `<base>_<k>`, counted per graph module like torch."""
        k = self.attr_counts.get(base, 0)
        while f"{base}_{k}" in self.attr_names or f"{base}_{k}" in self.program.symbols:
            k += 1
        self.attr_counts[base] = k + 1
        name = f"{base}_{k}"
        self.attr_names.add(name)
        return name

    # -- building -------------------------------------------------------------

    def build(self) -> FxGraph:
        for i, arg in enumerate(self.block.args):
            given = self._placeholder_names[i] if i < len(self._placeholder_names) else None
            candidate = given or _subgraph_placeholder(arg.name_hint, i)
            name = self.ns.create(candidate)
            self._add(FxNode("placeholder", name, name, value=arg))
        out = self.block.last_op
        if isinstance(out, OutputOp):
            for value, given in zip(out.values, self._output_names):
                if given and isinstance(value, OpResult) and value not in self._exact:
                    if given in self._exact.values() or not _NAME_RE.match(given):
                        continue
                    self._exact[value] = given
                    self.ns.reserve(given)
        for op in self.block.ops:
            self._visit(op)
        self._count_users()
        return self.graph

    def _visit(self, op: Operation) -> None:
        if isinstance(op, OutputOp):
            values = tuple(self._convert(v, op) for v in op.values)
            arg: FxArg = values[0] if self.graph.bare_output and len(values) == 1 else values
            self._add(FxNode("output", "output", "output", (arg,), source=op))
        elif isinstance(op, AtenOp):
            self._call(op, op.name, op.get_args(), op.get_kwargs())
        elif isinstance(op, CallFunctionOp):
            self._call(op, op.target.data, op.get_args(), op.get_kwargs())
        elif isinstance(op, SymArithOp):
            self._call(op, op.PYTHON_TARGET, op.get_args(), {})
        elif isinstance(op, GetItemOp):
            self._call(op, "operator.getitem", [op.input, op.index.data], {})
        elif isinstance(op, SymSizeOp):
            self._call(op, "aten.sym_size.int", [op.input, op.dim.data], {}, "sym_size_int")
        elif isinstance(op, SymStrideOp):
            self._call(op, "aten.sym_stride.int", [op.input, op.dim.data], {}, "sym_stride_int")
        elif isinstance(op, SymNumelOp):
            self._call(op, "aten.sym_numel.default", [op.input], {}, "sym_numel_default")
        elif isinstance(op, AssertScalarOp):
            self._call(
                op,
                "aten._assert_scalar.default",
                [op.condition, op.message.data],
                {},
                "_assert_scalar_default",
            )
        elif isinstance(op, GetAttrOp):
            self._get_attr(op)
        elif isinstance(op, CondOp):
            self._region_call(
                op,
                "higher_order.cond",
                [("true_graph", op.true_branch, False), ("false_graph", op.false_branch, False)],
                lambda graphs: (
                    self._node_of(op.pred, op),
                    *graphs,
                    tuple(self._node_of(v, op) for v in op.inputs),
                ),
            )
        elif isinstance(op, WhileLoopOp):
            self._region_call(
                op,
                "higher_order.while_loop",
                [
                    ("while_loop_cond_graph", op.cond_region, True),
                    ("while_loop_body_graph", op.body_region, False),
                ],
                lambda graphs: (
                    *graphs,
                    tuple(self._node_of(v, op) for v in op.carried),
                    tuple(self._node_of(v, op) for v in op.additional),
                ),
            )
        elif isinstance(op, MapOp):
            self._region_call(
                op,
                "higher_order.map_impl",
                [("body_graph", op.body, False)],
                lambda graphs: (
                    *graphs,
                    [self._node_of(v, op) for v in op.xs],
                    [self._node_of(v, op) for v in op.extra],
                ),
            )
        elif isinstance(op, FusionGroupOp):
            self._fusion_group(op)
        elif op.name in ("fx.slice", "fx.ellipsis") or isinstance(op, ConstantOp):
            pass  # inlined into the arguments that use them
        elif op.name in ("fx.call_module", "fx.call_method"):
            self._fx_call(op)
        elif op.name == "fx.get_attr":
            ref = cast(SymbolRefAttr, op.properties["target"])
            target = ".".join(
                [ref.root_reference.data, *(r.data for r in ref.nested_references.data)]
            )
            exact = self._exact.get(op.results[0])
            name = self.ns.claim(exact) if exact is not None else self.ns.create(target)
            self._add(FxNode("get_attr", name, target, source=op, value=op.results[0]))
        else:
            raise ExirDiagnostic(op, f"'{op.name}' has no FX form")

    def _fx_call(self, op: Operation) -> None:
        """`call_module` (named after its module path, as FX does) and `call_method`."""
        opcode = op.name.removeprefix("fx.")
        target = cast(StringAttr, op.properties["target"]).data
        mixin = cast(ArgsOpMixin, op)
        args = tuple(self._convert(a, op) for a in mixin.get_args())
        kwargs = {k: self._convert(v, op) for k, v in mixin.get_kwargs().items()}
        value = op.results[0] if len(op.results) == 1 else None
        if opcode == "call_module" and (value is None or value not in self._exact):
            name = self.ns.create(target)
        else:
            name = self._name_for(value, target)
        node = self._add(FxNode(opcode, name, target, args, kwargs, op, value))
        if value is None:
            self._getitems(node, op)

    def _fusion_group(self, op: FusionGroupOp) -> None:
        """`call_module[target=fused_<k>]` of the group's graph, as `fuse_by_partitions` records it."""
        inputs = tuple(self._node_of(v, op) for v in op.inputs)
        attr = self._new_attr("fused")
        path = f"{self.graph.path}.{attr}" if self.graph.path else attr
        single = len(op.results) == 1
        sub = _GraphBuilder(
            self.program,
            FxGraph(path, bare_output=single),
            op.body.block,
            placeholder_names=[n.name for n in inputs],
        ).build()
        ref = SubgraphRef(attr, sub, False)
        self.graph.subgraphs.append(ref)
        value = op.results[0] if single else None
        exact = None if value is None else self._exact.get(value)
        # FX names a call_module node after its target.
        name = self.ns.claim(exact) if exact is not None else self.ns.create(attr)
        node = self._add(FxNode("call_module", name, attr, inputs, {}, op, value, subgraph=ref))
        if value is None:
            self._getitems(node, op)

    def _call(
        self,
        op: Operation,
        kind: str,
        args: Sequence[ArgValue],
        kwargs: dict[str, ArgValue],
        default: str | None = None,
    ) -> None:
        tuples = _TUPLE_ARGS.get(kind, frozenset())
        fx_args: list[FxArg] = []
        for i, a in enumerate(args):
            converted = self._convert(a, op)
            if i in tuples and isinstance(converted, list):
                converted = tuple(converted)
            fx_args.append(converted)
        fx_kwargs = {k: self._convert(v, op) for k, v in kwargs.items()}
        results = op.results
        name_kind = kind if default is None else default
        if len(results) == 1:
            name = self._name_for(results[0], name_kind)
            node = FxNode(
                "call_function", name, kind, tuple(fx_args), fx_kwargs, op, results[0]
            )
            node.single_result = kind.startswith("higher_order.") and not isinstance(
                results[0].type, TupleType | ListType
            )
            self._add(node)
            return
        name = self._name_for(None, name_kind)
        call = self._add(FxNode("call_function", name, kind, tuple(fx_args), fx_kwargs, op))
        self._getitems(call, op)

    def _getitems(self, call: FxNode, op: Operation) -> None:
        for i, r in enumerate(op.results):
            if r.uses:
                name = self._name_for(r, "operator.getitem")
                self._add(
                    FxNode(
                        "call_function",
                        name,
                        "operator.getitem",
                        (call, i),
                        {},
                        op,
                        r,
                    )
                )

    def _get_attr(self, op: GetAttrOp) -> None:
        symbol = op.target.root_reference.data
        graph = self.program.graph_named(symbol)
        ref = None if graph is None else SubgraphRef(symbol, graph, True)
        # FX names a get_attr node after its target, whatever the value was called.
        exact = self._exact.get(op.result)
        name = self.ns.claim(exact) if exact is not None else self.ns.create(symbol)
        self._add(FxNode("get_attr", name, symbol, source=op, value=op.result, subgraph=ref))

    def _region_call(
        self,
        op: Operation,
        kind: str,
        regions: Sequence[tuple[str, Region, bool]],
        make_args: Callable[[list[FxNode]], tuple[FxArg, ...]],
    ) -> None:
        graphs: list[FxNode] = []
        for base, region, bare in regions:
            attr = self._new_attr(base)
            path = f"{self.graph.path}.{attr}" if self.graph.path else attr
            sub = _GraphBuilder(
                self.program, FxGraph(path, bare_output=bare), region.block
            ).build()
            ref = SubgraphRef(attr, sub, False)
            self.graph.subgraphs.append(ref)
            name = self.ns.create(attr)
            graphs.append(self._add(FxNode("get_attr", name, attr, source=op, subgraph=ref)))
        call_name = self.ns.create(default_name(kind))
        call = self._add(FxNode("call_function", call_name, kind, make_args(graphs), {}, op))
        self._getitems(call, op)

    def _count_users(self) -> None:
        for node in self.graph.nodes:
            seen: set[int] = set()
            for used in _iter_nodes((node.args, node.kwargs)):
                if id(used) not in seen:
                    seen.add(id(used))
                    used.users.append(node)


def _iter_nodes(arg: object) -> Iterable[FxNode]:
    if isinstance(arg, FxNode):
        yield arg
    elif isinstance(arg, list | tuple):
        for a in cast(Sequence[object], arg):
            yield from _iter_nodes(a)
    elif isinstance(arg, dict):
        for a in cast(dict[str, object], arg).values():
            yield from _iter_nodes(a)
    elif isinstance(arg, FxSlice):
        yield from _iter_nodes((arg.start, arg.stop, arg.step))


class _ProgramBuilder:
    """Builds the entry graph and every program-level subgraph, lazily by symbol."""

    def __init__(
        self,
        program: ProgramOp | None,
        graph_ops: Sequence[GraphOp],
        entry: GraphOp,
        reserved: Iterable[str],
    ) -> None:
        self.program = program
        self.reserved = frozenset(reserved)
        self.graph_ops = {g.sym_name.data: g for g in graph_ops}
        self.symbols = set(self.graph_ops)
        self.entry = entry
        self.built: dict[str, FxGraph] = {}
        self.bare = _while_conditions(graph_ops)

    def graph_named(self, symbol: str) -> FxGraph | None:
        if symbol in self.built:
            return self.built[symbol]
        op = self.graph_ops.get(symbol)
        if op is None or op is self.entry:
            return None
        graph = FxGraph(symbol, bare_output=symbol in self.bare)
        self.built[symbol] = graph  # before building: a graph may refer to itself
        return _GraphBuilder(self, graph, op.body.block).build()

    def build(self) -> FxProgram:
        placeholder_names: list[str | None] = []
        output_names: list[str | None] = []
        if self.program is not None:
            placeholder_names = [s.arg_name.data for s in self.program.inputs.data]
            output_names = [
                s.arg_name.data if s.output_kind is not OutputKind.token else None
                for s in self.program.outputs.data
            ]
        entry = _GraphBuilder(
            self, FxGraph(""), self.entry.body.block, placeholder_names, output_names
        ).build()
        for symbol, op in self.graph_ops.items():
            if op is not self.entry:
                self.graph_named(symbol)
        ordered = {s: self.built[s] for s in self.graph_ops if s in self.built}
        return FxProgram(entry, ordered, self.program)


def _while_conditions(graph_ops: Sequence[GraphOp]) -> set[str]:
    """Symbols of graphs used as a while_loop condition: FX returns their value bare."""
    found: set[str] = set()
    for g in graph_ops:
        for op in g.walk():
            if isinstance(op, CallFunctionOp) and op.target.data.endswith(
                "higher_order.while_loop"
            ):
                args = op.get_args()
                if args and isinstance(args[0], OpResult) and isinstance(
                    args[0].op, GetAttrOp
                ):
                    found.add(args[0].op.target.root_reference.data)
    return found


def build_fx_program(program: ProgramOp, reserved: Iterable[str] = ()) -> FxProgram:
    """The FX form of one `exir.program`; `reserved` names are never given to nodes."""
    graphs = [op for op in program.body.block.ops if isinstance(op, GraphOp)]
    entry = program.entry
    if entry is None:
        raise ExirDiagnostic(program, "program has no entry graph @forward")
    return _ProgramBuilder(program, graphs, entry, reserved).build()


def build_fx_programs(module: ModuleOp, reserved: Iterable[str] = ()) -> list[FxProgram]:
    """
    Every program of a module, in order. Graphs outside any program form one
    more program whose entry is `@forward` if present, else the first graph.
    """
    out: list[FxProgram] = []
    loose: list[GraphOp] = []
    for op in module.ops:
        if isinstance(op, ProgramOp):
            out.append(build_fx_program(op, reserved))
        elif isinstance(op, GraphOp):
            loose.append(op)
    if loose:
        entry = next((g for g in loose if g.sym_name.data == ProgramOp.ENTRY), loose[0])
        out.append(_ProgramBuilder(None, loose, entry, reserved).build())
    return out

