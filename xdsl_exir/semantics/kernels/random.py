"""Random kernels: the samplers (``rand``, ``randn``, ``randint``, ``normal``, ``uniform``, ...) and dropout in training mode.

They draw from one module-level ``numpy.random.Generator`` seeded
deterministically (:func:`manual_seed`), so runs are reproducible; they do not
reproduce torch's random streams, which no numpy generator can.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from xdsl_exir.semantics.kernels.core import new_shape
from xdsl_exir.semantics.kernels.dtypes import F32, I64, cast_to, compute_dtype, finish, numpy_dtype_or_none
from xdsl_exir.semantics.kernels.registry import register

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
def _rrelu(
    self: np.ndarray, lower: float = 0.125, upper: float = 1 / 3, training: bool = False, generator: object = None
) -> np.ndarray:
    """Negative inputs scaled by a slope drawn from U(lower, upper) per element in training,
    by (lower + upper) / 2 in evaluation, as torch's `rrelu`."""
    return _rrelu_with_noise_functional(self, np.empty(0), lower, upper, training)[0]


@register("aten.rrelu_with_noise_functional.default")
def _rrelu_with_noise_functional(
    self: np.ndarray,
    noise: np.ndarray,
    lower: float = 0.125,
    upper: float = 1 / 3,
    training: bool = False,
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
    self: np.ndarray,
    noise: np.ndarray,
    lower: float = 0.125,
    upper: float = 1 / 3,
    training: bool = False,
    generator: object = None,
) -> np.ndarray:
    """`rrelu_with_noise` writes the slopes into `noise` (in training), as torch does."""
    out, noise_out = _rrelu_with_noise_functional(self, noise, lower, upper, training)
    if training and isinstance(noise, np.ndarray) and noise.shape == noise_out.shape and noise.flags.writeable:
        np.copyto(noise, noise_out, casting="unsafe")
    return out


# ---------------------------------------------------------------------------
# samplers: the creation forms, the *_like forms and the functional forms of the in-place ones
# ---------------------------------------------------------------------------


def _like_dtype(self: np.ndarray, dtype: object) -> np.dtype[Any]:
    return numpy_dtype_or_none(dtype) or np.asarray(self).dtype


def _float_like(self: np.ndarray) -> np.dtype[Any]:
    dt = np.asarray(self).dtype
    return dt if dt.kind == "f" else F32


register("aten.rand.generator")(_rand)
register("aten.randn.generator")(_randn)
register("aten.randperm.generator")(_randperm)


@register("aten.rand_like.default", "aten.rand_like.generator")
def _rand_like(self: np.ndarray, dtype: object = None, **_: object) -> np.ndarray:
    return _rng().random(np.shape(self)).astype(_like_dtype(self, dtype))


@register("aten.randn_like.default", "aten.randn_like.generator")
def _randn_like(self: np.ndarray, dtype: object = None, **_: object) -> np.ndarray:
    return _rng().standard_normal(np.shape(self)).astype(_like_dtype(self, dtype))


def _integers(low: int, high: int, shape: tuple[int, ...], dt: np.dtype[Any]) -> np.ndarray:
    """Uniform integers in [low, high), as torch's `randint` (an empty range is torch's error too)."""
    if int(high) <= int(low):
        raise ValueError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    return _rng().integers(int(low), int(high), size=shape).astype(dt)


@register("aten.randint.default", "aten.randint.generator")
def _randint(high: int, size: Sequence[int], dtype: object = 4, **_: object) -> np.ndarray:
    dt = numpy_dtype_or_none(dtype) or I64
    return _integers(0, high, new_shape(size, dt), dt)


@register("aten.randint.low", "aten.randint.low_generator")
def _randint_low(low: int, high: int, size: Sequence[int], dtype: object = 4, **_: object) -> np.ndarray:
    dt = numpy_dtype_or_none(dtype) or I64
    return _integers(low, high, new_shape(size, dt), dt)


@register(
    "aten.randint_like.default",
    "aten.randint_like.generator",
    "aten.randint_like.Tensor",
    "aten.randint_like.Tensor_generator",
)
def _randint_like(self: np.ndarray, high: object, dtype: object = None, **_: object) -> np.ndarray:
    return _integers(0, int(np.asarray(high)), np.shape(self), _like_dtype(self, dtype))


@register("aten.randint_like.low_dtype", "aten.randint_like.low_generator_dtype")
def _randint_like_low(self: np.ndarray, low: int, high: int, dtype: object = None, **_: object) -> np.ndarray:
    return _integers(low, high, np.shape(self), _like_dtype(self, dtype))


@register("aten.normal.Tensor_Tensor", "aten.normal.Tensor_float", "aten.normal.float_Tensor")
def _normal(mean: object, std: object = 1.0, generator: object = None) -> np.ndarray:
    """N(mean, std) element by element; the result has the broadcast shape and the tensor operand's dtype."""
    m, s = np.asarray(mean), np.asarray(std)
    if np.any(s < 0):
        raise ValueError(f"normal expects all elements of std >= 0.0, got {float(np.min(s))}")
    dt = m.dtype if isinstance(mean, np.ndarray) and m.dtype.kind == "f" else _float_like(s)
    shape = np.broadcast_shapes(m.shape, s.shape)
    return (m + s * _rng().standard_normal(shape)).astype(dt)


@register("aten.normal.float_float")
def _normal_sized(mean: float, std: float, size: Sequence[int], dtype: object = None, **_: object) -> np.ndarray:
    dt = numpy_dtype_or_none(dtype) or F32
    return (float(mean) + float(std) * _rng().standard_normal(new_shape(size, dt))).astype(dt)


