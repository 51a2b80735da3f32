"""Running TorchScript blocks over abstract values: constants, `prim.If` (the branch
taken when the condition is known, `exir.cond` when it depends on tensor
data), `prim.Loop` (unrolled when its trip count is known), containers,
module attributes (`GetAttr`/`SetAttr`), method and function calls (inlined),
subgraph groups and the executor's guards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FloatAttr, IntegerAttr, IntegerType, NoneAttr, StringAttr
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue

from xdsl_exir.dialects import prim, ts
from xdsl_exir.dialects.aten import AtenOp, aten_op_class
from xdsl_exir.dialects.exir import CondOp, DType, OutputOp, TensorType
from xdsl_exir.transforms.torchscript_to_exir.node_handlers import walk_values
from xdsl_exir.transforms.torchscript_to_exir.nodes import NodeLowering
from xdsl_exir.transforms.torchscript_to_exir.storage import UNROLL_BUDGET
from xdsl_exir.transforms.torchscript_to_exir.values import (
    UNINITIALIZED,
    Detached,
    Device,
    FuncRef,
    Future,
    GradMode,
    ModRef,
    SymScalar,
    TensorRef,
    TensorScalar,
    TSList,
    getitem,
    same_constant,
    sanitize,
    scalar_kind,
    with_article,
)
from xdsl_exir.utils.diagnostics import op_title
from xdsl_exir.utils.ts_builtins import ts_str

if TYPE_CHECKING:
    from xdsl_exir.transforms.torchscript_to_exir.values import LV, Storage


@dataclass
class _Branch:
    """What one branch of a tensor-dependent `prim.If` produced."""

    block: Block
    results: list[tuple[str, object]]
    storages: dict[Storage, SSAValue]
    slots: dict[tuple[ts.ScriptModuleOp, str], SSAValue]
    rebound: set[tuple[ts.ScriptModuleOp, str]]


class Lowering(NodeLowering):
    """Runs TorchScript blocks: constants, control flow (inlined when the
    condition is known, `exir.cond` when it depends on tensor data, loops
    unrolled), containers, module attributes and calls (inlined), and the
    other prim ops.
    """

    # -- running TorchScript -----------------------------------------------------

    def run_block(self, block: Block, args: Sequence[LV]) -> list[LV]:
        for arg, value in zip(block.args, args, strict=True):
            self.env[arg] = value
        for op in block.ops:
            if isinstance(op, prim.ReturnOp):
                return [self.env[v] for v in op.operands]
            self.current = op
            self.lower_op(op)
        raise self.fail("block does not end with prim::Return")

    def bind(self, op: Operation, values: Sequence[LV]) -> None:
        if len(values) != len(op.results):
            raise self.fail(f"{op_title(op)} produced {len(values)} values for {len(op.results)} results")
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
                raise self.fail(f"cannot lower '{op_title(op)}' to Export IR")
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
                value.name_hint = sanitize(r.name_hint, "v")

    # -- constants ---------------------------------------------------------------

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

    # -- control flow ------------------------------------------------------------

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
        """
        A `prim.If` on tensor data: `exir.cond`, with mutations merged into its results.

        Each branch runs from the same state into a block of its own (`_run_branch`). The
        If's results (`_plan_results`), then the storages either branch wrote and the slots
        either rebound (`_yield_state`), are what both branches yield; after the cond, its
        results stand for them (`_bind_cond_results`).
        """
        snapshot = {s: (s.value, s.version) for s in self.storages}
        slot_snapshot = dict(self.slots)
        branches = [self._run_branch(region, snapshot, slot_snapshot) for region in op.regions]
        self.current = op
        t_branch, f_branch = branches
        yields: tuple[list[SSAValue], list[SSAValue]] = ([], [])
        plan = self._plan_results(t_branch, f_branch, yields)
        storage_list, slot_keys = self._yield_state(branches, snapshot, slot_snapshot, yields)
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
        self.bind(op, self._bind_cond_results(plan, results, storage_list, slot_keys))

    def _run_branch(
        self,
        region: Region,
        snapshot: dict[Storage, tuple[SSAValue, int]],
        slot_snapshot: dict[tuple[ts.ScriptModuleOp, str], LV],
    ) -> _Branch:
        """One branch of a tensor-dependent If, run into a block of its own; the state is restored after it."""
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
        return _Branch(block, results, storages, slots, rebound)

    def _plan_results(
        self, t_branch: _Branch, f_branch: _Branch, yields: tuple[list[SSAValue], list[SSAValue]]
    ) -> list[tuple[str, object]]:
        """
        The If's results: tensors become cond results (appended to `yields`), equal
        constants stay constants. Each entry is `("const", value)` or the kind of a
        result and its index among the cond's results.
        """
        plan: list[tuple[str, object]] = []
        for (tk, tv), (fk, fv) in zip(t_branch.results, f_branch.results):
            if tk == "const" and fk == "const" and (same_constant(tv, fv) or UNINITIALIZED in (tv, fv)):
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
        return plan

    def _yield_state(
        self,
        branches: list[_Branch],
        snapshot: dict[Storage, tuple[SSAValue, int]],
        slot_snapshot: dict[tuple[ts.ScriptModuleOp, str], LV],
        yields: tuple[list[SSAValue], list[SSAValue]],
    ) -> tuple[list[Storage], list[tuple[ts.ScriptModuleOp, str]]]:
        """
        Append to `yields` each storage either branch wrote (the untouched value on the
        other side) and each slot either branch rebound; returns those storages and slots.
        """
        t_branch, f_branch = branches
        storage_list = [s for s in snapshot if s in t_branch.storages or s in f_branch.storages]
        for s in storage_list:
            yields[0].append(t_branch.storages.get(s, snapshot[s][0]))
            yields[1].append(f_branch.storages.get(s, snapshot[s][0]))
        rebound = t_branch.rebound | f_branch.rebound
        slot_keys = [k for k in slot_snapshot if k in rebound]
        for k in slot_keys:
            for i, b in enumerate(branches):
                yields[i].append(b.slots[k])
        return storage_list, slot_keys

    def _bind_cond_results(
        self,
        plan: list[tuple[str, object]],
        results: list[OpResult],
        storage_list: list[Storage],
        slot_keys: list[tuple[ts.ScriptModuleOp, str]],
    ) -> list[LV]:
        """
        The If's values after the cond (by `plan`); the storages and slots the
        branches changed take the cond's results that follow them.
        """
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
        return values

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
                kinds = {scalar_kind(value), scalar_kind(other)}
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
        return with_article(kind.split(":")[1]) + " computed from tensor data"

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
            isinstance(v, TensorRef | TensorScalar | SymScalar) for v in walk_values(value)
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
                    f"(at most {UNROLL_BUDGET}) to unroll it"
                )
            self.unrolled += 1
            if self.unrolled > UNROLL_BUDGET:
                raise self.fail(
                    f"the program's loops unroll to more than {UNROLL_BUDGET} iterations in all (nested "
                    "loops multiply their trip counts); Export IR holds the unrolled graph, which would be "
                    "too large"
                )
            outs = self.run_block(body, [i, *carried])
            self.current = op
            cond, carried = outs[0], list(outs[1:])
            i += 1
        self.bind(op, carried)

    # -- containers --------------------------------------------------------------

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
        self.bind(op, [getitem(tup, index)])

    def lower_dict_construct(self, op: Operation, args: list[LV]) -> None:
        d: dict[object, object] = {}
        for k, v in zip(args[::2], args[1::2]):
            d[self.hashable(k)] = v
        self.bind(op, [d])

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

    # -- modules and calls -------------------------------------------------------

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

    # -- other prim ops ----------------------------------------------------------

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


# ---------------------------------------------------------------------------
_PRIM_HANDLERS: dict[type[Operation], Callable[[Lowering, Any, list[LV]], None]] = {
    prim.ConstantOp: Lowering.lower_constant,
    prim.IfOp: Lowering.lower_if,
    prim.LoopOp: Lowering.lower_loop,
    prim.ListConstructOp: Lowering.lower_list_construct,
    prim.ListUnpackOp: Lowering.lower_list_unpack,
    prim.TupleConstructOp: Lowering.lower_tuple_construct,
    prim.TupleUnpackOp: Lowering.lower_tuple_unpack,
    prim.TupleIndexOp: Lowering.lower_tuple_index,
    prim.DictConstructOp: Lowering.lower_dict_construct,
    prim.GetAttrOp: Lowering.lower_get_attr,
    prim.SetAttrOp: Lowering.lower_set_attr,
    prim.CallMethodOp: Lowering.lower_call_method,
    prim.CallFunctionOp: Lowering.lower_call_function,
    prim.ConstantChunkOp: Lowering.lower_constant_chunk,
    prim.FusionGroupOp: Lowering.lower_subgraph,
    prim.DifferentiableGraphOp: Lowering.lower_subgraph,
    prim.TensorExprGroupOp: Lowering.lower_subgraph,
    prim.ForkOp: Lowering.lower_subgraph,
    prim.TypeCheckOp: Lowering.lower_type_check,
    prim.GuardOp: Lowering.lower_identity,
    prim.ProfileOp: Lowering.lower_identity,
    prim.BailOutOp: Lowering.lower_identity,
    prim.RaiseExceptionOp: Lowering.lower_raise,
    prim.UninitializedOp: Lowering.lower_uninitialized,
    prim.EnterOp: Lowering.lower_enter,
    prim.ExitOp: Lowering.lower_enter,
    prim.WithOp: Lowering.lower_enter,
    prim.StoreOp: Lowering.lower_unsupported,
    prim.LoadOp: Lowering.lower_unsupported,
    prim.LoopContinuationOp: Lowering.lower_unsupported,
    prim.ReturnStmtOp: Lowering.lower_unsupported,
    prim.BreakStmtOp: Lowering.lower_unsupported,
    prim.ContinueStmtOp: Lowering.lower_unsupported,
}


# ---------------------------------------------------------------------------
