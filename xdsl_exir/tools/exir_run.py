"""
`exir-run`: run a program on numpy.

    exir-run INPUT [-p PIPELINE] [--inputs IN.npz] [-o OUT.npz] [--profile] [--trace OUT.json]

INPUT is anything `exir-opt` reads (textual IR, a `.pt2` archive, a
TorchScript dump, a Python file for the script frontend), through the same
frontends; `-p` runs a pass pipeline first. A directory is a compiled
artifact (`exir-opt --emit iree-bundle -o DIR`, `Program.compile(...).save`),
run by `xdsl_exir.runtime` on IREE as it was compiled. `IN.npz` holds the user inputs
`arg0 ..` (pytree-flattened, Python scalars as 0-d arrays) and `OUT.npz`
receives the user outputs `out0 ..`. A module holding TorchScript runs through
`TorchScriptRunner` (`--entry NAME` picks the method or function to call:
`forward`, or the only function there is); any other through `ProgramRunner`.
Without `-o` the outputs are summarised on stdout.

`--profile` prints a per-operator table on stderr (calls, self and total time,
share of the run, FLOPs and GFLOP/s where `flop-count` knows them), as
torch.profiler's `key_averages()` does; `--trace OUT.json` writes the run as a
Chrome/Perfetto trace. Both time `--runs N` runs (default 1) after `--warmup K`
untimed ones (default 1, so that first-call set-up is not in the times). Loading and running show a progress line on stderr when
they take more than a second and stderr is a terminal.

This module is only the command line: the work is in `run_program.py`,
imported once the arguments are parsed, so `--help` and `--version` start at
once. Every failure is one located paragraph on stderr and exit code 1
(`EXIR_DEBUG=1` shows the traceback); `-o` is written only on success, and a
directory or a file in a missing directory is refused before any work.
`--timeout SECONDS` stops loading, passes and the run after that long with a
diagnostic and no output. Ctrl-C ends the run with exit code 130 and a
one-line message.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any, NoReturn

from xdsl_exir import __version__
from xdsl_exir.tools import INTERRUPTED, RunTimeout, accept_interrupts, seconds
from xdsl_exir.tools.progress import progress
from xdsl_exir.utils.limits import DEFAULT_MAX_TENSOR_BYTES, format_bytes, parse_byte_size

PROG = "exir-run"

FROM_FORMATS = ("mlir", "pt2", "torchscript", "script")
"""What `--from` takes: exir-opt's frontends."""


def version_text(tool: str) -> str:
    """`--version` of both tools: ours and the xDSL we are built on."""
    try:
        xdsl_version = version("xdsl")
    except PackageNotFoundError:
        xdsl_version = "unknown"
    return f"{tool} (xdsl-exir) {__version__}, built on xdsl {xdsl_version}"


def _fail(message: str) -> NoReturn:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    raise SystemExit(1)


def _seed(text: str) -> int:
    """argparse type of `--random-inputs`: numpy's generators take a non-negative integer."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer seed, got {text!r}")
    return value


def _warmups(text: str) -> int:
    """`--warmup`: a count of runs, zero or more."""
    return _run_count(text, 0)


def _runs(text: str) -> int:
    """`--runs`: a count of runs, one or more."""
    return _run_count(text, 1)


def _run_count(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not least <= value <= 1_000_000:
        raise argparse.ArgumentTypeError(f"expected a number of runs ({least} or more), got {text!r}")
    return value


def _positive_int(text: str) -> int:
    """`--threads`: a count of at least one."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number of threads, got '{text}'")
    return n


