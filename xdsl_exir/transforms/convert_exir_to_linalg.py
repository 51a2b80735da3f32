"""
`convert-exir-to-linalg`: lower a core-ATen `exir.program` to upstream MLIR
dialects (func, arith, math, tensor, linalg, scf), the form every MLIR compiler
consumes and IREE compiles to native code.

Each program becomes `func.func @forward` (its other graphs are only reachable
through higher-order ops, which are inlined as regions). The calling
convention, which `exir-run --backend iree` maps back to the npz contract:

- arguments: the entry graph's placeholders that change between calls, in
  signature order: user inputs and the buffers some `buffer_mutation` output
  writes. Each argument carries `{exir.kind = "user_input" | "buffer",
  exir.name = ...}` (a buffer's name is its state target).
- parameters, constant tensors and buffers nothing writes are constants in the
  body: `arith.constant dense_resource<name>` with the bytes in the module's
  `dialect_resources` section (MLIR's standard blob form; IREE reads it).
  A blob must hold exactly the bytes its type says (else a diagnostic at its
  `exir.state`). bfloat16 blobs are `tensor<...xi16>` bit patterns turned
  back into bf16 by a tensor `arith.bitcast` (IREE cannot demote a bf16
  `dense_resource` for CPUs without bf16 arithmetic); bf16 and f16 arguments
  and results are passed as they are (IREE's runtime takes ml_dtypes arrays).
- with `parameters-from-bytes=N` (N >= 0; the IREE backend's default is 64 KiB),
  a weight of at least N bytes (and more than one element) is not embedded:
  it becomes an IREE named parameter, `ml_program.global private @param.<name>
  (#stream.parameter.named<"model"::"<name>"> : tensor<...>)` read by
  `ml_program.global_load_const`, which IREE reads at run time from the
  parameter provider the caller registers (`targets/iree.py` hands it the
  program's own, memory-mapped weights). The key is the state's name;
  `parameter-scope` names the scope.
- results: every `exir.output` operand, in signature order: buffer mutations,
  user-input mutations, then user outputs, each with `{exir.kind = ...,
  exir.name = ...}`. The caller feeds a returned buffer back in on the next call.
- scalars: SymInt and int inputs and outputs are 0-d `tensor<i64>`, floats
  `tensor<f64>`, bools `tensor<i1>` (IREE's runtime passes tensors, not scalars).

Sizes stay dynamic: a symbolic size is a `?` dimension whose value is read with
`tensor.dim` and combined with `arith` (see `linalg_lowering/state.py`). Range
constraints are checked by the caller before the call (IREE has no portable
upstream assertion op to carry them).

The per-operator rules live in `linalg_lowering/` (one per overload, by
family). Both spellings of an ATen call lower alike: the generic
`exir.call_function "aten.mm.default"(...)` (what `import_graph_module`,
joint forward/backward graphs and to-core-aten's untouched core ops hold) is
first rewritten, in a copy of the program, into the named op by the aten
dialect's own conversion (`aten.from_call_function`), so one rule serves
both; a multi-result operator, in the generic form one call with an
`!exir.tuple` result read by `exir.getitem`s, becomes the named op with one
result per element. A core operator without a rule of its own but with a
decomposition (the backward operators of training graphs:
`convolution_backward`, `max_pool2d_with_indices_backward`; and the
functional batch norm torch's core IR keeps) is then replaced by its
decomposition, in the same copy. Targets resolve as the interpreter resolves them
(`op_registry.lookup`): `aten.relu.default`, `aten::relu`,
`torch.ops.aten.relu.default`, never an overload-less packet. An op without a rule stops the pass with a diagnostic that names it and
where it is, and says what to do: an op outside core ATen needs `to-core-aten`
first; a core op without a rule is listed in `docs/linalg_lowering.md`. The
module is only changed when the whole program lowered.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from xdsl.context import Context
from xdsl.dialects import arith, func, scf, tensor
from xdsl.dialects.builtin import (
    ArrayAttr,
    Builtin,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    DictionaryAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    f64,
    i1,
    i16,
    i64,
)
from xdsl.dialects.builtin import (
    TensorType as BuiltinTensorType,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.rewriter import InsertPoint, Rewriter

from xdsl_exir.dialects.aten import AtenOp, aten_op_class, from_call_function
from xdsl_exir.dialects.exir import (
    AssertScalarOp,
    BoolType,
    CallFunctionOp,
    CondOp,
    ConstantOp,
    DenseBlobAttr,
    DType,
    FloatType,
    GetItemOp,
    GraphOp,
    InputKind,
    IntType,
    MapOp,
    OutputKind,
    OutputOp,
    ProgramOp,
    ResourceBlobAttr,
    StateOp,
    SymArithOp,
    SymBoolType,
    SymFloatType,
    SymIntType,
    SymNumelOp,
    SymSizeOp,
    TensorType,
    TupleType,
    WhileLoopOp,
    blob_data,
)
from xdsl_exir.dialects.fx import GetAttrOp as FxGetAttrOp
from xdsl_exir.semantics.decompositions import RULES as DECOMPOSITIONS
from xdsl_exir.semantics.decompositions import default_legal_ops
from xdsl_exir.semantics.decompositions.pattern import DecomposePattern
from xdsl_exir.semantics.inference import InferenceError
from xdsl_exir.transforms.linalg_lowering import lowered_overloads, refusal_for, rule_for
from xdsl_exir.transforms.linalg_lowering.state import (
    LoweringError,
    LoweringState,
    element_type,
    tensor_type,
)
from xdsl_exir.utils.diagnostics import ExirDiagnostic
from xdsl_exir.utils.dtypes import LOW_PRECISION
from xdsl_exir.utils.mlir_parser import declare_blob
from xdsl_exir.utils.op_registry import CORE_IR_EXTRAS, lookup
from xdsl_exir.utils.symbolic import sympy
from xdsl_exir.utils.tensor_data import TensorDataError, array_from_bytes

_NO_OPS = frozenset({"aten._assert_tensor_metadata.default", "aten._assert_async.msg", "aten.sym_constrain_range_for_size.default", "aten.sym_constrain_range.default"})
"""Checks torch.export records that have nothing to compute (the runner checks inputs)."""


def _scalar_type(t: Attribute) -> Attribute | None:
    """The element type a SymInt/int, float or bool travels as (in a 0-d tensor)."""
    if isinstance(t, SymIntType | IntType):
        return i64
    if isinstance(t, SymFloatType | FloatType):
        return f64
    if isinstance(t, SymBoolType | BoolType):
        return i1
    return None


def function_arguments(program: ProgramOp) -> list[int]:
    """
    The placeholders (by position) that become `@forward`'s arguments, in order:
    user inputs and the buffers a `buffer_mutation` output writes. The one rule
    both the lowering and every caller of the lowered function use.
    """
    mutated = {s.target_name for s in program.outputs.data if s.output_kind is OutputKind.buffer_mutation}
    return [
        i
        for i, spec in enumerate(program.inputs.data)
        if spec.input_kind is InputKind.user_input
        or (spec.input_kind is InputKind.buffer and spec.target_name in mutated)
    ]


class _ProgramLowering:
    """Lowers one program; nothing is attached to the module until it all worked."""

    def __init__(self, program: ProgramOp, parameters_from_bytes: int = -1, parameter_scope: str = "model") -> None:
        self.program = program
        entry = program.entry
        if entry is None:
            raise ExirDiagnostic(program, "the program has no @forward graph")
        self.entry: GraphOp = entry
        self.parameters_from_bytes = parameters_from_bytes
        self.parameter_scope = parameter_scope
        self.globals: list[Operation] = []
        """The named parameters' globals, which go into the module beside `@forward`."""

    def lower(self) -> func.FuncOp:
        try:
            return self._lower()
        except LoweringError as e:  # raised outside an op (arguments, constants, results)
            raise ExirDiagnostic(e.op or self.program, f"convert-exir-to-linalg: {e}") from None

    def _lower(self) -> func.FuncOp:
        program, entry = self.program, self.entry
        state_ops = program.state()
        arguments = set(function_arguments(program))
        block = Block()
        st = LoweringState(block)
        arg_attrs: list[DictionaryAttr] = []
        placeholders = entry.body.block.args
        specs = program.inputs.data
        if len(specs) != len(placeholders):
            raise ExirDiagnostic(program, "the signature and the @forward placeholders differ in number")
        constants: list[tuple[SSAValue, StateOp]] = []
        for i, (spec, ph) in enumerate(zip(specs, placeholders)):
            kind = spec.input_kind
            target = spec.target_name
            if i in arguments:
                if isinstance(ph.type, TensorType):
                    _check_dtype(ph.type, f"input '{spec.arg_name.data}'", program)
                scalar = _scalar_type(ph.type)
                arg_type = tensor_type(ph.type) if isinstance(ph.type, TensorType) else (
                    None if scalar is None else BuiltinTensorType(scalar, [])
                )
                if arg_type is None:
                    raise ExirDiagnostic(program, f"input '{spec.arg_name.data}' of type {ph.type} has no upstream form")
                arg = block.insert_arg(arg_type, len(block.args))
                arg.name_hint = spec.arg_name.data
                name = spec.arg_name.data if kind is InputKind.user_input else cast(str, target)
                arg_attrs.append(DictionaryAttr({"exir.kind": StringAttr(str(kind)), "exir.name": StringAttr(name)}))
                self._bind_argument(st, ph, arg)
            elif kind in (InputKind.parameter, InputKind.buffer, InputKind.constant_tensor):
                state = state_ops.get(cast(str, target))
                if state is None or state.value is None:
                    raise ExirDiagnostic(program, f"state @{target} has no data to embed")
                constants.append((ph, state))
            else:
                raise ExirDiagnostic(program, f"input '{spec.arg_name.data}' of kind {kind} cannot be lowered")
        for ph, state in constants:
            st.values[ph] = self._constant(st, ph, state)
        results = self._lower_block(st, entry.body.block)
        for spec, v in zip(program.outputs.data, cast(OutputOp, entry.body.block.last_op).operands):
            if isinstance(v.type, TensorType):
                _check_dtype(v.type, f"output '{spec.arg_name.data}'", program)
        res_attrs = [
            DictionaryAttr({"exir.kind": StringAttr(str(spec.output_kind)), "exir.name": StringAttr(spec.target_name or spec.arg_name.data)})
            for spec in program.outputs.data
        ]
        returned = [self._returnable(st, v, r) for v, r in zip(cast(OutputOp, entry.body.block.last_op).operands, results)]
        st.insert(func.ReturnOp(*returned))
        fn = func.FuncOp(
            "forward",
            ([a.type for a in block.args], [v.type for v in returned]),
            Region(block),
            arg_attrs=ArrayAttr(arg_attrs),
            res_attrs=ArrayAttr(res_attrs),
        )
        self.globals = list(st.globals.values())
        return fn

    # -- arguments, constants, results ---------------------------------------

    def _bind_argument(self, st: LoweringState, ph: SSAValue, arg: SSAValue) -> None:
        t = ph.type
        if isinstance(t, TensorType):
            st.values[ph] = arg
            st.bind_symbols(arg, t)
            return
        # A scalar arrives as a 0-d tensor: IREE's runtime passes no i64/f64 values.
        value = st.emit(tensor.ExtractOp(arg, [], cast(Attribute, _scalar_type(t))))
        if isinstance(t, SymIntType | IntType):
            idx = st.emit(arith.IndexCastOp(value, IndexType()))
            st.values[ph] = idx
            if isinstance(t, SymIntType):
                st.bind_scalar(t.value, idx)
        else:
            st.values[ph] = value

    def _constant(self, st: LoweringState, ph: SSAValue, state: StateOp) -> SSAValue:
        t = state.state_type
        if not isinstance(t, TensorType) or not t.is_static():
            raise ExirDiagnostic(state, "only tensors of static sizes can be embedded as constants")
        _check_dtype(t, f"state @{state.sym_name.data}", state)
        bt = tensor_type(t)
        value = state.value
        if isinstance(value, DenseBlobAttr | ResourceBlobAttr):
            try:
                # sized as the type says: iree-compile would reject the module ("raw data size
                # does not match"), and an upstream reader would read past the end or ignore the rest
                data = blob_data(value, t)
                if 0 <= self.parameters_from_bytes <= len(data) and t.numel() > 1:
                    # read from IREE's parameter provider at run time, by the state's name, in
                    # its own dtype: bfloat16 too (no data to demote here, unlike the embedded
                    # form below), as an i16 global bitcast to bf16 is a computation on a
                    # constant, which IREE hoists into a bf16 copy of every weight at load time
                    # (a 1.1B bfloat16 model's peak RSS was 2.1 times its weights).
                    const = st.parameter(self.parameter_scope, state.sym_name.data, bt)
                    const.name_hint = ph.name_hint
                    return const
                if t.numel() == 1 and t.element_dtype not in LOW_PRECISION:
                    # One element inline: iree-compile 3.13 crashes folding a single-element
                    # dense_resource ("ElementsAttr does not provide iteration facilities").
                    one = array_from_bytes(data, t.element_dtype, [int(s) for s in t.sizes]).reshape(-1)[0].item()
                    attr: Attribute = DenseIntOrFPElementsAttr.from_list(cast(Any, bt), [one])
                elif t.element_dtype is DType.bfloat16:
                    # bfloat16 weights travel as their int16 bit patterns and are bitcast back:
                    # iree-compile 3.13 cannot demote a bf16 dense_resource for CPUs without
                    # bf16 arithmetic ("'arith.constant' op failed to verify that all of
                    # {value, result} have same type"); an i16 blob it passes through.
                    bits = BuiltinTensorType(i16, bt.get_shape())
                    raw = st.emit(arith.ConstantOp(DenseResourceAttr.from_params(declare_blob(state.sym_name.data, data), bits), bits))
                    const = st.emit(arith.BitcastOp(raw, bt))
                    const.name_hint = ph.name_hint
                    return const
                else:
                    attr = DenseResourceAttr.from_params(declare_blob(state.sym_name.data, data), bt)
            except TensorDataError as e:  # sized wrongly, or left out of the text it was read from
                raise ExirDiagnostic(state, f"state @{state.sym_name.data}: {e}") from None
        elif isinstance(value, DenseIntOrFPElementsAttr):
            if value.get_element_type() != bt.element_type or value.get_shape() != bt.get_shape():
                raise ExirDiagnostic(state, f"state @{state.sym_name.data}: its data {value.type} is not of the state's type {bt}")
            attr = DenseIntOrFPElementsAttr.from_list(cast(Any, bt), list(value.get_values()))
        else:
            raise ExirDiagnostic(state, f"state data {value} cannot be embedded")
        const = st.emit(arith.ConstantOp(cast(Any, attr), bt))
        const.name_hint = ph.name_hint
        return const

    def _returnable(self, st: LoweringState, value: SSAValue, lowered: object) -> SSAValue:
        """A result value; scalars leave as 0-d tensors, as they arrive."""
        if isinstance(value.type, TensorType):
            return cast(SSAValue, lowered)
        el = _scalar_type(value.type)
        if el is None:
            raise ExirDiagnostic(self.program, f"output {value.name_hint} of type {value.type} cannot be returned")
        if isinstance(lowered, SSAValue):
            scalar = st.emit(arith.IndexCastOp(lowered, i64)) if isinstance(lowered.type, IndexType) else lowered
        elif isinstance(lowered, bool | int | float):
            scalar = st.emit(arith.ConstantOp(cast(Any, _float_or_bool(lowered, el))))
        else:
            raise ExirDiagnostic(self.program, f"output {value.name_hint} of type {value.type} cannot be returned")
        if el == i1:
            # A 0-d `tensor<i1>` by `linalg.fill`: iree-compile 3.13 rejects `tensor.from_elements`
            # of an i1 once it widens i1 tensors to bytes ("operand types match result element type").
            init = st.emit(tensor.EmptyOp([], BuiltinTensorType(i1, [])))
            fill = linalg.FillOp((scalar,), (init,), (init.type,))
            st.insert(fill)
            return fill.results[0]
        return st.emit(tensor.FromElementsOp.create(operands=[scalar], result_types=[BuiltinTensorType(el, [])]))

    # -- ops -----------------------------------------------------------------

    def _lower_block(self, st: LoweringState, block: Block) -> list[object]:
        """Lower a graph or region body; returns the lowered `exir.output` operands."""
        for op in block.ops:
            if isinstance(op, OutputOp):
                return [st.lowered(v) for v in op.operands]
            st.current_op = op
            try:
                self._lower_op(st, op)
            except LoweringError as e:
                raise ExirDiagnostic(e.op or op, f"convert-exir-to-linalg: {e}") from None
            except ExirDiagnostic:
                raise
            except Exception as e:  # a bug of a rule or of the driver: still located, never "internal error"
                what = op.target.data if isinstance(op, CallFunctionOp) else op.name
                raise ExirDiagnostic(
                    op, f"convert-exir-to-linalg failed on {what} ({type(e).__name__}: {e}); please report it"
                ) from e
        raise ExirDiagnostic(self.entry, "a graph region has no exir.output")

    def _lower_op(self, st: LoweringState, op: Operation) -> None:
        label = op.target.data if isinstance(op, CallFunctionOp) else op.name
        for role, values in (("operand", op.operands), ("result", op.results)):
            for v in values:
                if isinstance(v.type, TensorType):
                    _check_dtype(v.type, f"{label}'s {role} %{v.name_hint or '?'}", op)
        if isinstance(op, AtenOp):
            if op.name in _NO_OPS:
                return
            rule = rule_for(op.name)
            if rule is None:
                raise LoweringError(_no_rule(op.name), op)
            try:
                bound = op.bound_arguments()
            except InferenceError as e:
                raise LoweringError(f"{op.name}: {e}", op) from None
            results = rule(st, op, bound)
            if len(results) != len(op.results):
                raise LoweringError(f"{op.name}: the rule made {len(results)} values for {len(op.results)} results", op)
            for r, v in zip(op.results, results):
                st.values[r] = v
                if isinstance(r.type, TensorType) and isinstance(v, SSAValue):
                    st.bind_symbols(v, r.type)
                elif isinstance(r.type, SymIntType) and isinstance(v, SSAValue):
                    st.bind_scalar(r.type.value, v)  # `.item()`'s unbacked u0: later sizes read it
            return
        if isinstance(op, SymSizeOp | SymNumelOp | SymArithOp):
            self._lower_sym(st, op)
            return
        if isinstance(op, GetItemOp):
            container = st.lowered(op.operands[0])
            if not isinstance(container, list):
                raise LoweringError("getitem of a value that is not a list", op)
            st.values[op.results[0]] = cast(list[object], container)[op.index.data]
            return
        if isinstance(op, FxGetAttrOp):
            # a lifted tensor constant or a weight (what an FX graph's get_attr reads):
            # embedded, like a constant_tensor input, when the program holds its data
            name = op.state_name
            state = self.program.state().get(name)
            if state is None or state.value is None:
                raise LoweringError(f"fx.get_attr @{name}: the program holds no data for it to embed", op)
            st.values[op.result] = self._constant(st, op.result, state)
            return
        if isinstance(op, AssertScalarOp):
            return
        if isinstance(op, ConstantOp):
            # A Python constant stays one until it is used; returned, it leaves as a 0-d tensor.
            st.values[op.result] = op.python_value
            return
        if isinstance(op, CondOp):
            self._lower_cond(st, op)
            return
        if isinstance(op, WhileLoopOp):
            self._lower_while(st, op)
            return
        if isinstance(op, MapOp):
            self._lower_map(st, op)
            return
        if isinstance(op, CallFunctionOp):
            # What `_named_form` left: targets that are not ops of the aten dialect.
            entry = lookup(op.target.data)
            if entry is not None and entry.op_name in _NO_OPS:
                return
            if _is_tuple_call(op) and _named_class(op) is not None:
                raise LoweringError(
                    f"{op.target.data}: its tuple result is used other than by exir.getitem; "
                    "only its elements lower (take each with exir.getitem)",
                    op,
                )
            if entry is None and lookup(f"{op.target.data}.default") is not None:
                raise LoweringError(f"{op.target.data} names no overload: write the one meant ({op.target.data}.default, ...)", op)
            if entry is None or not entry.op_name.startswith("aten."):
                raise LoweringError(f"{op.target.data} is not an ATen operator: it has no lowering to linalg", op)
            raise LoweringError(_no_rule(entry.op_name), op)
        raise LoweringError(f"'{op.name}' has no lowering to linalg", op)

    def _lower_sym(self, st: LoweringState, op: Operation) -> None:
        t = op.results[0].type
        expr = t.value if isinstance(t, SymIntType | SymFloatType | SymBoolType) else None
        if isinstance(t, SymIntType) and expr is not None and not expr.free_symbols - st.symbols.keys():
            st.values[op.results[0]] = st.index(expr)
            return
        if isinstance(t, SymBoolType) and expr is not None and expr in (sympy.true, sympy.false):
            st.values[op.results[0]] = st.constant(bool(expr), DType.bool)
            return
        if isinstance(op, SymSizeOp):
            src = st.tensor(op.operands[0])
            v = st.emit(tensor.DimOp(src, st.index(op.dim.data)))
            st.values[op.results[0]] = v
            st.bind_scalar(expr, v)
            return
        if isinstance(op, SymArithOp):
            v = _sym_arith(st, op)
            st.values[op.results[0]] = v
            if isinstance(t, SymIntType):
                st.bind_scalar(expr, v)
            return
        raise LoweringError(f"'{op.name}' computes a symbolic value the lowering cannot express", op)

    def _predicate(self, st: LoweringState, pred: SSAValue) -> SSAValue:
        """An i1 from a 0-d bool tensor or a SymBool."""
        lowered = st.lowered(pred)
        if isinstance(pred.type, TensorType):
            value = st.emit(tensor.ExtractOp(cast(SSAValue, lowered), [], element_type(pred.type.element_dtype)))
            return st.cast(value, pred.type.element_dtype, DType.bool)
        if isinstance(lowered, bool):
            return st.constant(lowered, DType.bool)
        return cast(SSAValue, lowered)

    def _lower_region_into(self, st: LoweringState, region: Region, args: Sequence[object], block: Block) -> list[SSAValue]:
        inner = region.block
        for a, v in zip(inner.args, args):
            st.values[a] = v
        with st.at_block(block):
            results = self._lower_block(st, inner)
            return [self._as_value(st, r) for r in results]

    def _as_value(self, st: LoweringState, v: object) -> SSAValue:
        if isinstance(v, SSAValue):
            return v
        raise LoweringError(f"a region yields {v!r}, which is not a value")

    def _lower_cond(self, st: LoweringState, op: CondOp) -> None:
        pred = self._predicate(st, op.pred)
        operands = [st.lowered(v) for v in op.inputs]
        then_block, else_block = Block(), Block()
        then_vals = self._lower_region_into(st, op.true_branch, operands, then_block)
        else_vals = self._lower_region_into(st, op.false_branch, operands, else_block)
        then_block.add_op(scf.YieldOp(*then_vals))
        else_block.add_op(scf.YieldOp(*else_vals))
        result_types = [tensor_type(r.type) if isinstance(r.type, TensorType) else v.type for r, v in zip(op.results, then_vals)]
        if_op = scf.IfOp(pred, result_types, Region(then_block), Region(else_block))
        st.insert(if_op)
        for r, v in zip(op.results, if_op.results):
            st.values[r] = v
            if isinstance(r.type, TensorType):
                st.bind_symbols(v, r.type)

    def _lower_while(self, st: LoweringState, op: WhileLoopOp) -> None:
        carried = [self._as_value(st, st.lowered(v)) for v in op.carried]
        additional = [st.lowered(v) for v in op.additional]
        types = [v.type for v in carried]
        before = Block(arg_types=types)
        after = Block(arg_types=types)
        with st.at_block(before):
            cond_vals = self._lower_region_values(st, op.cond_region, [*before.args, *additional])
            pred = self._predicate_from_lowered(st, op.cond_region, cond_vals[0])
            st.insert(scf.ConditionOp(pred, *before.args))
        with st.at_block(after):
            body_vals = self._lower_region_values(st, op.body_region, [*after.args, *additional])
            st.insert(scf.YieldOp(*[self._as_value(st, v) for v in body_vals]))
        loop = scf.WhileOp(carried, types, Region(before), Region(after))
        st.insert(loop)
        for r, v in zip(op.results, loop.results):
            st.values[r] = v

    def _lower_map(self, st: LoweringState, op: MapOp) -> None:
        """`map` as an `scf.for` over the leading dimension, slicing in and inserting out."""
        xs = [(x, cast(TensorType, x.type)) for x in op.xs]
        lead = xs[0][1].sizes[0]
        inits = [st.empty(cast(TensorType, r.type)) for r in op.results]
        body = Block(arg_types=[IndexType(), *(v.type for v in inits)])
        iv = body.args[0]
        with st.at_block(body):
            slices: list[object] = []
            for x, t in xs:
                rank = t.rank
                offsets: list[SSAValue | int] = [iv, *([0] * (rank - 1))]
                sizes: list[SSAValue | int] = [1, *(s if isinstance(s, int) else st.index(s) for s in t.sizes[1:])]
                sliced = tensor.ExtractSliceOp(st.tensor(x), offsets, sizes, [1] * rank, tensor_type(TensorType(t.sizes[1:], t.element_dtype)))
                slices.append(st.emit(sliced))
            results = self._lower_region_values(st, op.body, [*slices, *(st.lowered(v) for v in op.extra)])
            updated: list[SSAValue] = []
            for acc, r, res in zip(body.args[1:], results, op.results):
                rt = cast(TensorType, res.type)
                offsets = [iv, *([0] * (rt.rank - 1))]
                sizes = [1, *(s if isinstance(s, int) else st.index(s) for s in rt.sizes[1:])]
                updated.append(st.insert_slice(self._as_value(st, r), acc, offsets, sizes))
            st.insert(scf.YieldOp(*updated))
        loop = scf.ForOp(st.index(0), st.index(lead), st.index(1), inits, body)
        st.insert(loop)
        for r, v in zip(op.results, loop.results):
            st.values[r] = v

    def _lower_region_values(self, st: LoweringState, region: Region, args: Sequence[object]) -> list[object]:
        inner = region.block
        for a, v in zip(inner.args, args):
            st.values[a] = v
        return self._lower_block(st, inner)

    def _predicate_from_lowered(self, st: LoweringState, region: Region, value: object) -> SSAValue:
        out = cast(OutputOp, region.block.last_op).operands[0]
        return self._predicate(st, out) if value is st.values.get(out) else cast(SSAValue, value)


