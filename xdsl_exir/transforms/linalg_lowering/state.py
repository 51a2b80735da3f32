"""
The state of one lowering to upstream dialects, and the builders the rules share.

Types: an `!exir.tensor<[s0, 4], float32>` becomes `tensor<?x4xf32>`. A symbolic
size cannot be spelled in a builtin type, so its value travels as an `index`
SSA value: every symbol is bound once, from `tensor.dim` of the first function
argument (or op result, for data-dependent `u0` sizes) that has it as a bare
dimension, and derived sizes (`2*s0 + 1`, `(s0 - 3) floordiv 2 + 1`) are
computed from the bound symbols with `arith` on `index` where they are needed.
The exir types, which torch computed, decide broadcasting: a dimension that is
statically 1 against a larger one is broadcast, any other dimension is shared.

Values: an exir tensor maps to a builtin tensor SSA value, a SymInt to an
`index` value, a SymFloat to `f64`, a SymBool to `i1`, a `Tensor[]` to a Python
list of tensor values.

Arithmetic follows PyTorch's CPU kernels: pointwise ops on float16 and bfloat16
compute in float32 and round once at the end ("opmath"), integers wrap, and
conversions truncate toward zero as C++ casts do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, cast

from xdsl.builder import Builder
from xdsl.dialects import arith, ml_program, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX as DYNAMIC_INDEX_BUILTIN
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    f32,
    i64,
)
from xdsl.dialects.builtin import (
    TensorType as BuiltinTensorType,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint

from xdsl_exir.dialects.exir import (
    DType,
    SymBoolType,
    SymFloatType,
    SymIntType,
    TensorType,
)
from xdsl_exir.dialects.stream import ParameterNamedAttr
from xdsl_exir.utils.mlir_types import LoweringError, element_type
from xdsl_exir.utils.symbolic import SymSize, is_floordiv, print_expr, sympy

DYNAMIC = DYNAMIC_INDEX_BUILTIN
DYNAMIC_INDEX = DYNAMIC_INDEX_BUILTIN
"""MLIR's dynamic marker (`?`) in shapes and static offset/size/stride lists."""

_FLOAT_BITS = {DType.float16: 16, DType.bfloat16: 16, DType.float32: 32, DType.float64: 64}
_INT_BITS = {DType.bool: 1, DType.uint8: 8, DType.int8: 8, DType.int16: 16, DType.int32: 32, DType.int64: 64}


def is_unsigned(dtype: DType) -> bool:
    return dtype is DType.uint8 or dtype is DType.bool


def static_shape(t: TensorType) -> list[int]:
    return [s if isinstance(s, int) else DYNAMIC for s in t.sizes]


def type_of(value: object) -> TensorType:
    """The exir tensor type of a bound tensor argument."""
    return cast(TensorType, cast(SSAValue, value).type)


def result_of(op: Operation, i: int = 0) -> TensorType:
    """The exir tensor type of an op's i-th result (torch computed it)."""
    return cast(TensorType, op.results[i].type)


def sized(sizes: Sequence[object], dtype: DType) -> TensorType:
    """An exir tensor type from sizes held loosely (ints or sympy expressions)."""
    return TensorType(cast(Sequence[SymSize], sizes), dtype)


def tensor_type(t: TensorType, dtype: DType | None = None) -> BuiltinTensorType[Attribute]:
    """The builtin tensor type of an exir tensor type (symbolic sizes become `?`)."""
    return BuiltinTensorType(element_type(dtype or t.element_dtype), static_shape(t))


def broadcast_map(operand: Sequence[object], result: Sequence[object]) -> AffineMap:
    """
    The indexing map reading an operand of sizes `operand` from the iteration
    space of `result` (right-aligned, as PyTorch broadcasts): a dimension that is
    statically 1 where the result's is not reads index 0.
    """
    rank, offset = len(result), len(result) - len(operand)
    exprs: list[AffineExpr] = []
    for j, size in enumerate(operand):
        i = j + offset
        if size == 1 and result[i] != 1:
            exprs.append(AffineExpr.constant(0))
        else:
            exprs.append(AffineExpr.dimension(i))
    return AffineMap(rank, 0, tuple(exprs))


