"""
2-D average pooling as one elementwise generic over its window taps
(`conv_pool._AVG_POOL_TAPS`: no padding, every window full), against the window
reduction it replaces, bit for bit (the same float64 sum in the same order),
and against torch eager, in xDSL's interpreter of the lowered program and
natively with IREE. The cases: DenseNet's 2x2 transition pool on a
non-contiguous input, overlapping 3x3 windows of stride 1, an uneven 2x3 kernel
of stride (1, 3), a divisor, a batch of two with odd sizes whose last row and
column no window reads, float64, a float32 adaptive pool of uniform windows,
and pools the form leaves alone (padded, ceil mode with a partial window, an
empty batch); NaN, +-inf, windows of -0.0 alone and large values of both signs.
"""

from __future__ import annotations

import pathlib
import warnings
from typing import Any

import numpy as np
import pytest
import torch
from torch import nn

from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.upstream import run_lowered
from xdsl_exir.targets.iree import lower_to_upstream, print_mlir, to_core
from xdsl_exir.transforms.linalg_lowering import conv_pool

# (input shape, dtype, kernel, stride, padding, ceil mode, divisor, taken by the tap form)
CASES: list[tuple[tuple[int, ...], torch.dtype, tuple[int, int], tuple[int, int], int, bool, int | None, bool]] = [
    ((1, 4, 8, 8), torch.float32, (2, 2), (2, 2), 0, False, None, True),  # DenseNet's transition
    ((1, 3, 6, 7), torch.float32, (3, 3), (1, 1), 0, False, None, True),  # overlapping windows
    ((1, 2, 5, 9), torch.float32, (2, 3), (1, 3), 0, False, None, True),  # an uneven kernel and stride
    ((1, 2, 6, 6), torch.float32, (2, 2), (2, 2), 0, False, 3, True),  # a divisor
    ((2, 3, 7, 5), torch.float32, (2, 2), (2, 2), 0, False, None, True),  # a batch of two, odd sizes
    ((1, 4, 6, 6), torch.float64, (3, 3), (3, 3), 0, False, None, True),  # float64
    ((1, 4, 6, 6), torch.float32, (2, 2), (2, 2), 1, False, None, False),  # padded
    ((1, 4, 5, 5), torch.float32, (2, 2), (2, 2), 0, True, None, False),  # ceil mode, a partial window
    ((0, 4, 6, 6), torch.float32, (2, 2), (2, 2), 0, False, None, False),  # an empty batch
]
ADAPTIVE = (1, 4, 6, 8)  # adaptive pooling to 3x2: uniform 2x4 windows, the tap form


class Pools(nn.Module):
    def forward(self, *xs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        out = [
            nn.functional.avg_pool2d(x, k, s, p, ceil, divisor_override=d)
            for (_, _, k, s, p, ceil, d, _), x in zip(CASES, xs)
        ]
        return (*out, nn.functional.adaptive_avg_pool2d(xs[-1], (3, 2)))


def _inputs(seed: int, cancel: bool = True) -> list[torch.Tensor]:
    """Random inputs, the first non-contiguous (every other column of a wider one); in each
    nonempty one NaN, +-inf, a window of -0.0 alone and (`cancel`) values of 1e30 that cancel
    in a sum, where the order of the additions decides what is left."""
    gen = torch.Generator().manual_seed(seed)
    shapes = [(c[0], c[1]) for c in CASES] + [(ADAPTIVE, torch.float32)]
    xs = [torch.randn(shape, generator=gen, dtype=dt) for shape, dt in shapes]
    n, c, h, w = CASES[0][0]
    xs[0] = torch.randn(n, c, h, 2 * w, generator=gen)[..., ::2]
    for x in xs:
        if x.numel() == 0:
            continue
        c = x.shape[1]
        x[0, 0, 0, 0] = float("nan")
        x[0, 1 % c, 1, 1] = float("inf")
        x[0, 1 % c, 3, 3] = float("-inf")
        x[0, 2 % c, 2:4, 2:4] = -0.0
        if cancel:
            x[0, 3 % c, 0, 2], x[0, 3 % c, 0, 3] = 1e30, -1e30
    return xs


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(Pools(), tuple(_inputs(0))).run_decompositions()
    path = pathlib.Path(tmp_path_factory.mktemp("avg")) / "pools.pt2"
    torch.export.save(ep, path)
    return load_pt2(path.read_bytes(), path.name)


def _compare(got: list[Any], xs: list[torch.Tensor], what: str) -> None:
    """Close to eager (torch sums a float32 window in float32, the lowering in float64), NaN
    exactly where eager has NaN, -0.0 where eager has it."""
    with torch.inference_mode():
        want = [w.numpy() for w in Pools()(*xs)]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype, f"{what} output {i}: {g.shape} {g.dtype} vs {w.shape} {w.dtype}"
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=f"{what} output {i}")
        real = ~np.isnan(w)
        assert np.array_equal(np.signbit(g[real]), np.signbit(w[real])), f"{what} output {i}: zeros' signs"


