"""
Compile a graph once into a flat list of steps over a frame of slots.

Walking the IR per op (xDSL's `Interpreter`) pays for operand lookup in
dictionaries, implementation dispatch and argument decoding on every op of
every run. Here each op is *prepared* once: its implementation is chosen, its
constant arguments are decoded and bound to the schema, and what is left is a
callable taking the op's operand values. A graph becomes a list of
`(prepared, operand slots, result slots)` run over one Python list.

Implementations are registered per op class with `register_op`; a compiler
function sees the op and the `CompileContext` and returns the prepared
callable. Ops with regions compile their regions through the context: the
values of nested regions live in the same frame as the enclosing graph, so a
region may use values defined above it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any

import numpy as np
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.traits import MemoryEffectKind, get_effects

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import CallFunctionOp, GraphOp, OutputOp, ProgramOp
from xdsl_exir.semantics.kernels.registry import register_graph_compiler
from xdsl_exir.utils import op_registry
from xdsl_exir.utils.diagnostics import InterpreterError  # defined in the core (TorchScript builtins raise it too)

Prepared = Callable[..., tuple[Any, ...]]
"""Called with an op's operand values; returns one value per result."""

OpCompiler = Callable[[Operation, "CompileContext"], Prepared]
"""Called once per op when its graph is compiled."""

OpWrapper = Callable[[Prepared, Operation], Prepared]
"""
Given each prepared op and its op at compile time, returns what runs instead (a
profiler's timing wrapper). Applied when the graph is compiled, never per call,
so a run without one pays nothing.
"""

_COMPILERS: dict[type[Operation], OpCompiler] = {}
_RESOLVED: dict[type[Operation], OpCompiler | None] = {}

_EXTENSION_MODULES = (
    "xdsl_exir.interpreters.exir_functions",
    "xdsl_exir.interpreters.fx_functions",
    "xdsl_exir.interpreters.ts_functions",
    "xdsl_exir.interpreters.fusion_functions",
)
"""Modules whose import registers implementations (imported on first use)."""
_extensions_loaded = False


def register_op(*op_types: type[Operation]) -> Callable[[OpCompiler], OpCompiler]:
    """Register the compiler of `op_types` (subclasses inherit it)."""

    def register(fn: OpCompiler) -> OpCompiler:
        for t in op_types:
            _COMPILERS[t] = fn
        _RESOLVED.clear()
        return fn

    return register


_TERMINATORS: list[type[Operation]] = [OutputOp]
"""Ops ending a block whose operands are the block's results (`exir.output`, `prim.Return`)."""


def register_terminator(*op_types: type[Operation]) -> None:
    """Let blocks of another dialect end with `op_types` (their operands are the block's results)."""
    for t in op_types:
        if t not in _TERMINATORS:
            _TERMINATORS.append(t)


def _load_extensions() -> None:
    global _extensions_loaded
    if _extensions_loaded:
        return
    _extensions_loaded = True
    for name in _EXTENSION_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:
                raise


def truth(pred: Any) -> bool:
    """
    Python truth of a predicate: a one-element tensor or a scalar. It lives here, below
    the function modules, because the control flow of every dialect (`cond`,
    `while_loop`, FX calls, the framework interpreter) tests predicates the same way.
    """
    if isinstance(pred, np.ndarray):
        if pred.size != 1:
            raise InterpreterError(
                f"the truth value of a tensor of shape {list(pred.shape)} is ambiguous (a predicate needs one element)"
            )
        return bool(pred.reshape(()))
    return bool(pred)


def registered_op_types() -> frozenset[type[Operation]]:
    """
    Every op type with a registered compiler (its subclasses inherit it), the
    function modules loaded first: what xDSL's interpreter framework is given
    (`framework.ExirFunctions`).
    """
    _load_extensions()
    return frozenset(_COMPILERS)


def compiler_for(op_type: type[Operation]) -> OpCompiler | None:
    """The registered compiler of `op_type` or of its nearest base class."""
    _load_extensions()
    if op_type in _RESOLVED:
        return _RESOLVED[op_type]
    found = None
    for base in op_type.__mro__:
        if base in _COMPILERS:
            found = _COMPILERS[base]
            break
    _RESOLVED[op_type] = found
    return found


class _Step:
    """One prepared op and where its operands and results live in the frame."""

    __slots__ = ("prepared", "ins", "outs", "op")

    def __init__(self, prepared: Prepared, ins: tuple[int, ...], outs: tuple[int, ...], op: Operation):
        self.prepared = prepared
        self.ins = ins
        self.outs = outs
        self.op = op


