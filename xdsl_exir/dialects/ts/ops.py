"""
The ops of the `ts` dialect: `ts.module` (a Module of slots and methods), `ts.slot`,
`ts.method` (a Method or free function whose region is its graph) and `ts.node` (a Node of
any kind with no dedicated op); tensor constants (`TensorValueAttr`); the canonicalization
trait that brings TorchScript's peepholes; and the `TS` dialect.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import ArrayAttr, Builtin, DictionaryAttr, IntAttr, StringAttr, SymbolNameConstraint
from xdsl.ir import Attribute, Block, Dialect, ParametrizedAttribute, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.pattern_rewriter import RewritePattern
from xdsl.printer import Printer
from xdsl.traits import (
    HasCanonicalizationPatternsTrait,
    IsolatedFromAbove,
    NoTerminator,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException

from xdsl_exir.dialects.exir import DenseBlobAttr
from xdsl_exir.dialects.ts.types import (
    SCALAR_TYPES,
    TS_TYPES,
    TSClassType,
    TSNoneType,
    TSTensorType,
    ts_type_str,
    type_name,
)
from xdsl_exir.utils.function_schema import SchemaParseError, parse_schema
from xdsl_exir.utils.mlir_parser import HexBlob, ResourceParser, declare_blob
from xdsl_exir.utils.tensor_data import array_from_bytes, bytes_from_array
from xdsl_exir.utils.xdsl_compat import parse_resource_handle

# ---------------------------------------------------------------------------
# Attributes: tensor constants
# ---------------------------------------------------------------------------


@irdl_attr_definition
class TensorValueAttr(ParametrizedAttribute):
    """
    A tensor constant: `#ts.tensor_value<Float, [2, 2], dense_resource<key>>`,
    the bytes in the file's resources as an `exir.state`'s are (read, and decoded
    when first used, the same way); the older inline `#exir.blob<"0x...">` still
    reads. Dumps print only 0-d tensor values (`value={2}`); larger ones appear as
    `<Tensor>`, whose data is unknown (`data` is then an empty blob, printed
    `#exir.blob<"0x">`: there are no bytes to put in the resources).
    """

    name = "ts.tensor_value"

    scalar: StringAttr
    sizes: ArrayAttr[IntAttr]
    data: DenseBlobAttr

    def __init__(self, scalar: str, sizes: Sequence[int], data: bytes | None) -> None:
        super().__init__(StringAttr(scalar), ArrayAttr(IntAttr(s) for s in sizes), DenseBlobAttr(data or b""))

    @property
    def known(self) -> bool:
        """Whether the data is there (a blob still to decode is: only an empty one in memory is not)."""
        return not self.data.decoded or bool(self.data.data) or any(s.data == 0 for s in self.sizes.data)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(s.data for s in self.sizes.data)

    def to_array(self) -> np.ndarray:
        """The data as an array (bfloat16 and float8 as ml_dtypes arrays); raises `TensorDataError` if it does not fit."""
        return array_from_bytes(self.data.data, SCALAR_TYPES[self.scalar.data], self.shape)

    @staticmethod
    def from_array(array: np.ndarray, scalar: str) -> TensorValueAttr:
        """`array` stored as a tensor of TorchScript scalar type `scalar` (bfloat16 rounded to nearest even)."""
        return TensorValueAttr(scalar, array.shape, bytes_from_array(array, SCALAR_TYPES[scalar]))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            scalar = parser.parse_identifier()
            parser.parse_punctuation(",")
            sizes = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
            parser.parse_punctuation(",")
            pos = parser.pos
            if parser.parse_optional_keyword("dense_resource"):
                storage = Builtin.get_interface(OpAsmDialectInterface)
                assert storage is not None
                with parser.in_angle_brackets():
                    # The handle parser xDSL's own `dense_resource` attribute uses (declares the key).
                    key = parse_resource_handle(parser, "builtin", storage)
                source = HexBlob.pending(key)
                data = DenseBlobAttr.from_hex(source)
                if isinstance(parser, ResourceParser):
                    parser.defer_blob(key, source.bind, pos)
            else:
                data = parser.parse_attribute()
        if not isinstance(data, DenseBlobAttr):
            parser.raise_error("expected dense_resource<key> or an #exir.blob", pos)
        return (StringAttr(scalar), ArrayAttr(IntAttr(s) for s in sizes), data)

    def print_parameters(self, printer: Printer) -> None:
        self.print_named(printer, "tensor")

    def print_named(self, printer: Printer, name: str) -> None:
        """The parameters, the data as `dense_resource<key>` with a key made from `name` (a slot's)."""
        with printer.in_angle_brackets():
            printer.print_string(f"{self.scalar.data}, [{', '.join(str(s.data) for s in self.sizes.data)}], ")
            if not self.known:
                printer.print_attribute(self.data)
                return
            key = self.data.left_out or declare_blob(name, self.data.data)  # elided when read: still elided
            printer.print_string("dense_resource<")
            printer.print_resource_handle("builtin", key)
            printer.print_string(">")

    def verify(self) -> None:
        if self.scalar.data not in SCALAR_TYPES:
            raise VerifyException(f"unknown scalar type '{self.scalar.data}'")


# ---------------------------------------------------------------------------
# Structure: modules, methods, slots, the open node op
# ---------------------------------------------------------------------------

SLOT_KINDS = ("parameter", "buffer", "attribute")


@irdl_op_definition
class ScriptModuleOp(IRDLOperation):
    """
    A TorchScript Module: slots, methods and submodules (nested `ts.module`s,
    named by the attribute holding them). `class_name` is its class type.
    """

    name = "ts.module"

    sym_name = prop_def(SymbolNameConstraint())
    class_name = prop_def(StringAttr)
    body = region_def("single_block")

    traits = traits_def(NoTerminator(), SymbolOpInterface(), SymbolTable(), IsolatedFromAbove())

    assembly_format = "$sym_name `class` $class_name attr-dict-with-keyword $body"

    def __init__(self, name: str, class_name: str) -> None:
        super().__init__(
            properties={"sym_name": StringAttr(name), "class_name": StringAttr(class_name)},
            regions=[Region(Block())],
        )

    @property
    def class_type(self) -> TSClassType:
        return TSClassType(self.class_name.data)

    def slots(self) -> list[SlotOp]:
        return [op for op in self.body.ops if isinstance(op, SlotOp)]

    def submodules(self) -> list[ScriptModuleOp]:
        return [op for op in self.body.ops if isinstance(op, ScriptModuleOp)]

    def methods(self) -> list[MethodOp]:
        return [op for op in self.body.ops if isinstance(op, MethodOp)]

    def member(self, name: str) -> SlotOp | ScriptModuleOp | None:
        for op in self.body.ops:
            if isinstance(op, SlotOp | ScriptModuleOp) and op.sym_name.data == name:
                return op
        return None

    def method(self, name: str) -> MethodOp | None:
        for op in self.body.ops:
            if isinstance(op, MethodOp) and op.sym_name.data == name:
                return op
        return None

    def verify_(self) -> None:
        seen: set[str] = set()
        for op in self.body.ops:
            if not isinstance(op, SlotOp | ScriptModuleOp | MethodOp):
                raise VerifyException(f"'{op.name}' cannot appear directly in a ts.module")
            name = op.sym_name.data
            if name in seen:
                raise VerifyException(f"ts.module @{self.sym_name.data} defines '{name}' twice")
            seen.add(name)


@irdl_op_definition
class SlotOp(IRDLOperation):
    """
    A named slot of a module: a parameter, a buffer (tensors, with their data
    as a `#ts.tensor_value`) or another attribute (ints, floats, bools,
    strings, None, lists and tuples of them as builtin attributes).
    """

    name = "ts.slot"

    sym_name = prop_def(SymbolNameConstraint())
    kind = prop_def(StringAttr)
    slot_type = prop_def(Attribute, prop_name="type")
    value = opt_prop_def(Attribute)

    def __init__(self, name: str, kind: str, slot_type: Attribute, value: Attribute | None = None) -> None:
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "kind": StringAttr(kind),
                "type": slot_type,
                "value": value,
            }
        )

    @classmethod
    def parse(cls, parser: Parser) -> SlotOp:
        pos = parser.pos
        kind = parser.parse_identifier()
        if kind not in SLOT_KINDS:
            parser.raise_error(f"expected one of {', '.join(SLOT_KINDS)}", pos)
        name = parser.parse_symbol_name().data
        parser.parse_punctuation(":")
        slot_type = parser.parse_type()
        value = parser.parse_attribute() if parser.parse_optional_punctuation("=") else None
        op = cls(name, kind, slot_type, value)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        if attrs is not None:
            op.attributes.update(attrs.data)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" : ")
        printer.print_attribute(self.slot_type)
        if isinstance(self.value, TensorValueAttr):
            printer.print_string(f" = #{TensorValueAttr.name}")
            self.value.print_named(printer, self.sym_name.data)  # its resource named as the slot
        elif self.value is not None:
            printer.print_string(" = ")
            printer.print_attribute(self.value)
        if self.attributes:
            printer.print_string(" attributes ")
            printer.print_attr_dict(self.attributes)

    def verify_(self) -> None:
        if self.kind.data not in SLOT_KINDS:
            raise VerifyException(f"slot kind must be one of {', '.join(SLOT_KINDS)}, got '{self.kind.data}'")
        if self.kind.data != "attribute" and not isinstance(self.slot_type, TSTensorType):
            raise VerifyException(f"a {self.kind.data} must be a tensor, got {type_name(self.slot_type)}")
        if isinstance(self.value, TensorValueAttr) and isinstance(self.slot_type, TSTensorType):
            st = self.slot_type
            if st.scalar_type is not None and st.scalar_type != self.value.scalar.data:
                raise VerifyException(
                    f"slot @{self.sym_name.data} holds {self.value.scalar.data} data but is typed {ts_type_str(st)}"
                )
            if st.shape is not None and any(d is not None and d != v for d, v in zip(st.shape, self.value.shape)):
                raise VerifyException(f"slot @{self.sym_name.data} holds data of sizes {list(self.value.shape)}"
                                      f" but is typed {ts_type_str(st)}")


