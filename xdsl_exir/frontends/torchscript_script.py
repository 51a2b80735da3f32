"""
The script frontend: Python source to TorchScript IR (seed 004, "Script").

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
  types (`utils/overloads.py`), every argument the call leaves out is
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
"""

from __future__ import annotations

import ast
import inspect
import math
import textwrap
import types
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import (
    ArrayAttr,
    FileLineColLoc,
    Float64Type,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xdsl_exir.dialects.prim import (
    INT64_MAX,
    BreakStmtOp,
    CallFunctionOp,
    ConstantOp,
    ContinueStmtOp,
    DictConstructOp,
    IfOp,
    ListConstructOp,
    ListUnpackOp,
    LoadOp,
    LoopOp,
    RaiseExceptionOp,
    ReturnOp,
    ReturnStmtOp,
    StoreOp,
    TupleConstructOp,
    TupleIndexOp,
    TupleUnpackOp,
    UninitializedOp,
)
from xdsl_exir.dialects.ts import (
    DTYPE_CODES,
    MethodOp,
    NodeOp,
    TSAnyType,
    TSBoolType,
    TSComplexType,
    TSDeviceType,
    TSDictType,
    TSFloatType,
    TSFunctionType,
    TSIntType,
    TSListType,
    TSNoneType,
    TSNumberType,
    TSOptionalType,
    TSStrType,
    TSTensorType,
    TSTupleType,
    TSUnionType,
    is_subtype,
    join_types,
    ts_annotation_str,
    ts_type_str,
    unrefined,
)
from xdsl_exir.transforms.constant_pooling import pool_constants
from xdsl_exir.transforms.convert_to_ssa import (
    bool_constant,
    convert_to_ssa,
    erase,
    rebuild,
    set_name,
    terminator,
)
from xdsl_exir.transforms.dead_code_elimination import eliminate_dead_code
from xdsl_exir.transforms.exit_transform import exit_transform
from xdsl_exir.utils.function_schema import Argument, SchemaParseError, TypeKind, parse_schema
from xdsl_exir.utils.overloads import (
    OverloadError,
    ResolvedNode,
    candidates,
    resolve_node,
    schema_type_to_ts,
    varargs_list_argument,
)

__all__ = ["ScriptError", "cleanup_graph", "script", "script_file", "script_source"]


class ScriptError(Exception):
    """Python source TorchScript cannot compile; `line` is 1-based, `col` 0-based as TorchScript prints them."""

    def __init__(self, message: str, line: int = 0, col: int = 0, filename: str = "<source>") -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col
        self.filename = filename

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.col}: {self.message}"


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------


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
    src = _Source.parse(source, filename, first_line)
    compiler = _Compiler()
    fdef = src.functions.get(name)
    if fdef is None:
        raise ScriptError(f"no function named '{name}' in the source", first_line, 0, filename)
    compiler.compile(src, name, None)
    return compiler.finish(ssa)


def script_file(source: str, filename: str = "<source>", *, ssa: bool = True) -> ModuleOp:
    """Compile every top-level function of `source`, in the order they are defined."""
    src = _Source.parse(source, filename, 1)
    if not src.functions:
        raise ScriptError("the source defines no function to compile", 1, 0, filename)
    compiler = _Compiler()
    for name in src.functions:
        compiler.compile(src, name, None)
    return compiler.finish(ssa)


def script(fn: Callable[..., Any], *, ssa: bool = True) -> ModuleOp:
    """Compile a live Python function from its source, resolving names through its globals."""
    src = _Source.of_function(fn)
    compiler = _Compiler()
    compiler.compile(src, fn.__name__, None)
    return compiler.finish(ssa)


# ---------------------------------------------------------------------------
# Sources and name resolution
# ---------------------------------------------------------------------------

_MODULES = {
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.jit",
    "torch.linalg",
    "torch.fft",
    "torch.special",
    "math",
    "typing",
}
_DEFAULT_ALIASES = {"torch": "torch", "F": "torch.nn.functional", "math": "math", "nn": "torch.nn"}
_TYPING_NAMES = {"List", "Dict", "Tuple", "Optional", "Union", "Any", "Final"}

_DTYPES: dict[str, int] = {d.name: i for i, d in enumerate(DTYPE_CODES) if d is not None}
_DTYPES.update(
    {"float": 6, "double": 7, "half": 5, "long": 4, "int": 3, "short": 2, "cfloat": 9, "cdouble": 10, "chalf": 8}
)
_LAYOUTS = {"strided": 0, "sparse_coo": 1, "sparse_csr": 2}
_MEMORY_FORMATS = {"contiguous_format": 0, "preserve_format": 1, "channels_last": 2, "channels_last_3d": 3}
_MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan, "tau": math.tau}

_EXCEPTIONS = {
    "Exception", "ValueError", "RuntimeError", "TypeError", "IndexError", "KeyError", "AssertionError",
    "NotImplementedError", "ZeroDivisionError", "StopIteration", "ArithmeticError", "AttributeError",
    "OverflowError", "LookupError", "ImportError",
}

_PY_BUILTINS = {
    "len": "aten::len", "abs": "prim::abs", "min": "prim::min", "max": "prim::max", "print": "prim::Print",
    "list": "aten::list", "sorted": "aten::sorted", "round": "aten::round", "divmod": "aten::divmod",
    "pow": "aten::pow", "ord": "aten::ord", "chr": "aten::chr", "hash": "aten::hash", "all": "aten::all",
    "any": "aten::any", "sum": "aten::sum", "hex": "aten::hex", "oct": "aten::oct", "bin": "aten::bin",
}
_CASTS: dict[str, tuple[Attribute, str]] = {
    "int": (TSIntType(), "aten::Int"),
    "float": (TSFloatType(), "aten::Float"),
    "bool": (TSBoolType(), "aten::Bool"),
    "str": (TSStrType(), "aten::str"),
    "complex": (TSComplexType(), "aten::Complex"),
}
_UNSUPPORTED_BUILTINS = {
    "getattr", "hasattr", "setattr", "super", "type", "open", "iter", "next", "map", "filter", "vars",
    "globals", "locals", "eval", "exec", "id", "callable", "set", "frozenset", "dict", "tuple", "object",
}


class _Source:
    """A parsed piece of Python: its functions, imports, constants and where its text sits in its file."""

    def __init__(self, tree: ast.Module, filename: str, line_offset: int, col_offset: int) -> None:
        self.filename = filename
        self.line_offset = line_offset
        self.col_offset = col_offset
        self.functions: dict[str, ast.FunctionDef] = {}
        self.aliases: dict[str, str] = dict(_DEFAULT_ALIASES)
        self.type_names: dict[str, str] = {n: n for n in _TYPING_NAMES}
        self.type_names["Tensor"] = "Tensor"
        self.constants: dict[str, object] = {}
        self.globals: dict[str, object] | None = None
        self._derived: dict[int, _Source] = {}
        for stmt in tree.body:
            if isinstance(stmt, ast.FunctionDef):
                self.functions[stmt.name] = stmt
            elif isinstance(stmt, ast.Import):
                for a in stmt.names:
                    if a.name in _MODULES:
                        top = a.name.partition(".")[0]  # `import torch.nn` binds `torch`
                        self.aliases[a.asname or top] = a.name if a.asname else top
            elif isinstance(stmt, ast.ImportFrom) and stmt.module:
                for a in stmt.names:
                    full = f"{stmt.module}.{a.name}"
                    local = a.asname or a.name
                    if full in _MODULES:
                        self.aliases[local] = full
                    elif stmt.module == "typing" and a.name in _TYPING_NAMES:
                        self.type_names[local] = a.name
                    elif stmt.module == "torch" and a.name == "Tensor":
                        self.type_names[local] = "Tensor"
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                value = _literal(stmt.value)
                if value is not _NOT_LITERAL:
                    self.constants[stmt.targets[0].id] = value

    @staticmethod
    def parse(source: str, filename: str, first_line: int) -> _Source:
        text = textwrap.dedent(source)
        indent = _common_indent(source)
        try:
            tree = ast.parse(text, filename)
        except SyntaxError as e:
            raise ScriptError(
                f"invalid Python: {e.msg}", (e.lineno or 1) + first_line - 1, (e.offset or 1) - 1 + indent, filename
            ) from None
        return _Source(tree, filename, first_line - 1, indent)

    @staticmethod
    def of_function(fn: Callable[..., Any]) -> _Source:
        if not isinstance(fn, types.FunctionType):
            raise ScriptError(f"script() compiles Python functions, not {type(fn).__name__}")
        try:
            lines, first = inspect.getsourcelines(fn)
            filename = inspect.getsourcefile(fn) or "<source>"
        except (OSError, TypeError) as e:
            raise ScriptError(f"cannot read the source of {fn.__name__}: {e}") from None
        src = _Source.parse("".join(lines), filename, first)
        src.globals = dict(fn.__globals__)
        if fn.__closure__:
            for cell_name, cell in zip(fn.__code__.co_freevars, fn.__closure__, strict=False):
                try:
                    src.globals[cell_name] = cell.cell_contents
                except ValueError:
                    pass
        src.functions = {n: f for n, f in src.functions.items() if n == fn.__name__}
        return src

    # -- locations -----------------------------------------------------------

    def position(self, node: ast.AST | None) -> tuple[int, int]:
        node = _start(node) if node is not None else None
        if node is None or not hasattr(node, "lineno"):
            return self.line_offset + 1, 0
        return node.lineno + self.line_offset, node.col_offset + self.col_offset  # type: ignore[attr-defined]

    def loc(self, node: ast.AST | None) -> FileLineColLoc:
        line, col = self.position(node)
        return FileLineColLoc(StringAttr(self.filename), IntAttr(line), IntAttr(col))

    def error(self, message: str, node: ast.AST | None) -> ScriptError:
        line, col = self.position(node)
        return ScriptError(message, line, col, self.filename)

    # -- globals ---------------------------------------------------------------

    def resolve(self, name: str) -> _Sugared | None:
        """A name no frame defines: a function, module, type, constant or builtin."""
        if name in self.functions:
            return _UserFunction(self, name)
        if self.globals is not None and self.globals.get(name) is not None:
            found = self._from_python(self.globals[name])
            if found is not None:
                return found
        if name in self.aliases:
            return _Namespace(self.aliases[name])
        if name in self.type_names:
            return _TypeName(self.type_names[name])
        if name in self.constants:
            return _PyConstant(self.constants[name])
        if name in _CASTS:
            return _Cast(name)
        if name in _PY_BUILTINS:
            return _Builtin(_PY_BUILTINS[name])
        if name in _EXCEPTIONS:
            return _ExceptionClass(name)
        if name in ("range", "enumerate", "zip", "isinstance"):
            return _SpecialForm(name)
        return None

    def _from_python(self, obj: object) -> _Sugared | None:
        if isinstance(obj, types.ModuleType):
            return _Namespace(obj.__name__) if obj.__name__ in _MODULES else None
        if isinstance(obj, types.FunctionType):
            derived = self._derived.get(id(obj))
            if derived is None:
                try:
                    derived = _Source.of_function(obj)
                except ScriptError:
                    return None
                self._derived[id(obj)] = derived
            return _UserFunction(derived, obj.__name__)
        if isinstance(obj, bool | int | float | str) or obj is None:
            return _PyConstant(obj)
        qual = f"{getattr(obj, '__module__', '')}.{getattr(obj, '__name__', getattr(obj, '_name', ''))}"
        if qual in ("torch.Tensor", "torch._tensor.Tensor"):
            return _TypeName("Tensor")
        if qual.startswith("typing.") and qual[7:] in _TYPING_NAMES:
            return _TypeName(qual[7:])
        return None


_NOT_LITERAL = object()


def _start(node: ast.AST) -> ast.AST:
    """
    The node where an expression's text starts, parentheses left out, as
    TorchScript's source ranges have it: `(a * b) + c` starts at `a`.
    """
    while True:
        if isinstance(node, ast.BinOp | ast.Compare):
            inner: ast.AST = node.left
        elif isinstance(node, ast.BoolOp):
            inner = node.values[0]
        elif isinstance(node, ast.Call):
            inner = node.func
        elif isinstance(node, ast.Attribute | ast.Subscript):
            inner = node.value
        elif isinstance(node, ast.IfExp):
            inner = node.body
        else:
            return node
        node = inner


