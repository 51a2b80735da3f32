"""
A float32 depthwise convolution's kernel cropped to the taps that read some input element
(`conv_pool._LIVE_TAPS`), checked against torch eager in xDSL's Interpreter and, with the
`iree` extra, natively: 5x5 kernels on 2x2 and 1x3 inputs (EfficientNet-B0's last stages), a
1-D one, a non-contiguous input, and NaN, +-inf and -0.0 in the inputs. An infinite weight on a
tap that reads only padding gives torch's finite result (its depthwise kernel leaves the padding
out), where the uncropped form multiplied the padding in (NaN). A strided kernel, a 7x7 one and a
one-column input keep every tap, as does float64: torch's kernels for those multiply the padding
in.
"""

from __future__ import annotations

import pathlib
import re
import warnings
from typing import Any

import numpy as np
import pytest

from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.upstream import run_lowered
from xdsl_exir.targets.iree import lower_to_upstream, print_mlir, to_core
from xdsl_exir.transforms.linalg_lowering import conv_pool

torch = pytest.importorskip("torch")
nn = torch.nn

# (channels, kernel, stride, padding, input shape, bias); a 1-D case has one-element tuples
CASES: list[tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...], bool]] = [
    (6, (5, 5), (1, 1), (2, 2), (1, 6, 2, 2), True),  # the outer ring reads padding alone: 3x3 left
    (5, (5, 5), (1, 1), (2, 2), (2, 5, 1, 3), False),  # one row: 1x5 left
    (4, (3, 5), (2, 2), (1, 2), (1, 4, 3, 1), True),  # strided: every tap kept (torch multiplies the padding in)
    (3, (7, 7), (1, 1), (3, 3), (1, 3, 2, 2), True),  # 7x7: every tap kept (torch multiplies the padding in)
    (4, (5,), (1,), (2,), (1, 4, 2), False),  # 1-D: three taps left
    (4, (5, 5), (1, 1), (2, 2), (1, 4, 3, 1), True),  # one column: every tap kept (torch multiplies it in)
    (5, (3, 3), (1, 1), (1, 1), (1, 5, 2, 2), True),  # every tap reads the input: unchanged
]
DEAD_CORNER = (0, 1, 4)
"""Cropped cases whose tap `[0, ..., 0]` reads padding alone, which torch's kernel leaves out: an
infinite weight there in channels 0 and 1, whose inputs are finite."""
KEPT = (2, 3, 5)
"""Cases whose every tap is kept (stride, a 7x7 kernel, a one-column input): an infinite weight on
a tap that reads padding alone, which torch's kernel for them multiplies in (NaN), as the lowering
does."""


class Depthwise(nn.Module):
    def __init__(self, dtype: Any) -> None:
        super().__init__()
        gen = torch.Generator().manual_seed(0)
        self.convs = nn.ModuleList()
        for i, (c, k, s, p, _, bias) in enumerate(CASES):
            conv = (nn.Conv1d if len(k) == 1 else nn.Conv2d)(c, c, k, s, p, groups=c, bias=bias, dtype=dtype)
            with torch.no_grad():
                conv.weight.copy_(torch.randn(conv.weight.shape, generator=gen))
                if i in (*DEAD_CORNER, *KEPT):
                    conv.weight.view(-1)[0] = float("inf")
                    conv.weight.view(-1)[conv.weight[0].numel()] = -float("inf")  # channel 1's corner
                if conv.bias is not None:
                    conv.bias.copy_(torch.randn(conv.bias.shape, generator=gen))
            self.convs.append(conv)

    def forward(self, *xs: Any) -> tuple[Any, ...]:
        return tuple(conv(x) for conv, x in zip(self.convs, xs))


def _inputs(seed: int, dtype: Any) -> list[Any]:
    gen = torch.Generator().manual_seed(seed)
    xs = [torch.randn(case[4], generator=gen, dtype=dtype) for case in CASES]
    xs[0][0, 2, 0, 0], xs[0][0, 3, 1, 1], xs[0][0, 4, 0, 1], xs[0][0, 5, 1, 0] = float("nan"), float("inf"), -float("inf"), -0.0
    xs[1][1, 2, 0, 1] = float("nan")
    xs[3][0, 1, 0, 0] = -0.0
    xs[4] = torch.randn(1, 4, 4, generator=gen, dtype=dtype)[..., ::2]  # non-contiguous
    xs[4][0, 2, 1] = float("inf")
    return xs


