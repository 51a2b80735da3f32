"""
`shape-propagation`: re-infer every result type of a program from its inputs.

Export IR records FakeTensor metadata on every value; after a user input is
re-typed (`input-types="x=f32[s0, 3, 32, 32]"`, sizes may be symbols) or an
upstream pass changed a shape, the recorded types are stale. This pass walks
the program in order and recomputes each result type with the `aten`
dialect's inference (`semantics/inference/`), the same rules the
verifier checks with: aten ops, `exir.call_function` of registered
operators, `getitem`, the SymInt ops (whose recorded values follow the new
sizes), and the regions of `cond`, `while_loop`, `map` and fusion groups.
Sizes are simplified with the program's range constraints (option `ranges`
adds or replaces them): `Max(1, s0)` becomes `s0` when `s0 >= 1`.

Contradictions are errors, not guards. Broadcasting a symbolic size `s0`
against a static `3` is only valid for `s0` in {1, 3}; torch.export would
specialize the dimension and report a constraint violation, so this pass
refuses it with a diagnostic naming the op, unless the range of `s0` is
exactly that value. An op whose result type cannot be inferred keeps its
recorded type when none of its operands changed, and is an error otherwise.

TorchScript IR (`ts.method` graphs) is not propagated yet: the pass refuses
it and points to `torchscript-to-exir`, which specializes the same options.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, FunctionType, ModuleOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import DiagnosticException

from xdsl_exir.dialects import exir
from xdsl_exir.dialects.aten import AtenOp, types_agree
from xdsl_exir.semantics.inference import (
    InferenceError,
    NoInference,
    infer_bound,
    infer_result_types,
    make_tensor,
)
from xdsl_exir.transforms.input_options import InputOptionError, parse_input_types, parse_ranges
from xdsl_exir.utils.diagnostics import ExirDiagnostic
from xdsl_exir.utils.op_registry import lookup
from xdsl_exir.utils.symbolic import SymSize, normalize, sympy, to_sym

__all__ = ["ShapePropagationPass", "SymbolRanges", "propagate_program"]

Range = tuple[int | float, int | float]


class SymbolRanges:
    """Range constraints of a program's size symbols, used to simplify and to check sizes."""

    def __init__(self, ranges: dict[sympy.Symbol, Range]) -> None:
        self.ranges = ranges
        # s = lo + t with t >= 0 lets sympy decide Max/Min/comparisons from assumptions.
        self._shift: dict[sympy.Symbol, sympy.Expr] = {}
        self._unshift: dict[sympy.Symbol, sympy.Expr] = {}
        for sym, (lo, _hi) in ranges.items():
            if isinstance(lo, int):
                t = sympy.Symbol(f"_t_{sym.name}", integer=True, nonnegative=True)
                self._shift[sym] = lo + t
                self._unshift[t] = sym - lo

    def range_of(self, sym: sympy.Symbol) -> Range:
        return self.ranges.get(sym, (0, math.inf))

    def simplify(self, value: SymSize) -> SymSize:
        """A size expression rewritten under the ranges (Max/Min/Abs decided where possible)."""
        if isinstance(value, int) or not isinstance(value, sympy.Basic) or value.is_Integer:
            return normalize(to_sym(value))
        if not value.has(sympy.Max, sympy.Min, sympy.Abs, sympy.Piecewise):
            return value
        shifted = value.xreplace(self._shift)
        shifted = shifted.replace(lambda e: isinstance(e, sympy.Max | sympy.Min), lambda e: e.func(*e.args))
        back = sympy.expand(shifted.xreplace(self._unshift))
        return normalize(back) if not back.free_symbols - value.free_symbols else value

    def simplify_type(self, t: Attribute) -> Attribute:
        if isinstance(t, exir.TensorType):
            sizes = [self.simplify(s) for s in t.sizes]
            if list(sizes) == list(t.sizes):
                return t
            return exir.TensorType(sizes, t.dtype, t.device, t.dim_order if t.dim_order.data else None)
        if isinstance(t, exir.SymIntType) and t.value is not None:
            v = self.simplify(t.value)
            return t if to_sym(v) == t.value else exir.SymIntType(v)
        if isinstance(t, exir.ListType):
            e = self.simplify_type(t.element_type)
            return t if e == t.element_type else exir.ListType(e)
        if isinstance(t, exir.TupleType):
            types = [self.simplify_type(x) for x in t.types.data]
            return t if types == list(t.types.data) else exir.TupleType(types)
        return t

    def admits(self, sym: sympy.Symbol, value: int) -> bool:
        lo, hi = self.range_of(sym)
        return lo <= value <= hi


