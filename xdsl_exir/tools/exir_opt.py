"""
`exir-opt`: xDSL's opt driver with the dialects, passes, frontends and emitters
of xdsl-exir, and diagnostics for people.

Everything `xdsl-opt` accepts works here (`-p` with pass options,
`--print-between-passes`, `-o`, ...). On top of it, and where mlir-opt and
xdsl-opt differ, as mlir-opt does it:

- `--from {mlir,...}` picks the frontend; by default it is chosen from the file
  extension or, failing that, from the content (a `.pt2` on stdin is known by
  its zip signature). xDSL's `-f/--frontend` is a hidden alias.
- `--emit FORMAT` picks the output format; xDSL's `-t/--target` is a hidden
  alias (scripts written for xdsl-opt keep working).
- `--pass-pipeline` is mlir-opt's spelling of `-p`; an mlir-opt style
  `builtin.module(...)` anchor around the pipeline is accepted. A pipeline
  error (syntax, an unknown pass or option, an option of the wrong type) is
  one paragraph pointing into the pipeline text, with a "did you mean" for
  near misses. `--list-passes` lists the passes, ours with their options.
- `--split-input-file` processes every `// -----` chunk and reports each
  failing one; `--verify-diagnostics` checks the `// expected-error {{...}}`
  comments of the input (`tools/verify_diagnostics.py`).
- `--time-passes` reports the passes compound passes run too, nested
  (`tools/pass_timer.py`); `--mlir-print-debuginfo` is `--print-debuginfo`.
- `--max-tensor-bytes N` (default 8G) bounds the size of any one tensor read
  from an archive (`utils/limits.py`).
- Ops parsed from text get their `file:line:col` as location, as with mlir-opt,
  so that verifier errors name the line they are about.
- Any failure is one located paragraph on stderr and exit code 1, never a
  Python traceback (set `EXIR_DEBUG=1` to see one); `-o` is written only when
  the whole run succeeded (an `-o` that names a directory or a file in a
  missing directory is refused before any work). Ctrl-C ends the run with
  exit code 130 and a one-line message.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import inspect
import keyword
import os
import re
import stat
import sys
import tempfile
import textwrap
import typing
import warnings
from collections.abc import Callable, Iterable, Sequence
from importlib import metadata
from io import BytesIO, StringIO, TextIOWrapper
from typing import IO, Any, NoReturn

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation, Region
from xdsl.parser import Parser
from xdsl.passes import ModulePass, PassPipeline
from xdsl.universe import Universe
from xdsl.utils.arg_spec import ArgSpec, parse_pipeline, parse_spec
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError, VerifyException
from xdsl.utils.hints import isa
from xdsl.utils.target import Target
from xdsl.xdsl_opt_main import xDSLOptMain

from xdsl_exir import __version__
from xdsl_exir.runtime import destination_problem
from xdsl_exir.targets.registry import get_all_targets, get_mlir_target
from xdsl_exir.tools import INTERRUPTED, RunTimeout, TimeoutUnavailable, accept_interrupts, seconds, time_limit
from xdsl_exir.tools.pass_timer import PassTimer
from xdsl_exir.tools.progress import progress
from xdsl_exir.tools.verify_diagnostics import Diagnostic, check, parse_expectations, split_location
from xdsl_exir.transforms.registry import get_all_passes
from xdsl_exir.utils.diagnostics import ExirDiagnostic, InterpreterError, did_you_mean, locate
from xdsl_exir.utils.limits import DEFAULT_MAX_TENSOR_BYTES, format_bytes, max_tensor_bytes, parse_byte_size
from xdsl_exir.utils.mlir_parser import ResourceParser
from xdsl_exir.utils.multiverse import multiverse
from xdsl_exir.utils.safe_zip import is_pickle
from xdsl_exir.utils.tensor_data import TensorDataError

FRONTEND_EXTENSIONS: dict[str, str] = {"mlir": "mlir", "pt2": "pt2", "txt": "torchscript", "py": "script"}
"""File extension -> frontend name."""

PROGRAM_FILES = "a torch.export .pt2 archive, textual IR (.mlir), a TorchScript graph dump or a .py script"
"""The files a program is read from, as the refusals of anything else list them."""


def directory_given(path: str, reader: str, instead: str) -> str:
    """
    The refusal of a directory where a program's file is expected, one sentence for
    exir-opt, exir-run and `xdsl_exir.api.load`: a directory is no missing file, so
    the user is told what `reader` reads, then (`instead`) what else it takes and
    where a compiled artifact's directory goes.
    """
    return f"{path}: is a directory; {reader} reads a file ({PROGRAM_FILES}){instead}"


class ExirUserError(Exception):
    """An error in what the user gave us; printed without a traceback."""


def check_output_path(path: str, flag: str = "-o") -> None:
    """
    Refuse an output target that cannot be written, before any work is done;
    `flag` is the option that named it (`-o`, `--trace`), so the message says
    which of the outputs is wrong.
    """
    if not path:
        raise ExirUserError(f"{flag} needs a file name")
    if os.path.isdir(path):
        raise ExirUserError(f"{flag} {path}: is a directory; name a file to write")
    real = os.path.realpath(path)
    if os.path.exists(real) and not stat.S_ISREG(os.stat(real).st_mode):
        return  # a device or pipe (/dev/null): written in place, not renamed over
    directory = os.path.dirname(real)
    if not os.path.isdir(directory):
        what = "is not a directory" if os.path.exists(directory) else "does not exist"
        raise ExirUserError(f"{flag} {path}: {directory} {what}")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise ExirUserError(f"{flag} {path}: the directory {directory} is not writable")


def write_atomically(path: str, data: bytes, flag: str = "-o") -> None:
    """
    Write `path` whole or not at all: a temporary file beside it, then a rename
    (through a symlink to its target; a device such as /dev/null is written in
    place). Raises `ExirUserError` naming the path, under the option `flag` that
    named it, if it cannot be written.
    """
    check_output_path(path, flag)
    real = os.path.realpath(path)
    try:
        if os.path.exists(real) and not stat.S_ISREG(os.stat(real).st_mode):
            with open(real, "wb") as out:
                out.write(data)
            return
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(real), prefix=".exir-")
    except OSError as e:
        raise ExirUserError(f"{flag} {path}: cannot write it ({e.strerror or e})") from None
    mask = os.umask(0)
    os.umask(mask)
    try:
        with os.fdopen(fd, "wb") as f:
            os.chmod(tmp, 0o666 & ~mask)  # mkstemp makes 0600; give the usual mode
            f.write(data)
        os.replace(tmp, real)
    except BaseException as e:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(e, OSError):
            raise ExirUserError(f"{flag} {path}: cannot write it ({e.strerror or e})") from None
        raise


class _KeptBuffer(StringIO):
    """An output buffer that survives xDSL closing its output stream."""

    def close(self) -> None:
        pass


class _KeptFile(TextIOWrapper):
    """A temporary output file that survives xDSL closing its output stream (closed on commit)."""

    def __init__(self, fd: int) -> None:
        super().__init__(open(fd, "wb"), encoding="utf-8")  # closed by commit_output or discard_output

    def close(self) -> None:
        self.flush()

    def really_close(self) -> None:
        super().close()


class LocatingParser(ResourceParser):
    """A parser that gives each op without an explicit `loc(...)` its position."""

    def __init__(self, ctx: Context, text: str, name: str, line_offset: int = 0):
        super().__init__(ctx, text, name)
        self._file = StringAttr(name)
        self._line_offset = line_offset
        self._text = text
        self._line_pos = 0
        self._line_no = 1

    def line_col(self, pos: int) -> tuple[int, int]:
        """The 1-based line and column of offset `pos` (lines of earlier chunks counted)."""
        # Positions only move forward while parsing, so count lines incrementally.
        if pos < self._line_pos:
            self._line_pos, self._line_no = 0, 1
        self._line_no += self._text.count("\n", self._line_pos, pos)
        self._line_pos = pos
        line_start = self._text.rfind("\n", 0, pos) + 1
        return self._line_no + self._line_offset, pos - line_start + 1

    def _loc(self, pos: int) -> FileLineColLoc:
        line, col = self.line_col(pos)
        return FileLineColLoc(self._file, IntAttr(line), IntAttr(col))

    def parse_optional_operation(self) -> Operation | None:
        pos = self.pos
        op = super().parse_optional_operation()
        if op is not None and isinstance(op.location, UnknownLoc):
            op.location = self._loc(pos)
        return op

    def parse_optional_region(self, arguments: Iterable[Parser.Argument] | None = None) -> Region | None:
        # Named entry-block arguments (`exir.graph @f(%x: T)`, func-like ops) get the
        # position of their name, as MLIR gives them, unless the text says `loc(...)`.
        if arguments is not None:
            arguments = list(arguments)
            for arg in arguments:
                if arg.location is None:
                    arg.location = self._loc(arg.name.start)
        return super().parse_optional_region(arguments)


# A graph dump: `graph(`, maybe after `#` comment lines (what --emit torchscript writes for modules).
_TORCHSCRIPT_HEAD = re.compile(rb"\s*(?:#[^\n]*\n\s*)*graph\(")


def detect_frontend(path: str | None, head: bytes) -> str:
    """Choose a frontend from the extension, else from the first bytes."""
    if path is not None:
        ext = os.path.splitext(path)[1].lstrip(".")
        if ext in FRONTEND_EXTENSIONS:
            return FRONTEND_EXTENSIONS[ext]
    if head.startswith(b"PK\x03\x04") or is_pickle(head):
        return "pt2"  # whose reader says what a pickle is and what to save instead
    if _TORCHSCRIPT_HEAD.match(head):
        return "torchscript"
    return "mlir"


# ---------------------------------------------------------------------------
# Pass pipelines
# ---------------------------------------------------------------------------

_ANCHOR = re.compile(r"\s*builtin\.module\((.*)\)\s*", re.DOTALL)
"""mlir-opt's `builtin.module(...)` anchor: our passes all run on the module, so it is unwrapped."""