def identity_map(rank: int) -> AffineMap:
    return AffineMap.identity(rank)


PARALLEL = "parallel"
REDUCTION = "reduction"


class LoweringState:
    """Where ops go, what each exir value became, and the values of the symbols."""

    def __init__(self, block: Block) -> None:
        self.builder = Builder(InsertPoint.at_end(block))
        self.values: dict[SSAValue, object] = {}
        self.symbols: dict[sympy.Symbol, SSAValue] = {}
        self._scopes: list[dict[object, SSAValue]] = [{}]
        self.current_op: Operation | None = None
        self.globals: dict[str, ml_program.GlobalOp] = {}
        """The module-level globals the function loads (named parameters), by parameter key."""

    # -- insertion ------------------------------------------------------------

    def insert(self, op: Operation) -> Operation:
        self.builder.insert(op)
        return op

    def emit(self, op: Operation) -> SSAValue:
        """Insert a one-result op and return its result."""
        self.builder.insert(op)
        return op.results[0]

    @contextmanager
    def at_block(self, block: Block) -> Iterator[Block]:
        """Insert into `block` (a nested region's) with its own constant cache."""
        saved = self.builder
        self.builder = Builder(InsertPoint.at_end(block))
        self._scopes.append({})
        try:
            yield block
        finally:
            self._scopes.pop()
            self.builder = saved

    def _cached(self, key: object, make: Callable[[], SSAValue]) -> SSAValue:
        for scope in reversed(self._scopes):
            if key in scope:
                return scope[key]
        value = make()
        self._scopes[-1][key] = value
        return value

    def parameter(self, scope: str, key: str, t: BuiltinTensorType[Attribute]) -> SSAValue:
        """
        The value of the weight `key` read from IREE's parameter provider `scope` at
        run time: a private `ml_program.global` initialised with
        `#stream.parameter.named<scope::key>` (declared once per key, however many
        times it is read) and its `ml_program.global_load_const`. The weight's
        bytes stay out of the module, so the compiled module and its cache key do
        not depend on them.
        """
        g = self.globals.get(key)
        if g is None:
            g = ml_program.GlobalOp(
                StringAttr(f"param.{key}"), t, None, ParameterNamedAttr(scope, key, t), StringAttr("private")
            )
            self.globals[key] = g
        elif g.type != t:
            raise self.error(f"parameter '{key}' is read as {t} and as {g.type}")
        return self.emit(ml_program.GlobalLoadConstantOp(SymbolRefAttr(g.sym_name), t))

    def error(self, message: str) -> LoweringError:
        return LoweringError(message, self.current_op)

    # -- values ---------------------------------------------------------------

    def tensor(self, value: object) -> SSAValue:
        """The lowered tensor of an exir tensor value."""
        if not isinstance(value, SSAValue) or not isinstance(value.type, TensorType):
            raise self.error(f"expected a tensor, got {value!r}")
        lowered = self.values.get(value)
        if not isinstance(lowered, SSAValue):
            raise self.error(f"tensor %{value.name_hint or '?'} has no lowered value")
        return lowered

    def lowered(self, value: object) -> object:
        """The lowered form of any bound argument (lists element-wise)."""
        if isinstance(value, SSAValue):
            if value not in self.values:
                raise self.error(f"value %{value.name_hint or '?'} has no lowered value")
            return self.values[value]
        if isinstance(value, list | tuple):
            return [self.lowered(v) for v in cast(Sequence[object], value)]
        return value

    # -- sizes ----------------------------------------------------------------

    def bind_symbols(self, lowered: SSAValue, t: TensorType) -> None:
        """Bind each bare symbol among `t`'s sizes that has no value yet."""
        for d, size in enumerate(t.sizes):
            if isinstance(size, sympy.Symbol) and size not in self.symbols:
                dim = self.emit(tensor.DimOp(lowered, self.index(d)))
                self.symbols[size] = dim
                self._scopes[0][("size", size)] = dim

    def bind_scalar(self, expr: object, value: SSAValue) -> None:
        """A SymInt value whose expression is a bare symbol binds that symbol."""
        if isinstance(expr, sympy.Symbol) and expr not in self.symbols:
            self.symbols[expr] = value

    def index(self, size: object) -> SSAValue:
        """An `index` value for a size: an int or a sympy expression over bound symbols."""
        if isinstance(size, bool):
            size = int(size)
        if isinstance(size, int):
            n = size
            return self._cached(("index", n), lambda: self.emit(arith.ConstantOp(IntegerAttr(n, IndexType()))))
        if isinstance(size, sympy.Integer):
            return self.index(int(size))
        if not isinstance(size, sympy.Expr):
            raise self.error(f"not a size: {size!r}")
        expr = size
        return self._cached(("size", expr), lambda: self._materialize(expr))

    def _materialize(self, expr: sympy.Expr) -> SSAValue:
        if isinstance(expr, sympy.Symbol):
            if expr not in self.symbols:
                raise self.error(f"size {expr} has no value: no input or result has it as a dimension")
            return self.symbols[expr]
        if isinstance(expr, sympy.Add | sympy.Mul | sympy.Max | sympy.Min):
            combine = {
                sympy.Add: arith.AddiOp,
                sympy.Mul: arith.MuliOp,
                sympy.Max: arith.MaxSIOp,
                sympy.Min: arith.MinSIOp,
            }[type(expr)]
            args = [self.index(a) for a in expr.args]
            acc = args[0]
            for a in args[1:]:
                acc = self.emit(combine(acc, a))
            return acc
        if is_floordiv(expr):
            a, b = expr.args
            return self.emit(arith.FloorDivSIOp(self.index(a), self.index(b)))
        if isinstance(expr, sympy.Mod):
            # Python's (and sympy's) modulo takes the divisor's sign: a - floor(a / b) * b.
            # An intermediate size such as `(s0 - s1) % 8` may well have a negative dividend.
            a, b = (self.index(x) for x in expr.args)
            quotient = self.emit(arith.FloorDivSIOp(a, b))
            return self.emit(arith.SubiOp(a, self.emit(arith.MuliOp(quotient, b))))
        if isinstance(expr, sympy.Pow) and isinstance(expr.exp, sympy.Integer) and int(expr.exp) > 0:
            base = self.index(expr.base)
            acc = base
            for _ in range(int(expr.exp) - 1):
                acc = self.emit(arith.MuliOp(acc, base))
            return acc
        raise self.error(f"cannot compute the size {print_expr(expr)} with integer arithmetic")

    def dynamic_sizes(self, sizes: Sequence[object]) -> list[SSAValue]:
        """The `index` values of the non-static sizes, in order (for tensor.empty & co)."""
        return [self.index(s) for s in sizes if not isinstance(s, int)]

    def empty(self, t: TensorType, dtype: DType | None = None) -> SSAValue:
        """A `tensor.empty` of the exir type's sizes."""
        return self.emit(tensor.EmptyOp(self.dynamic_sizes(t.sizes), tensor_type(t, dtype)))

    def empty_of(self, sizes: Sequence[object], dtype: DType) -> SSAValue:
        shape = [s if isinstance(s, int) else DYNAMIC for s in sizes]
        return self.emit(tensor.EmptyOp(self.dynamic_sizes(sizes), BuiltinTensorType(element_type(dtype), shape)))

    def filled(self, t: TensorType, value: float | int | bool, dtype: DType | None = None) -> SSAValue:
        """A tensor of `t`'s sizes filled with a constant (`linalg.fill`)."""
        dtype = dtype or t.element_dtype
        init = self.empty(t, dtype)
        fill = linalg.FillOp((self.constant(value, dtype),), (init,), (init.type,))
        self.insert(fill)
        return fill.results[0]

    # -- scalars --------------------------------------------------------------

    def constant(self, value: float | int | bool, dtype: DType) -> SSAValue:
        """A scalar constant of `dtype`'s element type (cached in the current scope)."""
        el = element_type(dtype)
        if dtype.is_floating_point:
            v: float | int = float(value)
            attr: FloatAttr | IntegerAttr = FloatAttr(v, cast(Float32Type, el))
        else:
            v = int(value)
            if dtype is DType.bool:
                v = -1 if v else 0
            elif is_unsigned(dtype) and v > 127:
                v -= 256
            bits = _INT_BITS[dtype]
            if bits > 1:
                v = ((v + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1))
            attr = IntegerAttr(v, cast(IntegerType, el))
        return self._cached(("const", dtype, repr(v)), lambda: self.emit(arith.ConstantOp(attr)))

    def scalar(self, value: object, dtype: DType) -> SSAValue:
        """A Python number or a lowered SymInt/SymFloat/SymBool as a scalar of `dtype`."""
        if isinstance(value, bool | int | float):
            return self.constant(value, dtype)
        if isinstance(value, SSAValue) and isinstance(value.type, SymIntType | SymFloatType | SymBoolType):
            lowered = self.values.get(value)
            if not isinstance(lowered, SSAValue):
                raise self.error("a symbolic scalar has no lowered value")
            if isinstance(value.type, SymIntType):
                as_i64 = self.emit(arith.IndexCastOp(lowered, i64))
                return self.cast(as_i64, DType.int64, dtype)
            if isinstance(value.type, SymFloatType):
                return self.cast(lowered, DType.float64, dtype)
            return self.cast(lowered, DType.bool, dtype)
        raise self.error(f"expected a number, got {value!r}")

    def cast(self, v: SSAValue, src: DType, dst: DType) -> SSAValue:
        """Convert a scalar between dtypes as a C++ static_cast does (bool: != 0)."""
        same_bits = element_type(src) == element_type(dst) and DType.bool not in (src, dst)
        if src == dst or same_bits:  # int8 <-> uint8 share their bits
            return v
        dst_el = element_type(dst)
        fl, it = cast(AnyFloat, dst_el), cast(IntegerType, dst_el)
        if dst is DType.bool:
            if src.is_floating_point:
                zero = self.constant(0.0, src)
                return self.emit(arith.CmpfOp(v, zero, "une"))
            zero = self.constant(0, src)
            return self.emit(arith.CmpiOp(v, zero, "ne"))
        if src.is_floating_point and dst.is_floating_point:
            sb, db = _FLOAT_BITS[src], _FLOAT_BITS[dst]
            if sb == db:  # float16 <-> bfloat16 through float32
                wide = self.emit(arith.ExtFOp(v, f32))
                return self.emit(arith.TruncFOp(wide, fl))
            if sb < db:
                return self.emit(arith.ExtFOp(v, fl))
            if sb == 64 and db == 16:
                # c10's Half and BFloat16 are built from a float: float64 rounds to
                # float32 first, then to 16 bits (two roundings, as torch does).
                v = self.emit(arith.TruncFOp(v, f32))
            return self.emit(arith.TruncFOp(v, fl))
        if dst.is_floating_point:
            if is_unsigned(src):
                return self.emit(arith.UIToFPOp(v, fl))
            return self.emit(arith.SIToFPOp(v, fl))
        if src.is_floating_point:
            if is_unsigned(dst):
                return self.emit(arith.FPToUIOp(v, it))
            return self.emit(arith.FPToSIOp(v, it))
        sb, db = _INT_BITS[src], _INT_BITS[dst]
        if sb < db:
            if is_unsigned(src):
                return self.emit(arith.ExtUIOp(v, it))
            return self.emit(arith.ExtSIOp(v, it))
        if sb > db:
            return self.emit(arith.TruncIOp(v, it))
        return v

    # -- structured ops -------------------------------------------------------

    def generic(
        self,
        inputs: Sequence[tuple[SSAValue, AffineMap]],
        outputs: Sequence[tuple[SSAValue, AffineMap]],
        iterators: Sequence[str],
        body: Callable[[Sequence[SSAValue]], Sequence[SSAValue]],
    ) -> list[SSAValue]:
        """A `linalg.generic`; `body` gets the block arguments and returns the yields."""
        arg_types = [cast(BuiltinTensorType[Attribute], v.type).element_type for v, _ in (*inputs, *outputs)]
        block = Block(arg_types=arg_types)
        with self.at_block(block):
            yields = body(block.args)
            self.insert(linalg.YieldOp(*yields))
        op = linalg.GenericOp(
            [v for v, _ in inputs],
            [v for v, _ in outputs],
            Region(block),
            [AffineMapAttr(m) for m in (*(m for _, m in inputs), *(m for _, m in outputs))],
            [IteratorTypeAttr.parallel() if it == PARALLEL else IteratorTypeAttr.reduction() for it in iterators],
            [v.type for v, _ in outputs],
        )
        self.insert(op)
        return list(op.results)

    def elementwise(
        self,
        result: TensorType,
        operands: Sequence[object],
        compute: DType,
        fn: Callable[[list[SSAValue]], SSAValue],
        fn_dtype: DType | None = None,
        operand_dtypes: Sequence[DType | None] | None = None,
    ) -> SSAValue:
        """
        A pointwise op as one `linalg.generic` over the result's sizes: tensor
        operands broadcast by their exir sizes, numbers and symbolic scalars
        become constants or captured values; `fn` computes in `compute.opmath()`
        and returns a value of `fn_dtype` (default: that same dtype), which is
        then converted to the result dtype. `operand_dtypes` overrides the dtype
        an operand is converted to (a `where` condition stays bool).
        """
        sizes = result.sizes
        rank = len(sizes)
        inner = compute.opmath()
        tensors: list[tuple[SSAValue, AffineMap]] = []
        slots: list[tuple[int, DType] | object] = []
        scalars_outside: dict[int, SSAValue] = {}
        wanted: list[DType] = [
            given if operand_dtypes and (given := operand_dtypes[k]) is not None else inner for k in range(len(operands))
        ]
        for k, o in enumerate(operands):
            if isinstance(o, SSAValue) and isinstance(o.type, TensorType):
                slots.append((len(tensors), o.type.element_dtype))
                tensors.append((self.tensor(o), broadcast_map(o.type.sizes, sizes)))
            else:
                if isinstance(o, SSAValue):
                    # Symbolic scalars are computed outside the body (index math).
                    scalars_outside[k] = self.scalar(o, wanted[k])
                slots.append(o)
        init = self.empty(result)
        out_dtype = result.element_dtype

        def body(args: Sequence[SSAValue]) -> list[SSAValue]:
            vals: list[SSAValue] = []
            for k, slot in enumerate(slots):
                if k in scalars_outside:
                    vals.append(scalars_outside[k])
                elif isinstance(slot, tuple):
                    idx, dt = cast(tuple[int, DType], slot)
                    vals.append(self.cast(args[idx], dt, wanted[k]))
                else:
                    vals.append(self.scalar(slot, wanted[k]))
            r = fn(vals)
            return [self.cast(r, fn_dtype or inner, out_dtype)]

        return self.generic(tensors, [(init, identity_map(rank))], [PARALLEL] * rank, body)[0]

    def convert(self, value: SSAValue, t: TensorType, dtype: DType) -> SSAValue:
        """A whole tensor of exir type `t` converted to `dtype` (identity if equal)."""
        if t.element_dtype == dtype:
            return value
        rank = t.rank
        init = self.empty(t, dtype)
        src = t.element_dtype
        return self.generic(
            [(value, identity_map(rank))],
            [(init, identity_map(rank))],
            [PARALLEL] * rank,
            lambda args: [self.cast(args[0], src, dtype)],
        )[0]

    def insert_slice(
        self,
        source: SSAValue,
        dest: SSAValue,
        offsets: Sequence[SSAValue | int],
        sizes: Sequence[SSAValue | int],
        strides: Sequence[SSAValue | int] | None = None,
    ) -> SSAValue:
        """`tensor.insert_slice` with each offset/size/stride static or an index value."""
        strides = strides if strides is not None else [1] * len(sizes)
        parts: list[tuple[list[int], list[SSAValue]]] = []
        for values in (offsets, sizes, strides):
            static = [v if isinstance(v, int) else DYNAMIC_INDEX for v in values]
            parts.append((static, [v for v in values if not isinstance(v, int)]))
        op = tensor.InsertSliceOp.get(
            source, dest, parts[1][0], parts[0][0], parts[2][0], parts[0][1], parts[1][1], parts[2][1]
        )
        return self.emit(op)

    def splat(self, value: SSAValue) -> SSAValue | None:
        """
        The scalar every element of the lowered tensor `value` holds, when this
        lowering built it as one: a `linalg.fill`, or a splat `arith.constant`,
        seen through slices, reshapes, casts, transposes, broadcasts and copying
        generics. None when the elements are not known to be equal. Rules use it
        to leave a constant operand out of a structured op (see `matmul.py`).
        """
        seen: SSAValue | None = value
        while seen is not None:
            owner = seen.owner
            if isinstance(owner, linalg.FillOp):
                return owner.inputs[0]
            if isinstance(owner, arith.ConstantOp):
                attr = owner.value
                if not isinstance(attr, DenseIntOrFPElementsAttr) or not attr.is_splat():
                    return None
                el = attr.get_element_type()
                first = attr.get_values()[0]
                if isinstance(first, tuple):  # complex
                    return None
                if isinstance(el, ELEMENT_FLOATS):
                    return self.emit(arith.ConstantOp(FloatAttr(float(first), cast(Float32Type, el))))
                return self.emit(arith.ConstantOp(IntegerAttr(int(first), cast(IntegerType, el))))
            seen = _copied_from(owner)
        return None

    def dense_constant(self, values: Sequence[int | float], dtype: DType, shape: Sequence[int]) -> SSAValue:
        """A small literal tensor (`arith.constant dense<...>`)."""
        t = BuiltinTensorType(element_type(dtype), list(shape))
        attr = DenseIntOrFPElementsAttr.from_list(cast(Any, t), list(values))
        return self.emit(arith.ConstantOp(attr, t))