def _float_or_bool(value: bool | int | float, el: Attribute) -> Attribute:
    if el == i1:
        return IntegerAttr(int(bool(value)), i1)
    if el == i64:
        return IntegerAttr(int(value), i64)
    return FloatAttr(float(value), f64)


_INT_CMP = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}
_FLOAT_CMP = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}


def _sym_arith(st: LoweringState, op: SymArithOp) -> SSAValue:
    """
    A SymInt/SymFloat/SymBool computation on values known only at run time (a
    predicate `s0 > 4` for `cond`, arithmetic on an `.item()` result), in the
    lowering's scalar forms: SymInt `index`, SymFloat `f64`, SymBool `i1`.
    Python's semantics: floor division, and a float operand makes it float.
    """
    kind = op.name.removeprefix("exir.sym_")
    args = op.get_args()
    is_float = isinstance(op.results[0].type, SymFloatType) or any(
        isinstance(a, float) or (isinstance(a, SSAValue) and isinstance(a.type, SymFloatType | FloatType)) for a in args
    )
    if kind in ("and", "or", "not"):
        bits = [st.scalar(a, DType.bool) for a in args]
        if kind == "not":
            return st.emit(arith.XOrIOp(bits[0], st.constant(True, DType.bool)))
        return st.emit((arith.AndIOp if kind == "and" else arith.OrIOp)(bits[0], bits[1]))
    if kind == "int":
        as_int = st.emit(arith.FPToSIOp(st.scalar(args[0], DType.float64), i64))
        return st.emit(arith.IndexCastOp(as_int, IndexType()))
    if kind in ("float", "truediv") or is_float:
        xs = [st.scalar(a, DType.float64) for a in args]
        if kind == "float":
            return xs[0]
        if kind in _FLOAT_CMP:
            return st.emit(arith.CmpfOp(xs[0], xs[1], _FLOAT_CMP[kind]))
        simple = {"add": arith.AddfOp, "sub": arith.SubfOp, "mul": arith.MulfOp, "truediv": arith.DivfOp,
                  "max": arith.MaximumfOp, "min": arith.MinimumfOp}  # fmt: skip
        if kind in simple:
            return st.emit(simple[kind](xs[0], xs[1]))
        if kind == "neg":
            return st.emit(arith.NegfOp(xs[0]))
        raise LoweringError(f"'{op.name}' on floats has no lowering", op)
    xs = [st.index(a) if isinstance(a, int) else _as_index(st, a) for a in args]
    if kind in _INT_CMP:
        return st.emit(arith.CmpiOp(xs[0], xs[1], _INT_CMP[kind]))
    simple_int = {"add": arith.AddiOp, "sub": arith.SubiOp, "mul": arith.MuliOp, "floordiv": arith.FloorDivSIOp,
                  "max": arith.MaxSIOp, "min": arith.MinSIOp}  # fmt: skip
    if kind in simple_int:
        return st.emit(simple_int[kind](xs[0], xs[1]))
    if kind == "mod":  # Python's: the divisor's sign
        quotient = st.emit(arith.FloorDivSIOp(xs[0], xs[1]))
        return st.emit(arith.SubiOp(xs[0], st.emit(arith.MuliOp(quotient, xs[1]))))
    if kind == "neg":
        return st.emit(arith.SubiOp(st.index(0), xs[0]))
    if kind == "pow" and isinstance(args[1], int) and 0 <= args[1] <= 64:
        acc = st.index(1)
        for _ in range(args[1]):
            acc = st.emit(arith.MuliOp(acc, xs[0]))
        return acc
    raise LoweringError(f"'{op.name}' on these operands has no lowering", op)


