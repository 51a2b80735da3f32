"""
Native code through IREE: compile the upstream-dialect form of a program and run
it on numpy arrays.

`compile_program("m.pt2")` (or a module / `exir.program`) lowers the program
(`to-core-aten`, then `convert-exir-to-linalg`), compiles the MLIR text with
IREE's compiler for the host CPU by default, and returns a `CompiledProgram`:
call it with the user inputs, get the user outputs, with the same input and
range checks as the numpy interpreter (it is a `ProgramRunner` whose graph runs
in IREE) and buffers that persist across calls.

Compiled modules are cached on disk, keyed by the SHA-256 of the lowered text,
the IREE compiler version, the compile flags and the host CPU, in
`$EXIR_IREE_CACHE`, else `$XDG_CACHE_HOME/xdsl-exir/iree`, else
`~/.cache/xdsl-exir/iree`; deleting that directory clears it.

IREE is the optional extra `iree` (`pip install 'xdsl-exir[iree]'`); this module
imports it only when a program is compiled.
"""

from __future__ import annotations

import hashlib
import io
import os
import pathlib
import platform
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.metadata import version
from typing import Any, cast

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.ir import Attribute
from xdsl.universe import Universe

from xdsl_exir.dialects import get_all_dialects
from xdsl_exir.dialects.exir import DType, ProgramOp, TensorType
from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.compiler import InterpreterError
from xdsl_exir.interpreters.program import ProgramRunner, find_program
from xdsl_exir.transforms.convert_exir_to_linalg import ConvertExirToLinalgPass, function_arguments
from xdsl_exir.transforms.decompose import ToCoreAtenPass
from xdsl_exir.utils.mlir_parser import ResourceParser, print_module

INSTALL_HINT = (
    "the IREE backend needs the 'iree' extra: pip install 'xdsl-exir[iree]' "
    "(iree-base-compiler and iree-base-runtime)"
)

TARGET_DEVICES: dict[str, tuple[str, ...]] = {
    "cpu": ("--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"),
    "cuda": ("--iree-hal-target-device=cuda",),
    "rocm": ("--iree-hal-target-device=hip",),
    "vulkan": ("--iree-hal-target-device=vulkan",),
}
"""Compile flags per target device; only `cpu` is tested here."""

RUNTIME_DRIVERS = {"cpu": "local-task", "cuda": "cuda", "rocm": "hip", "vulkan": "vulkan"}


class IreeError(InterpreterError):
    """IREE is missing, refused the module, or failed at run time."""


@dataclass(frozen=True)
class IreeOptions:
    """How to compile and run: device, host CPU tuning, threads, cache."""

    device: str = "cpu"
    target_cpu: str = "host"
    threads: int | None = None
    """Worker threads (CPU); None uses every core, as eager PyTorch does."""
    data_tiling: bool | None = None
    """IREE's data tiling; None turns it on for programs with convolutions only."""
    extra_flags: tuple[str, ...] = ()
    cache_dir: str | None = None
    use_cache: bool = True

    def compile_flags(self, text: str = "") -> list[str]:
        if self.device not in TARGET_DEVICES:
            raise IreeError(f"unknown IREE device '{self.device}' (known: {', '.join(TARGET_DEVICES)})")
        flags = list(TARGET_DEVICES[self.device])
        if self.device == "cpu":
            flags.append(f"--iree-llvmcpu-target-cpu={self.target_cpu}")
            # Convolutions as im2col + matmul: 1.5-2.7x faster on the CNNs of
            # benchmarks/compile.py, no change elsewhere (data tiling, which helps
            # the CNNs further, slows the transformer by a third).
            flags.append("--iree-global-opt-use-im2col-for-convs")
            # Data tiling makes ResNet-18 another 1.2x faster and MobileNet 1.2x,
            # but slows the 4-layer encoder by a third: on where it pays.
            tiling = self.data_tiling if self.data_tiling is not None else "linalg.conv_2d" in text
            if tiling:
                flags.append("--iree-opt-data-tiling")
        # float64 programs stay float64 (IREE demotes them to float32 by default).
        flags.append("--iree-input-demote-f64-to-f32=false")
        return flags + list(self.extra_flags)


