"""
`functionalize`: in-place and `out=` operators become their functional
variants, and mutations of buffers and user inputs become signature outputs
(what `torch.export`'s functionalization does to produce core ATen IR).

The schema list names the functional variant (`op_registry.functional_variant`,
torch's grouping of an operator's variants): `add_.Tensor` -> `add.Tensor`,
`copy_` -> `copy`, an `out=` overload -> the overload with the same arguments
minus `out`. Tensors are tracked as *storages* (a base value and its current
contents) and *views* of them (the chain of view ops from the base, found
through the schemas' alias annotations). A write replaces the storage's
contents; a write through a view is scattered back into the base by the
rules of `view_scatter` (`select_scatter`, `slice_scatter`, inverse
`permute`/`transpose`, `view` to the base's sizes; `torchscript-to-exir`
uses the same ones), and every later use of the base or of any of its views
reads the updated value, views being regenerated from the new base.

At the end, each mutated placeholder of a program's entry graph returns its
final value: buffers as `buffer_mutation`, user inputs as
`user_input_mutation` (parameters as `parameter_mutation`) outputs, placed
before the user outputs as `verify-export-ir` requires. Writes inside nested
regions, to graph inputs of graphs without a signature, through views that
have no scatter form, or by operators without a functional variant are
refused with a located diagnostic. Unused original ops are left to `exir-dce`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, FunctionType, ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import DiagnosticException

from xdsl_exir.analysis.alias_db import Classified, OpKind, bound_operands, classify, is_mutable_type
from xdsl_exir.dialects import exir
from xdsl_exir.dialects.aten import AtenOp, aten_op_class
from xdsl_exir.transforms.view_scatter import (
    MAY_COPY,
    ViewLayout,
    ViewScatterError,
    copies,
    dense_layout,
    layout_after,
    scatter_into_base,
)
from xdsl_exir.utils.diagnostics import ExirDiagnostic
from xdsl_exir.utils.op_registry import functional_variant, lookup


class FunctionalizeError(DiagnosticException):
    """A program `functionalize` cannot rewrite (a located, one-paragraph message)."""


def _fail(op: Operation, message: str) -> FunctionalizeError:
    return FunctionalizeError(str(ExirDiagnostic(op, message, "functionalize")))


@dataclass
class _Storage:
    base: SSAValue
    current: SSAValue
    version: int = 0


@dataclass
class _Alias:
    storage: _Storage
    chain: tuple[tuple[Operation, int], ...] = ()
    """View ops (and result index) from the base to this value."""
    regenerated: dict[int, SSAValue] = field(default_factory=lambda: {})
    layout: ViewLayout | None = None
    """Sizes and strides in the base's storage (`view_scatter`), None when unknown."""


def _map_tree(value: object, f: Callable[[SSAValue], SSAValue]) -> object:
    if isinstance(value, SSAValue):
        return f(value)
    if isinstance(value, list):
        return [_map_tree(v, f) for v in cast(list[object], value)]
    if isinstance(value, tuple):
        return tuple(_map_tree(v, f) for v in cast(tuple[object, ...], value))
    return value


def _build(name: str, *args: object, **kwargs: Any) -> Operation:  # forwarded to AtenOp.build
    cls = aten_op_class(name)
    if cls is None:
        raise KeyError(name)
    return cls.build(*args, **kwargs)