def _as_index(st: LoweringState, value: object) -> SSAValue:
    """A SymInt (or int/bool) argument of a symbolic op as an `index` value."""
    if isinstance(value, SSAValue) and isinstance(value.type, SymIntType | IntType):
        lowered = st.lowered(value)
        if isinstance(lowered, int):
            return st.index(lowered)
        if isinstance(lowered, SSAValue):
            return lowered
    if isinstance(value, SSAValue) and isinstance(value.type, SymBoolType | BoolType):
        as_i64 = st.emit(arith.ExtUIOp(st.scalar(value, DType.bool), i64))
        return st.emit(arith.IndexCastOp(as_i64, IndexType()))
    raise st.error(f"expected an integer, got {value!r}")


def _check_dtype(t: TensorType, what: str, op: Operation) -> None:
    """Refuse, naming `what`, a tensor whose dtype has no upstream element type (complex, quantized, ...)."""
    try:
        element_type(t.element_dtype)
    except LoweringError:
        hint = " (complex tensors have no lowering yet: the numpy interpreter runs them)" if t.element_dtype.is_complex else ""
        raise LoweringError(f"{what} is a {t.element_dtype} tensor, which has no upstream MLIR element type{hint}", op) from None


def _no_rule(name: str) -> str:
    """The refusal of an ATen overload without a rule, with what to do about it."""
    if name not in default_legal_ops() and name not in CORE_IR_EXTRAS:
        return f"{name} has no lowering to linalg: it is not core ATen; run to-core-aten first (-p to-core-aten,convert-exir-to-linalg)"
    if (why := refusal_for(name)) is not None:
        return f"{name} has no lowering to linalg: {why} (see docs/linalg_lowering.md)"
    if name in DECOMPOSITIONS:
        return (
            f"{name} has no lowering to linalg of its own, and its decomposition does not apply to these "
            "arguments (a symbolic size, or a form it leaves to the interpreter); run it with the interpreter"
        )
    return (
        f"{name} has no lowering to linalg: it is core ATen but has no rule yet "
        "(docs/linalg_lowering.md lists every core overload with its status)"
    )


