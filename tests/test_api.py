"""The Python API (`xdsl_exir.api`): load, apply, run with pytrees, print, profile."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

import xdsl_exir.api as exir
from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.targets.registry import get_all_targets
from xdsl_exir.tools.profiler import op_key
from xdsl_exir.utils.diagnostics import InterpreterError

ROOT = pathlib.Path(__file__).resolve().parents[1]
ZOO = ROOT / "tests" / "zoo"
EXAMPLE = ROOT / "examples" / "mlp.mlir"


def _npz(path: pathlib.Path, prefix: str) -> list[np.ndarray]:
    data = np.load(path)
    return [data[f"{prefix}{i}"] for i in range(sum(1 for k in data if k.startswith(prefix)))]


def _flat(value: object) -> list[np.ndarray]:
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _flat(v)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _flat(v)]
    return [np.asarray(value)]


def test_public_names() -> None:
    assert sorted(exir.__all__) == ["CompiledProgram", "ExirError", "Profile", "Program", "compile", "load", "parse"]
    for name in exir.__all__:
        assert getattr(exir, name) is not None


def test_run_returns_the_pytree_structure_of_the_export() -> None:
    program = exir.load(ZOO / "nested_io.core.pt2")
    a = _npz(ZOO / "nested_io.inputs.npz", "arg")
    expected = _npz(ZOO / "nested_io.expected.npz", "out")
    out = program(a[0], (a[1], a[2]), {"w": a[3], "v": a[4]}, float(a[5]), int(a[6]))
    # (x * 0.5, [a + w, b * 3], {'z': x.sum(0), 'a': v - 1}), as torch returns it
    assert isinstance(out, tuple) and len(out) == 3
    assert isinstance(out[1], list) and len(out[1]) == 2
    assert isinstance(out[2], dict) and list(out[2]) == ["z", "a"]
    for got, want in zip(_flat(out), expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    # the flattened user inputs, one by one, are accepted too
    flat_out = program(*a)
    for got, want in zip(_flat(flat_out), expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    assert [np.asarray(v) for v in program.run_flat(a)][0].shape == expected[0].shape


def test_single_output_is_one_array_and_matches_the_zoo() -> None:
    program = exir.load(ZOO / "mlp.core.pt2")
    (x,) = _npz(ZOO / "mlp.inputs.npz", "arg")
    (want,) = _npz(ZOO / "mlp.expected.npz", "out")
    y = program(x)
    assert isinstance(y, np.ndarray)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)
    assert program.input_names == ["x"]


def test_wrong_number_of_inputs_names_them() -> None:
    program = exir.load(ZOO / "mlp.core.pt2")
    x = np.zeros((5, 16), np.float32)
    with pytest.raises(exir.ExirError, match=r"takes 1 .*\(x\), got 2"):
        program(x, x)
    nested = exir.load(ZOO / "nested_io.core.pt2")
    with pytest.raises(exir.ExirError, match=r"takes 5 arguments as exported \(flattened: 7 user inputs \(x, pair_0"):
        nested(x)


def test_runner_run_with_one_array_says_to_wrap_it() -> None:
    """`ProgramRunner.run(x)` used to read the rows of x as inputs ("got 5")."""
    runner = ProgramRunner(exir.load(ZOO / "mlp.core.pt2").module)
    x = np.zeros((5, 16), np.float32)
    with pytest.raises(InterpreterError, match=r"the 1 user input \(x\), got one array of shape \[5, 16\]; write run\(\[x\]\) or runner\(x\)"):
        runner.run(x)  # pyright: ignore[reportArgumentType] - the mistake under test
    batch = np.zeros((4, 16), np.float32)  # the exported batch size
    np.testing.assert_array_equal(runner(batch)[0], runner.run([batch])[0])


def test_load_from_bytes_text_and_module_agree() -> None:
    (x,) = _npz(ZOO / "mlp.inputs.npz", "arg")
    from_path = exir.load(ZOO / "mlp.core.pt2")
    from_bytes = exir.load((ZOO / "mlp.core.pt2").read_bytes())
    from_text = exir.parse(from_path.to_mlir())
    from_module = exir.load(from_text.module)
    want = from_path(x)
    for other in (from_bytes, from_text, from_module):
        np.testing.assert_array_equal(other(x), want)


def test_load_errors_are_diagnostics(tmp_path: pathlib.Path) -> None:
    with pytest.raises(exir.ExirError, match="no such file"):
        exir.load(tmp_path / "missing.pt2")
    with pytest.raises(exir.ExirError, match=r"<text>:1:\d+: "):
        exir.parse("this is not IR {")
    with pytest.raises(exir.ExirError, match="takes a path, bytes"):
        exir.load(3.5)


def test_apply_returns_a_new_program_with_the_same_results() -> None:
    program = exir.load(ZOO / "resnet_blocks.core.pt2")
    before = program.to_mlir()
    (x,) = _npz(ZOO / "resnet_blocks.inputs.npz", "arg")
    optimized = program.apply("optimize-inference")
    assert program.to_mlir() == before  # the original is untouched
    assert "exir.fusion_group" in optimized.to_mlir() or "folded" in optimized.to_mlir()
    np.testing.assert_allclose(optimized(x), program(x), rtol=1e-4, atol=1e-5)
    anchored = program.apply("builtin.module(exir-cse,exir-dce)")
    np.testing.assert_array_equal(anchored(x), program(x))


def test_apply_reports_pipeline_mistakes() -> None:
    program = exir.load(EXAMPLE)
    with pytest.raises(exir.ExirError, match="did you mean 'optimize-inference'"):
        program.apply("optimise-inference")
    with pytest.raises(exir.ExirError, match="has no option 'nope'"):
        program.apply("exir-cse{nope=1}")


def test_printing() -> None:
    program = exir.load(ZOO / "mlp.core.pt2")
    assert program.to_mlir().startswith("builtin.module")
    assert str(program) == program.to_mlir()
    assert "graph():" in program.to_fx()
    assert "def forward" in program.to_python() or "def " in program.to_python()
    assert "loc(" in exir.parse(exir.load(EXAMPLE).to_mlir(), name="m.mlir").to_mlir(debuginfo=True)
    with pytest.raises(exir.ExirError, match="no 'nope' output format in this build"):
        program.emit("nope")


def test_dot_goes_through_the_target_registry() -> None:
    program = exir.load(ZOO / "mlp.core.pt2")
    if "dot" in get_all_targets():
        assert "digraph" in program.to_dot()
        if "svg" in get_all_targets() and shutil.which("dot"):
            assert "<svg" in program.to_svg() and "<svg" in program.emit("svg{collapse-depth=1}")
    else:
        with pytest.raises(exir.ExirError, match="no 'dot' output format in this build"):
            program.to_dot()


def test_profile_counts_calls_and_flops() -> None:
    program = exir.load(ZOO / "resnet_blocks.core.pt2")
    (x,) = _npz(ZOO / "resnet_blocks.inputs.npz", "arg")
    profile = program.profile(x, runs=2)
    np.testing.assert_array_equal(profile.outputs, program(x))
    rows = {r.name: r for r in profile.rows}
    conv = rows["aten.convolution.default"]
    convs = sum(1 for op in program.module.walk() if op_key(op) == "aten.convolution.default")
    assert conv.calls == 2 * convs
    assert conv.flops > 0 and conv.self_ns > 0
    assert "exir.flops" not in program.to_mlir()  # counting FLOPs left the IR as it was
    text = str(profile)
    assert "GFLOP/s" in text and "aten.convolution.default" in text
    trace = json.loads(profile.chrome_trace())
    names = {e["name"] for e in trace["traceEvents"] if e["ph"] == "X"}
    assert {"run", "aten.convolution.default"} <= names


def test_torchscript_entry() -> None:
    source = "def f(x: int) -> int:\n    return x + 1\n\ndef g(x: int) -> int:\n    return x * 2\n"
    with pytest.raises(exir.ExirError, match="--entry NAME"):
        exir.parse(source, format="script")(3)
    assert exir.parse(source, format="script", entry="g")(3) == 6


def test_missing_torch_names_the_extra() -> None:
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "try:\n"
        "    import xdsl_exir.frontends.torch_live\n"
        "except ModuleNotFoundError as e:\n"
        "    print(e.name, '|', e)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.startswith("torch |")
    assert "pip install 'xdsl-exir[torch]'" in result.stdout


def test_importing_the_package_stays_cheap() -> None:
    code = "import sys, xdsl_exir; print(sorted(m for m in ('sympy', 'torch', 'xdsl_exir.api') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_the_api_is_reachable_from_the_package() -> None:
    import xdsl_exir

    assert xdsl_exir.load is exir.load and xdsl_exir.Program is exir.Program
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = xdsl_exir.nope  # pyright: ignore[reportAttributeAccessIssue] - the error under test


def test_live_exported_program_and_torch_tensors() -> None:
    torch = pytest.importorskip("torch")

    class M(torch.nn.Module):
        def forward(self, x: torch.Tensor, pair: tuple[torch.Tensor, torch.Tensor]) -> dict[str, torch.Tensor]:
            return {"sum": x + pair[0], "prod": (x * pair[1]).relu()}

    torch.manual_seed(0)
    args = (torch.randn(3, 4), (torch.randn(3, 4), torch.randn(3, 4)))
    ep = torch.export.export(M(), args)
    program = exir.load(ep)
    out = program(*args)  # torch tensors in, numpy out
    want = M()(*args)
    assert list(out) == ["sum", "prod"]
    for key in out:
        np.testing.assert_allclose(out[key], want[key].numpy(), rtol=1e-5)


def test_structseq_outputs_come_back_as_tuples() -> None:
    """`torch.export.save` refuses a program returning `torch.return_types.sort`; the importer reads
    such an output as the tuple it flattens to, and the caller's program is left untouched."""
    torch = pytest.importorskip("torch")

    class M(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> tuple[object, torch.Tensor]:
            return torch.sort(x, dim=-1), torch.topk(x, 2).indices

    x = torch.tensor([[3.0, float("nan"), -0.0, 1.0], [0.0, -1.0, 2.0, 2.0]])
    ep = torch.export.export(M(), (x,))
    spec = ep.module_call_graph[0].signature.out_spec
    (values, indices), top = exir.load(ep)(x)
    want = M()(x)
    np.testing.assert_array_equal(values, want[0].values.numpy())
    np.testing.assert_array_equal(indices, want[0].indices.numpy())
    np.testing.assert_array_equal(top, want[1].numpy())
    assert ep.module_call_graph[0].signature.out_spec == spec


def test_profile_counts_symbolic_flops_from_the_shapes() -> None:
    """`flop-count` gives `144*s0` for a dynamic batch; the profile evaluates it per call."""
    program = exir.load(ZOO / "dynamic_batch.core.pt2")
    bias = np.zeros(6, np.float32)
    for batch in (2, 5):
        x = np.ones((batch, 3, 4), np.float32)  # x: [s0, 3, 4] -> addmm of [s0, 12] x [12, 6]
        profile = program.profile(x, bias)
        rows = {r.name: r for r in profile.rows}
        assert rows["aten.addmm.default"].flops == 2 * batch * 12 * 6
        np.testing.assert_array_equal(profile.outputs[0], program(x, bias)[0])


def test_profile_of_a_torchscript_program() -> None:
    source = "def g(x: int) -> int:\n    y = x * 2\n    return y + 1\n"
    program = exir.parse(source, format="script")
    profile = program.profile(5, runs=3)
    assert profile.outputs == 11
    rows = {r.name: r for r in profile.rows}
    assert rows["aten::mul"].calls == 3 and rows["aten::add"].calls == 3
