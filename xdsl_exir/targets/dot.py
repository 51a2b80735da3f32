"""
`--emit dot` / `--emit svg`: a picture of a program at any stage.

Torch users have FX's graph drawer, MLIR users `--view-op-graph`; this is one
drawer for every IR of the project: Export IR (`exir` / `aten` ops and the
`fx` dialect), TorchScript (`ts` / `prim`) and the upstream dialects that
`convert-exir-to-linalg` produces (a generic op graph).

* each graph (`exir.graph`, `ts.method`, `func.func`) is a cluster; its
  placeholders are drawn by kind (user input, parameter, buffer, constant, the
  `self` of a method) and its terminator is the output node;
* an op with regions (`cond`, `while_loop`, `map`, `exir.fusion_group`,
  `prim.If` / `prim.Loop`, `prim.FusionGroup` and other TorchScript subgraphs,
  `scf` ops) is a cluster holding the op and one sub-cluster per region; the
  scalar payload of a `linalg` op (or of `tensor.pad`) is summed up in its
  label instead;
* edges carry the value's dtype and shape (`f32[s0, 4]`, `4x8xf32`, `Float(2, 3)`);
* ops are coloured by family (matmul / conv, pointwise, reduction, view /
  copy, creation, control flow, fusion, symbolic, call), with a legend of the
  families present;
* `collapse-depth=N` (`--emit 'dot{collapse-depth=1}'`) draws one box per
  module at depth N of each op's `nn_module_stack` (depth 1: `layer1`, depth 2:
  `layer1.0`), so that a large model stays readable. Ops called by the root
  module itself stay single.

The output is deterministic: node ids are numbered in IR order, so FileCheck
can test the text. `svg` runs Graphviz's `dot` on that text (a subprocess with
a timeout); without it, the diagnostic says how to install it.
"""

from __future__ import annotations

