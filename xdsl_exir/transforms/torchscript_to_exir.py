"""
`torchscript-to-exir`: lower a TorchScript program to an Export IR program.

The input is the `ts` / `prim` form of a TorchScript Module (a `ts.module`
with slots and methods) or of a scripted function (a top-level `ts.method`).
The output replaces it: one `exir.program` whose `@forward` graph calls only
operators of the `aten` dialect, with parameters and buffers lifted to
placeholders backed by `exir.state`s, and which passes `verify-export-ir`.

TorchScript is specialized the way `torch.export` specializes Python: the
lowering *runs* the entry method over abstract values instead of rewriting it
node by node. Tensors are SSA values of the new graph; everything else
TorchScript computes (ints, floats, bools, strings, devices, lists, tuples,
dicts, module and function references) is a Python value known while
lowering. That one mechanism gives the steps the issue asks for:

- **Inlining.** `prim.CallMethod` on a submodule reached through
  `prim.GetAttr` chains from `self` runs that module's method, and
  `prim.CallFunction` of a function constant runs the top-level
  `ts.method` it names.
- **Constant folding.** `prim.Constant`s, attributes and scalar arithmetic
  (`aten::size` of a static tensor, `aten::add.int`, `aten::len.t`, ...)
  are Python values, which become literal arguments of the aten ops (dtype
  codes become dtypes where the schema says `ScalarType`).
- **Lists and tuples** are Python lists and tuples of values: `ListUnpack`,
  `TupleIndex` and friends are indexing, a `Tensor[]` result (`chunk`,
  `split`, `unbind`, `prim.ConstantChunk`) is one `exir.getitem` per
  element, and the returned tuple becomes the graph's outputs (with the
  output pytree spec).
- **Control flow.** A `prim.If` on a known condition runs the branch taken;
  on a condition computed from tensor data (`aten::Bool(t)`, `t.item() > 0`)
  it becomes `exir.cond`, whose branches receive the values they use as
  operands. A `prim.Loop` whose trip count and conditions are known unrolls;
  any other loop is refused as data-dependent.
- **Functionalization.** Tensors are tracked as views of storages. An
  in-place op (`add_`, `copy_`, ...) becomes its functional variant and
  rebinds the storage; a write through a view (`y[0] = 0`) is scattered back
  into its base by the rules `functionalize` uses too (`view_scatter`:
  `select_scatter`, `slice_scatter`, reshapes and transposes undone), and
  later reads of other views of the same storage see the new data. A
  mutated buffer becomes a `buffer_mutation` output, a mutated user input a
  `user_input_mutation` output.
- **Overloads.** A `ts.node` names only its kind; the overload comes from
  `overloads.resolve_node` over the node's operand types, the aten op
  from the overload, and result types from the aten dialect's inference.
  Pointwise operators get explicit `_to_copy` casts where torch would
  promote implicitly, as the `no-promotion` rule of Export IR requires. A
  kind whose overload is not an op of the aten dialect is refused rather
  than left as an `exir.call_function`: the program must run, and the
  interpreter's kernels are the aten dialect's.
- **What TorchScript leaves implicit.** `batch_norm` in training mode
  updates the running statistics, written out as functional updates of the
  buffers; `torch.no_grad()` blocks (`prim::CreateObject`, `Enter`, `Exit`)
  vanish; the executor's guards (`TypeCheck`, `RequiresGradCheck`) are
  decided from the known types; fusion groups and differentiable graphs
  inline their subgraphs.

Input tensors need a dtype and sizes: they come from refined TorchScript
types (traced graphs record `Float(2, 3, ...)`), or from the option
`input-types="x=f32[3,10];h=f32[s0,20]"` (sizes may be symbols, whose range
is `[2, inf]` unless `ranges="s0=[1,64]"` says otherwise). Scalar inputs are
specialized to the values given by `input-values="n=3;flag=true"`, as
`torch.export` specializes Python scalars.

Ops of the new graph have the location of the TorchScript node they come
from, at the calls it was inlined from (`callsite(...)`, the stack trace).
Anything the lowering cannot express is refused with one diagnostic naming
the TorchScript op (and the calls it was inlined from): unknown operators,
data-dependent loops, mutated attributes or parameters, code that raises,
outputs that are not tensors.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np
import sympy
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    DictionaryAttr,
    FloatAttr,
    FunctionType,
    IntegerAttr,
    IntegerType,
    LocationAttr,
    ModuleOp,
    NoneAttr,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.passes import ModulePass

from xdsl_exir.dialects import prim, ts
from xdsl_exir.dialects.aten import AtenOp, aten_op_class
from xdsl_exir.dialects.aten_inference import (
    InferenceError,
    NoInference,
    bind_arguments,
    result_type,
)
from xdsl_exir.dialects.exir import (
    SYM_ARITH_OPS,
    CondOp,
    DeviceAttr,
    DType,
    GetItemOp,
    GraphOp,
    InputKind,
    InputSpecAttr,
    Layout,
    MemoryFormat,
    OutputKind,
    OutputOp,
    OutputSpecAttr,
    ProgramOp,
    RangeConstraintAttr,
    StateOp,
    SymBoolType,
    SymFloatType,
    SymIntType,
    SymScalarType,
    SymSizeOp,
    TensorType,
)
from xdsl_exir.dialects.exir import ListType as ExirListType
from xdsl_exir.dialects.exir import TupleType as ExirTupleType
from xdsl_exir.transforms.dead_code_elimination import eliminate_dead_code
from xdsl_exir.transforms.view_scatter import (
    MAY_COPY,
    ViewLayout,
    ViewScatterError,
    copies,
    dense_layout,
    layout_after,
    scatter_into_base,
)
from xdsl_exir.utils import op_registry
from xdsl_exir.utils.diagnostics import ExirDiagnostic, locate
from xdsl_exir.utils.dtypes import numpy_dtype
from xdsl_exir.utils.function_schema import (
    Argument,
    FunctionSchema,
    SchemaParseError,
    SchemaType,
    TypeKind,
    parse_schema,
)
from xdsl_exir.utils.overloads import OverloadError, ResolvedNode, resolve_node
from xdsl_exir.utils.symbolic import SymSize, make_symbol, normalize, parse_python_expr
from xdsl_exir.utils.ts_builtins import ScriptException, builtin_for, ts_str

__all__ = [
    "TorchScriptLoweringError",
    "TorchScriptToExirPass",
    "lower_torchscript",
    "parse_input_types",
    "parse_input_values",
    "parse_ranges",
]


class TorchScriptLoweringError(Exception):
    """What the lowering cannot express; turned into a located diagnostic."""


# ---------------------------------------------------------------------------
# Options
# ---------------------------------------------------------------------------

_DTYPE_NAMES: dict[str, DType] = {
    "f16": DType.float16, "half": DType.float16, "bf16": DType.bfloat16,
    "f32": DType.float32, "float": DType.float32, "f64": DType.float64, "double": DType.float64,
    "i8": DType.int8, "i16": DType.int16, "i32": DType.int32, "i64": DType.int64, "long": DType.int64,
    "int": DType.int32, "u8": DType.uint8, "b8": DType.bool, "bool": DType.bool,
    "c64": DType.complex64, "c128": DType.complex128,
}  # fmt: skip
"""Short dtype spellings of `input-types`, besides torch's (`float32`) and TorchScript's (`Float`)."""


def _dtype_named(name: str) -> DType | None:
    if name in _DTYPE_NAMES:
        return _DTYPE_NAMES[name]
    if name in DType.__members__:
        return DType(name)
    return ts.SCALAR_TYPES.get(name)


def _split_entries(text: str, what: str) -> Iterator[tuple[str, str]]:
    for entry in text.split(";"):
        entry = entry.strip()
        if not entry:
            continue
        name, eq, spec = entry.partition("=")
        if not eq or not name.strip():
            raise TorchScriptLoweringError(f"{what}: expected NAME=VALUE, got '{entry}'")
        yield name.strip(), spec.strip()


def parse_input_types(text: str) -> dict[str, TensorType]:
    """
    `x=f32[3,10];h=float32[s0, 20]` (or TorchScript's `Float(3, 10)`) ->
    exir tensor types by input name.
    """
    out: dict[str, TensorType] = {}
    for name, spec in _split_entries(text, "input-types"):
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)\s*\[(.*)\]", spec)
        if m is not None and _dtype_named(m.group(1)) is not None:
            dtype = cast(DType, _dtype_named(m.group(1)))
            sizes: list[SymSize] = []
            for item in (s.strip() for s in m.group(2).split(",")):
                if not item:
                    if m.group(2).strip():
                        raise TorchScriptLoweringError(f"input-types: empty size in '{spec}' for '{name}'")
                    continue
                try:
                    expr = parse_python_expr(item)
                except Exception as e:
                    raise TorchScriptLoweringError(f"input-types: bad size '{item}' for '{name}': {e}") from None
                sizes.append(normalize(expr.xreplace({s: make_symbol(str(s)) for s in expr.free_symbols})))
            out[name] = TensorType(sizes, dtype)
            continue
        try:
            t = ts.parse_ts_type(spec)
        except ts.TSTypeError:
            t = None
        exir_t = _exir_tensor_type(t) if isinstance(t, ts.TSTensorType) else None
        if exir_t is not None:
            out[name] = exir_t
            continue
        raise TorchScriptLoweringError(
            f"input-types: cannot read '{spec}' for '{name}'; write DTYPE[SIZES], e.g. f32[3, 10] or "
            "float32[s0, 4] (dtypes: f16, bf16, f32, f64, i8, i16, i32, i64, u8, bool or torch's names)"
        )
    return out


def parse_input_values(text: str) -> dict[str, object]:
    """`n=3;flag=true;scale=0.5;bias=None;sizes=[1, 2]` -> Python values by input name."""
    out: dict[str, object] = {}
    for name, spec in _split_entries(text, "input-values"):
        literal = re.sub(r"\b(true|false|none)\b", lambda m: m.group(1).capitalize(), spec)
        try:
            value = ast.literal_eval(literal)
        except (ValueError, SyntaxError):
            raise TorchScriptLoweringError(
                f"input-values: '{spec}' for '{name}' is not an int, float, bool, None, string or list of them"
            ) from None
        out[name] = _to_ts_value(value)
    return out


def _to_ts_value(value: object) -> object:
    if isinstance(value, list | tuple):
        items = [_to_ts_value(v) for v in cast(Sequence[object], value)]
        return TSList(items) if isinstance(value, list) else tuple(items)
    return value


def parse_ranges(text: str) -> dict[sympy.Symbol, tuple[int | float, int | float]]:
    """`s0=[2,64];s1=[1,inf]` -> symbol ranges."""
    out: dict[sympy.Symbol, tuple[int | float, int | float]] = {}
    for name, spec in _split_entries(text, "ranges"):
        m = re.fullmatch(r"\[\s*(-?\d+)\s*,\s*(-?\d+|inf)\s*\]", spec)
        if m is None:
            raise TorchScriptLoweringError(f"ranges: expected {name}=[MIN, MAX] (MAX may be inf), got '{spec}'")
        upper = math.inf if m.group(2) == "inf" else int(m.group(2))
        out[make_symbol(name)] = (int(m.group(1)), upper)
    return out


def _exir_tensor_type(t: ts.TSTensorType) -> TensorType | None:
    """
    The exir type of a refined TorchScript tensor type, None unless dtype and
    sizes are known. Strides are dropped: Export IR types are dense, and the
    interpreter's arrays carry their own layout.
    """
    shape = t.shape
    dtype = t.dtype
    if dtype is None or shape is None or any(d is None for d in shape):
        return None
    return TensorType([cast(int, d) for d in shape], dtype, t.device_name or "cpu")


# ---------------------------------------------------------------------------
# Values the lowering computes with
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Device:
    """A TorchScript `Device` value."""

    name: str

    def __str__(self) -> str:
        return self.name  # how TorchScript's `str()` and `format` print a device


@dataclass(frozen=True, eq=False)
class ModRef:
    """A module object: a `ts.module` of the tree and its path from the root."""

    module: ts.ScriptModuleOp
    path: str

    def qualify(self, name: str) -> str:
        return f"{self.path}.{name}" if self.path else name


@dataclass(frozen=True, eq=False)
class Detached:
    """A module input of a graph lowered without its `ts.module` (a method dump): usable only if unused."""

    qualname: str


@dataclass(frozen=True)
class FuncRef:
    """A function constant (`prim::Constant[name="f"]`)."""

    name: str


@dataclass(frozen=True, eq=False)
class Future:
    """The result of `prim::fork`, computed at once."""

    values: tuple[object, ...]


@dataclass(frozen=True, eq=False)
class GradMode:
    """A `torch.no_grad()` / `enable_grad()` context: Export IR has no autograd, so it does nothing."""

    qualname: str


_GRAD_MODE_CLASSES = frozenset(
    f"__torch__.torch.autograd.grad_mode.{n}" for n in ("no_grad", "enable_grad", "set_grad_enabled",
                                                        "inference_mode")
)  # fmt: skip


class _Uninitialized:
    def __repr__(self) -> str:
        return "<uninitialized>"


UNINITIALIZED = _Uninitialized()


class TSList(list[object]):
    """A TorchScript list (mutable), remembering the branch depth it was made at."""

    depth: int = 0


@dataclass(eq=False)
class Storage:
    """
    The data behind tensors that alias: its current value in the graph, and
    what it is to the program (a parameter, buffer, user input or lifted
    constant, by name) so mutations can be reported.
    """

    value: SSAValue
    role: str | None = None
    name: str | None = None
    version: int = 0

    def __post_init__(self) -> None:
        self.initial = self.value


@dataclass(frozen=True, eq=False)
class ViewStep:
    """How one view is made from its base: an aten op applied to the base and fixed arguments."""

    op: str
    args: tuple[object, ...]
    kwargs: tuple[tuple[str, object], ...] = ()
    layout: ViewLayout | None = None
    """The view's sizes and strides in its storage (`view_scatter`), None when unknown."""


@dataclass(eq=False)
class TensorRef:
    """A TorchScript tensor: a view (`path`, possibly empty) of a storage."""

    storage: Storage
    path: tuple[ViewStep, ...]
    cached: SSAValue
    version: int
    const: bool | int | float | None = None
    """The value of a 0-d tensor made from a known number (`NumToTensor`)."""


@dataclass(frozen=True, eq=False)
class TensorScalar:
    """An int, float or bool computed from tensor data (`t.item()`, `aten::Bool(t)`)."""

    value: SSAValue
    kind: str


@dataclass(frozen=True, eq=False)
class SymScalar:
    """An int or bool that depends on symbolic sizes (`x.size(0)` of an `s0`)."""

    value: SSAValue


LV = object
"""A lowered value: one of the classes above or a plain Python value."""


# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------


def _getitem(container: Any, index: Any) -> Any:
    try:
        return container[index]
    except IndexError:
        raise TorchScriptLoweringError(f"index {index} out of range for a sequence of {len(container)}") from None
    except KeyError:
        raise TorchScriptLoweringError(f"key {index!r} not in the dict") from None


# Binary scalar builtins on tensor-derived scalars: (aten base name, result kind or None for promotion).
_TENSOR_SCALAR_OPS: dict[str, tuple[str, str | None]] = {
    "add": ("add", None), "sub": ("sub", None), "mul": ("mul", None), "div": ("div", "float"),
    "eq": ("eq", "bool"), "ne": ("ne", "bool"), "lt": ("lt", "bool"), "le": ("le", "bool"),
    "gt": ("gt", "bool"), "ge": ("ge", "bool"), "remainder": ("remainder", None),
    "floordiv": ("floor_divide", None), "__and__": ("logical_and", "bool"), "__or__": ("logical_or", "bool"),
}  # fmt: skip
_FLIPPED = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le", "eq": "eq", "ne": "ne", "add": "add", "mul": "mul",
            "__and__": "__and__", "__or__": "__or__"}  # fmt: skip

