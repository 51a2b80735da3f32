"""
Canonicalization patterns of the `aten` dialect (TorchScript-style peepholes).

Every generated aten op carries the dialect's `AtenCanonicalization` trait,
which imports this module on first use and asks `patterns_for` its op's name,
so xDSL's stock `canonicalize` pass applies the rules of `PEEPHOLES`; no pass of
our own is needed. Every rule keeps the result type exactly: an
arithmetic identity is folded only when the op's result type equals its
input's (`x + 0` on an int tensor with a float `0.0` promotes, a broadcast
changes the shape), and reads of the IR types do the checking.

Rules (one function per operator family, dispatched by op name):

* `x * 1`, `1 * x`, `x / 1`, `x - 0`, `pow(x, 1)` and, for non-float tensors,
  `x + 0` become `x` (float `x + 0` is not `x`: `-0.0 + 0 == +0.0`);
* `view(view(x))`, `reshape(reshape(x))`, `_unsafe_view` chains become one op;
  a view/reshape/expand/alias/full slice to the input's own type becomes `x`;
* `transpose(transpose(x))`, `permute(permute(x))`, `t(t(x))` compose into one
  `permute`, and an identity permutation becomes `x`;
* `clone`, `contiguous`, `_to_copy`, `to` and `lift_fresh_copy` whose result
  type equals the input's become `x`.

Copies and arithmetic results are fresh tensors; forwarding `x` in their place
makes two names for one buffer. That is only done when the graph's `AliasDb`
finds no writer of `x` or of the result (no in-place or `out=` op reaches
either through views, per the schemas' alias annotations) and the result does
not escape through the graph's output while `x` may be a graph input (the
runner writes mutated buffers back into the state arrays).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from xdsl_exir.analysis.alias_db import AliasDb
from xdsl_exir.dialects.aten import AtenOp, aten_op_class
from xdsl_exir.dialects.exir import TensorType

INT64_MAX = 2**63 - 1


# ---------------------------------------------------------------------------
# Alias safety


def can_forward_copy(copy: SSAValue, source: SSAValue) -> bool:
    """
    Whether a fresh tensor `copy` equal to `source` may be replaced by
    `source` itself. Two names for one buffer are safe only when the alias
    analysis of the graph finds no op that may write either (through any
    view), and `copy` does not leave the graph while `source` may be a graph
    input's memory (the runner writes mutated buffers back into the state
    arrays, which would change an output aliasing them).
    """
    owner = copy.owner
    db = AliasDb.of_graph(owner) if isinstance(owner, Operation) else None
    if db is None:
        return False
    if db.has_writers(copy) or db.has_writers(source):
        return False
    return not (db.may_alias_input(source) and db.escapes(copy))


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _same_type(a: SSAValue, b: SSAValue) -> bool:
    return isinstance(a.type, TensorType) and a.type == b.type


def _is_number(v: object, target: float) -> bool:
    return type(v) in (int, float) and v == target


def _replace(rewriter: PatternRewriter, op: Operation, value: SSAValue) -> None:
    rewriter.replace(op, [], [value])


def _arg(op: Operation, index: int, name: str, default: object = None) -> object:
    aten = cast(AtenOp, op)
    args = aten.get_args()
    if index < len(args):
        return args[index]
    return aten.get_kwargs().get(name, default)


def _producer(value: object, names: Sequence[str]) -> Operation | None:
    """The op defining `value` when it is one of `names`."""
    if isinstance(value, SSAValue) and isinstance(value.owner, Operation) and value.owner.name in names:
        return value.owner
    return None


def _rank(v: SSAValue) -> int | None:
    return v.type.rank if isinstance(v.type, TensorType) else None


# ---------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------

Rule = Callable[[Operation, PatternRewriter], None]


def _identity_arith(op: Operation, rewriter: PatternRewriter) -> None:
    """x * 1, 1 * x, x / 1, x - 0, x + 0 (not on floats), pow(x, 1)."""
    aten = cast(AtenOp, op)
    args = aten.get_args()
    if len(args) != 2 or aten.get_kwargs().get("rounding_mode") is not None or len(op.results) != 1:
        return
    base = op.name.split(".")[1]
    a, b = args
    x: object = None
    if base == "mul":
        x = a if _is_number(b, 1) else b if _is_number(a, 1) else None
    elif base == "div" or base == "pow":
        x = a if _is_number(b, 1) else None
    elif base == "sub":
        x = a if _is_number(b, 0) else None
    elif base == "add" and isinstance(a, SSAValue) and isinstance(a.type, TensorType):
        if _is_number(b, 0) and not a.type.element_dtype.is_floating_point:
            x = a
    if not isinstance(x, SSAValue) or not _same_type(x, op.results[0]):
        return
    if can_forward_copy(op.results[0], x):
        _replace(rewriter, op, x)


_RESHAPES = ("aten.view.default", "aten.reshape.default", "aten._unsafe_view.default")


def _reshape(op: Operation, rewriter: PatternRewriter) -> None:
    """view/reshape to the input's own type is the input; chains of one kind collapse."""
    aten = cast(AtenOp, op)
    args = aten.get_args()
    x = args[0] if args else None
    if not isinstance(x, SSAValue):
        return
    res = op.results[0]
    if _same_type(x, res) and (op.name != "aten._unsafe_view.default" or can_forward_copy(res, x)):
        # view and reshape of a tensor to its own shape return an alias of it
        _replace(rewriter, op, x)
        return
    inner = _producer(x, (op.name,))
    if inner is None:
        return
    inner_x = cast(AtenOp, inner).get_args()[0]
    if op.name == "aten._unsafe_view.default" and not can_forward_copy(x, cast(SSAValue, inner_x)):
        return
    new = type(aten).build(inner_x, *args[1:], result_types=list(op.result_types), **aten.get_kwargs())
    rewriter.replace(op, new)