def _named_form(program: ProgramOp) -> ProgramOp:
    """
    The program with every `exir.call_function` of an aten-dialect op spelled as
    that op, so that both forms reach the same rule, and the core operators the
    lowering has no rule for but a decomposition replaced by it
    (`_decompose_unlowered`). A copy when anything changes: a refused program
    stays as it was. Locations are kept, so that diagnostics point at the call
    as written.
    """
    generic = any(isinstance(op, CallFunctionOp) and _named_class(op) is not None for op in program.walk())
    if not generic and not _unlowered(program):
        return program
    copy = program.clone()
    if generic:
        _spell_named(copy)
    if _unlowered(copy):
        _decompose_unlowered(copy)
    return copy


def _aten_name(op: Operation) -> str | None:
    """The overload an aten op or an aten `exir.call_function` runs."""
    if isinstance(op, AtenOp):
        return op.name
    if isinstance(op, CallFunctionOp) and (entry := lookup(op.target.data)) is not None:
        return entry.op_name
    return None


def _unlowered(program: ProgramOp) -> bool:
    """Whether the program calls a core operator with a decomposition but no lowering rule."""
    core = default_legal_ops() | CORE_IR_EXTRAS
    for op in program.walk():
        name = _aten_name(op)
        if name is not None and name in core and name in DECOMPOSITIONS and rule_for(name) is None:
            return True
    return False


