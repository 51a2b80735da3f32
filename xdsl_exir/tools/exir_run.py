"""
`exir-run`: run a program on numpy.

    exir-run INPUT [-p PIPELINE] [--inputs IN.npz] [-o OUT.npz]

INPUT is anything `exir-opt` reads (textual IR, a `.pt2` archive, a
TorchScript dump), through the same frontends; `-p` runs a pass pipeline
first. `IN.npz` holds the user inputs `arg0 ..` (pytree-flattened, Python
scalars as 0-d arrays) and `OUT.npz` receives the user outputs `out0 ..`.
A module holding TorchScript (`ts.module` / `ts.method` ops, as the
TorchScript frontend makes from a graph dump) runs through
`TorchScriptRunner` (`--entry NAME` picks the method or function to call);
any other through `ProgramRunner`.
Without `-o` the outputs are summarised on stdout. Input files are read with
`allow_pickle=False`. Every failure is one located paragraph on stderr and
exit code 1 (`EXIR_DEBUG=1` shows the traceback); `-o` is written only on
success.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import zipfile
from collections.abc import Sequence
from typing import IO, Any, NoReturn

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

from xdsl_exir.dialects.exir import BoolType, FloatType, IntType, SymBoolType, SymFloatType, SymIntType, TensorType
from xdsl_exir.interpreters.aten_kernels import numpy_dtype
from xdsl_exir.interpreters.compiler import InterpreterError
from xdsl_exir.interpreters.program import ProgramRunner

PROG = "exir-run"


class _Loader:
    """Reuses exir-opt's frontends, pipeline handling and diagnostics."""

    def __init__(self, input_file: str, pipeline: str | None, from_format: str | None) -> None:
        from xdsl_exir.tools.exir_opt import ExirOptMain, _sniff  # pyright: ignore[reportPrivateUsage]

        argv = [input_file]
        if pipeline:
            argv += ["-p", pipeline]
        if from_format:
            argv += ["--from", from_format]
        loader = self

        class _Main(ExirOptMain):
            def output_resulting_program(self, prog: ModuleOp) -> str:
                loader.module = prog
                return ""

            def prepare_output(self) -> IO[str]:
                return open(os.devnull, "w")

        self.module: ModuleOp | None = None
        self.tool = _Main(args=argv)
        self.tool.frontend_name = from_format or _sniff(self.tool)

    def load(self) -> ModuleOp:
        self.tool.run()
        if self.module is None:
            raise InterpreterError("the input holds no module")
        return self.module


def _fail(message: str) -> NoReturn:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    raise SystemExit(1)


def _read_inputs(path: str, names: Sequence[str]) -> list[Any]:
    if not os.path.isfile(path):
        raise InterpreterError(f"{path}: no such file")
    with open(path, "rb") as f:
        if f.read(4) != b"PK\x03\x04":
            raise InterpreterError(f"{path}: not an .npz file (numpy.savez output)")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as e:
        raise InterpreterError(f"{path}: cannot read the inputs: {e}") from None
    expected = [f"arg{i}" for i in range(len(names))]
    extra = sorted(set(arrays) - set(expected))
    missing = [k for k in expected if k not in arrays]
    if missing or extra:
        detail = []
        if missing:
            detail.append("missing " + ", ".join(f"{k} ({names[int(k[3:])]})" for k in missing))
        if extra:
            detail.append("unexpected " + ", ".join(extra))
        raise InterpreterError(
            f"{path}: the program takes {len(names)} user inputs ({', '.join(names) or 'none'}) "
            f"as arg0..arg{len(names) - 1}; " + "; ".join(detail)
        )
    return [arrays[k] for k in expected]