ELEMENT_FLOATS = (Float16Type, BFloat16Type, Float32Type, Float64Type)


def _copied_from(op: Operation | Block) -> SSAValue | None:
    """The tensor whose elements `op`'s result only rearranges or repeats (a view, a transpose, a broadcast, a copying generic), else None."""
    if isinstance(op, tensor.ExtractSliceOp | tensor.CastOp):
        return op.source
    if isinstance(op, tensor.CollapseShapeOp | tensor.ExpandShapeOp):
        return op.src
    if isinstance(op, linalg.TransposeOp):
        return op.inputs[0]
    if isinstance(op, linalg.BroadcastOp):
        return op.input
    if isinstance(op, linalg.GenericOp) and len(op.inputs) == 1 and len(op.outputs) == 1:
        body = op.body.block
        last = body.last_op
        if body.first_op is last and isinstance(last, linalg.YieldOp) and list(last.operands) == [body.args[0]]:
            return op.inputs[0]
    return None


def drop_unused(value: SSAValue) -> None:
    """
    Erase the linalg and tensor ops that computed `value` and that nothing reads
    any more, following their operands: what a lowering emitted and then replaced
    by another form (a convolution folded after its pooling, a pad the columns read
    in part). Ops something still reads, and ops of other dialects, stay.
    """
    work = [value.owner] if isinstance(value, OpResult) else []
    while work:
        o = work.pop()
        if not isinstance(o, Operation) or o.parent is None or any(r.first_use is not None for r in o.results):
            continue
        if o.name.split(".", 1)[0] not in ("linalg", "tensor"):
            continue
        feeds = [v.owner for v in o.operands if isinstance(v, OpResult)]
        o.detach()
        o.erase()
        work.extend(feeds)


def as_index(st: LoweringState, value: object) -> SSAValue:
    """An `index` value for an int or a lowered SymInt argument."""
    if isinstance(value, int):
        return st.index(value)
    lowered = st.lowered(value)
    if not isinstance(lowered, SSAValue) or not isinstance(lowered.type, IndexType):
        raise st.error(f"expected an integer, got {value!r}")
    return lowered