def _literal(node: ast.expr) -> object:
    """The Python value of a constant expression (`3`, `-1.5`, `"a"`, `None`), else `_NOT_LITERAL`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, bool | int | float | str | type(None)):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = _literal(node.operand)
        if isinstance(inner, int | float) and not isinstance(inner, bool):
            return -inner if isinstance(node.op, ast.USub) else inner
    return _NOT_LITERAL


def _common_indent(source: str) -> int:
    widths = [len(line) - len(line.lstrip()) for line in source.splitlines() if line.strip()]
    return min(widths) if widths else 0


# ---------------------------------------------------------------------------
# The compiler: functions to methods
# ---------------------------------------------------------------------------


@dataclass
class _Compiled:
    name: str
    method: MethodOp | None
    params: list[str]
    param_types: list[Attribute]
    defaults: dict[str, object]
    return_type: Attribute | None = None


class _Compiler:
    def __init__(self) -> None:
        self.compiled: dict[str, _Compiled] = {}
        self.sources: dict[str, _Source] = {}
        self.in_progress: list[str] = []

    def compile(self, src: _Source, name: str, call_site: tuple[_Source, ast.AST] | None) -> _Compiled:
        done = self.compiled.get(name)
        if done is not None:
            if self.sources[name] is not src and self.sources[name].functions.get(name) is not src.functions.get(name):
                where = call_site or (src, src.functions.get(name))
                raise where[0].error(f"two different functions are named '{name}'", where[1])
            if done.method is None:
                where = call_site or (src, src.functions.get(name))
                raise where[0].error(
                    f"recursive calls are not supported in TorchScript ({' -> '.join([*self.in_progress, name])})",
                    where[1],
                )
            return done
        fdef = src.functions.get(name)
        if fdef is None:
            where = call_site or (src, None)
            raise where[0].error(f"cannot find the definition of '{name}' (a 'def' statement) in its source", where[1])
        entry = _Compiled(name, None, [], [], {})
        self.compiled[name] = entry
        self.sources[name] = src
        self.in_progress.append(name)
        try:
            _FunctionEmitter(self, src, fdef, entry).run()
        finally:
            self.in_progress.pop()
        return entry

    def finish(self, ssa: bool) -> ModuleOp:
        methods = [c.method for c in self.compiled.values() if c.method is not None]
        module = ModuleOp(list(methods))
        if ssa:
            for method in methods:
                block = method.body.block
                convert_to_ssa(block)
                exit_transform(block)
                cleanup_graph(block)
        module.verify()
        return module


# ---------------------------------------------------------------------------
# Sugared values
# ---------------------------------------------------------------------------


class _Sugared:
    """A compile-time value (seed 004's SugaredValue); `describe` names it in errors."""

    def describe(self) -> str:
        return "this value"

    def as_value(self, em: _FunctionEmitter, node: ast.AST) -> SSAValue:
        raise em.error(f"{self.describe()} cannot be used as a value", node)

    def attr(self, em: _FunctionEmitter, name: str, node: ast.AST) -> _Sugared:
        raise em.error(f"{self.describe()} has no attribute '{name}'", node)

    def call(
        self, em: _FunctionEmitter, node: ast.Call, args: list[SSAValue], kwargs: list[tuple[str, SSAValue]]
    ) -> _Sugared:
        raise em.error(f"{self.describe()} is not callable", node)

    def as_tuple(self, em: _FunctionEmitter, n: int | None, node: ast.AST) -> list[_Sugared]:
        return _Simple(self.as_value(em, node)).as_tuple(em, n, node)

    def iterate(self, em: _FunctionEmitter, node: ast.AST) -> _Iterable:
        return _Simple(self.as_value(em, node)).iterate(em, node)


@dataclass
class _Simple(_Sugared):
    """A first-class value."""

    value: SSAValue

    def describe(self) -> str:
        return f"a value of type '{ts_annotation_str(self.value.type)}'"

    def as_value(self, em: _FunctionEmitter, node: ast.AST) -> SSAValue:
        return self.value

    def attr(self, em: _FunctionEmitter, name: str, node: ast.AST) -> _Sugared:
        t = self.value.type
        if isinstance(t, TSTensorType):
            prop = _TENSOR_PROPERTIES.get(name)
            if prop is not None:
                out = em.call_builtin(prop, [self.value], [], node)
                if prop == "prim::dtype":
                    em.enum_values.add(out[0])
                return _wrap(out, em, node)
        return _Method(self.value, name)

    def as_tuple(self, em: _FunctionEmitter, n: int | None, node: ast.AST) -> list[_Sugared]:
        t = self.value.type
        if isinstance(t, TSTupleType):
            elems = t.element_types
            if n is not None and n != len(elems):
                raise em.error(f"cannot unpack a tuple of {len(elems)} elements into {n} values", node)
            op = em.emit(TupleUnpackOp.make([self.value], list(elems)), node)
            return [_Simple(r) for r in op.results]
        if isinstance(t, TSListType):
            if n is None:
                raise em.error("cannot unpack a list of unknown length here", node)
            op = em.emit(ListUnpackOp.make([self.value], [t.element] * n), node)
            return [_Simple(r) for r in op.results]
        raise em.error(f"cannot unpack a value of type '{ts_annotation_str(t)}'", node)

    def iterate(self, em: _FunctionEmitter, node: ast.AST) -> _Iterable:
        t = self.value.type
        if isinstance(t, TSDictType):
            keys = em.call_builtin("aten::keys", [self.value], [], node)[0]
            return _SequenceIter(keys)
        if isinstance(t, TSListType | TSStrType | TSTensorType):
            return _SequenceIter(self.value)
        if isinstance(t, TSTupleType):
            return _UnrolledIter([_Simple(v) for v in _Simple(self.value).as_values(em, node)])
        raise em.error(f"'{ts_annotation_str(t)}' object is not iterable", node)

    def as_values(self, em: _FunctionEmitter, node: ast.AST) -> list[SSAValue]:
        return [s.as_value(em, node) for s in self.as_tuple(em, None, node)]


@dataclass
class _Multi(_Sugared):
    """Several values: a builtin's outputs, an item of `enumerate`/`zip`; a tuple when used as a value."""

    items: list[_Sugared]

    def describe(self) -> str:
        return "a tuple"

    def as_value(self, em: _FunctionEmitter, node: ast.AST) -> SSAValue:
        values = [i.as_value(em, node) for i in self.items]
        op = em.emit(TupleConstructOp.make(values, [TSTupleType(*(v.type for v in values))]), node)
        return op.results[0]

    def as_tuple(self, em: _FunctionEmitter, n: int | None, node: ast.AST) -> list[_Sugared]:
        if n is not None and n != len(self.items):
            raise em.error(f"cannot unpack {len(self.items)} values into {n}", node)
        return list(self.items)

    def iterate(self, em: _FunctionEmitter, node: ast.AST) -> _Iterable:
        return _UnrolledIter(list(self.items))


@dataclass
class _NoneValue(_Sugared):
    def as_value(self, em: _FunctionEmitter, node: ast.AST) -> SSAValue:
        return em.const(None, node)


@dataclass
class _PyConstant(_Sugared):
    value: object

    def as_value(self, em: _FunctionEmitter, node: ast.AST) -> SSAValue:
        return em.const(self.value, node)


@dataclass
class _Namespace(_Sugared):
    """`torch`, `torch.nn.functional`, `math`, ..."""

    path: str

    def describe(self) -> str:
        return f"module '{self.path}'"

    def attr(self, em: _FunctionEmitter, name: str, node: ast.AST) -> _Sugared:
        full = f"{self.path}.{name}"
        if full in _MODULES:
            return _Namespace(full)
        if self.path == "torch":
            if name in _DTYPES:
                return _EnumConstant(_DTYPES[name])
            if name in _LAYOUTS:
                return _EnumConstant(_LAYOUTS[name])
            if name in _MEMORY_FORMATS:
                return _EnumConstant(_MEMORY_FORMATS[name])
            if name in _MATH_CONSTANTS:
                return _PyConstant(_MATH_CONSTANTS[name])
            if name == "Tensor":
                return _TypeName("Tensor")
            if name == "device":
                return _DeviceCtor()
            return _Builtin(f"aten::{name}")
        if self.path == "math":
            if name in _MATH_CONSTANTS:
                return _PyConstant(_MATH_CONSTANTS[name])
            return _Builtin(f"aten::{name}")
        if self.path == "torch.nn.functional":
            return _Builtin(f"aten::{name}")
        if self.path == "torch.jit":
            if name == "annotate":
                return _SpecialForm("annotate")
            if name == "is_scripting":
                return _SpecialForm("is_scripting")
            if name == "is_tracing":
                return _SpecialForm("is_tracing")
            raise em.error(f"torch.jit.{name} is not supported by this frontend", node)
        if self.path in ("torch.linalg", "torch.fft", "torch.special"):
            return _Builtin(f"aten::{self.path.rpartition('.')[2]}_{name}")
        if self.path == "typing" and name in _TYPING_NAMES:
            return _TypeName(name)
        raise em.error(f"module '{self.path}' has no attribute '{name}' that TorchScript knows", node)


@dataclass
class _EnumConstant(_Sugared):
    """A dtype, layout or memory format: an int, remembered as such for overload resolution."""

    code: int

    def as_value(self, em: _FunctionEmitter, node: ast.AST) -> SSAValue:
        v = em.const(self.code, node)
        em.enum_values.add(v)
        return v


@dataclass
class _TypeName(_Sugared):
    name: str

    def describe(self) -> str:
        return f"type '{self.name}'"


@dataclass
class _Builtin(_Sugared):
    """A builtin operator (`aten::relu`), with `self` bound for methods."""

    kind: str

    def describe(self) -> str:
        return f"builtin '{self.kind}'"

    def call(
        self, em: _FunctionEmitter, node: ast.Call, args: list[SSAValue], kwargs: list[tuple[str, SSAValue]]
    ) -> _Sugared:
        if self.kind in ("prim::min", "prim::max") and len(args) > 2 and not kwargs:
            acc = args[0]
            for v in args[1:]:
                acc = em.call_builtin(self.kind, [acc, v], [], node)[0]
            return _Simple(acc)
        return _wrap(em.call_builtin(self.kind, args, kwargs, node), em, node)


@dataclass
class _Method(_Sugared):
    """`x.name`, waiting to be called: `aten::name(x, ...)`."""

    self_value: SSAValue
    name: str

    def describe(self) -> str:
        return f"attribute '{self.name}' of a value of type '{ts_annotation_str(self.self_value.type)}'"

    def call(
        self, em: _FunctionEmitter, node: ast.Call, args: list[SSAValue], kwargs: list[tuple[str, SSAValue]]
    ) -> _Sugared:
        if self.name in _TENSOR_CASTS and isinstance(self.self_value.type, TSTensorType) and not args and not kwargs:
            # `x.float()` is `x.to(torch.float32)`, as TorchScript's builtins write it.
            dtype = _EnumConstant(_TENSOR_CASTS[self.name]).as_value(em, node)
            return _wrap(em.call_builtin("aten::to", [self.self_value, dtype], [], node), em, node)
        kind = f"aten::{self.name}"
        if not candidates(kind):
            raise em.error(
                f"'{ts_annotation_str(self.self_value.type)}' object has no method '{self.name}' in TorchScript", node
            )
        return _wrap(em.call_builtin(kind, [self.self_value, *args], kwargs, node), em, node)


@dataclass
class _Cast(_Sugared):
    """`int(x)`, `float(x)`, `bool(x)`, `str(x)`: the value itself when it has the type already."""

    name: str

    def call(
        self, em: _FunctionEmitter, node: ast.Call, args: list[SSAValue], kwargs: list[tuple[str, SSAValue]]
    ) -> _Sugared:
        target, kind = _CASTS[self.name]
        if kwargs or len(args) > 1:
            raise em.error(f"{self.name}() takes at most one positional argument here", node)
        if not args:
            default = {"int": 0, "float": 0.0, "bool": False, "str": ""}.get(self.name)
            if default is None:
                raise em.error(f"{self.name}() needs an argument", node)
            return _Simple(em.const(default, node))
        if args[0].type == target:
            return _Simple(args[0])
        return _wrap(em.call_builtin(kind, args, [], node), em, node)


@dataclass
class _DeviceCtor(_Sugared):
    def call(
        self, em: _FunctionEmitter, node: ast.Call, args: list[SSAValue], kwargs: list[tuple[str, SSAValue]]
    ) -> _Sugared:
        if len(args) == 1 and not kwargs:
            owner = args[0].owner
            if isinstance(owner, ConstantOp) and isinstance(owner.value, StringAttr):
                return _Simple(em.const_device(owner.value.data, node))
        return _wrap(em.call_builtin("aten::device", args, kwargs, node), em, node)


@dataclass
class _ExceptionClass(_Sugared):
    name: str

    def describe(self) -> str:
        return f"exception class '{self.name}'"

    def call(
        self, em: _FunctionEmitter, node: ast.Call, args: list[SSAValue], kwargs: list[tuple[str, SSAValue]]
    ) -> _Sugared:
        if kwargs or len(args) > 1:
            raise em.error(f"{self.name}() takes one message argument in TorchScript", node)
        return _ExceptionInstance(args[0] if args else None, self.name)


@dataclass
class _ExceptionInstance(_Sugared):
    message: SSAValue | None
    name: str

    def describe(self) -> str:
        return f"an exception '{self.name}'"


@dataclass
class _SpecialForm(_Sugared):
    """Calls that see their arguments' syntax (`torch.jit.annotate(T, v)`) or build iterables."""

    name: str

    def describe(self) -> str:
        return f"'{self.name}'"


@dataclass
class _UserFunction(_Sugared):
    """A function of the source: compiled to its own method, called through `prim.CallFunction`."""

    src: _Source
    name: str

    def describe(self) -> str:
        return f"function '{self.name}'"

    def call(
        self, em: _FunctionEmitter, node: ast.Call, args: list[SSAValue], kwargs: list[tuple[str, SSAValue]]
    ) -> _Sugared:
        callee = em.compiler.compile(self.src, self.name, (em.src, node))
        if len(args) > len(callee.params):
            raise em.error(
                f"{self.name}() takes {len(callee.params)} arguments but {len(args)} were given", node
            )
        bound: dict[str, SSAValue] = dict(zip(callee.params, args, strict=False))
        for key, value in kwargs:
            if key not in callee.params:
                raise em.error(f"{self.name}() got an unexpected keyword argument '{key}'", node)
            if key in bound:
                raise em.error(f"{self.name}() got multiple values for argument '{key}'", node)
            bound[key] = value
        inputs: list[SSAValue] = []
        for pname, ptype in zip(callee.params, callee.param_types, strict=True):
            if pname in bound:
                value = em.convert(bound[pname], ptype, node)
                if not is_subtype(value.type, ptype):
                    raise em.error(
                        f"argument '{pname}' of {self.name}() expects '{ts_annotation_str(ptype)}' but got "
                        f"'{ts_annotation_str(value.type)}'",
                        node,
                    )
            elif pname in callee.defaults:
                value = em.const(callee.defaults[pname], node, ptype if callee.defaults[pname] is None else None)
            else:
                raise em.error(f"{self.name}() is missing argument '{pname}'", node)
            inputs.append(value)
        assert callee.return_type is not None
        fn = em.emit(ConstantOp.make([], [TSFunctionType(self.name)], {"name": StringAttr(self.name)}), node)
        call = em.emit(CallFunctionOp.make([fn.results[0], *inputs], [callee.return_type]), node)
        return _Simple(call.results[0])


def _wrap(results: list[SSAValue], em: _FunctionEmitter, node: ast.AST) -> _Sugared:
    if not results:
        return _NoneValue()
    if len(results) == 1:
        return _Simple(results[0])
    return _Multi([_Simple(r) for r in results])


_TENSOR_CASTS = {"float": 6, "double": 7, "half": 5, "long": 4, "int": 3, "short": 2, "char": 1, "byte": 0,
                 "bfloat16": 15}

_TENSOR_PROPERTIES = {
    "shape": "aten::size",
    "ndim": "aten::dim",
    "dtype": "prim::dtype",
    "device": "prim::device",
    "T": "aten::numpy_T",
    "mT": "aten::mT",
    "requires_grad": "prim::requires_grad",
    "is_cuda": "prim::is_cuda",
    "data": "prim::data",
    "grad": "prim::grad",
    "layout": "prim::layout",
}


# -- iterables ---------------------------------------------------------------


class _Iterable:
    """What a `for` loop iterates: its length and its element at an iteration."""

    unrolled: bool = False

    def length(self, em: _FunctionEmitter, node: ast.AST) -> SSAValue:
        raise NotImplementedError

    def item(self, em: _FunctionEmitter, index: SSAValue, node: ast.AST) -> _Sugared:
        raise NotImplementedError


@dataclass
class _RangeIter(_Iterable):
    start: SSAValue | None
    stop: SSAValue
    step: SSAValue | None

    def length(self, em: _FunctionEmitter, node: ast.AST) -> SSAValue:
        if self.start is None:
            return self.stop
        step = self.step if self.step is not None else em.const(1, node)
        self.step = step
        return em.call_builtin("aten::__range_length", [self.start, self.stop, step], [], node)[0]

    def item(self, em: _FunctionEmitter, index: SSAValue, node: ast.AST) -> _Sugared:
        if self.start is None:
            return _Simple(index)
        assert self.step is not None
        return _Simple(em.call_builtin("aten::__derive_index", [index, self.start, self.step], [], node)[0])


@dataclass
class _SequenceIter(_Iterable):
    """A list, string or tensor: `len` and `__getitem__` (`select` on dim 0 for a tensor)."""

    seq: SSAValue

    def length(self, em: _FunctionEmitter, node: ast.AST) -> SSAValue:
        return em.call_builtin("aten::len", [self.seq], [], node)[0]

    def item(self, em: _FunctionEmitter, index: SSAValue, node: ast.AST) -> _Sugared:
        if isinstance(self.seq.type, TSTensorType):
            zero = em.const(0, node)
            return _Simple(em.call_builtin("aten::select", [self.seq, zero, index], [], node)[0])
        return _Simple(em.call_builtin("aten::__getitem__", [self.seq, index], [], node)[0])


@dataclass
class _EnumerateIter(_Iterable):
    inner: _Iterable
    start: SSAValue | None

    def length(self, em: _FunctionEmitter, node: ast.AST) -> SSAValue:
        # `zip(range(start, INT64_MAX), inner)`, as TorchScript iterates it.
        bound = em.const(INT64_MAX, node)
        if self.start is not None:
            one = em.const(1, node)
            bound = em.call_builtin("aten::__range_length", [self.start, bound, one], [], node)[0]
        return _min_length([bound, self.inner.length(em, node)], em, node)

    def item(self, em: _FunctionEmitter, index: SSAValue, node: ast.AST) -> _Sugared:
        counter = index
        if self.start is not None:
            one = em.const(1, node)
            counter = em.call_builtin("aten::__derive_index", [index, self.start, one], [], node)[0]
        return _Multi([_Simple(counter), self.inner.item(em, index, node)])


def _min_length(lengths: list[SSAValue], em: _FunctionEmitter, node: ast.AST) -> SSAValue:
    lst = em.emit(ListConstructOp.make(lengths, [TSListType(TSIntType())]), node).results[0]
    return em.call_builtin("prim::min", [lst], [], node)[0]


@dataclass
class _ZipIter(_Iterable):
    inners: list[_Iterable]

    def length(self, em: _FunctionEmitter, node: ast.AST) -> SSAValue:
        return _min_length([i.length(em, node) for i in self.inners], em, node)

    def item(self, em: _FunctionEmitter, index: SSAValue, node: ast.AST) -> _Sugared:
        return _Multi([i.item(em, index, node) for i in self.inners])


@dataclass
class _UnrolledIter(_Iterable):
    items: list[_Sugared]
    unrolled: bool = True


# ---------------------------------------------------------------------------
# The environment
# ---------------------------------------------------------------------------


class _Frame:
    """One block's scope: first-class variables (types), sugared values, and deferred errors."""

    def __init__(self, block: Block, parent: _Frame | None) -> None:
        self.block = block
        self.parent = parent
        self.types: dict[str, Attribute] = {}
        self.sugared: dict[str, _Sugared] = {}
        self.errors: dict[str, ScriptError] = {}

    def find_type(self, name: str) -> Attribute | None:
        frame: _Frame | None = self
        while frame is not None:
            if name in frame.types:
                return frame.types[name]
            frame = frame.parent
        return None

    def find_sugared(self, name: str) -> _Sugared | None:
        frame: _Frame | None = self
        while frame is not None:
            if name in frame.sugared:
                return frame.sugared[name]
            frame = frame.parent
        return None

    def find_error(self, name: str) -> ScriptError | None:
        frame: _Frame | None = self
        while frame is not None:
            if name in frame.errors:
                return frame.errors[name]
            frame = frame.parent
        return None

    def find_in_parent(self, name: str) -> Attribute | None:
        return self.parent.find_type(name) if self.parent is not None else None


@dataclass
class _Refinements:
    """Variables known to have a narrower type when a condition is true / false."""

    true: dict[str, Attribute] = field(default_factory=dict[str, Attribute])
    false: dict[str, Attribute] = field(default_factory=dict[str, Attribute])

    def negate(self) -> _Refinements:
        return _Refinements(dict(self.false), dict(self.true))

    def both(self, other: _Refinements) -> _Refinements:
        """For `a and b`."""
        return _Refinements({**self.true, **other.true}, _intersect(self.false, other.false))

    def either(self, other: _Refinements) -> _Refinements:
        """For `a or b`."""
        return _Refinements(_intersect(self.true, other.true), {**self.false, **other.false})


def _intersect(a: dict[str, Attribute], b: dict[str, Attribute]) -> dict[str, Attribute]:
    return {k: v for k, v in a.items() if b.get(k) == v}


@dataclass
class _Cond:
    value: SSAValue
    refinements: _Refinements = field(default_factory=_Refinements)
    static: bool | None = None


# ---------------------------------------------------------------------------
# The IR emitter
# ---------------------------------------------------------------------------

_BINOPS: dict[type[ast.operator], str] = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floordiv",
    ast.Mod: "remainder", ast.Pow: "pow", ast.MatMult: "matmul", ast.LShift: "__lshift__",
    ast.RShift: "__rshift__", ast.BitAnd: "__and__", ast.BitOr: "__or__", ast.BitXor: "__xor__",
}
_INPLACE: dict[type[ast.operator], str] = {
    ast.Add: "add_", ast.Sub: "sub_", ast.Mult: "mul_", ast.Div: "div_", ast.Mod: "fmod_",
    ast.BitOr: "bitwise_or", ast.BitAnd: "bitwise_and", ast.BitXor: "bitwise_xor",
    ast.LShift: "__lshift__", ast.RShift: "__irshift__", ast.Pow: "pow",
}
_CMPOPS: dict[type[ast.cmpop], str] = {
    ast.Lt: "lt", ast.Gt: "gt", ast.LtE: "le", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne",
}
_MIRRORED = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le", "eq": "eq", "ne": "ne"}
_SCALARS = (TSIntType, TSFloatType, TSBoolType, TSNumberType, TSComplexType)


