"""
Softmax as `convert-exir-to-linalg` lowers it (`linalg_lowering.reductions._EXP_ONCE`): the
exponentials `exp(x - max)` written once, summed in float64 and multiplied by the sum's
reciprocal, as torch's CPU kernel computes them, or (the form before) recomputed in the pass that
divides by the sum; log-softmax keeps the latter. Both forms against torch eager in xDSL's
interpreter and, with the `iree` extra, natively: the last dim and an inner one, a symbolic batch,
NaN, +-inf, an all -inf row, -0.0, huge and tiny logits, and a non-contiguous input.
"""

from __future__ import annotations

import pathlib
import re
from typing import Any

import numpy as np
import pytest
import torch
from torch import nn

from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.upstream import run_lowered
from xdsl_exir.targets.iree import lower_to_upstream, print_mlir, to_core
from xdsl_exir.transforms.linalg_lowering import reductions


class _Softmaxes(nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return torch.softmax(x, -1), torch.softmax(x * 0.5, 1), torch.log_softmax(x, -1)


def _input(seed: int, batch: int = 3) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    x = (torch.randn(5, batch, 4, 33, generator=gen) * 3).transpose(0, 1)  # [batch, 5, 4, 33], non-contiguous
    x[0, 0, 0, 3] = float("nan")
    x[0, 1, 1, 7] = float("inf")
    x[0, 2, 2, :] = float("-inf")  # an all -inf row: NaN, as torch
    x[0, 3, 3, 5] = float("-inf")
    x[0, 4, 0, :] = -0.0
    x[1, 0, 1, 0] = 80.0  # exp overflows without the max subtracted
    x[1, 1, 2, :4] = torch.tensor([1e30, -1e30, 1e-30, -1e-30])
    return x


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Any:
    batch = torch.export.Dim("batch", min=2)
    ep = torch.export.export(_Softmaxes(), (_input(0),), dynamic_shapes=({0: batch},)).run_decompositions()
    path = pathlib.Path(tmp_path_factory.mktemp("softmax")) / "softmax.pt2"
    torch.export.save(ep, path)
    return path


def _compare(got: list[Any], x: torch.Tensor, what: str) -> None:
    with torch.inference_mode():
        want = [w.numpy() for w in _Softmaxes()(x)]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g)
        assert g.shape == w.shape, f"{what} out{i}: {g.shape} vs {w.shape}"
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg=f"{what} out{i}: NaN positions")
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-7, err_msg=f"{what} out{i}")


@pytest.mark.parametrize("once", [True, False], ids=["exp-once", "exp-twice"])
def test_lowered_softmax_equals_eager(program: pathlib.Path, once: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reductions, "_EXP_ONCE", once)
    lowered = lower_to_upstream(to_core(load_pt2(program.read_bytes(), program.name)))
    text = print_mlir(lowered)
    # two softmaxes, each one exp written once or two (the sum's, recomputed to divide), and the
    # log-softmax's one (the sum's)
    assert len(re.findall(r"= math\.exp ", text)) == (2 + 1 if once else 4 + 1)
    assert len(re.findall(r"= math\.log ", text)) == 1
    for batch in (3, 2):
        x = _input(batch, batch)
        _compare(run_lowered(lowered, [x.numpy()]), x, f"upstream interpreter, batch {batch}")


def test_iree_softmax_equals_eager(program: pathlib.Path) -> None:
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    from xdsl_exir.targets.iree import IreeOptions, compile_program

    assert reductions._EXP_ONCE
    compiled = compile_program(program, IreeOptions(threads=1, use_cache=False))
    for batch in (3, 2):
        x = _input(batch, batch)
        assert not x.numpy().flags.c_contiguous
        _compare(list(compiled(x.numpy())), x, f"IREE, batch {batch}")
