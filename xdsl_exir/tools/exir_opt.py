"""
`exir-opt`: xDSL's opt driver with the dialects, passes, frontends and emitters
of xdsl-exir, and diagnostics for people.

Everything `xdsl-opt` accepts works here (`-p` with pass options,
`--split-input-file`, `--verify-diagnostics`, `--print-between-passes`,
`--time-passes`, `-o`, ...). On top of it:

- `--from {mlir,...}` picks the frontend; by default it is chosen from the file
  extension or, failing that, from the content.
- `--emit FORMAT` picks the output format (an alias of `-t`).
- Ops parsed from text get their `file:line:col` as location, as with mlir-opt,
  so that verifier errors name the line they are about.
- Any failure is one located paragraph on stderr and exit code 1, never a
  Python traceback (set `EXIR_DEBUG=1` to see one); `-o` is written only when
  the whole run succeeded.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from io import StringIO
from typing import IO, NoReturn

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException
from xdsl.xdsl_opt_main import xDSLOptMain

from xdsl_exir.utils.diagnostics import ExirDiagnostic, locate

FRONTEND_EXTENSIONS: dict[str, str] = {"mlir": "mlir", "pt2": "pt2", "txt": "torchscript", "py": "script"}
"""File extension -> frontend name."""


class ExirUserError(Exception):
    """An error in what the user gave us; printed without a traceback."""


def write_atomically(path: str, data: bytes) -> None:
    """Write `path` whole or not at all: a temporary file beside it, then a rename."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".exir-")
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(tmp, 0o666 & ~mask)  # mkstemp makes 0600; give the usual mode
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class _KeptBuffer(StringIO):
    """An output buffer that survives xDSL closing its output stream."""

    def close(self) -> None:
        pass


class LocatingParser(Parser):
    """A parser that gives each op without an explicit `loc(...)` its position."""

    def __init__(self, ctx: Context, text: str, name: str, line_offset: int = 0):
        super().__init__(ctx, text, name)
        self._file = StringAttr(name)
        self._line_offset = line_offset
        self._text = text
        self._line_pos = 0
        self._line_no = 1

    def _line_col(self, pos: int) -> tuple[int, int]:
        # Positions only move forward while parsing, so count lines incrementally.
        if pos < self._line_pos:
            self._line_pos, self._line_no = 0, 1
        self._line_no += self._text.count("\n", self._line_pos, pos)
        self._line_pos = pos
        line_start = self._text.rfind("\n", 0, pos) + 1
        return self._line_no + self._line_offset, pos - line_start + 1

    def parse_optional_operation(self) -> Operation | None:
        pos = self.pos
        op = super().parse_optional_operation()
        if op is not None and isinstance(op.location, UnknownLoc):
            line, col = self._line_col(pos)
            op.location = FileLineColLoc(self._file, IntAttr(line), IntAttr(col))
        return op


# A graph dump: `graph(`, maybe after `#` comment lines (what --emit torchscript writes for modules).
_TORCHSCRIPT_HEAD = re.compile(rb"\s*(?:#[^\n]*\n\s*)*graph\(")


def detect_frontend(path: str | None, head: bytes) -> str:
    """Choose a frontend from the extension, else from the first bytes."""
    if path is not None:
        ext = os.path.splitext(path)[1].lstrip(".")
        if ext in FRONTEND_EXTENSIONS:
            return FRONTEND_EXTENSIONS[ext]
    if head.startswith(b"PK\x03\x04"):
        return "pt2"
    if _TORCHSCRIPT_HEAD.match(head):
        return "torchscript"
    return "mlir"


