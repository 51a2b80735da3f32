"""
`optimize-inference`: the named pipeline for running an exported model.

decompose → canonicalize → exir-cse → recompose-safe-softmax → fold-conv-bn → fuse-pointwise →
exir-dce. Decomposing first gives the later passes
one opset to match (batch norm is `_native_batch_norm_legit_no_training`
whatever the model called), cleaning up before folding lets the conv/BN pairs
be found, and fusion comes last so that it groups what is left. Each step is
the registered pass, so `-p optimize-inference` and the spelled-out pipeline
give the same IR.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.transforms.canonicalize import CanonicalizePass

from xdsl_exir.transforms.common_subexpression_elimination import ExirCSEPass
from xdsl_exir.transforms.dead_code_elimination import ExirDCEPass
from xdsl_exir.transforms.decompose import DecomposePass
from xdsl_exir.transforms.fold_conv_bn import FoldConvBNPass
from xdsl_exir.transforms.fuse_pointwise import FusePointwisePass
from xdsl_exir.transforms.recompose_safe_softmax import RecomposeSafeSoftmaxPass

__all__ = ["OptimizeInferencePass"]


@dataclass(frozen=True)
class OptimizeInferencePass(ModulePass):
    """The inference pipeline; `legal-ops` is decompose's, `min-fusion-size` fuse-pointwise's `min-size`."""

    name = "optimize-inference"

    legal_ops: tuple[str, ...] = ()
    min_fusion_size: int = 2

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        steps: list[ModulePass] = [
            DecomposePass(self.legal_ops),
            CanonicalizePass(),
            ExirCSEPass(),
            RecomposeSafeSoftmaxPass(),
            FoldConvBNPass(),
            FusePointwisePass(self.min_fusion_size),
            ExirDCEPass(),
        ]
        for step in steps:
            step.apply(ctx, op)
