"""Random kernels: ``rand``, ``randn``, ``randperm`` and dropout in training mode.

They draw from one module-level ``numpy.random.Generator`` seeded
deterministically (:func:`manual_seed`), so runs are reproducible; they do not
reproduce torch's random streams, which no numpy generator can.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xdsl_exir.interpreters.aten_kernels.creation import new_shape
from xdsl_exir.interpreters.aten_kernels.dtypes import F32, I64, cast_to, compute_dtype, finish, numpy_dtype_or_none
from xdsl_exir.interpreters.aten_kernels.registry import register

_GENERATOR: list[np.random.Generator] = [np.random.default_rng(0)]


def manual_seed(seed: int) -> None:
    """Reseed the generator behind the random kernels."""
    _GENERATOR[0] = np.random.default_rng(seed)


def _rng() -> np.random.Generator:
    return _GENERATOR[0]


@register("aten.rand.default")
def _rand(size: Sequence[int], dtype: object = None, **_: object) -> np.ndarray:
    return _rng().random(new_shape(size, np.dtype(np.float64))).astype(numpy_dtype_or_none(dtype) or F32)


@register("aten.randn.default")
def _randn(size: Sequence[int], dtype: object = None, **_: object) -> np.ndarray:
    return _rng().standard_normal(new_shape(size, np.dtype(np.float64))).astype(numpy_dtype_or_none(dtype) or F32)


@register("aten.randperm.default")
def _randperm(n: int, dtype: object = 4, **_: object) -> np.ndarray:
    return _rng().permutation(int(n)).astype(numpy_dtype_or_none(dtype) or I64)


# ---------------------------------------------------------------------------
# dropout and attention
# ---------------------------------------------------------------------------


@register("aten.native_dropout.default")
def native_dropout_kernel(input: np.ndarray, p: float, train: bool | None) -> tuple[np.ndarray, np.ndarray]:
    """Training mode draws the keep mask from the module generator (scaled by 1/(1-p))."""
    a = np.asarray(input)
    if train is False or p == 0:
        return a.copy(), np.ones(a.shape, dtype=bool)
    keep = _rng().random(a.shape) >= p
    scale = 0.0 if p >= 1 else 1.0 / (1.0 - p)
    return finish(cast_to(a, compute_dtype(a.dtype)) * keep * scale, a.dtype), keep


@register("aten.dropout.default")
def _dropout(input: np.ndarray, p: float, train: bool) -> np.ndarray:
    return native_dropout_kernel(input, p, train)[0]
