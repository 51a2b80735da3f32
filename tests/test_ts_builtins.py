"""
The one table of TorchScript's scalar builtins (`utils/ts_builtins.py`), used
by the interpreter and by `torchscript-to-exir`.

The lowering used to keep a copy that printed `str(1.0)` as Python does
(`'1.0'`) and let `2**62 * 4` grow past int64; torch prints `'1.'` and wraps.
The values below are torch 2.13's (checked live when torch is installed), and
the lowering, which folds these builtins while specializing, must fold them to
the same values.

(No `from __future__ import annotations` here: TorchScript reads the
annotations of the functions below.)
"""

import math
from typing import Any

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.ir import Attribute

from xdsl_exir.analysis.overload_resolution import resolve_node
from xdsl_exir.dialects import ts
from xdsl_exir.dialects.aten import Aten
from xdsl_exir.dialects.exir import Exir, ProgramOp
from xdsl_exir.dialects.prim import Prim
from xdsl_exir.dialects.ts import TS
from xdsl_exir.frontends.torchscript_script import script_source
from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.transforms.torchscript_to_exir import TorchScriptToExirPass
from xdsl_exir.utils.ts_builtins import ScriptException, builtin_for

_TS_TYPES: dict[type, Attribute] = {int: ts.TSIntType(), float: ts.TSFloatType(), bool: ts.TSBoolType(), str: ts.TSStrType()}

# (TorchScript kind, arguments, what torch.jit gives)
PINNED: list[tuple[str, tuple[Any, ...], Any]] = [
    ("aten::str", (1.0,), "1."),
    ("aten::str", (-0.0,), "0."),
    ("aten::str", (0.1,), "0.10000000000000001"),
    ("aten::str", (1e20,), "1e+20"),
    ("aten::str", (123456789.0,), "123456789."),
    ("aten::mul", (2**62, 4), 0),
    ("aten::mul", (-(2**63), -1), -(2**63)),
    ("aten::add", (2**63 - 1, 1), -(2**63)),
    ("aten::neg", (-(2**63),), -(2**63)),
    ("aten::__lshift__", (3, 62), -(2**62)),
    ("aten::floordiv", (7, -2), -4),
    ("aten::remainder", (-7, 3), 2),
    ("aten::pow", (2, -1), 0.5),
    ("aten::sqrt", (-1.0,), math.nan),
    ("aten::log", (0.0,), -math.inf),
    ("aten::round", (2.5,), 2.0),
    ("aten::Int", (-2.9,), -2),
    ("aten::Int", (1e30,), -(2**63)),
    ("aten::floor", (-2.5,), -3),
    ("aten::format", ("{} and {}", 1.0, [0.5, 2.0]), "1. and [0.5, 2.]"),
]


def _run_builtin(kind: str, args: tuple[Any, ...]) -> Any:
    types: list[Attribute] = [
        ts.TSListType(_TS_TYPES[type(a[0])]) if isinstance(a, list) else _TS_TYPES[type(a)] for a in args
    ]
    resolved = resolve_node(kind, types)
    fn = builtin_for(resolved.name, resolved.schema)
    assert fn is not None, resolved.name
    return fn(*args)


def _same(got: Any, want: Any) -> bool:
    if isinstance(want, float) and math.isnan(want):
        return isinstance(got, float) and math.isnan(got)
    return type(got) is type(want) and got == want


@pytest.mark.parametrize(("kind", "args", "want"), PINNED, ids=lambda v: str(v))
def test_builtins_give_torchs_values(kind: str, args: tuple[Any, ...], want: Any) -> None:
    assert _same(_run_builtin(kind, args), want)


def test_errors_carry_pythons_exception_class() -> None:
    with pytest.raises(ScriptException, match="ZeroDivisionError: division by 0"):
        _run_builtin("aten::floordiv", (1, 0))


# ---------------------------------------------------------------------------
# With torch: the pinned values are torch.jit's, and the lowering folds to them
# ---------------------------------------------------------------------------

SOURCE = '''
def str_of(c: float) -> str:
    return str(c)

def times4(a: int) -> int:
    return a * 4

def folds(x: Tensor, a: int, c: float) -> Tensor:
    s = "{}|{}".format(c, [c, 0.5])
    return x * float(len(s)) + float(a * 4) + float(len(str(c)))
'''


def test_pinned_values_are_torchs() -> None:
    torch = pytest.importorskip("torch")
    for kind, args, want in PINNED:
        got = _scripted(torch, kind, args)(*args)
        assert _same(got, want), (kind, args, got)


def _scripted(torch: Any, kind: str, args: tuple[Any, ...]) -> Any:
    """`kind` applied to `args` as a scripted function with annotated parameters."""
    params = ", ".join(
        f"a{i}: {'List[float]' if isinstance(a, list) else type(a).__name__}" for i, a in enumerate(args)
    )
    op = {"aten::mul": "a0 * a1", "aten::add": "a0 + a1", "aten::__lshift__": "a0 << a1",
          "aten::floordiv": "a0 // a1", "aten::remainder": "a0 % a1", "aten::pow": "a0 ** a1",
          "aten::neg": "-a0", "aten::format": "a0.format(a1, a2)", "aten::sqrt": "math.sqrt(a0)",
          "aten::log": "math.log(a0)", "aten::floor": "math.floor(a0)", "aten::str": "str(a0)",
          "aten::round": "round(a0)", "aten::Int": "int(a0)"}[kind]  # fmt: skip
    source = f"def f({params}):\n    return {op}\n"
    return torch.jit.CompilationUnit(source).f


def _lower(module: ModuleOp, **options: Any) -> ProgramOp:
    ctx = Context()
    for d in (Builtin, Exir, Aten, TS, Prim):
        ctx.load_dialect(d)
    TorchScriptToExirPass(**options).apply(ctx, module)
    (program,) = [op for op in module.ops if isinstance(op, ProgramOp)]
    return program


def test_lowering_folds_like_torch() -> None:
    """`str(1.0)` is `'1.'` and `2**62 * 4` wraps to 0 while lowering, as in torch.jit."""
    torch = pytest.importorskip("torch")
    source = SOURCE.replace("Tensor", "torch.Tensor")
    unit = torch.jit.CompilationUnit(source)
    assert unit.str_of(1.0) == "1." and unit.times4(2**62) == 0
    x = np.arange(3, dtype=np.float32)
    for a, c in ((5, 1.0), (2**62, 0.25)):
        module = script_source(source, "folds", "folds.py")
        program = _lower(module, input_types="x=f32[3]", input_values=f"a={a};c={c}")
        (ours,) = ProgramRunner(program)(x)
        want = unit.folds(torch.from_numpy(x), a, c).numpy()
        np.testing.assert_allclose(ours, want, rtol=1e-6)
