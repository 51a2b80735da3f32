"""
`constant-propagation`: evaluate ops whose inputs are all constants, at compile
time, with the interpreter's own numpy kernels (so folding cannot disagree
with running).

* Export IR: an aten op whose tensor operands are all constants (placeholders
  of `constant_tensor` state, or results folded before) is run with
  `aten_kernels.run_kernel`; each tensor result becomes a new `exir.state`
  constant with a `constant_tensor` placeholder in the signature, as
  torch.export lifts constants.
* TorchScript IR: a `ts.node` whose operands are all `prim.Constant`s (numbers,
  strings, lists, tensors) is run through the interpreter's node compiler and
  replaced by a `prim.Constant` (`#ts.tensor_value` for tensors).

Only functional, deterministic operators fold: the schema must have no alias
annotation (no writes, no views, so no identity is lost) and the operator must
not be tagged `nondeterministic_seeded` (`rand`, `dropout`, ...). A folded
tensor larger than `max-elements` is left to run time, which keeps the IR small.

The pass runs the interpreter (its kernels, its node compiler, its state
loading), which sits below the passes, as xDSL's constant folding pass runs
xDSL's interpreter.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntegerAttr, ModuleOp, StringAttr, f64, i1, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import PassFailedException

from xdsl_exir.analysis.alias_db import AliasDb
from xdsl_exir.analysis.overload_resolution import ResolvedNode, resolve_node
from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import DType, InputKind, InputSpecAttr, ProgramOp, TensorType
from xdsl_exir.dialects.prim import ConstantOp
from xdsl_exir.dialects.ts import SCALAR_TYPE_OF, NodeOp, TensorValueAttr, TSListType, TSTensorType
from xdsl_exir.interpreters.program import load_state
from xdsl_exir.interpreters.ts_functions import TSCompileContext, compile_node, constant_value
from xdsl_exir.semantics.kernels import has_kernel, run_kernel
from xdsl_exir.transforms.canonicalization_patterns.prim import constant_of
from xdsl_exir.transforms.program_state import add_state_input, remove_state_input
from xdsl_exir.utils.op_registry import lookup

_UNFOLDABLE_TAGS = frozenset({"dynamic_output_shape"})


def is_foldable_operator(name: str) -> bool:
    """Functional, deterministic and with static output shape (per the schema and its tags)."""
    entry = lookup(name)
    if entry is None or entry.nondeterministic or entry.tags & _UNFOLDABLE_TAGS:
        return False
    schema = entry.schema
    return schema.is_functional and not schema.is_mutable


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


# ---------------------------------------------------------------------------
# Export IR
# ---------------------------------------------------------------------------


def _fold_program(program: ProgramOp, max_elements: int) -> None:
    graph = program.entry
    if graph is None:
        return
    state = load_state(program)
    known: dict[SSAValue, np.ndarray] = {}
    for arg, spec in zip(graph.body.block.args, program.inputs.data):
        if spec.input_kind is InputKind.constant_tensor and spec.target_name in state:
            known[arg] = state[cast(str, spec.target_name)]
    names = set(program.state())
    counter = itertools.count()
    created: set[SSAValue] = set()
    rewriter = Rewriter()
    for op in list(graph.body.block.ops):
        if not isinstance(op, AtenOp) or not op.operands or any(v not in known for v in op.operands):
            continue
        if not all(isinstance(r.type, TensorType) and r.type.is_static for r in op.results):
            continue
        if not is_foldable_operator(op.name) or not has_kernel(op.name):
            continue
        if any(_numel(cast(tuple[int, ...], r.type.sizes)) > max_elements for r in op.results):  # pyright: ignore[reportAttributeAccessIssue] - foldable aten ops return tensors
            continue
        env = {v: known[v] for v in op.operands}

        def value_of(a: object) -> object:
            if isinstance(a, SSAValue):
                return env[a]
            if isinstance(a, list):
                return [value_of(x) for x in a]
            return a

        args = [value_of(a) for a in op.get_args()]
        kwargs = {k: value_of(v) for k, v in op.get_kwargs().items()}
        dtypes = [cast(TensorType, r.type).element_dtype for r in op.results]
        try:
            out = run_kernel(op.name, args, kwargs, dtypes)
        except Exception:  # a kernel refusing constant inputs: leave the op to run time
            continue
        outs = list(out) if isinstance(out, tuple | list) else [out]
        if len(outs) != len(op.results):
            continue
        new_values: list[SSAValue] = []
        first_user = _first_user_input(program.inputs.data)
        for r, value in zip(op.results, outs):
            t = cast(TensorType, r.type)
            arr = np.asarray(value).reshape(cast(tuple[int, ...], t.sizes))
            while (name := f"_folded_constant{next(counter)}") in names:
                pass
            names.add(name)
            arg = add_state_input(program, graph, name, InputKind.constant_tensor, t, arr, first_user, f"c{name}")
            first_user += 1
            known[arg] = arr
            created.add(arg)
            new_values.append(arg)
        rewriter.replace_op(op, [], new_values)
    # intermediate folds nobody reads any more leave with their state
    for arg in reversed(graph.body.block.args):
        if not arg.uses and arg in created:
            remove_state_input(program, graph, arg)


def _first_user_input(specs: Sequence[InputSpecAttr]) -> int:
    """Lifted constants go after parameters, buffers and constants, before user inputs."""
    for i, s in enumerate(specs):
        if s.input_kind not in (InputKind.parameter, InputKind.buffer, InputKind.constant_tensor):
            return i
    return len(specs)


# ---------------------------------------------------------------------------
# TorchScript IR
# ---------------------------------------------------------------------------


def _constant_attr(value: object, t: Attribute, max_elements: int) -> Attribute | None:
    """The `prim.Constant` value for a Python value of TorchScript type `t`, if representable."""
    if isinstance(value, bool):
        return IntegerAttr(int(value), i1)
    if isinstance(value, int):
        return IntegerAttr(value, i64) if -(2**63) <= value < 2**63 else None
    if isinstance(value, float):
        return FloatAttr(value, f64)
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, np.ndarray) and isinstance(t, TSTensorType):
        if value.size > max_elements:
            return None
        dtype = DType(str(value.dtype)) if str(value.dtype) in DType.__members__.values() else None
        scalar = SCALAR_TYPE_OF.get(dtype) if dtype is not None else None
        if scalar is None:
            return None
        return TensorValueAttr.from_array(value, scalar)
    if isinstance(value, list) and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
        elems = [_constant_attr(v, t, max_elements) for v in value]
        if all(e is not None for e in elems) and len({type(v) for v in value}) <= 1:
            return ArrayAttr(cast(list[Attribute], elems))
    return None


def _fold_torchscript(root: Operation, max_elements: int) -> None:
    rewriter = Rewriter()
    for op in list(root.walk()):
        if not isinstance(op, NodeOp) or op.regions or not op.results or op.namespace not in ("aten", "prim"):
            continue
        consts = [constant_of(v) for v in op.operands]
        if any(c is None or _may_be_mutated(c.results[0]) for c in consts):
            continue
        try:
            resolved = resolve_node(op.kind.data, [v.type for v in op.operands])
        except Exception:
            continue
        if not is_foldable_operator(resolved.name) and not _is_pure_builtin(resolved):
            continue
        try:
            call = compile_node(op, TSCompileContext({}, {}))
            values = [constant_value(cast(ConstantOp, c).value, c.results[0].type) for c in consts]  # pyright: ignore[reportOptionalMemberAccess] - consts holds the defining ops, all constants (checked above)
            results = call(*values)
        except Exception:  # raises at run time (e.g. a failing check): keep it there
            continue
        attrs = [_constant_attr(v, r.type, max_elements) for v, r in zip(results, op.results)]
        if len(results) != len(op.results) or any(a is None for a in attrs):
            continue
        new_ops = [
            ConstantOp.make(result_types=[r.type], properties={"value": a}) for a, r in zip(attrs, op.results)
        ]
        rewriter.replace_op(op, new_ops, [n.results[0] for n in new_ops])


def _may_be_mutated(value: SSAValue) -> bool:
    """
    A tensor or list constant is one object for every run: if any node may
    write it (through views, calls, loops and block outputs too), reading it
    is not constant. The alias analysis of the graph holding it answers.
    """
    if not isinstance(value.type, TSListType | TSTensorType):
        return False
    owner = value.owner
    db = AliasDb.of_graph(owner) if isinstance(owner, Operation) else None
    return db is None or db.has_writers(value)


def _is_pure_builtin(resolved: ResolvedNode) -> bool:
    """TorchScript builtins on numbers and strings (`aten::add.int`) have no aten entry's tags but are pure."""
    schema = resolved.schema
    return schema.is_functional and not schema.is_mutable and not any(
        a.type.name == "Tensor" for a in schema.arguments if hasattr(a.type, "name")
    )


@dataclass(frozen=True)
class ConstantPropagationPass(ModulePass):
    """Fold ops whose inputs are all constants (see the module docstring)."""

    name = "constant-propagation"

    max_elements: int = 65536
    """Largest tensor (in elements) a fold may create."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.max_elements < 0:
            raise PassFailedException(
                f"constant-propagation: max-elements must be >= 0, got {self.max_elements}"
            )
        for program in [o for o in op.walk() if isinstance(o, ProgramOp)]:
            _fold_program(program, self.max_elements)
        _fold_torchscript(op, self.max_elements)
