"""
`exir-cse`: common subexpression elimination that respects mutation and
aliasing (TorchScript's `EliminateCommonSubexpression`, JIT Technical Overview).

Two ops are merged when they have the same name, operands, properties and
attributes (the FX metadata attributes `nn_module_stack`, `source_fn_stack`,
`torch_fn`, `stack_trace` are ignored unless `keep-metadata` is set), when the
op is pure per its schema (no write, not random, no nondeterministic tag,
known effects; views included) and when no op between the two may write the
memory of their operands (AliasDb). An op whose results may be written later
is never merged, since merging would make the write visible through both.

The walk is scoped by dominance: a nested region sees the ops of its parents
(not across `IsolatedFromAbove`), and ops inside a region are not reused after
it. One hashing pass; the alias analysis is built only for graphs that write.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.traits import IsolatedFromAbove

from xdsl_exir.analysis.alias_db import AliasDb, OpKind, classify
from xdsl_exir.transforms.dead_code_elimination import graph_roots, needs_alias_db

METADATA_ATTRIBUTES: frozenset[str] = frozenset(
    {"nn_module_stack", "source_fn_stack", "torch_fn", "stack_trace", "from_node", "seq_nr"}
)

_MERGEABLE = (OpKind.PURE, OpKind.SCHEMA, OpKind.EXTRACT, OpKind.CONSTRUCT, OpKind.STATE)


class _CSE:
    def __init__(self, root: Operation, keep_metadata: bool) -> None:
        self.db = AliasDb(root) if needs_alias_db(root) else None
        self.keep_metadata = keep_metadata
        self.clock = 0
        self.last_write: dict[int, int] = {}
        self.merged = 0

    def _mergeable(self, op: Operation) -> bool:
        c = classify(op)
        if c.kind not in _MERGEABLE or op.regions or not op.results:
            return False
        if c.kind is OpKind.SCHEMA:
            info = c.info
            assert info is not None
            if info.written or info.nondeterministic or info.wildcard_args or any(info.result_wildcard):
                return False
        db = self.db
        if db is not None and any(db.has_writers(r) for r in op.results):
            return False
        return True

    def _key(self, op: Operation) -> object:
        attrs: object = ()
        if op.attributes:
            items = op.attributes.items()
            if not self.keep_metadata:
                items = [(k, v) for k, v in items if k not in METADATA_ATTRIBUTES]
            attrs = tuple(sorted(items, key=lambda kv: kv[0]))
        props = tuple(op.properties.items()) if op.properties else ()
        return (op.name, tuple(op.operands), props, tuple(r.type for r in op.results), attrs)

    def _tick(self, locations: frozenset[int]) -> None:
        self.clock += 1
        for loc in locations:
            self.last_write[loc] = self.clock

    def _still_valid(self, op: Operation, time: int) -> bool:
        db = self.db
        if db is None or not self.last_write:
            return True
        lw = self.last_write
        for v in op.operands:
            for loc in db.locations(v, True):
                if lw.get(loc, 0) > time:
                    return False
        return True

    def run_block(self, block: Block, scopes: list[dict[object, tuple[Operation, int]]]) -> None:
        scope: dict[object, tuple[Operation, int]] = {}
        scopes.append(scope)
        db = self.db
        for op in list(block.ops):
            if db is not None and (writes := db.op_writes(op)):
                self._tick(writes)
            if op.regions:
                inner = [] if op.has_trait(IsolatedFromAbove) else scopes
                for region in op.regions:
                    for b in region.blocks:
                        self.run_block(b, inner)
                continue
            if not self._mergeable(op):
                continue
            try:
                key = self._key(op)
                hash(key)
            except TypeError:
                continue
            hit: tuple[Operation, int] | None = None
            for s in reversed(scopes):
                hit = s.get(key)
                if hit is not None:
                    break
            if hit is not None and self._still_valid(op, hit[1]):
                prev = hit[0]
                for old, new in zip(op.results, prev.results):
                    if new.name_hint is None and old.name_hint is not None:
                        new.name_hint = old.name_hint
                    old.replace_all_uses_with(new)
                block.erase_op(op)
                self.merged += 1
            else:
                scope[key] = (op, self.clock)
        scopes.pop()


def eliminate_common_subexpressions(root: Operation, keep_metadata: bool = False) -> int:
    """Merge the common subexpressions of one graph; returns how many ops were merged away."""
    cse = _CSE(root, keep_metadata)
    for region in root.regions:
        for block in region.blocks:
            cse.run_block(block, [])
    return cse.merged


@dataclass(frozen=True)
class ExirCSEPass(ModulePass):
    """Common subexpression elimination aware of in-place ops and views (see the module docstring)."""

    name = "exir-cse"

    keep_metadata: bool = False
    """Also require equal FX metadata attributes (`nn_module_stack`, `torch_fn`, ...)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for root in graph_roots(op):
            eliminate_common_subexpressions(root, self.keep_metadata)

