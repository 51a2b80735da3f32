"""
Adding and removing state-backed placeholders of an Export IR program.

Passes that create weights (folding, quantization, constant propagation)
must change three things together: an `exir.state` holding the data, a
placeholder of the entry graph, and the input spec naming them; removing one
undoes all three, keeping the state while anything else still names it.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, FunctionType, SymbolRefAttr
from xdsl.ir import BlockArgument, Operation

from xdsl_exir.dialects import fx
from xdsl_exir.dialects.exir import (
    GetAttrOp,
    GraphOp,
    InputKind,
    InputSpecAttr,
    OutputOp,
    ProgramOp,
    StateOp,
    TensorType,
    blob_from_array,
)

__all__ = [
    "add_state_input",
    "remove_state_input",
    "state_referenced",
    "symbol_of",
    "sync_function_type",
    "unique_state_name",
]


def sync_function_type(graph: GraphOp) -> None:
    """The graph's function type from its placeholders and its `exir.output`."""
    block = graph.body.block
    out = block.last_op
    outputs = list(out.operand_types) if isinstance(out, OutputOp) else list(graph.function_type.outputs.data)
    graph.function_type = FunctionType.from_lists(list(block.arg_types), outputs)


def unique_state_name(program: ProgramOp, base: str) -> str:
    """`base`, or `base_1`, `base_2`, ... if the program already has state of that name."""
    taken = set(program.state())
    name, i = base, 0
    while name in taken:
        i += 1
        name = f"{base}_{i}"
    return name


def add_state_input(
    program: ProgramOp,
    graph: GraphOp,
    name: str,
    kind: InputKind,
    tensor_type: TensorType,
    data: np.ndarray,
    index: int,
    arg_name: str,
) -> BlockArgument:
    """
    A new `exir.state @name` holding `data` (placed with the other state,
    before the graphs) and the placeholder `arg_name` reading it, input
    number `index`.
    """
    first_graph = next(op for op in program.body.block.ops if isinstance(op, GraphOp))
    program.body.block.insert_op_before(
        StateOp(name, tensor_type, blob_from_array(data, tensor_type.element_dtype)), first_graph
    )
    specs = list(program.inputs.data)
    specs.insert(index, InputSpecAttr(kind, arg_name, name))
    program.inputs = ArrayAttr(specs)
    arg = graph.body.block.insert_arg(tensor_type, index)
    arg.name_hint = arg_name
    sync_function_type(graph)
    return arg


def remove_state_input(program: ProgramOp, graph: GraphOp, arg: BlockArgument) -> None:
    """Drop an unused placeholder and its input spec, and its state when nothing else names it."""
    assert not arg.uses
    specs = list(program.inputs.data)
    spec = specs.pop(arg.index)
    program.inputs = ArrayAttr(specs)
    graph.body.block.erase_arg(arg)
    sync_function_type(graph)
    target = spec.target_name
    if target is not None and not state_referenced(program, target):
        state = program.state().get(target)
        if state is not None:
            program.body.block.erase_op(state)


def state_referenced(program: ProgramOp, target: str) -> bool:
    """Whether a signature entry or a graph op still names the state `target`."""
    if any(s.target_name == target for s in (*program.inputs.data, *program.outputs.data)):
        return True
    for op in program.walk():
        if isinstance(op, GetAttrOp | fx.GetAttrOp) and symbol_of(op) == target:
            return True
        if isinstance(op, fx.CallModuleOp) and target in op.state_names():
            return True
    return False


def symbol_of(op: Operation) -> str | None:
    """The dotted name a get_attr reads (`@fc.weight`, or nested `@fc::@weight`)."""
    attr = op.properties.get("target")
    if not isinstance(attr, SymbolRefAttr):
        return None
    return ".".join([attr.root_reference.data, *(r.data for r in attr.nested_references.data)])