def _same_shape_view(op: Operation, rewriter: PatternRewriter) -> None:
    """expand / alias / expand_as / full slice to the input's own type: the same tensor."""
    x = _arg(op, 0, "self")
    if not isinstance(x, SSAValue) or not _same_type(x, op.results[0]):
        return
    if op.name == "aten.slice.Tensor":
        start, end, step = _arg(op, 2, "start"), _arg(op, 3, "end"), _arg(op, 4, "step", 1)
        if start not in (None, 0) or step != 1 or not (end is None or isinstance(end, int)):
            return
    _replace(rewriter, op, x)


def _permutation(op: Operation) -> tuple[SSAValue, list[int]] | None:
    """(input, permutation) of a transpose/permute/t op with constant dims."""
    x = _arg(op, 0, "self")
    if not isinstance(x, SSAValue):
        return None
    rank = _rank(x)
    if rank is None:
        return None
    perm = list(range(rank))
    if op.name == "aten.permute.default":
        dims = _arg(op, 1, "dims")
        if not isinstance(dims, list) or not all(isinstance(d, int) for d in dims):
            return None
        return x, [cast(int, d) % max(rank, 1) for d in dims]
    if op.name == "aten.transpose.int":
        d0, d1 = _arg(op, 1, "dim0"), _arg(op, 2, "dim1")
        if not isinstance(d0, int) or not isinstance(d1, int) or rank == 0:
            return None
        d0, d1 = d0 % rank, d1 % rank
    elif op.name == "aten.t.default":
        if rank < 2:
            return x, perm
        d0, d1 = 0, 1
    else:
        return None
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return x, perm


_PERMUTES = ("aten.permute.default", "aten.transpose.int", "aten.t.default")


def _permute(op: Operation, rewriter: PatternRewriter) -> None:
    """Compose permutations of permutations; an identity permutation is the input."""
    outer = _permutation(op)
    if outer is None:
        return
    x, perm = outer
    if perm == list(range(len(perm))):
        _replace(rewriter, op, x)
        return
    inner = _producer(x, _PERMUTES)
    if inner is None or (inner_p := _permutation(inner)) is None:
        return
    base, inner_perm = inner_p
    composed = [inner_perm[p] for p in perm]
    if composed == list(range(len(composed))):
        _replace(rewriter, op, base)
        return
    permute = cast(type, aten_op_class("aten.permute.default"))
    rewriter.replace(op, permute.build(base, composed, result_types=list(op.result_types)))


def _copy(op: Operation, rewriter: PatternRewriter) -> None:
    """clone / contiguous / _to_copy / to / lift_fresh_copy to the same type, when alias-safe."""
    x = _arg(op, 0, "self")
    if not isinstance(x, SSAValue) or len(op.results) != 1 or not _same_type(x, op.results[0]):
        return
    if can_forward_copy(op.results[0], x):
        _replace(rewriter, op, x)


PEEPHOLES: dict[str, Rule] = {
    **{
        n: _identity_arith
        for n in (
            "aten.add.Tensor",
            "aten.add.Scalar",
            "aten.sub.Tensor",
            "aten.sub.Scalar",
            "aten.mul.Tensor",
            "aten.mul.Scalar",
            "aten.div.Tensor",
            "aten.div.Scalar",
            "aten.pow.Tensor_Scalar",
        )
    },
    **{n: _reshape for n in _RESHAPES},
    **{
        n: _same_shape_view
        for n in ("aten.expand.default", "aten.expand_as.default", "aten.alias.default", "aten.slice.Tensor")
    },
    **{n: _permute for n in _PERMUTES},
    **{
        n: _copy
        for n in (
            "aten.clone.default",
            "aten.contiguous.default",
            "aten._to_copy.default",
            "aten.to.dtype",
            "aten.to.dtype_layout",
            "aten.to.device",
            "aten.to.other",
            "aten.lift_fresh_copy.default",
        )
    },
}
"""Op name -> its peephole rule."""


class AtenPeephole(RewritePattern):
    """Dispatch to the op's rule in `PEEPHOLES`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        rule = PEEPHOLES.get(op.name)
        if rule is not None:
            rule(op, rewriter)


PATTERNS: tuple[RewritePattern, ...] = (AtenPeephole(),)
"""The aten dialect's canonicalization patterns (one dispatcher over `PEEPHOLES`)."""


def patterns_for(op_name: str) -> tuple[RewritePattern, ...]:
    """The patterns `canonicalize` tries on the aten op `op_name`: none without a rule."""
    return PATTERNS if op_name in PEEPHOLES else ()
