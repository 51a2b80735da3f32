"""
The decomposition table of the `decompose` pass: how each non-core ATen
overload is written in core ATen, following torch's own decompositions
(`torch/_decomp/decompositions.py`, `torch/_refs`, the CompositeImplicit
kernels) so that the operator set after `decompose` equals what
`ExportedProgram.run_decompositions()` produces.

A rule receives an `Emitter` (which builds aten ops before the op being
replaced, with inferred result types) and the op's arguments bound to its
schema; it returns the replacement values of the op's results, or None to
leave the op alone. Families that only rename the operator and rearrange its
arguments are data (`CALLS`, in `renames`); the rest are small functions.
This module holds the table, the `Emitter`, `Layouts` and the helpers the
family modules beside it share.

Some decompositions depend on memory layout, which Export IR types do not
record: `reshape` is a `view` when the strides allow it and `clone` + `view`
otherwise, `contiguous` is a no-op on a contiguous tensor. `Layouts`
recomputes strides the way torch's FakeTensors would, from view ops.
"""


from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.traits import IsolatedFromAbove

from xdsl_exir.dialects.aten import AtenOp, aten_op_class
from xdsl_exir.dialects.exir import (
    SYM_ARITH_OPS,
    DeviceAttr,
    DType,
    GetItemOp,
    Layout,
    MemoryFormat,
    SymIntType,
    SymScalarType,
    SymSizeOp,
    TensorType,
    TupleType,
)
from xdsl_exir.semantics.decompositions.keep import KEEP_IN_CORE
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.utils.diagnostics import ExirDiagnostic
from xdsl_exir.utils.op_registry import all_operators, lookup
from xdsl_exir.utils.symbolic import SymSize, is_floordiv, sympy

__all__ = [  # what the rules share: the family modules import it from here
    "DECOMPOSED_CORE",
    "Decline",
    "Emitter",
    "Layouts",
    "REDUCTIONS",
    "RULES",
    "Rule",
    "Strides",
    "SymValues",
    "as_float",
    "as_tensor_like",
    "atleast_rank",
    "cast_to_dtype",
    "computed_in_float32",
    "contiguous_strides",
    "default_legal_ops",
    "dominates",
    "fill_value_for",
    "full_value",
    "is_contiguous",
    "movedim",
    "number_arg",
    "one_minus",
    "op_name",
    "reduce_loss",
    "resolve_shape",
    "rule",
    "scalar_tensor",
    "simplify_size",
    "size_product",
    "sizes_equal",
    "split_sizes",
    "tensor_of",
    "triangle_pairs",
    "view_strides",
    "wrapped_dim",
    "xlogy_of",
    "zero_like",
]

Strides = tuple[SymSize, ...]


class Decline(Exception):
    """A rule does not apply to these arguments (the op is left as it is)."""


# ---------------------------------------------------------------------------
# Symbolic helpers
# ---------------------------------------------------------------------------


def sizes_equal(a: SymSize, b: SymSize) -> bool:
    """Provably equal (symbolic sizes compare by simplification)."""
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    diff = sympy.sympify(a) - sympy.sympify(b)
    if diff.is_Number:
        # a constant difference needs no simplification; `sympy.simplify` would first import
        # `sympy.physics.units`, the slowest part of sympy to load
        return diff == 0
    return sympy.simplify(diff) == 0


def simplify_size(e: SymSize) -> SymSize:
    if type(e) is int:
        return e  # static sizes never load sympy
    e = sympy.sympify(e)
    return int(e) if e.is_Integer else e


def size_product(xs: Sequence[SymSize]) -> SymSize:
    out: SymSize = 1
    for x in xs:
        out = simplify_size(out * x)
    return out


def contiguous_strides(sizes: Sequence[SymSize]) -> Strides:
    out: list[SymSize] = [1] * len(sizes)
    running: SymSize = 1
    for d in reversed(range(len(sizes))):
        out[d] = running
        running = simplify_size(running * sizes[d])
    return tuple(out)