import dataclasses
import math
import re
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import IO, ClassVar, Self, cast

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    DictionaryAttr,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i1,
)
from xdsl.dialects.builtin import (
    TensorType as BuiltinTensorType,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import IRDLOperation
from xdsl.utils.arg_spec import ArgSpec
from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.target import Target

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import (
    ArgsOpMixin,
    CallFunctionOp,
    DenseBlobAttr,
    DType,
    GraphOp,
    InputKind,
    ListType,
    OptionalType,
    OutputKind,
    ProgramOp,
    StateOp,
    SymScalarType,
    TensorType,
    TupleType,
)
from xdsl_exir.dialects.ts import MethodOp, ScriptModuleOp, SlotOp, TensorValueAttr, ts_type_str
from xdsl_exir.utils.function_schema import SchemaType, TypeKind
from xdsl_exir.utils.op_registry import lookup, overloads
from xdsl_exir.utils.schema_binding import SchemaBindError, bind
from xdsl_exir.utils.symbolic import print_python_expr

__all__ = ["DotTarget", "SvgTarget", "FAMILY_COLOURS", "op_family", "to_dot", "render_svg"]

FAMILY_COLOURS: dict[str, str] = {
    "matmul / conv": "#f8b4b4",
    "pointwise": "#bfdbfe",
    "reduction / norm": "#d8c8fa",
    "view / copy": "#e5e7eb",
    "creation": "#fef3a0",
    "control flow": "#fdc98a",
    "fusion": "#a7e8bd",
    "symbolic": "#f5d0fe",
    "call": "#ffffff",
    "module": "#c7d2fe",
}
"""Fill colour of each op family, in legend order."""

_PLACEHOLDER_STYLES: dict[str, tuple[str, str]] = {
    "user_input": ("invhouse", "#93c5fd"),
    "parameter": ("cylinder", "#fcd34d"),
    "buffer": ("cylinder", "#fdba74"),
    "constant_tensor": ("cylinder", "#d1d5db"),
    "custom_obj": ("component", "#d1d5db"),
    "token": ("point", "#000000"),
    "self": ("component", "#c7d2fe"),
    "region": ("ellipse", "#f3f4f6"),
}
"""Shape and fill of each kind of graph input."""

_MATMUL_CONV = frozenset(
    {
        "mm", "bmm", "addmm", "matmul", "linear", "baddbmm", "addbmm", "addmv", "mv", "dot",
        "einsum", "bilinear", "convolution", "_convolution", "conv1d", "conv2d", "conv3d",
        "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "scaled_dot_product_attention",
        "_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_attention_math",
    }
)  # fmt: skip
"""ATen ops that do the heavy arithmetic (products and convolutions)."""

_NORMS = frozenset(
    {
        "softmax", "_softmax", "log_softmax", "_log_softmax", "layer_norm", "native_layer_norm",
        "batch_norm", "native_batch_norm", "_native_batch_norm_legit", "group_norm",
        "_native_batch_norm_legit_no_training", "native_group_norm", "rms_norm", "cumsum", "cumprod",
    }
)  # fmt: skip
"""Row-wise ATen ops torch does not tag `reduction` but that reduce as they go."""

_DATA_MOVEMENT = frozenset(
    {
        "cat", "stack", "clone", "_to_copy", "copy", "contiguous", "index", "index_select",
        "gather", "embedding", "constant_pad_nd", "pad", "repeat", "flip", "roll", "scatter",
        "slice_scatter", "select_scatter", "index_put", "_unsafe_view", "tril", "triu",
        "split_with_sizes", "lift_fresh_copy",
    }
)  # fmt: skip
"""ATen ops that move or copy data without arithmetic."""

_DTYPE_SHORT: dict[DType, str] = {
    DType.float32: "f32",
    DType.float64: "f64",
    DType.float16: "f16",
    DType.bfloat16: "bf16",
    DType.int64: "i64",
    DType.int32: "i32",
    DType.int16: "i16",
    DType.int8: "i8",
    DType.uint8: "u8",
    DType.bool: "bool",
}

_METADATA = frozenset(
    {
        "nn_module_stack", "stack_trace", "torch_fn", "source_fn_stack", "from_node", "seq_nr",
        "sym_name", "function_type", "arg_attrs", "res_attrs", "operandSegmentSizes",
        "resultSegmentSizes", "indexing_maps", "iterator_types", "sym_visibility", "schema",
    }
)  # fmt: skip
"""Attributes that say where an op came from, not what it computes: never in a label."""

_PLACEMENT_ARGS = frozenset({"device", "layout", "pin_memory", "memory_format", "non_blocking"})
"""Factory arguments that say where a tensor lives, not what it holds: left out of labels."""

_MAX_ATTR = 28
"""Longest attribute text kept in a label (longer ones are cut with an ellipsis)."""


# ---------------------------------------------------------------------------
# Op families
# ---------------------------------------------------------------------------


def _aten_family(name: str) -> str | None:
    """The family of an ATen operator (`aten.add.Tensor`, or `aten::add` whatever its overload)."""
    ns, _, rest = name.replace("::", ".").partition(".")
    base, _, overload = rest.partition(".")
    if ns != "aten":
        return None
    if base in _MATMUL_CONV:
        return "matmul / conv"
    if base in _NORMS or base.startswith(("max_pool", "avg_pool", "adaptive_")):
        return "reduction / norm"
    if overload:
        entry = lookup(f"aten.{base}.{overload}")
    else:  # a TorchScript node names no overload: the tensor one speaks for it
        found = overloads(f"aten::{base}")
        preferred = [n for n in found if n.endswith(".Tensor")] + [n for n in found if n.endswith(".default")]
        preferred = preferred or list(found)
        entry = lookup(preferred[0]) if preferred else None
    if entry is None:
        return "view / copy" if base in _DATA_MOVEMENT else None
    if "pointwise" in entry.tags:
        return "pointwise"
    if "reduction" in entry.tags:
        return "reduction / norm"
    schema = entry.schema
    if base in _DATA_MOVEMENT or "view_copy" in entry.tags:
        return "view / copy"
    if any(r.alias_info is not None and not r.is_write for r in schema.returns):
        return "view / copy"
    if not any(_mentions_tensor(a.type) for a in schema.arguments):
        return "creation"
    return None


def _mentions_tensor(t: SchemaType) -> bool:
    if t.kind is TypeKind.BASE:
        return t.name == "Tensor"
    return any(_mentions_tensor(e) for e in t.elements)


def op_family(op: Operation) -> str:
    """The family an op is coloured by (a key of `FAMILY_COLOURS`)."""
    name = op.name
    if name in ("exir.fusion_group", "prim.FusionGroup", "prim.DifferentiableGraph", "prim.TensorExprGroup"):
        return "fusion"
    dialect = name.split(".", 1)[0]
    if name in ("exir.cond", "exir.while_loop", "exir.map") or dialect == "scf":
        return "control flow"
    if name in ("prim.If", "prim.Loop", "prim.With", "prim.fork", "prim.Guard", "prim.BailOut", "prim.TypeCheck"):
        return "control flow"
    sym_result = bool(op.results) and isinstance(op.results[0].type, SymScalarType)
    if name.startswith(("exir.sym_", "exir.assert_scalar")) or sym_result:
        return "symbolic"
    target: str | None = None
    if isinstance(op, AtenOp):
        target = name
    elif isinstance(op, CallFunctionOp):
        target = op.target.data.removeprefix("torch.ops.")
    elif name == "ts.node":
        target = cast(StringAttr, op.properties["kind"]).data
    if target is not None:
        return _aten_family(target) or "call"
    if name == "prim.Constant" or name in ("arith.constant", "tensor.empty", "linalg.fill", "linalg.index"):
        return "creation"
    if name.startswith(("prim.List", "prim.Tuple", "prim.Dict", "prim.ConstantChunk", "exir.getitem")):
        return "view / copy"
    if dialect == "linalg":
        return _linalg_family(op)
    if dialect in ("arith", "math"):
        return "pointwise"
    if dialect == "tensor":
        return "view / copy"
    return "call"


def _linalg_family(op: Operation) -> str:
    kind = op.name.removeprefix("linalg.")
    if kind.startswith(("matmul", "batch_matmul", "conv", "depthwise_conv", "matvec", "vecmat", "dot")):
        return "matmul / conv"
    if kind.startswith(("pooling", "reduce")):
        return "reduction / norm"
    if kind in ("transpose", "broadcast", "copy"):
        return "view / copy"
    iterators = op.properties.get("iterator_types") or op.attributes.get("iterator_types")
    if isinstance(iterators, ArrayAttr) and "reduction" in str(iterators):
        return "reduction / norm"
    return "pointwise"


# ---------------------------------------------------------------------------
# Labels
# ---------------------------------------------------------------------------


def type_label(t: Attribute) -> str:
    """A value's type, short: `f32[s0, 4]`, `SymInt s0`, `4x8xf32`, `Float(2, 3)`."""
    if isinstance(t, TensorType):
        dtype = _DTYPE_SHORT.get(t.element_dtype, str(t.element_dtype.value))
        sizes = ", ".join(str(s) if isinstance(s, int) else print_python_expr(s) for s in t.sizes)
        return f"{dtype}[{sizes}]"
    if isinstance(t, SymScalarType):
        kind = t.name.removeprefix("exir.sym_")
        head = {"int": "SymInt", "float": "SymFloat", "bool": "SymBool"}.get(kind, kind)
        return head if t.value is None else f"{head} {print_python_expr(t.value)}"
    if isinstance(t, TupleType):
        return "(" + ", ".join(type_label(e) for e in t.types.data) + ")"
    if isinstance(t, ListType):
        return f"list[{type_label(t.element_type)}]"
    if isinstance(t, OptionalType):
        return f"{type_label(t.element_type)}?"
    if t.name.startswith(("exir.", "fx.")) and isinstance(t, ParametrizedAttribute) and not t.parameters:
        return t.name.split(".", 1)[1]
    if isinstance(t, BuiltinTensorType):
        shape = "x".join("?" if d < 0 else str(d) for d in t.get_shape())
        element = str(t.element_type)
        return f"{shape}x{element}" if shape else element
    if t.name.startswith("ts.") and isinstance(t, TypeAttribute):
        return ts_type_str(t)
    text = str(t)
    return text if len(text) <= _MAX_ATTR else text[: _MAX_ATTR - 1] + "…"


def _short(value: object) -> str:
    """An attribute or argument value as a label shows it."""
    if isinstance(value, StringAttr):
        text = repr(value.data) if len(value.data) <= _MAX_ATTR else repr(value.data[:_MAX_ATTR]) + "…"
    elif isinstance(value, IntAttr):
        text = str(value.data)
    elif isinstance(value, IntegerAttr):
        number = cast(IntegerAttr, value).value.data
        text = str(bool(number)).lower() if value.type == i1 else str(number)
    elif isinstance(value, FloatAttr):
        text = _float_text(cast(FloatAttr, value).value.data)
    elif isinstance(value, ArrayAttr):
        text = "[" + ", ".join(_short(v) for v in cast(ArrayAttr[Attribute], value).data) + "]"
    elif isinstance(value, list | tuple):
        text = "[" + ", ".join(_short(v) for v in cast(Sequence[object], value)) + "]"
    elif isinstance(value, float):
        text = _float_text(value)
    elif isinstance(value, Enum):  # DType, Layout, MemoryFormat: torch's names
        text = str(value.value)
    elif isinstance(value, str):
        text = repr(value)
    elif isinstance(value, int) and abs(value) >= _INT64_MAX:
        text = "INT64_MAX" if value > 0 else "INT64_MIN"
    elif isinstance(value, SSAValue):
        text = "%" + (value.name_hint or "")
    elif isinstance(value, DenseArrayBase):
        values = cast(DenseArrayBase[IntegerType], value).get_values()
        text = "[" + ", ".join(_short(v) for v in values) + "]"
    elif isinstance(value, DenseResourceAttr):
        text = f"resource {value.resource_handle.data}"
    elif isinstance(value, DenseIntOrFPElementsAttr):
        values = value.get_values() if len(value) == 1 else ()
        text = _short(values[0]) if values else f"dense {type_label(value.get_type())}"
    elif isinstance(value, TensorValueAttr):
        text = f"{value.scalar.data}{list(value.shape)} tensor"
    elif isinstance(value, DenseBlobAttr):
        text = f"<{len(value.data)} bytes>"
    elif isinstance(value, TypeAttribute):
        text = type_label(value)
    elif isinstance(value, Attribute):
        text = str(value)
    else:
        text = str(getattr(value, "value", value))
    return text if len(text) <= _MAX_ATTR else text[: _MAX_ATTR - 1] + "…"


_INT64_MAX = 2**63 - 1
"""`end=INT64_MAX` is how torch spells an open slice; the label says so."""


def _float_text(value: float) -> str:
    """Six significant digits, and `2.0` rather than `2` so a float reads as one."""
    return repr(value) if value.is_integer() or not math.isfinite(value) else f"{value:.6g}"


def _aten_key_args(op: AtenOp) -> list[str]:
    """The constant arguments given to an ATen op, named by its schema (`dims=[1, 0]`)."""
    entry = lookup(op.name)
    args, kwargs = op.get_args(), op.get_kwargs()
    if entry is None:
        return []
    try:
        bound = bind(entry.schema, args, kwargs, defaults=False, missing="ignore").values
    except SchemaBindError:
        return []
    out: list[str] = []
    for name, value in bound.items():
        if value is None or _holds_value(value) or name in _PLACEMENT_ARGS:
            continue
        out.append(f"{name}={_short(value)}")
    return out


def _holds_value(value: object) -> bool:
    if isinstance(value, SSAValue):
        return True
    if isinstance(value, list | tuple):
        return any(_holds_value(v) for v in cast(Sequence[object], value))
    return False


def _constant_args(op: ArgsOpMixin) -> list[str]:
    """The constant arguments of an op with FX argument trees, positional then by keyword."""
    out = [_short(a) for a in op.get_args() if a is not None and not _holds_value(a)]
    out += [f"{k}={_short(v)}" for k, v in op.get_kwargs().items() if v is not None and not _holds_value(v)]
    return out


def _attr_items(op: Operation) -> list[str]:
    """Short properties and attributes of an op, for a generic label."""
    out: list[str] = _constant_args(op) if isinstance(op, ArgsOpMixin) else []
    items = {**op.properties, **op.attributes}
    for name in sorted(items):
        if name in _METADATA or name == "kind" or (isinstance(op, ArgsOpMixin) and name in ("args", "kwargs")):
            continue
        value = items[name]
        if isinstance(value, DictionaryAttr):
            for k in sorted(value.data):
                out.append(k if isinstance(value.data[k], UnitAttr) else f"{k}={_short(value.data[k])}")
            continue
        if isinstance(value, UnitAttr):
            out.append(name)
        elif name in ("value", "name", "target"):
            out.append(_short(value))
        else:
            out.append(f"{name}={_short(value)}")
    return out


def op_label(op: Operation) -> str:
    """Op name and its key attributes, one per line (at most three)."""
    name = op.name
    attrs: list[str]
    if isinstance(op, AtenOp):
        name = name.removeprefix("aten.").removesuffix(".default")
        attrs = _aten_key_args(op)
    elif isinstance(op, CallFunctionOp):
        name = op.target.data.removeprefix("torch.ops.")
        attrs = _constant_args(op)
    elif name == "ts.node":
        name = cast(StringAttr, op.properties["kind"]).data
        name = name.removeprefix("aten::")
        attrs = _attr_items(op)
    elif name.startswith("prim."):
        name = "prim::" + name.removeprefix("prim.")
        attrs = _attr_items(op)
    elif name.startswith("exir."):
        name = name.removeprefix("exir.")
        attrs = _attr_items(op)
    elif name in ("fx.call_module", "fx.call_method"):
        target = cast(StringAttr, op.properties["target"]).data
        name = f"{name.removeprefix('fx.')} {target}"
        attrs = _constant_args(cast(ArgsOpMixin, op))
        if op.name == "fx.call_module":  # the module's class says more than its configuration
            attrs = [cast(StringAttr, op.properties["module"]).data.rsplit(".", 1)[-1]]
    elif name.startswith("fx."):
        attrs = _attr_items(op)
        name = name.removeprefix("fx.")
    else:
        attrs = _linalg_summary(op) if name.startswith("linalg.") else _attr_items(op)
    if op.name == "exir.fusion_group":
        count = sum(1 for _ in op.walk()) - 2  # the group and its output
        attrs = [f"{count} ops"]
    if len(attrs) > 3:
        attrs = [*attrs[:2], f"(+{len(attrs) - 2})"]
    return "\n".join([name, *attrs])


def _linalg_summary(op: Operation) -> list[str]:
    """Iterators and the payload's ops of a structured op (its region is not drawn)."""
    out: list[str] = []
    iterators = op.properties.get("iterator_types") or op.attributes.get("iterator_types")
    if isinstance(iterators, ArrayAttr):
        kinds = ["red" if "reduction" in str(i) else "par" for i in cast(ArrayAttr[Attribute], iterators).data]
        out.append(" ".join(kinds))
    payload = _payload_ops(op)
    if payload:
        out.append(", ".join(payload) if len(payload) <= 3 else ", ".join(payload[:3]) + ", …")
    return out


def _payload_ops(op: Operation) -> list[str]:
    names: list[str] = []
    for region in op.regions:
        for inner in region.walk():
            if inner.name not in ("linalg.yield", "tensor.yield", "arith.constant", "linalg.index"):
                names.append(inner.name.split(".", 1)[-1])
    return names


def _is_payload_region_op(op: Operation) -> bool:
    """Ops whose region is a scalar payload, summed up in the label, not drawn."""
    return op.name.startswith("linalg.") or op.name == "tensor.pad"


def _defined_inside(value: SSAValue, op: Operation) -> bool:
    owner = value.owner
    defining = owner if isinstance(owner, Operation) else owner.parent_op()
    return defining is not None and op.is_ancestor(defining)


def _region_names(op: Operation) -> list[str]:
    """Region names from the op definition (`true_branch`, `body`), else `region <i>`."""
    names: list[str] = []
    if isinstance(op, IRDLOperation):
        names = [n for n, _ in type(op).get_irdl_definition().regions]
    if op.name == "prim.If":
        names = ["then", "else"]
    if len(names) != len(op.regions):
        return [f"region {i}" for i in range(len(op.regions))]
    return [n.removesuffix("_region").removesuffix("_branch") for n in names]


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
"""Control characters other than tab and newline: a NUL in a name (which a graph dump or FX
name can hold) would end the string for Graphviz's C reader, so they are shown as `\\xNN`."""


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    escaped = _CONTROL.sub(lambda m: f"\\\\x{ord(m.group()):02x}", escaped)
    return f'"{escaped}"'


# ---------------------------------------------------------------------------
# The writer
# ---------------------------------------------------------------------------


@dataclass
class _Edge:
    src: str
    dst: str
    label: str
    style: str = ""


@dataclass
class _Box:
    """One module drawn as a single node when collapsing."""

    node_id: str
    line: int
    path: str
    cls: str
    ops: int = 0
    state: set[SSAValue] = field(default_factory=lambda: set[SSAValue]())


@dataclass
class _Scope:
    """The collapsed module boxes of one graph, and its state inputs not drawn yet."""

    boxes: dict[str, _Box] = field(default_factory=lambda: {})
    by_id: dict[str, _Box] = field(default_factory=lambda: {})
    pending: dict[SSAValue, tuple[str, str, str, int]] = field(default_factory=lambda: {})
    """Parameters and buffers: (label, shape, fill, depth), drawn only if an op outside a box reads them."""


class _DotWriter:
    def __init__(self, collapse_depth: int) -> None:
        self.collapse_depth = collapse_depth
        self.lines: list[str] = []
        self.edges: list[_Edge] = []
        self.seen_edges: set[tuple[str, str, str]] = set()
        self.ids: dict[SSAValue, str] = {}
        self.families: set[str] = set()
        self.next_node = 0
        self.next_cluster = 0
        self.scope: _Scope | None = None

    # -- ids ------------------------------------------------------------------

    def _node_id(self) -> str:
        self.next_node += 1
        return f"n{self.next_node - 1}"

    def _cluster_id(self) -> str:
        self.next_cluster += 1
        return f"cluster_{self.next_cluster - 1}"

    def emit(self, text: str, depth: int) -> None:
        self.lines.append("  " * depth + text)

    def node(self, label: str, depth: int, *, shape: str = "box", fill: str = "#ffffff") -> str:
        node_id = self._node_id()
        style = "filled" if shape != "box" else "rounded,filled"
        attrs = f"label={_quote(label)}, shape={shape}, style={_quote(style)}, fillcolor={_quote(fill)}"
        self.emit(f"{node_id} [{attrs}];", depth)
        return node_id

    def edge(self, src: str, dst: str, label: str, style: str = "") -> None:
        if src == dst or (src, dst, label) in self.seen_edges:
            return
        self.seen_edges.add((src, dst, label))
        self.edges.append(_Edge(src, dst, label, style))

    # -- the module -------------------------------------------------------------

    def module(self, module: ModuleOp) -> str:
        self.emit("digraph G {", 0)
        self.emit('graph [rankdir=TB, fontname="Helvetica", fontsize=11];', 1)
        self.emit('node [fontname="Helvetica", fontsize=10];', 1)
        self.emit('edge [fontname="Helvetica", fontsize=8, color="#4b5563"];', 1)
        self.top(module.body.block.ops, "", 1)
        for e in self.edges:
            attrs = ([f"label={_quote(e.label)}"] if e.label else []) + ([f"style={e.style}"] if e.style else [])
            self.emit(f"{e.src} -> {e.dst}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";", 1)
        self.legend(1)
        self.emit("}", 0)
        return "\n".join(self.lines) + "\n"

    def top(self, ops: Iterable[Operation], prefix: str, depth: int) -> None:
        """Program-level ops: graphs become clusters; state and slots are drawn as placeholders."""
        programs = [op for op in ops if isinstance(op, ProgramOp)]
        for op in ops:
            if isinstance(op, ModuleOp):
                self.top(op.body.block.ops, prefix, depth)
            elif isinstance(op, ProgramOp):
                tag = f"program {programs.index(op)} " if len(programs) > 1 else ""
                for inner in op.body.block.ops:
                    if isinstance(inner, GraphOp):
                        entry = inner is op.entry
                        self.graph(inner, f"{tag}@{inner.sym_name.data}", op if entry else None, depth)
            elif isinstance(op, GraphOp):
                self.graph(op, f"@{op.sym_name.data}", None, depth)
            elif isinstance(op, ScriptModuleOp):
                path = f"{prefix}{op.sym_name.data}"
                self.top(op.body.block.ops, path + ".", depth)
            elif isinstance(op, MethodOp):
                self.graph(op, f"{prefix}{op.sym_name.data}", None, depth)
            elif isinstance(op, FuncOp):
                if op.body.blocks:
                    self.graph(op, f"func @{op.sym_name.data}", None, depth)
            elif isinstance(op, StateOp | SlotOp):
                continue
            else:
                self.op(op, depth, None)

    # -- graphs -------------------------------------------------------------------

    def graph(self, op: Operation, label: str, program: ProgramOp | None, depth: int) -> None:
        block = op.regions[0].blocks.first
        if block is None:
            return
        cluster = self._cluster_id()
        self.emit(f"subgraph {cluster} {{", depth)
        self.emit(f'label={_quote(label)}; style="rounded"; color="#6b7280";', depth + 1)
        kinds = self._input_kinds(op, program, block)
        scope = _Scope() if self.collapse_depth > 0 else None
        self.scope = scope
        for arg, (kind, text) in zip(block.args, kinds):
            shape, fill = _PLACEHOLDER_STYLES.get(kind, _PLACEHOLDER_STYLES["user_input"])
            if scope is not None and kind in ("parameter", "buffer", "constant_tensor"):
                scope.pending[arg] = (text, shape, fill, depth + 1)
            else:
                self.ids[arg] = self.node(text, depth + 1, shape=shape, fill=fill)
        self.block_ops(block, depth + 1, scope, program)
        if scope is not None:
            self._finish_boxes(scope)
        self.scope = None
        self.emit("}", depth)

    def _input_kinds(self, op: Operation, program: ProgramOp | None, block: Block) -> list[tuple[str, str]]:
        """(kind, label) of each graph input."""
        out: list[tuple[str, str]] = []
        specs = list(program.inputs.data) if program is not None else []
        for i, arg in enumerate(block.args):
            name = arg.name_hint or f"arg{i}"
            if i < len(specs):
                spec = specs[i]
                kind = spec.input_kind
                if kind is InputKind.user_input:
                    out.append(("user_input", spec.arg_name.data))
                else:
                    target = spec.target_name or spec.arg_name.data
                    out.append((kind.value, f"{target}\n{kind.value.replace('_', ' ')}"))
                continue
            if isinstance(op, FuncOp) and op.arg_attrs is not None and i < len(op.arg_attrs.data):
                attrs = op.arg_attrs.data[i].data
                kind_attr, name_attr = attrs.get("exir.kind"), attrs.get("exir.name")
                if isinstance(kind_attr, StringAttr):
                    kind = kind_attr.data
                    label = name_attr.data if isinstance(name_attr, StringAttr) else name
                    out.append((kind, label if kind == "user_input" else f"{label}\n{kind.replace('_', ' ')}"))
                    continue
            if isinstance(op, MethodOp) and i == 0 and arg.type.name == "ts.class":
                out.append(("self", f"{name}\n{ts_type_str(arg.type)}"))
                continue
            out.append(("user_input", name))
        return out

    def block_ops(self, block: Block, depth: int, scope: _Scope | None, program: ProgramOp | None) -> None:
        last = block.last_op
        for op in block.ops:
            if op is last and op.name in ("exir.output", "prim.Return", "func.return", "scf.yield"):
                self.output(op, depth, program)
            else:
                self.op(op, depth, scope)

    def output(self, op: Operation, depth: int, program: ProgramOp | None) -> None:
        label = "output" if op.name != "scf.yield" else "yield"
        out_id = self.node(label, depth, shape="house", fill="#bbf7d0")
        specs = list(program.outputs.data) if program is not None else []
        for i, value in enumerate(op.operands):
            text = type_label(value.type)
            if i < len(specs) and specs[i].output_kind is not OutputKind.user_output:
                kind = specs[i].output_kind.value.replace("_", " ")
                text += f"\n{kind} {specs[i].target_name or ''}".rstrip()
            self._use(value, out_id, text)

    # -- ops ----------------------------------------------------------------------------

    def op(self, op: Operation, depth: int, scope: _Scope | None) -> None:
        key = self._module_key(op) if scope is not None else None
        if scope is not None and key is not None:
            self._collapse(op, key[0], key[1], depth, scope)
            return
        family = op_family(op)
        self.families.add(family)
        drawn_regions = [r for r in op.regions if r.blocks.first is not None and not _is_payload_region_op(op)]
        if not drawn_regions:
            node_id = self.node(op_label(op), depth, fill=FAMILY_COLOURS[family])
            self._connect(op, node_id)
            return
        cluster = self._cluster_id()
        self.emit(f"subgraph {cluster} {{", depth)
        colour = FAMILY_COLOURS[family]
        self.emit(f'label=""; style="rounded,filled"; fillcolor="{colour}40"; color="{colour}";', depth + 1)
        node_id = self.node(op_label(op), depth + 1, fill=colour)
        self._connect(op, node_id)
        names = _region_names(op)
        single = len(op.regions) == 1
        for region, name in zip(op.regions, names):
            if region.blocks.first is None:
                continue
            inner_depth = depth + 1
            if not single:
                self.emit(f"subgraph {self._cluster_id()} {{", depth + 1)
                self.emit(f'label={_quote(name)}; style="dashed"; color="#6b7280";', depth + 2)
                inner_depth = depth + 2
            self.region(region, inner_depth, node_id)
            if not single:
                self.emit("}", depth + 1)
        self.emit("}", depth)

    def region(self, region: Region, depth: int, owner: str) -> None:
        """A region's blocks; a dotted edge from the owning op to each block argument it passes in."""
        for block in region.blocks:
            for arg in block.args:
                shape, fill = _PLACEHOLDER_STYLES["region"]
                self.ids[arg] = self.node(arg.name_hint or f"arg{arg.index}", depth, shape=shape, fill=fill)
                self.edge(owner, self.ids[arg], "", "dotted")
            last = block.last_op
            for op in block.ops:
                if op is last and op.name in ("exir.output", "prim.Return", "scf.yield", "prim.LoopContinuation"):
                    self.output(op, depth, None)
                else:
                    self.op(op, depth, None)

    def _connect(self, op: Operation, node_id: str) -> None:
        for operand in op.operands:
            self._use(operand, node_id, type_label(operand.type))
        if _is_payload_region_op(op):  # values the undrawn payload reads from outside
            for inner in op.walk():
                for operand in inner.operands if inner is not op else ():
                    if not _defined_inside(operand, op):
                        self._use(operand, node_id, type_label(operand.type))
        for result in op.results:
            self.ids[result] = node_id

    def _use(self, value: SSAValue, dst: str, label: str) -> None:
        scope = self.scope
        if scope is not None and value in scope.pending:
            box = scope.by_id.get(dst)
            if box is not None:  # a module's own weights go in its box
                box.state.add(value)
                return
            text, shape, fill, depth = scope.pending.pop(value)
            self.ids[value] = self.node(text, depth, shape=shape, fill=fill)
        src = self.ids.get(value)
        if src is None:  # a value from a scope not drawn (a collapsed region)
            return
        self.edge(src, dst, label)

    # -- collapsing by module ------------------------------------------------------------

    def _module_key(self, op: Operation) -> tuple[str, str] | None:
        """(module path, class) at the collapse depth, from the op's (or its first inner op's) stack."""
        stack = op.attributes.get("nn_module_stack")
        if stack is None:
            for inner in op.walk():
                stack = inner.attributes.get("nn_module_stack")
                if stack is not None:
                    break
        if not isinstance(stack, ArrayAttr):
            return None
        levels: list[tuple[str, str]] = []
        for entry in cast(ArrayAttr[Attribute], stack).data:
            if not isinstance(entry, ArrayAttr):
                continue
            parts = [p.data for p in cast(ArrayAttr[Attribute], entry).data if isinstance(p, StringAttr)]
            if len(parts) >= 3 and parts[1]:
                levels.append((parts[1], parts[2]))
        if not levels:
            return None
        return levels[min(self.collapse_depth, len(levels)) - 1]

    def _collapse(self, op: Operation, path: str, cls: str, depth: int, scope: _Scope) -> None:
        box = scope.boxes.get(path)
        if box is None:
            self.families.add("module")
            node_id = self.node(path, depth, fill=FAMILY_COLOURS["module"], shape="box3d")
            box = _Box(node_id, len(self.lines) - 1, path, cls.rsplit(".", 1)[-1])
            scope.boxes[path] = box
            scope.by_id[node_id] = box
        box.ops += 1
        for operand in op.operands:
            self._use(operand, box.node_id, type_label(operand.type))
        for inner in op.walk():  # values an op's regions read from outside
            for operand in inner.operands if inner is not op else ():
                if not _defined_inside(operand, op):
                    self._use(operand, box.node_id, type_label(operand.type))
        for result in op.results:
            self.ids[result] = box.node_id

    def _finish_boxes(self, scope: _Scope) -> None:
        """Each box's label: module path, class, how many ops and state tensors it holds."""
        for box in scope.boxes.values():
            counts = f"{box.ops} op{'s' if box.ops != 1 else ''}"
            if box.state:
                counts += f", {len(box.state)} state tensor{'s' if len(box.state) != 1 else ''}"
            label = f"{box.path}\n{box.cls}\n{counts}"
            line = self.lines[box.line]
            indent = line[: len(line) - len(line.lstrip())]
            attrs = f'label={_quote(label)}, shape=box3d, style="filled", fillcolor={_quote(FAMILY_COLOURS["module"])}'
            self.lines[box.line] = f"{indent}{box.node_id} [{attrs}];"

    # -- legend ---------------------------------------------------------------------------------

    def legend(self, depth: int) -> None:
        used = [f for f in FAMILY_COLOURS if f in self.families]
        if not used:
            return
        self.emit("subgraph cluster_legend {", depth)
        self.emit('label="op families"; style="rounded"; color="#9ca3af"; fontsize=9;', depth + 1)
        ids: list[str] = []
        for family in used:
            name = "legend_" + "".join(c if c.isalnum() else "_" for c in family)
            self.emit(
                f'{name} [label={_quote(family)}, shape=box, style="rounded,filled", '
                f"fillcolor={_quote(FAMILY_COLOURS[family])}, fontsize=8];",
                depth + 1,
            )
            ids.append(name)
        if len(ids) > 1:
            self.emit(" -> ".join(ids) + " [style=invis];", depth + 1)
        self.emit("}", depth)


def to_dot(module: ModuleOp, collapse_depth: int = 0) -> str:
    """The Graphviz text of every graph in `module`."""
    if collapse_depth < 0:
        raise DiagnosticException(f"--emit dot: collapse-depth must be 0 (off) or a module depth >= 1, got {collapse_depth}")
    return _DotWriter(collapse_depth).module(module)


INSTALL_HINT = (
    "Graphviz's `dot` is not installed (it renders the svg): install it with "
    "`apt-get install graphviz`, `brew install graphviz` or `conda install graphviz`, "
    "or write `--emit dot` and render it elsewhere"
)


def render_svg(dot_text: str, timeout: float = 60.0) -> str:
    """SVG of a dot text, by Graphviz's `dot` run as a subprocess."""
    exe = shutil.which("dot")
    if exe is None:
        raise DiagnosticException(INSTALL_HINT)
    try:
        result = subprocess.run(
            [exe, "-Tsvg"], input=dot_text, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        raise DiagnosticException(
            f"--emit svg: Graphviz's dot took longer than {timeout:g} s; try 'svg{{collapse-depth=1}}' "
            "or a larger 'svg{timeout=...}'"
        ) from None
    except OSError as e:
        raise DiagnosticException(f"--emit svg: cannot run {exe}: {e.strerror or e}") from None
    if result.returncode != 0:
        first = next((line for line in result.stderr.splitlines() if line.strip()), "no message")
        raise DiagnosticException(f"--emit svg: Graphviz's dot failed (exit {result.returncode}): {first}")
    return result.stdout


@dataclass(frozen=True)
class _PictureTarget(Target):
    """Options shared by `dot` and `svg`; a wrong option is a diagnostic, not a traceback."""

    collapse_depth: int = 0

    def __post_init__(self) -> None:
        # Checked when the option is read, before any work (from_spec turns it into a diagnostic).
        if self.collapse_depth < 0:
            raise ValueError(f"collapse-depth must be 0 (off) or a module depth >= 1, got {self.collapse_depth}")

    @classmethod
    def from_spec(cls, spec: ArgSpec) -> Self:
        known = [f.name for f in dataclasses.fields(cls) if f.init]
        given = spec.normalize_parameter_names().parameters
        unknown = [k for k in given if k not in known]
        options = ", ".join(k.replace("_", "-") for k in known)
        if unknown:
            raise DiagnosticException(
                f"--emit {spec}: unknown option '{unknown[0].replace('_', '-')}' (options of {cls.name}: {options})"
            )
        try:
            return super().from_spec(spec)
        except (ValueError, TypeError) as e:
            raise DiagnosticException(f"--emit {spec}: {e} (options of {cls.name}: {options})") from None


@dataclass(frozen=True)
class DotTarget(_PictureTarget):
    """`--emit dot`, `--emit 'dot{collapse-depth=1}'`."""

    name = "dot"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(to_dot(module, self.collapse_depth))


@dataclass(frozen=True)
class SvgTarget(_PictureTarget):
    """`--emit svg`: the dot picture rendered by Graphviz (`timeout` in seconds)."""

    name = "svg"

    timeout: int = 60

    MAX_TIMEOUT: ClassVar[int] = 7 * 24 * 3600
    """A week: more is no limit, and past what a process timer takes it was an internal error."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 1 <= self.timeout <= self.MAX_TIMEOUT:
            raise ValueError(f"timeout must be between 1 and {self.MAX_TIMEOUT} seconds, got {self.timeout}")

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(render_svg(to_dot(module, self.collapse_depth), float(self.timeout)))
