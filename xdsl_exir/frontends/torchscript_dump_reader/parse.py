"""
`parse_torchscript`: the graphs of a dump, one after another, read and built into the methods of
one module, named by the `# qualified.name` line before each; a verifier error is located at the
dump line of the op that failed.
"""

from __future__ import annotations

import re
from typing import NoReturn

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

from xdsl_exir.dialects.ts import MethodOp
from xdsl_exir.frontends.torchscript_dump_reader.builder import Builder
from xdsl_exir.frontends.torchscript_dump_reader.reader import SPACE, WITH, Reader
from xdsl_exir.frontends.torchscript_dump_reader.syntax import RECURSION, DumpGraph, TorchScriptParseError

_HEADER_COMMENT = re.compile(r"[ \t]*#[ \t]*([A-Za-z_][\w.]*)[ \t]*$")


def _read_graphs(reader: Reader) -> list[tuple[str | None, DumpGraph]]:
    """The top-level graphs, each with the qualified name of the comment line before it (if any)."""
    text = reader.text
    out: list[tuple[str | None, DumpGraph]] = []
    while True:
        name: str | None = None
        while True:  # blank and comment lines; remember the last name-like comment
            reader.pos = SPACE.match(text, reader.pos).end()  # pyright: ignore[reportOptionalMemberAccess] - the pattern matches the empty string: never None
            if reader.pos >= len(text):
                return out
            if text[reader.pos] in "\r\n":
                reader.pos += 1
                continue
            if text[reader.pos] == "#":
                end = text.find("\n", reader.pos)
                end = len(text) if end < 0 else end
                m = _HEADER_COMMENT.match(text, reader.pos, end)
                name = m.group(1) if m and m.end() == end else name
                reader.pos = end
                continue
            break
        if reader.at("with"):
            wm = WITH.match(text, reader.pos)
            kind = wm.group(1) if wm else "..."
            reader.error(f"'with {kind} = graph(...)' names no node of the graph before it")
        if not reader.at("graph"):
            reader.error(f"expected 'graph(', found {reader.found()}")
        out.append((name, reader.graph()))


def _method_names(named: list[tuple[str | None, DumpGraph]]) -> list[str]:
    if len(named) == 1:
        return ["forward"]
    short = [q.rsplit(".", 1)[-1] if q else None for q, _ in named]
    names: list[str] = []
    for i, (q, _) in enumerate(named):
        s = short[i]
        if s is None:
            names.append("forward" if i == 0 else f"graph{i}")
        elif short.count(s) > 1:
            names.append(q or s)
        else:
            names.append(s)
    return names


def parse_torchscript(text: str, filename: str = "<torchscript>") -> ModuleOp:
    """
    A TorchScript graph dump as a module of `ts.method`s (`@forward` for a
    single graph). Raises `TorchScriptParseError` with the 1-based line and
    column of the problem.
    """
    reader = Reader(text.replace("\r\n", "\n"))
    try:
        named = _read_graphs(reader)
    except TorchScriptParseError:
        raise
    except RecursionError:
        reader.error(f"blocks nested too deeply to read ({RECURSION})")
    except (OverflowError, ValueError) as e:  # a number beyond int64, an index, the int-string limit
        reader.error(f"number out of range ({e})")
    if not named:
        reader.error("expected 'graph(', found end of input", 0)
    builder = Builder(reader, filename)
    methods: list[Operation] = []
    seen: set[str] = set()
    for name, (_, g) in zip(_method_names(named), named):
        if name in seen:
            reader.error(f"two graphs are both named '{name}'", g.pos)
        seen.add(name)
        method = MethodOp(name, builder.graph(g))
        builder.positions[id(method)] = g.pos
        methods.append(method)
    module = ModuleOp(methods)
    try:
        module.verify()
    except VerifyException as e:
        _locate_verify_error(module, builder, e)
    return module


def _locate_verify_error(module: ModuleOp, builder: Builder, error: VerifyException) -> NoReturn:
    """Name the node whose op the verifier rejected."""
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as e:
            pos = builder.positions.get(id(op))
            parent = op
            while pos is None and (outer := parent.parent_op()) is not None:
                parent = outer
                pos = builder.positions.get(id(parent))
            builder.error(str(e), pos or 0)
    builder.error(str(error), 0)