class PipelineError(ExirUserError):
    """A pass pipeline that cannot be built: one paragraph pointing into its text."""

    def __init__(self, spec: str, column: int, message: str) -> None:
        line = spec.replace("\n", " ")
        super().__init__(f"pass pipeline:1:{column + 1}: {message}\n  {line}\n  {' ' * column}^")


def build_pipeline(
    available: dict[str, Callable[[], type[ModulePass]]],
    spec: str,
    callback: Callable[[ModulePass | None, ModuleOp, ModulePass | None], None] | None = None,
) -> PassPipeline:
    """
    `PassPipeline.parse_spec`, with the errors people make explained: a syntax
    error with its column, an unknown pass or option with the nearest names,
    an option value of the wrong type with the type it takes.
    """
    text, offset = spec, 0
    if (m := _ANCHOR.fullmatch(spec)) is not None:
        text, offset = m.group(1), m.start(1)
    try:
        specs = list(parse_pipeline(text))
    except ArgSpecParseError as e:
        raise _syntax_error(spec, text, offset, e) from None
    passes: list[ModulePass] = []
    search_from = offset
    for arg_spec in specs:
        column = _find_name(spec, arg_spec.name, search_from)
        search_from = column + len(arg_spec.name)
        if arg_spec.name not in available:
            raise PipelineError(
                spec,
                column,
                f"unknown pass '{arg_spec.name}'"
                + did_you_mean(arg_spec.name, available)
                + " (`exir-opt --list-passes` lists them)",
            )
        passes.append(_make_pass(available[arg_spec.name](), arg_spec, spec, column))
    return PassPipeline(tuple(passes), callback)


