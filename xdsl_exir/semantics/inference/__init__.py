"""Result-type inference for the `aten` dialect, one module per operator family.

The families are those of the kernel, decomposition and lowering trees
(`docs/architecture.md`, "Operator families"): pointwise, reductions, views,
conv_pool, matmul, indexing, creation, norms, scalars, special, spectral,
lapack, backward, random, resampling, losses, distances and statistics. The
other two modules are infrastructure: `core` holds the shared helpers (binding,
type promotion, symbolic sizes) and the rule registry, and `renames` types
torch's other spellings of an operator by its rule. Each family module
registers its rules on import, in the fixed order below. An overload has at
most one rule, so the order only has to put a module after those whose rules it
reads from the table (`renames` last).
"""

# isort: skip_file
from xdsl_exir.semantics.inference.core import (
    BindError,
    Bound,
    InferenceError,
    NoInference,
    bind_arguments,
    has_inference,
    infer_bound,
    infer_result_types,
    make_tensor,
    promote_types,
    result_type,
)
from xdsl_exir.semantics.inference import (
    pointwise,
    reductions,
    views,
    conv_pool,
    matmul,
    indexing,
    creation,
    norms,
    scalars,
    special,
    spectral,
    lapack,
    backward,
    random,
    resampling,
    losses,
    distances,
    statistics,
    renames,
)

__all__ = [
    "BindError",
    "Bound",
    "InferenceError",
    "NoInference",
    "bind_arguments",
    "has_inference",
    "infer_bound",
    "infer_result_types",
    "make_tensor",
    "promote_types",
    "result_type",
]

_FAMILIES = (
    pointwise,
    reductions,
    views,
    conv_pool,
    matmul,
    indexing,
    creation,
    norms,
    scalars,
    special,
    spectral,
    lapack,
    backward,
    random,
    resampling,
    losses,
    distances,
    statistics,
    renames,
)