def is_contiguous(sizes: Sequence[SymSize], strides: Strides) -> bool:
    expected: SymSize = 1
    for size, stride in zip(reversed(sizes), reversed(strides)):
        if sizes_equal(size, 1):
            continue
        if not sizes_equal(stride, expected):
            return False
        expected = simplify_size(expected * size)
    return True


def view_strides(old: Sequence[SymSize], old_strides: Strides, new: Sequence[SymSize]) -> Strides | None:
    """torch's `computeStride`: the strides of `view(new)`, None when it needs a copy."""
    if is_contiguous(old, old_strides):
        return contiguous_strides(new)
    if not old:
        return contiguous_strides(new)
    new_strides: list[SymSize] = [0] * len(new)
    view_d = len(new) - 1
    chunk_base = old_strides[-1]
    tensor_numel: SymSize = 1
    view_numel: SymSize = 1
    for tensor_d in reversed(range(len(old))):
        tensor_numel = simplify_size(tensor_numel * old[tensor_d])
        if tensor_d == 0 or (
            not sizes_equal(old[tensor_d - 1], 1)
            and not sizes_equal(old_strides[tensor_d - 1], tensor_numel * chunk_base)
        ):
            while view_d >= 0 and (not sizes_equal(view_numel, tensor_numel) or sizes_equal(new[view_d], 1)):
                new_strides[view_d] = simplify_size(view_numel * chunk_base)
                view_numel = simplify_size(view_numel * new[view_d])
                view_d -= 1
                if view_d >= 0 and sizes_equal(view_numel, tensor_numel) and not sizes_equal(new[view_d], 1):
                    break
            if not sizes_equal(view_numel, tensor_numel):
                return None
            if tensor_d > 0:
                chunk_base = old_strides[tensor_d - 1]
                tensor_numel, view_numel = 1, 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def _dense_in_order(sizes: Sequence[SymSize], strides: Strides) -> Strides:
    """The strides TensorIterator gives a new result computed from an input with `strides`:
    dense, with the input's dims in the same order (a slice's gaps are not kept)."""
    if not all(isinstance(s, int) for s in strides):
        return strides
    order = sorted(range(len(sizes)), key=lambda d: (-cast(int, strides[d]), d))
    out: list[SymSize] = [1] * len(sizes)
    running: SymSize = 1
    for d in reversed(order):
        out[d] = running
        running = simplify_size(running * sizes[d])
    return tuple(out)


def tensor_of(value: object) -> TensorType:
    if isinstance(value, SSAValue) and isinstance(value.type, TensorType):
        return value.type
    raise Decline()


def op_name(op: Operation) -> str:
    """The overload an aten op or an `exir.call_function "aten.*"` calls (rules serve both)."""
    if isinstance(op, AtenOp):
        return op.name
    target = getattr(op, "target", None)
    text = cast(str, getattr(target, "data", op.name))
    entry = lookup(text)
    return entry.op_name if entry is not None else text


# ---------------------------------------------------------------------------
# Layouts: the strides torch would give each value
# ---------------------------------------------------------------------------

_VIEW_KINDS = {
    "permute", "transpose", "t", "expand", "unsqueeze", "squeeze", "select",
    "slice", "view", "_unsafe_view", "alias", "detach",
}


