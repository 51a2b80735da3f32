"""
`list-peepholes`: TorchScript's `PeepholeOptimizeListIdioms` (torch's
`_jit_pass_peephole_list_idioms`) on `ts.method` graphs.

For a list built by `prim.ListConstruct` that is never mutated, `aten::len`
becomes a constant, `aten::__getitem__` with a constant index in range the
element, `prim.ListUnpack` the elements, and `aten::add` of two such lists one
`prim.ListConstruct`. The rules are the list rules of the prim dialect's
canonicalization (`transforms/canonicalization_patterns/prim.py`, which also decides when
a list is unmutated); this pass runs them alone, as torch's pass does, and
then erases the list literals nothing reads any more.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from xdsl_exir.dialects.prim import ListConstructOp
from xdsl_exir.dialects.ts import NodeOp
from xdsl_exir.transforms.canonicalization_patterns.prim import LIST_RULES

__all__ = ["ListIdioms", "ListPeepholesPass"]


class ListIdioms(RewritePattern):
    """Apply the list rule of an op (by op name, or node kind for `ts.node`)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        rule = LIST_RULES.get(op.kind.data if isinstance(op, NodeOp) else op.name)
        if rule is not None:
            rule(op, rewriter)


@dataclass(frozen=True)
class ListPeepholesPass(ModulePass):
    """Fold len / constant indexing / unpacking / concatenation of unmutated list literals."""

    name = "list-peepholes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier([ListIdioms()], dce_enabled=False)).rewrite_module(op)
        for o in reversed(list(op.walk())):
            if isinstance(o, ListConstructOp) and not o.results[0].uses and o.parent is not None:
                o.detach()
                o.erase()
