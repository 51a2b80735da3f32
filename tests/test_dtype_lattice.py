"""
The core's dtype lattice (`utils/dtypes.py`) against torch 2.13: every pair of
dtypes torch can hold, as tensors with dimensions, 0-d tensors and Python
numbers, through `torch.result_type`; and the three executors that promote
(the inference rules, the numpy kernels, the TorchScript runner) on the cases
they once got wrong.
"""

from __future__ import annotations

import itertools
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from xdsl_exir.dialects.exir import TensorType
from xdsl_exir.utils.dtypes import (
    Category,
    DType,
    Priority,
    PromotionError,
    numpy_dtype,
    promote_types,
    result_type,
    scalar_dtype,
)

torch = pytest.importorskip("torch")
Tensor = torch.Tensor


def _add(x: Tensor, y: Tensor) -> Tensor:
    return x + y

# Every dtype a torch CPU tensor can be created with (the sub-byte and bit dtypes cannot be).
SWEPT = [
    d
    for d in DType
    if not d.value.startswith(("bits", "quint", "qint", "int1", "int2", "int3", "int4", "int5", "int6", "int7"))
    and not d.value.startswith(("uint1", "uint2", "uint3", "uint4", "uint5", "uint6", "uint7", "float4"))
]
SCALARS: list[object] = [True, 2, 2.5, 1 + 2j]


def _torch(d: DType) -> Any:
    return getattr(torch, d.value)


def _theirs(*operands: object) -> DType | None:
    try:
        return DType(str(torch.result_type(*operands)).removeprefix("torch."))
    except RuntimeError:
        return None


def _ours(*keyed: tuple[DType, Priority]) -> DType | None:
    try:
        return result_type(keyed)
    except PromotionError:
        return None


def _operand(d: DType, p: Priority) -> Any:
    return torch.empty((2,) if p is Priority.DIMENSIONED else (), dtype=_torch(d))


def test_promote_types_table() -> None:
    wrong = []
    for a, b in itertools.product(SWEPT, SWEPT):
        try:
            theirs = DType(str(torch.promote_types(_torch(a), _torch(b))).removeprefix("torch."))
        except RuntimeError:
            theirs = None
        try:
            ours = promote_types(a, b)
        except PromotionError:
            ours = None
        if ours != theirs:
            wrong.append((a, b, ours, theirs))
    assert not wrong


@pytest.mark.parametrize("pa", [Priority.DIMENSIONED, Priority.ZERO_DIM])
@pytest.mark.parametrize("pb", [Priority.DIMENSIONED, Priority.ZERO_DIM])
def test_result_type_tensor_pairs(pa: Priority, pb: Priority) -> None:
    wrong = []
    for a, b in itertools.product(SWEPT, SWEPT):
        theirs = _theirs(_operand(a, pa), _operand(b, pb))
        ours = _ours((a, pa), (b, pb))
        if ours != theirs:
            wrong.append((a, b, ours, theirs))
    assert not wrong


@pytest.mark.parametrize("p", [Priority.DIMENSIONED, Priority.ZERO_DIM])
def test_result_type_with_python_numbers(p: Priority) -> None:
    wrong = []
    for a, s in itertools.product(SWEPT, SCALARS):
        sd = scalar_dtype(s)
        assert sd is not None
        theirs = _theirs(_operand(a, p), s)
        ours = _ours((a, p), (sd, Priority.WRAPPED))
        if ours != theirs:
            wrong.append((a, s, ours, theirs))
    assert not wrong


def test_result_type_three_operands() -> None:
    """Two lower-priority groups at once: `addcmul` promotes all three of its tensors together."""
    wrong = []
    picks = [DType.uint8, DType.int32, DType.float16, DType.bfloat16, DType.float64, DType.complex64]
    for a, b, c in itertools.product(picks, picks, picks):
        try:
            theirs = torch.addcmul(_operand(a, Priority.DIMENSIONED), _operand(b, Priority.ZERO_DIM), _operand(c, Priority.ZERO_DIM)).dtype
        except RuntimeError:
            continue
        ours = _ours((a, Priority.DIMENSIONED), (b, Priority.ZERO_DIM), (c, Priority.ZERO_DIM))
        if ours is None or ours.value != str(theirs).removeprefix("torch."):
            wrong.append((a, b, c, ours, theirs))
    assert not wrong


