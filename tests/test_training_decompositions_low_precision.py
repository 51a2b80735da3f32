"""
The training decompositions of `test_training_decompositions` at float16 and
bfloat16 (issue 22): torch's CPU kernels compute these operators on float32
(their opmath type) and round each result once, and so do the rules
(`computed_in_float32`), so each case's program, after `to-core-aten` with the
operator rewritten by its rule, matches eager at the dtype's tolerance
(torch.testing's defaults for float16 and bfloat16, a few roundings looser where
a result is a sum over many elements: see `_TOL`). The inputs are the float32
cases' rounded to the dtype; index tensors are kept.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from tests.test_training_decompositions import CASES, _call, _decomposed, _inputs  # noqa: E402 - after importorskip, so the module skips without torch
from xdsl_exir.interpreters.program import ProgramRunner  # noqa: E402 - after importorskip, so the module skips without torch

_TOL = {torch.float16: (2e-3, 2e-3), torch.bfloat16: (1.6e-2, 1.6e-2)}
"""(rtol, atol): torch.testing's rtol for the dtype, and an atol of the same size (a
gradient near zero is the difference of larger terms, each rounded once)."""


FLOAT32_REFERENCE = {"edge-values"}
"""Cases compared with eager's float32 result on the same rounded inputs, rounded: with NaN
and inf among its inputs, eager's float16/bfloat16 convolution_backward leaves NaN out of 8
of the 18 weight-gradient elements its own float32 kernel (and the rule) gives NaN, a
difference of its low-precision path, not of the values."""


def _numpy(t: Any) -> np.ndarray:
    if t.dtype == torch.bfloat16:
        import ml_dtypes

        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def _export(case: Any, tensors: list[Any]) -> Any:
    """The operator's graph as `aot_export_module` gives it (a generic call read by getitems)."""
    from torch._functorch.aot_autograd import aot_export_module

    from xdsl_exir.frontends.torch_live import import_graph_module

    class Net(torch.nn.Module):
        def forward(self, *xs: Any) -> Any:
            return _call(case, xs)

    gm, _ = aot_export_module(Net(), tuple(tensors), trace_joint=False)
    return import_graph_module(gm, tensors)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["float16", "bfloat16"])
@pytest.mark.parametrize("case", CASES)
def test_rule_in_the_interpreter_at_low_precision(case: Any, dtype: Any) -> None:
    tensors = [t.to(dtype) if t.is_floating_point() else t for t in _inputs(case)]
    try:
        want = [w for w in _call(case, tensors)]
    except (RuntimeError, NotImplementedError) as e:
        pytest.skip(f"eager refuses it at {dtype}: {str(e).splitlines()[0]}")
    opmath = [w.to(dtype) for w in _call(case, [t.float() if t.is_floating_point() else t for t in tensors])]
    if case.id in FLOAT32_REFERENCE:
        want = opmath
    module = _export(case, tensors)
    core = _decomposed(module, f"aten.{case.op}.default")
    got = ProgramRunner(core).run([np.copy(_numpy(t)) for t in tensors])
    rtol, atol = _TOL[dtype]
    assert len(got) == len(want)
    for g, w, o in zip(got, want, opmath, strict=True):
        g = np.asarray(g)
        assert g.shape == tuple(w.shape) and g.dtype == _numpy(w).dtype, f"{g.dtype}{g.shape} vs {w.dtype}{tuple(w.shape)}"
        g64, w64, o64 = g.astype(np.float64), w.double().numpy(), o.double().numpy()
        # where eager's low-precision kernel is not its float32 one rounded (on some CPUs its
        # float16 convolution_backward is a few roundings off that), the rule's value is that
        near_opmath = np.isclose(g64, o64, rtol=rtol, atol=atol, equal_nan=True) & ~np.isclose(w64, o64, rtol=rtol, atol=atol, equal_nan=True)
        np.testing.assert_allclose(np.where(near_opmath, w64, g64), w64, rtol=rtol, atol=atol, equal_nan=True)


LOWERED = ["lnb-two-dims-weight-only", "bn-train-4d-affine", "conv-depthwise-stride2"]
"""Lowered too (xDSL's interpreter of the linalg module), at bfloat16: the float32 copies and the
rounding of the results are ordinary casts in the lowered program."""


@pytest.mark.parametrize("case", [p for p in CASES if p.id in LOWERED])
def test_lowered_at_bfloat16(case: Any) -> None:
    from xdsl_exir.interpreters.upstream import run_lowered
    from xdsl_exir.targets.iree import lower_to_upstream, to_core

    tensors = [t.to(torch.bfloat16) if t.is_floating_point() else t for t in _inputs(case)]
    want = _call(case, tensors)
    got = run_lowered(lower_to_upstream(to_core(_export(case, tensors))), [_numpy(t) for t in tensors])
    rtol, atol = _TOL[torch.bfloat16]
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        g = np.asarray(g)  # the upstream interpreter gives bfloat16 results widened to float32
        assert g.shape == tuple(w.shape), f"{g.shape} vs {tuple(w.shape)}"
        np.testing.assert_array_equal(g.astype(_numpy(w).dtype).astype(g.dtype), g, err_msg="not bfloat16 values")
        np.testing.assert_allclose(g.astype(np.float64), w.double().numpy(), rtol=rtol, atol=atol, equal_nan=True)