@dataclass
class Layouts:
    """Strides of tensor values, computed on demand from the ops that made them."""

    memo: dict[SSAValue, Strides] = field(default_factory=lambda: {})

    def strides(self, value: SSAValue) -> Strides:
        # Iterative over chains of views and pointwise ops (graphs can be long).
        pending = [value]
        while pending:
            v = pending[-1]
            if v in self.memo:
                pending.pop()
                continue
            source = self._source(v)
            if source is not None and source not in self.memo:
                pending.append(source)
                continue
            pending.pop()
            self.memo[v] = self._compute(v, source, self.memo.get(source) if source else None)
        return self.memo[value]

    def is_contiguous(self, value: SSAValue) -> bool:
        return is_contiguous(tensor_of(value).sizes, self.strides(value))

    @staticmethod
    def _kind(op: Operation) -> str:
        return op.name.split(".")[1] if op.name.startswith("aten.") else op.name

    def _source(self, v: SSAValue) -> SSAValue | None:
        """The value whose strides `v`'s strides derive from, if any."""
        if not isinstance(v, OpResult) or not isinstance(v.type, TensorType):
            return None
        op = v.op
        if isinstance(op, GetItemOp):
            producer = op.input.owner
            if isinstance(producer, AtenOp) and self._kind(producer) in ("split_with_sizes", "split", "chunk"):
                return producer.operands[0] if producer.operands else None
            return None
        if not isinstance(op, AtenOp) or not op.operands:
            return None
        kind = self._kind(op)
        first = op.operands[0]
        if not isinstance(first.type, TensorType):
            return None
        if kind in _VIEW_KINDS:
            return first
        entry = all_operators().get(op.name)
        if entry is not None and "pointwise" in entry.tags and op.SCHEMA.is_functional:
            for operand in op.operands:
                if isinstance(operand.type, TensorType) and operand.type.sizes == v.type.sizes:
                    return operand
        return None

    def _compute(self, v: SSAValue, source: SSAValue | None, base: Strides | None) -> Strides:
        t = cast(TensorType, v.type) if isinstance(v.type, TensorType) else None
        if t is None:
            return ()
        dense = contiguous_strides(t.sizes)
        if base is None or not isinstance(v, OpResult):
            if t.get_dim_order() != tuple(range(t.rank)):
                return t.strides()
            return dense
        op = v.op
        if isinstance(op, GetItemOp):
            return base
        assert isinstance(op, AtenOp)
        kind = self._kind(op)
        src = tensor_of(source)
        try:
            b = op.bound_arguments()
            return self._view(kind, b, src, base, t) or dense
        except Exception:
            return dense

    @staticmethod
    def _view(kind: str, b: Bound, src: TensorType, base: Strides, t: TensorType) -> Strides | None:
        rank = src.rank
        if kind == "permute":
            return tuple(base[d % rank] for d in b.ints("dims"))
        if kind in ("transpose", "t"):
            if rank < 2:
                return base
            d0, d1 = (b.int("dim0") % rank, b.int("dim1") % rank) if kind == "transpose" else (0, 1)
            out = list(base)
            out[d0], out[d1] = out[d1], out[d0]
            return tuple(out)
        if kind == "expand":
            lead = t.rank - rank
            out: list[SymSize] = [0] * lead
            for i in range(rank):
                out.append(0 if sizes_equal(src.sizes[i], 1) and not sizes_equal(t.sizes[lead + i], 1) else base[i])
            return tuple(out)
        if kind == "unsqueeze":
            d = b.int("dim") % (rank + 1)
            inner = simplify_size(src.sizes[d] * base[d]) if d < rank else 1
            return tuple([*base[:d], inner, *base[d:]])
        if kind in ("squeeze", "select"):
            if kind == "select":
                dims = {b.int("dim") % rank}
            else:
                dims = {d for d in range(rank) if sizes_equal(src.sizes[d], 1)}
                if "dim" in b and b["dim"] is not None:
                    dims &= {x % rank for x in (b.ints("dim") if isinstance(b["dim"], list) else [b.int("dim")])}
            return tuple(s for d, s in enumerate(base) if d not in dims)
        if kind == "slice":
            d = b.int("dim") % rank
            out = list(base)
            out[d] = simplify_size(out[d] * b.int("step"))
            return tuple(out)
        if kind in ("view", "_unsafe_view"):
            return view_strides(src.sizes, base, t.sizes)
        if kind in ("alias", "detach"):
            return base
        if t.sizes == src.sizes:
            if kind == "clone" and b.get("memory_format") == MemoryFormat.contiguous_format:
                return None
            # pointwise ops follow a dense, non-overlapping input's layout
            if any(sizes_equal(s, 0) for s in base):
                return None
            return _dense_in_order(t.sizes, base)
        return None


# ---------------------------------------------------------------------------
# Emitting replacement ops
# ---------------------------------------------------------------------------


