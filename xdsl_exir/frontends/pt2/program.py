"""
The program: `load_pt2` and the importer of a whole archive, which checks its format and
version, reads the graph signature, range constraints and pytree specs, and turns every
parameter, buffer and tensor constant into an `exir.state` holding its data as a blob cut from
the stored storage. The graphs themselves are read by `graph`.
"""

from __future__ import annotations

import gc
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any, cast

import numpy as np
from xdsl.dialects.builtin import LocationAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute, Operation

from xdsl_exir.dialects.exir import (
    DenseBlobAttr,
    DType,
    GraphOp,
    InputKind,
    OutputKind,
    OutputSpecAttr,
    ProgramOp,
    RangeConstraintAttr,
    StateOp,
    TensorType,
)
from xdsl_exir.dialects.exir.blobs import blob_of_buffer
from xdsl_exir.frontends.pt2.archive import (
    ARCHIVE_VERSION,
    CONSTANTS_CONFIG,
    CONSTANTS_DIR,
    JSON_ERRORS,
    MAX_UNUSED_ENTRIES,
    MODEL_JSON,
    SCHEMA_MAJOR,
    WEIGHTS_CONFIG,
    WEIGHTS_DIR,
    Archive,
    Fail,
    Pt2Error,
    fail,
    field,
    malformed,
    union,
)
from xdsl_exir.frontends.pt2.codes import CARRIERS, CONSTANT_TYPES, DTYPE_CODES, ELEMENT_BYTES, LAYOUT_CODES
from xdsl_exir.frontends.pt2.dispatch import Target, classify
from xdsl_exir.frontends.pt2.graph import GraphImporter, InputSpec, OutputSpec, argument_name, spec_attr
from xdsl_exir.frontends.pt2.metadata import META_ATTRS
from xdsl_exir.frontends.sympy_repr import parse_sympy_repr
from xdsl_exir.utils.limits import TensorSizeError
from xdsl_exir.utils.safe_zip import is_pickle
from xdsl_exir.utils.symbolic import SymExprError, SymSize, normalize, parse_python_expr, print_expr, sympy
from xdsl_exir.utils.tensor_data import TensorDataError, array_from_bytes


@dataclass
class _StateData:
    """A payload config entry: where a tensor's storage is and how to view it."""

    directory: str
    path: str
    meta: dict[str, Any]


_SAVE_INSTEAD = "export the model with torch.export.export(model, args) and save it with torch.export.save(ep, 'm.pt2')"


def _what_else(archive: Archive) -> str:
    """What a zip that is not a torch.export archive is, when torch wrote it, and what to do instead."""
    names = archive.names
    if "constants.pkl" in names and any(n.startswith("code/") for n in names):
        return (
            ": it is a TorchScript archive (torch.jit.save), whose pickles are never read here; give "
            "exir-opt its graph dump (str(torch.jit.load(path).inlined_graph) written to a file), import it "
            "live with xdsl_exir.frontends.torchscript_live.import_script_module, or " + _SAVE_INSTEAD
        )
    if "data.pkl" in names:
        # The pickle names the classes it rebuilds; reading their names unpickles nothing.
        if b"ExportedProgram" in archive.read("data.pkl"):
            return (
                ": it is an ExportedProgram saved with torch.save (a pickle, which is never read "
                "here); save it with torch.export.save(ep, 'm.pt2')"
            )
        return ": it is a torch.save archive (a pickled state dict or model, never read here); " + _SAVE_INSTEAD
    return ""


