"""
A compiled artifact: the directory `Program.compile(backend="iree").save(path)` and
`exir-opt m.pt2 --emit iree-bundle -o path` write, and `xdsl_exir.runtime.load`
(numpy and IREE's runtime only) and `exir-run path` run. Its layout and manifest
are described in `xdsl_exir/runtime.py`, which owns the format; this module
writes it.

The weights are written once, to an IREE parameter archive (`.irpa`, by the
runtime's `ParameterIndex.create_archive_file`, which reads each weight from
the program's own, memory-mapped buffers), and the module holds none of them.
The directory appears whole or not at all: it is written beside its final
place and renamed there; an existing artifact at that path is replaced, any
other existing file or directory is refused.

`--emit 'iree-bundle{target-cpu=... target-triple=...}'` compiles for another
CPU (`generic`, `cortex-a72`, ... with `aarch64-unknown-linux-gnu`): nothing is
loaded here then, as this machine could not run it.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, Any, cast

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from xdsl_exir import __version__
from xdsl_exir.dialects.exir import (
    BoolType,
    FloatType,
    InputKind,
    IntType,
    ProgramOp,
    SymBoolType,
    SymFloatType,
    SymIntType,
    TensorType,
    array_from_blob,
    is_blob,
)
from xdsl_exir.runtime import (
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    MODULE,
    PARAMETER_SCOPE,
    PARAMETERS,
    destination_problem,
    file_digest,
    iree_runtime,
)
from xdsl_exir.targets.iree import (
    RUNTIME_DRIVERS,
    CompiledProgram,
    IreeError,
    IreeOptions,
    check_device,
    compile_text,
    iree_compiler_version,
    lower_for_iree,
)
from xdsl_exir.transforms.convert_exir_to_linalg import function_arguments
from xdsl_exir.transforms.flop_count import program_flops
from xdsl_exir.utils.symbolic import print_python_expr, sympy

__all__ = ["IreeBundleTarget", "save_bundle", "write_bundle"]


def _type_entry(t: Any) -> dict[str, Any]:
    """How a value crosses `@forward`'s boundary: a tensor's dtype and sizes, or a scalar's dtype."""
    if isinstance(t, TensorType):
        return {
            "tensor": True,
            "dtype": t.element_dtype.value,
            "sizes": [s if isinstance(s, int) else print_python_expr(s) for s in t.sizes],
        }
    if isinstance(t, SymIntType | IntType):
        entry: dict[str, Any] = {"tensor": False, "dtype": "int64"}
        if isinstance(t, SymIntType) and isinstance(t.value, sympy.Symbol):
            entry["symbol"] = str(t.value)
        return entry
    if isinstance(t, SymFloatType | FloatType):
        return {"tensor": False, "dtype": "float64"}
    if isinstance(t, SymBoolType | BoolType):
        return {"tensor": False, "dtype": "bool"}
    return {"tensor": False, "dtype": None}  # a constant output (None, a string): returned as the module gives it


def _bound(b: Any) -> int | None:
    return None if not b.is_finite else int(b)


def manifest_of(program: ProgramOp, options: IreeOptions, parameter_keys: list[str], text: str) -> dict[str, Any]:
    """The manifest's description of a program (files are added when written)."""
    entry = program.entry
    if entry is None:
        raise IreeError("the program has no @forward graph")
    specs = program.inputs.data
    placeholders = entry.body.block.args
    arguments: list[dict[str, Any]] = []
    buffers: list[dict[str, Any]] = []
    for i in function_arguments(program):
        spec, t = specs[i], placeholders[i].type
        user = spec.input_kind is InputKind.user_input
        name = spec.arg_name.data if user else cast(str, spec.target_name)
        arguments.append({"kind": str(spec.input_kind), "name": name, **_type_entry(t)})
        if not user:
            buffers.append({"name": name, **_type_entry(t)})
    outputs = entry.body.block.last_op
    assert outputs is not None
    results = [
        {"kind": str(spec.output_kind), "name": spec.target_name or spec.arg_name.data, **_type_entry(v.type)}
        for spec, v in zip(program.outputs.data, outputs.operands)
    ]
    ranges: list[dict[str, Any]] = []
    for expr, (low, high) in program.ranges().items():
        key = "symbol" if isinstance(expr, sympy.Symbol) else "expr"
        ranges.append({key: print_python_expr(expr), "min": _bound(low), "max": _bound(high)})
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "xdsl_exir": __version__,
        "iree": {
            "compiler": iree_compiler_version(),
            "device": options.device,
            "driver": RUNTIME_DRIVERS[options.device],
            "target_cpu": options.target_cpu,
            "target_triple": options.target_triple,
            "built_on": f"{platform.machine()} {platform.system()}",
            "flags": options.compile_flags(text),
            "flops": program_flops(program),
        },
        "signature": {
            "arguments": arguments,
            "results": results,
            "in_spec": program.in_spec.data if program.in_spec is not None else None,
            "out_spec": program.out_spec.data if program.out_spec is not None else None,
        },
        "ranges": ranges,
        "buffers": buffers,
        "parameters": {"scope": PARAMETER_SCOPE, "keys": parameter_keys},
    }


