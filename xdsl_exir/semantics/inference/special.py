"""Result types of the special functions the aten dialect lists (`lgamma`, `digamma`, `erfinv`,
`polygamma`): the input's shape, in its floating dtype (integers and bool give float32)."""

from __future__ import annotations

from xdsl.ir import Attribute

from xdsl_exir.semantics.inference.core import Bound, make_tensor, rule

__all__: list[str] = []


@rule("aten.lgamma.default", "aten.digamma.default", "aten.erfinv.default", "aten.polygamma.default")
def _special_unary(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, t.element_dtype.to_floating(), t.device.data)