def default_cache_dir() -> pathlib.Path:
    if env := os.environ.get("EXIR_IREE_CACHE"):
        return pathlib.Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "xdsl-exir" / "iree"


def _import_iree() -> tuple[Any, Any]:
    try:
        import iree.compiler as compiler
        import iree.runtime as runtime
    except ImportError:
        raise IreeError(INSTALL_HINT) from None
    return compiler, runtime


def iree_available() -> bool:
    try:
        _import_iree()
    except IreeError:
        return False
    return True


# -- lowering -------------------------------------------------------------------


def _context() -> Context:
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    for name, factory in Universe.get_multiverse().all_dialects.items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)
    return ctx


def to_core(module: ModuleOp) -> ModuleOp:
    """A copy of the module in core ATen IR (`to-core-aten`), the lowering's input."""
    core = module.clone()
    ToCoreAtenPass().apply(_context(), core)
    return core


def lower_to_upstream(module: ModuleOp) -> ModuleOp:
    """A copy of a core-ATen module lowered by `convert-exir-to-linalg`."""
    lowered = module.clone()
    ConvertExirToLinalgPass().apply(_context(), lowered)
    return lowered


def print_mlir(module: ModuleOp) -> str:
    """MLIR text with the weights' `dialect_resources` section, as `iree-compile` reads it."""
    out = io.StringIO()
    print_module(module, out, [Builtin])
    return out.getvalue()


# -- compiling, with the cache --------------------------------------------------


def _host_id() -> str:
    """What `-target-cpu=host` depends on: machine and CPU model and features."""
    parts = [platform.machine(), platform.system()]
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("model name", "flags", "Features")):
                    parts.append(line.strip())
                    if len(parts) >= 4:
                        break
    except OSError:
        parts.append(platform.processor())
    return "\n".join(parts)


def cache_key(text: str, flags: Sequence[str], compiler_version: str) -> str:
    h = hashlib.sha256()
    for part in (compiler_version, "\0".join(flags), _host_id(), text):
        h.update(part.encode())
        h.update(b"\0\0")
    return h.hexdigest()


def _compiler_version(compiler: Any) -> str:
    try:
        return version("iree-base-compiler")
    except Exception:
        return str(getattr(compiler, "__version__", "unknown"))


@dataclass
class CompileResult:
    vmfb: bytes
    from_cache: bool
    key: str


def compile_text(text: str, options: IreeOptions = IreeOptions()) -> CompileResult:
    """Compile MLIR text to an IREE VM flatbuffer, through the on-disk cache."""
    compiler, _ = _import_iree()
    flags = options.compile_flags(text)
    key = cache_key(text, flags, _compiler_version(compiler))
    cache = pathlib.Path(options.cache_dir) if options.cache_dir else default_cache_dir()
    path = cache / f"{key}.vmfb"
    if options.use_cache and path.is_file():
        return CompileResult(path.read_bytes(), True, key)
    try:
        vmfb = cast(bytes, compiler.compile_str(text, extra_args=flags))
    except Exception as e:
        first = str(e).strip().splitlines()
        detail = next((ln for ln in first if "error:" in ln), first[0] if first else type(e).__name__)
        raise IreeError(f"iree-compile refused the lowered module: {detail.strip()}") from None
    if options.use_cache:
        try:
            cache.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=cache, prefix=".vmfb-")
            with os.fdopen(fd, "wb") as f:
                f.write(vmfb)
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only cache only costs a recompile next time
    return CompileResult(vmfb, False, key)


# -- running --------------------------------------------------------------------


@dataclass
class _Slot:
    """A placeholder the compiled function takes, and how its array is passed."""

    placeholder: int
    dtype: DType | None