class CompiledRegion:
    """
    A single-block region compiled to steps; called with its block arguments.

    The steps become one straight-line Python function over the frame
    (`f[5] = p3(f[1], f[2])[0]`, ...), generated from slot numbers only, so the
    per-op cost is a call and a few list accesses. A failure is mapped back to
    its op through the line number of the generated code.
    """

    _counter = 0

    def __init__(
        self,
        ctx: CompileContext,
        arg_slots: tuple[int, ...],
        steps: list[_Step],
        out_slots: tuple[int, ...],
        shared: set[int] | None = None,
        constants: dict[int, Any] | None = None,
    ):
        self._ctx = ctx
        self.arg_slots = arg_slots
        self.steps = steps
        self.out_slots = out_slots
        self._shared = shared or set()
        self.constants: dict[int, Any] = constants or {}
        """Values computed once, when the graph was compiled (`_hoistable_ops`), by slot."""
        self._fn, self._filename, self._first_line = self._generate()

    def _generate(self) -> tuple[Callable[[list[Any], Sequence[Any]], tuple[Any, ...]], str, int]:
        CompiledRegion._counter += 1
        filename = f"<exir-region-{CompiledRegion._counter}>"
        own = set(self.arg_slots) | {j for step in self.steps for j in step.outs}

        def read(j: int) -> str:
            if j in self.constants:
                return f"k{j}"
            return f"v{j}" if j in own else f"f[{j}]"  # captured values come from the frame

        def store(slots: Sequence[int]) -> list[str]:
            return [f"; f[{j}] = v{j}" for j in slots if j in self._shared]

        # Each local is deleted after its last use (a result nothing reads, at once): numpy
        # then reuses the freed blocks for the next results, which are still in cache,
        # instead of a run holding every intermediate until it returns -- a footprint the
        # allocator returns to the system at the end of each run and takes back, a page
        # fault per 4 KiB, on the next (a third of a convolutional model's time).
        last_use = {j: -1 for j in own if j not in self.out_slots}
        for i, step in enumerate(self.steps):
            for j in (*step.ins, *step.outs):
                if j in last_use:
                    last_use[j] = i
        dies: dict[int, list[int]] = {}
        for j, i in last_use.items():
            dies.setdefault(i, []).append(j)

        def drop(i: int) -> str:
            return f"; del {', '.join(f'v{j}' for j in sorted(dies[i]))}" if i in dies else ""

        lines = ["def run(f, args):"]
        if self.arg_slots:
            unpack = "".join(f"v{j}, " for j in self.arg_slots) + "= args"
            lines.append("    " + unpack + "".join(store(self.arg_slots)) + drop(-1))
        first_line = len(lines) + 1
        namespace: dict[str, Any] = {f"k{j}": v for j, v in self.constants.items()}
        for i, step in enumerate(self.steps):
            namespace[f"p{i}"] = step.prepared
            call = f"p{i}(" + ", ".join(read(j) for j in step.ins) + ")"
            if len(step.outs) == 1:
                line = f"v{step.outs[0]} = {call}[0]"
            elif step.outs:
                line = "".join(f"v{j}, " for j in step.outs) + f"= {call}"
            else:
                line = call
            lines.append("    " + line + "".join(store(step.outs)) + drop(i))
        lines.append("    return (" + "".join(f"{read(j)}, " for j in self.out_slots) + ")")
        exec(compile("\n".join(lines), filename, "exec"), namespace)
        return namespace["run"], filename, first_line

    def _failing_op(self, tb: TracebackType | None) -> Operation | None:
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self._filename:
                index = tb.tb_lineno - self._first_line
                if 0 <= index < len(self.steps):
                    return self.steps[index].op
            tb = tb.tb_next
        return None

    def run_in(self, frame: list[Any], args: Sequence[Any]) -> tuple[Any, ...]:
        if len(args) != len(self.arg_slots):
            raise InterpreterError(f"expected {len(self.arg_slots)} arguments, got {len(args)}")
        try:
            return self._fn(frame, args)
        except InterpreterError as e:
            if e.op is None:
                e.op = self._failing_op(e.__traceback__)
            raise
        except Exception as e:
            raise InterpreterError(describe_error(e), self._failing_op(e.__traceback__)) from e

    def __call__(self, *args: Any) -> tuple[Any, ...]:
        """Run in the frame of the innermost running graph (for nested regions)."""
        return self.run_in(self._ctx.frames[-1], args)


def describe_error(e: Exception) -> str:
    """An exception as an interpreter error's message: its text, led by its type unless it is a plain value error."""
    text = str(e) or type(e).__name__
    if isinstance(e, (ValueError, TypeError, IndexError, KeyError, ZeroDivisionError, FloatingPointError)):
        return text
    return f"{type(e).__name__}: {text}"


