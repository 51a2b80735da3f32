"""Functions to methods: compiles the requested functions of a source, and the
functions of the source they call, each into a `ts.method`, then runs
`convert-to-ssa`, `exit-transform` and the compile-time cleanups.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute

from xdsl_exir.dialects.ts import MethodOp
from xdsl_exir.frontends.torchscript_script.cleanup import cleanup_graph
from xdsl_exir.frontends.torchscript_script.statements import FunctionEmitter
from xdsl_exir.transforms.convert_to_ssa import convert_to_ssa
from xdsl_exir.transforms.exit_transform import exit_transform

if TYPE_CHECKING:
    from xdsl_exir.frontends.torchscript_script.source import Source


@dataclass
class Compiled:
    name: str
    method: MethodOp | None
    params: list[str]
    param_types: list[Attribute]
    defaults: dict[str, object]
    return_type: Attribute | None = None


class Compiler:
    def __init__(self) -> None:
        self.compiled: dict[str, Compiled] = {}
        self.sources: dict[str, Source] = {}
        self.in_progress: list[str] = []

    def compile(self, src: Source, name: str, call_site: tuple[Source, ast.AST] | None) -> Compiled:
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
        entry = Compiled(name, None, [], [], {})
        self.compiled[name] = entry
        self.sources[name] = src
        self.in_progress.append(name)
        try:
            FunctionEmitter(self, src, fdef, entry).run()
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


