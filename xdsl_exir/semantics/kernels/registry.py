"""The table every family module registers its functional kernels in.

It lives apart from the package's ``__init__`` so that a family module can
register while the package is still importing: families import this module,
never the package, and the package imports the families (no cycle). The
dimension helpers are here for the same reason: every family wraps dims.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from xdsl_exir.utils.function_schema import FunctionSchema
from xdsl_exir.utils.op_registry import lookup

if TYPE_CHECKING:
    from xdsl.ir import Block

Kernel = Callable[..., Any]

FUNCTIONAL: dict[str, Kernel] = {}
"""Hand-written functional kernels by IR name; in-place and ``out=`` variants are derived from them."""


LOW_PRECISION_OPERANDS: set[str] = set()
"""Kernels given bfloat16/float8 operands as they are, not as float32 copies: those that
round an intermediate to the input dtype, as torch's kernel does (flash attention)."""


def takes_low_precision(name: str) -> bool:
    """
    Whether the kernel of `name` is given bfloat16/float8 operands as they are: those
    in `LOW_PRECISION_OPERANDS`, and views (a result aliasing an operand, nothing
    written). A view of a float32 copy would neither share the operand's memory (a
    write through it would be lost) nor have its dtype; views compute nothing, so
    numpy's bfloat16 arrays serve them as they are.
    """
    if name in LOW_PRECISION_OPERANDS:
        return True
    view = _VIEWS.get(name)
    if view is None:
        entry = lookup(name)
        schema = entry.schema if entry is not None else None
        view = _VIEWS[name] = schema is not None and not schema.is_mutable and any(
            schema.aliases_of_return(i) for i in range(len(schema.returns))
        )
    return view


_VIEWS: dict[str, bool] = {}
"""`takes_low_precision`'s answer for views, by operator."""


def register(*names: str, low_precision_operands: bool = False) -> Callable[[Kernel], Kernel]:
    """Register a functional kernel under each of the overload names it implements."""

    def deco(fn: Kernel) -> Kernel:
        for n in names:
            FUNCTIONAL[n] = fn
            if low_precision_operands:
                LOW_PRECISION_OPERANDS.add(n)
        return fn

    return deco


def schema_of(name: str) -> FunctionSchema:
    """The schema of an operator by IR name; a kernel without one is a programming error."""
    entry = lookup(name)
    if entry is None:
        raise KeyError(f"unknown operator {name}")
    return entry.schema


def reduction_dims(dim: object, ndim: int) -> tuple[int, ...]:
    """Reduction dims: None/[] mean all, negatives wrap, 0-d tensors accept 0/-1."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        dim = [dim]
    dims = list(dim)  # pyright: ignore[reportArgumentType] - an int[] argument once bound; the binder types values as object
    if not dims:
        return tuple(range(ndim))
    if ndim == 0:
        for d in dims:
            wrap_dim(d, 0)
        return ()
    return tuple(sorted({wrap_dim(d, ndim) for d in dims}))


def wrap_dim(d: int, ndim: int) -> int:
    """A dim argument wrapped into range (0-d tensors accept 0 and -1, as in torch). One
    outside it is refused, as torch refuses it, rather than taken modulo the rank: a traced
    program's kernels meet its inputs' ranks only at run time."""
    n = max(ndim, 1)
    if not -n <= d < n:
        raise IndexError(f"dimension {d} is out of range for a {ndim}-d tensor (expected {-n} to {n - 1})")
    return d % n if ndim else 0


GraphCompiler = Callable[["Block", str], Callable[..., tuple[Any, ...]]]
"""(the graph's block, a name for it) -> a function of the block's arguments returning its outputs."""

_GRAPH_COMPILER: list[GraphCompiler] = []


def register_graph_compiler(compile_graph: GraphCompiler) -> None:
    """
    The interpreter's graph compiler, which runs the graph an operator without a
    numpy kernel decomposes into (`decomposed.py`). It sits in the interpreter
    layer, above the kernels, and registers itself here when it loads
    (`interpreters/compiler.py`); this module is light, so registering loads no
    decomposition rule.
    """
    _GRAPH_COMPILER[:] = [compile_graph]


def graph_compiler() -> GraphCompiler | None:
    """The registered graph compiler, None before the interpreter has loaded."""
    return _GRAPH_COMPILER[0] if _GRAPH_COMPILER else None