def load_pt2(data: bytes | str | os.PathLike[str] | IO[bytes], filename: str | None = None) -> ModuleOp:
    """
    Import a `torch.export.save` archive as a module holding one `exir.program`.

    `data` is the whole archive as bytes, its path, or a seekable binary file
    holding it; `filename` names it in diagnostics (by default the path).
    Raises `Pt2Error` (and returns nothing) when the archive is refused.
    The `data/sample_inputs` pickle is ignored: nothing is ever unpickled.

    From a file on disk the weights are not read: each `exir.state` holds a
    read-only view of the mapped archive (`CheckedZip.view`), so the import costs
    the graph, not the weights, and the interpreter computes on the same pages.
    The map lives as long as a state refers to it.
    """
    if isinstance(data, str | os.PathLike):
        name = os.fspath(data) if filename is None else filename
        try:
            with open(data, "rb") as f:
                return load_pt2(f, name)
        except OSError as e:
            raise Pt2Error(f"{name}: cannot read it ({e.strerror or e})") from None
    filename = "<pt2>" if filename is None else filename
    if isinstance(data, bytes):
        head = data[:2]
    else:
        data.seek(0)
        head = data.read(2)
        data.seek(0)
    if is_pickle(head):
        raise Pt2Error(
            f"{filename}: a Python pickle (torch.save's legacy format), which is never unpickled here; "
            + _SAVE_INSTEAD
        )
    archive = Archive(data, filename)
    importer = Importer(archive)
    # The parsed JSON is a large heap of young objects: cyclic GC passes over it
    # would cost more than the import itself, and nothing here makes cycles to free.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return importer.run()
    except Fail as e:
        raise Pt2Error(f"{filename}: {e.message}") from None
    except RecursionError:
        raise Pt2Error(f"{filename}: {importer.entry}: graphs nested too deeply") from None
    finally:
        if gc_was_enabled:
            gc.enable()


