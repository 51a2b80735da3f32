"""The entry of the lowering: finding the method to lower, lifting parameters and
buffers to placeholders backed by `exir.state`s, inputs from refined types or
options, and the program's signature (buffer and user-input mutations, user
outputs with their pytree spec, range constraints) once the entry has run.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Attribute, BlockArgument, Region, SSAValue

from xdsl_exir.dialects import ts
from xdsl_exir.dialects.exir import (
    ConstantOp,
    GraphOp,
    InputKind,
    InputSpecAttr,
    OutputKind,
    OutputOp,
    OutputSpecAttr,
    ProgramOp,
    RangeConstraintAttr,
    StateOp,
    SymScalarType,
    TensorType,
)
from xdsl_exir.dialects.exir import ListType as ExirListType
from xdsl_exir.dialects.exir import TupleType as ExirTupleType
from xdsl_exir.transforms.dead_code_elimination import eliminate_dead_code
from xdsl_exir.transforms.input_options import InputOptionError, exir_tensor_type, parse_input_types, parse_ranges
from xdsl_exir.transforms.torchscript_to_exir.errors import TorchScriptLoweringError
from xdsl_exir.transforms.torchscript_to_exir.options import parse_input_values
from xdsl_exir.transforms.torchscript_to_exir.prims import Lowering
from xdsl_exir.transforms.torchscript_to_exir.values import (
    Detached,
    ModRef,
    SymScalar,
    TensorRef,
    TensorScalar,
    TSList,
    sanitize,
    with_article,
)
from xdsl_exir.utils.diagnostics import ExirDiagnostic, locate
from xdsl_exir.utils.function_schema import SchemaParseError, parse_schema
from xdsl_exir.utils.symbolic import SymSize, sympy

if TYPE_CHECKING:
    from xdsl_exir.transforms.torchscript_to_exir.values import LV


# Entry, state, signature
# ---------------------------------------------------------------------------


def _leaf_spec() -> dict[str, object]:
    return {"type": None, "context": None, "children_spec": []}


def _tree_spec(tree: object) -> dict[str, object]:
    if isinstance(tree, tuple):
        return {"type": "builtins.tuple", "context": "null",
                "children_spec": [_tree_spec(t) for t in cast(tuple[object, ...], tree)]}  # fmt: skip
    if isinstance(tree, list):
        return {"type": "builtins.list", "context": "null",
                "children_spec": [_tree_spec(t) for t in cast(list[object], tree)]}  # fmt: skip
    if isinstance(tree, dict):
        d = cast(dict[object, object], tree)
        return {"type": "builtins.dict", "context": json.dumps(list(d.keys())),
                "children_spec": [_tree_spec(v) for v in d.values()]}  # fmt: skip
    return _leaf_spec()


def _dump_spec(tree: object) -> str:
    """A pytree spec in torch's `treespec_dumps` JSON form."""
    return json.dumps([1, _tree_spec(tree)])


def lower_torchscript(
    module: ModuleOp,
    entry: str | None = None,
    input_types: str = "",
    input_values: str = "",
    ranges: str = "",
    max_unroll: int = 1000,
) -> ProgramOp:
    """Lower the TorchScript program in `module` to an `exir.program` (the module is not changed)."""
    root, method = _find_entry(module, entry)
    try:
        options = (parse_input_types(input_types), parse_input_values(input_values), parse_ranges(ranges))
    except (InputOptionError, TorchScriptLoweringError) as e:
        raise ExirDiagnostic(method, f"torchscript-to-exir option {e} (lowering @{method.sym_name.data})") from None
    low = Lowering(module, *options, max_unroll)
    try:
        return _lower_entry(low, root, method)
    except TorchScriptLoweringError as e:
        where = low.current or method
        raise ExirDiagnostic(where, _with_call_chain(str(e), low)) from None


def _with_call_chain(message: str, low: Lowering) -> str:
    calls = low.call_stack[0::2]
    if not calls:
        return message
    return message + "".join(f" (inlined from {locate(c)})" for c in reversed(calls))


