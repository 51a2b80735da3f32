"""
Test selection shared by the whole suite.

`make quick` runs `pytest -m "not slow"`: the inner loop, everything but the
files below. Each of them compiles with IREE, starts the command-line tools
in subprocesses, exports whole models with torch, or sweeps OpInfo samples;
they run in `make test` (and in CI) as usual. A file joins the list when it
takes more than a few seconds of the quick run.
"""

import pytest

SLOW_FILES = frozenset(
    {
        "test_conformance.py",
        "test_constant_reductions.py",
        "test_core_aten.py",
        "test_generation.py",
        "test_hostile_input.py",
        "test_interpreter.py",
        "test_iree_backend.py",
        "test_linalg_lowering_conv_reduce.py",
        "test_linalg_lowering_views_resampling.py",
        "test_lowering_driver.py",
        "test_lowering_numerics.py",
        "test_npz_inputs.py",
        "test_pt2_frontend.py",
        "test_shape_flops.py",
        "test_targets.py",
        "test_tools.py",
        "test_torch_compile.py",
        "test_training_decompositions.py",
        "test_zoo.py",
    }
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in SLOW_FILES:
            item.add_marker(pytest.mark.slow)
