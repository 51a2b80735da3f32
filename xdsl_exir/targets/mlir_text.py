"""
The `mlir` target: xDSL's, with the resources section written one entry a line,
and mlir-opt's `--mlir-elide-resource-strings-if-larger` to leave large weights
out of text meant for people (`exir-opt m.pt2 --emit 'mlir{elide-resource-strings-if-larger=64}'`).
Text printed so keeps its `dense_resource<key>` references, with `"__elided__"`
as their data: it reads back, but running it says which weight is missing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer
from xdsl.syntax_printer import SyntaxPrinter
from xdsl.targets.mlir import MLIRTarget as XdslMLIRTarget

from xdsl_exir.utils.mlir_parser import print_resources


@dataclass(frozen=True)
class MLIRTarget(XdslMLIRTarget):
    """MLIR text with this project's resources section (see the module docstring)."""

    name = "mlir"

    elide_resource_strings_if_larger: int | None = None
    """Write `"__elided__"` for a resource whose text is longer than this many characters."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        cls = SyntaxPrinter if self.syntax_highlight else Printer
        printer = cls(
            stream=output,
            print_generic_format=self.print_generic_format,
            print_properties_as_attributes=self.print_properties_as_attributes,
            print_debuginfo=self.print_debuginfo,
        )
        printer.print_op(module)
        print_resources(printer, ctx.loaded_dialects, self.elide_resource_strings_if_larger)
        print("\n", file=output)
