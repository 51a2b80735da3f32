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
* bfloat16 has no numpy dtype: bf16 tensors are carried as float32 arrays that
  hold bf16-representable values.  Kernels compute in float32 and
  :func:`run_kernel` rounds a result with :func:`round_to_bfloat16` when
  ``result_dtypes`` says it is bfloat16.

Random operators (``rand``, ``randn``, ``randperm``, ``dropout``/
``native_dropout`` in training mode, ``scaled_dot_product_attention`` with
``dropout_p > 0``) draw from a module-level ``numpy.random.Generator`` that is
seeded deterministically (see :func:`manual_seed`); they are reproducible but
do not reproduce torch's random streams.

The kernels live in one module per family, following the operator families of
the ATen operator list: ``pointwise`` (unary, binary and ternary), ``reductions``
(with softmax and sorting), ``views``, ``scalars`` (symbolic size queries and
TorchScript's list scalars), ``creation`` (and conversions), ``random``,
``indexing``, ``linalg`` (the matmul family and attention), ``norms``,
``conv_pool``, ``resampling``; ``dtypes`` holds torch's dtypes and type
promotion, ``registry`` the table the families register in, and ``derived`` the
in-place and ``out=`` variants. Importing this package imports every family
(registering its kernels), then derives the variants once; this module is the
calling convention every caller uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from xdsl_exir.dialects.exir import DType

# every family registers its functional kernels when imported; the variants are derived after all of them
from xdsl_exir.interpreters.aten_kernels import (  # noqa: F401
    conv_pool,
    creation,
    indexing,
    linalg,
    norms,
    pointwise,
    random,
    reductions,
    resampling,
    scalars,
    views,
)
from xdsl_exir.interpreters.aten_kernels.derived import SKIPPED, build_kernels
from xdsl_exir.interpreters.aten_kernels.dtypes import NUMPY_OF, dtype_of, numpy_dtype, result_type, round_to_bfloat16
from xdsl_exir.interpreters.aten_kernels.random import manual_seed
from xdsl_exir.interpreters.aten_kernels.registry import Kernel, schema_of
from xdsl_exir.utils.schema_binding import bind

__all__ = [
    "KERNELS",
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
]

KERNELS: dict[str, Kernel] = build_kernels()
"""Kernel of every listed operator, keyed by IR name (``aten.add.Tensor``)."""


def has_kernel(name: str) -> bool:
    """Whether ``name`` (an IR name such as ``aten.add.Tensor``) has a numpy kernel."""
    return name in KERNELS


def _apply_dtype(value: object, dtype: DType | None) -> object:
    if dtype is None or not isinstance(value, np.ndarray):
        return value
    if dtype == DType.bfloat16:
        if value.dtype == np.float32 and value.flags.writeable:
            # in place, so that in-place and out= results stay the caller's array
            np.copyto(value, round_to_bfloat16(value))
            return value
        return round_to_bfloat16(value)
    want = NUMPY_OF.get(dtype)
    if want is not None and value.dtype != want:
        return value.astype(want)
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
    bound, extra = bind(schema, args, kwargs, missing="none")
    with np.errstate(all="ignore"):
        if extra:
            lead = [bound.pop(a.name) for a in schema.arguments if not a.kwarg_only]
            result = kernel(*lead, *extra, **bound)
        else:
            result = kernel(**bound)
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
