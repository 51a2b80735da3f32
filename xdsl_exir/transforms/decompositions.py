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
arguments are data (`CALLS`); the rest are small functions.

Some decompositions depend on memory layout, which Export IR types do not
record: `reshape` is a `view` when the strides allow it and `clone` + `view`
otherwise, `contiguous` is a no-op on a contiguous tensor. `Layouts`
recomputes strides the way torch's FakeTensors would, from view ops.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.traits import IsolatedFromAbove

from xdsl_exir.dialects.aten import AtenOp, aten_op_class
from xdsl_exir.dialects.aten_inference import Bound
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
)
from xdsl_exir.utils.diagnostics import ExirDiagnostic
from xdsl_exir.utils.op_registry import all_operators, lookup
from xdsl_exir.utils.symbolic import SymSize, is_floordiv, sympy

Strides = tuple[SymSize, ...]


class Decline(Exception):
    """A rule does not apply to these arguments (the op is left as it is)."""


# ---------------------------------------------------------------------------
# Symbolic helpers
# ---------------------------------------------------------------------------


def _eq(a: SymSize, b: SymSize) -> bool:
    """Provably equal (symbolic sizes compare by simplification)."""
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    return sympy.simplify(sympy.sympify(a) - sympy.sympify(b)) == 0


def _norm(e: SymSize) -> SymSize:
    e = sympy.sympify(e)
    return int(e) if e.is_Integer else e


def _prod(xs: Sequence[SymSize]) -> SymSize:
    out: SymSize = 1
    for x in xs:
        out = _norm(out * x)
    return out


def contiguous_strides(sizes: Sequence[SymSize]) -> Strides:
    out: list[SymSize] = [1] * len(sizes)
    running: SymSize = 1
    for d in reversed(range(len(sizes))):
        out[d] = running
        running = _norm(running * sizes[d])
    return tuple(out)


def is_contiguous(sizes: Sequence[SymSize], strides: Strides) -> bool:
    expected: SymSize = 1
    for size, stride in zip(reversed(sizes), reversed(strides)):
        if _eq(size, 1):
            continue
        if not _eq(stride, expected):
            return False
        expected = _norm(expected * size)
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
        tensor_numel = _norm(tensor_numel * old[tensor_d])
        if tensor_d == 0 or (
            not _eq(old[tensor_d - 1], 1)
            and not _eq(old_strides[tensor_d - 1], tensor_numel * chunk_base)
        ):
            while view_d >= 0 and (not _eq(view_numel, tensor_numel) or _eq(new[view_d], 1)):
                new_strides[view_d] = _norm(view_numel * chunk_base)
                view_numel = _norm(view_numel * new[view_d])
                view_d -= 1
                if view_d >= 0 and _eq(view_numel, tensor_numel) and not _eq(new[view_d], 1):
                    break
            if not _eq(view_numel, tensor_numel):
                return None
            if tensor_d > 0:
                chunk_base = old_strides[tensor_d - 1]
                tensor_numel, view_numel = 1, 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def _tensor(value: object) -> TensorType:
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
        return is_contiguous(_tensor(value).sizes, self.strides(value))

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
        src = _tensor(source)
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
                out.append(0 if _eq(src.sizes[i], 1) and not _eq(t.sizes[lead + i], 1) else base[i])
            return tuple(out)
        if kind == "unsqueeze":
            d = b.int("dim") % (rank + 1)
            inner = _norm(src.sizes[d] * base[d]) if d < rank else 1
            return tuple([*base[:d], inner, *base[d:]])
        if kind in ("squeeze", "select"):
            if kind == "select":
                dims = {b.int("dim") % rank}
            else:
                dims = {d for d in range(rank) if _eq(src.sizes[d], 1)}
                if "dim" in b and b["dim"] is not None:
                    dims &= {x % rank for x in (b.ints("dim") if isinstance(b["dim"], list) else [b.int("dim")])}
            return tuple(s for d, s in enumerate(base) if d not in dims)
        if kind == "slice":
            d = b.int("dim") % rank
            out = list(base)
            out[d] = _norm(out[d] * b.int("step"))
            return tuple(out)
        if kind in ("view", "_unsafe_view"):
            return view_strides(src.sizes, base, t.sizes)
        if kind in ("alias", "detach") or t.sizes == src.sizes:
            if kind == "clone" and b.get("memory_format") == MemoryFormat.contiguous_format:
                return None
            # pointwise ops follow a dense, non-overlapping input's layout
            if any(_eq(s, 0) for s in base):
                return None
            return base
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

    def insert(self, new: Operation) -> Operation:
        self.rewriter.insert(new, InsertPoint.before(self.op))
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
        expr = _norm(expr)
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
        t = _tensor(x)
        target = list(shape) if shape is not None else None
        size_arg = arg if arg is not None else self.sizes(cast(list[SymSize], target))
        if target is None:
            target = list(_resolve_shape(t, cast(list[object], size_arg)))
        if view_strides(t.sizes, self.layouts.strides(x), target) is None:
            x = self.v("aten.clone.default", x, memory_format=MemoryFormat.contiguous_format)
        return self.v("aten.view.default", x, size_arg)


def _resolve_shape(t: TensorType, shape: list[object]) -> list[SymSize]:
    out: list[SymSize] = []
    infer = -1
    for i, s in enumerate(shape):
        if isinstance(s, SSAValue):
            if not isinstance(s.type, SymScalarType) or s.type.value is None:
                raise Decline()
            out.append(_norm(s.type.value))
        elif s == -1:
            infer = i
            out.append(1)
        else:
            out.append(cast(int, s))
    if infer >= 0:
        out[infer] = _norm(sympy.sympify(t.numel()) / sympy.sympify(_prod(out)))
    return out


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------

Rule = Callable[[Emitter, Bound, Operation], Sequence[SSAValue] | None]

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


# -- renames: one core op, arguments taken by schema name ---------------------


@dataclass(frozen=True)
class Arg:
    """An argument of the replacement: a source argument by name, or a function of the bound arguments."""

    name: str | None = None
    fn: Callable[[Bound], object] | None = None

    def value(self, b: Bound) -> object:
        if self.fn is not None:
            return self.fn(b)
        assert self.name is not None
        return b[self.name]


@dataclass(frozen=True)
class Call:
    """Replace the op by `target(args..., kwargs...)`, returning result `result` (all if None)."""

    target: str
    args: tuple[Arg | str, ...]
    kwargs: tuple[tuple[str, Arg | str], ...] = ()
    result: int | None = None
    core: bool = False


def _a(x: Arg | str, b: Bound) -> object:
    return x.value(b) if isinstance(x, Arg) else b[x]


def _const(value: object) -> Arg:
    return Arg(fn=lambda _b: value)


def _listed(name: str) -> Arg:
    return Arg(fn=lambda b: b[name] if isinstance(b[name], list) else [b[name]])


_SAME2 = ("self", "other")

CALLS: dict[str, Call] = {
    # operator spellings of bitwise ops
    **{
        f"aten.__{py}__.{ov}": Call(f"aten.bitwise_{name}.{ov}", _SAME2)
        for py, name in (("and", "and"), ("or", "or"), ("xor", "xor"))
        for ov in ("Scalar", "Tensor")
    },
    "aten.floor_divide.default": Call(
        "aten.div.Tensor_mode", _SAME2, (("rounding_mode", _const("floor")),)
    ),
    "aten.squeeze.dim": Call("aten.squeeze.dims", ("self", _listed("dim")), core=True),
    "aten.sum.default": Call(
        "aten.sum.dim_IntList", ("self", _const([])), (("dtype", "dtype"),)
    ),
    "aten.softmax.int": Call("aten._softmax.default", ("self", "dim", _const(False))),
    "aten.log_softmax.int": Call("aten._log_softmax.default", ("self", "dim", _const(False))),
    "aten.layer_norm.default": Call(
        "aten.native_layer_norm.default",
        ("input", "normalized_shape", "weight", "bias", "eps"),
        result=0,
    ),
    "aten.max_pool2d.default": Call(
        "aten.max_pool2d_with_indices.default",
        ("self", "kernel_size", "stride", "padding", "dilation", "ceil_mode"),
        result=0,
    ),
    "aten.native_batch_norm.default": Call(
        "aten._native_batch_norm_legit_no_training.default",
        ("input", "weight", "bias", "running_mean", "running_var", "momentum", "eps"),
    ),
    "aten.expand_as.default": Call(
        "aten.expand.default", ("self", Arg(fn=lambda b: list(b.tensor("other").sizes)))
    ),
}


def _from_call(spec: Call) -> Rule:
    def apply(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue] | None:
        args = [_a(x, b) for x in spec.args]
        kwargs = {k: v for k, x in spec.kwargs if (v := _a(x, b)) is not None}
        # symbolic sizes in computed arguments become SymInt values
        args = [e.sizes(a) if isinstance(a, list) and any(isinstance(s, sympy.Expr) for s in a) else a for a in args]
        new = e.call(spec.target, *args, **kwargs)
        if spec.result is not None:
            return [e.item(new, spec.result)]
        return list(new.results)

    return apply


for _name, _spec in CALLS.items():
    rule(_name, core=_spec.core)(_from_call(_spec))


# -- identities ----------------------------------------------------------------


@rule("aten.dropout.default", "aten.feature_dropout.default", "aten.alpha_dropout.default",
      "aten.feature_alpha_dropout.default")
def _dropout(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue] | None:
    if b.get("train"):
        return None
    return [cast(SSAValue, b["input"])]


# -- views and copies ------------------------------------------------------------


@rule("aten.reshape.default")
def _reshape(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.reshape(cast(SSAValue, b["self"]), arg=b["shape"])]


