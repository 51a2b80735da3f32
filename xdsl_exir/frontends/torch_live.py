"""
Import live torch objects (needs the `torch` extra; nothing else in the core
imports torch).

`import_graph_module(gm, example_inputs)` turns a `torch.fx.GraphModule`
(typically from `torch.fx.symbolic_trace`) into an `exir.program`:

* every parameter and buffer of the root module (under every name it has, so
  tied weights resolve from each owner), and every tensor constant a
  `get_attr` reads, becomes an `exir.state` holding its data as a blob;
* the signature lists the placeholders as user inputs and the leaves of the
  (pytree-flattened) output as user outputs, with `in_spec`/`out_spec`;
* the entry `exir.graph @forward` holds the nodes: placeholders are its
  arguments, `call_module` / `call_method` / `get_attr` are `fx` ops,
  `call_function` is `exir.call_function` with the callable's qualified name
  (`torch.relu`, `operator.add`, `builtins.getattr`), `getitem` of a tuple or
  list result with a constant index is `exir.getitem`, and `output` is
  `exir.output`.

A symbolic trace records no shapes, so the importer runs the module once on
`example_inputs` with a `torch.fx.Interpreter` that records every node's value
(what `torch.fx.passes.shape_prop.ShapeProp` does, but keeping non-tensor
values too: `x.size(0)` is an `!exir.int`, `x.shape` a tuple of them). The
types, sizes included, are therefore those of the example (the program
runner checks inputs against them); the interpreter itself uses only their
kinds and dtypes. The module's state is captured before that run and
restored after it, so a training-mode module's buffer updates leak neither
into the program nor into the caller's module.

`import_exported_program(ep)` serializes with `torch.export.save` and reads
the archive back with the `.pt2` frontend: one import path for exported
programs, so a live import and a file import cannot disagree.
"""

from __future__ import annotations

import builtins
import dataclasses
import io
import operator
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any, cast

import numpy as np

try:
    import torch
except ModuleNotFoundError as e:  # the optional extra: say which one, not a bare "No module named 'torch'"
    raise ModuleNotFoundError(
        "xdsl_exir.frontends.torch_live imports live torch objects and needs torch: pip install 'xdsl-exir[torch]'",
        name=e.name,
    ) from None
import torch.fx
from torch.utils import _pytree as pytree
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue

from xdsl_exir.dialects.exir import (
    CallFunctionOp,
    ConstantOp,
    DeviceAttr,
    DeviceType,
    DType,
    GetItemOp,
    GraphOp,
    InputKind,
    InputSpecAttr,
    Layout,
    LayoutType,
    ListType,
    MemoryFormat,
    MemoryFormatType,
    OutputKind,
    OutputOp,
    OutputSpecAttr,
    ProgramOp,
    ScalarTypeType,
    StateOp,
    TensorType,
    TupleType,
    blob_from_array,
    constant_type,
)
from xdsl_exir.dialects.fx import (
    CallMethodOp,
    CallModuleOp,
    EllipsisOp,
    EllipsisType,
    GetAttrOp,
    SliceOp,
    SliceType,
)
from xdsl_exir.frontends.pt2 import load_pt2, stack_trace_location
from xdsl_exir.frontends.torch_compat import fx_qualified_name, overload_name, packet_name, with_module_call_graph

__all__ = ["TorchImportError", "import_exported_program", "import_graph_module", "qualified_name"]


class TorchImportError(ValueError):
    """A graph module the importer cannot represent; the message names the node."""


# ---------------------------------------------------------------------------
# Python objects -> IR
# ---------------------------------------------------------------------------


def torch_dtype(dtype: torch.dtype) -> DType:
    """`torch.float32` -> `DType.float32`."""
    return DType(str(dtype).removeprefix("torch."))


def tensor_type(t: torch.Tensor) -> TensorType:
    return TensorType(tuple(int(s) for s in t.shape), torch_dtype(t.dtype), str(t.device))


def type_of(value: object, where: str) -> Attribute:
    """The IR type of a value a node produced (or a placeholder received)."""
    if isinstance(value, torch.Tensor):
        return tensor_type(value)
    if value is None or isinstance(value, bool | int | float | str):
        return constant_type(value)
    if isinstance(value, torch.dtype):
        return ScalarTypeType()
    if isinstance(value, torch.device):
        return DeviceType()
    if isinstance(value, torch.memory_format):
        return MemoryFormatType()
    if isinstance(value, torch.layout):
        return LayoutType()
    if isinstance(value, slice):
        return SliceType()
    if value is Ellipsis:
        return EllipsisType()
    if isinstance(value, tuple):
        return TupleType([type_of(v, where) for v in cast(tuple[object, ...], value)])
    if isinstance(value, list):
        elems = [type_of(v, where) for v in cast(list[object], value)]
        if elems and all(e == elems[0] for e in elems):
            return ListType(elems[0])
        return TupleType(elems)
    raise TorchImportError(f"{where}: values of type {type(value).__name__} have no IR type")