@irdl_op_definition
class MethodOp(IRDLOperation):
    """
    A Method (inside a `ts.module`) or a free function: its region is the
    Graph, entry-block arguments are the graph inputs (`self` first for
    methods), the block ends with `prim.Return`. `schema` is its
    FunctionSchema, `forward(__torch__.M self, Tensor x) -> Tensor`.
    """

    name = "ts.method"

    sym_name = prop_def(SymbolNameConstraint())
    schema = opt_prop_def(StringAttr)
    body = region_def("single_block")

    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove())

    def __init__(self, name: str, body: Region, schema: str | None = None) -> None:
        super().__init__(
            properties={"sym_name": StringAttr(name), "schema": StringAttr(schema) if schema else None},
            regions=[body],
        )

    @classmethod
    def parse(cls, parser: Parser) -> MethodOp:
        name = parser.parse_symbol_name().data
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        props: dict[str, Attribute] = {"sym_name": StringAttr(name)}
        if attrs is not None:
            schema = attrs.data.get("schema")
            if schema is not None:
                props["schema"] = schema
        op = cls.create(properties=props, regions=[body])
        if attrs is not None:
            op.attributes.update({k: v for k, v in attrs.data.items() if k != "schema"})
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        extra: dict[str, Attribute] = dict(self.attributes)
        if self.schema is not None:
            extra = {"schema": self.schema, **extra}
        if extra:
            printer.print_string(" attributes ")
            printer.print_attr_dict(extra)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=True, print_empty_block=True)

    @property
    def arg_types(self) -> tuple[Attribute, ...]:
        return tuple(a.type for a in self.body.block.args)

    @property
    def return_types(self) -> tuple[Attribute, ...]:
        last = self.body.block.last_op
        return tuple(v.type for v in last.operands) if last is not None else ()

    def verify_(self) -> None:
        # By name: the prim dialect's ops are typed with this dialect's types, so prim imports ts
        # and ts does not import prim.
        last = self.body.block.last_op
        if last is None or last.name != "prim.Return":
            raise VerifyException(f"ts.method @{self.sym_name.data} must end with prim::Return")
        if self.schema is not None:
            try:
                schema = parse_schema(self.schema.data)
            except SchemaParseError as e:
                raise VerifyException(f"malformed schema of @{self.sym_name.data}: {e}") from e
            if len(schema.arguments) != len(self.body.block.args):
                raise VerifyException(
                    f"schema of @{self.sym_name.data} has {len(schema.arguments)} arguments "
                    f"but the graph has {len(self.body.block.args)} inputs"
                )
            if len(schema.returns) != len(last.operands) and not (
                len(schema.returns) == 0 and len(last.operands) == 1 and isinstance(last.operands[0].type, TSNoneType)
            ):
                raise VerifyException(
                    f"schema of @{self.sym_name.data} has {len(schema.returns)} returns "
                    f"but the graph returns {len(last.operands)} values"
                )