def _syntax_error(spec: str, text: str, offset: int, e: ArgSpecParseError) -> PipelineError:
    """xDSL's message (`pass-pipeline:1:11`, the text, a caret, the message) as one of ours."""
    message = str(e.args[0] if e.args else e)
    m = re.search(r"pass-pipeline:(\d+):(\d+)", message)
    column = int(m.group(2)) - 1 if m is not None else 0
    lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
    what = lines[-1] if lines else "malformed pass pipeline"
    what = what[:1].lower() + what[1:]
    unquoted = re.search(r"([\w-]+)=([^\"'{}\s,=]*[.:/][^\"'{}\s,=]*)", text)
    if "(" in text:
        what += "; nested pipelines other than one outer builtin.module(...) are not supported"
    elif "=" in text and "{" not in text:
        what += "; options go in braces: pass-name{option=value}"
    elif unquoted is not None:
        option, value = unquoted.groups()
        what += f'; a value with dots or other punctuation goes in quotes: {option}="{value}"'
    return PipelineError(spec, min(offset + column, len(spec)), what)


def _find_name(spec: str, name: str, start: int) -> int:
    """The column of pass `name` in the pipeline text (for the caret)."""
    m = re.compile(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])").search(spec, start)
    return m.start() if m is not None else start


def _spelled(option: str) -> str:
    """An option as pipelines and `--list-passes` spell it (`min-size` for the field `min_size`)."""
    return option.replace("_", "-")


def _option_fields(cls: type[ModulePass]) -> dict[str, dataclasses.Field[Any]]:
    """A pass's options by the name a pipeline spells them (`from` for a field `from_`)."""
    fields = [f for f in dataclasses.fields(cls) if f.init and f.name != "name"]
    return {(f.name[:-1] if keyword.iskeyword(f.name[:-1]) else f.name): f for f in fields}


def _make_pass(cls: type[ModulePass], arg_spec: ArgSpec, spec: str, column: int) -> ModulePass:
    """Check a pass's options against its fields before xDSL builds it."""
    where = f"pass '{arg_spec.name}'"
    fields = _option_fields(cls)
    hints = typing.get_type_hints(cls)
    given = arg_spec.normalize_parameter_names().parameters
    for option, values in given.items():
        option_column = _find_name(spec, option.replace("_", "-"), column)
        if option_column == column:
            option_column = _find_name(spec, option, column)
        if option not in fields and option.endswith("_") and option[:-1] in fields:
            option = option[:-1]
        if option not in fields:
            spelled = [_spelled(f) for f in fields]
            known = ", ".join(sorted(spelled)) or "none"
            raise PipelineError(
                spec,
                option_column,
                f"{where} has no option '{_spelled(option)}'"
                + did_you_mean(_spelled(option), spelled)
                + f" (its options: {known})",
            )
        expected = hints.get(fields[option].name, fields[option].type)
        if not _fits(values, expected):
            raise PipelineError(
                spec,
                option_column,
                f"option '{_spelled(option)}' of {where} takes {_describe_type(expected)}, got "
                + _show_values(values)
                + _quote_hint(values, expected),
            )
    for name, field in fields.items():
        if name in given or field.name in given:
            continue
        if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            if not _fits((), hints.get(field.name, field.type)):
                raise PipelineError(spec, column, f"{where} needs the option '{_spelled(name)}'")
    try:
        return cls.from_pass_spec(arg_spec)
    except (ValueError, TypeError) as e:  # a pass's own check of its options
        raise PipelineError(spec, column, f"{where}: {e}") from None


def _fits(values: tuple[Any, ...], expected: Any) -> bool:
    """What xDSL's option conversion accepts: nothing for an optional, one value, or a tuple."""
    if not values:
        return type(None) in typing.get_args(expected)
    return (len(values) == 1 and isa(values[0], expected)) or isa(tuple(values), expected)


_TYPE_WORDS: dict[Any, str] = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "true or false",
    type(None): "nothing",
}


def _describe_type(t: Any) -> str:
    if t in _TYPE_WORDS:
        return _TYPE_WORDS[t]
    args = typing.get_args(t)
    origin = typing.get_origin(t)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return f"a list of {_describe_type(args[0]).removeprefix('a ').removeprefix('an ')}s"
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if args:
        return " or ".join(_describe_type(a) for a in args)
    return getattr(t, "__name__", str(t))


def _show_values(values: tuple[Any, ...]) -> str:
    def one(v: Any) -> str:
        return ("true" if v else "false") if isinstance(v, bool) else repr(v) if isinstance(v, str) else str(v)

    return "nothing" if not values else ", ".join(one(v) for v in values)


def _quote_hint(values: tuple[Any, ...], expected: Any) -> str:
    if expected is str and len(values) == 1 and not isinstance(values[0], str):
        return f' (quote it for the text: "{_show_values(values)}")'
    return ""


# Our passes in --list-passes, by what they are for (a pass not listed goes under "Other").
PASS_GROUPS: dict[str, tuple[str, ...]] = {
    "Checking": ("verify-export-ir",),
    "Export IR to core ATen": ("functionalize", "decompose", "to-core-aten"),
    "Cleanup": ("exir-dce", "exir-cse", "constant-propagation", "constant-pooling", "inline"),
    "Optimization": ("optimize-inference", "fold-conv-bn", "fuse-pointwise", "recompose-safe-softmax", "replace-activation"),
    "Analysis": ("shape-propagation", "flop-count"),
    "Quantization": ("insert-observers", "quantize"),
    "TorchScript": (
        "torchscript-to-exir",
        "convert-to-ssa",
        "exit-transform",
        "unroll-loops",
        "batch-mm",
        "lower-tuples",
        "list-peepholes",
    ),
    "Lowering to upstream MLIR": ("convert-exir-to-linalg",),
}