def _byte_size(text: str) -> int:
    try:
        return parse_byte_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=PROG, description="Run an exir program on numpy.")
    parser.add_argument(
        "input_file",
        help="textual IR (.mlir), a torch.export archive (.pt2), a TorchScript dump, a .py file, or a compiled "
        "artifact's directory (exir-opt --emit iree-bundle); - for stdin",
    )
    parser.add_argument(
        "-p", "--passes", "--pass-pipeline", dest="pipeline", metavar="PIPELINE", help="pass pipeline to run first (as exir-opt -p)"
    )
    parser.add_argument(
        "--from", dest="from_format", choices=FROM_FORMATS, help="input format (default: from the extension, else the content)"
    )
    parser.add_argument("--inputs", metavar="IN.npz", help="npz file with the user inputs arg0 ..")
    parser.add_argument(
        "--random-inputs", type=_seed, metavar="SEED", help="draw the user inputs from their types with this seed"
    )
    parser.add_argument("-o", "--output", metavar="OUT.npz", help="npz file to write the user outputs out0 .. to")
    parser.add_argument(
        "--entry", metavar="NAME", help="TorchScript: the method or function to run (default: forward, or the only function)"
    )
    parser.add_argument(
        "--profile", action="store_true", help="print a per-operator profile of the run on stderr (calls, times, FLOPs)"
    )
    parser.add_argument(
        "--runs",
        type=_runs,
        default=None,
        metavar="N",
        help="--profile/--trace: time N runs (default 1); the table sums them, the trace shows each",
    )
    parser.add_argument(
        "--warmup",
        type=_warmups,
        default=None,
        metavar="K",
        help="--profile/--trace: run K times untimed first (default 1: caches and lazy set-up out of the times)",
    )
    parser.add_argument(
        "--trace", metavar="OUT.json", help="write loading, passes and the run as a Chrome/Perfetto trace (trace-event JSON)"
    )
    parser.add_argument(
        "--time-passes", action="store_true", help="report the time of each pass of -p on stderr (as exir-opt --time-passes)"
    )
    parser.add_argument(
        "--timeout",
        type=seconds,
        metavar="SECONDS",
        help="stop loading, passes and the run after this long, with a diagnostic and no output (default: none)",
    )
    parser.add_argument(
        "--max-tensor-bytes",
        type=_byte_size,
        default=DEFAULT_MAX_TENSOR_BYTES,
        metavar="N",
        help="refuse to allocate any one tensor larger than this (e.g. 512M, 16G; default "
        f"{format_bytes(DEFAULT_MAX_TENSOR_BYTES)})",
    )
    parser.add_argument(
        "--backend",
        choices=["interpreter", "iree"],
        default="interpreter",
        help="run on the numpy interpreter (default) or compile to native code with IREE (the 'iree' extra)",
    )
    parser.add_argument(
        "--threads",
        type=_positive_int,
        metavar="N",
        help="threads of the backend: numpy's BLAS for the interpreter, the most workers for IREE, "
        "where a program under 2e8 flops runs on the calling thread (default: all cores, as eager "
        "PyTorch; 1 for steady timings on a shared machine)",
    )
    parser.add_argument(
        "--iree-device", default="cpu", help="IREE: target device, cpu (default), cuda, rocm or vulkan"
    )
    parser.add_argument("--iree-cache-dir", help="IREE: where compiled modules are cached (default ~/.cache/xdsl-exir/iree)")
    parser.add_argument("--no-iree-cache", action="store_true", help="IREE: always compile, never read or write the cache")
    parser.add_argument("-v", "--version", action="version", version=version_text(PROG), help="print the versions of xdsl-exir and xDSL")
    return parser.parse_args(argv)


def run(argv: Sequence[str] | None = None) -> int:
    """Run the tool; returns the exit code (used by tests and `main`)."""
    accept_interrupts()
    try:
        return _run(argv)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return INTERRUPTED


def _run(argv: Sequence[str] | None) -> int:
    debug = bool(os.environ.get("EXIR_DEBUG"))
    try:
        args = parse_args(argv)
    except SystemExit as e:  # argparse printed its message; a usage error is bad input: exit 1, as documented
        code = int(e.code or 0)
        return 1 if code == 2 else code
    with progress("starting"):
        from xdsl_exir.tools import run_program  # the heavy part, after parsing (see the module doc)

    loaders: list[Any] = []
    try:
        run_program.execute(args, loaders)
    except SystemExit:
        raise
    except RunTimeout:
        _fail(f"timed out after {args.timeout:g} s (--timeout); no output was written")
    except BrokenPipeError:
        # The reader went away (`exir-run m.txt | head`): not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:
        if debug:
            raise
        _fail(run_program.message(e, loaders[0].tool.last_module if loaders else None, args.input_file))
    return 0


def main() -> None:
    raise SystemExit(run())


if __name__ == "__main__":
    main()