class TSCanonicalization(HasCanonicalizationPatternsTrait):
    """
    The canonicalization trait of `ts.node` and of the prim ops with peepholes, so xDSL's
    stock `canonicalize` applies TorchScript's peepholes. The patterns live in
    `transforms/canonicalization_patterns/prim.py` and are imported on first use, as xDSL's
    own dialects import theirs: loading the dialects never loads them, and they may ask
    the alias analysis, a layer above the dialects.
    """

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        from xdsl_exir.transforms.canonicalization_patterns.prim import PATTERNS

        return PATTERNS


@irdl_op_definition
class NodeOp(IRDLOperation):
    """
    A Node of any kind without an op of its own, `aten::add` included
    (TorchScript resolves the overload from the input types, and so do the
    interpreter and the lowering, against the same schema list as the aten
    dialect). `attrs` holds the node's attributes (`[name="x"]`), and any
    blocks are its regions.
    """

    name = "ts.node"

    kind = prop_def(StringAttr)
    node_attrs = opt_prop_def(DictionaryAttr, prop_name="attrs")
    args = var_operand_def()
    res = var_result_def()
    blocks = var_region_def()

    traits = traits_def(TSCanonicalization())

    def __init__(
        self,
        kind: str,
        operands: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        attrs: dict[str, Attribute] | None = None,
        regions: Sequence[Region] = (),
    ) -> None:
        super().__init__(
            operands=[list(operands)],
            result_types=[list(result_types)],
            properties={"kind": StringAttr(kind), "attrs": DictionaryAttr(attrs) if attrs else None},
            regions=[list(regions)],
        )

    @property
    def namespace(self) -> str:
        return self.kind.data.partition("::")[0]

    @property
    def op_name(self) -> str:
        return self.kind.data.partition("::")[2]

    @classmethod
    def parse(cls, parser: Parser) -> NodeOp:
        kind = parser.parse_str_literal()
        operands = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        regions: list[Region] = []
        if parser.parse_optional_punctuation("("):
            regions = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_region)
            parser.parse_punctuation(")")
        parser.parse_punctuation(":")
        ftype = parser.parse_function_type()
        ops = parser.resolve_operands(operands, ftype.inputs.data, parser.pos)
        props: dict[str, Attribute] = {"kind": StringAttr(kind)}
        if attrs is not None and attrs.data:
            props["attrs"] = attrs
        return cls.create(operands=ops, result_types=list(ftype.outputs.data), properties=props, regions=regions)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.kind.data)
        printer.print_string("(")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_string(")")
        if self.node_attrs is not None and self.node_attrs.data:
            printer.print_string(" attributes ")
            printer.print_attr_dict(self.node_attrs.data)
        if self.regions:
            printer.print_string(" (")
            printer.print_list(self.regions, printer.print_region)
            printer.print_string(")")
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)

    def verify_(self) -> None:
        if "::" not in self.kind.data:
            raise VerifyException(f"node kind '{self.kind.data}' must be namespace::name")


TS = Dialect(
    "ts",
    [ScriptModuleOp, SlotOp, MethodOp, NodeOp],
    [*TS_TYPES, TensorValueAttr],
)