@dataclass
class SymValues:
    """SSA values of symbolic sizes seen or made so far, to reuse them."""

    by_expr: dict[sympy.Expr, list[SSAValue]] = field(default_factory=lambda: {})
    scanned: set[Operation] = field(default_factory=lambda: set())

    def scan(self, root: Operation) -> None:
        if root in self.scanned:
            return
        self.scanned.add(root)
        for op in root.walk():
            for r in op.results:
                self.add(r)

    def add(self, value: SSAValue) -> None:
        t = value.type
        if isinstance(t, SymIntType) and (e := t.value) is not None:
            self.by_expr.setdefault(sympy.sympify(e), []).append(value)

    def discard(self, value: SSAValue) -> None:
        """Forget `value` (its op is being erased), so no later size reuses it."""
        t = value.type
        if isinstance(t, SymIntType) and (e := t.value) is not None:
            known = self.by_expr.get(sympy.sympify(e), [])
            if value in known:
                known.remove(value)


def _isolating_ancestor(op: Operation) -> Operation | None:
    p = op.parent_op()
    while p is not None and not p.has_trait(IsolatedFromAbove):
        p = p.parent_op()
    return p


def dominates(value: SSAValue, op: Operation) -> bool:
    """`value` is visible at `op` (defined before it in an enclosing block)."""
    if isinstance(value, BlockArgument):
        target = value.block
        cur: Operation | None = op
        while cur is not None:
            block = cur.parent_block()
            if block is target:
                return True
            if cur.has_trait(IsolatedFromAbove) and cur is not op:
                return False
            cur = cur.parent_op()
        return False
    if not isinstance(value, OpResult):
        return False
    def_op = value.op
    target = def_op.parent_block()
    cur = op
    while cur is not None:
        if cur.parent_block() is target:
            return cur is not def_op and def_op.is_before_in_block(cur)
        if cur.has_trait(IsolatedFromAbove) and cur is not op:
            return False
        cur = cur.parent_op()
    return False


