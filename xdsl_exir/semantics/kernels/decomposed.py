"""Kernels that run an operator through its rule in the `decompose` table.

An operator that has a decomposition (`semantics/decompositions/`) needs no
numpy kernel of its own: the interpreter builds a one-op graph with the
concrete argument types, rewrites it with the same rule `decompose` and
`to-core-aten` apply, and runs the ops it decomposes into. So the interpreter,
the TorchScript interpreter (which calls kernels by name) and every pass see
one definition of the operator. The compiled graph is cached per argument
signature (shapes, dtypes and the non-tensor arguments), so a graph pays for
the rewrite once per distinct call. The rewrite is the `decompose` pass's own
pattern (`decompositions/pattern.py`); the graph runs on the interpreter's
compiler, a layer above, which registers itself in `registry.py` as it loads.

A rule may decline some arguments (an unbatched convolution, a symbolic size);
the kernel then fails with a message naming the operator, as a missing kernel
would.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from enum import Enum
from functools import cache
from typing import Any, cast

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker

from xdsl_exir.dialects.aten import AtenOp, aten_op_class
from xdsl_exir.dialects.exir import (
    CallFunctionOp,
    DType,
    GraphOp,
    ListType,
    OutputOp,
    SymBoolType,
    SymFloatType,
    SymIntType,
    TensorType,
)
from xdsl_exir.semantics.decompositions import RULES
from xdsl_exir.semantics.decompositions.pattern import DecomposePattern
from xdsl_exir.semantics.inference import InferenceError, NoInference
from xdsl_exir.semantics.kernels.registry import FUNCTIONAL, Kernel, graph_compiler, schema_of
from xdsl_exir.utils.diagnostics import InterpreterError
from xdsl_exir.utils.dtypes import cast_array, dtype_of
from xdsl_exir.utils.function_schema import SchemaType, TypeKind
from xdsl_exir.utils.op_registry import lookup

DECOMPOSED: set[str] = set()
"""Overloads whose kernel is their decomposition (no numpy kernel of their own)."""

_Signature = tuple[Hashable, ...]


class _TensorArg:
    """A tensor argument's place in the call: which graph input it becomes."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


def _abstract(value: object, tensors: list[np.ndarray]) -> tuple[Hashable, object]:
    """(signature part, IR-side stand-in) of one argument; tensors become graph inputs."""
    if isinstance(value, np.ndarray):
        tensors.append(value)
        return ("T", value.shape, value.dtype.name), _TensorArg(len(tensors) - 1)
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (list, tuple)):
        parts = [_abstract(v, tensors) for v in value]
        return ("L", tuple(p[0] for p in parts)), [p[1] for p in parts]
    if isinstance(value, float) and value != value:
        return ("nan",), value
    if value is None or isinstance(value, (bool, int, float, str, Enum)):
        return (type(value).__name__, value), value
    if isinstance(value, Attribute):  # a device (torch.export records `device=cpu` on creation ops)
        return ("A", value), value
    raise NotImplementedError(f"an argument of type {type(value).__name__} cannot be decomposed")


def _materialize(value: object, inputs: tuple[SSAValue, ...]) -> object:
    if isinstance(value, _TensorArg):
        return inputs[value.index]
    if isinstance(value, list):
        return [_materialize(v, inputs) for v in cast(list[object], value)]
    return value


_KERNELS: dict[str, Kernel] = {}
"""Every kernel, once `derived.build_kernels` has made them (`use_kernels`)."""


def use_kernels(kernels: dict[str, Kernel]) -> None:
    """Decompose into the overloads of `kernels` (the package's table, known only once it is built)."""
    _KERNELS.clear()
    _KERNELS.update(kernels)
    _legal.cache_clear()


_CHECKS = frozenset({"aten._assert_async.msg"})
"""What a decomposition may emit that the interpreter runs itself, without a kernel: the
run-time assertion of a condition torch checks (an index in range)."""


@cache
def _legal() -> frozenset[str]:
    """Overloads the interpreter runs directly: those with a kernel that is not a decomposition, and the checks."""
    return frozenset(n for n in _KERNELS if n not in DECOMPOSED) | _CHECKS


def _leftover(module: ModuleOp, legal: frozenset[str]) -> list[str]:
    left: list[str] = []
    for op in module.walk():
        if isinstance(op, AtenOp):
            name = op.name
        elif isinstance(op, CallFunctionOp):
            entry = lookup(op.target.data)
            name = entry.op_name if entry is not None else op.target.data
        else:
            continue
        if name not in legal:
            left.append(name)
    return left


def _placeholder(t: SchemaType) -> Attribute:
    """A result type for an op the rewrite replaces: only its kind matters to a rule."""
    if t.kind is TypeKind.LIST:
        return ListType(_placeholder(t.elements[0]) if t.elements else TensorType([], DType.float32))
    if t.name in ("int", "SymInt"):
        return SymIntType()
    if t.name == "float":
        return SymFloatType()
    if t.name == "bool":
        return SymBoolType()
    return TensorType([], DType.float32)


