"""
Reading TorchScript graph dumps (`str(graph)`, the canonical text form of "JIT Technical Overview")
into the `ts` and `prim` dialects, without torch.

    graph(%x.1 : Tensor,
          %y : int):
      %5 : int = prim::Constant[value=1]()
      %4 : bool = aten::gt(%y, %5) # models.py:12:7
      %x : Tensor = prim::If(%4) # models.py:12:4
        block0():
          ...
          -> (%x.2)
        block1():
          -> (%x.1)
      return (%x)
    with prim::FusionGroup_0 = graph(...):
      ...

becomes a `builtin.module` holding `ts.method @forward`, whose entry block
arguments are the graph inputs (named after the dump's names where xDSL
accepts them). A node becomes the prim op of its kind when there is one
(`prim::If` -> `prim.If`) and a `ts.node` otherwise; its blocks become
regions ending with `prim.Return`. A node printed as `kind_N` whose subgraph
is given by a `with kind_N = graph(...)` section gets that subgraph as its
(isolated) region and loses the `_N`; a `ts.node` with a subgraph records it
with a `Subgraph` unit attribute, as torch keeps it in an attribute of that
name. Node attributes become the op's properties where the op has them and
its `attrs` dictionary otherwise. A `# file:line:col` comment after a node
becomes its location (`FileLineColLoc`), a traced node's `, scope: <name>` a
`NameLoc` around it; other comments are skipped.

Tensor attributes hold what the dump shows: one-element tensors (`{0.333333}`,
six significant digits), tensors of up to ten elements in at::print's layout
(four decimals; an element may be moved by one ulp so that it prints back in
the layout torch chose), larger ones as `<Tensor>` (data unknown: an empty
blob). Attribute values with no faithful attribute (`[<Tensors>]`, `<Graph>`,
enum members, tuples outside constants) are kept as their text in an
`opaque<"torchscript", ...>` attribute; a `prim::Constant` holding one stays
a `ts.node`. Either way printing gives the text back.

Lenient where the JIT Technical Overview's examples need it: `Dynamic` reads as `Tensor`, a
`;` may end `return (...)`, lines holding only `}` are skipped.

Several graphs may follow each other (what `--emit torchscript` writes for a
`ts.module`); each becomes a method named by the `# qualified.name` comment
line before it.

The reader is a package: `syntax` (the dump as a tree, the error type), `reader` (text to tree),
`tensor_text` (tensors as at::print writes them), `builder` (tree to IR) and `parse`
(`parse_torchscript`). This module re-exports the public API.
"""

from __future__ import annotations

from xdsl_exir.frontends.torchscript_dump_reader.builder import OPAQUE_DIALECT, SUBGRAPH_ATTR
from xdsl_exir.frontends.torchscript_dump_reader.parse import parse_torchscript
from xdsl_exir.frontends.torchscript_dump_reader.syntax import TorchScriptParseError
from xdsl_exir.frontends.torchscript_dump_reader.tensor_text import tensor_bytes

__all__ = ["OPAQUE_DIALECT", "SUBGRAPH_ATTR", "TorchScriptParseError", "parse_torchscript", "tensor_bytes"]
