"""
Alias analysis for Export IR and TorchScript IR graphs (JIT Technical Overview, "Alias
Analysis in the IR" / "Writing optimization passes with AliasDb").

`AliasDb(graph)` builds a MemoryDAG for one graph (`exir.graph`, `ts.method`,
or any op with a region, nested regions included) from the operators' schema
alias annotations (`utils/function_schema/`):

* every value of a mutable type (tensors, lists, tuples, dicts, objects) gets
  an *element*; a view (`Tensor(a) self -> Tensor(a)`) points to the element
  of its source, so both have the same memory *locations* (the leaves reached
  through points-to edges);
* containers (`prim.ListConstruct`, `Tensor(a)[]` results) *contain* the
  elements of their items, and extracting an item (`exir.getitem`,
  `prim.ListUnpack`, ...) points to what the container holds;
* the *wildcard* element stands for "any memory we cannot see": results of
  `(*)` annotations, of ops without a schema and of module attributes, values
  passed to such ops, and TorchScript graph inputs all point to it;
* writes (`(a!)`) are recorded per op, on the written operand's locations;
  an op with unknown effects writes every operand and the wildcard, and a
  random op writes the generator state (a location of its own), so two random
  ops never swap and never merge;
* an operator that returns nothing and writes no argument (`prim::Print`,
  `aten::warn`, `aten::_assert_scalar`) is called for its effect on the world
  outside memory: it writes that location (`IO`) and only reads its operands,
  as torch's AliasDb has it (a list printed is not a list mutated), and an
  operator taking varargs without alias annotations (`aten::format`) reads
  them.

Graph inputs of the entry graph of an `exir.program` are distinct by the
export contract (each gets its own location); inputs of any other graph may
alias each other (they point to the wildcard), as in TorchScript. Pass
`distinct_inputs` to choose.

API (values are `SSAValue`s, ops `Operation`s of the graph):

* `may_alias(a, b)`, `may_contain_alias(a, b)` (containers' items included);
* `writers(v)` (the ops that may write `v`'s memory), `has_writers(v)`,
  `writes_to(op, v)`, `is_mutated_after(v, op)`;
* `op_writes(op)` / `op_reads(op)`: the locations an op (with its nested
  regions) writes / reads; `has_unknown_effects(op)`, `is_random(op)`,
  `is_pure(op)` (no write, deterministic, known);
* `could_move_before(op, target)` / `could_move_after(op, target)` and
  `move_before` / `move_after` (move `op` next to `target` in the same block if
  no data dependence and no read/write conflict on aliasing memory lies
  between them; return whether it moved);
* `escapes(v)`: `v`'s memory reaches the graph's inputs, outputs or the
  wildcard (a write to it is observable outside the graph);
* `may_alias_input(v)`: `v`'s memory may be a graph input's;
* for whole-graph passes (`exir-dce`): `effectful_ops()` (unknown effects or
  random), `writing_ops()` with `own_writes(op)`, and `writers_at(location)`;
* `AliasDb.of_graph(op)`: the database of the graph holding `op`, for
  rewrite patterns that ask one question about one value.

The database describes the IR it was built on; a pass that removes ops may keep
using it (answers stay conservative), one that adds ops must rebuild it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.traits import IsolatedFromAbove, IsTerminator, is_side_effect_free

from xdsl_exir.analysis.overload_resolution import OverloadError, resolve_node
from xdsl_exir.dialects import exir, prim, ts
from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.fx import GetAttrOp as FxGetAttrOp
from xdsl_exir.utils.function_schema import FunctionSchema, TypeKind
from xdsl_exir.utils.op_registry import (
    HIGHER_ORDER_OPS,
    NONDETERMINISTIC_TAGS,
    PYTHON_TARGETS,
    lookup,
    may_be_custom,
    op_name_of,
)

__all__ = ["AliasDb", "OpKind", "classify"]

WILDCARD = 0
"""The element (and location) of all memory the analysis cannot see."""
RNG = 1
"""The location of the random generator's state."""
IO = 2
"""The location of the world outside memory: what printing, warnings and assertions act on."""

