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
lowering. That one mechanism gives every step:

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

The package follows the lowering's parts: `values` (the abstract values:
tensors as views of storages, scalars, containers, module and function
references), `options` (the option languages), the lowering of one program
layered over `storage.LoweringBase` (state, emission, storages and views,
aten ops with explicit promotion), `nodes.NodeLowering` (`ts.node`s, with the
special kinds of `node_handlers`) and `prims.Lowering` (blocks, control flow,
containers, calls), then `entry` (entry method, state, signature). This
module holds the pass.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xdsl_exir.dialects import ts
from xdsl_exir.transforms.torchscript_to_exir.entry import lower_torchscript
from xdsl_exir.transforms.torchscript_to_exir.errors import TorchScriptLoweringError
from xdsl_exir.transforms.torchscript_to_exir.options import parse_input_values
from xdsl_exir.transforms.torchscript_to_exir.storage import UNROLL_BUDGET
from xdsl_exir.transforms.verify_export_ir import VerifyExportIRPass

__all__ = [
    "TorchScriptLoweringError",
    "TorchScriptToExirPass",
    "lower_torchscript",
    "parse_input_values",
]



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
    """The most iterations a loop is unrolled to (at most `UNROLL_BUDGET`, which also bounds all loops together)."""

    def __post_init__(self) -> None:
        if not 0 <= self.max_unroll <= UNROLL_BUDGET:
            raise ValueError(f"max-unroll must be between 0 and {UNROLL_BUDGET}, got {self.max_unroll}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        program = lower_torchscript(op, self.entry, self.input_types, self.input_values, self.ranges, self.max_unroll)
        for child in list(op.ops):
            if isinstance(child, ts.ScriptModuleOp | ts.MethodOp):
                child.detach()
                child.erase(drop_references=True)
        op.body.block.add_op(program)
        program.verify()
        VerifyExportIRPass().verify_program(program)
