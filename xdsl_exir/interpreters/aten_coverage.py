"""
How the interpreter runs each ATen overload: the statuses of `aten_coverage.txt`.

`dialects/aten_coverage.txt` lists every overload a CPU program of torch can
contain (`scripts/gen_aten_coverage.py` reads the set from torch's
dispatcher); this module computes each one's status from the code, so the
file and the tables it describes cannot drift apart: a numpy `kernel`, a
`decomposition` (a rule of the decompose table; the interpreter runs it
through `aten_kernels.decomposed`), or `refused: reason`, the reason of the
overload's family. A kernel says too whether `to-core-aten` can take the
overload to core ATen: `kernel` when the overload is core, kept in core
(`decompositions.KEEP_IN_CORE`, as torch keeps it) or decomposed;
`kernel; to-core-aten refuses: reason` when the interpreter runs it but
`to-core-aten` stops on it. No torch needed.
"""

from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path

from xdsl_exir.interpreters.exir_functions import builtin_targets
from xdsl_exir.semantics import kernels as aten_kernels
from xdsl_exir.semantics.decompositions import NOT_YET, RULES, default_legal_ops
from xdsl_exir.semantics.kernels.decomposed import DECOMPOSED
from xdsl_exir.utils.op_registry import CORE_IR_EXTRAS

COVERAGE_FILE = Path(str(files("xdsl_exir.dialects").joinpath("aten_coverage.txt")))

REFUSALS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), reason)
    for pattern, reason in (
        (r"^aten\._foreach_", "multi-tensor optimizer step (torch.export never records it); no kernel yet"),
        (r"^aten\.(_linalg_eigvals|linalg_eig|linalg_eigvals)\.",
         "eigendecomposition of a general matrix (complex results, LAPACK's geev): no kernel yet"),
        (r"^aten\.(linalg_|_linalg_|_?cholesky|_?lu_|linalg_lu|triangular_solve|geqrf|ormqr|orgqr|_?svd|_?eig|"
         r"slogdet|logdet|det\.|lstsq|pinverse|matrix_exp|_?qr|ldl)",
         "LAPACK routine: no numpy kernel yet"),
        (r"backward", "backward operator: no kernel or decomposition yet"),
        (r"quantize|fake_quant|_aminmax|choose_qparams|_saturate_weight_to_fp16",
         "quantization operator: no kernel or decomposition yet"),
        (r"^aten\.(lstm|gru|rnn_tanh|rnn_relu)\.data$",
         "recurrent module over a PackedSequence: unrolling needs its batch sizes, a run-time tensor; "
         "no kernel yet"),
        (r"rnn|lstm|gru", "recurrent operator: no kernel or decomposition yet"),
        (r"^aten\.(rand|randn|randint|normal|normal_functional|poisson|multinomial|binomial|_standard_gamma|_sample_dirichlet|bernoulli|"
         r"rrelu|exponential|geometric|cauchy|log_normal|uniform|random)(\.|_like\.)",
         "random operator: no sampler yet"),
        (r"^aten\.(is_|_is_|_has_|_nnz|_version|output_nr|_debug|_print|_propagate|_fw_primal|_make_dual|_unpack_dual|"
         r"_new_zeros_with_same_feature_meta|_use_|_cast_|_assert|sym_|data\.|retain|requires_grad|_backward|set_data|"
         r"align|refine_names|rename|_shape_as_tensor|_reshape_from_tensor|_nested|_functional_|_lazy_clone|_chunk_cat)",
         "autograd, named-tensor or tensor-metadata query that torch.export resolves before the graph; no kernel"),
    )
)
"""Family patterns (matched against the IR name) and why an overload without a kernel or
decomposition is refused; the first match wins."""

DEFAULT_REFUSAL = "no kernel or decomposition yet"
TO_CORE_REFUSAL = "not core, and no decomposition yet"


def status_of(name: str) -> str:
    """`kernel`, `decomposition` or `refused: reason` for the IR name of an overload; a kernel
    of a non-core overload that `to-core-aten` can neither keep (`KEEP_IN_CORE`) nor decompose
    says so: `kernel; to-core-aten refuses: reason`."""
    if name in DECOMPOSED:
        return "decomposition"
    if aten_kernels.has_kernel(name) or name in builtin_targets():
        if name in RULES or name in default_legal_ops() or name in CORE_IR_EXTRAS:
            return "kernel"
        return f"kernel; to-core-aten refuses: {NOT_YET.get(name, TO_CORE_REFUSAL)}"
    for pattern, reason in REFUSALS:
        if pattern.search(name):
            return f"refused: {reason}"
    return f"refused: {DEFAULT_REFUSAL}"


def read_coverage(text: str | None = None) -> dict[str, str]:
    """The checked-in list: IR name -> its status as written."""
    if text is None:
        text = COVERAGE_FILE.read_text()
    out: dict[str, str] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name, _, status = line.partition("  ")
        out[name.strip()] = status.strip()
    return out


__all__ = ["COVERAGE_FILE", "DEFAULT_REFUSAL", "REFUSALS", "TO_CORE_REFUSAL", "read_coverage", "status_of"]