def plugin_passes() -> dict[str, list[str]]:
    """
    The passes each downstream package adds through xDSL's `xdsl.universe` entry
    point, by the name of the distribution that declares it, so `--list-passes`
    can say where a pass comes from instead of filing it under xDSL's. (xDSL
    reads the same entry points when it collects the passes `-p` accepts.)
    """
    owners: dict[str, list[str]] = {}
    for ep in metadata.entry_points(group="xdsl.universe"):
        universe = ep.load()
        if not isinstance(universe, Universe):
            continue  # xDSL refuses such a plugin itself when it collects the passes
        dist = ep.dist.name if ep.dist is not None else ep.name
        if re.sub(r"[-_.]+", "-", dist).lower() == "xdsl":
            continue  # xDSL declares its own passes this way too: they are listed as xDSL's
        owners.setdefault(dist, []).extend(universe.all_passes)
    return owners


def _pass_lines(name: str, cls: type[ModulePass]) -> list[str]:
    """A pass's name, the first paragraph of its docstring and its options."""
    summary = " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())
    lines = [f"    {name:<24} {summary}".rstrip()]
    hints = typing.get_type_hints(cls)
    for option, f in _option_fields(cls).items():
        default = f.default if f.default is not dataclasses.MISSING else None
        shown = "" if f.default is dataclasses.MISSING else f" = {_show_default(default)}"
        lines.append(f"      {option.replace('_', '-')}: {_describe_type(hints.get(f.name, f.type))}{shown}")
    return lines


def format_pass_list(available: dict[str, Callable[[], type[ModulePass]]]) -> str:
    """
    `--list-passes`: our passes grouped, each with its one-line description and
    options; then the passes of each plugin package under its distribution's
    name; then xDSL's names.
    """
    ours = [name for name in get_all_passes() if name in available]
    grouped = {name for names in PASS_GROUPS.values() for name in names}
    groups = [(title, [n for n in names if n in ours]) for title, names in PASS_GROUPS.items()]
    groups.append(("Other", [n for n in ours if n not in grouped]))
    lines = ["Passes of xdsl-exir (options in braces: -p 'pass{option=value}'):"]
    for title, names in groups:
        if not names:
            continue
        lines.append("")
        lines.append(f"  {title}")
        for name in names:
            lines.extend(_pass_lines(name, available[name]()))
    listed = set(ours)
    for dist, names in sorted(plugin_passes().items()):
        names = sorted(n for n in names if n in available and n not in listed)
        if not names:
            continue
        listed.update(names)
        lines.append("")
        lines.append(f"Passes of {dist} (a plugin, through the `xdsl.universe` entry point):")
        for name in names:
            lines.extend(_pass_lines(name, available[name]()))
    stock = sorted(name for name in available if name not in listed)
    lines.append("")
    lines.append(f"xDSL's passes ({len(stock)}; see xDSL's documentation):")
    lines.extend(textwrap.wrap(", ".join(stock), width=100, initial_indent="  ", subsequent_indent="  "))
    return "\n".join(lines) + "\n"


def _show_default(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, tuple):
        return "[" + ", ".join(_show_default(v) for v in typing.cast(tuple[Any, ...], value)) + "]"
    return "none" if value is None else str(value)


class _ListPasses(argparse.Action):
    """`--list-passes`: print the list and exit, as `--help` does."""

    def __init__(self, *args: Any, tool: ExirOptMain, **kwargs: Any) -> None:
        super().__init__(*args, nargs=0, **kwargs)
        self.tool = tool

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option_string: str | None = None) -> None:
        sys.stdout.write(format_pass_list(self.tool.available_passes))
        parser.exit()


class ChunkFailures(ExirUserError):
    """Some chunks of a split input failed (each was reported as it failed)."""