def _find_entry(module: ModuleOp, entry: str | None) -> tuple[ts.ScriptModuleOp | None, ts.MethodOp]:
    modules = [op for op in module.ops if isinstance(op, ts.ScriptModuleOp)]
    methods = [op for op in module.ops if isinstance(op, ts.MethodOp)]
    if len(modules) > 1:
        raise ExirDiagnostic(modules[1], "torchscript-to-exir lowers one ts.module; this input has several")
    if modules:
        root = modules[0]
        name = entry or "forward"
        method = root.method(name)
        if method is None:
            names = ", ".join(m.sym_name.data for m in root.methods()) or "none"
            raise ExirDiagnostic(root, f"ts.module @{root.sym_name.data} has no method '{name}' (methods: {names})")
        return root, method
    if not methods:
        raise ExirDiagnostic(module, "no TorchScript program to lower: the input has no ts.module or ts.method")
    if entry is not None:
        found = [m for m in methods if m.sym_name.data == entry]
        if not found:
            names = ", ".join(m.sym_name.data for m in methods)
            raise ExirDiagnostic(module, f"torchscript-to-exir: no ts.method @{entry} to lower (functions: {names})")
        return None, found[0]
    if len(methods) == 1:
        return None, methods[0]
    forward = [m for m in methods if m.sym_name.data == "forward"]
    if forward:
        return None, forward[0]
    names = ", ".join(m.sym_name.data for m in methods)
    raise ExirDiagnostic(module, f"several functions ({names}); choose the entry with the pass option entry=NAME")


def _schema_arg_names(method: ts.MethodOp) -> list[str | None]:
    n = len(method.body.block.args)
    if method.schema is None:
        return [None] * n
    try:
        schema = parse_schema(method.schema.data)
    except SchemaParseError:
        return [None] * n
    names: list[str | None] = [a.name for a in schema.arguments]
    return names if len(names) == n else [None] * n


def _lower_entry(low: Lowering, root: ts.ScriptModuleOp | None, method: ts.MethodOp) -> ProgramOp:
    block = method.body.block
    low.current = method
    # State: every parameter, then every buffer, of the module tree (torch's state_dict order).
    if root is not None:
        params: list[tuple[ts.ScriptModuleOp, ts.SlotOp, str]] = []
        buffers: list[tuple[ts.ScriptModuleOp, ts.SlotOp, str]] = []
        _collect_state(root, "", params, buffers)
        for kind, group, specs in (
            (InputKind.parameter, params, low.param_specs),
            (InputKind.buffer, buffers, low.buffer_specs),
        ):
            for owner, slot, qualified in group:
                t = _slot_type(slot)
                if t is None:
                    raise ExirDiagnostic(slot, f"{kind.value} '{qualified}' has no known dtype and sizes")
                prefix = "p_" if kind is InputKind.parameter else "b_"
                arg_name = low.unique_name(prefix + re.sub(r"\W", "_", qualified))
                arg = low.graph_block.insert_arg(t, len(low.graph_block.args))
                arg.name_hint = arg_name
                specs.append(InputSpecAttr(kind, arg_name, qualified))
                data = slot.value.data if isinstance(slot.value, ts.TensorValueAttr) and slot.value.known else None
                low.states.append(StateOp(qualified, t, data))
                ref = low.new_tensor(arg, kind.value, qualified)
                low.slots[(owner, slot.sym_name.data)] = ref
                if kind is InputKind.buffer:
                    low.buffer_slots.append(((owner, slot.sym_name.data), qualified, arg))
    # User inputs, named by the schema (else by the graph), `self` excluded.
    first = 1 if root is not None else 0
    names = [
        schema_name or sanitize(arg.name_hint, f"arg{i}")
        for i, (arg, schema_name) in enumerate(zip(block.args, _schema_arg_names(method)))
    ][first:]
    unknown = sorted((set(low.input_types) | set(low.input_values)) - set(names))
    if unknown:
        raise TorchScriptLoweringError(
            f"input-types/input-values name {', '.join(unknown)}, which is not an input of "
            f"@{method.sym_name.data} ({', '.join(names)})"
        )
    args: list[LV] = [ModRef(root, "")] if root is not None else []
    for name, arg in zip(names, block.args[first:]):
        args.append(_lower_input(low, name, arg.type, method.sym_name.data))
    outs = low.run_block(block, args)
    low.current = block.last_op
    result: object = outs[0] if len(outs) == 1 else tuple(outs)
    return _finish(low, result)


def _collect_state(
    module: ts.ScriptModuleOp,
    prefix: str,
    params: list[tuple[ts.ScriptModuleOp, ts.SlotOp, str]],
    buffers: list[tuple[ts.ScriptModuleOp, ts.SlotOp, str]],
) -> None:
    """Parameters and buffers in `named_parameters()` / `named_buffers()` order."""

    def walk(m: ts.ScriptModuleOp, p: str, kind: str, out: list[tuple[ts.ScriptModuleOp, ts.SlotOp, str]]) -> None:
        for slot in m.slots():
            if slot.kind.data == kind:
                out.append((m, slot, f"{p}{slot.sym_name.data}"))
        for sub in m.submodules():
            walk(sub, f"{p}{sub.sym_name.data}.", kind, out)

    walk(module, prefix, "parameter", params)
    walk(module, prefix, "buffer", buffers)


