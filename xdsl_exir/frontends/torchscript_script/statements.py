"""Statement emission and the function as a whole: assignments, augmented
assignments, `return`/`raise`/`assert`, `if` (with output-less blocks and the
variables both branches define), `for` and `while` loops (`prim.Loop` with a
separate condition block), `break` and `continue`, in the frontend's
Store/Load form that `convert-to-ssa` and `exit-transform` take over.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, Block, Region, SSAValue

from xdsl_exir.dialects.prim import (
    INT64_MAX,
    BreakStmtOp,
    ContinueStmtOp,
    IfOp,
    LoopOp,
    RaiseExceptionOp,
    ReturnOp,
    ReturnStmtOp,
    StoreOp,
    UninitializedOp,
)
from xdsl_exir.dialects.ts import (
    MethodOp,
    TSIntType,
    TSListType,
    TSNoneType,
    TSStrType,
    TSTensorType,
    TSTupleType,
    is_subtype,
    join_types,
    ts_annotation_str,
    ts_type_str,
)
from xdsl_exir.frontends.torchscript_script.emitter import INPLACE, SCALARS
from xdsl_exir.frontends.torchscript_script.expressions import ExpressionEmitter
from xdsl_exir.frontends.torchscript_script.source import NOT_LITERAL, literal_value
from xdsl_exir.frontends.torchscript_script.sugared import (
    EnumConstant,
    EnumerateIter,
    ExceptionClass,
    ExceptionInstance,
    Multi,
    NoneValue,
    PyConstant,
    RangeIter,
    Simple,
    SpecialForm,
    UnrolledIter,
    ZipIter,
)
from xdsl_exir.transforms.convert_to_ssa import set_name
from xdsl_exir.utils.function_schema import SchemaParseError, parse_schema

if TYPE_CHECKING:
    from xdsl_exir.frontends.torchscript_script.environment import Cond, Frame
    from xdsl_exir.frontends.torchscript_script.sugared import Iterable, Sugared


class FunctionEmitter(ExpressionEmitter):
    """Emits one function definition into a `ts.method` in the frontend's Store/Load form."""

    # -- the function ------------------------------------------------------------

    def run(self) -> None:
        fdef = self.fdef
        args = fdef.args
        if args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg:
            raise self.error(
                "TorchScript functions take plain positional parameters only (no *args, **kwargs or "
                "keyword-only parameters)",
                fdef,
            )
        params = [a.arg for a in args.args]
        if params and params[0] == "self":
            raise self.error("methods of classes and modules are not supported by this frontend", fdef)
        param_types: list[Attribute] = [
            self.parse_type(a.annotation) if a.annotation is not None else TSTensorType() for a in args.args
        ]
        defaults: dict[str, object] = {}
        for a, d in zip(args.args[len(args.args) - len(args.defaults) :], args.defaults, strict=True):
            value = literal_value(d)
            if value is NOT_LITERAL:
                raise self.error(f"the default of parameter '{a.arg}' must be a constant", d)
            defaults[a.arg] = value
        self.entry.params, self.entry.param_types, self.entry.defaults = params, param_types, defaults
        if fdef.returns is not None:
            self.declared_return = self.parse_type(fdef.returns)

        block = Block(arg_types=param_types)
        with self.scope(block):
            for a, arg_value in zip(args.args, block.args, strict=True):
                set_name(arg_value, a.arg)
                self.set_var(a.arg, arg_value, a)
            body = fdef.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                body = body[1:]  # the docstring
            self.emit_statements(body)
            if block not in self.exit_blocks:
                # Falling off the end returns None.
                declared = self.declared_return
                if declared is not None and not is_subtype(TSNoneType(), declared):
                    raise self.error(
                        "function was not annotated as returning None, but does not return along all paths", fdef
                    )
                self.emit_return_value(self.const(None, fdef, None), fdef)
            elif self.merged_return is None:
                # Always raises: the declared type, else None.
                self.merged_return = self.declared_return or TSNoneType()
            ret = self.merged_return
            assert ret is not None
            placeholder = self.emit(UninitializedOp.make([], [ret]), fdef)
            block.add_op(ReturnOp.make([placeholder.results[0]]))
        self.entry.return_type = ret
        schema: str | None = _schema_text(fdef.name, params, param_types, defaults, ret)
        try:
            schema = str(parse_schema(schema))
        except SchemaParseError:
            schema = None  # a type the schema grammar cannot spell
        method = MethodOp(fdef.name, Region(block), schema)
        method.location = self.src.loc(fdef)
        self.entry.method = method

    # -- statements --------------------------------------------------------------

    def emit_statements(self, stmts: Sequence[ast.stmt]) -> None:
        for stmt in stmts:
            self.emit_statement(stmt)
            if self.block in self.exit_blocks:
                return  # the rest of the block is unreachable

    def emit_statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Assign):
            self.emit_assign(stmt)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is None:
                raise self.error("a variable annotation needs a value in TorchScript", stmt)
            if not isinstance(stmt.target, ast.Name):
                raise self.error("only variables can be annotated", stmt.target)
            t = self.parse_type(stmt.annotation)
            value = self.emit_expr(stmt.value, t)
            value = self.convert(value, t, stmt.value)
            self.set_var(stmt.target.id, value, stmt.target, annotated=t)
        elif isinstance(stmt, ast.AugAssign):
            self.emit_aug_assign(stmt)
        elif isinstance(stmt, ast.Expr):
            if isinstance(stmt.value, ast.Constant):
                return  # a string statement, `...`
            self.emit_sugared(stmt.value)
        elif isinstance(stmt, ast.If):
            cond = self.emit_cond(stmt.test)
            self.emit_if_else(stmt, cond, stmt.body, stmt.orelse)
        elif isinstance(stmt, ast.While):
            if stmt.orelse:
                raise self.error("'else' on a while loop is not supported in TorchScript", stmt)
            self.emit_loop(stmt, None, stmt.test, None, None, stmt.body)
        elif isinstance(stmt, ast.For):
            self.emit_for(stmt)
        elif isinstance(stmt, ast.Return):
            self.emit_return(stmt)
        elif isinstance(stmt, ast.Raise):
            self.emit_raise(stmt)
        elif isinstance(stmt, ast.Assert):
            self.emit_assert(stmt)
        elif isinstance(stmt, ast.Break | ast.Continue):
            word = "break" if isinstance(stmt, ast.Break) else "continue"
            if not self.loops:
                raise self.error(f"'{word}' outside loop", stmt)
            if self.loops[-1] == "unrolled":
                raise self.error(
                    f"'{word}' is not supported in a loop over a tuple (TorchScript unrolls those loops)", stmt
                )
            op = BreakStmtOp.make() if isinstance(stmt, ast.Break) else ContinueStmtOp.make()
            self.emit(op, stmt)
        elif isinstance(stmt, ast.Pass):
            pass
        else:
            raise self.error(_unsupported_statement(stmt), stmt)

    def emit_assign(self, stmt: ast.Assign) -> None:
        # `a = b = v`: v once, then each target from left to right.
        value = self.emit_sugared(stmt.value)
        for target in stmt.targets:
            self.assign_target(target, value, stmt.value)

    def assign_target(self, target: ast.expr, value: Sugared, rhs: ast.AST) -> None:
        if isinstance(target, ast.Name):
            if isinstance(value, Simple | Multi | NoneValue | PyConstant | EnumConstant):
                self.set_var(target.id, value.as_value(self, rhs), target)
            else:
                if self.env.find_type(target.id) is not None:
                    raise self.error(f"cannot assign {value.describe()} to the variable '{target.id}'", target)
                self.env.sugared[target.id] = value
        elif isinstance(target, ast.Tuple | ast.List):
            if any(isinstance(e, ast.Starred) for e in target.elts):
                raise self.error("starred assignment targets are not supported by this frontend", target)
            items = value.as_tuple(self, len(target.elts), rhs)
            for t, v in zip(target.elts, items, strict=True):
                self.assign_target(t, v, rhs)
        elif isinstance(target, ast.Subscript):
            self.emit_subscript_assign(target, value.as_value(self, rhs), rhs)
        elif isinstance(target, ast.Attribute):
            raise self.error("assigning to attributes needs a module or class, which this frontend does not support",
                             target)
        else:
            raise self.error("unexpected expression on the left-hand side of an assignment", target)

    def emit_subscript_assign(self, target: ast.Subscript, value: SSAValue, rhs: ast.AST) -> None:
        base = self.emit_expr(target.value)
        t = base.type
        if isinstance(t, TSTensorType):
            sliced, indices = self.tensor_indexing(base, target.slice, target)
            if isinstance(value.type, SCALARS):
                dtype = self.call_builtin("prim::dtype", [sliced], [], target)[0]
                device = self.call_builtin("prim::device", [sliced], [], target)[0]
                value = self.call_builtin("aten::tensor", [value], [("dtype", dtype), ("device", device)], target)[0]
            if indices is not None:
                self.call_builtin("aten::index_put_", [sliced, indices, value], [], target)
            else:
                self.call_builtin("aten::copy_", [sliced, value], [], target)
            return
        if isinstance(target.slice, ast.Slice):
            raise self.error("sliced assignment is only supported on tensors", target)
        if isinstance(t, TSTupleType):
            raise self.error("tuples do not support subscripted assignment", target)
        index = self.emit_expr(target.slice)
        self.call_builtin("aten::_set_item", [base, index, value], [], target)

    def emit_aug_assign(self, stmt: ast.AugAssign) -> None:
        target = stmt.target
        if isinstance(target, ast.Name):
            lhs = self.get_var(target.id, target).as_value(self, target)
            rhs = self.emit_expr(stmt.value)
            if isinstance(lhs.type, TSTensorType | TSListType) and type(stmt.op) in INPLACE:
                result = self.call_builtin(f"aten::{INPLACE[type(stmt.op)]}", [lhs, rhs], [], stmt)[0]
            else:
                result = self.binop(stmt.op, lhs, rhs, stmt)
            self.set_var(target.id, result, target)
        elif isinstance(target, ast.Subscript):
            base = self.emit_expr(target.value)
            if isinstance(base.type, TSTensorType):
                sliced, indices = self.tensor_indexing(base, target.slice, target)
                if indices:
                    raise self.error("augmented assignment with tensor indices is not supported by this frontend",
                                     target)
                rhs = self.emit_expr(stmt.value)
                if type(stmt.op) not in INPLACE:
                    raise self.error("this augmented assignment is not supported on tensors", stmt)
                self.call_builtin(f"aten::{INPLACE[type(stmt.op)]}", [sliced, rhs], [], stmt)
                return
            if isinstance(target.slice, ast.Slice):
                raise self.error("sliced augmented assignment is not supported", target)
            index = self.emit_expr(target.slice)
            rhs = self.emit_expr(stmt.value)
            item = self.call_builtin("aten::__getitem__", [base, index], [], stmt)[0]
            new = self.binop(stmt.op, item, rhs, stmt)
            self.call_builtin("aten::_set_item", [base, index, new], [], stmt)
        else:
            raise self.error("unexpected expression on the left-hand side of an augmented assignment", target)

    def emit_return(self, stmt: ast.Return) -> None:
        if stmt.value is None:
            value = self.const(None, stmt)
        else:
            value = self.emit_expr(stmt.value, self.declared_return)
        self.emit_return_value(value, stmt)

    def emit_return_value(self, value: SSAValue, node: ast.AST) -> None:
        declared = self.declared_return
        if declared is not None:
            if not (is_subtype(declared, TSTensorType()) and isinstance(value.type, TSNoneType)):
                value = self.convert(value, declared, node)
            if not is_subtype(value.type, declared):
                raise self.error(
                    f"return value was annotated as having type '{ts_annotation_str(declared)}' but is actually of "
                    f"type '{ts_annotation_str(value.type)}'",
                    node,
                )
            merged = declared
        else:
            previous = self.merged_return or value.type
            joined = join_types(previous, value.type)
            if joined is None:
                raise self.error(
                    f"previous return statement returned a value of type '{ts_annotation_str(previous)}' but this "
                    f"return statement returns a value of type '{ts_annotation_str(value.type)}'",
                    node,
                )
            merged = joined
        self.merged_return = merged
        self.emit(ReturnStmtOp.make([value]), node)
        self.exit_blocks.add(self.block)

    def emit_raise(self, stmt: ast.Raise) -> None:
        assert_message = getattr(stmt, "exir_assert_message", None)
        if assert_message is not None:
            # TorchScript's assert: the whole text as the message, no class.
            message = self.const(assert_message, stmt)
            self.emit(RaiseExceptionOp.make([message, self.const(None, stmt)], []), stmt)
            self.exit_blocks.add(self.block)
            return
        if stmt.exc is None:
            raise self.error("a bare 'raise' (re-raise) is not supported in TorchScript", stmt)
        if stmt.cause is not None:
            raise self.error("'raise ... from ...' is not supported in TorchScript", stmt)
        exc = self.emit_sugared(stmt.exc)
        if isinstance(exc, ExceptionClass):
            exc = ExceptionInstance(None, exc.name)
        if not isinstance(exc, ExceptionInstance):
            raise self.error("exceptions must derive from BaseException", stmt.exc)
        message = exc.message if exc.message is not None else self.const("", stmt)
        if not isinstance(message.type, TSStrType):
            message = self.call_builtin("aten::str", [message], [], stmt)[0]
        cls = self.const(f"builtins.{exc.name}", stmt.exc)
        self.emit(RaiseExceptionOp.make([message, cls], []), stmt)
        self.exit_blocks.add(self.block)

    def emit_assert(self, stmt: ast.Assert) -> None:
        cond = self.emit_cond(stmt.test)
        text = "AssertionError: "
        if stmt.msg is not None:
            literal = literal_value(stmt.msg)
            if not isinstance(literal, str):
                raise self.error("the message of an assert must be a string literal in this frontend", stmt.msg)
            text += literal
        failing = ast.copy_location(ast.Raise(exc=ast.Name(id="AssertionError", ctx=ast.Load()), cause=None), stmt)
        failing.exir_assert_message = text  # pyright: ignore[reportAttributeAccessIssue] - the message rides on the synthesized ast node
        self.emit_if_else(stmt, cond, [], [failing])

    # -- control flow ------------------------------------------------------------

    def emit_branch(self, block: Block, stmts: Sequence[ast.stmt], refinements: dict[str, Attribute],
                    node: ast.AST) -> Frame:
        with self.scope(block) as frame:
            self.insert_refinements(refinements, node)
            self.emit_statements(stmts)
        return frame

    def emit_if_else(self, node: ast.stmt, cond: Cond, body: Sequence[ast.stmt], orelse: Sequence[ast.stmt]) -> None:
        if cond.static is not None:
            # Meta-programming: only the branch taken is compiled.
            self.insert_refinements(cond.refinements.true if cond.static else cond.refinements.false, node)
            self.emit_statements(body if cond.static else orelse)
            return
        then_block, else_block = Block(), Block()
        saved_true = self.emit_branch(then_block, body, cond.refinements.true, node)
        saved_false = self.emit_branch(else_block, orelse, cond.refinements.false, node)
        true_exits = then_block in self.exit_blocks
        false_exits = else_block in self.exit_blocks
        if true_exits and false_exits:
            self.exit_blocks.add(self.block)
        frame = self.env
        mutated: set[str] = set()
        for v in saved_true.types:
            if saved_false.find_type(v) is not None or false_exits:
                mutated.add(v)
            else:
                frame.errors[v] = self.error(f"{v} is not defined in the false branch", node)
        for v in saved_false.types:
            if saved_true.find_type(v) is not None or true_exits:
                mutated.add(v)
            else:
                frame.errors[v] = self.error(f"{v} is not defined in the true branch", node)
        for name in sorted(mutated):
            if true_exits and false_exits:
                continue
            true_type = saved_true.find_type(name)
            false_type = saved_false.find_type(name)
            if true_exits:
                assert false_type is not None
                true_type = self._uninitialized_store(then_block, name, false_type, node)
            elif false_exits:
                assert true_type is not None
                false_type = self._uninitialized_store(else_block, name, true_type, node)
            assert true_type is not None and false_type is not None
            unified = join_types(true_type, false_type)
            if unified is None:
                err = self.error(
                    f"type mismatch: {name} is set to type '{ts_annotation_str(true_type)}' in the true branch and "
                    f"type '{ts_annotation_str(false_type)}' in the false branch",
                    node,
                )
                if saved_true.find_in_parent(name) is not None or saved_false.find_in_parent(name) is not None:
                    raise err
                frame.errors[name] = err
                frame.types.pop(name, None)
                continue
            frame.types[name] = unified
            frame.errors.pop(name, None)
        for b in (then_block, else_block):
            b.add_op(ReturnOp.make([]))
        # A refinement a branch made is one of its assignments: when the other
        # branch exits, the refined variable leaves the `if` with that type.
        self.emit(IfOp.make([cond.value], [], {}, [Region(then_block), Region(else_block)]), node)

    def _uninitialized_store(self, block: Block, name: str, t: Attribute, node: ast.AST) -> Attribute:
        with self.inserting(block):
            value = self.emit(UninitializedOp.make([], [t]), node).results[0]
            self.emit(StoreOp.make([value], [], {"name": StringAttr(name)}), node)
        return t

    def emit_for(self, stmt: ast.For) -> None:
        if stmt.orelse:
            raise self.error("'else' on a for loop is not supported in TorchScript", stmt)
        iterable = self.iterable(stmt.iter)
        if isinstance(iterable, UnrolledIter):
            self.loops.append("unrolled")
            try:
                for item in iterable.items:
                    self.assign_target(stmt.target, item, stmt)
                    self.emit_statements(stmt.body)
                    if self.block in self.exit_blocks:
                        break
            finally:
                self.loops.pop()
            return
        trip = iterable.length(self, stmt.iter if isinstance(iterable, RangeIter) and iterable.start is None
                               else stmt)
        self.emit_loop(stmt, trip, None, iterable, stmt.target, stmt.body)

    def iterable(self, node: ast.expr) -> Iterable:
        """What `for ... in node` iterates over."""
        if isinstance(node, ast.Call):
            callee = self.emit_sugared(node.func)
            if isinstance(callee, SpecialForm) and callee.name in ("range", "enumerate", "zip"):
                if node.keywords and callee.name != "enumerate":
                    raise self.error(f"{callee.name}() takes no keyword arguments", node)
                if callee.name == "range":
                    args = [self.emit_expr(a) for a in node.args]
                    if not 1 <= len(args) <= 3 or not all(isinstance(a.type, TSIntType) for a in args):
                        raise self.error("range() takes one to three int arguments", node)
                    if len(args) == 1:
                        return RangeIter(None, args[0], None)
                    return RangeIter(args[0], args[1], args[2] if len(args) == 3 else None)
                if callee.name == "enumerate":
                    if len(node.args) != 1:
                        raise self.error("enumerate() takes one iterable", node)
                    inner = self.iterable(node.args[0])
                    start: SSAValue | None = None
                    for kw in node.keywords:
                        if kw.arg != "start":
                            raise self.error(f"enumerate() got an unexpected keyword argument '{kw.arg}'", node)
                        start = self.emit_expr(kw.value)
                    if isinstance(inner, UnrolledIter):
                        raise self.error("enumerate() over a tuple is not supported", node)
                    return EnumerateIter(inner, start)
                inners = [self.iterable(a) for a in node.args]
                if not inners or any(isinstance(i, UnrolledIter) for i in inners):
                    raise self.error("zip() takes lists, strings or tensors", node)
                return ZipIter(inners)
        return self.emit_sugared(node).iterate(self, node)

    def emit_loop(
        self,
        node: ast.stmt | ast.expr,
        trip: SSAValue | None,
        cond: ast.expr | None,
        iterable: Iterable | None,
        target: ast.expr | None,
        body: Sequence[ast.stmt],
    ) -> None:
        if trip is None:
            trip = self.const(INT64_MAX, node)
        body_block = Block(arg_types=[TSIntType()])
        cond_block = Block()
        if cond is not None:
            with self.scope(cond_block):
                out = self.to_bool(self.emit_expr(cond), cond)
        else:
            out = self.const(True, node)
        cond_block.add_op(ReturnOp.make([out]))
        self.loops.append("loop")
        try:
            with self.scope(body_block):
                if iterable is not None and target is not None:
                    item = iterable.item(self, body_block.args[0], node)
                    self.assign_target(target, item, node)
                self.emit_statements(body)
        finally:
            self.loops.pop()
        body_block.add_op(ReturnOp.make([]))
        self.emit(LoopOp.make([trip], [], {}, [Region(body_block), Region(cond_block)]), node)