class ExirOptMain(xDSLOptMain):
    """The driver; a subclass of xDSL's so every xdsl-opt flag keeps working."""

    version_format = "exir-opt (xdsl-exir) built on xdsl {xdsl_version}"

    frontend_name: str = "mlir"
    last_module: ModuleOp | None = None
    buffer: StringIO | None = None

    def __init__(self, args: Sequence[str] | None = None) -> None:
        self._chunk_line_offset = 0
        super().__init__(description="xdsl-exir modular optimizer driver", args=args)

    # -- registration -------------------------------------------------------

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--from",
            dest="from_format",
            choices=sorted(set(self.available_frontends)),
            help="input format (default: from the file extension, else the content)",
        )
        arg_parser.add_argument(
            "--emit",
            dest="emit",
            help="output format, an alias of -t/--target: "
            + ", ".join(sorted(self.available_targets)),
        )

    def register_all_targets(self) -> None:
        super().register_all_targets()
        from xdsl_exir.targets import get_all_targets

        self.available_targets.update(get_all_targets())

    def register_all_frontends(self) -> None:
        def parse_mlir(io: IO[bytes]) -> ModuleOp:
            text = io.read().decode("utf-8", errors="replace")
            parser = LocatingParser(
                self.ctx, text, self.get_input_name(), self._chunk_line_offset
            )
            return parser.parse_module(not self.args.no_implicit_module)

        self.available_frontends["mlir"] = parse_mlir

        def parse_pt2(io: IO[bytes]) -> ModuleOp:
            from xdsl_exir.frontends.pt2 import Pt2Error, load_pt2

            try:
                return load_pt2(io.read(), self.get_input_name())
            except Pt2Error as e:
                raise ExirUserError(str(e)) from None

        self.available_frontends["pt2"] = parse_pt2

        def parse_torchscript(io: IO[bytes]) -> ModuleOp:
            from xdsl_exir.frontends.torchscript_text import TorchScriptParseError
            from xdsl_exir.frontends.torchscript_text import parse_torchscript as parse

            name = self.get_input_name()
            try:
                return parse(io.read().decode("utf-8", errors="replace"), name)
            except TorchScriptParseError as e:
                raise ExirUserError(f"{name}:{e.line + self._chunk_line_offset}:{e.col}: {e.message}") from None

        self.available_frontends["torchscript"] = parse_torchscript

        def parse_script(io: IO[bytes]) -> ModuleOp:
            # Every top-level function of a Python file, compiled as torch.jit.script does.
            from xdsl_exir.frontends.torchscript_script import ScriptError, script_file

            try:
                return script_file(io.read().decode("utf-8", errors="replace"), self.get_input_name())
            except ScriptError as e:
                raise ExirUserError(str(e)) from None

        self.available_frontends["script"] = parse_script

    # -- running ------------------------------------------------------------

    def prepare_input(self) -> tuple[list[tuple[IO[bytes], int]], str]:
        if self.args.input_file is not None and not os.path.isfile(self.args.input_file):
            raise ExirUserError(f"{self.args.input_file}: no such file")
        self.args.frontend = self.frontend_name
        if self.frontend_name not in self.available_frontends:
            raise ExirUserError(
                f"no '{self.frontend_name}' frontend in this build (available: "
                + ", ".join(sorted(self.available_frontends))
                + ")"
            )
        return super().prepare_input()

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None:
        self._chunk_line_offset = start_offset
        return super().parse_chunk(chunk, file_extension, start_offset)

    def apply_passes(self, prog: ModuleOp) -> None:
        self.last_module = prog
        super().apply_passes(prog)

    def prepare_output(self) -> IO[str]:
        # An output file is written only on success: buffer, commit at the end.
        if self.args.output_file is None:
            return sys.stdout
        self.buffer = _KeptBuffer()
        return self.buffer

    def commit_output(self) -> None:
        out = self.args.output_file
        if out is None or self.buffer is None:
            return
        write_atomically(out, self.buffer.getvalue().encode())


def _fail(message: str) -> NoReturn:
    print(f"exir-opt: error: {message}", file=sys.stderr)
    raise SystemExit(1)


def format_parse_error(e: ParseError) -> str:
    """`file:line:col: message`, then the source line with the span underlined."""
    context = e.span.print_with_context(None).splitlines()[1:3]
    return f"{e.span.get_location()}: {e.msg}\n" + "\n".join(context)


def _describe_verify_failure(module_error: Exception, root: Operation | None) -> str:
    """Find the op a core verifier rejected, to name its location."""
    if isinstance(module_error, ExirDiagnostic) or root is None:
        return str(module_error)
    for op in root.walk():
        try:
            op.verify(verify_nested_ops=False)
        except Exception as e:  # the first op that fails on its own
            return f"{locate(op)}: {e.args[0] if e.args else e}"
    return str(module_error.args[0] if module_error.args else module_error)


def run(argv: Sequence[str] | None = None) -> int:
    """Run the driver; returns the exit code (used by tests and `main`)."""
    debug = bool(os.environ.get("EXIR_DEBUG"))
    try:
        tool = ExirOptMain(args=argv)
    except SystemExit as e:  # argparse already printed its message
        return int(e.code or 0)
    except Exception as e:
        if debug:
            raise
        _fail(str(e))
    if tool.args.emit:
        tool.args.target = tool.args.emit
    tool.frontend_name = tool.args.from_format or _sniff(tool)
    try:
        tool.run()
    except SystemExit:
        raise
    except ParseError as e:
        if debug:
            raise
        _fail(format_parse_error(e))
    except (VerifyException, DiagnosticException) as e:
        if debug:
            raise
        _fail(_describe_verify_failure(e, tool.last_module))
    except ExirUserError as e:
        _fail(str(e))
    except Exception as e:
        if debug:
            raise
        _fail(
            f"internal error ({type(e).__name__}: {e}); please report it with the "
            "input, or rerun with EXIR_DEBUG=1 for a traceback"
        )
    tool.commit_output()
    return 0


def _sniff(tool: ExirOptMain) -> str:
    path = tool.args.input_file
    head = b""
    if path is not None and os.path.isfile(path):
        with open(path, "rb") as f:
            head = f.read(4096)
    return detect_frontend(path, head)


def main() -> None:
    raise SystemExit(run())


if __name__ == "__main__":
    main()