def qualified_name(target: Callable[..., Any]) -> str:
    """
    The name of a call_function target: an operator overload by its IR name
    (`aten.add.Tensor`), an overload packet by the `torch` function of that
    name (same dispatch), anything else as FX prints it, with `operator.` for
    `_operator.` and `builtins.` for builtins.
    """
    overload = overload_name(target)
    if overload is not None:
        return overload
    packet = packet_name(target)
    if packet is not None:
        namespace, _, op_name = packet.partition(".")
        if namespace == "aten" and hasattr(torch, op_name):
            return f"torch.{op_name}"
    name = getattr(target, "__name__", None)
    if name is not None and getattr(builtins, name, None) is target:
        return f"builtins.{name}"
    name = fx_qualified_name(target)
    if name.startswith("_operator."):
        name = "operator." + name[len("_operator."):]
    return name


def _enum_value(value: object) -> object:
    """torch enum-like constants -> the dialect's Python values; others unchanged."""
    if isinstance(value, torch.dtype):
        return torch_dtype(value)
    if isinstance(value, torch.device):
        return DeviceAttr(str(value))
    if isinstance(value, torch.memory_format):
        return MemoryFormat(str(value).removeprefix("torch."))
    if isinstance(value, torch.layout):
        return Layout(str(value).removeprefix("torch."))
    return value


def _constant(value: object) -> object | None:
    """A configuration value as an embeddable constant, None if it is not one."""
    value = _enum_value(value)
    if value is None or isinstance(value, bool | int | str | DType | Layout | MemoryFormat | DeviceAttr):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, list | tuple):
        items = [_constant(v) for v in cast(Sequence[object], value)]
        if any(i is None and v is not None for i, v in zip(items, cast(Sequence[object], value))):
            return None
        return items
    return None


def module_config(module: torch.nn.Module) -> dict[str, object]:
    """The public, constant-valued attributes of a module (`stride`, `eps`, `training`, ...)."""
    config: dict[str, object] = {}
    for key, value in vars(module).items():
        if key.startswith("_"):
            continue
        const = _constant(value)
        if const is None and value is not None:
            continue
        config[key] = const
    return config


def module_class(module: torch.nn.Module) -> str:
    cls = type(module)
    return f"{cls.__module__}.{cls.__qualname__}"


def _to_numpy(t: torch.Tensor) -> np.ndarray:
    t = t.detach().cpu()
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.contiguous().numpy()


def state_op(name: str, t: torch.Tensor) -> StateOp:
    ttype = tensor_type(t)
    return StateOp(name, ttype, blob_from_array(_to_numpy(t), ttype.element_dtype))


# ---------------------------------------------------------------------------
# Running the example
# ---------------------------------------------------------------------------


class _Recorder(torch.fx.Interpreter):
    """Runs the graph on the example and keeps every node's value."""

    def __init__(self, gm: torch.fx.GraphModule) -> None:
        super().__init__(gm)
        self.values: dict[torch.fx.Node, object] = {}
        self.current: torch.fx.Node | None = None

    def run_node(self, n: torch.fx.Node) -> Any:
        self.current = n
        value = super().run_node(n)
        self.values[n] = value
        return value


def _record(gm: torch.fx.GraphModule, example_inputs: Sequence[object]) -> dict[torch.fx.Node, object]:
    """Every node's value on the example; the module's state is restored afterwards
    (a training-mode batch norm updates its running statistics)."""
    inputs = [x.clone() if isinstance(x, torch.Tensor) else x for x in example_inputs]
    saved = [(t, t.detach().clone()) for _, t in _named_state(gm)]
    recorder = _Recorder(gm)
    try:
        with torch.no_grad():
            recorder.run(*inputs)
    except Exception as e:
        where = f"node '{recorder.current.name}'" if recorder.current is not None else "the graph"
        first_line = (str(e) or type(e).__name__).splitlines()[0]
        raise TorchImportError(
            f"running the module on the example inputs (to type its values) failed at {where}: {first_line}"
        ) from e
    finally:
        with torch.no_grad():
            for t, before in saved:
                t.copy_(before)
    return recorder.values


# ---------------------------------------------------------------------------
# The graph
# ---------------------------------------------------------------------------


