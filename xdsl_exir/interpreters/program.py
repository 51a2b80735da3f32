"""
Run an `exir.program` the way `ExportedProgram.module()(*args)` would.

`ProgramRunner` compiles the entry graph once (see `compiler.py`) and then, per
call: checks the user inputs against the placeholder types, binding the
symbolic sizes (`s0`, ...) from the actual shapes and checking them against
the program's range constraints; feeds parameters, buffers and constants from
the program state; runs the graph; applies the signature's mutations (buffer
mutations update the state, user-input mutations write into the caller's
arrays); and returns the user outputs, pytree-flattened.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp
from xdsl.ir import Attribute

from xdsl_exir.dialects.exir import (
    BoolType,
    DenseBlobAttr,
    FloatType,
    GraphOp,
    InputKind,
    IntType,
    OutputKind,
    ProgramOp,
    ResourceBlobAttr,
    SymBoolType,
    SymFloatType,
    SymIntType,
    TensorType,
    array_from_blob,
)
from xdsl_exir.interpreters.compiler import CompileContext, CompiledGraph, InterpreterError, OpWrapper
from xdsl_exir.semantics.kernels import numpy_dtype
from xdsl_exir.semantics.kernels.views import with_dim_order
from xdsl_exir.utils.dtypes import cast_array, is_low_precision
from xdsl_exir.utils.limits import TensorSizeError, check_tensor_bytes
from xdsl_exir.utils.symbolic import print_python_expr, sympy
from xdsl_exir.utils.tensor_data import TensorDataError


def find_program(module: ModuleOp | ProgramOp) -> ProgramOp:
    """The one `exir.program` of a module."""
    if isinstance(module, ProgramOp):
        return module
    programs = [op for op in module.ops if isinstance(op, ProgramOp)]
    if len(programs) != 1:
        raise InterpreterError(f"expected one exir.program in the module, found {len(programs)}")
    return programs[0]


def load_state(program: ProgramOp) -> dict[str, Any]:
    """
    The data of every `exir.state` that has some, as numpy arrays. Parameters are
    read-only views of their blobs (of a mapped archive's pages: weights are not
    copied); buffers and constants, which a training graph may write in place,
    get their own copies. A tensor whose type has a dim order other than the
    identity (a channels-last weight) is laid out in memory in that order, a
    copy.
    """
    state: dict[str, Any] = {}
    parameters = {s.target_name for s in program.inputs.data if s.input_kind is InputKind.parameter}
    for name, op in program.state().items():
        if op.value is None:
            continue
        t = op.state_type
        if not isinstance(t, TensorType) or not isinstance(op.value, (DenseBlobAttr, ResourceBlobAttr, DenseIntOrFPElementsAttr)):
            raise InterpreterError(f"state @{name}: only tensor data (dense_resource<...> or dense<...>) can be loaded", op)
        try:
            _check_state_size(name, t)
            if isinstance(op.value, DenseBlobAttr | ResourceBlobAttr):
                array = array_from_blob(op.value, t)
                array = array if name in parameters else array.copy()
            else:
                array = _from_dense(op.value, t)
            # In memory as torch holds it (a channels-last weight), for as_strided, which reads the storage.
            laid = with_dim_order(array, t.get_dim_order())
            if laid is not array and name in parameters:
                laid.flags.writeable = False
            state[name] = laid
        except TensorSizeError as e:
            raise InterpreterError(str(e), op) from None
        except TensorDataError as e:
            raise InterpreterError(f"state @{name}: {e}", op) from None
    return state


def _check_state_size(name: str, t: TensorType) -> None:
    """Refuse state whose array would exceed the tensor size limit (a splat can claim any size)."""
    if not all(isinstance(s, int) for s in t.sizes):
        return  # refused when loaded
    try:
        itemsize = numpy_dtype(t.element_dtype).itemsize
    except NotImplementedError:
        return  # refused when loaded
    check_tensor_bytes(f"state @{name}", cast(list[int], list(t.sizes)), itemsize)


def _from_dense(attr: DenseIntOrFPElementsAttr, t: TensorType) -> np.ndarray:
    """Builtin `dense<...>` data (splat or full) shaped as the state type."""
    if not all(isinstance(s, int) for s in t.sizes):
        raise TensorDataError(f"state data needs static sizes, got {t}")
    shape = cast(tuple[int, ...], tuple(t.sizes))
    values = np.asarray(attr.get_values(), dtype=numpy_dtype(t.element_dtype))
    if values.size == 1:
        return np.full(shape, values.reshape(()), dtype=values.dtype)
    if values.size != int(np.prod(shape)):
        raise TensorDataError(f"dense data has {values.size} elements, the state type needs {int(np.prod(shape))}")
    return values.reshape(shape).copy()


@dataclass
class _Input:
    """How one placeholder of the entry graph gets its value."""

    kind: InputKind
    name: str
    type: Attribute
    target: str | None
    user_index: int


class _Bindings:
    """The sizes one call binds: each symbol's value and where it came from, plus
    derived sizes waiting for their symbols."""

    def __init__(self) -> None:
        self.env: dict[sympy.Symbol, tuple[int, str]] = {}
        self._deferred: list[tuple[sympy.Expr, int, str]] = []

    def bind(self, expr: sympy.Expr, actual: int, where: str) -> None:
        env = self.env
        if isinstance(expr, sympy.Symbol):
            if expr in env and env[expr][0] != actual:
                first, first_where = env[expr]
                raise InterpreterError(
                    f"{where} is {actual}, but {expr} = {first} from {first_where}; they must be equal"
                )
            env.setdefault(expr, (actual, where))
            return
        if not expr.free_symbols <= env.keys():
            # A derived size is checked once every symbol it uses is bound.
            self._deferred.append((expr, actual, where))
            return
        expected = cast(sympy.Expr, expr.xreplace({s: sympy.Integer(v) for s, (v, _) in env.items()}))
        if expected.is_number and int(expected) != actual:
            raise InterpreterError(f"{where} is {actual}, but it must be {print_python_expr(expr)} = {int(expected)}")

    def check_deferred(self) -> None:
        """Check the derived sizes whose symbols are now all bound."""
        deferred, self._deferred = self._deferred, []
        for expr, actual, where in deferred:
            if expr.free_symbols <= self.env.keys():
                self.bind(expr, actual, where)


GraphExecutor = Callable[..., Sequence[Any]]
"""Runs the entry graph: takes every placeholder's value in order, returns the outputs."""


