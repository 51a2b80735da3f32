"""
Graph outputs that are Python constants (torch.export's ConstantArgument
outputs): imported as `exir.constant`, returned by the runner and the Python
API as torch returns them, written by exir-run as 0-d arrays, printed back by
the FX and Python targets and lowered to 0-d tensor constants.
"""

from __future__ import annotations

import pathlib
from typing import Any

import numpy as np
import pass_harness as ph
import pytest
from tool_calls import exir_run

from xdsl_exir.dialects.exir import ConstantOp
from xdsl_exir.interpreters.program import ProgramRunner

torch = pytest.importorskip("torch")


class Constants(torch.nn.Module):
    def forward(self, x: Any, n: int) -> tuple[Any, ...]:
        return x * 2, True, n, 2.5, None, "s", x.shape[0], False


def _exported() -> Any:
    return torch.export.export(Constants(), (torch.randn(3), 4))


def test_constant_outputs_run_as_torch_returns_them() -> None:
    from xdsl_exir.frontends.torch_live import import_exported_program

    ep = _exported()
    module = import_exported_program(ep)
    constants = [op.python_value for op in module.walk() if isinstance(op, ConstantOp)]
    assert constants == [True, 4, 2.5, None, "s", 3, False]
    x = torch.randn(3)
    want = ep.module()(x, 4)
    got = ProgramRunner(module)(x.numpy(), 4)
    np.testing.assert_array_equal(got[0], want[0].numpy())
    assert got[1:] == list(want[1:])
    assert [type(v) for v in got[1:]] == [type(v) for v in want[1:]]
    # Passes keep them (Pure constants used by the output).
    after = ph.apply(module, "to-core-aten,exir-cse,exir-dce")
    assert ProgramRunner(after)(x.numpy(), 4)[1:] == list(want[1:])


def test_fx_target_prints_them_in_the_output() -> None:
    import io

    from xdsl_exir.frontends.torch_live import import_exported_program
    from xdsl_exir.targets.fx_text import emit_fx

    out = io.StringIO()
    emit_fx(import_exported_program(_exported()), out)
    text = out.getvalue()
    assert "return (mul, True, 4, 2.5, None, 's', 3, False)" in text


def test_exir_run_writes_0d_arrays(tmp_path: pathlib.Path) -> None:
    ep = _exported()
    pt2 = tmp_path / "c.pt2"
    torch.export.save(ep, str(pt2))
    np.savez(tmp_path / "in.npz", arg0=np.arange(3, dtype=np.float32), arg1=np.asarray(4))
    run = exir_run(str(pt2), "--inputs", str(tmp_path / "in.npz"), "-o", str(tmp_path / "out.npz"))
    assert run.returncode == 0, run.stderr
    with np.load(tmp_path / "out.npz", allow_pickle=False) as out:
        got = {k: out[k] for k in out.files}
    np.testing.assert_array_equal(got["out0"], np.arange(3, dtype=np.float32) * 2)
    # torch's outputs, pytree-flattened: (mul, True, 4, 2.5, None, 's', 3, False). None keeps
    # its number (out4) but has no array form, so no key; the others are 0-d arrays.
    assert sorted(got) == [f"out{i}" for i in (0, 1, 2, 3, 5, 6, 7)]
    scalars = [got[f"out{i}"] for i in (1, 2, 3, 5, 6, 7)]
    assert [(a.item(), a.dtype.kind, a.shape) for a in scalars] == [
        (True, "b", ()), (4, "i", ()), (2.5, "f", ()), ("s", "U", ()), (3, "i", ()), (False, "b", ()),
    ]


def test_symbolic_trace_with_constant_outputs() -> None:
    from xdsl_exir.frontends.torch_live import import_graph_module

    class M(torch.nn.Module):
        def forward(self, x: Any) -> tuple[Any, ...]:
            return x * 2, (3, True), None

    x = torch.randn(3)
    module = import_graph_module(torch.fx.symbolic_trace(M()), (x,))
    got = ProgramRunner(module)(x.numpy())
    np.testing.assert_array_equal(got[0], (x * 2).numpy())
    assert got[1:] == [3, True, None]  # pytree-flattened, as torch flattens (None is a leaf)
