"""
`verify-export-ir`: the contract of "torch.export IR Specification" that the op
verifiers do not cover.

The dialect's own verifiers check that each op is well formed (a cond's branches
agree with its results, a getitem indexes in range, ...). This pass checks what
makes a well-formed program *Export IR*, one rule at a time, each with its own
diagnostic naming the rule:

- `get-attr`: get_attr reads only subgraphs; parameters and buffers are lifted
  to placeholders (graph inputs are the entry-block arguments, so placeholders
  always come first).
- `single-output`: every graph and region ends in exactly one `exir.output`.
- `known-operator`: call_function targets only operators of the registry,
  higher-order ops and FX's SymInt callables (plus `allow-namespaces`).
- `no-promotion`: pointwise operators see one dtype: no mixed tensor dtypes, no
  float scalar on an integral tensor, no result dtype changed behind the user's
  back (comparisons give bool).
- `declared-symbols`: every symbol in a type has a range constraint.
- `signature`: the graph signature agrees with the entry graph and the state.

With `dialect=core` one more rule applies, for programs handed to a back end
that takes core ATen IR (what `run_decompositions()` produces):

- `core-aten`: every ATen operator is a core-tagged overload torch does not
  decompose further (`default_legal_ops()`), or one of the assertion and SymInt
  operators torch keeps in core IR (`op_registry.CORE_IR_EXTRAS`). Other
  namespaces (custom operators, `quantized_decomposed`) are not ATen and pass.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from xdsl_exir.dialects.exir import (
    ArgsOpMixin,
    CallFunctionOp,
    CustomObjType,
    DType,
    GetAttrOp,
    GraphOp,
    InputKind,
    InputSpecAttr,
    ListType,
    OptionalType,
    OutputKind,
    OutputOp,
    ProgramOp,
    StateOp,
    SymScalarType,
    TensorType,
    TokenType,
    TupleType,
)
from xdsl_exir.semantics.decompositions import default_legal_ops
from xdsl_exir.semantics.decompositions.renames import ALIASES
from xdsl_exir.utils import op_registry
from xdsl_exir.utils.diagnostics import ExirDiagnostic, did_you_mean
from xdsl_exir.utils.schema_binding import SchemaBindError, bind
from xdsl_exir.utils.symbolic import sympy


def _aliases_pointwise(name: str) -> bool:
    """
    Whether `name` is another spelling of a pointwise operator (`divide.Tensor` of
    `div.Tensor`, `subtract.Tensor` of `sub.Tensor`): torch tags the target only,
    yet the alias promotes as it does, so `no-promotion` holds it to the same
    rule. (Otherwise a program dividing by an int64 tensor with `torch.divide`
    passed before to-core-aten and failed after, the alias renamed.)
    """
    target = ALIASES.get(name)
    entry = op_registry.lookup(target) if target is not None else None
    return entry is not None and "pointwise" in entry.tags

_KIND_ORDER = {k: i for i, k in enumerate(InputKind)}


def _symbols_of_type(t: Attribute) -> Iterator[sympy.Symbol]:
    if isinstance(t, TensorType):
        for s in t.sizes:
            if not isinstance(s, int):
                yield from s.free_symbols  # pyright: ignore[reportReturnType] - sympy types free_symbols as set[Basic]; sizes hold only symbols
    elif isinstance(t, SymScalarType) and t.value is not None:
        yield from t.value.free_symbols  # pyright: ignore[reportReturnType] - sympy types free_symbols as set[Basic]; sizes hold only symbols
    elif isinstance(t, ListType | OptionalType):
        yield from _symbols_of_type(t.element_type)
    elif isinstance(t, TupleType):
        for e in t.types.data:
            yield from _symbols_of_type(e)


def _values_of(op: Operation) -> Iterator[SSAValue]:
    yield from op.results
    for region in op.regions:
        for block in region.blocks:
            yield from block.args


@dataclass(frozen=True)
class VerifyExportIRPass(ModulePass):
    """Checks that every `exir.program` (or free graph) obeys Export IR's contract."""

    name = "verify-export-ir"

    allow_namespaces: tuple[str, ...] = ()
    """Custom-operator namespaces to accept in call_function (e.g. `mylib`)."""

    dialect: str = "export"
    """`export` (any ATen operator) or `core` (core ATen operators only, the `core-aten` rule)."""

    legal_ops: tuple[str, ...] = ()
    """With `dialect=core`, further ATen overloads to accept (as `to-core-aten{legal-ops=...}` keeps them)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.dialect not in ("export", "core"):
            raise PassFailedException(
                f"verify-export-ir: dialect={self.dialect} is not one of export, core"
            )
        if self.dialect == "core":
            self.check_core_aten(op)
        for child in op.walk():
            if isinstance(child, ProgramOp):
                self.verify_program(child)
            elif isinstance(child, GraphOp) and not isinstance(
                child.parent_op(), ProgramOp
            ):
                self.verify_graph(child, None)

    # -- core ATen ----------------------------------------------------------

    def check_core_aten(self, module: Operation) -> None:
        """The first non-core ATen op, located, with a count of the others by name."""
        extra: set[str] = set()
        for text in (t.strip() for t in self.legal_ops):
            entry = op_registry.lookup(text) if text else None
            if text and entry is None:
                raise PassFailedException(
                    f"verify-export-ir: legal-ops names '{text}', which is not an ATen overload (write it as "
                    "aten.linear.default, aten::linear or torch.ops.aten.linear.default)"
                )
            if entry is not None:
                extra.add(entry.op_name)
        core = default_legal_ops() | op_registry.CORE_IR_EXTRAS | extra
        found: list[tuple[Operation, str]] = []
        for op in module.walk():
            if isinstance(op, CallFunctionOp):
                entry = op_registry.lookup(op.target.data)
                name = entry.op_name if entry is not None else None
            else:
                name = op.name if isinstance(op, ArgsOpMixin) and op.name.startswith("aten.") else None
            if name is not None and name.startswith("aten.") and name not in core:
                found.append((op, name))
        if not found:
            return
        first, name = found[0]
        counts = Counter(n for _, n in found)
        why = (
            "a core-tagged overload torch decomposes further"
            if "core" in op_registry.all_operators()[name].tags
            else "not tagged core"
        )
        more = ""
        if len(found) > 1:
            listing = ", ".join(f"{n} ({c})" for n, c in sorted(counts.items()))
            more = f"; {len(found)} non-core ops in all: {listing}"
        raise ExirDiagnostic(
            first,
            f"'{name}' is not a core ATen operator ({why}){more}; run to-core-aten, "
            "or give its decomposition",
            "core-aten",
        )

    # -- programs -----------------------------------------------------------

    def verify_program(self, program: ProgramOp) -> None:
        declared: set[sympy.Symbol] = {
            e for e in program.ranges() if isinstance(e, sympy.Symbol)
        }
        for graph in program.body.block.ops:
            if isinstance(graph, GraphOp):
                self.verify_graph(graph, declared)
        self.verify_signature(program)

    def verify_graph(self, graph: GraphOp, declared: set[sympy.Symbol] | None) -> None:
        self._check_single_output(graph, graph.body)
        if declared is not None:
            for arg in graph.body.block.args:
                self._check_symbols(graph, arg.type, declared)
        for op in graph.walk():
            if op is graph:
                continue
            for region in op.regions:
                self._check_single_output(op, region)
            if isinstance(op, GetAttrOp):
                self._check_get_attr(op)
            elif isinstance(op, CallFunctionOp):
                self._check_call(op)
            elif op.name.startswith("aten.") and isinstance(op, ArgsOpMixin):
                # Ops of the aten dialect are known by construction.
                entry = op_registry.lookup(op.name)
                if entry is not None and ("pointwise" in entry.tags or _aliases_pointwise(entry.op_name)):
                    self._check_promotion(op, op.name, entry)
            if declared is not None:
                for value in _values_of(op):
                    self._check_symbols(op, value.type, declared)

    def _check_single_output(self, op: Operation, region: Region) -> None:
        for block in region.blocks:
            outputs = [o for o in block.ops if isinstance(o, OutputOp)]
            if len(outputs) != 1 or block.last_op is not outputs[0]:
                raise ExirDiagnostic(
                    op,
                    f"a graph has exactly one output node, and it is last; this one "
                    f"has {len(outputs)}"
                    + ("" if not outputs or block.last_op is outputs[0] else ", not last"),
                    "single-output",
                )

    def _check_get_attr(self, op: GetAttrOp) -> None:
        program = op.parent_op()
        while program is not None and not isinstance(program, ProgramOp):
            program = program.parent_op()
        if program is None:
            return
        name = op.target.root_reference.data
        if name in program.state():
            raise ExirDiagnostic(
                op,
                f"get_attr reads '{name}', which is program state: in Export IR "
                "parameters, buffers and constants are lifted to graph inputs and "
                "get_attr reads only subgraphs",
                "get-attr",
            )
        if program.lookup_graph(name) is None:
            raise ExirDiagnostic(op, f"get_attr of unknown subgraph '{name}'", "get-attr")

    def _check_call(self, op: CallFunctionOp) -> None:
        target = op.target.data
        namespace = target.split(".", 1)[0]
        if not op_registry.is_known_target(target):
            operators = op_registry.all_operators()
            if namespace in op_registry.torch_namespaces():
                # torch's own namespace: a misspelling or an overload torch 2.13 lacks, which
                # allow-namespaces must not silence.
                same = [n for n in operators if n.startswith(namespace + ".")]
                raise ExirDiagnostic(
                    op,
                    f"call_function of unknown operator '{target}': torch 2.13 has no such "
                    f"{namespace} overload" + did_you_mean(target, same),
                    "known-operator",
                )
            if namespace not in self.allow_namespaces:
                raise ExirDiagnostic(
                    op,
                    f"call_function of unknown operator '{target}': Export IR calls only "
                    "ATen operators, registered custom operators and higher-order ops "
                    f"(accept a custom namespace with allow-namespaces={namespace})",
                    "known-operator",
                )
        entry = op_registry.lookup(target)
        if entry is not None and ("pointwise" in entry.tags or _aliases_pointwise(entry.op_name)):
            self._check_promotion(op, target, entry)

    def _check_promotion(
        self, op: Operation, target: str, entry: op_registry.OperatorEntry
    ) -> None:
        assert isinstance(op, ArgsOpMixin)
        schema = entry.schema
        try:
            # Only what the call gives: a default is not a scalar the user wrote.
            bound, _ = bind(schema, op.get_args(), op.get_kwargs(), defaults=False, missing="ignore")
        except SchemaBindError:
            return  # arguments the schema does not take: nothing to say about promotion
        dtypes: dict[DType, str] = {}
        float_scalar: str | None = None
        cast_args = op_registry.CAST_ARGUMENTS.get(entry.op_name, frozenset())
        for arg_name, value in bound.items():
            if arg_name in ("condition", "mask") or arg_name in cast_args:  # cast to self's dtype, not promoted
                continue
            if isinstance(value, SSAValue) and isinstance(value.type, TensorType):
                dtypes.setdefault(value.type.element_dtype, arg_name)
            elif isinstance(value, float) and not isinstance(value, bool):
                float_scalar = arg_name
        if len(dtypes) > 1:
            listing = ", ".join(f"{n} is {d.value}" for d, n in dtypes.items())
            raise ExirDiagnostic(
                op,
                f"implicit type promotion in '{target}': {listing}; insert "
                "an explicit aten._to_copy so both sides have one dtype",
                "no-promotion",
            )
        if len(dtypes) == 1:
            (common,) = dtypes
            if float_scalar is not None and not (
                common.is_floating_point or common.is_complex
            ):
                raise ExirDiagnostic(
                    op,
                    f"implicit type promotion in '{target}': float scalar "
                    f"'{float_scalar}' applied to a {common.value} tensor",
                    "no-promotion",
                )
            for result in op.results:
                t = result.type
                if isinstance(t, TensorType) and t.element_dtype not in (
                    common,
                    DType.bool,
                    common.to_real(),  # a complex tensor's magnitude or phase (abs, angle)
                ):
                    raise ExirDiagnostic(
                        op,
                        f"implicit type promotion in '{target}': "
                        f"{common.value} inputs give a {t.element_dtype.value} result",
                        "no-promotion",
                    )

    def _check_symbols(
        self, op: Operation, t: Attribute, declared: set[sympy.Symbol]
    ) -> None:
        for sym in _symbols_of_type(t):
            if sym not in declared:
                raise ExirDiagnostic(
                    op,
                    f"symbol '{sym}' in type {t} has no range constraint; declare it "
                    f"in the program's ranges, e.g. <{sym} in [0, inf]>",
                    "declared-symbols",
                )

    # -- signature ----------------------------------------------------------

    def verify_signature(self, program: ProgramOp) -> None:
        graph = program.entry
        assert graph is not None  # the op verifier guarantees an entry graph
        inputs: Sequence[InputSpecAttr] = program.inputs.data
        args = graph.body.block.args
        rule = "signature"  # (the counts of inputs and outputs are the op verifier's)
        state = program.state()
        names: set[str] = set()
        last_kind = 0
        for spec, arg in zip(inputs, args):
            kind = spec.input_kind
            name = spec.arg_name.data
            if name in names:
                raise ExirDiagnostic(program, f"input name '{name}' appears twice", rule)
            names.add(name)
            if _KIND_ORDER[kind] < last_kind:
                raise ExirDiagnostic(
                    program,
                    f"input '{name}' ({kind.value}) is out of order: placeholders come "
                    "as tokens, parameters, buffers, constants, custom objects, then "
                    "user inputs",
                    rule,
                )
            last_kind = _KIND_ORDER[kind]
            self._check_input_type(program, spec, arg.type, state)
        self._check_outputs(program, graph, inputs)

    def _check_input_type(
        self,
        program: ProgramOp,
        spec: InputSpecAttr,
        arg_type: Attribute,
        state: dict[str, StateOp],
    ) -> None:
        kind = spec.input_kind
        name = spec.arg_name.data
        rule = "signature"
        expected: type[Attribute] | None = {
            InputKind.parameter: TensorType,
            InputKind.buffer: TensorType,
            InputKind.constant_tensor: TensorType,
            InputKind.custom_obj: CustomObjType,
            InputKind.token: TokenType,
        }.get(kind)
        if expected is not None and not isinstance(arg_type, expected):
            raise ExirDiagnostic(
                program,
                f"input '{name}' is a {kind.value} but its placeholder has type "
                f"{arg_type}",
                rule,
            )
        target = spec.target_name
        if target is None:
            return
        if target not in state:
            raise ExirDiagnostic(
                program,
                f"input '{name}' reads state '{target}', which the program does not "
                "hold (no exir.state @" + target + ")",
                rule,
            )
        if state[target].state_type != arg_type:
            raise ExirDiagnostic(
                state[target],
                f"state '{target}' has type {state[target].state_type} but placeholder "
                f"'{name}' has type {arg_type}",
                rule,
            )

    def _check_outputs(
        self, program: ProgramOp, graph: GraphOp, inputs: Sequence[InputSpecAttr]
    ) -> None:
        rule = "signature"
        outputs = program.outputs.data
        out_op = graph.output
        assert out_op is not None
        values = out_op.values
        by_target = {
            s.target_name: (s, arg)
            for s, arg in zip(inputs, graph.body.block.args)
            if s.target_name is not None
        }
        by_name = {
            s.arg_name.data: (s, arg)
            for s, arg in zip(inputs, graph.body.block.args)
        }
        seen_user_output = False
        for spec, value in zip(outputs, values):
            kind = spec.output_kind
            target = spec.target_name
            if kind in (OutputKind.buffer_mutation, OutputKind.user_input_mutation):
                if seen_user_output:
                    raise ExirDiagnostic(
                        out_op,
                        f"mutation output '{spec.arg_name.data}' comes after a user "
                        "output: mutated state is returned first",
                        rule,
                    )
                if kind == OutputKind.buffer_mutation:
                    found = by_target.get(target) if target is not None else None
                    want = InputKind.buffer
                else:
                    found = by_name.get(target or "")
                    want = InputKind.user_input
                if found is None or found[0].input_kind != want:
                    raise ExirDiagnostic(
                        out_op,
                        f"output '{spec.arg_name.data}' mutates '{target}', which is "
                        f"not a {want.value} input",
                        rule,
                    )
                if found[1].type != value.type:
                    raise ExirDiagnostic(
                        out_op,
                        f"output '{spec.arg_name.data}' writes {value.type} into "
                        f"'{target}' of type {found[1].type}",
                        rule,
                    )
            elif kind == OutputKind.gradient_to_parameter:
                found = by_target.get(target) if target is not None else None
                if found is None or found[0].input_kind != InputKind.parameter:
                    raise ExirDiagnostic(
                        out_op, f"gradient of '{target}', which is not a parameter", rule
                    )
            else:
                seen_user_output = True