class _FunctionEmitter:
    """Emits one function definition into a `ts.method` in the frontend's Store/Load form."""

    def __init__(self, compiler: _Compiler, src: _Source, fdef: ast.FunctionDef, entry: _Compiled) -> None:
        self.compiler = compiler
        self.src = src
        self.fdef = fdef
        self.entry = entry
        self.frame: _Frame | None = None
        self.block: Block = Block()
        self.exit_blocks: set[Block] = set()
        self.loops: list[str] = []  # "loop" or "unrolled"
        self.declared_return: Attribute | None = None
        self.merged_return: Attribute | None = None
        self.enum_values: set[SSAValue] = set()
        self.probes: dict[str, Attribute] = {}
        self.hidden_count = 0

    # -- basics ------------------------------------------------------------

    def error(self, message: str, node: ast.AST | None) -> ScriptError:
        return self.src.error(message, node)

    def emit(self, op: Operation, node: ast.AST | None) -> Operation:
        op.location = self.src.loc(node)
        self.block.add_op(op)
        return op

    @contextmanager
    def scope(self, block: Block) -> Iterator[_Frame]:
        """Emit into `block` with a new frame; the frame is what the block defined."""
        saved_block, saved_frame = self.block, self.frame
        frame = _Frame(block, saved_frame)
        self.block, self.frame = block, frame
        try:
            yield frame
        finally:
            self.block, self.frame = saved_block, saved_frame

    @contextmanager
    def inserting(self, block: Block) -> Iterator[None]:
        saved = self.block
        self.block = block
        try:
            yield
        finally:
            self.block = saved

    @property
    def env(self) -> _Frame:
        assert self.frame is not None
        return self.frame

    def const(self, value: object, node: ast.AST | None, type_: Attribute | None = None) -> SSAValue:
        """A `prim.Constant` of a Python value (None typed `type_`, default NoneType)."""
        props: dict[str, Attribute | None] = {}
        if value is None:
            t = type_ or TSNoneType()
        elif isinstance(value, bool):
            t, props["value"] = TSBoolType(), IntegerAttr(int(value), IntegerType(1))
        elif isinstance(value, int):
            if not -(2**63) <= value < 2**63:
                raise self.error(f"integer constant {value} does not fit in 64 bits", node)
            t, props["value"] = TSIntType(), IntegerAttr(value, IntegerType(64))
        elif isinstance(value, float):
            t, props["value"] = TSFloatType(), FloatAttr(value, Float64Type())
        elif isinstance(value, str):
            t, props["value"] = TSStrType(), StringAttr(value)
        elif isinstance(value, list | tuple):
            elems = [self._const_attr(v, node) for v in value]
            elem_t = type_.element if isinstance(type_, TSListType) else (
                _python_type(value[0]) if value else TSIntType()
            )
            t, props["value"] = TSListType(elem_t), ArrayAttr(elems)
        else:
            raise self.error(f"cannot make a TorchScript constant of {type(value).__name__}", node)
        return self.emit(ConstantOp.make([], [t], props), node).results[0]

    def _const_attr(self, value: object, node: ast.AST | None) -> Attribute:
        if isinstance(value, bool):
            return IntegerAttr(int(value), IntegerType(1))
        if isinstance(value, int):
            return IntegerAttr(value, IntegerType(64))
        if isinstance(value, float):
            return FloatAttr(value, Float64Type())
        if isinstance(value, str):
            return StringAttr(value)
        raise self.error(f"cannot make a TorchScript list constant of {type(value).__name__}", node)

    def const_device(self, name: str, node: ast.AST | None) -> SSAValue:
        return self.emit(ConstantOp.make([], [TSDeviceType()], {"value": StringAttr(name)}), node).results[0]

    def node(
        self, kind: str, inputs: Sequence[SSAValue], result_types: Sequence[Attribute], node: ast.AST | None
    ) -> NodeOp:
        op = NodeOp(kind, inputs, result_types)
        self.emit(op, node)
        return op

    # -- variables -----------------------------------------------------------

    def set_var(self, name: str, value: SSAValue, node: ast.AST, annotated: Attribute | None = None) -> None:
        frame = self.env
        parent_type = frame.find_in_parent(name)
        shown = name.split("$")[0] or name
        if annotated is not None:
            if not is_subtype(value.type, annotated):
                raise self.error(
                    f"variable '{shown}' is annotated with type '{ts_annotation_str(annotated)}' but is assigned "
                    f"a value of type '{ts_annotation_str(value.type)}'",
                    node,
                )
        if parent_type is not None and not is_subtype(value.type, unrefined(parent_type)):
            raise self.error(
                f"variable '{shown}' previously had type '{ts_annotation_str(parent_type)}' but is now being "
                f"assigned to a value of type '{ts_annotation_str(value.type)}'",
                node,
            )
        if name in frame.sugared:
            del frame.sugared[name]
        self.emit(StoreOp.make([value], [], {"name": StringAttr(name)}), node)
        frame.types[name] = annotated if annotated is not None else value.type
        frame.errors.pop(name, None)
        if name.startswith("$"):
            self.probes[name] = value.type
        if shown and not name.startswith("$"):
            set_name(value, shown)

    def get_var(self, name: str, node: ast.AST) -> _Sugared:
        frame = self.env
        t = frame.find_type(name)
        if t is not None:
            load = self.emit(LoadOp.make([], [t], {"name": StringAttr(name)}), node)
            return _Simple(load.results[0])
        sugared = frame.find_sugared(name)
        if sugared is not None:
            return sugared
        err = frame.find_error(name)
        if err is not None:
            raise self.error(err.message, node)
        found = self.src.resolve(name)
        if found is not None:
            return found
        raise self.error(f"undefined value {name}", node)

    # -- the function ----------------------------------------------------------

    def run(self) -> None:
        fdef = self.fdef
        args = fdef.args
        if args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg:
            raise self.error(
                "TorchScript functions take plain positional parameters only (no *args, **kwargs or "
                "keyword-only parameters)",
                fdef,
            )
        params = [a.arg for a in args.args]
        if params and params[0] == "self":
            raise self.error("methods of classes and modules are not supported by this frontend", fdef)
        param_types: list[Attribute] = [
            self.parse_type(a.annotation) if a.annotation is not None else TSTensorType() for a in args.args
        ]
        defaults: dict[str, object] = {}
        for a, d in zip(args.args[len(args.args) - len(args.defaults) :], args.defaults, strict=True):
            value = _literal(d)
            if value is _NOT_LITERAL:
                raise self.error(f"the default of parameter '{a.arg}' must be a constant", d)
            defaults[a.arg] = value
        self.entry.params, self.entry.param_types, self.entry.defaults = params, param_types, defaults
        if fdef.returns is not None:
            self.declared_return = self.parse_type(fdef.returns)

        block = Block(arg_types=param_types)
        with self.scope(block):
            for a, arg_value in zip(args.args, block.args, strict=True):
                set_name(arg_value, a.arg)
                self.set_var(a.arg, arg_value, a)
            body = fdef.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                body = body[1:]  # the docstring
            self.emit_statements(body)
            if block not in self.exit_blocks:
                # Falling off the end returns None.
                declared = self.declared_return
                if declared is not None and not is_subtype(TSNoneType(), declared):
                    raise self.error(
                        "function was not annotated as returning None, but does not return along all paths", fdef
                    )
                self.emit_return_value(self.const(None, fdef, None), fdef)
            elif self.merged_return is None:
                # Always raises: the declared type, else None.
                self.merged_return = self.declared_return or TSNoneType()
            ret = self.merged_return
            assert ret is not None
            placeholder = self.emit(UninitializedOp.make([], [ret]), fdef)
            block.add_op(ReturnOp.make([placeholder.results[0]]))
        self.entry.return_type = ret
        schema: str | None = _schema_text(fdef.name, params, param_types, defaults, ret)
        try:
            schema = str(parse_schema(schema))
        except SchemaParseError:
            schema = None  # a type the schema grammar cannot spell
        method = MethodOp(fdef.name, Region(block), schema)
        method.location = self.src.loc(fdef)
        self.entry.method = method

    # -- types -----------------------------------------------------------------

    def parse_type(self, node: ast.expr) -> Attribute:
        """A type annotation: `int`, `List[int]`, `Optional[Tensor]`, `torch.Tensor`, `T | None`, `"Tensor"`."""
        if isinstance(node, ast.Constant):
            if node.value is None:
                return TSNoneType()
            if isinstance(node.value, str):
                try:
                    inner = ast.parse(node.value, mode="eval").body
                except SyntaxError:
                    raise self.error(f"cannot parse the type annotation '{node.value}'", node) from None
                ast.copy_location(inner, node)
                for n in ast.walk(inner):
                    ast.copy_location(n, node)
                return self.parse_type(inner)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self._union([self.parse_type(node.left), self.parse_type(node.right)], node)
        if isinstance(node, ast.Subscript):
            head = self._type_head(node.value)
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if head in ("List", "list"):
                return TSListType(self.parse_type(items[0]))
            if head in ("Optional",):
                return TSOptionalType(self.parse_type(items[0]))
            if head in ("Tuple", "tuple"):
                if len(items) == 1 and isinstance(items[0], ast.Tuple) and not items[0].elts:
                    return TSTupleType()
                return TSTupleType(*(self.parse_type(i) for i in items))
            if head in ("Dict", "dict") and len(items) == 2:
                return TSDictType(self.parse_type(items[0]), self.parse_type(items[1]))
            if head == "Union":
                return self._union([self.parse_type(i) for i in items], node)
            if head == "Final":
                return self.parse_type(items[0])
            raise self.error(f"unknown type constructor '{head}'", node)
        head = self._type_head(node)
        simple = {
            "int": TSIntType(), "float": TSFloatType(), "bool": TSBoolType(), "str": TSStrType(), "complex": TSComplexType(),
            "Tensor": TSTensorType(), "Any": TSAnyType(), "None": TSNoneType(), "NoneType": TSNoneType(),
            "device": TSDeviceType(),
        }
        if head in simple:
            return simple[head]
        if head in ("List", "list"):
            return TSListType(TSTensorType())
        if head in ("Dict", "dict"):
            return TSDictType(TSStrType(), TSTensorType())
        raise self.error(f"unknown type '{head or ast.unparse(node)}'", node)

    def _type_head(self, node: ast.expr) -> str:
        if isinstance(node, ast.Name):
            if node.id in self.src.type_names:
                return self.src.type_names[node.id]
            if self.src.globals is not None and node.id in self.src.globals:
                found = self.src._from_python(self.src.globals[node.id])
                if isinstance(found, _TypeName):
                    return found.name
            return node.id
        if isinstance(node, ast.Attribute):
            base = node.value
            if isinstance(base, ast.Name):
                module = self.src.aliases.get(base.id, base.id)
                if module in ("torch", "typing"):
                    return node.attr
            return node.attr
        return ""

    def _union(self, items: list[Attribute], node: ast.AST) -> Attribute:
        others = [t for t in items if not isinstance(t, TSNoneType)]
        if len(others) < len(items) and len(others) == 1:
            return TSOptionalType(others[0])
        if len(items) == 1:
            return items[0]
        return TSUnionType(*items)

    # -- statements ------------------------------------------------------------

    def emit_statements(self, stmts: Sequence[ast.stmt]) -> None:
        for stmt in stmts:
            self.emit_statement(stmt)
            if self.block in self.exit_blocks:
                return  # the rest of the block is unreachable

    def emit_statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Assign):
            self.emit_assign(stmt)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is None:
                raise self.error("a variable annotation needs a value in TorchScript", stmt)
            if not isinstance(stmt.target, ast.Name):
                raise self.error("only variables can be annotated", stmt.target)
            t = self.parse_type(stmt.annotation)
            value = self.emit_expr(stmt.value, t)
            value = self.convert(value, t, stmt.value)
            self.set_var(stmt.target.id, value, stmt.target, annotated=t)
        elif isinstance(stmt, ast.AugAssign):
            self.emit_aug_assign(stmt)
        elif isinstance(stmt, ast.Expr):
            if isinstance(stmt.value, ast.Constant):
                return  # a string statement, `...`
            self.emit_sugared(stmt.value)
        elif isinstance(stmt, ast.If):
            cond = self.emit_cond(stmt.test)
            self.emit_if_else(stmt, cond, stmt.body, stmt.orelse)
        elif isinstance(stmt, ast.While):
            if stmt.orelse:
                raise self.error("'else' on a while loop is not supported in TorchScript", stmt)
            self.emit_loop(stmt, None, stmt.test, None, None, stmt.body)
        elif isinstance(stmt, ast.For):
            self.emit_for(stmt)
        elif isinstance(stmt, ast.Return):
            self.emit_return(stmt)
        elif isinstance(stmt, ast.Raise):
            self.emit_raise(stmt)
        elif isinstance(stmt, ast.Assert):
            self.emit_assert(stmt)
        elif isinstance(stmt, ast.Break | ast.Continue):
            word = "break" if isinstance(stmt, ast.Break) else "continue"
            if not self.loops:
                raise self.error(f"'{word}' outside loop", stmt)
            if self.loops[-1] == "unrolled":
                raise self.error(
                    f"'{word}' is not supported in a loop over a tuple (TorchScript unrolls those loops)", stmt
                )
            op = BreakStmtOp.make() if isinstance(stmt, ast.Break) else ContinueStmtOp.make()
            self.emit(op, stmt)
        elif isinstance(stmt, ast.Pass):
            pass
        else:
            raise self.error(_unsupported_statement(stmt), stmt)

    def emit_assign(self, stmt: ast.Assign) -> None:
        # `a = b = v`: v once, then each target from left to right.
        value = self.emit_sugared(stmt.value)
        for target in stmt.targets:
            self.assign_target(target, value, stmt.value)

    def assign_target(self, target: ast.expr, value: _Sugared, rhs: ast.AST) -> None:
        if isinstance(target, ast.Name):
            if isinstance(value, _Simple | _Multi | _NoneValue | _PyConstant | _EnumConstant):
                self.set_var(target.id, value.as_value(self, rhs), target)
            else:
                if self.env.find_type(target.id) is not None:
                    raise self.error(f"cannot assign {value.describe()} to the variable '{target.id}'", target)
                self.env.sugared[target.id] = value
        elif isinstance(target, ast.Tuple | ast.List):
            if any(isinstance(e, ast.Starred) for e in target.elts):
                raise self.error("starred assignment targets are not supported by this frontend", target)
            items = value.as_tuple(self, len(target.elts), rhs)
            for t, v in zip(target.elts, items, strict=True):
                self.assign_target(t, v, rhs)
        elif isinstance(target, ast.Subscript):
            self.emit_subscript_assign(target, value.as_value(self, rhs), rhs)
        elif isinstance(target, ast.Attribute):
            raise self.error("assigning to attributes needs a module or class, which this frontend does not support",
                             target)
        else:
            raise self.error("unexpected expression on the left-hand side of an assignment", target)

    def emit_aug_assign(self, stmt: ast.AugAssign) -> None:
        target = stmt.target
        if isinstance(target, ast.Name):
            lhs = self.get_var(target.id, target).as_value(self, target)
            rhs = self.emit_expr(stmt.value)
            if isinstance(lhs.type, TSTensorType | TSListType) and type(stmt.op) in _INPLACE:
                result = self.call_builtin(f"aten::{_INPLACE[type(stmt.op)]}", [lhs, rhs], [], stmt)[0]
            else:
                result = self.binop(stmt.op, lhs, rhs, stmt)
            self.set_var(target.id, result, target)
        elif isinstance(target, ast.Subscript):
            base = self.emit_expr(target.value)
            if isinstance(base.type, TSTensorType):
                sliced, indices = self.tensor_indexing(base, target.slice, target)
                if indices:
                    raise self.error("augmented assignment with tensor indices is not supported by this frontend",
                                     target)
                rhs = self.emit_expr(stmt.value)
                if type(stmt.op) not in _INPLACE:
                    raise self.error("this augmented assignment is not supported on tensors", stmt)
                self.call_builtin(f"aten::{_INPLACE[type(stmt.op)]}", [sliced, rhs], [], stmt)
                return
            if isinstance(target.slice, ast.Slice):
                raise self.error("sliced augmented assignment is not supported", target)
            index = self.emit_expr(target.slice)
            rhs = self.emit_expr(stmt.value)
            item = self.call_builtin("aten::__getitem__", [base, index], [], stmt)[0]
            new = self.binop(stmt.op, item, rhs, stmt)
            self.call_builtin("aten::_set_item", [base, index, new], [], stmt)
        else:
            raise self.error("unexpected expression on the left-hand side of an augmented assignment", target)

    def emit_return(self, stmt: ast.Return) -> None:
        if stmt.value is None:
            value = self.const(None, stmt)
        else:
            value = self.emit_expr(stmt.value, self.declared_return)
        self.emit_return_value(value, stmt)

    def emit_return_value(self, value: SSAValue, node: ast.AST) -> None:
        declared = self.declared_return
        if declared is not None:
            if not (is_subtype(declared, TSTensorType()) and isinstance(value.type, TSNoneType)):
                value = self.convert(value, declared, node)
            if not is_subtype(value.type, declared):
                raise self.error(
                    f"return value was annotated as having type '{ts_annotation_str(declared)}' but is actually of "
                    f"type '{ts_annotation_str(value.type)}'",
                    node,
                )
            merged = declared
        else:
            previous = self.merged_return or value.type
            joined = join_types(previous, value.type)
            if joined is None:
                raise self.error(
                    f"previous return statement returned a value of type '{ts_annotation_str(previous)}' but this "
                    f"return statement returns a value of type '{ts_annotation_str(value.type)}'",
                    node,
                )
            merged = joined
        self.merged_return = merged
        self.emit(ReturnStmtOp.make([value]), node)
        self.exit_blocks.add(self.block)

    def emit_raise(self, stmt: ast.Raise) -> None:
        assert_message = getattr(stmt, "exir_assert_message", None)
        if assert_message is not None:
            # TorchScript's assert: the whole text as the message, no class.
            message = self.const(assert_message, stmt)
            self.emit(RaiseExceptionOp.make([message, self.const(None, stmt)], []), stmt)
            self.exit_blocks.add(self.block)
            return
        if stmt.exc is None:
            raise self.error("a bare 'raise' (re-raise) is not supported in TorchScript", stmt)
        if stmt.cause is not None:
            raise self.error("'raise ... from ...' is not supported in TorchScript", stmt)
        exc = self.emit_sugared(stmt.exc)
        if isinstance(exc, _ExceptionClass):
            exc = _ExceptionInstance(None, exc.name)
        if not isinstance(exc, _ExceptionInstance):
            raise self.error("exceptions must derive from BaseException", stmt.exc)
        message = exc.message if exc.message is not None else self.const("", stmt)
        if not isinstance(message.type, TSStrType):
            message = self.call_builtin("aten::str", [message], [], stmt)[0]
        cls = self.const(f"builtins.{exc.name}", stmt.exc)
        self.emit(RaiseExceptionOp.make([message, cls], []), stmt)
        self.exit_blocks.add(self.block)

    def emit_assert(self, stmt: ast.Assert) -> None:
        cond = self.emit_cond(stmt.test)
        text = "AssertionError: "
        if stmt.msg is not None:
            literal = _literal(stmt.msg)
            if not isinstance(literal, str):
                raise self.error("the message of an assert must be a string literal in this frontend", stmt.msg)
            text += literal
        failing = ast.copy_location(ast.Raise(exc=ast.Name(id="AssertionError", ctx=ast.Load()), cause=None), stmt)
        failing.exir_assert_message = text  # type: ignore[attr-defined]
        self.emit_if_else(stmt, cond, [], [failing])

    # -- control flow ------------------------------------------------------------

    def insert_refinements(self, refinements: dict[str, Attribute], node: ast.AST) -> None:
        for name, t in refinements.items():
            value = self.get_var(name, node).as_value(self, node)
            cast = self.node("prim::unchecked_cast", [value], [t], node)
            self.set_var(name, cast.results[0], node)

    def emit_branch(self, block: Block, stmts: Sequence[ast.stmt], refinements: dict[str, Attribute],
                    node: ast.AST) -> _Frame:
        with self.scope(block) as frame:
            self.insert_refinements(refinements, node)
            self.emit_statements(stmts)
        return frame

    def emit_if_else(self, node: ast.stmt, cond: _Cond, body: Sequence[ast.stmt], orelse: Sequence[ast.stmt]) -> None:
        if cond.static is not None:
            # Meta-programming: only the branch taken is compiled.
            self.insert_refinements(cond.refinements.true if cond.static else cond.refinements.false, node)
            self.emit_statements(body if cond.static else orelse)
            return
        then_block, else_block = Block(), Block()
        saved_true = self.emit_branch(then_block, body, cond.refinements.true, node)
        saved_false = self.emit_branch(else_block, orelse, cond.refinements.false, node)
        true_exits = then_block in self.exit_blocks
        false_exits = else_block in self.exit_blocks
        if true_exits and false_exits:
            self.exit_blocks.add(self.block)
        frame = self.env
        mutated: set[str] = set()
        for v in saved_true.types:
            if saved_false.find_type(v) is not None or false_exits:
                mutated.add(v)
            else:
                frame.errors[v] = self.error(f"{v} is not defined in the false branch", node)
        for v in saved_false.types:
            if saved_true.find_type(v) is not None or true_exits:
                mutated.add(v)
            else:
                frame.errors[v] = self.error(f"{v} is not defined in the true branch", node)
        for name in sorted(mutated):
            if true_exits and false_exits:
                continue
            true_type = saved_true.find_type(name)
            false_type = saved_false.find_type(name)
            if true_exits:
                assert false_type is not None
                true_type = self._uninitialized_store(then_block, name, false_type, node)
            elif false_exits:
                assert true_type is not None
                false_type = self._uninitialized_store(else_block, name, true_type, node)
            assert true_type is not None and false_type is not None
            unified = join_types(true_type, false_type)
            if unified is None:
                err = self.error(
                    f"type mismatch: {name} is set to type '{ts_annotation_str(true_type)}' in the true branch and "
                    f"type '{ts_annotation_str(false_type)}' in the false branch",
                    node,
                )
                if saved_true.find_in_parent(name) is not None or saved_false.find_in_parent(name) is not None:
                    raise err
                frame.errors[name] = err
                frame.types.pop(name, None)
                continue
            frame.types[name] = unified
            frame.errors.pop(name, None)
        for b in (then_block, else_block):
            b.add_op(ReturnOp.make([]))
        # A refinement a branch made is one of its assignments: when the other
        # branch exits, the refined variable leaves the `if` with that type.
        self.emit(IfOp.make([cond.value], [], {}, [Region(then_block), Region(else_block)]), node)

    def _uninitialized_store(self, block: Block, name: str, t: Attribute, node: ast.AST) -> Attribute:
        with self.inserting(block):
            value = self.emit(UninitializedOp.make([], [t]), node).results[0]
            self.emit(StoreOp.make([value], [], {"name": StringAttr(name)}), node)
        return t

    def emit_for(self, stmt: ast.For) -> None:
        if stmt.orelse:
            raise self.error("'else' on a for loop is not supported in TorchScript", stmt)
        iterable = self.iterable(stmt.iter)
        if isinstance(iterable, _UnrolledIter):
            self.loops.append("unrolled")
            try:
                for item in iterable.items:
                    self.assign_target(stmt.target, item, stmt)
                    self.emit_statements(stmt.body)
                    if self.block in self.exit_blocks:
                        break
            finally:
                self.loops.pop()
            return
        trip = iterable.length(self, stmt.iter if isinstance(iterable, _RangeIter) and iterable.start is None
                               else stmt)
        self.emit_loop(stmt, trip, None, iterable, stmt.target, stmt.body)

    def iterable(self, node: ast.expr) -> _Iterable:
        """What `for ... in node` iterates over."""
        if isinstance(node, ast.Call):
            callee = self.emit_sugared(node.func)
            if isinstance(callee, _SpecialForm) and callee.name in ("range", "enumerate", "zip"):
                if node.keywords and callee.name != "enumerate":
                    raise self.error(f"{callee.name}() takes no keyword arguments", node)
                if callee.name == "range":
                    args = [self.emit_expr(a) for a in node.args]
                    if not 1 <= len(args) <= 3 or not all(isinstance(a.type, TSIntType) for a in args):
                        raise self.error("range() takes one to three int arguments", node)
                    if len(args) == 1:
                        return _RangeIter(None, args[0], None)
                    return _RangeIter(args[0], args[1], args[2] if len(args) == 3 else None)
                if callee.name == "enumerate":
                    if len(node.args) != 1:
                        raise self.error("enumerate() takes one iterable", node)
                    inner = self.iterable(node.args[0])
                    start: SSAValue | None = None
                    for kw in node.keywords:
                        if kw.arg != "start":
                            raise self.error(f"enumerate() got an unexpected keyword argument '{kw.arg}'", node)
                        start = self.emit_expr(kw.value)
                    if isinstance(inner, _UnrolledIter):
                        raise self.error("enumerate() over a tuple is not supported", node)
                    return _EnumerateIter(inner, start)
                inners = [self.iterable(a) for a in node.args]
                if not inners or any(isinstance(i, _UnrolledIter) for i in inners):
                    raise self.error("zip() takes lists, strings or tensors", node)
                return _ZipIter(inners)
        return self.emit_sugared(node).iterate(self, node)

    def emit_loop(
        self,
        node: ast.stmt | ast.expr,
        trip: SSAValue | None,
        cond: ast.expr | None,
        iterable: _Iterable | None,
        target: ast.expr | None,
        body: Sequence[ast.stmt],
    ) -> None:
        if trip is None:
            trip = self.const(INT64_MAX, node)
        body_block = Block(arg_types=[TSIntType()])
        cond_block = Block()
        if cond is not None:
            with self.scope(cond_block):
                out = self.to_bool(self.emit_expr(cond), cond)
        else:
            out = self.const(True, node)
        cond_block.add_op(ReturnOp.make([out]))
        self.loops.append("loop")
        try:
            with self.scope(body_block):
                if iterable is not None and target is not None:
                    item = iterable.item(self, body_block.args[0], node)
                    self.assign_target(target, item, node)
                self.emit_statements(body)
        finally:
            self.loops.pop()
        body_block.add_op(ReturnOp.make([]))
        self.emit(LoopOp.make([trip], [], {}, [Region(body_block), Region(cond_block)]), node)

    # -- conditions --------------------------------------------------------------

    def emit_cond(self, expr: ast.expr) -> _Cond:
        if isinstance(expr, ast.BoolOp):
            is_or = isinstance(expr.op, ast.Or)
            cond = self.emit_cond(expr.values[0])
            for rhs in expr.values[1:]:
                cond = self.short_circuit(cond, rhs, is_or, expr)
            return cond
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            inner = self.emit_cond(expr.operand)
            value = self.call_builtin("aten::__not__", [inner.value], [], expr)[0]
            static = None if inner.static is None else not inner.static
            return _Cond(value, inner.refinements.negate(), static)
        if isinstance(expr, ast.Compare) and len(expr.ops) == 1 and isinstance(expr.ops[0], ast.Is | ast.IsNot):
            return self.emit_is(expr)
        if isinstance(expr, ast.Compare) and len(expr.ops) > 1:
            # `a < b < c` is `a < b and b < c`, `b` evaluated once, `c` only when needed.
            return _Cond(self._chain(expr, 0, self.emit_expr(expr.left)))
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name | ast.Attribute):
            callee = self.emit_sugared(expr.func)
            if isinstance(callee, _SpecialForm) and callee.name == "isinstance":
                return self.emit_isinstance(expr)
        value = self.to_bool(self.emit_expr(expr), expr)
        return _Cond(value, _Refinements(), bool_constant(value))

    def _chain(self, expr: ast.Compare, i: int, left: SSAValue) -> SSAValue:
        right = self.emit_expr(expr.comparators[i])
        part = self.to_bool(self.compare(expr.ops[i], left, right, expr), expr)
        if i == len(expr.ops) - 1:
            return part
        return self.if_expr(
            _Cond(part), lambda: self._chain(expr, i + 1, right), lambda: self.const(False, expr), expr
        )

    def short_circuit(self, lhs: _Cond, rhs_node: ast.expr, is_or: bool, node: ast.AST) -> _Cond:
        rhs_cond: list[_Cond] = []

        def emit_rhs() -> SSAValue:
            c = self.emit_cond(rhs_node)
            rhs_cond.append(c)
            return c.value

        def emit_const() -> SSAValue:
            return self.const(is_or, node)

        if is_or:
            value = self.if_expr(lhs, emit_const, emit_rhs, node)
        else:
            value = self.if_expr(lhs, emit_rhs, emit_const, node)
        rhs = rhs_cond[0]
        if is_or:
            refinements = lhs.refinements.either(rhs.refinements)
            static: bool | None = None
            if lhs.static is True or rhs.static is True:
                static = True
            elif lhs.static is not None and rhs.static is not None:
                static = lhs.static or rhs.static
        else:
            refinements = lhs.refinements.both(rhs.refinements)
            static = None
            if lhs.static is False or rhs.static is False:
                static = False
            elif lhs.static is not None and rhs.static is not None:
                static = lhs.static and rhs.static
        return _Cond(value, refinements, static)

    def if_expr(
        self, cond: _Cond, true_fn: Callable[[], SSAValue], false_fn: Callable[[], SSAValue], node: ast.AST
    ) -> SSAValue:
        """`prim.If` yielding one value computed by each branch."""
        blocks: list[Block] = []
        outs: list[SSAValue] = []
        for refinements, fn in ((cond.refinements.true, true_fn), (cond.refinements.false, false_fn)):
            block = Block()
            with self.scope(block):
                self.insert_refinements(refinements, node)
                outs.append(fn())
            block.add_op(ReturnOp.make([outs[-1]]))
            blocks.append(block)
        unified = join_types(outs[0].type, outs[1].type)
        if unified is None:
            raise self.error(
                f"if-expression's true branch has type '{ts_annotation_str(outs[0].type)}' but its false branch "
                f"has type '{ts_annotation_str(outs[1].type)}'",
                node,
            )
        op = self.emit(IfOp.make([cond.value], [unified], {}, [Region(b) for b in blocks]), node)
        return op.results[0]

    def emit_is(self, expr: ast.Compare) -> _Cond:
        lhs = self.emit_expr(expr.left)
        rhs = self.emit_expr(expr.comparators[0])
        is_is = isinstance(expr.ops[0], ast.Is)
        ln, rn = _none_status(lhs.type), _none_status(rhs.type)
        if ln == rn == "always":
            return _Cond(self.const(is_is, expr), _Refinements(), is_is)
        if {ln, rn} == {"always", "never"}:
            return _Cond(self.const(not is_is, expr), _Refinements(), not is_is)
        value = self.call_builtin("aten::__is__" if is_is else "aten::__isnot__", [lhs, rhs], [], expr)[0]
        refinements = _Refinements()
        var, other, var_t = expr.left, expr.comparators[0], lhs.type
        if isinstance(var, ast.Constant) and var.value is None:
            var, other, var_t = other, var, rhs.type
        if (
            isinstance(var, ast.Name)
            and isinstance(other, ast.Constant)
            and other.value is None
            and isinstance(var_t, TSOptionalType)
        ):
            present = {var.id: var_t.element}
            refinements = _Refinements({}, present) if is_is else _Refinements(present, {})
        return _Cond(value, refinements, None)

    def emit_isinstance(self, expr: ast.Call) -> _Cond:
        if len(expr.args) != 2 or expr.keywords:
            raise self.error("isinstance() takes two arguments", expr)
        value = self.emit_expr(expr.args[0])
        targets = expr.args[1].elts if isinstance(expr.args[1], ast.Tuple) else [expr.args[1]]
        types_ = [self.parse_type(t) for t in targets]
        refinements = _Refinements()
        if len(types_) == 1 and isinstance(expr.args[0], ast.Name) and is_subtype(types_[0], value.type):
            refinements = _Refinements({expr.args[0].id: types_[0]}, {})
        if any(is_subtype(value.type, t) for t in types_):
            return _Cond(self.const(True, expr), refinements, True)
        if not any(is_subtype(t, value.type) for t in types_):
            return _Cond(self.const(False, expr), refinements, False)
        raise self.error(
            f"isinstance() on a value of type '{ts_annotation_str(value.type)}' is only decided at run time, "
            "which this frontend does not support",
            expr,
        )

    def to_bool(self, value: SSAValue, node: ast.AST) -> SSAValue:
        t = value.type
        if isinstance(t, TSBoolType):
            return value
        if isinstance(t, TSTensorType | TSIntType | TSFloatType):
            return self.call_builtin("aten::Bool", [value], [], node)[0]
        raise self.error(f"could not cast a value of type '{ts_annotation_str(t)}' to bool", node)

    # -- expressions -------------------------------------------------------------

    def emit_expr(self, node: ast.expr, hint: Attribute | None = None) -> SSAValue:
        return self.emit_sugared(node, hint).as_value(self, node)

    def emit_sugared(self, node: ast.expr, hint: Attribute | None = None) -> _Sugared:
        if isinstance(node, ast.Constant):
            value = node.value
            if value is None:
                return _Simple(self.const(None, node, hint if isinstance(hint, TSOptionalType) else None))
            if isinstance(value, bool | int | float | str):
                return _Simple(self.const(value, node))
            raise self.error(f"constants of type {type(value).__name__} are not supported in TorchScript", node)
        if isinstance(node, ast.Name):
            return self.get_var(node.id, node)
        if isinstance(node, ast.Attribute):
            return self.emit_sugared(node.value).attr(self, node.attr, node)
        if isinstance(node, ast.Call):
            return self.emit_call(node, hint)
        if isinstance(node, ast.BinOp):
            return _Simple(self.binop(node.op, self.emit_expr(node.left), self.emit_expr(node.right), node))
        if isinstance(node, ast.UnaryOp):
            return _Simple(self.unary(node))
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and not isinstance(node.ops[0], ast.Is | ast.IsNot):
            left = self.emit_expr(node.left)
            right = self.emit_expr(node.comparators[0])
            return _Simple(self.compare(node.ops[0], left, right, node))
        if isinstance(node, ast.BoolOp | ast.Compare):
            return _Simple(self.emit_cond(node).value)
        if isinstance(node, ast.IfExp):
            cond = self.emit_cond(node.test)
            if cond.static is not None:
                return self.emit_sugared(node.body if cond.static else node.orelse, hint)
            value = self.if_expr(
                cond, lambda: self.emit_expr(node.body, hint), lambda: self.emit_expr(node.orelse, hint), node
            )
            return _Simple(value)
        if isinstance(node, ast.List):
            return _Simple(self.emit_list(node, hint))
        if isinstance(node, ast.Tuple):
            hints: Sequence[Attribute | None] = (
                hint.element_types if isinstance(hint, TSTupleType) and len(hint.element_types) == len(node.elts)
                else [None] * len(node.elts)
            )
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    raise self.error("starred expressions are not supported by this frontend", e)
            return _Multi([_Simple(self.emit_expr(e, h)) for e, h in zip(node.elts, hints, strict=True)])
        if isinstance(node, ast.Dict):
            return _Simple(self.emit_dict(node, hint))
        if isinstance(node, ast.Subscript):
            return self.emit_subscript(node)
        if isinstance(node, ast.JoinedStr):
            return _Simple(self.emit_fstring(node))
        if isinstance(node, ast.ListComp):
            return _Simple(self.emit_listcomp(node, hint))
        raise self.error(_unsupported_expression(node), node)

    def unary(self, node: ast.UnaryOp) -> SSAValue:
        if isinstance(node.op, ast.Not):
            return self.emit_cond(node).value
        literal = _literal(node)
        if literal is not _NOT_LITERAL:
            return self.const(literal, node)
        value = self.emit_expr(node.operand)
        if isinstance(node.op, ast.USub):
            return self.call_builtin("aten::neg", [value], [], node)[0]
        if isinstance(node.op, ast.UAdd):
            return value
        if isinstance(value.type, TSTensorType):
            return self.call_builtin("aten::bitwise_not", [value], [], node)[0]
        raise self.error(f"'~' is not supported on a value of type '{ts_annotation_str(value.type)}'", node)

    def binop(self, op: ast.operator, lhs: SSAValue, rhs: SSAValue, node: ast.AST) -> SSAValue:
        name = _BINOPS.get(type(op))
        if name is None:
            raise self.error(f"the operator {type(op).__name__} is not supported", node)
        lt, rt = lhs.type, rhs.type
        if isinstance(lt, TSTensorType) or isinstance(rt, TSTensorType):
            if name == "floordiv":
                name = "floor_divide"
            if isinstance(lt, _SCALARS) and isinstance(rt, TSTensorType):
                # The reflected operators, as TorchScript's builtins write them.
                if name in ("add", "mul"):
                    return self.call_builtin(f"aten::{name}", [rhs, lhs], [], node)[0]
                if name == "sub":
                    neg = self.call_builtin("aten::neg", [rhs], [], node)[0]
                    return self.call_builtin("aten::add", [neg, lhs], [], node)[0]
                if name == "div":
                    rec = self.call_builtin("aten::reciprocal", [rhs], [], node)[0]
                    return self.call_builtin("aten::mul", [rec, lhs], [], node)[0]
        return self.call_builtin(f"aten::{name}", [lhs, rhs], [], node)[0]

    def compare(self, op: ast.cmpop, lhs: SSAValue, rhs: SSAValue, node: ast.AST) -> SSAValue:
        if isinstance(op, ast.In):
            return self.call_builtin("aten::__contains__", [rhs, lhs], [], node)[0]
        if isinstance(op, ast.NotIn):
            contained = self.call_builtin("aten::__contains__", [rhs, lhs], [], node)[0]
            return self.call_builtin("aten::__not__", [contained], [], node)[0]
        if isinstance(op, ast.Is | ast.IsNot):
            kind = "aten::__is__" if isinstance(op, ast.Is) else "aten::__isnot__"
            return self.call_builtin(kind, [lhs, rhs], [], node)[0]
        name = _CMPOPS[type(op)]
        if isinstance(lhs.type, _SCALARS) and isinstance(rhs.type, TSTensorType):
            return self.call_builtin(f"aten::{_MIRRORED[name]}", [rhs, lhs], [], node)[0]
        return self.call_builtin(f"aten::{name}", [lhs, rhs], [], node)[0]

    def emit_list(self, node: ast.List, hint: Attribute | None) -> SSAValue:
        elem_hint = hint.element if isinstance(hint, TSListType) else None
        values: list[SSAValue] = []
        for e in node.elts:
            if isinstance(e, ast.Starred):
                raise self.error("starred expressions are not supported by this frontend", e)
            v = self.emit_expr(e, elem_hint)
            values.append(self.convert(v, elem_hint, e) if elem_hint is not None else v)
        if elem_hint is not None:
            elem = elem_hint
            for v, e in zip(values, node.elts, strict=True):
                if not is_subtype(v.type, elem):
                    raise self.error(
                        f"a list of '{ts_annotation_str(elem)}' cannot hold a '{ts_annotation_str(v.type)}'", e
                    )
        elif not values:
            elem = TSTensorType()
        else:
            elem = unrefined(values[0].type)
            for v, e in zip(values[1:], node.elts[1:], strict=True):
                joined = join_types(elem, unrefined(v.type))
                widened = isinstance(joined, TSOptionalType | TSUnionType) and not isinstance(elem, TSOptionalType)
                if joined is None or widened:
                    raise self.error(
                        f"lists must contain only a single type, found '{ts_annotation_str(elem)}' and "
                        f"'{ts_annotation_str(v.type)}'",
                        e,
                    )
                elem = joined
        return self.emit(ListConstructOp.make(values, [TSListType(elem)]), node).results[0]

    def emit_dict(self, node: ast.Dict, hint: Attribute | None) -> SSAValue:
        key_hint = hint.key if isinstance(hint, TSDictType) else None
        value_hint = hint.value if isinstance(hint, TSDictType) else None
        operands: list[SSAValue] = []
        key_t: Attribute | None = key_hint
        value_t: Attribute | None = value_hint
        for k, v in zip(node.keys, node.values, strict=True):
            if k is None:
                raise self.error("'**' in a dict literal is not supported by this frontend", v)
            kv = self.emit_expr(k, key_hint)
            vv = self.emit_expr(v, value_hint)
            if value_hint is not None:
                vv = self.convert(vv, value_hint, v)
            for value, current, what, n in ((kv, key_t, "keys", k), (vv, value_t, "values", v)):
                joined = value.type if current is None else join_types(current, value.type)
                if joined is None:
                    raise self.error(
                        f"dict {what} must have a single type, found '{ts_annotation_str(current)}' and "
                        f"'{ts_annotation_str(value.type)}'",
                        n,
                    )
                if what == "keys":
                    key_t = joined
                else:
                    value_t = joined
            operands += [kv, vv]
        t = TSDictType(key_t or TSStrType(), value_t or TSTensorType())
        return self.emit(DictConstructOp.make(operands, [t]), node).results[0]

    def emit_fstring(self, node: ast.JoinedStr) -> SSAValue:
        text = ""
        args: list[SSAValue] = []
        for part in node.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                text += part.value
            elif isinstance(part, ast.FormattedValue) and part.conversion == -1 and part.format_spec is None:
                text += "{}"
                args.append(self.emit_expr(part.value))
            else:
                raise self.error("f-string conversions and format specs are not supported in TorchScript", part)
        return self.call_builtin("aten::format", [self.const(text, node), *args], [], node)[0]

    def emit_listcomp(self, node: ast.ListComp, hint: Attribute | None) -> SSAValue:
        if len(node.generators) != 1 or node.generators[0].is_async:
            raise self.error("only list comprehensions with one 'for' are supported", node)
        gen = node.generators[0]
        self.hidden_count += 1
        tag = f"$lc{self.hidden_count}"
        # The comprehension's variables do not leak: they get hidden names.
        renames = {n.id: f"{n.id}{tag}" for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
        target = _renamed(gen.target, renames)
        elt = _renamed(node.elt, renames)
        ifs = [_renamed(c, renames) for c in gen.ifs]

        def loop_of(inner: ast.stmt) -> ast.For:
            body: list[ast.stmt] = [inner]
            for cond in reversed(ifs):
                body = [ast.copy_location(ast.If(test=cond, body=body, orelse=[]), cond)]
            loop = ast.For(target=target, iter=gen.iter, body=body, orelse=[], type_comment=None)
            ast.copy_location(loop, node)
            return ast.fix_missing_locations(loop)

        if isinstance(hint, TSListType):
            elem = hint.element
        else:
            # Emit once into a scratch block to learn the element type.
            probe = f"$elem{tag}"
            assign = ast.copy_location(ast.Assign(targets=[ast.Name(id=probe, ctx=ast.Store())], value=elt), elt)
            scratch = Block()
            with self.scope(scratch):
                self.emit_for(loop_of(ast.fix_missing_locations(assign)))
            scratch.drop_all_references()
            elem = self.probes.get(probe, TSTensorType())
        name = f"$list{tag}"
        lst = self.emit(ListConstructOp.make([], [TSListType(elem)]), node).results[0]
        self.set_var(name, lst, node)
        append = ast.Expr(
            value=ast.Call(
                func=ast.Attribute(value=ast.Name(id=name, ctx=ast.Load()), attr="append", ctx=ast.Load()),
                args=[elt],
                keywords=[],
            )
        )
        for n in ast.walk(append):
            if n is not elt and not _contains(elt, n):
                ast.copy_location(n, node)
        self.emit_for(loop_of(append))
        return self.get_var(name, node).as_value(self, node)

    def emit_subscript(self, node: ast.Subscript) -> _Sugared:
        base = self.emit_sugared(node.value)
        if isinstance(base, _TypeName):
            raise self.error("type annotations cannot be used as values", node)
        value = base.as_value(self, node.value)
        t = value.type
        index = node.slice
        if isinstance(t, TSTupleType):
            if isinstance(index, ast.Slice):
                raise self.error("tuple slicing is not supported by this frontend", index)
            i = _literal(index)
            if not isinstance(i, int) or isinstance(i, bool):
                raise self.error("tuple indices must be integer constants", index)
            n = len(t.element_types)
            j = i + n if i < 0 else i
            if not 0 <= j < n:
                raise self.error(f"tuple index {i} out of range for a tuple of {n} elements", index)
            op = self.emit(TupleIndexOp.make([value, self.const(j, index)], [t.element_types[j]]), node)
            return _Simple(op.results[0])
        if isinstance(t, TSListType | TSStrType):
            if isinstance(index, ast.Slice):
                start, end, step = self._slice_parts(index, node)
                return _Simple(self.call_builtin("aten::slice", [value, start, end, step], [], node)[0])
            return _Simple(self.call_builtin("aten::__getitem__", [value, self.emit_expr(index)], [], node)[0])
        if isinstance(t, TSDictType):
            return _Simple(self.call_builtin("aten::__getitem__", [value, self.emit_expr(index)], [], node)[0])
        if isinstance(t, TSTensorType):
            sliced, indices = self.tensor_indexing(value, index, node)
            if indices is not None:
                return _Simple(self.call_builtin("aten::index", [sliced, indices], [], node)[0])
            return _Simple(sliced)
        raise self.error(f"'{ts_annotation_str(t)}' object is not subscriptable", node)

    def _slice_parts(self, index: ast.Slice, node: ast.AST) -> tuple[SSAValue, SSAValue, SSAValue]:
        start = self.emit_expr(index.lower) if index.lower is not None else self.const(None, node)
        end = self.emit_expr(index.upper) if index.upper is not None else self.const(None, node)
        step = self.emit_expr(index.step) if index.step is not None else self.const(1, node)
        return start, end, step

    def tensor_indexing(self, value: SSAValue, index: ast.expr, node: ast.AST) -> tuple[SSAValue, SSAValue | None]:
        """Int, slice, None and `...` indices as select/slice/unsqueeze; tensor indices for `aten::index`."""
        items = index.elts if isinstance(index, ast.Tuple) else [index]
        x = value
        dim = 0
        tensor_indices: dict[int, SSAValue] = {}
        seen_ellipsis = False
        for k, item in enumerate(items):
            if isinstance(item, ast.Constant) and item.value is Ellipsis:
                if seen_ellipsis:
                    raise self.error("an index can only have a single ellipsis ('...')", item)
                seen_ellipsis = True
                dim = -sum(1 for it in items[k + 1 :] if not (isinstance(it, ast.Constant) and it.value is None))
                continue
            if isinstance(item, ast.Constant) and item.value is None:
                if dim < 0:
                    raise self.error("'None' after '...' in an index is not supported by this frontend", item)
                x = self.call_builtin("aten::unsqueeze", [x, self.const(dim, item)], [], node)[0]
                dim += 1
                continue
            if isinstance(item, ast.Slice):
                start, end, step = self._slice_parts(item, item)
                x = self.call_builtin("aten::slice", [x, self.const(dim, item), start, end, step], [], node)[0]
                dim += 1
                continue
            v = self.emit_expr(item)
            if isinstance(v.type, TSIntType):
                x = self.call_builtin("aten::select", [x, self.const(dim, item), v], [], node)[0]
                if dim < 0:
                    dim += 1
            elif isinstance(v.type, TSTensorType):
                if dim < 0:
                    raise self.error("tensor indices after '...' are not supported by this frontend", item)
                tensor_indices[dim] = v
                dim += 1
            else:
                raise self.error(f"a tensor cannot be indexed by a value of type '{ts_annotation_str(v.type)}'", item)
        if not tensor_indices:
            return x, None
        entries = [
            tensor_indices[d] if d in tensor_indices else self.const(None, node)
            for d in range(max(tensor_indices) + 1)
        ]
        lst = self.emit(ListConstructOp.make(entries, [TSListType(TSOptionalType(TSTensorType()))]), node).results[0]
        return x, lst

    def emit_subscript_assign(self, target: ast.Subscript, value: SSAValue, rhs: ast.AST) -> None:
        base = self.emit_expr(target.value)
        t = base.type
        if isinstance(t, TSTensorType):
            sliced, indices = self.tensor_indexing(base, target.slice, target)
            if isinstance(value.type, _SCALARS):
                dtype = self.call_builtin("prim::dtype", [sliced], [], target)[0]
                device = self.call_builtin("prim::device", [sliced], [], target)[0]
                value = self.call_builtin("aten::tensor", [value], [("dtype", dtype), ("device", device)], target)[0]
            if indices is not None:
                self.call_builtin("aten::index_put_", [sliced, indices, value], [], target)
            else:
                self.call_builtin("aten::copy_", [sliced, value], [], target)
            return
        if isinstance(target.slice, ast.Slice):
            raise self.error("sliced assignment is only supported on tensors", target)
        if isinstance(t, TSTupleType):
            raise self.error("tuples do not support subscripted assignment", target)
        index = self.emit_expr(target.slice)
        self.call_builtin("aten::_set_item", [base, index, value], [], target)

    # -- calls ---------------------------------------------------------------------

    def emit_call(self, node: ast.Call, hint: Attribute | None) -> _Sugared:
        callee = self.emit_sugared(node.func)
        if isinstance(callee, _SpecialForm):
            return self.special_form(callee.name, node)
        if isinstance(callee, _TypeName):
            raise self.error(f"type '{callee.name}' cannot be called in TorchScript", node)
        for a in node.args:
            if isinstance(a, ast.Starred):
                raise self.error("starred arguments are not supported by this frontend", a)
        args = [self.emit_expr(a) for a in node.args]
        kwargs: list[tuple[str, SSAValue]] = []
        for kw in node.keywords:
            if kw.arg is None:
                raise self.error("'**' arguments are not supported by this frontend", kw.value)
            kwargs.append((kw.arg, self.emit_expr(kw.value)))
        return callee.call(self, node, args, kwargs)

    def special_form(self, name: str, node: ast.Call) -> _Sugared:
        if name == "annotate":
            if len(node.args) != 2 or node.keywords:
                raise self.error("torch.jit.annotate takes a type and a value", node)
            t = self.parse_type(node.args[0])
            value = self.convert(self.emit_expr(node.args[1], t), t, node)
            if not is_subtype(value.type, t):
                raise self.error(
                    f"expected an expression of type '{ts_annotation_str(t)}' but found "
                    f"'{ts_annotation_str(value.type)}'",
                    node,
                )
            return _Simple(value)
        if name in ("is_scripting", "is_tracing"):
            return _Simple(self.const(name == "is_scripting", node))
        if name == "isinstance":
            return _Simple(self.emit_isinstance(node).value)
        raise self.error(f"{name}() can only be used as the iterable of a for loop", node)

    def call_builtin(
        self, kind: str, args: Sequence[SSAValue], kwargs: Sequence[tuple[str, SSAValue]], node: ast.AST
    ) -> list[SSAValue]:
        """A `ts.node` of `kind`: overload resolved, defaults materialized, implicit conversions inserted."""
        names = [k for k, _ in kwargs]
        given = [*args, *(v for _, v in kwargs)]
        resolved: ResolvedNode | None = None
        failure = ""
        try:
            resolved = resolve_node(kind, [v.type for v in given], names, keyword_only=True)
        except OverloadError as e:
            failure = str(e)
        if resolved is None or self._enum_mismatch(resolved, given):
            packed = self._pack_varargs(kind, list(args), list(kwargs), node)
            if packed is not None:
                resolved, given = packed
        if resolved is None:
            raise self.error(failure, node)
        schema = resolved.schema
        inputs: list[SSAValue] = []
        if schema.is_vararg:
            inputs = list(given)
        else:
            for i, formal in enumerate(schema.arguments):
                b = resolved.bindings[i]
                if b is None:
                    inputs.append(self._default(formal, node))
                else:
                    conv = resolved.conversions[b] if b < len(resolved.conversions) else None
                    inputs.append(self._apply_conversion(given[b], conv, formal, node))
        op = self.node(kind, inputs, resolved.result_types, node)
        return list(op.results)

    def _enum_mismatch(self, resolved: ResolvedNode, given: Sequence[SSAValue]) -> bool:
        """Whether a plain int went to a dtype/layout/memory-format parameter (`x.view(6)` is not `view.dtype`)."""
        for i, formal in enumerate(resolved.schema.arguments):
            b = resolved.bindings[i] if i < len(resolved.bindings) else None
            if b is None:
                continue
            st = formal.type.unwrap_optional()
            if (
                st.kind is TypeKind.BASE
                and st.name in ("ScalarType", "Layout", "MemoryFormat")
                and isinstance(given[b].type, TSIntType)
                and given[b] not in self.enum_values
                and not isinstance(given[b].owner, LoadOp)
            ):
                return True
        return False

    def _pack_varargs(
        self, kind: str, args: list[SSAValue], kwargs: list[tuple[str, SSAValue]], node: ast.AST
    ) -> tuple[ResolvedNode, list[SSAValue]] | None:
        """Positional ints (or tensors) passed where the last positional parameter is a list: `x.view(2, 3)`."""
        names = [k for k, _ in kwargs]
        for schema in candidates(kind):
            formal = varargs_list_argument(schema)
            k = sum(1 for a in schema.arguments if not a.kwarg_only) - 1
            if formal is None or k >= len(args) or isinstance(args[k].type, TSListType | TSTupleType):
                continue
            elem = schema_type_to_ts(formal.type.unwrap_optional().elements[0])
            rest = args[k:]
            if not all(is_subtype(v.type, elem) for v in rest):
                continue
            types_ = [*(a.type for a in args[:k]), TSListType(elem), *(v.type for _, v in kwargs)]
            try:
                resolved = resolve_node(kind, types_, names, keyword_only=True)
            except OverloadError:
                continue
            lst = self.emit(ListConstructOp.make(rest, [TSListType(elem)]), node).results[0]
            return resolved, [*args[:k], lst, *(v for _, v in kwargs)]
        return None

    def _default(self, formal: Argument, node: ast.AST) -> SSAValue:
        value = formal.default_value
        st = formal.type.unwrap_optional()
        if value is None:
            return self.const(None, node)
        if st.kind is TypeKind.BASE and st.name == "Device":
            return self.const_device(str(value), node)
        if isinstance(value, list):
            elem = schema_type_to_ts(st.elements[0]) if st.kind is TypeKind.LIST else TSIntType()
            return self.const(value, node, TSListType(elem))
        v = self.const(value, node)
        if st.kind is TypeKind.BASE and st.name in ("ScalarType", "Layout", "MemoryFormat"):
            self.enum_values.add(v)
        return v

    def _apply_conversion(self, value: SSAValue, conv: str | None, formal: Argument, node: ast.AST) -> SSAValue:
        if conv is None:
            return value
        tensor = isinstance(value.type, TSTensorType)
        if conv == "int":
            kind = "aten::IntImplicit" if tensor else "aten::Int"
        elif conv == "float":
            kind = "aten::FloatImplicit" if tensor else "aten::Float"
        elif conv == "Scalar":
            kind = "aten::ScalarImplicit"
        elif conv == "Tensor":
            kind = "prim::NumToTensor"
        elif conv == "Device":
            kind = "aten::device"
        elif conv == "list":
            items = _Simple(value).as_values(self, node)
            elem = join_types(items[0].type, items[0].type) if items else TSIntType()
            for v in items[1:]:
                elem = join_types(elem, v.type) if elem is not None else None
            list_t = TSListType(elem or TSAnyType())
            return self.emit(ListConstructOp.make(items, [list_t]), node).results[0]
        elif conv == "repeat":
            n = formal.size or 1
            return self.emit(ListConstructOp.make([value] * n, [TSListType(value.type)]), node).results[0]
        else:
            return value
        return self.call_builtin(kind, [value], [], node)[0]

    def convert(self, value: SSAValue, target: Attribute, node: ast.AST) -> SSAValue:
        """TorchScript's implicit conversions of a value to a declared type (`tryConvertToType`)."""
        t = value.type
        if is_subtype(t, target):
            return value
        inner = target.element if isinstance(target, TSOptionalType) else target
        if isinstance(t, TSTupleType) and isinstance(inner, TSListType):
            items = _Simple(value).as_values(self, node)
            if all(is_subtype(v.type, inner.element) for v in items):
                return self.emit(ListConstructOp.make(items, [inner]), node).results[0]
            return value
        kind: str | None = None
        if isinstance(t, TSTensorType):
            kind = {
                TSFloatType: "aten::FloatImplicit", TSIntType: "aten::IntImplicit", TSNumberType: "aten::ScalarImplicit"
            }.get(type(inner))  # type: ignore[arg-type]
        elif isinstance(t, TSNumberType):
            kind = {TSFloatType: "aten::Float", TSIntType: "aten::Int"}.get(type(inner))  # type: ignore[arg-type]
        elif isinstance(t, TSBoolType):
            kind = {TSFloatType: "aten::Float", TSIntType: "aten::Int", TSNumberType: "aten::Int"}.get(
                type(inner)  # type: ignore[arg-type]
            )
        elif isinstance(t, TSStrType) and isinstance(inner, TSDeviceType):
            kind = "aten::device"
        if kind is None:
            return value
        return self.call_builtin(kind, [value], [], node)[0]


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _python_type(value: object) -> Attribute:
    if isinstance(value, bool):
        return TSBoolType()
    if isinstance(value, int):
        return TSIntType()
    if isinstance(value, float):
        return TSFloatType()
    if isinstance(value, str):
        return TSStrType()
    return TSAnyType()


def _none_status(t: Attribute) -> str:
    """Whether a value of type `t` is always, maybe or never None."""
    if isinstance(t, TSNoneType):
        return "always"
    if isinstance(t, TSOptionalType | TSAnyType):
        return "maybe"
    if isinstance(t, TSUnionType) and any(isinstance(e, TSNoneType) for e in t.element_types):
        return "maybe"
    return "never"


def _format_default(value: object) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def _schema_text(
    name: str, params: list[str], types_: list[Attribute], defaults: dict[str, object], ret: Attribute
) -> str:
    args = []
    for p, t in zip(params, types_, strict=True):
        text = f"{ts_type_str(t)} {p}"
        if p in defaults:
            text += "=" + _format_default(defaults[p])
        args.append(text)
    ret_text = ts_type_str(ret)
    if isinstance(ret, TSTupleType):
        ret_text = f"({ret_text})"
    return f"{name}({', '.join(args)}) -> {ret_text}"


def _renamed(node: ast.expr, renames: dict[str, str]) -> ast.expr:
    """A copy of `node` with the variables of `renames` renamed."""
    import copy

    class _Renamer(ast.NodeTransformer):
        def visit_Name(self, n: ast.Name) -> ast.Name:
            if n.id in renames:
                return ast.copy_location(ast.Name(id=renames[n.id], ctx=n.ctx), n)
            return n

    return _Renamer().visit(copy.deepcopy(node))


def _contains(tree: ast.AST, node: ast.AST) -> bool:
    return any(n is node for n in ast.walk(tree))


def _unsupported_statement(stmt: ast.stmt) -> str:
    names = {
        ast.With: "'with' statements are not supported by this frontend",
        ast.AsyncWith: "'async with' is not supported in TorchScript",
        ast.Try: "'try' statements are not supported in TorchScript",
        ast.ClassDef: "class definitions are not supported by this frontend",
        ast.FunctionDef: "nested function definitions are not supported by this frontend",
        ast.AsyncFunctionDef: "async functions are not supported in TorchScript",
        ast.Global: "'global' is not supported in TorchScript",
        ast.Nonlocal: "'nonlocal' is not supported in TorchScript",
        ast.Import: "'import' inside a function is not supported in TorchScript",
        ast.ImportFrom: "'import' inside a function is not supported in TorchScript",
        ast.Delete: "'del' is not supported by this frontend",
        ast.AsyncFor: "'async for' is not supported in TorchScript",
    }
    for cls, message in names.items():
        if isinstance(stmt, cls):
            return message
    if type(stmt).__name__ in ("Match", "TryStar"):
        return f"'{type(stmt).__name__.lower()}' statements are not supported in TorchScript"
    return f"{type(stmt).__name__} statements are not supported in TorchScript"


def _unsupported_expression(node: ast.expr) -> str:
    names = {
        ast.Yield: "'yield' is not supported in TorchScript",
        ast.YieldFrom: "'yield from' is not supported in TorchScript",
        ast.Await: "'await' is not supported in TorchScript",
        ast.Lambda: "lambda functions are not supported in TorchScript",
        ast.GeneratorExp: "generator expressions are not supported in TorchScript",
        ast.SetComp: "set comprehensions are not supported in TorchScript",
        ast.DictComp: "dict comprehensions are not supported by this frontend",
        ast.Set: "sets are not supported in TorchScript",
        ast.NamedExpr: "assignment expressions (':=') are not supported in TorchScript",
        ast.Starred: "starred expressions are not supported by this frontend",
        ast.Slice: "a slice can only be used inside brackets",
    }
    for cls, message in names.items():
        if isinstance(node, cls):
            return message
    return f"{type(node).__name__} expressions are not supported in TorchScript"


# ---------------------------------------------------------------------------
# Compile-time cleanups (what torch.jit.script runs after conversion to SSA)
# ---------------------------------------------------------------------------


def cleanup_graph(graph: Block) -> None:
    """
    TorchScript's cleanups after SSA conversion: while-style loops for loops
    with a trip count and a condition, forwarding of tuples that are built
    and taken apart, scalar operations on constants folded, constants pooled
    at the top of the graph (the `constant-pooling` pass), `if` and loop
    outputs that do not change forwarded, dead code removed (the `exir-dce`
    pass: unused nodes without effects, writes no one observes, unused `if`
    outputs and loop-carried values), `if` and loop outputs in the order of
    their first use.
    """
    method = graph.parent_op()
    assert method is not None, "cleanup_graph works on the body of a ts.method"
    _canonicalize_modified_loops(graph)
    _lower_simple_tuples(graph)
    _fold_constants(graph)
    pool_constants(method)
    _forward_unchanged_outputs(graph)
    eliminate_dead_code(method)
    _canonicalize_outputs(graph)


def _int_constant(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, ConstantOp) and isinstance(owner.value, IntegerAttr):
        if owner.value.type == IntegerType(64):
            return owner.value.value.data
    return None


def _canonicalize_modified_loops(block: Block) -> None:
    for op in list(block.ops):
        for region in op.regions:
            for b in region.blocks:
                _canonicalize_modified_loops(b)
        if isinstance(op, LoopOp) and op.cond_block is None:
            _canonicalize_modified_loop(op)


def _canonicalize_modified_loop(op: LoopOp) -> None:
    """A loop with a trip count and a condition becomes `while cond and i < n` (TorchScript's form)."""
    body = op.body.block
    term = terminator(body)
    trip = _int_constant(op.operands[0])
    start_cond = bool_constant(op.operands[1])
    next_cond = bool_constant(term.operands[0])
    if start_cond is True and next_cond is True:
        return  # a for loop
    if trip == INT64_MAX:
        return  # a while loop
    block = op.parent_block()
    assert block is not None

    def add(new: Operation) -> SSAValue:
        new.location = op.location
        block.insert_op_before(new, op)
        return new.results[0]

    def node_in_body(kind: str, inputs: list[SSAValue], t: Attribute) -> SSAValue:
        new = NodeOp(kind, inputs, [t])
        new.location = op.location
        body.insert_op_before(new, term)
        return new.results[0]

    zero = add(ConstantOp.make([], [TSIntType()], {"value": IntegerAttr(0, IntegerType(64))}))
    one = add(ConstantOp.make([], [TSIntType()], {"value": IntegerAttr(1, IntegerType(64))}))
    max_trip = op.operands[0]
    cond = add(NodeOp("aten::gt", [max_trip, zero], [TSBoolType()]))
    if start_cond is not True:
        cond = add(NodeOp("aten::__and__", [cond, op.operands[1]], [TSBoolType()]))
    int_max = add(ConstantOp.make([], [TSIntType()], {"value": IntegerAttr(INT64_MAX, IntegerType(64))}))
    counter = body.insert_arg(TSIntType(), len(body.args))
    body.args[0].replace_all_uses_with(counter)
    body.args[0].name_hint = None
    incremented = node_in_body("aten::add", [counter, one], TSIntType())
    below = node_in_body("aten::lt", [incremented, max_trip], TSBoolType())
    new_cond = node_in_body("aten::__and__", [below, term.operands[0]], TSBoolType())
    term.operands = (new_cond, *term.operands[1:], incremented)
    rebuild(op, [int_max, cond, *op.operands[2:], zero], [*op.result_types, TSIntType()])


def _lower_simple_tuples(block: Block) -> None:
    for op in list(block.ops):
        for region in op.regions:
            for b in region.blocks:
                _lower_simple_tuples(b)
        if isinstance(op, TupleUnpackOp) and isinstance(op.operands[0].owner, TupleConstructOp):
            parts = op.operands[0].owner.operands
            if len(parts) == len(op.results):
                for r, v in zip(op.results, parts, strict=True):
                    r.replace_all_uses_with(v)
                erase(op)
        elif isinstance(op, TupleIndexOp) and isinstance(op.operands[0].owner, TupleConstructOp):
            index = _int_constant(op.operands[1])
            parts = op.operands[0].owner.operands
            if index is not None and 0 <= index < len(parts):
                op.results[0].replace_all_uses_with(parts[index])
                erase(op)


def _constant_value(value: SSAValue) -> object:
    """The Python value of a scalar `prim.Constant` (int, float, bool, str, None), else `_NOT_LITERAL`."""
    owner = value.owner
    if not isinstance(owner, ConstantOp) or owner.fn_name is not None:
        return _NOT_LITERAL
    v = owner.value
    t = value.type
    if v is None:
        return None if isinstance(t, TSNoneType) else _NOT_LITERAL
    if isinstance(v, IntegerAttr):
        if v.type == IntegerType(1):
            return bool(v.value.data)
        return v.value.data
    if isinstance(v, FloatAttr):
        return v.value.data
    if isinstance(v, StringAttr) and isinstance(t, TSStrType):
        return v.data
    return _NOT_LITERAL


def _numbers(*values: object) -> bool:
    return all(isinstance(v, int | float) for v in values)


_FOLD_BINARY: dict[str, Callable[[Any, Any], object]] = {
    "add": lambda a, b: a + b if _numbers(a, b) or (isinstance(a, str) and isinstance(b, str)) else _NOT_LITERAL,
    "sub": lambda a, b: a - b if _numbers(a, b) else _NOT_LITERAL,
    "mul": lambda a, b: a * b if _numbers(a, b) else _NOT_LITERAL,
    "div": lambda a, b: a / b if _numbers(a, b) and b != 0 else _NOT_LITERAL,
    "floordiv": lambda a, b: a // b if _numbers(a, b) and b != 0 else _NOT_LITERAL,
    "remainder": lambda a, b: a % b if _numbers(a, b) and b != 0 else _NOT_LITERAL,
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b if _numbers(a, b) or (isinstance(a, str) and isinstance(b, str)) else _NOT_LITERAL,
    "gt": lambda a, b: a > b if _numbers(a, b) or (isinstance(a, str) and isinstance(b, str)) else _NOT_LITERAL,
    "le": lambda a, b: a <= b if _numbers(a, b) or (isinstance(a, str) and isinstance(b, str)) else _NOT_LITERAL,
    "ge": lambda a, b: a >= b if _numbers(a, b) or (isinstance(a, str) and isinstance(b, str)) else _NOT_LITERAL,
    "__and__": lambda a, b: a and b if isinstance(a, bool) and isinstance(b, bool) else _NOT_LITERAL,
    "__or__": lambda a, b: a or b if isinstance(a, bool) and isinstance(b, bool) else _NOT_LITERAL,
    "min": lambda a, b: min(a, b) if _numbers(a, b) else _NOT_LITERAL,
    "max": lambda a, b: max(a, b) if _numbers(a, b) else _NOT_LITERAL,
}
_FOLD_UNARY: dict[str, Callable[[Any], object]] = {
    "neg": lambda a: -a if _numbers(a) and not isinstance(a, bool) else _NOT_LITERAL,
    "__not__": lambda a: not a if isinstance(a, bool) else _NOT_LITERAL,
    "Float": lambda a: float(a) if _numbers(a) else _NOT_LITERAL,
    "Int": lambda a: int(a) if _numbers(a) and math.isfinite(a) else _NOT_LITERAL,
    "Bool": lambda a: bool(a) if _numbers(a) else _NOT_LITERAL,
    "abs": lambda a: abs(a) if _numbers(a) and not isinstance(a, bool) else _NOT_LITERAL,
    "len": lambda a: len(a) if isinstance(a, str) else _NOT_LITERAL,
}


def _fold(op: NodeOp) -> object:
    """The value of a scalar node whose inputs are all constants, else `_NOT_LITERAL`."""
    ns, _, name = op.kind.data.partition("::")
    if ns not in ("aten", "prim") or len(op.results) != 1:
        return _NOT_LITERAL
    args = [_constant_value(v) for v in op.operands]
    if any(a is _NOT_LITERAL for a in args):
        return _NOT_LITERAL
    if ns == "prim" and name not in ("min", "max", "abs"):
        return _NOT_LITERAL
    try:
        if len(args) == 2 and name in _FOLD_BINARY:
            result = _FOLD_BINARY[name](*args)
        elif len(args) == 1 and name in _FOLD_UNARY:
            result = _FOLD_UNARY[name](*args)
        else:
            return _NOT_LITERAL
    except (ArithmeticError, ValueError, TypeError):
        return _NOT_LITERAL
    t = op.results[0].type
    wanted = {TSIntType: int, TSFloatType: float, TSBoolType: bool, TSStrType: str}.get(type(t))  # type: ignore[arg-type]
    if wanted is None or result is _NOT_LITERAL or type(result) is not wanted:
        if wanted is float and isinstance(result, int) and not isinstance(result, bool):
            result = float(result)
        else:
            return _NOT_LITERAL
    if isinstance(result, float) and not math.isfinite(result):
        return _NOT_LITERAL
    if isinstance(result, int) and not isinstance(result, bool) and not -(2**63) <= result < 2**63:
        return _NOT_LITERAL
    return result


def _fold_constants(graph: Block) -> None:
    """Scalar nodes on constants become constants (TorchScript's ConstantPropagationImmutableTypes)."""
    for op in list(graph.walk()):
        if not isinstance(op, NodeOp) or op.parent is None:
            continue
        value = _fold(op)
        if value is _NOT_LITERAL:
            continue
        const = _constant_op(value, op.results[0].type)
        const.location = op.location
        block = op.parent_block()
        assert block is not None
        block.insert_op_before(const, op)
        op.results[0].replace_all_uses_with(const.results[0])
        if op.results[0].name_hint:
            const.results[0].name_hint = op.results[0].name_hint
        erase(op)


def _constant_op(value: object, t: Attribute) -> ConstantOp:
    if isinstance(value, bool):
        attr: Attribute = IntegerAttr(int(value), IntegerType(1))
    elif isinstance(value, int):
        attr = IntegerAttr(value, IntegerType(64))
    elif isinstance(value, float):
        attr = FloatAttr(value, Float64Type())
    else:
        assert isinstance(value, str)
        attr = StringAttr(value)
    return ConstantOp.make([], [t], {"value": attr})


def _forward_unchanged_outputs(graph: Block) -> None:
    """
    An `if` output both branches give as the same value is that value, and a
    loop-carried value the body passes through unchanged is its initial value
    (what torch's constant propagation does to control flow before the dead
    outputs go); innermost first, until nothing changes.
    """
    changed = True
    while changed:
        changed = False
        for op in reversed(list(graph.walk())):
            if isinstance(op, IfOp):
                then_outs = terminator(op.regions[0].block).operands
                else_outs = terminator(op.regions[1].block).operands
                for r, t, f in zip(op.results, then_outs, else_outs, strict=True):
                    if t is f and r.uses:
                        r.replace_all_uses_with(t)
                        changed = True
            elif isinstance(op, LoopOp) and op.cond_block is None:
                body = op.body.block
                outs = terminator(body).operands
                for i in range(len(op.results)):
                    arg = body.args[1 + i]
                    if outs[1 + i] is arg and (op.results[i].uses or arg.uses):
                        initial = op.operands[2 + i]
                        op.results[i].replace_all_uses_with(initial)
                        arg.replace_all_uses_with(initial)
                        changed = True


# -- outputs in the order of their first use (TorchScript's CanonicalizeOutputs)


def _depth(op: Operation) -> int:
    depth = 0
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, MethodOp):
        depth += 1
        parent = parent.parent_op()
    return depth