_UNTRACKED_TYPES: tuple[type[Attribute], ...] = (
    exir.SymIntType,
    exir.SymFloatType,
    exir.SymBoolType,
    exir.IntType,
    exir.FloatType,
    exir.BoolType,
    exir.StrType,
    exir.ScalarType,
    exir.ScalarTypeType,
    exir.LayoutType,
    exir.MemoryFormatType,
    exir.DeviceType,
    exir.NoneType,
    exir.GraphModuleType,
    ts.TSIntType,
    ts.TSFloatType,
    ts.TSComplexType,
    ts.TSBoolType,
    ts.TSStrType,
    ts.TSNoneType,
    ts.TSDeviceType,
    ts.TSNumberType,
    ts.TSFunctionType,
)

_untracked_cache: dict[Attribute, bool] = {}


def is_mutable_type(t: Attribute) -> bool:
    """Whether values of type `t` live in memory that may be aliased or written."""
    r = _untracked_cache.get(t)
    if r is None:
        r = not isinstance(t, _UNTRACKED_TYPES) and t.name.startswith(("exir.", "ts."))
        if len(_untracked_cache) < 4096:
            _untracked_cache[t] = r
    return r


# ---------------------------------------------------------------------------
# What an op does, from its schema or its kind
# ---------------------------------------------------------------------------


class OpKind:
    """How the analysis models an op (string constants)."""

    PURE = "pure"  # no memory effect; results fresh
    SCHEMA = "schema"  # an operator with a schema: views, writes, wildcards
    CONSTRUCT = "construct"  # results contain the operands
    EXTRACT = "extract"  # results are items of operand 0
    TERMINATOR = "terminator"
    REGION = "region"  # effects are those of the nested ops
    STATE = "state"  # fx.get_attr: one location per state name
    UNKNOWN = "unknown"  # may do anything with its operands and the wildcard


@dataclass(frozen=True)
class SchemaInfo:
    """The alias facts of one schema, by argument index (computed once per schema)."""

    schema: FunctionSchema
    functional: bool
    random: bool
    nondeterministic: bool
    written: tuple[int, ...]
    result_aliases: tuple[tuple[int, ...], ...]
    result_in_list: tuple[bool, ...]
    result_wildcard: tuple[bool, ...]
    wildcard_args: tuple[int, ...]
    effect: bool = False
    """Returns nothing and writes no argument: called for an effect outside memory (`IO`)."""


@cache
def schema_info(schema: FunctionSchema, tags: frozenset[str] = frozenset()) -> SchemaInfo:
    amap = schema.return_alias_map()
    wild_returns = set(map(id, schema.wildcard_returns))
    wild_args = set(map(id, schema.wildcard_arguments))
    return SchemaInfo(
        schema=schema,
        functional=schema.is_functional,
        random="nondeterministic_seeded" in tags,
        nondeterministic=bool(tags & NONDETERMINISTIC_TAGS),
        written=tuple(i for i, a in enumerate(schema.arguments) if a.is_write),
        result_aliases=tuple(amap.get(i, ()) for i in range(len(schema.returns))),
        result_in_list=tuple(r.type.kind is TypeKind.LIST for r in schema.returns),
        result_wildcard=tuple(id(r) in wild_returns for r in schema.returns),
        wildcard_args=tuple(i for i, a in enumerate(schema.arguments) if id(a) in wild_args),
        effect=not schema.returns and not schema.is_varret and not schema.is_mutable,
    )


@dataclass(frozen=True)
class Classified:
    """`classify(op)`: the kind, and for SCHEMA ops the schema facts and operand binding."""

    kind: str
    info: SchemaInfo | None = None
    ts_bindings: tuple[int | None, ...] | None = None
    """For `ts.node`: per schema argument, the operand filling it."""


_PURE = Classified(OpKind.PURE)
_UNKNOWN = Classified(OpKind.UNKNOWN)
_CLASS_KINDS: dict[type[Operation], Classified] = {}
_TARGET_KINDS: dict[str, Classified] = {}
_TS_KINDS: dict[tuple[str, tuple[Attribute, ...]], Classified] = {}


def _opaque(schema: FunctionSchema) -> bool:
    """Variadic results, or varargs whose aliasing the annotations cannot say: effects unknown."""
    return schema.is_varret or (schema.is_vararg and not schema.is_functional)


def _registry_kind(name: str) -> Classified:
    if name in PYTHON_TARGETS:
        return _PURE
    if name in HIGHER_ORDER_OPS or name.startswith("torch.ops.higher_order."):
        return _UNKNOWN
    entry = lookup(name)
    if entry is None or _opaque(entry.schema):
        return _UNKNOWN
    return Classified(OpKind.SCHEMA, schema_info(entry.schema, entry.tags))


