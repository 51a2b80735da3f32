"""
The `torch.compile` backend `exir`: Dynamo's graphs on IREE's native code or the numpy interpreter.

    compiled = torch.compile(model, backend="exir", options={"backend": "iree", "threads": 1})

The name is registered through torch's `torch_dynamo_backends` entry point, so
nothing of ours needs importing. The path follows "Model capturing mechanisms
in PyTorch": Dynamo captures the bytecode into an FX graph and hands it here;
AOTAutograd (`aot_autograd`, with torch's core ATen decompositions)
functionalizes it into ATen graphs, a forward and, when something requires a
gradient, a backward, and calls our compiler on each. Each graph is imported
with the live importer (`torch_live.import_graph_module`), optionally run
through a pass pipeline (`options["pipeline"]`, exir-opt's `-p` syntax), and
compiled by IREE or prepared by the interpreter. AOTAutograd itself keeps
autograd's bookkeeping (saved tensors, `requires_grad` of the outputs, input
mutations), so `loss.backward()` and optimizer steps work unchanged.

Options (`torch.compile(..., options={...})`):

- `backend`: `"iree"` (the default when IREE is installed) or `"interpreter"`;
- `pipeline`: passes run on every imported graph before it runs or lowers;
- `threads`: the most IREE worker threads (a program under `runtime.CALLER_BELOW_FLOPS`
  runs on the calling thread), or numpy's BLAS threads on the interpreter.

Partitioning. An operator the chosen backend refuses (IREE: no lowering rule
or decomposition; the interpreter: no kernel) runs in eager torch: torch's
`CapabilityBasedPartitioner` cuts the graph into the largest pieces of
supported operators, each compiled as its own program, and the refused
operators stay as ordinary ATen calls between them. Eager torch rather than
the interpreter is the fallback because it is the reference itself (a
refused operator then gives exactly eager's answer, gradients included) and
because an operator the interpreter refuses has no other home. A piece the
IREE compiler still refuses (a lowering that declines a particular shape or
attribute) runs on the interpreter instead, and a piece the importer or the
interpreter cannot take runs in eager torch. Every such decision is logged on
the `xdsl_exir.torch_compile` logger and kept for `report()`.

Dynamic shapes. With `dynamic=True` (or `torch._dynamo.mark_dynamic`) the
placeholders carry Dynamo's symbols (`s77`); they become the program's named
size symbols with Dynamo's ranges, and `shape-propagation` re-types the graph,
so one compiled program serves every size in range (IREE compiles `?`
dimensions). A graph the propagation cannot type symbolically is compiled per
distinct input shape instead (logged). Guards and recompilation stay Dynamo's
business; IREE's on-disk cache makes a second process start warm.

Tensors cross without copies. A piece IREE compiled with static types (the
common case) hands IREE each tensor through DLPack, IREE reading the tensor's
own memory, and its results come back as torch tensors over IREE's buffers,
DLPack again (`_FastCall`): no numpy array and no per-tensor conversion on the
way. The parameters and buffers Dynamo lifts to graph inputs (AOTAutograd's
static inputs) are imported once and their views kept: IREE reads their live
memory, so a weight changed in place in any way is read as it is at each
call, and one whose memory moved (`.data = other`) is imported again (each
call compares the addresses). The other pieces, and the interpreter, take
numpy views of the tensors (`Tensor.numpy()`) and give `torch.from_numpy` of
the results, with eager's dtype.
"""

from __future__ import annotations

import bisect
import logging
import math
import operator
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import torch
import torch.fx
from threadpoolctl import ThreadpoolController
from torch.utils import _pytree as pytree
from torch.utils import dlpack
from xdsl.dialects.builtin import ModuleOp
from xdsl.rewriter import Rewriter

from xdsl_exir.api import ExirError, Program
from xdsl_exir.dialects.exir import SymIntType, TensorType
from xdsl_exir.frontends.torch_compat import (
    aot_autograd,
    core_aten_decompositions,
    is_higher_order_operator,
    is_op_overload,
    mark_wrapped_backward_compiler,
    static_input_indices,
    unset_fake_temporarily,
)
from xdsl_exir.frontends.torch_live import import_graph_module, qualified_name, torch_dtype
from xdsl_exir.interpreters.program import ProgramRunner, find_program
from xdsl_exir.semantics.decompositions import RULES as DECOMPOSITIONS
from xdsl_exir.semantics.kernels import has_kernel
from xdsl_exir.targets.iree import CompiledProgram, IreeOptions, compile_program, iree_available
from xdsl_exir.tools.run_program import message
from xdsl_exir.transforms.linalg_lowering import rule_for
from xdsl_exir.transforms.shape_propagation import propagate_program
from xdsl_exir.utils.dtypes import cast_array
from xdsl_exir.utils.op_registry import custom_operator
from xdsl_exir.utils.symbolic import SymExprError, make_symbol, parse_python_expr, sympy

__all__ = ["BackendOptions", "GraphReport", "exir_backend", "report", "reports", "reset_reports"]

log = logging.getLogger("xdsl_exir.torch_compile")

