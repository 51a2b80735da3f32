"""The base of the IR emitter of one function: its state (insertion point,
Environment, exits, loops), constants, variables (`prim.Store`/`prim.Load`),
type annotations, and builtin calls, which resolve the overload, fill in
defaults and insert TorchScript's implicit conversions.

The emitter is one object per function, as TorchScript's `to_ir` is; its
methods are layered over three classes (this module's, `expressions`,
`statements`) so that each part reads on its own.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import ArrayAttr, Float64Type, FloatAttr, IntegerAttr, IntegerType, StringAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue

from xdsl_exir.analysis.overload_resolution import (
    OverloadError,
    ResolvedNode,
    candidates,
    resolve_node,
    schema_type_to_ts,
    varargs_list_argument,
)
from xdsl_exir.dialects.prim import ConstantOp, ListConstructOp, LoadOp, StoreOp
from xdsl_exir.dialects.ts import (
    NodeOp,
    TSAnyType,
    TSBoolType,
    TSComplexType,
    TSDeviceType,
    TSDictType,
    TSFloatType,
    TSIntType,
    TSListType,
    TSNoneType,
    TSNumberType,
    TSOptionalType,
    TSStrType,
    TSTensorType,
    TSTupleType,
    TSUnionType,
    is_subtype,
    join_types,
    ts_annotation_str,
    unrefined,
)
from xdsl_exir.frontends.torchscript_script.environment import Frame
from xdsl_exir.frontends.torchscript_script.sugared import Simple, TypeName
from xdsl_exir.transforms.convert_to_ssa import set_name
from xdsl_exir.utils.function_schema import Argument, TypeKind

if TYPE_CHECKING:
    from xdsl_exir.frontends.torchscript_script.compiler import Compiled, Compiler
    from xdsl_exir.frontends.torchscript_script.errors import ScriptError
    from xdsl_exir.frontends.torchscript_script.source import Source
    from xdsl_exir.frontends.torchscript_script.sugared import Sugared


BINOPS: dict[type[ast.operator], str] = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floordiv",
    ast.Mod: "remainder", ast.Pow: "pow", ast.MatMult: "matmul", ast.LShift: "__lshift__",
    ast.RShift: "__rshift__", ast.BitAnd: "__and__", ast.BitOr: "__or__", ast.BitXor: "__xor__",
}
INPLACE: dict[type[ast.operator], str] = {
    ast.Add: "add_", ast.Sub: "sub_", ast.Mult: "mul_", ast.Div: "div_", ast.Mod: "fmod_",
    ast.BitOr: "bitwise_or", ast.BitAnd: "bitwise_and", ast.BitXor: "bitwise_xor",
    ast.LShift: "__lshift__", ast.RShift: "__irshift__", ast.Pow: "pow",
}
CMPOPS: dict[type[ast.cmpop], str] = {
    ast.Lt: "lt", ast.Gt: "gt", ast.LtE: "le", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne",
}
MIRRORED = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le", "eq": "eq", "ne": "ne"}
SCALARS = (TSIntType, TSFloatType, TSBoolType, TSNumberType, TSComplexType)


class EmitterBase:
    """What every part of the emitter stands on: the function being emitted, its
    insertion point and Environment, constants, variables, types, and builtin
    calls (overload resolution, defaults and implicit conversions).

    The emitter of one function is one object, as TorchScript's ``to_ir`` is;
    its methods are layered over three classes (this one, expressions,
    statements) only so that each part reads on its own.
    """

    # -- basics ------------------------------------------------------------------

    def __init__(self, compiler: Compiler, src: Source, fdef: ast.FunctionDef, entry: Compiled) -> None:
        self.compiler = compiler
        self.src = src
        self.fdef = fdef
        self.entry = entry
        self.frame: Frame | None = None
        self.block: Block = Block()
        self.exit_blocks: set[Block] = set()
        self.loops: list[str] = []  # "loop" or "unrolled"
        self.declared_return: Attribute | None = None
        self.merged_return: Attribute | None = None
        self.enum_values: set[SSAValue] = set()
        self.probes: dict[str, Attribute] = {}
        self.hidden_count = 0

    def error(self, message: str, node: ast.AST | None) -> ScriptError:
        return self.src.error(message, node)

    def emit(self, op: Operation, node: ast.AST | None) -> Operation:
        op.location = self.src.loc(node)
        self.block.add_op(op)
        return op

    @contextmanager
    def scope(self, block: Block) -> Iterator[Frame]:
        """Emit into `block` with a new frame; the frame is what the block defined."""
        saved_block, saved_frame = self.block, self.frame
        frame = Frame(block, saved_frame)
        self.block, self.frame = block, frame
        try:
            yield frame
        finally:
            self.block, self.frame = saved_block, saved_frame

    @contextmanager
    def inserting(self, block: Block) -> Iterator[None]:
        saved = self.block
        self.block = block
        try:
            yield
        finally:
            self.block = saved

    @property
    def env(self) -> Frame:
        assert self.frame is not None
        return self.frame

    def const(self, value: object, node: ast.AST | None, type_: Attribute | None = None) -> SSAValue:
        """A `prim.Constant` of a Python value (None typed `type_`, default NoneType)."""
        props: dict[str, Attribute | None] = {}
        if value is None:
            t = type_ or TSNoneType()
        elif isinstance(value, bool):
            t, props["value"] = TSBoolType(), IntegerAttr(int(value), IntegerType(1))
        elif isinstance(value, int):
            if not -(2**63) <= value < 2**63:
                raise self.error(f"integer constant {value} does not fit in 64 bits", node)
            t, props["value"] = TSIntType(), IntegerAttr(value, IntegerType(64))
        elif isinstance(value, float):
            t, props["value"] = TSFloatType(), FloatAttr(value, Float64Type())
        elif isinstance(value, str):
            t, props["value"] = TSStrType(), StringAttr(value)
        elif isinstance(value, list | tuple):
            elems = [self._const_attr(v, node) for v in value]
            elem_t = type_.element if isinstance(type_, TSListType) else (
                _python_type(value[0]) if value else TSIntType()
            )
            t, props["value"] = TSListType(elem_t), ArrayAttr(elems)
        else:
            raise self.error(f"cannot make a TorchScript constant of {type(value).__name__}", node)
        return self.emit(ConstantOp.make([], [t], props), node).results[0]

    def _const_attr(self, value: object, node: ast.AST | None) -> Attribute:
        if isinstance(value, bool):
            return IntegerAttr(int(value), IntegerType(1))
        if isinstance(value, int):
            return IntegerAttr(value, IntegerType(64))
        if isinstance(value, float):
            return FloatAttr(value, Float64Type())
        if isinstance(value, str):
            return StringAttr(value)
        raise self.error(f"cannot make a TorchScript list constant of {type(value).__name__}", node)

    def const_device(self, name: str, node: ast.AST | None) -> SSAValue:
        return self.emit(ConstantOp.make([], [TSDeviceType()], {"value": StringAttr(name)}), node).results[0]

    def node(
        self, kind: str, inputs: Sequence[SSAValue], result_types: Sequence[Attribute], node: ast.AST | None
    ) -> NodeOp:
        op = NodeOp(kind, inputs, result_types)
        self.emit(op, node)
        return op

    # -- variables ---------------------------------------------------------------

    def set_var(self, name: str, value: SSAValue, node: ast.AST, annotated: Attribute | None = None) -> None:
        frame = self.env
        parent_type = frame.find_in_parent(name)
        shown = name.split("$")[0] or name
        if annotated is not None:
            if not is_subtype(value.type, annotated):
                raise self.error(
                    f"variable '{shown}' is annotated with type '{ts_annotation_str(annotated)}' but is assigned "
                    f"a value of type '{ts_annotation_str(value.type)}'",
                    node,
                )
        if parent_type is not None and not is_subtype(value.type, unrefined(parent_type)):
            raise self.error(
                f"variable '{shown}' previously had type '{ts_annotation_str(parent_type)}' but is now being "
                f"assigned to a value of type '{ts_annotation_str(value.type)}'",
                node,
            )
        if name in frame.sugared:
            del frame.sugared[name]
        self.emit(StoreOp.make([value], [], {"name": StringAttr(name)}), node)
        frame.types[name] = annotated if annotated is not None else value.type
        frame.errors.pop(name, None)
        if name.startswith("$"):
            self.probes[name] = value.type
        if shown and not name.startswith("$"):
            set_name(value, shown)

    def get_var(self, name: str, node: ast.AST) -> Sugared:
        frame = self.env
        t = frame.find_type(name)
        if t is not None:
            load = self.emit(LoadOp.make([], [t], {"name": StringAttr(name)}), node)
            return Simple(load.results[0])
        sugared = frame.find_sugared(name)
        if sugared is not None:
            return sugared
        err = frame.find_error(name)
        if err is not None:
            raise self.error(err.message, node)
        found = self.src.resolve(name)
        if found is not None:
            return found
        raise self.error(f"undefined value {name}", node)

    def insert_refinements(self, refinements: dict[str, Attribute], node: ast.AST) -> None:
        for name, t in refinements.items():
            value = self.get_var(name, node).as_value(self, node)
            cast = self.node("prim::unchecked_cast", [value], [t], node)
            self.set_var(name, cast.results[0], node)

    # -- types -------------------------------------------------------------------

    def parse_type(self, node: ast.expr) -> Attribute:
        """A type annotation: `int`, `List[int]`, `Optional[Tensor]`, `torch.Tensor`, `T | None`, `"Tensor"`."""
        if isinstance(node, ast.Constant):
            if node.value is None:
                return TSNoneType()
            if isinstance(node.value, str):
                try:
                    inner = ast.parse(node.value, mode="eval").body
                except SyntaxError:
                    raise self.error(f"cannot parse the type annotation '{node.value}'", node) from None
                ast.copy_location(inner, node)
                for n in ast.walk(inner):
                    ast.copy_location(n, node)
                return self.parse_type(inner)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self._union([self.parse_type(node.left), self.parse_type(node.right)], node)
        if isinstance(node, ast.Subscript):
            head = self._type_head(node.value)
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if head in ("List", "list"):
                return TSListType(self.parse_type(items[0]))
            if head in ("Optional",):
                return TSOptionalType(self.parse_type(items[0]))
            if head in ("Tuple", "tuple"):
                if len(items) == 1 and isinstance(items[0], ast.Tuple) and not items[0].elts:
                    return TSTupleType()
                return TSTupleType(*(self.parse_type(i) for i in items))
            if head in ("Dict", "dict") and len(items) == 2:
                return TSDictType(self.parse_type(items[0]), self.parse_type(items[1]))
            if head == "Union":
                return self._union([self.parse_type(i) for i in items], node)
            if head == "Final":
                return self.parse_type(items[0])
            raise self.error(f"unknown type constructor '{head}'", node)
        head = self._type_head(node)
        simple = {
            "int": TSIntType(), "float": TSFloatType(), "bool": TSBoolType(), "str": TSStrType(), "complex": TSComplexType(),
            "Tensor": TSTensorType(), "Any": TSAnyType(), "None": TSNoneType(), "NoneType": TSNoneType(),
            "device": TSDeviceType(),
        }
        if head in simple:
            return simple[head]
        if head in ("List", "list"):
            return TSListType(TSTensorType())
        if head in ("Dict", "dict"):
            return TSDictType(TSStrType(), TSTensorType())
        raise self.error(f"unknown type '{head or ast.unparse(node)}'", node)

    def _type_head(self, node: ast.expr) -> str:
        if isinstance(node, ast.Name):
            if node.id in self.src.type_names:
                return self.src.type_names[node.id]
            if self.src.globals is not None and node.id in self.src.globals:
                found = self.src.from_python(self.src.globals[node.id])
                if isinstance(found, TypeName):
                    return found.name
            return node.id
        if isinstance(node, ast.Attribute):
            base = node.value
            if isinstance(base, ast.Name):
                module = self.src.aliases.get(base.id, base.id)
                if module in ("torch", "typing"):
                    return node.attr
            return node.attr
        return ""

    def _union(self, items: list[Attribute], node: ast.AST) -> Attribute:
        others = [t for t in items if not isinstance(t, TSNoneType)]
        if len(others) < len(items) and len(others) == 1:
            return TSOptionalType(others[0])
        if len(items) == 1:
            return items[0]
        return TSUnionType(*items)

    # -- builtin calls -----------------------------------------------------------

    def call_builtin(
        self, kind: str, args: Sequence[SSAValue], kwargs: Sequence[tuple[str, SSAValue]], node: ast.AST
    ) -> list[SSAValue]:
        """A `ts.node` of `kind`: overload resolved, defaults materialized, implicit conversions inserted."""
        names = [k for k, _ in kwargs]
        given = [*args, *(v for _, v in kwargs)]
        resolved: ResolvedNode | None = None
        failure = ""
        try:
            resolved = resolve_node(kind, [v.type for v in given], names, keyword_only=True)
        except OverloadError as e:
            failure = str(e)
        if resolved is None or self._enum_mismatch(resolved, given):
            packed = self._pack_varargs(kind, list(args), list(kwargs), node)
            if packed is not None:
                resolved, given = packed
        if resolved is None:
            raise self.error(failure, node)
        schema = resolved.schema
        inputs: list[SSAValue] = []
        if schema.is_vararg:
            inputs = list(given)
        else:
            for i, formal in enumerate(schema.arguments):
                b = resolved.bindings[i]
                if b is None:
                    inputs.append(self._default(formal, node))
                else:
                    conv = resolved.conversions[b] if b < len(resolved.conversions) else None
                    inputs.append(self._apply_conversion(given[b], conv, formal, node))
        op = self.node(kind, inputs, resolved.result_types, node)
        return list(op.results)

    def _enum_mismatch(self, resolved: ResolvedNode, given: Sequence[SSAValue]) -> bool:
        """Whether a plain int went to a dtype/layout/memory-format parameter (`x.view(6)` is not `view.dtype`)."""
        for i, formal in enumerate(resolved.schema.arguments):
            b = resolved.bindings[i] if i < len(resolved.bindings) else None
            if b is None:
                continue
            st = formal.type.unwrap_optional()
            if (
                st.kind is TypeKind.BASE
                and st.name in ("ScalarType", "Layout", "MemoryFormat")
                and isinstance(given[b].type, TSIntType)
                and given[b] not in self.enum_values
                and not isinstance(given[b].owner, LoadOp)
            ):
                return True
        return False

    def _pack_varargs(
        self, kind: str, args: list[SSAValue], kwargs: list[tuple[str, SSAValue]], node: ast.AST
    ) -> tuple[ResolvedNode, list[SSAValue]] | None:
        """Positional ints (or tensors) passed where the last positional parameter is a list: `x.view(2, 3)`."""
        names = [k for k, _ in kwargs]
        for schema in candidates(kind):
            formal = varargs_list_argument(schema)
            k = sum(1 for a in schema.arguments if not a.kwarg_only) - 1
            if formal is None or k >= len(args) or isinstance(args[k].type, TSListType | TSTupleType):
                continue
            elem = schema_type_to_ts(formal.type.unwrap_optional().elements[0])
            rest = args[k:]
            if not all(is_subtype(v.type, elem) for v in rest):
                continue
            types_ = [*(a.type for a in args[:k]), TSListType(elem), *(v.type for _, v in kwargs)]
            try:
                resolved = resolve_node(kind, types_, names, keyword_only=True)
            except OverloadError:
                continue
            lst = self.emit(ListConstructOp.make(rest, [TSListType(elem)]), node).results[0]
            return resolved, [*args[:k], lst, *(v for _, v in kwargs)]
        return None

    def _default(self, formal: Argument, node: ast.AST) -> SSAValue:
        value = formal.default_value
        st = formal.type.unwrap_optional()
        if value is None:
            return self.const(None, node)
        if st.kind is TypeKind.BASE and st.name == "Device":
            return self.const_device(str(value), node)
        if isinstance(value, list):
            elem = schema_type_to_ts(st.elements[0]) if st.kind is TypeKind.LIST else TSIntType()
            return self.const(value, node, TSListType(elem))
        v = self.const(value, node)
        if st.kind is TypeKind.BASE and st.name in ("ScalarType", "Layout", "MemoryFormat"):
            self.enum_values.add(v)
        return v

    def _apply_conversion(self, value: SSAValue, conv: str | None, formal: Argument, node: ast.AST) -> SSAValue:
        if conv is None:
            return value
        tensor = isinstance(value.type, TSTensorType)
        if conv == "int":
            kind = "aten::IntImplicit" if tensor else "aten::Int"
        elif conv == "float":
            kind = "aten::FloatImplicit" if tensor else "aten::Float"
        elif conv == "Scalar":
            kind = "aten::ScalarImplicit"
        elif conv == "Tensor":
            kind = "prim::NumToTensor"
        elif conv == "Device":
            kind = "aten::device"
        elif conv == "list":
            items = Simple(value).as_values(self, node)
            elem = join_types(items[0].type, items[0].type) if items else TSIntType()
            for v in items[1:]:
                elem = join_types(elem, v.type) if elem is not None else None
            list_t = TSListType(elem or TSAnyType())
            return self.emit(ListConstructOp.make(items, [list_t]), node).results[0]
        elif conv == "repeat":
            n = formal.size or 1
            return self.emit(ListConstructOp.make([value] * n, [TSListType(value.type)]), node).results[0]
        else:
            return value
        return self.call_builtin(kind, [value], [], node)[0]

    def convert(self, value: SSAValue, target: Attribute, node: ast.AST) -> SSAValue:
        """TorchScript's implicit conversions of a value to a declared type (`tryConvertToType`)."""
        t = value.type
        if is_subtype(t, target):
            return value
        inner = target.element if isinstance(target, TSOptionalType) else target
        if isinstance(t, TSTupleType) and isinstance(inner, TSListType):
            items = Simple(value).as_values(self, node)
            if all(is_subtype(v.type, inner.element) for v in items):
                return self.emit(ListConstructOp.make(items, [inner]), node).results[0]
            return value
        kind: str | None = None
        if isinstance(t, TSTensorType):
            kind = {
                TSFloatType: "aten::FloatImplicit", TSIntType: "aten::IntImplicit", TSNumberType: "aten::ScalarImplicit"
            }.get(type(inner))
        elif isinstance(t, TSNumberType):
            kind = {TSFloatType: "aten::Float", TSIntType: "aten::Int"}.get(type(inner))
        elif isinstance(t, TSBoolType):
            kind = {TSFloatType: "aten::Float", TSIntType: "aten::Int", TSNumberType: "aten::Int"}.get(
                type(inner)
            )
        elif isinstance(t, TSStrType) and isinstance(inner, TSDeviceType):
            kind = "aten::device"
        if kind is None:
            return value
        return self.call_builtin(kind, [value], [], node)[0]

    def to_bool(self, value: SSAValue, node: ast.AST) -> SSAValue:
        t = value.type
        if isinstance(t, TSBoolType):
            return value
        if isinstance(t, TSTensorType | TSIntType | TSFloatType):
            return self.call_builtin("aten::Bool", [value], [], node)[0]
        raise self.error(f"could not cast a value of type '{ts_annotation_str(t)}' to bool", node)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _python_type(value: object) -> Attribute:
    if isinstance(value, bool):
        return TSBoolType()
    if isinstance(value, int):
        return TSIntType()
    if isinstance(value, float):
        return TSFloatType()
    if isinstance(value, str):
        return TSStrType()
    return TSAnyType()


