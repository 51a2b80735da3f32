"""
Every module the lowering writes is valid upstream MLIR, and the FileCheck inputs of the
lowering compute on IREE what the interpreter computes.

- Each zoo program (both IRs; the training IR through the project's own `to-core-aten`) and
  each `// -----` chunk of the lowering's FileCheck inputs is lowered and passed through
  iree-compile's input phase (`--compile-to=input`): its verifier, with nothing of IREE's
  own dialects in the text.
- Each FileCheck chunk is then compiled as `compile_program` compiles it (all chunks in one
  iree-compile, each a function of its own: `tests/iree_compiles.py`; a full compile passes
  the input phase first), run on inputs drawn from its types, and compared with the numpy
  interpreter on the program before lowering (the interpreter is itself checked against
  torch eager; the zoo's native runs are in `test_iree_backend.py`).
"""

from __future__ import annotations

import json
import pathlib
import re
from typing import Any

import numpy as np
import pytest

pytest.importorskip("iree.compiler")
pytest.importorskip("iree.runtime")

import iree.compiler
from iree_compiles import ProgramBatch

from xdsl_exir.api import parse
from xdsl_exir.dialects.exir import ProgramOp
from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.targets.iree import lower_to_upstream, print_mlir, to_core
from xdsl_exir.tools.run_program import random_inputs

ROOT = pathlib.Path(__file__).resolve().parents[1]
ZOO = ROOT / "tests" / "zoo"
LOWERING_INPUTS = ROOT / "tests" / "filecheck" / "transforms" / "convert-exir-to-linalg"
MODELS: list[dict[str, Any]] = json.loads((ZOO / "manifest.json").read_text())["models"]


def _chunks() -> list[tuple[str, str]]:
    """(id, text) of every `// -----` chunk of the lowering's FileCheck inputs that lowers."""
    out: list[tuple[str, str]] = []
    for path in sorted(LOWERING_INPUTS.glob("*.mlir")):
        for i, chunk in enumerate(re.split(r"^// -----\s*$", path.read_text(), flags=re.M)):
            if "exir.program" in chunk and "expected-error" not in chunk:
                out.append((f"{path.stem}-{i}", chunk))
    return out


CHUNKS = _chunks()

IREE = ProgramBatch(core=True)
for _id, _text in CHUNKS:
    IREE.add(_id, lambda i=_id, text=_text: parse(text, name=f"{i}.mlir").module)


def _verify_input(text: str) -> None:
    """iree-compile's input phase on the lowered text (raises with IREE's message)."""
    try:
        iree.compiler.compile_str(text, extra_args=["--iree-hal-target-device=local", "--compile-to=input"])
    except Exception as e:  # the compiler's own error type differs across versions
        first = next((ln for ln in str(e).splitlines() if "error" in ln), str(e)[:300])
        pytest.fail(f"iree-compile rejects the lowered module: {first}")


@pytest.mark.parametrize("ir", ["train", "core"])
@pytest.mark.parametrize("name", [m["name"] for m in MODELS if not m.get("custom_ops")])
def test_zoo_lowering_passes_iree_input_verification(name: str, ir: str) -> None:
    model = next(m for m in MODELS if m["name"] == name)
    path = ZOO / model["programs"][ir]
    module = load_pt2(path.read_bytes(), str(path))
    _verify_input(print_mlir(lower_to_upstream(to_core(module))))


@pytest.mark.parametrize(("chunk_id", "text"), [pytest.param(i, t, id=i) for i, t in CHUNKS])
def test_filecheck_input_lowers_to_valid_mlir_and_matches_the_interpreter(chunk_id: str, text: str) -> None:
    module = parse(text, name=f"{chunk_id}.mlir").module
    program = next(op for op in module.walk() if isinstance(op, ProgramOp))
    runner = ProgramRunner(program)
    inputs = random_inputs(runner, 0)
    want = runner.run(inputs)
    native = ProgramRunner(IREE.program(chunk_id), executor=IREE.executor(chunk_id))
    got = native.run(inputs)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, f"out{i}: {g.dtype}{list(g.shape)} vs {w.dtype}{list(w.shape)}"
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=f"{chunk_id} out{i}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"{chunk_id} out{i}")


# -- the batch itself (tests/iree_compiles.py) ------------------------------------------


def _small_batch() -> tuple[ProgramBatch, dict[str, np.ndarray]]:
    """Three programs on [3] float32 inputs, and one whose lowering refuses it."""
    from test_decompose import program

    from xdsl_exir.dialects.aten import build
    from xdsl_exir.dialects.exir import DType, TensorType

    f32, i64 = TensorType([3], DType.float32), TensorType([3], DType.int64)
    batch = ProgramBatch()
    batch.add("add", lambda: program([f32, f32], lambda add, x, y: [add(build("aten.add.Tensor", x, y)).results[0]]))
    batch.add("mul", lambda: program([f32, f32], lambda add, x, y: [add(build("aten.mul.Tensor", x, y)).results[0]]))
    batch.add("exp", lambda: program([f32], lambda add, x: [add(build("aten.exp.default", x)).results[0]]))
    batch.add("refused", lambda: program([i64], lambda add, x: [add(build("aten.pow.Tensor_Scalar", x, -2)).results[0]]))
    x, y = np.array([1.0, -2.0, 0.5], np.float32), np.array([3.0, 4.0, -0.0], np.float32)
    return batch, {"add": x + y, "mul": x * y, "exp": np.exp(x)}


def _run(batch: ProgramBatch, name: str) -> np.ndarray:
    x, y = np.array([1.0, -2.0, 0.5], np.float32), np.array([3.0, 4.0, -0.0], np.float32)
    return np.asarray(batch.executor(name)(*((x, y) if name != "exp" else (x,)))[0])


def test_a_batch_is_one_compile_and_each_program_runs_its_own_function() -> None:
    from xdsl_exir.utils.diagnostics import ExirDiagnostic

    batch, want = _small_batch()
    for name, w in want.items():
        np.testing.assert_allclose(_run(batch, name), w, rtol=1e-6)
    assert batch.compiles == 1
    with pytest.raises(ExirDiagnostic, match="negative integer power"):  # its own test fails, no other
        batch.executor("refused")


def test_a_batch_iree_refuses_is_compiled_again_program_by_program(monkeypatch: pytest.MonkeyPatch) -> None:
    """The refusal goes to the one program that causes it; the others still run."""
    import iree_compiles

    from xdsl_exir.targets.iree import IreeError

    real = iree_compiles.compile_text

    def refusing(text: str, options: Any) -> Any:
        if "math.exp" in text:
            raise IreeError("iree-compile refused the lowered module: no exp today")
        return real(text, options)

    monkeypatch.setattr(iree_compiles, "compile_text", refusing)
    batch, want = _small_batch()
    with pytest.raises(IreeError, match="no exp today"):
        batch.executor("exp")
    for name in ("add", "mul"):
        np.testing.assert_allclose(_run(batch, name), want[name], rtol=1e-6)
    assert batch.compiles == 4  # the three together, then each alone