def _export(model: Any, xs: list[Any], tmp: pathlib.Path) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(model, tuple(xs)).run_decompositions()
    path = tmp / "depthwise.pt2"
    torch.export.save(ep, path)
    return load_pt2(path.read_bytes(), path.name)


def _compare(got: list[Any], want: list[Any], what: str) -> None:
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-5, atol=1e-6, err_msg=f"{what} case {i} {CASES[i]}")


@pytest.mark.parametrize("live", [True, False], ids=["cropped", "every-tap"])
def test_lowered_depthwise_cropped_to_live_taps(tmp_path: pathlib.Path, live: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conv_pool, "_LIVE_TAPS", live)
    model = Depthwise(torch.float32).eval()
    xs = _inputs(1, torch.float32)
    lowered = lower_to_upstream(to_core(_export(model, xs, tmp_path)))
    text = print_mlir(lowered)
    cropped = ["tensor<6x1x5x5xf32> to tensor<6x1x3x3xf32>", "tensor<5x1x5x5xf32> to tensor<5x1x1x5xf32>",
               "tensor<4x1x1x5xf32> to tensor<4x1x1x3xf32>"]  # fmt: skip
    for form in cropped:
        assert (form in text) == live, form
    assert not re.search(r"tensor<(5x1x3x3|4x1x3x5|3x1x7x7|4x1x5x5)xf32> to tensor<\d+x1x\dx\dxf32>", text)
    with torch.inference_mode():
        want = [w.numpy() for w in model(*xs)]
    got = run_lowered(lowered, [x.numpy() for x in xs])
    for i in KEPT:
        assert np.isnan(want[i][:, :2]).all() and np.isnan(np.asarray(got[i])[:, :2]).all()
    if live:
        for i in DEAD_CORNER:
            assert np.isfinite(want[i][:, :2]).all() and np.isfinite(np.asarray(got[i])[:, :2]).all()
        _compare(got, want, "upstream interpreter")
    else:  # the padding multiplied in: NaN across the channels with an infinite dead tap
        for i in DEAD_CORNER:
            assert np.isnan(np.asarray(got[i])[:, :2]).all() and not np.isnan(want[i][:, :2]).all()
        keep = [i for i in range(len(CASES)) if i not in DEAD_CORNER]
        _compare([got[i] for i in keep], [want[i] for i in keep], "upstream interpreter, every tap")


def test_float64_keeps_every_tap(tmp_path: pathlib.Path) -> None:
    model = Depthwise(torch.float64).eval()
    xs = _inputs(2, torch.float64)
    lowered = lower_to_upstream(to_core(_export(model, xs, tmp_path)))
    assert "tensor<6x1x5x5xf64> to tensor<6x1x3x3xf64>" not in print_mlir(lowered)
    with torch.inference_mode():
        want = [w.numpy() for w in model(*xs)]
    got = run_lowered(lowered, [x.numpy() for x in xs])
    for i in DEAD_CORNER:  # torch's float64 kernel multiplies the padding in, as the lowering does
        assert np.isnan(want[i][:, :2]).all() and np.isnan(np.asarray(got[i])[:, :2]).all()
    _compare(got, want, "upstream interpreter, float64")


def test_iree_depthwise_cropped_to_live_taps(tmp_path: pathlib.Path) -> None:
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    from xdsl_exir.targets.iree import IreeOptions, compile_program

    model = Depthwise(torch.float32).eval()
    compiled = compile_program(_export(model, _inputs(1, torch.float32), tmp_path), IreeOptions(threads=1, use_cache=False))
    assert "tensor<6x1x5x5xf32> to tensor<6x1x3x3xf32>" in compiled.text
    for seed in (3, 4):
        xs = _inputs(seed, torch.float32)
        with torch.inference_mode():
            want = [w.numpy() for w in model(*xs)]
        _compare(compiled(*[x.numpy() for x in xs]), want, f"IREE seed {seed}")
