"""
`xdsl_exir.compile(obj, *example_args, backend=..., dynamic_shapes=...)` and
`Program.compile(...)`: one call from an `nn.Module`, an `ExportedProgram`, a
`.pt2` / `.mlir` path or a `Program` to a callable that takes what the module
takes and returns the pytree eager returns, raising `ExirError`.
"""

from __future__ import annotations

import pathlib
from typing import Any

import numpy as np
import pytest

import xdsl_exir
from xdsl_exir.api import CompiledProgram, ExirError, Program, load
from xdsl_exir.targets.iree import iree_available

ZOO = pathlib.Path(__file__).resolve().parent / "zoo"
BACKENDS = ["interpreter", pytest.param("iree", marks=pytest.mark.skipif(not iree_available(), reason="needs the iree extra"))]


def _zoo_inputs(name: str) -> list[np.ndarray]:
    with np.load(ZOO / f"{name}.inputs.npz") as f:
        return [f[f"arg{i}"] for i in range(len(f.files))]


def _zoo_expected(name: str) -> list[np.ndarray]:
    with np.load(ZOO / f"{name}.expected.npz") as f:
        return [f[f"out{i}"] for i in range(len(f.files))]


# ---------------------------------------------------------------------------
# Without torch: paths and programs
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_pt2_and_mlir_paths(backend: str, tmp_path: pathlib.Path) -> None:
    (x,) = _zoo_inputs("mlp")
    (want,) = _zoo_expected("mlp")
    from_pt2 = xdsl_exir.compile(ZOO / "mlp.core.pt2", backend=backend, threads=1)
    assert isinstance(from_pt2, CompiledProgram) and from_pt2.backend == backend
    np.testing.assert_allclose(from_pt2(x), want, rtol=1e-5, atol=1e-6)
    text = tmp_path / "mlp.mlir"
    text.write_text(load(ZOO / "mlp.core.pt2").to_mlir())
    np.testing.assert_allclose(xdsl_exir.compile(str(text), backend=backend)(x), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_program_compile_keeps_the_pytree(backend: str) -> None:
    """nested_io returns (x * 0.5, [a + w, b * 3], {'z': ..., 'a': ...}): the compiled program too."""
    program = load(ZOO / "nested_io.core.pt2")
    flat = _zoo_inputs("nested_io")
    compiled = program.compile(backend)
    got = compiled.run_flat(flat)
    want = program.run_flat(flat)
    assert len(got) == len(want)
    nested = compiled(flat[0], (flat[1], flat[2]), {"w": flat[3], "v": flat[4]}, 0.5, 3)
    assert isinstance(nested, tuple) and isinstance(nested[1], list) and isinstance(nested[2], dict)
    assert list(nested[2]) == ["z", "a"]
    expected = _zoo_expected("nested_io")
    leaves = [nested[0], *nested[1], nested[2]["z"], nested[2]["a"]]
    for g, w in zip(leaves, expected, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_errors_are_exir_errors() -> None:
    compiled = xdsl_exir.compile(load(ZOO / "mlp.core.pt2"), backend="interpreter")
    with pytest.raises(ExirError, match="dimension"):
        compiled(np.zeros((4, 3), np.float32))
    with pytest.raises(ExirError, match="takes"):
        compiled()
    with pytest.raises(ExirError, match="got int"):
        xdsl_exir.compile(42)
    with pytest.raises(ExirError, match="unknown backend 'tvm'"):
        xdsl_exir.compile(ZOO / "mlp.core.pt2", backend="tvm")
    with pytest.raises(ExirError, match="only for an nn.Module"):
        xdsl_exir.compile(ZOO / "mlp.core.pt2", np.zeros(3), backend="interpreter")
    with pytest.raises(ExirError, match="no IREE options"):
        xdsl_exir.compile(ZOO / "mlp.core.pt2", backend="interpreter", device="cuda")


@pytest.mark.skipif(not iree_available(), reason="needs the iree extra")
def test_iree_errors_and_profile() -> None:
    with pytest.raises(ExirError, match="unknown IREE option"):
        xdsl_exir.compile(ZOO / "mlp.core.pt2", backend="iree", colour="red")
    compiled = xdsl_exir.compile(ZOO / "mlp.core.pt2", backend="iree", threads=1)
    with pytest.raises(ExirError, match="dimension"):  # IREE's runner keeps the input checks, as ExirError
        compiled(np.zeros((4, 3), np.float32))
    with pytest.raises(ExirError, match="takes"):  # the prepared call refuses as the general path does
        compiled()
    with pytest.raises(ExirError, match="takes"):
        compiled(np.zeros((4, 8), np.float32), np.zeros((4, 8), np.float32))
    (x,) = _zoo_inputs("mlp")
    profile = compiled.profile(x, runs=2)
    assert [r.name for r in profile.rows] == ["exir.graph"] and profile.rows[0].calls == 2
    np.testing.assert_allclose(profile.outputs, _zoo_expected("mlp")[0], rtol=1e-5, atol=1e-6)


def test_interpreter_profile_has_operators() -> None:
    compiled = Program.compile(load(ZOO / "mlp.core.pt2"), "interpreter")
    profile = compiled.profile(*_zoo_inputs("mlp"))
    assert {"aten.addmm.default", "aten.relu.default"} <= {r.name for r in profile.rows}


# ---------------------------------------------------------------------------
# With torch: modules and exported programs
# ---------------------------------------------------------------------------


def _module() -> Any:
    torch = pytest.importorskip("torch")
    from torch import nn

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(4, 3)

        def forward(self, x: Any, extra: dict[str, Any]) -> Any:
            y = self.fc(x)
            return {"y": y, "pair": (y.relu(), extra["a"] * 2), "n": (x > 0).sum()}

    torch.manual_seed(0)
    return Net().eval()


@pytest.mark.parametrize("backend", BACKENDS)
def test_module_returns_eager_pytree(backend: str) -> None:
    torch = pytest.importorskip("torch")
    model = _module()
    x, extra = torch.randn(2, 4), {"a": torch.randn(3)}
    compiled = xdsl_exir.compile(model, x, extra, backend=backend, threads=1)
    got, want = compiled(x, extra), model(x, extra)
    got_leaves, got_spec = torch.utils._pytree.tree_flatten(got)
    want_leaves, want_spec = torch.utils._pytree.tree_flatten(want)
    assert got_spec == want_spec
    for g, w in zip(got_leaves, want_leaves, strict=True):
        assert isinstance(g, torch.Tensor) and g.dtype == w.dtype and g.shape == w.shape
        torch.testing.assert_close(g, w.detach())
    numpy_out = compiled(x.numpy(), {"a": extra["a"].numpy()})
    assert isinstance(numpy_out["y"], np.ndarray)  # numpy in, numpy out


@pytest.mark.parametrize("backend", BACKENDS)
def test_exported_program_and_dynamic_shapes(backend: str) -> None:
    torch = pytest.importorskip("torch")
    from torch import nn

    model = nn.Sequential(nn.Linear(8, 8), nn.Tanh()).eval()
    x = torch.randn(4, 8)
    batch = torch.export.Dim("batch", min=1, max=32)
    compiled = xdsl_exir.compile(model, x, backend=backend, dynamic_shapes=({0: batch},))
    for n in (1, 9):
        y = torch.randn(n, 8)
        torch.testing.assert_close(compiled(y), model(y).detach())
    with pytest.raises(ExirError, match="33"):
        compiled(torch.randn(33, 8))
    ep = torch.export.export(model, (x,))
    torch.testing.assert_close(xdsl_exir.compile(ep, backend=backend)(x), model(x).detach())


def test_export_failure_is_an_exir_error() -> None:
    torch = pytest.importorskip("torch")
    from torch import nn

    with pytest.raises(ExirError, match="torch.export.export of the Linear failed"):
        xdsl_exir.compile(nn.Linear(4, 2), torch.randn(3, 5))