def classify(op: Operation) -> Classified:
    """How the analysis (and DCE / CSE) sees `op`; cached per class, target or node signature."""
    cls = type(op)
    hit = _CLASS_KINDS.get(cls)
    if hit is not None:
        return hit
    if isinstance(op, AtenOp):
        c = _registry_kind(op.name)
        _CLASS_KINDS[cls] = c
        return c
    if isinstance(op, exir.CallFunctionOp):
        target = op.target.data
        c = _TARGET_KINDS.get(target)
        if c is None:
            c = _registry_kind(target)
            if not may_be_custom(target):  # a custom operator's kernel may be (un)registered later
                _TARGET_KINDS[target] = c
        return c
    if isinstance(op, ts.NodeOp):
        return _ts_kind(op)
    if isinstance(op, exir.GetItemOp | prim.ListUnpackOp | prim.TupleUnpackOp | prim.TupleIndexOp):
        c = Classified(OpKind.EXTRACT)
    elif isinstance(op, prim.ListConstructOp | prim.TupleConstructOp | prim.DictConstructOp):
        c = Classified(OpKind.CONSTRUCT)
    elif op.has_trait(IsTerminator):
        c = Classified(OpKind.TERMINATOR)
    elif isinstance(op, FxGetAttrOp):
        c = Classified(OpKind.STATE)
    elif isinstance(op, prim.ConstantOp | prim.UninitializedOp | exir.GetAttrOp):
        c = _PURE
    elif op.regions:
        c = Classified(OpKind.REGION)
    elif is_side_effect_free(op):
        c = _PURE
    else:
        c = _UNKNOWN
    _CLASS_KINDS[cls] = c
    return c


def _ts_kind(op: ts.NodeOp) -> Classified:
    if op.regions:
        return _UNKNOWN
    key = (op.kind.data, tuple(op.operand_types))
    c = _TS_KINDS.get(key)
    if c is None:
        try:
            resolved = resolve_node(op.kind.data, key[1])
        except (OverloadError, ValueError, KeyError):
            c = _UNKNOWN
        else:
            if _opaque(resolved.schema):
                _TS_KINDS[key] = _UNKNOWN
                return _UNKNOWN
            qualified, _, overload = resolved.name.partition(".")
            entry = lookup(op_name_of(qualified, overload))
            tags = entry.tags if entry is not None else frozenset()
            c = Classified(OpKind.SCHEMA, schema_info(resolved.schema, tags), resolved.bindings)
        _TS_KINDS[key] = c
    return c


def bound_operands(op: Operation, c: Classified, arg_index: int) -> list[int]:
    """Indices of the operands bound to schema argument `arg_index` of a SCHEMA op."""
    if c.ts_bindings is not None:
        if arg_index < len(c.ts_bindings) and (j := c.ts_bindings[arg_index]) is not None:
            return [j]
        return []
    assert c.info is not None
    arg = c.info.schema.arguments[arg_index]
    args = op.properties["args"]
    assert isinstance(args, ArrayAttr)
    attr: Attribute | None = None
    if not arg.kwarg_only and arg_index < len(args.data):
        attr = args.data[arg_index]
    else:
        kwargs = op.properties.get("kwargs")
        if isinstance(kwargs, DictionaryAttr):
            attr = kwargs.data.get(arg.name)
    return [] if attr is None else list(exir.iter_refs(attr))


# ---------------------------------------------------------------------------
# The database
# ---------------------------------------------------------------------------