class IreeExecutor:
    """
    Runs a lowered program in IREE with `ProgramRunner`'s executor contract: it
    takes every placeholder's value and returns every graph output.
    """

    def __init__(self, program: ProgramOp, vmfb: bytes, options: IreeOptions = IreeOptions()) -> None:
        _, runtime = _import_iree()
        entry = program.entry
        assert entry is not None
        types = entry.function_type.inputs.data
        self._slots = [
            _Slot(i, t.element_dtype if isinstance(t, TensorType) else None)
            for i in function_arguments(program)
            for t in (types[i],)
        ]
        self._out_types: list[Attribute] = list(entry.function_type.outputs.data)
        for t in (*entry.function_type.inputs.data, *self._out_types):
            if isinstance(t, TensorType) and t.element_dtype is DType.bfloat16:
                raise IreeError("bfloat16 tensors at the function boundary are not supported by the IREE backend yet")
        threads = options.threads if options.threads is not None else (os.cpu_count() or 1)
        if options.device == "cpu" and threads <= 1:
            driver = "local-sync"
        else:
            driver = RUNTIME_DRIVERS[options.device]
            if options.device == "cpu":
                runtime.flags.parse_flags(f"--task_topology_group_count={threads}")
        try:
            config = runtime.Config(driver)
            self._ctx = runtime.SystemContext(config=config)
            self._ctx.add_vm_module(runtime.VmModule.copy_buffer(self._ctx.instance, vmfb))
            self._fn = self._ctx.modules.module["forward"]
        except Exception as e:
            raise IreeError(f"IREE could not load the compiled module: {e}") from None

    def __call__(self, *args: Any) -> list[Any]:
        call_args: list[Any] = []
        for slot in self._slots:
            value = args[slot.placeholder]
            if isinstance(value, np.ndarray):
                # (np.ascontiguousarray would turn a 0-d array into a 1-d one)
                call_args.append(value if value.flags.c_contiguous else value.copy(order="C"))
            elif isinstance(value, bool | np.bool_):  # scalars travel as 0-d tensors
                call_args.append(np.asarray(bool(value)))
            elif isinstance(value, int | np.integer):
                call_args.append(np.asarray(int(value), dtype=np.int64))
            else:
                call_args.append(np.asarray(float(value), dtype=np.float64))
        try:
            results = self._fn(*call_args)
        except Exception as e:
            raise IreeError(f"the compiled program failed: {e}") from None
        if not isinstance(results, tuple | list):
            results = (results,)
        out: list[Any] = []
        for r, t in zip(results, self._out_types):
            host = r.to_host() if hasattr(r, "to_host") else r
            host = np.asarray(host)
            if isinstance(t, TensorType):
                if t.element_dtype is DType.uint8 and host.dtype == np.int8:
                    host = host.view(np.uint8)
                out.append(host)
            else:
                out.append(host.item())  # a SymInt/float/bool output, as the interpreter gives it
        return out


@dataclass
class CompiledProgram:
    """A program compiled by IREE: `f(*user_inputs) -> [user outputs]` (flattened)."""

    runner: ProgramRunner
    text: str
    compile: CompileResult
    options: IreeOptions = field(default_factory=IreeOptions)

    def __call__(self, *user_inputs: Any) -> list[Any]:
        return self.runner.run(user_inputs)

    @property
    def user_input_names(self) -> list[str]:
        return self.runner.user_input_names


def _load(source: str | os.PathLike[str] | ModuleOp | ProgramOp) -> ModuleOp:
    if isinstance(source, ModuleOp):
        return source
    if isinstance(source, ProgramOp):
        module = ModuleOp([])
        module.body.block.add_op(source.clone())
        return module
    path = os.fspath(source)
    data = pathlib.Path(path).read_bytes()
    if data[:4] == b"PK\x03\x04":
        return load_pt2(data, path)
    return ResourceParser(_context(), data.decode(), path).parse_module()


def compile_program(
    source: str | os.PathLike[str] | ModuleOp | ProgramOp,
    options: IreeOptions | None = None,
    **option_fields: Any,
) -> CompiledProgram:
    """
    Compile a program (a `.pt2` or `.mlir` path, a module, an `exir.program`) with
    IREE and return a callable on numpy arrays. Options as `IreeOptions` fields:
    `compile_program("m.pt2", threads=1)`.
    """
    options = options or IreeOptions(**option_fields)
    _import_iree()
    module = to_core(_load(source))
    program = find_program(module)
    text = print_mlir(lower_to_upstream(module))
    result = compile_text(text, options)
    executor = IreeExecutor(program, result.vmfb, options)
    return CompiledProgram(ProgramRunner(program, executor=executor), text, result, options)


def runner_for(module: ModuleOp, options: IreeOptions) -> ProgramRunner:
    """What `exir-run --backend iree` runs: the program's `ProgramRunner` on IREE."""
    return compile_program(module, options).runner
