"""
`--emit fx`: a program as torch prints its FX graph.

The entry graph is printed exactly as `str(exported_program.graph)`:

    graph():
        %x : [num_users=1] = placeholder[target=x]
        %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%x, %x), kwargs = {})
        return (add,)

torch keeps the subgraphs of `cond`, `while_loop` and `map` as submodules and
prints each graph on its own; here each follows the entry graph, after a blank
line and a comment naming its attribute path in the graph module (the path a
torch user reads it from, `ep.graph_module.true_graph_0.graph`):

    # subgraph true_graph_0
    graph():
        ...

A nested subgraph is named by its full path (`true_graph_0.false_graph_0`).
A fusion group prints as torch's partitioner records one, a `call_module` of a
`fused_<k>` submodule, whose graph follows in the same way (`# subgraph fused_0`).
Program-level graphs other than `@forward` follow in program order. Several
programs in one module are separated by a `# program <n>` line.

What may differ from torch's text (details in `fx_graph`):

* names: xDSL drops numeric suffixes from name hints (`add_1` reads back as
  `add`), so they are made again by FX's naming rule. That gives torch's names
  back when torch made them in node order (the usual case); a name whose
  suffix came from a since-deleted node (`sym_size_int_1`) comes back as
  `sym_size_int`. Signature names (entry placeholders and outputs) are exact;
* tuples and lists: the IR keeps argument trees as arrays, so sequences print
  as lists except the tuples FX records for `cond` / `while_loop` operands and
  `getitem` indices. (torch's own save/load round trip turns those operand
  tuples into lists: `str(torch.export.load(f).graph)` prints lists there);
* programs imported from `symbolic_trace` graphs have a flattened output
  (`return (add,)` where torch prints `return add`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, cast

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.target import Target

from xdsl_exir.dialects.exir import DeviceAttr, DType, Layout, MemoryFormat
from xdsl_exir.targets.fx_graph import FxGraph, FxNode, FxProgram, FxSlice, build_fx_programs

__all__ = ["FxTarget", "emit_fx", "format_fx_arg", "format_graph", "format_program"]


def format_fx_arg(arg: object) -> str:
    """One argument as `torch.fx` formats it (`%x`, `(%x,)`, `[1, 2]`, `torch.float32`)."""
    if isinstance(arg, FxNode):
        return "%" + arg.name
    if isinstance(arg, list):
        return "[" + ", ".join(format_fx_arg(a) for a in cast(list[object], arg)) + "]"
    if isinstance(arg, tuple):
        items = cast(tuple[object, ...], arg)
        inner = ", ".join(format_fx_arg(a) for a in items)
        return f"({inner},)" if len(items) == 1 else f"({inner})"
    if isinstance(arg, dict):
        d = cast(dict[str, object], arg)
        return "{" + ", ".join(f"{k}: {format_fx_arg(v)}" for k, v in d.items()) + "}"
    return _format_constant(arg)


def _format_constant(value: object) -> str:
    """`str()` of the Python value torch would hold."""
    if isinstance(value, FxSlice):
        parts = (
            p.name if isinstance(p, FxNode) else _format_constant(p)
            for p in (value.start, value.stop, value.step)
        )
        return f"slice({', '.join(parts)})"
    if isinstance(value, DType | Layout | MemoryFormat):
        return "torch." + str(value.value)
    if isinstance(value, DeviceAttr):
        return value.device.data  # str(torch.device("cpu")) == "cpu"
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return str(value)


def _format_output(node: FxNode) -> str:
    """`return (a, b)` for a tuple: `str()` of a tuple of nodes, which FX prints."""
    (value,) = node.args
    if isinstance(value, tuple):
        names = [n.name if isinstance(n, FxNode) else repr(n) for n in value]
        inner = ", ".join(names)
        return f"return ({inner},)" if len(names) == 1 else f"return ({inner})"
    return f"return {value.name if isinstance(value, FxNode) else repr(value)}"


def format_node(node: FxNode) -> str:
    """One line of `str(graph)`, without its indentation."""
    if node.op == "output":
        return _format_output(node)
    head = f"%{node.name} : [num_users={len(node.users)}] = {node.op}[target={node.target}]"
    if node.op in ("placeholder", "get_attr"):
        return head
    return f"{head}(args = {format_fx_arg(node.args)}, kwargs = {format_fx_arg(node.kwargs)})"


def format_graph(graph: FxGraph) -> str:
    """`str(fx.Graph)`: a header and one indented line per node (no final newline)."""
    return "graph():" + "".join("\n    " + format_node(n) for n in graph.nodes)


def format_program(program: FxProgram) -> str:
    """The entry graph, then every subgraph under a `# subgraph <path>` line."""
    parts: list[str] = []
    for graph in program.all_graphs():
        text = format_graph(graph)
        parts.append(text if graph is program.entry else f"# subgraph {graph.path}\n{text}")
    return "\n\n".join(parts) + "\n"


def emit_fx(module: ModuleOp, output: IO[str]) -> None:
    """The `fx` target of exir-opt."""
    programs: Sequence[FxProgram] = build_fx_programs(module)
    if not programs:
        raise DiagnosticException("--emit fx prints exir.program and exir.graph ops; there are none")
    for i, program in enumerate(programs):
        if len(programs) > 1:
            output.write(("\n" if i else "") + f"# program {i}\n")
        output.write(format_program(program))


@dataclass(frozen=True)
class FxTarget(Target):
    """`-t fx` / `--emit fx`."""

    name = "fx"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        emit_fx(module, output)
