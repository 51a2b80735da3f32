"""
The named pipelines on the whole zoo: `to-core-aten` and `optimize-inference`
keep every model's results, and after `optimize-inference` no batch norm is
left in a conv-bn model.
"""

from __future__ import annotations

import pytest
from pass_harness import assert_preserves, load_zoo, zoo_models
from xdsl.dialects.builtin import ModuleOp

MODELS = [m["name"] for m in zoo_models()]


def _op_names(module: ModuleOp) -> set[str]:
    names: set[str] = set()
    for op in module.walk():
        target = getattr(op, "target", None)
        names.add(op.name if target is None else str(target))
    return names


@pytest.mark.parametrize("ir", ["train", "core"])
@pytest.mark.parametrize("model", MODELS)
def test_to_core_aten_keeps_results(model: str, ir: str) -> None:
    assert_preserves(load_zoo(model, ir), "to-core-aten", seeds=(0,))


@pytest.mark.parametrize("ir", ["train", "core"])
@pytest.mark.parametrize("model", MODELS)
def test_optimize_inference_keeps_results(model: str, ir: str) -> None:
    # Folding batch norm into the conv weights changes rounding.
    assert_preserves(load_zoo(model, ir), "optimize-inference", seeds=(0,), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("ir", ["train", "core"])
@pytest.mark.parametrize("model", ["cnn_bn", "resnet_blocks"])
def test_optimize_inference_leaves_no_batch_norm(model: str, ir: str) -> None:
    after = assert_preserves(load_zoo(model, ir), "optimize-inference", seeds=(0,), rtol=1e-4, atol=1e-5)
    names = _op_names(after)
    assert not [n for n in names if "batch_norm" in n], sorted(names)
    if model == "resnet_blocks":  # the residual add and its relu run as one kernel
        assert "exir.fusion_group" in names