@dataclass
class Emitter:
    """Builds the replacement of `op`, inserting new ops just before it."""

    rewriter: PatternRewriter
    op: Operation
    layouts: Layouts
    syms: SymValues
    inserted: list[Operation] = field(default_factory=list[Operation])
    """Every op this emitter inserted, in order: a rule that declines after emitting has
    them erased by the driver, so a refusal leaves the IR (and the fixpoint) untouched."""

    def insert(self, new: Operation) -> Operation:
        self.rewriter.insert(new, InsertPoint.before(self.op))
        self.inserted.append(new)
        for r in new.results:
            self.syms.add(r)
        return new

    def call(self, name: str, *args: object, **kwargs: Any) -> AtenOp:  # forwarded to AtenOp.build
        cls = aten_op_class(name)
        if cls is None:
            raise Decline()
        return cast(AtenOp, self.insert(cls.build(*args, **kwargs)))

    def v(self, name: str, *args: object, **kwargs: object) -> SSAValue:
        """The first result of a new `name` op."""
        return self.call(name, *args, **kwargs).results[0]

    @staticmethod
    def item(op: Operation, index: int) -> SSAValue:
        """Result `index` of a multi-result op (FX's `getitem` of a tuple-returning node)."""
        return op.results[index]

    # -- sizes ------------------------------------------------------------

    def size(self, expr: SymSize) -> int | SSAValue:
        """A size as an FX argument: an int, or a SymInt value (made if needed)."""
        expr = simplify_size(expr)
        if isinstance(expr, int):
            return expr
        root = _isolating_ancestor(self.op) or self.op
        self.syms.scan(root)
        for cand in self.syms.by_expr.get(expr, []):
            if dominates(cand, self.op):
                return cand
        return self._make(expr)

    def sizes(self, exprs: Sequence[SymSize]) -> list[int | SSAValue]:
        return [self.size(e) for e in exprs]

    def _make(self, expr: sympy.Expr) -> SSAValue:
        if isinstance(expr, sympy.Symbol):
            source = self._tensor_with(expr)
            if source is None:
                raise ExirDiagnostic(self.op, f"decompose: no tensor in scope has size {expr}")
            value, dim = source
            return self.insert(SymSizeOp(value, dim)).results[0]
        if isinstance(expr, sympy.Mul | sympy.Add):
            fn = SYM_ARITH_OPS["operator.mul" if isinstance(expr, sympy.Mul) else "operator.add"]
            coeff, rest = expr.as_coeff_Mul() if isinstance(expr, sympy.Mul) else expr.as_coeff_Add()
            parts = sympy.Mul.make_args(rest) if isinstance(expr, sympy.Mul) else sympy.Add.make_args(rest)
            acc: SSAValue | int = self.size(parts[0])
            for p in parts[1:]:
                acc = self.insert(fn(acc, self.size(p))).results[0]
            neutral = 1 if isinstance(expr, sympy.Mul) else 0
            if coeff != neutral:
                acc = self.insert(fn(acc, int(coeff))).results[0]
            assert isinstance(acc, SSAValue)
            return acc
        if is_floordiv(expr):
            a, b = (self.size(cast(sympy.Expr, x)) for x in expr.args)
            return self.insert(SYM_ARITH_OPS["operator.floordiv"](a, b)).results[0]
        raise ExirDiagnostic(self.op, f"decompose: cannot compute the size {expr} in the graph")

    def _tensor_with(self, symbol: sympy.Symbol) -> tuple[SSAValue, int] | None:
        cur: Operation | None = self.op
        while cur is not None:
            block = cur.parent_block()
            if block is None:
                break
            for arg in block.args:
                if isinstance(arg.type, TensorType):
                    for d, s in enumerate(arg.type.sizes):
                        if s == symbol:
                            return arg, d
            if cur.has_trait(IsolatedFromAbove) and cur is not self.op:
                break
            cur = cur.parent_op()
        return None

    # -- shared pieces ----------------------------------------------------

    def reshape(self, x: SSAValue, shape: Sequence[SymSize] | None = None, *, arg: object = None) -> SSAValue:
        """torch's `reshape`: a `view` when the strides allow, else `clone` + `view`."""
        t = tensor_of(x)
        target = list(shape) if shape is not None else None
        size_arg = arg if arg is not None else self.sizes(cast(list[SymSize], target))
        if target is None:
            target = list(resolve_shape(t, cast(list[object], size_arg)))
        if view_strides(t.sizes, self.layouts.strides(x), target) is None:
            x = self.v("aten.clone.default", x, memory_format=MemoryFormat.contiguous_format)
        return self.v("aten.view.default", x, size_arg)


def resolve_shape(t: TensorType, shape: list[object]) -> list[SymSize]:
    out: list[SymSize] = []
    infer = -1
    for i, s in enumerate(shape):
        if isinstance(s, SSAValue):
            if not isinstance(s.type, SymScalarType) or s.type.value is None:
                raise Decline()
            out.append(simplify_size(s.type.value))
        elif s == -1:
            infer = i
            out.append(1)
        else:
            out.append(cast(int, s))
    if infer >= 0:
        out[infer] = simplify_size(sympy.sympify(t.numel()) / sympy.sympify(size_product(out)))
    return out


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------

Rule = Callable[[Emitter, Bound, Operation], Sequence[SSAValue | None] | None]
"""A rule gives one value per result of the op, or None for a result it has left without uses
(a list whose `getitem`s it replaced itself); or None to leave the op alone."""

RULES: dict[str, Rule] = {}
"""Overload name (`aten.linear.default`) -> its decomposition."""

DECOMPOSED_CORE: set[str] = set()
"""Core-tagged overloads torch still decomposes (`squeeze.dim` -> `squeeze.dims`)."""


def rule(*names: str, core: bool = False) -> Callable[[Rule], Rule]:
    def register(fn: Rule) -> Rule:
        for n in names:
            RULES[n] = fn
            if core:
                DECOMPOSED_CORE.add(n)
        return fn

    return register