class _Functionalizer:
    def __init__(self, graph: exir.GraphOp) -> None:
        self.graph = graph
        self.block: Block = graph.body.block
        self.aliases: dict[SSAValue, _Alias] = {}
        self.storages: list[_Storage] = []
        self.here: Operation | None = None
        self.erase: list[Operation] = []

    # -- values -----------------------------------------------------------------

    def _insert(self, op: Operation) -> SSAValue:
        assert self.here is not None
        self.block.insert_op_before(op, self.here)
        return op.results[0]

    def _alias_of(self, v: SSAValue) -> _Alias:
        a = self.aliases.get(v)
        if a is None:
            st = _Storage(v, v)
            self.storages.append(st)
            layout = dense_layout(v.type.sizes) if isinstance(v.type, exir.TensorType) else None
            a = self.aliases[v] = _Alias(st, layout=layout)
        return a

    def latest(self, v: SSAValue) -> SSAValue:
        """The value `v` has now: itself unless its storage was written since."""
        a = self.aliases.get(v)
        if a is None or a.storage.version == 0:
            return v
        if not a.chain:
            return a.storage.current
        cached = a.regenerated.get(a.storage.version)
        if cached is None:
            cached = self._replay(a.storage.current, a.chain)[-1]
            a.regenerated[a.storage.version] = cached
        return cached

    def _replay(self, base: SSAValue, chain: Sequence[tuple[Operation, int]]) -> list[SSAValue]:
        """The views of `chain` applied to `base`: [base, view1, view2, ...] (new ops)."""
        values = [base]
        for view, index in chain:
            clone = view.clone()
            clone.operands = [self.latest(o) for o in view.operands]
            src = self._view_source(view)
            assert src is not None
            clone.operands = [values[-1] if o is src else o for o in clone.operands]
            self._insert(clone)
            values.append(clone.results[index])
        return values

    @staticmethod
    def _view_source(view: Operation) -> SSAValue | None:
        if isinstance(view, AtenOp):
            return view.aliased_operand(0)
        return None

    # -- the rewrite ----------------------------------------------------------------

    def run(self) -> list[tuple[BlockArgument, SSAValue]]:
        """Rewrite the graph; returns (placeholder, final value) for each mutated placeholder."""
        for op in list(self.block.ops):
            self.here = op
            c = classify(op)
            info = c.info if c.kind is OpKind.SCHEMA else None
            if info is not None and info.written:
                self._functionalize_write(op, c)
                continue
            if info is not None and not info.functional:
                self._record_view(op)
                self._rewire(op)
                storage_version = {id(a.storage): a.storage.version for r in op.results if (a := self.aliases.get(r))}
                for r in op.results:
                    a = self.aliases.get(r)
                    if a is not None and a.storage.version:
                        a.regenerated[storage_version[id(a.storage)]] = r
                continue
            self._rewire(op)
            for nested in op.walk():
                n = classify(nested)
                if nested is not op and n.kind is OpKind.SCHEMA and n.info is not None and n.info.written:
                    raise _fail(nested, "in-place operators inside nested regions are not supported")
        for op in reversed(self.erase):
            if not any(r.uses for r in op.results):
                self.block.erase_op(op)
        out: list[tuple[BlockArgument, SSAValue]] = []
        for arg in self.block.args:
            a = self.aliases.get(arg)
            if a is not None and a.storage.base is arg and a.storage.version > 0:
                out.append((arg, a.storage.current))
        return out

    def _rewire(self, op: Operation) -> None:
        for o in op.walk():
            if not o.operands:
                continue
            new = [self.latest(v) for v in o.operands]
            if any(a is not b for a, b in zip(new, o.operands)):
                o.operands = new

    def _record_view(self, op: Operation) -> None:
        cls = cast(AtenOp, op) if isinstance(op, AtenOp) else None
        for i, r in enumerate(op.results):
            if not is_mutable_type(r.type) or not isinstance(r.type, exir.TensorType):
                continue
            src = cls.aliased_operand(i) if cls is not None else None
            if src is None:
                continue
            parent = self._alias_of(src)
            sizes = r.type.sizes
            if op.name in MAY_COPY and copies(op.name, parent.layout, sizes):
                continue  # `contiguous` / `reshape` of a layout they cannot alias: a fresh tensor, as in torch
            args = cast(AtenOp, op).get_args()
            layout = layout_after(op.name, args[1:], cast(AtenOp, op).get_kwargs(), parent.layout, sizes)
            self.aliases[r] = _Alias(parent.storage, (*parent.chain, (op, i)), layout=layout)

    def _functionalize_write(self, op: Operation, cl: Classified) -> None:
        info = cl.info
        assert info is not None
        schema = info.schema
        if not isinstance(op, AtenOp | exir.CallFunctionOp):
            raise _fail(op, f"'{op.name}' writes its arguments and has no functional form here")
        if schema.op_name == "aten.detach_.default":
            # autograd metadata only (a `torch.tensor` constant in the training IR is
            # lift_fresh_copy + detach_): the result is the argument, unchanged
            self.aliases[op.results[0]] = self._alias_of(op.operands[0])
            op.results[0].replace_all_uses_with(op.operands[0])
            self.erase.append(op)
            return
        target = functional_variant(schema.op_name)
        variant = lookup(target) if target is not None else None
        # an in-place view op (`t_`) has a view for its variant, which computes no new contents
        if target is None or variant is None or not variant.schema.is_functional or aten_op_class(target) is None:
            raise _fail(op, f"{schema.full_name} writes its arguments and has no functional variant to replace it with")
        fschema = lookup(target)
        assert fschema is not None
        args = [_map_tree(a, self.latest) for a in op.get_args()]
        kwargs = {k: _map_tree(v, self.latest) for k, v in op.get_kwargs().items()}
        written_args = [schema.arguments[i] for i in info.written]
        if schema.is_out:
            for a in written_args:
                kwargs.pop(a.name, None)
        try:
            new_op = _build(target, *args, **kwargs)
        except Exception as e:  # inference refused the call
            raise _fail(op, f"cannot build {target} for {schema.full_name}: {e}") from None
        new_op.attributes.update(op.attributes)
        hint = op.results[0].name_hint if op.results else None
        if hint and new_op.results:
            new_op.results[0].name_hint = hint.rstrip("_") or None
        self._insert(new_op)
        # Which result carries each written argument's new contents.
        if schema.is_out:
            pairs = list(zip(written_args, new_op.results))
        else:
            pairs = [(written_args[0], new_op.results[0])]
        for arg, value in pairs:
            operands = bound_operands(op, cl, schema.arguments.index(arg))
            if len(operands) != 1:
                raise _fail(op, f"argument '{arg.name}' of {schema.full_name} must be one tensor")
            written = op.operands[operands[0]]
            self._write(op, written, value)
        # The op's aliasing results now stand for the written values.
        amap = schema.return_alias_map()
        for i, r in enumerate(op.results):
            hits = amap.get(i)
            if hits:
                src = bound_operands(op, cl, hits[0])
                if src:
                    self.aliases[r] = self._alias_of(op.operands[src[0]])
        self.erase.append(op)

    def _write(self, op: Operation, written: SSAValue, value: SSAValue) -> None:
        a = self._alias_of(written)
        wt = written.type
        if isinstance(wt, exir.TensorType) and isinstance(value.type, exir.TensorType):
            if value.type.element_dtype != wt.element_dtype:
                value = self._insert(_build("aten._to_copy.default", value, dtype=wt.element_dtype))
        st = a.storage
        if a.chain:
            bases = self._replay(st.current, a.chain[:-1]) if len(a.chain) > 1 else [st.current]
            for (view, _), parent in zip(reversed(a.chain), reversed(bases)):
                value = self._scatter(view, parent, value)
        st.current = value
        st.version += 1

    def _scatter(self, view: Operation, base: SSAValue, src: SSAValue) -> SSAValue:
        """The new contents of `base` after writing `src` through `view` (the shared `view_scatter` rules)."""
        assert isinstance(view, AtenOp)
        args, kwargs = view.get_args(), view.get_kwargs()
        try:
            return scatter_into_base(
                view.name, args[1:], kwargs, base, src, lambda name, *a, **k: self._insert(_build(name, *a, **k))
            )
        except ViewScatterError as e:
            raise _fail(view, str(e)) from None