def _decompose_unlowered(program: ProgramOp) -> None:
    """
    Core operators without a lowering rule (the backward operators of training
    graphs: `convolution_backward`, the pooling backwards; the functional batch
    norm torch's core IR keeps) replaced by their decomposition into operators
    that lower, as torch-mlir's `DecomposeComplexOps` does before its lowering
    to linalg. The `decompose` pattern of `to-core-aten` does it, with every
    operator that has a lowering rule legal; so are the non-core operators
    already in the program, which keep their "run to-core-aten first" refusal.
    """
    legal = lowered_overloads() | {
        name for op in program.walk() if (name := _aten_name(op)) is not None and name not in default_legal_ops()
    }
    PatternRewriteWalker(
        GreedyRewritePatternApplier([DecomposePattern(frozenset(legal))], dce_enabled=False), apply_recursively=True
    ).rewrite_region(program.body)


def _spell_named(copy: ProgramOp) -> None:
    """Every aten `exir.call_function` of `copy` rewritten into the named op (tuple results split)."""
    calls = [op for op in copy.walk() if isinstance(op, CallFunctionOp) and _named_class(op) is not None]
    for call in calls:
        if _is_tuple_call(call):
            _split_tuple_result(call)
            continue
        named = from_call_function(call)
        if named is not None:
            named.location = call.location
            Rewriter.replace_op(call, named)