class Importer:
    """Program-level state: archive, caches, symbols, the graph signature."""

    def __init__(self, archive: Archive) -> None:
        self.archive = archive
        self.entry = MODEL_JSON
        self.targets: dict[str, Target] = {}
        self.tensor_types: dict[tuple[object, ...], TensorType] = {}
        self.exprs: dict[str, sympy.Expr] = {}
        self.locations: dict[str, LocationAttr | None] = {}
        self.meta_attrs: dict[str, dict[str, Attribute]] = {k: {} for k in META_ATTRS}
        self.symbols: set[str] = {ProgramOp.ENTRY}
        self.extra_graphs: list[GraphOp] = []

    # -- program --------------------------------------------------------------

    def run(self) -> ModuleOp:
        archive = self.archive
        self._check_format()
        model = archive.read_json(MODEL_JSON)
        try:
            self._check_version(model)
            gm = field(model, "graph_module", dict, "the program")
            graph = field(gm, "graph", dict, "graph_module")
            signature = field(gm, "signature", dict, "graph_module")
            inputs = [
                self._input_spec(s) for s in field(signature, "input_specs", list, "the signature")
            ]
            outputs = [
                self._output_spec(s)
                for s in field(signature, "output_specs", list, "the signature")
            ]
            ranges = self._ranges(model.get("range_constraints", {}))
            in_spec, out_spec = self._pytree_specs(gm.get("module_call_graph", []))
        except Fail as e:
            raise Fail(f"{MODEL_JSON}: {e.message}") from None
        except JSON_ERRORS as e:
            raise Fail(f"{MODEL_JSON}: {malformed(e)}") from None
        state_data = self._payload_configs()
        for spec in inputs:
            if spec.target == ProgramOp.ENTRY:
                fail(f"{MODEL_JSON}: state '{spec.target}' has the name of the entry graph")
            if spec.target is not None:
                self.symbols.add(spec.target)
        try:
            forward = GraphImporter(self, graph).build_entry(inputs, outputs)
        except Fail as e:
            raise Fail(f"{MODEL_JSON}: {e.message}") from None
        except JSON_ERRORS as e:
            raise Fail(f"{MODEL_JSON}: {malformed(e)}") from None
        states = self._states(inputs, forward, state_data)
        body: list[Operation] = [*states, forward, *self.extra_graphs]
        program = ProgramOp(
            [s.attr for s in inputs],
            [s.attr for s in outputs],
            body,
            ranges,
            in_spec,
            out_spec,
        )
        return ModuleOp([program])

    def _check_format(self) -> None:
        archive = self.archive
        if archive.has("archive_format"):
            fmt = archive.read("archive_format").decode("utf-8", "replace").strip()
            if fmt != "pt2":
                fail(f"archive_format is {fmt!r}, not 'pt2'")
        if not archive.has(MODEL_JSON):
            if archive.has("serialized_exported_program.json"):
                fail(
                    "this is the torch.export format of torch < 2.6, whose weights are "
                    "pickled; re-save it with torch.export.save of torch 2.13"
                )
            others = sorted(n for n in archive.names if n.startswith("models/"))
            if others:
                fail(
                    f"missing entry '{MODEL_JSON}' (found {', '.join(others)}; only the "
                    "program 'model' is read)"
                )
            fail(f"missing entry '{MODEL_JSON}': not a torch.export archive{_what_else(archive)}")
        if not archive.has("archive_version"):
            fail("missing entry 'archive_version' (torch 2.13 writes it; torch.export.load needs it)")
        version = archive.read("archive_version").decode("utf-8", "replace").strip()
        if version != ARCHIVE_VERSION:
            fail(
                f"archive_version is {version[:40]!r}; this reader knows version "
                f"{ARCHIVE_VERSION!r} (written by torch 2.13)"
            )
        if not archive.has("byteorder"):
            fail(
                "missing entry 'byteorder' (torch 2.13 writes it); without it the byte order "
                "of the stored weights is unknown"
            )
        order = archive.read("byteorder").decode("utf-8", "replace").strip()
        if order not in ("little", "big"):
            fail(f"byteorder is {order[:40]!r}, not 'little' or 'big'")
        archive.byte_order = order

    def _check_version(self, model: dict[str, Any]) -> None:
        version = field(model, "schema_version", dict, "the program")
        major = field(version, "major", int, "schema_version")
        if major != SCHEMA_MAJOR:
            minor = version.get("minor")
            fail(
                f"serialization schema version {major}.{minor} is not supported "
                f"(this reader knows major version {SCHEMA_MAJOR}, written by torch 2.13)"
            )

    # -- signature --------------------------------------------------------------

    def _input_spec(self, spec: object) -> InputSpec:
        kind, body = union(spec, "an input spec")
        what = f"input spec '{kind}'"
        if kind == "user_input":
            arg = field(body, "arg", dict, what)
            name = argument_name(arg)
            return InputSpec(spec_attr(InputKind.user_input, name), name)
        if kind == "parameter":
            name = field(field(body, "arg", dict, what), "name", str, what)
            target = field(body, "parameter_name", str, what)
            return InputSpec(spec_attr(InputKind.parameter, name, target), name, target)
        if kind == "buffer":
            name = field(field(body, "arg", dict, what), "name", str, what)
            target = field(body, "buffer_name", str, what)
            persistent = field(body, "persistent", bool, what)
            return InputSpec(spec_attr(InputKind.buffer, name, target, persistent), name, target)
        if kind == "tensor_constant":
            name = field(field(body, "arg", dict, what), "name", str, what)
            target = field(body, "tensor_constant_name", str, what)
            return InputSpec(spec_attr(InputKind.constant_tensor, name, target), name, target)
        if kind == "token":
            name = field(field(body, "arg", dict, what), "name", str, what)
            return InputSpec(spec_attr(InputKind.token, name), name, token=True)
        if kind == "constant_input":
            name = field(body, "name", str, what)
            vkind, value = union(field(body, "value", dict, what), what)
            if vkind not in CONSTANT_TYPES:
                fail(f"constant input '{name}' has a value of unknown kind '{vkind}'")
            return InputSpec(spec_attr(InputKind.user_input, name), name, constant=(vkind, value))
        if kind == "custom_obj":
            arg = field(body, "arg", dict, what)
            fail(
                f"custom object input '{arg.get('name')}' (class {arg.get('class_fqn')}): "
                "TorchBind objects are stored pickled and cannot be loaded without unpickling"
            )
        fail(f"unknown input spec kind '{kind}'")

    def _output_spec(self, spec: object) -> OutputSpec:
        kind, body = union(spec, "an output spec")
        what = f"output spec '{kind}'"
        targets = {
            "buffer_mutation": (OutputKind.buffer_mutation, "buffer_name"),
            "parameter_mutation": (OutputKind.parameter_mutation, "parameter_name"),
            "gradient_to_parameter": (OutputKind.gradient_to_parameter, "parameter_name"),
            "gradient_to_user_input": (OutputKind.gradient_to_user_input, "user_input_name"),
            "user_input_mutation": (OutputKind.user_input_mutation, "user_input_name"),
        }
        if kind == "user_output":
            name = argument_name(field(body, "arg", dict, what))
            return OutputSpec(OutputSpecAttr(OutputKind.user_output, name))
        if kind in ("loss_output", "token"):
            name = field(field(body, "arg", dict, what), "name", str, what)
            return OutputSpec(OutputSpecAttr(OutputKind(kind), name), token=kind == "token")
        if kind in targets:
            out_kind, key = targets[kind]
            name = field(field(body, "arg", dict, what), "name", str, what)
            return OutputSpec(OutputSpecAttr(out_kind, name, field(body, key, str, what)))
        fail(f"unknown output spec kind '{kind}'")

    def _ranges(self, constraints: object) -> list[RangeConstraintAttr]:
        if not isinstance(constraints, dict):
            fail("range_constraints is not an object")
        out: list[RangeConstraintAttr] = []
        for name, bounds in cast(dict[str, Any], constraints).items():
            try:
                expr = parse_python_expr(name)
            except (SymExprError, TypeError, ZeroDivisionError) as e:
                fail(f"range constraint on {name!r}: {e}")
            lo = bounds.get("min_val") if isinstance(bounds, dict) else None
            hi = bounds.get("max_val") if isinstance(bounds, dict) else None
            for b in (lo, hi):
                if not isinstance(bounds, dict) or (b is not None and type(b) is not int):
                    fail(f"range constraint on {name!r} has malformed bounds {bounds!r}")
            lower = -sympy.oo if lo is None else lo
            upper = sympy.oo if hi is None else hi
            if lo is not None and hi is not None and lo > hi:
                fail(f"range constraint on {name!r} is empty: [{lo}, {hi}]")
            out.append(RangeConstraintAttr(expr, lower, upper))
        return out

    def _pytree_specs(self, call_graph: object) -> tuple[str | None, str | None]:
        if not isinstance(call_graph, list):
            fail("module_call_graph is not a list")
        for entry in cast(list[Any], call_graph):
            if isinstance(entry, dict) and entry.get("fqn") == "":
                sig = entry.get("signature")
                if isinstance(sig, dict):
                    in_spec = sig.get("in_spec")
                    out_spec = sig.get("out_spec")
                    return (
                        in_spec if isinstance(in_spec, str) else None,
                        out_spec if isinstance(out_spec, str) else None,
                    )
        return None, None

    # -- state ------------------------------------------------------------------

    def _payload_configs(self) -> dict[str, _StateData]:
        """Tensor payloads by FQN; pickled payloads are refused up front."""
        archive = self.archive
        found: dict[str, _StateData] = {}
        used = {MODEL_JSON, WEIGHTS_CONFIG, CONSTANTS_CONFIG}
        for directory, config_name in (
            (WEIGHTS_DIR, WEIGHTS_CONFIG),
            (CONSTANTS_DIR, CONSTANTS_CONFIG),
        ):
            if not archive.has(config_name):
                legacy = [n for n in archive.names if n.startswith(directory) and n.endswith(".pt")]
                if legacy:
                    fail(
                        f"{legacy[0]}: state stored as a pickle (legacy format); pickles are "
                        "never loaded"
                    )
                continue
            config = archive.read_json(config_name)
            try:
                entries = field(config, "config", dict, "the payload config")
                for fqn, meta in cast(dict[str, Any], entries).items():
                    what = f"payload '{fqn}'"
                    if field(meta, "use_pickle", bool, what):
                        fail(
                            f"'{fqn}' is stored pickled (use_pickle: true); pickled data is "
                            "never loaded"
                        )
                    path = field(meta, "path_name", str, what)
                    if "/" in path or "\\" in path or path in ("", ".", "..") or "\x00" in path:
                        fail(
                            f"'{fqn}' names the data file {path!r}, which is not a plain file name"
                        )
                    if path.endswith((".pt", ".pkl", ".pickle")):
                        fail(f"'{fqn}' refers to {path!r}, a pickle; pickled data is never loaded")
                    tensor_meta = field(meta, "tensor_meta", dict, what)
                    used.add(directory + path)
                    if fqn not in found:
                        found[fqn] = _StateData(directory, path, tensor_meta)
            except Fail as e:
                raise Fail(f"{config_name}: {e.message}") from None
            except JSON_ERRORS as e:
                raise Fail(f"{config_name}: {malformed(e)}") from None
        unused = len(archive.names - used)
        if unused > MAX_UNUSED_ENTRIES:
            fail(
                f"{unused} zip entries that the program does not refer to; more than "
                f"{MAX_UNUSED_ENTRIES} is not a plausible torch.export archive"
            )
        return found

    def _states(
        self, inputs: Sequence[InputSpec], forward: GraphOp, data: dict[str, _StateData]
    ) -> list[StateOp]:
        states: list[StateOp] = []
        storages: dict[tuple[str, int], bytes | memoryview] = {}
        done: set[str] = set()
        for spec, arg in zip(inputs, forward.body.block.args):
            target = spec.target
            if target is None or target in done:
                continue
            done.add(target)
            kind = spec.attr.kind.data
            found = data.get(target)
            if found is None:
                fail(
                    f"no stored data for {kind} '{target}' (in neither {WEIGHTS_CONFIG} "
                    f"nor {CONSTANTS_CONFIG})"
                )
            config = WEIGHTS_CONFIG if found.directory == WEIGHTS_DIR else CONSTANTS_CONFIG
            try:
                blob = self._blob(found, arg.type, storages)
            except Fail as e:
                raise Fail(f"{config}: '{target}': {e.message}") from None
            except JSON_ERRORS as e:
                raise Fail(f"{config}: '{target}': {malformed(e)}") from None
            states.append(
                StateOp.create(
                    properties={"sym_name": StringAttr(target), "type": arg.type, "value": blob}
                )
            )
        return states

    def _blob(
        self, found: _StateData, graph_type: Attribute, storages: dict[tuple[str, int], bytes | memoryview]
    ) -> DenseBlobAttr:
        """
        The contiguous bytes of one state tensor, cut from its stored storage. A
        whole storage that is already the tensor (the usual weight) is the entry's
        data itself, a view of the mapped archive when it is one: never copied.
        """
        meta = found.meta
        dtype = self.dtype(field(meta, "dtype", int, "tensor_meta"))
        layout = meta.get("layout", 7)
        if layout != 7:
            fail(
                f"stored with layout {LAYOUT_CODES.get(layout, layout)}; only strided "
                "tensors can be loaded"
            )
        sizes = [_static_int(s, "size") for s in field(meta, "sizes", list, "tensor_meta")]
        strides = [_static_int(s, "stride") for s in field(meta, "strides", list, "tensor_meta")]
        offset = _static_int(field(meta, "storage_offset", dict, "tensor_meta"), "storage offset")
        if not isinstance(graph_type, TensorType):
            fail(f"the graph reads it as {graph_type}, not as a tensor")
        if list(graph_type.sizes) != sizes or graph_type.element_dtype is not dtype:
            fail(
                f"stored as a {dtype.value} tensor of sizes {sizes} but the graph reads it "
                f"as {graph_type}"
            )
        rel = found.directory + found.path
        width, component = ELEMENT_BYTES[dtype]
        raw = storages.get((rel, component))
        if raw is None:
            raw = self.archive.view(rel)
            if self.archive.byte_order == "big" and component > 1:
                raw = _swap_bytes(raw, component)
            storages[(rel, component)] = raw
        numel = math.prod(sizes)
        if not raw and numel > 0:
            fail(f"'{rel}' holds no bytes (saved from fake tensors?) but the sizes are {sizes}")
        if (
            offset == 0
            and len(raw) == numel * width
            and _is_dense(range(len(sizes)), sizes, strides)
        ):
            return blob_of_buffer(raw)  # the whole storage, already contiguous
        try:
            array = array_from_bytes(raw, CARRIERS[width], sizes, strides, offset)
        except (TensorDataError, TensorSizeError) as e:
            fail(f"'{rel}': {e}")
        return DenseBlobAttr(array.tobytes())

    # -- shared helpers ---------------------------------------------------------

    def dtype(self, code: object) -> DType:
        dtype = DTYPE_CODES.get(code) if isinstance(code, int) and not isinstance(code, bool) else None
        if dtype is None:
            fail(f"unknown dtype code {code!r}")
        return dtype

    def expr(self, text: str) -> sympy.Expr:
        """A size expression of the archive, printable in the IR; else `Fail`."""
        expr = self.exprs.get(text)
        if expr is None:
            try:
                if "Symbol(" in text or "Integer(" in text:
                    parsed = parse_sympy_repr(text)
                else:
                    parsed = parse_python_expr(text)
            except (SymExprError, TypeError, ZeroDivisionError) as e:
                fail(f"cannot read the symbolic size {text!r}: {e}"[:400])
            if not isinstance(parsed, sympy.Expr) or parsed.is_Boolean:
                fail(f"the size {text!r} is not an integer expression")
            try:
                print_expr(parsed)
            except ValueError:
                fail(f"the symbolic size {parsed} has no IR spelling")
            expr = self.exprs[text] = parsed
        return expr

    def size(self, s: object) -> SymSize:
        kind, value = union(s, "a size")
        if kind == "as_int" and type(value) is int:
            return value
        if kind == "as_expr":
            return normalize(self.expr(field(value, "expr_str", str, "a symbolic size")))
        fail(f"malformed size {s!r}"[:300])

    def tensor_type(self, meta: object) -> TensorType:
        if not isinstance(meta, dict):
            fail("a tensor_values entry is not an object")
        m = cast(dict[str, Any], meta)
        sizes = m.get("sizes")
        strides = m.get("strides")
        device = m.get("device")
        if not isinstance(sizes, list) or not isinstance(device, dict):
            fail("a tensor_values entry lacks sizes or device")
        sizes_key = _sizes_key(cast(list[Any], sizes))
        strides_key = _sizes_key(cast(list[Any], strides)) if type(strides) is list else None
        key = (m.get("dtype"), sizes_key, strides_key, device.get("type"), device.get("index"))
        cached = self.tensor_types.get(key)
        if cached is not None:
            return cached
        dtype = self.dtype(m.get("dtype"))
        shape = [self.size(s) for s in cast(list[Any], sizes)]
        dev_type = device.get("type")
        dev_index = device.get("index")
        if not isinstance(dev_type, str) or (dev_index is not None and type(dev_index) is not int):
            fail(f"malformed device {device!r}")
        dev = dev_type if dev_index is None else f"{dev_type}:{dev_index}"
        order = None
        if strides_key is not None and all(type(s) is int for s in (*sizes_key, *strides_key)):
            order = _dim_order(cast(tuple[int, ...], sizes_key), cast(tuple[int, ...], strides_key))
        result = TensorType(shape, dtype, dev, order)
        self.tensor_types[key] = result
        return result

    def target(self, target: str) -> Target:
        info = self.targets.get(target)
        if info is None:
            info = self.targets[target] = classify(target)
        return info

    def generic(self, target: str) -> Target:
        """`target` as an aten op or `exir.call_function`, without special forms."""
        return classify(target, special_forms=False)

    def unique_symbol(self, name: str) -> str:
        candidate = name
        n = 1
        while candidate in self.symbols:
            candidate = f"{name}_{n}"
            n += 1
        self.symbols.add(candidate)
        return candidate


