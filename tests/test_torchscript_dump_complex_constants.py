"""
Complex tensor constants in a TorchScript graph dump. A traced complex 0-d
tensor prints as its (real,imaginary) pair, `value={(1.5,-2)}`: the reader
takes it as a one-element complex tensor (it refused it as a malformed
one-element tensor). A complex tensor of more elements prints its real parts
only (`1  2 [ CPUComplexFloatType{2} ]`): its data is not in the dump, so running
it is refused, never read as real values.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from xdsl_exir.frontends.torchscript_dump_reader import parse_torchscript
from xdsl_exir.interpreters.ts_runner import TorchScriptRunner
from xdsl_exir.utils.diagnostics import InterpreterError

torch = pytest.importorskip("torch")


def _dump(fn: Any, x: Any) -> str:
    return str(torch.jit.trace(fn, (x,)).graph)


@pytest.mark.parametrize(
    "value, dtype",
    [(1.5 - 2j, "complex64"), (-0.5 + 3e-8j, "complex128"), (complex(float("inf"), -0.0), "complex64")],
)
def test_a_complex_scalar_constant_runs_as_eager(value: complex, dtype: str) -> None:
    c = torch.tensor(value, dtype=getattr(torch, dtype))

    def f(x: Any) -> Any:
        return x * c + 1

    x = torch.tensor([1 + 1j, -2.5 + 0j, 0.25 - 4j], dtype=getattr(torch, dtype))
    text = _dump(f, x)
    assert "value={(" in text
    got = TorchScriptRunner(parse_torchscript(text)).run([x.numpy()])
    want = f(x).numpy()
    assert got[0].dtype == want.dtype
    np.testing.assert_array_equal(got[0], want)


def test_a_complex_tensor_constant_without_its_data_is_refused() -> None:
    c = torch.tensor([1 + 1j, 2 - 3j])

    def f(x: Any) -> Any:
        return x + c

    x = torch.tensor([0.5 + 0j, 1j])
    module = parse_torchscript(_dump(f, x))
    with pytest.raises(InterpreterError, match="not in the input"):
        TorchScriptRunner(module).run([x.numpy()])
