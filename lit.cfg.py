"""lit configuration: FileCheck tests of the dialects, passes and tools."""

import importlib.util
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


# Each served tool's RUN-line process is a fork of a server that has already imported it
# (tests/filecheck/tool_server.py says what that changes; EXIR_LIT_FRESH_PROCESSES=1 turns it off).
_spec = importlib.util.spec_from_file_location(
    "tool_server", os.path.join(os.path.dirname(os.path.abspath(__file__)), "tests", "filecheck", "tool_server.py")
)
assert _spec is not None and _spec.loader is not None
_tool_server = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_tool_server)
_tool_server.start(config)  # noqa: F821