def _slot_type(slot: ts.SlotOp) -> TensorType | None:
    value = slot.value
    if isinstance(value, ts.TensorValueAttr):
        dtype = ts.SCALAR_TYPES.get(value.scalar.data)
        if dtype is not None:
            device = slot.slot_type.device_name if isinstance(slot.slot_type, ts.TSTensorType) else None
            return TensorType(list(value.shape), dtype, device or "cpu")
    if isinstance(slot.slot_type, ts.TSTensorType):
        return exir_tensor_type(slot.slot_type)
    return None


def _lower_input(low: Lowering, name: str, t: Attribute, method: str) -> LV:
    if name in low.input_values:
        return low.input_values[name]
    tensor_like = isinstance(t, ts.TSTensorType) or (
        isinstance(t, ts.TSOptionalType) and isinstance(t.element, ts.TSTensorType)
    )
    if tensor_like:
        exir_t = low.input_types.get(name)
        if exir_t is None:
            inner = t.element if isinstance(t, ts.TSOptionalType) else t
            exir_t = exir_tensor_type(cast(ts.TSTensorType, inner))
        if exir_t is None:
            raise TorchScriptLoweringError(
                f"input '{name}' of @{method} has type {ts.ts_type_str(t)}, which does not say its dtype and sizes; "
                f"give them with the pass option input-types=\"{name}=f32[2, 3]\" (one NAME=DTYPE[SIZES] per "
                "input, separated by ';')"
            )
        for s in exir_t.sizes:
            if not isinstance(s, int):
                low.symbols |= cast(set[sympy.Symbol], s.free_symbols)
        placeholder = low.graph_block.insert_arg(exir_t, len(low.graph_block.args))
        arg_name = low.unique_name(name)
        placeholder.name_hint = arg_name
        low.user_specs.append(InputSpecAttr(InputKind.user_input, arg_name))
        ref = low.new_tensor(placeholder, "user_input", arg_name)
        low.user_storages.append((ref.storage, arg_name))
        return ref
    kind = ts.ts_type_str(t)
    if isinstance(t, ts.TSIntType | ts.TSFloatType | ts.TSBoolType | ts.TSStrType | ts.TSListType | ts.TSOptionalType
                  | ts.TSTupleType | ts.TSNumberType):  # fmt: skip
        raise TorchScriptLoweringError(
            f"input '{name}' of @{method} is {with_article(kind)}; Export IR specializes non-tensor inputs: give its value "
            f"with the pass option input-values=\"{name}=...\""
        )
    if isinstance(t, ts.TSClassType):
        return Detached(t.qualname.data)
    raise TorchScriptLoweringError(f"input '{name}' of @{method} has type {kind}, which has no Export IR counterpart")


