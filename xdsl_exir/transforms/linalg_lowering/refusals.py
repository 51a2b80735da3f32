"""
Core ATen overloads the lowering refuses on purpose, each with its reason and
what to do instead (`docs/linalg_lowering.md` shows them). The backward
operators of training graphs (`convolution_backward`, the max, average and
adaptive average pooling, batch, layer and group norm and embedding backwards) are not here:
the lowering decomposes them first (`semantics/decompositions/backward.py`);
torch-mlir's FX-importer path to linalg lists `ConvolutionBackwardModule2D_basic`
and `NativeGroupNormBackwardModule_basic` among its expected failures
(`FX_IMPORTER_XFAIL_SET` in `projects/pt1/e2e_testing/xfail_sets.py`).
"""

from __future__ import annotations

from xdsl_exir.transforms.linalg_lowering import refuses

refuses(
    "aten.rand.default",
    "aten.randn.default",
    "aten.randperm.default",
    note="random numbers: native code cannot reproduce torch's generator; pass the random tensor in as an input",
)

refuses(
    "aten.nonzero.default",
    note="the result's size is the count of nonzero elements, known only at run time; use the interpreter",
)

refuses(
    "aten.masked_scatter.default",
    note=(
        "which source element a position takes is the count of true mask elements before it, a prefix "
        "sum over the whole mask the rules do not build; use the interpreter"
    ),
)

refuses(
    "aten._fft_r2c.default",
    "aten._fft_c2r.default",
    note="complex tensors have no lowering here; use the interpreter",
)

refuses(
    "aten.resize_.default",
    note="resizes a tensor in place, which has no meaning for the value tensors of the lowering",
)

refuses(
    "aten._embedding_bag.default",
    note=(
        "not lowered yet: each bag is a range of `indices` whose bounds come from `offsets` at run time, "
        "and of the four results three are bookkeeping for the backward; export with "
        "embedding + sum/mean/amax over the bags, or use the interpreter"
    ),
)
