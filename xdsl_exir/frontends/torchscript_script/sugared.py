"""SugaredValues: what a name or expression stands for when it is not a first-class
value (the `torch` module, a builtin, a cast, `range(...)`, an exception class,
a function of the source), as TorchScript's `sugared_value.h` has them, and
the iterables a `for` loop may run over. Calling, indexing or iterating one
desugars it into nodes through the emitter.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import SSAValue

from xdsl_exir.analysis.overload_resolution import candidates
from xdsl_exir.dialects.prim import (
    INT64_MAX,
    CallFunctionOp,
    ConstantOp,
    ListConstructOp,
    ListUnpackOp,
    TupleConstructOp,
    TupleUnpackOp,
)
from xdsl_exir.dialects.ts import (
    TSDictType,
    TSFunctionType,
    TSIntType,
    TSListType,
    TSStrType,
    TSTensorType,
    TSTupleType,
    is_subtype,
    ts_annotation_str,
)
from xdsl_exir.frontends.torchscript_script.names import (
    CASTS,
    DTYPES,
    LAYOUTS,
    MATH_CONSTANTS,
    MEMORY_FORMATS,
    MODULES,
    TYPING_NAMES,
)

if TYPE_CHECKING:
    from xdsl_exir.frontends.torchscript_script.emitter import EmitterBase
    from xdsl_exir.frontends.torchscript_script.source import Source


class Sugared:
    """A compile-time value (the JIT Technical Overview's SugaredValue); `describe` names it in errors."""

    def describe(self) -> str:
        return "this value"

    def as_value(self, em: EmitterBase, node: ast.AST) -> SSAValue:
        raise em.error(f"{self.describe()} cannot be used as a value", node)

    def attr(self, em: EmitterBase, name: str, node: ast.AST) -> Sugared:
        raise em.error(f"{self.describe()} has no attribute '{name}'", node)

    def call(
        self, em: EmitterBase, node: ast.Call, args: list[SSAValue], kwargs: list[tuple[str, SSAValue]]
    ) -> Sugared:
        raise em.error(f"{self.describe()} is not callable", node)

    def as_tuple(self, em: EmitterBase, n: int | None, node: ast.AST) -> list[Sugared]:
        return Simple(self.as_value(em, node)).as_tuple(em, n, node)

    def iterate(self, em: EmitterBase, node: ast.AST) -> Iterable:
        return Simple(self.as_value(em, node)).iterate(em, node)


@dataclass
class Simple(Sugared):
    """A first-class value."""

    value: SSAValue

    def describe(self) -> str:
        return f"a value of type '{ts_annotation_str(self.value.type)}'"

    def as_value(self, em: EmitterBase, node: ast.AST) -> SSAValue:
        return self.value

    def attr(self, em: EmitterBase, name: str, node: ast.AST) -> Sugared:
        t = self.value.type
        if isinstance(t, TSTensorType):
            prop = _TENSOR_PROPERTIES.get(name)
            if prop is not None:
                out = em.call_builtin(prop, [self.value], [], node)
                if prop == "prim::dtype":
                    em.enum_values.add(out[0])
                return _wrap(out, em, node)
        return _Method(self.value, name)

    def as_tuple(self, em: EmitterBase, n: int | None, node: ast.AST) -> list[Sugared]:
        t = self.value.type
        if isinstance(t, TSTupleType):
            elems = t.element_types
            if n is not None and n != len(elems):
                raise em.error(f"cannot unpack a tuple of {len(elems)} elements into {n} values", node)
            op = em.emit(TupleUnpackOp.make([self.value], list(elems)), node)
            return [Simple(r) for r in op.results]
        if isinstance(t, TSListType):
            if n is None:
                raise em.error("cannot unpack a list of unknown length here", node)
            op = em.emit(ListUnpackOp.make([self.value], [t.element] * n), node)
            return [Simple(r) for r in op.results]
        raise em.error(f"cannot unpack a value of type '{ts_annotation_str(t)}'", node)

    def iterate(self, em: EmitterBase, node: ast.AST) -> Iterable:
        t = self.value.type
        if isinstance(t, TSDictType):
            keys = em.call_builtin("aten::keys", [self.value], [], node)[0]
            return _SequenceIter(keys)
        if isinstance(t, TSListType | TSStrType | TSTensorType):
            return _SequenceIter(self.value)
        if isinstance(t, TSTupleType):
            return UnrolledIter([Simple(v) for v in Simple(self.value).as_values(em, node)])
        raise em.error(f"'{ts_annotation_str(t)}' object is not iterable", node)

    def as_values(self, em: EmitterBase, node: ast.AST) -> list[SSAValue]:
        return [s.as_value(em, node) for s in self.as_tuple(em, None, node)]


@dataclass
class Multi(Sugared):
    """Several values: a builtin's outputs, an item of `enumerate`/`zip`; a tuple when used as a value."""

    items: list[Sugared]

    def describe(self) -> str:
        return "a tuple"

    def as_value(self, em: EmitterBase, node: ast.AST) -> SSAValue:
        values = [i.as_value(em, node) for i in self.items]
        op = em.emit(TupleConstructOp.make(values, [TSTupleType(*(v.type for v in values))]), node)
        return op.results[0]

    def as_tuple(self, em: EmitterBase, n: int | None, node: ast.AST) -> list[Sugared]:
        if n is not None and n != len(self.items):
            raise em.error(f"cannot unpack {len(self.items)} values into {n}", node)
        return list(self.items)

    def iterate(self, em: EmitterBase, node: ast.AST) -> Iterable:
        return UnrolledIter(list(self.items))


@dataclass
class NoneValue(Sugared):
    def as_value(self, em: EmitterBase, node: ast.AST) -> SSAValue:
        return em.const(None, node)


@dataclass
class PyConstant(Sugared):
    value: object

    def as_value(self, em: EmitterBase, node: ast.AST) -> SSAValue:
        return em.const(self.value, node)


@dataclass
class Namespace(Sugared):
    """`torch`, `torch.nn.functional`, `math`, ..."""

    path: str

    def describe(self) -> str:
        return f"module '{self.path}'"

    def attr(self, em: EmitterBase, name: str, node: ast.AST) -> Sugared:
        full = f"{self.path}.{name}"
        if full in MODULES:
            return Namespace(full)
        if self.path == "torch":
            if name in DTYPES:
                return EnumConstant(DTYPES[name])
            if name in LAYOUTS:
                return EnumConstant(LAYOUTS[name])
            if name in MEMORY_FORMATS:
                return EnumConstant(MEMORY_FORMATS[name])
            if name in MATH_CONSTANTS:
                return PyConstant(MATH_CONSTANTS[name])
            if name == "Tensor":
                return TypeName("Tensor")
            if name == "device":
                return _DeviceCtor()
            return Builtin(f"aten::{name}")
        if self.path == "math":
            if name in MATH_CONSTANTS:
                return PyConstant(MATH_CONSTANTS[name])
            return Builtin(f"aten::{name}")
        if self.path == "torch.nn.functional":
            return Builtin(f"aten::{name}")
        if self.path == "torch.jit":
            if name == "annotate":
                return SpecialForm("annotate")
            if name == "is_scripting":
                return SpecialForm("is_scripting")
            if name == "is_tracing":
                return SpecialForm("is_tracing")
            raise em.error(f"torch.jit.{name} is not supported by this frontend", node)
        if self.path in ("torch.linalg", "torch.fft", "torch.special"):
            return Builtin(f"aten::{self.path.rpartition('.')[2]}_{name}")
        if self.path == "typing" and name in TYPING_NAMES:
            return TypeName(name)
        raise em.error(f"module '{self.path}' has no attribute '{name}' that TorchScript knows", node)


@dataclass
class EnumConstant(Sugared):
    """A dtype, layout or memory format: an int, remembered as such for overload resolution."""

    code: int

    def as_value(self, em: EmitterBase, node: ast.AST) -> SSAValue:
        v = em.const(self.code, node)
        em.enum_values.add(v)
        return v


@dataclass
class TypeName(Sugared):
    name: str

    def describe(self) -> str:
        return f"type '{self.name}'"


@dataclass
class Builtin(Sugared):
    """A builtin operator (`aten::relu`), with `self` bound for methods."""

    kind: str

    def describe(self) -> str:
        return f"builtin '{self.kind}'"

    def call(
        self, em: EmitterBase, node: ast.Call, args: list[SSAValue], kwargs: list[tuple[str, SSAValue]]
    ) -> Sugared:
        if self.kind in ("prim::min", "prim::max") and len(args) > 2 and not kwargs:
            acc = args[0]
            for v in args[1:]:
                acc = em.call_builtin(self.kind, [acc, v], [], node)[0]
            return Simple(acc)
        return _wrap(em.call_builtin(self.kind, args, kwargs, node), em, node)


@dataclass
class _Method(Sugared):
    """`x.name`, waiting to be called: `aten::name(x, ...)`."""

    self_value: SSAValue
    name: str

    def describe(self) -> str:
        return f"attribute '{self.name}' of a value of type '{ts_annotation_str(self.self_value.type)}'"

    def call(
        self, em: EmitterBase, node: ast.Call, args: list[SSAValue], kwargs: list[tuple[str, SSAValue]]
    ) -> Sugared:
        if self.name in _TENSOR_CASTS and isinstance(self.self_value.type, TSTensorType) and not args and not kwargs:
            # `x.float()` is `x.to(torch.float32)`, as TorchScript's builtins write it.
            dtype = EnumConstant(_TENSOR_CASTS[self.name]).as_value(em, node)
            return _wrap(em.call_builtin("aten::to", [self.self_value, dtype], [], node), em, node)
        kind = f"aten::{self.name}"
        if not candidates(kind):
            raise em.error(
                f"'{ts_annotation_str(self.self_value.type)}' object has no method '{self.name}' in TorchScript", node
            )
        return _wrap(em.call_builtin(kind, [self.self_value, *args], kwargs, node), em, node)


@dataclass
class Cast(Sugared):
    """`int(x)`, `float(x)`, `bool(x)`, `str(x)`: the value itself when it has the type already."""

    name: str

    def call(
        self, em: EmitterBase, node: ast.Call, args: list[SSAValue], kwargs: list[tuple[str, SSAValue]]
    ) -> Sugared:
        target, kind = CASTS[self.name]
        if kwargs or len(args) > 1:
            raise em.error(f"{self.name}() takes at most one positional argument here", node)
        if not args:
            default = {"int": 0, "float": 0.0, "bool": False, "str": ""}.get(self.name)
            if default is None:
                raise em.error(f"{self.name}() needs an argument", node)
            return Simple(em.const(default, node))
        if args[0].type == target:
            return Simple(args[0])
        return _wrap(em.call_builtin(kind, args, [], node), em, node)


@dataclass
class _DeviceCtor(Sugared):
    def call(
        self, em: EmitterBase, node: ast.Call, args: list[SSAValue], kwargs: list[tuple[str, SSAValue]]
    ) -> Sugared:
        if len(args) == 1 and not kwargs:
            owner = args[0].owner
            if isinstance(owner, ConstantOp) and isinstance(owner.value, StringAttr):
                return Simple(em.const_device(owner.value.data, node))
        return _wrap(em.call_builtin("aten::device", args, kwargs, node), em, node)


@dataclass
class ExceptionClass(Sugared):
    name: str

    def describe(self) -> str:
        return f"exception class '{self.name}'"

    def call(
        self, em: EmitterBase, node: ast.Call, args: list[SSAValue], kwargs: list[tuple[str, SSAValue]]
    ) -> Sugared:
        if kwargs or len(args) > 1:
            raise em.error(f"{self.name}() takes one message argument in TorchScript", node)
        return ExceptionInstance(args[0] if args else None, self.name)


@dataclass
class ExceptionInstance(Sugared):
    message: SSAValue | None
    name: str

    def describe(self) -> str:
        return f"an exception '{self.name}'"


@dataclass
class SpecialForm(Sugared):
    """Calls that see their arguments' syntax (`torch.jit.annotate(T, v)`) or build iterables."""

    name: str

    def describe(self) -> str:
        return f"'{self.name}'"


@dataclass
class UserFunction(Sugared):
    """A function of the source: compiled to its own method, called through `prim.CallFunction`."""

    src: Source
    name: str

    def describe(self) -> str:
        return f"function '{self.name}'"

    def call(
        self, em: EmitterBase, node: ast.Call, args: list[SSAValue], kwargs: list[tuple[str, SSAValue]]
    ) -> Sugared:
        callee = em.compiler.compile(self.src, self.name, (em.src, node))
        if len(args) > len(callee.params):
            raise em.error(
                f"{self.name}() takes {len(callee.params)} arguments but {len(args)} were given", node
            )
        bound: dict[str, SSAValue] = dict(zip(callee.params, args, strict=False))
        for key, value in kwargs:
            if key not in callee.params:
                raise em.error(f"{self.name}() got an unexpected keyword argument '{key}'", node)
            if key in bound:
                raise em.error(f"{self.name}() got multiple values for argument '{key}'", node)
            bound[key] = value
        inputs: list[SSAValue] = []
        for pname, ptype in zip(callee.params, callee.param_types, strict=True):
            if pname in bound:
                value = em.convert(bound[pname], ptype, node)
                if not is_subtype(value.type, ptype):
                    raise em.error(
                        f"argument '{pname}' of {self.name}() expects '{ts_annotation_str(ptype)}' but got "
                        f"'{ts_annotation_str(value.type)}'",
                        node,
                    )
            elif pname in callee.defaults:
                value = em.const(callee.defaults[pname], node, ptype if callee.defaults[pname] is None else None)
            else:
                raise em.error(f"{self.name}() is missing argument '{pname}'", node)
            inputs.append(value)
        assert callee.return_type is not None
        fn = em.emit(ConstantOp.make([], [TSFunctionType(self.name)], {"name": StringAttr(self.name)}), node)
        call = em.emit(CallFunctionOp.make([fn.results[0], *inputs], [callee.return_type]), node)
        return Simple(call.results[0])


def _wrap(results: list[SSAValue], em: EmitterBase, node: ast.AST) -> Sugared:
    if not results:
        return NoneValue()
    if len(results) == 1:
        return Simple(results[0])
    return Multi([Simple(r) for r in results])


_TENSOR_CASTS = {"float": 6, "double": 7, "half": 5, "long": 4, "int": 3, "short": 2, "char": 1, "byte": 0,
                 "bfloat16": 15}

_TENSOR_PROPERTIES = {
    "shape": "aten::size",
    "ndim": "aten::dim",
    "dtype": "prim::dtype",
    "device": "prim::device",
    "T": "aten::numpy_T",
    "mT": "aten::mT",
    "requires_grad": "prim::requires_grad",
    "is_cuda": "prim::is_cuda",
    "data": "prim::data",
    "grad": "prim::grad",
    "layout": "prim::layout",
}


# -- iterables ---------------------------------------------------------------


class Iterable:
    """What a `for` loop iterates: its length and its element at an iteration."""

    unrolled: bool = False

    def length(self, em: EmitterBase, node: ast.AST) -> SSAValue:
        raise NotImplementedError

    def item(self, em: EmitterBase, index: SSAValue, node: ast.AST) -> Sugared:
        raise NotImplementedError


@dataclass
class RangeIter(Iterable):
    start: SSAValue | None
    stop: SSAValue
    step: SSAValue | None

    def length(self, em: EmitterBase, node: ast.AST) -> SSAValue:
        if self.start is None:
            return self.stop
        step = self.step if self.step is not None else em.const(1, node)
        self.step = step
        return em.call_builtin("aten::__range_length", [self.start, self.stop, step], [], node)[0]

    def item(self, em: EmitterBase, index: SSAValue, node: ast.AST) -> Sugared:
        if self.start is None:
            return Simple(index)
        assert self.step is not None
        return Simple(em.call_builtin("aten::__derive_index", [index, self.start, self.step], [], node)[0])


@dataclass
class _SequenceIter(Iterable):
    """A list, string or tensor: `len` and `__getitem__` (`select` on dim 0 for a tensor)."""

    seq: SSAValue

    def length(self, em: EmitterBase, node: ast.AST) -> SSAValue:
        return em.call_builtin("aten::len", [self.seq], [], node)[0]

    def item(self, em: EmitterBase, index: SSAValue, node: ast.AST) -> Sugared:
        if isinstance(self.seq.type, TSTensorType):
            zero = em.const(0, node)
            return Simple(em.call_builtin("aten::select", [self.seq, zero, index], [], node)[0])
        return Simple(em.call_builtin("aten::__getitem__", [self.seq, index], [], node)[0])


@dataclass
class EnumerateIter(Iterable):
    inner: Iterable
    start: SSAValue | None

    def length(self, em: EmitterBase, node: ast.AST) -> SSAValue:
        # `zip(range(start, INT64_MAX), inner)`, as TorchScript iterates it.
        bound = em.const(INT64_MAX, node)
        if self.start is not None:
            one = em.const(1, node)
            bound = em.call_builtin("aten::__range_length", [self.start, bound, one], [], node)[0]
        return _min_length([bound, self.inner.length(em, node)], em, node)

    def item(self, em: EmitterBase, index: SSAValue, node: ast.AST) -> Sugared:
        counter = index
        if self.start is not None:
            one = em.const(1, node)
            counter = em.call_builtin("aten::__derive_index", [index, self.start, one], [], node)[0]
        return Multi([Simple(counter), self.inner.item(em, index, node)])


def _min_length(lengths: list[SSAValue], em: EmitterBase, node: ast.AST) -> SSAValue:
    lst = em.emit(ListConstructOp.make(lengths, [TSListType(TSIntType())]), node).results[0]
    return em.call_builtin("prim::min", [lst], [], node)[0]


@dataclass
class ZipIter(Iterable):
    inners: list[Iterable]

    def length(self, em: EmitterBase, node: ast.AST) -> SSAValue:
        return _min_length([i.length(em, node) for i in self.inners], em, node)

    def item(self, em: EmitterBase, index: SSAValue, node: ast.AST) -> Sugared:
        return Multi([i.item(em, index, node) for i in self.inners])


@dataclass
class UnrolledIter(Iterable):
    items: list[Sugared]
    unrolled: bool = True