class ExirOptMain(xDSLOptMain):
    """The driver; a subclass of xDSL's so every xdsl-opt flag keeps working."""

    version_format = f"exir-opt (xdsl-exir) {__version__}, built on xdsl {{xdsl_version}}"  # as exir-run --version

    frontend_name: str = "mlir"
    last_module: ModuleOp | None = None
    buffer: StringIO | None = None
    _pt2_path: str | None = None
    """The `.pt2` input's path when it is a file on disk (mapped, not read)."""
    _spool: tuple[str, str] | None = None
    """(temporary file, final path) of an output streamed to disk, renamed on success."""
    _spool_stream: _KeptFile | None = None
    pass_timer: PassTimer | None = None
    report_pass_times = False
    """`--time-passes`: print the timer's report at the end (a caller may time without it)."""

    def __init__(self, args: Sequence[str] | None = None) -> None:
        self._chunk_line_offset = 0
        self._stdin: bytes | None = None
        self.bundle_dir: str | None = None
        """`--emit iree-bundle`: the directory `-o` names, written by the target itself."""
        super().__init__(description="xdsl-exir modular optimizer driver", args=args)

    # -- registration -------------------------------------------------------

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.prog = "exir-opt"  # its messages name the tool however it was started
        arg_parser.usage = "exir-opt [INPUT] [-p PIPELINE] [--from FORMAT] [--emit FORMAT] [-o OUT] [options]"
        arg_parser.epilog = "`exir-opt --list-passes` lists the passes, with the options of ours."
        # xDSL's help lists every pass and target in one paragraph; ours name them on request.
        # One documented spelling per flag: `--from` and `--emit`, xDSL's `-f` and `-t` stay as hidden aliases.
        options = arg_parser._option_string_actions  # argparse has no public way to reword an added option
        options["-p"].help = "pass pipeline, e.g. 'cse,dce' or 'decompose{legal-ops=...}' (--list-passes lists them)"
        options["-p"].metavar = "PIPELINE"
        options["-t"].help = argparse.SUPPRESS
        options["-f"].help = argparse.SUPPRESS
        options["--verify-diagnostics"].help = (
            "check the input's // expected-error {{...}} comments (and expected-warning, expected-note) "
            "against the diagnostics; exit 1 on any difference"
        )
        options["--split-input-file"].help = "process each `// -----` chunk of the input on its own and report every one"
        options["--time-passes"].help = "report the time of each pass (and of the passes inside compound ones) on stderr"
        options["--version"].help = "print the versions of xdsl-exir and xDSL"
        arg_parser.add_argument(
            "--from",
            dest="from_format",
            choices=sorted(set(self.available_frontends)),
            help="input format (default: from the file extension, else the content)",
        )
        arg_parser.add_argument(
            "--emit",
            dest="emit",
            metavar="FORMAT",
            help="output format: " + ", ".join(sorted(self.available_targets)) + " (default: mlir)",
        )
        arg_parser.add_argument(
            "--pass-pipeline",
            dest="passes",
            metavar="PIPELINE",
            default=argparse.SUPPRESS,
            help="the same as -p (mlir-opt's spelling; a builtin.module(...) anchor is accepted)",
        )
        arg_parser.add_argument(
            "--list-passes", action=_ListPasses, tool=self, help="list the passes (ours with their options) and exit"
        )
        arg_parser.add_argument(
            "--mlir-print-debuginfo",
            dest="print_debuginfo",
            action="store_true",
            help="the same as --print-debuginfo (mlir-opt's spelling)",
        )
        arg_parser.add_argument(
            "--mlir-elide-resource-strings-if-larger",
            type=int,
            metavar="N",
            help="print the data of resources (weights) longer than N characters as \"__elided__\", "
            "for text meant for people (such text does not run)",
        )
        arg_parser.add_argument(
            "--timeout",
            type=seconds,
            metavar="SECONDS",
            help="stop reading, passes and writing after this long, with a diagnostic and no output (default: none)",
        )
        arg_parser.add_argument(
            "--max-tensor-bytes",
            type=byte_size,
            default=DEFAULT_MAX_TENSOR_BYTES,
            metavar="N",
            help="refuse any one tensor larger than this (e.g. 512M, 16G; default "
            f"{format_bytes(DEFAULT_MAX_TENSOR_BYTES)})",
        )

    def setup_pipeline(self) -> None:
        # xDSL's, with diagnostics for people (see `build_pipeline`); `--time-passes` is
        # ours (nested, on stderr), so xDSL's callback does not time.
        spec = self.args.passes
        timing = self.args.time_passes
        self.args.passes = ""
        self.args.time_passes = False
        super().setup_pipeline()  # an empty pipeline with xDSL's between-pass callback
        self.args.passes = spec  # args.time_passes stays off: xDSL's callback reads it at every pass
        if timing:
            self.pass_timer = PassTimer()
            self.report_pass_times = True
        if spec:
            self.pipeline = build_pipeline(self.available_passes, spec, self.pipeline.callback)

    def register_all_dialects(self) -> None:
        # xDSL's own three register from `Universe.get_multiverse()`, each reading the entry points again
        for name, factory in multiverse().all_dialects.items():
            self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        for name, factory in multiverse().all_passes.items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        for name, factory in multiverse().all_targets.items():
            self.available_targets.setdefault(name, factory)
        self.available_targets.update(get_all_targets())
        self.available_targets["mlir"] = get_mlir_target  # weights one a line, elision of large ones

    def register_all_frontends(self) -> None:
        def parse_mlir(io: IO[bytes]) -> ModuleOp:
            data = io.read()
            if data.startswith(b"PK\x03\x04"):
                raise ExirUserError(
                    f"{self.get_input_name()}: a zip archive (a torch.export .pt2?), not textual IR; read it with --from pt2"
                )
            text = data.decode("utf-8", errors="replace")
            parser = LocatingParser(
                self.ctx, text, self.get_input_name(), self._chunk_line_offset
            )
            try:
                return parser.parse_module(not self.args.no_implicit_module)
            except RecursionError:
                line, col = parser.line_col(parser.pos)
                raise ExirUserError(
                    f"{self.get_input_name()}:{line}:{col}: operations nested too deeply to read "
                    "(Python's recursion limit)"
                ) from None
            except (ValueError, OverflowError) as e:  # xDSL converts literals with int()/float()
                line, col = parser.line_col(parser.pos)
                raise ExirUserError(f"{self.get_input_name()}:{line}:{col}: number out of range ({e})") from None
            except VerifyException as e:  # an attribute or type refused as it is built
                line, col = parser.line_col(parser.pos)
                raise ExirUserError(f"{self.get_input_name()}:{line}:{col}: {e}") from None

        self.available_frontends["mlir"] = parse_mlir

        def parse_pt2(io: IO[bytes]) -> ModuleOp:
            from xdsl_exir.frontends.pt2 import Pt2Error, load_pt2

            try:
                if self._pt2_path is not None:  # mapped by path: its weights are not read here
                    return load_pt2(self._pt2_path, self.get_input_name())
                return load_pt2(io.read(), self.get_input_name())
            except Pt2Error as e:
                raise ExirUserError(str(e)) from None

        self.available_frontends["pt2"] = parse_pt2

        def parse_torchscript(io: IO[bytes]) -> ModuleOp:
            from xdsl_exir.frontends.torchscript_dump_reader import TorchScriptParseError
            from xdsl_exir.frontends.torchscript_dump_reader import parse_torchscript as parse

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
            except RecursionError:
                raise ExirUserError(
                    f"{self.get_input_name()}: expressions nested too deeply to compile (Python's recursion limit)"
                ) from None

        self.available_frontends["script"] = parse_script

    # -- running ------------------------------------------------------------

    def read_stdin(self) -> bytes:
        """All of stdin, read once (the format is sniffed from it, then it is parsed)."""
        data = self._stdin
        if data is None:
            data = self._stdin = sys.stdin.buffer.read()
        return data

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        if self.args.input_file is None:
            return BytesIO(self.read_stdin()), self.frontend_name
        return super().get_input_stream()

    def prepare_input(self) -> tuple[list[tuple[IO[bytes], int]], str]:
        path = self.args.input_file
        if path is not None and os.path.isdir(path):
            raise ExirUserError(
                directory_given(path, "exir-opt", "; a compiled artifact's directory (--emit iree-bundle) runs with exir-run")
            )
        if path is not None and not os.path.isfile(path):
            raise ExirUserError(f"{path}: no such file")
        if self.args.split_input_file and self.frontend_name != "mlir":
            raise ExirUserError(f"--split-input-file splits textual IR; the input is read as '{self.frontend_name}'")
        self.args.frontend = self.frontend_name
        if self.frontend_name not in self.available_frontends:
            raise ExirUserError(
                f"no '{self.frontend_name}' frontend in this build (available: "
                + ", ".join(sorted(self.available_frontends))
                + ")"
            )
        chunks, extension = super().prepare_input()
        if extension == "pt2" and path is not None and len(chunks) == 1 and os.path.isfile(path):
            # The archive is mapped by its path (`load_pt2`), not read into memory here.
            chunks[0][0].close()
            self._pt2_path = path
            return [(BytesIO(b""), 0)], extension
        return chunks, extension

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None:
        self._chunk_line_offset = start_offset
        return super().parse_chunk(chunk, file_extension, start_offset)

    def apply_passes(self, prog: ModuleOp) -> None:
        self.last_module = prog
        if not self.args.passes:
            super().apply_passes(prog)
            return
        pipeline = self.pipeline
        running: list[ModulePass | None] = [pipeline.passes[0] if pipeline.passes else None]

        def track(done: ModulePass | None, module: ModuleOp, following: ModulePass | None) -> None:
            running[0] = following
            if pipeline.callback is not None:
                pipeline.callback(done, module, following)

        self.pipeline = PassPipeline(pipeline.passes, track)
        try:
            with progress(f"running {self.args.passes}"), _stock_failures(
                lambda: _stock_pass_name(running[0]), "pass", prog
            ):
                if self.pass_timer is None:
                    super().apply_passes(prog)
                else:
                    with self.pass_timer.active():
                        super().apply_passes(prog)
        finally:
            self.pipeline = pipeline

    def output_resulting_program(self, prog: ModuleOp) -> str:
        """
        The target's text. xDSL's own targets (assembly, llvm, wat, ...) take other
        dialects: where one fails on this module, or writes nothing for a module that
        has ops, the user gets one line naming the target and the module's dialects.
        """
        name = parse_spec(self.args.target).name
        stock = name not in get_all_targets() and name != "mlir"
        with _stock_failures(lambda: name if stock else None, "output format", prog):
            if not stock:
                return super().output_resulting_program(prog)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                text = super().output_resulting_program(prog)
            said = [(str(w.message).splitlines() or [""])[0] for w in caught]
            if not text.strip() and any(True for _ in prog.body.block.ops):
                raise ExirUserError(
                    f"--emit {name} wrote nothing for this module: xDSL's {name} target prints only the "
                    f"ops of its own dialects, and this module holds {_dialects_of(prog)}"
                    + "".join(f" (it said: {w})" for w in said[:1])
                )
            for w in said:
                print(f"exir-opt: warning: --emit {name}: {w}", file=sys.stderr)
            return text

    def run(self) -> None:
        """
        xDSL's loop over the input's chunks, with mlir-opt's behaviour for
        `--split-input-file` (every chunk is processed; each failing one is
        reported and the run fails at the end) and `--verify-diagnostics` (the
        diagnostics must be exactly the ones the input's comments expect; an
        input that expects none must produce none).
        """
        chunks, file_extension = self.prepare_input()
        output_stream = self.prepare_output()
        verify = bool(self.args.verify_diagnostics)
        failed = 0
        problems: list[str] = []
        try:
            for i, (chunk, offset) in enumerate(chunks):
                data = chunk.read()
                chunk.close()
                if i > 0:
                    output_stream.write("// -----\n")
                produced: list[Diagnostic] = []
                self.last_module = None  # a failure while parsing must not be looked for in the previous chunk
                try:
                    with progress(f"reading {self.get_input_name()}"):
                        module = self.parse_chunk(BytesIO(data), file_extension, offset)
                    if module is not None:
                        self.apply_passes(module)
                        self.write_resulting_program(module, output_stream)
                    output_stream.flush()
                except ParseError as e:
                    e.span = dataclasses.replace(e.span, line_offset=offset)
                    if self.args.parsing_diagnostics:
                        print(e)
                        continue
                    if not (verify or self.args.split_input_file):
                        raise
                    produced = [_as_diagnostic(format_parse_error(e))]
                except (VerifyException, DiagnosticException, ExirUserError) as e:
                    if not (verify or self.args.split_input_file):
                        raise
                    if isinstance(e, ExirUserError):
                        produced = [_as_diagnostic(str(e))]
                    else:
                        produced = _verify_diagnostics(e, self.last_module)
                if verify:
                    text = data.decode("utf-8", errors="replace")
                    expected, malformed = parse_expectations(text, offset)
                    problems += [f"{self.get_input_name()}:{m}" for m in malformed]
                    problems += check(self.get_input_name(), expected, produced)
                elif produced:
                    failed += 1
                    for diag in produced:
                        where = f"{self.get_input_name()}:{diag.line}:{diag.col}: " if diag.line else ""
                        print(f"exir-opt: error: {where}{diag.message}", file=sys.stderr)
        finally:
            if output_stream is not sys.stdout:
                output_stream.close()
        if self.pass_timer is not None and self.report_pass_times:
            sys.stderr.write(self.pass_timer.report())
        if problems:
            for problem in problems:
                print(problem, file=sys.stderr)
            raise ChunkFailures(
                f"{len(problems)} difference" + ("s" if len(problems) > 1 else "") + " from the expected diagnostics"
            )
        if failed:
            raise ChunkFailures(f"{failed} of {len(chunks)} input chunks failed")

    def prepare_output(self) -> IO[str]:
        # An output file is written only on success: to a temporary file beside it
        # (streamed, so weights printed as hex never sit in memory whole), renamed
        # at the end; a device (/dev/null) or an unusable directory: a buffer.
        if self.args.output_file is None:
            return sys.stdout
        real = os.path.realpath(self.args.output_file)
        if not os.path.exists(real) or stat.S_ISREG(os.stat(real).st_mode):
            try:
                fd, tmp = tempfile.mkstemp(dir=os.path.dirname(real), prefix=".exir-")
            except OSError:
                pass  # said by write_atomically, at the end
            else:
                mask = os.umask(0)
                os.umask(mask)
                os.chmod(tmp, 0o666 & ~mask)  # mkstemp makes 0600; give the usual mode
                self._spool = (tmp, real)
                self._spool_stream = _KeptFile(fd)
                return self._spool_stream
        self.buffer = _KeptBuffer()
        return self.buffer

    def write_resulting_program(self, prog: ModuleOp, stream: IO[str]) -> None:
        """The target's text into `stream`: this project's `mlir` target writes a file directly."""
        spec = parse_spec(self.args.target)
        if spec.name == "iree-bundle" and self.bundle_dir is not None:
            factory: Any = self.available_targets["iree-bundle"]
            target = factory().from_spec(spec)
            target.write(prog, self.bundle_dir)  # a directory, written whole or not at all
            return
        if not (self._spool is not None and spec.name == "mlir" and self.available_targets.get("mlir") is get_mlir_target):
            stream.write(self.output_resulting_program(prog))
            return
        target = dataclasses.replace(
            get_mlir_target()().from_spec(spec),
            print_generic_format=self.args.print_op_generic,
            print_properties_as_attributes=self.args.print_no_properties,
            print_debuginfo=self.args.print_debuginfo,
            syntax_highlight=self.args.syntax_highlight,
        )
        target.emit(self.ctx, prog, stream)

    def commit_output(self) -> None:
        out = self.args.output_file
        if out is None:
            return
        if self._spool is not None:
            tmp, real = self._spool
            self._spool = None
            try:
                self._close_spool()
                os.replace(tmp, real)
            except OSError as e:
                os.unlink(tmp)
                raise ExirUserError(f"-o {out}: cannot write it ({e.strerror or e})") from None
            return
        if self.buffer is None:
            return
        write_atomically(out, self.buffer.getvalue().encode())

    def discard_output(self) -> None:
        """Remove the temporary output of a run that failed (nothing is written then)."""
        self._close_spool()
        if self._spool is not None:
            tmp, self._spool = self._spool[0], None
            if os.path.exists(tmp):
                os.unlink(tmp)

    def _close_spool(self) -> None:
        stream, self._spool_stream = self._spool_stream, None
        if stream is not None:
            stream.really_close()


