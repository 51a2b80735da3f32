"""
The script frontend: Python source to TorchScript IR ("Script" in "JIT Technical Overview").

`script_source(source, name)` compiles the function `name` of a piece of
Python source, `script(fn)` a live function (by reading its source), and
`script_file(source)` every top-level function of a file (the `script`
frontend of `exir-opt`, for `.py` files). Nothing here imports torch: names
like `torch`, `F` (`torch.nn.functional`) and `math` are resolved by the
`import` statements of the source (or the live function's globals), falling
back to those conventional names.

The IR emitter follows TorchScript's (`ir_emitter.cpp`):

- The Environment is a stack of frames, one per block being emitted. An
  assignment emits `prim.Store {name = "x"}` and records the variable's type
  in the current frame; a read emits `prim.Load {name = "x"}` typed with the
  type found in the innermost frame that has it. Reassigning a variable of
  an enclosing frame must keep (a subtype of) its type.
- Values that are not first class (the `torch` module, builtin functions,
  `range(...)`, exception classes, functions of the source) are
  SugaredValues; calling or indexing them desugars them into nodes.
- `if` emits `prim.If` with output-less blocks; a variable assigned in both
  branches (or in one when the other exits) is in scope after it, with the
  unified type; `x is None` / `x is not None` refine an Optional variable in
  the branches (and after the `if` when the other branch exits), through
  `prim::unchecked_cast`. Conditions that are known statically (`x is None`
  for a non-Optional `x`, `True`, `torch.jit.is_scripting()`) compile only
  the branch taken.
- Loops emit `prim.Loop(%max_trip_count)` with the body block (argument: the
  iteration number) and a condition block: `for` loops over `range`,
  lists, dicts (their keys), strings and tensors take their length as trip
  count and a constant `true` condition; `while` loops take `INT64_MAX` and
  their condition. Tuples are iterated by unrolling.
- `break`, `continue`, `return` and `raise` emit `prim.BreakStmt`,
  `prim.ContinueStmt`, `prim.ReturnStmt` and `prim.RaiseException`; nothing
  after a `return` or `raise` in the same block is emitted; the graph's
  output is a `prim.Uninitialized` placeholder until `exit-transform`.
- Builtin calls are `ts.node`s: the overload is resolved from the argument
  types (`analysis/overload_resolution.py`), every argument the call leaves out is
  materialized from the schema's default, TorchScript's implicit conversions
  are inserted (`aten::IntImplicit`, `prim::NumToTensor`, ...) and extra
  positional ints are packed into the list argument (`x.view(2, 3)`).
  Operators follow TorchScript's spelling: `a + b` is `aten::add(a, b, 1)`,
  `x += y` on a tensor or list is the in-place `aten::add_`, `2 * x` is
  `aten::mul(x, 2)`, `//` on tensors is `aten::floor_divide`, `x.float()` is
  `aten::to(x, 6, ...)`.
- `torch.xxx(...)` and `math.xxx(...)` call `aten::xxx`;
  `torch.nn.functional.xxx(...)` also calls `aten::xxx` (TorchScript would
  call the Python function; its body calls that operator). Calls to other
  functions of the same source (or, for `script(fn)`, of `fn`'s globals)
  compile those functions too, as further `ts.method`s called through
  `prim.CallFunction` of a `prim.Constant {name = "f"}`; they are not inlined.

With `ssa=True` (the default) the result then goes through `convert-to-ssa`
and `exit-transform` and TorchScript's compile-time cleanups
(`cleanup_graph`): loops with both a trip count and a condition become
`while`-style loops (`CanonicalizeModifiedLoops`), tuples built and
immediately taken apart are forwarded, scalar operations on constants are
folded, constants are pooled at the top of the graph (the stock
`constant-pooling`), unchanging `if`/loop outputs are forwarded, dead nodes
and unused `if`/loop outputs are removed (the stock `exir-dce`, with its alias
analysis), and `if`/loop outputs come in the order of their first use. The
result matches what
`torch.jit.script(f).graph` shows, node for node, for the programs this
frontend supports (the tests compare them with torch's dumps).

Source locations: every op carries `FileLineColLoc(file, line, col)` with
the 1-based line and the 0-based column TorchScript prints (columns of the
original text, before any dedent). Errors are `ScriptError`s with the same
place.

Not supported (a `ScriptError` says so): classes and modules (`self`),
closures and nested functions, `with`, `try`, generators, lambdas, `global`,
starred arguments, dict/set comprehensions, `torch.jit.fork`.

The package follows the emitter's parts: `source` (parsed sources and name
resolution, with the tables of `names`), `sugared` (SugaredValues and the
iterables of `for` loops), `environment` (frames and the refinements of
conditions), the emitter of one function in three layers (`emitter`: constants,
variables, types, builtin calls; `expressions`: expressions and conditions;
`statements`: the function, statements and control flow), `compiler`
(functions to methods, then SSA and cleanups) and `cleanup` (TorchScript's
compile-time cleanups). This module holds the entry points.
"""


from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.dialects.builtin import ModuleOp

from xdsl_exir.frontends.torchscript_script.cleanup import cleanup_graph
from xdsl_exir.frontends.torchscript_script.compiler import Compiler
from xdsl_exir.frontends.torchscript_script.errors import ScriptError
from xdsl_exir.frontends.torchscript_script.source import Source

__all__ = ["ScriptError", "cleanup_graph", "script", "script_file", "script_source"]


def script_source(
    source: str,
    name: str,
    filename: str = "<source>",
    *,
    ssa: bool = True,
    first_line: int = 1,
) -> ModuleOp:
    """
    Compile the function `name` of `source` (and the functions of `source` it
    calls) into a module of `ts.method`s, `@name` first. `first_line` is the
    line number of the source's first line in `filename`.
    """
    src = Source.parse(source, filename, first_line)
    compiler = Compiler()
    fdef = src.functions.get(name)
    if fdef is None:
        raise ScriptError(f"no function named '{name}' in the source", first_line, 0, filename)
    compiler.compile(src, name, None)
    return compiler.finish(ssa)


def script_file(source: str, filename: str = "<source>", *, ssa: bool = True) -> ModuleOp:
    """Compile every top-level function of `source`, in the order they are defined."""
    src = Source.parse(source, filename, 1)
    if not src.functions:
        raise ScriptError("the source defines no function to compile", 1, 0, filename)
    compiler = Compiler()
    for name in src.functions:
        compiler.compile(src, name, None)
    return compiler.finish(ssa)


def script(fn: Callable[..., Any], *, ssa: bool = True) -> ModuleOp:
    """Compile a live Python function from its source, resolving names through its globals."""
    src = Source.of_function(fn)
    compiler = Compiler()
    compiler.compile(src, fn.__name__, None)
    return compiler.finish(ssa)


