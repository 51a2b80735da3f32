"""
The runner never hands back a result that contradicts the IR (issue 12): an
output whose shape or dtype differs from the graph's output type stops with a
located error. And `arange(..., out=)` writes an `out` of the right number of
elements in its own shape, as torch's kernel does.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest

from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.semantics import kernels as aten_kernels
from xdsl_exir.semantics.inference import infer_result_types
from xdsl_exir.utils.diagnostics import InterpreterError

torch = pytest.importorskip("torch")


def _export(module: object, *args: object) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(module, args)
    f = io.BytesIO()
    torch.export.save(ep, f)
    return f.getvalue()


class ArangeOutView(torch.nn.Module):
    def forward(self, x: object) -> object:
        buf = x.new_zeros(3, 4)  # pyright: ignore[reportAttributeAccessIssue] - x is a torch tensor; forward is typed for torch.export
        y = torch.arange(1, 13, out=buf)
        return y.view(3, 4) + x


class ArangeOutReturned(torch.nn.Module):
    def forward(self, x: object) -> object:
        buf = x.new_zeros(3, 4)  # pyright: ignore[reportAttributeAccessIssue] - x is a torch tensor; forward is typed for torch.export
        torch.arange(1, 13, out=buf)
        return buf


def test_arange_out_keeps_the_shape_of_out() -> None:
    x = torch.randn(3, 4)
    got = ProgramRunner(load_pt2(_export(ArangeOutView(), x))).run([x.numpy()])
    want = ArangeOutView()(x).numpy()
    assert got[0].shape == want.shape
    np.testing.assert_allclose(got[0], want)


def test_output_contradicting_the_ir_is_a_located_error() -> None:
    """torch.export records arange's out as [12] here while torch's kernel returns the
    [3, 4] buffer: the runner refuses rather than hand back either silently."""
    x = torch.randn(3, 4)
    runner = ProgramRunner(load_pt2(_export(ArangeOutReturned(), x)))
    with pytest.raises(InterpreterError) as info:
        runner.run([x.numpy()])
    assert "output 0" in str(info.value) and "[3, 4]" in str(info.value) and "[12]" in str(info.value)
    assert info.value.op is not None and info.value.op.name == "exir.output"


@pytest.mark.parametrize(
    "args", [(0.5, 9.7, 1.0), (1.5, 10.2, 1.1), (-3.5, 4.2, 2.0), (0, 10, 3), (10.9, 0.5, -2.5)]
)
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.float32, torch.float64])
def test_arange_sizes_with_float_arguments(args: tuple[float, ...], dtype: object) -> None:
    """An int64 arange converts its float arguments before sizing (torch: 9 elements, not 10)."""
    want = torch.arange(*args, dtype=dtype).numpy()
    ours = DType(str(dtype).removeprefix("torch."))
    got = aten_kernels.run_kernel("aten.arange.start_step", list(args), {"dtype": ours})
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)
    (t,) = infer_result_types("aten.arange.start_step", list(args), {"dtype": ours})
    assert isinstance(t, TensorType) and list(t.sizes) == [len(want)]
