"""
The entry points: `method_code` (one function's `.code`), `TorchScriptPythonPrinter` (a whole
program laid out as a `torch.jit.save` archive's `code/` files, with its `CONSTANTS` table),
`print_torchscript_python` and the `--emit torchscript-python` target.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Attribute
from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.target import Target

from xdsl_exir.dialects.ts import MethodOp, ScriptModuleOp, TensorValueAttr
from xdsl_exir.targets.torchscript_python.function import ConstantTable, FunctionPrinter


def method_code(method: MethodOp) -> str:
    """
    `.code` of one function or method as torch 2.13 shows it
    (`ScriptFunction.code`, `ScriptModule.code` for `forward`): a method's
    `self` is not annotated. Tensor constants print as `CONSTANTS.c<N>`.
    """
    printer = FunctionPrinter(ConstantTable())
    in_module = isinstance(method.parent_op(), ScriptModuleOp)
    printer.print_function(method, first_arg_typed=not in_module, is_method=in_module)
    return printer.text()


class TorchScriptPythonPrinter:
    """
    Prints a whole program; `constants` then holds what `CONSTANTS.c<N>`
    refers to (`#ts.tensor_value` attributes and non-ASCII strings).
    """

    def __init__(self) -> None:
        self._table = ConstantTable()

    @property
    def constants(self) -> list[Attribute]:
        return list(self._table.values)

    def print_program(self, module: ModuleOp) -> str:
        functions = [op for op in module.ops if isinstance(op, MethodOp)]
        roots = [op for op in module.ops if isinstance(op, ScriptModuleOp)]
        if not functions and not roots:
            raise DiagnosticException(
                "--emit torchscript-python prints ts.method and ts.module ops; the input has none"
            )
        files: dict[str, FunctionPrinter] = {}

        def file_for(qualifier: str) -> FunctionPrinter:
            if qualifier not in files:
                files[qualifier] = FunctionPrinter(self._table)
            return files[qualifier]

        for fn in functions:
            file_for("__torch__").print_function(fn, first_arg_typed=True)
        for cls in _classes_in_print_order(roots):
            qualifier = cls.class_name.data.rpartition(".")[0] or "__torch__"
            file_for(qualifier).print_class(cls)
        parts: list[str] = []
        for qualifier, printer in files.items():
            text = printer.text()
            if len(files) > 1:
                text = f"# code/{qualifier.replace('.', '/')}.py\n{text}"
            parts.append(text)
        text = "\n".join(parts)
        if self._table.values:
            text += "".join(
                f"# CONSTANTS.c{i} = {_describe_constant(v)}\n" for i, v in enumerate(self._table.values)
            )
        return text


def _classes_in_print_order(roots: Sequence[ScriptModuleOp]) -> list[ScriptModuleOp]:
    """Each class once, root first, then the classes of submodules as they are met (torch's deps order)."""
    seen: set[str] = set()
    order: list[ScriptModuleOp] = []
    queue = list(roots)
    while queue:
        cls = queue.pop(0)
        if cls.class_name.data in seen:
            continue
        seen.add(cls.class_name.data)
        order.append(cls)
        queue.extend(cls.submodules())
    return order


def _describe_constant(value: Attribute) -> str:
    if isinstance(value, TensorValueAttr):
        return f"{value.scalar.data} tensor of sizes {list(value.shape)}"
    if isinstance(value, StringAttr):
        return repr(value.data)
    return str(value)


def print_torchscript_python(module: ModuleOp) -> str:
    """The whole program (free functions and module classes) as TorchScript Python."""
    return TorchScriptPythonPrinter().print_program(module)


def emit_torchscript_python(module: ModuleOp, output: IO[str]) -> None:
    """The `torchscript-python` target of exir-opt."""
    output.write(print_torchscript_python(module))


@dataclass(frozen=True)
class TorchScriptPythonTarget(Target):
    """`-t torchscript-python` / `--emit torchscript-python`."""

    name = "torchscript-python"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        emit_torchscript_python(module, output)
