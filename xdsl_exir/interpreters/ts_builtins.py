"""
TorchScript's builtin operators on tensors that have no aten kernel of their own.

A TorchScript node calls an overload (`aten::size.int`, `prim::dtype`,
`aten::Int.Tensor`, `prim::NumToTensor.Scalar`) that
`overloads.resolve_node` picks from the input types; the tensor operators
with a schema of the aten dialect run the numpy kernels of `aten_kernels`.
This module implements the rest of what touches tensors: tensor metadata
(`aten::size`, `prim::dtype`), conversions between numbers and tensors, the
implicit conversions schema matching inserts, and a few tensor operators the
kernels lack (`aten::_convolution`, `aten::view_as`). Builtins on numbers,
strings, lists and dicts are the core's (`utils/ts_builtins.py`), shared with
`torchscript-to-exir`; `builtin_for` looks here first, then there.

Tensors print as torch's C++ printer prints them, registered with the core's
`ts_str` so lists and tuples of tensors print through it too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from xdsl_exir.dialects.exir import DType
from xdsl_exir.dialects.ts import DTYPE_CODES, SCALAR_TYPE_OF
from xdsl_exir.semantics import kernels as aten_kernels
from xdsl_exir.utils import ts_builtins as core
from xdsl_exir.utils.function_schema import FunctionSchema, SchemaType
from xdsl_exir.utils.ts_builtins import (
    Builtin,
    ScriptException,
    as_int,
    float_to_int,
    ts_str,
    wrap_int,
)

__all__ = [
    "Builtin",
    "Future",
    "ScriptException",
    "builtin_for",
    "dtype_code",
    "float_to_int",
    "implicit_conversion",
    "ts_str",
    "wrap_int",
]


class Future:
    """The result of `prim::fork`: the forked graph has already run (serially)."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"Future({self.value!r})"


# ---------------------------------------------------------------------------
# printing
# ---------------------------------------------------------------------------


@ts_str.register
def _tensor_str(t: np.ndarray) -> str:
    """Close to torch's C++ tensor printing (values, then `[ CPUFloatType{2,3} ]`)."""
    try:
        dt = aten_kernels.dtype_of(t)
        name = SCALAR_TYPE_OF.get(dt, str(dt))
    except NotImplementedError:
        name = str(t.dtype)
    sizes = ",".join(str(s) for s in t.shape)
    with np.printoptions(precision=4, suppress=True):
        body = " " + str(t.item() if t.ndim == 0 else t).replace("[", "").replace("]", "")
    return f"{body}\n[ CPU{name}Type{{{sizes}}} ]"


@ts_str.register
def _future_str(v: Future) -> str:
    return "Future"


# tensors <-> numbers
# ---------------------------------------------------------------------------


def dtype_code(a: np.ndarray) -> int:
    """`prim::dtype`: the ScalarType code of an array (float32 is 6)."""
    return DTYPE_CODES.index(aten_kernels.dtype_of(a))


def _dtype_arg(code: object) -> np.dtype[Any] | None:
    if code is None:
        return None
    if isinstance(code, DType):
        return aten_kernels.numpy_dtype(code)
    dt = DTYPE_CODES[cast(int, code)]
    if dt is None:
        raise ScriptException(f"unknown dtype code {code}", "RuntimeError")
    return aten_kernels.numpy_dtype(dt)


def _type_name(a: np.ndarray) -> str:
    try:
        return SCALAR_TYPE_OF.get(aten_kernels.dtype_of(a), str(a.dtype))
    except NotImplementedError:
        return str(a.dtype)


def _python_scalar(a: np.ndarray) -> Any:
    return a.reshape(-1)[0].item()


def _one_element(a: Any) -> Any:
    a = np.asarray(a)
    if a.size != 1:
        raise ScriptException(f"a Tensor with {a.size} elements cannot be converted to Scalar", "RuntimeError")
    return _python_scalar(a)


def _implicit(a: Any, to_int: bool) -> Any:
    a = np.asarray(a)
    if a.ndim != 0:
        raise ScriptException("Cannot input a tensor of dimension other than 0 as a scalar argument", "RuntimeError")
    if to_int and a.dtype.kind not in "iub":
        raise ScriptException(f"Cannot input a tensor of type {_type_name(a)} as an integral argument", "RuntimeError")
    return _python_scalar(a)


