"""Expression and condition emission: operators in TorchScript's spelling
(`a + b` is `aten::add(a, b, 1)`), literals, comprehensions, subscripts and
tensor indexing, calls of SugaredValues, and conditions with the refinements
they imply; statically known conditions compile only the branch taken.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from xdsl.ir import Attribute, Block, Region, SSAValue

from xdsl_exir.dialects.prim import DictConstructOp, IfOp, ListConstructOp, ReturnOp, TupleIndexOp
from xdsl_exir.dialects.ts import (
    TSAnyType,
    TSDictType,
    TSIntType,
    TSListType,
    TSNoneType,
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
from xdsl_exir.frontends.torchscript_script.emitter import BINOPS, CMPOPS, MIRRORED, SCALARS, EmitterBase
from xdsl_exir.frontends.torchscript_script.environment import Cond, Refinements
from xdsl_exir.frontends.torchscript_script.source import NOT_LITERAL, literal_value
from xdsl_exir.frontends.torchscript_script.sugared import Multi, Simple, SpecialForm, TypeName
from xdsl_exir.transforms.convert_to_ssa import bool_constant

if TYPE_CHECKING:
    from xdsl_exir.frontends.torchscript_script.sugared import Sugared


class ExpressionEmitter(EmitterBase):
    """Emits expressions and conditions (with the refinements a condition implies)."""

    # -- conditions --------------------------------------------------------------

    def emit_cond(self, expr: ast.expr) -> Cond:
        if isinstance(expr, ast.BoolOp):
            is_or = isinstance(expr.op, ast.Or)
            cond = self.emit_cond(expr.values[0])
            for rhs in expr.values[1:]:
                cond = self.short_circuit(cond, rhs, is_or, expr)
            return cond
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            inner = self.emit_cond(expr.operand)
            value = self.call_builtin("aten::__not__", [inner.value], [], expr)[0]
            static = None if inner.static is None else not inner.static
            return Cond(value, inner.refinements.negate(), static)
        if isinstance(expr, ast.Compare) and len(expr.ops) == 1 and isinstance(expr.ops[0], ast.Is | ast.IsNot):
            return self.emit_is(expr)
        if isinstance(expr, ast.Compare) and len(expr.ops) > 1:
            # `a < b < c` is `a < b and b < c`, `b` evaluated once, `c` only when needed.
            return Cond(self._chain(expr, 0, self.emit_expr(expr.left)))
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name | ast.Attribute):
            callee = self.emit_sugared(expr.func)
            if isinstance(callee, SpecialForm) and callee.name == "isinstance":
                return self.emit_isinstance(expr)
        value = self.to_bool(self.emit_expr(expr), expr)
        return Cond(value, Refinements(), bool_constant(value))

    def _chain(self, expr: ast.Compare, i: int, left: SSAValue) -> SSAValue:
        right = self.emit_expr(expr.comparators[i])
        part = self.to_bool(self.compare(expr.ops[i], left, right, expr), expr)
        if i == len(expr.ops) - 1:
            return part
        return self.if_expr(
            Cond(part), lambda: self._chain(expr, i + 1, right), lambda: self.const(False, expr), expr
        )

    def short_circuit(self, lhs: Cond, rhs_node: ast.expr, is_or: bool, node: ast.AST) -> Cond:
        rhs_cond: list[Cond] = []

        def emit_rhs() -> SSAValue:
            c = self.emit_cond(rhs_node)
            rhs_cond.append(c)
            return c.value

        def emit_const() -> SSAValue:
            return self.const(is_or, node)

        if is_or:
            value = self.if_expr(lhs, emit_const, emit_rhs, node)
        else:
            value = self.if_expr(lhs, emit_rhs, emit_const, node)
        rhs = rhs_cond[0]
        if is_or:
            refinements = lhs.refinements.either(rhs.refinements)
            static: bool | None = None
            if lhs.static is True or rhs.static is True:
                static = True
            elif lhs.static is not None and rhs.static is not None:
                static = lhs.static or rhs.static
        else:
            refinements = lhs.refinements.both(rhs.refinements)
            static = None
            if lhs.static is False or rhs.static is False:
                static = False
            elif lhs.static is not None and rhs.static is not None:
                static = lhs.static and rhs.static
        return Cond(value, refinements, static)

    def if_expr(
        self, cond: Cond, true_fn: Callable[[], SSAValue], false_fn: Callable[[], SSAValue], node: ast.AST
    ) -> SSAValue:
        """`prim.If` yielding one value computed by each branch."""
        blocks: list[Block] = []
        outs: list[SSAValue] = []
        for refinements, fn in ((cond.refinements.true, true_fn), (cond.refinements.false, false_fn)):
            block = Block()
            with self.scope(block):
                self.insert_refinements(refinements, node)
                outs.append(fn())
            block.add_op(ReturnOp.make([outs[-1]]))
            blocks.append(block)
        unified = join_types(outs[0].type, outs[1].type)
        if unified is None:
            raise self.error(
                f"if-expression's true branch has type '{ts_annotation_str(outs[0].type)}' but its false branch "
                f"has type '{ts_annotation_str(outs[1].type)}'",
                node,
            )
        op = self.emit(IfOp.make([cond.value], [unified], {}, [Region(b) for b in blocks]), node)
        return op.results[0]

    def emit_is(self, expr: ast.Compare) -> Cond:
        lhs = self.emit_expr(expr.left)
        rhs = self.emit_expr(expr.comparators[0])
        is_is = isinstance(expr.ops[0], ast.Is)
        ln, rn = _none_status(lhs.type), _none_status(rhs.type)
        if ln == rn == "always":
            return Cond(self.const(is_is, expr), Refinements(), is_is)
        if {ln, rn} == {"always", "never"}:
            return Cond(self.const(not is_is, expr), Refinements(), not is_is)
        value = self.call_builtin("aten::__is__" if is_is else "aten::__isnot__", [lhs, rhs], [], expr)[0]
        refinements = Refinements()
        var, other, var_t = expr.left, expr.comparators[0], lhs.type
        if isinstance(var, ast.Constant) and var.value is None:
            var, other, var_t = other, var, rhs.type
        if (
            isinstance(var, ast.Name)
            and isinstance(other, ast.Constant)
            and other.value is None
            and isinstance(var_t, TSOptionalType)
        ):
            present = {var.id: var_t.element}
            refinements = Refinements({}, present) if is_is else Refinements(present, {})
        return Cond(value, refinements, None)

    def emit_isinstance(self, expr: ast.Call) -> Cond:
        if len(expr.args) != 2 or expr.keywords:
            raise self.error("isinstance() takes two arguments", expr)
        value = self.emit_expr(expr.args[0])
        targets = expr.args[1].elts if isinstance(expr.args[1], ast.Tuple) else [expr.args[1]]
        types_ = [self.parse_type(t) for t in targets]
        refinements = Refinements()
        if len(types_) == 1 and isinstance(expr.args[0], ast.Name) and is_subtype(types_[0], value.type):
            refinements = Refinements({expr.args[0].id: types_[0]}, {})
        if any(is_subtype(value.type, t) for t in types_):
            return Cond(self.const(True, expr), refinements, True)
        if not any(is_subtype(t, value.type) for t in types_):
            return Cond(self.const(False, expr), refinements, False)
        raise self.error(
            f"isinstance() on a value of type '{ts_annotation_str(value.type)}' is only decided at run time, "
            "which this frontend does not support",
            expr,
        )

    # -- expressions -------------------------------------------------------------

    def emit_expr(self, node: ast.expr, hint: Attribute | None = None) -> SSAValue:
        return self.emit_sugared(node, hint).as_value(self, node)

    def emit_sugared(self, node: ast.expr, hint: Attribute | None = None) -> Sugared:
        if isinstance(node, ast.Constant):
            value = node.value
            if value is None:
                return Simple(self.const(None, node, hint if isinstance(hint, TSOptionalType) else None))
            if isinstance(value, bool | int | float | str):
                return Simple(self.const(value, node))
            raise self.error(f"constants of type {type(value).__name__} are not supported in TorchScript", node)
        if isinstance(node, ast.Name):
            return self.get_var(node.id, node)
        if isinstance(node, ast.Attribute):
            return self.emit_sugared(node.value).attr(self, node.attr, node)
        if isinstance(node, ast.Call):
            return self.emit_call(node, hint)
        if isinstance(node, ast.BinOp):
            return Simple(self.binop(node.op, self.emit_expr(node.left), self.emit_expr(node.right), node))
        if isinstance(node, ast.UnaryOp):
            return Simple(self.unary(node))
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and not isinstance(node.ops[0], ast.Is | ast.IsNot):
            left = self.emit_expr(node.left)
            right = self.emit_expr(node.comparators[0])
            return Simple(self.compare(node.ops[0], left, right, node))
        if isinstance(node, ast.BoolOp | ast.Compare):
            return Simple(self.emit_cond(node).value)
        if isinstance(node, ast.IfExp):
            cond = self.emit_cond(node.test)
            if cond.static is not None:
                return self.emit_sugared(node.body if cond.static else node.orelse, hint)
            value = self.if_expr(
                cond, lambda: self.emit_expr(node.body, hint), lambda: self.emit_expr(node.orelse, hint), node
            )
            return Simple(value)
        if isinstance(node, ast.List):
            return Simple(self.emit_list(node, hint))
        if isinstance(node, ast.Tuple):
            hints: Sequence[Attribute | None] = (
                hint.element_types if isinstance(hint, TSTupleType) and len(hint.element_types) == len(node.elts)
                else [None] * len(node.elts)
            )
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    raise self.error("starred expressions are not supported by this frontend", e)
            return Multi([Simple(self.emit_expr(e, h)) for e, h in zip(node.elts, hints, strict=True)])
        if isinstance(node, ast.Dict):
            return Simple(self.emit_dict(node, hint))
        if isinstance(node, ast.Subscript):
            return self.emit_subscript(node)
        if isinstance(node, ast.JoinedStr):
            return Simple(self.emit_fstring(node))
        if isinstance(node, ast.ListComp):
            return Simple(self.emit_listcomp(node, hint))
        raise self.error(_unsupported_expression(node), node)

    def unary(self, node: ast.UnaryOp) -> SSAValue:
        if isinstance(node.op, ast.Not):
            return self.emit_cond(node).value
        literal = literal_value(node)
        if literal is not NOT_LITERAL:
            return self.const(literal, node)
        value = self.emit_expr(node.operand)
        if isinstance(node.op, ast.USub):
            return self.call_builtin("aten::neg", [value], [], node)[0]
        if isinstance(node.op, ast.UAdd):
            return value
        if isinstance(value.type, TSTensorType):
            return self.call_builtin("aten::bitwise_not", [value], [], node)[0]
        raise self.error(f"'~' is not supported on a value of type '{ts_annotation_str(value.type)}'", node)

    def binop(self, op: ast.operator, lhs: SSAValue, rhs: SSAValue, node: ast.AST) -> SSAValue:
        name = BINOPS.get(type(op))
        if name is None:
            raise self.error(f"the operator {type(op).__name__} is not supported", node)
        lt, rt = lhs.type, rhs.type
        if isinstance(lt, TSTensorType) or isinstance(rt, TSTensorType):
            if name == "floordiv":
                name = "floor_divide"
            if isinstance(lt, SCALARS) and isinstance(rt, TSTensorType):
                # The reflected operators, as TorchScript's builtins write them.
                if name in ("add", "mul"):
                    return self.call_builtin(f"aten::{name}", [rhs, lhs], [], node)[0]
                if name == "sub":
                    neg = self.call_builtin("aten::neg", [rhs], [], node)[0]
                    return self.call_builtin("aten::add", [neg, lhs], [], node)[0]
                if name == "div":
                    rec = self.call_builtin("aten::reciprocal", [rhs], [], node)[0]
                    return self.call_builtin("aten::mul", [rec, lhs], [], node)[0]
        return self.call_builtin(f"aten::{name}", [lhs, rhs], [], node)[0]

    def compare(self, op: ast.cmpop, lhs: SSAValue, rhs: SSAValue, node: ast.AST) -> SSAValue:
        if isinstance(op, ast.In):
            return self.call_builtin("aten::__contains__", [rhs, lhs], [], node)[0]
        if isinstance(op, ast.NotIn):
            contained = self.call_builtin("aten::__contains__", [rhs, lhs], [], node)[0]
            return self.call_builtin("aten::__not__", [contained], [], node)[0]
        if isinstance(op, ast.Is | ast.IsNot):
            kind = "aten::__is__" if isinstance(op, ast.Is) else "aten::__isnot__"
            return self.call_builtin(kind, [lhs, rhs], [], node)[0]
        name = CMPOPS[type(op)]
        if isinstance(lhs.type, SCALARS) and isinstance(rhs.type, TSTensorType):
            return self.call_builtin(f"aten::{MIRRORED[name]}", [rhs, lhs], [], node)[0]
        return self.call_builtin(f"aten::{name}", [lhs, rhs], [], node)[0]

    def emit_list(self, node: ast.List, hint: Attribute | None) -> SSAValue:
        elem_hint = hint.element if isinstance(hint, TSListType) else None
        values: list[SSAValue] = []
        for e in node.elts:
            if isinstance(e, ast.Starred):
                raise self.error("starred expressions are not supported by this frontend", e)
            v = self.emit_expr(e, elem_hint)
            values.append(self.convert(v, elem_hint, e) if elem_hint is not None else v)
        if elem_hint is not None:
            elem = elem_hint
            for v, e in zip(values, node.elts, strict=True):
                if not is_subtype(v.type, elem):
                    raise self.error(
                        f"a list of '{ts_annotation_str(elem)}' cannot hold a '{ts_annotation_str(v.type)}'", e
                    )
        elif not values:
            elem = TSTensorType()
        else:
            elem = unrefined(values[0].type)
            for v, e in zip(values[1:], node.elts[1:], strict=True):
                joined = join_types(elem, unrefined(v.type))
                widened = isinstance(joined, TSOptionalType | TSUnionType) and not isinstance(elem, TSOptionalType)
                if joined is None or widened:
                    raise self.error(
                        f"lists must contain only a single type, found '{ts_annotation_str(elem)}' and "
                        f"'{ts_annotation_str(v.type)}'",
                        e,
                    )
                elem = joined
        return self.emit(ListConstructOp.make(values, [TSListType(elem)]), node).results[0]

    def emit_dict(self, node: ast.Dict, hint: Attribute | None) -> SSAValue:
        key_hint = hint.key if isinstance(hint, TSDictType) else None
        value_hint = hint.value if isinstance(hint, TSDictType) else None
        operands: list[SSAValue] = []
        key_t: Attribute | None = key_hint
        value_t: Attribute | None = value_hint
        for k, v in zip(node.keys, node.values, strict=True):
            if k is None:
                raise self.error("'**' in a dict literal is not supported by this frontend", v)
            kv = self.emit_expr(k, key_hint)
            vv = self.emit_expr(v, value_hint)
            if value_hint is not None:
                vv = self.convert(vv, value_hint, v)
            for value, current, what, n in ((kv, key_t, "keys", k), (vv, value_t, "values", v)):
                joined = value.type if current is None else join_types(current, value.type)
                if joined is None:
                    assert current is not None  # the first key or value always joins
                    raise self.error(
                        f"dict {what} must have a single type, found '{ts_annotation_str(current)}' and "
                        f"'{ts_annotation_str(value.type)}'",
                        n,
                    )
                if what == "keys":
                    key_t = joined
                else:
                    value_t = joined
            operands += [kv, vv]
        t = TSDictType(key_t or TSStrType(), value_t or TSTensorType())
        return self.emit(DictConstructOp.make(operands, [t]), node).results[0]

    def emit_fstring(self, node: ast.JoinedStr) -> SSAValue:
        text = ""
        args: list[SSAValue] = []
        for part in node.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                text += part.value
            elif isinstance(part, ast.FormattedValue) and part.conversion == -1 and part.format_spec is None:
                text += "{}"
                args.append(self.emit_expr(part.value))
            else:
                raise self.error("f-string conversions and format specs are not supported in TorchScript", part)
        return self.call_builtin("aten::format", [self.const(text, node), *args], [], node)[0]

    def emit_listcomp(self, node: ast.ListComp, hint: Attribute | None) -> SSAValue:
        if len(node.generators) != 1 or node.generators[0].is_async:
            raise self.error("only list comprehensions with one 'for' are supported", node)
        gen = node.generators[0]
        self.hidden_count += 1
        tag = f"$lc{self.hidden_count}"
        # The comprehension's variables do not leak: they get hidden names.
        renames = {n.id: f"{n.id}{tag}" for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
        target = _renamed(gen.target, renames)
        elt = _renamed(node.elt, renames)
        ifs = [_renamed(c, renames) for c in gen.ifs]

        def loop_of(inner: ast.stmt) -> ast.For:
            body: list[ast.stmt] = [inner]
            for cond in reversed(ifs):
                body = [ast.copy_location(ast.If(test=cond, body=body, orelse=[]), cond)]
            loop = ast.For(target=target, iter=gen.iter, body=body, orelse=[], type_comment=None)
            ast.copy_location(loop, node)
            return ast.fix_missing_locations(loop)

        if isinstance(hint, TSListType):
            elem = hint.element
        else:
            # Emit once into a scratch block to learn the element type.
            probe = f"$elem{tag}"
            assign = ast.copy_location(ast.Assign(targets=[ast.Name(id=probe, ctx=ast.Store())], value=elt), elt)
            scratch = Block()
            with self.scope(scratch):
                self.emit_for(loop_of(ast.fix_missing_locations(assign)))
            scratch.drop_all_references()
            elem = self.probes.get(probe, TSTensorType())
        name = f"$list{tag}"
        lst = self.emit(ListConstructOp.make([], [TSListType(elem)]), node).results[0]
        self.set_var(name, lst, node)
        append = ast.Expr(
            value=ast.Call(
                func=ast.Attribute(value=ast.Name(id=name, ctx=ast.Load()), attr="append", ctx=ast.Load()),
                args=[elt],
                keywords=[],
            )
        )
        for n in ast.walk(append):
            if n is not elt and not _contains(elt, n):
                ast.copy_location(n, node)
        self.emit_for(loop_of(append))
        return self.get_var(name, node).as_value(self, node)

    def emit_subscript(self, node: ast.Subscript) -> Sugared:
        base = self.emit_sugared(node.value)
        if isinstance(base, TypeName):
            raise self.error("type annotations cannot be used as values", node)
        value = base.as_value(self, node.value)
        t = value.type
        index = node.slice
        if isinstance(t, TSTupleType):
            if isinstance(index, ast.Slice):
                raise self.error("tuple slicing is not supported by this frontend", index)
            i = literal_value(index)
            if not isinstance(i, int) or isinstance(i, bool):
                raise self.error("tuple indices must be integer constants", index)
            n = len(t.element_types)
            j = i + n if i < 0 else i
            if not 0 <= j < n:
                raise self.error(f"tuple index {i} out of range for a tuple of {n} elements", index)
            op = self.emit(TupleIndexOp.make([value, self.const(j, index)], [t.element_types[j]]), node)
            return Simple(op.results[0])
        if isinstance(t, TSListType | TSStrType):
            if isinstance(index, ast.Slice):
                start, end, step = self._slice_parts(index, node)
                return Simple(self.call_builtin("aten::slice", [value, start, end, step], [], node)[0])
            return Simple(self.call_builtin("aten::__getitem__", [value, self.emit_expr(index)], [], node)[0])
        if isinstance(t, TSDictType):
            return Simple(self.call_builtin("aten::__getitem__", [value, self.emit_expr(index)], [], node)[0])
        if isinstance(t, TSTensorType):
            sliced, indices = self.tensor_indexing(value, index, node)
            if indices is not None:
                return Simple(self.call_builtin("aten::index", [sliced, indices], [], node)[0])
            return Simple(sliced)
        raise self.error(f"'{ts_annotation_str(t)}' object is not subscriptable", node)

    def _slice_parts(self, index: ast.Slice, node: ast.AST) -> tuple[SSAValue, SSAValue, SSAValue]:
        start = self.emit_expr(index.lower) if index.lower is not None else self.const(None, node)
        end = self.emit_expr(index.upper) if index.upper is not None else self.const(None, node)
        step = self.emit_expr(index.step) if index.step is not None else self.const(1, node)
        return start, end, step

    def tensor_indexing(self, value: SSAValue, index: ast.expr, node: ast.AST) -> tuple[SSAValue, SSAValue | None]:
        """Int, slice, None and `...` indices as select/slice/unsqueeze; tensor indices for `aten::index`."""
        items = index.elts if isinstance(index, ast.Tuple) else [index]
        x = value
        dim = 0
        tensor_indices: dict[int, SSAValue] = {}
        seen_ellipsis = False
        for k, item in enumerate(items):
            if isinstance(item, ast.Constant) and item.value is Ellipsis:
                if seen_ellipsis:
                    raise self.error("an index can only have a single ellipsis ('...')", item)
                seen_ellipsis = True
                dim = -sum(1 for it in items[k + 1 :] if not (isinstance(it, ast.Constant) and it.value is None))
                continue
            if isinstance(item, ast.Constant) and item.value is None:
                if dim < 0:
                    raise self.error("'None' after '...' in an index is not supported by this frontend", item)
                x = self.call_builtin("aten::unsqueeze", [x, self.const(dim, item)], [], node)[0]
                dim += 1
                continue
            if isinstance(item, ast.Slice):
                start, end, step = self._slice_parts(item, item)
                x = self.call_builtin("aten::slice", [x, self.const(dim, item), start, end, step], [], node)[0]
                dim += 1
                continue
            v = self.emit_expr(item)
            if isinstance(v.type, TSIntType):
                x = self.call_builtin("aten::select", [x, self.const(dim, item), v], [], node)[0]
                if dim < 0:
                    dim += 1
            elif isinstance(v.type, TSTensorType):
                if dim < 0:
                    raise self.error("tensor indices after '...' are not supported by this frontend", item)
                tensor_indices[dim] = v
                dim += 1
            else:
                raise self.error(f"a tensor cannot be indexed by a value of type '{ts_annotation_str(v.type)}'", item)
        if not tensor_indices:
            return x, None
        entries = [
            tensor_indices[d] if d in tensor_indices else self.const(None, node)
            for d in range(max(tensor_indices) + 1)
        ]
        lst = self.emit(ListConstructOp.make(entries, [TSListType(TSOptionalType(TSTensorType()))]), node).results[0]
        return x, lst

    # -- calls -------------------------------------------------------------------

    def emit_call(self, node: ast.Call, hint: Attribute | None) -> Sugared:
        callee = self.emit_sugared(node.func)
        if isinstance(callee, SpecialForm):
            return self.special_form(callee.name, node)
        if isinstance(callee, TypeName):
            raise self.error(f"type '{callee.name}' cannot be called in TorchScript", node)
        for a in node.args:
            if isinstance(a, ast.Starred):
                raise self.error("starred arguments are not supported by this frontend", a)
        args = [self.emit_expr(a) for a in node.args]
        kwargs: list[tuple[str, SSAValue]] = []
        for kw in node.keywords:
            if kw.arg is None:
                raise self.error("'**' arguments are not supported by this frontend", kw.value)
            kwargs.append((kw.arg, self.emit_expr(kw.value)))
        return callee.call(self, node, args, kwargs)

    def special_form(self, name: str, node: ast.Call) -> Sugared:
        if name == "annotate":
            if len(node.args) != 2 or node.keywords:
                raise self.error("torch.jit.annotate takes a type and a value", node)
            t = self.parse_type(node.args[0])
            value = self.convert(self.emit_expr(node.args[1], t), t, node)
            if not is_subtype(value.type, t):
                raise self.error(
                    f"expected an expression of type '{ts_annotation_str(t)}' but found "
                    f"'{ts_annotation_str(value.type)}'",
                    node,
                )
            return Simple(value)
        if name in ("is_scripting", "is_tracing"):
            return Simple(self.const(name == "is_scripting", node))
        if name == "isinstance":
            return Simple(self.emit_isinstance(node).value)
        raise self.error(f"{name}() can only be used as the iterable of a for loop", node)

    # -- statements (the subclass's) --------------------------------------------

    def emit_for(self, stmt: ast.For) -> None:
        """A list comprehension is emitted as the loop it stands for; statements are the subclass's."""
        raise NotImplementedError


