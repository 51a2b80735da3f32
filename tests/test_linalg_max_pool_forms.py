"""
2-D max pooling as the maximum of window taps read from the input moved
channels-last (`conv_pool._MAX_POOL_CHANNELS_LAST`), against torch eager, bit
for bit (zeros' signs included), in xDSL's interpreter of the lowered program
and natively with IREE; the stride-phase form it replaced stays reachable by
the switch and is run natively here too. The cases and inputs are the conv
forms tests' (`POOLS`: SqueezeNet's ceil mode over odd sizes, ResNet's padded
pool on a batch of two, dilation, strides 1 to 3, an uneven kernel, an empty
batch; NaN, +-inf, windows of signed zeros and of -inf alone).
"""

from __future__ import annotations

import pathlib
import re
import warnings
from typing import Any

import numpy as np
import pytest
import torch
from test_linalg_conv_forms import POOLS, _compare_pools, _pool_inputs, exported_pools

from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.upstream import run_lowered
from xdsl_exir.targets.iree import lower_to_upstream, print_mlir, to_core
from xdsl_exir.transforms.linalg_lowering import conv_pool


@pytest.fixture(scope="module")
def pools(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return exported_pools(tmp_path_factory)


def _strided(x: np.ndarray) -> np.ndarray:
    """`x`'s values in a non-contiguous array (every other element of a buffer twice as long)."""
    wide = np.empty((*x.shape[:-1], 2 * x.shape[-1]), x.dtype)
    wide[..., ::2] = x
    view = wide[..., ::2]
    assert not view.flags.c_contiguous or x.size == 0
    return view


def test_lowered_channels_last_max_pools_equal_eager(pools: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The channels-last taps in xDSL's interpreter: one transpose per pool but the empty batch's
    (the named op), no stride phases, and SqueezeNet's ceil-mode pool, whose windows read exactly
    its 31x31 input, not padded at all."""
    monkeypatch.setattr(conv_pool, "_MAX_POOL_TAPS", True)
    monkeypatch.setattr(conv_pool, "_MAX_POOL_CHANNELS_LAST", True)
    lowered = lower_to_upstream(to_core(pools))
    text = print_mlir(lowered)
    assert text.count("linalg.pooling_nchw_max") == 1
    assert len(re.findall(r"permutation = \[0, 2, 3, 1\]", text)) == len(POOLS) - 1
    assert "tensor<1x4x2x2x16x16xf32>" not in text  # the phases of the stride-phase form
    assert not re.search(r"tensor\.pad .*\n(.*\n){3}.*: tensor<1x31x31x4xf32> to", text)
    assert "tensor<1x4x32x32xf32>" not in text and "tensor<1x32x32x4xf32>" not in text
    for seed in (1, 2):
        xs = _pool_inputs(seed)
        _compare_pools(run_lowered(lowered, [x.numpy() for x in xs]), xs, f"upstream interpreter seed {seed}")


@pytest.mark.parametrize("channels_last", [True, False], ids=["channels-last", "stride-phases"])
def test_iree_max_pool_forms_equal_eager(pools: Any, channels_last: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both tap forms natively, on contiguous and non-contiguous inputs, bit for bit against eager."""
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    from xdsl_exir.targets.iree import IreeOptions, compile_program

    monkeypatch.setattr(conv_pool, "_MAX_POOL_TAPS", True)
    monkeypatch.setattr(conv_pool, "_MAX_POOL_CHANNELS_LAST", channels_last)
    compiled = compile_program(pools, IreeOptions(threads=1, use_cache=False))
    assert ("permutation = [0, 2, 3, 1]" in compiled.text) == channels_last
    for seed in (1, 2):
        xs = _pool_inputs(seed)
        _compare_pools(compiled(*[x.numpy() for x in xs]), xs, f"IREE seed {seed}")
        _compare_pools(compiled(*[_strided(x.numpy()) for x in xs]), xs, f"IREE seed {seed}, non-contiguous")


def test_lowered_channels_last_max_pool_keeps_the_first_zero_in_row_order(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Of equal maxima torch keeps the first in row-major window order: a -0.0 at (0, 1) before
    a +0.0 at (1, 0) gives -0.0, and the same zeros swapped +0.0 (the taps in column order would
    give the other sign in both)."""
    monkeypatch.setattr(conv_pool, "_MAX_POOL_TAPS", True)
    monkeypatch.setattr(conv_pool, "_MAX_POOL_CHANNELS_LAST", True)
    x = torch.full((1, 2, 3, 6), -1.0)
    x[0, 0, 0, 1], x[0, 0, 1, 0] = -0.0, 0.0
    x[0, 1, 0, 1], x[0, 1, 1, 0] = 0.0, -0.0
    x[0, :, 1, 4], x[0, :, 2, 3] = float("nan"), float("inf")  # the second window: NaN wins over a later inf
    model = torch.nn.MaxPool2d(3, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(model, (x,)).run_decompositions()
    path = tmp_path / "pool.pt2"
    torch.export.save(ep, path)
    lowered = lower_to_upstream(to_core(load_pt2(path.read_bytes(), path.name)))
    assert "permutation = [0, 2, 3, 1]" in print_mlir(lowered)
    got = np.asarray(run_lowered(lowered, [x.numpy()])[0])
    with torch.inference_mode():
        want = model(x).numpy()
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))
    assert np.signbit(want[0, 0, 0, 0]) and not np.signbit(want[0, 1, 0, 0])