def random_inputs(runner: ProgramRunner, seed: int) -> list[Any]:
    """Inputs drawn from the placeholder types (symbolic sizes take their lower bound, at least 2)."""
    rng = np.random.default_rng(seed)
    entry = runner.program.entry
    assert entry is not None
    ranges = runner.program.ranges()
    values: list[Any] = []
    for spec, t in zip(runner.program.inputs.data, entry.function_type.inputs.data):
        if spec.arg_name.data not in runner.user_input_names or spec.input_kind.value != "user_input":
            continue
        if isinstance(t, TensorType):
            shape = []
            for s in t.sizes:
                if isinstance(s, int):
                    shape.append(s)
                else:
                    low = ranges.get(s, (2, None))[0]
                    shape.append(max(int(low) if low.is_finite else 2, 2))  # type: ignore[union-attr]
            dt = numpy_dtype(t.element_dtype)
            if dt.kind == "f":
                values.append(rng.standard_normal(shape).astype(dt))
            elif dt.kind == "b":
                values.append(rng.random(shape) < 0.5)
            elif dt.kind == "c":
                values.append((rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt))
            else:
                values.append(rng.integers(0, 4, shape).astype(dt))
        elif isinstance(t, (IntType, SymIntType)):
            values.append(np.asarray(2))
        elif isinstance(t, (FloatType, SymFloatType)):
            values.append(np.asarray(rng.standard_normal()))
        elif isinstance(t, (BoolType, SymBoolType)):
            values.append(np.asarray(True))
        else:
            raise InterpreterError(f"cannot make a random value of type {t} for input '{spec.arg_name.data}'")
    return values


def _flatten(value: Any, out: list[np.ndarray]) -> None:
    if isinstance(value, (list, tuple)):
        for v in value:  # pyright: ignore[reportUnknownVariableType]
            _flatten(v, out)
    elif value is None:
        return
    else:
        out.append(np.asarray(value))


def _write_outputs(path: str, outputs: Sequence[np.ndarray]) -> None:
    from xdsl_exir.tools.exir_opt import write_atomically

    buffer = io.BytesIO()
    np.savez(buffer, **{f"out{i}": o for i, o in enumerate(outputs)})
    write_atomically(path, buffer.getvalue())


def _summarise(outputs: Sequence[np.ndarray]) -> str:
    lines = []
    with np.printoptions(precision=6, threshold=20, edgeitems=3, linewidth=100):
        for i, o in enumerate(outputs):
            lines.append(f"out{i}: {o.dtype}{list(o.shape)}")
            lines.append("  " + str(o).replace("\n", "\n  "))
    return "\n".join(lines)


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=PROG, description="Run an exir program on numpy.")
    parser.add_argument("input_file", help="textual IR (.mlir), a torch.export archive (.pt2) or a TorchScript dump")
    parser.add_argument("-p", "--passes", dest="pipeline", help="pass pipeline to run first (as exir-opt -p)")
    parser.add_argument("--from", dest="from_format", choices=["mlir", "pt2", "torchscript"], help="input format")
    parser.add_argument("--inputs", help="npz file with the user inputs arg0 ..")
    parser.add_argument(
        "--random-inputs", type=int, metavar="SEED", help="draw the user inputs from their types with this seed"
    )
    parser.add_argument("-o", "--output", help="npz file to write the user outputs out0 .. to")
    parser.add_argument("--entry", help="TorchScript: the method or function to run (default: forward)")
    parser.add_argument(
        "--backend",
        choices=["interpreter", "iree"],
        default="interpreter",
        help="run on the numpy interpreter (default) or compile to native code with IREE (the 'iree' extra)",
    )
    parser.add_argument("--threads", type=int, help="IREE: worker threads (default: all cores, as eager PyTorch)")
    parser.add_argument(
        "--iree-device", default="cpu", help="IREE: target device, cpu (default), cuda, rocm or vulkan"
    )
    parser.add_argument("--iree-cache-dir", help="IREE: where compiled modules are cached (default ~/.cache/xdsl-exir/iree)")
    parser.add_argument("--no-iree-cache", action="store_true", help="IREE: always compile, never read or write the cache")
    return parser.parse_args(argv)