class _GraphBuilder:
    """Translates the nodes of one FX graph into ops of an `exir.graph`."""

    def __init__(self, gm: torch.fx.GraphModule, values: dict[torch.fx.Node, object]) -> None:
        self.gm = gm
        self.values = values
        self.env: dict[torch.fx.Node, SSAValue] = {}
        self.ops: list[Operation] = []
        self.constants: dict[str, torch.Tensor] = {}
        """`get_attr` targets that are tensor attributes, not parameters or buffers."""

    # -- arguments --------------------------------------------------------

    def arg(self, value: object, node: torch.fx.Node) -> object:
        """An FX argument as a dialect argument (SSA values, constants, lists)."""
        if isinstance(value, torch.fx.Node):
            if value not in self.env:
                raise TorchImportError(f"node '{node.name}' uses '{value.name}' before it is defined")
            return self.env[value]
        if isinstance(value, slice):
            parts = [self.arg(p, node) for p in (value.start, value.stop, value.step)]
            for p in parts:
                if not (p is None or isinstance(p, SSAValue) or (isinstance(p, int) and not isinstance(p, bool))):
                    raise TorchImportError(f"node '{node.name}': slice part {p!r} is not an int")
            op = SliceOp(*parts)
            self.ops.append(op)
            return op.result
        if value is Ellipsis:
            op = EllipsisOp()
            self.ops.append(op)
            return op.result
        if isinstance(value, list | tuple):
            return [self.arg(v, node) for v in cast(Sequence[object], value)]
        value = _enum_value(value)
        if value is None or isinstance(value, bool | int | float | str | DType | Layout | MemoryFormat | DeviceAttr):
            return value
        if isinstance(value, torch.Tensor):
            raise TorchImportError(
                f"node '{node.name}' embeds a tensor constant in its arguments; "
                "make it an attribute of the module so that get_attr reads it"
            )
        raise TorchImportError(
            f"node '{node.name}': an argument of type {type(value).__name__} cannot be represented"
        )

    def call_args(self, node: torch.fx.Node) -> tuple[list[object], dict[str, object]]:
        args = [self.arg(a, node) for a in node.args]
        kwargs = {k: self.arg(v, node) for k, v in node.kwargs.items()}
        return args, kwargs

    def result_type(self, node: torch.fx.Node) -> Attribute:
        if node not in self.values:
            raise TorchImportError(f"node '{node.name}' did not run on the example inputs")
        return type_of(self.values[node], f"node '{node.name}'")

    # -- nodes ------------------------------------------------------------

    def output(self, result: object) -> tuple[list[SSAValue], list[str], str | None]:
        """
        The user outputs: the leaves of the returned structure, flattened as
        pytree flattens the value the module returns, so a node whose value is
        a tuple (`x.chunk(2)`, `x.max(1)`, `x.size()`) gives one output per
        element, taken with `exir.getitem`.
        """
        concrete = pytree.tree_map(lambda v: self.values[v] if isinstance(v, torch.fx.Node) else v, result)
        paths, spec = pytree.tree_flatten_with_path(concrete)
        values: list[SSAValue] = []
        names: list[str] = []
        for path, leaf in paths:
            obj, depth = result, 0
            if not _contains_node(result, path) and (leaf is None or isinstance(leaf, bool | int | float | str)):
                constant = ConstantOp(leaf)  # a constant output, as torch.export's ConstantArgument
                self.ops.append(constant)
                values.append(constant.result)
                names.append("")
                continue
            while not isinstance(obj, torch.fx.Node):
                if depth == len(path):
                    raise TorchImportError(f"the output returns the constant {leaf!r}; only node values can be outputs")
                obj, depth = _child(obj, path[depth]), depth + 1
            value, name = self.env[obj], obj.name
            for key in path[depth:]:
                if not isinstance(key, pytree.SequenceKey) or not isinstance(value.type, TupleType | ListType):
                    raise TorchImportError(f"output '{obj.name}': cannot take {key} of a {value.type}")
                item = GetItemOp(value, key.idx)
                name = f"{name}_{key.idx}"
                item.result.name_hint = _hint(name)
                self.ops.append(item)
                value = item.result
            values.append(value)
            names.append(name)
        return values, names, _dump_spec(concrete, spec)

    def add(self, node: torch.fx.Node, op: Operation) -> None:
        self.ops.append(op)
        if node.stack_trace:  # recorded by torch.export, or a tracer with `record_stack_traces`
            loc = stack_trace_location(node.stack_trace)
            if loc is not None:
                op.location = loc
        if op.results:
            op.results[0].name_hint = _hint(node.name)
            self.env[node] = op.results[0]

    def get_attr(self, node: torch.fx.Node) -> None:
        target = cast(str, node.target)
        value = self.values.get(node)
        if not isinstance(value, torch.Tensor):
            raise TorchImportError(
                f"get_attr node '{node.name}' reads '{target}', which is a "
                f"{type(value).__name__}, not a tensor"
            )
        self.constants.setdefault(target, value)
        self.add(node, GetAttrOp(target, tensor_type(value)))

    def call_module(self, node: torch.fx.Node) -> None:
        target = cast(str, node.target)
        module = self.gm.get_submodule(target)
        args, kwargs = self.call_args(node)
        state = [n for n, _ in module.named_parameters(remove_duplicate=False)]
        state += [n for n, _ in module.named_buffers(remove_duplicate=False)]
        op = CallModuleOp(
            target,
            module_class(module),
            args,
            kwargs,
            [self.result_type(node)],
            config=module_config(module),
            state=state,
        )
        self.add(node, op)

    def call_method(self, node: torch.fx.Node) -> None:
        args, kwargs = self.call_args(node)
        self.add(node, CallMethodOp(cast(str, node.target), args, kwargs, [self.result_type(node)]))

    def call_function(self, node: torch.fx.Node) -> None:
        target = cast(Callable[..., Any], node.target)
        if target is operator.getitem and len(node.args) == 2 and not node.kwargs:
            container, index = node.args
            if isinstance(container, torch.fx.Node) and isinstance(index, int) and not isinstance(index, bool):
                value = self.arg(container, node)
                assert isinstance(value, SSAValue)
                if isinstance(value.type, TupleType | ListType):
                    self.add(node, GetItemOp(value, index))
                    return
            if isinstance(container, torch.fx.Node) and isinstance(self.values.get(container), torch.Tensor):
                if isinstance(index, list):
                    # a list index is one advanced index; nested in the tuple form
                    # that the IR's (tuple-less) argument trees read as "one index each"
                    node_args = (container, (index,))
                    args = [self.arg(a, node) for a in node_args]
                    self.add(node, CallFunctionOp("operator.getitem", args, {}, [self.result_type(node)]))
                    return
        args, kwargs = self.call_args(node)
        self.add(node, CallFunctionOp(qualified_name(target), args, kwargs, [self.result_type(node)]))