@rule("aten._unsafe_view.default")
def _unsafe_view(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.view.default", b["self"], b["size"])]


@rule("aten.flatten.using_ints")
def _flatten(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    if t.rank == 0:
        return [e.reshape(x, [1])]
    start, end = b.int("start_dim") % t.rank, b.int("end_dim") % t.rank
    if start == end:
        return [x]
    sizes = [*t.sizes[:start], _prod(t.sizes[start : end + 1]), *t.sizes[end + 1 :]]
    return [e.reshape(x, sizes)]


@rule("aten.unflatten.int")
def _unflatten(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch's `unflatten`: a `view` splitting one dimension (one `-1` inferred)."""
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    if t.rank == 0:
        raise Decline()
    dim = b.int("dim") % t.rank
    parts = _resolve_shape(TensorType([t.sizes[dim]], t.element_dtype), cast(list[object], b["sizes"]))
    return [e.v("aten.view.default", x, e.sizes([*t.sizes[:dim], *parts, *t.sizes[dim + 1 :]]))]


@rule("aten.contiguous.default")
def _contiguous(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    if e.layouts.is_contiguous(x):
        return [x]
    return [e.v("aten.clone.default", x, memory_format=MemoryFormat.contiguous_format)]


@rule("aten.t.default", "aten.transpose.int")
def _transpose(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    rank = _tensor(x).rank
    if rank < 2:
        return [x]
    d0, d1 = (b.int("dim0") % rank, b.int("dim1") % rank) if "dim0" in b else (0, 1)
    perm = list(range(rank))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return [e.v("aten.permute.default", x, perm)]


def _split_sizes(total: SymSize, chunk: int) -> list[int]:
    """Sizes of `split(chunk)` along a dimension of `total` elements (the last one shorter)."""
    if not isinstance(total, int):
        raise Decline()
    sizes = [chunk] * (total // chunk) if chunk else [total]
    if chunk and total % chunk:
        sizes.append(total % chunk)
    return sizes or [0]


@rule("aten.chunk.default")
def _chunk(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    dim = b.int("dim") % t.rank
    total = t.sizes[dim]
    if not isinstance(total, int):
        raise Decline()
    chunks = b.int("chunks")
    return [e.v("aten.split_with_sizes.default", x, _split_sizes(total, -(-total // chunks)), dim)]


@rule("aten.split.Tensor")
def _split(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    dim = b.int("dim") % t.rank
    return [e.v("aten.split_with_sizes.default", x, _split_sizes(t.sizes[dim], b.int("split_size")), dim)]


@rule("aten.copy.default", core=True)
def _copy(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_decomp `copy`: `src.to(self)`, expanded (as a copy) when the sizes differ."""
    dst, src = _tensor(b["self"]), cast(SSAValue, b["src"])
    out = src
    if _tensor(src).element_dtype != dst.element_dtype:
        out = e.v("aten._to_copy.default", out, dtype=dst.element_dtype)
    if _tensor(out).sizes != dst.sizes:
        out = e.v("aten.expand.default", out, e.sizes(dst.sizes))
        out = e.v("aten.clone.default", out, memory_format=MemoryFormat.contiguous_format)
    return [out]


@rule("aten.to.dtype", "aten.to.dtype_layout", "aten.type_as.default")
def _to(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    dtype = _tensor(b["other"]).element_dtype if "other" in b else b.dtype("dtype")
    if (dtype is None or dtype == _tensor(x).element_dtype) and not b.get("copy"):
        return [x]
    return [e.v("aten._to_copy.default", x, dtype=dtype)]


# -- creation ----------------------------------------------------------------


def _fill_for(dtype: DType, value: object) -> object:
    if dtype == DType.bool:
        return bool(value)
    if dtype.is_floating_point:
        return float(cast(float, value))
    return int(cast(int, value))


def _full(e: Emitter, b: Bound, size: Sequence[SymSize] | object, value: object, like: TensorType | None) -> SSAValue:
    dtype = b.dtype("dtype") or (like.element_dtype if like is not None else DType.float32)
    device = b.get("device") or DeviceAttr(like.device.data if like is not None else "cpu")
    size_arg = e.sizes(cast(Sequence[SymSize], size)) if like is not None and size is like.sizes else size
    return e.v(
        "aten.full.default",
        size_arg,
        _fill_for(dtype, value) if not isinstance(value, SSAValue) else value,
        dtype=dtype,
        layout=Layout.strided,
        device=device,
        pin_memory=False,
    )


_FILL = {"zeros": 0, "ones": 1}


@rule("aten.zeros.default", "aten.ones.default")
def _zeros_ones(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [_full(e, b, b["size"], _FILL[op_name(op).split(".")[1]], None)]


@rule("aten.new_zeros.default", "aten.new_ones.default", "aten.new_full.default")
def _new_full(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    kind = op_name(op).split(".")[1]
    value = b["fill_value"] if kind == "new_full" else _FILL[kind.removeprefix("new_")]
    like = _tensor(b["self"])
    dtype = b.dtype("dtype") or like.element_dtype
    device = b.get("device") or DeviceAttr(like.device.data)
    return [
        e.v("aten.full.default", b["size"], _fill_for(dtype, value), dtype=dtype,
            layout=Layout.strided, device=device, pin_memory=False)
    ]


@rule("aten.zeros_like.default", "aten.ones_like.default")
def _zeros_like(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    like = _tensor(b["self"])
    return [_full(e, b, like.sizes, _FILL[op_name(op).split(".")[1].removesuffix("_like")], like)]


# -- masks -----------------------------------------------------------------------


def _scalar_tensor(e: Emitter, value: object, like: TensorType) -> SSAValue:
    return e.v(
        "aten.scalar_tensor.default", value, dtype=like.element_dtype,
        layout=Layout.strided, device=DeviceAttr(like.device.data),
    )


@rule("aten.masked_fill.Scalar", "aten.masked_fill.Tensor")
def _masked_fill(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    value = b["value"]
    if not isinstance(value, SSAValue) or not isinstance(value.type, TensorType):
        if isinstance(value, SSAValue):
            raise Decline()
        value = _scalar_tensor(e, _fill_for(t.element_dtype, value), t)
    return [e.v("aten.where.self", b["mask"], value, x)]


@rule("aten.triu.default", "aten.tril.default")
def _triangle(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch._refs.triu/tril: a mask from two aranges, then `logical_and` (bool) or `where`."""
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    if t.rank < 2:
        raise Decline()
    h, w = t.sizes[-2], t.sizes[-1]
    device = DeviceAttr(t.device.data)
    cols = e.v("aten.arange.start_step", 0, e.size(w), layout=Layout.strided, device=device, pin_memory=False)
    cols = e.v("aten.unsqueeze.default", cols, -2)
    rows = e.v("aten.arange.start_step", 0, e.size(h), layout=Layout.strided, device=device, pin_memory=False)
    rows = e.v("aten.unsqueeze.default", rows, -1)
    diff = e.v("aten.sub.Tensor", cols, rows)
    cmp = "aten.ge.Scalar" if op_name(op).startswith("aten.triu") else "aten.le.Scalar"
    mask = e.v(cmp, diff, b.int("diagonal"))
    if t.element_dtype == DType.bool:
        return [e.v("aten.logical_and.default", mask, x)]
    return [e.v("aten.where.self", mask, x, _scalar_tensor(e, _fill_for(t.element_dtype, 0), t))]


# -- linear algebra --------------------------------------------------------------


@rule("aten.linear.default")
def _linear(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """
    ATen's `linear`: `addmm(bias, x, w.permute(1, 0))` for a 2-d input, or a
    contiguous n-d one viewed to 2-d and back; otherwise `matmul(x, w.t())`
    then `add` of the bias (a transposed input, as in `nn.MultiheadAttention`).
    """
    x, w, bias = cast(SSAValue, b["input"]), cast(SSAValue, b["weight"]), b.get("bias")
    t, wt = _tensor(x), _tensor(w)
    if wt.rank != 2 or t.rank == 0:
        raise Decline()
    if t.rank != 2 and (bias is None or not e.layouts.is_contiguous(x)):
        out = e.v("aten.matmul.default", x, e.v("aten.permute.default", w, [1, 0]))
        return [out if bias is None else e.v("aten.add.Tensor", out, bias)]
    lead = list(t.sizes[:-1])
    x2 = x if t.rank == 2 else e.reshape(x, [_prod(lead), t.sizes[-1]])
    w_t = e.v("aten.permute.default", w, [1, 0])
    if bias is not None:
        out = e.v("aten.addmm.default", bias, x2, w_t)
    else:
        out = e.v("aten.mm.default", x2, w_t)
    if t.rank != 2:
        out = e.v("aten.view.default", out, e.sizes([*lead, wt.sizes[0]]))
    return [out]


@rule("aten.matmul.default")
def _matmul(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """ATen's `_matmul_impl`: `mm`, folded `mm` for (n-d, 2-d), else broadcast `bmm`."""
    a, c = cast(SSAValue, b["self"]), cast(SSAValue, b["other"])
    ta, tc = _tensor(a), _tensor(c)
    da, dc = ta.rank, tc.rank
    if da < 2 or dc < 2:
        raise Decline()  # vector cases (dot, mv) are left to torch's own ops
    if da == 2 and dc == 2:
        return [e.v("aten.mm.default", a, c)]
    if da >= 3 and dc == 2 and _should_fold(ta, e.layouts.strides(a)):
        lead = list(ta.sizes[:-1])
        a2 = e.reshape(a, [_prod(lead), ta.sizes[-1]])
        out = e.v("aten.mm.default", a2, c)
        return [e.v("aten.view.default", out, e.sizes([*lead, tc.sizes[-1]]))]
    batch_a, batch_c = list(ta.sizes[:-2]), list(tc.sizes[:-2])
    batch = _broadcast(batch_a, batch_c)
    n, m, p = ta.sizes[-2], ta.sizes[-1], tc.sizes[-1]
    bsz = _prod(batch)
    ea = e.v("aten.expand.default", a, e.sizes([*batch, n, m]))
    ea = e.reshape(ea, [bsz, n, m])
    ec = e.v("aten.expand.default", c, e.sizes([*batch, m, p]))
    ec = e.reshape(ec, [bsz, m, p])
    out = e.v("aten.bmm.default", ea, ec)
    return [e.v("aten.view.default", out, e.sizes([*batch, n, p]))]


def _should_fold(t: TensorType, strides: Strides) -> bool:
    """
    ATen's `should_fold` for an n-d left operand (no gradient is taken here):
    fold to one `mm` when `view(-1, k)` needs no copy.
    """
    if any(_eq(s, 0) for s in t.sizes):
        return True
    sizes = t.sizes
    return all(_eq(strides[i], _norm(strides[i + 1] * sizes[i + 1])) for i in range(len(sizes) - 2))


def _broadcast(x: list[SymSize], y: list[SymSize]) -> list[SymSize]:
    n = max(len(x), len(y))
    x = [1] * (n - len(x)) + x
    y = [1] * (n - len(y)) + y
    return [b if _eq(a, 1) else a for a, b in zip(x, y)]


@rule("aten.baddbmm.default")
def _baddbmm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch's decomposition: `beta * self + alpha * bmm(batch1, batch2)`."""
    out = e.v("aten.bmm.default", b["batch1"], b["batch2"])
    if b["alpha"] != 1:
        out = e.v("aten.mul.Tensor", out, b["alpha"])
    s = b["self"]
    if b["beta"] == 0:
        return [out]
    if b["beta"] != 1:
        s = e.v("aten.mul.Tensor", s, b["beta"])
    return [e.v("aten.add.Tensor", s, out)]


# -- convolution, normalization, pooling -----------------------------------------


@rule("aten.conv1d.default", "aten.conv2d.default", "aten.conv3d.default")
def _conv(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    n = int(op_name(op).split(".")[1][-2])
    if _tensor(b["input"]).rank != n + 2:
        raise Decline()  # unbatched input
    return [
        e.v(
            "aten.convolution.default", b["input"], b["weight"], b.get("bias"),
            b.ints("stride", n), b.ints("padding", n), b.ints("dilation", n),
            False, [0] * n, b["groups"],
        )
    ]


@rule("aten.batch_norm.default")
def _batch_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Inference batch norm -> `_native_batch_norm_legit_no_training` + getitem 0."""
    if b["training"] or b.get("running_mean") is None or b.get("running_var") is None:
        raise Decline()  # training mode updates buffers: functionalization's business
    new = e.call(
        "aten._native_batch_norm_legit_no_training.default",
        b["input"], b.get("weight"), b.get("bias"), b["running_mean"], b["running_var"],
        b["momentum"], b["eps"],
    )
    return [e.item(new, 0)]


@rule("aten.adaptive_avg_pool2d.default")
def _adaptive_avg_pool2d(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Output 1x1 is a mean; evenly dividing windows an avg_pool2d; else the core op."""
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    out = b.ints("output_size", 2)
    h, w = t.sizes[-2], t.sizes[-1]
    if out == [1, 1]:
        return [e.v("aten.mean.dim", x, [-1, -2], True)]
    if isinstance(h, int) and isinstance(w, int) and h % out[0] == 0 and w % out[1] == 0:
        k = [h // out[0], w // out[1]]
        return [e.v("aten.avg_pool2d.default", x, k, k)]
    return [e.v("aten._adaptive_avg_pool2d.default", x, out)]


# -- activations (torch/_decomp) ----------------------------------------------------


@rule("aten.silu.default")
def _silu(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b["self"]
    return [e.v("aten.mul.Tensor", x, e.v("aten.sigmoid.default", x))]


@rule("aten.hardsigmoid.default")
def _hardsigmoid(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = e.v("aten.add.Tensor", b["self"], 3)
    x = e.v("aten.clamp.default", x, 0, 6)
    return [e.v("aten.div.Tensor", x, 6)]


@rule("aten.hardswish.default")
def _hardswish(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b["self"]
    y = e.v("aten.add.Tensor", x, 3)
    y = e.v("aten.clamp.default", y, 0, 6)
    y = e.v("aten.mul.Tensor", x, y)
    return [e.v("aten.div.Tensor", y, 6)]


@rule("aten.relu6.default")
def _relu6(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.hardtanh.default", b["self"], 0.0, 6.0)]


@rule("aten.scaled_dot_product_attention.default")
def _sdpa(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """ATen's math path of `scaled_dot_product_attention` (no dropout, no GQA): q and
    k^T each scaled by sqrt(scale), `matmul`, the mask added, and `_safe_softmax`
    (rows whose scores are all -inf give zeros, not NaN)."""
    if b.get("dropout_p") or b.get("enable_gqa"):
        raise Decline()
    q, k, v = (cast(SSAValue, b[n]) for n in ("query", "key", "value"))
    tq, tk = _tensor(q), _tensor(k)
    e_dim = tq.sizes[-1]
    if not isinstance(e_dim, int):
        raise Decline()
    scale = b.get("scale")
    scale = float(cast(float, scale)) if scale is not None else 1.0 / math.sqrt(e_dim)
    factor = math.sqrt(scale)
    q = e.v("aten.mul.Scalar", q, factor)
    kt = e.v("aten.mul.Scalar", e.v("aten.transpose.int", k, -2, -1), factor)
    scores = e.v("aten.matmul.default", q, kt)
    mask = b.get("attn_mask")
    if b.get("is_causal"):
        ones = e.v("aten.ones.default", e.sizes([tq.sizes[-2], tk.sizes[-2]]), dtype=DType.bool)
        upper = e.v("aten.triu.default", ones, 1)
        scores = e.v("aten.masked_fill.Scalar", scores, upper, float("-inf"))
    if isinstance(mask, SSAValue):
        if _tensor(mask).element_dtype == DType.bool:
            inv = e.v("aten.logical_not.default", mask)
            scores = e.v("aten.masked_fill.Scalar", scores, inv, float("-inf"))
        else:
            scores = e.v("aten.add.Tensor", scores, mask)
    attn = e.v("aten._softmax.default", scores, -1, False)
    masked = e.v("aten.eq.Scalar", scores, float("-inf"))
    live = e.v("aten.any.dim", e.v("aten.logical_not.default", masked), -1, True)
    dead = e.v("aten.logical_not.default", live)
    zeros = e.v("aten.full_like.default", attn, 0, pin_memory=False, memory_format=MemoryFormat.preserve_format)
    attn = e.v("aten.where.self", dead, zeros, attn)
    return [e.v("aten.matmul.default", attn, v)]


def default_legal_ops() -> frozenset[str]:
    """The core ATen opset: overloads tagged `core`, minus those torch still decomposes."""
    return frozenset(
        n for n, entry in all_operators().items() if "core" in entry.tags
    ) - DECOMPOSED_CORE


# -- the long tail: operators torch.export's training IR emits ---------------------
# Each follows the semantics of torch/_refs or torch/_decomp (read for semantics,
# written here in this table's terms); the interpreter runs them through the
# same rules (interpreters/aten_kernels/decomposed.py).


def _dims(rank: int, dim: int) -> int:
    return dim % rank if rank else 0


def _movedim(e: Emitter, x: SSAValue, source: int, dest: int) -> SSAValue:
    rank = _tensor(x).rank
    source, dest = _dims(rank, source), _dims(rank, dest)
    if source == dest:
        return x
    order = [d for d in range(rank) if d != source]
    order.insert(dest, source)
    return e.v("aten.permute.default", x, order)


def _zero_like(e: Emitter, t: TensorType) -> SSAValue:
    return _scalar_tensor(e, _fill_for(t.element_dtype, 0), t)


@rule("aten.detach.default", "aten.alias.default")
def _identity(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """No autograd here: `detach` and `alias` are their argument (torch drops them too)."""
    return [cast(SSAValue, b["self"])]


@rule("aten.all.default", "aten.all.dim", "aten.all.dims")
def _all(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`all(x) = not any(not x)`, over the same dims, as torch's core IR writes it."""
    inverted = e.v("aten.logical_not.default", b["self"])
    keep = bool(b.get("keepdim", False))
    name = op_name(op)
    if name == "aten.all.default":
        anyv = e.v("aten.any.dims", inverted)
    elif name == "aten.all.dim":
        anyv = e.v("aten.any.dim", inverted, b.int("dim"), keep)
    else:
        anyv = e.v("aten.any.dims", inverted, b.get("dim"), keep)
    return [e.v("aten.logical_not.default", anyv)]


@rule("aten.rsub.Scalar", "aten.rsub.Tensor")
def _rsub(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`other - alpha * self` (`sub.Tensor` with the Scalar first, as torch writes it)."""
    alpha = b.get("alpha", 1)
    if alpha != 1:
        return [e.v("aten.sub.Tensor", b["other"], b["self"], alpha=alpha)]
    return [e.v("aten.sub.Tensor", b["other"], b["self"])]


@rule("aten.lift_fresh_copy.default")
def _lift_fresh_copy(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.clone.default", b["self"])]


@rule("aten.reshape_as.default")
def _reshape_as(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.reshape(cast(SSAValue, b["self"]), list(_tensor(b["other"]).sizes))]


@rule("aten.view_as.default")
def _view_as(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.view.default", b["self"], e.sizes(_tensor(b["other"]).sizes))]


@rule("aten.expand_as.default")
def _expand_as(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.expand.default", b["self"], e.sizes(_tensor(b["other"]).sizes))]


@rule("aten.broadcast_to.default")
def _broadcast_to(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.expand.default", b["self"], b["size"])]


@rule("aten.swapaxes.default", "aten.swapdims.default")
def _swapaxes(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    rank = _tensor(x).rank
    d0, d1 = (b.int("axis0"), b.int("axis1")) if "axis0" in b else (b.int("dim0"), b.int("dim1"))
    perm = list(range(rank))
    if rank:
        d0, d1 = d0 % rank, d1 % rank
        perm[d0], perm[d1] = perm[d1], perm[d0]
    return [e.v("aten.permute.default", x, perm)]


@rule("aten.numpy_T.default")
def _numpy_t(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    return [e.v("aten.permute.default", x, list(reversed(range(_tensor(x).rank))))]


@rule("aten.mT.default", "aten.adjoint.default")
def _mt(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    if _tensor(x).rank < 2 or _tensor(x).element_dtype.is_complex:
        raise Decline()
    return [_movedim(e, x, -1, -2)]


@rule("aten.movedim.int", "aten.moveaxis.int")
def _movedim_int(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [_movedim(e, cast(SSAValue, b["self"]), b.int("source"), b.int("destination"))]


@rule("aten.movedim.intlist", "aten.moveaxis.intlist")
def _movedim_list(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    rank = _tensor(x).rank
    src = [_dims(rank, d) for d in b.ints("source")]
    dst = [_dims(rank, d) for d in b.ints("destination")]
    order: list[int | None] = [None] * rank
    for s_, d_ in zip(src, dst):
        order[d_] = s_
    rest = iter(d for d in range(rank) if d not in src)
    return [e.v("aten.permute.default", x, [o if o is not None else next(rest) for o in order])]


@rule("aten.empty_like.default", "aten.empty_permuted.default")
def _empty_like(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Uninitialized memory in torch; zeros here, so that results are reproducible."""
    if "self" in b:
        like = _tensor(b["self"])
        return [_full(e, b, like.sizes, 0, like)]
    return [_full(e, b, b["size"], 0, None)]


@rule("aten.exp2.default")
def _exp2(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.pow.Scalar", 2.0, b["self"])]


def _as_tensor(e: Emitter, value: object, like: TensorType) -> SSAValue:
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


@rule("aten.xlogy.Tensor", "aten.xlogy.Scalar_Self", "aten.xlogy.Scalar_Other")
def _xlogy(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch._refs.xlogy: 0 where self is 0, NaN where other is NaN, else self * log(other)."""
    x, y = b["self"], b["other"]
    like = _tensor(x) if isinstance(x, SSAValue) else _tensor(y)
    return [_xlogy_of(e, _as_tensor(e, x, like), _as_tensor(e, y, like))]


def _xlogy_of(e: Emitter, x: SSAValue, y: SSAValue) -> SSAValue:
    prod = e.v("aten.mul.Tensor", x, e.v("aten.log.default", y))
    t = _tensor(prod)
    zero = e.v("aten.eq.Scalar", x, 0)
    out = e.v("aten.where.self", zero, _zero_like(e, t), prod)
    nan = e.v("aten.isnan.default", y)
    return e.v("aten.where.self", nan, _scalar_tensor(e, float("nan"), t), out)


@rule("aten.fmax.default", "aten.fmin.default")
def _fmax(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """The larger (smaller) of two values, the other where one is NaN."""
    x, y = cast(SSAValue, b["self"]), cast(SSAValue, b["other"])
    cmp = "aten.ge.Tensor" if op_name(op) == "aten.fmax.default" else "aten.le.Tensor"
    pick = e.v(cmp, x, y)
    if _tensor(y).element_dtype.is_floating_point:
        pick = e.v("aten.logical_or.default", pick, e.v("aten.isnan.default", y))
    return [e.v("aten.where.self", pick, x, y)]


@rule("aten.trace.default")
def _trace(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    if _tensor(x).rank != 2:
        raise Decline()
    return [e.v("aten.sum.dim_IntList", e.v("aten.diagonal.default", x), [])]


@rule("aten.diff.default")
def _diff(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch._refs.diff: `n` times `x[1:] - x[:-1]` (`!=` for bool) along `dim`, after
    concatenating `prepend` and `append`."""
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    if t.rank == 0:
        raise Decline()
    dim = b.int("dim") % t.rank
    parts = [p for p in (b.get("prepend"), x, b.get("append")) if p is not None]
    if len(parts) > 1:
        x = e.v("aten.cat.default", parts, dim)
    for _ in range(b.int("n")):
        length = _tensor(x).sizes[dim]
        if isinstance(length, int) and length == 0:
            break
        hi = e.v("aten.slice.Tensor", x, dim, 1, e.size(length))
        lo = e.v("aten.slice.Tensor", x, dim, 0, e.size(_norm(length - 1)))
        x = e.v("aten.ne.Tensor" if t.element_dtype == DType.bool else "aten.sub.Tensor", hi, lo)
    return [x]


@rule("aten.diag_embed.default")
def _diag_embed(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch._refs.diag_embed: put the last dim on a diagonal of two new dims, by a mask."""
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    rank = t.rank + 1
    d1, d2, offset = b.int("dim1") % rank, b.int("dim2") % rank, b.int("offset")
    if d1 == d2:
        raise Decline()
    if d1 > d2:
        d1, d2, offset = d2, d1, -offset
    last = t.sizes[-1]
    if not isinstance(last, int):
        raise Decline()
    if offset:
        zeros = e.v(
            "aten.full.default", e.sizes([*t.sizes[:-1], abs(offset)]), _fill_for(t.element_dtype, 0),
            dtype=t.element_dtype, layout=Layout.strided, device=DeviceAttr(t.device.data), pin_memory=False,
        )
        x = e.v("aten.cat.default", [zeros, x] if offset > 0 else [x, zeros], -1)
        last += abs(offset)
    x = _movedim(e, e.v("aten.unsqueeze.default", x, d1), -1, d2)
    device = DeviceAttr(t.device.data)
    cols = e.v("aten.arange.start_step", 0, last, layout=Layout.strided, device=device, pin_memory=False)
    rows = e.v("aten.arange.start_step", offset, last + offset, layout=Layout.strided, device=device, pin_memory=False)
    cond = e.v("aten.eq.Tensor", cols, e.v("aten.unsqueeze.default", rows, -1))
    cond = e.v("aten.view.default", cond, [last if i in (d1, d2) else 1 for i in range(rank)])
    return [e.v("aten.where.self", cond, x, _zero_like(e, t))]


@rule("aten.channel_shuffle.default", "aten.native_channel_shuffle.default")
def _channel_shuffle(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    g = b.int("groups")
    c = t.sizes[1]
    if t.rank < 3 or not isinstance(c, int) or c % g:
        raise Decline()
    n, rest = t.sizes[0], list(t.sizes[2:])
    y = e.v("aten.view.default", x, e.sizes([n, g, c // g, *rest]))
    y = e.v("aten.permute.default", y, [0, 2, 1, *range(3, t.rank + 1)])
    y = e.v("aten.clone.default", y, memory_format=MemoryFormat.contiguous_format)
    return [e.v("aten.view.default", y, e.sizes(t.sizes))]


@rule("aten.pixel_shuffle.default")
def _pixel_shuffle(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    r = b.int("upscale_factor")
    if t.rank < 3:
        raise Decline()
    lead = list(t.sizes[:-3])
    c, h, w = t.sizes[-3:]
    if not isinstance(c, int):
        raise Decline()
    oc = c // (r * r)
    k = len(lead)
    y = e.v("aten.view.default", x, e.sizes([*lead, oc, r, r, h, w]))
    y = e.v("aten.permute.default", y, [*range(k), k, k + 3, k + 1, k + 4, k + 2])
    y = e.v("aten.clone.default", y, memory_format=MemoryFormat.contiguous_format)
    return [e.v("aten.view.default", y, e.sizes([*lead, oc, _norm(h * r), _norm(w * r)]))]


@rule("aten.pixel_unshuffle.default")
def _pixel_unshuffle(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    r = b.int("downscale_factor")
    if t.rank < 3 or not all(isinstance(s, int) for s in t.sizes[-2:]):
        raise Decline()
    lead = list(t.sizes[:-3])
    c, h, w = t.sizes[-3], cast(int, t.sizes[-2]), cast(int, t.sizes[-1])
    k = len(lead)
    y = e.v("aten.view.default", x, e.sizes([*lead, c, h // r, r, w // r, r]))
    y = e.v("aten.permute.default", y, [*range(k), k, k + 2, k + 4, k + 1, k + 3])
    y = e.v("aten.clone.default", y, memory_format=MemoryFormat.contiguous_format)
    return [e.v("aten.view.default", y, e.sizes([*lead, _norm(c * r * r), h // r, w // r]))]


@rule("aten.eye.default", "aten.eye.m")
def _eye(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    n = b["n"]
    m = b.get("m", n) if "m" in b else n
    device = b.get("device") or DeviceAttr("cpu")
    rows = e.v("aten.arange.start_step", 0, n, layout=Layout.strided, device=device, pin_memory=False)
    cols = e.v("aten.arange.start_step", 0, m, layout=Layout.strided, device=device, pin_memory=False)
    mask = e.v("aten.eq.Tensor", e.v("aten.unsqueeze.default", rows, -1), cols)
    return [e.v("aten._to_copy.default", mask, dtype=b.dtype("dtype") or DType.float32)]


@rule("aten._convolution.default", "aten._convolution.deprecated")
def _convolution_full(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [
        e.v(
            "aten.convolution.default", b["input"], b["weight"], b.get("bias"), b["stride"], b["padding"],
            b["dilation"], b["transposed"], b["output_padding"], b["groups"],
        )
    ]


@rule("aten.unfold.default")
def _unfold(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`Tensor.unfold`: windows of `size` every `step` along `dimension`, as a new last dim,
    gathered with `index_select` of `arange(n) * step + arange(size)`."""
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    if t.rank == 0:
        raise Decline()
    dim, size, step = b.int("dimension") % t.rank, b.int("size"), b.int("step")
    length = t.sizes[dim]
    if not isinstance(length, int) or size > length:
        raise Decline()
    windows = (length - size) // step + 1
    device = DeviceAttr(t.device.data)
    starts = e.v("aten.arange.start_step", 0, windows * step, step, layout=Layout.strided, device=device, pin_memory=False)
    offsets = e.v("aten.arange.start_step", 0, size, layout=Layout.strided, device=device, pin_memory=False)
    index = e.v("aten.add.Tensor", e.v("aten.unsqueeze.default", starts, -1), offsets)
    index = e.v("aten.view.default", index, [windows * size])
    y = e.v("aten.index_select.default", x, dim, index)
    y = e.v("aten.view.default", y, e.sizes([*t.sizes[:dim], windows, size, *t.sizes[dim + 1 :]]))
    return [_movedim(e, y, dim + 1, -1)]


@rule("aten.adaptive_avg_pool3d.default")
def _adaptive_avg_pool3d(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    out = b.ints("output_size", 3)
    if out == [1, 1, 1]:
        return [e.v("aten.mean.dim", x, [-1, -2, -3], True)]
    return [e.v("aten._adaptive_avg_pool3d.default", x, out)]


@rule("aten.linalg_vector_norm.default", "aten.norm.ScalarOpt_dim", "aten.norm.Scalar", "aten.norm.ScalarOpt_dtype",
      "aten.norm.ScalarOpt_dim_dtype")
def _vector_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch._refs.linalg.vector_norm: by `ord`, max/min of |x|, count of non-zeros,
    sum of |x|, sqrt of the sum of squares, or the p-th root of the sum of |x|^p."""
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    if not (t.element_dtype.is_floating_point):
        raise Decline()
    ord_ = b.get("ord", b.get("p", 2.0))
    ord_ = 2.0 if ord_ is None else float(cast(float, ord_))
    dim = b.get("dim")
    dims = [] if dim is None else (b.ints("dim") if isinstance(dim, list) else [b.int("dim")])
    keep = bool(b.get("keepdim", False))
    dtype = b.dtype("dtype")
    if dtype is not None and dtype != t.element_dtype:
        x = e.v("aten._to_copy.default", x, dtype=dtype)
    all_dims = dims or list(range(t.rank))
    a = e.v("aten.abs.default", x)
    if ord_ == math.inf:
        return [e.v("aten.amax.default", a, all_dims, keep)]
    if ord_ == -math.inf:
        return [e.v("aten.amin.default", a, all_dims, keep)]
    if ord_ == 0:
        nz = e.v("aten._to_copy.default", e.v("aten.ne.Scalar", x, 0), dtype=_tensor(x).element_dtype)
        return [e.v("aten.sum.dim_IntList", nz, dims, keep)]
    if ord_ == 1:
        return [e.v("aten.sum.dim_IntList", a, dims, keep)]
    if ord_ == 2:
        return [e.v("aten.sqrt.default", e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", x, x), dims, keep))]
    s = e.v("aten.sum.dim_IntList", e.v("aten.pow.Tensor_Scalar", a, ord_), dims, keep)
    return [e.v("aten.pow.Tensor_Scalar", s, 1.0 / ord_)]


_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduce(e: Emitter, loss: SSAValue, reduction: int) -> SSAValue:
    if _REDUCTIONS.get(reduction) == "mean":
        return e.v("aten.mean.dim", loss, list(range(_tensor(loss).rank)))
    if _REDUCTIONS.get(reduction) == "sum":
        return e.v("aten.sum.dim_IntList", loss, [])
    return loss


@rule("aten.kl_div.default")
def _kl_div(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch's kl_div: `xlogy(t, t) - t * x`, or `exp(t) * (t - x)` for a log target."""
    x, target = cast(SSAValue, b["self"]), cast(SSAValue, b["target"])
    if b.get("log_target"):
        loss = e.v("aten.mul.Tensor", e.v("aten.exp.default", target), e.v("aten.sub.Tensor", target, x))
    else:
        loss = e.v("aten.sub.Tensor", _xlogy_of(e, target, target), e.v("aten.mul.Tensor", target, x))
    return [_reduce(e, loss, b.int("reduction"))]


@rule("aten.threshold_backward.default")
def _threshold_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    grad = cast(SSAValue, b["grad_output"])
    mask = e.v("aten.le.Scalar", b["self"], b["threshold"])
    return [e.v("aten.where.self", mask, _zero_like(e, _tensor(grad)), grad)]


# -- backward formulas of pointwise activations and losses (torch/_decomp) -------------


def _number(b: Bound, name: str, default: float | None = None) -> float:
    """A Scalar argument known at rewrite time (a symbolic one declines the rule)."""
    v = b.get(name, default)
    if v is None and default is not None:
        v = default
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise Decline()
    return float(v)


def _one_minus(e: Emitter, x: SSAValue) -> SSAValue:
    return e.v("aten.add.Tensor", e.v("aten.neg.default", x), 1)


def _grad_where(e: Emitter, mask: SSAValue, grad: SSAValue, value: SSAValue | None = None) -> SSAValue:
    """`where(mask, 0, grad)`, or `where(mask, value, grad)`."""
    other = value if value is not None else _zero_like(e, _tensor(grad))
    return e.v("aten.where.self", mask, other, grad)


@rule("aten.sigmoid_backward.default")
def _sigmoid_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """grad * y * (1 - y), from the forward's output y."""
    y = cast(SSAValue, b["output"])
    return [e.v("aten.mul.Tensor", b["grad_output"], e.v("aten.mul.Tensor", y, _one_minus(e, y)))]


@rule("aten.tanh_backward.default")
def _tanh_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """grad * (1 - y²), from the forward's output y."""
    y = cast(SSAValue, b["output"])
    return [e.v("aten.mul.Tensor", b["grad_output"], _one_minus(e, e.v("aten.mul.Tensor", y, y)))]


@rule("aten.silu_backward.default")
def _silu_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """grad * σ(x) * (1 + x (1 - σ(x)))."""
    x = cast(SSAValue, b["self"])
    sig = e.v("aten.sigmoid.default", x)
    inner = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", x, _one_minus(e, sig)), 1)
    return [e.v("aten.mul.Tensor", b["grad_output"], e.v("aten.mul.Tensor", sig, inner))]


@rule("aten.gelu_backward.default")
def _gelu_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """The derivative of x Φ(x) (Φ(x) + x φ(x)), or of the tanh approximation, times grad."""
    x, grad = cast(SSAValue, b["self"]), cast(SSAValue, b["grad_output"])
    if b.get("approximate", "none") == "tanh":
        beta = math.sqrt(2) * (2 / math.sqrt(math.pi)) * 0.5
        kappa = 0.044715
        x_sq = e.v("aten.mul.Tensor", x, x)
        inner = e.v("aten.mul.Tensor", e.v("aten.add.Tensor", x, e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", x_sq, x), kappa)), beta)
        t = e.v("aten.tanh.default", inner)
        left_derivative = e.v("aten.mul.Tensor", e.v("aten.add.Tensor", t, 1), 0.5)
        right_derivative = e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", x, 0.5), _one_minus(e, e.v("aten.mul.Tensor", t, t)))
        inner_derivative = e.v("aten.mul.Tensor", e.v("aten.add.Tensor", e.v("aten.mul.Tensor", x_sq, 3 * kappa), 1), beta)
        d = e.v("aten.add.Tensor", left_derivative, e.v("aten.mul.Tensor", right_derivative, inner_derivative))
        return [e.v("aten.mul.Tensor", grad, d)]
    cdf = e.v("aten.mul.Tensor", e.v("aten.add.Tensor", e.v("aten.erf.default", e.v("aten.mul.Tensor", x, math.sqrt(0.5))), 1), 0.5)
    pdf = e.v("aten.mul.Tensor", e.v("aten.exp.default", e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", x, x), -0.5)),
              1 / math.sqrt(2 * math.pi))
    return [e.v("aten.mul.Tensor", grad, e.v("aten.add.Tensor", cdf, e.v("aten.mul.Tensor", x, pdf)))]


@rule("aten.hardswish_backward.default")
def _hardswish_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """0 below -3, grad (x/3 + 1/2) up to 3, grad above."""
    x, grad = cast(SSAValue, b["self"]), cast(SSAValue, b["grad_output"])
    mid = e.v("aten.mul.Tensor", grad, e.v("aten.add.Tensor", e.v("aten.div.Tensor", x, 3), 0.5))
    inner = e.v("aten.where.self", e.v("aten.le.Scalar", x, 3), mid, grad)
    return [_grad_where(e, e.v("aten.lt.Scalar", x, -3), inner)]


@rule("aten.hardsigmoid_backward.default")
def _hardsigmoid_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x, grad = cast(SSAValue, b["self"]), cast(SSAValue, b["grad_output"])
    inside = e.v("aten.logical_and.default", e.v("aten.gt.Scalar", x, -3), e.v("aten.lt.Scalar", x, 3))
    return [e.v("aten.where.self", inside, e.v("aten.div.Tensor", grad, 6), _zero_like(e, _tensor(grad)))]


@rule("aten.hardtanh_backward.default")
def _hardtanh_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x, grad = cast(SSAValue, b["self"]), cast(SSAValue, b["grad_output"])
    outside = e.v("aten.logical_or.default", e.v("aten.le.Scalar", x, _number(b, "min_val")),
                  e.v("aten.ge.Scalar", x, _number(b, "max_val")))
    return [_grad_where(e, outside, grad)]


@rule("aten.leaky_relu_backward.default")
def _leaky_relu_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x, grad = cast(SSAValue, b["self"]), cast(SSAValue, b["grad_output"])
    scaled = e.v("aten.mul.Tensor", grad, _number(b, "negative_slope"))
    return [e.v("aten.where.self", e.v("aten.gt.Scalar", x, 0), grad, scaled)]


@rule("aten.softplus_backward.default")
def _softplus_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """grad * e^(βx) / (e^(βx) + 1), and grad itself where βx exceeds the threshold (the linear part)."""
    x, grad = cast(SSAValue, b["self"]), cast(SSAValue, b["grad_output"])
    bx = e.v("aten.mul.Tensor", x, _number(b, "beta", 1.0))
    z = e.v("aten.exp.default", bx)
    soft = e.v("aten.mul.Tensor", grad, e.v("aten.div.Tensor", z, e.v("aten.add.Tensor", z, 1)))
    return [e.v("aten.where.self", e.v("aten.gt.Scalar", bx, _number(b, "threshold", 20.0)), grad, soft)]


@rule("aten.elu_backward.default")
def _elu_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """From the input (x ≤ 0: grad·input_scale·alpha·scale·e^(x·input_scale)) or from the
    output y (y ≤ 0: grad·input_scale·(y + alpha·scale)); grad·scale elsewhere."""
    v, grad = cast(SSAValue, b["self_or_result"]), cast(SSAValue, b["grad_output"])
    negcoef = _number(b, "alpha") * _number(b, "scale")
    poscoef, negiptcoef = _number(b, "scale"), _number(b, "input_scale")
    if b.get("is_result"):
        neg = e.v("aten.mul.Tensor", grad, e.v("aten.mul.Tensor", e.v("aten.add.Tensor", v, negcoef), negiptcoef))
    else:
        ex = e.v("aten.exp.default", e.v("aten.mul.Tensor", v, negiptcoef))
        neg = e.v("aten.mul.Tensor", grad, e.v("aten.mul.Tensor", ex, negiptcoef * negcoef))
    return [e.v("aten.where.self", e.v("aten.le.Scalar", v, 0), neg, e.v("aten.mul.Tensor", grad, poscoef))]


@rule("aten.mish_backward.default")
def _mish_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """grad (tanh(softplus x) + x σ(x) (1 - tanh²(softplus x)))."""
    x, grad = cast(SSAValue, b["self"]), cast(SSAValue, b["grad_output"])
    t = e.v("aten.tanh.default", e.v("aten.softplus.default", x, 1, 20))
    s = e.v("aten.sigmoid.default", x)
    d = e.v("aten.add.Tensor", t, e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", x, s), _one_minus(e, e.v("aten.mul.Tensor", t, t))))
    return [e.v("aten.mul.Tensor", grad, d)]


@rule("aten.hardshrink_backward.default", "aten.softshrink_backward.default")
def _shrink_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x, grad = cast(SSAValue, b["self"]), cast(SSAValue, b.get("grad_out", b.get("grad_output")))
    lambd = _number(b, "lambd")
    inside = e.v("aten.logical_and.default", e.v("aten.ge.Scalar", x, -lambd), e.v("aten.le.Scalar", x, lambd))
    return [_grad_where(e, inside, grad)]


@rule("aten.log_sigmoid_backward.default")
def _log_sigmoid_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """grad (max' - sign · z / (1 + z)) with z = e^-|x| (the forward's buffer is not needed)."""
    x, grad = cast(SSAValue, b["self"]), cast(SSAValue, b["grad_output"])
    t = _tensor(x)
    neg = e.v("aten.lt.Scalar", x, 0)
    max_deriv = e.v("aten.where.self", neg, _scalar_tensor(e, 1.0, t), _scalar_tensor(e, 0.0, t))
    sign = e.v("aten.where.self", neg, _scalar_tensor(e, 1.0, t), _scalar_tensor(e, -1.0, t))
    z = e.v("aten.exp.default", e.v("aten.neg.default", e.v("aten.abs.default", x)))
    frac = e.v("aten.div.Tensor", z, e.v("aten.add.Tensor", z, 1))
    return [e.v("aten.mul.Tensor", grad, e.v("aten.sub.Tensor", max_deriv, e.v("aten.mul.Tensor", sign, frac)))]


@rule("aten.logit_backward.default")
def _logit_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """grad / (x (1 - x)) inside [eps, 1 - eps] (0 outside), or inside [0, 1] (NaN outside) without eps."""
    x, grad = cast(SSAValue, b["self"]), cast(SSAValue, b["grad_output"])
    d = e.v("aten.div.Tensor", grad, e.v("aten.mul.Tensor", x, _one_minus(e, x)))
    eps = b.get("eps")
    lo, hi = (0.0, 1.0) if eps is None else (_number(b, "eps"), 1.0 - _number(b, "eps"))
    outside = e.v("aten.logical_or.default", e.v("aten.lt.Scalar", x, lo), e.v("aten.gt.Scalar", x, hi))
    fill = _scalar_tensor(e, math.nan if eps is None else 0.0, _tensor(grad))
    return [e.v("aten.where.self", outside, fill, d)]


@rule("aten.mse_loss_backward.default")
def _mse_loss_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """2 (x - target) grad, over the element count for the mean."""
    x, grad = cast(SSAValue, b["self"]), cast(SSAValue, b["grad_output"])
    numel = _tensor(x).numel()
    if _REDUCTIONS.get(b.int("reduction")) == "mean" and not isinstance(numel, int):
        raise Decline()
    norm = 2.0 / cast(int, numel) if _REDUCTIONS.get(b.int("reduction")) == "mean" else 2.0
    diff = e.v("aten.sub.Tensor", x, b["target"])
    return [e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", diff, norm), grad)]


@rule("aten._softmax_backward_data.default")
def _softmax_backward_data(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """y (g - Σ g y) over `dim`, in `input_dtype`."""
    g, y = cast(SSAValue, b["grad_output"]), cast(SSAValue, b["output"])
    dim = b.int("dim")
    gy = e.v("aten.mul.Tensor", g, y)
    out = e.v("aten.sub.Tensor", gy, e.v("aten.mul.Tensor", y, e.v("aten.sum.dim_IntList", gy, [dim], True)))
    return [_as_dtype(e, out, b.dtype("input_dtype"))]


@rule("aten._log_softmax_backward_data.default")
def _log_softmax_backward_data(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """g - e^y Σ g over `dim`, in `input_dtype`."""
    g, y = cast(SSAValue, b["grad_output"]), cast(SSAValue, b["output"])
    total = e.v("aten.sum.dim_IntList", g, [b.int("dim")], True)
    out = e.v("aten.sub.Tensor", g, e.v("aten.mul.Tensor", e.v("aten.exp.default", y), total))
    return [_as_dtype(e, out, b.dtype("input_dtype"))]


def _as_dtype(e: Emitter, x: SSAValue, dtype: DType | None) -> SSAValue:
    if dtype is None or _tensor(x).element_dtype == dtype:
        return x
    return e.v("aten._to_copy.default", x, dtype=dtype)


@rule("aten.native_dropout_backward.default")
def _native_dropout_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    grad = cast(SSAValue, b["grad_output"])
    mask = e.v("aten._to_copy.default", b["mask"], dtype=_tensor(grad).element_dtype)
    return [e.v("aten.mul.Tensor", grad, e.v("aten.mul.Tensor", mask, _number(b, "scale")))]


# -- pooling, spacing and special functions of the long tail ---------------------------------


@rule("aten.max_pool3d.default")
def _max_pool3d(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    new = e.call("aten.max_pool3d_with_indices.default", b["self"], b["kernel_size"], b.get("stride", []),
                 b.get("padding", 0), b.get("dilation", 1), bool(b.get("ceil_mode")))
    return [e.item(new, 0)]


rule("aten.cdist.default")(_from_call(Call("aten._cdist_forward.default", ("x1", "x2", "p", "compute_mode"))))


@rule("aten.logspace.default")
def _logspace(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """base ** linspace(start, end, steps), computed in float and cast to the requested dtype."""
    dtype = b.dtype("dtype") or DType.float32
    wide = dtype if dtype.is_floating_point else DType.float64
    exps = e.v("aten.linspace.default", b["start"], b["end"], b["steps"], dtype=wide,
               layout=Layout.strided, device=b.get("device") or DeviceAttr("cpu"), pin_memory=False)
    out = e.v("aten.pow.Scalar", _number(b, "base", 10.0), exps)
    return [_as_dtype(e, out, dtype)]


@rule("aten.special_ndtr.default")
def _special_ndtr(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Φ(x) = (1 + erf(x / √2)) / 2."""
    z = e.v("aten.erf.default", e.v("aten.mul.Tensor", b["self"], math.sqrt(0.5)))
    return [e.v("aten.mul.Tensor", e.v("aten.add.Tensor", z, 1), 0.5)]


@rule("aten.special_log_ndtr.default")
def _special_log_ndtr(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """log Φ(x) = log(erfc(-x / √2) / 2), which keeps its precision in the lower tail."""
    erfc = _one_minus(e, e.v("aten.erf.default", e.v("aten.mul.Tensor", b["self"], -math.sqrt(0.5))))
    return [e.v("aten.log.default", e.v("aten.mul.Tensor", erfc, 0.5))]


@rule("aten.special_entr.default")
def _special_entr(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """-x log x for x > 0, 0 at 0, -inf below (NaN stays NaN)."""
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    if not t.element_dtype.is_floating_point:
        x = e.v("aten._to_copy.default", x, dtype=DType.float32)
        t = _tensor(x)
    body = e.v("aten.neg.default", e.v("aten.mul.Tensor", x, e.v("aten.log.default", x)))
    at_zero = e.v("aten.where.self", e.v("aten.eq.Scalar", x, 0), _scalar_tensor(e, 0.0, t), body)
    return [e.v("aten.where.self", e.v("aten.lt.Scalar", x, 0), _scalar_tensor(e, -math.inf, t), at_zero)]


# -- backward of views, indexing and more losses (torch/_decomp) ------------------------------


def _zeros_sized(e: Emitter, size: object, like: TensorType) -> SSAValue:
    """zeros(size) in `like`'s dtype and device: the gradient a view or gather scatters into."""
    return e.v("aten.full.default", size, _fill_for(like.element_dtype, 0), dtype=like.element_dtype,
               layout=Layout.strided, device=DeviceAttr(like.device.data), pin_memory=False)


@rule("aten.select_backward.default")
def _select_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    grad = cast(SSAValue, b["grad_output"])
    zeros = _zeros_sized(e, b["input_sizes"], _tensor(grad))
    return [e.v("aten.select_scatter.default", zeros, grad, b["dim"], b["index"])]


@rule("aten.slice_backward.default")
def _slice_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    grad = cast(SSAValue, b["grad_output"])
    zeros = _zeros_sized(e, b["input_sizes"], _tensor(grad))
    return [e.v("aten.slice_scatter.default", zeros, grad, b["dim"], b["start"], b["end"], b["step"])]


@rule("aten.index_select_backward.default")
def _index_select_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    grad = cast(SSAValue, b["grad"])
    zeros = _zeros_sized(e, b["self_sizes"], _tensor(grad))
    return [e.v("aten.index_add.default", zeros, b["dim"], b["index"], grad)]


@rule("aten.gather_backward.default")
def _gather_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    grad = cast(SSAValue, b["grad"])
    zeros = _zeros_sized(e, e.sizes(_tensor(b["self"]).sizes), _tensor(grad))
    return [e.v("aten.scatter_add.default", zeros, b["dim"], b["index"], grad)]


@rule("aten.trace_backward.default")
def _trace_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """The 0-d gradient on the diagonal of a matrix of `sizes`: grad * eye(n, m)."""
    grad = cast(SSAValue, b["grad"])
    sizes = b["sizes"]
    if not isinstance(sizes, list) or len(sizes) != 2:
        raise Decline()
    t = _tensor(grad)
    eye = e.v("aten.eye.m", sizes[0], sizes[1], dtype=t.element_dtype, layout=Layout.strided,
              device=DeviceAttr(t.device.data), pin_memory=False)
    return [e.v("aten.mul.Tensor", eye, grad)]


@rule("aten.embedding_backward.default")
def _embedding_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue] | None:
    if b.get("sparse"):
        return None
    return [e.v("aten.embedding_dense_backward.default", b["grad"], b["indices"], b["num_weights"], b["padding_idx"],
                bool(b.get("scale_grad_by_freq")))]


def _loss_norm(b: Bound, x: SSAValue) -> float:
    """1 / numel for the mean reduction (the gradient of a mean), 1 otherwise."""
    if _REDUCTIONS.get(b.int("reduction")) != "mean":
        return 1.0
    numel = _tensor(x).numel()
    if not isinstance(numel, int):
        raise Decline()
    return 1.0 / numel if numel else math.nan


@rule("aten.smooth_l1_loss_backward.default")
def _smooth_l1_loss_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """(x - t) / beta inside |x - t| < beta, sign(x - t) outside, times grad and the reduction's norm."""
    x, grad = cast(SSAValue, b["self"]), cast(SSAValue, b["grad_output"])
    norm, beta = _loss_norm(b, x), _number(b, "beta")
    d = e.v("aten.sub.Tensor", x, b["target"])
    outer = e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", e.v("aten.sign.default", d), norm), grad)
    if beta == 0:
        return [outer]
    inner = e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", d, norm / beta), grad)
    return [e.v("aten.where.self", e.v("aten.lt.Scalar", e.v("aten.abs.default", d), beta), inner, outer)]


@rule("aten.huber_loss_backward.default")
def _huber_loss_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """(x - t) inside [-delta, delta], ±delta outside, times grad and the reduction's norm."""
    x, grad = cast(SSAValue, b["self"]), cast(SSAValue, b["grad_output"])
    norm, delta = _loss_norm(b, x), _number(b, "delta")
    d = e.v("aten.sub.Tensor", x, b["target"])
    clipped = e.v("aten.clamp.default", d, -delta, delta)
    return [e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", clipped, norm), grad)]


@rule("aten.binary_cross_entropy_backward.default")
def _binary_cross_entropy_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """grad (x - t) / max(x (1 - x), 1e-12), weighted, over numel for the mean."""
    x, grad = cast(SSAValue, b["self"]), cast(SSAValue, b["grad_output"])
    denom = e.v("aten.clamp_min.default", e.v("aten.mul.Tensor", x, _one_minus(e, x)), 1e-12)
    out = e.v("aten.div.Tensor", e.v("aten.mul.Tensor", grad, e.v("aten.sub.Tensor", x, b["target"])), denom)
    if isinstance(b.get("weight"), SSAValue):
        out = e.v("aten.mul.Tensor", out, b["weight"])
    norm = _loss_norm(b, x)
    return [out if norm == 1.0 else e.v("aten.mul.Tensor", out, norm)]


@rule("aten.glu_backward.default")
def _glu_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """With self = [a, c] halves along dim: [grad σ(c), grad a σ(c) (1 - σ(c))]."""
    x, grad = cast(SSAValue, b["self"]), cast(SSAValue, b["grad_output"])
    t = _tensor(x)
    dim = b.int("dim") % t.rank
    n = t.sizes[dim]
    if not isinstance(n, int):
        raise Decline()
    a = e.v("aten.slice.Tensor", x, dim, 0, n // 2)
    c = e.v("aten.sigmoid.default", e.v("aten.slice.Tensor", x, dim, n // 2, n))
    ga = e.v("aten.mul.Tensor", grad, c)
    gc = e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", ga, a), _one_minus(e, c))
    return [e.v("aten.cat.default", [ga, gc], dim)]


@rule("aten.rrelu_with_noise_backward.default")
def _rrelu_with_noise_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """grad * noise in training (the slopes drawn forward), else leaky_relu's backward at the mean slope."""
    x, grad = cast(SSAValue, b["self"]), cast(SSAValue, b["grad_output"])
    lower, upper = _number(b, "lower"), _number(b, "upper")
    if b.get("training") and upper - lower > 1e-6:
        return [e.v("aten.mul.Tensor", grad, b["noise"])]
    scaled = e.v("aten.mul.Tensor", grad, (lower + upper) / 2)
    return [e.v("aten.where.self", e.v("aten.gt.Scalar", x, 0), grad, scaled)]


# -- more of the long tail: pointwise formulas, losses, products (torch/_refs, torch/_decomp) ---


@rule("aten.erfc.default")
def _erfc(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [_one_minus(e, e.v("aten.erf.default", b["self"]))]


@rule("aten.logaddexp2.default")
def _logaddexp2(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """log2(2^a + 2^b) = logaddexp(a ln 2, b ln 2) / ln 2."""
    ln2 = math.log(2)
    a = e.v("aten.mul.Tensor", b["self"], ln2)
    c = e.v("aten.mul.Tensor", b["other"], ln2)
    return [e.v("aten.div.Tensor", e.v("aten.logaddexp.default", a, c), ln2)]


@rule("aten.sgn.default")
def _sgn(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """sign(x) for real tensors (x / |x| only differs for complex ones, which are refused), but 0 at NaN
    as torch's `sgn` gives (where `sign` keeps the NaN)."""
    x = cast(SSAValue, b["self"])
    sign = e.v("aten.sign.default", x)
    if not _tensor(x).element_dtype.is_floating_point:
        return [sign]
    return [e.v("aten.where.self", e.v("aten.isnan.default", x), _zero_like(e, _tensor(x)), sign)]


@rule("aten.vdot.default")
def _vdot(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", b["self"], b["other"]), [])]


@rule("aten.isclose.default")
def _isclose(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """a == b, or |a - b| <= atol + rtol |b| where that bound is finite; NaNs equal with `equal_nan`."""
    x, y = cast(SSAValue, b["self"]), cast(SSAValue, b["other"])
    rtol, atol = _number(b, "rtol", 1e-5), _number(b, "atol", 1e-8)
    close = e.v("aten.eq.Tensor", x, y)
    if b.get("equal_nan"):
        both = e.v("aten.logical_and.default", e.v("aten.isnan.default", x), e.v("aten.isnan.default", y))
        close = e.v("aten.logical_or.default", close, both)
    if rtol == 0 and atol == 0:
        return [close]
    diff = e.v("aten.abs.default", e.v("aten.sub.Tensor", x, y))
    allowed = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", e.v("aten.abs.default", y), rtol), atol)
    within = e.v("aten.logical_and.default", e.v("aten.isfinite.default", allowed), e.v("aten.le.Tensor", diff, allowed))
    return [e.v("aten.logical_or.default", close, within)]


@rule("aten.addbmm.default")
def _addbmm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """beta self + alpha Σ_i batch1[i] @ batch2[i]."""
    prod = e.v("aten.sum.dim_IntList", e.v("aten.bmm.default", b["batch1"], b["batch2"]), [0])
    beta, alpha = _number(b, "beta", 1.0), _number(b, "alpha", 1.0)
    if alpha != 1:
        prod = e.v("aten.mul.Tensor", prod, alpha)
    if beta == 0:  # self is ignored, NaNs included (torch's rule)
        return [prod]
    base = cast(SSAValue, b["self"])
    if beta != 1:
        base = e.v("aten.mul.Tensor", base, beta)
    return [e.v("aten.add.Tensor", base, prod)]


def _swap(e: Emitter, x: SSAValue, d0: int, d1: int) -> SSAValue:
    order = list(range(_tensor(x).rank))
    order[d0], order[d1] = order[d1], order[d0]
    return e.v("aten.permute.default", x, order)


@rule("aten.rot90.default")
def _rot90(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Quarter turns from the first towards the second of `dims`, by flips and a transpose."""
    x = cast(SSAValue, b["self"])
    rank = _tensor(x).rank
    dims = b.ints("dims") if b.get("dims") is not None else [0, 1]
    if len(dims) != 2 or rank < 2:
        raise Decline()
    d0, d1 = dims[0] % rank, dims[1] % rank
    if d0 == d1:
        raise Decline()
    k = b.int("k") % 4 if b.get("k") is not None else 1
    if k == 1:
        return [_swap(e, e.v("aten.flip.default", x, [d1]), d0, d1)]
    if k == 2:
        return [e.v("aten.flip.default", x, [d0, d1])]
    if k == 3:
        return [_swap(e, e.v("aten.flip.default", x, [d0]), d0, d1)]
    return [e.v("aten.clone.default", x)]


@rule("aten.diagflat.default")
def _diagflat(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    flat = e.reshape(x, [_tensor(x).numel()])
    return [e.v("aten.diag_embed.default", flat, b.get("offset", 0) or 0)]


@rule("aten.kron.default")
def _kron(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Interleave the dims of a (a0, 1, a1, 1, ...) and b (1, b0, 1, b1, ...), multiply, merge pairs."""
    x, y = cast(SSAValue, b["self"]), cast(SSAValue, b["other"])
    tx, ty = _tensor(x), _tensor(y)
    n = max(tx.rank, ty.rank)
    xs = [1] * (n - tx.rank) + list(tx.sizes)
    ys = [1] * (n - ty.rank) + list(ty.sizes)
    xi = e.reshape(x, [s for d in xs for s in (d, 1)])
    yi = e.reshape(y, [s for d in ys for s in (1, d)])
    return [e.reshape(e.v("aten.mul.Tensor", xi, yi), [_norm(p * q) for p, q in zip(xs, ys)])]


@rule("aten.tensordot.default")
def _tensordot(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Contract `dims_self` with `dims_other`: permute both, flatten to matrices, one mm."""
    x, y = cast(SSAValue, b["self"]), cast(SSAValue, b["other"])
    tx, ty = _tensor(x), _tensor(y)
    ds = [d % max(tx.rank, 1) for d in b.ints("dims_self")]
    do = [d % max(ty.rank, 1) for d in b.ints("dims_other")]
    free_x = [d for d in range(tx.rank) if d not in ds]
    free_y = [d for d in range(ty.rank) if d not in do]
    k = _prod([tx.sizes[d] for d in ds])
    xm = e.reshape(_permuted(e, x, free_x + ds), [_prod([tx.sizes[d] for d in free_x]), k])
    ym = e.reshape(_permuted(e, y, do + free_y), [k, _prod([ty.sizes[d] for d in free_y])])
    out = e.v("aten.mm.default", xm, ym)
    shape = [tx.sizes[d] for d in free_x] + [ty.sizes[d] for d in free_y]
    return [out if len(shape) == 2 and all(_eq(a, c) for a, c in zip(shape, _tensor(out).sizes)) else e.reshape(out, shape)]


def _permuted(e: Emitter, x: SSAValue, order: list[int]) -> SSAValue:
    return x if order == list(range(len(order))) else e.v("aten.permute.default", x, order)


@rule("aten.sum_to_size.default")
def _sum_to_size(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Sum over the leading dims and the dims `size` has as 1, back to `size`."""
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    size = b.ints("size")
    lead = t.rank - len(size)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size) if s == 1 and not _eq(t.sizes[lead + i], 1)]
    if not dims:
        return [x]
    summed = e.v("aten.sum.dim_IntList", x, dims, True)
    return [e.reshape(summed, list(size))] if lead else [summed]


@rule("aten.zero.default")
def _zero(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    return [e.v("aten.full_like.default", x, _fill_for(_tensor(x).element_dtype, 0))]


@rule("aten.frobenius_norm.dim")
def _frobenius_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    sq = e.v("aten.mul.Tensor", x, x)
    return [e.v("aten.sqrt.default", e.v("aten.sum.dim_IntList", sq, b.ints("dim"), bool(b.get("keepdim"))))]


@rule("aten.nanmean.default")
def _nanmean(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """nansum / the count of non-NaN elements."""
    x = cast(SSAValue, b["self"])
    dim = b.get("dim")
    dims = [] if dim is None else b.ints("dim")
    keep = bool(b.get("keepdim"))
    total = e.v("aten.nansum.default", x, dims, keep, dtype=b.dtype("dtype"))
    count = e.v("aten.sum.dim_IntList", e.v("aten.logical_not.default", e.v("aten.isnan.default", x)), dims, keep)
    return [e.v("aten.div.Tensor", total, count)]


@rule("aten.margin_ranking_loss.default")
def _margin_ranking_loss(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """max(0, -target (input1 - input2) + margin)."""
    diff = e.v("aten.sub.Tensor", b["input1"], b["input2"])
    z = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", e.v("aten.neg.default", b["target"]), diff), _number(b, "margin", 0.0))
    return [_reduce(e, e.v("aten.clamp_min.default", z, 0), b.int("reduction"))]


@rule("aten.hinge_embedding_loss.default")
def _hinge_embedding_loss(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """x where target is 1, max(0, margin - x) where target is -1 (both terms where it is neither)."""
    x, target = cast(SSAValue, b["self"]), cast(SSAValue, b["target"])
    zero = _zero_like(e, _tensor(x))
    margin = e.v("aten.clamp_min.default", e.v("aten.add.Tensor", e.v("aten.neg.default", x), _number(b, "margin", 1.0)), 0)
    out_margin = e.v("aten.where.self", e.v("aten.ne.Scalar", target, 1), margin, zero)
    out_self = e.v("aten.where.self", e.v("aten.ne.Scalar", target, -1), x, zero)
    return [_reduce(e, e.v("aten.add.Tensor", out_margin, out_self), b.int("reduction"))]


@rule("aten.soft_margin_loss.default")
def _soft_margin_loss(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """log(1 + e^(-target x))."""
    z = e.v("aten.mul.Tensor", e.v("aten.neg.default", b["target"]), b["self"])
    return [_reduce(e, e.v("aten.log1p.default", e.v("aten.exp.default", z)), b.int("reduction"))]


@rule("aten.poisson_nll_loss.default")
def _poisson_nll_loss(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """e^x - t x (log input), or x - t log(x + eps); `full` adds Stirling's t log t - t + ½ log(2π t) where t > 1."""
    x, t = cast(SSAValue, b["input"]), cast(SSAValue, b["target"])
    if b.get("log_input"):
        loss = e.v("aten.sub.Tensor", e.v("aten.exp.default", x), e.v("aten.mul.Tensor", t, x))
    else:
        logx = e.v("aten.log.default", e.v("aten.add.Tensor", x, _number(b, "eps", 1e-8)))
        loss = e.v("aten.sub.Tensor", x, e.v("aten.mul.Tensor", t, logx))
    if b.get("full"):
        logt = e.v("aten.log.default", t)
        stirling = e.v("aten.add.Tensor", e.v("aten.sub.Tensor", e.v("aten.mul.Tensor", t, logt), t),
                       e.v("aten.mul.Tensor", e.v("aten.log.default", e.v("aten.mul.Tensor", t, 2 * math.pi)), 0.5))
        stirling = e.v("aten.where.self", e.v("aten.gt.Scalar", t, 1), stirling, _zero_like(e, _tensor(stirling)))
        loss = e.v("aten.add.Tensor", loss, stirling)
    return [_reduce(e, loss, b.int("reduction"))]


@rule("aten.linalg_cross.default", "aten.cross.default")
def _linalg_cross(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`a[i+1]*b[i+2] - a[i+2]*b[i+1]` along a dim of size 3, by index_select with rotations."""
    x, y = cast(SSAValue, b["self"]), cast(SSAValue, b["other"])
    tx, ty = _tensor(x), _tensor(y)
    shape = _broadcast(list(tx.sizes), list(ty.sizes))
    dim = b.get("dim")
    if dim is None:
        dim = next((i for i, s in enumerate(shape) if _eq(s, 3)), None)
        if dim is None:
            raise Decline()
    d = cast(int, dim) % len(shape)
    if not _eq(shape[d], 3):
        raise Decline()
    if tx.sizes != shape:
        x = e.v("aten.expand.default", x, e.sizes(shape))
    if ty.sizes != shape:
        y = e.v("aten.expand.default", y, e.sizes(shape))
    device = DeviceAttr(tx.device.data)
    base = e.v("aten.arange.start_step", 0, 3, layout=Layout.strided, device=device, pin_memory=False)
    i1 = e.v("aten.remainder.Scalar", e.v("aten.add.Tensor", base, 1), 3)
    i2 = e.v("aten.remainder.Scalar", e.v("aten.add.Tensor", base, 2), 3)
    def pick(v: SSAValue, i: SSAValue) -> SSAValue:
        return e.v("aten.index_select.default", v, d, i)
    left = e.v("aten.mul.Tensor", pick(x, i1), pick(y, i2))
    right = e.v("aten.mul.Tensor", pick(x, i2), pick(y, i1))
    return [e.v("aten.sub.Tensor", left, right)]


@rule("aten.item.default")
def _item(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten._local_scalar_dense.default", b["self"])]


@rule("aten._index_put_impl.default")
def _index_put_impl(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.index_put.default", b["self"], b["indices"], b["values"], b["accumulate"])]


# -- losses ---------------------------------------------------------------------


def _nll_forward(
    e: Emitter, x: SSAValue, target: SSAValue, weight: object, reduction: int, ignore_index: object
) -> tuple[SSAValue, SSAValue]:
    """torch/_decomp's `nll_loss_forward`: minus the target class's (weighted) log-probability,
    zero at `ignore_index`; the sum, the mean over the weights of the counted targets, or
    each term; and the total weight."""
    t = _tensor(x)
    cdim = 1 if t.rank >= 2 else 0
    w = None
    if isinstance(weight, SSAValue):
        w = weight
        if t.rank > 1:
            shape: list[SymSize] = [1] * t.rank
            shape[cdim] = _tensor(weight).sizes[0]
            w = e.v("aten.view.default", weight, e.sizes(shape))
        x = e.v("aten.mul.Tensor", x, w)
    keep = e.v("aten.ne.Scalar", target, ignore_index)
    safe = e.v("aten.where.self", keep, target, _zero_like(e, _tensor(target)))
    safe_u = e.v("aten.unsqueeze.default", safe, cdim)
    picked = e.v("aten.squeeze.dims", e.v("aten.gather.default", x, cdim, safe_u), [cdim])
    result = e.v("aten.neg.default", picked)
    result = e.v("aten.where.self", keep, result, _zero_like(e, _tensor(result)))
    zero_total = e.v("aten.full.default", [], 0.0, dtype=t.element_dtype, layout=Layout.strided,
                     device=DeviceAttr(t.device.data), pin_memory=False)
    if _REDUCTIONS.get(reduction) == "none" and t.rank > 1:
        return result, zero_total
    if w is not None:
        wx = e.v("aten.expand.default", w, e.sizes(t.sizes))
        wsum = e.v("aten.squeeze.dims", e.v("aten.gather.default", wx, cdim, safe_u), [cdim])
        wsum = e.v("aten.where.self", keep, wsum, _zero_like(e, _tensor(wsum)))
        total = e.v("aten.sum.dim_IntList", wsum, [])
    else:
        count = e.v("aten.sum.dim_IntList", keep, [])
        total = e.v("aten._to_copy.default", count, dtype=t.element_dtype)
    if _REDUCTIONS.get(reduction) == "sum":
        result = e.v("aten.sum.dim_IntList", result, [])
    elif _REDUCTIONS.get(reduction) == "mean":
        result = e.v("aten.div.Tensor", e.v("aten.sum.dim_IntList", result, []), total)
    return result, total


@rule("aten.nll_loss_forward.default", "aten.nll_loss2d_forward.default")
def _nll_loss_forward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    out, total = _nll_forward(
        e, cast(SSAValue, b["self"]), cast(SSAValue, b["target"]), b.get("weight"), b.int("reduction"),
        b["ignore_index"],
    )
    return [out, total]


@rule("aten.nll_loss.default", "aten.nll_loss_nd.default", "aten.nll_loss2d.default")
def _nll_loss(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    if op_name(op) == "aten.nll_loss_nd.default" and _tensor(x).rank > 2:
        raise Decline()  # flattening the spatial dims is left to torch's own decomposition
    return [_nll_forward(e, x, cast(SSAValue, b["target"]), b.get("weight"), b.int("reduction"), b["ignore_index"])[0]]


@rule("aten.cross_entropy_loss.default")
def _cross_entropy(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Class-index targets without label smoothing: `nll_loss(log_softmax(x, 1))`."""
    x, target = cast(SSAValue, b["self"]), cast(SSAValue, b["target"])
    if b.get("label_smoothing") or _tensor(target).element_dtype.is_floating_point or _tensor(x).rank > 2:
        raise Decline()
    cdim = 1 if _tensor(x).rank >= 2 else 0
    logp = e.v("aten._log_softmax.default", x, cdim, False)
    return [_nll_forward(e, logp, target, b.get("weight"), b.int("reduction"), b["ignore_index"])[0]]


@rule("aten.nll_loss_backward.default", "aten.nll_loss2d_backward.default")
def _nll_loss_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_decomp's `nll_loss_backward`: -grad (weighted, over the total weight for a
    mean) scattered at each target class, zero at `ignore_index`."""
    x, target, grad = cast(SSAValue, b["self"]), cast(SSAValue, b["target"]), cast(SSAValue, b["grad_output"])
    t = _tensor(x)
    cdim = 1 if t.rank >= 2 else 0
    if _REDUCTIONS.get(b.int("reduction")) == "mean":
        grad = e.v("aten.div.Tensor", grad, b["total_weight"])
    tu = e.v("aten.unsqueeze.default", target, cdim)
    keep = e.v("aten.ne.Scalar", tu, b["ignore_index"])
    safe = e.v("aten.where.self", keep, tu, _zero_like(e, _tensor(tu)))
    zeros = _full(e, b, t.sizes, 0, t)
    grad_input = e.v("aten.scatter.value", zeros, cdim, safe, -1.0)
    if t.rank > _tensor(grad).rank > 0:
        grad = e.v("aten.unsqueeze.default", grad, cdim)
    weight = b.get("weight")
    if isinstance(weight, SSAValue):
        shape: list[SymSize] = [1] * t.rank
        shape[cdim] = _tensor(weight).sizes[0]
        grad = e.v("aten.mul.Tensor", grad, e.v("aten.view.default", weight, e.sizes(shape)))
    grad = e.v("aten.where.self", keep, grad, _zero_like(e, _tensor(grad)))
    return [e.v("aten.mul.Tensor", grad_input, grad)]


# -- creation -------------------------------------------------------------------------


@rule("aten.linspace.default")
def _linspace(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """ATen's CPU linspace: `start + step * i` for the first half, `end - step * (steps - 1 - i)`
    for the second, in the result dtype (double for integral results, then truncated)."""
    start, end, steps = b["start"], b["end"], b.int("steps")
    if isinstance(start, SSAValue) or isinstance(end, SSAValue) or steps < 0:
        raise Decline()
    dtype = b.dtype("dtype") or DType.float32
    device = b.get("device") or DeviceAttr("cpu")
    work = dtype if dtype.is_floating_point else DType.float64
    s, en = float(cast(float, start)), float(cast(float, end))
    if steps <= 1:
        values = [s] if steps == 1 else []
        out = e.v("aten.full.default", [len(values)], s, dtype=work, layout=Layout.strided, device=device,
                  pin_memory=False)
        return [out if work == dtype else e.v("aten._to_copy.default", out, dtype=dtype)]
    step = (en - s) / (steps - 1)
    index = e.v("aten.arange.start_step", 0, steps, dtype=work, layout=Layout.strided, device=device,
                pin_memory=False)
    low = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", index, step), s)
    back = e.v("aten.sub.Tensor", e.v("aten.mul.Tensor", index, -1), -(steps - 1))
    high = e.v("aten.sub.Tensor", e.v("aten.mul.Tensor", back, -step), -en)
    first = e.v("aten.lt.Scalar", index, steps // 2)
    out = e.v("aten.where.self", first, low, high)
    return [out if work == dtype else e.v("aten._to_copy.default", out, dtype=dtype)]


# -- aliases and copies -----------------------------------------------------------


def _same_arguments(e: Emitter, b: Bound, target: str) -> AtenOp:
    """`target` called with the bound arguments by name (an alias has the same schema)."""
    cls = aten_op_class(target)
    if cls is None:
        raise Decline()
    args: list[object] = []
    kwargs: dict[str, Any] = {}  # forwarded to AtenOp.build
    for a in cls.SCHEMA.arguments:
        if a.name not in b:
            continue
        if a.kwarg_only:
            kwargs[a.name] = b[a.name]
        else:
            args.append(b[a.name])
    return e.call(target, *args, **kwargs)


ALIASES: dict[str, str] = {
    **{f"aten.{a}.default": f"aten.{t}.default" for a, t in (
        ("absolute", "abs"), ("arccos", "acos"), ("arccosh", "acosh"), ("arcsin", "asin"), ("arcsinh", "asinh"),
        ("arctan", "atan"), ("arctan2", "atan2"), ("arctanh", "atanh"), ("clip", "clamp"), ("negative", "neg"),
        ("fix", "trunc"), ("special_expit", "sigmoid"), ("special_erf", "erf"), ("special_expm1", "expm1"),
        ("special_log1p", "log1p"), ("special_exp2", "exp2"), ("concat", "cat"), ("concatenate", "cat"),
    )},
    "aten.clip.Tensor": "aten.clamp.Tensor",
    **{f"aten.{a}.{ov}": f"aten.{t}.{ov}" for a, t in (
        ("divide", "div"), ("multiply", "mul"), ("subtract", "sub"), ("true_divide", "div"), ("greater", "gt"),
        ("greater_equal", "ge"), ("less", "lt"), ("less_equal", "le"), ("not_equal", "ne"),
    ) for ov in ("Tensor", "Scalar")},
    "aten.divide.Tensor_mode": "aten.div.Tensor_mode",
    "aten.divide.Scalar_mode": "aten.div.Scalar_mode",
    "aten.special_xlogy.default": "aten.xlogy.Tensor",
    "aten.special_xlogy.self_scalar": "aten.xlogy.Scalar_Self",
    "aten.special_xlogy.other_scalar": "aten.xlogy.Scalar_Other",
    "aten.special_log_softmax.default": "aten.log_softmax.int",
    "aten.special_softmax.default": "aten.softmax.int",
    "aten.special_round.default": "aten.round.decimals",
    "aten._unsafe_index.Tensor": "aten.index.Tensor",
    "aten._unsafe_index_put.default": "aten.index_put.default",
}
"""Overloads that are another overload under another name, with the same arguments
(torch's alias declarations: `absolute` is `abs`, `special_expit` is `sigmoid`)."""


def _alias_rule(target: str) -> Rule:
    def apply(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
        return list(_same_arguments(e, b, target).results)

    return apply


for _name, _target in ALIASES.items():
    rule(_name)(_alias_rule(_target))


COPIES: dict[str, str] = {
    f"aten.{v}_copy.{ov}": f"aten.{v}.{ov}"
    for v, ov in (
        ("view", "default"), ("permute", "default"), ("expand", "default"), ("transpose", "int"), ("t", "default"),
        ("unsqueeze", "default"), ("squeeze", "default"), ("squeeze", "dim"), ("squeeze", "dims"), ("select", "int"),
        ("slice", "Tensor"), ("diagonal", "default"), ("alias", "default"), ("detach", "default"),
        ("unfold", "default"), ("as_strided", "default"),
    )
}
"""The functional `_copy` forms of view ops: the view, then a copy (a fresh tensor)."""
COPIES["aten.narrow_copy.default"] = "aten.narrow.default"


def _copy_rule(view: str) -> Rule:
    def apply(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
        value = _same_arguments(e, b, view).results[0]
        return [e.v("aten.clone.default", value, memory_format=MemoryFormat.contiguous_format)]

    return apply


for _name, _view in COPIES.items():
    if _name in all_operators():
        rule(_name)(_copy_rule(_view))


@rule("aten.positive.default", "aten.lift_fresh.default")
def _positive(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [cast(SSAValue, b["self"])]


# -- pointwise formulas (torch/_refs) ----------------------------------------------


@rule("aten.square.default")
def _square(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.pow.Tensor_Scalar", b["self"], 2)]


@rule("aten.rad2deg.default", "aten.deg2rad.default")
def _rad2deg(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    factor = 180.0 / math.pi if op_name(op) == "aten.rad2deg.default" else math.pi / 180.0
    return [e.v("aten.mul.Tensor", b["self"], factor)]


@rule("aten.frac.default")
def _frac(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b["self"]
    return [e.v("aten.sub.Tensor", x, e.v("aten.trunc.default", x))]


@rule("aten.threshold.default")
def _threshold(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    mask = e.v("aten.le.Scalar", x, b["threshold"])
    return [e.v("aten.where.self", mask, _scalar_tensor(e, _fill_for(t.element_dtype, b["value"]), t), x)]


@rule("aten.hardshrink.default")
def _hardshrink(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    mask = e.v("aten.le.Scalar", e.v("aten.abs.default", x), b["lambd"])
    return [e.v("aten.where.self", mask, _zero_like(e, _tensor(x)), x)]


@rule("aten.softshrink.default")
def _softshrink(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    lambd = float(cast(float, b["lambd"]))
    zero = _zero_like(e, _tensor(x))
    low = e.v("aten.where.self", e.v("aten.lt.Scalar", x, -lambd), e.v("aten.add.Tensor", x, lambd), zero)
    return [e.v("aten.where.self", e.v("aten.gt.Scalar", x, lambd), e.v("aten.sub.Tensor", x, lambd), low)]


@rule("aten.logaddexp.default")
def _logaddexp(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_refs: max + log1p(exp(-|a - b|)), and the infinity itself where both are it."""
    x, y = cast(SSAValue, b["self"]), cast(SSAValue, b["other"])
    m = e.v("aten.maximum.default", x, y)
    spread = e.v("aten.neg.default", e.v("aten.abs.default", e.v("aten.sub.Tensor", x, y)))
    out = e.v("aten.add.Tensor", m, e.v("aten.log1p.default", e.v("aten.exp.default", spread)))
    same_inf = e.v("aten.logical_and.default", e.v("aten.isinf.default", x), e.v("aten.eq.Tensor", x, y))
    return [e.v("aten.where.self", same_inf, x, out)]


@rule("aten.hypot.default")
def _hypot(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x, y = b["self"], b["other"]
    return [e.v("aten.sqrt.default", e.v("aten.add.Tensor", e.v("aten.mul.Tensor", x, x), e.v("aten.mul.Tensor", y, y)))]


@rule("aten.sinc.default", "aten.special_sinc.default")
def _sinc(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    if not _tensor(x).element_dtype.is_floating_point:
        x = e.v("aten._to_copy.default", x, dtype=DType.float32)
    px = e.v("aten.mul.Tensor", x, math.pi)
    ratio = e.v("aten.div.Tensor", e.v("aten.sin.default", px), px)
    one = _scalar_tensor(e, 1.0, _tensor(ratio))
    return [e.v("aten.where.self", e.v("aten.eq.Scalar", x, 0), one, ratio)]


@rule("aten.logit.default", "aten.special_logit.default")
def _logit(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    eps = b.get("eps")
    if eps is not None:
        x = e.v("aten.clamp.default", x, float(cast(float, eps)), 1.0 - float(cast(float, eps)))
    return [e.v("aten.log.default", e.v("aten.div.Tensor", x, e.v("aten.rsub.Scalar", x, 1)))]


@rule("aten.log_sigmoid.default")
def _log_sigmoid(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """min(0, x) - log1p(exp(-|x|)), stable for large |x|."""
    x = cast(SSAValue, b["self"])
    low = e.v("aten.clamp.default", x, None, 0)
    tail = e.v("aten.log1p.default", e.v("aten.exp.default", e.v("aten.neg.default", e.v("aten.abs.default", x))))
    return [e.v("aten.sub.Tensor", low, tail)]


@rule("aten.celu.default")
def _celu(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    alpha = float(cast(float, b["alpha"]))
    return [e.v("aten.elu.default", b["self"], alpha, 1.0, 1.0 / alpha)]


@rule("aten.selu.default")
def _selu(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.elu.default", b["self"], 1.6732632423543772848170429916717, 1.0507009873554804934193349852946)]


@rule("aten.glu.default")
def _glu(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    d = b.int("dim") % t.rank
    n = t.sizes[d]
    if not isinstance(n, int) or n % 2:
        raise Decline()
    a = e.v("aten.slice.Tensor", x, d, 0, n // 2)
    g = e.v("aten.slice.Tensor", x, d, n // 2, n)
    return [e.v("aten.mul.Tensor", a, e.v("aten.sigmoid.default", g))]


@rule("aten.prelu.default", "aten._prelu_kernel.default")
def _prelu(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x, w = cast(SSAValue, b["self"]), cast(SSAValue, b["weight"])
    t, tw = _tensor(x), _tensor(w)
    if t.rank >= 2 and tw.rank == 1 and not _eq(tw.sizes[0], 1):
        shape: list[SymSize] = [1] * t.rank
        shape[1] = tw.sizes[0]
        w = e.v("aten.view.default", w, e.sizes(shape))
    positive = e.v("aten.gt.Scalar", x, 0)
    return [e.v("aten.where.self", positive, x, e.v("aten.mul.Tensor", w, x))]


@rule("aten.isposinf.default", "aten.isneginf.default")
def _isposinf(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    value = math.inf if op_name(op) == "aten.isposinf.default" else -math.inf
    return [e.v("aten.eq.Scalar", b["self"], value)]


@rule("aten.isfinite.default")
def _isfinite(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    if not _tensor(x).element_dtype.is_floating_point:
        return [e.v("aten.eq.Tensor", x, x)]  # integers are always finite
    bad = e.v("aten.logical_or.default", e.v("aten.isinf.default", x), e.v("aten.isnan.default", x))
    return [e.v("aten.logical_not.default", bad)]


@rule("aten.heaviside.default")
def _heaviside(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x, values = cast(SSAValue, b["self"]), cast(SSAValue, b["values"])
    t = _tensor(x)
    step = e.v("aten._to_copy.default", e.v("aten.gt.Scalar", x, 0), dtype=t.element_dtype)
    return [e.v("aten.where.self", e.v("aten.eq.Scalar", x, 0), values, step)]


# -- reductions ----------------------------------------------------------------------


@rule("aten.logsumexp.default", "aten.special_logsumexp.default")
def _logsumexp(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_refs.logsumexp: the max taken out (0 where it is infinite), then log-sum-exp."""
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    if not t.element_dtype.is_floating_point:
        x = e.v("aten._to_copy.default", x, dtype=DType.float32)
    dims = b.ints("dim") or list(range(t.rank))
    keep = bool(b.get("keepdim", False))
    m = e.v("aten.amax.default", x, dims, True)
    m = e.v("aten.where.self", e.v("aten.isinf.default", m), _zero_like(e, _tensor(m)), m)
    s = e.v("aten.sum.dim_IntList", e.v("aten.exp.default", e.v("aten.sub.Tensor", x, m)), dims, keep)
    if not keep:
        m = e.v("aten.squeeze.dims", m, dims)
    return [e.v("aten.add.Tensor", e.v("aten.log.default", s), m)]


@rule("aten.nansum.default")
def _nansum(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    t = _tensor(x)
    if t.element_dtype.is_floating_point:
        x = e.v("aten.where.self", e.v("aten.isnan.default", x), _zero_like(e, t), x)
    return [e.v("aten.sum.dim_IntList", x, b.get("dim") or [], bool(b.get("keepdim", False)), dtype=b.dtype("dtype"))]


@rule("aten.count_nonzero.dim_IntList", "aten.count_nonzero.default")
def _count_nonzero(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    nz = e.v("aten.ne.Scalar", b["self"], 0)
    dim = b.get("dim")
    dims = [] if dim is None else (b.ints("dim") if isinstance(dim, list) else [b.int("dim")])
    return [e.v("aten.sum.dim_IntList", nz, dims, False, dtype=DType.int64)]


@rule("aten.aminmax.default")
def _aminmax(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    dim = b.get("dim")
    dims = list(range(_tensor(x).rank)) if dim is None else [b.int("dim")]
    keep = bool(b.get("keepdim", False))
    return [e.v("aten.amin.default", x, dims, keep), e.v("aten.amax.default", x, dims, keep)]


@rule("aten.dist.default")
def _dist(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    diff = e.v("aten.sub.Tensor", b["self"], b["other"])
    return [e.v("aten.linalg_vector_norm.default", diff, b["p"])]


# -- losses and distances --------------------------------------------------------------


@rule("aten.mse_loss.default", "aten.l1_loss.default")
def _mse_loss(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    d = e.v("aten.sub.Tensor", b["self"], b["target"])
    loss = e.v("aten.mul.Tensor", d, d) if op_name(op) == "aten.mse_loss.default" else e.v("aten.abs.default", d)
    return [_reduce(e, loss, b.int("reduction"))]


@rule("aten.smooth_l1_loss.default", "aten.huber_loss.default")
def _smooth_l1(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Quadratic below `beta` (`delta`), linear above: smooth L1 divides the quadratic
    part by beta, Huber multiplies the linear part by delta."""
    d = e.v("aten.abs.default", e.v("aten.sub.Tensor", b["self"], b["target"]))
    huber = op_name(op) == "aten.huber_loss.default"
    beta = float(cast(float, b["delta"] if huber else b["beta"]))
    if not huber and beta == 0:
        return [_reduce(e, d, b.int("reduction"))]
    square = e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", d, d), 0.5 if huber else 0.5 / beta)
    linear = e.v("aten.sub.Tensor", d, 0.5 * beta)
    if huber:
        linear = e.v("aten.mul.Tensor", linear, beta)
    loss = e.v("aten.where.self", e.v("aten.lt.Scalar", d, beta), square, linear)
    return [_reduce(e, loss, b.int("reduction"))]


@rule("aten.binary_cross_entropy.default")
def _bce(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """-(t * log(x) + (1 - t) * log(1 - x)), each log clamped at -100 as torch does."""
    x, t = cast(SSAValue, b["self"]), cast(SSAValue, b["target"])
    log_x = e.v("aten.clamp.default", e.v("aten.log.default", x), -100)
    log_1mx = e.v("aten.clamp.default", e.v("aten.log1p.default", e.v("aten.neg.default", x)), -100)
    one_minus_t = e.v("aten.rsub.Scalar", t, 1)
    loss = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", one_minus_t, log_1mx), e.v("aten.mul.Tensor", t, log_x))
    loss = e.v("aten.neg.default", loss)
    if isinstance(b.get("weight"), SSAValue):
        loss = e.v("aten.mul.Tensor", loss, b["weight"])
    return [_reduce(e, loss, b.int("reduction"))]


@rule("aten.binary_cross_entropy_with_logits.default")
def _bce_logits(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch's stable form: (1 - t) * x + w_pos * (log1p(exp(-|x|)) + relu(-x))."""
    x, t = cast(SSAValue, b["self"]), cast(SSAValue, b["target"])
    softplus_neg = e.v("aten.add.Tensor",
                       e.v("aten.log1p.default", e.v("aten.exp.default", e.v("aten.neg.default", e.v("aten.abs.default", x)))),
                       e.v("aten.relu.default", e.v("aten.neg.default", x)))
    pos_weight = b.get("pos_weight")
    if isinstance(pos_weight, SSAValue):
        log_weight = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", e.v("aten.sub.Tensor", pos_weight, 1), t), 1)
        softplus_neg = e.v("aten.mul.Tensor", log_weight, softplus_neg)
    loss = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", e.v("aten.rsub.Scalar", t, 1), x), softplus_neg)
    if isinstance(b.get("weight"), SSAValue):
        loss = e.v("aten.mul.Tensor", loss, b["weight"])
    return [_reduce(e, loss, b.int("reduction"))]


@rule("aten.cosine_similarity.default")
def _cosine_similarity(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """ATen's form: each input divided by its norm (at least eps), then the dot product."""
    x1, x2 = cast(SSAValue, b["x1"]), cast(SSAValue, b["x2"])
    shape = _broadcast(list(_tensor(x1).sizes), list(_tensor(x2).sizes))
    d = b.int("dim") % len(shape)
    if _tensor(x1).sizes != shape:
        x1 = e.v("aten.expand.default", x1, e.sizes(shape))
    if _tensor(x2).sizes != shape:
        x2 = e.v("aten.expand.default", x2, e.sizes(shape))
    eps = float(cast(float, b["eps"]))

    def normalized(v: SSAValue) -> SSAValue:
        n = e.v("aten.linalg_vector_norm.default", v, 2, [d], True)
        return e.v("aten.div.Tensor", v, e.v("aten.clamp.default", n, eps))

    return [e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", normalized(x1), normalized(x2)), [d])]


@rule("aten.pairwise_distance.default")
def _pairwise_distance(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x1 = cast(SSAValue, b["x1"])
    diff = e.v("aten.add.Tensor", e.v("aten.sub.Tensor", x1, b["x2"]), b["eps"])
    rank = max(_tensor(x1).rank, _tensor(b["x2"]).rank)
    return [e.v("aten.linalg_vector_norm.default", diff, b["p"], [-1] if rank else [], bool(b["keepdim"]))]


# -- shape helpers -----------------------------------------------------------------------


@rule("aten.ravel.default")
def _ravel(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    return [e.reshape(x, [_tensor(x).numel()])]


@rule("aten.fliplr.default", "aten.flipud.default")
def _fliplr(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.flip.default", b["self"], [1] if op_name(op) == "aten.fliplr.default" else [0])]


@rule("aten.tile.default")
def _tile(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    dims = b.ints("dims")
    rank = _tensor(x).rank
    dims = [1] * (rank - len(dims)) + dims
    return [e.v("aten.repeat.default", x, dims)]


@rule("aten.repeat_interleave.self_int")
def _repeat_interleave(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """An int count: each element repeated along `dim` (flattened first when dim is None)."""
    x = cast(SSAValue, b["self"])
    repeats = b.int("repeats")
    if b.get("dim") is None:
        x = e.reshape(x, [_tensor(x).numel()])
        d = 0
    else:
        d = b.int("dim") % max(_tensor(x).rank, 1)
    t = _tensor(x)
    y = e.v("aten.unsqueeze.default", x, d + 1)
    y = e.v("aten.expand.default", y, e.sizes([*t.sizes[: d + 1], repeats, *t.sizes[d + 1 :]]))
    y = e.v("aten.clone.default", y, memory_format=MemoryFormat.contiguous_format)
    return [e.v("aten.view.default", y, e.sizes([*t.sizes[:d], _norm(t.sizes[d] * repeats), *t.sizes[d + 1 :]]))]


@rule("aten.one_hot.default")
def _one_hot(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    n = b.int("num_classes")
    if n < 0:
        raise Decline()  # the class count read from the data is a data-dependent size
    x = cast(SSAValue, b["self"])
    classes = e.v("aten.arange.start_step", 0, n, layout=Layout.strided, device=DeviceAttr(_tensor(x).device.data),
                  pin_memory=False)
    hit = e.v("aten.eq.Tensor", e.v("aten.unsqueeze.default", x, -1), classes)
    return [e.v("aten._to_copy.default", hit, dtype=DType.int64)]


@rule("aten._reshape_alias.default")
def _reshape_alias(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.view.default", b["self"], b["size"])]


@rule("aten.rms_norm.default")
def _rms_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """x * rsqrt(mean(x^2 over the normalized dims) + eps) * weight; eps defaults to the
    dtype's machine epsilon, as torch's rms_norm."""
    x = cast(SSAValue, b["input"])
    t = _tensor(x)
    n = len(b.ints("normalized_shape"))
    dims = list(range(t.rank - n, t.rank))
    eps = b.get("eps")
    if eps is None:
        eps = {DType.float64: 2.220446049250313e-16, DType.float16: 0.0009765625,
               DType.bfloat16: 0.0078125}.get(t.element_dtype, 1.1920928955078125e-07)
    ms = e.v("aten.mean.dim", e.v("aten.mul.Tensor", x, x), dims, True)
    out = e.v("aten.mul.Tensor", x, e.v("aten.rsqrt.default", e.v("aten.add.Tensor", ms, eps)))
    if isinstance(b.get("weight"), SSAValue):
        out = e.v("aten.mul.Tensor", out, b["weight"])
    return [out]


@rule("aten.conv_transpose1d.default", "aten.conv_transpose2d.input", "aten.conv_transpose3d.input")
def _conv_transpose(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    n = int(op_name(op).split(".")[1][-2])
    if _tensor(b["input"]).rank != n + 2:
        raise Decline()
    return [
        e.v(
            "aten.convolution.default", b["input"], b["weight"], b.get("bias"), b.ints("stride", n),
            b.ints("padding", n), b.ints("dilation", n), True, b.ints("output_padding", n), b["groups"],
        )
    ]


# -- sorting, statistics, matrix-vector products -------------------------------------


@rule("aten.argsort.default", "aten.argsort.stable", "aten.msort.default")
def _argsort(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b["self"]
    name = op_name(op)
    if name == "aten.msort.default":
        return [e.item(e.call("aten.sort.default", x, 0), 0)]
    if name == "aten.argsort.stable":
        new = e.call("aten.sort.stable", x, stable=b["stable"], dim=b.int("dim"), descending=b["descending"])
    else:
        new = e.call("aten.sort.default", x, b.int("dim"), b["descending"])
    return [e.item(new, 1)]


@rule("aten.std_mean.correction", "aten.std_mean.dim", "aten.std_mean.default")
def _std_mean(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    new = _same_arguments(e, b, op_name(op).replace("std_mean", "var_mean"))
    return [e.v("aten.sqrt.default", e.item(new, 0)), e.item(new, 1)]


@rule("aten.diag.default")
def _diag(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    rank = _tensor(x).rank
    if rank == 1:
        return [e.v("aten.diag_embed.default", x, b.int("diagonal"))]
    if rank != 2:
        raise Decline()
    return [e.v("aten.clone.default", e.v("aten.diagonal.default", x, b.int("diagonal")))]


@rule("aten.mv.default")
def _mv(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    col = e.v("aten.unsqueeze.default", b["vec"], 1)
    return [e.v("aten.squeeze.dims", e.v("aten.mm.default", b["self"], col), [1])]


@rule("aten.ger.default", "aten.outer.default")
def _outer(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.mul.Tensor", e.v("aten.unsqueeze.default", b["self"], 1), b["vec2"])]


def _scaled_sum(e: Emitter, b: Bound, product: SSAValue) -> SSAValue:
    """`beta * self + alpha * product` (self ignored when beta is 0, as torch does)."""
    alpha, beta = b.get("alpha", 1), b.get("beta", 1)
    if alpha != 1:
        product = e.v("aten.mul.Tensor", product, alpha)
    if beta == 0:
        return e.v("aten.expand.default", product, e.sizes(_broadcast(list(_tensor(b["self"]).sizes),
                                                                       list(_tensor(product).sizes))))
    x = b["self"] if beta == 1 else e.v("aten.mul.Tensor", b["self"], beta)
    return e.v("aten.add.Tensor", x, product)


@rule("aten.addmv.default")
def _addmv(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    col = e.v("aten.unsqueeze.default", b["vec"], 1)
    product = e.v("aten.squeeze.dims", e.v("aten.mm.default", b["mat"], col), [1])
    return [_scaled_sum(e, b, product)]


@rule("aten.addr.default")
def _addr(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    if _tensor(b["self"]).element_dtype == DType.bool:
        raise Decline()
    product = e.v("aten.mul.Tensor", e.v("aten.unsqueeze.default", b["vec1"], 1), b["vec2"])
    return [_scaled_sum(e, b, product)]


@rule("aten.inner.default")
def _inner(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x, y = cast(SSAValue, b["self"]), cast(SSAValue, b["other"])
    rx, ry = _tensor(x).rank, _tensor(y).rank
    if rx == 0 or ry == 0:
        return [e.v("aten.mul.Tensor", x, y)]
    if rx == 1 and ry == 1:
        return [e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", x, y), [0])]
    if rx <= 2 and ry == 2:
        return [e.v("aten.matmul.default", x, e.v("aten.permute.default", y, [1, 0]))]
    raise Decline()


# -- fused forms torch's passes emit ---------------------------------------------------------


@rule("aten._safe_softmax.default")
def _safe_softmax(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """softmax, with zeros (not NaN) in slices that are all -inf."""
    x = cast(SSAValue, b["self"])
    dtype = b.dtype("dtype")
    if dtype is not None and dtype != _tensor(x).element_dtype:
        x = e.v("aten._to_copy.default", x, dtype=dtype)
    d = b.int("dim")
    attn = e.v("aten._softmax.default", x, d, False)
    live = e.v("aten.any.dim", e.v("aten.logical_not.default", e.v("aten.eq.Scalar", x, float("-inf"))), d, True)
    zeros = e.v("aten.full_like.default", attn, 0, pin_memory=False, memory_format=MemoryFormat.preserve_format)
    return [e.v("aten.where.self", e.v("aten.logical_not.default", live), zeros, attn)]


@rule("aten._add_relu.Tensor")
def _add_relu(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    alpha = b.get("alpha", 1)
    s = e.v("aten.add.Tensor", b["self"], b["other"], alpha=alpha) if alpha != 1 else e.v(
        "aten.add.Tensor", b["self"], b["other"])
    return [e.v("aten.relu.default", s)]


@rule("aten._addmm_activation.default")
def _addmm_activation(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    out = e.v("aten.addmm.default", b["self"], b["mat1"], b["mat2"], beta=b.get("beta", 1), alpha=b.get("alpha", 1))
    return [e.v("aten.gelu.default", out) if b.get("use_gelu") else e.v("aten.relu.default", out)]


# -- indexing along a dim ------------------------------------------------------------------


def _index_along(e: Emitter, b: Bound, values: SSAValue, accumulate: bool) -> SSAValue:
    """`self` with `values` put at `index` along `dim`: the dim moved first, `index_put`, moved back."""
    x = cast(SSAValue, b["self"])
    rank = _tensor(x).rank
    if rank == 0:
        raise Decline()
    d = b.int("dim") % rank
    front = _movedim(e, x, d, 0)
    vt = _tensor(values)
    if vt.rank == rank:
        values = _movedim(e, values, d, 0)
    put = e.v("aten.index_put.default", front, [b["index"]], values, accumulate)
    return _movedim(e, put, 0, d)


@rule("aten.index_add.default")
def _index_add(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    source = cast(SSAValue, b["source"])
    if b.get("alpha", 1) != 1:
        source = e.v("aten.mul.Tensor", source, b["alpha"])
    return [_index_along(e, b, source, True)]


@rule("aten.index_copy.default")
def _index_copy(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [_index_along(e, b, cast(SSAValue, b["source"]), False)]


@rule("aten.index_fill.int_Scalar", "aten.index_fill.int_Tensor")
def _index_fill(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    t = _tensor(b["self"])
    value = b["value"]
    if not isinstance(value, SSAValue):
        value = _scalar_tensor(e, _fill_for(t.element_dtype, value), t)
    elif _tensor(value).element_dtype != t.element_dtype:
        value = e.v("aten._to_copy.default", value, dtype=t.element_dtype)
    return [_index_along(e, b, value, False)]


@rule("aten.take.default")
def _take(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = cast(SSAValue, b["self"])
    flat = e.reshape(x, [_tensor(x).numel()])
    return [e.v("aten.index.Tensor", flat, [b["index"]])]


@rule("aten.take_along_dim.default")
def _take_along_dim(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x, idx = cast(SSAValue, b["self"]), cast(SSAValue, b["indices"])
    if b.get("dim") is None:
        flat = e.reshape(x, [_tensor(x).numel()])
        return [e.v("aten.gather.default", flat, 0, e.reshape(idx, [_tensor(idx).numel()]))]
    tx, ti = _tensor(x), _tensor(idx)
    if tx.rank != ti.rank:
        raise Decline()
    d = b.int("dim") % tx.rank
    shape = _broadcast(list(tx.sizes), list(ti.sizes))
    xs = [tx.sizes[d] if i == d else s for i, s in enumerate(shape)]
    ids = [ti.sizes[d] if i == d else s for i, s in enumerate(shape)]
    if list(tx.sizes) != xs:
        x = e.v("aten.expand.default", x, e.sizes(xs))
    if list(ti.sizes) != ids:
        idx = e.v("aten.expand.default", idx, e.sizes(ids))
    return [e.v("aten.gather.default", x, d, idx)]


# -- pooling and stacking ----------------------------------------------------------------------


@rule("aten.max_pool1d.default")
def _max_pool1d(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = e.v("aten.unsqueeze.default", b["self"], -2)
    k = b.ints("kernel_size", 1)
    stride = b.ints("stride", 1) if b.get("stride") else k
    new = e.call(
        "aten.max_pool2d_with_indices.default", x, [1, *k], [1, *stride], [0, *b.ints("padding", 1)],
        [1, *b.ints("dilation", 1)], b["ceil_mode"],
    )
    return [e.v("aten.squeeze.dims", e.item(new, 0), [-2])]


def _atleast(e: Emitter, x: SSAValue, n: int) -> SSAValue:
    rank = _tensor(x).rank
    if rank >= n:
        return x
    if rank == 0:
        return e.v("aten.view.default", x, [1] * n)
    if n == 2:
        return e.v("aten.unsqueeze.default", x, 0)
    # 3-d: [n] -> [1, n, 1], [m, n] -> [m, n, 1]
    y = e.v("aten.unsqueeze.default", x, 0) if rank == 1 else x
    return e.v("aten.unsqueeze.default", y, -1)


@rule("aten.atleast_1d.default", "aten.atleast_2d.default", "aten.atleast_3d.default")
def _atleast_nd(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [_atleast(e, cast(SSAValue, b["self"]), int(op_name(op).split(".")[1][-2]))]


@rule("aten.vstack.default", "aten.row_stack.default", "aten.hstack.default", "aten.dstack.default",
      "aten.column_stack.default")
def _stacks(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    tensors = cast(list[SSAValue], b["tensors"])
    kind = op_name(op).split(".")[1]
    if kind in ("vstack", "row_stack"):
        return [e.v("aten.cat.default", [_atleast(e, t, 2) for t in tensors], 0)]
    if kind == "dstack":
        return [e.v("aten.cat.default", [_atleast(e, t, 3) for t in tensors], 2)]
    if kind == "column_stack":
        cols = [e.reshape(t, [_tensor(t).numel(), 1]) if _tensor(t).rank <= 1 else t for t in tensors]
        return [e.v("aten.cat.default", cols, 1)]
    ones = [_atleast(e, t, 1) for t in tensors]
    return [e.v("aten.cat.default", ones, 0 if all(_tensor(t).rank == 1 for t in ones) else 1)]


@rule("aten.var_mean.correction", "aten.var_mean.dim", "aten.var_mean.default")
def _var_mean(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`var.correction` and `mean.dim` over the same dims (an `unbiased` flag is correction 1 or 0)."""
    x = cast(SSAValue, b["self"])
    if not _tensor(x).element_dtype.is_floating_point:
        raise Decline()
    dim = b.get("dim")
    dims = None if dim is None else (b.ints("dim") if isinstance(dim, list) else [b.int("dim")])
    if "correction" in b:
        correction = b.get("correction")
        correction = 1 if correction is None else correction
    else:
        correction = 1 if b.get("unbiased", True) else 0
    keep = bool(b.get("keepdim", False))
    var = e.v("aten.var.correction", x, dims, correction=correction, keepdim=keep)
    mean = e.v("aten.mean.dim", x, dims if dims is not None else list(range(_tensor(x).rank)), keep)
    return [var, mean]


@rule("aten.instance_norm.default")
def _instance_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Input statistics per sample and channel over the spatial dims (biased variance),
    then the affine weight and bias per channel; running statistics are not updated."""
    if not b.get("use_input_stats"):
        raise Decline()  # evaluation with running statistics: a batch norm of them
    x = cast(SSAValue, b["input"])
    t = _tensor(x)
    if t.rank < 3 or not t.element_dtype.is_floating_point:
        raise Decline()
    dims = list(range(2, t.rank))
    stats = e.call("aten.var_mean.correction", x, dims, correction=0, keepdim=True)
    var, mean = e.item(stats, 0), e.item(stats, 1)
    out = e.v("aten.mul.Tensor", e.v("aten.sub.Tensor", x, mean),
              e.v("aten.rsqrt.default", e.v("aten.add.Tensor", var, b["eps"])))
    shape: list[SymSize] = [1] * t.rank
    shape[1] = t.sizes[1]
    if isinstance(b.get("weight"), SSAValue):
        out = e.v("aten.mul.Tensor", out, e.v("aten.view.default", b["weight"], e.sizes(shape)))
    if isinstance(b.get("bias"), SSAValue):
        out = e.v("aten.add.Tensor", out, e.v("aten.view.default", b["bias"], e.sizes(shape)))
    return [out]


# -- resampling, windows and ranges --------------------------------------------------------


@rule("aten.upsample_nearest1d.vec", "aten.upsample_nearest1d.default", "aten.upsample_nearest3d.vec",
      "aten.upsample_nearest3d.default")
def _upsample_nearest(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_decomp's nearest upsampling: per spatial dim, the source index
    `int(i * in / out)` (or `i / scale`) in float32, then one `index.Tensor`."""
    x = cast(SSAValue, b["input"] if "input" in b else b["self"])
    t = _tensor(x)
    n = t.rank - 2
    spatial = t.sizes[2:]
    if n < 1 or not all(isinstance(s, int) for s in spatial):
        raise Decline()
    sizes_in = cast(list[int], list(spatial))
    if "scale_factors" in b:
        out_arg, factors = b.get("output_size"), b.get("scale_factors")
        scales: list[float | None] = [None] * n
        if out_arg is not None:
            out = b.ints("output_size", n)
        elif factors is not None:
            fs = [float(f) for f in cast(list[float], factors)]
            out = [int(math.floor(s * f)) for s, f in zip(sizes_in, fs)]
            scales = list(fs)
        else:
            raise Decline()
    else:
        out = b.ints("output_size", n)
        names = ["scales"] if n == 1 else ["scales_d", "scales_h", "scales_w"]
        scales = [cast(float | None, b.get(k)) for k in names]
    device = DeviceAttr(t.device.data)
    indices: list[object] = [None, None]
    for d in range(n):
        scale = scales[d]
        ratio = 1.0 / scale if scale else sizes_in[d] / out[d]
        pos = e.v("aten.arange.start_step", 0, out[d], dtype=DType.float32, layout=Layout.strided, device=device,
                  pin_memory=False)
        idx = e.v("aten._to_copy.default", e.v("aten.mul.Tensor", pos, ratio), dtype=DType.int64)
        idx = e.v("aten.clamp.default", idx, None, sizes_in[d] - 1)
        if n - 1 - d:
            idx = e.v("aten.view.default", idx, [out[d]] + [1] * (n - 1 - d))
        indices.append(idx)
    return [e.v("aten.index.Tensor", x, indices)]


_WINDOWS = ("hann_window", "hamming_window", "blackman_window", "bartlett_window")


@rule(*(f"aten.{w}.{ov}" for w in _WINDOWS for ov in ("default", "periodic")))
def _window(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch's window functions over n = 0 .. N-1 with denominator N (periodic, the
    default) or N - 1, computed in float64 and converted."""
    length = b.int("window_length")
    dtype = b.dtype("dtype") or DType.float32
    device = b.get("device") or DeviceAttr("cpu")
    kind = op_name(op).split(".")[1]
    if length <= 1:
        return [e.v("aten.full.default", [length], 1.0, dtype=dtype, layout=Layout.strided, device=device,
                    pin_memory=False)]
    denom = length if b.get("periodic", True) else length - 1
    n = e.v("aten.arange.start_step", 0, length, dtype=DType.float64, layout=Layout.strided, device=device,
            pin_memory=False)
    if kind == "bartlett_window":
        w = e.v("aten.rsub.Scalar", e.v("aten.abs.default", e.v("aten.sub.Tensor", e.v("aten.mul.Tensor", n, 2.0 / denom), 1)), 1)
    else:
        c1 = e.v("aten.cos.default", e.v("aten.mul.Tensor", n, 2 * math.pi / denom))
        a0, a1 = {"hann_window": (0.5, 0.5), "hamming_window": (0.54, 0.46), "blackman_window": (0.42, 0.5)}[kind]
        w = e.v("aten.rsub.Scalar", e.v("aten.mul.Tensor", c1, a1), a0)
        if kind == "blackman_window":
            c2 = e.v("aten.cos.default", e.v("aten.mul.Tensor", n, 4 * math.pi / denom))
            w = e.v("aten.add.Tensor", w, e.v("aten.mul.Tensor", c2, 0.08))
    return [e.v("aten._to_copy.default", w, dtype=dtype)]


@rule("aten.range.step", "aten.range.default")
def _range(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`torch.range`: both ends included, `start + i * step` computed in double."""
    start, end, step = b["start"], b["end"], b.get("step", 1)
    if any(isinstance(v, SSAValue) for v in (start, end, step)):
        raise Decline()
    s, en, st = float(cast(float, start)), float(cast(float, end)), float(cast(float, step))
    if st == 0:
        raise Decline()
    count = max(int(math.floor((en - s) / st)) + 1, 0)
    dtype = b.dtype("dtype") or DType.float32
    device = b.get("device") or DeviceAttr("cpu")
    i = e.v("aten.arange.start_step", 0, count, dtype=DType.float64, layout=Layout.strided, device=device,
            pin_memory=False)
    values = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", i, st), s)
    return [e.v("aten._to_copy.default", values, dtype=dtype)]
