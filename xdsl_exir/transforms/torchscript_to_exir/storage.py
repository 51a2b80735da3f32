"""The base of the lowering of one program: its state (the graph being built, the
signature pieces, lifted constants), emission with the TorchScript call chain
as location, tensors as views of storages (a read replays the views; a write
is scattered back into the storage by `view_scatter`, as `functionalize`
does), and aten ops built with PyTorch's type promotion made explicit, as
Export IR's `no-promotion` rule requires.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from xdsl.dialects.builtin import LocationAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Attribute, Block, Operation, SSAValue

from xdsl_exir.dialects import ts
from xdsl_exir.dialects.aten import AtenOp, aten_op_class
from xdsl_exir.dialects.exir import DType, InputKind, InputSpecAttr, StateOp, TensorType
from xdsl_exir.semantics.inference import InferenceError, NoInference, bind_arguments, result_type
from xdsl_exir.transforms.torchscript_to_exir.errors import TorchScriptLoweringError
from xdsl_exir.transforms.torchscript_to_exir.values import (
    UNINITIALIZED,
    Device,
    ModRef,
    Storage,
    SymScalar,
    TensorRef,
    TensorScalar,
    is_number,
    owner_block,
    with_article,
)
from xdsl_exir.transforms.view_scatter import (
    ViewLayout,
    ViewScatterError,
    dense_layout,
    layout_after,
    scatter_into_base,
)
from xdsl_exir.utils import op_registry
from xdsl_exir.utils.diagnostics import user_location
from xdsl_exir.utils.symbolic import sympy
from xdsl_exir.utils.ts_builtins import ts_str

UNROLL_BUDGET = 10_000
"""The most loop iterations a program unrolls to, all loops together (nested trip counts
multiply), and so the ceiling of the max-unroll option: the unrolled graph is the program,
and a few hundred bytes of nested loops must not grow it without bound."""

if TYPE_CHECKING:
    from xdsl_exir.transforms.torchscript_to_exir.values import LV, ViewStep


# The lowering
# ---------------------------------------------------------------------------


class LoweringBase:
    """The state of one lowering and what every part of it stands on: errors with
    the TorchScript call chain, emission into the graph being built, tensors as
    views of storages (reads replay the views, writes are scattered back into
    the storage, as functionalization does), lifted constants, and aten ops
    built with PyTorch's type promotion made explicit.

    A lowering is one object, which runs the entry method over abstract values;
    its methods are layered over three classes (this one, nodes, prim ops) only
    so that each part reads on its own.
    """

    # -- errors ------------------------------------------------------------------

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
        self.unrolled = 0
        """Loop iterations unrolled so far, all loops together (nested ones multiply)."""
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

    def fail(self, message: str) -> TorchScriptLoweringError:
        return TorchScriptLoweringError(message)

    # -- emission ----------------------------------------------------------------

    def location(self) -> LocationAttr:
        """
        Where the op being lowered comes from: its location, at the calls it was
        inlined from (the stack trace). The innermost frames in torch or the
        standard library are dropped where an outer one is not (an `nn.Linear`'s
        `aten::linear` is located at the user's call of the module, not at
        `torch/nn/modules/linear.py`), as a `.pt2` node's stack trace is read.
        """
        assert self.current is not None
        loc: LocationAttr = self.current.location
        if isinstance(loc, UnknownLoc):
            return loc
        return user_location([loc, *(c.location for c in reversed(self.call_stack[0::2]))])

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
        owner = owner_block(value)
        return any(owner is b for b in self.block_stack)

    def unique_name(self, name: str) -> str:
        base, n = name, 0
        while name in self.used_names:
            n += 1
            name = f"{base}_{n}"
        self.used_names.add(name)
        return name

    # -- storages and views ------------------------------------------------------

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

    # -- building aten ops -------------------------------------------------------

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

    def _build(self, cls: type[AtenOp], args: Sequence[object], kwargs: Mapping[str, Any]) -> AtenOp:
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
        cast_args = op_registry.CAST_ARGUMENTS.get(cls.name, frozenset())
        return {
            k: v for k, v in bound.items()
            if k in given and k not in ("condition", "mask") and k not in cast_args and (
                (isinstance(v, SSAValue) and isinstance(v.type, TensorType)) or is_number(v)
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

    # -- describing values -------------------------------------------------------

    def describe(self, value: LV) -> str:
        if isinstance(value, TensorRef):
            return f"a tensor of type {self.value_of(value).type}"
        if isinstance(value, TensorScalar):
            return f"{with_article(value.kind)} computed from tensor data"
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

    def hashable(self, key: LV) -> object:
        if isinstance(key, str | int | float | bool | Device) or key is None:
            return key
        raise self.fail(f"a dict key must be a known str, int, float or bool, got {self.describe(key)}")


