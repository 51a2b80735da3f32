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

import fnmatch
import os
import shutil
import tempfile
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
    if not hasattr(config, "workerinput"):
        _session_iree_cache(config)
        if config.getoption("dist", "no") != "no":
            _rewrite_ahead(config)


_IREE_CACHE_ENV = "EXIR_IREE_CACHE"


def _session_iree_cache(config: pytest.Config) -> None:
    """
    IREE's compile cache for this run alone: a temporary folder named by
    `$EXIR_IREE_CACHE` (removed at the end), which pytest-xdist's workers inherit.

    Tests that compile without naming a cache folder use the default one, the
    user's `~/.cache/xdsl-exir/iree`: the suite would write into it, and a run
    would find modules an earlier run compiled, so a second run on the same
    machine skipped compiles that a fresh machine (CI, a new contributor) pays
    for. One folder for the run keeps it hermetic and still shares, between
    test files and both workers, a module that several files compile from the
    same text. A `$EXIR_IREE_CACHE` set by the caller is kept as it is.
    """
    if os.environ.get(_IREE_CACHE_ENV):
        return
    folder = tempfile.mkdtemp(prefix="exir-iree-cache-")
    os.environ[_IREE_CACHE_ENV] = folder

    def remove() -> None:
        os.environ.pop(_IREE_CACHE_ENV, None)
        shutil.rmtree(folder, ignore_errors=True)

    config.add_cleanup(remove)


def _rewrite_ahead(config: pytest.Config) -> None:
    """
    In pytest-xdist's controller, before its workers start: each test module's
    asserts rewritten once and cached, as pytest caches them, in `__pycache__`.

    Every worker imports every test module to collect it, and pytest rewrites a
    test module's asserts (parse, rewrite, compile) unless its cache holds the
    result; where PYTHONDONTWRITEBYTECODE is set (CI machines, a fresh clone) it
    writes no cache, so each worker rewrote all of them: 4.5 of the 11.5 CPU-s
    a worker's collection took (measured), against about 4 s here, once. The workers read these files as they
    read the ones pytest writes; one they find stale or missing they rewrite
    themselves. This uses pytest's own (private) functions for the rewrite and
    the file, so the cache is pytest's own format; pyproject.toml pins pytest,
    and where those functions are gone this does nothing.
    """
    if config.getoption("assertmode") != "rewrite":
        return
    try:
        from _pytest.assertion.rewrite import PYC_TAIL, _rewrite_test, _write_pyc, assertstate_key, get_cache_dir

        state = config.stash[assertstate_key]
    except (ImportError, KeyError):
        return
    patterns = config.getini("python_files")
    quick = config.getoption("quick")
    files: set[Path] = set()
    for arg in config.args:
        path = config.invocation_params.dir / arg.split("::")[0]
        found = path.rglob("*.py") if path.is_dir() else [path] if path.suffix == ".py" else []
        files.update(f for f in found if any(fnmatch.fnmatch(f.name, p) for p in patterns) and (not quick or f.name in QUICK_FILES))
    for source in sorted(files):
        pyc = get_cache_dir(source) / (source.name[:-3] + PYC_TAIL)
        try:
            if pyc.is_file() and pyc.stat().st_mtime >= source.stat().st_mtime:
                continue
            pyc.parent.mkdir(exist_ok=True)
            stat, code = _rewrite_test(source, config)
        except (OSError, SyntaxError):  # the worker's own import reports it
            continue
        _write_pyc(state, code, stat, pyc)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    # None leaves the decision to pytest (and to other plugins); True skips the file unimported
    if config.getoption("quick") and collection_path.name.startswith("test_") and collection_path.suffix == ".py":
        return collection_path.name not in QUICK_FILES or None
    return None
