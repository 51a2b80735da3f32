"""A parsed piece of Python and name resolution: where its text sits in its file
(so locations are those TorchScript prints), its functions, imports and
module-level constants, and what a free name means (a SugaredValue).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr

from xdsl_exir.frontends.torchscript_script.errors import ScriptError
from xdsl_exir.frontends.torchscript_script.names import (
    CASTS,
    DEFAULT_ALIASES,
    EXCEPTIONS,
    MODULES,
    PY_BUILTINS,
    TYPING_NAMES,
)
from xdsl_exir.frontends.torchscript_script.sugared import (
    Builtin,
    Cast,
    ExceptionClass,
    Namespace,
    PyConstant,
    SpecialForm,
    TypeName,
    UserFunction,
)

if TYPE_CHECKING:
    from xdsl_exir.frontends.torchscript_script.sugared import Sugared


class Source:
    """A parsed piece of Python: its functions, imports, constants and where its text sits in its file."""

    def __init__(self, tree: ast.Module, filename: str, line_offset: int, col_offset: int) -> None:
        self.filename = filename
        self.line_offset = line_offset
        self.col_offset = col_offset
        self.functions: dict[str, ast.FunctionDef] = {}
        self.aliases: dict[str, str] = dict(DEFAULT_ALIASES)
        self.type_names: dict[str, str] = {n: n for n in TYPING_NAMES}
        self.type_names["Tensor"] = "Tensor"
        self.constants: dict[str, object] = {}
        self.globals: dict[str, object] | None = None
        self._derived: dict[int, Source] = {}
        for stmt in tree.body:
            if isinstance(stmt, ast.FunctionDef):
                self.functions[stmt.name] = stmt
            elif isinstance(stmt, ast.Import):
                for a in stmt.names:
                    if a.name in MODULES:
                        top = a.name.partition(".")[0]  # `import torch.nn` binds `torch`
                        self.aliases[a.asname or top] = a.name if a.asname else top
            elif isinstance(stmt, ast.ImportFrom) and stmt.module:
                for a in stmt.names:
                    full = f"{stmt.module}.{a.name}"
                    local = a.asname or a.name
                    if full in MODULES:
                        self.aliases[local] = full
                    elif stmt.module == "typing" and a.name in TYPING_NAMES:
                        self.type_names[local] = a.name
                    elif stmt.module == "torch" and a.name == "Tensor":
                        self.type_names[local] = "Tensor"
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                value = literal_value(stmt.value)
                if value is not NOT_LITERAL:
                    self.constants[stmt.targets[0].id] = value

    @staticmethod
    def parse(source: str, filename: str, first_line: int) -> Source:
        text = textwrap.dedent(source)
        indent = _common_indent(source)
        try:
            tree = ast.parse(text, filename)
        except SyntaxError as e:
            raise ScriptError(
                f"invalid Python: {e.msg}", (e.lineno or 1) + first_line - 1, (e.offset or 1) - 1 + indent, filename
            ) from None
        return Source(tree, filename, first_line - 1, indent)

    @staticmethod
    def of_function(fn: Callable[..., Any]) -> Source:
        if not isinstance(fn, types.FunctionType):
            raise ScriptError(f"script() compiles Python functions, not {type(fn).__name__}")
        try:
            lines, first = inspect.getsourcelines(fn)
            filename = inspect.getsourcefile(fn) or "<source>"
        except (OSError, TypeError) as e:
            raise ScriptError(f"cannot read the source of {fn.__name__}: {e}") from None
        src = Source.parse("".join(lines), filename, first)
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
        return node.lineno + self.line_offset, node.col_offset + self.col_offset  # pyright: ignore[reportAttributeAccessIssue] - hasattr above: only some ast nodes have positions

    def loc(self, node: ast.AST | None) -> FileLineColLoc:
        line, col = self.position(node)
        return FileLineColLoc(StringAttr(self.filename), IntAttr(line), IntAttr(col))

    def error(self, message: str, node: ast.AST | None) -> ScriptError:
        line, col = self.position(node)
        return ScriptError(message, line, col, self.filename)

    # -- globals ---------------------------------------------------------------

    def resolve(self, name: str) -> Sugared | None:
        """A name no frame defines: a function, module, type, constant or builtin."""
        if name in self.functions:
            return UserFunction(self, name)
        if self.globals is not None and self.globals.get(name) is not None:
            found = self.from_python(self.globals[name])
            if found is not None:
                return found
        if name in self.aliases:
            return Namespace(self.aliases[name])
        if name in self.type_names:
            return TypeName(self.type_names[name])
        if name in self.constants:
            return PyConstant(self.constants[name])
        if name in CASTS:
            return Cast(name)
        if name in PY_BUILTINS:
            return Builtin(PY_BUILTINS[name])
        if name in EXCEPTIONS:
            return ExceptionClass(name)
        if name in ("range", "enumerate", "zip", "isinstance"):
            return SpecialForm(name)
        return None

    def from_python(self, obj: object) -> Sugared | None:
        """The sugared value for a Python object the source refers to, or None if it is not one."""
        if isinstance(obj, types.ModuleType):
            return Namespace(obj.__name__) if obj.__name__ in MODULES else None
        if isinstance(obj, types.FunctionType):
            derived = self._derived.get(id(obj))
            if derived is None:
                try:
                    derived = Source.of_function(obj)
                except ScriptError:
                    return None
                self._derived[id(obj)] = derived
            return UserFunction(derived, obj.__name__)
        if isinstance(obj, bool | int | float | str) or obj is None:
            return PyConstant(obj)
        qual = f"{getattr(obj, '__module__', '')}.{getattr(obj, '__name__', getattr(obj, '_name', ''))}"
        if qual in ("torch.Tensor", "torch._tensor.Tensor"):
            return TypeName("Tensor")
        if qual.startswith("typing.") and qual[7:] in TYPING_NAMES:
            return TypeName(qual[7:])
        return None


NOT_LITERAL = object()


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


def literal_value(node: ast.expr) -> object:
    """The Python value of a constant expression (`3`, `-1.5`, `"a"`, `None`), else `_NOT_LITERAL`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, bool | int | float | str | type(None)):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        inner = literal_value(node.operand)
        if isinstance(inner, int | float) and not isinstance(inner, bool):
            return -inner if isinstance(node.op, ast.USub) else inner
    return NOT_LITERAL


def _common_indent(source: str) -> int:
    widths = [len(line) - len(line.lstrip()) for line in source.splitlines() if line.strip()]
    return min(widths) if widths else 0


