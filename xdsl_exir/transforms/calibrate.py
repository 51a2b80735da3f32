"""
Calibration for post-training quantization (torch.fx: Practical Program Capture and Transformation, §9): run a program with
observers (`insert-observers`) on sample inputs through the interpreter, so
the observers' buffer mutations record each activation's range, and write the
recorded ranges back into the program state for `quantize` to read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from xdsl_exir.dialects.exir import TensorType, blob_from_array
from xdsl_exir.interpreters.program import ProgramRunner, find_program
from xdsl_exir.transforms.quantization import observer_states

__all__ = ["calibrate"]


def calibrate(module: ModuleOp, input_sets: Iterable[Sequence[Any]]) -> ModuleOp:
    """A copy of `module` whose observers hold the ranges seen on `input_sets` (flat user inputs each)."""
    out = module.clone()
    names = observer_states(out)
    runner = ProgramRunner(out)
    for inputs in input_sets:
        runner.run([np.array(x, copy=True) if isinstance(x, np.ndarray) else x for x in inputs])
    program = find_program(out)
    states = program.state()
    for name in names:
        st = states[name]
        assert isinstance(st.state_type, TensorType)
        st.value = blob_from_array(np.asarray(runner.state[name], dtype=np.float32), st.state_type.element_dtype)
    return out
