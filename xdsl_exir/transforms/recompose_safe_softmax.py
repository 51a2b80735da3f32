"""
`recompose-safe-softmax`: one `aten._safe_softmax` for the graph it decomposes into.

`torch.export`'s `run_decompositions()` turns scaled dot-product attention's
softmax (`_safe_softmax`: zeros, not NaN, in rows that are all -inf, so a fully
masked query attends to nothing) into six operators over the score matrix:

    s    = _softmax(x, d, False)
    live = any.dim(logical_not(eq.Scalar(x, -inf)), d, True)
    out  = where.self(logical_not(live), full_like(s, 0), s)

Run op by op that is five extra passes over the largest tensor of attention plus
a boolean temporary of its size; the interpreter's `_safe_softmax` kernel is a
softmax that looks again only at rows with no finite value. This pass matches
exactly the graph above (the decompose table's `_safe_softmax` rule emits it
too, so the two are inverse) and leaves anything else alone. The intermediate
operators are erased when nothing else reads them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from xdsl_exir.dialects.aten import AtenOp, aten_op_class
from xdsl_exir.dialects.exir import TensorType

__all__ = ["RecomposeSafeSoftmaxPass"]


def _aten(value: object, name: str) -> AtenOp | None:
    """The aten op `name` that defines `value`, if it is one."""
    if isinstance(value, SSAValue) and isinstance(value.owner, AtenOp) and value.owner.name == name:
        return value.owner
    return None


def _dim(value: object, rank: int) -> int | None:
    """A dimension argument wrapped into [0, rank)."""
    if type(value) is not int or not -rank <= value < max(rank, 1):
        return None
    return value % rank if rank else 0


class RecomposeSafeSoftmax(RewritePattern):
    """`where(!any(!(x == -inf), d), full_like(softmax(x, d), 0), softmax(x, d))` -> `_safe_softmax(x, d)`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, AtenOp) or op.name != "aten.where.self" or op.get_kwargs():
            return
        cond, zeros, soft = (list(op.get_args()) + [None, None, None])[:3]
        softmax = _aten(soft, "aten._softmax.default")
        fill = _aten(zeros, "aten.full_like.default")
        dead = _aten(cond, "aten.logical_not.default")
        if softmax is None or fill is None or dead is None:
            return
        x, sdim, half_to_float = (list(softmax.get_args()) + [None, None, None])[:3]
        x_type = x.type if isinstance(x, SSAValue) else None
        if half_to_float is not False or softmax.get_kwargs() or not isinstance(x_type, TensorType):
            return
        if x_type != softmax.results[0].type or op.results[0].type != x_type:
            return  # no dtype change anywhere: the kernel computes in x's dtype
        rank = x_type.rank
        d = _dim(sdim, rank)
        # full_like(s, 0): same dtype and layout as s
        fargs, fkw = fill.get_args(), fill.get_kwargs()
        if d is None or len(fargs) != 2 or fargs[0] is not soft or fargs[1] not in (0, 0.0):
            return
        if fkw.get("dtype") is not None or set(fkw) - {"dtype", "layout", "device", "pin_memory", "memory_format"}:
            return
        live = _aten(dead.get_args()[0] if dead.get_args() else None, "aten.any.dim")
        if live is None or live.get_kwargs():
            return
        lx, ldim, keepdim = (list(live.get_args()) + [None, None, None])[:3]
        finite = _aten(lx, "aten.logical_not.default")
        if keepdim is not True or _dim(ldim, rank) != d or finite is None:
            return
        eq = _aten(finite.get_args()[0] if finite.get_args() else None, "aten.eq.Scalar")
        if eq is None or eq.get_kwargs() or list(eq.get_args()) != [x, float("-inf")]:
            return
        cls = aten_op_class("aten._safe_softmax.default")
        if cls is None:
            return
        new = cls.build(x, cast(int, sdim), result_types=[x_type])
        rewriter.replace(op, new)
        for chain_op in (dead, live, finite, eq, fill, softmax):
            if all(not r.uses for r in chain_op.results):
                rewriter.erase(chain_op)


@dataclass(frozen=True)
class RecomposeSafeSoftmaxPass(ModulePass):
    """Rewrite the decomposed `_safe_softmax` graph back into the one operator."""

    name = "recompose-safe-softmax"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([RecomposeSafeSoftmax()]), apply_recursively=False
        ).rewrite_module(op)