def _none_status(t: Attribute) -> str:
    """Whether a value of type `t` is always, maybe or never None."""
    if isinstance(t, TSNoneType):
        return "always"
    if isinstance(t, TSOptionalType | TSAnyType):
        return "maybe"
    if isinstance(t, TSUnionType) and any(isinstance(e, TSNoneType) for e in t.element_types):
        return "maybe"
    return "never"


def _renamed(node: ast.expr, renames: dict[str, str]) -> ast.expr:
    """A copy of `node` with the variables of `renames` renamed."""
    class _Renamer(ast.NodeTransformer):
        def visit_Name(self, n: ast.Name) -> ast.Name:
            if n.id in renames:
                return ast.copy_location(ast.Name(id=renames[n.id], ctx=n.ctx), n)
            return n

    return _Renamer().visit(copy.deepcopy(node))


def _contains(tree: ast.AST, node: ast.AST) -> bool:
    return any(n is node for n in ast.walk(tree))


def _unsupported_expression(node: ast.expr) -> str:
    names = {
        ast.Yield: "'yield' is not supported in TorchScript",
        ast.YieldFrom: "'yield from' is not supported in TorchScript",
        ast.Await: "'await' is not supported in TorchScript",
        ast.Lambda: "lambda functions are not supported in TorchScript",
        ast.GeneratorExp: "generator expressions are not supported in TorchScript",
        ast.SetComp: "set comprehensions are not supported in TorchScript",
        ast.DictComp: "dict comprehensions are not supported by this frontend",
        ast.Set: "sets are not supported in TorchScript",
        ast.NamedExpr: "assignment expressions (':=') are not supported in TorchScript",
        ast.Starred: "starred expressions are not supported by this frontend",
        ast.Slice: "a slice can only be used inside brackets",
    }
    for cls, message in names.items():
        if isinstance(node, cls):
            return message
    return f"{type(node).__name__} expressions are not supported in TorchScript"


