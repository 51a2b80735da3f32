"""
TorchScript's subtyping (`is_subtype`), the join of two types (`join_types`) and a tensor type
with its refinements dropped (`unrefined`), as torch's type system defines them.
"""

from __future__ import annotations

from xdsl.ir import Attribute

from xdsl_exir.dialects.ts.types import (
    Container,
    TSAnyType,
    TSComplexType,
    TSDictType,
    TSFloatType,
    TSFunctionType,
    TSFutureType,
    TSIntType,
    TSListType,
    TSNoneType,
    TSNumberType,
    TSOptionalType,
    TSTensorType,
    TSTupleType,
    TSUnionType,
)


def _tensor_subtype(a: TSTensorType, b: TSTensorType) -> bool:
    """`a` refines `b`: every property `b` knows, `a` knows the same."""
    if b.scalar_type is not None and a.scalar_type != b.scalar_type:
        return False
    if b.device_name is not None and a.device_name != b.device_name:
        return False
    if b.grad is not None and a.grad != b.grad:
        return False
    bs, as_ = b.shape, a.shape
    if bs is not None:
        if as_ is None or len(as_) != len(bs):
            return False
        if any(y is not None and x != y for x, y in zip(as_, bs)):
            return False
    bst, ast = b.stride_list, a.stride_list
    if bst is not None:
        if ast is None or len(ast) != len(bst):
            return False
        if any(y is not None and x != y for x, y in zip(ast, bst)):
            return False
    return True


def unrefined(t: Attribute) -> Attribute:
    """`t` with tensor refinements dropped (`Float(2)[]` -> `Tensor[]`), as lists compare elements."""
    if isinstance(t, TSTensorType):
        return TSTensorType()
    if isinstance(t, Container):
        return type(t)(*(unrefined(e) for e in t.element_types))
    return t


def is_subtype(a: Attribute, b: Attribute) -> bool:
    """TorchScript's `a.isSubtypeOf(b)`: may a value of type `a` stand where `b` is expected."""
    if a == b or isinstance(b, TSAnyType):
        return True
    if isinstance(a, TSTensorType) and isinstance(b, TSTensorType):
        return _tensor_subtype(a, b)
    if isinstance(b, TSOptionalType):
        return isinstance(a, TSNoneType) or is_subtype(a, b.element) or (
            isinstance(a, TSOptionalType) and is_subtype(a.element, b.element)
        )
    if isinstance(b, TSUnionType):
        members = a.element_types if isinstance(a, TSUnionType) else (a,)
        return all(any(is_subtype(m, o) for o in b.element_types) for m in members)
    if isinstance(b, TSNumberType):
        return isinstance(a, TSIntType | TSFloatType | TSComplexType)
    if isinstance(a, TSTupleType) and isinstance(b, TSTupleType):
        return len(a.element_types) == len(b.element_types) and all(
            is_subtype(x, y) for x, y in zip(a.element_types, b.element_types)
        )
    if isinstance(a, TSListType) and isinstance(b, TSListType):
        # Lists are invariant (they are mutable), but tensor refinements do not count.
        return unrefined(a.element) == unrefined(b.element)
    if isinstance(a, TSDictType) and isinstance(b, TSDictType):
        return unrefined(a) == unrefined(b)
    if isinstance(a, TSFutureType) and isinstance(b, TSFutureType):
        return is_subtype(a.element, b.element)
    if isinstance(a, TSFunctionType) and isinstance(b, TSFunctionType):
        return not b.qualname.data or a.qualname == b.qualname
    return False


def join_types(a: Attribute, b: Attribute) -> Attribute | None:
    """The least type both fit (TorchScript's `unifyTypes`), or None."""
    if is_subtype(a, b):
        return b
    if is_subtype(b, a):
        return a
    if isinstance(a, TSTensorType) and isinstance(b, TSTensorType):
        sa, sb = a.shape, b.shape
        sizes = None
        if sa is not None and sb is not None and len(sa) == len(sb):
            sizes = [x if x == y else None for x, y in zip(sa, sb)]
        return TSTensorType(
            a.scalar_type if a.scalar_type == b.scalar_type else None,
            sizes,
            None,
            a.grad if a.grad == b.grad else None,
            a.device_name if a.device_name == b.device_name else None,
        )
    if isinstance(a, TSNoneType):
        return TSOptionalType(b)
    if isinstance(b, TSNoneType):
        return TSOptionalType(a)
    if isinstance(a, TSOptionalType) and not isinstance(b, TSOptionalType):
        j = join_types(a.element, b)
        return TSOptionalType(j) if j is not None else None
    if isinstance(b, TSOptionalType) and not isinstance(a, TSOptionalType):
        return join_types(b, a)
    if isinstance(a, TSTupleType) and isinstance(b, TSTupleType) and len(a.element_types) == len(b.element_types):
        items = [join_types(x, y) for x, y in zip(a.element_types, b.element_types)]
        if all(i is not None for i in items):
            return TSTupleType(*(i for i in items if i is not None))
    if isinstance(a, TSListType) and isinstance(b, TSListType) and unrefined(a) == unrefined(b):
        return unrefined(a)
    return None