class CompiledGraph:
    """An `exir.graph` compiled once; each call gets a fresh frame."""

    def __init__(self, ctx: CompileContext, body: CompiledRegion, n_slots: int, name: str):
        self._ctx = ctx
        self.body = body
        self.n_slots = n_slots
        self.name = name

    def __call__(self, *args: Any) -> tuple[Any, ...]:
        frame: list[Any] = [None] * self.n_slots
        frames = self._ctx.frames
        outermost = not frames
        frames.append(frame)
        try:
            if outermost:
                # inf, nan and wrap-around are values, as in torch: numpy's warnings are
                # silenced once per run here rather than around every kernel call.
                with np.errstate(all="ignore"):
                    return self.body.run_in(frame, args)
            return self.body.run_in(frame, args)
        finally:
            frames.pop()

    @property
    def num_steps(self) -> int:
        return len(self.body.steps)


class CompileContext:
    """
    What op compilers see: the program's state, its graphs, and a way to
    compile the regions of the op being compiled.
    """

    def __init__(
        self,
        program: ProgramOp | None = None,
        state: dict[str, Any] | None = None,
        wrap_op: OpWrapper | None = None,
    ):
        self.program = program
        self.state: dict[str, Any] = state if state is not None else {}
        self.wrap_op = wrap_op
        self.frames: list[list[Any]] = []
        self._graphs: dict[str, CompiledGraph] = {}
        self._slots: dict[SSAValue, int] | None = None

    # -- graphs ---------------------------------------------------------------

    def lookup_graph(self, name: str) -> GraphOp:
        graph = self.program.lookup_graph(name) if self.program is not None else None
        if graph is None:
            raise InterpreterError(f"no graph named @{name} in the program")
        return graph

    def compile_graph(self, graph: GraphOp | str) -> CompiledGraph:
        """Compile a graph with its own frame (cached per name)."""
        if isinstance(graph, str):
            graph = self.lookup_graph(graph)
        name = graph.sym_name.data
        if name in self._graphs:
            return self._graphs[name]
        compiled = self.compile_function(graph.body.block, name)
        self._graphs[name] = compiled
        return compiled

    def compile_function(self, block: Block, name: str) -> CompiledGraph:
        """Compile a block with a frame of its own: a graph, a method, an isolated subgraph."""
        outer = self._slots
        self._slots = {}
        try:
            body = self._compile_block(block, hoist=True)
            return CompiledGraph(self, body, len(self._slots), name)
        finally:
            self._slots = outer

    def compile_region(self, region: Region) -> CompiledRegion:
        """Compile a region of the op being compiled, in the enclosing frame."""
        if self._slots is None:
            raise InterpreterError("compile_region called outside of a graph compilation")
        if len(region.blocks) != 1:
            raise InterpreterError(f"only single-block regions can run, got {len(region.blocks)} blocks")
        return self._compile_block(region.block)

    # -- internals ------------------------------------------------------------

    def _slot(self, value: SSAValue) -> int:
        assert self._slots is not None
        slot = self._slots.get(value)
        if slot is None:
            slot = self._slots[value] = len(self._slots)
        return slot

    def _compile_block(self, block: Block, hoist: bool = False) -> CompiledRegion:
        """The steps of `block`; with `hoist`, the ops `_hoistable_ops` finds run here, once,
        and their results become constants of the generated code."""
        assert self._slots is not None
        _load_extensions()
        terminators = tuple(_TERMINATORS)
        arg_slots = tuple(self._slot(a) for a in block.args)
        steps: list[_Step] = []
        out_slots: tuple[int, ...] = ()
        hoistable = _hoistable_ops(block, terminators) if hoist else set[Operation]()
        known: dict[int, Any] = {}
        hoisted_bytes = 0
        for op in block.ops:
            if isinstance(op, terminators):
                out_slots = tuple(self._lookup(v, op) for v in op.operands)
                break
            compile_fn = compiler_for(type(op))
            if compile_fn is None:
                raise InterpreterError(f"the interpreter has no implementation of '{op.name}'", op)
            ins = tuple(self._lookup(v, op) for v in op.operands)
            try:
                prepared = compile_fn(op, self)
            except InterpreterError as e:
                if e.op is None:
                    e.op = op
                raise
            except Exception as e:
                raise InterpreterError(f"cannot prepare this op: {describe_error(e)}", op) from e
            outs = tuple(self._slot(r) for r in op.results)
            if op in hoistable and all(j in known for j in ins):
                values = _run_once(prepared, [known[j] for j in ins], len(outs))
                size = sum(v.nbytes for v in values if isinstance(v, np.ndarray)) if values is not None else 0
                if values is not None and hoisted_bytes + size <= _HOISTED_MAX_BYTES:
                    hoisted_bytes += size
                    known.update(zip(outs, values))
                    continue
            if self.wrap_op is not None:
                prepared = self.wrap_op(prepared, op)
            steps.append(_Step(prepared, ins, outs, op))
        else:
            ends = " or ".join(t.name for t in terminators)
            raise InterpreterError(f"block does not end with {ends}", block.parent_op())
        # Values used only in this block live in locals of the generated code;
        # those a nested region reads also go to the frame.
        defined = [*block.args, *(r for op in block.ops for r in op.results)]
        shared = {
            self._slots[v] for v in defined if any(u.operation.parent_block() is not block for u in v.uses)
        }
        constants = {j: known[j] for step in steps for j in step.ins if j in known}
        return CompiledRegion(self, arg_slots, steps, out_slots, shared, constants)

    def _lookup(self, value: SSAValue, user: Operation) -> int:
        assert self._slots is not None
        slot = self._slots.get(value)
        if slot is None:
            raise InterpreterError("uses a value defined in another graph or after its use", user)
        return slot


