"""Fit the rational approximations of erf that `semantics/kernels/pointwise.py` evaluates.

Usage: python scripts/fit_erf.py

Each fit is P(v)/Q(v) (Q's constant term 1) to a function f on an interval,
minimising the error relative to a scale s(x): linearised least squares
(P - f Q)/(s Q_previous) on Chebyshev nodes, with Lawson's reweighting towards
the minimax solution, in mpmath at 60 digits (float32 GELU's fit is a polynomial:
degree 0 for Q). It prints the largest error on the
nodes and the coefficients in increasing powers, as the kernel module holds them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mpmath as mp

Real = Any  # mpmath's mpf (untyped)
Fn = Callable[[Real], Real]


def fit(
    f: Fn, scale: Fn, var: Fn, lo: float, hi: float, m: int, n: int, nodes: int = 400, rounds: int = 40
) -> tuple[Real, list[Real], list[Real]]:
    """Max relative error, numerator and denominator coefficients (increasing powers)."""
    a, b = mp.mpf(lo), mp.mpf(hi)
    xs = [a + (b - a) * (1 - mp.cos(mp.pi * (i + mp.mpf(1) / 2) / nodes)) / 2 for i in range(nodes)]
    vs, fs, ss = [var(x) for x in xs], [f(x) for x in xs], [scale(x) for x in xs]
    q_prev = [mp.mpf(1)] * nodes
    weights = [mp.mpf(1)] * nodes
    best: tuple[Real, list[Real], list[Real]] | None = None
    for _ in range(rounds):
        A = mp.matrix(nodes, m + 1 + n)
        rhs = mp.matrix(nodes, 1)
        for i in range(nodes):
            r = mp.sqrt(weights[i]) / (ss[i] * q_prev[i])
            for j in range(m + 1):
                A[i, j] = r * vs[i] ** j
            for j in range(1, n + 1):
                A[i, m + j] = -r * fs[i] * vs[i] ** j
            rhs[i] = r * fs[i]
        sol, _ = mp.qr_solve(A, rhs)
        p = [sol[j] for j in range(m + 1)]
        q = [mp.mpf(1)] + [sol[m + j] for j in range(1, n + 1)]
        errors = []
        for i in range(nodes):
            qv = mp.polyval(q[::-1], vs[i])
            errors.append((mp.polyval(p[::-1], vs[i]) / qv - fs[i]) / ss[i])
            q_prev[i] = abs(qv)
        worst = max(abs(e) for e in errors)
        if best is None or worst < best[0]:
            best = (worst, p, q)
        total = sum(w * abs(e) for w, e in zip(weights, errors))
        weights = [w * abs(e) / total * nodes for w, e in zip(weights, errors)]
    assert best is not None
    return best


def _erf_over_x(x: Real) -> Real:
    return mp.erf(x) / x if x else 2 / mp.sqrt(mp.pi)


def _gelu_tanh_arg(x: Real) -> Real:
    """atanh(erf(x/sqrt 2)): float32 GELU is x/2 (1 + tanh(x G(x^2))), G = this over x."""
    return mp.atanh(mp.erf(x / mp.sqrt(2)))


def _gelu_g(x: Real) -> Real:
    return _gelu_tanh_arg(x) / x if x else mp.sqrt(2 / mp.pi)


def _gelu_g_scale(x: Real) -> Real:
    """Error of G as error of Phi = (1 + tanh)/2: times x sech^2 / 2."""
    return 1 / (mp.sech(_gelu_tanh_arg(x)) ** 2 * x / 2)


def main() -> None:
    mp.mp.dps = 60
    square: Fn = lambda x: x * x  # noqa: E731 - a typed one-line function beside the fitted ones
    fits: dict[str, tuple[Fn, Fn, Fn, float, float, int, int]] = {
        # float32: erf(x)/x in x^2 on [0, 4], relative error
        "_ERF32": (_erf_over_x, _erf_over_x, square, 0.0, 4.0, 6, 5),
        # float32 GELU: a polynomial G in x^2 with Phi(x) = (1 + tanh(x G(x^2)))/2 on [0, 6],
        # absolute error of Phi (torch's float32 GELU is itself a few ulp off); beyond 6,
        # x G(x^2) > 9 keeps tanh at 1 in float32
        "_GELU_F32": (_gelu_g, _gelu_g_scale, square, 0.0, 6.0, 6, 0),
        # float64, |x| <= 1: erf(x)/x - 1 in x^2, error relative to erf(x)/x
        "_ERF64": (lambda x: _erf_over_x(x) - 1, _erf_over_x, square, 0.0, 1.0, 5, 5),
        # float64, 1 <= x <= 6: erfc(x) exp(x^2) in x, relative error
        "_ERFCX": (
            lambda x: mp.erfc(x) * mp.exp(x * x),
            lambda x: mp.erfc(x) * mp.exp(x * x),
            lambda x: x,
            1.0,
            6.0,
            7,
            8,
        ),
    }
    for name, (f, scale, var, lo, hi, m, n) in fits.items():
        worst, p, q = fit(f, scale, var, lo, hi, m, n)
        print(f"{name}: degrees ({m}, {n}) on [{lo}, {hi}], max error over the scale {mp.nstr(worst, 3)}")
        print(f"{name}_P = ({', '.join(str(mp.nstr(c, 20)) for c in p)})")
        print(f"{name}_Q = ({', '.join(str(mp.nstr(c, 20)) for c in q)})")


if __name__ == "__main__":
    main()
