"""NumPy kernels for the ATen overloads of ``aten_ops.txt``.

Every kernel receives the operator's arguments bound by schema name as plain
Python values (numpy arrays for tensors, ``int``/``float``/``bool`` for
scalars, lists, ``None`` and :class:`DType`/:class:`Layout`/:class:`MemoryFormat`
members) and returns numpy arrays, Python scalars or tuples/lists of them.

Only the *functional* overloads are written by hand, once per operator family
(unary and binary pointwise tables, comparisons, reductions, ...).  In-place
(``op_``) and ``out=`` overloads are derived from the schema's alias
annotations: the functional kernel with the matching argument names is
called and its result is copied into the written argument(s) with
``np.copyto``, so in-place ops really mutate the caller's array.

Numerics follow PyTorch's CPU eager mode where that is cheap to do:

* type promotion is torch's (dimensioned tensors > 0-d tensors > Python
  scalars, by category bool < integer < floating < complex);
* float16 is computed in float32 and rounded at the end, as torch's CPU
  kernels do through their ``opmath`` type;
* bfloat16 and float8 tensors are ``ml_dtypes`` arrays.  Like torch's CPU
  kernels, the kernels compute on them in float32 (the interpreter hands them
  float32 copies, :func:`run_kernel` too) and a result is rounded to its dtype
  when ``result_dtypes`` says so; views take them as they are, sharing their
  memory (:func:`takes_low_precision`).

Random operators (``rand``, ``randn``, ``randperm``, ``dropout``/
``native_dropout`` in training mode, ``scaled_dot_product_attention`` with
``dropout_p > 0``) draw from a module-level ``numpy.random.Generator`` that is
seeded deterministically (see :func:`manual_seed`); they are reproducible but
do not reproduce torch's random streams.

The kernels live in one module per operator family, the same families as the
inference rules, the decompositions and the linalg lowering have
(``docs/architecture.md`` lists them): ``pointwise``, ``reductions`` (with
scans, softmax and sorting), ``views``, ``scalars`` (symbolic size and dtype
queries and TorchScript's list scalars), ``creation`` (with copies and
conversions), ``random``, ``indexing``, ``matmul`` (the products and
attention), ``distances``, ``lapack`` (factorizations, solves, determinants and
matrix norms through numpy.linalg), ``norms``, ``conv_pool``, ``resampling``,
``spectral``, ``special``, ``statistics`` and ``backward``. The other modules
are infrastructure: ``core`` holds the helpers the families share (they
import it, never each other), ``dtypes`` torch's dtypes and type promotion,
``registry`` the table the families register in, ``derived`` the in-place and
``out=`` variants and ``decomposed`` the kernels run through a decomposition. Importing this package imports every family
(registering its kernels; each takes about a millisecond), and this module is
the calling convention every caller uses. :data:`KERNELS` is filled on demand:
a listed overload with a hand-written kernel is that kernel at once, and the
first lookup of any other name derives the whole table (``derived``, which
loads the decompose table and the aten dialect behind ``decomposed``), so a
program of plain kernels starts without either.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from xdsl_exir.dialects.exir import DType

# every family registers its functional kernels when imported; the variants are derived after all of them
from xdsl_exir.semantics.kernels import (  # noqa: F401 - imported for their registrations
    backward,
    conv_pool,
    creation,
    distances,
    indexing,
    lapack,
    matmul,
    norms,
    pointwise,
    random,
    reductions,
    resampling,
    scalars,
    special,
    spectral,
    statistics,
    views,
)
from xdsl_exir.semantics.kernels.dtypes import NUMPY_OF, dtype_of, numpy_dtype, result_type, round_to_bfloat16
from xdsl_exir.semantics.kernels.random import manual_seed
from xdsl_exir.semantics.kernels.registry import (
    FUNCTIONAL,
    LOW_PRECISION_OPERANDS,
    Kernel,
    schema_of,
    takes_low_precision,
)
from xdsl_exir.utils.dtypes import LOW_PRECISION, cast_array, to_float32
from xdsl_exir.utils.op_registry import selected_operators
from xdsl_exir.utils.schema_binding import bind

if TYPE_CHECKING:
    SKIPPED: dict[str, str]

__all__ = [
    "KERNELS",
    "LOW_PRECISION_OPERANDS",
    "SKIPPED",
    "apply_result_dtype",
    "bind_kernel",
    "dtype_of",
    "has_kernel",
    "manual_seed",
    "numpy_dtype",
    "result_type",
    "round_to_bfloat16",
    "run_kernel",
    "takes_low_precision",
]

@cache
def _listed() -> frozenset[str]:
    return frozenset(selected_operators())


class _KernelTable(Mapping[str, Kernel]):
    """The kernel of every operator, derived in full on the first name that needs more than `FUNCTIONAL`.

    A listed overload with a hand-written kernel is what `derived.build_kernels`
    would map it to, so it is answered without building the table.
    """

    def __init__(self) -> None:
        self._table: dict[str, Kernel] | None = None
        self.skipped: dict[str, str] = {}

    def table(self) -> dict[str, Kernel]:
        """The whole table (built once: every variant and decomposition derived)."""
        if self._table is None:
            from xdsl_exir.semantics.kernels.derived import SKIPPED, build_kernels

            self._table = build_kernels()
            self.skipped = SKIPPED
        return self._table

    def __getitem__(self, name: str) -> Kernel:
        if self._table is not None:
            return self._table[name]
        if name in FUNCTIONAL and name in _listed():
            return FUNCTIONAL[name]
        return self.table()[name]

    def __contains__(self, name: object) -> bool:
        if self._table is not None:
            return name in self._table
        return (name in FUNCTIONAL and name in _listed()) or name in self.table()

    def get(self, name: str, default: Any = None) -> Any:
        if self._table is not None:
            return self._table.get(name, default)
        return self[name] if name in self else default

    def __iter__(self) -> Iterator[str]:
        return iter(self.table())

    def __len__(self) -> int:
        return len(self.table())


KERNELS: Mapping[str, Kernel] = _KernelTable()
"""Kernel of every listed operator, keyed by IR name (``aten.add.Tensor``); filled on demand."""


def __getattr__(name: str) -> Any:
    # PEP 562: the listed operators without a kernel are known once the table is built.
    if name == "SKIPPED":
        table = cast(_KernelTable, KERNELS)
        table.table()
        return table.skipped
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def has_kernel(name: str) -> bool:
    """Whether ``name`` (an IR name such as ``aten.add.Tensor``) has a numpy kernel."""
    return name in KERNELS


def _apply_dtype(value: object, dtype: DType | None) -> object:
    if dtype is None:
        return value
    if not isinstance(value, np.ndarray):
        # A tensor result (`dtype` comes from a tensor type) that a kernel gave as a
        # numpy or Python scalar, as numpy's full reductions do: a 0-d array, so
        # that the next kernel sees a tensor and not a number.
        if not isinstance(value, np.generic | bool | int | float | complex):
            return value
        value = np.asarray(value)
    want = NUMPY_OF.get(dtype)  # bfloat16 and float8: the ml_dtypes array, rounded as torch rounds
    if want is not None and value.dtype != want:
        return cast_array(value, dtype) if dtype in LOW_PRECISION else value.astype(want)
    return value


def run_kernel(
    op_name: str, args: Sequence[object], kwargs: Mapping[str, object], result_dtypes: Sequence[DType | None] = ()
) -> object:
    """Bind ``args``/``kwargs`` to the schema of ``op_name`` and run its kernel.

    ``result_dtypes`` gives the torch dtype of each result when known; a
    bfloat16 result is rounded to bf16 values (see module docstring) and any
    other mismatch is cast.
    """
    kernel = KERNELS.get(op_name)
    if kernel is None:
        raise NotImplementedError(f"no numpy kernel for {op_name}")
    schema = schema_of(op_name)
    written = {a.name: bind(schema, args, kwargs, missing="none")[0].get(a.name) for a in schema.written_arguments}
    if not takes_low_precision(op_name):
        args = [to_float32(a) for a in args]
        kwargs = {k: to_float32(v) for k, v in kwargs.items()}
    bound, extra = bind(schema, args, kwargs, missing="none")
    # bfloat16/float8 operands are computed on as float32 copies (see the module docstring);
    # an in-place or out= kernel writes the copy, which goes back into the caller's array.
    copies = {id(bound[n]): original for n, original in written.items() if bound.get(n) is not original}
    with np.errstate(all="ignore"):
        if extra:
            lead = [bound.pop(a.name) for a in schema.arguments if not a.kwarg_only]
            result = kernel(*lead, *extra, **bound)
        else:
            result = kernel(**bound)
        if copies:
            for n in written:
                if (original := copies.get(id(bound[n]))) is not None:
                    np.copyto(cast(np.ndarray, original), cast(np.ndarray, bound[n]), casting="unsafe")
            if isinstance(result, tuple | list):
                result = type(result)(copies.get(id(r), r) for r in result)
                return result  # written arguments: already of their dtype
            if id(result) in copies:
                return copies[id(result)]
        if not result_dtypes:
            return result
        if isinstance(result, (tuple, list)) and not (len(result_dtypes) == 1 and isinstance(result, list)):
            fixed = [_apply_dtype(r, d) for r, d in zip(result, result_dtypes)] + list(result[len(result_dtypes) :])
            return type(result)(fixed)
        if isinstance(result, list):
            return [_apply_dtype(r, result_dtypes[0]) for r in result]
        return _apply_dtype(result, result_dtypes[0])


def bind_kernel(
    op_name: str, args: Sequence[object], kwargs: Mapping[str, object]
) -> tuple[Kernel, dict[str, object], list[object]]:
    """Bind once, call many times: the kernel of `op_name`, its arguments by name
    (defaults filled in) and the extra positional ones of a vararg schema.

    The interpreter binds each node when it compiles a graph, with placeholders
    for the values only known at run time, and then calls the kernel directly.
    """
    kernel = KERNELS.get(op_name)
    if kernel is None:
        raise NotImplementedError(f"no numpy kernel for {op_name}")
    bound, extra = bind(schema_of(op_name), args, kwargs, missing="none")
    return kernel, bound, extra


def apply_result_dtype(value: object, dtype: DType | None) -> object:
    """Give a kernel result the dtype the IR says it has (bf16 rounding included)."""
    return _apply_dtype(value, dtype)