# Python operators on SymInts, as exir.sym_* ops.
_SYM_OPS: dict[str, str] = {
    "add": "operator.add", "sub": "operator.sub", "mul": "operator.mul", "floordiv": "operator.floordiv",
    "remainder": "operator.mod", "eq": "operator.eq", "ne": "operator.ne", "lt": "operator.lt",
    "le": "operator.le", "gt": "operator.gt", "ge": "operator.ge", "neg": "operator.neg",
}  # fmt: skip

_LAYOUTS = tuple(Layout)
_MEMORY_FORMATS = (
    MemoryFormat.contiguous_format, MemoryFormat.preserve_format,
    MemoryFormat.channels_last, MemoryFormat.channels_last_3d,
)  # fmt: skip

_FUNCTIONAL_SPELLING: dict[str, tuple[str, tuple[object, ...]]] = {
    "aten.zero.default": ("aten.fill.Scalar", (0,)),
}
"""Functional variants the aten dialect lacks, spelled with an op it has: op and extra arguments."""


def _dtype_code(d: DType) -> int:
    return ts.DTYPE_CODES.index(d)


def _is_number(v: object) -> bool:
    return isinstance(v, int | float | complex) and not isinstance(v, bool)


def _same_constant(a: object, b: object) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        la, lb = cast(Sequence[object], a), cast(Sequence[object], b)
        return len(la) == len(lb) and all(_same_constant(x, y) for x, y in zip(la, lb))
    if isinstance(a, SSAValue) or isinstance(b, SSAValue):
        return a is b
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:
        return False


def _scalar_kind(value: bool | int | float) -> str:
    return "bool" if isinstance(value, bool) else "int" if isinstance(value, int) else "float"


