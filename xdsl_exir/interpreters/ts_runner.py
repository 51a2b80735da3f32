"""
Run a TorchScript program (`ts.module` / `ts.method` IR) on numpy, as
`scripted(*inputs)` would.

`TorchScriptRunner(module)` finds the entry and compiles it once:

- the `forward` method of the outermost `ts.module` (or the method named by
  `entry`; with several top-level modules, the one that has that method,
  the others being classes the program instantiates), called on an
  instance of that module built from its slots:
  parameters and buffers from their `#ts.tensor_value` data as numpy arrays,
  attribute slots as Python values, submodules recursively. The instance
  lives as long as the runner, so a `prim::SetAttr` or an in-place update of
  a buffer is seen by the next call, as on a live ScriptModule;
- else a top-level `ts.method` (a scripted function or a graph dump): the
  one named `entry`, else the only one, else the one named `forward`. A
  graph whose first input is a module (`%self : __torch__.M`) cannot run
  without the module, whose state a dump does not hold: that is an error,
  unless the graph never reads `%self` (a frozen module's `forward`).

`run(inputs)` takes and returns Python-level values (numpy arrays for
tensors, Python numbers, strings, lists, tuples, dicts), checked against the
graph's input types. `run_flat(arrays)` is exir-run's contract:

- inputs `arg0 ..` in call order, pytree-flattened: a tuple-typed input takes
  one array per element (recursively); a list of numbers takes one 1-d
  array; a list of tensors takes all the arrays the other inputs leave (so
  at most one input may be a list of tensors); an int, float or bool arrives
  as a 0-d array and is converted by the declared type (an int input refuses
  a float array, a float input takes ints, a bool input only bools);
- outputs `out0 ..`: tuples, lists and dict values flattened in order, ints
  as 0-d int64, floats as 0-d float64, bools as 0-d bool, strings as 0-d
  unicode arrays; None leaves nothing (npz cannot hold it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from xdsl.dialects.builtin import ModuleOp as BuiltinModuleOp
from xdsl.ir import Attribute

from xdsl_exir.dialects.ts import (
    MethodOp,
    ScriptModuleOp,
    SlotOp,
    TSAnyType,
    TSBoolType,
    TSClassType,
    TSDeviceType,
    TSDictType,
    TSFloatType,
    TSIntType,
    TSListType,
    TSNoneType,
    TSNumberType,
    TSOptionalType,
    TSStrType,
    TSTensorType,
    TSTupleType,
    ts_type_str,
)
from xdsl_exir.interpreters.compiler import CompiledGraph, InterpreterError, OpWrapper
from xdsl_exir.interpreters.ts_builtins import Future
from xdsl_exir.interpreters.ts_functions import (
    UNINITIALIZED,
    MissingData,
    ScriptObject,
    TSCompileContext,
    constant_value,
)
from xdsl_exir.semantics import kernels as aten_kernels
from xdsl_exir.utils.dtypes import is_low_precision
from xdsl_exir.utils.tensor_data import random_array

__all__ = ["TorchScriptRunner", "build_object", "is_torchscript"]


def is_torchscript(module: BuiltinModuleOp) -> bool:
    """
    Whether a module holds a TorchScript program to run: top-level `ts.module`
    or `ts.method` ops and no `exir.program` (which, once lowered, is what runs).
    """
    ops = list(module.ops)
    return any(isinstance(op, ScriptModuleOp | MethodOp) for op in ops) and not any(op.name == "exir.program" for op in ops)


def _collect_classes(module: ScriptModuleOp, classes: dict[str, ScriptModuleOp]) -> None:
    classes.setdefault(module.class_name.data, module)
    for sub in module.submodules():
        _collect_classes(sub, classes)


def build_object(module: ScriptModuleOp) -> ScriptObject:
    """An instance of a `ts.module`: its slots' values (fresh arrays) and submodules."""
    attrs: dict[str, Any] = {}
    for op in module.body.ops:
        if isinstance(op, ScriptModuleOp):
            attrs[op.sym_name.data] = build_object(op)
            continue
        if not isinstance(op, SlotOp):
            continue
        slot = op
        name = slot.sym_name.data
        value = slot.value
        slot_type = slot.slot_type
        if value is None and isinstance(slot_type, TSTensorType):
            attrs[name] = MissingData(module.class_name.data, name)
            continue
        try:
            attrs[name] = constant_value(value, slot_type)
        except InterpreterError as e:
            if e.op is None:
                e.op = slot
            raise
    return ScriptObject(module.class_name.data, attrs)


