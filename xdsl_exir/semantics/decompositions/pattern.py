"""
The rewrite that applies the decomposition rules: one non-legal aten op (or an
aten `exir.call_function`) is replaced by what its rule emits, and a rule that
declines leaves nothing behind.

The `decompose` pass walks a module with it, and the kernel of an operator
without a numpy kernel of its own (`kernels/decomposed.py`) rewrites a one-op
graph with it, so both apply the rules the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import CallFunctionOp, GetItemOp, TensorType, TupleType
from xdsl_exir.semantics.decompositions.core import RULES, Decline, Emitter, Layouts, SymValues
from xdsl_exir.semantics.inference import InferenceError, NoInference, bind_arguments
from xdsl_exir.utils.diagnostics import ExirDiagnostic
from xdsl_exir.utils.op_registry import all_operators, lookup

__all__ = ["MAX_NESTED_REWRITES", "DecomposePattern"]

MAX_NESTED_REWRITES = 256
"""
How deep decompositions may nest (a rule's output rewritten by a rule, and so on)
before `decompose` calls it a cycle: real chains are a handful of levels; a cycle
is a located error, never a hang.
"""


@dataclass
class DecomposePattern(RewritePattern):
    """Rewrites one non-legal aten op (or aten `call_function`) by its rule."""

    legal: frozenset[str]
    layouts: Layouts = field(default_factory=Layouts)
    syms: SymValues = field(default_factory=SymValues)
    depth: dict[Operation, int] = field(default_factory=dict[Operation, int])
    """How many rewrites produced each op emitted so far (absent: 0, an op of the input)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, AtenOp):
            name = op.name
        elif isinstance(op, CallFunctionOp):
            entry = lookup(op.target.data)
            if entry is None:
                return
            name = entry.op_name
        else:
            return
        if name in self.legal or name not in RULES:
            return
        if isinstance(op, CallFunctionOp) and _tuple_used_whole(op):
            return  # left as it is: to-core-aten refuses it by name
        try:
            if isinstance(op, AtenOp):
                bound = op.bound_arguments()
            else:
                schema = all_operators()[name].schema
                bound = bind_arguments(schema, op.get_args(), op.get_kwargs())
        except (InferenceError, NoInference):
            return
        depth = self.depth.get(op, 0)
        if depth >= MAX_NESTED_REWRITES:
            raise ExirDiagnostic(
                op,
                f"decompose: {name} is still being rewritten after {depth} nested decompositions: its "
                "rule (or a rule it emits) produces it again, so the rewrite would never end. Keep it "
                f'with decompose{{legal-ops="{name}"}} and report the rule',
            )
        acted = rewriter.has_done_action
        emitter = Emitter(rewriter, op, self.layouts, self.syms)
        try:
            values = RULES[name](emitter, bound, op)
        except (Decline, NoInference):
            values = None
        except InferenceError as e:
            raise ExirDiagnostic(op, f"decompose: cannot decompose {name}: {e}") from e
        if values is None:
            self._undo(op, name, emitter, rewriter, acted)
            return
        self.depth.pop(op, None)
        for new in emitter.inserted:
            self.depth[new] = depth + 1
        self._replace(op, values, rewriter)

    def _undo(self, op: Operation, name: str, emitter: Emitter, rewriter: PatternRewriter, acted: bool) -> None:
        """
        Erase what a declining rule emitted, last first, and report no change: ops left
        behind would count as progress, and the walker would rerun the rule on the same op
        forever.
        """
        for new in reversed(emitter.inserted):
            if new.parent is None:
                continue
            if any(r.uses for r in new.results):
                raise ExirDiagnostic(
                    op, f"decompose: the rule for {name} declined after putting its new ops to use; "
                    "a rule must decline before it rewires the graph",
                )  # fmt: skip
            for r in new.results:
                self.syms.discard(r)
            rewriter.erase(new)
        emitter.inserted.clear()
        rewriter.has_done_action = acted

    @staticmethod
    def _replace(op: Operation, values: Sequence[SSAValue | None], rewriter: PatternRewriter) -> None:
        if _tuple_result(op) is not None and not _whole_sequence(values):
            # One value per element (a multi-result operator); a rule giving one value
            # for the whole tuple (a list-returning split, built whole) replaces it as usual.
            DecomposePattern._replace_tuple(op, values, rewriter)
            return
        if len(values) != len(op.results):
            raise ExirDiagnostic(
                op, f"decompose: rule gave {len(values)} value(s) for {len(op.results)} result(s)"
            )
        values = list(values)
        for i, (old, new) in enumerate(zip(op.results, values)):
            if new is None:
                if old.uses:
                    raise ExirDiagnostic(op, f"decompose: rule gave no value for result {i}, which is still used")
                continue
            if old.name_hint and not new.name_hint and new.owner is not op:
                new.name_hint = old.name_hint
            if (
                isinstance(new, OpResult)
                and new.op is not op
                and isinstance(old.type, TensorType)
                and isinstance(new.type, TensorType)
                and old.type != new.type
                and old.type == TensorType(new.type.shape, new.type.dtype, new.type.device, old.type.dim_order)
            ):
                # Inference gives the default layout; torch recorded the dim order the
                # decomposition computes too (a transposed output), and the graph's
                # result types say so.
                values[i] = rewriter.replace_value_with_new_type(new, old.type)
        rewriter.replace(op, [], values)

    @staticmethod
    def _replace_tuple(op: Operation, values: Sequence[SSAValue | None], rewriter: PatternRewriter) -> None:
        """
        A multi-result operator in the generic form (one `exir.call_function` whose
        one result is an `!exir.tuple`, read by `exir.getitem`s, as torch.fx and
        AOTAutograd write it) replaced by the rule's one value per element: each
        getitem is replaced as the result it reads would be, then the call goes.
        """
        tuple_type = _tuple_result(op)
        assert tuple_type is not None
        if len(values) != len(tuple_type.types):
            raise ExirDiagnostic(
                op, f"decompose: rule gave {len(values)} value(s) for a tuple of {len(tuple_type.types)}"
            )
        for use in list(op.results[0].uses):
            getitem = use.operation
            assert isinstance(getitem, GetItemOp)  # checked before the rule ran (`_tuple_used_whole`)
            DecomposePattern._replace(getitem, [values[getitem.index.data % len(values)]], rewriter)
        rewriter.erase(op)


def _tuple_result(op: Operation) -> TupleType | None:
    """The tuple type of a generic multi-result call's one result, else None."""
    if isinstance(op, CallFunctionOp) and len(op.results) == 1 and isinstance(op.results[0].type, TupleType):
        return op.results[0].type
    return None


def _whole_sequence(values: Sequence[SSAValue | None]) -> bool:
    """A rule's one value standing for a whole tuple or list (not one tensor element), or
    None from a rule that replaced the `getitem`s itself (the splits of `views`)."""
    return len(values) == 1 and (values[0] is None or not isinstance(values[0].type, TensorType))


def _tuple_used_whole(op: CallFunctionOp) -> bool:
    """A generic multi-result call whose tuple is used other than through `exir.getitem`s (returned
    whole, passed on as a tuple): its elements cannot be replaced one by one."""
    return _tuple_result(op) is not None and not all(isinstance(u.operation, GetItemOp) for u in op.results[0].uses)