def _named_class(call: CallFunctionOp) -> type[AtenOp] | None:
    """
    The aten op class a call's target names, by the registry's resolver (the
    interpreter's too): `aten.relu.default`, `aten::relu`, `torch.ops.aten.relu.default`.
    A packet without its overload (`aten.relu`) names no operator.
    """
    entry = lookup(call.target.data)
    return None if entry is None else aten_op_class(entry.op_name)


def _is_tuple_call(call: CallFunctionOp) -> bool:
    """A multi-result operator in the generic form: one call whose one result is a tuple."""
    return len(call.results) == 1 and isinstance(call.results[0].type, TupleType)


def _split_tuple_result(call: CallFunctionOp) -> None:
    """
    Rewrite a generic multi-result call (`!exir.tuple<...>` result read by
    `exir.getitem`s, as torch.fx writes it) into the named op with one result
    per tuple element, the form the named spelling and every rule use; each
    getitem becomes the result it reads. A tuple used other than by getitems
    is left alone (and refused with the call's name when it is reached).
    """
    tuple_result = call.results[0]
    assert isinstance(tuple_result.type, TupleType)
    if not all(isinstance(use.operation, GetItemOp) for use in tuple_result.uses):
        return
    cls = _named_class(call)
    assert cls is not None
    named = cls.create(
        operands=list(call.operands),
        result_types=list(tuple_result.type.types.data),
        properties={"args": call.args, "kwargs": call.kwargs},
        attributes=dict(call.attributes),
    )
    named.location = call.location
    Rewriter.insert_op(named, InsertPoint.before(call))
    for use in list(tuple_result.uses):
        getitem = cast(GetItemOp, use.operation)
        Rewriter.replace_op(getitem, [], [named.results[getitem.index.data]])
    Rewriter.erase_op(call)