class _Propagator:
    """One walk over a program's graphs; `changed` holds the values whose type changed."""

    def __init__(self, ranges: SymbolRanges) -> None:
        self.ranges = ranges
        self.changed: set[SSAValue] = set()

    # -- helpers -----------------------------------------------------------------

    def set_type(self, value: SSAValue, new: Attribute) -> SSAValue:
        new = self.ranges.simplify_type(new)
        if _same(value.type, new):
            return value
        fresh = Rewriter.replace_value_with_new_type(value, new)
        self.changed.discard(value)
        self.changed.add(fresh)
        return fresh

    def _inputs_changed(self, op: Operation) -> bool:
        if any(v in self.changed for v in op.operands):
            return True
        for region in op.regions:
            for inner in region.walk():
                if any(v in self.changed for v in inner.operands):
                    return True
        return False

    def retype_block_args(self, block: Block, types: Sequence[Attribute]) -> None:
        for arg, t in zip(block.args, types):
            self.set_type(arg, t)

    # -- the walk ------------------------------------------------------------------

    def block(self, block: Block) -> tuple[Attribute, ...]:
        """Propagate through a block; returns the types its `exir.output` yields."""
        for op in list(block.ops):
            self.op(op)
        last = block.last_op
        return tuple(last.operand_types) if isinstance(last, exir.OutputOp) else ()

    def op(self, op: Operation) -> None:
        if isinstance(op, exir.OutputOp) or not op.results and not op.regions:
            if isinstance(op, exir.AssertScalarOp | exir.OutputOp):
                return
            self.check_unknown(op)
            return
        new = self.infer(op)
        if new is None:
            return
        if len(new) != len(op.results):
            raise ExirDiagnostic(op, f"inference gives {len(new)} result(s), the op has {len(op.results)}")
        input_changed = self._inputs_changed(op)
        for r, t in zip(list(op.results), new):
            t = self.ranges.simplify_type(t)
            if not input_changed and types_agree(t, r.type):
                continue  # keep torch's recorded type (and its unbacked symbol names)
            self.set_type(r, t)

    def check_unknown(self, op: Operation) -> None:
        if self._inputs_changed(op) and op.results:
            raise ExirDiagnostic(
                op,
                "shape-propagation cannot infer the result types of this op, and its operand types "
                "changed; its recorded types would be stale",
            )

    def infer(self, op: Operation) -> list[Attribute] | None:
        """The op's new result types; None when it keeps them (nothing to infer)."""
        if isinstance(op, AtenOp):
            return self._infer_call(op, lambda: infer_bound(op.bound_arguments()))
        if isinstance(op, exir.CallFunctionOp):
            if lookup(op.target.data) is None:
                self.check_unknown(op)
                return None
            return self._infer_call(
                op, lambda: infer_result_types(op.target.data, op.get_args(), op.get_kwargs())
            )
        if isinstance(op, exir.GetItemOp):
            vt = op.input.type
            if isinstance(vt, exir.TupleType):
                return [vt.types.data[op.index.data]]
            return [cast(exir.ListType, vt).element_type]
        if isinstance(op, exir.SymSizeOp | exir.SymStrideOp):
            t = cast(exir.TensorType, op.input.type)
            return [exir.SymIntType(op.compute(t, op.dim.data % max(t.rank, 1)))]
        if isinstance(op, exir.SymNumelOp):
            return [exir.SymIntType(cast(exir.TensorType, op.input.type).numel())]
        if isinstance(op, exir.SymArithOp):
            return [op.inferred_type()]
        if isinstance(op, exir.CondOp):
            return self._cond(op)
        if isinstance(op, exir.WhileLoopOp):
            return self._while(op)
        if isinstance(op, exir.MapOp):
            return self._map(op)
        if isinstance(op, exir.FusionGroupOp):
            self.retype_block_args(op.body.block, op.inputs.types)
            return list(self.block(op.body.block))
        self.check_unknown(op)
        return None

    def _infer_call(self, op: Operation, fn: object) -> list[Attribute] | None:
        try:
            types = cast("list[Attribute]", fn())  # pyright: ignore[reportCallIssue] - fn is an inference callable, typed object by its table
        except NoInference as e:
            if self._inputs_changed(op):
                raise ExirDiagnostic(op, f"shape-propagation cannot infer the result types: {e}") from None
            return None
        except InferenceError as e:
            raise ExirDiagnostic(op, f"the new operand types are invalid for this op: {e}") from None
        self._check_broadcast(op, types)
        return types

    def _check_broadcast(self, op: Operation, results: Sequence[Attribute]) -> None:
        """A symbolic size broadcast against a static one would be specialized: refuse it."""
        target = op.name if isinstance(op, AtenOp) else getattr(op, "target", None)
        name = target.data if hasattr(target, "data") else target  # pyright: ignore[reportAttributeAccessIssue, reportOptionalMemberAccess] - hasattr above: a StringAttr target or a plain name
        entry = lookup(str(name)) if name else None
        if entry is None or "pointwise" not in entry.tags or not results:
            return
        out = results[0]
        if not isinstance(out, exir.TensorType):
            return
        for v in op.operands:
            t = v.type
            if not isinstance(t, exir.TensorType) or t.rank > out.rank:
                continue
            for s, o in zip(reversed(t.sizes), reversed(out.sizes)):
                if isinstance(s, int) or not isinstance(o, int) or o == 1:
                    continue
                syms = sorted(cast(set[sympy.Symbol], s.free_symbols), key=str)
                if len(syms) == 1 and s == syms[0] and self.ranges.range_of(syms[0]) == (o, o):
                    continue
                lo, hi = self.ranges.range_of(syms[0]) if len(syms) == 1 and s == syms[0] else ("?", "?")
                raise ExirDiagnostic(
                    op,
                    f"broadcasting size {s} against {o} needs {s} in {{1, {o}}}, which specializes a "
                    f"dynamic dimension (range [{lo}, {hi}]); make the size static or give it the "
                    f"range [{o}, {o}]",
                )

    def _cond(self, op: exir.CondOp) -> list[Attribute]:
        outs: list[tuple[Attribute, ...]] = []
        for region in (op.true_branch, op.false_branch):
            self.retype_block_args(region.block, op.inputs.types)
            outs.append(self.block(region.block))
        if outs[0] != outs[1]:
            if all(types_agree(a, b) and types_agree(b, a) for a, b in zip(*outs)):
                return list(outs[0])
            raise ExirDiagnostic(
                op,
                f"the branches of cond now return different types: ({', '.join(map(str, outs[0]))}) "
                f"and ({', '.join(map(str, outs[1]))})",
            )
        return list(outs[0])

    def _while(self, op: exir.WhileLoopOp) -> list[Attribute]:
        arg_types = (*op.carried.types, *op.additional.types)
        for region in (op.cond_region, op.body_region):
            self.retype_block_args(region.block, arg_types)
        self.block(op.cond_region.block)
        body_out = self.block(op.body_region.block)
        if body_out != tuple(op.carried.types):
            raise ExirDiagnostic(
                op,
                "the while_loop body returns types that differ from the carried values "
                f"({', '.join(map(str, body_out))} vs {', '.join(map(str, op.carried.types))}): "
                "a loop-carried shape may not change across iterations",
            )
        return list(op.carried.types)

    def _map(self, op: exir.MapOp) -> list[Attribute]:
        xs = [cast(exir.TensorType, t) for t in op.xs.types]
        if not xs or any(t.rank == 0 for t in xs):
            raise ExirDiagnostic(op, "map needs tensors of rank >= 1 to iterate over")
        lead = xs[0].sizes[0]
        slices = [make_tensor(t.sizes[1:], t.element_dtype, t.device.data) for t in xs]
        self.retype_block_args(op.body.block, [*slices, *op.extra.types])
        outs = self.block(op.body.block)
        result: list[Attribute] = []
        for t in outs:
            if not isinstance(t, exir.TensorType):
                raise ExirDiagnostic(op, f"map body returns {t}, not a tensor")
            result.append(make_tensor([lead, *t.sizes], t.element_dtype, t.device.data))
        return result