class TorchScriptRunner:
    """Runs the entry method or function of a TorchScript program (see the module doc)."""

    def __init__(self, module: BuiltinModuleOp, entry: str | None = None, wrap_op: OpWrapper | None = None) -> None:
        modules = [op for op in module.ops if isinstance(op, ScriptModuleOp)]
        functions = {op.sym_name.data: op for op in module.ops if isinstance(op, MethodOp)}
        classes: dict[str, ScriptModuleOp] = {}
        for m in modules:
            _collect_classes(m, classes)
        self.context = TSCompileContext(classes, functions)
        self.context.wrap_op = wrap_op  # a profiler's, as ProgramRunner takes it
        self.self_object: ScriptObject | None = None
        method = self._find_entry(modules, functions, entry)
        self.method = method
        args = list(method.body.block.args)
        self._pass_self = self.self_object is not None
        if self.self_object is None and args and isinstance(args[0].type, TSClassType):
            if args[0].uses:
                raise InterpreterError(
                    f"this graph is a method of {args[0].type.qualname.data}; its module's state is not "
                    "in the input (a graph dump holds no weights: import the module itself, e.g. live)",
                    method,
                )
            self._pass_self = True  # a method that never reads `self` (a frozen module's forward)
        self.input_values = args[1:] if self._pass_self else args
        self.input_types: list[Attribute] = [a.type for a in self.input_values]
        self.input_names = [a.name_hint or f"input{i}" for i, a in enumerate(self.input_values)]
        self.graph: CompiledGraph = self.context.compile_method(method, method.sym_name.data)

    def _find_entry(self, modules: list[ScriptModuleOp], functions: dict[str, MethodOp], entry: str | None) -> MethodOp:
        if len(modules) > 1:
            # Other top-level modules are classes the program instantiates (`prim::CreateObject`).
            name = entry or "forward"
            roots = [m for m in modules if m.method(name) is not None]
            if len(roots) != 1:
                names = ", ".join(f"@{m.sym_name.data}" for m in (roots or modules))
                raise InterpreterError(
                    f"the input holds several ts.modules ({names}); exactly one must have a method '{name}' to run"
                )
            modules = roots
        if modules:
            root = modules[0]
            name = entry or "forward"
            method = root.method(name)
            if method is not None:
                self.self_object = build_object(root)
                return method
            if entry is None or entry not in functions:
                known = ", ".join(m.sym_name.data for m in root.methods()) or "none"
                raise InterpreterError(f"ts.module @{root.sym_name.data} has no method '{name}' (methods: {known})", root)
        if entry is not None:
            if entry not in functions:
                known = ", ".join(functions) or "none"
                raise InterpreterError(f"no function named '{entry}' in the input (functions: {known})")
            return functions[entry]
        if len(functions) == 1:
            return next(iter(functions.values()))
        if "forward" in functions:
            return functions["forward"]
        if not functions:
            raise InterpreterError("the input holds no ts.module or ts.method to run")
        raise InterpreterError(
            f"the input holds several functions ({', '.join(functions)}) and none is named forward; "
            f"choose one with --entry NAME (from Python: entry='NAME')"
        )

    # -- running ---------------------------------------------------------------

    def run(self, inputs: Sequence[object]) -> list[object]:
        """Call the entry with Python-level inputs; returns its outputs (one per graph output)."""
        if len(inputs) != len(self.input_types):
            raise InterpreterError(
                f"the graph takes {len(self.input_types)} inputs ({self._signature()}), got {len(inputs)}"
            )
        args = [
            _convert_input(v, t, f"input {i} ('{n}')")
            for i, (v, t, n) in enumerate(zip(inputs, self.input_types, self.input_names))
        ]
        if self._pass_self:
            args.insert(0, self.self_object)
        outputs = list(self.graph(*args))
        for o in outputs:
            if o is UNINITIALIZED:
                raise InterpreterError("the graph returned a value from prim::Uninitialized")
        return outputs

    def _signature(self) -> str:
        return ", ".join(f"{n}: {_type_text(t)}" for n, t in zip(self.input_names, self.input_types))

    @property
    def flat_input_names(self) -> list[str] | None:
        """The name of each of `run_flat`'s arrays, or None if a list of tensors makes their number vary."""
        names: list[str] = []
        for n, t in zip(self.input_names, self.input_types):
            count = _flat_count(t)
            if count is None:
                return None
            names.extend(_flat_names(n, t))
        return names

    def run_flat(self, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
        """exir-run's contract: flattened inputs in, flattened outputs out (see the module doc)."""
        counts = [_flat_count(t) for t in self.input_types]
        variable = [i for i, c in enumerate(counts) if c is None]
        fixed = sum(c for c in counts if c is not None)
        if len(variable) > 1:
            names = ", ".join(self.input_names[i] for i in variable)
            raise InterpreterError(f"inputs {names} are lists of tensors; only one such input can be given flat")
        if variable:
            n_var = len(arrays) - fixed
            if n_var < 0:
                raise InterpreterError(
                    f"the graph takes at least {fixed} flat inputs ({self._signature()}), got {len(arrays)}"
                )
            counts[variable[0]] = n_var
        elif len(arrays) != fixed:
            raise InterpreterError(
                f"the graph takes {fixed} flat inputs arg0..arg{fixed - 1} ({self._signature()}), got {len(arrays)}"
            )
        inputs: list[object] = []
        pos = 0
        for t, count, name in zip(self.input_types, counts, self.input_names):
            assert count is not None
            inputs.append(_unflatten(t, list(arrays[pos : pos + count]), name))
            pos += count
        out: list[np.ndarray] = []
        for v in self.run(inputs):
            _flatten_output(v, out)
        return out

    def random_flat_inputs(self, seed: int) -> list[np.ndarray]:
        """Flat inputs drawn from the input types (tensors need known dtype and sizes)."""
        rng = np.random.default_rng(seed)
        out: list[np.ndarray] = []
        for name, t in zip(self.input_names, self.input_types):
            _random_value(t, name, rng, out)
        return out


# ---------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------


def _describe_value(v: object) -> str:
    if isinstance(v, np.ndarray):
        return f"a {v.dtype} array of shape {list(v.shape)}"
    return f"{type(v).__name__} {v!r}"


def _scalar(v: object, kinds: str, what: str, where: str) -> Any:
    if isinstance(v, np.ndarray | np.generic):
        a = np.asarray(v)
        low = "f" in kinds and is_low_precision(a.dtype)  # bfloat16 and float8 are numpy kind 'V'
        if a.ndim != 0 or (a.dtype.kind not in kinds and not low):
            raise InterpreterError(f"{where} is {what}, got {_describe_value(a)}")
        return float(a) if low else a.item()
    return v


def _convert_input(v: object, t: Attribute, where: str) -> Any:
    """A caller's value as the graph's input of type `t` (checked)."""
    if isinstance(t, TSAnyType):
        return v
    if isinstance(t, TSOptionalType):
        return None if v is None else _convert_input(v, t.element, where)
    if isinstance(t, TSTensorType):
        if isinstance(v, np.generic):
            v = np.asarray(v)
        if not isinstance(v, np.ndarray):
            raise InterpreterError(f"{where} is a tensor, got {_describe_value(v)}")
        dt = t.dtype
        if dt is not None:
            try:
                want = aten_kernels.numpy_dtype(dt)
            except NotImplementedError:
                want = None
            if want is not None and v.dtype != want:
                raise InterpreterError(f"{where} is a {t.scalar_type} tensor ({want}), got {_describe_value(v)}")
        if t.rank is not None and v.ndim != t.rank:
            raise InterpreterError(f"{where} is a tensor of rank {t.rank} ({_type_text(t)}), got {_describe_value(v)}")
        return v
    if isinstance(t, TSIntType):
        s = _scalar(v, "iu", "an int", where)
        if not isinstance(s, int) or isinstance(s, bool):
            raise InterpreterError(f"{where} is an int, got {_describe_value(v)}")
        return s
    if isinstance(t, TSFloatType):
        s = _scalar(v, "fiu", "a float", where)
        if not isinstance(s, int | float) or isinstance(s, bool):
            raise InterpreterError(f"{where} is a float, got {_describe_value(v)}")
        return float(s)
    if isinstance(t, TSBoolType):
        s = _scalar(v, "b", "a bool", where)
        if not isinstance(s, bool):
            raise InterpreterError(f"{where} is a bool, got {_describe_value(v)}")
        return s
    if isinstance(t, TSNumberType):
        return _scalar(v, "biufc", "a number", where)
    if isinstance(t, TSStrType | TSDeviceType):
        s = _scalar(v, "U", "a str", where)
        if not isinstance(s, str):
            raise InterpreterError(f"{where} is a str, got {_describe_value(v)}")
        return s
    if isinstance(t, TSNoneType):
        if v is not None:
            raise InterpreterError(f"{where} is None, got {_describe_value(v)}")
        return None
    if isinstance(t, TSListType):
        if isinstance(v, np.ndarray) and v.ndim >= 1:
            v = list(v)
        if not isinstance(v, list | tuple):
            raise InterpreterError(f"{where} is a list, got {_describe_value(v)}")
        return [_convert_input(x, t.element, f"{where}[{i}]") for i, x in enumerate(cast(Sequence[object], v))]
    if isinstance(t, TSTupleType):
        items = t.element_types
        if not isinstance(v, list | tuple) or len(cast(Sequence[object], v)) != len(items):
            raise InterpreterError(f"{where} is a tuple of {len(items)} elements, got {_describe_value(v)}")
        return tuple(_convert_input(x, e, f"{where}[{i}]") for i, (x, e) in enumerate(zip(cast(Sequence[object], v), items)))
    if isinstance(t, TSDictType):
        if not isinstance(v, dict):
            raise InterpreterError(f"{where} is a dict, got {_describe_value(v)}")
        d = cast(dict[object, object], v)
        return {_convert_input(k, t.key, where): _convert_input(x, t.value, where) for k, x in d.items()}
    if isinstance(t, TSClassType):
        if not isinstance(v, ScriptObject):
            raise InterpreterError(f"{where} is an object of {t.qualname.data}, got {_describe_value(v)}")
        return v
    return v


def _is_tensor_list(t: Attribute) -> bool:
    return isinstance(t, TSListType) and isinstance(t.element, TSTensorType | TSOptionalType)


def _flat_count(t: Attribute) -> int | None:
    if isinstance(t, TSTupleType):
        counts = [_flat_count(e) for e in t.element_types]
        return None if any(c is None for c in counts) else sum(c for c in counts if c is not None)
    if _is_tensor_list(t) or isinstance(t, TSDictType):
        return None
    return 1


def _flat_names(name: str, t: Attribute) -> list[str]:
    if isinstance(t, TSTupleType):
        return [n for i, e in enumerate(t.element_types) for n in _flat_names(f"{name}[{i}]", e)]
    return [name]


def _unflatten(t: Attribute, arrays: list[np.ndarray], name: str) -> object:
    if isinstance(t, TSOptionalType):
        return _unflatten(t.element, arrays, name)
    if isinstance(t, TSTupleType):
        items: list[object] = []
        pos = 0
        for i, e in enumerate(t.element_types):
            n = _flat_count(e)
            if n is None:
                raise InterpreterError(f"input '{name}': a tuple holding lists of tensors cannot be given flat")
            items.append(_unflatten(e, arrays[pos : pos + n], f"{name}[{i}]"))
            pos += n
        return tuple(items)
    if _is_tensor_list(t):
        return list(arrays)
    if isinstance(t, TSDictType):
        raise InterpreterError(f"input '{name}' is a dict, which cannot be given as flat arrays")
    a = arrays[0]
    if isinstance(t, TSListType):
        if a.ndim != 1:
            raise InterpreterError(f"input '{name}' ({_type_text(t)}) takes a 1-d array, got shape {list(a.shape)}")
        return list(a)
    return a


def _flatten_output(v: object, out: list[np.ndarray]) -> None:
    if isinstance(v, list | tuple):
        for x in cast(Sequence[object], v):
            _flatten_output(x, out)
    elif isinstance(v, dict):
        for x in cast(dict[object, object], v).values():
            _flatten_output(x, out)
    elif v is None:
        return
    elif isinstance(v, np.ndarray):
        out.append(v)
    elif isinstance(v, bool):
        out.append(np.asarray(v, dtype=np.bool_))
    elif isinstance(v, int):
        out.append(np.asarray(v, dtype=np.int64))
    elif isinstance(v, float):
        out.append(np.asarray(v, dtype=np.float64))
    elif isinstance(v, complex):
        out.append(np.asarray(v, dtype=np.complex128))
    elif isinstance(v, str):
        out.append(np.asarray(v))
    elif isinstance(v, Future):
        _flatten_output(v.value, out)
    else:
        raise InterpreterError(f"an output of type {type(v).__name__} cannot be written as arrays")


def _type_text(t: Attribute) -> str:
    """A type as TorchScript spells it, for messages (a type it cannot spell as xDSL prints it)."""
    try:
        return ts_type_str(t)
    except TypeError:
        return str(t)


def _random_value(t: Attribute, name: str, rng: np.random.Generator, out: list[np.ndarray]) -> None:
    if isinstance(t, TSTupleType):
        for i, e in enumerate(t.element_types):
            _random_value(e, f"{name}[{i}]", rng, out)
    elif isinstance(t, TSOptionalType):
        _random_value(t.element, name, rng, out)
    elif isinstance(t, TSTensorType):
        shape = t.shape
        dt = t.dtype
        if shape is None or any(d is None for d in shape) or dt is None:
            raise InterpreterError(
                f"cannot draw a random value for input '{name}': its type {_type_text(t)} does not give "
                "the dtype and every size; give the inputs with --inputs"
            )
        np_dt = aten_kernels.numpy_dtype(dt)
        sizes = [cast(int, d) for d in shape]
        out.append(random_array(rng, sizes, np_dt, f"random input '{name}'"))
    elif isinstance(t, TSIntType):
        out.append(np.asarray(2, dtype=np.int64))
    elif isinstance(t, TSFloatType):
        out.append(np.asarray(rng.standard_normal(), dtype=np.float64))
    elif isinstance(t, TSBoolType):
        out.append(np.asarray(True))
    else:
        raise InterpreterError(f"cannot draw a random value for input '{name}' of type {_type_text(t)}")