def _run_torchscript(module: ModuleOp, args: argparse.Namespace) -> list[np.ndarray]:
    """Run a TorchScript program with exir-run's npz contract (see `ts_runner`)."""
    from xdsl_exir.interpreters.ts_runner import TorchScriptRunner

    runner = TorchScriptRunner(module, entry=args.entry)
    if args.inputs is not None:
        names = runner.flat_input_names
        inputs = _read_inputs(args.inputs, names) if names is not None else _read_all_inputs(args.inputs)
    elif args.random_inputs is not None:
        inputs = runner.random_flat_inputs(args.random_inputs)
    elif runner.input_types:
        raise InterpreterError(
            f"the graph takes inputs ({', '.join(runner.input_names)}); "
            "give them with --inputs IN.npz (or --random-inputs SEED)"
        )
    else:
        inputs = []
    return runner.run_flat(inputs)


def _read_all_inputs(path: str) -> list[Any]:
    """Every `arg<i>` of an npz, in order (when a list input makes their number vary)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            keys = list(data.files)
    except (OSError, ValueError, zipfile.BadZipFile, EOFError):
        keys = []  # _read_inputs says what is wrong with the file
    count = sum(1 for k in keys if k.startswith("arg") and k[3:].isdigit())
    return _read_inputs(path, [f"arg{i}" for i in range(count)])


def run(argv: Sequence[str] | None = None) -> int:
    """Run the tool; returns the exit code (used by tests and `main`)."""
    debug = bool(os.environ.get("EXIR_DEBUG"))
    try:
        args = _parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    loader: _Loader | None = None
    try:
        if not os.path.isfile(args.input_file):
            raise InterpreterError(f"{args.input_file}: no such file")
        try:
            loader = _Loader(args.input_file, args.pipeline, args.from_format)
        except (ValueError, KeyError) as e:  # an unknown pass or a bad pass option
            raise InterpreterError(f"-p {args.pipeline}: {e}") from None
        module = loader.load()
        if _is_torchscript(module):
            flat_ts = _run_torchscript(module, args)
            if args.output:
                _write_outputs(args.output, flat_ts)
            else:
                print(_summarise(flat_ts))
            return 0
        runner = _program_runner(module, args)
        if args.inputs is not None:
            inputs = _read_inputs(args.inputs, runner.user_input_names)
        elif args.random_inputs is not None:
            inputs = random_inputs(runner, args.random_inputs)
        elif runner.user_input_names:
            raise InterpreterError(
                f"the program takes user inputs ({', '.join(runner.user_input_names)}); "
                "give them with --inputs IN.npz (or --random-inputs SEED)"
            )
        else:
            inputs = []
        flat: list[np.ndarray] = []
        _flatten(runner.run(inputs), flat)
        if args.output:
            _write_outputs(args.output, flat)
        else:
            print(_summarise(flat))
    except SystemExit:
        raise
    except BrokenPipeError:
        # The reader went away (`exir-run m.txt | head`): not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:
        if debug:
            raise
        _fail(_message(e, loader.tool.last_module if loader is not None else None))
    return 0


def _program_runner(module: ModuleOp, args: argparse.Namespace) -> ProgramRunner:
    """The numpy interpreter, or the same contract around IREE's native code."""
    if args.backend != "iree":
        return ProgramRunner(module)
    from xdsl_exir.targets.iree import IreeOptions, runner_for

    options = IreeOptions(
        device=args.iree_device,
        threads=args.threads,
        cache_dir=args.iree_cache_dir,
        use_cache=not args.no_iree_cache,
    )
    return runner_for(module, options)


def _is_torchscript(module: ModuleOp) -> bool:
    from xdsl_exir.interpreters.ts_runner import is_torchscript

    return is_torchscript(module)


def _message(e: Exception, module: ModuleOp | None) -> str:
    from xdsl_exir.tools.exir_opt import (  # pyright: ignore[reportPrivateUsage]
        ExirUserError,
        _describe_verify_failure,
        format_parse_error,
    )

    if isinstance(e, ParseError):
        return format_parse_error(e)
    if isinstance(e, (VerifyException, DiagnosticException)):
        return _describe_verify_failure(e, module)
    if isinstance(e, (InterpreterError, ExirUserError)):
        return str(e)
    return (
        f"internal error ({type(e).__name__}: {e}); please report it with the input, "
        "or rerun with EXIR_DEBUG=1 for a traceback"
    )


def main() -> None:
    raise SystemExit(run())


if __name__ == "__main__":
    main()