def _initial_state(program: ProgramOp, buffers: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """The buffers' values as the program holds them (for an artifact written without running it)."""
    states = program.state()
    out: dict[str, np.ndarray] = {}
    for b in buffers:
        state = states.get(b["name"])
        if state is None or not is_blob(state.value) or not isinstance(state.state_type, TensorType):
            raise IreeError(f"buffer '{b['name']}' has no tensor data in the program to save")
        out[b["name"]] = array_from_blob(cast(Any, state.value), state.state_type)
    return out


def _as_bytes(array: np.ndarray) -> np.ndarray:
    """An array's raw bytes as a uint8 array (bfloat16 and 0-d arrays included), without a copy where it can."""
    return np.ascontiguousarray(array).reshape(-1).view(np.uint8)


def _write(
    path: str | os.PathLike[str],
    manifest: dict[str, Any],
    vmfb: bytes,
    parameters: Mapping[str, Any],
    state: Mapping[str, np.ndarray],
) -> None:
    runtime = iree_runtime()
    final = os.path.abspath(os.fspath(path))
    parent = os.path.dirname(final)
    if (problem := destination_problem(final)) is not None:
        raise IreeError(f"{path}: {problem}")
    try:
        tmp = tempfile.mkdtemp(dir=parent, prefix=".exir-bundle-")
    except OSError as e:
        raise IreeError(f"{path}: cannot write there ({e.strerror or e})") from None
    try:
        with open(os.path.join(tmp, MODULE), "wb") as f:
            f.write(vmfb)
        index = runtime.ParameterIndex()
        for key, data in parameters.items():
            index.add_buffer(key, data)
        for name, value in state.items():
            index.add_buffer(name, _as_bytes(np.asarray(value)))
        index.create_archive_file(os.path.join(tmp, PARAMETERS))
        manifest = dict(manifest)
        manifest["files"] = {
            MODULE: {"bytes": len(vmfb), "sha256": hashlib.sha256(vmfb).hexdigest()},
            PARAMETERS: {
                "bytes": os.path.getsize(os.path.join(tmp, PARAMETERS)),
                "sha256": file_digest(os.path.join(tmp, PARAMETERS)),
            },
        }
        with open(os.path.join(tmp, MANIFEST), "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=1)
            f.write("\n")
        os.chmod(tmp, 0o755 & ~_umask())
        if os.path.exists(final):
            old = tempfile.mkdtemp(dir=parent, prefix=".exir-bundle-old-")
            os.replace(final, os.path.join(old, "x"))
            os.replace(tmp, final)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, final)
    except BaseException as e:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(e, OSError):
            raise IreeError(f"{path}: cannot write it ({e.strerror or e})") from None
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def save_bundle(compiled: CompiledProgram, path: str | os.PathLike[str]) -> None:
    """
    Write a compiled program as an artifact: its module, its weights (those by
    reference, and the buffers it writes as they are now, as `torch.save` keeps a
    module's buffers) and the manifest.
    """
    program = compiled.runner.program
    manifest = manifest_of(program, compiled.options, list(compiled.parameters), compiled.text)
    state = {b["name"]: compiled.runner.state[b["name"]] for b in manifest["buffers"]}
    _write(path, manifest, compiled.compile.vmfb, compiled.parameters, state)


def write_bundle(
    source: str | os.PathLike[str] | ModuleOp | ProgramOp, path: str | os.PathLike[str], options: IreeOptions
) -> None:
    """Compile a program for `options`' target (not loaded: it may be another CPU's) and write the artifact."""
    check_device(options)
    lowered = lower_for_iree(source, options)
    result = compile_text(lowered.text, options)
    manifest = manifest_of(lowered.program, options, list(lowered.parameters), lowered.text)
    _write(path, manifest, result.vmfb, lowered.parameters, _initial_state(lowered.program, manifest["buffers"]))


@dataclass(frozen=True)
class IreeBundleTarget(Target):
    """
    `exir-opt m.pt2 --emit iree-bundle -o DIR`: compile with IREE and write the
    artifact directory. Options: `device`, `target-cpu` (default `host`),
    `target-triple` (cross-compiling), `parameters-from-bytes`.
    """

    name = "iree-bundle"

    device: str = "cpu"
    target_cpu: str = "host"
    target_triple: str = ""
    parameters_from_bytes: int = 64 * 1024

    def options(self) -> IreeOptions:
        return IreeOptions(
            device=self.device,
            target_cpu=self.target_cpu,
            target_triple=self.target_triple or None,
            parameters_from_bytes=self.parameters_from_bytes,
        )

    def write(self, module: ModuleOp, path: str) -> None:
        write_bundle(module, path, self.options())

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        raise IreeError("--emit iree-bundle writes a directory: name it with -o DIR")

