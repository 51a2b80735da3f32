"""
`constant-pooling` (TorchScript's `_jit_pass_constant_pooling`): identical
constants become one.

* TorchScript IR: the `prim.Constant`s of a method (nested blocks included)
  with equal value and type are merged into one, hoisted to the start of the
  method's graph. Values are equal as torch compares them (`==`): `-0.` and
  `0.` are one constant, a `nan` equals nothing. Tensor and list constants
  are objects: two of them are merged only if the method's alias analysis
  finds no node that may write either.
* Export IR: `constant_tensor` state of equal type and data is merged; the
  duplicate's placeholder, signature entry and `exir.state` go away.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, FloatAttr, FunctionType, ModuleOp
from xdsl.ir import Attribute, BlockArgument, Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsolatedFromAbove

from xdsl_exir.analysis.alias_db import AliasDb
from xdsl_exir.dialects.exir import InputKind, ProgramOp
from xdsl_exir.dialects.prim import ConstantOp
from xdsl_exir.dialects.ts import MethodOp, TSListType, TSTensorType

__all__ = ["ConstantPoolingPass", "pool_constants"]


def pool_constants(method: Operation) -> None:
    """
    Pool the `prim.Constant`s of one method (see the module docstring); the
    script frontend runs this as torch.jit.script runs `ConstantPooling`.
    """
    block = method.regions[0].block
    pool: dict[tuple[object, Attribute | None, Attribute], ConstantOp] = {}
    rewriter = Rewriter()
    hoisted: list[ConstantOp] = []
    # Merging constants that nothing writes adds no writer, so one analysis serves the whole walk.
    db: AliasDb | None = None
    for op in list(_walk_same_scope(method)):
        if not isinstance(op, ConstantOp):
            continue
        t = op.results[0].type
        if isinstance(t, TSTensorType | TSListType):
            db = db or AliasDb(method)
            if db.has_writers(op.results[0]):
                continue
        key = (_equality_key(op.value), op.fn_name, t)
        first = pool.get(key)
        if first is None:
            pool[key] = op
            hoisted.append(op)
            continue
        rewriter.replace_op(op, [], [first.results[0]])
    # hoist in first-seen order, so the pooled constants dominate every use
    for op in reversed(hoisted):
        if op.parent_block() is block and block.first_op is op:
            continue
        op.detach()
        Rewriter.insert_op(op, InsertPoint.at_start(block))


class _Unequal:
    """A key equal to nothing but itself: a `nan` constant pools with no other."""


def _equality_key(value: Attribute | None) -> object:
    """The value as torch's `==` compares constants: `-0.` is `0.`, `nan` equals nothing."""
    if isinstance(value, FloatAttr):
        v = value.value.data
        if math.isnan(v):
            return _Unequal()
        return FloatAttr(0.0, value.type) if v == 0.0 else value
    if isinstance(value, ArrayAttr):
        return tuple(_equality_key(cast(Attribute, v)) for v in value.data)
    return value


def _walk_same_scope(root: Operation) -> Iterator[Operation]:
    """The ops under `root`, not entering isolated regions (a FusionGroup's subgraph)."""
    for region in root.regions:
        for block in region.blocks:
            for op in block.ops:
                yield op
                if not op.has_trait(IsolatedFromAbove):
                    yield from _walk_same_scope(op)


def _pool_program(program: ProgramOp) -> None:
    graph = program.entry
    if graph is None:
        return
    specs = list(program.inputs.data)
    state = program.state()
    seen: dict[tuple[Attribute, Attribute], BlockArgument] = {}
    rewriter = Rewriter()
    for arg in list(graph.body.block.args):
        spec = specs[arg.index]
        if spec.input_kind is not InputKind.constant_tensor:
            continue
        st = state.get(cast(str, spec.target_name))
        if st is None or st.value is None:
            continue
        key = (st.state_type, st.value)
        first = seen.get(key)
        if first is None:
            seen[key] = arg
            continue
        arg.replace_all_uses_with(first)
    for arg in reversed(graph.body.block.args):
        spec = specs[arg.index]
        if spec.input_kind is InputKind.constant_tensor and not arg.uses and arg not in seen.values():
            name = cast(str, spec.target_name)
            # the state may be shared with a kept placeholder: only drop it when nothing else names it
            specs.pop(arg.index)
            graph.body.block.erase_arg(arg)
            if all(s.target_name != name for s in specs) and name in state:
                rewriter.erase_op(state[name])
    program.properties["inputs"] = ArrayAttr(specs)
    graph.properties["function_type"] = FunctionType.from_lists(
        [a.type for a in graph.body.block.args], list(graph.function_type.outputs.data)
    )


@dataclass(frozen=True)
class ConstantPoolingPass(ModulePass):
    """Merge identical constants and hoist them (see the module docstring)."""

    name = "constant-pooling"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in list(op.walk()):
            if isinstance(o, MethodOp):
                pool_constants(o)
            elif isinstance(o, ProgramOp):
                _pool_program(o)