def _dump_spec(value: object, spec: pytree.TreeSpec) -> str | None:
    """
    The pytree spec as `torch.export` serializes it. Structseqs such as
    `torch.return_types.max` have no serialized name; they flatten as tuples,
    so the spec of the value with plain tuples in their place is used.
    """
    try:
        return pytree.treespec_dumps(spec)
    except NotImplementedError:
        pass

    def plain(v: object) -> object:
        if isinstance(v, tuple) and type(v) is not tuple and not hasattr(v, "_fields"):
            return tuple(plain(x) for x in cast(tuple[object, ...], v))
        if isinstance(v, list | tuple):
            return type(v)(plain(x) for x in cast(Sequence[object], v))
        if isinstance(v, dict):
            return {k: plain(x) for k, x in cast(dict[object, object], v).items()}
        return v

    try:
        return pytree.treespec_dumps(pytree.tree_structure(plain(value)))
    except (NotImplementedError, TypeError):
        return None


def _contains_node(result: object, path: Sequence[object]) -> bool:
    """Whether the output path from `result` passes through an FX node (else the leaf is a constant)."""
    obj = result
    for key in path:
        if isinstance(obj, torch.fx.Node):
            return True
        obj = _child(obj, key)
    return isinstance(obj, torch.fx.Node)


def _child(container: object, key: object) -> object:
    """One step of a pytree key path into a (non-node) container."""
    if isinstance(key, pytree.SequenceKey):
        return cast(Sequence[object], container)[key.idx]
    if isinstance(key, pytree.MappingKey):
        return cast(dict[object, object], container)[key.key]
    if isinstance(key, pytree.GetAttrKey):
        return getattr(container, key.name)
    raise TorchImportError(f"cannot follow the output path step {key}")


def _hint(name: str) -> str | None:
    """
    The FX node name as SSA name hint, without its `_<n>` suffixes: xDSL's
    printer adds its own (`%add`, `%add_1`), and a hint that still ended in one
    (`max_1_0` -> `max_1`) could print like a suffixed sibling (xDSL strips one
    suffix per round trip). Names with no letter left get no hint.
    """
    stem = re.sub(r"(_\d+)+$", "", name)
    return stem if any(c.isalpha() for c in stem) else None


def _named_state(gm: torch.fx.GraphModule) -> Iterator[tuple[str, torch.Tensor]]:
    yield from gm.named_parameters(remove_duplicate=False)
    yield from gm.named_buffers(remove_duplicate=False)