BACKENDS = ("iree", "interpreter")


# ---------------------------------------------------------------------------
# Options and the report
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class BackendOptions:
    """What `torch.compile(..., options=...)` may say to this backend."""

    backend: str = ""
    """`iree` or `interpreter`; empty: IREE when it is installed, else the interpreter."""
    pipeline: str = ""
    threads: int | None = None

    @staticmethod
    def from_dict(options: dict[str, Any] | None) -> BackendOptions:
        options = dict(options or {})
        unknown = sorted(set(options) - {"backend", "pipeline", "threads"})
        if unknown:
            raise ExirError(
                f"torch.compile(backend='exir'): unknown option {', '.join(map(repr, unknown))} "
                "(options: backend, pipeline, threads)"
            )
        backend = str(options.get("backend") or ("iree" if iree_available() else "interpreter"))
        if backend not in BACKENDS:
            raise ExirError(f"torch.compile(backend='exir'): options['backend'] is {backend!r}; use 'iree' or 'interpreter'")
        threads = options.get("threads")
        if threads is not None and (not isinstance(threads, int) or isinstance(threads, bool) or threads < 1):
            raise ExirError(f"torch.compile(backend='exir'): options['threads'] must be a positive int, got {threads!r}")
        return BackendOptions(backend, str(options.get("pipeline") or ""), threads)


@dataclass
class PieceReport:
    """One compiled piece of a graph: where it runs and why."""

    runs_on: str
    """`iree`, `interpreter` or `eager`."""
    nodes: int
    reason: str = ""


@dataclass
class GraphReport:
    """The decisions for one graph AOTAutograd handed over."""

    kind: str
    """`forward`, `backward` or `inference`."""
    requested: str
    nodes: int
    pieces: list[PieceReport] = field(default_factory=list[PieceReport])
    eager_ops: dict[str, int] = field(default_factory=dict[str, int])
    """Operators left to eager torch by the partitioner, with their counts."""
    dynamic: bool = False
    seconds: float = 0.0

    def line(self) -> str:
        where = ", ".join(f"{p.runs_on} ({p.nodes} nodes{': ' + p.reason if p.reason else ''})" for p in self.pieces)
        eager = ""
        if self.eager_ops:
            eager = "; eager torch: " + ", ".join(f"{k} x{v}" if v > 1 else k for k, v in sorted(self.eager_ops.items()))
        shapes = ", symbolic sizes" if self.dynamic else ""
        return f"{self.kind} graph ({self.nodes} nodes{shapes}, {self.seconds:.2f} s): {where or 'nothing to run'}{eager}"


_REPORTS: list[GraphReport] = []


def reports() -> list[GraphReport]:
    """Every graph compiled in this process so far, in order."""
    return list(_REPORTS)


def report() -> str:
    """The partition decisions as text, one line per compiled graph."""
    return "\n".join(r.line() for r in _REPORTS) or "no graph compiled by the exir backend yet"


def reset_reports() -> None:
    _REPORTS.clear()


# ---------------------------------------------------------------------------
# The backend
# ---------------------------------------------------------------------------


def exir_backend(gm: torch.fx.GraphModule, example_inputs: Sequence[Any], options: dict[str, Any] | None = None) -> Any:
    """The Dynamo backend: AOTAutograd with our compiler for the forward, backward and inference graphs."""
    opts = BackendOptions.from_dict(options)

    def compiler(kind: str) -> Callable[[torch.fx.GraphModule, Sequence[Any]], Any]:
        def compile_graph(graph: torch.fx.GraphModule, inputs: Sequence[Any]) -> Any:
            return compile_fx_graph(graph, inputs, opts, kind)

        return compile_graph

    def compile_backward(graph: torch.fx.GraphModule, inputs: Sequence[Any]) -> _Boxed:
        # Kept out of Dynamo's tracing as AOTAutograd's own wrapper would (the
        # compiler and the backward it returns); wrapping it here keeps the
        # boxed calling convention, which that wrapper hides.
        compiled = compile_fx_graph(graph, inputs, opts, "backward")
        return _Boxed(torch.compiler.disable(compiled.fn, reason="a backward compiled by exir"))

    backward = torch.compiler.disable(compile_backward, reason="the exir backward compiler")
    mark_wrapped_backward_compiler(backward)

    return aot_autograd(
        fw_compiler=compiler("forward"),
        bw_compiler=backward,
        inference_compiler=compiler("inference"),
        decompositions=core_aten_decompositions(),
    )(gm, example_inputs)