def _sizes_key(sizes: list[Any]) -> tuple[object, ...]:
    """
    A hashable image of serialized sizes (ints, or the expression text). Only
    a cache key: the sizes are checked when the type is first built.
    """
    try:
        return tuple([s["as_int"] for s in sizes])
    except (KeyError, TypeError):
        return tuple([_size_key(s) for s in sizes])


def _size_key(s: object) -> object:
    if isinstance(s, dict):
        d = cast(dict[str, Any], s)
        value = d.get("as_int")
        if type(value) is int and len(d) == 1:
            return value
        expr = d.get("as_expr")
        if isinstance(expr, dict) and isinstance(expr.get("expr_str"), str):
            return expr["expr_str"]
    fail(f"malformed size {s!r}"[:300])


def _static_int(s: object, what: str) -> int:
    kind, value = union(s, what)
    if kind != "as_int" or type(value) is not int:
        fail(f"stored state has a symbolic or malformed {what}: {s!r}"[:300])
    return value


def _is_dense(order: Sequence[int], sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """Strides of a tensor laid out densely in `order` (size-1 strides are free)."""
    if len(sizes) != len(strides):
        return False
    running = 1
    for d in reversed(order):
        if sizes[d] != 1 and strides[d] != running:
            return False
        running *= sizes[d]
    return True


def _dim_order(sizes: tuple[int, ...], strides: tuple[int, ...]) -> list[int] | None:
    """
    The dim order of a dense tensor with these strides; None for the identity
    (preferred whenever it fits) and for tensors dense in no order.
    """
    identity = range(len(sizes))
    if len(sizes) < 2 or len(strides) != len(sizes) or _is_dense(identity, sizes, strides):
        return None
    order = sorted(identity, key=lambda d: -strides[d])
    return order if _is_dense(order, sizes, strides) else None


def _swap_bytes(raw: bytes | memoryview, component: int) -> bytes:
    """Big-endian storage to little-endian, component by component."""
    usable = len(raw) - len(raw) % component
    words = np.frombuffer(raw, dtype=f">u{component}", count=usable // component)
    return words.astype(f"<u{component}").tobytes() + raw[usable:]
