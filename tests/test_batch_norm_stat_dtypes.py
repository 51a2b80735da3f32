"""
Batch norm's saved statistics have torch's dtypes: the input's (float16 included),
or float32 for a float16 input with float32 parameters (torch's mixed-dtype CPU
kernel); other mixes are refused as torch refuses them. Values against torch
eager, edge values included, for every batch norm variant with a kernel.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from xdsl_exir.semantics import kernels as aten_kernels

torch = pytest.importorskip("torch")
A = torch.ops.aten


def _input(dtype: object) -> Any:
    x = torch.randn(3, 4, 5, generator=torch.Generator().manual_seed(0)).to(dtype).transpose(0, 2)  # non-contiguous
    x[0, 0, 0], x[1, 1, 1], x[2, 2, 2] = -0.0, float("inf"), -float("inf")
    x[3, 3, 0] = float("nan")
    return x


def _params(dtype: object) -> list[Any]:
    g = torch.Generator().manual_seed(1)
    return [torch.rand(4, generator=g).to(dtype) + 0.5, torch.randn(4, generator=g).to(dtype),
            torch.randn(4, generator=g).to(dtype), torch.rand(4, generator=g).to(dtype) + 0.5]


def _np(v: Any) -> Any:
    return v.numpy() if isinstance(v, torch.Tensor) else v


VARIANTS = {
    "native_train": ("aten.native_batch_norm.default", lambda x, w, b, m, v: [x, w, b, m, v, True, 0.1, 1e-5]),
    "native_eval": ("aten.native_batch_norm.default", lambda x, w, b, m, v: [x, w, b, m, v, False, 0.1, 1e-5]),
    "legit_train": ("aten._native_batch_norm_legit.default", lambda x, w, b, m, v: [x, w, b, m, v, True, 0.1, 1e-5]),
    "legit_eval": ("aten._native_batch_norm_legit.default", lambda x, w, b, m, v: [x, w, b, m, v, False, 0.1, 1e-5]),
    "no_training": ("aten._native_batch_norm_legit_no_training.default", lambda x, w, b, m, v: [x, w, b, m, v, 0.1, 1e-5]),
    "no_stats": ("aten._native_batch_norm_legit.no_stats", lambda x, w, b, m, v: [x, w, b, True, 0.1, 1e-5]),
    "functional_train": ("aten._native_batch_norm_legit_functional.default", lambda x, w, b, m, v: [x, w, b, m, v, True, 0.1, 1e-5]),
    "functional_eval": ("aten._native_batch_norm_legit_functional.default", lambda x, w, b, m, v: [x, w, b, m, v, False, 0.1, 1e-5]),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize(("dtype", "param_dtype"), [(torch.float16, torch.float16), (torch.float16, torch.float32),
                                                    (torch.float32, torch.float32), (torch.float64, torch.float64)])
def test_statistics_dtypes_and_values(variant: str, dtype: object, param_dtype: object) -> None:
    target, make = VARIANTS[variant]
    if not aten_kernels.has_kernel(target):
        pytest.skip(f"{target} has no kernel (decomposed)")
    x, (w, b, m, v) = _input(dtype), _params(param_dtype)
    want = getattr(getattr(A, target.split(".")[1]), target.split(".")[2])(*make(x, w, b, m.clone(), v.clone()))
    got: Any = aten_kernels.run_kernel(target, [_np(a) for a in make(x, w, b, m.clone(), v.clone())], {})
    assert len(got) == len(want)
    tol = 2e-3 if dtype == torch.float16 else 1e-5
    for g, t in zip(got, want):
        assert g.dtype == _np(t).dtype, (variant, g.dtype, t.dtype)
        assert g.shape == tuple(t.shape)
        np.testing.assert_allclose(g.astype(np.float64), t.double().numpy(), rtol=tol, atol=tol)


def test_statistics_of_an_empty_batch_keep_the_dtype() -> None:
    x = torch.empty(0, 3, 2, dtype=torch.float16)
    w, b, m, v = _params(torch.float16)[:4]
    want = A.native_batch_norm(x, w, b, m[:3].clone(), v[:3].clone(), False, 0.1, 1e-5)
    got: Any = aten_kernels.run_kernel("aten.native_batch_norm.default", [x.numpy(), w[:3].numpy(), b[:3].numpy(),
                                  m[:3].numpy().copy(), v[:3].numpy().copy(), False, 0.1, 1e-5], {})
    assert [g.dtype for g in got] == [t.numpy().dtype for t in want]
    assert [g.shape for g in got] == [tuple(t.shape) for t in want]


@pytest.mark.parametrize(("dtype", "wdt", "mdt"), [(torch.float16, torch.float16, torch.float32),
                                                   (torch.float32, torch.float64, torch.float32)])
def test_mixed_parameters_torch_refuses_are_refused(dtype: object, wdt: object, mdt: object) -> None:
    x = _input(dtype)
    w, m, v = torch.ones(4, dtype=wdt), torch.zeros(4, dtype=mdt), torch.ones(4, dtype=mdt)
    with pytest.raises(RuntimeError):
        A.native_batch_norm(x, w, None, m, v, True, 0.1, 1e-5)
    with pytest.raises(ValueError, match="batch_norm: .*parameters of dtypes"):
        aten_kernels.run_kernel("aten.native_batch_norm.default", [x.numpy(), w.numpy(), None, m.numpy(), v.numpy(), True, 0.1, 1e-5], {})
