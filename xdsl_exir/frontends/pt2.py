"""
The `.pt2` frontend: a `torch.export.save` archive as one self-contained
`exir.program`.

torch 2.13 writes a zip whose entries sit under one top folder:

    <root>/archive_format                      "pt2"
    <root>/byteorder                           "little" (or "big")
    <root>/models/model.json                   the program, serialization schema 8.x
    <root>/data/weights/model_weights_config.json   parameters and persistent buffers
    <root>/data/weights/weight_<n>             raw storage bytes
    <root>/data/constants/model_constants_config.json   tensor constants,
                                               non-persistent buffers
    <root>/data/constants/tensor_<n>           raw storage bytes
    <root>/data/sample_inputs/model.pt         pickled example inputs: ignored

Every parameter, buffer and tensor constant becomes an `exir.state` holding its
data as a blob (contiguous bytes cut from the stored storage by the
tensor's sizes, strides and offset), so printing the module keeps the weights
(as `dense_resource` blobs in the file's resources section).
The graph signature, range constraints, pytree specs and node metadata
(`stack_trace` as the op location, from its innermost frame outside torch;
`nn_module_stack`, `source_fn_stack`,
`torch_fn`, `custom` as attributes) are kept. `torch.ops.aten.*` targets the
aten dialect models become aten ops, typed with the types the archive records
(no inference); other targets become `exir.call_function`. cond, while_loop and
map become `exir.cond`/`exir.while_loop`/`exir.map` with their subgraphs inlined
as regions; other higher-order ops keep their subgraphs as sibling `exir.graph`s
read by `exir.get_attr`.

The archive elides FX's `getitem` nodes. A node with several outputs becomes an
op with several results; a `Tensor[]` output is one list (or tuple, when the
elements differ) result followed by an `exir.getitem` per element, as in FX.
Graph inputs that are Python constants (`constant_input`) are placeholders of
type `!exir.int`, `!exir.none`, ... with the value as the `exir.constant`
argument attribute; graph outputs that are constants (a `ConstantArgument` in
the output spec: `return x, True`) are `exir.constant` ops returned by
`exir.output`.

This module never imports torch and never unpickles. An archive is refused with
a `Pt2Error` (one paragraph naming the place) when it is not a sound zip, has
entry names that are absolute or climb out with `..`, declares implausible
uncompressed sizes (zip bombs, by the rules of `utils/safe_zip.py`), holds more
than `MAX_UNUSED_ENTRIES` entries the program does not refer to, lacks an entry it
needs (`byteorder` and `archive_version` included), holds an `archive_version`
other than torch 2.13's, malformed JSON (integers beyond Python's int-string
limit included) or an unknown schema major version, would need pickled data (`use_pickle: true`
payloads, TorchBind custom objects, legacy `.pt` weights), stores bytes that
cannot back a tensor's sizes/strides/offset (or a view whose copy would exceed
the tensor size limit of `utils/limits.py`), uses an unknown dtype code, or
refers to values that are not defined. Nothing is returned half-built.
"""

from __future__ import annotations

import gc
import json
import math
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, Any, NoReturn, cast

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    CallSiteLoc,
    DenseArrayBase,
    DictionaryAttr,
    FileLineColLoc,
    IntAttr,
    LocationAttr,
    ModuleOp,
    NoneAttr,
    StringAttr,
    i32,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from xdsl_exir.dialects.aten import AtenOp, aten_op_class
from xdsl_exir.dialects.exir import (
    SYM_ARITH_OPS,
    AssertScalarOp,
    BoolType,
    CallFunctionOp,
    CondOp,
    ConstantOp,
    CustomObjType,
    DenseBlobAttr,
    DeviceAttr,
    DType,
    FloatType,
    GetAttrOp,
    GetItemOp,
    GraphOp,
    InputKind,
    InputSpecAttr,
    IntType,
    Layout,
    ListType,
    MapOp,
    MemoryFormat,
    NoneType,
    OutputKind,
    OutputOp,
    OutputSpecAttr,
    ProgramOp,
    RangeConstraintAttr,
    StateOp,
    StrType,
    SymArithOp,
    SymBoolType,
    SymFloatType,
    SymIntType,
    SymNumelOp,
    SymSizeOp,
    SymStrideOp,
    TensorType,
    TokenType,
    TupleType,
    WhileLoopOp,
    encode_arg,
)
from xdsl_exir.dialects.exir.blobs import blob_of_buffer
from xdsl_exir.frontends.sympy_repr import parse_sympy_repr
from xdsl_exir.utils.limits import TensorSizeError
from xdsl_exir.utils.op_registry import lookup
from xdsl_exir.utils.safe_zip import CheckedZip, ZipRefused, is_pickle
from xdsl_exir.utils.symbolic import (
    SymExprError,
    SymSize,
    normalize,
    parse_python_expr,
    print_expr,
    sympy,
)
from xdsl_exir.utils.tensor_data import TensorDataError, array_from_bytes

__all__ = ["Pt2Error", "load_pt2", "stack_trace_location"]


class Pt2Error(Exception):
    """A `.pt2` archive that cannot be imported; the message names the place."""


# ---------------------------------------------------------------------------
# Limits and tables
# ---------------------------------------------------------------------------

MAX_UNUSED_ENTRIES = 1_000
"""
Entries the program does not refer to that an archive may hold. torch writes a
handful (`archive_version`, `.data/*`, sample inputs, extra files); the storage
files are counted by the payload configs that name them, so a real archive with
many weights still passes, while one padded with thousands of stray entries is
refused. (The zip rules of `safe_zip` cap the total beforehand.)
"""

_ARCHIVE_VERSION = "0"
"""The `archive_version` record torch 2.13 writes and `torch.export.load` insists on."""

_SCHEMA_MAJOR = 8
_MODEL_JSON = "models/model.json"
_WEIGHTS_DIR = "data/weights/"
_CONSTANTS_DIR = "data/constants/"
_WEIGHTS_CONFIG = _WEIGHTS_DIR + "model_weights_config.json"
_CONSTANTS_CONFIG = _CONSTANTS_DIR + "model_constants_config.json"

_POSITIONAL = 1
_KEYWORD = 2

DTYPE_CODES: dict[int, DType] = {
    1: DType.uint8,
    2: DType.int8,
    3: DType.int16,
    4: DType.int32,
    5: DType.int64,
    6: DType.float16,
    7: DType.float32,
    8: DType.float64,
    9: DType.complex32,
    10: DType.complex64,
    11: DType.complex128,
    12: DType.bool,
    13: DType.bfloat16,
    28: DType.uint16,
    29: DType.float8_e4m3fn,
    30: DType.float8_e5m2,
    31: DType.float8_e4m3fnuz,
    32: DType.float8_e5m2fnuz,
    33: DType.float8_e8m0fnu,
    34: DType.uint32,
    35: DType.uint64,
}
"""torch's serialized `ScalarType` codes (torch/_export/serde/schema.py)."""

_ELEMENT_BYTES: dict[DType, tuple[int, int]] = {
    DType.uint8: (1, 1),
    DType.int8: (1, 1),
    DType.int16: (2, 2),
    DType.int32: (4, 4),
    DType.int64: (8, 8),
    DType.float16: (2, 2),
    DType.float32: (4, 4),
    DType.float64: (8, 8),
    DType.complex32: (4, 2),
    DType.complex64: (8, 4),
    DType.complex128: (16, 8),
    DType.bool: (1, 1),
    DType.bfloat16: (2, 2),
    DType.uint16: (2, 2),
    DType.float8_e4m3fn: (1, 1),
    DType.float8_e5m2: (1, 1),
    DType.float8_e4m3fnuz: (1, 1),
    DType.float8_e5m2fnuz: (1, 1),
    DType.float8_e8m0fnu: (1, 1),
    DType.uint32: (4, 4),
    DType.uint64: (8, 8),
}
"""Bytes per element, and per scalar component (what a byte swap reverses)."""

_CARRIERS: dict[int, DType] = {
    1: DType.uint8,
    2: DType.uint16,
    4: DType.uint32,
    8: DType.uint64,
    16: DType.complex128,
}
"""
A dtype of the same width whose numpy storage is a plain copy: elements are cut
from storage as opaque words, so bf16, float8 and complex32 need no numpy type.
"""

_LAYOUT_CODES: dict[int, Layout] = {
    1: Layout.sparse_coo,
    2: Layout.sparse_csr,
    3: Layout.sparse_csc,
    4: Layout.sparse_bsr,
    5: Layout.sparse_bsc,
    6: Layout._mkldnn,  # pyright: ignore[reportPrivateUsage] - torch's own name for the layout, private in its enum too
    7: Layout.strided,
}