def _build(name: str, args: list[object], kwargs: dict[str, Any]) -> Operation:
    """The aten op `name` of these arguments; an `exir.call_function` when the dialect
    has no op for it or cannot infer its result types (the rewrite replaces it anyway)."""
    cls = aten_op_class(name)
    if cls is not None:
        try:
            return cls.build(*args, **kwargs)
        except NoInference:
            pass
        except InferenceError as e:
            raise InterpreterError(f"{name}: {e}") from None
    types = [_placeholder(r.type) for r in schema_of(name).returns]
    return CallFunctionOp(name, args, kwargs, types)


def _compile(name: str, bound: Mapping[str, object], tensors: list[np.ndarray]) -> Callable[..., tuple[Any, ...]]:
    """
    Build `name`'s one-op graph for these arguments, decompose it and compile the
    result. Each tensor result comes back in the dtype `name`'s inference rule
    gives it, as the interpreter gives a kernel's result the IR's dtype (torch's
    own decomposition of `threshold_backward` keeps the gradient's dtype, where
    eager promotes it with `self`).
    """
    input_types: list[Attribute] = [TensorType(list(t.shape), dtype_of(t)) for t in tensors]
    graph = GraphOp(f"decomposed_{name}", input_types, [])
    block = graph.body.block
    schema = schema_of(name)
    args: list[object] = []
    kwargs: dict[str, Any] = {}  # forwarded to AtenOp.build
    for a in schema.arguments:
        if a.name not in bound:
            continue
        value = _materialize(bound[a.name], tuple(block.args))
        if a.kwarg_only:
            kwargs[a.name] = value
        else:
            args.append(value)
    op = _build(name, args, kwargs)
    # only an inferred result type says something (a call_function's are placeholders)
    declared = [
        r.type.element_dtype if isinstance(op, AtenOp) and isinstance(r.type, TensorType) else None for r in op.results
    ]
    block.add_op(op)
    block.add_op(OutputOp(list(op.results)))
    module = ModuleOp([graph])
    legal = _legal()
    PatternRewriteWalker(
        GreedyRewritePatternApplier([DecomposePattern(legal)], dce_enabled=False), apply_recursively=True
    ).rewrite_module(module)
    left = _leftover(module, legal)
    if name in left:
        raise InterpreterError(f"the decomposition of {name} does not apply to these arguments, and it has no kernel")
    if left:
        raise InterpreterError(f"{name} decomposes into {', '.join(sorted(set(left)))}, which the interpreter cannot run")
    compile_graph = graph_compiler()
    if compile_graph is None:
        # The graph compiler sits in the interpreter layer and registers itself as it loads;
        # a kernel called before anything loaded it (a library user's `run_kernel`) loads it here.
        import xdsl_exir.interpreters.compiler  # noqa: F401 - imported for its registration

        compile_graph = graph_compiler()
    if compile_graph is None:
        raise InterpreterError(f"{name} runs through its decomposition, but the interpreter's graph compiler did not register")
    run = compile_graph(block, f"decomposed_{name}")
    if all(d is None for d in declared):
        return run

    def typed(*operands: Any) -> tuple[Any, ...]:
        results = run(*operands)
        return tuple(_with_dtype(r, d) for r, d in zip(results, declared, strict=True))

    return typed


def _with_dtype(value: Any, dtype: DType | None) -> Any:
    if dtype is None or not isinstance(value, np.ndarray) or dtype_of(value) is dtype:
        return value
    return cast_array(value, dtype)


def decomposition_kernel(name: str) -> Kernel:
    """A kernel (arguments by schema name) that runs `name` through its decomposition."""
    cache: dict[_Signature, Callable[..., tuple[Any, ...]]] = {}
    n_returns = len(schema_of(name).returns)

    def kernel(*extra: object, **bound: object) -> object:
        if extra:
            raise NotImplementedError(f"{name}: extra positional arguments cannot be decomposed")
        tensors: list[np.ndarray] = []
        parts: list[Hashable] = []
        stand_ins: dict[str, object] = {}
        for key in sorted(bound):
            part, stand_in = _abstract(bound[key], tensors)
            parts.append((key, part))
            stand_ins[key] = stand_in
        signature = tuple(parts)
        run = cache.get(signature)
        if run is None:
            run = cache[signature] = _compile(name, stand_ins, tensors)
        results = run(*tensors)
        if n_returns == 1:
            return results[0]
        return tuple(results)

    return kernel


def decomposition_kernels() -> dict[str, Kernel]:
    """A decomposition kernel for every overload with a rule but no hand-written kernel
    (kept apart from `FUNCTIONAL`, the hand-written ones; variants derive from both)."""
    out: dict[str, Kernel] = {}
    for name in RULES:
        if name in FUNCTIONAL or lookup(name) is None:
            continue
        out[name] = decomposition_kernel(name)
        DECOMPOSED.add(name)
    return out


# Known on import (the families registered their kernels before this module loads), so a
# reader of DECOMPOSED need not build the kernel table first.
DECOMPOSED.update(n for n in RULES if n not in FUNCTIONAL and lookup(n) is not None)

__all__ = ["DECOMPOSED", "decomposition_kernel", "decomposition_kernels", "use_kernels"]