def import_graph_module(gm: torch.fx.GraphModule, example_inputs: Sequence[object]) -> ModuleOp:
    """
    An `exir.program` for a `GraphModule`, typed by running it once on
    `example_inputs` (one value per placeholder: tensors, or Python scalars).

    Raises `TorchImportError` naming the node for what the IR cannot represent.
    """
    if not isinstance(gm, torch.fx.GraphModule):
        raise TypeError(f"expected a torch.fx.GraphModule, got {type(gm).__name__}")
    example_inputs = tuple(example_inputs)
    state: dict[str, torch.Tensor] = {}
    for name, t in _named_state(gm):
        state.setdefault(name, t.detach().clone())
    values = _record(gm, example_inputs)

    builder = _GraphBuilder(gm, values)
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(example_inputs):
        raise TorchImportError(
            f"the graph has {len(placeholders)} placeholders but {len(example_inputs)} example inputs were given"
        )
    input_types: list[Attribute] = []
    for node, example in zip(placeholders, example_inputs):
        if cast(str, node.target).startswith("*"):
            raise TorchImportError(f"placeholder '{node.name}' takes variadic arguments, which the IR cannot express")
        if not isinstance(example, torch.Tensor | bool | int | float):
            raise TorchImportError(
                f"placeholder '{node.name}' receives a {type(example).__name__}; "
                "each placeholder must receive a tensor or a Python scalar"
            )
        input_types.append(type_of(example, f"placeholder '{node.name}'"))

    graph = GraphOp("forward", input_types, [])
    block = graph.body.block
    for node, arg in zip(placeholders, block.args):
        arg.name_hint = _hint(node.name)
        builder.env[node] = arg

    outputs: list[SSAValue] = []
    output_names: list[str] = []
    out_spec: str | None = None
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            continue
        if node.op == "output":
            outputs, output_names, out_spec = builder.output(node.args[0])
            break
        handler = getattr(builder, node.op, None)
        if handler is None:
            raise TorchImportError(f"node '{node.name}' has the unknown opcode '{node.op}'")
        handler(node)

    builder.ops.append(OutputOp(outputs))
    block.add_ops(builder.ops)
    graph.function_type = type(graph.function_type).from_lists(input_types, [v.type for v in outputs])

    for name, t in builder.constants.items():
        state.setdefault(name, t.detach().clone())
    states = [state_op(name, t) for name, t in state.items()]
    in_spec = _dump_spec((example_inputs, {}), pytree.tree_structure((example_inputs, {})))
    program = ProgramOp(
        inputs=[InputSpecAttr(InputKind.user_input, n.name) for n in placeholders],
        outputs=[OutputSpecAttr(OutputKind.user_output, n) for n in output_names],
        body=[*states, graph],
        in_spec=in_spec,
        out_spec=out_spec,
    )
    module = ModuleOp([program])
    module.verify()
    return module


def import_exported_program(ep: torch.export.ExportedProgram) -> ModuleOp:
    """
    An `ExportedProgram` through the `.pt2` frontend: `torch.export.save` to
    memory, then `load_pt2`. The archive carries everything the live object
    does that Export IR models (graph, signature, state, range constraints,
    node metadata), so there is one import path to keep right.
    """
    buffer = io.BytesIO()
    torch.export.save(_structseqs_as_tuples(ep), buffer)
    return load_pt2(buffer.getvalue(), "<ExportedProgram>")


def _structseqs_as_tuples(ep: torch.export.ExportedProgram) -> torch.export.ExportedProgram:
    """
    `ep`, or a shallow copy of it whose output spec reads each structseq
    (`torch.return_types.sort`, `.max`, `.topk`...) as a plain tuple.
    `torch.export.save` has no serialized name for them and refuses such a
    program; a structseq flattens as a tuple, so only the outputs' Python type
    changes (indexing and unpacking read the same values).
    """
    entries = ep.module_call_graph
    if not entries or entries[0].signature is None:
        return ep
    spec = entries[0].signature.out_spec
    plain = _plain_spec(spec)
    if plain == spec:
        return ep
    signature = dataclasses.replace(entries[0].signature, out_spec=plain)
    return with_module_call_graph(ep, [dataclasses.replace(entries[0], signature=signature), *entries[1:]])


def _plain_spec(spec: pytree.TreeSpec) -> pytree.TreeSpec:
    if spec.is_leaf():
        return spec
    children = [_plain_spec(c) for c in spec.children()]
    if pytree.is_structseq_class(spec.type):
        return pytree.TreeSpec(tuple, None, children)
    return pytree.TreeSpec(spec.type, spec.context, children)
