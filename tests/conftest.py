"""
Test selection shared by the whole suite: the quick set behind `make quick`.

`pytest --quick` (what `make quick` runs) collects only the files in `QUICK_FILES`;
every other test file is skipped before it is imported, so the inner loop pays
neither their tests nor their imports and module-level setup (torch exports,
IREE, OpInfo tables). The set is the unit tests of the layers most edits touch:

* dialects and their verifiers, printers and parsers (aten, exir, fx, ts),
  symbolic sizes, dtypes, broadcasting, schemas and argument binding;
* operator semantics: the numpy kernels, shape and dtype inference (checked
  against torch's meta functions), the decomposition rules (golden rows against
  torch eager), edge values of the kernels;
* the core passes on small hand-written programs: decompose, cse/dce,
  functionalize, alias analysis, the pass harness's before-and-after runs;
* the structure checks: layers, code hygiene, op coverage.

It leaves out what costs seconds per test: IREE compiles and the linalg
lowering's numerics, the command-line tools in subprocesses, whole-model
exports (the zoo, torch.compile, training), the OpInfo conformance sweep, the
hostile-input fuzzer, TorchScript scripting and the frontends. `make test`
runs everything; run a left-out file by name when an edit touches it. A file
joins the set when it checks one of the layers above and takes well under a
second per test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

QUICK_FILES = frozenset(
    {
        "test_alias_db.py",
        "test_aten_coverage.py",
        "test_aten_dialect.py",
        "test_aten_kernels.py",
        "test_broadcast.py",
        "test_code_hygiene.py",
        "test_dce_cse.py",
        "test_decompose.py",
        "test_decompositions_golden.py",
        "test_dtype_lattice.py",
        "test_exir_dialect.py",
        "test_function_schema.py",
        "test_functionalize.py",
        "test_fx_dialect.py",
        "test_kernel_edge_values.py",
        "test_layers.py",
        "test_op_registry.py",
        "test_schema_binding.py",
        "test_symbolic.py",
        "test_ts_dialect.py",
    }
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--quick",
        action="store_true",
        help="run only the quick set of test files (tests/conftest.py: QUICK_FILES), the inner loop",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("quick"):
        here = Path(__file__).parent
        missing = sorted(name for name in QUICK_FILES if not (here / name).is_file())
        if missing:
            raise pytest.UsageError(f"tests/conftest.py: QUICK_FILES names files that do not exist: {missing}")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    # None leaves the decision to pytest (and to other plugins); True skips the file unimported
    if config.getoption("quick") and collection_path.name.startswith("test_") and collection_path.suffix == ".py":
        return collection_path.name not in QUICK_FILES or None
    return None
