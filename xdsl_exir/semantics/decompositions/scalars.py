"""Decompositions of scalar queries: `item`, `size.int`, `numel`."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation, SSAValue

from xdsl_exir.semantics.decompositions.core import (
    Emitter,
    rule,
)
from xdsl_exir.semantics.inference import Bound


@rule("aten.item.default")
def _item(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten._local_scalar_dense.default", b["self"])]


@rule("aten.size.int")
def _size_int(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`size(dim)` is the SymInt query `sym_size.int`."""
    return [e.v("aten.sym_size.int", b["self"], b["dim"])]


@rule("aten.numel.default")
def _numel(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.sym_numel.default", b["self"])]
