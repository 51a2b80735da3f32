"""
Every optimized stage can be written out (issue 15, item 3).

After `optimize-inference` (and the other rewriting pipelines: `batch-mm`,
post-training quantization) a program holds `exir.fusion_group` ops. `--emit
fx` prints each as the `call_module` of a `fused_<k>` submodule, as torch's
partitioner records a fused partition; `--emit python` writes it as a nested
function. The generated module, run on the zoo inputs, must give what the
interpreter gives for the same optimized program.
"""

from __future__ import annotations

import importlib.util
import pathlib
import re
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from pass_harness import ZOO, apply, assert_same_outputs, load_zoo, run, zoo_models
from xdsl.dialects.builtin import ModuleOp

from xdsl_exir.dialects.exir import FusionGroupOp
from xdsl_exir.targets.fx_text import emit_fx
from xdsl_exir.targets.python_source import python_source
from xdsl_exir.tools.exir_opt import run as exir_opt
from xdsl_exir.transforms.calibrate import calibrate

PIPELINES: dict[str, str] = {
    "optimize": "optimize-inference",
    "batch-mm": "optimize-inference,batch-mm",
    "ptq": "quantize,optimize-inference",  # after insert-observers and calibration
}


def _inputs(model: dict[str, Any]) -> list[list[np.ndarray]]:
    out: list[list[np.ndarray]] = []
    for s in model["input_sets"]:
        with np.load(ZOO / s["inputs"]) as data:
            out.append([data[f"arg{i}"] for i in range(len(data.files))])
    return out


def _optimized(model: dict[str, Any], ir: str, pipeline: str) -> ModuleOp:
    module = load_zoo(model["name"], ir)
    if pipeline == "ptq":
        module = calibrate(apply(module, "insert-observers"), _inputs(model))
    return apply(module, PIPELINES[pipeline])


def _import(source: str, path: pathlib.Path) -> ModuleType:
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"generated_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cases() -> list[tuple[str, str, str]]:
    return [(m["name"], ir, p) for m in zoo_models() for ir in m["programs"] for p in PIPELINES]


def _fx(module: ModuleOp) -> str:
    from io import StringIO

    out = StringIO()
    emit_fx(module, out)
    return out.getvalue()


@pytest.mark.parametrize("name,ir,pipeline", _cases(), ids=["-".join(c) for c in _cases()])
def test_optimized_program_exports(name: str, ir: str, pipeline: str, tmp_path: pathlib.Path) -> None:
    model = next(m for m in zoo_models() if m["name"] == name)
    module = _optimized(model, ir, pipeline)
    groups = [op for op in module.walk() if isinstance(op, FusionGroupOp)]

    fx = _fx(module)
    calls = re.findall(r"= call_module\[target=(fused_\d+)\]", fx)
    assert len(calls) == len(groups)
    for target in calls:  # each call's submodule is printed
        assert re.search(rf"^# subgraph (\w+\.)*{target}$", fx, re.M)

    generated = _import(python_source(module), tmp_path / f"{name}_{ir}.py")
    for xs in _inputs(model):
        expected = run(module, xs)
        got = [np.asarray(o) for o in generated.forward(*[np.array(x, copy=True) for x in xs])]
        assert_same_outputs(got, expected, rtol=1e-6, atol=1e-7)


def test_fusion_group_with_several_results(tmp_path: pathlib.Path) -> None:
    """Two results: the call is read by getitems, the submodule returns a tuple."""
    from pass_harness import parse

    module = parse(_TWO_RESULTS)
    fx = _fx(module)
    assert "%fused_0 : [num_users=2] = call_module[target=fused_0](args = (%x, %y), kwargs = {})" in fx
    assert "%a : [num_users=1] = call_function[target=operator.getitem](args = (%fused_0, 0), kwargs = {})" in fx
    assert "%b_1 : [num_users=1] = call_function[target=operator.getitem](args = (%fused_0, 1), kwargs = {})" in fx
    # The submodule's placeholders are named after the values passed in, as torch's fuser names them.
    assert fx.endswith(
        "# subgraph fused_0\ngraph():\n    %x : [num_users=2] = placeholder[target=x]\n"
        "    %y : [num_users=1] = placeholder[target=y]\n"
        "    %m : [num_users=2] = call_function[target=torch.ops.aten.mul.Tensor](args = (%x, %y), kwargs = {})\n"
        "    %s : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%m, %x), kwargs = {})\n"
        "    return (m, s)\n"
    )
    generated = _import(python_source(module), tmp_path / "two.py")
    x = np.array([1.0, -2.0, 3.0], np.float32)
    y = np.array([0.5, 0.25, 2.0], np.float32)
    got: Sequence[Any] = generated.forward(x, y)
    assert_same_outputs([np.asarray(g) for g in got], run(module, [x, y]), rtol=0, atol=0)


def test_exir_opt_writes_the_optimized_program(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "mlp.fx"
    assert exir_opt([str(ZOO / "llama_block.core.pt2"), "-p", "optimize-inference", "--emit", "fx", "-o", str(out)]) == 0
    assert "call_module[target=fused_0]" in out.read_text()
    py = tmp_path / "mlp.py"
    assert exir_opt([str(ZOO / "llama_block.core.pt2"), "-p", "optimize-inference", "--emit", "python", "-o", str(py)]) == 0
    assert "def fused_0_forward(" in py.read_text()


_TWO_RESULTS = """
exir.program inputs [<user_input "x">, <user_input "y">] outputs [<user_output "a">, <user_output "b">] {
  exir.graph @forward(%x: !exir.tensor<[3], float32>, %y: !exir.tensor<[3], float32>) -> (!exir.tensor<[3], float32>, !exir.tensor<[3], float32>) {
    %a, %b = exir.fusion_group(%x, %y) : (!exir.tensor<[3], float32>, !exir.tensor<[3], float32>) -> (!exir.tensor<[3], float32>, !exir.tensor<[3], float32>) {
    ^bb0(%p: !exir.tensor<[3], float32>, %q: !exir.tensor<[3], float32>):
      %m = aten.mul.Tensor(%p, %q) : (!exir.tensor<[3], float32>, !exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
      %s = aten.add.Tensor(%m, %p) : (!exir.tensor<[3], float32>, !exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
      exir.output %m, %s : !exir.tensor<[3], float32>, !exir.tensor<[3], float32>
    }
    %r = aten.relu.default(%b) : (!exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
    exir.output %a, %r : !exir.tensor<[3], float32>, !exir.tensor<[3], float32>
  }
}
"""