# -- creation ----------------------------------------------------------------


def fill_value_for(dtype: DType, value: object) -> object:
    if dtype == DType.bool:
        return bool(value)
    if dtype.is_floating_point:
        return float(cast(float, value))
    return int(cast(int, value))


# -- masks -----------------------------------------------------------------------


def scalar_tensor(e: Emitter, value: object, like: TensorType) -> SSAValue:
    return e.v(
        "aten.scalar_tensor.default", value, dtype=like.element_dtype,
        layout=Layout.strided, device=DeviceAttr(like.device.data),
    )


def default_legal_ops() -> frozenset[str]:
    """The core ATen opset: overloads tagged `core`, minus those torch still decomposes, plus the
    non-core overloads torch's core IR keeps (`keep.KEEP_IN_CORE`)."""
    return (
        frozenset(n for n, entry in all_operators().items() if "core" in entry.tags) - DECOMPOSED_CORE
    ) | frozenset(KEEP_IN_CORE)


def zero_like(e: Emitter, t: TensorType) -> SSAValue:
    return scalar_tensor(e, fill_value_for(t.element_dtype, 0), t)


REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def reduce_loss(e: Emitter, loss: SSAValue, reduction: int) -> SSAValue:
    if REDUCTIONS.get(reduction) == "mean":
        return e.v("aten.mean.dim", loss, list(range(tensor_of(loss).rank)))
    if REDUCTIONS.get(reduction) == "sum":
        return e.v("aten.sum.dim_IntList", loss, [])
    return loss


# -- backward formulas of pointwise activations and losses (torch/_decomp) -------------


def number_arg(b: Bound, name: str, default: float | None = None) -> float:
    """A Scalar argument known at rewrite time (a symbolic one declines the rule)."""
    v = b.get(name, default)
    if v is None and default is not None:
        v = default
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise Decline()
    return float(v)


def one_minus(e: Emitter, x: SSAValue) -> SSAValue:
    return e.v("aten.add.Tensor", e.v("aten.neg.default", x), 1)


def cast_to_dtype(e: Emitter, x: SSAValue, dtype: DType | None) -> SSAValue:
    if dtype is None or tensor_of(x).element_dtype == dtype:
        return x
    return e.v("aten._to_copy.default", x, dtype=dtype)


def computed_in_float32(body: Rule) -> Rule:
    """
    A rule written for float32 and float64 made to take float16 and bfloat16 too, as
    torch's CPU kernels compute them: on float32 copies of the low-precision operands
    (their opmath type), each result rounded once to the dtype the graph gives it. The
    rule sees only float32 and keeps its own checks; the other operands (a float32
    weight or running statistic beside a bfloat16 input) are left as they are.
    """

    @functools.wraps(body)
    def widened(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue | None] | None:
        low = (DType.float16, DType.bfloat16)
        names = [n for n, v in b.items() if isinstance(v, SSAValue) and isinstance(v.type, TensorType)
                 and v.type.element_dtype in low]
        if not names:
            return body(e, b, op)
        wide = Bound(b.schema, dict(b))
        for n in names:
            wide[n] = e.v("aten._to_copy.default", b[n], dtype=DType.float32)
        results = body(e, wide, op)
        if results is None:
            return None
        types: list[Attribute] = list(op.result_types)
        if len(types) == 1 and isinstance(types[0], TupleType):
            types = list(types[0].types.data)
        out: list[SSAValue | None] = []
        for r, t in zip(results, [*types, *[None] * len(results)]):
            if r is not None and isinstance(t, TensorType) and t.element_dtype in low:
                r = cast_to_dtype(e, r, t.element_dtype)
            out.append(r)
        return out

    return widened


# ---------------------------------------------------------------------------
# Helpers the family modules share
# ---------------------------------------------------------------------------


def wrapped_dim(rank: int, dim: int) -> int:
    return dim % rank if rank else 0


