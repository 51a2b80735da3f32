"""Result-type inference for the `aten` dialect, one module per operator family.

`core` holds the shared helpers (binding, type promotion, symbolic sizes) and
the rule registry; each family module registers its rules on import, in the
fixed order below. An overload has at most one rule, so the order only has to
put a family after those whose helpers or rules it uses.
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