def _format_default(value: object) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def _schema_text(
    name: str, params: list[str], types_: list[Attribute], defaults: dict[str, object], ret: Attribute
) -> str:
    args = []
    for p, t in zip(params, types_, strict=True):
        text = f"{ts_type_str(t)} {p}"
        if p in defaults:
            text += "=" + _format_default(defaults[p])
        args.append(text)
    ret_text = ts_type_str(ret)
    if isinstance(ret, TSTupleType):
        ret_text = f"({ret_text})"
    return f"{name}({', '.join(args)}) -> {ret_text}"


def _unsupported_statement(stmt: ast.stmt) -> str:
    names = {
        ast.With: "'with' statements are not supported by this frontend",
        ast.AsyncWith: "'async with' is not supported in TorchScript",
        ast.Try: "'try' statements are not supported in TorchScript",
        ast.ClassDef: "class definitions are not supported by this frontend",
        ast.FunctionDef: "nested function definitions are not supported by this frontend",
        ast.AsyncFunctionDef: "async functions are not supported in TorchScript",
        ast.Global: "'global' is not supported in TorchScript",
        ast.Nonlocal: "'nonlocal' is not supported in TorchScript",
        ast.Import: "'import' inside a function is not supported in TorchScript",
        ast.ImportFrom: "'import' inside a function is not supported in TorchScript",
        ast.Delete: "'del' is not supported by this frontend",
        ast.AsyncFor: "'async for' is not supported in TorchScript",
    }
    for cls, message in names.items():
        if isinstance(stmt, cls):
            return message
    if type(stmt).__name__ in ("Match", "TryStar"):
        return f"'{type(stmt).__name__.lower()}' statements are not supported in TorchScript"
    return f"{type(stmt).__name__} statements are not supported in TorchScript"