_MUTATION_KIND = {
    exir.InputKind.buffer: exir.OutputKind.buffer_mutation,
    exir.InputKind.user_input: exir.OutputKind.user_input_mutation,
    exir.InputKind.parameter: exir.OutputKind.parameter_mutation,
}


def functionalize_graph(graph: exir.GraphOp) -> None:
    """Functionalize one graph and, for a program's entry graph, return its mutations."""
    mutated = _Functionalizer(graph).run()
    if not mutated:
        return
    program = graph.parent_op()
    out_op = graph.output
    if not isinstance(program, exir.ProgramOp) or graph.sym_name.data != exir.ProgramOp.ENTRY or out_op is None:
        arg, _ = mutated[0]
        raise _fail(
            graph,
            f"the graph writes its input #{arg.index}; only the entry graph of an exir.program "
            "can return mutations (its signature says where they go)",
        )
    specs = list(program.inputs.data)
    outputs = list(program.outputs.data)
    values = list(out_op.values)
    names = {s.arg_name.data for s in outputs} | {s.arg_name.data for s in specs}
    new_specs: list[exir.OutputSpecAttr] = []
    new_values: list[SSAValue] = []
    for arg, value in mutated:
        spec = specs[arg.index]
        kind = _MUTATION_KIND.get(spec.input_kind)
        if kind is None:
            raise _fail(graph, f"the graph writes {spec.input_kind.value} input '{spec.arg_name.data}', which cannot be mutated")
        target = spec.arg_name.data if kind is exir.OutputKind.user_input_mutation else spec.target_name
        assert target is not None
        if value.type != arg.type:
            if isinstance(value.owner, Operation) and isinstance(value.type, exir.TensorType):
                # same sizes and dtype; the base's layout is what is written back
                value = Rewriter.replace_value_with_new_type(value, arg.type)
        name = value.name_hint or f"mutated_{target.replace('.', '_')}"
        base_name, k = name, 1
        while name in names:
            name, k = f"{base_name}_{k}", k + 1
        names.add(name)
        value.name_hint = name
        new_specs.append(exir.OutputSpecAttr(kind, name, target))
        new_values.append(value)
    # Mutations go after tokens and existing mutations, before the user outputs.
    first_user = next(
        (i for i, s in enumerate(outputs) if s.output_kind not in (exir.OutputKind.token, *_MUTATION_KIND.values())),
        len(outputs),
    )
    outputs[first_user:first_user] = new_specs
    values[first_user:first_user] = new_values
    program.outputs = ArrayAttr(outputs)
    out_op.operands = values
    graph.function_type = FunctionType.from_lists(
        list(graph.function_type.inputs.data), [v.type for v in values]
    )


@dataclass(frozen=True)
class FunctionalizePass(ModulePass):
    """Replace in-place and `out=` ops by functional ones; mutations become outputs."""

    name = "functionalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for graph in [g for g in op.walk() if isinstance(g, exir.GraphOp)]:
            functionalize_graph(graph)