def compile_fx_graph(gm: torch.fx.GraphModule, example_inputs: Sequence[Any], opts: BackendOptions, kind: str = "inference") -> _Boxed:
    """
    One ATen graph (fake or real example inputs) as a boxed callable, as
    AOTAutograd calls its compilers' results: the refused operators left to
    eager torch, the rest compiled.
    """
    start = time.perf_counter()
    nodes = [n for n in gm.graph.nodes if n.op not in ("placeholder", "output")]
    rep = GraphReport(kind, opts.backend, len(nodes))
    # The module's parameters and buffers among the inputs (a backward's inputs are saved tensors).
    static = frozenset(static_input_indices()) if kind != "backward" else frozenset[int]()
    with unset_fake_temporarily():  # AOTAutograd calls compilers under its fake mode; ours run real tensors
        supported = _Support(gm, opts.backend)
        refused = [n for n in nodes if not supported(n)]
        if not refused:
            fn: Callable[..., Any] = _compile_piece(gm, list(example_inputs), opts, rep, static)
        else:
            for n in refused:
                name = _op_name(n)
                rep.eager_ops[name] = rep.eager_ops.get(name, 0) + 1
            fn = _partition(gm, list(example_inputs), supported, opts, rep, static)
    rep.seconds = time.perf_counter() - start
    _REPORTS.append(rep)
    log.info("exir: %s", rep.line())
    return _Boxed(fn)


class _Boxed:
    """
    AOTAutograd's boxed calling convention: one list of arguments, which the callee
    frees. The backward compiler's result is wrapped by Dynamo's `disable`, which
    hides the `_boxed_call` mark, and is then called with the arguments unpacked:
    both forms are taken (graph inputs are tensors and scalars, never lists).
    """

    _boxed_call = True

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn

    def __call__(self, *args: Any) -> Any:
        if len(args) == 1 and isinstance(args[0], list):
            boxed = cast(list[Any], args[0])
            args = tuple(boxed)
            boxed.clear()
        return self.fn(*args)


# ---------------------------------------------------------------------------
# Partitioning
# ---------------------------------------------------------------------------


def _op_name(node: torch.fx.Node) -> str:
    return qualified_name(cast(Callable[..., Any], node.target)) if node.op == "call_function" else node.op


class _Support:
    """Whether a node can run on the backend: an ATen overload it has a rule (or kernel) for, or glue."""

    def __init__(self, gm: torch.fx.GraphModule, backend: str) -> None:
        self.gm = gm
        self.backend = backend

    def __call__(self, node: torch.fx.Node) -> bool:
        if node.op == "get_attr":  # a tensor constant; a subgraph of a higher-order op goes with the op
            return isinstance(getattr(self.gm, cast(str, node.target), None), torch.Tensor)
        if node.op != "call_function":
            return False  # placeholders and the output belong to the enclosing graph
        target = node.target
        if is_higher_order_operator(target):
            return False  # cond / while_loop / map: their subgraphs are attributes the live importer cannot read yet
        if not is_op_overload(target):
            return True  # getitem, SymInt arithmetic: the importer and interpreter take them
        name = _op_name(node)
        if self.backend == "iree":
            return rule_for(name) is not None or name in DECOMPOSITIONS
        return has_kernel(name) or custom_operator(name) is not None


def _partition(
    gm: torch.fx.GraphModule,
    example_inputs: list[Any],
    supported: _Support,
    opts: BackendOptions,
    rep: GraphReport,
    static: frozenset[int] = frozenset(),
) -> Callable[..., Any]:
    """
    The supported pieces of `gm` fused into submodules (torch's capability-based
    partitioner), each replaced by its compiled program; the rest stays eager. A
    piece's input that is one of `gm`'s `static` inputs (a parameter) is static in
    the piece too.
    """
    from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
    from torch.fx.passes.operator_support import OperatorSupportBase

    class Support(OperatorSupportBase):
        def is_node_supported(self, submodules: Any, node: torch.fx.Node) -> bool:
            return supported(node)

    partitioner = CapabilityBasedPartitioner(gm, Support(), allows_single_node_partition=True)
    partitions = partitioner.propose_partitions()
    fused = partitioner.fuse_partitions(partitions)
    names = cast(list[str], [n.target for n in fused.graph.nodes if n.op == "call_module"])
    # Each piece's inputs as the partitioner recorded them (FakeTensors with Dynamo's
    # symbols, so a dynamic piece stays dynamic); else recorded from a run on stand-ins.
    pieces = {name: cast(torch.fx.GraphModule, fused.get_submodule(name)) for name in names}
    piece_inputs = {
        name: [n.meta.get("val") for n in sub.graph.nodes if n.op == "placeholder"] for name, sub in pieces.items()
    }
    if any(v is None for inputs in piece_inputs.values() for v in inputs):
        piece_inputs = _record_module_inputs(fused, [_materialize(x) for x in example_inputs], set(names))
    eager_nodes = rep.nodes - sum(len(p.nodes) for p in partitions)
    rep.pieces.append(PieceReport("eager", eager_nodes, "operators the backend refuses"))
    static_nodes = {n for i, n in enumerate(fused.graph.find_nodes(op="placeholder")) if i in static}
    piece_static = {
        cast(str, n.target): frozenset(k for k, a in enumerate(n.args) if a in static_nodes)
        for n in fused.graph.find_nodes(op="call_module")
    }
    for name, sub in pieces.items():
        fn = _compile_piece(sub, piece_inputs[name], opts, rep, piece_static.get(name, frozenset()))
        fused.add_submodule(name, _Piece(fn))
    fused.recompile()
    return fused