def _finish(low: Lowering, result: object) -> ProgramOp:
    outputs: list[SSAValue] = []
    out_specs: list[OutputSpecAttr] = []

    names: dict[SSAValue, str] = {}

    def output_name(v: SSAValue, fallback: str) -> str:
        if v not in names:
            names[v] = v.name_hint if isinstance(v, BlockArgument) and v.name_hint else low.unique_name(
                v.name_hint or fallback
            )
        return names[v]

    # Mutated buffers, then mutated user inputs, then the user outputs.
    for key, target, placeholder in low.buffer_slots:
        ref = low.slots.get(key)
        if not isinstance(ref, TensorRef):
            continue
        final = low.value_of(ref)
        if final is placeholder:
            continue
        if final.type != placeholder.type:
            raise TorchScriptLoweringError(
                f"buffer '{target}' of type {placeholder.type} ends up holding a {final.type}; a buffer mutation "
                "keeps the buffer's type"
            )
        out_specs.append(OutputSpecAttr(OutputKind.buffer_mutation, output_name(final, "buffer"), target))
        outputs.append(final)
    for storage, name in low.user_storages:
        if storage.value is not storage.initial:
            out_specs.append(OutputSpecAttr(OutputKind.user_input_mutation, output_name(storage.value, name), name))
            outputs.append(storage.value)

    def flatten(value: object, path: str) -> object:
        if isinstance(value, tuple | TSList | list):
            items = [flatten(v, f"{path}[{i}]") for i, v in enumerate(cast(Sequence[object], value))]
            return tuple(items) if isinstance(value, tuple) else items
        if isinstance(value, dict):
            d = cast(dict[object, object], value)
            return {k: flatten(v, f"{path}[{k!r}]") for k, v in d.items()}
        if isinstance(value, TensorRef):
            v = low.value_of(value)
        elif isinstance(value, SymScalar):
            v = value.value
        elif isinstance(value, TensorScalar):
            # What torch.export makes of `int(t)` returned: `_local_scalar_dense`, a SymInt (SymFloat, SymBool).
            scalar = low.convert_scalar(value, value.kind)
            v = low.aten("aten._local_scalar_dense.default", scalar.value)
        elif isinstance(value, bool | int | float | str) or value is None:
            # A Python constant returned: torch.export's ConstantArgument output.
            v = low.emit(ConstantOp(value)).results[0]
        else:
            raise TorchScriptLoweringError(
                f"the returned value{path} is {low.describe(value)}; the outputs of an exir program are tensors "
                "and symbolic sizes"
            )
        out_specs.append(OutputSpecAttr(OutputKind.user_output, output_name(v, f"output_{len(outputs)}")))
        outputs.append(v)
        return None

    tree = flatten(result, "")
    block = low.graph_block
    block.add_op(OutputOp(outputs))
    output_types = [v.type for v in outputs]
    graph = GraphOp(ProgramOp.ENTRY, block.arg_types, output_types, Region(block))
    # What the lowering made along the way and no one uses (replayed views, getitems of unused list
    # elements, size queries) goes with the stock exir-dce, which keeps the writes that are observable.
    eliminate_dead_code(graph)
    if _drop_unused_constants(low):
        graph.function_type = FunctionType.from_lists(block.arg_types, output_types)
    input_specs = [*low.param_specs, *low.buffer_specs, *low.const_specs, *low.user_specs]
    ranges: list[RangeConstraintAttr] = []
    for sym in sorted(low.symbols, key=str):
        lower, upper = low.ranges.get(sym, (2, math.inf))
        ranges.append(RangeConstraintAttr(sym, _bound(lower), _bound(upper)))
    # Data-dependent sizes (`nonzero`, `unique`) bring unbacked symbols, which torch.export ranges as [0, inf].
    unbacked = {s for op in graph.walk() for r in op.results for s in _symbols_of(r.type)} - low.symbols
    for sym in sorted(unbacked, key=str):
        lower, upper = low.ranges.get(sym, (0, math.inf))
        ranges.append(RangeConstraintAttr(sym, _bound(lower), _bound(upper)))
    in_tree = (tuple(None for s in low.user_specs), {})
    program = ProgramOp(
        input_specs, out_specs, [*low.states, graph], ranges, in_spec=_dump_spec(in_tree), out_spec=_dump_spec(tree)
    )
    _name_outputs(program, outputs)
    return program


def _symbols_of(t: Attribute) -> set[sympy.Symbol]:
    """The size symbols a type mentions."""
    if isinstance(t, TensorType):
        return {s for size in t.sizes if not isinstance(size, int) for s in size.free_symbols}  # pyright: ignore[reportReturnType] - sympy types free_symbols as set[Basic]; sizes hold only symbols
    if isinstance(t, SymScalarType) and t.value is not None:
        return cast(set[sympy.Symbol], t.value.free_symbols)
    if isinstance(t, ExirListType):
        return _symbols_of(t.element_type)
    if isinstance(t, ExirTupleType):
        return {s for e in t.types.data for s in _symbols_of(e)}
    return set()


def _bound(b: int | float) -> SymSize:
    if b == math.inf:
        return cast(SymSize, sympy.oo)
    if b == -math.inf:
        return cast(SymSize, -sympy.oo)
    return int(b)


def _name_outputs(program: ProgramOp, outputs: Sequence[SSAValue]) -> None:
    """Give unnamed outputs the names the signature uses."""
    for v, spec in zip(outputs, program.outputs.data):
        if v.name_hint is None:
            v.name_hint = spec.arg_name.data


def _drop_unused_constants(low: Lowering) -> bool:
    """
    Lifted constants no op reads any more (after dead code elimination) leave the signature;
    whether any left, so the caller knows the graph's type changed.
    """
    block = low.graph_block
    first = len(low.param_specs) + len(low.buffer_specs)
    kept: list[InputSpecAttr] = []
    for spec in low.const_specs:
        arg = block.args[first + len(kept)]
        if arg.uses:
            kept.append(spec)
            continue
        block.erase_arg(arg)
        low.states = [s for s in low.states if s.sym_name.data != spec.target_name]
    dropped = len(kept) != len(low.const_specs)
    low.const_specs = kept
    return dropped


# ---------------------------------------------------------------------------
