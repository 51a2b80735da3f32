"""
bfloat16 and float8 tensors are real `ml_dtypes` arrays (item size 2 and 1) in
inputs, outputs, state, `.pt2` weights and kernels; kernels compute in float32
and round the result, as torch's CPU kernels do; `.npz` files carry them as
float32. Golden tests against torch.
"""

from __future__ import annotations

import pathlib
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from tool_calls import exir_run

from xdsl_exir.dialects.exir import DType, StateOp, array_from_blob
from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.semantics import kernels as K
from xdsl_exir.utils.dtypes import LOW_PRECISION, dtype_of, numpy_dtype
from xdsl_exir.utils.npz import npz_array
from xdsl_exir.utils.tensor_data import array_from_bytes, bytes_from_array

torch = pytest.importorskip("torch")

LOW = {
    "bfloat16": (DType.bfloat16, 2),
    "float8_e4m3fn": (DType.float8_e4m3fn, 1),
    "float8_e4m3fnuz": (DType.float8_e4m3fnuz, 1),
    "float8_e5m2": (DType.float8_e5m2, 1),
    "float8_e5m2fnuz": (DType.float8_e5m2fnuz, 1),
}


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint16 if a.dtype.itemsize == 2 else np.uint8)


def _torch_bits(t: Any) -> np.ndarray:
    return t.view(torch.int16 if t.element_size() == 2 else torch.uint8).numpy().view(
        np.uint16 if t.element_size() == 2 else np.uint8
    )


def _values(n: int = 64) -> np.ndarray:
    rng = np.random.default_rng(0)
    specials = [0.0, -0.0, 1.0, -1.5, 1e-3, 3.14159, 65504.0, 1e-8, 240.0, 57344.0, 447.9, 0.0625]
    return np.concatenate([rng.standard_normal(n) * 8, specials]).astype(np.float32)


@pytest.mark.parametrize("name", sorted(LOW))
def test_dtype_is_real_numpy(name: str) -> None:
    dtype, size = LOW[name]
    nd = numpy_dtype(dtype)
    assert nd == np.dtype(getattr(ml_dtypes, name)) and nd.itemsize == size
    assert dtype_of(np.zeros(2, nd)) is dtype
    assert dtype in LOW_PRECISION


@pytest.mark.parametrize("name", sorted(LOW))
def test_cast_from_float32_matches_torch_bit_for_bit(name: str) -> None:
    dtype, _ = LOW[name]
    x = _values()
    want = _torch_bits(torch.from_numpy(x).to(getattr(torch, name)))
    got = K.run_kernel("aten._to_copy.default", [x], {"dtype": dtype}, [dtype])
    assert isinstance(got, np.ndarray) and got.dtype == numpy_dtype(dtype)
    np.testing.assert_array_equal(_bits(got), want)


@pytest.mark.parametrize("name", sorted(LOW))
def test_cast_to_float32_matches_torch(name: str) -> None:
    dtype, _ = LOW[name]
    t = torch.from_numpy(_values()).to(getattr(torch, name))
    with np.errstate(invalid="ignore"):  # NaNs of the fnuz types
        ours = t.float().numpy().astype(numpy_dtype(dtype))  # the same bits, as an ml_dtypes array
    np.testing.assert_array_equal(_bits(ours), _torch_bits(t))
    got = K.run_kernel("aten._to_copy.default", [ours], {"dtype": DType.float32}, [DType.float32])
    np.testing.assert_array_equal(got, t.float().numpy())


@pytest.mark.parametrize("name", sorted(LOW))
def test_tensor_bytes_round_trip(name: str) -> None:
    dtype, size = LOW[name]
    t = torch.from_numpy(_values()).to(getattr(torch, name))
    raw = t.view(torch.uint8).numpy().tobytes()
    a = array_from_bytes(raw, dtype, [t.numel()])
    assert a.dtype == numpy_dtype(dtype) and a.nbytes == t.numel() * size
    assert bytes_from_array(a, dtype) == raw


BF16_OPS = [
    ("aten.add.Tensor", lambda a, b: a + b, 2),
    ("aten.mul.Tensor", lambda a, b: a * b, 2),
    ("aten.exp.default", lambda a: a.exp(), 1),
    ("aten.tanh.default", lambda a: a.tanh(), 1),
    ("aten.mm.default", lambda a, b: a @ b.T, 2),
    ("aten._softmax.default", lambda a: torch.ops.aten._softmax.default(a, -1, False), 1),
    ("aten.sum.dim_IntList", lambda a: a.sum([1]), 1),
]