@register("aten.normal_functional.default")
def _normal_functional(self: np.ndarray, mean: float = 0.0, std: float = 1.0, generator: object = None) -> np.ndarray:
    return (float(mean) + float(std) * _rng().standard_normal(np.shape(self))).astype(_float_like(self))


@register("aten.uniform.default")
def _uniform(
    self: np.ndarray, from_: float = 0.0, to: float = 1.0, generator: object = None, **kw: object
) -> np.ndarray:
    """U[from, to) (`from` is a Python keyword: the binder hands it over by name)."""
    low = float(kw.get("from", from_))  # pyright: ignore[reportArgumentType] - a float once bound
    return _rng().uniform(low, float(to), np.shape(self)).astype(_float_like(self))


@register("aten.exponential.default")
def _exponential(self: np.ndarray, lambd: float = 1.0, generator: object = None) -> np.ndarray:
    return _rng().exponential(1.0 / float(lambd), np.shape(self)).astype(_float_like(self))


@register("aten.geometric.default")
def _geometric(self: np.ndarray, p: float, generator: object = None) -> np.ndarray:
    """The number of Bernoulli(p) trials up to and including the first success (support 1, 2, ...)."""
    return _rng().geometric(float(p), np.shape(self)).astype(np.asarray(self).dtype)


@register("aten.log_normal.default")
def _log_normal(self: np.ndarray, mean: float = 1.0, std: float = 2.0, generator: object = None) -> np.ndarray:
    return _rng().lognormal(float(mean), float(std), np.shape(self)).astype(_float_like(self))


@register("aten.cauchy.default")
def _cauchy(self: np.ndarray, median: float = 0.0, sigma: float = 1.0, generator: object = None) -> np.ndarray:
    return (float(median) + float(sigma) * _rng().standard_cauchy(np.shape(self))).astype(_float_like(self))


def _random_bound(dt: np.dtype[Any]) -> int:
    """torch's `random_()` upper bound: 2^mantissa digits for floats, the type's maximum for integers."""
    if dt.kind == "f":
        return 2 ** (np.finfo(dt).nmant + 1)
    if dt.kind == "b":
        return 2
    return int(np.iinfo(dt).max) + 1


@register("aten.random.default")
def _random(self: np.ndarray, generator: object = None) -> np.ndarray:
    a = np.asarray(self)
    return _rng().integers(0, _random_bound(a.dtype), a.shape, dtype=np.int64).astype(a.dtype)


@register("aten.random.to")
def _random_to(self: np.ndarray, to: int, generator: object = None) -> np.ndarray:
    a = np.asarray(self)
    return _integers(0, to, a.shape, a.dtype)


@register("aten.random.from")
def _random_from(self: np.ndarray, to: int | None, generator: object = None, **kw: object) -> np.ndarray:
    a = np.asarray(self)
    low = int(kw["from"])  # pyright: ignore[reportArgumentType] - an int once bound
    return _integers(low, _random_bound(a.dtype) if to is None else to, a.shape, a.dtype)


@register("aten.multinomial.default")
def _multinomial(self: np.ndarray, num_samples: int, replacement: bool = False, generator: object = None) -> np.ndarray:
    """Indices drawn in proportion to each row's weights (without replacement: each index at most once)."""
    w = np.asarray(self, dtype=np.float64)
    k = int(num_samples)
    if w.ndim not in (1, 2):
        raise ValueError(f"multinomial: the probabilities must be a 1-d or 2-d tensor, but they are {w.ndim}-d")
    if k <= 0:
        raise ValueError(f"multinomial: cannot sample {k} samples: num_samples must be positive")
    # Rows of no categories have nothing to draw from; no rows at all give no draws.
    rows = w.reshape(1 if w.ndim == 1 else w.shape[0], w.shape[-1])
    if rows.shape[0] and not rows.shape[1]:
        raise ValueError("multinomial: the probability rows have no categories (their last dimension is 0) to sample from")
    if np.any(rows < 0) or not np.all(np.isfinite(rows)) or np.any(rows.sum(axis=-1) <= 0):
        raise ValueError(
            "multinomial: probability tensor contains either `inf`, `nan` or element < 0, or rows sum to 0"
        )
    if not replacement and k > rows.shape[-1]:
        raise ValueError("multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if not replacement and np.any(np.count_nonzero(rows, axis=-1) < k):
        raise ValueError(
            "multinomial: invalid distribution (with replacement=False, not enough non-zero categories to sample)"
        )
    out = np.empty((rows.shape[0], k), dtype=I64)
    for i, r in enumerate(rows):
        out[i] = _rng().choice(r.size, size=k, replace=bool(replacement), p=r / r.sum())
    return out.reshape(*w.shape[:-1], k)


@register("aten.poisson.default")
def _poisson(self: np.ndarray, generator: object = None) -> np.ndarray:
    a = np.asarray(self)
    return _rng().poisson(a.astype(np.float64)).astype(a.dtype)


@register("aten.binomial.default")
def _binomial(count: np.ndarray, prob: np.ndarray, generator: object = None) -> np.ndarray:
    c = np.asarray(count)
    return _rng().binomial(c.astype(np.int64), np.asarray(prob, dtype=np.float64)).astype(c.dtype)


@register("aten._standard_gamma.default")
def _standard_gamma(self: np.ndarray, generator: object = None) -> np.ndarray:
    a = np.asarray(self)
    return _rng().standard_gamma(a.astype(np.float64)).astype(a.dtype)


@register("aten._sample_dirichlet.default")
def _sample_dirichlet(self: np.ndarray, generator: object = None) -> np.ndarray:
    a = np.asarray(self)
    g = _rng().standard_gamma(a.astype(np.float64))
    return (g / g.sum(axis=-1, keepdims=True)).astype(a.dtype)
