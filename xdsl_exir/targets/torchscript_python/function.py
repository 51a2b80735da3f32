"""
The printer of one function or method body, by the rules of torch's `python_print.cpp`:
constants inlined at their uses, values inlined into their single use in expression-tree order,
names from name hints, and `if`, `for` and `while` statements from `prim::If` and `prim::Loop`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntegerAttr, StringAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.exceptions import DiagnosticException

from xdsl_exir.analysis.overload_resolution import schema_type_to_ts
from xdsl_exir.dialects.prim import (
    BailOutOp,
    BreakStmtOp,
    CallFunctionOp,
    CallMethodOp,
    ConstantChunkOp,
    ConstantOp,
    ContinueStmtOp,
    DictConstructOp,
    EnterOp,
    ExitOp,
    ForkOp,
    GetAttrOp,
    IfOp,
    ListConstructOp,
    ListUnpackOp,
    LoadOp,
    LoopOp,
    PrimOp,
    ReturnOp,
    ReturnStmtOp,
    SetAttrOp,
    StoreOp,
    TupleConstructOp,
    TupleIndexOp,
    TupleUnpackOp,
    UninitializedOp,
    WithOp,
)
from xdsl_exir.dialects.ts import (
    MethodOp,
    NodeOp,
    ScriptModuleOp,
    SlotOp,
    TensorValueAttr,
    TSAnyType,
    TSComplexType,
    TSDeviceType,
    TSDictType,
    TSFunctionType,
    TSListType,
    TSNoneType,
    TSOptionalType,
    TSTupleType,
)
from xdsl_exir.targets.torchscript_python.calls import (
    BUILTIN_CALLS,
    extra_attrs,
    format_attr,
    int_attr,
    method_parameters,
    method_return_annotation,
    necessary_args,
    op_name,
    return_annotation,
    schema_for,
    type_list_attr,
)
from xdsl_exir.targets.torchscript_python.spelling import (
    LONG_LINE,
    RESERVED_NAMES,
    annotation_str,
    attr_value,
    constant_value,
    debug_name_base,
    element_inferable,
    format_complex,
    format_float,
    is_union,
    is_valid_identifier,
    make_valid_identifier,
    qualified_function_name,
    quote_string,
)
from xdsl_exir.targets.torchscript_python.structure import (
    SUBGRAPH_DEF_OPS,
    LoopView,
    block_nodes,
    block_return,
    is_subgraph_node,
    node_kind,
    node_of,
    scanned_blocks,
)
from xdsl_exir.utils.diagnostics import ExirDiagnostic
from xdsl_exir.utils.function_schema import Argument, SchemaType, TypeKind


@dataclass
class ConstantTable:
    """`CONSTANTS.c<N>`: tensors (deduplicated) and strings with non-ASCII characters."""

    values: list[Attribute] = field(default_factory=list[Attribute])

    def index(self, value: Attribute) -> int:
        if isinstance(value, TensorValueAttr):
            for i, v in enumerate(self.values):
                if v == value:
                    return i
        self.values.append(value)
        return len(self.values) - 1


class FunctionPrinter:
    """
    Prints functions into one text (one archive file, or one `.code`),
    sharing what torch shares within a file: the `_N` / `x0` counters and the
    constant table. The names taken start afresh with each function.
    """

    def __init__(self, constants: ConstantTable) -> None:
        self.constants = constants
        self.out: list[str] = []
        self.level = 0
        self.next_id: dict[str, int] = {}
        self.used_names: set[str] = set()
        self.output_inline: set[Operation] = set()
        self.expr_table: dict[SSAValue, str] = {}
        self.ident_refs: dict[SSAValue, str] = {}
        self.visited_split: dict[Operation, int] = {}
        self.seen_constants: set[Operation] = set()
        self.group_ids: dict[str, int] = {}
        self.annotated_unions: set[SSAValue] = set()
        """Optional / Union values already declared with their annotation."""

    # -- text ------------------------------------------------------------
    def text(self) -> str:
        return "".join(self.out)

    def line(self, s: str) -> None:
        self.out.append("  " * self.level + s + "\n")

    def is_long(self, s: str) -> bool:
        return len(s) + self.level * 2 >= LONG_LINE

    # -- names -----------------------------------------------------------
    def gen_name(self, candidate: str) -> str:
        name = candidate
        while name in self.used_names or name in RESERVED_NAMES:
            n = self.next_id.get(name, 0)
            self.next_id[name] = n + 1
            name = candidate + str(n)
        self.used_names.add(name)
        return name

    def unique_name_for(self, v: SSAValue) -> str:
        hint = v.name_hint
        return self.gen_name(make_valid_identifier(debug_name_base(hint)) if hint else "_")

    def assign_unique_names(self, values: Iterable[SSAValue]) -> list[str]:
        names: list[str] = []
        for v in values:
            self.ident_refs[v] = name = self.unique_name_for(v)
            names.append(name)
        return names

    def use_of(self, v: SSAValue) -> str:
        if v in self.ident_refs:
            return self.ident_refs[v]
        if v in self.expr_table:
            return self.expr_table[v]
        owner = node_of(v)
        if owner is not None:
            raise ExirDiagnostic(owner, "this value is used where it is not defined; cannot print it as Python")
        raise DiagnosticException("a block argument is used outside its block; cannot print it as Python")

    def uses_of(self, values: Sequence[SSAValue]) -> str:
        return ", ".join(self.use_of(v) for v in values)

    # -- inlining (torch's scanBlock / scanNode / scanValue) -------------
    def can_inline(self, v: SSAValue) -> bool:
        n = node_of(v)
        if n is None or len(n.results) != 1:
            return False
        use = v.get_unique_use()
        if use is None:
            return False
        user = use.operation
        if v.name_hint and not isinstance(user, ReturnOp):
            return False
        if n.regions:
            return False
        if isinstance(user, LoopOp) and use.index >= 2:
            return False
        if isinstance(user, ForkOp) or node_kind(n) == "prim::isinstance":
            return False
        return True

    @staticmethod
    def previous_non_constant(op: Operation) -> Operation | None:
        p = op.prev_op
        while isinstance(p, ConstantOp):
            p = p.prev_op
        return p

    def scan_value(self, point: Operation | None, v: SSAValue) -> Operation | None:
        n = node_of(v)
        if n is not None and n is point and self.can_inline(v):
            point = self.scan_node(n)
            self.output_inline.add(n)
        elif isinstance(n, ConstantOp):
            self.output_inline.add(n)
        return point

    def scan_node(self, op: Operation) -> Operation | None:
        if op in self.output_inline:
            return op
        for block in scanned_blocks(op):
            self.scan_block(block)
        point = self.previous_non_constant(op)
        for v in reversed(op.operands):
            point = self.scan_value(point, v)
        return point

    def scan_block(self, block: Block) -> None:
        last = block.last_op
        if isinstance(last, ReturnOp):
            self.scan_node(last)
        for op in reversed(block_nodes(block)):
            self.scan_node(op)

    def constant_list(self, block: Block, acc: list[Operation]) -> None:
        """The constants a block uses, in order of first use (printed first)."""
        for op in block.ops:
            for v in op.operands:
                n = node_of(v)
                if isinstance(n, ConstantOp) and n not in self.seen_constants:
                    acc.append(n)
                    self.seen_constants.add(n)
            for inner in scanned_blocks(op):
                self.constant_list(inner, acc)

    # -- long lines ([reordering of inlines]) ----------------------------
    def is_non_constant_inline(self, v: SSAValue) -> bool:
        n = node_of(v)
        return n is not None and not isinstance(n, ConstantOp) and n in self.output_inline

    def split_long_inlines(self, v: SSAValue) -> None:
        use = v.get_unique_use()
        assert use is not None
        to_split: list[SSAValue] = []
        self.scan_long_inlines(use.operation, use.index, to_split)
        for w in reversed(to_split):
            owner = node_of(w)
            assert owner is not None
            self.print_output_definition(owner, self.use_of(w))

    def scan_long_inlines(self, user: Operation, offset: int, acc: list[SSAValue]) -> None:
        seen = self.visited_split.get(user)
        low = seen + 1 if seen is not None else 0
        for i in range(offset, low - 1, -1):
            if self.is_non_constant_inline(user.operands[i]):
                acc.append(user.operands[i])
        self.visited_split[user] = offset
        if seen is None and user in self.output_inline:
            use = user.results[0].get_unique_use()
            assert use is not None
            self.scan_long_inlines(use.operation, use.index - 1, acc)

    # -- statements ------------------------------------------------------
    def print_output_definition(self, op: Operation, expr: str) -> None:
        names = self.assign_unique_names(op.results)
        self.line(f"{', '.join(names)} = {expr}" if names else expr)

    def print_assignment(self, lhs: Sequence[SSAValue], rhs: Sequence[SSAValue]) -> None:
        """`a, b = x, y`; the first assignment of an Optional / Union variable declares its type."""
        if not lhs:
            return
        target = self.uses_of(lhs)
        if len(lhs) == 1:
            v = lhs[0]
            if v not in self.annotated_unions and v not in self.expr_table and is_union(v.type):
                target += f" : {annotation_str(v.type)}"
                self.annotated_unions.add(v)
        self.line(f"{target} = {self.uses_of(rhs)}")

    def requires_annotation(self, lhs: SSAValue, rhs: SSAValue) -> bool:
        """Whether a loop's initial assignment annotates the variable."""
        if is_union(lhs.type):
            if lhs in self.annotated_unions:
                return False
            self.annotated_unions.add(lhs)
            return True
        return lhs.type != rhs.type

    def print_block(self, block: Block, has_other_statements: bool) -> None:
        before = len(self.out)
        for op in block_nodes(block):
            self.print_node(op, print_const=False)
        # torch asks whether the block has nodes; asking whether anything was
        # printed also covers blocks holding only constants.
        if not has_other_statements and len(self.out) == before:
            self.line("pass")

    def print_body(self, block: Block, where: Operation) -> None:
        """A graph's body: long constants first, then its nodes and its return."""
        constants: list[Operation] = []
        self.constant_list(block, constants)
        self.scan_block(block)
        ret = block_return(block, where)
        self.level += 1
        try:
            for c in constants:
                self.print_node(c, print_const=True)
            self.print_block(block, bool(ret.operands))
            if ret.operands:
                self.line(f"return {self.uses_of(ret.operands)}")
        finally:
            self.level -= 1

    def print_node(self, op: Operation, print_const: bool) -> None:
        if not isinstance(op, NodeOp | PrimOp):
            raise ExirDiagnostic(op, "only ts and prim ops print as TorchScript Python")
        if isinstance(op, ConstantOp) and not print_const:
            return
        if isinstance(op, LoopOp) and op.cond_block is not None:
            self.print_frontend_loop(op)
        elif isinstance(op, LoopOp):
            self.print_loop(LoopView(op))
        elif isinstance(op, IfOp):
            self.print_if(op)
        elif isinstance(op, TupleUnpackOp | ListUnpackOp):
            names = self.assign_unique_names(op.results)
            source = self.use_of(op.operands[0])
            self.line(f"{', '.join(names)}, = {source}" if names else source)
        elif isinstance(op, SetAttrOp):
            self.line(f"{self.use_of(op.operands[0])}.{op.attr.data} = {self.use_of(op.operands[1])}")
        elif isinstance(op, ForkOp):
            self.print_fork(op)
        elif isinstance(op, EnterOp):
            self.print_enter(op)
        elif isinstance(op, ExitOp):
            if isinstance(op.prev_op, EnterOp):
                self.line("pass")
            self.level -= 1
        elif isinstance(op, WithOp):
            self.print_with(op)
        elif isinstance(op, SUBGRAPH_DEF_OPS):
            self.print_subgraph_call(op, self.print_subgraph_def(op, op.KIND.partition("::")[2]))
        elif isinstance(op, StoreOp):
            self.line(f"{make_valid_identifier(op.var.data)} = {self.use_of(op.operands[0])}")
        elif isinstance(op, BreakStmtOp):
            self.line("break")
        elif isinstance(op, ContinueStmtOp):
            self.line("continue")
        elif isinstance(op, ReturnStmtOp):
            self.line(f"return {self.uses_of(op.operands)}" if op.operands else "return")
        elif isinstance(op, NodeOp) and op.regions:
            if not is_subgraph_node(op):
                raise ExirDiagnostic(op, f"no Python spelling for a '{op.kind.data}' node with blocks")
            self.print_subgraph_call(op, self.print_subgraph_def(op, make_valid_identifier(op.op_name)))
        else:
            self.print_expression_node(op)

    def print_expression_node(self, op: Operation) -> None:
        rhs = self.rhs(op)
        if op not in self.output_inline or (isinstance(op, ConstantOp) and self.is_long(rhs)):
            self.print_output_definition(op, rhs)
        else:
            v = op.results[0]
            self.expr_table[v] = rhs
            if self.is_long(rhs):
                self.split_long_inlines(v)

    def print_if(self, op: IfOp) -> None:
        self.assign_unique_names(op.results)
        self.line(f"if {self.use_of(op.operands[0])}:")
        self.print_branch(op, op.regions[0].block)
        self.line("else:")
        self.print_branch(op, op.regions[1].block)

    def print_branch(self, op: IfOp, block: Block) -> None:
        self.level += 1
        self.print_block(block, bool(op.results))
        self.print_assignment(op.results, block_return(block, op).operands)
        self.level -= 1

    def print_loop(self, loop: LoopView) -> None:
        op = loop.op
        kind = loop.kind()
        self.assign_unique_names(op.results)
        for block_input, result in zip(loop.body.args[1:], op.results, strict=True):
            self.expr_table[block_input] = self.use_of(result)
        for result, initial in zip(op.results, op.carried, strict=True):
            annotation = f": {annotation_str(result.type)}" if self.requires_annotation(result, initial) else ""
            self.line(f"{self.use_of(result)}{annotation} = {self.use_of(initial)}")
        ret = block_return(loop.body, op)
        if kind == "modified":
            self.print_modified_loop(loop, ret)
            return
        trip = self.assign_unique_names([loop.trip_count])[0]
        if kind == "for":
            self.line(f"for {trip} in range({self.use_of(loop.max_trip_count)}):")
            offset = 1
        else:
            self.line(f"{trip} = {self.use_of(loop.input_cond)}")
            self.line(f"while {trip}:")
            offset = 0
        self.level += 1
        lhs = loop.body.args[offset:]
        self.print_block(loop.body, bool(lhs))
        self.print_assignment(lhs, ret.operands[offset:])
        self.level -= 1

    def print_modified_loop(self, loop: LoopView, ret: ReturnOp) -> None:
        """A loop with a trip count and a condition (torch cannot print it): `for` + `if`/`break`."""
        cond = self.gen_name("_")
        self.line(f"{cond} = {self.use_of(loop.input_cond)}")
        trip = self.assign_unique_names([loop.trip_count])[0]
        self.line(f"for {trip} in range({self.use_of(loop.max_trip_count)}):")
        self.level += 1
        self.line(f"if {cond}:")
        self.level += 1
        self.print_block(loop.body, True)
        lhs = [cond, *(self.use_of(a) for a in loop.body.args[1:])]
        self.line(f"{', '.join(lhs)} = {self.uses_of(ret.operands)}")
        self.level -= 1
        self.line("else:")
        self.line("  break")
        self.level -= 1

    def print_frontend_loop(self, op: LoopOp) -> None:
        """
        The script frontend's loop, its condition still a block of its own
        (before convert-to-ssa): the condition is computed before each trip.
        """
        assert op.cond_block is not None
        body, cond = op.body.block, op.cond_block.block
        initial = op.operands[1:]
        self.assign_unique_names(op.results)
        for block_input, result in zip(body.args[1:], op.results, strict=True):
            self.expr_table[block_input] = self.use_of(result)
        for result, value in zip(op.results, initial, strict=True):
            annotation = f": {annotation_str(result.type)}" if self.requires_annotation(result, value) else ""
            self.line(f"{self.use_of(result)}{annotation} = {self.use_of(value)}")
        trip = self.assign_unique_names([body.args[0]])[0]
        self.line(f"for {trip} in range({self.use_of(op.operands[0])}):")
        self.level += 1
        self.print_block(cond, True)
        self.line(f"if {self.use_of(block_return(cond, op).operands[0])}:")
        self.level += 1
        self.print_block(body, bool(op.results))
        self.print_assignment(body.args[1:], block_return(body, op).operands)
        self.level -= 1
        self.line("else:")
        self.line("  break")
        self.level -= 1

    def print_enter(self, op: EnterOp) -> None:
        text = f"with {self.use_of(op.operands[0])}"
        if op.results and op.results[0].uses:
            text += f" as {self.assign_unique_names([op.results[0]])[0]}"
        self.line(text + ":")
        self.level += 1

    def print_with(self, op: WithOp) -> None:
        body, exit_block = (r.block for r in op.regions)
        self.print_block(body, True)
        if op.results:
            self.print_assignment(op.results, block_return(body, op).operands)
        self.print_block(exit_block, True)

    def print_fork(self, op: ForkOp) -> None:
        """torch's spelling: the subgraph as a closure, run by `fork`."""
        name = self.gen_name("__forked_function")
        self.line(f"def {name}():")
        block = op.subgraph.block
        for arg, v in zip(block.args, op.operands, strict=True):
            self.expr_table[arg] = self.use_of(v)
        self.print_body(block, op)
        self.print_output_definition(op, f"fork({name})")

    def print_subgraph_def(self, op: Operation, short: str) -> str:
        """A subgraph as a nested function taking its inputs; returns its name."""
        n = self.group_ids.get(short, 0)
        self.group_ids[short] = n + 1
        name = self.gen_name(f"{short}_{n}")
        block = op.regions[0].block
        params = [f"{p}: {annotation_str(a.type)}" for p, a in zip(self.assign_unique_names(block.args), block.args)]
        returns = block_return(block, op).operands
        self.line(f"def {name}({', '.join(params)}) -> {return_annotation([v.type for v in returns])}:")
        self.print_body(block, op)
        return name

    def print_subgraph_call(self, op: Operation, name: str) -> None:
        """`r = FusionGroup_0(x, y)`; a subgraph returning more than the node's
        results (a DifferentiableGraph's saved values) gives its first ones."""
        call = f"{name}({self.uses_of(op.operands)})"
        n_returns = len(block_return(op.regions[0].block, op).operands)
        n = len(op.results)
        if n_returns > n:
            call += "[0]" if n == 1 else f"[:{n}]"
        self.print_output_definition(op, call)

    # -- right-hand sides ------------------------------------------------
    def rhs(self, op: Operation) -> str:
        kind = node_kind(op)
        ins = op.operands
        if isinstance(op, ConstantOp):
            return self.constant_rhs(op)
        if isinstance(op, UninitializedOp):
            return f"uninitialized({annotation_str(op.results[0].type)})"
        if isinstance(op, TupleConstructOp):
            return f"({self.uses_of(ins)}{',' if len(ins) == 1 else ''})"
        if isinstance(op, TupleIndexOp):
            return f"({self.use_of(ins[0])})[{self.use_of(ins[1])}]"
        if isinstance(op, ListConstructOp):
            t = op.results[0].type
            literal = f"[{self.uses_of(ins)}]"
            if not ins or (isinstance(t, TSListType) and not element_inferable(t.element)):
                return f"annotate({annotation_str(t)}, {literal})"
            return literal
        if isinstance(op, DictConstructOp):
            t = op.results[0].type
            literal = "{" + ", ".join(
                f"{self.use_of(ins[i])}: {self.use_of(ins[i + 1])}" for i in range(0, len(ins), 2)
            ) + "}"
            if not ins or (isinstance(t, TSDictType) and not (element_inferable(t.key) and element_inferable(t.value))):
                return f"annotate({annotation_str(t)}, {literal})"
            return literal
        if isinstance(op, GetAttrOp):
            field_name = op.attr.data
            if is_valid_identifier(field_name):
                return f"{self.use_of(ins[0])}.{field_name}"
            return f"getattr({self.use_of(ins[0])}, {quote_string(field_name)})"
        if isinstance(op, CallFunctionOp):
            return self.use_of(ins[0]) + "(" + "".join(f"{self.use_of(v)}, " for v in ins[1:]) + ")"
        if isinstance(op, CallMethodOp):
            args = "".join(f"{self.use_of(v)}, " for v in ins[1:])
            return f"({self.use_of(ins[0])}).{op.method.data}({args})"
        if isinstance(op, ConstantChunkOp):
            return f"torch.chunk({self.use_of(ins[0])}, {op.chunks.value.data}, {op.dim.value.data})"
        if isinstance(op, LoadOp):
            return make_valid_identifier(op.var.data)
        special = self.special_rhs(op, kind)
        if special is not None:
            return special
        return self.call_rhs(op, kind)

    def special_rhs(self, op: Operation, kind: str) -> str | None:
        """The node kinds torch prints as Python builtins or syntax."""
        ins = op.operands
        out_type = op.results[0].type if len(op.results) == 1 else None
        if kind in ("aten::ScalarImplicit", "aten::FloatImplicit", "aten::IntImplicit") and out_type:
            return f"annotate({annotation_str(out_type)}, {self.use_of(ins[0])})"
        builtin = BUILTIN_CALLS.get(kind)
        if builtin is not None:
            return f"{builtin}({self.uses_of(ins)})"
        if kind == "aten::__getitem__" and len(ins) == 2:
            container = self.use_of(ins[0])
            if not is_valid_identifier(container):
                container = f"({container})"
            return f"{container}[{self.use_of(ins[1])}]"
        if kind == "prim::TupleSlice" and len(ins) == 1:
            beg, end = (int_attr(op, "beg"), int_attr(op, "end"))
            return f"({self.use_of(ins[0])})[{beg}:{end}]"
        if kind == "prim::CreateObject" and out_type:
            name = annotation_str(out_type)
            return f"{name}.__new__({name})"
        if kind == "aten::_unwrap_optional" and len(ins) == 1 and out_type:
            arg = self.use_of(ins[0])
            if constant_value(ins[0]) is None or isinstance(ins[0].type, TSNoneType):
                arg = f"annotate({annotation_str(TSOptionalType(out_type))}, {arg})"
            return f"torch._unwrap_optional({arg})"
        if kind in ("prim::unchecked_cast", "prim::unchecked_unwrap_optional") and out_type:
            return f"unchecked_cast({annotation_str(out_type)}, {self.use_of(ins[0])})"
        if kind == "prim::isinstance" and len(ins) == 1:
            types = [annotation_str(t) for t in type_list_attr(op, "types")]
            shown = types[0] if len(types) == 1 else "(" + ", ".join(types) + ")"
            return f"isinstance({self.use_of(ins[0])}, {shown})"
        if kind == "prim::tolist" and out_type and ins:
            return f"annotate({annotation_str(out_type)}, {self.use_of(ins[0])}.tolist())"
        if kind == "prim::EnumValue" and len(ins) == 1:
            return f"({self.use_of(ins[0])}).value"
        if kind == "prim::EnumName" and len(ins) == 1:
            return f"({self.use_of(ins[0])}).name"
        return None

    def call_rhs(self, op: Operation, kind: str) -> str:
        """`torch.add(x, y, alpha=2)`: the op's name and its necessary arguments."""
        ns, _, name = kind.partition("::")
        name, _, overload = name.partition(".")
        schema = schema_for(op, ns, name, overload)
        ins = list(op.operands)
        parts: list[str] = []
        if schema is None:
            parts = [self.use_of(v) for v in ins]
        elif schema.is_vararg:
            # torch prints none of the inputs of a `prim::X(...)` call; all of them say more.
            parts = [self.use_of(v) for v in ins]
        else:
            necessary, n_out = necessary_args(schema, ins)
            args = schema.arguments
            for i in range(necessary):
                prefix = f"{args[i].name}=" if i < len(args) and args[i].kwarg_only else ""
                parts.append(prefix + self.use_of(ins[i]))
            if necessary < len(args):
                for i in range(len(args) - n_out, min(len(args), len(ins))):
                    parts.append(f"{args[i].name}={self.use_of(ins[i])}")
        if isinstance(op, BailOutOp) and op.regions:
            parts.append(f"subgraph={self.print_subgraph_def(op, 'BailOut')}")
        parts.extend(f"{k}={format_attr(v)}" for k, v in extra_attrs(op))
        return f"{op_name(ns, name)}({', '.join(parts)})"

    def constant_rhs(self, op: ConstantOp) -> str:
        t = op.results[0].type
        if op.fn_name is not None:
            # The type may know the qualified name (`__torch__.m.helper`), the attribute only `helper`.
            if isinstance(t, TSFunctionType) and "." in t.qualname.data:
                return t.qualname.data
            return qualified_function_name(op.fn_name.data)
        return self.format_constant(op.value, t)

    def format_constant(self, value: Attribute | None, t: Attribute) -> str:
        """A constant as IValue's repr shows it, tensors and non-ASCII strings as `CONSTANTS.c<N>`."""
        if value is None:
            return "None"
        if isinstance(value, IntegerAttr):
            n = value.value.data
            if value.type.width.data == 1:
                return "True" if n else "False"
            return str(n)
        if isinstance(value, FloatAttr):
            return format_float(float(value.value.data))
        if isinstance(value, StringAttr):
            if isinstance(t, TSDeviceType):
                return f"torch.device({quote_string(value.data)})"
            if not value.data.isascii():
                return f"CONSTANTS.c{self.constants.index(value)}"
            return quote_string(value.data)
        if isinstance(value, TensorValueAttr):
            return f"CONSTANTS.c{self.constants.index(value)}"
        if isinstance(value, ArrayAttr):
            items = value.data
            if isinstance(t, TSComplexType) and len(items) == 2:
                re, im = (attr_value(x, TSAnyType()) for x in items)
                return format_complex(float(re), float(im))  # pyright: ignore[reportArgumentType] - a complex constant's parts are floats
            if isinstance(t, TSTupleType):
                shown = [self.format_constant(x, e) for x, e in zip(items, t.element_types)]
                return f"({', '.join(shown)}{',' if len(shown) == 1 else ''})"
            elem = t.element if isinstance(t, TSListType) else TSAnyType()
            literal = "[" + ", ".join(self.format_constant(x, elem) for x in items) + "]"
            if not items or not element_inferable(elem):
                return f"annotate({annotation_str(t)}, {literal})"
            return literal
        raise DiagnosticException(f"no Python spelling for the constant {value}")

    def format_default(self, arg: Argument) -> str:
        """A schema default, as torch prints it after `=`."""
        return self.format_python_value(arg.default_value, arg.type)

    def format_python_value(self, value: object, st: SchemaType) -> str:
        inner = st.unwrap_optional()
        if value is None:
            return "None"
        if isinstance(value, bool):
            return "True" if value else "False"
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            return format_float(value)
        if isinstance(value, complex):
            return format_complex(value.real, value.imag)
        if isinstance(value, str):
            if inner.kind is TypeKind.BASE and inner.name == "Device":
                return f"torch.device({quote_string(value)})"
            return quote_string(value)
        if isinstance(value, list | tuple):
            elem = inner.elements[0] if inner.kind is TypeKind.LIST and inner.elements else inner
            literal = "[" + ", ".join(self.format_python_value(x, elem) for x in value) + "]"
            if not value:
                return f"annotate({annotation_str(schema_type_to_ts(inner))}, {literal})"
            return literal
        return str(value)

    # -- functions -------------------------------------------------------
    def print_function(self, method: MethodOp, first_arg_typed: bool, is_method: bool = False) -> None:
        """`def name(args) -> T:` and the body (a method's first input is `self`)."""
        self.used_names.clear()
        block = method.body.block
        params = method_parameters(method, is_method)
        text = f"def {method.sym_name.data}("
        for i, ((name, ann, default), value) in enumerate(zip(params, block.args, strict=True)):
            arg_name = self.gen_name(name)
            if i == 0:
                text += arg_name + (f": {ann}" if first_arg_typed else "")
            else:
                text += f",\n    {arg_name}: {ann}"
            if i > 0 or first_arg_typed:
                self.annotated_unions.add(value)
            if default is not None:
                text += "=" + self.format_default(default)
            self.ident_refs[value] = arg_name
        # The frontend's variables (prim.Store / prim.Load) keep their names;
        # no other value may take one.
        for op in method.walk():
            if isinstance(op, StoreOp | LoadOp):
                self.used_names.add(make_valid_identifier(op.var.data))
        self.line(f"{text}) -> {method_return_annotation(method)}:")
        self.print_body(block, method)

    def print_class(self, module: ScriptModuleOp) -> None:
        """A module's class: parameter and buffer lists, attribute annotations, methods."""
        self.line(f"class {module.class_name.data.rpartition('.')[2]}(Module):")
        self.level += 1
        slots = module.slots()
        params = "".join(f'"{s.sym_name.data}", ' for s in slots if s.kind.data == "parameter")
        buffers = "".join(f'"{s.sym_name.data}", ' for s in slots if s.kind.data == "buffer")
        self.line(f"__parameters__ = [{params}]")
        self.line(f"__buffers__ = [{buffers}]")
        members = [op for op in module.body.ops if isinstance(op, SlotOp | ScriptModuleOp)]
        for i, member in enumerate(members):
            name = member.sym_name.data
            ann = annotation_str(member.slot_type) if isinstance(member, SlotOp) else member.class_name.data
            if is_valid_identifier(name):
                self.line(f"{name} : {ann}")
            else:
                if i == 0:
                    self.line("__annotations__ = []")
                self.line(f'__annotations__["{name}"] = {ann}')
        for method in module.methods():
            self.print_function(method, first_arg_typed=True, is_method=True)
        self.level -= 1