def _a(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def _sanitize(name: str | None, fallback: str) -> str:
    if not name:
        return fallback
    name = re.sub(r"\.\d+$", "", name)
    name = re.sub(r"\W", "_", name)
    if not name or name[0].isdigit():
        name = f"{fallback}_{name}" if name else fallback
    return name


def _owner_block(value: SSAValue) -> Block | None:
    if isinstance(value, BlockArgument):
        return value.block
    if isinstance(value, OpResult):
        return value.op.parent_block()
    return None


# ---------------------------------------------------------------------------
# The lowering
# ---------------------------------------------------------------------------


@dataclass
class _Branch:
    """What one branch of a tensor-dependent `prim.If` produced."""

    block: Block
    results: list[tuple[str, object]]
    storages: dict[Storage, SSAValue]
    slots: dict[tuple[ts.ScriptModuleOp, str], SSAValue]
    rebound: set[tuple[ts.ScriptModuleOp, str]]


class _Lowering:
    """Runs a TorchScript method over lowered values, emitting the Export IR graph."""

    def __init__(
        self,
        module: ModuleOp,
        input_types: dict[str, TensorType],
        input_values: dict[str, object],
        ranges: dict[sympy.Symbol, tuple[int | float, int | float]],
        max_unroll: int,
    ) -> None:
        self.module = module
        self.input_types = input_types
        self.input_values = input_values
        self.ranges = ranges
        self.max_unroll = max_unroll
        self.env: dict[SSAValue, LV] = {}
        self.block = Block()
        self.block_stack: list[Block] = [self.block]
        self.graph_block = self.block
        self.slots: dict[tuple[ts.ScriptModuleOp, str], LV] = {}
        self.storages: list[Storage] = []
        self.current: Operation | None = None
        self.call_stack: list[Operation] = []
        self.branch_depth = 0
        # Program signature pieces, in placeholder order.
        self.param_specs: list[InputSpecAttr] = []
        self.buffer_specs: list[InputSpecAttr] = []
        self.const_specs: list[InputSpecAttr] = []
        self.user_specs: list[InputSpecAttr] = []
        self.states: list[StateOp] = []
        self.buffer_slots: list[tuple[tuple[ts.ScriptModuleOp, str], str, SSAValue]] = []
        self.user_storages: list[tuple[Storage, str]] = []
        self.lifted: dict[Attribute, tuple[SSAValue, str]] = {}
        self.symbols: set[sympy.Symbol] = set()
        self.used_names: set[str] = set()
        self.fresh: set[Operation] = set()
        self.keep_name: set[Operation] = set()
        self.functions = {op.sym_name.data: op for op in module.ops if isinstance(op, ts.MethodOp)}

    # -- errors -----------------------------------------------------------------

    def fail(self, message: str) -> TorchScriptLoweringError:
        return TorchScriptLoweringError(message)

    # -- emission -----------------------------------------------------------

    def location(self) -> LocationAttr:
        """Where the op being lowered comes from: its location, at the calls it was inlined from (the stack trace)."""
        assert self.current is not None
        loc: LocationAttr = self.current.location
        for call in reversed(self.call_stack[0::2]):
            if not isinstance(call.location, UnknownLoc) and not isinstance(loc, UnknownLoc):
                loc = CallSiteLoc(loc, call.location)
        return loc

    def emit(self, op: Operation) -> Operation:
        if self.current is not None:
            op.location = self.location()
        if isinstance(op, AtenOp):
            base = op.name.split(".")[1]
            for r in op.results:
                r.name_hint = base
        self.block.add_op(op)
        self.fresh.add(op)
        return op

    @contextmanager
    def emitting_into(self, block: Block) -> Iterator[None]:
        saved = self.block
        self.block = block
        self.block_stack.append(block)
        try:
            yield
        finally:
            self.block_stack.pop()
            self.block = saved

    def visible(self, value: SSAValue) -> bool:
        owner = _owner_block(value)
        return any(owner is b for b in self.block_stack)

    def unique_name(self, name: str) -> str:
        base, n = name, 0
        while name in self.used_names:
            n += 1
            name = f"{base}_{n}"
        self.used_names.add(name)
        return name

    # -- tensors ------------------------------------------------------------

    def new_tensor(self, value: SSAValue, role: str | None = None, name: str | None = None) -> TensorRef:
        storage = Storage(value, role, name)
        self.storages.append(storage)
        return TensorRef(storage, (), value, storage.version)

    def value_of(self, t: TensorRef) -> SSAValue:
        """The current value of a tensor, replaying its view steps after a write to its storage."""
        storage = t.storage
        if not t.path:
            return storage.value
        if t.version == storage.version and self.visible(t.cached):
            return t.cached
        v = storage.value
        for step in t.path:
            v = self.apply_view(step, v)
        t.cached, t.version = v, storage.version
        return v

    def layout_of(self, t: TensorRef) -> ViewLayout | None:
        """Sizes and strides of `t` in its storage: the storage's own (dense) layout, else its last view's."""
        if t.path:
            return t.path[-1].layout
        st = t.storage.value.type
        return dense_layout(st.sizes) if isinstance(st, TensorType) else None

    def view_of(self, base: TensorRef, step: ViewStep, value: SSAValue) -> TensorRef:
        """The tensor `value`, made from `base` by `step`: a further view of `base`'s storage."""
        sizes = cast(TensorType, value.type).sizes
        layout = layout_after(step.op, step.args, dict(step.kwargs), self.layout_of(base), sizes)
        step = replace(step, layout=layout)
        return TensorRef(base.storage, (*base.path, step), value, base.storage.version)

    def apply_view(self, step: ViewStep, base: SSAValue) -> SSAValue:
        cls = cast(type[AtenOp], aten_op_class(step.op))
        return self.build(cls, (base, *step.args), dict(step.kwargs)).results[0]

    def write(self, t: TensorRef, new: SSAValue) -> None:
        """Functionalize a write of `new` into tensor `t` (through its views, into its storage)."""
        storage = t.storage
        if storage.role == "parameter":
            raise self.fail(
                f"the program mutates parameter '{storage.name}'; Export IR does not allow parameter mutation "
                "(make it a buffer)"
            )
        if storage.role == "constant":
            raise self.fail(
                f"the program mutates the tensor constant '{storage.name}', which would change it for later "
                "calls; Export IR constants are immutable (make it a buffer)"
            )
        target_type = self.value_of(t).type
        if new.type != target_type:
            new = self.cast_like(new, target_type)
        if t.path:
            bases = [storage.value]
            for step in t.path[:-1]:
                bases.append(self.apply_view(step, bases[-1]))
            src = new
            for step, base in zip(reversed(t.path), reversed(bases)):
                src = self.scatter(step, base, src)
            storage.value = src
        else:
            storage.value = new
        storage.version += 1
        t.cached, t.version = new, storage.version

    def cast_like(self, value: SSAValue, target: Attribute) -> SSAValue:
        vt = value.type
        if not isinstance(vt, TensorType) or not isinstance(target, TensorType):
            raise self.fail(f"cannot write a {vt} into a tensor of type {target}")
        if vt.element_dtype != target.element_dtype:
            value = self.aten("aten._to_copy.default", value, dtype=target.element_dtype)
        vt = cast(TensorType, value.type)
        if vt.sizes != target.sizes:
            if not all(isinstance(s, int) for s in target.sizes):
                raise self.fail(f"in-place result of type {vt} does not fit the tensor's type {target}")
            value = self.aten("aten.expand.default", value, list(target.sizes))
            value = self.aten("aten.clone.default", value)
        return value

    def scatter(self, step: ViewStep, base: SSAValue, src: SSAValue) -> SSAValue:
        """The new value of `base` after writing `src` into its view `step` (the shared `view_scatter` rules)."""
        try:
            return scatter_into_base(step.op, step.args, dict(step.kwargs), base, src, self.aten)
        except ViewScatterError as e:
            raise self.fail(str(e)) from None

    # -- building aten ops -----------------------------------------------------

    def aten(self, name: str, *args: object, **kwargs: object) -> SSAValue:
        cls = aten_op_class(name)
        assert cls is not None, name
        return self.build(cls, args, kwargs).results[0]

    def build(self, cls: type[AtenOp], args: Sequence[object], kwargs: dict[str, object]) -> AtenOp:
        entry = op_registry.lookup(cls.name)
        pointwise = entry is not None and "pointwise" in entry.tags
        if pointwise:
            args, kwargs = self.promote(cls, args, kwargs, None)
        op = self._build(cls, args, kwargs)
        if pointwise:
            common = self._common_dtype(cls, args, kwargs)
            for r in op.results:
                if isinstance(r.type, TensorType) and common is not None and r.type.element_dtype not in (
                    common, DType.bool,
                ):
                    # Integer inputs giving a float result (true division): compute in the result dtype.
                    args, kwargs = self.promote(cls, args, kwargs, r.type.element_dtype)
                    op = self._build(cls, args, kwargs)
                    break
        self.emit(op)
        return op

    def _build(self, cls: type[AtenOp], args: Sequence[object], kwargs: dict[str, object]) -> AtenOp:
        try:
            return cls.build(*args, **kwargs)
        except NoInference as e:
            raise self.fail(f"cannot compute the result type of {cls.name}: {e}") from None
        except InferenceError as e:
            raise self.fail(f"{cls.name}: {e}") from None

    def _promotable(
        self, cls: type[AtenOp], args: Sequence[object], kwargs: dict[str, object]
    ) -> dict[str, object]:
        try:
            bound = bind_arguments(cls.SCHEMA, args, kwargs)
        except InferenceError as e:
            raise self.fail(f"{cls.name}: {e}") from None
        given = {a.name for a in cls.SCHEMA.arguments[: len(args)]} | set(kwargs)
        return {
            k: v for k, v in bound.items()
            if k in given and k not in ("condition", "mask") and (
                (isinstance(v, SSAValue) and isinstance(v.type, TensorType)) or _is_number(v)
                or isinstance(v, bool)
            )
        }  # fmt: skip

    def _common_dtype(self, cls: type[AtenOp], args: Sequence[object], kwargs: dict[str, object]) -> DType | None:
        values = list(self._promotable(cls, args, kwargs).values())
        if not any(isinstance(v, SSAValue) for v in values):
            return None
        try:
            return result_type(values)
        except InferenceError:
            return None

    def promote(
        self, cls: type[AtenOp], args: Sequence[object], kwargs: dict[str, object], to: DType | None
    ) -> tuple[Sequence[object], dict[str, object]]:
        """Cast tensor arguments of a pointwise op to one dtype, as Export IR's no-promotion rule wants."""
        values = self._promotable(cls, args, kwargs)
        tensors = {k: v for k, v in values.items() if isinstance(v, SSAValue)}
        if not tensors:
            return args, kwargs
        common = to or self._common_dtype(cls, args, kwargs)
        if common is None:
            return args, kwargs
        floats = [v for v in values.values() if isinstance(v, float)]
        need = any(cast(TensorType, v.type).element_dtype != common for v in tensors.values())
        if not need and not (floats and not (common.is_floating_point or common.is_complex)):
            return args, kwargs
        casts: dict[SSAValue, SSAValue] = {}
        for v in tensors.values():
            if cast(TensorType, v.type).element_dtype != common and v not in casts:
                casts[v] = self.aten("aten._to_copy.default", v, dtype=common)

        def sub(x: object) -> object:
            return casts.get(x, x) if isinstance(x, SSAValue) else x

        return [sub(a) for a in args], {k: sub(v) for k, v in kwargs.items()}

    # -- running TorchScript ---------------------------------------------------

    def run_block(self, block: Block, args: Sequence[LV]) -> list[LV]:
        for arg, value in zip(block.args, args, strict=True):
            self.env[arg] = value
        for op in block.ops:
            if isinstance(op, prim.ReturnOp):
                return [self.env[v] for v in op.operands]
            self.current = op
            self.lower_op(op)
        raise self.fail("block does not end with prim.Return")

    def bind(self, op: Operation, values: Sequence[LV]) -> None:
        if len(values) != len(op.results):
            raise self.fail(f"{op.name} produced {len(values)} values for {len(op.results)} results")
        for r, v in zip(op.results, values):
            self.env[r] = v

    def lower_op(self, op: Operation) -> None:
        args = [self.env[v] for v in op.operands]
        fresh = self.fresh
        self.fresh = set()
        try:
            handler = _PRIM_HANDLERS.get(type(op))
            if handler is not None:
                handler(self, op, args)
            elif isinstance(op, ts.NodeOp):
                self.bind(op, self.lower_node(op, args))
            else:
                raise self.fail(f"cannot lower '{op.name}' to Export IR")
            self.name_results(op)
        finally:
            fresh |= self.fresh
            self.fresh = fresh

    def name_results(self, op: Operation) -> None:
        """Values made for a TorchScript value take its name (`%gates.1` -> `%gates`)."""
        for r in op.results:
            v = self.env.get(r)
            if not r.name_hint or not isinstance(v, TensorRef | TensorScalar):
                continue
            value = v.value if isinstance(v, TensorScalar) else (v.cached if v.path else v.storage.value)
            if isinstance(value, OpResult) and value.op in self.fresh and value.op not in self.keep_name:
                value.name_hint = _sanitize(r.name_hint, "v")

    # -- prim ops ------------------------------------------------------------

    def lower_constant(self, op: prim.ConstantOp, args: list[LV]) -> None:
        t = op.results[0].type
        if op.fn_name is not None:
            self.bind(op, [FuncRef(op.fn_name.data)])
            return
        self.bind(op, [self.constant_value(op.value, t)])

    def constant_value(self, value: Attribute | None, t: Attribute) -> LV:
        if value is None or isinstance(value, NoneAttr):
            return None
        if isinstance(value, IntegerAttr):
            v = value.value.data
            ty = value.type
            if isinstance(ty, IntegerType) and ty.width.data == 1:
                return bool(v)
            return int(v)
        if isinstance(value, FloatAttr):
            return float(value.value.data)
        if isinstance(value, StringAttr):
            return Device(value.data) if isinstance(t, ts.TSDeviceType) else value.data
        if isinstance(value, ts.TensorValueAttr):
            return self.lift_constant(value, None)
        if isinstance(value, ArrayAttr):
            elem_types: Sequence[Attribute]
            if isinstance(t, ts.TSTupleType):
                elem_types = t.element_types
            elif isinstance(t, ts.TSListType):
                elem_types = [t.element] * len(value.data)
            elif isinstance(t, ts.TSComplexType) and len(value.data) == 2:
                re_, im = (self.constant_value(v, ts.TSFloatType()) for v in value.data)
                return complex(cast(float, re_), cast(float, im))
            else:
                elem_types = [ts.TSAnyType()] * len(value.data)
            items = [self.constant_value(v, et) for v, et in zip(value.data, elem_types)]
            if isinstance(t, ts.TSTupleType):
                return tuple(items)
            lst = TSList(items)
            lst.depth = self.branch_depth
            return lst
        if isinstance(value, DictionaryAttr):
            return {k: self.constant_value(v, ts.TSAnyType()) for k, v in value.data.items()}
        raise self.fail(f"cannot lower the constant {value}")

    def lift_constant(self, value: ts.TensorValueAttr, target: str | None) -> TensorRef:
        """A tensor constant as a `constant_tensor` input, as torch.export lifts them."""
        dtype = ts.SCALAR_TYPES.get(value.scalar.data)
        if dtype is None:
            raise self.fail(f"tensor constant of unknown scalar type {value.scalar.data}")
        if not value.known:
            raise self.fail(
                f"a {value.scalar.data} tensor constant of sizes {list(value.shape)} has no data in the IR "
                "(graph dumps print only 0-d tensor values); import the live module instead"
            )
        key: Attribute = value if target is None else StringAttr(target)
        if key not in self.lifted:
            name = target if target is not None else f"lifted_tensor_{len(self.const_specs)}"
            t = TensorType(list(value.shape), dtype)
            arg_name = self.unique_name("c_" + re.sub(r"\W", "_", name))
            index = len(self.param_specs) + len(self.buffer_specs) + len(self.const_specs)
            arg = self.graph_block.insert_arg(t, index)
            arg.name_hint = arg_name
            self.const_specs.append(InputSpecAttr(InputKind.constant_tensor, arg_name, name))
            self.states.append(StateOp(name, t, value.data))
            self.lifted[key] = (arg, name)
        arg, name = self.lifted[key]
        return self.new_tensor(arg, "constant", name)

    def lower_if(self, op: prim.IfOp, args: list[LV]) -> None:
        cond = args[0]
        if isinstance(cond, bool):
            block = op.regions[0 if cond else 1].block
            self.bind(op, self.run_block(block, []))
            return
        if isinstance(cond, TensorScalar):
            pred = self.predicate(cond)
        elif isinstance(cond, SymScalar):
            pred = cond.value
        else:
            raise self.fail(f"prim.If condition is {self.describe(cond)}, not a bool")
        self.lower_cond(op, pred)

    def predicate(self, cond: TensorScalar) -> SSAValue:
        v = cond.value
        t = cast(TensorType, v.type)
        if any(s != 1 for s in t.sizes):
            raise self.fail(
                f"the condition is the truth value of a tensor of sizes {list(t.sizes)}; "
                "exir.cond needs a one-element tensor"
            )
        if t.element_dtype != DType.bool:
            v = self.aten("aten.ne.Scalar", v, 0)
        return v

    def lower_cond(self, op: prim.IfOp, pred: SSAValue) -> None:
        """A `prim.If` on tensor data: `exir.cond`, with mutations merged into its results."""
        snapshot = {s: (s.value, s.version) for s in self.storages}
        slot_snapshot = dict(self.slots)
        branches: list[_Branch] = []
        for region in op.regions:
            block = Block()
            self.branch_depth += 1
            try:
                with self.emitting_into(block):
                    outs = self.run_block(region.block, [])
                    results = [self.branch_result(v) for v in outs]
                    storages = {
                        s: s.value for s, (value, _) in snapshot.items() if s.value is not value
                    }
                    # Every tensor slot's value at the end of the branch: the other branch may rebind it.
                    slots = {k: self.value_of(v) for k, v in self.slots.items() if isinstance(v, TensorRef)}
                    rebound = {k for k, v in self.slots.items() if k in slot_snapshot and slot_snapshot[k] is not v}
            finally:
                self.branch_depth -= 1
                for s, (value, version) in snapshot.items():
                    s.value, s.version = value, version
                self.slots = dict(slot_snapshot)
            branches.append(_Branch(block, results, storages, slots, rebound))
        self.current = op
        t_branch, f_branch = branches
        yields: tuple[list[SSAValue], list[SSAValue]] = ([], [])
        # Results of the If: tensors become cond results, equal constants stay constants.
        plan: list[tuple[str, object]] = []
        for (tk, tv), (fk, fv) in zip(t_branch.results, f_branch.results):
            if tk == "const" and fk == "const" and (_same_constant(tv, fv) or UNINITIALIZED in (tv, fv)):
                # Equal constants stay constants; an uninitialized value is never read on its path.
                plan.append(("const", fv if tv is UNINITIALIZED else tv))
                continue
            (tk, tv), (fk, fv) = self.as_yield(t_branch.block, tk, tv, fk, fv), self.as_yield(
                f_branch.block, fk, fv, tk, tv
            )
            if tk != fk or tk == "const":
                raise self.fail(
                    f"the branches of a tensor-dependent if give {self.kind_text(tk, tv)} and "
                    f"{self.kind_text(fk, fv)}; exir.cond results are tensors of one type"
                )
            plan.append((tk, len(yields[0])))
            yields[0].append(cast(SSAValue, tv))
            yields[1].append(cast(SSAValue, fv))
        storage_list = [s for s in snapshot if s in t_branch.storages or s in f_branch.storages]
        for s in storage_list:
            yields[0].append(t_branch.storages.get(s, snapshot[s][0]))
            yields[1].append(f_branch.storages.get(s, snapshot[s][0]))
        rebound = t_branch.rebound | f_branch.rebound
        slot_keys = [k for k in slot_snapshot if k in rebound]
        for k in slot_keys:
            for i, b in enumerate(branches):
                yields[i].append(b.slots[k])
        for a, b in zip(*yields):
            if a.type != b.type:
                raise self.fail(
                    f"the branches of a tensor-dependent if give values of different types ({a.type} and "
                    f"{b.type}); exir.cond needs equal types"
                )
        for b, ys in zip(branches, yields):
            b.block.add_op(OutputOp(ys))
        operands = self.lift_free_values([b.block for b in branches])
        for b in branches:
            self.clone_aliased_outputs(b.block)
        cond = CondOp(pred, operands, [y.type for y in yields[0]], Region(t_branch.block), Region(f_branch.block))
        self.emit(cond)
        results = list(cond.results)
        for r in results:
            r.name_hint = "cond"
        values: list[LV] = []
        for kind, item in plan:
            if kind == "const":
                values.append(item)
            elif kind == "tensor":
                values.append(self.new_tensor(results[cast(int, item)]))
            elif kind.startswith("scalar:"):
                values.append(TensorScalar(results[cast(int, item)], kind.split(":")[1]))
            else:
                values.append(SymScalar(results[cast(int, item)]))
        n = len([p for p in plan if p[0] != "const"])
        for i, s in enumerate(storage_list):
            s.value = results[n + i]
            s.version += 1
        for i, k in enumerate(slot_keys):
            self.slots[k] = self.new_tensor(results[n + len(storage_list) + i])
        self.bind(op, values)

    def as_yield(self, block: Block, kind: str, value: object, other_kind: str, other: object) -> tuple[str, object]:
        """
        A branch result as a value the branch can yield: a number that differs
        from the other branch's (or that the other branch computes from tensor
        data) becomes a 0-d tensor; an uninitialized value becomes zeros of the
        other's type (it is never read).
        """
        if kind != "const":
            return kind, value
        with self.emitting_into(block):
            if value is UNINITIALIZED and other_kind != "const":
                t = cast(SSAValue, other).type
                if not isinstance(t, TensorType) or not t.is_static():
                    raise self.fail(f"an uninitialized value stands for a {t} in a tensor-dependent if")
                return other_kind, self.aten("aten.zeros.default", list(t.sizes), dtype=t.element_dtype)
            if not isinstance(value, bool | int | float):
                return kind, value
            if other_kind.startswith("scalar:"):
                t = cast(TensorType, cast(SSAValue, other).type)
                if t.is_static():
                    return other_kind, self.aten("aten.full.default", list(t.sizes), value, dtype=t.element_dtype)
            elif other_kind == "const" and isinstance(other, bool | int | float):
                kinds = {_scalar_kind(value), _scalar_kind(other)}
                joint = "float" if "float" in kinds else "int" if "int" in kinds else "bool"
                dtype = {"bool": DType.bool, "int": DType.int64, "float": DType.float32}[joint]
                return f"scalar:{joint}", self.aten("aten.scalar_tensor.default", value, dtype=dtype)
        return kind, value

    def kind_text(self, kind: str, value: object) -> str:
        if kind == "const":
            return "the constant " + ts_str(value)
        if kind == "tensor":
            return f"a tensor of type {cast(SSAValue, value).type}"
        if kind == "sym":
            return "a symbolic size"
        return _a(kind.split(":")[1]) + " computed from tensor data"

    def branch_result(self, value: LV) -> tuple[str, object]:
        if isinstance(value, TensorRef):
            return ("tensor", self.value_of(value))
        if isinstance(value, TensorScalar):
            return (f"scalar:{value.kind}", value.value)
        if isinstance(value, SymScalar):
            return ("sym", value.value)
        if value is UNINITIALIZED or isinstance(value, int | float | bool | str | Device | type(None)):
            return ("const", value)
        if isinstance(value, tuple | TSList) and not any(
            isinstance(v, TensorRef | TensorScalar | SymScalar) for v in _walk(value)
        ):
            return ("const", value)
        raise self.fail(
            f"a tensor-dependent if gives {self.describe(value)}; exir.cond results are tensors"
        )

    def lift_free_values(self, blocks: Sequence[Block]) -> list[SSAValue]:
        """
        Make the outer values the branches use into cond operands: a block
        argument per value in each branch, in order of first use.
        """
        per_block: list[set[Operation]] = []
        free: dict[SSAValue, None] = {}
        for block in blocks:
            ops = {o for top in block.ops for o in top.walk()}
            per_block.append(ops)
            for top in block.ops:
                for o in top.walk():
                    for v in o.operands:
                        owner = v.owner
                        inside = owner in ops if isinstance(owner, Operation) else (
                            cast(Block, owner) is block or cast(Block, owner).parent_op() in ops
                        )  # fmt: skip
                        if not inside:
                            free.setdefault(v)
        order = list(free)
        for block, ops in zip(blocks, per_block):
            for v in order:
                arg = block.insert_arg(v.type, len(block.args))
                arg.name_hint = v.name_hint
                v.replace_uses_with_if(arg, lambda use, ops=ops: use.operation in ops)
        return order

    def clone_aliased_outputs(self, block: Block) -> None:
        """torch.export's cond branches may not return their inputs as they are: clone those."""
        out = block.last_op
        assert isinstance(out, OutputOp)
        for i, v in enumerate(list(out.operands)):
            if isinstance(v, BlockArgument) and v.block is block:
                clone = cast(type[AtenOp], aten_op_class("aten.clone.default")).build(v)
                if self.current is not None:
                    clone.location = self.location()
                block.insert_op_before(clone, out)
                out.operands[i] = clone.results[0]

    def lower_loop(self, op: prim.LoopOp, args: list[LV]) -> None:
        trip, cond, carried = args[0], args[1], list(args[2:])
        if isinstance(trip, SymScalar):
            raise self.fail(
                "the loop's trip count depends on a symbolic size; only loops with a known trip count unroll "
                "(give static sizes in input-types)"
            )
        if not isinstance(trip, int) or isinstance(trip, bool):
            raise self.fail(f"data-dependent loop: its trip count is {self.describe(trip)}")
        i = 0
        body = op.body.block
        while True:
            if not isinstance(cond, bool):
                raise self.fail(
                    f"data-dependent loop: its condition is {self.describe(cond)}; Export IR would need "
                    "while_loop, which this lowering does not produce"
                )
            if not cond or i >= trip:
                break
            if i >= self.max_unroll:
                raise self.fail(
                    f"the loop runs more than {self.max_unroll} iterations; raise the pass option max-unroll "
                    "to unroll it"
                )
            outs = self.run_block(body, [i, *carried])
            self.current = op
            cond, carried = outs[0], list(outs[1:])
            i += 1
        self.bind(op, carried)

    def lower_list_construct(self, op: prim.ListConstructOp, args: list[LV]) -> None:
        lst = TSList(args)
        lst.depth = self.branch_depth
        self.bind(op, [lst])

    def lower_list_unpack(self, op: prim.ListUnpackOp, args: list[LV]) -> None:
        lst = args[0]
        if not isinstance(lst, TSList | list | tuple):
            raise self.fail(f"prim.ListUnpack of {self.describe(lst)}")
        items = list(cast(Sequence[object], lst))
        if len(items) != len(op.results):
            raise self.fail(f"prim.ListUnpack of a list of {len(items)} elements into {len(op.results)} values")
        self.bind(op, items)

    def lower_tuple_construct(self, op: Operation, args: list[LV]) -> None:
        self.bind(op, [tuple(args)])

    def lower_tuple_unpack(self, op: Operation, args: list[LV]) -> None:
        tup = args[0]
        if not isinstance(tup, tuple):
            raise self.fail(f"prim.TupleUnpack of {self.describe(tup)}")
        self.bind(op, list(cast(tuple[object, ...], tup)))

    def lower_tuple_index(self, op: Operation, args: list[LV]) -> None:
        tup, index = args
        if not isinstance(tup, tuple) or not isinstance(index, int):
            raise self.fail("prim.TupleIndex needs a tuple and a known index")
        self.bind(op, [_getitem(tup, index)])

    def lower_dict_construct(self, op: Operation, args: list[LV]) -> None:
        d: dict[object, object] = {}
        for k, v in zip(args[::2], args[1::2]):
            d[self.hashable(k)] = v
        self.bind(op, [d])

    def hashable(self, key: LV) -> object:
        if isinstance(key, str | int | float | bool | Device) or key is None:
            return key
        raise self.fail(f"a dict key must be a known str, int, float or bool, got {self.describe(key)}")

    def lower_get_attr(self, op: prim.GetAttrOp, args: list[LV]) -> None:
        obj = args[0]
        name = op.attr.data
        if isinstance(obj, Detached):
            raise self.fail(
                f"prim.GetAttr '{name}' reads an attribute of a {obj.qualname} that is not in the input; lower the "
                "ts.module holding the method (with its parameters and buffers), not the method alone"
            )
        if not isinstance(obj, ModRef):
            raise self.fail(f"prim.GetAttr '{name}' of {self.describe(obj)}; only module attributes are known")
        key = (obj.module, name)
        if key in self.slots:
            self.bind(op, [self.slots[key]])
            return
        member = obj.module.member(name)
        if isinstance(member, ts.ScriptModuleOp):
            self.bind(op, [ModRef(member, obj.qualify(name))])
            return
        if member is None:
            raise self.fail(f"module '{obj.path or obj.module.class_name.data}' has no attribute '{name}'")
        value = self.attribute_value(member, obj.qualify(name))
        self.slots[key] = value
        self.bind(op, [value])

    def attribute_value(self, slot: ts.SlotOp, qualified: str) -> LV:
        value = slot.value
        if isinstance(value, ts.TensorValueAttr):
            return self.lift_constant(value, qualified)
        return self.constant_value(value, slot.slot_type)

    def lower_set_attr(self, op: prim.SetAttrOp, args: list[LV]) -> None:
        obj, value = args
        name = op.attr.data
        if not isinstance(obj, ModRef):
            raise self.fail(f"prim.SetAttr '{name}' of {self.describe(obj)}")
        member = obj.module.member(name)
        if not isinstance(member, ts.SlotOp) or member.kind.data != "buffer":
            what = "a parameter" if isinstance(member, ts.SlotOp) and member.kind.data == "parameter" else (
                "an attribute"
            )
            raise self.fail(
                f"the program assigns {what} ('{obj.qualify(name)}'); Export IR holds only buffer mutations "
                "(register it as a buffer and update it in place)"
            )
        if not isinstance(value, TensorRef):
            raise self.fail(f"buffer '{obj.qualify(name)}' is assigned {self.describe(value)}")
        self.slots[(obj.module, name)] = value

    def lower_call_method(self, op: prim.CallMethodOp, args: list[LV]) -> None:
        obj = args[0]
        name = op.method.data
        if isinstance(obj, GradMode):
            self.bind(op, [None] * len(op.results))
            return
        if not isinstance(obj, ModRef):
            raise self.fail(f"prim.CallMethod '{name}' on {self.describe(obj)}; only submodules are known")
        method = obj.module.method(name)
        if method is None:
            raise self.fail(f"module '{obj.path or 'self'}' ({obj.module.class_name.data}) has no method '{name}'")
        self.bind(op, self.call(op, method, args))

    def lower_call_function(self, op: prim.CallFunctionOp, args: list[LV]) -> None:
        fn = args[0]
        if not isinstance(fn, FuncRef):
            raise self.fail(f"prim.CallFunction of {self.describe(fn)}")
        method = self.lookup_function(fn.name)
        if method is None:
            raise self.fail(f"function '{fn.name}' is not defined in this module (no top-level ts.method)")
        self.bind(op, self.call(op, method, args[1:]))

    def lookup_function(self, name: str) -> ts.MethodOp | None:
        if name in self.functions:
            return self.functions[name]
        short = name.rsplit(".", 1)[-1]
        return self.functions.get(short)

    def call(self, op: Operation, method: ts.MethodOp, args: Sequence[LV]) -> list[LV]:
        if len(self.call_stack) > 64 or any(c is method for c in self.call_stack[1::2]):
            raise self.fail(f"recursive call of @{method.sym_name.data}; TorchScript programs are not recursive")
        block = method.body.block
        if len(block.args) != len(args):
            raise self.fail(f"@{method.sym_name.data} takes {len(block.args)} arguments, given {len(args)}")
        # On an error the call stack stays as it is: the diagnostic names the calls.
        self.call_stack += [op, method]
        outs = self.run_block(block, args)
        self.call_stack = self.call_stack[:-2]
        self.current = op
        return outs if len(outs) == len(op.results) else [tuple(outs)]

    def lower_constant_chunk(self, op: prim.ConstantChunkOp, args: list[LV]) -> None:
        x = args[0]
        if not isinstance(x, TensorRef):
            raise self.fail(f"prim.ConstantChunk of {self.describe(x)}")
        chunks = op.chunks.value.data
        dim = op.dim.value.data
        pieces = self.list_result("aten.chunk.default", x, (chunks, dim))
        if len(pieces) != len(op.results):
            raise self.fail(f"prim.ConstantChunk into {len(op.results)} gives {len(pieces)} pieces")
        self.bind(op, pieces)

    def lower_subgraph(self, op: Operation, args: list[LV]) -> None:
        outs = self.run_block(op.regions[0].block, args)
        self.current = op
        if isinstance(op, prim.ForkOp):
            self.bind(op, [Future(tuple(outs))])
        else:
            # A DifferentiableGraph's forward also returns the values its backward saves.
            self.bind(op, outs[: len(op.results)])

    def lower_identity(self, op: Operation, args: list[LV]) -> None:
        self.bind(op, args[: len(op.results)])

    def lower_type_check(self, op: prim.TypeCheckOp, args: list[LV]) -> None:
        """The profiling executor's guard: known while lowering, since the tensor types are."""
        ok = True
        for v, t in zip(args, op.types.data):
            if isinstance(v, TensorRef) and isinstance(t, ts.TSTensorType):
                et = cast(TensorType, self.value_of(v).type)
                if t.dtype is not None and t.dtype != et.element_dtype:
                    ok = False
                if t.shape is not None and (
                    len(t.shape) != et.rank or any(s is not None and s != e for s, e in zip(t.shape, et.sizes))
                ):
                    ok = False
        self.bind(op, [*args, ok])

    def lower_raise(self, op: Operation, args: list[LV]) -> None:
        msg = args[0] if args and isinstance(args[0], str) else "an exception"
        cls = args[1] if len(args) > 1 and isinstance(args[1], str) else None
        shown = f"{cls.rsplit('.', 1)[-1]}: {msg}" if cls else msg
        if self.branch_depth:
            raise self.fail(
                f"the program raises ({shown}) under a tensor-dependent condition, which Export IR cannot express"
            )
        raise self.fail(f"the program always raises for these inputs: {shown}")

    def lower_uninitialized(self, op: Operation, args: list[LV]) -> None:
        self.bind(op, [UNINITIALIZED])

    def lower_unsupported(self, op: Operation, args: list[LV]) -> None:
        kind = getattr(op, "KIND", op.name)
        if isinstance(op, prim.StoreOp | prim.LoadOp | prim.BreakStmtOp | prim.ContinueStmtOp
                      | prim.ReturnStmtOp | prim.LoopContinuationOp):  # fmt: skip
            raise self.fail(f"{kind} is a frontend form; run convert-to-ssa and exit-transform before lowering")
        raise self.fail(f"{kind} has no Export IR lowering")

    def lower_enter(self, op: Operation, args: list[LV]) -> None:
        if args and isinstance(args[0], GradMode):
            self.bind(op, [None] * len(op.results))
            return
        raise self.fail("with-statements (prim::Enter/Exit) on objects have no Export IR lowering")

    # -- nodes ---------------------------------------------------------------

    def describe(self, value: LV) -> str:
        if isinstance(value, TensorRef):
            return f"a tensor of type {self.value_of(value).type}"
        if isinstance(value, TensorScalar):
            return f"{_a(value.kind)} computed from tensor data"
        if isinstance(value, SymScalar):
            return f"a symbolic value of type {value.value.type}"
        if isinstance(value, ModRef):
            return f"module '{value.path or 'self'}'"
        if value is UNINITIALIZED:
            return "an uninitialized value"
        if isinstance(value, str):
            return f"the string {value!r}"
        if value is None:
            return "None"
        return f"the {type(value).__name__} {ts_str(value)}"

    def tensor_arg(self, value: LV, what: str) -> SSAValue:
        if isinstance(value, TensorRef):
            return self.value_of(value)
        raise self.fail(f"{what} expects a tensor, got {self.describe(value)}")

    def lower_node(self, op: ts.NodeOp, args: list[LV]) -> list[LV]:
        kind = op.kind.data
        special = _NODE_HANDLERS.get(kind)
        if special is not None:
            result = special(self, op, args)
            if result is not NotImplemented:
                return cast(list[LV], result)
        if kind in ("aten::warn", "prim::Print"):
            return [None] * len(op.results)
        resolved = self.resolve(kind, [v.type for v in op.operands], args)
        schema = resolved.schema
        if not _mentions_tensor(schema):
            return self.lower_scalar(op, resolved, args)
        return self.lower_tensor_op(op, resolved, args)

    def resolve(self, kind: str, declared: list[Attribute], args: list[LV]) -> ResolvedNode:
        """The overload a node of `kind` calls, from its declared input types (or those of its values)."""
        actual = [self.ts_type_of(a, t) for a, t in zip(args, declared)]
        attempts = [declared] if declared == actual else [declared, actual]
        error: OverloadError | None = None
        for types in attempts:
            try:
                resolved = resolve_node(kind, types)
            except OverloadError as e:
                error = error or e
                continue
            # A scalar computed from tensor data where the overload wants a number: use the Tensor overload.
            if any(
                isinstance(a, TensorScalar) and not _is_tensor_type(resolved.schema.arguments[i].type)
                for i, a in self.bound_args(resolved, args)
            ) and _mentions_tensor(resolved.schema):
                retyped = [ts.TSTensorType() if isinstance(a, TensorScalar) else t for a, t in zip(args, types)]
                try:
                    resolved = resolve_node(kind, retyped)
                except OverloadError:
                    pass
            return resolved
        assert error is not None
        if not _known_kind(kind):
            raise self.fail(f"unknown operator {kind}: TorchScript nodes of this kind have no Export IR lowering")
        raise self.fail(str(error))

    def bound_args(self, resolved: ResolvedNode, args: list[LV]) -> Iterator[tuple[int, LV]]:
        for i, g in enumerate(resolved.bindings):
            if g is not None and g < len(args):
                yield i, args[g]

    def ts_type_of(self, value: LV, declared: Attribute) -> Attribute:
        if isinstance(value, bool):
            return ts.TSBoolType()
        if isinstance(value, int):
            return ts.TSIntType()
        if isinstance(value, float):
            return ts.TSFloatType()
        if isinstance(value, str):
            return ts.TSStrType()
        if value is None:
            return ts.TSNoneType()
        if isinstance(value, Device):
            return ts.TSDeviceType()
        if isinstance(value, TensorRef):
            return declared if isinstance(declared, ts.TSTensorType) else ts.TSTensorType()
        if isinstance(value, tuple):
            return ts.TSTupleType(*(self.ts_type_of(v, ts.TSAnyType()) for v in cast(tuple[object, ...], value)))
        if isinstance(value, TSList) and value and not isinstance(declared, ts.TSListType):
            return ts.TSListType(self.ts_type_of(value[0], ts.TSAnyType()))
        return declared

    # scalars

    def lower_scalar(self, op: ts.NodeOp, resolved: ResolvedNode, args: list[LV]) -> list[LV]:
        schema = resolved.schema
        name = schema.name
        values = list(args) if schema.is_vararg else [
            args[g] if g is not None else schema.arguments[i].default_value for i, g in enumerate(resolved.bindings)
        ]
        if any(isinstance(v, TensorScalar) for v in values):
            return [self.tensor_scalar_op(name, values)]
        if any(isinstance(v, SymScalar) for v in values):
            return [self.sym_op(name, values)]
        for a, v in zip(schema.arguments, values):
            if a.is_write:
                self.check_writable(v)
        fn = builtin_for(resolved.name, schema)
        if fn is None:
            raise self.fail(f"{resolved.name} has no lowering-time evaluation")
        try:
            result = fn(*values)
        except ScriptException as e:
            raise self.fail(f"{resolved.name}: {e}") from None
        except (TypeError, ValueError, OverflowError, ZeroDivisionError) as e:  # values the builtin cannot take
            raise self.fail(f"{resolved.name}: {e}") from None
        if isinstance(result, list) and not isinstance(result, TSList):  # a new list (not the argument it wrote)
            lst = TSList(cast(Sequence[object], result))
            lst.depth = self.branch_depth
            result = lst
        if len(op.results) == 1:
            return [result]
        if not op.results:
            return []
        return list(cast(Sequence[object], result))

    def check_writable(self, container: LV) -> None:
        """
        A list or dict may be written only where it is certain to be: not
        inside a tensor-dependent `if` (an `exir.cond` branch cannot write a
        Python value the lowering knows) unless the list was made there.
        """
        if isinstance(container, TSList) and container.depth < self.branch_depth:
            raise self.fail("a list made outside a tensor-dependent if is modified inside it")
        if isinstance(container, dict) and self.branch_depth:
            raise self.fail("a dict is modified under a tensor-dependent condition")

    def tensor_scalar_op(self, name: str, values: list[LV]) -> LV:
        """Scalar arithmetic on values computed from tensor data, done on the 0-d tensors."""

        def operand(v: LV) -> object:
            if isinstance(v, TensorScalar):
                return v.value
            if isinstance(v, int | float | bool):
                return v
            raise self.fail(f"arithmetic on {self.describe(v)} and a value computed from tensor data")

        kinds = [v.kind if isinstance(v, TensorScalar) else ("bool" if isinstance(v, bool) else
                 "float" if isinstance(v, float) else "int") for v in values]  # fmt: skip
        if name in ("Int", "Float", "Bool", "ScalarImplicit", "IntImplicit", "FloatImplicit"):
            v = cast(TensorScalar, values[0])
            return self.convert_scalar(v, {"Int": "int", "IntImplicit": "int", "Float": "float",
                                           "FloatImplicit": "float", "Bool": "bool"}.get(name, v.kind))  # fmt: skip
        if name == "neg":
            return TensorScalar(self.aten("aten.neg.default", operand(values[0])), kinds[0])
        if name == "__not__":
            return TensorScalar(self.aten("aten.logical_not.default", operand(values[0])), "bool")
        if name not in _TENSOR_SCALAR_OPS or len(values) != 2:
            raise self.fail(f"aten::{name} of a value computed from tensor data has no Export IR lowering")
        base, kind = _TENSOR_SCALAR_OPS[name]
        a, b = operand(values[0]), operand(values[1])
        if not isinstance(a, SSAValue):
            if name in _FLIPPED:
                base = _TENSOR_SCALAR_OPS[_FLIPPED[name]][0]
                a, b = b, a
            elif name == "sub":
                base, a, b = "rsub", b, a
            else:
                a = self.aten("aten.scalar_tensor.default", a, dtype=self.scalar_dtype(values[0]))
        overload = "Tensor" if isinstance(b, SSAValue) else "Scalar"
        if base == "floor_divide":
            overload = "default" if isinstance(b, SSAValue) else "Scalar"
        if base in ("logical_and", "logical_or"):
            if not isinstance(b, SSAValue):
                b = self.aten("aten.scalar_tensor.default", b, dtype=DType.bool)
            overload = "default"
        cls = aten_op_class(f"aten.{base}.{overload}")
        if cls is None:
            raise self.fail(f"aten::{name} of a value computed from tensor data has no Export IR lowering")
        result = self.build(cls, [a, b], {}).results[0]
        if kind is None:
            kind = "float" if "float" in kinds else ("int" if "int" in kinds else "bool")
        return TensorScalar(result, kind)

    def scalar_dtype(self, v: LV) -> DType:
        if isinstance(v, bool):
            return DType.bool
        if isinstance(v, int):
            return DType.int64
        return DType.float32

    def convert_scalar(self, v: TensorScalar, kind: str) -> TensorScalar:
        t = cast(TensorType, v.value.type)
        if kind == "bool" and t.element_dtype != DType.bool:
            return TensorScalar(self.aten("aten.ne.Scalar", v.value, 0), "bool")
        if kind == "int" and not t.element_dtype.is_integral:
            return TensorScalar(self.aten("aten._to_copy.default", v.value, dtype=DType.int64), "int")
        if kind == "float" and not t.element_dtype.is_floating_point:
            return TensorScalar(self.aten("aten._to_copy.default", v.value, dtype=DType.float32), "float")
        return TensorScalar(v.value, kind)

    def sym_op(self, name: str, values: list[LV]) -> LV:
        target = _SYM_OPS.get(name)
        if name in ("Int", "ScalarImplicit", "IntImplicit") and isinstance(values[0], SymScalar):
            return values[0]
        if target is None:
            raise self.fail(f"aten::{name} on a symbolic size has no Export IR lowering")
        operands: list[object] = []
        for v in values:
            if isinstance(v, SymScalar):
                operands.append(v.value)
            elif isinstance(v, int | float | bool):
                operands.append(v)
            else:
                raise self.fail(f"aten::{name} of a symbolic size and {self.describe(v)}")
        op = SYM_ARITH_OPS[target](*cast(list[Any], operands))
        self.emit(op)
        return self.sym_result(op.results[0])

    def sym_result(self, value: SSAValue) -> LV:
        """A symbolic scalar, folded to a constant when its value is."""
        t = value.type
        if isinstance(t, SymScalarType) and t.value is not None:
            v = t.value
            if isinstance(t, SymIntType) and v.is_Integer:
                return int(v)
            if isinstance(t, SymBoolType) and v in (sympy.true, sympy.false):
                return bool(v)
        return SymScalar(value)

    # tensors

    def lower_tensor_op(self, op: ts.NodeOp, resolved: ResolvedNode, args: list[LV]) -> list[LV]:
        schema = resolved.schema
        functional: tuple[str, tuple[object, ...]] | None = None
        name = resolved.name
        if schema.is_mutable:
            written = schema.written_arguments
            if len(written) != 1 or written[0] is not schema.arguments[0] or schema.is_out:
                raise self.fail(f"{name} writes {', '.join(a.name for a in written)}; only in-place ops "
                                "writing their first argument are functionalized")  # fmt: skip
            variant = op_registry.functional_variant(schema.op_name)
            if variant is None:
                raise self.fail(f"{name} writes its argument and has no functional variant to lower it to")
            functional = _FUNCTIONAL_SPELLING.get(variant, (variant, ()))
        cls = aten_op_class(functional[0] if functional else name)
        if cls is None:
            target = functional[0] if functional else name
            raise self.fail(
                f"{op.kind.data} resolves to {name}" + (f" (functional form {target})" if functional else "")
                + ", which is not an operator of the aten dialect, so it has no Export IR lowering"
            )
        if functional is not None and functional[1]:
            # a variant spelled with another op: the written tensor, then that op's own arguments
            fx_args, _ = self.fx_arguments(resolved, args, schema)
            fx_args, fx_kwargs = [*fx_args[:1], *functional[1]], {}
        else:
            fx_args, fx_kwargs = self.fx_arguments(resolved, args, cls.SCHEMA if functional else schema)
        if cls.name == "aten.copy.default" and len(fx_args) >= 2:
            dst, src = cast(SSAValue, fx_args[0]), fx_args[1]
            if isinstance(src, SSAValue) and isinstance(src.type, TensorType) and isinstance(dst.type, TensorType):
                if src.type.element_dtype != dst.type.element_dtype:
                    src = self.aten("aten._to_copy.default", src, dtype=dst.type.element_dtype)
                fx_args = [dst, src, *fx_args[2:]]
        built = self.build(cls, fx_args, fx_kwargs)
        if functional is not None:
            self.keep_name.add(built)
            target = args[0]
            if not isinstance(target, TensorRef):
                raise self.fail(f"{name} writes {self.describe(target)}")
            self.write(target, built.results[0])
            return [target]
        return self.wrap_results(op, built, schema, args, fx_args, fx_kwargs)

    def wrap_results(
        self,
        op: ts.NodeOp,
        built: AtenOp,
        schema: FunctionSchema,
        args: list[LV],
        fx_args: Sequence[object],
        fx_kwargs: dict[str, object],
    ) -> list[LV]:
        results = list(built.results)
        alias = schema.return_alias_map()
        base = args[0] if args else None
        out: list[LV] = []
        for i, r in enumerate(results):
            t = r.type
            is_view = bool(alias.get(i)) and alias[i][0] == 0 and isinstance(base, TensorRef) and not schema.is_mutable
            if built.name.startswith("aten.to.") or built.name == "aten.type_as.default":
                is_view = is_view and isinstance(base, TensorRef) and self.value_of(base).type == t
            if isinstance(t, TensorType):
                if is_view and built.name in MAY_COPY:
                    # `contiguous` / `reshape` of a layout they cannot alias copy, as in torch
                    is_view = not copies(built.name, self.layout_of(cast(TensorRef, base)), t.sizes)
                if is_view:
                    step = ViewStep(built.name, tuple(fx_args[1:]), tuple(fx_kwargs.items()))
                    out.append(self.view_of(cast(TensorRef, base), step, r))
                else:
                    out.append(self.new_tensor(r))
            elif isinstance(t, SymIntType | SymFloatType | SymBoolType):
                out.append(self.sym_result(r))
            elif isinstance(t, ExirListType | ExirTupleType):
                out.append(self.unpack_list(built, r, is_view, base, fx_args))
            else:
                raise self.fail(f"{built.name} gives a {t}, which the lowering cannot use")
        if len(out) != len(op.results):
            if len(op.results) == 1 and len(out) > 1:
                return [tuple(out)]
            raise self.fail(f"{built.name} gives {len(out)} results, the node has {len(op.results)}")
        return out

    def list_result(self, name: str, x: TensorRef, rest: tuple[object, ...]) -> list[LV]:
        cls = cast(type[AtenOp], aten_op_class(name))
        args = [self.value_of(x), *rest]
        built = self.build(cls, args, {})
        return list(self.unpack_list(built, built.results[0], True, x, args))

    def unpack_list(
        self, built: AtenOp, value: SSAValue, is_view: bool, base: LV, fx_args: Sequence[object]
    ) -> TSList:
        """A `Tensor[]` result: one `exir.getitem` per element (views of the input for chunk/split/unbind)."""
        steps = self.piece_steps(built, fx_args)
        if steps is None:
            raise self.fail(f"{built.name} gives a list whose length is not known while lowering")
        pieces = TSList()
        pieces.depth = self.branch_depth
        for i, step in enumerate(steps):
            item = GetItemOp(value, i)
            self.emit(item)
            r = item.results[0]
            if is_view and isinstance(base, TensorRef) and step is not None:
                pieces.append(self.view_of(base, step, r))
            else:
                pieces.append(self.new_tensor(r))
        return pieces

    def piece_steps(self, built: AtenOp, fx_args: Sequence[object]) -> list[ViewStep | None] | None:
        """The view step of each element of a list result, or None per element when not a view."""
        name = built.name
        x = fx_args[0] if fx_args else None
        if not isinstance(x, SSAValue) or not isinstance(x.type, TensorType):
            return None
        t = x.type
        try:
            bound = bind_arguments(built.SCHEMA, built.get_args(), built.get_kwargs())
        except InferenceError:
            return None
        dim = bound.get("dim", 0)
        if not isinstance(dim, int):
            return None
        dim = dim % max(t.rank, 1)
        size = t.sizes[dim] if t.rank else 1
        if not isinstance(size, int):
            return None
        if name == "aten.unbind.int":
            return [ViewStep("aten.select.int", (dim, i)) for i in range(size)]
        lengths: list[int]
        if name in ("aten.chunk.default",):
            chunks = cast(int, bound["chunks"])
            step = -(-size // chunks) if chunks else 0
            lengths = [min(step, size - i) for i in range(0, max(size, 1), step)] if step else [size]
        elif name == "aten.split.Tensor":
            step = cast(int, bound["split_size"])
            lengths = [min(step, size - i) for i in range(0, max(size, 1), step)] if step else [size]
        elif name in ("aten.split_with_sizes.default", "aten.split.sizes", "aten.split.default"):
            sizes = bound.get("split_sizes", bound.get("split_size"))
            if not isinstance(sizes, list) or not all(isinstance(s, int) for s in sizes):
                return None
            lengths = cast(list[int], sizes)
        else:
            rt = built.results[0].type
            if isinstance(rt, ExirTupleType):
                return [None] * len(rt.types.data)
            return None
        steps: list[ViewStep | None] = []
        start = 0
        for n in lengths:
            steps.append(ViewStep("aten.slice.Tensor", (dim, start, start + n, 1)))
            start += n
        return steps

    def fx_arguments(
        self, resolved: ResolvedNode, args: list[LV], schema: FunctionSchema
    ) -> tuple[list[object], dict[str, object]]:
        """Node inputs bound to the schema as FX args/kwargs, constants embedded, defaults left out."""
        node_schema = resolved.schema
        values: dict[str, object] = {}
        for i, g in enumerate(resolved.bindings):
            if g is None:
                continue
            a = node_schema.arguments[i]
            values[a.name] = self.to_arg(args[g], a.type, a.name)
        positional: list[tuple[Argument, object]] = []
        kwargs: dict[str, object] = {}
        formal = schema.arguments
        for a in formal:
            if a.name not in values:
                if not a.has_default:
                    raise self.fail(f"{schema.op_name}: argument '{a.name}' is missing")
                continue
            v = values[a.name]
            if a.kwarg_only:
                if not (a.has_default and _same_constant(v, self.to_arg(a.default_value, a.type, a.name))):
                    kwargs[a.name] = v
            else:
                positional.append((a, v))
        # Drop trailing positional arguments equal to their defaults, as FX records calls.
        while positional:
            a, v = positional[-1]
            if a.has_default and _same_constant(v, self.to_arg(a.default_value, a.type, a.name)):
                positional.pop()
            else:
                break
        # Positional arguments after one left out are given by keyword.
        expected = [a for a in formal if not a.kwarg_only]
        out_args: list[object] = []
        for i, (a, v) in enumerate(positional):
            if len(out_args) == i and i < len(expected) and expected[i] is a:
                out_args.append(v)
            else:
                kwargs[a.name] = v
        return out_args, kwargs

    def to_arg(self, value: LV, st: SchemaType, name: str) -> object:
        """A lowered value as an FX argument of schema type `st`."""
        if st.kind is TypeKind.OPTIONAL:
            if value is None:
                return None
            st = st.elements[0]
        if isinstance(value, TensorRef):
            v = self.value_of(value)
            if _is_tensor_type(st) or (st.kind is TypeKind.LIST and _is_tensor_type(st.elements[0])):
                return v
            if value.const is not None:
                return self.to_arg(value.const, st, name)
            raise self.fail(f"argument '{name}' is {self.describe(value)} where {st} is expected")
        if isinstance(value, TensorScalar):
            if _is_tensor_type(st):
                return value.value
            raise self.fail(
                f"argument '{name}' is {_a(value.kind)} computed from tensor data, where a constant {st} is "
                "expected; Export IR specializes such arguments"
            )
        if isinstance(value, SymScalar):
            return value.value
        if isinstance(value, TSList | list | tuple):
            elem = st.elements[0] if st.kind is TypeKind.LIST else st
            if st.kind is TypeKind.TUPLE:
                return [self.to_arg(v, e, name) for v, e in zip(cast(Sequence[object], value), st.elements)]
            return [self.to_arg(v, elem, name) for v in cast(Sequence[object], value)]
        if isinstance(value, Device):
            return DeviceAttr(value.name)
        if st.kind is TypeKind.BASE:
            if st.name == "ScalarType" and isinstance(value, int) and not isinstance(value, bool):
                if not 0 <= value < len(ts.DTYPE_CODES) or ts.DTYPE_CODES[value] is None:
                    raise self.fail(f"argument '{name}': {value} is not a dtype code")
                return ts.DTYPE_CODES[value]
            if st.name == "Layout" and isinstance(value, int) and not isinstance(value, bool):
                return _LAYOUTS[value] if 0 <= value < len(_LAYOUTS) else value
            if st.name == "MemoryFormat" and isinstance(value, int) and not isinstance(value, bool):
                return _MEMORY_FORMATS[value] if 0 <= value < len(_MEMORY_FORMATS) else value
            if st.name == "Device" and isinstance(value, str):
                return DeviceAttr(value)
            if st.name in ("float", "SymFloat") and isinstance(value, int) and not isinstance(value, bool):
                return float(value)
        if value is None or isinstance(value, int | float | bool | str | complex):
            return value
        raise self.fail(f"argument '{name}' is {self.describe(value)}, which an aten op cannot take")


# ---------------------------------------------------------------------------
# Special node kinds
# ---------------------------------------------------------------------------


def _walk(value: object) -> Iterator[object]:
    if isinstance(value, list | tuple):
        for v in cast(Sequence[object], value):
            yield from _walk(v)
    elif isinstance(value, dict):
        for v in cast(dict[object, object], value).values():
            yield from _walk(v)
    else:
        yield value


def _is_tensor_type(st: SchemaType) -> bool:
    st = st.unwrap_optional()
    return st.kind is TypeKind.BASE and st.name == "Tensor"


def _mentions_tensor(schema: FunctionSchema) -> bool:
    def has(st: SchemaType) -> bool:
        if st.kind is TypeKind.BASE:
            return st.name == "Tensor"
        return any(has(e) for e in st.elements)

    return any(has(a.type) for a in schema.arguments) or any(has(r.type) for r in schema.returns)


def _known_kind(kind: str) -> bool:
    ns, _, name = kind.partition("::")
    prefix = f"{ns}.{name}."
    return any(n.startswith(prefix) for n in op_registry.all_operators())


NodeHandler = Callable[[_Lowering, ts.NodeOp, list[LV]], object]
"""Lowers a node kind TorchScript gives no schema (or one the generic path cannot use); NotImplemented declines."""


def _tensor_type(low: _Lowering, v: LV, what: str) -> TensorType:
    return cast(TensorType, low.tensor_arg(v, what).type)


def _size(low: _Lowering, t: SSAValue, dim: int) -> LV:
    tt = cast(TensorType, t.type)
    if not -tt.rank <= dim < tt.rank:
        raise low.fail(f"dimension {dim} out of range for a tensor of rank {tt.rank}")
    s = tt.sizes[dim % tt.rank]
    if isinstance(s, int):
        return s
    op = SymSizeOp(t, dim % tt.rank)
    low.emit(op)
    return low.sym_result(op.results[0])


def _h_size(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    if not args or not isinstance(args[0], TensorRef):
        return NotImplemented
    t = low.value_of(args[0])
    if len(args) == 1:
        lst = TSList(_size(low, t, d) for d in range(cast(TensorType, t.type).rank))
        lst.depth = low.branch_depth
        return [lst]
    dim = args[1]
    if not isinstance(dim, int):
        raise low.fail(f"aten::size with dimension {low.describe(dim)}")
    return [_size(low, t, dim)]


def _h_dim(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    if not isinstance(args[0], TensorRef):
        return NotImplemented
    return [_tensor_type(low, args[0], "aten::dim").rank]


def _h_numel(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    if not isinstance(args[0], TensorRef):
        return NotImplemented
    n = _tensor_type(low, args[0], "aten::numel").numel()
    if not isinstance(n, int):
        raise low.fail("aten::numel of a tensor with symbolic sizes")
    return [n]


def _h_len(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    if isinstance(args[0], TensorRef):
        return [_size(low, low.value_of(args[0]), 0)]
    return NotImplemented


def _h_dtype(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    return [_dtype_code(_tensor_type(low, args[0], "prim::dtype").element_dtype)]


def _h_device(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    return [Device(_tensor_type(low, args[0], "prim::device").device.data)]


def _h_layout(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    return [0]


def _h_false(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    return [False]


def _h_is_cuda(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    return [_tensor_type(low, args[0], "prim::is_cuda").device.data.startswith("cuda")]


def _h_is_floating_point(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    return [_tensor_type(low, args[0], op.kind.data).element_dtype.is_floating_point]


def _h_shape(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    return _h_size(low, op, args[:1])


def _h_identity(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    return args[: len(op.results)]


def _h_to_scalar(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    """`aten::Int(t)`, `aten::item(t)`, `aten::Bool(t)`, ...: a scalar from tensor data."""
    x = args[0] if args else None
    if not isinstance(x, TensorRef):
        return NotImplemented
    kind = op.kind.data.split("::")[1]
    if x.const is not None:
        value = x.const
        conv = {"Int": int, "IntImplicit": int, "Float": float, "FloatImplicit": float, "Bool": bool}.get(kind)
        return [conv(value) if conv else value]
    v = low.value_of(x)
    t = cast(TensorType, v.type)
    if isinstance(t.numel(), int) and t.numel() != 1:
        raise low.fail(f"{op.kind.data} of a tensor of sizes {list(t.sizes)}; it needs one element")
    natural = "bool" if t.element_dtype == DType.bool else ("float" if t.element_dtype.is_floating_point else "int")
    target = {"Int": "int", "IntImplicit": "int", "Float": "float", "FloatImplicit": "float", "Bool": "bool"}.get(
        kind, natural
    )
    return [low.convert_scalar(TensorScalar(v, natural), target)]


def _h_num_to_tensor(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    x = args[0]
    if isinstance(x, TensorScalar):
        v = x.value
        if cast(TensorType, v.type).rank:
            v = low.aten("aten.view.default", v, [])
        return [low.new_tensor(v)]
    if isinstance(x, SymScalar):
        raise low.fail("prim::NumToTensor of a symbolic size has no Export IR lowering")
    if not isinstance(x, int | float | bool):
        raise low.fail(f"prim::NumToTensor of {low.describe(x)}")
    dtype = DType.bool if isinstance(x, bool) else (DType.int64 if isinstance(x, int) else DType.float64)
    ref = low.new_tensor(low.aten("aten.scalar_tensor.default", x, dtype=dtype))
    ref.const = x
    return [ref]


def _h_tensor(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    """`aten::tensor(data, dtype, device, requires_grad)` with known data."""
    data = args[0]
    if isinstance(data, TensorRef | TensorScalar | SymScalar):
        return NotImplemented
    flat = list(_walk(data))
    if any(not isinstance(v, int | float | bool) for v in flat):
        raise low.fail("aten::tensor of data that is not known while lowering")
    dtype_code = args[1] if len(args) > 1 else None
    if isinstance(dtype_code, int) and not isinstance(dtype_code, bool):
        dtype = cast(DType, ts.DTYPE_CODES[dtype_code])
    elif flat and all(isinstance(v, bool) for v in flat):
        dtype = DType.bool
    elif flat and all(isinstance(v, int) for v in flat):
        dtype = DType.int64
    else:
        dtype = DType.float32
    if not isinstance(data, list | tuple):
        ref = low.new_tensor(low.aten("aten.scalar_tensor.default", data, dtype=dtype))
        ref.const = cast(int | float | bool, data)
        return [ref]
    array = np.asarray(_plain(data), dtype=numpy_dtype(dtype))
    value = ts.TensorValueAttr.from_array(array, ts.SCALAR_TYPE_OF[dtype])
    return [low.lift_constant(value, None)]


def _plain(value: object) -> object:
    if isinstance(value, list | tuple):
        return [_plain(v) for v in cast(Sequence[object], value)]
    return value


def _h_is(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    a, b = args
    same = (a is None and b is None) if (a is None or b is None) else a is b
    return [same if op.kind.data == "aten::__is__" else not same]


def _h_wait(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    fut = args[0]
    if not isinstance(fut, Future):
        raise low.fail(f"aten::wait of {low.describe(fut)}")
    return list(fut.values) if len(op.results) == len(fut.values) else [tuple(fut.values)]


def _h_convolution(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    """`aten::_convolution` (what traces record) is `aten::convolution` plus backend flags."""
    if len(args) < 9:
        return NotImplemented
    resolved = low.resolve("aten::convolution", [v.type for v in op.operands[:9]], args[:9])
    return low.lower_tensor_op(op, resolved, args[:9])


def _h_requires_grad_check(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    """The profiling executor's guard on requires_grad: Export IR has no autograd, both paths compute the same."""
    return [*args, True]


def _h_create_object(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    t = op.results[0].type if op.results else None
    name = t.qualname.data if isinstance(t, ts.TSClassType) else ts.ts_type_str(t) if t else "?"
    if name in _GRAD_MODE_CLASSES:
        return [GradMode(name)]
    raise low.fail(f"prim::CreateObject makes a {name}; TorchScript class objects have no Export IR lowering")


def _h_batch_norm(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    """
    `aten::batch_norm` in training mode updates the running statistics in
    place, which its schema does not say. Export IR makes that explicit: the
    normalization uses the batch statistics, and the running mean and (unbiased)
    variance become their functional update, written back into the buffers.
    """
    if len(args) != 9:
        return NotImplemented
    x, weight, bias, running_mean, running_var, training, momentum, eps, cudnn = args
    if training is not True or not isinstance(running_mean, TensorRef) or not isinstance(running_var, TensorRef):
        return NotImplemented
    if not isinstance(momentum, float) or not isinstance(eps, float) or not isinstance(x, TensorRef):
        raise low.fail("aten::batch_norm in training mode needs known momentum and eps")
    xv = low.value_of(x)
    rank = cast(TensorType, xv.type).rank
    dims = [0, *range(2, rank)]
    resolved = low.resolve(op.kind.data, [v.type for v in op.operands], [x, weight, bias, None, None, *args[5:]])
    (out,) = low.lower_tensor_op(op, resolved, [x, weight, bias, None, None, *args[5:]])
    mean = low.aten("aten.mean.dim", xv, dims)
    var = low.aten("aten.var.correction", xv, dims, correction=1)
    for stat, batch in ((running_mean, mean), (running_var, var)):
        current = low.value_of(stat)
        if cast(TensorType, batch.type).element_dtype != cast(TensorType, current.type).element_dtype:
            batch = low.aten("aten._to_copy.default", batch, dtype=cast(TensorType, current.type).element_dtype)
        scaled = low.aten("aten.mul.Scalar", current, 1.0 - momentum)
        low.write(stat, low.aten("aten.add.Tensor", scaled, batch, alpha=momentum))
    return [out]


def _h_unchecked_cast(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    return [args[0]]


def _h_container(low: _Lowering, op: ts.NodeOp, args: list[LV]) -> object:
    """Dict and list builtins whose overloads need no schema matching."""
    name = op.kind.data.split("::")[1]
    c = args[0] if args else None
    if isinstance(c, dict):
        d = cast(dict[object, object], c)
        if name == "keys":
            return [TSList(d.keys())]
        if name == "values":
            return [TSList(d.values())]
        if name == "items":
            return [TSList(d.items())]
        if name == "__getitem__":
            return [_getitem(d, low.hashable(args[1]))]
        if name == "get":
            return [d.get(low.hashable(args[1]), args[2] if len(args) > 2 else None)]
        if name == "len":
            return [len(d)]
        if name == "__contains__":
            return [low.hashable(args[1]) in d]
        if name == "_set_item":
            low.check_writable(d)
            d[low.hashable(args[1])] = args[2]
            return [None] * len(op.results)
        if name == "dict":
            return [dict(d)]
    if isinstance(c, TSList | tuple) and name == "__getitem__" and isinstance(args[1], int):
        return [_getitem(c, args[1])]
    if isinstance(c, TSList | tuple) and name in ("len",):
        return [len(cast(Sequence[object], c))]
    if isinstance(c, TSList) and name == "list":
        lst = TSList(c)
        lst.depth = low.branch_depth
        return [lst]
    return NotImplemented


_NODE_HANDLERS: dict[str, NodeHandler] = {
    "aten::size": _h_size, "aten::sym_size": _h_size, "aten::dim": _h_dim, "aten::numel": _h_numel,
    "aten::len": _h_len, "prim::dtype": _h_dtype, "prim::device": _h_device, "prim::layout": _h_layout,
    "prim::requires_grad": _h_false, "aten::requires_grad": _h_false, "prim::is_cuda": _h_is_cuda,
    "aten::is_floating_point": _h_is_floating_point, "prim::shape": _h_shape, "prim::data": _h_identity,
    "prim::unchecked_cast": _h_unchecked_cast, "prim::CreateObject": _h_create_object,
    "aten::batch_norm": _h_batch_norm,
    "prim::RequiresGradCheck": _h_requires_grad_check, "aten::Int": _h_to_scalar, "aten::Float": _h_to_scalar,
    "aten::Bool": _h_to_scalar, "aten::item": _h_to_scalar, "aten::ScalarImplicit": _h_to_scalar,
    "aten::IntImplicit": _h_to_scalar, "aten::FloatImplicit": _h_to_scalar,
    "prim::NumToTensor": _h_num_to_tensor, "aten::tensor": _h_tensor, "aten::__is__": _h_is,
    "aten::__isnot__": _h_is, "aten::wait": _h_wait, "aten::_convolution": _h_convolution,
    "aten::keys": _h_container, "aten::values": _h_container, "aten::items": _h_container,
    "aten::__getitem__": _h_container, "aten::get": _h_container, "aten::__contains__": _h_container,
    "aten::_set_item": _h_container, "aten::dict": _h_container, "aten::list": _h_container,
}  # fmt: skip


_PRIM_HANDLERS: dict[type[Operation], Callable[[_Lowering, Any, list[LV]], None]] = {
    prim.ConstantOp: _Lowering.lower_constant,
    prim.IfOp: _Lowering.lower_if,
    prim.LoopOp: _Lowering.lower_loop,
    prim.ListConstructOp: _Lowering.lower_list_construct,
    prim.ListUnpackOp: _Lowering.lower_list_unpack,
    prim.TupleConstructOp: _Lowering.lower_tuple_construct,
    prim.TupleUnpackOp: _Lowering.lower_tuple_unpack,
    prim.TupleIndexOp: _Lowering.lower_tuple_index,
    prim.DictConstructOp: _Lowering.lower_dict_construct,
    prim.GetAttrOp: _Lowering.lower_get_attr,
    prim.SetAttrOp: _Lowering.lower_set_attr,
    prim.CallMethodOp: _Lowering.lower_call_method,
    prim.CallFunctionOp: _Lowering.lower_call_function,
    prim.ConstantChunkOp: _Lowering.lower_constant_chunk,
    prim.FusionGroupOp: _Lowering.lower_subgraph,
    prim.DifferentiableGraphOp: _Lowering.lower_subgraph,
    prim.TensorExprGroupOp: _Lowering.lower_subgraph,
    prim.ForkOp: _Lowering.lower_subgraph,
    prim.TypeCheckOp: _Lowering.lower_type_check,
    prim.GuardOp: _Lowering.lower_identity,
    prim.ProfileOp: _Lowering.lower_identity,
    prim.BailOutOp: _Lowering.lower_identity,
    prim.RaiseExceptionOp: _Lowering.lower_raise,
    prim.UninitializedOp: _Lowering.lower_uninitialized,
    prim.EnterOp: _Lowering.lower_enter,
    prim.ExitOp: _Lowering.lower_enter,
    prim.WithOp: _Lowering.lower_enter,
    prim.StoreOp: _Lowering.lower_unsupported,
    prim.LoadOp: _Lowering.lower_unsupported,
    prim.LoopContinuationOp: _Lowering.lower_unsupported,
    prim.ReturnStmtOp: _Lowering.lower_unsupported,
    prim.BreakStmtOp: _Lowering.lower_unsupported,
    prim.ContinueStmtOp: _Lowering.lower_unsupported,
}


# ---------------------------------------------------------------------------
# Entry, state, signature
# ---------------------------------------------------------------------------


def _leaf_spec() -> dict[str, object]:
    return {"type": None, "context": None, "children_spec": []}


def _tree_spec(tree: object) -> dict[str, object]:
    if isinstance(tree, tuple):
        return {"type": "builtins.tuple", "context": "null",
                "children_spec": [_tree_spec(t) for t in cast(tuple[object, ...], tree)]}  # fmt: skip
    if isinstance(tree, list):
        return {"type": "builtins.list", "context": "null",
                "children_spec": [_tree_spec(t) for t in cast(list[object], tree)]}  # fmt: skip
    if isinstance(tree, dict):
        d = cast(dict[object, object], tree)
        return {"type": "builtins.dict", "context": json.dumps(list(d.keys())),
                "children_spec": [_tree_spec(v) for v in d.values()]}  # fmt: skip
    return _leaf_spec()


def _dump_spec(tree: object) -> str:
    """A pytree spec in torch's `treespec_dumps` JSON form."""
    return json.dumps([1, _tree_spec(tree)])


def lower_torchscript(
    module: ModuleOp,
    entry: str | None = None,
    input_types: str = "",
    input_values: str = "",
    ranges: str = "",
    max_unroll: int = 1000,
) -> ProgramOp:
    """Lower the TorchScript program in `module` to an `exir.program` (the module is not changed)."""
    root, method = _find_entry(module, entry)
    try:
        options = (parse_input_types(input_types), parse_input_values(input_values), parse_ranges(ranges))
    except TorchScriptLoweringError as e:
        raise ExirDiagnostic(method, f"torchscript-to-exir option {e} (lowering @{method.sym_name.data})") from None
    low = _Lowering(module, *options, max_unroll)
    try:
        return _lower_entry(low, root, method)
    except TorchScriptLoweringError as e:
        where = low.current or method
        raise ExirDiagnostic(where, _with_call_chain(str(e), low)) from None


def _with_call_chain(message: str, low: _Lowering) -> str:
    calls = low.call_stack[0::2]
    if not calls:
        return message
    return message + "".join(f" (inlined from {locate(c)})" for c in reversed(calls))


def _find_entry(module: ModuleOp, entry: str | None) -> tuple[ts.ScriptModuleOp | None, ts.MethodOp]:
    modules = [op for op in module.ops if isinstance(op, ts.ScriptModuleOp)]
    methods = [op for op in module.ops if isinstance(op, ts.MethodOp)]
    if len(modules) > 1:
        raise ExirDiagnostic(modules[1], "torchscript-to-exir lowers one ts.module; this input has several")
    if modules:
        root = modules[0]
        name = entry or "forward"
        method = root.method(name)
        if method is None:
            names = ", ".join(m.sym_name.data for m in root.methods()) or "none"
            raise ExirDiagnostic(root, f"ts.module @{root.sym_name.data} has no method '{name}' (methods: {names})")
        return root, method
    if not methods:
        raise ExirDiagnostic(module, "no TorchScript program to lower: the input has no ts.module or ts.method")
    if entry is not None:
        found = [m for m in methods if m.sym_name.data == entry]
        if not found:
            names = ", ".join(m.sym_name.data for m in methods)
            raise ExirDiagnostic(module, f"torchscript-to-exir: no ts.method @{entry} to lower (functions: {names})")
        return None, found[0]
    if len(methods) == 1:
        return None, methods[0]
    forward = [m for m in methods if m.sym_name.data == "forward"]
    if forward:
        return None, forward[0]
    names = ", ".join(m.sym_name.data for m in methods)
    raise ExirDiagnostic(module, f"several functions ({names}); choose the entry with the pass option entry=NAME")


def _schema_arg_names(method: ts.MethodOp) -> list[str | None]:
    n = len(method.body.block.args)
    if method.schema is None:
        return [None] * n
    try:
        schema = parse_schema(method.schema.data)
    except SchemaParseError:
        return [None] * n
    names: list[str | None] = [a.name for a in schema.arguments]
    return names if len(names) == n else [None] * n


def _lower_entry(low: _Lowering, root: ts.ScriptModuleOp | None, method: ts.MethodOp) -> ProgramOp:
    block = method.body.block
    low.current = method
    # State: every parameter, then every buffer, of the module tree (torch's state_dict order).
    if root is not None:
        params: list[tuple[ts.ScriptModuleOp, ts.SlotOp, str]] = []
        buffers: list[tuple[ts.ScriptModuleOp, ts.SlotOp, str]] = []
        _collect_state(root, "", params, buffers)
        for kind, group, specs in (
            (InputKind.parameter, params, low.param_specs),
            (InputKind.buffer, buffers, low.buffer_specs),
        ):
            for owner, slot, qualified in group:
                t = _slot_type(slot)
                if t is None:
                    raise ExirDiagnostic(slot, f"{kind.value} '{qualified}' has no known dtype and sizes")
                prefix = "p_" if kind is InputKind.parameter else "b_"
                arg_name = low.unique_name(prefix + re.sub(r"\W", "_", qualified))
                arg = low.graph_block.insert_arg(t, len(low.graph_block.args))
                arg.name_hint = arg_name
                specs.append(InputSpecAttr(kind, arg_name, qualified))
                data = slot.value.data if isinstance(slot.value, ts.TensorValueAttr) and slot.value.known else None
                low.states.append(StateOp(qualified, t, data))
                ref = low.new_tensor(arg, kind.value, qualified)
                low.slots[(owner, slot.sym_name.data)] = ref
                if kind is InputKind.buffer:
                    low.buffer_slots.append(((owner, slot.sym_name.data), qualified, arg))
    # User inputs, named by the schema (else by the graph), `self` excluded.
    first = 1 if root is not None else 0
    names = [
        schema_name or _sanitize(arg.name_hint, f"arg{i}")
        for i, (arg, schema_name) in enumerate(zip(block.args, _schema_arg_names(method)))
    ][first:]
    unknown = sorted((set(low.input_types) | set(low.input_values)) - set(names))
    if unknown:
        raise TorchScriptLoweringError(
            f"input-types/input-values name {', '.join(unknown)}, which is not an input of "
            f"@{method.sym_name.data} ({', '.join(names)})"
        )
    args: list[LV] = [ModRef(root, "")] if root is not None else []
    for name, arg in zip(names, block.args[first:]):
        args.append(_lower_input(low, name, arg.type, method.sym_name.data))
    outs = low.run_block(block, args)
    low.current = block.last_op
    result: object = outs[0] if len(outs) == 1 else tuple(outs)
    return _finish(low, result)


def _collect_state(
    module: ts.ScriptModuleOp,
    prefix: str,
    params: list[tuple[ts.ScriptModuleOp, ts.SlotOp, str]],
    buffers: list[tuple[ts.ScriptModuleOp, ts.SlotOp, str]],
) -> None:
    """Parameters and buffers in `named_parameters()` / `named_buffers()` order."""

    def walk(m: ts.ScriptModuleOp, p: str, kind: str, out: list[tuple[ts.ScriptModuleOp, ts.SlotOp, str]]) -> None:
        for slot in m.slots():
            if slot.kind.data == kind:
                out.append((m, slot, f"{p}{slot.sym_name.data}"))
        for sub in m.submodules():
            walk(sub, f"{p}{sub.sym_name.data}.", kind, out)

    walk(module, prefix, "parameter", params)
    walk(module, prefix, "buffer", buffers)


def _slot_type(slot: ts.SlotOp) -> TensorType | None:
    value = slot.value
    if isinstance(value, ts.TensorValueAttr):
        dtype = ts.SCALAR_TYPES.get(value.scalar.data)
        if dtype is not None:
            device = slot.slot_type.device_name if isinstance(slot.slot_type, ts.TSTensorType) else None
            return TensorType(list(value.shape), dtype, device or "cpu")
    if isinstance(slot.slot_type, ts.TSTensorType):
        return _exir_tensor_type(slot.slot_type)
    return None


def _lower_input(low: _Lowering, name: str, t: Attribute, method: str) -> LV:
    if name in low.input_values:
        return low.input_values[name]
    tensor_like = isinstance(t, ts.TSTensorType) or (
        isinstance(t, ts.TSOptionalType) and isinstance(t.element, ts.TSTensorType)
    )
    if tensor_like:
        exir_t = low.input_types.get(name)
        if exir_t is None:
            inner = t.element if isinstance(t, ts.TSOptionalType) else t
            exir_t = _exir_tensor_type(cast(ts.TSTensorType, inner))
        if exir_t is None:
            raise TorchScriptLoweringError(
                f"input '{name}' of @{method} has type {ts.ts_type_str(t)}, which does not say its dtype and sizes; "
                f"give them with the pass option input-types=\"{name}=f32[2, 3]\" (one NAME=DTYPE[SIZES] per "
                "input, separated by ';')"
            )
        for s in exir_t.sizes:
            if not isinstance(s, int):
                low.symbols |= cast(set[sympy.Symbol], s.free_symbols)
        placeholder = low.graph_block.insert_arg(exir_t, len(low.graph_block.args))
        arg_name = low.unique_name(name)
        placeholder.name_hint = arg_name
        low.user_specs.append(InputSpecAttr(InputKind.user_input, arg_name))
        ref = low.new_tensor(placeholder, "user_input", arg_name)
        low.user_storages.append((ref.storage, arg_name))
        return ref
    kind = ts.ts_type_str(t)
    if isinstance(t, ts.TSIntType | ts.TSFloatType | ts.TSBoolType | ts.TSStrType | ts.TSListType | ts.TSOptionalType
                  | ts.TSTupleType | ts.TSNumberType):  # fmt: skip
        raise TorchScriptLoweringError(
            f"input '{name}' of @{method} is {_a(kind)}; Export IR specializes non-tensor inputs: give its value "
            f"with the pass option input-values=\"{name}=...\""
        )
    if isinstance(t, ts.TSClassType):
        return Detached(t.qualname.data)
    raise TorchScriptLoweringError(f"input '{name}' of @{method} has type {kind}, which has no Export IR counterpart")


def _finish(low: _Lowering, result: object) -> ProgramOp:
    outputs: list[SSAValue] = []
    out_specs: list[OutputSpecAttr] = []

    names: dict[SSAValue, str] = {}

    def output_name(v: SSAValue, fallback: str) -> str:
        if v not in names:
            names[v] = v.name_hint if isinstance(v, BlockArgument) and v.name_hint else low.unique_name(
                v.name_hint or fallback
            )
        return names[v]

    # Mutated buffers, then mutated user inputs, then the user outputs.
    for key, target, placeholder in low.buffer_slots:
        ref = low.slots.get(key)
        if not isinstance(ref, TensorRef):
            continue
        final = low.value_of(ref)
        if final is placeholder:
            continue
        if final.type != placeholder.type:
            raise TorchScriptLoweringError(
                f"buffer '{target}' of type {placeholder.type} ends up holding a {final.type}; a buffer mutation "
                "keeps the buffer's type"
            )
        out_specs.append(OutputSpecAttr(OutputKind.buffer_mutation, output_name(final, "buffer"), target))
        outputs.append(final)
    for storage, name in low.user_storages:
        if storage.value is not storage.initial:
            out_specs.append(OutputSpecAttr(OutputKind.user_input_mutation, output_name(storage.value, name), name))
            outputs.append(storage.value)

    def flatten(value: object, path: str) -> object:
        if isinstance(value, tuple | TSList | list):
            items = [flatten(v, f"{path}[{i}]") for i, v in enumerate(cast(Sequence[object], value))]
            return tuple(items) if isinstance(value, tuple) else items
        if isinstance(value, dict):
            d = cast(dict[object, object], value)
            return {k: flatten(v, f"{path}[{k!r}]") for k, v in d.items()}
        if isinstance(value, TensorRef):
            v = low.value_of(value)
        elif isinstance(value, SymScalar):
            v = value.value
        elif isinstance(value, TensorScalar):
            raise TorchScriptLoweringError(
                f"the returned value{path} is {_a(value.kind)} computed from tensor data (item(), int(), ...); "
                "return the tensor instead"
            )
        else:
            raise TorchScriptLoweringError(
                f"the returned value{path} is {low.describe(value)}; the outputs of an exir program are tensors "
                "and symbolic sizes"
            )
        out_specs.append(OutputSpecAttr(OutputKind.user_output, output_name(v, f"output_{len(outputs)}")))
        outputs.append(v)
        return None

    tree = flatten(result, "")
    block = low.graph_block
    block.add_op(OutputOp(outputs))
    output_types = [v.type for v in outputs]
    graph = GraphOp(ProgramOp.ENTRY, block.arg_types, output_types, Region(block))
    # What the lowering made along the way and no one uses (replayed views, getitems of unused list
    # elements, size queries) goes with the stock exir-dce, which keeps the writes that are observable.
    eliminate_dead_code(graph)
    if _drop_unused_constants(low):
        graph.function_type = FunctionType.from_lists(block.arg_types, output_types)
    input_specs = [*low.param_specs, *low.buffer_specs, *low.const_specs, *low.user_specs]
    ranges: list[RangeConstraintAttr] = []
    for sym in sorted(low.symbols, key=str):
        lower, upper = low.ranges.get(sym, (2, math.inf))
        ranges.append(RangeConstraintAttr(sym, _bound(lower), _bound(upper)))
    # Data-dependent sizes (`nonzero`, `unique`) bring unbacked symbols, which torch.export ranges as [0, inf].
    unbacked = {s for op in graph.walk() for r in op.results for s in _symbols_of(r.type)} - low.symbols
    for sym in sorted(unbacked, key=str):
        lower, upper = low.ranges.get(sym, (0, math.inf))
        ranges.append(RangeConstraintAttr(sym, _bound(lower), _bound(upper)))
    in_tree = (tuple(None for s in low.user_specs), {})
    program = ProgramOp(
        input_specs, out_specs, [*low.states, graph], ranges, in_spec=_dump_spec(in_tree), out_spec=_dump_spec(tree)
    )
    _name_outputs(program, outputs)
    return program


def _symbols_of(t: Attribute) -> set[sympy.Symbol]:
    """The size symbols a type mentions."""
    if isinstance(t, TensorType):
        return {s for size in t.sizes if not isinstance(size, int) for s in size.free_symbols}  # type: ignore[misc]
    if isinstance(t, SymScalarType) and t.value is not None:
        return cast(set[sympy.Symbol], t.value.free_symbols)
    if isinstance(t, ExirListType):
        return _symbols_of(t.element_type)
    if isinstance(t, ExirTupleType):
        return {s for e in t.types.data for s in _symbols_of(e)}
    return set()


def _bound(b: int | float) -> SymSize:
    if b == math.inf:
        return cast(SymSize, sympy.oo)
    if b == -math.inf:
        return cast(SymSize, -sympy.oo)
    return int(b)


def _name_outputs(program: ProgramOp, outputs: Sequence[SSAValue]) -> None:
    """Give unnamed outputs the names the signature uses."""
    for v, spec in zip(outputs, program.outputs.data):
        if v.name_hint is None:
            v.name_hint = spec.arg_name.data


def _drop_unused_constants(low: _Lowering) -> bool:
    """
    Lifted constants no op reads any more (after dead code elimination) leave the signature;
    whether any left, so the caller knows the graph's type changed.
    """
    block = low.graph_block
    first = len(low.param_specs) + len(low.buffer_specs)
    kept: list[InputSpecAttr] = []
    for spec in low.const_specs:
        arg = block.args[first + len(kept)]
        if arg.uses:
            kept.append(spec)
            continue
        block.erase_arg(arg)
        low.states = [s for s in low.states if s.sym_name.data != spec.target_name]
    dropped = len(kept) != len(low.const_specs)
    low.const_specs = kept
    return dropped


# ---------------------------------------------------------------------------
# The pass
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TorchScriptToExirPass(ModulePass):
    """
    Lower a TorchScript Module (`ts.module`, entry `forward`) or function
    (top-level `ts.method`) to an `exir.program` that passes `verify-export-ir`.
    """

    name = "torchscript-to-exir"

    entry: str | None = None
    """The method (of the `ts.module`) or function to lower; default `forward`, or the only function."""

    input_types: str = ""
    """Tensor input types, `x=f32[3, 10];h=f32[s0, 20]`, for inputs whose TorchScript type is not complete."""

    input_values: str = ""
    """Values of non-tensor inputs, which are specialized: `n=3;flag=true;scale=0.5`."""

    ranges: str = ""
    """Ranges of the size symbols of input-types, `s0=[1, 64]` (default `[2, inf]`, as torch.export)."""

    max_unroll: int = 1000
    """The most iterations a loop is unrolled to."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        program = lower_torchscript(op, self.entry, self.input_types, self.input_values, self.ranges, self.max_unroll)
        for child in list(op.ops):
            if isinstance(child, ts.ScriptModuleOp | ts.MethodOp):
                child.detach()
                child.erase(drop_references=True)
        op.body.block.add_op(program)
        program.verify()
        from xdsl_exir.transforms.verify_export_ir import VerifyExportIRPass

        VerifyExportIRPass().verify_program(program)