def lower_program(program: ProgramOp) -> func.FuncOp:
    """The `func.func @forward` of a core-ATen program (raises ExirDiagnostic)."""
    return _ProgramLowering(_named_form(program)).lower()


def _lower_with_globals(program: ProgramOp, parameters_from_bytes: int, scope: str) -> list[Operation]:
    """The named parameters' globals, then `@forward`."""
    lowering = _ProgramLowering(_named_form(program), parameters_from_bytes, scope)
    fn = lowering.lower()
    return [*lowering.globals, fn]


@dataclass(frozen=True)
class ConvertExirToLinalgPass(ModulePass):
    """Lower core-ATen `exir.program`s to func/arith/math/tensor/linalg/scf on tensors."""

    name = "convert-exir-to-linalg"

    parameters_from_bytes: int = -1
    """Weights of at least this many bytes become IREE named parameters; -1 embeds every weight."""
    parameter_scope: str = "model"
    """The scope of those parameters (the provider IREE looks them up in)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        programs = [p for p in op.ops if isinstance(p, ProgramOp)]
        if len(programs) > 1:
            raise ExirDiagnostic(programs[1], "convert-exir-to-linalg lowers one program per module (each becomes @forward)")
        lowered = [(p, _lower_with_globals(p, self.parameters_from_bytes, self.parameter_scope)) for p in programs]
        if lowered and all(d.name != "builtin" for d in ctx.loaded_dialects):
            # The printer finds the weights' blob storage through the loaded builtin dialect.
            ctx.load_registered_dialect("builtin") if "builtin" in ctx.registered_dialect_names else ctx.load_dialect(Builtin)
        for program, ops in lowered:
            Rewriter.replace_op(program, ops)


__all__ = ["ConvertExirToLinalgPass", "LoweringError", "declare_blob", "element_type", "function_arguments", "lower_program"]