def _lowered(module: Any, taps: bool, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(conv_pool, "_AVG_POOL_TAPS", taps)
    return lower_to_upstream(to_core(module))


def test_lowered_taps_equal_the_window_sum_and_eager(program: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    windows = _lowered(program, False, monkeypatch)
    taps = _lowered(program, True, monkeypatch)
    # a window reduction (two reduction dims) per pool without the form, adaptive included;
    # with it, one per pool it leaves alone
    reduction = '"reduction", "reduction"]'
    assert print_mlir(windows).count(reduction) == len(CASES) + 1
    assert print_mlir(taps).count(reduction) == sum(1 for c in CASES if not c[-1])
    for seed in (1, 2):
        # the interpreter sums a window reduction as numpy orders it, not tap by tap: the two
        # forms are compared bit for bit where the order cannot matter (float32 taps summed
        # exactly in float64), and natively (below) where it can
        xs = [x.numpy() for x in _inputs(seed, cancel=False)]
        got, ref = run_lowered(taps, xs), run_lowered(windows, xs)
        for i, (g, r) in enumerate(zip(got, ref)):
            g, r = np.asarray(g), np.asarray(r)
            if g.dtype == np.float64:  # a float64 sum of float64 taps rounds by the order too
                np.testing.assert_allclose(g, r, rtol=1e-13, atol=1e-16, equal_nan=True, err_msg=f"seed {seed} output {i}")
                continue
            np.testing.assert_array_equal(g, r, err_msg=f"seed {seed} output {i}")
            real = ~np.isnan(r)
            assert np.array_equal(np.signbit(g[real]), np.signbit(r[real])), f"seed {seed} output {i}: zeros' signs"
        _compare(got, _inputs(seed, cancel=False), f"upstream interpreter, seed {seed}")
        xs = _inputs(seed)
        _compare(run_lowered(taps, [x.numpy() for x in xs]), xs, f"upstream interpreter, seed {seed}, cancelling")


def test_iree_taps_equal_eager(program: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Natively, both forms, on contiguous and non-contiguous inputs."""
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    from xdsl_exir.targets.iree import IreeOptions, compile_program

    results = []
    for taps in (True, False):
        monkeypatch.setattr(conv_pool, "_AVG_POOL_TAPS", taps)
        compiled = compile_program(program, IreeOptions(threads=1, use_cache=False))
        xs = _inputs(1)
        got = compiled(*[x.numpy() for x in xs])
        _compare(got, xs, f"IREE, taps {taps}")
        wide = [np.repeat(x.numpy(), 2, axis=-1)[..., ::2] for x in xs]
        _compare(compiled(*wide), xs, f"IREE, taps {taps}, non-contiguous")
        results.append(got)
    for i, (a, b) in enumerate(zip(*results)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=f"output {i}")
