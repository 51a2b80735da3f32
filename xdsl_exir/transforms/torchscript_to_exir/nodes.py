"""Lowering `ts.node`s: the overload from `overloads.resolve_node` over the operand
types; scalar builtins folded with the interpreter's table (or emitted as
tensor or SymInt ops when a scalar comes from tensor data or sizes); tensor
operators as aten ops with their FX arguments, in-place and `out=` variants
made functional and written back into their storage.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, cast

from xdsl.ir import Attribute, SSAValue

from xdsl_exir.analysis.overload_resolution import OverloadError, ResolvedNode, resolve_node
from xdsl_exir.dialects import ts
from xdsl_exir.dialects.aten import AtenOp, aten_op_class
from xdsl_exir.dialects.exir import (
    SYM_ARITH_OPS,
    AssertScalarOp,
    CallFunctionOp,
    DeviceAttr,
    DType,
    GetItemOp,
    SymBoolType,
    SymFloatType,
    SymIntType,
    SymScalarType,
    TensorType,
)
from xdsl_exir.dialects.exir import ListType as ExirListType
from xdsl_exir.dialects.exir import TupleType as ExirTupleType
from xdsl_exir.semantics.inference import InferenceError, NoInference, bind_arguments, infer_result_types
from xdsl_exir.transforms.torchscript_to_exir.node_handlers import (
    NODE_HANDLERS,
    is_tensor_type,
    known_kind,
    mentions_tensor,
)
from xdsl_exir.transforms.torchscript_to_exir.storage import LoweringBase
from xdsl_exir.transforms.torchscript_to_exir.values import (
    FLIPPED,
    FUNCTIONAL_SPELLING,
    LAYOUTS,
    LV,
    MEMORY_FORMATS,
    SYM_OPS,
    TENSOR_SCALAR_OPS,
    Device,
    SymScalar,
    TensorRef,
    TensorScalar,
    TSList,
    ViewStep,
    same_constant,
    with_article,
)
from xdsl_exir.transforms.view_scatter import MAY_COPY, copies
from xdsl_exir.utils import op_registry
from xdsl_exir.utils.function_schema import Argument, FunctionSchema, SchemaType, TypeKind
from xdsl_exir.utils.symbolic import sympy
from xdsl_exir.utils.ts_builtins import ScriptException, builtin_for

_STRUCTURAL_BUILTINS = frozenset({
    "len", "__getitem__", "append", "add", "mul", "list", "copy", "insert", "pop", "extend", "clear",
    "reverse", "slice", "_set_item", "__is__", "__isnot__", "tuple", "keys", "values", "items", "get",
    "__derive_index", "__range_length",
})  # fmt: skip
"""Scalar builtins that only move list elements (or read the length): they may hold values computed
from tensor data, which other builtins would read as opaque placeholders."""


def _holds_computed(value: object) -> bool:
    if isinstance(value, TensorScalar | SymScalar):
        return True
    if isinstance(value, list | tuple):
        return any(_holds_computed(v) for v in cast(Sequence[object], value))
    if isinstance(value, dict):
        return any(_holds_computed(v) for v in cast(dict[object, object], value).values())
    return False


class NodeLowering(LoweringBase):
    """Lowers `ts.node`s: the overload resolved from the operand types, scalar
    builtins folded (or, on tensor-derived scalars, emitted as tensor or SymInt
    ops), tensor operators as aten ops with their FX arguments, in-place and
    `out=` variants functionalized, and the node kinds with handlers of their
    own (`node_handlers`).
    """

    # -- nodes -------------------------------------------------------------------

    def lower_node(self, op: ts.NodeOp, args: list[LV]) -> list[LV]:
        kind = op.kind.data
        special = NODE_HANDLERS.get(kind)
        if special is not None:
            result = special(self, op, args)
            if result is not NotImplemented:
                return cast(list[LV], result)
        if kind in ("aten::warn", "prim::Print"):
            return [None] * len(op.results)
        resolved = self.resolve(kind, [v.type for v in op.operands], args)
        schema = resolved.schema
        if not mentions_tensor(schema):
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
                isinstance(a, TensorScalar) and not is_tensor_type(resolved.schema.arguments[i].type)
                for i, a in self.bound_args(resolved, args)
            ) and mentions_tensor(resolved.schema):
                retyped = [ts.TSTensorType() if isinstance(a, TensorScalar) else t for a, t in zip(args, types)]
                try:
                    resolved = resolve_node(kind, retyped)
                except OverloadError:
                    pass
            return resolved
        assert error is not None
        if not known_kind(kind):
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
            # The ts dialect's container types (dialects/ts/types.py) redeclare their parameters, so checkers see the dataclass __init__.
            return cast(Any, ts.TSTupleType)(*(self.ts_type_of(v, ts.TSAnyType()) for v in cast(tuple[object, ...], value)))
        if isinstance(value, TSList) and value and not isinstance(declared, ts.TSListType):
            return cast(Any, ts.TSListType)(self.ts_type_of(value[0], ts.TSAnyType()))
        return declared

    # -- scalars -----------------------------------------------------------------

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
        if name in ("any", "all") and len(values) == 1 and isinstance(values[0], list):
            return [self.any_all(name, cast(list[LV], values[0]))]
        if name not in _STRUCTURAL_BUILTINS and any(_holds_computed(v) for v in values):
            # Evaluating it now would read a placeholder object as the value (a TensorScalar is truthy).
            raise self.fail(f"{resolved.name} of a list holding values computed from tensor data has no "
                            "Export IR lowering")  # fmt: skip
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

    def any_all(self, name: str, elements: list[LV]) -> LV:
        """`any`/`all` of a bool list: constants folded, values computed from tensor data or'd / and'ed."""
        neutral = name == "all"  # all([]) is True, any([]) is False
        computed: list[TensorScalar] = []
        for v in elements:
            if isinstance(v, bool):
                if v != neutral:
                    return v  # any(..., True, ...) / all(..., False, ...)
            elif isinstance(v, TensorScalar):
                computed.append(self.convert_scalar(v, "bool"))
            else:
                raise self.fail(f"aten::{name} of {self.describe(v)}, which is not a bool")
        if not computed:
            return neutral
        acc: LV = computed[0]
        for v in computed[1:]:
            acc = self.tensor_scalar_op("__and__" if name == "all" else "__or__", [acc, v])
        return acc

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
        if name in ("ceil", "floor") and len(values) == 1:
            # math.ceil / math.floor: an int, rounded up / down from a float
            v = cast(TensorScalar, values[0])
            if v.kind != "float":
                return self.convert_scalar(v, "int")
            rounded = self.aten(f"aten.{name}.default", self.convert_scalar(v, "float").value)
            return TensorScalar(self.aten("aten._to_copy.default", rounded, dtype=DType.int64), "int")
        if name == "abs" and len(values) == 1:
            v = cast(TensorScalar, values[0])
            return TensorScalar(self.aten("aten.abs.default", v.value), v.kind)
        if name not in TENSOR_SCALAR_OPS or len(values) != 2:
            raise self.fail(f"aten::{name} of a value computed from tensor data has no Export IR lowering")
        base, kind = TENSOR_SCALAR_OPS[name]
        a, b = operand(values[0]), operand(values[1])
        if not isinstance(a, SSAValue):
            if name in FLIPPED:
                base = TENSOR_SCALAR_OPS[FLIPPED[name]][0]
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
        target = SYM_OPS.get(name)
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

    # -- tensor operators --------------------------------------------------------

    def lower_tensor_op(self, op: ts.NodeOp, resolved: ResolvedNode, args: list[LV]) -> list[LV]:
        schema = resolved.schema
        functional: tuple[str, tuple[object, ...]] | None = None
        name = resolved.name
        if (computed_dim := self.computed_dim(resolved, args)) is not None:
            return self.dispatch_dim(op, resolved, args, computed_dim)
        if schema.is_mutable:
            written = schema.written_arguments
            if schema.is_out and len(written) == 1 and len(schema.returns) == 1:
                return self.lower_out(resolved, args, written[0])
            if len(written) != 1 or written[0] is not schema.arguments[0] or schema.is_out:
                raise self.fail(f"{name} writes {', '.join(a.name for a in written)}; only in-place ops "
                                "writing their first argument are functionalized")  # fmt: skip
            variant = op_registry.functional_variant(schema.op_name)
            if variant is None:
                raise self.fail(f"{name} writes its argument and has no functional variant to lower it to")
            functional = FUNCTIONAL_SPELLING.get(variant, (variant, ()))
        cls = aten_op_class(functional[0] if functional else name)
        if cls is None and functional is None:
            return self.lower_unlisted_op(op, resolved, args)
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

    def lower_unlisted_op(self, op: ts.NodeOp, resolved: ResolvedNode, args: list[LV]) -> list[LV]:
        """
        An operator the aten dialect has no op for (`quantized_decomposed::*`, a custom
        operator): an `exir.call_function` of its overload, typed by its inference rule
        (a custom operator's `infer`, see `op_registry.register_kernel`).
        """
        schema = resolved.schema
        fx_args, fx_kwargs = self.fx_arguments(resolved, args, schema)
        try:
            types = infer_result_types(schema.op_name, fx_args, fx_kwargs)
        except (NoInference, InferenceError) as e:
            raise self.fail(
                f"{op.kind.data} resolves to {resolved.name}, which is not an operator of the aten dialect, and "
                f"its result types cannot be inferred ({e}); a custom operator needs an infer rule "
                "(xdsl_exir.register_kernel)"
            ) from None
        call = CallFunctionOp(schema.op_name, fx_args, fx_kwargs, types)
        self.emit(call)
        out: list[LV] = []
        for r in call.results:
            if isinstance(r.type, TensorType):
                out.append(self.new_tensor(r))
            elif isinstance(r.type, SymIntType | SymFloatType | SymBoolType):
                out.append(self.sym_result(r))
            else:
                raise self.fail(f"{resolved.name} gives a {r.type}, which the lowering cannot use")
        if len(out) != len(op.results):
            if len(op.results) == 1 and len(out) > 1:
                return [tuple(out)]
            raise self.fail(f"{resolved.name} gives {len(out)} results, the node has {len(op.results)}")
        return out

    def lower_out(self, resolved: ResolvedNode, args: list[LV], out: Argument) -> list[LV]:
        """
        An `out=` call (`torch.arange(0, 12, out=buf)`): the functional overload, cast to
        `out`'s dtype and written into it. torch resizes `out` to the result's shape, which
        a typed program cannot do, except that `arange` keeps an `out` of as many elements
        in its shape.
        """
        schema = resolved.schema
        variant = op_registry.functional_variant(schema.op_name)
        cls = aten_op_class(variant) if variant is not None else None
        if cls is None:
            raise self.fail(f"{resolved.name} has no functional variant in the aten dialect to lower it to")
        g = resolved.bindings[schema.arguments.index(out)]
        target = args[g] if g is not None else None
        if not isinstance(target, TensorRef):
            raise self.fail(f"{resolved.name} writes {self.describe(target)}")
        fx_args, fx_kwargs = self.fx_arguments(resolved, args, cls.SCHEMA)
        result = self.build(cls, fx_args, fx_kwargs).results[0]
        want = cast(TensorType, self.value_of(target).type)
        got = cast(TensorType, result.type)
        if got.sizes != want.sizes:
            same_numel = got.is_static and want.is_static and got.numel() == want.numel()
            if not (same_numel and cls.name.startswith("aten.arange.")):
                raise self.fail(
                    f"{resolved.name} resizes out from {list(want.sizes)} to {list(got.sizes)}; a lowered program "
                    "keeps each tensor's shape"
                )
            result = self.aten("aten.view.default", result, list(want.sizes))
        self.write(target, result)  # cast to out's dtype on the way
        return [target]

    def computed_dim(self, resolved: ResolvedNode, args: list[LV]) -> int | None:
        """The position in `args` of a `dim` computed from tensor data, for a functional, non-view op."""
        schema = resolved.schema
        if schema.is_mutable or schema.return_alias_map() or not args or not isinstance(args[0], TensorRef):
            return None
        for a, g in zip(schema.arguments, resolved.bindings):
            if a.name == "dim" and a.type.kind is TypeKind.BASE and a.type.name == "int" and g is not None and isinstance(args[g], TensorScalar):
                return g
        return None

    def dispatch_dim(self, op: ts.NodeOp, resolved: ResolvedNode, args: list[LV], g: int) -> list[LV]:
        """
        `cumsum(x, d)` with `d` computed from tensor data: Export IR takes constant dims,
        so the op is computed for every dim of `x` and the result picked with `where`
        (`d == k or d == k - rank`), after a runtime assert that `d` is a dim of `x`.
        """
        d = self.convert_scalar(cast(TensorScalar, args[g]), "int").value
        rank = cast(TensorType, self.value_of(cast(TensorRef, args[0])).type).rank
        if rank == 0:
            raise self.fail("a dim computed from tensor data, of a 0-d tensor")
        in_range = self.aten(
            "aten.logical_and.default", self.aten("aten.ge.Scalar", d, -rank), self.aten("aten.lt.Scalar", d, rank)
        )
        ok = self.aten("aten._local_scalar_dense.default", in_range)
        self.emit(AssertScalarOp(ok, f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}])"))
        variants: list[list[SSAValue]] = []
        for k in range(rank):
            picked = list(args)
            picked[g] = k
            outs = self.lower_tensor_op(op, resolved, picked)
            if not all(isinstance(o, TensorRef) for o in outs):
                raise self.fail(f"{resolved.name} with a dim computed from tensor data: its results are not tensors")
            variants.append([self.value_of(cast(TensorRef, o)) for o in outs])
        if any([v.type for v in vs] != [v.type for v in variants[0]] for vs in variants):
            raise self.fail(f"{resolved.name}: the result's type depends on a dim computed from tensor data")
        results: list[LV] = []
        for j, first in enumerate(variants[0]):
            acc = first
            for k in range(1, rank):
                pick = self.aten(
                    "aten.logical_or.default", self.aten("aten.eq.Scalar", d, k), self.aten("aten.eq.Scalar", d, k - rank)
                )
                acc = self.aten("aten.where.self", pick, variants[k][j], acc)
            results.append(self.new_tensor(acc))
        return results

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
                return [cast(ViewStep | None, None)] * len(rt.types.data)
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
                if not (a.has_default and same_constant(v, self.to_arg(a.default_value, a.type, a.name))):
                    kwargs[a.name] = v
            else:
                positional.append((a, v))
        # Drop trailing positional arguments equal to their defaults, as FX records calls.
        while positional:
            a, v = positional[-1]
            if a.has_default and same_constant(v, self.to_arg(a.default_value, a.type, a.name)):
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
            if is_tensor_type(st) or (st.kind is TypeKind.LIST and is_tensor_type(st.elements[0])):
                return v
            if value.const is not None:
                return self.to_arg(value.const, st, name)
            raise self.fail(f"argument '{name}' is {self.describe(value)} where {st} is expected")
        if isinstance(value, TensorScalar):
            if is_tensor_type(st):
                return value.value
            raise self.fail(
                f"argument '{name}' is {with_article(value.kind)} computed from tensor data, where a constant {st} is "
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
                return LAYOUTS[value] if 0 <= value < len(LAYOUTS) else value
            if st.name == "MemoryFormat" and isinstance(value, int) and not isinstance(value, bool):
                return MEMORY_FORMATS[value] if 0 <= value < len(MEMORY_FORMATS) else value
            if st.name == "Device" and isinstance(value, str):
                return DeviceAttr(value)
            if st.name in ("float", "SymFloat") and isinstance(value, int) and not isinstance(value, bool):
                return float(value)
        if value is None or isinstance(value, int | float | bool | str | complex):
            return value
        raise self.fail(f"argument '{name}' is {self.describe(value)}, which an aten op cannot take")