def movedim(e: Emitter, x: SSAValue, source: int, dest: int) -> SSAValue:
    rank = tensor_of(x).rank
    source, dest = wrapped_dim(rank, source), wrapped_dim(rank, dest)
    if source == dest:
        return x
    order = [d for d in range(rank) if d != source]
    order.insert(dest, source)
    return e.v("aten.permute.default", x, order)


def as_tensor_like(e: Emitter, value: object, like: TensorType) -> SSAValue:
    """A Scalar argument as a 0-d tensor of its own kind (0-d tensors promote as scalars do)."""
    if isinstance(value, SSAValue) and isinstance(value.type, TensorType):
        return value
    if isinstance(value, SSAValue):
        raise Decline()
    if isinstance(value, bool):
        dtype = DType.bool
    elif isinstance(value, int):
        dtype = DType.int64
    else:
        dtype = like.element_dtype if like.element_dtype.is_floating_point else DType.float32
    return e.v(
        "aten.scalar_tensor.default", value, dtype=dtype, layout=Layout.strided, device=DeviceAttr(like.device.data)
    )


def full_value(e: Emitter, b: Bound, size: Sequence[SymSize] | object, value: object, like: TensorType | None) -> SSAValue:
    dtype = b.dtype("dtype") or (like.element_dtype if like is not None else DType.float32)
    device = b.get("device") or DeviceAttr(like.device.data if like is not None else "cpu")
    size_arg = e.sizes(cast(Sequence[SymSize], size)) if like is not None and size is like.sizes else size
    return e.v(
        "aten.full.default",
        size_arg,
        fill_value_for(dtype, value) if not isinstance(value, SSAValue) else value,
        dtype=dtype,
        layout=Layout.strided,
        device=device,
        pin_memory=False,
    )


def atleast_rank(e: Emitter, x: SSAValue, n: int) -> SSAValue:
    rank = tensor_of(x).rank
    if rank >= n:
        return x
    if rank == 0:
        return e.v("aten.view.default", x, [1] * n)
    if n == 2:
        return e.v("aten.unsqueeze.default", x, 0)
    # 3-d: [n] -> [1, n, 1], [m, n] -> [m, n, 1]
    y = e.v("aten.unsqueeze.default", x, 0) if rank == 1 else x
    return e.v("aten.unsqueeze.default", y, -1)


def split_sizes(total: SymSize, chunk: int) -> list[int]:
    """Sizes of `split(chunk)` along a dimension of `total` elements (the last one shorter)."""
    if not isinstance(total, int):
        raise Decline()
    sizes = [chunk] * (total // chunk) if chunk else [total]
    if chunk and total % chunk:
        sizes.append(total % chunk)
    return sizes or [0]


def as_float(e: Emitter, x: SSAValue) -> SSAValue:
    """`x`, or its float32 copy when it is integral or boolean (core IR promotes nothing implicitly)."""
    if tensor_of(x).element_dtype.is_floating_point:
        return x
    return e.v("aten._to_copy.default", x, dtype=DType.float32)


def xlogy_of(e: Emitter, x: SSAValue, y: SSAValue) -> SSAValue:
    """x * log(y), 0 where x is 0 and NaN where y is (torch's xlogy), from core ops."""
    prod = e.v("aten.mul.Tensor", x, e.v("aten.log.default", y))
    t = tensor_of(prod)
    zero = e.v("aten.eq.Scalar", x, 0)
    out = e.v("aten.where.self", zero, zero_like(e, t), prod)
    nan = e.v("aten.isnan.default", y)
    return e.v("aten.where.self", nan, scalar_tensor(e, float("nan"), t), out)


def triangle_pairs(e: Emitter, n: int, offset: int, like: SSAValue) -> tuple[SSAValue, SSAValue]:
    """The row and column indices of the upper triangle of an n x n matrix (`triu_indices`)."""
    device = DeviceAttr(tensor_of(like).device.data)
    idx = e.v("aten.triu_indices.default", n, n, offset, dtype=DType.int64, layout=Layout.strided, device=device,
              pin_memory=False)
    return e.v("aten.select.int", idx, 0, 0), e.v("aten.select.int", idx, 0, 1)