class _Piece(torch.nn.Module):
    """A compiled piece in the partitioned graph module."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: Any) -> Any:
        return self.fn(*args)


def _record_module_inputs(gm: torch.fx.GraphModule, inputs: list[Any], names: set[str]) -> dict[str, list[Any]]:
    """The arguments each of the named submodules receives when `gm` runs on `inputs`."""
    seen: dict[str, list[Any]] = {}

    class Recorder(torch.fx.Interpreter):
        def call_module(self, target: Any, args: Any, kwargs: Any) -> Any:
            if target in names:
                seen[target] = list(args)
            return super().call_module(target, args, kwargs)

    with torch.no_grad():
        Recorder(gm).run(*inputs)
    return seen


# ---------------------------------------------------------------------------
# One piece: import, type, compile
# ---------------------------------------------------------------------------


def _materialize(value: Any) -> Any:
    """
    A real value standing for a fake example input (ones of its dtype, at its size
    hint, with its strides): the importer types a graph by running it once. Ones
    rather than zeros: an integer division or an index must not fail on the
    stand-in. The strides matter: a backward graph takes saved activations laid
    out as the forward left them, and a `view` of a pointwise result (which
    follows its inputs' layout) fails on a contiguous stand-in where the real
    input makes it contiguous (ConvNeXt's layer-scale gradient).
    """
    if isinstance(value, torch.Tensor):
        shape = [_hint(s) for s in value.shape]
        strides = [_hint(s) for s in value.stride()]
        if any(n == 0 for n in shape):
            return torch.ones(shape, dtype=value.dtype)
        span = 1 + sum((n - 1) * abs(st) for n, st in zip(shape, strides))
        return torch.ones(span, dtype=value.dtype).as_strided(shape, strides)
    if isinstance(value, torch.SymInt | torch.SymFloat | torch.SymBool):
        return _hint(value)
    return value


def _hint(value: Any) -> Any:
    if isinstance(value, torch.SymInt):
        return int(value.node.hint) if value.node.hint is not None else int(value.node.shape_env.size_hint(value.node.expr))
    if isinstance(value, torch.SymFloat):
        return float(value.node.hint)
    if isinstance(value, torch.SymBool):
        return bool(value.node.hint)
    return value


def _symbolic_inputs(example_inputs: Sequence[Any]) -> tuple[dict[int, Any], dict[sympy.Symbol, tuple[float, float]]] | None:
    """
    The placeholders' types in our symbols where Dynamo made sizes symbolic, and
    the symbols' ranges; None when every size is static (or an expression cannot be read).
    """
    types: dict[int, Any] = {}
    ranges: dict[sympy.Symbol, tuple[float, float]] = {}
    for i, value in enumerate(example_inputs):
        if isinstance(value, torch.Tensor):
            sizes = list(value.shape)
            if all(isinstance(s, int) for s in sizes):
                continue
            converted = [_to_ours(s, ranges) for s in sizes]
            if any(c is None for c in converted):
                return None
            types[i] = TensorType(tuple(cast(list[Any], converted)), torch_dtype(value.dtype), str(value.device))
        elif isinstance(value, torch.SymInt):
            expr = _to_ours(value, ranges)
            if expr is None:
                return None
            types[i] = SymIntType(expr)
    return (types, ranges) if types else None


def _to_ours(size: Any, ranges: dict[sympy.Symbol, tuple[float, float]]) -> Any:
    """A Dynamo size (int or SymInt) in the project's symbols, its free symbols' ranges added."""
    if isinstance(size, int):
        return size
    node = size.node
    expr = node.expr
    try:
        ours = parse_python_expr(str(expr))
    except SymExprError:
        return None
    if isinstance(ours, sympy.Integer):
        return int(ours)
    shape_env = node.shape_env
    for sym in expr.free_symbols:
        vr = shape_env.var_to_range.get(sym)
        lo: float = 0
        hi: float = math.inf
        if vr is not None:
            lo, hi = _finite(vr.lower, -math.inf), _finite(vr.upper, math.inf)
        ranges[make_symbol(str(sym))] = (lo, hi)
    return ours


def _finite(bound: Any, infinite: float) -> float:
    """A range bound as an int; torch's `int_oo` (an integer to sympy, but no number) as infinity."""
    try:
        return int(bound)
    except (TypeError, ValueError, AttributeError, OverflowError):
        return infinite


def _import(gm: torch.fx.GraphModule, real_inputs: list[Any], opts: BackendOptions, outputs: _Outputs) -> ModuleOp:
    """The graph as a program returning only its node outputs (the constants are put back by `_Outputs`)."""
    out_node = outputs.node
    saved = out_node.args
    out_node.args = (tuple(outputs.nodes),)
    try:
        module = import_graph_module(gm, real_inputs)
    finally:
        out_node.args = saved
    if opts.pipeline:
        module = Program(module).apply(opts.pipeline).module
    return module


def _make_symbolic(module: ModuleOp, symbolic: tuple[dict[int, Any], dict[sympy.Symbol, tuple[float, float]]]) -> None:
    """Dynamo's symbols on the placeholders, then every type re-inferred from them (`shape-propagation`)."""
    types, ranges = symbolic
    program = find_program(module)
    entry = program.entry
    assert entry is not None
    names = [spec.arg_name.data for spec in program.inputs.data]  # the importer's inputs are all user inputs
    tensors: dict[str, TensorType] = {}
    for i, t in types.items():
        if isinstance(t, TensorType):
            tensors[names[i]] = t
        else:  # a SymInt placeholder: the propagation re-types tensors only, so its value is set here
            Rewriter.replace_value_with_new_type(entry.body.block.args[i], t)
    propagate_program(program, tensors, ranges)
    module.verify()


def _compile_piece(
    gm: torch.fx.GraphModule,
    example_inputs: list[Any],
    opts: BackendOptions,
    rep: GraphReport,
    static: frozenset[int] = frozenset(),
) -> Callable[..., Any]:
    """
    One graph (or partition) compiled, with IREE -> interpreter -> eager as the
    fallbacks, each logged; `static` are the inputs that are the module's
    parameters and buffers.
    """
    nodes = sum(1 for n in gm.graph.nodes if n.op not in ("placeholder", "output"))
    real = [_materialize(x) for x in example_inputs]
    outputs = _Outputs(gm)
    try:
        module = _import(gm, real, opts, outputs)
    except Exception as e:
        reason = f"the importer refused it: {_first_line(e)}"
        log.warning("exir: a %s piece runs in eager torch, %s", rep.kind, reason)
        rep.pieces.append(PieceReport("eager", nodes, reason))
        return gm
    symbolic = _symbolic_inputs(example_inputs)
    if symbolic is not None:
        try:
            _make_symbolic(module, symbolic)
            rep.dynamic = True
        except Exception as e:
            reason = f"sizes specialized per call, shape-propagation refused the symbols: {_first_line(e)}"
            log.warning("exir: %s", reason)
            rep.pieces.append(PieceReport(opts.backend, nodes, reason))
            return _PerShape(gm, opts, outputs)
    runner, runs_on, reason = _runner(module, opts)
    if runner is None:
        log.warning("exir: a %s piece runs in eager torch: %s", rep.kind, reason)
        rep.pieces.append(PieceReport("eager", nodes, reason))
        return gm
    if reason:
        log.warning("exir: a %s piece runs on the %s: %s", rep.kind, runs_on, reason)
    rep.pieces.append(PieceReport(runs_on, nodes, reason))
    return _Native(runner, outputs, opts.threads if runs_on == "interpreter" else None, static)


def _runner(module: ModuleOp, opts: BackendOptions) -> tuple[ProgramRunner | CompiledProgram | None, str, str]:
    """The program on the requested backend, else the interpreter, else nothing (eager); and why."""
    reason = ""
    if opts.backend == "iree":
        try:
            return compile_program(module, IreeOptions(threads=opts.threads)), "iree", ""
        except Exception as e:
            reason = f"IREE refused it ({_first_line(message(e, module, 'lowering'))})"
    try:
        return ProgramRunner(module), "interpreter", reason
    except Exception as e:
        return None, "eager", (reason + "; " if reason else "") + f"the interpreter refused it ({_first_line(e)})"


def _first_line(e: BaseException | str) -> str:
    text = e if isinstance(e, str) else (str(e) or type(e).__name__)
    return text.strip().splitlines()[0] if text.strip() else type(e).__name__


class _Outputs:
    """
    A graph's output structure: the nodes the program returns, and the constants
    (the `None` gradients of a backward, SymInts fixed at trace time) put back
    around them; each tensor converted to the dtype eager gives (the node's
    FakeTensor metadata).
    """

    def __init__(self, gm: torch.fx.GraphModule) -> None:
        self.node = next(n for n in gm.graph.nodes if n.op == "output")
        leaves, self.spec = pytree.tree_flatten(self.node.args[0])
        self.leaves: list[Any] = leaves
        self.nodes: list[torch.fx.Node] = [v for v in leaves if isinstance(v, torch.fx.Node)]
        self.dtypes: list[torch.dtype | None] = [_dtype_of(n) for n in self.nodes]
        placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        self.inputs: list[int | None] = [placeholders.index(n) if n.op == "placeholder" else None for n in self.nodes]
        """Per returned node, the argument it is when it is a placeholder (a forward saving a parameter)."""
        self.constants = len(self.nodes) != len(leaves)
        returned = self.node.args[0]
        self.flat: type[tuple[Any, ...]] | type[list[Any]] | None = None
        """The output's type when it is a plain tuple or list of nodes (most graphs): no pytree to rebuild."""
        if type(returned) in (tuple, list) and all(isinstance(v, torch.fx.Node) for v in returned):
            self.flat = type(returned)

    def build(self, values: Sequence[Any]) -> Any:
        """The outputs from the program's results (numpy arrays and scalars)."""
        return self.assemble([_to_torch(v, d) for v, d in zip(values, self.dtypes)])

    def assemble(self, values: Sequence[Any]) -> Any:
        """The outputs' pytree from one torch value per returned node, the constants put back."""
        if self.flat is not None:
            return self.flat(values)
        if not self.constants:
            return pytree.tree_unflatten(list(values), self.spec)
        converted = iter(values)
        flat = [next(converted) if isinstance(leaf, torch.fx.Node) else leaf for leaf in self.leaves]
        return pytree.tree_unflatten(flat, self.spec)


def _dtype_of(node: torch.fx.Node) -> torch.dtype | None:
    val = node.meta.get("val")
    return val.dtype if isinstance(val, torch.Tensor) else None


_THREADS = ThreadpoolController()


class _Native:
    """A compiled program called with torch values: numpy views in, `torch.from_numpy` out."""

    def __init__(
        self,
        runner: ProgramRunner | CompiledProgram,
        outputs: _Outputs,
        blas_threads: int | None,
        static: frozenset[int] = frozenset(),
    ) -> None:
        self.runner = runner
        # A CompiledProgram's call takes its checks prepared at load time (`ProgramRunner.run` where they do not apply).
        self.run: Callable[[list[Any]], list[Any]] = (
            runner.run if isinstance(runner, ProgramRunner) else lambda inputs: runner(*inputs)
        )
        self.outputs = outputs
        self.blas_threads = blas_threads
        self.fast = _FastCall.build(runner.fast_plan, outputs, static) if isinstance(runner, CompiledProgram) else None

    def __call__(self, *args: Any) -> Any:
        fast = self.fast
        if fast is not None:
            try:
                out = fast(args)
            except Exception as e:  # the general path below reruns the call and reports what it finds
                log.warning("exir: a compiled piece leaves its fast call path: %s", _first_line(e))
                out = None
            if out is not None:
                return out
            self.fast = None  # a call it could not take: the next ones would not either
        inputs = [_to_numpy(a) for a in args]
        try:
            if self.blas_threads is not None:
                with _THREADS.limit(limits=self.blas_threads, user_api="blas"):
                    results = self.run(inputs)
            else:
                results = self.run(inputs)
        except Exception as e:
            raise ExirError(message(e, None, "torch.compile(backend='exir')")) from None
        return self.outputs.build(results)


_to_dlpack: Callable[[torch.Tensor], Any] = dlpack.to_dlpack  # pyright: ignore[reportPrivateImportUsage] - torch's documented to_dlpack, re-exported from torch._C


class _FastCall:
    """
    The per-call work of a piece IREE compiled with static types, cut to what a
    call needs: each tensor goes to IREE as a view of its own memory (DLPack,
    `IreeExecutor.import_dlpack`) and each result comes back as a torch tensor
    over IREE's buffer (DLPack again), with no numpy array, copy or per-tensor
    Python conversion between.

    The module's parameters and buffers (the inputs AOTAutograd calls static)
    are imported once and their views kept (`_Bound`). A view is the tensor's
    memory, not a copy of its values, so a weight changed in place in any way
    (an optimizer step, an in-place op, `.data`, a numpy view, none of which
    need bump a version counter) is read as it is at the next call. What a kept
    view cannot follow is a tensor whose memory moved (`.data = other`): each
    call compares every static input's address with the one its view was made
    from and imports again where they differ. An equal address is the same
    bytes: the sizes, strides, dtype and the negative and conjugate bits are
    Dynamo's tensor guards on the parameter (a change recompiles, and this
    piece is not called), and a view is made again whenever the address
    differs, whatever memory the tensor had in between. The other inputs are
    imported at each call (no copy either), and nothing of theirs is kept.

    A tensor IREE cannot read in place (not C-contiguous, not aligned to 64
    bytes, a negative or conjugate bit) is copied to a fresh contiguous tensor
    for the call, and a static one is then handled as the other inputs (a copy
    is never kept). A result sharing an argument's memory (IREE may return an
    argument it found unchanged) is copied, so no output aliases an input that
    eager's would not; a returned placeholder is its argument itself, as the
    graph module returns it. A call IREE refuses (tensors not of the compiled
    dtypes and sizes: its entry checks the inputs not kept) or whose results
    are not of eager's dtypes (checked at the first call) goes to the general
    path, which converts or refuses, as it always did.
    """

    def __init__(self, plan: Any, outputs: _Outputs, static: frozenset[int]) -> None:
        self.executor = plan.executor
        self.nbytes = [math.prod(shape) * dtype.itemsize for dtype, shape in plan.inputs]
        self.count = len(self.nbytes)
        self.outputs = outputs
        self.out_dtypes = [_torch_dtype_of(want[0]) for want in plan.outputs]
        self.as_uint8: list[bool] | None = None
        """Per result, whether IREE's signless bytes are viewed as uint8; None until the first call's results were checked."""
        self.bound = _Bound([i for i in sorted(static) if i < self.count], self.count)

    @staticmethod
    def build(plan: Any, outputs: _Outputs, static: frozenset[int] = frozenset()) -> _FastCall | None:
        """The fast path for a plan whose inputs are all user tensors and whose results are all tensors."""
        if plan is None or not all(i >= 0 for i, _ in plan.placeholders) or not plan.executor.views_callable:
            return None
        # The dtypes DLPack carries as they are (bfloat16 and float8 cross as ml_dtypes arrays on the general path).
        dtypes = [want[0] if want is not None else None for want in plan.outputs] + [d for d, _ in plan.inputs]
        if any(d is None or _torch_dtype_of(d) not in _NUMPY_DTYPES for d in dtypes):
            return None
        return _FastCall(plan, outputs, static)

    def import_tensor(self, t: torch.Tensor) -> tuple[Any, torch.Tensor] | None:
        """
        An IREE view of a tensor's memory, and the tensor it is of: `t` itself, or
        a contiguous copy where IREE cannot read `t` in place; None for a tensor
        the fast path does not take (not on the CPU).
        """
        if not t.is_cpu:
            return None
        if t.is_neg() or t.is_conj():  # bits DLPack does not carry: materialized
            t = t.resolve_conj().resolve_neg()
        executor = self.executor
        if t.data_ptr() % 64 == 0 and t.is_contiguous():
            try:
                return executor.import_dlpack(_to_dlpack(t)), t
            except Exception:
                pass
        t = torch.empty(t.shape, dtype=t.dtype).copy_(t)  # contiguous, and aligned by torch's allocator
        try:
            return executor.import_dlpack(_to_dlpack(t)), t
        except Exception:
            return None

    def __call__(self, args: Sequence[Any]) -> Any:
        """The outputs' pytree, or None where the call needs the general path."""
        if len(args) != self.count:
            return None
        bound = self.bound
        if list(map(_data_ptr, bound.pick(args))) != bound.addresses:
            rebound = bound.rebind(self, args)
            if rebound is None:
                return None
            bound = self.bound = rebound
        views = bound.views.copy()
        spans: list[tuple[int, int]] = []
        nbytes = self.nbytes
        # Dtypes and sizes are not checked here: Dynamo's guards did, and IREE checks
        # each argument not kept against its signature again (a mismatch raises, and
        # the general path takes the call).
        for i in bound.dynamic:
            t = args[i]
            if not isinstance(t, torch.Tensor) or (imported := self.import_tensor(t)) is None:
                return None
            views[i], t = imported
            ptr = t.data_ptr()
            spans.append((ptr, ptr + nbytes[i]))
        tensors = [torch.from_dlpack(capsule) for capsule in self.executor.call_views(views)]
        del views
        as_uint8 = self.as_uint8
        if as_uint8 is None:
            as_uint8 = self.check_dtypes(tensors)
            if as_uint8 is None:
                return None
        results: list[Any] = []
        for t, uint8, arg in zip(tensors, as_uint8, self.outputs.inputs):
            if arg is not None:
                results.append(args[arg])
                continue
            if uint8:
                t = t.view(torch.uint8)  # IREE's integers are signless: uint8 comes back as int8's bits
            if t.numel():
                ptr = t.data_ptr()
                if bound.spans.holds(ptr) or any(start <= ptr < end for start, end in spans):
                    t = t.clone()
            results.append(t)
        return self.outputs.assemble(results)

    def check_dtypes(self, tensors: list[torch.Tensor]) -> list[bool] | None:
        """
        At the first call, whether each result's DLPack dtype is eager's (or
        int8 for uint8, viewed): the per-result answer kept for the next calls,
        or None where a dtype is neither (the general path takes every call then).
        """
        as_uint8: list[bool] = []
        for t, want in zip(tensors, self.out_dtypes):
            got = t.dtype
            if got != want and (want is not torch.uint8 or got is not torch.int8):
                return None
            as_uint8.append(got != want)
        self.as_uint8 = as_uint8
        return as_uint8


class _Bound:
    """
    The static inputs' views kept by a `_FastCall`: per input, the address its
    view was made from. Replaced whole (never changed in place), so a call in
    another thread sees one consistent set.
    """

    __slots__ = ("addresses", "dynamic", "pick", "spans", "static", "views")

    def __init__(self, static: list[int], count: int) -> None:
        self.static = static
        """The inputs whose views are kept."""
        self.pick: Callable[[Sequence[Any]], Sequence[Any]] = _picker(static)
        """The static inputs among a call's arguments."""
        self.dynamic = [i for i in range(count) if i not in set(static)]
        """The inputs imported at each call."""
        self.addresses: list[int] = [-1] * len(static)
        """Per static input, the address its view is of (-1: none made yet)."""
        self.views: list[Any] = [None] * count
        """Per input, its kept view (None for the dynamic ones, set at each call)."""
        self.spans = _Spans([])
        """The static inputs' memory, for the results' alias check."""

    def rebind(self, call: _FastCall, args: Sequence[Any]) -> _Bound | None:
        """
        The views for `args`: the kept ones whose tensor's address is unchanged,
        new ones for the rest; a static input IREE cannot read in place becomes
        dynamic (copied at each call). None for a call the fast path does not take.
        """
        new = _Bound([], call.count)
        new.views = self.views.copy()
        new.dynamic = list(self.dynamic)
        spans: list[tuple[int, int]] = []
        for i, old in zip(self.static, self.addresses):
            t = args[i]
            if not isinstance(t, torch.Tensor):
                return None
            ptr = t.data_ptr()
            if ptr != old:
                imported = call.import_tensor(t)
                if imported is None:
                    return None
                view, held = imported
                if held is not t:  # a copy: made again at each call, never kept
                    new.views[i] = None
                    new.dynamic.append(i)
                    continue
                new.views[i] = view
            new.static.append(i)
            new.addresses.append(ptr)
            spans.append((ptr, ptr + call.nbytes[i]))
        new.dynamic.sort()
        new.pick = _picker(new.static)
        new.spans = _Spans(spans)
        return new


_data_ptr: Callable[[torch.Tensor], int] = torch.Tensor.data_ptr


def _picker(indices: list[int]) -> Callable[[Sequence[Any]], Sequence[Any]]:
    """The items of a sequence at `indices`, as a sequence, picked in C (`operator.itemgetter`)."""
    if len(indices) == 1:
        index = indices[0]
        return lambda args: (args[index],)
    if not indices:
        return lambda args: ()
    return operator.itemgetter(*indices)


def _torch_dtype_of(dtype: np.dtype[Any]) -> torch.dtype | None:
    """The torch dtype `torch.from_numpy` gives an array of `dtype`; None for one it refuses (ml_dtypes' bfloat16)."""
    try:
        return torch.from_numpy(np.empty(0, dtype)).dtype
    except TypeError:
        return None


class _Spans:
    """Address ranges `[start, end)`, asked whether one holds an address (a sorted search, overlaps allowed)."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self.spans = sorted(spans)
        self.starts = [s for s, _ in self.spans]
        self.reach: list[int] = []
        """Per span (by start), the furthest end of it and the spans before it."""
        end = 0
        for _, e in self.spans:
            end = max(end, e)
            self.reach.append(end)

    def holds(self, address: int) -> bool:
        k = bisect.bisect_right(self.starts, address) - 1
        return k >= 0 and address < self.reach[k]


class _PerShape:
    """A graph whose symbolic sizes could not be typed: one static program per distinct input shape."""

    def __init__(self, gm: torch.fx.GraphModule, opts: BackendOptions, outputs: _Outputs) -> None:
        self.gm = gm
        self.opts = opts
        self.outputs = outputs
        self.compiled: dict[tuple[Any, ...], Callable[..., Any]] = {}

    def __call__(self, *args: Any) -> Any:
        key = tuple(tuple(a.shape) if isinstance(a, torch.Tensor) else a for a in args)
        fn = self.compiled.get(key)
        if fn is None:
            runner, runs_on, _ = _runner(_import(self.gm, list(args), self.opts, self.outputs), self.opts)
            if runner is None:
                fn = self.gm
            else:
                fn = _Native(runner, self.outputs, self.opts.threads if runs_on == "interpreter" else None)
            self.compiled[key] = fn
        return fn(*args)


def _to_numpy(value: Any) -> Any:
    """A torch tensor as a numpy view where torch allows one (contiguous or not, on the CPU)."""
    if isinstance(value, torch.Tensor):
        t = value.detach()
        if t.device.type != "cpu":
            t = t.cpu()
        if not _NUMPY_DTYPES.get(t.dtype, False):  # bfloat16, float8: exactly, as an ml_dtypes array
            return cast_array(t.float().numpy(), torch_dtype(t.dtype))
        return t.numpy()
    if isinstance(value, torch.SymInt | torch.SymFloat | torch.SymBool):
        return _hint(value)
    return value


_NUMPY_DTYPES: dict[torch.dtype, bool] = {
    torch.float16: True, torch.float32: True, torch.float64: True,
    torch.int8: True, torch.int16: True, torch.int32: True, torch.int64: True, torch.uint8: True,
    torch.bool: True, torch.complex64: True, torch.complex128: True,
}  # fmt: skip
"""The dtypes `Tensor.numpy()` shares memory for; the rest go through the API's conversion."""


def _to_torch(value: Any, dtype: torch.dtype | None) -> Any:
    """An output as eager gives it: a tensor of eager's dtype (sharing the array's memory where it can), or a scalar."""
    if isinstance(value, np.ndarray) or (isinstance(value, np.generic) and dtype is not None):
        array = np.asarray(value)
        if array.dtype.kind not in "biufc":  # bfloat16, float8 (ml_dtypes): exactly, through float32
            array = array.astype(np.float32)
        elif not array.flags.writeable or not array.dtype.isnative:
            array = array.astype(array.dtype.newbyteorder("="))  # torch shares only writable native arrays
        t = torch.from_numpy(array)
        return t if dtype is None or t.dtype == dtype else t.to(dtype)
    if dtype is not None and value is not None:
        return torch.tensor(value, dtype=dtype)
    if isinstance(value, np.generic):
        return value.item()
    return value
