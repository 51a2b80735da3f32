"""
The form IREE gives an encoder's attention on the global data-tiling path
(`targets.iree.data_tiling_flags`, programs of matrix products alone): with
IREE's transpose propagation off (`KEEP_TRANSPOSES_FLAG`), both batch
contractions, `q @ k^T` and `attn @ v`, are data-tiled `batch_mmt4d`; with it
on, the transpose after `attn @ v` folded into its output map and left it an
untiled `matmul_like` generic. Then the compiled attention against torch eager,
with NaN, +-inf and -0.0 in the input and a non-contiguous input.
"""

from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest
import torch
from torch import nn

pytest.importorskip("iree.compiler")
pytest.importorskip("iree.runtime")

from xdsl_exir.targets.iree import (
    GLOBAL_DATA_TILING_FLAG,
    KEEP_TRANSPOSES_FLAG,
    IreeOptions,
    compile_program,
)


class _Attention(nn.Module):
    """The attention of `scripts/gen_zoo.py`'s `EncoderLayer`: q/k/v linears, heads, softmax."""

    def __init__(self, dim: int = 32, heads: int = 4) -> None:
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v, self.out = (nn.Linear(dim, dim) for _ in range(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        hd = d // self.heads
        q = self.q(x).view(b, t, self.heads, hd).transpose(1, 2)
        k = self.k(x).view(b, t, self.heads, hd).transpose(1, 2)
        v = self.v(x).view(b, t, self.heads, hd).transpose(1, 2)
        attn = torch.softmax((q @ k.transpose(-2, -1)) * (1.0 / hd**0.5), dim=-1)
        return self.out((attn @ v).transpose(1, 2).reshape(b, t, d))


@pytest.fixture(scope="module")
def attention(tmp_path_factory: pytest.TempPathFactory) -> tuple[nn.Module, object]:
    torch.manual_seed(3)
    model = _Attention().eval()
    path = pathlib.Path(tmp_path_factory.mktemp("attention")) / "attention.pt2"
    example = torch.randn(2, 24, 32)
    torch.export.save(torch.export.export(model, (example,)).run_decompositions(), path)
    return model, compile_program(path, IreeOptions(threads=1, use_cache=False, data_tiling=True))


def _dispatches(text: str, flags: list[str]) -> list[str]:
    import iree.compiler as compiler

    flow = compiler.compile_str(text, extra_args=[*flags, "--compile-to=flow"]).decode()
    return re.findall(r"flow\.executable\.export public @forward_dispatch_\d+_(\w+)", flow)


def test_attention_contractions_are_data_tiled(attention: tuple[nn.Module, object]) -> None:
    _, compiled = attention
    flags = compiled.options.compile_flags(compiled.text)
    assert GLOBAL_DATA_TILING_FLAG in flags and KEEP_TRANSPOSES_FLAG in flags
    kinds = _dispatches(compiled.text, flags)
    assert len([k for k in kinds if k.startswith("batch_mmt4d")]) == 2, kinds
    assert not [k for k in kinds if k.startswith("matmul_like")], kinds
    # IREE's propagation on: `attn @ v` with the transpose folded in, untiled
    propagated = _dispatches(compiled.text, [f for f in flags if f != KEEP_TRANSPOSES_FLAG])
    assert len([k for k in propagated if k.startswith("batch_mmt4d")]) == 1, propagated
    assert [k for k in propagated if k.startswith("matmul_like")], propagated


def test_attention_equals_eager(attention: tuple[nn.Module, object]) -> None:
    model, compiled = attention
    gen = torch.Generator().manual_seed(9)
    # batch 0 carries NaN and infinities, which reach all of its outputs through k and v;
    # batch 1 only zeros of both signs
    x = torch.randn(24, 2, 32, generator=gen).transpose(0, 1)  # non-contiguous
    x[0, 3, 5], x[0, 7, 1], x[0, 11, 30] = float("nan"), float("inf"), float("-inf")
    x[1, 2, :], x[1, 5, 4] = -0.0, 0.0
    arg = x.numpy()
    assert not arg.flags.c_contiguous
    with torch.inference_mode():
        want = model(x).numpy()
    got = np.asarray(compiled(arg)[0])
    assert np.isnan(want[0]).all()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got[1], want[1], rtol=1e-4, atol=1e-5)
    # finite inputs throughout
    y = torch.randn(2, 24, 32, generator=gen) * 4
    with torch.inference_mode():
        want = model(y).numpy()
    np.testing.assert_allclose(np.asarray(compiled(y.numpy())[0]), want, rtol=1e-4, atol=1e-5)


def test_transposes_kept_on_the_global_path_only() -> None:
    """Programs with a convolution (the dispatch-creation path) and programs without data tiling
    keep IREE's transpose propagation."""
    conv = "%3 = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>} ins(%0, %1 : ...)"
    matmul = "%3 = linalg.matmul ins(%0, %1 : tensor<4x8xf32>, tensor<8x2xf32>) outs(%2 : tensor<4x2xf32>)"
    assert KEEP_TRANSPOSES_FLAG in IreeOptions(data_tiling=True).compile_flags(matmul)
    assert KEEP_TRANSPOSES_FLAG not in IreeOptions().compile_flags(conv)
    assert KEEP_TRANSPOSES_FLAG not in IreeOptions().compile_flags(matmul)