def _num_to_tensor(v: Any) -> np.ndarray:
    if isinstance(v, np.ndarray):
        return v
    if isinstance(v, bool):
        return np.asarray(v, dtype=np.bool_)
    if isinstance(v, int):
        return np.asarray(v, dtype=np.int64)
    if isinstance(v, float):
        return np.asarray(v, dtype=np.float64)
    if isinstance(v, complex):
        return np.asarray(v, dtype=np.complex128)
    raise ScriptException(f"cannot convert {type(v).__name__} to a tensor", "RuntimeError")


def _bool_tensor(a: Any) -> bool:
    a = np.asarray(a)
    if a.size == 0:
        raise ScriptException("Boolean value of Tensor with no values is ambiguous", "RuntimeError")
    if a.size > 1:
        raise ScriptException("Boolean value of Tensor with more than one value is ambiguous", "RuntimeError")
    return bool(a.reshape(()))


def implicit_conversion(kind: str, schema_type: SchemaType) -> Callable[[Any], Any] | None:
    """
    What `overloads`' per-argument conversion names do to a value: a
    Tensor passed as an int/float/Scalar, a number passed as a Tensor, a
    tuple passed as a list, an int passed as `int[2]`.
    """
    if kind == "int":
        return lambda v: _implicit(v, True) if isinstance(v, np.ndarray) else as_int(v)
    if kind == "float":
        return lambda v: float(_implicit(v, False)) if isinstance(v, np.ndarray) else float(v)
    if kind == "Scalar":
        return lambda v: _implicit(v, False) if isinstance(v, np.ndarray) else v
    if kind == "Tensor":
        return _num_to_tensor
    if kind == "Device":
        return lambda v: v
    if kind == "list":
        return lambda v: list(v)
    if kind == "repeat":
        n = schema_type.size or 1
        return lambda v: [v] * n
    return None


def _tensor_dtype_of(data: object) -> np.dtype[Any]:
    """torch.tensor's inference: any float gives the default dtype (float32), ints int64."""
    kinds: set[type] = set()

    def walk(x: object) -> None:
        if isinstance(x, (list, tuple)):
            for y in cast(Sequence[object], x):
                walk(y)
        else:
            kinds.add(type(x))

    walk(data)
    if complex in kinds:
        return np.dtype(np.complex64)
    if float in kinds:
        return np.dtype(np.float32)
    if int in kinds:
        return np.dtype(np.int64)
    if bool in kinds:
        return np.dtype(np.bool_)
    if kinds - {bool, int, float, complex}:
        raise ScriptException("Input list to torch.tensor must be of ints, floats, or bools", "RuntimeError")
    return np.dtype(np.float32)


def _tensor(data: Any, dtype: object = None, device: object = None, requires_grad: object = False) -> np.ndarray:
    want = _dtype_arg(dtype)
    if isinstance(data, np.ndarray):
        return np.array(data, dtype=want or data.dtype)
    out = np.array(data, dtype=want or _tensor_dtype_of(data))
    return out


def _as_tensor(data: Any, dtype: object = None, device: object = None) -> np.ndarray:
    want = _dtype_arg(dtype)
    if isinstance(data, np.ndarray):
        return data if want is None or data.dtype == want else data.astype(want)
    return _tensor(data, dtype)


def _wrap_dim(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise ScriptException(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})", "IndexError"
        )
    return dim % n


def _size_int(a: np.ndarray, dim: int) -> int:
    if a.ndim == 0:
        raise ScriptException("dimension specified as 0 but tensor has no dimensions", "IndexError")
    return int(a.shape[_wrap_dim(dim, a.ndim)])


def _len_tensor(a: np.ndarray) -> int:
    if a.ndim == 0:
        raise ScriptException("len() of a 0-d tensor", "TypeError")
    return int(a.shape[0])


