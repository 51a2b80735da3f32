"""The decomposition table of the `decompose` pass, one module per operator family.

The families are those of the inference, kernel and lowering trees
(`docs/architecture.md`, "Operator families"): views, creation, matmul,
conv_pool, backward, resampling, scalars, norms, distances, lapack, random,
pointwise, losses, reductions, indexing, recurrent, spectral, special and
statistics. The other modules are infrastructure: `core` holds the table
(`RULES`), the `Emitter` that builds replacement ops, `Layouts` and the helpers
the families share; `renames` the decompositions that only rename an overload,
as data; `keep` the overloads kept in core IR and why; `pattern` the pass's
rewrite pattern. Each module registers its rules on import, in the fixed order
below (a later registration of an overload replaces an earlier one, so the
order is part of the table).
"""

# isort: skip_file
from xdsl_exir.semantics.decompositions.core import (
    DECOMPOSED_CORE,
    RULES,
    Decline,
    Emitter,
    Layouts,
    SymValues,
    default_legal_ops,
)
from xdsl_exir.semantics.decompositions.keep import KEEP_IN_CORE, NOT_YET
from xdsl_exir.semantics.decompositions import (
    renames,
    views,
    creation,
    matmul,
    conv_pool,
    backward,
    resampling,
    scalars,
    norms,
    distances,
    lapack,
    random,
    pointwise,
    losses,
    reductions,
    indexing,
    recurrent,
    spectral,
    special,
    statistics,
)

__all__ = [
    "DECOMPOSED_CORE",
    "KEEP_IN_CORE",
    "NOT_YET",
    "RULES",
    "Decline",
    "Emitter",
    "Layouts",
    "SymValues",
    "default_legal_ops",
]

_FAMILIES = (
    renames,
    views,
    creation,
    matmul,
    conv_pool,
    backward,
    resampling,
    scalars,
    norms,
    distances,
    lapack,
    random,
    pointwise,
    losses,
    reductions,
    indexing,
    recurrent,
    spectral,
    special,
    statistics,
)
