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


# ---------------------------------------------------------------------------
# Bernoulli draws and randomized leaky ReLU
# ---------------------------------------------------------------------------


@register("aten.bernoulli.default")
def _bernoulli(self: np.ndarray, generator: object = None) -> np.ndarray:
    """One draw per element with the element's value as probability, in `self`'s dtype."""
    a = np.asarray(self)
    return (_rng().random(a.shape) < a).astype(a.dtype)


@register("aten.bernoulli.p")
def _bernoulli_p(self: np.ndarray, p: float = 0.5, generator: object = None) -> np.ndarray:
    a = np.asarray(self)
    return (_rng().random(a.shape) < float(p)).astype(a.dtype)


@register("aten.bernoulli.Tensor")
def _bernoulli_tensor(self: np.ndarray, p: np.ndarray, generator: object = None) -> np.ndarray:
    a = np.asarray(self)
    return (_rng().random(a.shape) < np.broadcast_to(np.asarray(p), a.shape)).astype(a.dtype)


def _rrelu_slopes(shape: tuple[int, ...], lower: float, upper: float, training: bool) -> np.ndarray | float:
    if not training:
        return (float(lower) + float(upper)) / 2
    return _rng().uniform(float(lower), float(upper), shape)


@register("aten.rrelu.default")
def _rrelu(self: np.ndarray, lower: float = 0.125, upper: float = 1 / 3, training: bool = False,
           generator: object = None) -> np.ndarray:
    """Negative inputs scaled by a slope drawn from U(lower, upper) per element in training,
    by (lower + upper) / 2 in evaluation, as torch's `rrelu`."""
    return _rrelu_with_noise_functional(self, np.empty(0), lower, upper, training)[0]


@register("aten.rrelu_with_noise_functional.default")
def _rrelu_with_noise_functional(
    self: np.ndarray, noise: np.ndarray, lower: float = 0.125, upper: float = 1 / 3, training: bool = False,
    generator: object = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The functional `rrelu_with_noise`: the result and the slopes used (`noise_out`: the
    slope where the input is negative, 1 elsewhere; `noise` unchanged in evaluation)."""
    a = np.asarray(self)
    c = cast_to(a, compute_dtype(a.dtype))
    slopes = _rrelu_slopes(a.shape, lower, upper, bool(training))
    out = np.where(c >= 0, c, c * slopes)
    if training:
        noise_out = np.where(c >= 0, 1.0, slopes).astype(a.dtype)
    else:
        noise_out = np.array(noise, copy=True)
    return finish(out, a.dtype), noise_out


@register("aten.rrelu_with_noise.default")
def _rrelu_with_noise(
    self: np.ndarray, noise: np.ndarray, lower: float = 0.125, upper: float = 1 / 3, training: bool = False,
    generator: object = None,
) -> np.ndarray:
    """`rrelu_with_noise` writes the slopes into `noise` (in training), as torch does."""
    out, noise_out = _rrelu_with_noise_functional(self, noise, lower, upper, training)
    if training and isinstance(noise, np.ndarray) and noise.shape == noise_out.shape and noise.flags.writeable:
        np.copyto(noise, noise_out, casting="unsafe")
    return out