def _strides(a: np.ndarray) -> list[int]:
    return [s // a.itemsize for s in a.strides]


def _convolution(
    input: np.ndarray,
    weight: np.ndarray,
    bias: np.ndarray | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
    *_flags: object,
) -> np.ndarray:
    """`aten::_convolution` (what traced convolutions call): `convolution` plus backend flags."""
    return cast(
        np.ndarray,
        aten_kernels.run_kernel(
            "aten.convolution.default",
            [input, weight, bias, stride, padding, dilation, transposed, output_padding, groups],
            {},
        ),
    )


def _autograd_add(a: Any, b: Any) -> Any:
    """`prim::AutogradAdd`: gradients where None stands for zero."""
    if a is None:
        return b
    if b is None:
        return a
    return cast(np.ndarray, aten_kernels.run_kernel("aten.add.Tensor", [a, b], {}))


def _zero_(a: np.ndarray) -> np.ndarray:
    a[...] = 0
    return a


_TENSOR_BUILTINS: dict[str, Builtin] = {
    "aten::size": lambda a: list(np.shape(a)),
    "aten::size.int": _size_int,
    "aten::sym_size.int": _size_int,
    "aten::dim": lambda a: int(np.ndim(a)),
    "aten::numel": lambda a: int(np.size(a)),
    "aten::len.Tensor": _len_tensor,
    "aten::stride": _strides,
    "aten::stride.int": lambda a, dim: _strides(a)[_wrap_dim(dim, a.ndim)],
    "aten::is_floating_point": lambda a: aten_kernels.dtype_of(np.asarray(a)).is_floating_point,
    "aten::is_complex": lambda a: aten_kernels.dtype_of(np.asarray(a)).is_complex,
    "aten::is_contiguous": lambda a, memory_format=0: bool(a.flags.c_contiguous),
    "aten::element_size": lambda a: int(a.itemsize),
    "aten::get_device": lambda a: -1,
    "prim::device": lambda a: "cpu",
    "prim::dtype": dtype_code,
    "prim::layout": lambda a: 0,
    "prim::is_cuda": lambda a: False,
    "prim::is_cpu": lambda a: True,
    "prim::is_mps": lambda a: False,
    "prim::is_meta": lambda a: False,
    "prim::is_sparse": lambda a: False,
    "prim::is_quantized": lambda a: False,
    "prim::requires_grad": lambda a: False,
    "prim::grad": lambda a: None,
    "prim::data": lambda a: a,
    "aten::data": lambda a: a,
    "prim::shape": lambda a: list(np.shape(a)),
    "prim::name": lambda a: None,
    "prim::index": lambda d: int(d.split(":")[1]) if ":" in d else None,
    "aten::Int.Tensor": lambda a: as_int(_one_element(a)),
    "aten::Float.Tensor": lambda a: float(_one_element(a)),
    "aten::Bool.Tensor": _bool_tensor,
    "aten::is_nonzero": _bool_tensor,
    "aten::item": _one_element,
    "aten::_local_scalar_dense": _one_element,
    "aten::IntImplicit": lambda a: _implicit(a, True),
    "aten::FloatImplicit": lambda a: float(_implicit(a, False)),
    "aten::ScalarImplicit": lambda a: _implicit(a, False),
    "aten::ComplexImplicit": lambda a: complex(_implicit(a, False)),
    "prim::NumToTensor.Scalar": _num_to_tensor,
    "prim::NumToTensor.bool": _num_to_tensor,
    "aten::tensor": _tensor,
    "aten::tensor.float": _tensor,
    "aten::tensor.int": _tensor,
    "aten::tensor.bool": _tensor,
    "aten::tensor.complex": _tensor,
    "aten::as_tensor": _as_tensor,
    "aten::as_tensor.float": _as_tensor,
    "aten::as_tensor.int": _as_tensor,
    "aten::as_tensor.bool": _as_tensor,
    "aten::as_tensor.complex": _as_tensor,
    "aten::as_tensor.list": _as_tensor,
    "aten::_convolution": _convolution,
    "aten::_convolution.deprecated": _convolution,
    "aten::view_as": lambda a, other: cast(np.ndarray, aten_kernels.run_kernel("aten.view.default", [a, list(other.shape)], {})),
    "aten::zero_": _zero_,
    "aten::empty_like": lambda a, dtype=None, *_: np.zeros_like(a, dtype=_dtype_arg(dtype)),
    "aten::numpy_T": lambda a: a.T,
    "prim::abs": lambda a: cast(np.ndarray, aten_kernels.run_kernel("aten.abs.default", [a], {})),
    "aten::detach": lambda a: a,
    "aten::lift_fresh": lambda a: a,
    "aten::manual_seed": aten_kernels.manual_seed,
    "prim::AutogradAdd": _autograd_add,
}
"""Tensor metadata, number <-> tensor conversions, and tensor operators without a kernel."""


def builtin_for(name: str, schema: FunctionSchema) -> Builtin | None:
    """The implementation of the overload `name` (`aten::add.int`), or None if there is none."""
    fn = _TENSOR_BUILTINS.get(name)
    return fn if fn is not None else core.builtin_for(name, schema)