_OUR_DIAGNOSTICS = (
    ParseError, VerifyException, DiagnosticException, ExirUserError, InterpreterError, TensorDataError, KeyboardInterrupt,
)
"""Failures that already say what is wrong in the user's terms; a stock pass or target's
other exceptions are its internal assumptions about the dialects it was given."""


def _stock_pass_name(p: ModulePass | None) -> str | None:
    """The name of `p` when it is one of xDSL's passes (or a plugin's), not one of ours."""
    if p is None or type(p).__module__.startswith("xdsl_exir."):
        return None
    return p.name


def _dialects_of(module: ModuleOp) -> str:
    names = sorted({op.name.split(".", 1)[0] for op in module.walk() if op is not module})
    return "ops of the dialects " + ", ".join(names) if names else "no ops"


@contextlib.contextmanager
def _stock_failures(which: Callable[[], str | None], kind: str, module: ModuleOp) -> typing.Iterator[None]:
    """
    Turn an unexpected exception of a stock pass or target into one line: which one, what
    the module holds, and the exception's first line (a stock pass asserting on ops it
    does not know would otherwise print the whole program as an internal error).
    """
    try:
        yield
    except Exception as e:
        name = which()
        # Ours say what is wrong; so does a stock pass's one-line diagnostic, but not one
        # that dumps the module (xDSL's transform-interpreter does).
        ours = isinstance(e, _OUR_DIAGNOSTICS) and not (isinstance(e, DiagnosticException) and "\n" in str(e).strip())
        if name is None or ours:
            raise
        lines = str(e).strip().splitlines()
        # A one-line message says something; a longer one is an op dumped by an assertion.
        why = f"{type(e).__name__}: {lines[0][:160]}" if len(lines) == 1 else type(e).__name__
        raise ExirUserError(
            f"xDSL's {kind} '{name}' failed on this module ({why}); the module holds "
            f"{_dialects_of(module)}, and xDSL's own passes and output formats expect the dialects "
            "they were written for"
        ) from None