def test_methods_match_torch() -> None:
    for d in SWEPT:
        t = _torch(d)
        assert d.itemsize == t.itemsize
        assert d.is_floating_point == t.is_floating_point
        assert d.is_complex == t.is_complex
        assert (d.category is Category.BOOL) == (d is DType.bool)
        if d.is_complex:
            assert d.to_real().value == str(torch.empty(0, dtype=t).real.dtype).removeprefix("torch.")
    assert DType.bfloat16.to_complex() is DType.complex64
    assert DType.float16.to_complex() is DType.complex32
    assert DType.int8.to_floating() is DType.float32


# ---------------------------------------------------------------------------
# the executors
# ---------------------------------------------------------------------------


def _np(t: Any) -> np.ndarray:
    if t.dtype == torch.bfloat16:
        return t.float().numpy().astype(ml_dtypes.bfloat16)
    return t.numpy().copy()


def _cases() -> list[tuple[Any, Any]]:
    return [
        (torch.tensor([1.5, -2.0, 3.0], dtype=torch.bfloat16), torch.tensor(1 + 2j, dtype=torch.complex64)),
        (torch.tensor([1.5, -2.0, 3.0], dtype=torch.float16), torch.tensor([0.5, 1.0, 2.0], dtype=torch.bfloat16)),
        (torch.tensor([1.5, -2.0, 3.0], dtype=torch.float32), torch.tensor(1 + 2j, dtype=torch.complex128)),
        (torch.tensor([1, 2, 3], dtype=torch.int32), torch.tensor(0.5, dtype=torch.float64)),
        (torch.tensor([True, False]), torch.tensor(7, dtype=torch.int8)),
    ]


@pytest.mark.parametrize("case", range(5))
def test_kernel_add_promotes_as_torch(case: int) -> None:
    from xdsl_exir.semantics import kernels as K

    a, b = _cases()[case]
    theirs = a + b
    ours = K.KERNELS["aten.add.Tensor"](_np(a), _np(b))
    assert ours.dtype == numpy_dtype(DType(str(theirs.dtype).removeprefix("torch.")))
    want = theirs.to(torch.complex128 if theirs.is_complex() else torch.float64).numpy()
    np.testing.assert_array_equal(np.asarray(ours).astype(want.dtype), want)


@pytest.mark.parametrize("case", range(5))
def test_torchscript_runner_add_promotes_as_torch(case: int) -> None:
    from ts_graphs import graph_module

    from xdsl_exir.interpreters.ts_runner import TorchScriptRunner

    scripted = torch.jit.script(_add)
    a, b = _cases()[case]
    theirs = scripted(a, b)
    (ours,) = TorchScriptRunner(graph_module(scripted.graph)).run([_np(a), _np(b)])
    assert ours.dtype == numpy_dtype(DType(str(theirs.dtype).removeprefix("torch.")))
    want = theirs.to(torch.complex128 if theirs.is_complex() else torch.float64).numpy()
    np.testing.assert_array_equal(np.asarray(ours).astype(want.dtype), want)


@pytest.mark.parametrize("case", range(5))
def test_inference_add_promotes_as_torch(case: int) -> None:
    from xdsl.utils.test_value import create_ssa_value

    from xdsl_exir.semantics.inference import result_type as infer_result_type

    a, b = _cases()[case]
    values = [create_ssa_value(TensorType(list(t.shape), DType(str(t.dtype).removeprefix("torch.")))) for t in (a, b)]
    assert infer_result_type(values).value == str((a + b).dtype).removeprefix("torch.")


def _is_floating(x: Tensor) -> bool:
    return x.is_floating_point()


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "int32", "complex64", "bool"])
def test_torchscript_runner_is_floating_point(dtype: str) -> None:
    """bfloat16 arrays are of numpy kind 'V': the runner asks the dtype, not the kind."""
    from ts_graphs import graph_module

    from xdsl_exir.interpreters.ts_runner import TorchScriptRunner

    scripted = torch.jit.script(_is_floating)
    t = torch.ones(2, dtype=getattr(torch, dtype))
    (ours,) = TorchScriptRunner(graph_module(scripted.graph)).run([_np(t)])
    assert ours == scripted(t)


def test_opmath_is_the_kernels_compute_dtype() -> None:
    from xdsl_exir.semantics.kernels.dtypes import compute_dtype

    for d in SWEPT:
        if d is DType.complex32:
            continue  # carried as complex64
        assert numpy_dtype(d.opmath()) == compute_dtype(numpy_dtype(d)), d
    assert DType.bfloat16.opmath() is DType.float32 and DType.int8.opmath() is DType.int8
