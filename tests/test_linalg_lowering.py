"""
`convert-exir-to-linalg` checked on every machine, without IREE or torch: each zoo
model (core ATen IR) is lowered, run in xDSL's `Interpreter` with the upstream
dialects on numpy (`xdsl_exir.interpreters.upstream`), and compared with torch
eager's outputs and with our numpy interpreter on the same inputs. Also: the
lowered module holds only upstream dialects, prints and reads back, its weights
are `dense_resource` blobs, refused ops are located diagnostics, and the status
table in the docs is current.
"""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.program import ProgramRunner, find_program
from xdsl_exir.interpreters.upstream import run_lowered
from xdsl_exir.targets.iree import lower_to_upstream, print_mlir, to_core
from xdsl_exir.transforms.convert_exir_to_linalg import function_arguments
from xdsl_exir.utils.diagnostics import ExirDiagnostic

ROOT = pathlib.Path(__file__).resolve().parents[1]
ZOO = ROOT / "tests" / "zoo"
MANIFEST: dict[str, Any] = json.loads((ZOO / "manifest.json").read_text())
MODELS = {m["name"]: m for m in MANIFEST["models"]}
UPSTREAM = {"func", "arith", "math", "tensor", "linalg", "scf", "builtin"}

sys.path.insert(0, str(ROOT / "scripts"))


def load_npz(path: pathlib.Path) -> list[np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return [data[k] for k in sorted(data.files, key=lambda k: int(k[3:]))]


def flatten(value: Any, out: list[np.ndarray]) -> list[np.ndarray]:
    if isinstance(value, list | tuple):
        for v in value:
            flatten(v, out)
    elif value is not None:
        out.append(np.asarray(value))
    return out


def lowered_runner(core: ModuleOp, lowered: ModuleOp) -> ProgramRunner:
    """The program's runner (checks, state, mutations) with the lowered function as its graph."""
    program = find_program(core)
    arguments = function_arguments(program)
    return ProgramRunner(program, executor=lambda *args: run_lowered(lowered, [args[i] for i in arguments]))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_lowered_zoo_model_matches_eager_and_interpreter(name: str) -> None:
    model = MODELS[name]
    if model.get("custom_ops"):
        pytest.skip("a custom operator's numpy kernel has no linalg lowering")
    core = to_core(load_pt2((ZOO / model["programs"]["core"]).read_bytes(), model["programs"]["core"]))
    lowered = lower_to_upstream(core)
    dialects = {op.dialect_name() for op in lowered.walk()}
    assert dialects <= UPSTREAM, f"non-upstream dialects in the lowered module: {dialects - UPSTREAM}"
    tol = model.get("tolerance", {})
    rtol, atol = max(1e-4, tol.get("rtol", 0.0)), max(1e-5, tol.get("atol", 0.0))
    ours = ProgramRunner(core)
    runner = lowered_runner(core, lowered)
    for s in model["input_sets"]:
        inputs = load_npz(ZOO / s["inputs"])
        got = flatten(runner.run([x.copy() for x in inputs]), [])
        want = load_npz(ZOO / s["expected"])
        reference = flatten(ours.run([x.copy() for x in inputs]), [])
        assert len(got) == len(want) == len(reference)
        for i, (g, w, r) in enumerate(zip(got, want, reference)):
            assert g.dtype == w.dtype and g.shape == w.shape, f"out{i}: {g.dtype}{g.shape} vs {w.dtype}{w.shape}"
            if w.dtype.kind == "f":
                np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"{name} out{i} vs eager")
                np.testing.assert_allclose(g, r, rtol=rtol, atol=atol, err_msg=f"{name} out{i} vs interpreter")
            else:
                np.testing.assert_array_equal(g, w, err_msg=f"{name} out{i}")


def test_lowered_text_reads_back_with_its_weights() -> None:
    core = to_core(load_pt2((ZOO / "cnn_bn.core.pt2").read_bytes(), "cnn_bn.core.pt2"))
    text = print_mlir(lower_to_upstream(core))
    assert "dense_resource<" in text and "{-#" in text and "dialect_resources" in text
    assert "?x" not in text  # a static program stays static
    from xdsl_exir.tools.exir_opt import ExirOptMain, LocatingParser

    ctx: Context = ExirOptMain(args=["-"]).ctx
    # Read twice in this process: the blob storage already holds every key.
    LocatingParser(ctx, text, "lowered.mlir").parse_module()
    reread = LocatingParser(ctx, text, "lowered.mlir").parse_module()
    reread.verify()
    inputs = load_npz(ZOO / "cnn_bn.inputs.npz")
    a = flatten(lowered_runner(core, reread).run(inputs), [])
    b = flatten(ProgramRunner(core).run(inputs), [])
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)


def test_symbolic_sizes_become_dynamic_dims_computed_with_arith() -> None:
    core = to_core(load_pt2((ZOO / "dynamic_attention.core.pt2").read_bytes(), "dynamic_attention.core.pt2"))
    text = print_mlir(lower_to_upstream(core))
    assert "tensor<?x?x16xf32>" in text
    assert "tensor.dim" in text and "arith.muli" in text  # s0*s1 for the flattened batch


def test_refused_op_is_a_located_diagnostic() -> None:
    text = """
builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
    exir.graph @forward(%x: !exir.tensor<[4, 4], float32>) -> !exir.tensor<[4], int64> {
      %r = aten.randperm.default(4) : () -> !exir.tensor<[4], int64>
      exir.output %r : !exir.tensor<[4], int64>
    }
  }
}
"""
    from xdsl_exir.tools.exir_opt import ExirOptMain, LocatingParser

    ctx = ExirOptMain(args=["-"]).ctx
    module = LocatingParser(ctx, text, "chol.mlir").parse_module()
    with pytest.raises(ExirDiagnostic) as err:
        lower_to_upstream(module)
    assert "chol.mlir:5" in str(err.value) and "aten.randperm.default has no lowering" in str(err.value)
    assert any(op.name == "exir.program" for op in module.walk()), "the input module is left untouched"


def test_status_table_is_current() -> None:
    import gen_lowering_table  # pyright: ignore[reportMissingImports] - scripts/ is put on sys.path by the test

    page = ROOT / "docs" / "linalg_lowering.md"
    assert page.read_text() == gen_lowering_table.render(), "run scripts/gen_lowering_table.py"


def test_resource_keys_are_identifiers() -> None:
    """`dense_resource<0.weight>` does not parse in MLIR: a state named by a digit gets a prefix."""
    import re

    from xdsl_exir.transforms.convert_exir_to_linalg import declare_blob

    key = declare_blob("0.weight", b"\x00\x00\x80\x3f")
    assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", key), key
    assert declare_blob("0.weight", b"\x00\x00\x80\x3f") == key, "an equal blob reuses its key"
    assert declare_blob("0.weight", b"\x00\x00\x00\x40") != key, "a different blob gets its own key"
