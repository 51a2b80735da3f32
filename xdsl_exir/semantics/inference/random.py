"""Result types of the random samplers and dropout."""

from __future__ import annotations

from xdsl.ir import Attribute, SSAValue

from xdsl_exir.dialects.exir import (
    DType,
)
from xdsl_exir.semantics.inference.core import (
    Bound,
    InferenceError,
    factory_type,
    make_tensor,
    pointwise_type,
    rule,
    same_as_self,
)
from xdsl_exir.utils.dtypes import DEFAULT_FLOAT

# -- random samplers (semantics/kernels/random.py) -------------------------------------


@rule("aten.rand_like.default", "aten.randn_like.default", "aten.randint_like.default", "aten.randint_like.low_dtype",
      "aten.randint_like.Tensor")
def _random_like(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, b.dtype("dtype") or t.element_dtype, b.device("device") or t.device.data)


@rule("aten.randint.default", "aten.randint.generator", "aten.randint.low", "aten.randint.low_generator")
def _randint(b: Bound) -> Attribute:
    return factory_type(b, b.sizes("size"), DType.int64)


@rule("aten.normal.float_float")
def _normal_sized(b: Bound) -> Attribute:
    return factory_type(b, b.sizes("size"), DEFAULT_FLOAT)


@rule("aten.normal.Tensor_float", "aten.normal.float_Tensor", "aten.normal.Tensor_Tensor")
def _normal_tensors(b: Bound) -> Attribute:
    names = [n for n in ("mean", "std") if isinstance(b.get(n), SSAValue)]
    shape, dtype, device = pointwise_type(b, names)
    return make_tensor(shape, dtype, device)


@rule(
    "aten.normal_functional.default", "aten.uniform.default", "aten.exponential.default", "aten.log_normal.default",
    "aten.cauchy.default", "aten.geometric.default", "aten.random.default", "aten.random.from", "aten.random.to",
    "aten.poisson.default", "aten._standard_gamma.default", "aten._sample_dirichlet.default",
    "aten.bernoulli.default", "aten.bernoulli.p",
)  # fmt: skip
def _random_same(b: Bound) -> Attribute:
    """A sample of the input's shape and dtype, one per element."""
    return b.tensor("self")


@rule("aten.binomial.default")
def _binomial(b: Bound) -> Attribute:
    return b.tensor("count")


@rule("aten.multinomial.default")
def _multinomial(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.rank not in (1, 2):
        raise InferenceError("multinomial: prob_dist must be 1 or 2 dim")
    return make_tensor([*t.sizes[:-1], b.size("num_samples")], DType.int64, t.device.data)


rule("aten.dropout.default")(same_as_self)


@rule("aten.rand.default", "aten.rand.generator", "aten.randn.default", "aten.randn.generator")
def _rand(b: Bound) -> Attribute:
    return factory_type(b, b.sizes("size"), DEFAULT_FLOAT)


@rule("aten.randperm.default", "aten.randperm.generator")
def _randperm(b: Bound) -> Attribute:
    return factory_type(b, [b.size("n")], DType.int64)


@rule("aten.native_dropout.default")
def _native_dropout(b: Bound) -> list[Attribute]:
    x = b.tensor("input")
    return [x, make_tensor(x.sizes, DType.bool, x.device.data)]
