"""
A kernel whose schema returns a Tensor returns a numpy array, never a numpy
scalar, even when it reduces every dim: numpy's full reductions give scalars
(`np.max(a)` is an `np.float32`), and the next kernel would read one as a Python
number (`aten.item.default` then refuses "'self' must be a tensor").

Each reduction runs three ways against torch eager: the bare kernel, the kernel
with the IR's result dtype applied (as the interpreter calls it), and a graph of
the interpreter that feeds the reduction into `item` and `add`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from xdsl_exir.dialects.exir import DType
from xdsl_exir.semantics import kernels as aten_kernels
from xdsl_exir.semantics.kernels import apply_result_dtype, run_kernel
from xdsl_exir.utils.dtypes import dtype_of

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(0)
X = _RNG.standard_normal((3, 4)).astype(np.float32)
B = X > 0
V = _RNG.standard_normal(5).astype(np.float32)
W = _RNG.standard_normal(5).astype(np.float32)
I = np.arange(12, dtype=np.int64).reshape(3, 4) - 5

Case = tuple[str, list[Any], dict[str, Any]]

CASES: list[Case] = [
    ("aten.amax.default", [X], {}),
    ("aten.amax.default", [X, [0, 1]], {}),
    ("aten.amin.default", [X], {}),
    ("aten.amin.default", [I, [0, 1]], {}),
    ("aten.max.default", [X], {}),
    ("aten.min.default", [I], {}),
    ("aten.sum.default", [X], {}),
    ("aten.sum.dim_IntList", [X, [0, 1]], {}),
    ("aten.sum.default", [I], {}),
    ("aten.prod.default", [X], {}),
    ("aten.mean.default", [X], {}),
    ("aten.mean.dim", [X, [0, 1]], {}),
    ("aten.nansum.default", [X], {}),
    ("aten.std.default", [X], {}),
    ("aten.std.correction", [X], {"dim": [0, 1]}),
    ("aten.var.default", [X], {}),
    ("aten.var.correction", [X], {"dim": [0, 1], "correction": 0}),
    ("aten.var_mean.correction", [X], {}),
    ("aten.std_mean.correction", [X], {}),
    ("aten.norm.Scalar", [X], {}),
    ("aten.norm.ScalarOpt_dim", [X, 1, [0, 1]], {}),
    ("aten.linalg_vector_norm.default", [X], {}),
    ("aten.linalg_vector_norm.default", [X, float("inf")], {}),
    ("aten.all.default", [B], {}),
    ("aten.any.default", [B], {}),
    ("aten.all.dims", [B, [0, 1]], {}),
    ("aten.any.dims", [X, [0, 1]], {}),
    ("aten.argmax.default", [X], {}),
    ("aten.argmin.default", [I], {}),
    ("aten.logsumexp.default", [X, [0, 1]], {}),
    ("aten.count_nonzero.default", [X], {}),
    ("aten.aminmax.default", [X], {}),
    ("aten.dot.default", [V, W], {}),
    ("aten.vdot.default", [V, W], {}),
    ("aten.trace.default", [X], {}),
    ("aten.max.dim", [V, 0], {}),
    ("aten.min.dim", [V, 0], {}),
    ("aten.mse_loss.default", [V, W], {}),
    ("aten.l1_loss.default", [V, W], {}),
    ("aten.smooth_l1_loss.default", [V, W], {}),
    ("aten.huber_loss.default", [V, W], {}),
    ("aten.dist.default", [V, W], {}),
    ("aten.cumsum.default", [np.asarray(np.float32(2.5)), 0], {}),
]


def _torch_args(values: list[Any]) -> list[Any]:
    return [torch.from_numpy(np.array(v)) if isinstance(v, np.ndarray) else v for v in values]


def _tensors(result: Any) -> list[Any]:
    return list(result) if isinstance(result, tuple | list) else [result]


def _check(got: Any, want: Any, what: str) -> None:
    gots, wants = _tensors(got), _tensors(want)
    assert len(gots) == len(wants), what
    for g, w in zip(gots, wants):
        assert type(g) is np.ndarray, f"{what}: a {type(g).__name__}, not a numpy array"
        expected = w.numpy()
        assert g.shape == expected.shape, f"{what}: shape {g.shape}, torch {expected.shape}"
        assert g.dtype == expected.dtype, f"{what}: {g.dtype}, torch {expected.dtype}"
        np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-6, err_msg=what)


def _ids(case: Case) -> str:
    name, args, kwargs = case
    return f"{name}-{len(args)}-{'-'.join(kwargs)}"


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_full_reduction_returns_an_array(case: Case) -> None:
    name, args, kwargs = case
    assert aten_kernels.has_kernel(name)
    op = getattr(getattr(torch.ops.aten, name.split(".")[1]), name.split(".")[2])
    want = op(*_torch_args(args), **kwargs)
    _check(run_kernel(name, args, kwargs), want, name)
    dtypes: list[DType | None] = [dtype_of(t.numpy()) for t in _tensors(want)]  # the IR's result dtypes
    _check(run_kernel(name, args, kwargs, dtypes), want, f"{name} with the IR's dtypes")


@pytest.mark.parametrize(
    "value",
    [np.float32(1.5), np.int64(-3), np.bool_(True), 2.5, 7, True],
    ids=["np.float32", "np.int64", "np.bool_", "float", "int", "bool"],
)
@pytest.mark.parametrize("dtype", [DType.float32, DType.float64, DType.int64, DType.bool, DType.bfloat16])
def test_a_scalar_for_a_tensor_result_becomes_a_0d_array(value: object, dtype: DType) -> None:
    got = apply_result_dtype(value, dtype)
    assert type(got) is np.ndarray and got.shape == ()
    want = torch.tensor(value).to(getattr(torch, dtype.value))
    assert got.dtype == aten_kernels.numpy_dtype(dtype)
    np.testing.assert_array_equal(np.asarray(got, np.float64), want.double().numpy())


def test_non_tensor_results_are_left_alone() -> None:
    """No dtype means the result is not a tensor (a SymInt, a list, None): it passes through."""
    for value in (3, 2.5, None, [np.float32(1)]):
        assert apply_result_dtype(value, None) is value


class _Reduce(torch.nn.Module):
    """A full reduction read back as a Python number, used as a scalar and as a tensor."""

    def __init__(self, reduce: Callable[[Any], Any]) -> None:
        super().__init__()
        self.reduce = reduce

    def forward(self, x: Any) -> Any:
        r = self.reduce(x)
        return x * r.item() + r, x + r.clamp(min=0.5).item()


@pytest.mark.parametrize(
    "reduce",
    [
        lambda x: x.amax(),
        lambda x: x.amin(dim=(0, 1)),
        lambda x: x.max(),
        lambda x: x.sum(),
        lambda x: x.prod(),
        lambda x: x.std(),
        lambda x: x.norm(),
        lambda x: x.abs().mean(),
    ],
    ids=["amax", "amin_dims", "max", "sum", "prod", "std", "norm", "abs_mean"],
)
def test_interpreter_feeds_a_full_reduction_to_item(reduce: Callable[[Any], Any]) -> None:
    """Both IRs: the reduction's result, and a `clamp` of it, reach `item` as tensors."""
    import pass_harness as ph

    from xdsl_exir.frontends.torch_live import import_exported_program
    from xdsl_exir.interpreters.program import ProgramRunner

    model = _Reduce(reduce).eval()
    x = torch.from_numpy(X.copy())
    want = model(x)
    ep = torch.export.export(model, (x,))
    for module in (import_exported_program(ep), ph.apply(import_exported_program(ep), "to-core-aten")):
        got = ProgramRunner(module).run([X.copy()])
        for g, w in zip(_tensors(got), want):
            assert type(g) is np.ndarray
            np.testing.assert_allclose(g, w.detach().numpy(), rtol=1e-5, atol=1e-6)