@pytest.mark.parametrize(("op", "fn", "arity"), BF16_OPS, ids=[o[0] for o in BF16_OPS])
@pytest.mark.parametrize("shape", [(4, 4), (3, 16)])
def test_bf16_ops_against_torch(op: str, fn: Any, arity: int, shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(1)
    ts = [torch.from_numpy(rng.standard_normal(shape).astype(np.float32)).bfloat16() for _ in range(arity)]
    want = fn(*ts)
    ns = [t.float().numpy().astype(ml_dtypes.bfloat16) for t in ts]
    args: list[Any] = list(ns)
    if op == "aten.mm.default":
        args = [ns[0], np.ascontiguousarray(ns[1].T)]
    elif op == "aten._softmax.default":
        args += [-1, False]
    elif op == "aten.sum.dim_IntList":
        args += [[1]]
    got = K.run_kernel(op, args, {}, [DType.bfloat16])
    assert got.dtype == ml_dtypes.bfloat16 and got.shape == tuple(want.shape)
    # One rounding of a float32 result, as torch: equal, or one bf16 ulp apart where
    # float32 accumulation order differs (mm, sum).
    np.testing.assert_allclose(got.astype(np.float32), want.float().numpy(), rtol=2**-7, atol=1e-6)
    if op not in ("aten.mm.default", "aten.sum.dim_IntList"):
        np.testing.assert_array_equal(_bits(got), _torch_bits(want))


def test_inplace_on_bf16_writes_the_callers_array() -> None:
    x = np.array([1.0, 2.0, 3.0], np.float32).astype(ml_dtypes.bfloat16)
    res = K.run_kernel("aten.mul_.Scalar", [x, 1.01], {}, [DType.bfloat16])
    assert res is x and x.dtype == ml_dtypes.bfloat16
    want = torch.tensor([1.0, 2.0, 3.0], dtype=torch.bfloat16).mul_(1.01)
    np.testing.assert_array_equal(_bits(x), _torch_bits(want))


class _Bf16Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(8, 4).to(torch.bfloat16)
        self.register_buffer("scale", torch.tensor([0.5, 1.5, 2.0, 448.0]).to(torch.float8_e4m3fn))

    def forward(self, x: Any) -> tuple[Any, Any]:
        y = torch.relu(self.fc(x))
        return y, y.float() * self.scale.float()


def _program() -> tuple[Any, Any]:
    from xdsl_exir.frontends.torch_live import import_exported_program

    torch.manual_seed(0)
    ep = torch.export.export(_Bf16Model().eval(), (torch.randn(3, 8).bfloat16(),))
    return ep, import_exported_program(ep)


def test_program_with_bf16_io_and_float8_state() -> None:
    ep, module = _program()
    states = {op.sym_name.data: op for op in module.walk() if isinstance(op, StateOp)}
    scale = array_from_blob(states["scale"].value, states["scale"].state_type)  # pyright: ignore[reportArgumentType] - an imported tensor state holds a blob and a tensor type
    assert scale.dtype == ml_dtypes.float8_e4m3fn and scale.itemsize == 1
    weight = array_from_blob(states["fc.weight"].value, states["fc.weight"].state_type)  # pyright: ignore[reportArgumentType] - an imported tensor state holds a blob and a tensor type
    assert weight.dtype == ml_dtypes.bfloat16 and weight.itemsize == 2
    x = torch.randn(3, 8).bfloat16()
    with torch.no_grad():
        want = ep.module()(x)
    got = ProgramRunner(module)(x.float().numpy().astype(ml_dtypes.bfloat16))
    assert got[0].dtype == ml_dtypes.bfloat16 and got[1].dtype == np.float32
    np.testing.assert_allclose(got[0].astype(np.float32), want[0].float().numpy(), rtol=2**-7, atol=1e-3)
    np.testing.assert_allclose(got[1], want[1].numpy(), rtol=2**-7, atol=1e-3)


def test_npz_carries_bf16_as_float32_and_round_trips(tmp_path: pathlib.Path) -> None:
    ep, _ = _program()
    pt2 = tmp_path / "m.pt2"
    torch.export.save(ep, str(pt2))
    x = torch.randn(3, 8).bfloat16()
    np.savez(tmp_path / "in.npz", arg0=npz_array(x.float().numpy().astype(ml_dtypes.bfloat16)))
    first = exir_run(str(pt2), "--inputs", str(tmp_path / "in.npz"), "-o", str(tmp_path / "out.npz"))
    assert first.returncode == 0, first.stderr
    with np.load(tmp_path / "out.npz", allow_pickle=False) as out:
        y = out["out0"]
    assert y.dtype == np.float32
    assert np.array_equal(y.astype(ml_dtypes.bfloat16).astype(np.float32), y)  # bf16 values, exactly
    with torch.no_grad():
        want = ep.module()(x)[0].float().numpy()
    np.testing.assert_allclose(y, want, rtol=2**-7, atol=1e-3)


def test_python_api_takes_bf16_torch_tensors_and_returns_constants() -> None:
    import xdsl_exir.api as exir

    class M(torch.nn.Module):
        def forward(self, x: Any) -> tuple[Any, bool, int]:
            return x * 2, True, 3

    x = torch.tensor([1.5, 2.0, 3.0]).bfloat16()
    y, flag, n = exir.load(torch.export.export(M(), (x,)))(x)
    assert y.dtype == ml_dtypes.bfloat16 and (flag, n) == (True, 3)
    np.testing.assert_array_equal(_bits(y), _torch_bits(x * 2))