def _op_before(a: Operation, b: Operation) -> bool:
    """The order in which a dump shows the two ops (a container comes before what it contains)."""
    da, db = _depth(a), _depth(b)
    while da > db:
        parent = a.parent_op()
        assert parent is not None
        a, da = parent, da - 1
        if a is b:
            return False
    while db > da:
        parent = b.parent_op()
        assert parent is not None
        b, db = parent, db - 1
        if a is b:
            return True
    while a.parent_block() is not b.parent_block():
        pa, pb = a.parent_op(), b.parent_op()
        assert pa is not None and pb is not None
        if pa is pb:
            ra, rb = a.parent_region(), b.parent_region()
            return pa.regions.index(ra) < pa.regions.index(rb)  # type: ignore[arg-type]
        a, b = pa, pb
    return a.is_before_in_block(b)


def _first_use(value: SSAValue) -> tuple[Operation, int] | None:
    best: tuple[Operation, int] | None = None
    for use in value.uses:
        cand = (use.operation, use.index)
        if best is None or (
            cand[1] < best[1] if cand[0] is best[0] else _op_before(cand[0], best[0])
        ):
            best = cand
    return best


def _first_use_order(values: Sequence[SSAValue]) -> list[int]:
    import functools

    firsts = [_first_use(v) for v in values]

    def compare(i: int, j: int) -> int:
        a, b = firsts[i], firsts[j]
        if a is None and b is None:
            return i - j
        if a is None:
            return 1
        if b is None:
            return -1
        if a[0] is b[0]:
            return a[1] - b[1]
        return -1 if _op_before(a[0], b[0]) else 1

    return sorted(range(len(values)), key=functools.cmp_to_key(compare))