_MEMORY_FORMAT_CODES: dict[int, MemoryFormat] = {
    1: MemoryFormat.contiguous_format,
    2: MemoryFormat.channels_last,
    3: MemoryFormat.channels_last_3d,
    4: MemoryFormat.preserve_format,
}

_CONSTANT_TYPES: dict[str, Callable[[], Attribute]] = {
    "as_int": IntType,
    "as_float": FloatType,
    "as_bool": BoolType,
    "as_string": StrType,
    "as_none": NoneType,
}
"""Types of graph inputs that are Python constants (`constant_input` specs)."""

_HOP_PREFIX = "torch.ops.higher_order."


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


class _Fail(Exception):
    """An import failure; callers up the stack prefix the place they are at."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _fail(message: str) -> NoReturn:
    raise _Fail(message)


def _malformed(e: Exception) -> str:
    """Describe a Python error raised while walking malformed JSON."""
    if isinstance(e, KeyError):
        return f"malformed entry: missing field {e.args[0]!r}"
    return f"malformed entry ({type(e).__name__}: {e})"


_JSON_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError, VerifyException)
"""What walking malformed JSON raises (attributes verify their data when built)."""


def _field(obj: object, key: str, kind: type | tuple[type, ...], what: str) -> Any:
    """`obj[key]`, checked to be of `kind`."""
    if type(obj) is not dict:
        _fail(f"{what} is not a JSON object")
    value = cast(dict[str, object], obj).get(key)
    if type(value) is kind:
        return value
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        if key not in cast(dict[str, object], obj):
            _fail(f"{what} has no field '{key}'")
        _fail(f"field '{key}' of {what} is not {_kind_name(kind)}: {value!r}"[:300])
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {
        dict: "an object",
        list: "a list",
        str: "a string",
        int: "an integer",
        bool: "a boolean",
    }
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def _union(obj: object, what: str) -> tuple[str, Any]:
    """The single `(kind, value)` of a serialized union (`{"as_tensor": ...}`)."""
    if type(obj) is dict and len(obj) == 1:
        for item in obj.items():
            return cast(tuple[str, Any], item)
    _fail(f"{what} is not a one-field union object: {obj!r}"[:300])


# ---------------------------------------------------------------------------
# The zip archive
# ---------------------------------------------------------------------------


class _Archive:
    """Checked, read-only access to the entries of a pt2 zip archive (the rules of `safe_zip`)."""

    def __init__(self, data: bytes | IO[bytes], filename: str) -> None:
        self.filename = filename
        try:
            self.zip = CheckedZip(data)
        except ZipRefused as e:
            raise Pt2Error(f"{filename}: {e}") from None
        self.byte_order = "little"
        infos = list(self.zip.infos.values())
        files = [i.filename for i in infos if not i.is_dir()]
        roots = {n.split("/", 1)[0] for n in files if "/" in n}
        if not files:
            raise Pt2Error(f"{filename}: the zip archive is empty")
        if len(roots) != 1 or any("/" not in n for n in files):
            raise Pt2Error(
                f"{filename}: not a torch.export archive: entries must sit under one top "
                f"folder (found {', '.join(sorted(roots)) or 'entries at the top level'})"
            )
        self.root = roots.pop() + "/"
        self.names = {n[len(self.root) :] for n in files}

    def has(self, rel: str) -> bool:
        return rel in self.names

    def read(self, rel: str) -> bytes:
        """The bytes of entry `rel` (relative to the archive's top folder)."""
        if rel not in self.names:
            raise _Fail(f"missing entry '{rel}'")
        try:
            return self.zip.read(self.root + rel)
        except ZipRefused as e:
            raise _Fail(f"{rel}: {e}") from None

    def view(self, rel: str) -> bytes | memoryview:
        """The data of entry `rel` without a copy where it can be mapped (`CheckedZip.view`)."""
        if rel not in self.names:
            raise _Fail(f"missing entry '{rel}'")
        try:
            return self.zip.view(self.root + rel)
        except ZipRefused as e:
            raise _Fail(f"{rel}: {e}") from None

    def read_json(self, rel: str) -> dict[str, Any]:
        raw = self.read(rel)
        try:
            value = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as e:
            raise _Fail(f"{rel}: not UTF-8 text ({e})") from None
        except json.JSONDecodeError as e:
            raise _Fail(
                f"{rel}: malformed JSON at line {e.lineno} column {e.colno}: {e.msg}"
            ) from None
        except RecursionError:
            raise _Fail(f"{rel}: JSON nested too deeply") from None
        except ValueError as e:  # an integer beyond Python's int-string limit
            raise _Fail(f"{rel}: malformed JSON ({e})") from None
        if not isinstance(value, dict):
            raise _Fail(f"{rel}: expected a JSON object at the top level")
        return cast(dict[str, Any], value)


# ---------------------------------------------------------------------------
# Metadata
# ---------------------------------------------------------------------------

_FRAME = re.compile(r'File "([^"\n]*)", line (\d+)')


# A frame in torch's own package (`.../torch/nn/modules/conv.py`) or in
# Python's standard library (`.../lib/python3.11/contextlib.py`, `<frozen ...>`)
# is where a module call was carried out, not where the user wrote it.
_LIBRARY_FRAME = re.compile(
    r"(^|[/\\])torch[/\\]"
    r"|(^|[/\\])lib[/\\]python\d+(\.\d+)?[/\\](?!(site|dist)-packages[/\\])"
    r"|^<"
)


def stack_trace_location(stack_trace: str) -> LocationAttr | None:
    """`callsite(innermost at callsite(... at outermost))` from a Python traceback.

    The innermost frames inside torch or the standard library are dropped, so
    the location of an `nn.Module` call names the line of the user's model that
    made it, not `torch/nn/modules/conv.py`; a trace with no frame outside them
    keeps all its frames.
    """
    frames: list[tuple[str, str]] = _FRAME.findall(stack_trace)
    if any(not _LIBRARY_FRAME.search(path) for path, _ in frames):
        while _LIBRARY_FRAME.search(frames[-1][0]):
            frames.pop()
    loc: LocationAttr | None = None
    for path, line in frames:
        frame = FileLineColLoc(StringAttr(path), IntAttr(int(line)), IntAttr(0))
        loc = frame if loc is None else CallSiteLoc(frame, loc)
    return loc


def _split_top_level(text: str) -> list[str]:
    """Split at commas outside brackets, as torch's own reader does."""
    out: list[str] = []
    start = depth = 0
    for i, c in enumerate(text):
        if c in "[(":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return out


def _string_rows(rows: Sequence[Sequence[str]]) -> ArrayAttr[Attribute]:
    return ArrayAttr(ArrayAttr(StringAttr(c) for c in row) for row in rows)


_STACK_ROWS: dict[str, Attribute | None] = {}


def _stack_row(item: str) -> Attribute | None:
    """One `key,path,type` entry (shared by the many stacks that contain it)."""
    row = _STACK_ROWS.get(item, _STACK_ROWS)
    if row is _STACK_ROWS:
        parts = _split_top_level(item) if "[" in item or "(" in item else item.split(",")
        row = ArrayAttr(StringAttr(p) for p in parts) if len(parts) == 3 else None
        if len(_STACK_ROWS) < 1 << 16:
            _STACK_ROWS[item] = row
    return cast(Attribute | None, row)


def _nn_module_stack(text: str) -> Attribute:
    rows = [_stack_row(item) for item in text.split(";")]
    if any(r is None for r in rows):
        return StringAttr(text)
    return ArrayAttr(cast(list[Attribute], rows))


def _source_fn_stack(text: str) -> Attribute:
    rows = [item.split(",") for item in text.split(";")]
    if any(len(r) != 2 for r in rows):
        return StringAttr(text)
    return _string_rows(rows)


_FN_NAMES: dict[str, StringAttr] = {}


def _torch_fn(text: str) -> Attribute:
    """`name;qualified` (the name is per node, the qualified function is shared)."""
    parts = text.split(";")
    if len(parts) != 2:
        return ArrayAttr(tuple(StringAttr(p) for p in parts))
    fn = _FN_NAMES.get(parts[1])
    if fn is None:
        fn = StringAttr(parts[1])
        if len(_FN_NAMES) < 1 << 16:
            _FN_NAMES[parts[1]] = fn
    return ArrayAttr((StringAttr(parts[0]), fn))


_META_ATTRS: dict[str, Callable[[str], Attribute]] = {
    "nn_module_stack": _nn_module_stack,
    "source_fn_stack": _source_fn_stack,
    "torch_fn": _torch_fn,
    "custom": StringAttr,
}
"""Node metadata kept as discardable attributes (`from_node` provenance is dropped)."""


# ---------------------------------------------------------------------------
# Operator dispatch
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Target:
    """How nodes of one serialized target are imported (computed once per target)."""

    kind: str
    ir_name: str
    aten: type[AtenOp] | None = None
    sym: type[SymArithOp] | None = None
    schema_args: tuple[tuple[str, bool, bool], ...] | None = None
    """(name, kwarg_only, has_default) per schema argument, if a schema is known."""
    schema_index: dict[str, tuple[int, bool, bool]] | None = None
    """name -> (position, kwarg_only, has_default) of the schema arguments."""
    n_returns: int = -1


_SPECIAL: dict[str, str] = {
    "aten.sym_size.int": "sym_size",
    "aten.sym_stride.int": "sym_stride",
    "aten.sym_numel.default": "sym_numel",
    "aten._assert_scalar.default": "assert_scalar",
    "higher_order.cond": "cond",
    "higher_order.while_loop": "while_loop",
    "higher_order.map_impl": "map",
    "higher_order.with_effects": "hop",
    "operator.getitem": "getitem",
}


def _ir_name(target: str) -> str:
    if target.startswith("torch.ops."):
        return target[len("torch.ops.") :]
    if target.startswith("_operator."):
        return "operator." + target[len("_operator.") :]
    return target


def _classify(target: str, special_forms: bool = True) -> _Target:
    name = _ir_name(target)
    special = _SPECIAL.get(name) if special_forms else None
    if special is not None:
        return _Target(special, name)
    if name.startswith("higher_order."):
        return _Target("hop", name)
    sym = SYM_ARITH_OPS.get(name)
    if sym is not None:
        return _Target("sym", name, sym=sym)
    entry = lookup(name) if target.startswith("torch.ops.") else None
    schema_args = None
    n_returns = -1
    if entry is not None:
        schema = entry.schema
        schema_args = tuple((a.name, a.kwarg_only, a.has_default) for a in schema.arguments)
        n_returns = -1 if schema.is_varret else len(schema.returns)
    aten = aten_op_class(name) if target.startswith("torch.ops.aten.") else None
    index = None
    if schema_args is not None:
        index = {a[0]: (i, a[1], a[2]) for i, a in enumerate(schema_args)}
    return _Target(
        "aten" if aten else "call",
        name,
        aten=aten,
        schema_args=schema_args,
        schema_index=index,
        n_returns=n_returns,
    )


# ---------------------------------------------------------------------------
# The importer
# ---------------------------------------------------------------------------


@dataclass
class _StateData:
    """A payload config entry: where a tensor's storage is and how to view it."""

    directory: str
    path: str
    meta: dict[str, Any]


_SAVE_INSTEAD = "export the model with torch.export.export(model, args) and save it with torch.export.save(ep, 'm.pt2')"


def _what_else(archive: _Archive) -> str:
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
    archive = _Archive(data, filename)
    importer = _Importer(archive)
    # The parsed JSON is a large heap of young objects: cyclic GC passes over it
    # would cost more than the import itself, and nothing here makes cycles to free.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return importer.run()
    except _Fail as e:
        raise Pt2Error(f"{filename}: {e.message}") from None
    except RecursionError:
        raise Pt2Error(f"{filename}: {importer.entry}: graphs nested too deeply") from None
    finally:
        if gc_was_enabled:
            gc.enable()


class _Importer:
    """Program-level state: archive, caches, symbols, the graph signature."""

    def __init__(self, archive: _Archive) -> None:
        self.archive = archive
        self.entry = _MODEL_JSON
        self.targets: dict[str, _Target] = {}
        self.tensor_types: dict[tuple[object, ...], TensorType] = {}
        self.exprs: dict[str, sympy.Expr] = {}
        self.locations: dict[str, LocationAttr | None] = {}
        self.meta_attrs: dict[str, dict[str, Attribute]] = {k: {} for k in _META_ATTRS}
        self.symbols: set[str] = {ProgramOp.ENTRY}
        self.extra_graphs: list[GraphOp] = []

    # -- program --------------------------------------------------------------

    def run(self) -> ModuleOp:
        archive = self.archive
        self._check_format()
        model = archive.read_json(_MODEL_JSON)
        try:
            self._check_version(model)
            gm = _field(model, "graph_module", dict, "the program")
            graph = _field(gm, "graph", dict, "graph_module")
            signature = _field(gm, "signature", dict, "graph_module")
            inputs = [
                self._input_spec(s) for s in _field(signature, "input_specs", list, "the signature")
            ]
            outputs = [
                self._output_spec(s)
                for s in _field(signature, "output_specs", list, "the signature")
            ]
            ranges = self._ranges(model.get("range_constraints", {}))
            in_spec, out_spec = self._pytree_specs(gm.get("module_call_graph", []))
        except _Fail as e:
            raise _Fail(f"{_MODEL_JSON}: {e.message}") from None
        except _JSON_ERRORS as e:
            raise _Fail(f"{_MODEL_JSON}: {_malformed(e)}") from None
        state_data = self._payload_configs()
        for spec in inputs:
            if spec.target == ProgramOp.ENTRY:
                _fail(f"{_MODEL_JSON}: state '{spec.target}' has the name of the entry graph")
            if spec.target is not None:
                self.symbols.add(spec.target)
        try:
            forward = _GraphImporter(self, graph).build_entry(inputs, outputs)
        except _Fail as e:
            raise _Fail(f"{_MODEL_JSON}: {e.message}") from None
        except _JSON_ERRORS as e:
            raise _Fail(f"{_MODEL_JSON}: {_malformed(e)}") from None
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
                _fail(f"archive_format is {fmt!r}, not 'pt2'")
        if not archive.has(_MODEL_JSON):
            if archive.has("serialized_exported_program.json"):
                _fail(
                    "this is the torch.export format of torch < 2.6, whose weights are "
                    "pickled; re-save it with torch.export.save of torch 2.13"
                )
            others = sorted(n for n in archive.names if n.startswith("models/"))
            if others:
                _fail(
                    f"missing entry '{_MODEL_JSON}' (found {', '.join(others)}; only the "
                    "program 'model' is read)"
                )
            _fail(f"missing entry '{_MODEL_JSON}': not a torch.export archive{_what_else(archive)}")
        if not archive.has("archive_version"):
            _fail("missing entry 'archive_version' (torch 2.13 writes it; torch.export.load needs it)")
        version = archive.read("archive_version").decode("utf-8", "replace").strip()
        if version != _ARCHIVE_VERSION:
            _fail(
                f"archive_version is {version[:40]!r}; this reader knows version "
                f"{_ARCHIVE_VERSION!r} (written by torch 2.13)"
            )
        if not archive.has("byteorder"):
            _fail(
                "missing entry 'byteorder' (torch 2.13 writes it); without it the byte order "
                "of the stored weights is unknown"
            )
        order = archive.read("byteorder").decode("utf-8", "replace").strip()
        if order not in ("little", "big"):
            _fail(f"byteorder is {order[:40]!r}, not 'little' or 'big'")
        archive.byte_order = order

    def _check_version(self, model: dict[str, Any]) -> None:
        version = _field(model, "schema_version", dict, "the program")
        major = _field(version, "major", int, "schema_version")
        if major != _SCHEMA_MAJOR:
            minor = version.get("minor")
            _fail(
                f"serialization schema version {major}.{minor} is not supported "
                f"(this reader knows major version {_SCHEMA_MAJOR}, written by torch 2.13)"
            )

    # -- signature --------------------------------------------------------------

    def _input_spec(self, spec: object) -> _InputSpec:
        kind, body = _union(spec, "an input spec")
        what = f"input spec '{kind}'"
        if kind == "user_input":
            arg = _field(body, "arg", dict, what)
            name = _argument_name(arg)
            return _InputSpec(_spec_attr(InputKind.user_input, name), name)
        if kind == "parameter":
            name = _field(_field(body, "arg", dict, what), "name", str, what)
            target = _field(body, "parameter_name", str, what)
            return _InputSpec(_spec_attr(InputKind.parameter, name, target), name, target)
        if kind == "buffer":
            name = _field(_field(body, "arg", dict, what), "name", str, what)
            target = _field(body, "buffer_name", str, what)
            persistent = _field(body, "persistent", bool, what)
            return _InputSpec(_spec_attr(InputKind.buffer, name, target, persistent), name, target)
        if kind == "tensor_constant":
            name = _field(_field(body, "arg", dict, what), "name", str, what)
            target = _field(body, "tensor_constant_name", str, what)
            return _InputSpec(_spec_attr(InputKind.constant_tensor, name, target), name, target)
        if kind == "token":
            name = _field(_field(body, "arg", dict, what), "name", str, what)
            return _InputSpec(_spec_attr(InputKind.token, name), name, token=True)
        if kind == "constant_input":
            name = _field(body, "name", str, what)
            vkind, value = _union(_field(body, "value", dict, what), what)
            if vkind not in _CONSTANT_TYPES:
                _fail(f"constant input '{name}' has a value of unknown kind '{vkind}'")
            return _InputSpec(_spec_attr(InputKind.user_input, name), name, constant=(vkind, value))
        if kind == "custom_obj":
            arg = _field(body, "arg", dict, what)
            _fail(
                f"custom object input '{arg.get('name')}' (class {arg.get('class_fqn')}): "
                "TorchBind objects are stored pickled and cannot be loaded without unpickling"
            )
        _fail(f"unknown input spec kind '{kind}'")

    def _output_spec(self, spec: object) -> _OutputSpec:
        kind, body = _union(spec, "an output spec")
        what = f"output spec '{kind}'"
        targets = {
            "buffer_mutation": (OutputKind.buffer_mutation, "buffer_name"),
            "parameter_mutation": (OutputKind.parameter_mutation, "parameter_name"),
            "gradient_to_parameter": (OutputKind.gradient_to_parameter, "parameter_name"),
            "gradient_to_user_input": (OutputKind.gradient_to_user_input, "user_input_name"),
            "user_input_mutation": (OutputKind.user_input_mutation, "user_input_name"),
        }
        if kind == "user_output":
            name = _argument_name(_field(body, "arg", dict, what))
            return _OutputSpec(OutputSpecAttr(OutputKind.user_output, name))
        if kind in ("loss_output", "token"):
            name = _field(_field(body, "arg", dict, what), "name", str, what)
            return _OutputSpec(OutputSpecAttr(OutputKind(kind), name), token=kind == "token")
        if kind in targets:
            out_kind, key = targets[kind]
            name = _field(_field(body, "arg", dict, what), "name", str, what)
            return _OutputSpec(OutputSpecAttr(out_kind, name, _field(body, key, str, what)))
        _fail(f"unknown output spec kind '{kind}'")

    def _ranges(self, constraints: object) -> list[RangeConstraintAttr]:
        if not isinstance(constraints, dict):
            _fail("range_constraints is not an object")
        out: list[RangeConstraintAttr] = []
        for name, bounds in cast(dict[str, Any], constraints).items():
            try:
                expr = parse_python_expr(name)
            except (SymExprError, TypeError, ZeroDivisionError) as e:
                _fail(f"range constraint on {name!r}: {e}")
            lo = bounds.get("min_val") if isinstance(bounds, dict) else None
            hi = bounds.get("max_val") if isinstance(bounds, dict) else None
            for b in (lo, hi):
                if not isinstance(bounds, dict) or (b is not None and type(b) is not int):
                    _fail(f"range constraint on {name!r} has malformed bounds {bounds!r}")
            lower = -sympy.oo if lo is None else lo
            upper = sympy.oo if hi is None else hi
            if lo is not None and hi is not None and lo > hi:
                _fail(f"range constraint on {name!r} is empty: [{lo}, {hi}]")
            out.append(RangeConstraintAttr(expr, lower, upper))
        return out

    def _pytree_specs(self, call_graph: object) -> tuple[str | None, str | None]:
        if not isinstance(call_graph, list):
            _fail("module_call_graph is not a list")
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
        used = {_MODEL_JSON, _WEIGHTS_CONFIG, _CONSTANTS_CONFIG}
        for directory, config_name in (
            (_WEIGHTS_DIR, _WEIGHTS_CONFIG),
            (_CONSTANTS_DIR, _CONSTANTS_CONFIG),
        ):
            if not archive.has(config_name):
                legacy = [n for n in archive.names if n.startswith(directory) and n.endswith(".pt")]
                if legacy:
                    _fail(
                        f"{legacy[0]}: state stored as a pickle (legacy format); pickles are "
                        "never loaded"
                    )
                continue
            config = archive.read_json(config_name)
            try:
                entries = _field(config, "config", dict, "the payload config")
                for fqn, meta in cast(dict[str, Any], entries).items():
                    what = f"payload '{fqn}'"
                    if _field(meta, "use_pickle", bool, what):
                        _fail(
                            f"'{fqn}' is stored pickled (use_pickle: true); pickled data is "
                            "never loaded"
                        )
                    path = _field(meta, "path_name", str, what)
                    if "/" in path or "\\" in path or path in ("", ".", "..") or "\x00" in path:
                        _fail(
                            f"'{fqn}' names the data file {path!r}, which is not a plain file name"
                        )
                    if path.endswith((".pt", ".pkl", ".pickle")):
                        _fail(f"'{fqn}' refers to {path!r}, a pickle; pickled data is never loaded")
                    tensor_meta = _field(meta, "tensor_meta", dict, what)
                    used.add(directory + path)
                    if fqn not in found:
                        found[fqn] = _StateData(directory, path, tensor_meta)
            except _Fail as e:
                raise _Fail(f"{config_name}: {e.message}") from None
            except _JSON_ERRORS as e:
                raise _Fail(f"{config_name}: {_malformed(e)}") from None
        unused = len(archive.names - used)
        if unused > MAX_UNUSED_ENTRIES:
            _fail(
                f"{unused} zip entries that the program does not refer to; more than "
                f"{MAX_UNUSED_ENTRIES} is not a plausible torch.export archive"
            )
        return found

    def _states(
        self, inputs: Sequence[_InputSpec], forward: GraphOp, data: dict[str, _StateData]
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
                _fail(
                    f"no stored data for {kind} '{target}' (in neither {_WEIGHTS_CONFIG} "
                    f"nor {_CONSTANTS_CONFIG})"
                )
            config = _WEIGHTS_CONFIG if found.directory == _WEIGHTS_DIR else _CONSTANTS_CONFIG
            try:
                blob = self._blob(found, arg.type, storages)
            except _Fail as e:
                raise _Fail(f"{config}: '{target}': {e.message}") from None
            except _JSON_ERRORS as e:
                raise _Fail(f"{config}: '{target}': {_malformed(e)}") from None
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
        dtype = self.dtype(_field(meta, "dtype", int, "tensor_meta"))
        layout = meta.get("layout", 7)
        if layout != 7:
            _fail(
                f"stored with layout {_LAYOUT_CODES.get(layout, layout)}; only strided "
                "tensors can be loaded"
            )
        sizes = [_static_int(s, "size") for s in _field(meta, "sizes", list, "tensor_meta")]
        strides = [_static_int(s, "stride") for s in _field(meta, "strides", list, "tensor_meta")]
        offset = _static_int(_field(meta, "storage_offset", dict, "tensor_meta"), "storage offset")
        if not isinstance(graph_type, TensorType):
            _fail(f"the graph reads it as {graph_type}, not as a tensor")
        if list(graph_type.sizes) != sizes or graph_type.element_dtype is not dtype:
            _fail(
                f"stored as a {dtype.value} tensor of sizes {sizes} but the graph reads it "
                f"as {graph_type}"
            )
        rel = found.directory + found.path
        width, component = _ELEMENT_BYTES[dtype]
        raw = storages.get((rel, component))
        if raw is None:
            raw = self.archive.view(rel)
            if self.archive.byte_order == "big" and component > 1:
                raw = _swap_bytes(raw, component)
            storages[(rel, component)] = raw
        numel = math.prod(sizes)
        if not raw and numel > 0:
            _fail(f"'{rel}' holds no bytes (saved from fake tensors?) but the sizes are {sizes}")
        if (
            offset == 0
            and len(raw) == numel * width
            and _is_dense(range(len(sizes)), sizes, strides)
        ):
            return blob_of_buffer(raw)  # the whole storage, already contiguous
        try:
            array = array_from_bytes(raw, _CARRIERS[width], sizes, strides, offset)
        except (TensorDataError, TensorSizeError) as e:
            _fail(f"'{rel}': {e}")
        return DenseBlobAttr(array.tobytes())

    # -- shared helpers ---------------------------------------------------------

    def dtype(self, code: object) -> DType:
        dtype = DTYPE_CODES.get(code) if isinstance(code, int) and not isinstance(code, bool) else None
        if dtype is None:
            _fail(f"unknown dtype code {code!r}")
        return dtype

    def expr(self, text: str) -> sympy.Expr:
        """A size expression of the archive, printable in the IR; else `_Fail`."""
        expr = self.exprs.get(text)
        if expr is None:
            try:
                if "Symbol(" in text or "Integer(" in text:
                    parsed = parse_sympy_repr(text)
                else:
                    parsed = parse_python_expr(text)
            except (SymExprError, TypeError, ZeroDivisionError) as e:
                _fail(f"cannot read the symbolic size {text!r}: {e}"[:400])
            if not isinstance(parsed, sympy.Expr) or parsed.is_Boolean:
                _fail(f"the size {text!r} is not an integer expression")
            try:
                print_expr(parsed)
            except ValueError:
                _fail(f"the symbolic size {parsed} has no IR spelling")
            expr = self.exprs[text] = parsed
        return expr

    def size(self, s: object) -> SymSize:
        kind, value = _union(s, "a size")
        if kind == "as_int" and type(value) is int:
            return value
        if kind == "as_expr":
            return normalize(self.expr(_field(value, "expr_str", str, "a symbolic size")))
        _fail(f"malformed size {s!r}"[:300])

    def tensor_type(self, meta: object) -> TensorType:
        if not isinstance(meta, dict):
            _fail("a tensor_values entry is not an object")
        m = cast(dict[str, Any], meta)
        sizes = m.get("sizes")
        strides = m.get("strides")
        device = m.get("device")
        if not isinstance(sizes, list) or not isinstance(device, dict):
            _fail("a tensor_values entry lacks sizes or device")
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
            _fail(f"malformed device {device!r}")
        dev = dev_type if dev_index is None else f"{dev_type}:{dev_index}"
        order = None
        if strides_key is not None and all(type(s) is int for s in (*sizes_key, *strides_key)):
            order = _dim_order(cast(tuple[int, ...], sizes_key), cast(tuple[int, ...], strides_key))
        result = TensorType(shape, dtype, dev, order)
        self.tensor_types[key] = result
        return result

    def target(self, target: str) -> _Target:
        info = self.targets.get(target)
        if info is None:
            info = self.targets[target] = _classify(target)
        return info

    def generic(self, target: str) -> _Target:
        """`target` as an aten op or `exir.call_function`, without special forms."""
        return _classify(target, special_forms=False)

    def unique_symbol(self, name: str) -> str:
        candidate = name
        n = 1
        while candidate in self.symbols:
            candidate = f"{name}_{n}"
            n += 1
        self.symbols.add(candidate)
        return candidate


@dataclass
class _InputSpec:
    attr: InputSpecAttr
    name: str
    target: str | None = None
    token: bool = False
    constant: tuple[str, object] | None = None


@dataclass
class _OutputSpec:
    attr: OutputSpecAttr
    token: bool = False


_KIND_ATTRS = {k: StringAttr(k.value) for k in InputKind}
_NONE = NoneAttr()
_PERSISTENT = {True: BoolAttr.from_bool(True), False: BoolAttr.from_bool(False)}


def _spec_attr(
    kind: InputKind, name: str, target: str | None = None, persistent: bool | None = None
) -> InputSpecAttr:
    """`InputSpecAttr(...)` with shared parameter attributes (programs have many)."""
    return InputSpecAttr.new(
        [
            _KIND_ATTRS[kind],
            StringAttr(name),
            _NONE if target is None else StringAttr(target),
            _NONE if persistent is None else _PERSISTENT[persistent],
        ]
    )


def _argument_name(arg: object) -> str:
    """The value name a signature Argument refers to ('' for constants)."""
    kind, value = _union(arg, "a signature argument")
    if kind in ("as_tensor", "as_custom_obj", "as_token"):
        return _field(value, "name", str, kind)
    if kind in ("as_sym_int", "as_sym_float", "as_sym_bool"):
        inner_kind, inner = _union(value, kind)
        return inner if inner_kind == "as_name" and isinstance(inner, str) else ""
    return ""


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
    _fail(f"malformed size {s!r}"[:300])


def _static_int(s: object, what: str) -> int:
    kind, value = _union(s, what)
    if kind != "as_int" or type(value) is not int:
        _fail(f"stored state has a symbolic or malformed {what}: {s!r}"[:300])
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


def _segments(*sizes: int) -> DenseArrayBase:
    return DenseArrayBase.from_list(i32, sizes)


_NO_ATTRS = DictionaryAttr({})
_FLOAT_WORDS = ("Infinity", "-Infinity", "NaN")


class _Multi(list[object]):
    """The values of a multi-output node, under the node's own name (for getitem)."""


class _GraphImporter:
    """One serialized Graph: its own namespace of values, turned into a Block."""

    def __init__(self, importer: _Importer, graph: dict[str, Any]) -> None:
        self.imp = importer
        self.graph = graph
        self.tensor_values: dict[str, Any] = _field(graph, "tensor_values", dict, "the graph")
        self.sym_int_values: dict[str, Any] = graph.get("sym_int_values") or {}
        self.sym_bool_values: dict[str, Any] = graph.get("sym_bool_values") or {}
        self.sym_float_values: dict[str, Any] = graph.get("sym_float_values") or {}
        self.values: dict[str, object] = {}
        self.block = Block()
        self.with_effects_token = False

    # -- graphs -----------------------------------------------------------------

    def build_entry(self, inputs: Sequence[_InputSpec], outputs: Sequence[_OutputSpec]) -> GraphOp:
        """The `@forward` graph, checked against the signature."""
        graph_inputs = _field(self.graph, "inputs", list, "the graph")
        if len(graph_inputs) != len(inputs):
            _fail(
                f"the signature lists {len(inputs)} inputs but the graph has "
                f"{len(graph_inputs)} placeholders"
            )
        arg_attrs: list[DictionaryAttr] = []
        placeholders: list[tuple[str, Attribute]] = []
        any_constant = False
        for i, (arg, spec) in enumerate(zip(graph_inputs, inputs)):
            kind, body = _union(arg, f"graph input {i}")
            if spec.constant is not None or kind in _CONSTANT_TYPES:
                name = spec.name or f"arg{i}"
                ckind, cvalue = spec.constant or (kind, body)
                placeholders.append((name, _CONSTANT_TYPES[ckind]()))
                value = None if ckind == "as_none" else self._constant(ckind, cvalue)
                arg_attrs.append(DictionaryAttr({"exir.constant": encode_arg(value, [])}))
                any_constant = True
                continue
            name, t = self._input(arg, i, token=spec.token)
            if name != spec.name:
                _fail(f"signature input {i} is '{spec.name}' but graph placeholder {i} is '{name}'")
            placeholders.append((name, t))
            arg_attrs.append(_NO_ATTRS)
        self._placeholders(placeholders)
        self._nodes()
        graph_outputs = _field(self.graph, "outputs", list, "the graph")
        if len(graph_outputs) != len(outputs):
            _fail(
                f"the signature lists {len(outputs)} outputs but the graph returns "
                f"{len(graph_outputs)} values"
            )
        self._output(graph_outputs)
        block = self.block
        out_types = [v.type for v in cast(OutputOp, block.last_op).values]
        op = GraphOp(ProgramOp.ENTRY, block.arg_types, out_types, Region(block))
        if any_constant:
            op.arg_attrs = ArrayAttr(arg_attrs)
        return op

    def build_region(self) -> Region:
        """A subgraph as a region: placeholders are block arguments."""
        self._placeholders(
            [
                self._input(arg, i)
                for i, arg in enumerate(_field(self.graph, "inputs", list, "the subgraph"))
            ]
        )
        self._nodes()
        self._output(_field(self.graph, "outputs", list, "the subgraph"))
        return Region(self.block)

    def _input(self, arg: object, i: int, token: bool = False) -> tuple[str, Attribute]:
        """The name and type of one placeholder."""
        kind, body = _union(arg, f"graph input {i}")
        if kind == "as_tensor":
            name = _field(body, "name", str, "a tensor input")
            return name, TokenType() if token else self._tensor_type(name)
        if kind == "as_sym_int":
            name = self._sym_name(body, kind)
            return name, self._sym_int_type(name)
        if kind == "as_sym_float":
            return self._sym_name(body, kind), SymFloatType()
        if kind == "as_sym_bool":
            return self._sym_name(body, kind), SymBoolType()
        if kind == "as_custom_obj":
            name = _field(body, "name", str, kind)
            return name, CustomObjType(StringAttr(_field(body, "class_fqn", str, kind)))
        _fail(f"graph input {i} is of unsupported kind '{kind}'")

    def _sym_name(self, body: object, what: str) -> str:
        kind, name = _union(body, what)
        if kind != "as_name" or not isinstance(name, str):
            _fail(f"a {what} placeholder must be named, got {body!r}"[:300])
        return name

    def _placeholders(self, placeholders: Sequence[tuple[str, Attribute]]) -> None:
        self.block = Block(arg_types=[t for _, t in placeholders])
        for (name, _), value in zip(placeholders, self.block.args):
            value.name_hint = name
            self._define(name, value)

    def _define(self, name: str, value: object) -> None:
        if name in self.values:
            _fail(f"'{name}' is defined twice")
        self.values[name] = value

    def _output(self, outputs: list[Any]) -> None:
        values: list[SSAValue] = []
        for i, out in enumerate(outputs):
            kind, body = _union(out, f"graph output {i}")
            if kind == "as_tensor":
                value = self.lookup(_field(body, "name", str, "a tensor output"))
            elif kind in ("as_sym_int", "as_sym_float", "as_sym_bool"):
                value = self._sym_arg(kind, body)
                if not isinstance(value, SSAValue):  # a SymInt torch knew to be constant
                    value = self._constant_output(value)
            elif kind == "as_custom_obj":
                value = self.lookup(_field(body, "name", str, kind))
            elif kind in ("as_int", "as_float", "as_bool", "as_string", "as_none"):
                # `return x, True`: torch.export's ConstantArgument output.
                value = self._constant_output(None if kind == "as_none" else self._constant(kind, body))
            else:
                _fail(f"graph output {i} is of unsupported kind '{kind}'")
            if not isinstance(value, SSAValue):
                _fail(f"graph output {i} is not a single value")
            values.append(value)
        self.block.add_op(OutputOp(values))

    def _constant_output(self, value: object) -> SSAValue:
        op = ConstantOp(cast(bool | int | float | str | None, value))
        self.block.add_op(op)
        return op.result

    def _nodes(self) -> None:
        for node in _field(self.graph, "nodes", list, "the graph"):
            try:
                self._node(node)
            except _Fail as e:
                raise _Fail(f"{_node_place(node)}: {e.message}") from None
            except _JSON_ERRORS as e:
                raise _Fail(f"{_node_place(node)}: {_malformed(e)}") from None

    # -- values and types -------------------------------------------------------

    def lookup(self, name: object) -> object:
        value = self.values.get(name) if isinstance(name, str) else None
        if value is None:
            _fail(f"uses '{name}', which is not defined before it")
        return value

    def _tensor_type(self, name: str) -> TensorType:
        meta = self.tensor_values.get(name)
        if meta is None:
            _fail(f"no tensor_values entry for '{name}'")
        try:
            return self.imp.tensor_type(meta)
        except _Fail as e:
            raise _Fail(f"tensor_values['{name}']: {e.message}") from None

    def _sym_int_type(self, name: str) -> SymIntType:
        value = self.sym_int_values.get(name)
        if value is None:
            _fail(f"no sym_int_values entry for '{name}'")
        kind, body = _union(value, f"sym_int_values['{name}']")
        if kind == "as_int" and type(body) is int:
            return SymIntType(body)
        if kind == "as_expr":
            text = _field(body, "expr_str", str, f"sym_int_values['{name}']")
            try:
                return SymIntType(self.imp.expr(text))
            except _Fail:
                return SymIntType()  # kept opaque: the value has no IR spelling
        _fail(f"malformed sym_int_values['{name}']")

    def _result_type(self, out: object, i: int) -> tuple[Attribute, str | None, list[Any] | None]:
        """(type, name, list elements) of one node output."""
        kind, body = _union(out, f"output {i}")
        if kind == "as_tensor":
            name = _field(body, "name", str, "a tensor output")
            if self.with_effects_token and i == 0:
                return TokenType(), name, None
            return self._tensor_type(name), name, None
        if kind == "as_tensors":
            if not isinstance(body, list):
                _fail(f"output {i} is not a list")
            elems = [_field(e, "name", str, "a tensor list element") for e in cast(list[Any], body)]
            types = [self._tensor_type(e) for e in elems]
            if types and all(t == types[0] for t in types):
                return ListType(types[0]), None, elems
            return TupleType(types), None, elems
        if kind == "as_none":
            return NoneType(), None, None
        if kind in ("as_sym_int", "as_sym_float", "as_sym_bool"):
            inner_kind, name = _union(body, kind)
            if inner_kind != "as_name" or not isinstance(name, str):
                _fail(f"output {i} is a constant {kind}")
            if kind == "as_sym_int":
                return self._sym_int_type(name), name, None
            table = self.sym_float_values if kind == "as_sym_float" else self.sym_bool_values
            if name not in table:
                table_name = "sym_float_values" if kind == "as_sym_float" else "sym_bool_values"
                _fail(f"no {table_name} entry for '{name}'")
            return (SymFloatType() if kind == "as_sym_float" else SymBoolType()), name, None
        _fail(f"output {i} is of unsupported kind '{kind}'")

    # -- arguments --------------------------------------------------------------

    def arg(self, a: object) -> object:
        """An Argument as an FX-style Python value (SSA values, constants, lists)."""
        kind, v = _union(a, "an argument")
        if kind == "as_tensor":
            return self.lookup(v["name"])
        if kind in ("as_int", "as_float", "as_bool", "as_string"):
            return self._constant(kind, v)
        if kind == "as_none":
            return None
        if kind in ("as_ints", "as_floats", "as_bools", "as_strings"):
            if not isinstance(v, list):
                _fail(f"{kind} is not a list")
            elem = kind[:-1]
            return [self._constant(elem, x) for x in cast(list[Any], v)]
        if kind == "as_tensors":
            return [self.lookup(_field(t, "name", str, kind)) for t in v]
        if kind in ("as_sym_int", "as_sym_float", "as_sym_bool"):
            return self._sym_arg(kind, v)
        if kind in ("as_sym_ints", "as_sym_floats", "as_sym_bools"):
            if not isinstance(v, list):
                _fail(f"{kind} is not a list")
            return [self._sym_arg(kind[:-1], x) for x in cast(list[Any], v)]
        if kind == "as_optional_tensors":
            return [self._optional_tensor(x) for x in v]
        if kind == "as_optional_tensor":
            return self._optional_tensor(v)
        if kind == "as_scalar_type":
            return self.imp.dtype(v)
        if kind == "as_memory_format":
            fmt = _MEMORY_FORMAT_CODES.get(v) if type(v) is int else None
            if fmt is None:
                _fail(f"unknown memory format code {v!r}")
            return fmt
        if kind == "as_layout":
            layout = _LAYOUT_CODES.get(v) if type(v) is int else None
            if layout is None:
                _fail(f"unknown layout code {v!r}")
            return layout
        if kind == "as_device":
            dev_type = _field(v, "type", str, "a device")
            index = v.get("index")
            if index is not None and type(index) is not int:
                _fail(f"malformed device {v!r}")
            return DeviceAttr(dev_type if index is None else f"{dev_type}:{index}")
        if kind == "as_operator":
            if not isinstance(v, str):
                _fail("as_operator is not a string")
            return _ir_name(v)
        if kind == "as_int_lists":
            return [[self._constant("as_int", x) for x in row] for row in v]
        if kind == "as_float_lists":
            return [[self._constant("as_float", x) for x in row] for row in v]
        if kind == "as_nested_tensors":
            return [[self.lookup(_field(t, "name", str, kind)) for t in row] for row in v]
        if kind == "as_custom_obj":
            name = _field(v, "name", str, kind)
            if name in self.values:
                return self.values[name]
            _fail(
                f"uses the custom object '{name}' ({v.get('class_fqn')}), which is stored "
                "pickled and cannot be loaded"
            )
        if kind == "as_graph":
            return self._graph_attr(v)
        if kind == "as_complex":
            re_ = self._constant("as_float", _field(v, "real", (int, float, str), kind))
            im = self._constant("as_float", _field(v, "imag", (int, float, str), kind))
            return complex(cast(float, re_), cast(float, im))
        if kind == "as_string_to_argument":
            _fail("dict arguments (as_string_to_argument) are not supported")
        _fail(f"unknown argument kind '{kind}'")

    def _constant(self, kind: str, v: object) -> object:
        if kind == "as_int":
            ok = type(v) is int
        elif kind == "as_float":
            if type(v) is int or v in _FLOAT_WORDS:
                v = float(cast(int | str, v))  # torch writes inf and nan as words
            ok = type(v) is float
        elif kind == "as_bool":
            ok = type(v) is bool
        else:
            ok = type(v) is str
        if not ok:
            _fail(f"{kind} holds {v!r}"[:300])
        return v

    def _sym_arg(self, kind: str, v: object) -> object:
        inner_kind, inner = _union(v, kind)
        if inner_kind == "as_name":
            return self.lookup(inner)
        if inner_kind in ("as_int", "as_float", "as_bool"):
            return self._constant(inner_kind, inner)
        _fail(f"malformed {kind}: {v!r}"[:300])

    def _optional_tensor(self, v: object) -> object:
        kind, body = _union(v, "an optional tensor")
        if kind == "as_none":
            return None
        if kind == "as_tensor":
            return self.lookup(_field(body, "name", str, "an optional tensor"))
        _fail(f"malformed optional tensor {v!r}"[:300])

    def _graph_attr(self, v: object) -> SSAValue:
        """A subgraph argument of an unmodelled higher-order op: a sibling graph."""
        name = _field(v, "name", str, "a graph argument")
        graph = _field(v, "graph", dict, "a graph argument")
        try:
            region = _GraphImporter(self.imp, graph).build_region()
        except _Fail as e:
            raise _Fail(f"subgraph '{name}': {e.message}") from None
        block = region.block
        out = cast(OutputOp, block.last_op)
        symbol = self.imp.unique_symbol(name)
        self.imp.extra_graphs.append(GraphOp(symbol, block.arg_types, out.values.types, region))
        op = GetAttrOp(symbol)
        op.results[0].name_hint = name
        self.block.add_op(op)
        return op.results[0]

    def _split_inputs(
        self, inputs: list[Any], info: _Target
    ) -> tuple[list[object], dict[str, object]]:
        """
        FX args/kwargs of a node. With a schema, an argument is positional when the
        archive says so (or, lacking a kind, when it has no default) and every
        schema argument before it was passed positionally too.
        """
        args: list[object] = []
        kwargs: dict[str, object] = {}
        index = info.schema_index
        if index is not None:
            last = -1
            computed: dict[str, object] = {}
            values = self.values
            for inp in inputs:
                name = inp["name"]
                entry = index.get(name)
                if entry is None:
                    _fail(f"argument '{name}' is not in the operator's schema")
                position, kwarg_only, has_default = entry
                if position <= last:  # out of schema order: take the general path
                    return self._split_by_schema(inputs, cast(Any, info.schema_args), computed)
                last = position
                a = inp["arg"]
                tensor = a.get("as_tensor") if type(a) is dict and len(a) == 1 else None
                tname = tensor.get("name") if type(tensor) is dict else None
                value = values.get(tname) if isinstance(tname, str) else None
                if value is None:
                    value = self.arg(a)
                computed[name] = value
                kind = inp.get("kind")
                if (
                    (kind == _POSITIONAL or (kind != _KEYWORD and not has_default))
                    and position == len(args)
                    and not kwarg_only
                ):
                    args.append(value)
                else:
                    kwargs[name] = value
            return args, kwargs
        if info.schema_args is None:
            for inp in inputs:
                name = inp["name"]
                value = self.arg(inp["arg"])
                if inp.get("kind") == _POSITIONAL or name == "":
                    if kwargs:
                        _fail("positional argument after keyword arguments")
                    args.append(value)
                else:
                    kwargs[name] = value
            return args, kwargs
        return self._split_by_schema(inputs, info.schema_args, {})

    def _split_by_schema(
        self,
        inputs: list[Any],
        schema_args: tuple[tuple[str, bool, bool], ...],
        computed: dict[str, object],
    ) -> tuple[list[object], dict[str, object]]:
        """`_split_inputs` for inputs in any order (values already read are reused)."""
        args: list[object] = []
        kwargs: dict[str, object] = {}
        given: dict[str, Any] = {}
        for inp in inputs:
            name = inp["name"]
            if name in given:
                _fail(f"argument '{name}' given twice")
            given[name] = inp
        known = {a[0] for a in schema_args}
        for name in given:
            if name not in known:
                _fail(f"argument '{name}' is not in the operator's schema")
        in_order = True
        for name, kwarg_only, has_default in schema_args:
            inp = given.get(name)
            if inp is None:
                in_order = False
                continue
            value = computed[name] if name in computed else self.arg(inp["arg"])
            kind = inp.get("kind")
            positional = kind == _POSITIONAL or (
                kind not in (_POSITIONAL, _KEYWORD) and not has_default
            )
            if positional and in_order and not kwarg_only:
                args.append(value)
            else:
                kwargs[name] = value
                in_order = False
        return args, kwargs

    # -- nodes ------------------------------------------------------------------

    def _node(self, node: dict[str, Any]) -> None:
        target = node["target"]
        if not isinstance(target, str):
            _fail("node target is not a string")
        info = self.imp.target(target)
        kind = info.kind
        if kind == "aten" or kind == "call":
            op = self._call(node, info)
        elif kind == "sym":
            op = self._sym(node, info)
        elif kind in ("sym_size", "sym_stride", "sym_numel"):
            op = self._dim(node, info)
        elif kind == "getitem":
            op = self._getitem(node)
        elif kind == "assert_scalar":
            op = self._assert_scalar(node, info)
        elif kind == "cond":
            op = self._cond(node, info)
        elif kind == "while_loop":
            op = self._while(node, info)
        elif kind == "map":
            op = self._map(node, info)
        else:
            self.with_effects_token = info.ir_name == "higher_order.with_effects"
            try:
                op = self._call(node, info)
            finally:
                self.with_effects_token = False
        if op is not None:
            self._annotate(op, node)

    def _annotate(self, op: Operation, node: dict[str, Any]) -> None:
        meta = node.get("metadata")
        if not meta:
            return
        imp = self.imp
        attrs = op.attributes
        for key, text in meta.items():
            if not isinstance(text, str) or not text:
                continue
            if key == "stack_trace":
                if text in imp.locations:
                    loc = imp.locations[text]
                else:
                    loc = imp.locations[text] = stack_trace_location(text)
                if loc is not None:
                    op.location = loc
                continue
            cache = imp.meta_attrs.get(key)
            if cache is None:
                continue  # metadata xdsl-exir does not keep (`from_node`, ...)
            attr = cache.get(text)
            if attr is None:
                attr = cache[text] = _META_ATTRS[key](text)
            attrs[key] = attr

    def _bind_results(
        self,
        op: Operation,
        node: dict[str, Any],
        results: list[tuple[Attribute, str | None, list[Any] | None]],
    ) -> None:
        """Name results after the archive's names; list results get getitems."""
        if len(results) == 1 and results[0][1] is not None:
            name = cast(str, results[0][1])
            result = op.results[0]
            result.name_hint = name
            self._define(name, result)
            return
        multi = _Multi()
        for result, (_, name, elems) in zip(op.results, results):
            if name is not None:
                result.name_hint = name
                self._define(name, result)
                multi.append(result)
            elif elems is not None:
                if isinstance(node.get("name"), str):
                    result.name_hint = node["name"]
                items: list[SSAValue] = []
                for j, elem in enumerate(elems):
                    item = GetItemOp.create(
                        operands=[result],
                        result_types=[self._tensor_type(elem)],
                        properties={"index": IntAttr(j)},
                    )
                    item.results[0].name_hint = elem
                    self.block.add_op(item)
                    self._annotate(item, node)
                    self._define(elem, item.results[0])
                    items.append(item.results[0])
                multi.append(items)
            else:
                multi.append(result)
        node_name = node.get("name")
        if isinstance(node_name, str) and node_name not in self.values:
            if len(results) != 1:
                self.values[node_name] = multi
            elif results[0][2] is not None:
                self.values[node_name] = _Multi(cast(list[object], multi[0]))

    def _results(
        self, node: dict[str, Any]
    ) -> list[tuple[Attribute, str | None, list[Any] | None]]:
        outputs = node["outputs"]
        if not isinstance(outputs, list):
            _fail("node outputs is not a list")
        return [self._result_type(out, i) for i, out in enumerate(cast(list[Any], outputs))]

    def _call(self, node: dict[str, Any], info: _Target) -> Operation:
        inputs = node["inputs"]
        args, kwargs = self._split_inputs(inputs, info)
        results = self._results(node)
        types = [r[0] for r in results]
        aten = info.aten
        if (
            aten is not None
            and len(types) == info.n_returns
            and not any(isinstance(t, NoneType) for t in types)
            and "result_types" not in kwargs
            and "cls" not in kwargs
        ):
            op: Operation = aten.build(*args, result_types=types, **kwargs)
        else:
            try:
                op = CallFunctionOp(info.ir_name, args, kwargs, types)
            except TypeError as e:
                _fail(f"cannot represent the arguments: {e}")
        self.block.add_op(op)
        self._bind_results(op, node, results)
        return op

    def _positional(self, node: dict[str, Any]) -> list[object]:
        return [self.arg(inp["arg"]) for inp in node["inputs"]]

    def _sym(self, node: dict[str, Any], info: _Target) -> Operation:
        args = self._positional(node)
        results = self._results(node)
        if len(results) != 1 or any(not isinstance(a, SSAValue | int | float | bool) for a in args):
            return self._call(node, self.imp.generic(node["target"]))
        operands: list[SSAValue] = []
        arg_attrs = [encode_arg(a, operands) for a in args]
        assert info.sym is not None
        op = info.sym.create(
            operands=operands,
            result_types=[results[0][0]],
            properties={"args": ArrayAttr(arg_attrs)},
        )
        self.block.add_op(op)
        self._bind_results(op, node, results)
        return op

    def _dim(self, node: dict[str, Any], info: _Target) -> Operation:
        args = self._positional(node)
        results = self._results(node)
        ok = (
            len(results) == 1
            and isinstance(results[0][0], SymIntType)
            and args
            and isinstance(args[0], SSAValue)
        )
        if info.kind == "sym_numel":
            ok = ok and len(args) == 1
        else:
            ok = ok and len(args) == 2 and type(args[1]) is int
        if not ok:
            return self._call(node, self.imp.generic(node["target"]))
        value = cast(SSAValue, args[0])
        if info.kind == "sym_numel":
            op: Operation = SymNumelOp.create(operands=[value], result_types=[results[0][0]])
        else:
            cls = SymSizeOp if info.kind == "sym_size" else SymStrideOp
            op = cls.create(
                operands=[value],
                result_types=[results[0][0]],
                properties={"dim": IntAttr(cast(int, args[1]))},
            )
        self.block.add_op(op)
        self._bind_results(op, node, results)
        return op

    def _getitem(self, node: dict[str, Any]) -> Operation | None:
        args = self._positional(node)
        results = self._results(node)
        if len(args) != 2 or type(args[1]) is not int or len(results) != 1:
            _fail("getitem takes a value and an integer index")
        seq, index = args[0], cast(int, args[1])
        name = results[0][1]
        if isinstance(seq, list):
            items = cast(list[object], seq)
            if not -len(items) <= index < len(items):
                _fail(f"getitem index {index} out of range")
            if name is not None:
                self._define(name, items[index])
            return None
        if not isinstance(seq, SSAValue) or not isinstance(seq.type, TupleType | ListType):
            _fail("getitem of a value that is not a list or tuple")
        op = GetItemOp.create(
            operands=[seq], result_types=[results[0][0]], properties={"index": IntAttr(index)}
        )
        self.block.add_op(op)
        self._bind_results(op, node, results)
        return op

    def _assert_scalar(self, node: dict[str, Any], info: _Target) -> Operation:
        inputs = node["inputs"]
        args, kwargs = self._split_inputs(inputs, info)
        values = [*args, *kwargs.values()]
        if (
            len(values) == 2
            and isinstance(values[0], SSAValue)
            and isinstance(values[0].type, SymBoolType | BoolType)
            and isinstance(values[1], str)
            and not any(_union(o, "output")[0] != "as_none" for o in node["outputs"])
        ):
            op = AssertScalarOp(values[0], values[1])
            self.block.add_op(op)
            return op
        return self._call(node, self.imp.generic(node["target"]))

    # -- higher-order ops -------------------------------------------------------

    def _hop_args(self, node: dict[str, Any]) -> list[Any]:
        """The raw positional Arguments of a higher-order op."""
        out: list[Any] = []
        for inp in node["inputs"]:
            if inp.get("kind") not in (_POSITIONAL, None) and inp.get("name"):
                return []  # keyword arguments: keep the generic form
            out.append(inp["arg"])
        return out

    def _region(self, arg: object, what: str) -> Region | None:
        kind, body = _union(arg, what)
        if kind != "as_graph":
            return None
        name = _field(body, "name", str, "a graph argument")
        try:
            return _GraphImporter(
                self.imp, _field(body, "graph", dict, "a graph argument")
            ).build_region()
        except _Fail as e:
            raise _Fail(f"subgraph '{name}': {e.message}") from None

    def _value_list(self, arg: object) -> list[SSAValue] | None:
        value = self.arg(arg)
        if isinstance(value, list) and all(
            isinstance(v, SSAValue) for v in cast(list[object], value)
        ):
            return cast(list[SSAValue], value)
        return None

    def _structured(
        self, node: dict[str, Any], n_graphs: int, n_lists: int, lead_value: bool
    ) -> tuple[list[Region], SSAValue | None, list[list[SSAValue]]] | None:
        """Check the cond/while/map argument pattern; None means use the generic form."""
        raw = self._hop_args(node)
        expected = n_graphs + n_lists + (1 if lead_value else 0)
        if len(raw) != expected:
            return None
        kinds = [_union(a, "an argument")[0] for a in raw]
        start = 1 if lead_value else 0
        if any(k != "as_graph" for k in kinds[start : start + n_graphs]):
            return None
        if any(k not in ("as_tensors", "as_sym_ints") for k in kinds[start + n_graphs :]):
            return None
        lead: SSAValue | None = None
        if lead_value:
            value = self.arg(raw[0])
            if not isinstance(value, SSAValue):
                return None
            lead = value
        lists: list[list[SSAValue]] = []
        for a in raw[start + n_graphs :]:
            values = self._value_list(a)
            if values is None:
                return None
            lists.append(values)
        regions = [
            cast(Region, self._region(a, "a subgraph")) for a in raw[start : start + n_graphs]
        ]
        return regions, lead, lists

    def _finish_hop(
        self,
        op: Operation,
        node: dict[str, Any],
        results: list[tuple[Attribute, str | None, list[Any] | None]],
    ) -> Operation:
        self.block.add_op(op)
        self._bind_results(op, node, results)
        return op

    def _plain_results(
        self, node: dict[str, Any]
    ) -> list[tuple[Attribute, str | None, list[Any] | None]] | None:
        results = self._results(node)
        if any(name is None for _, name, _ in results):
            return None
        return results

    def _cond(self, node: dict[str, Any], info: _Target) -> Operation:
        results = self._plain_results(node)
        parts = self._structured(node, 2, 1, True) if results is not None else None
        if parts is None or results is None:
            return self._call(node, info)
        (true_region, false_region), pred, (operands,) = parts
        assert pred is not None
        op = CondOp(pred, operands, [r[0] for r in results], true_region, false_region)
        return self._finish_hop(op, node, results)

    def _while(self, node: dict[str, Any], info: _Target) -> Operation:
        results = self._plain_results(node)
        parts = self._structured(node, 2, 2, False) if results is not None else None
        if parts is None or results is None:
            return self._call(node, info)
        (cond_region, body_region), _, (carried, additional) = parts
        op = WhileLoopOp.create(
            operands=[*carried, *additional],
            result_types=[r[0] for r in results],
            regions=[cond_region, body_region],
            properties={"operandSegmentSizes": _segments(len(carried), len(additional))},
        )
        return self._finish_hop(op, node, results)

    def _map(self, node: dict[str, Any], info: _Target) -> Operation:
        results = self._plain_results(node)
        parts = self._structured(node, 1, 2, False) if results is not None else None
        if parts is None or results is None:
            return self._call(node, info)
        (body,), _, (xs, extra) = parts
        op = MapOp.create(
            operands=[*xs, *extra],
            result_types=[r[0] for r in results],
            regions=[body],
            properties={"operandSegmentSizes": _segments(len(xs), len(extra))},
        )
        return self._finish_hop(op, node, results)


def _node_place(node: object) -> str:
    if not isinstance(node, dict):
        return "a node"
    d = cast(dict[str, Any], node)
    name = d.get("name")
    if not isinstance(name, str):
        outputs = d.get("outputs")
        name = "?"
        if isinstance(outputs, list) and outputs:
            try:
                name = _argument_name(cast(list[Any], outputs)[0]) or "?"
            except _Fail:
                pass
    return f"node '{name}' ({d.get('target')})"