_HOISTED_MAX_BYTES = 64 << 20
"""What a graph computes once at compile time, at most, in all, the intermediates counted
(the chain of a 1024 x 1024 causal mask takes 9 MiB): what is kept is held as long as the
compiled graph. What does not fit (a deep model building a long mask again in every
layer) is computed at each run, as it was written."""


def _repeatable(op: Operation) -> bool:
    """An operator call that computes the same value from the same operands every time:
    a registered operator, not random (torch's `nondeterministic_*` tags), that writes
    nothing (its only effects are reads: a function or a view)."""
    if isinstance(op, AtenOp):
        name = op.name
    elif isinstance(op, CallFunctionOp):
        name = op.target.data
    else:
        return False
    entry = op_registry.lookup(name)
    if entry is None or entry.nondeterministic or op.regions or not op.results:
        return False
    effects = get_effects(op)
    return effects is not None and all(e.kind is MemoryEffectKind.READ for e in effects)


def _hoistable_ops(block: Block, terminators: tuple[type[Operation], ...]) -> set[Operation]:
    """
    The ops of `block` whose results depend on no block argument (no user input, no
    parameter or buffer, which a caller may replace or a training graph write): a
    causal mask built from `arange` and `full`, a `scalar_tensor`. They are computed
    once, when the graph is compiled. A result of them must not reach what could
    write it or hand it out: so each is read only by other such ops or by side-effect
    free ops of the same block (which make new arrays), never by a view, an in-place
    op, a nested region or the block's results. The arrays kept are read-only besides.
    """
    found: set[Operation] = set()
    for op in block.ops:
        if _repeatable(op) and all(isinstance(v.owner, Operation) and v.owner in found for v in op.operands):
            found.add(op)
    changed = True
    while changed:
        changed = False
        for op in [o for o in block.ops if o in found]:
            inputs_kept = all(v.owner in found for v in op.operands)
            uses = (u.operation for r in op.results for u in r.uses)
            if inputs_kept and all(_private_use(user, block, found, terminators) for user in uses):
                continue
            found.discard(op)
            changed = True
    return found


def _private_use(
    user: Operation, block: Block, found: set[Operation], terminators: tuple[type[Operation], ...]
) -> bool:
    """`user` takes a hoisted value without handing it on: another hoisted op, or a
    side-effect free op of the same block (its result is a new array)."""
    if user in found:
        return True
    if user.parent_block() is not block or isinstance(user, terminators):
        return False
    effects = get_effects(user)
    return effects is not None and not effects


def _run_once(prepared: Prepared, args: list[Any], n_results: int) -> tuple[Any, ...] | None:
    """The results of a hoisted op, computed now and made read-only, or None when it is
    better left to run time: it raises (its error is then located at run time, as
    without hoisting), or a result is neither a tensor nor a number. (A
    writable view, of memory a kernel may keep, is kept as a copy: a view of the
    read-only operands is read-only.)"""
    try:
        with np.errstate(all="ignore"):
            values = list(prepared(*args))
    except Exception:
        return None
    if len(values) != n_results:
        return None
    for i, v in enumerate(values):
        if isinstance(v, np.ndarray):
            if v.base is not None and v.flags.writeable:
                values[i] = v = v.copy()
            v.flags.writeable = False
        elif type(v) not in (int, float, bool):
            return None
    return tuple(values)


def _compile_decomposed(block: Block, name: str) -> CompiledGraph:
    """A decomposed operator's one-op graph, compiled as any graph is."""
    return CompileContext().compile_function(block, name)


# The kernel of an operator without a numpy kernel of its own runs its decomposed graph
# through this compiler, a layer above the kernels: it is registered as the compiler loads.
register_graph_compiler(_compile_decomposed)