class ProgramRunner:
    """
    An `exir.program` compiled once, callable many times on numpy inputs.

    The graph runs on the numpy interpreter unless `executor` is given: another
    backend (IREE's native code) then runs it, and this class keeps doing what
    the contract asks around it (input and range checks, state, mutations).
    `wrap_op` wraps each prepared op as the graph is compiled (a profiler).
    """

    def __init__(
        self,
        module: ModuleOp | ProgramOp,
        state: dict[str, Any] | None = None,
        executor: GraphExecutor | None = None,
        wrap_op: OpWrapper | None = None,
    ) -> None:
        self.program = find_program(module)
        self.state: dict[str, Any] = load_state(self.program) if state is None else state
        entry = self.program.entry
        if entry is None:
            raise InterpreterError("the program has no @forward graph", self.program)
        self._entry: GraphOp = entry  # found once: a run must not walk the program's ops
        self.ctx = CompileContext(self.program, self.state, wrap_op)
        self.graph: GraphExecutor = self.ctx.compile_graph(entry) if executor is None else executor
        specs = self.program.inputs.data
        types = entry.function_type.inputs.data
        if len(specs) != len(types):
            raise InterpreterError(
                f"the signature has {len(specs)} inputs but @forward has {len(types)} placeholders", self.program
            )
        self._inputs: list[_Input] = []
        n_user = 0
        for spec, t in zip(specs, types):
            kind = spec.input_kind
            self._inputs.append(_Input(kind, spec.arg_name.data, t, spec.target_name, n_user))
            if kind is InputKind.user_input:
                n_user += 1
            elif kind is not InputKind.token and spec.target_name not in self.state:
                raise InterpreterError(f"the program state has no data for @{spec.target_name}", self.program)
        self.user_input_names = [i.name for i in self._inputs if i.kind is InputKind.user_input]
        self._ranges = [
            (expr, lower, upper, sorted(cast(set[sympy.Symbol], expr.free_symbols), key=str))
            for expr, (lower, upper) in self.program.ranges().items()
        ]

    @property
    def num_steps(self) -> int:
        return cast(CompiledGraph, self.graph).num_steps

    # -- running --------------------------------------------------------------

    def __call__(self, *user_inputs: Any) -> list[Any]:
        return self.run(user_inputs)

    def run(self, user_inputs: Sequence[Any]) -> list[Any]:
        """Run on the flattened user inputs; returns the flattened user outputs."""
        if isinstance(user_inputs, np.ndarray) or not isinstance(user_inputs, Sequence):
            # One array is a sequence too: `run(x)` would take its rows for inputs.
            what = type(user_inputs).__name__
            if isinstance(user_inputs, np.ndarray):
                what = f"one array of shape {list(user_inputs.shape)}"
            raise InterpreterError(
                f"run() takes a list of the {_inputs(len(self.user_input_names))} "
                f"({', '.join(self.user_input_names) or 'none'}), got {what}; write run([x]) or runner(x)"
            )
        if len(user_inputs) != len(self.user_input_names):
            raise InterpreterError(
                f"the program takes {_inputs(len(self.user_input_names))} "
                f"({', '.join(self.user_input_names) or 'none'}), got {len(user_inputs)}"
            )
        bindings = _Bindings()
        args: list[Any] = []
        user_values: list[Any] = []
        for inp in self._inputs:
            if inp.kind is InputKind.user_input:
                value = self._convert(inp, user_inputs[inp.user_index], bindings)
                user_values.append(value)
                args.append(value)
            elif inp.kind is InputKind.token:
                args.append(None)
            else:
                args.append(self.state[cast(str, inp.target)])
        bindings.check_deferred()
        self._check_ranges(bindings.env)
        with np.errstate(all="ignore"):
            results = self.graph(*args)
        return self._apply_outputs(results, user_inputs, user_values)

    def _convert(self, inp: _Input, value: Any, bindings: _Bindings) -> Any:
        t = inp.type
        where = f"input '{inp.name}' (arg{inp.user_index})"
        if isinstance(t, TensorType):
            return self._convert_tensor(t, value, where, bindings)
        scalar = np.asarray(value)
        if scalar.shape != ():
            raise InterpreterError(f"{where}: expected a scalar, got an array of shape {list(scalar.shape)}")
        if isinstance(t, (IntType, SymIntType)):
            if scalar.dtype.kind not in "iub":
                raise InterpreterError(f"{where}: expected an int, got {scalar.dtype}")
            number = int(scalar)
            if isinstance(t, SymIntType) and t.value is not None:
                bindings.bind(t.value, number, where)
            return number
        if isinstance(t, (FloatType, SymFloatType)):
            return float(scalar)
        if isinstance(t, (BoolType, SymBoolType)):
            return bool(scalar)
        return value

    def _convert_tensor(
        self, t: TensorType, value: Any, where: str, bindings: _Bindings
    ) -> np.ndarray:
        dtype = t.element_dtype
        if not isinstance(value, np.ndarray):
            given = type(value).__name__
            try:
                value = np.asarray(value)
            except ValueError:  # a ragged nesting of lists
                raise InterpreterError(f"{where}: expected a {dtype} tensor, got a {given} numpy cannot make an array of") from None
            if value.dtype == object:  # None, a string list mixed with numbers, any other Python object
                raise InterpreterError(f"{where}: expected a {dtype} tensor, got {given}")
        want = numpy_dtype(dtype)
        if value.dtype != want:
            if not (is_low_precision(want) and value.dtype == np.float32):
                raise InterpreterError(f"{where}: expected a {dtype} tensor, got numpy {value.dtype}")
            # float32 is how .npz files carry bfloat16 and float8 (utils/npz.py): round to the dtype.
            value = cast_array(value, dtype)
        sizes = t.sizes
        if value.ndim != len(sizes):
            raise InterpreterError(
                f"{where}: expected {len(sizes)} dimensions {_show(sizes)}, got shape {list(value.shape)}"
            )
        for d, (size, actual) in enumerate(zip(sizes, value.shape)):
            if isinstance(size, int):
                if size != actual:
                    raise InterpreterError(
                        f"{where}: dimension {d} must be {size} (shape {_show(sizes)}), got shape {list(value.shape)}"
                    )
            else:
                bindings.bind(size, int(actual), f"{where} dimension {d}")
        return value

    def _check_ranges(self, env: dict[sympy.Symbol, tuple[int, str]]) -> None:
        for expr, lower, upper, symbols in self._ranges:
            if not all(s in env for s in symbols):
                continue
            value = expr.xreplace({s: sympy.Integer(env[s][0]) for s in symbols})
            if not value.is_number:
                continue
            if (lower.is_finite and value < lower) or (upper.is_finite and value > upper):
                origin = "; ".join(f"{s} = {env[s][0]} from {env[s][1]}" for s in symbols)
                raise InterpreterError(
                    f"{origin}: {print_python_expr(expr)} = {value} is outside the range "
                    f"[{_bound(lower)}, {_bound(upper)}] the program was exported for"
                )

    def _check_output(self, index: int, name: str, value: Any) -> None:
        """A result whose shape or dtype contradicts the IR is a bug of an operator
        implementation: it must stop here, located, rather than reach the caller."""
        entry = self._entry
        types = entry.function_type.outputs.data
        t = types[index] if index < len(types) else None
        if not isinstance(t, TensorType) or not isinstance(value, np.ndarray):
            return
        sizes = t.sizes
        shape_ok = value.ndim == len(sizes) and all(
            not isinstance(s, int) or s == actual for s, actual in zip(sizes, value.shape)
        )
        want = numpy_dtype(t.element_dtype)
        if shape_ok and value.dtype == want:
            return
        got = f"shape {list(value.shape)} and dtype {value.dtype}"
        raise InterpreterError(
            f"output {index} ('{name}'): the program computed {got} where the IR says {_show(sizes)} "
            f"and {t.element_dtype} (numpy {want}); an operator's implementation disagrees with its type",
            entry.body.block.last_op,
        )

    def _apply_outputs(self, results: Sequence[Any], user_inputs: Sequence[Any], user_values: list[Any]) -> list[Any]:
        outputs: list[Any] = []
        for index, (spec, value) in enumerate(zip(self.program.outputs.data, results)):
            kind = spec.output_kind
            if kind in (OutputKind.user_output, OutputKind.loss_output):
                self._check_output(index, spec.arg_name.data, value)
                outputs.append(value)
            elif kind is OutputKind.buffer_mutation:
                target = cast(str, spec.target_name)
                current = self.state.get(target)
                if isinstance(current, np.ndarray) and isinstance(value, np.ndarray) and current.shape == value.shape:
                    np.copyto(current, value, casting="unsafe")
                else:
                    self.state[target] = value
            elif kind is OutputKind.user_input_mutation:
                name = spec.target_name
                if name in self.user_input_names:
                    dest = user_inputs[self.user_input_names.index(name)]
                    if isinstance(dest, np.ndarray) and dest.flags.writeable:
                        np.copyto(dest, value, casting="unsafe")
        return outputs


def _inputs(n: int) -> str:
    return f"{n} user input" + ("" if n == 1 else "s")


def _show(sizes: Sequence[Any]) -> str:
    return "[" + ", ".join(str(s) if isinstance(s, int) else print_python_expr(s) for s in sizes) + "]"


def _bound(b: sympy.Expr) -> str:
    if b == sympy.oo:
        return "inf"
    if b == -sympy.oo:
        return "-inf"
    return str(b)