def _fail(message: str) -> NoReturn:
    print(f"exir-opt: error: {message}", file=sys.stderr)
    raise SystemExit(1)


def byte_size(text: str) -> int:
    """argparse type of `--max-tensor-bytes`."""
    try:
        return parse_byte_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def format_parse_error(e: ParseError) -> str:
    """
    `file:line:col: message`, then the source line with the span underlined:
    one paragraph, so a span at an empty line or the end of the input shows no
    (blank) source line, and a message xDSL leaves without a subject gets one.
    """
    span = e.span
    msg = re.sub(r"expected(?=[a-z])", "expected ", e.msg.strip()) or "syntax error"  # xDSL's "expectedin ..."
    if e.msg[:1].isspace():  # xDSL's "<token kind>" part is missing: say what was found
        found = span.text.strip() if span.start < len(span.input.content) else ""
        msg = f"unexpected {repr(found) if found else 'end of input'} {msg}"
    context = [line for line in span.print_with_context(None).splitlines()[1:3]]
    if len(context) < 2 or not context[0].strip():
        return f"{span.get_location()}: {msg}"
    return f"{span.get_location()}: {msg}\n" + "\n".join(context)


def describe_unexpected(e: BaseException, where: str | None = None) -> str:
    """The diagnostic for a failure no frontend, pass or interpreter check named (`where`: the input)."""
    place = f"{where}: " if where else ""
    if isinstance(e, RecursionError):
        return f"{place}the input is nested too deeply to process (Python's recursion limit)"
    if isinstance(e, MemoryError):
        return f"{place}out of memory: the input needs more memory than this machine has"
    if isinstance(e, OSError) and e.strerror:
        return f"{e.filename + ': ' if e.filename else ''}{e.strerror}"
    return (
        f"internal error ({type(e).__name__}: {e}); please report it with the input, "
        "or rerun with EXIR_DEBUG=1 for a traceback"
    )