def _same(a: Attribute, b: Attribute) -> bool:
    # Symbolic scalar types compare equal whatever their value, so compare the spelling too.
    return a == b and str(a) == str(b)


def _update_graph_type(graph: exir.GraphOp) -> None:
    out = graph.output
    outputs = out.operand_types if out is not None else graph.function_type.outputs.data
    graph.function_type = FunctionType.from_lists(list(graph.body.block.arg_types), list(outputs))


def propagate_program(
    program: exir.ProgramOp,
    input_types: dict[str, exir.TensorType] | None = None,
    ranges: dict[sympy.Symbol, Range] | None = None,
) -> None:
    """Re-type the named user inputs, update range constraints and propagate through every graph."""
    current: dict[sympy.Symbol, Range] = {}
    for r in program.range_constraints.data:
        if isinstance(r.expr.data, sympy.Symbol):
            lo, hi = r.lower.data, r.upper.data
            current[r.expr.data] = (
                int(lo) if lo.is_Integer else -math.inf,
                int(hi) if hi.is_Integer else math.inf,
            )
    new_syms: set[sympy.Symbol] = set()
    for t in (input_types or {}).values():
        for s in t.sizes:
            if not isinstance(s, int):
                new_syms |= cast(set[sympy.Symbol], s.free_symbols)
    for sym in new_syms:
        current.setdefault(sym, (2, math.inf))  # torch.export's default for a dynamic dim
    current.update(ranges or {})
    entry = program.entry
    if entry is None:
        raise ExirDiagnostic(program, "program has no entry graph @forward")
    prop = _Propagator(SymbolRanges(current))
    if input_types:
        names: dict[str, int] = {}
        for i, spec in enumerate(program.inputs.data):
            if spec.input_kind == exir.InputKind.user_input:
                names[spec.arg_name.data] = i
        unknown = sorted(set(input_types) - set(names))
        if unknown:
            raise ExirDiagnostic(
                program,
                f"input-types names {', '.join(unknown)}, which is not a user input of the program "
                f"(user inputs: {', '.join(names) or 'none'})",
            )
        for name, t in input_types.items():
            arg = entry.body.block.args[names[name]]
            old = arg.type
            if isinstance(old, exir.TensorType) and old.rank != t.rank:
                pass  # a rank change is allowed; inference decides whether the graph accepts it
            prop.set_type(arg, t)
    for graph in [op for op in program.body.block.ops if isinstance(op, exir.GraphOp)]:
        for arg in graph.body.block.args:
            prop.set_type(arg, arg.type)  # simplified under the ranges
        prop.block(graph.body.block)
        _update_graph_type(graph)
    used = set[str]()
    for v in program.walk():
        for r in v.results:
            used |= _symbols_of(r.type)
    for a in entry.body.block.args:
        used |= _symbols_of(a.type)
    # Torch's constraints keep their order (updated by `ranges`); new symbols in use are appended.
    constraints: list[exir.RangeConstraintAttr] = []
    seen: set[sympy.Basic] = set()
    for r in program.range_constraints.data:
        sym = r.expr.data
        seen.add(sym)
        if isinstance(sym, sympy.Symbol) and sym in (ranges or {}):
            lo, hi = current[sym]
            constraints.append(exir.RangeConstraintAttr(sym, _bound(lo), _bound(hi)))
        else:
            constraints.append(r)
    for sym, (lo, hi) in sorted(current.items(), key=lambda kv: kv[0].name):
        if sym not in seen and sym.name in used:
            constraints.append(exir.RangeConstraintAttr(sym, _bound(lo), _bound(hi)))
    program.range_constraints = ArrayAttr(constraints)