def _canonicalize_outputs(block: Block) -> None:
    for op in reversed(list(block.ops)):
        if isinstance(op, IfOp):
            op = _permute_if(op, _first_use_order(op.results))
        elif isinstance(op, LoopOp) and op.cond_block is None:
            op = _permute_loop(op, _first_use_order(op.results))
        for region in op.regions:
            for b in region.blocks:
                _canonicalize_outputs(b)


def _inverse(order: list[int]) -> list[int | None]:
    mapping: list[int | None] = [None] * len(order)
    for new_i, old_i in enumerate(order):
        mapping[old_i] = new_i
    return mapping


def _permute_if(op: IfOp, order: list[int]) -> Operation:
    if order == sorted(order):
        return op
    for region in op.regions:
        term = terminator(region.block)
        outs = term.operands
        term.operands = tuple(outs[i] for i in order)
    return rebuild(op, op.operands, [op.result_types[i] for i in order], _inverse(order))


def _permute_loop(op: LoopOp, order: list[int]) -> Operation:
    if order == sorted(order):
        return op
    body = op.body.block
    term = terminator(body)
    outs = term.operands
    term.operands = (outs[0], *(outs[1 + i] for i in order))
    old_args = list(body.args[1:])
    for i in order:
        new_arg = body.insert_arg(old_args[i].type, len(body.args))
        new_arg.name_hint = old_args[i].name_hint
        old_args[i].replace_all_uses_with(new_arg)
    for arg in old_args:
        body.erase_arg(arg)
    operands = [op.operands[0], op.operands[1], *(op.operands[2 + i] for i in order)]
    return rebuild(op, operands, [op.result_types[i] for i in order], _inverse(order))
