"""
The random samplers (`semantics/kernels/random.py`) by shape, dtype, range and distribution.

Values cannot match torch's (no numpy generator reproduces torch's streams), so
each sampler is checked against torch for the shape and dtype of its result
and against its distribution: a Kolmogorov-Smirnov statistic below the
critical value at significance 1e-6 for continuous distributions, and mean and
variance within six standard errors for discrete ones. The generator is seeded
(`manual_seed`), so every check is deterministic, not a flaky threshold.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from xdsl_exir.semantics import kernels as aten_kernels

torch = pytest.importorskip("torch")

N = 20_000
KS_CRITICAL = math.sqrt(-math.log(1e-6 / 2) / (2 * N))


def _run(op: str, args: list[Any], kwargs: dict[str, Any] | None = None) -> np.ndarray:
    aten_kernels.manual_seed(1234)
    ours = {k: str(v).removeprefix("torch.") if isinstance(v, torch.dtype) else v for k, v in (kwargs or {}).items()}
    return np.asarray(aten_kernels.run_kernel(op, args, ours))


def _torch(op: str, args: list[Any], kwargs: dict[str, Any] | None = None) -> Any:
    name, overload = op.removeprefix("aten.").split(".")
    conv = [torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in args]
    return getattr(getattr(torch.ops.aten, name), overload)(*conv, **(kwargs or {}))


def _same_meta(op: str, args: list[Any], kwargs: dict[str, Any] | None = None) -> np.ndarray:
    got = _run(op, args, kwargs)
    want = _torch(op, args, kwargs)
    assert got.shape == tuple(want.shape), f"{op}: shape {got.shape} != torch's {tuple(want.shape)}"
    assert got.dtype == np.dtype(str(want.dtype).removeprefix("torch.")), (
        f"{op}: dtype {got.dtype} != torch's {want.dtype}"
    )
    return got


def _ks(sample: np.ndarray, cdf: Callable[[np.ndarray], np.ndarray]) -> float:
    x = np.sort(sample.astype(np.float64).reshape(-1))
    f = cdf(x)
    n = x.size
    return float(max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n)))


_erf = np.vectorize(math.erf)


def _normal_cdf(mean: float, std: float) -> Callable[[np.ndarray], np.ndarray]:
    return lambda x: 0.5 * (1 + _erf((x - mean) / (std * math.sqrt(2))))


ZEROS = np.zeros((N // 100, 100), np.float32)
CONTINUOUS = [
    ("aten.rand_like.default", [ZEROS], {}, lambda x: np.clip(x, 0, 1)),
    ("aten.randn_like.default", [ZEROS.astype(np.float64)], {}, _normal_cdf(0, 1)),
    ("aten.rand.generator", [[N // 100, 100]], {"generator": None}, lambda x: np.clip(x, 0, 1)),
    ("aten.randn.generator", [[N]], {"generator": None}, _normal_cdf(0, 1)),
    ("aten.uniform.default", [ZEROS], {"from": -2.0, "to": 3.0}, lambda x: np.clip((x + 2) / 5, 0, 1)),
    ("aten.normal_functional.default", [ZEROS], {"mean": 1.5, "std": 0.5}, _normal_cdf(1.5, 0.5)),
    ("aten.normal.float_float", [2.0, 3.0, [N]], {}, _normal_cdf(2.0, 3.0)),
    ("aten.normal.Tensor_float", [np.full(N, -1.0)], {"std": 2.0}, _normal_cdf(-1.0, 2.0)),
    ("aten.normal.float_Tensor", [0.5, np.full(N, 0.25, np.float32)], {}, _normal_cdf(0.5, 0.25)),
    ("aten.normal.Tensor_Tensor", [np.full((N // 4, 1), 3.0), np.full((4,), 2.0)], {}, _normal_cdf(3.0, 2.0)),
    ("aten.exponential.default", [ZEROS], {"lambd": 2.5}, lambda x: 1 - np.exp(-2.5 * x)),
    (
        "aten.cauchy.default",
        [ZEROS.astype(np.float64)],
        {"median": 1.0, "sigma": 2.0},
        lambda x: 0.5 + np.arctan((x - 1.0) / 2.0) / math.pi,
    ),
    (
        "aten.log_normal.default",
        [ZEROS],
        {"mean": 0.5, "std": 0.75},
        lambda x: 0.5 * (1 + _erf((np.log(np.maximum(x, 1e-300)) - 0.5) / (0.75 * math.sqrt(2)))),
    ),
]


@pytest.mark.parametrize(("op", "args", "kwargs", "cdf"), CONTINUOUS, ids=[c[0] for c in CONTINUOUS])
def test_continuous_sampler(
    op: str, args: list[Any], kwargs: dict[str, Any], cdf: Callable[[np.ndarray], np.ndarray]
) -> None:
    sample = _same_meta(op, args, kwargs)
    d = _ks(sample, cdf)
    assert d < KS_CRITICAL, f"{op}: KS statistic {d:.4f} >= {KS_CRITICAL:.4f}"


DISCRETE = [
    # op, args, kwargs, support (low, high inclusive), mean, variance
    ("aten.randint.default", [10, [N]], {}, (0, 9), 4.5, (100 - 1) / 12),
    ("aten.randint.low", [-3, 5, [N]], {"dtype": torch.int32}, (-3, 4), 0.5, (64 - 1) / 12),
    ("aten.randint_like.default", [np.zeros(N, np.int64), 6], {}, (0, 5), 2.5, 35 / 12),
    ("aten.randint_like.low_dtype", [np.zeros(N, np.float32), 1, 7], {}, (1, 6), 3.5, 35 / 12),
    ("aten.random.to", [np.zeros(N, np.int64), 8], {}, (0, 7), 3.5, 63 / 12),
    ("aten.random.from", [np.zeros(N, np.int32), -4, 4], {}, (-4, 3), -0.5, 63 / 12),
    ("aten.random.default", [np.zeros(N, np.uint8)], {}, (0, 255), 127.5, (256**2 - 1) / 12),
    ("aten.geometric.default", [ZEROS], {"p": 0.3}, (1, 10**9), 1 / 0.3, 0.7 / 0.09),
    ("aten.poisson.default", [np.full(N, 3.5, np.float32)], {}, (0, 10**9), 3.5, 3.5),
    ("aten.binomial.default", [np.full(N, 10.0), np.full(N, 0.25)], {}, (0, 10), 2.5, 10 * 0.25 * 0.75),
]


@pytest.mark.parametrize(("op", "args", "kwargs", "support", "mean", "var"), DISCRETE, ids=[c[0] for c in DISCRETE])
def test_discrete_sampler(
    op: str, args: list[Any], kwargs: dict[str, Any], support: tuple[int, int], mean: float, var: float
) -> None:
    sample = _same_meta(op, args, kwargs).astype(np.float64)
    assert sample.min() >= support[0] and sample.max() <= support[1]
    assert np.all(sample == np.round(sample)), "integer values"
    n = sample.size
    assert abs(sample.mean() - mean) < 6 * math.sqrt(var / n), f"{op}: mean {sample.mean()} vs {mean}"
    # the sample variance's standard error is about var * sqrt(2 / n) for these light-tailed laws
    assert abs(sample.var() - var) < 6 * var * math.sqrt(2 / n) + 6 * math.sqrt(var / n), (
        f"{op}: var {sample.var()} vs {var}"
    )


def test_multinomial_frequencies_and_no_repeats() -> None:
    p = np.array([[1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 0.0, 1.0]])
    with_repl = _same_meta("aten.multinomial.default", [p, N // 2, True])
    for row, draws in zip(p, with_repl):
        freq = np.bincount(draws, minlength=4) / draws.size
        want = row / row.sum()
        assert np.all(np.abs(freq - want) < 6 * np.sqrt(want * (1 - want) / draws.size) + 1e-12)
    without = _same_meta("aten.multinomial.default", [np.tile(p[:1], (500, 1)), 3, False])
    assert all(len(set(r.tolist())) == 3 for r in without)
    # the largest weight is drawn first more often than any other
    assert np.argmax(np.bincount(without[:, 0], minlength=4)) == 3
    with pytest.raises(ValueError, match="not enough"):
        _run("aten.multinomial.default", [p[1:], 3, False])


def test_gamma_and_dirichlet() -> None:
    alpha = np.full(N, 2.5)
    g = _same_meta("aten._standard_gamma.default", [alpha])
    assert abs(g.mean() - 2.5) < 6 * math.sqrt(2.5 / N) and g.min() > 0
    conc = np.tile(np.array([1.0, 2.0, 5.0]), (N // 3, 1))
    d = _same_meta("aten._sample_dirichlet.default", [conc])
    np.testing.assert_allclose(d.sum(axis=-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(d.mean(axis=0), [1 / 8, 2 / 8, 5 / 8], atol=6 * math.sqrt(0.25 / (N // 3)))


def test_samplers_are_reproducible_and_seeded() -> None:
    a = _run("aten.randint.low", [0, 100, [50]])
    b = _run("aten.randint.low", [0, 100, [50]])
    np.testing.assert_array_equal(a, b)
    aten_kernels.manual_seed(99)
    c = np.asarray(aten_kernels.run_kernel("aten.randint.low", [0, 100, [50]], {}))
    assert not np.array_equal(a, c)


def test_invalid_ranges_are_errors() -> None:
    with pytest.raises(ValueError, match="from"):
        _run("aten.randint.low", [5, 5, [3]])
    with pytest.raises(ValueError, match="std"):
        _run("aten.normal.Tensor_Tensor", [np.zeros(3), -np.ones(3)])
