"""
Shared checks for passes: a pass must keep what the program computes.

`assert_preserves(module, "cse,dce")` runs the program on random inputs
(drawn from its input types, several seeds), applies the pipeline to a copy,
runs again on the same inputs and compares. It works on Export IR programs
(`ProgramRunner`) and on TorchScript IR (`TorchScriptRunner`). `load_zoo`
reads a zoo archive into IR. Tests import this module; it is not a test.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

from xdsl_exir.dialects.registry import get_all_dialects
from xdsl_exir.transforms.registry import get_all_passes

ZOO = Path(__file__).parent / "zoo"


def context() -> Context:
    """A context with every dialect of xdsl-exir (and xDSL's builtin ones) registered lazily."""
    from xdsl.universe import Universe

    ctx = Context(allow_unregistered=False)
    for name, factory in Universe.get_multiverse().all_dialects.items():
        ctx.register_dialect(name, factory)
    for name, factory in get_all_dialects().items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)
    return ctx


def parse(text: str) -> ModuleOp:
    """Parse MLIR text with every dialect available."""
    return Parser(context(), text).parse_module()


def apply(module: ModuleOp, pipeline: str) -> ModuleOp:
    """A copy of `module` with the pass pipeline `pipeline` (xdsl-opt syntax) applied and verified."""
    out = module.clone()
    passes = {**_xdsl_passes(), **get_all_passes()}
    PassPipeline.parse_spec(passes, pipeline).apply(context(), out)
    out.verify()
    return out


def _xdsl_passes() -> dict[str, Any]:
    from xdsl.transforms import get_all_passes as xdsl_passes

    return xdsl_passes()


def register_zoo_kernels() -> None:
    """The kernels of the zoo's custom operators (`tests/zoo/mylib_kernels.py`), in this process."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("mylib_kernels", ZOO / "mylib_kernels.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.register()


def load_zoo(name: str, ir: str = "train") -> ModuleOp:
    """A zoo model (`tests/zoo/<name>.<ir>.pt2`) as IR (its custom operators' kernels registered)."""
    from xdsl_exir.frontends.pt2 import load_pt2

    register_zoo_kernels()

    path = ZOO / f"{name}.{ir}.pt2"
    return load_pt2(path.read_bytes(), path.name)


def zoo_models() -> list[dict[str, Any]]:
    """The zoo manifest's model entries."""
    return json.loads((ZOO / "manifest.json").read_text())["models"]


def _is_torchscript(module: ModuleOp) -> bool:
    from xdsl_exir.interpreters.ts_runner import is_torchscript

    return is_torchscript(module)


def random_flat_inputs(module: ModuleOp, seed: int) -> list[Any]:
    """exir-run's `--random-inputs SEED` for `module`."""
    if _is_torchscript(module):
        from xdsl_exir.interpreters.ts_runner import TorchScriptRunner

        return list(TorchScriptRunner(module).random_flat_inputs(seed))
    from xdsl_exir.interpreters.program import ProgramRunner
    from xdsl_exir.tools.run_program import random_inputs

    return random_inputs(ProgramRunner(module), seed)


def run(module: ModuleOp, inputs: Sequence[Any]) -> list[np.ndarray]:
    """The program's flat outputs on `inputs` (copied, so in-place updates do not leak between runs)."""
    inputs = [np.array(x, copy=True) if isinstance(x, np.ndarray) else x for x in inputs]
    if _is_torchscript(module):
        from xdsl_exir.interpreters.ts_runner import TorchScriptRunner

        return [np.asarray(o) for o in TorchScriptRunner(module).run_flat(inputs)]
    from xdsl_exir.interpreters.program import ProgramRunner

    return [np.asarray(o) for o in ProgramRunner(module).run(inputs)]


def assert_same_outputs(
    got: Sequence[np.ndarray], want: Sequence[np.ndarray], rtol: float = 1e-5, atol: float = 1e-6
) -> None:
    assert len(got) == len(want), f"{len(got)} outputs, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, f"out{i}: shape {g.shape}, expected {w.shape}"
        assert g.dtype == w.dtype, f"out{i}: dtype {g.dtype}, expected {w.dtype}"
        if g.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"out{i}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"out{i}")


def assert_preserves(
    module: ModuleOp,
    pipeline: str,
    seeds: Sequence[int] = (0, 1),
    rtol: float = 1e-5,
    atol: float = 1e-6,
    inputs: Sequence[Sequence[Any]] | None = None,
) -> ModuleOp:
    """Apply `pipeline` to a copy of `module`; the outputs before and after must agree. Returns the copy."""
    after = apply(module, pipeline)
    input_sets = list(inputs) if inputs is not None else [random_flat_inputs(module, s) for s in seeds]
    for xs in input_sets:
        assert_same_outputs(run(after, xs), run(module, xs), rtol, atol)
    return after
