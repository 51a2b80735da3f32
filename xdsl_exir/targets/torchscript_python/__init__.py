"""
`--emit torchscript-python`: TorchScript programs as the Python printer writes them.

TorchScript shows a graph as Python source (`ScriptModule.code`, and the
`code/` folder of a `torch.jit.save` archive); the JIT Technical Overview's "Python Printer".
This target prints `ts.method`s and `ts.module`s the way torch 2.13 does:

    def forward(self,
        x: Tensor,
        y: int,
        z: float) -> Tensor:
      if torch.gt(y, 2):
        x0 = torch.add(x, z)
      else:
        x0 = torch.add(x, y)
      return x0

`method_code(method)` is `.code` of one function or method (a method's `self`
unannotated); `print_torchscript_python(module)` is the whole program laid
out like the archive: free functions, then one `class Name(Module):` per
module class with `__parameters__`, `__buffers__`, an annotation per slot and
submodule, and its methods (`self` annotated). When classes live in more than
one archive file (`__torch__.py`, `__torch__/torch/nn/modules/linear.py`),
each file starts with a `# code/<path>.py` comment. Tensor constants (and
strings with non-ASCII characters) are `CONSTANTS.c<N>`, listed in comments
at the end; `TorchScriptPythonPrinter.constants` holds their values.

The rules are torch's (`python_print.cpp`):

* constants are inlined at their uses; a constant whose text would make a
  long line (40 columns with its indentation) is assigned first;
* a value is inlined into its single use when it has no name of its own
  (or its use is a `return`), its node has one output and no blocks, and the
  node comes right before its user in expression-tree order, so that
  re-parsing the expression evaluates everything in the original order
  (side effects included); a long inlined expression is split again, its
  earlier siblings first;
* names come from name hints (`x.1` -> `x`, then `x0`, `x1` ... once taken),
  unnamed values are `_0`, `_1` ...; the counters run on across the
  functions of one archive file, as torch's do;
* `aten::xxx` is `torch.xxx(...)` (`aten::len` is `torch.len(l)` as in
  torch), other namespaces `ops.<ns>.<name>(...)`; arguments equal to their
  schema defaults are dropped from the end, keyword-only ones are named, and
  `out=` arguments are always named (the overload is resolved from the input
  types, `analysis/overload_resolution.py`); `aten::__getitem__` is `l[i]`, `aten::Int`
  `int(x)`, tuples, lists and dicts are literals (`annotate(List[int], [])`
  when empty), `prim::GetAttr` `self.w`, `prim::SetAttr` `self.w = v`,
  `prim::CallMethod` `(self.lin).forward(x, )`, `prim::Uninitialized`
  `uninitialized(T)`, `prim::If` an if/else assigning its outputs,
  `prim::Loop` a `for _ in range(n)` or a `while` loop;
* the first assignment of an Optional / Union variable declares its type
  (`o : Optional[int] = torch.mul(n, 2)`), loop variables whose type differs
  from their initial value's too;
* floats print like torch's IValue (`1.`, `0.10000000000000001`, `inf`; an
  integral float of 1e10 or more loses its point, `10000000000`, as in
  torch), strings with double quotes and C escapes.

Where torch has no spelling this printer chooses one, so that the output is
always valid Python:

* a `prim::Loop` that is neither a for nor a while loop (torch refuses it):
  `_c = cond` / `for i in range(n):` / `if _c: <body> else: break`;
* `prim::FusionGroup`, `prim::DifferentiableGraph`, `prim::TensorExprGroup`
  and nodes of other kinds holding a subgraph over their inputs
  (`prim::FallbackGraph`): the subgraph as a nested
  `def FusionGroup_0(a: Tensor, ...)` printed right before the node, which
  calls it; `prim::fork` is torch's `def __forked_function():` /
  `fork(__forked_function)`;
* a call of a `prim::X(...)` schema shows all its inputs (torch none);
* `prim::ConstantChunk` is `a, b = torch.chunk(x, chunks, dim)`;
* node attributes without a Python spelling of their own (`prim::profile`,
  `prim::BailOut`, unknown kinds) are keyword arguments of the `ops` call;
* the frontend's `prim::Store` / `prim::Load` and exit statements are
  assignments, names, `break`, `continue` and `return`.

The target is a package: `spelling` (types, numbers, strings, names, constant values),
`structure` (kinds, blocks, loops), `calls` (operator names, arguments, signatures), `function`
(one function body) and `printer` (the entry points). This module re-exports the public API.
"""

from __future__ import annotations

from xdsl_exir.targets.torchscript_python.printer import (
    TorchScriptPythonPrinter,
    TorchScriptPythonTarget,
    emit_torchscript_python,
    method_code,
    print_torchscript_python,
)
from xdsl_exir.targets.torchscript_python.spelling import annotation_str, format_float, quote_string

__all__ = ["TorchScriptPythonPrinter", "TorchScriptPythonTarget", "annotation_str", "emit_torchscript_python", "format_float", "method_code", "print_torchscript_python", "quote_string"]
