"""lit configuration: FileCheck tests of the dialects, passes and tools."""

import os

import lit.formats

config.name = "xdsl-exir"  # noqa: F821
config.test_format = lit.formats.ShTest(preamble_commands=[])  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
# Run as `lit tests/filecheck`; only that folder holds lit tests.
config.excludes = ["inputs", ".venv", "xdsl_exir", "benchmarks", "docs", "examples"]  # noqa: F821
config.environment["PATH"] = os.environ["PATH"]  # noqa: F821
for var in ("PYTHONPATH", "HOME", "VIRTUAL_ENV"):
    if var in os.environ:
        config.environment[var] = os.environ[var]  # noqa: F821