class AliasDb:
    """The MemoryDAG of one graph; see the module docstring for the API."""

    def __init__(self, root: Operation, *, distinct_inputs: bool | None = None) -> None:
        if isinstance(root, exir.ProgramOp):
            entry = root.entry
            if entry is None:
                raise ValueError("the program has no @forward graph")
            root = entry
        if not root.regions or not root.regions[0].blocks:
            raise ValueError(f"'{root.name}' has no graph body to analyse")
        self.root = root
        self.block: Block = root.regions[0].blocks[0]
        if distinct_inputs is None:
            distinct_inputs = isinstance(root, exir.GraphOp) and isinstance(
                root.parent_op(), exir.ProgramOp
            ) and root.sym_name.data == exir.ProgramOp.ENTRY
        self._elem: dict[SSAValue, int] = {}
        self._points: list[list[int]] = [[], [], []]
        self._contains: list[list[int]] = [[], [], []]
        self._state: dict[str, int] = {}
        self._own_writes: dict[Operation, set[int]] = {}
        """Elements written by the op itself (not its nested ops)."""
        self._writes: dict[Operation, set[int]] = {}
        """Elements written by the op or its nested ops."""
        self._unknown: set[Operation] = set()
        self._random: set[Operation] = set()
        self._effects: set[Operation] = set()
        self._locs: dict[int, frozenset[int]] = {
            WILDCARD: frozenset((WILDCARD,)),
            RNG: frozenset((RNG,)),
            IO: frozenset((IO,)),
        }
        self._writer_index: dict[int, list[Operation]] | None = None
        self._escaping: frozenset[int] | None = None
        self._input_locations: frozenset[int] | None = None
        for arg in self.block.args:
            if is_mutable_type(arg.type):
                self._elem[arg] = self._fresh() if distinct_inputs else self._fresh(WILDCARD)
        self._visit_block(self.block, None)

    @classmethod
    def of_graph(cls, op: Operation) -> AliasDb | None:
        """
        The database of the graph holding `op`: its innermost enclosing
        `exir.graph` or `ts.method`, else its outermost enclosing op with a
        body below the module; None for an op outside any graph. Built anew
        on every call, so a rewrite pattern asks about the IR as it is now.
        """
        root: Operation | None = None
        p = op.parent_op()
        while p is not None:
            if isinstance(p, exir.GraphOp | ts.MethodOp):
                return cls(p)
            if p.regions and p.parent_op() is not None:
                root = p
            p = p.parent_op()
        return cls(root) if root is not None else None

    # -- building -------------------------------------------------------------

    def _fresh(self, *points_to: int) -> int:
        self._points.append(list(points_to))
        self._contains.append([])
        return len(self._points) - 1

    def _element(self, v: SSAValue) -> int | None:
        e = self._elem.get(v)
        if e is None and is_mutable_type(v.type):
            return WILDCARD  # defined outside the analysed graph
        return e

    def _fresh_results(self, op: Operation, *points_to: int) -> None:
        for r in op.results:
            if is_mutable_type(r.type):
                self._elem[r] = self._fresh(*points_to)

    def _record_write(self, op: Operation, elements: Iterable[int], parents: list[Operation]) -> None:
        es = set(elements)
        if not es:
            return
        self._own_writes.setdefault(op, set()).update(es)
        self._writes.setdefault(op, set()).update(es)
        for p in parents:
            self._writes.setdefault(p, set()).update(es)

    def _with_contents(self, e: int) -> list[int]:
        out = [e]
        seen = {e}
        i = 0
        while i < len(out):
            for c in self._contains[out[i]]:
                if c not in seen:
                    seen.add(c)
                    out.append(c)
            i += 1
        return out

    def _visit_block(self, block: Block, parent: Operation | None) -> None:
        parents: list[Operation] = []
        p = parent
        while p is not None and p is not self.root:
            parents.append(p)
            p = p.parent_op()
        for op in block.ops:
            self._visit_op(op, parents)

    def _visit_op(self, op: Operation, parents: list[Operation]) -> None:
        c = classify(op)
        kind = c.kind
        if kind is OpKind.PURE:
            if op.results:
                self._fresh_results(op)
            return
        if kind is OpKind.SCHEMA:
            self._visit_schema_op(op, c, parents)
        elif kind is OpKind.EXTRACT:
            src = self._element(op.operands[0]) if op.operands else None
            items = self._contains[src] if src is not None else []
            self._fresh_results(op, *(items or [WILDCARD]))
        elif kind is OpKind.CONSTRUCT:
            self._fresh_results(op)
            for r in op.results:
                if r in self._elem:
                    self._contains[self._elem[r]].extend(
                        e for v in op.operands if (e := self._element(v)) is not None
                    )
        elif kind is OpKind.STATE:
            target = str(op.properties.get("target", op.attributes.get("target", "")))
            e = self._state.get(target)
            if e is None:
                e = self._state[target] = self._fresh()
            self._fresh_results(op, e)
        elif kind is OpKind.REGION:
            self._visit_region_op(op, parents)
        elif kind is OpKind.UNKNOWN:
            self._visit_unknown(op, parents)

    def _visit_unknown(self, op: Operation, parents: list[Operation]) -> None:
        self._unknown.add(op)
        written = [WILDCARD, RNG, IO]
        for v in op.operands:
            e = self._element(v)
            if e is not None:
                for x in self._with_contents(e):
                    written.append(x)
                    self._points[x].append(WILDCARD)
        self._record_write(op, written, parents)
        self._fresh_results(op, WILDCARD)
        for region in op.regions:  # opaque bodies: analysed, but effects are already "anything"
            for block in region.blocks:
                for arg in block.args:
                    if is_mutable_type(arg.type):
                        self._elem[arg] = self._fresh(WILDCARD)
                self._visit_block(block, op)

    def _visit_schema_op(self, op: Operation, c: Classified, parents: list[Operation]) -> None:
        info = c.info
        assert info is not None
        if info.effect:
            self._effects.add(op)
            self._record_write(op, (IO,), parents)
            return
        if info.functional and not info.random:
            if op.results:
                self._fresh_results(op)
            return
        operands = op.operands
        if info.random:
            self._random.add(op)
            self._record_write(op, (RNG,), parents)
        if info.written:
            written: list[int] = []
            for a in info.written:
                for j in bound_operands(op, c, a):
                    e = self._element(operands[j])
                    if e is not None:
                        written.extend(self._with_contents(e))
            self._record_write(op, written, parents)
        for a in info.wildcard_args:
            for j in bound_operands(op, c, a):
                e = self._element(operands[j])
                if e is not None:
                    for x in self._with_contents(e):
                        self._points[x].append(WILDCARD)
        n = len(info.result_aliases)
        for i, r in enumerate(op.results):
            if not is_mutable_type(r.type):
                continue
            if i >= n:  # vararg returns: unknown
                self._elem[r] = self._fresh(WILDCARD)
                continue
            targets: list[int] = []
            for a in info.result_aliases[i]:
                for j in bound_operands(op, c, a):
                    e = self._element(operands[j])
                    if e is not None:
                        targets.append(e)
            if info.result_wildcard[i]:
                targets.append(WILDCARD)
            if info.result_in_list[i] and targets:
                container = self._fresh()
                self._contains[container].append(self._fresh(*targets))
                self._elem[r] = container
            else:
                self._elem[r] = self._fresh(*targets)

    def _visit_region_op(self, op: Operation, parents: list[Operation]) -> None:
        sources = [e for v in op.operands if (e := self._element(v)) is not None]
        isolated = op.has_trait(IsolatedFromAbove)
        arg_elements: list[int] = []
        for region in op.regions:
            for block in region.blocks:
                for k, arg in enumerate(block.args):
                    if not is_mutable_type(arg.type):
                        continue
                    if isolated and len(block.args) == len(op.operands):
                        e = self._element(op.operands[k])
                        self._elem[arg] = self._fresh(*(() if e is None else (e,)))
                    else:
                        self._elem[arg] = self._fresh(*sources)
                    arg_elements.append(self._elem[arg])
        inner = [op, *parents]
        for region in op.regions:
            for block in region.blocks:
                for nested in block.ops:
                    self._visit_op(nested, inner)
        yields: list[int] = []
        for region in op.regions:
            for block in region.blocks:
                last = block.last_op
                if last is not None and last.has_trait(IsTerminator):
                    yields.extend(e for v in last.operands if (e := self._element(v)) is not None)
        if not isolated:
            for e in arg_elements:  # loop-carried values: next iteration sees the yields
                self._points[e].extend(yields)
        self._fresh_results(op, *sources, *yields)

    # -- locations --------------------------------------------------------------

    def _locations(self, e: int) -> frozenset[int]:
        memo = self._locs
        hit = memo.get(e)
        if hit is not None:
            return hit
        points = self._points
        if not points[e]:
            result = memo[e] = frozenset((e,))
            return result
        leaves: set[int] = set()
        seen = {e}
        stack = [e]
        while stack:
            x = stack.pop()
            m = memo.get(x)
            if m is not None:
                leaves |= m
                continue
            ps = points[x]
            if not ps:
                leaves.add(x)
                continue
            for p in ps:
                if p not in seen:
                    seen.add(p)
                    stack.append(p)
        result = memo[e] = frozenset(leaves)
        return result

    def locations(self, v: SSAValue, contained: bool = False) -> frozenset[int]:
        """The memory locations `v` may refer to (with `contained`, its items' too)."""
        e = self._element(v)
        if e is None:
            return frozenset()
        if not contained:
            return self._locations(e)
        out: set[int] = set()
        for x in self._with_contents(e):
            out |= self._locations(x)
        return frozenset(out)

    def _elements_locations(self, elements: Iterable[int]) -> frozenset[int]:
        out: set[int] = set()
        for e in elements:
            out |= self._locations(e)
        return frozenset(out)

    # -- queries ----------------------------------------------------------------

    def may_alias(self, a: SSAValue, b: SSAValue) -> bool:
        """Whether `a` and `b` may share memory."""
        return not self.locations(a).isdisjoint(self.locations(b))

    def may_contain_alias(self, a: SSAValue, b: SSAValue) -> bool:
        """Whether `a` or its items may share memory with `b` or its items."""
        return not self.locations(a, True).isdisjoint(self.locations(b, True))

    def op_writes(self, op: Operation) -> frozenset[int]:
        """Locations `op` (or an op nested in it) may write."""
        es = self._writes.get(op)
        return self._elements_locations(es) if es else frozenset()

    def op_reads(self, op: Operation) -> frozenset[int]:
        """Locations `op` (or an op nested in it) may read: those of its operands and their items."""
        out: set[int] = set()
        for o in op.walk():
            for v in o.operands:
                out |= self.locations(v, True)
        if op in self._writes:
            out |= self.op_writes(op)
        return frozenset(out)

    def has_unknown_effects(self, op: Operation) -> bool:
        return op in self._unknown or any(o in self._unknown for o in op.walk())

    def is_random(self, op: Operation) -> bool:
        return op in self._random

    def is_pure(self, op: Operation) -> bool:
        """No write (to memory or the generator), no unknown effect: removable when unused."""
        return op not in self._writes

    def _writer_map(self) -> dict[int, list[Operation]]:
        if self._writer_index is None:
            index: dict[int, list[Operation]] = {}
            for op, es in self._own_writes.items():
                for loc in self._elements_locations(es):
                    index.setdefault(loc, []).append(op)
            self._writer_index = index
        return self._writer_index

    def writers(self, v: SSAValue) -> list[Operation]:
        """The ops that may write `v`'s memory (innermost ops, no duplicates)."""
        index = self._writer_map()
        out: dict[Operation, None] = {}
        for loc in self.locations(v):
            for op in index.get(loc, ()):
                out[op] = None
        return list(out)

    def has_writers(self, v: SSAValue) -> bool:
        """Whether some op may write `v`'s memory (through any alias of it)."""
        index = self._writer_map()
        return any(loc in index for loc in self.locations(v))

    def writers_at(self, location: int) -> Sequence[Operation]:
        """The ops that may write the memory location `location` themselves (innermost ops)."""
        return self._writer_map().get(location, ())

    def writing_ops(self) -> list[Operation]:
        """The ops that write memory themselves (innermost ops), in the order the analysis met them."""
        return list(self._own_writes)

    def own_writes(self, op: Operation) -> frozenset[int]:
        """Locations `op` itself may write (not its nested ops; see `op_writes`)."""
        es = self._own_writes.get(op)
        return self._elements_locations(es) if es else frozenset()

    def effectful_ops(self) -> frozenset[Operation]:
        """Ops with effects beyond the memory they write (unknown, random, `IO`): never removable."""
        return frozenset(self._unknown | self._random | self._effects)

    def writes_to(self, op: Operation, v: SSAValue) -> bool:
        """Whether `op` (or an op nested in it) may write `v`'s memory."""
        return not self.op_writes(op).isdisjoint(self.locations(v))

    def escaping_locations(self) -> frozenset[int]:
        """Locations visible outside the graph: inputs, outputs, the wildcard."""
        if self._escaping is None:
            out: set[int] = {WILDCARD}
            for arg in self.block.args:
                out |= self.locations(arg, True)
            last = self.block.last_op
            if last is not None and last.has_trait(IsTerminator):
                for v in last.operands:
                    out |= self.locations(v, True)
            self._escaping = frozenset(out)
        return self._escaping

    def escapes(self, v: SSAValue) -> bool:
        """Whether `v`'s memory is visible outside the graph (a write to it is observable)."""
        return not self.locations(v, True).isdisjoint(self.escaping_locations())

    def may_alias_input(self, v: SSAValue) -> bool:
        """Whether `v`'s memory may be that of a graph input (or state the graph reads)."""
        if self._input_locations is None:
            out: set[int] = set()
            for arg in self.block.args:
                out |= self.locations(arg, True)
            self._input_locations = frozenset(out)
        return not self.locations(v).isdisjoint(self._input_locations)

    def is_mutated_after(self, v: SSAValue, op: Operation) -> bool:
        """Whether some op running after `op` (later in the graph, or in a loop around both) may write `v`."""
        for w in self.writers(v):
            if w is op:
                continue
            if _runs_after(w, op):
                return True
        return False

    # -- moving -----------------------------------------------------------------

    def _conflict(self, a: Operation, b: Operation) -> bool:
        wa, wb = self.op_writes(a), self.op_writes(b)
        if not wa and not wb:
            return False
        if not wa.isdisjoint(wb):
            return True
        return (bool(wa) and not wa.isdisjoint(self.op_reads(b))) or (
            bool(wb) and not wb.isdisjoint(self.op_reads(a))
        )

    def _check_move(self, op: Operation, target: Operation, before: bool) -> bool:
        block = op.parent_block()
        if block is None or block is not target.parent_block() or op is target:
            return op is target
        if op.has_trait(IsTerminator) or (not before and target.has_trait(IsTerminator)):
            return False
        earlier = op.is_before_in_block(target)
        between: list[Operation] = []
        if earlier:  # moving down: (op, target) or (op, target]
            x = op.next_op
            while x is not None and x is not target:
                between.append(x)
                x = x.next_op
            if not before:
                between.append(target)
            if not between:
                return True
            inside = set(between)
            for r in op.results:
                for use in r.uses:
                    anc = block.find_ancestor_op_in_block(use.operation)
                    if anc in inside:
                        return False
        else:  # moving up: [target, op) or (target, op)
            x = target if before else target.next_op
            while x is not None and x is not op:
                between.append(x)
                x = x.next_op
            if not between:
                return True
            inside = set(between)
            for o in op.walk():
                for v in o.operands:
                    owner = v.owner
                    if isinstance(owner, Operation):
                        anc = block.find_ancestor_op_in_block(owner)
                        if anc in inside:
                            return False
        return not any(self._conflict(op, x) for x in between)

    def could_move_before(self, op: Operation, target: Operation) -> bool:
        """Whether `op` can be placed right before `target` without changing the program's meaning."""
        return self._check_move(op, target, True)

    def could_move_after(self, op: Operation, target: Operation) -> bool:
        """Whether `op` can be placed right after `target` without changing the program's meaning."""
        return self._check_move(op, target, False)

    def move_before(self, op: Operation, target: Operation) -> bool:
        """Move `op` right before `target` if that is safe; return whether it moved."""
        if op is target or not self.could_move_before(op, target):
            return op is target
        op.detach()
        block = target.parent_block()
        assert block is not None
        block.insert_op_before(op, target)
        return True

    def move_after(self, op: Operation, target: Operation) -> bool:
        """Move `op` right after `target` if that is safe; return whether it moved."""
        if op is target or not self.could_move_after(op, target):
            return op is target
        op.detach()
        block = target.parent_block()
        assert block is not None
        block.insert_op_after(op, target)
        return True


_LOOPS = ("prim.Loop", "exir.while_loop", "exir.map")


def _ancestors(op: Operation) -> Iterator[Operation]:
    p = op.parent_op()
    while p is not None:
        yield p
        p = p.parent_op()


def _runs_after(w: Operation, op: Operation) -> bool:
    """Whether `w` may execute after `op` (program order, or a loop around both)."""
    wa = [w, *_ancestors(w)]
    oa = {id(x) for x in (op, *_ancestors(op))}
    for x in wa:
        if id(x) in oa and x is not w and x.name in _LOOPS:
            return True
    # Find the common block and compare positions there.
    chain_w: dict[int, Operation] = {}
    x: Operation | None = w
    while x is not None:
        b = x.parent_block()
        if b is None:
            break
        chain_w[id(b)] = x
        x = x.parent_op()
    x = op
    while x is not None:
        b = x.parent_block()
        if b is None:
            break
        if id(b) in chain_w:
            wx = chain_w[id(b)]
            if wx is x:
                return False  # one contains the other
            return x.is_before_in_block(wx)
        x = x.parent_op()
    return True


def values_of(ops: Sequence[Operation]) -> list[SSAValue]:
    """Every result of `ops` (a convenience for tests)."""
    return [r for op in ops for r in op.results]
