"""
A module `convert-exir-to-linalg` wrote, run with exir-run's contract.

The lowered form keeps what the contract needs on `func.func @forward`'s
arguments and results: `exir.kind` and `exir.name` (see the pass's module
doc). This class maps the npz contract onto them, so that `exir-run
m.linalg.mlir` behaves as `exir-run m.mlir` does:

- the user inputs are `arg0 ..` in the order of the `user_input` arguments;
- a `buffer` argument (a buffer the program writes) has no data in the lowered
  module, which took it as an argument: it comes by its name (`count`) from
  the caller, and each call's `buffer_mutation` result becomes its next value,
  as `ProgramRunner` keeps state across calls;
- the user outputs (`user_output`, `loss_output`) are the outputs, in order;
  updates of user inputs (`user_input_mutation`) are not outputs.

Arrays cross the boundary as the interpreter gives them: bfloat16 as
ml_dtypes' bfloat16 (a float32 array is rounded to it, as `.npz` files carry
bfloat16), integers and floats as their numpy dtypes, scalars as 0-d arrays.
The lowering spells uint8 as a signless i8, so a uint8 array is accepted for
an i8 argument and i8 results come back as int8.

The function runs on xDSL's interpreter with this package's upstream
functions (no torch, no IREE) unless another executor is given: IREE's
(`targets/iree.py`) takes and returns the same arrays.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp, StringAttr, TensorType
from xdsl.ir import Attribute

from xdsl_exir.dialects.exir import DType, ProgramOp
from xdsl_exir.interpreters.upstream import run_lowered
from xdsl_exir.utils.diagnostics import InterpreterError
from xdsl_exir.utils.dtypes import cast_array, is_low_precision, numpy_dtype
from xdsl_exir.utils.mlir_types import LoweringError, element_type
from xdsl_exir.utils.tensor_data import random_array

LoweredExecutor = Callable[[Sequence[Any]], Sequence[Any]]
"""Runs `@forward` on its arguments (in order), returns its results."""

_BOUNDARY_DTYPES = (
    DType.bool, DType.int8, DType.int16, DType.int32, DType.int64,
    DType.float16, DType.bfloat16, DType.float32, DType.float64,
)  # fmt: skip
"""The torch dtypes a lowered boundary holds, int8 first (the lowering writes uint8 as i8 too)."""


def find_forward(module: ModuleOp) -> func.FuncOp | None:
    """The `func.func @forward` of a lowered module (no `exir.program` beside it), if it is one."""
    if any(isinstance(op, ProgramOp) for op in module.ops):
        return None
    return next((op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "forward"), None)


def is_lowered(module: ModuleOp) -> bool:
    return find_forward(module) is not None


def _dtype_of(t: Attribute, what: str) -> DType:
    el = cast(Any, t).get_element_type() if isinstance(t, TensorType) else t
    for d in _BOUNDARY_DTYPES:
        try:
            if element_type(d) == el:
                return d
        except LoweringError:
            continue
    raise InterpreterError(f"{what} has type {t}, which has no numpy form at the boundary")


@dataclass(frozen=True)
class Slot:
    """One argument or result of `@forward`: its kind, name and type."""

    kind: str
    name: str
    type: TensorType[Attribute]
    dtype: DType


def _slots(attrs: Sequence[DictionaryAttr] | None, types: Sequence[Attribute], what: str) -> list[Slot]:
    slots: list[Slot] = []
    for i, t in enumerate(types):
        where = f"@forward's {what} {i}"
        data = attrs[i].data if attrs is not None and i < len(attrs) else {}
        kind, name = data.get("exir.kind"), data.get("exir.name")
        if not isinstance(kind, StringAttr) or not isinstance(name, StringAttr):
            raise InterpreterError(
                f"{where} has no exir.kind/exir.name attributes: exir-run runs modules that "
                "convert-exir-to-linalg wrote (or that follow its calling convention)"
            )
        if not isinstance(t, TensorType):
            raise InterpreterError(f"{where} ('{name.data}') is a {t}, not a tensor (scalars travel as 0-d tensors)")
        slots.append(Slot(kind.data, name.data, cast(TensorType[Attribute], t), _dtype_of(t, f"{where} ('{name.data}')")))
    return slots


class LoweredProgram:
    """`@forward` of a lowered module, called with the user inputs; buffers persist across calls."""

    def __init__(self, module: ModuleOp, executor: LoweredExecutor | None = None) -> None:
        fn = find_forward(module)
        if fn is None:
            raise InterpreterError("the module has no func.func @forward (and no exir.program)")
        self.module = module
        self.function = fn
        ins, outs = fn.function_type.inputs.data, fn.function_type.outputs.data
        arg_attrs = cast(Sequence[DictionaryAttr], fn.arg_attrs.data) if fn.arg_attrs is not None else None
        res_attrs = cast(Sequence[DictionaryAttr], fn.res_attrs.data) if fn.res_attrs is not None else None
        self.arguments = _slots(arg_attrs, ins, "argument")
        self.results = _slots(res_attrs, outs, "result")
        for s in self.arguments:
            if s.kind not in ("user_input", "buffer"):
                raise InterpreterError(f"@forward's argument '{s.name}' is of kind {s.kind!r}; expected user_input or buffer")
        self.user_input_names = [s.name for s in self.arguments if s.kind == "user_input"]
        self.buffer_names = [s.name for s in self.arguments if s.kind == "buffer"]
        self.state: dict[str, np.ndarray] = {}
        """The buffers' current values, by name (given by the caller first, then each call's updates)."""
        self.executor: LoweredExecutor = executor or (lambda args: run_lowered(module, args))

    def __call__(self, *user_inputs: Any) -> list[np.ndarray]:
        return self.run(user_inputs)

    def run(self, user_inputs: Sequence[Any]) -> list[np.ndarray]:
        """Run on the user inputs (flattened, in order); returns the user outputs."""
        if len(user_inputs) != len(self.user_input_names):
            raise InterpreterError(
                f"the lowered program takes {len(self.user_input_names)} user inputs "
                f"({', '.join(self.user_input_names) or 'none'}), got {len(user_inputs)}"
            )
        missing = [n for n in self.buffer_names if n not in self.state]
        if missing:
            raise InterpreterError(
                f"the lowered program takes the buffers it writes as arguments ({', '.join(missing)}), "
                "and the lowered module holds no value for them: give each by its name in the inputs "
                f"(e.g. np.savez('in.npz', arg0=..., {missing[0]}=...))"
            )
        args: list[np.ndarray] = []
        n_user = 0
        for s in self.arguments:
            if s.kind == "user_input":
                args.append(self._convert(s, user_inputs[n_user], f"input '{s.name}' (arg{n_user})"))
                n_user += 1
            else:
                args.append(self._convert(s, self.state[s.name], f"buffer '{s.name}'"))
        with np.errstate(all="ignore"):
            results = list(self.executor(args))
        if len(results) != len(self.results):
            raise InterpreterError(f"@forward returned {len(results)} values for {len(self.results)} results")
        outputs: list[np.ndarray] = []
        for s, r in zip(self.results, results):
            value = self._result(s, r)
            if s.kind in ("user_output", "loss_output"):
                outputs.append(value)
            elif s.kind == "buffer_mutation":
                self.state[s.name] = value
        return outputs

    def set_buffers(self, values: dict[str, Any]) -> None:
        """Give the buffers' values by name (checked on the next call)."""
        unknown = sorted(set(values) - set(self.buffer_names))
        if unknown:
            raise InterpreterError(
                f"the lowered program has no buffer argument {', '.join(repr(u) for u in unknown)} "
                f"(its buffers: {', '.join(self.buffer_names) or 'none'})"
            )
        self.state.update({k: np.asarray(v) for k, v in values.items()})

    def _convert(self, s: Slot, value: Any, where: str) -> np.ndarray:
        arr = np.asarray(value)
        want = numpy_dtype(s.dtype)
        if arr.dtype != want:
            if is_low_precision(want) and arr.dtype == np.float32:
                arr = cast_array(arr, s.dtype)  # how .npz files carry bfloat16
            elif want == np.int8 and arr.dtype == np.uint8:
                arr = arr.view(np.int8)  # the lowering's i8 is uint8 too
            else:
                raise InterpreterError(f"{where}: expected a {s.dtype} tensor, got numpy {arr.dtype}")
        shape = s.type.get_shape()
        if arr.ndim != len(shape) or any(d >= 0 and d != n for d, n in zip(shape, arr.shape)):
            shown = "x".join("?" if d < 0 else str(d) for d in shape) or "a 0-d tensor"
            raise InterpreterError(f"{where}: expected shape {shown}, got {list(arr.shape)}")
        return np.ascontiguousarray(arr) if arr.ndim else arr

    def _result(self, s: Slot, value: Any) -> np.ndarray:
        arr = np.asarray(value.to_host() if hasattr(value, "to_host") else value)
        want = numpy_dtype(s.dtype)
        return arr if arr.dtype == want else arr.astype(want)

    def random_inputs(self, seed: int) -> list[np.ndarray]:
        """User inputs drawn from the argument types (dynamic sizes 2), and the buffers too where not given."""
        rng = np.random.default_rng(seed)
        values: dict[str, np.ndarray] = {}
        for s in self.arguments:
            shape = [2 if d < 0 else d for d in s.type.get_shape()]
            values[s.name] = random_array(rng, shape, numpy_dtype(s.dtype), f"random {s.kind} '{s.name}'")
        for name in self.buffer_names:
            self.state.setdefault(name, values[name])
        return [values[n] for n in self.user_input_names]