def _bound(v: int | float) -> SymSize:
    if v == math.inf:
        return cast(SymSize, sympy.oo)
    if v == -math.inf:
        return cast(SymSize, -sympy.oo)
    return int(v)


def _symbols_of(t: Attribute) -> set[str]:
    if isinstance(t, exir.TensorType):
        return {str(s) for v in t.sizes if not isinstance(v, int) for s in v.free_symbols}
    if isinstance(t, exir.SymScalarType) and t.value is not None:
        return {str(s) for s in t.value.free_symbols}
    if isinstance(t, exir.ListType):
        return _symbols_of(t.element_type)
    if isinstance(t, exir.TupleType):
        return set().union(*(_symbols_of(x) for x in t.types.data)) if t.types.data else set()
    return set()


def _parse_options(input_types: str, ranges: str) -> tuple[dict[str, exir.TensorType], dict[sympy.Symbol, Range]]:
    try:
        return parse_input_types(input_types), parse_ranges(ranges)
    except InputOptionError as e:
        raise DiagnosticException(f"shape-propagation: {e}") from None


@dataclass(frozen=True)
class ShapePropagationPass(ModulePass):
    """Recompute every result type from the inputs of Export IR programs (TorchScript graphs are refused)."""

    name = "shape-propagation"

    input_types: str = ""
    """Re-type user inputs by name: `x=f32[s0, 3, 32, 32];y=i64[4]` (sizes may be symbols)."""

    ranges: str = ""
    """Range constraints of size symbols: `s0=[1, 64]` (new symbols default to `[2, inf]`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        types, ranges = _parse_options(self.input_types, self.ranges)
        programs = [p for p in op.walk() if isinstance(p, exir.ProgramOp)]
        for program in programs:
            propagate_program(program, types, ranges)
        if not programs:
            propagate_torchscript(op, types)


def propagate_torchscript(module: ModuleOp, input_types: dict[str, exir.TensorType]) -> None:
    """TorchScript graphs: not implemented yet; refused with a pointer to the lowering."""
    raise DiagnosticException(
        "shape-propagation: the module holds no exir.program; TorchScript graphs are not "
        "propagated yet, lower them first with torchscript-to-exir (it takes the same "
        "input-types and ranges options)"
    )