def _as_diagnostic(message: str, kind: str = "error") -> Diagnostic:
    line, col, rest = split_location(message)
    return Diagnostic(kind, line, col, rest)


def _verify_diagnostics(module_error: Exception, root: Operation | None) -> list[Diagnostic]:
    """Every op the verifiers reject (each on its own), or the error itself when no op is to blame."""
    found: list[Diagnostic] = []
    if root is not None and not isinstance(module_error, ExirDiagnostic):
        for op in root.walk():
            try:
                op.verify(verify_nested_ops=False)
            except Exception as e:
                found.append(_as_diagnostic(f"{locate(op)}: {e.args[0] if e.args else e}"))
    return found or [_as_diagnostic(describe_verify_failure(module_error, root))]


def describe_verify_failure(module_error: Exception, root: Operation | None) -> str:
    """Find the op a core verifier rejected, to name its location (`exir-run` reports verify failures the same way)."""
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
    accept_interrupts()
    try:
        return _run(argv)
    except KeyboardInterrupt:
        print("exir-opt: interrupted", file=sys.stderr)
        return INTERRUPTED


def _run(argv: Sequence[str] | None) -> int:
    debug = bool(os.environ.get("EXIR_DEBUG"))
    try:
        tool = ExirOptMain(args=argv)
    except SystemExit as e:  # argparse already printed its message; a usage error is bad input: exit 1, as documented
        code = int(e.code or 0)
        return 1 if code == 2 else code
    except ExirUserError as e:
        _fail(str(e))
    except Exception as e:
        if debug:
            raise
        _fail(str(e))
    try:
        if tool.args.emit:
            check_target(tool, tool.args.emit)
            tool.args.target = tool.args.emit
        if tool.args.mlir_elide_resource_strings_if_larger is not None and tool.args.target == "mlir":
            tool.args.target = f"mlir{{elide-resource-strings-if-larger={tool.args.mlir_elide_resource_strings_if_larger}}}"
        if tool.args.target.split("{")[0].strip() == "iree-bundle":
            if tool.args.output_file is None:
                raise ExirUserError("--emit iree-bundle writes a directory: name it with -o DIR")
            if (problem := destination_problem(tool.args.output_file)) is not None:
                raise ExirUserError(f"-o {tool.args.output_file}: {problem}")
            tool.bundle_dir, tool.args.output_file = tool.args.output_file, None
        if tool.args.output_file is not None:
            check_output_path(tool.args.output_file)
        tool.frontend_name = tool.args.from_format or tool.args.frontend or sniff_frontend(tool)
        try:
            with max_tensor_bytes(tool.args.max_tensor_bytes), time_limit(tool.args.timeout):
                tool.run()
            tool.commit_output()
        finally:
            tool.discard_output()
    except SystemExit:
        raise
    except RunTimeout:
        _fail(f"timed out after {tool.args.timeout:g} s (--timeout); no output was written")
    except TimeoutUnavailable as e:
        _fail(str(e))
    except ParseError as e:
        if debug:
            raise
        _fail(format_parse_error(e))
    except (VerifyException, DiagnosticException) as e:
        if debug:
            raise
        _fail(describe_verify_failure(e, tool.last_module))
    except ExirUserError as e:
        _fail(str(e))
    except InterpreterError as e:  # a pass that runs the interpreter (constant folding, calibration): located
        if debug:
            raise
        _fail(str(e))
    except TensorDataError as e:  # weights a target needs but the text left out (elided) or holds malformed
        if debug:
            raise
        where = f"{tool.args.input_file}:"
        _fail(str(e) if str(e).startswith(where) else f"{where} {e}")  # located already (a blob's hex): once
    except Exception as e:
        if debug:
            raise
        _fail(describe_unexpected(e, tool.args.input_file))
    return 0


def check_target(tool: ExirOptMain, target: str) -> None:
    """Refuse an unknown `--emit` before any work, naming the known formats."""
    try:
        name = parse_spec(target).name
    except ArgSpecParseError:
        name = target
    if name not in tool.available_targets:
        known = sorted(tool.available_targets)
        raise ExirUserError(
            f"--emit {target}: unknown output format" + did_you_mean(name, known) + f" (known: {', '.join(known)})"
        )
    entry = tool.available_targets[name]
    if inspect.signature(entry).parameters:
        return  # a legacy printing function: it takes no options
    try:
        target_class = typing.cast(Callable[[], type[Target]], entry)()
    except ImportError as e:
        raise ExirUserError(f"--emit {name} needs a Python package that is not installed ({e})") from None
    try:
        target_class.from_spec(parse_spec(target))
    except ArgSpecParseError as e:
        raise ExirUserError(f"--emit {target}: {e}") from None
    except DiagnosticException as e:  # a target that names its own options' faults
        raise ExirUserError(str(e)) from None
    except (ValueError, TypeError) as e:
        fields = [f.name.replace("_", "-") for f in dataclasses.fields(target_class)] if dataclasses.is_dataclass(target_class) else []
        takes = f"it takes {', '.join(fields)}" if fields else "it takes no options"
        raise ExirUserError(f"--emit {target}: {str(e).splitlines()[0] if str(e) else type(e).__name__} ({takes})") from None


def sniff_frontend(tool: ExirOptMain) -> str:
    """The frontend of the tool's input, from its name and first bytes (`exir-run` reads its inputs the same way)."""
    path = tool.args.input_file
    head = b""
    if path is None:
        head = tool.read_stdin()[:4096]
    elif os.path.isfile(path):
        with open(path, "rb") as f:
            head = f.read(4096)
    return detect_frontend(path, head)


def main() -> None:
    raise SystemExit(run())


if __name__ == "__main__":
    main()
