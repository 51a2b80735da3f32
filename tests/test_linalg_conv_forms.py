"""
Each form `convert-exir-to-linalg` gives a 2-D convolution (the named op for
one group, a matrix product over im2col columns copied tap by tap for one group
and a batch of one, a matrix product for 1x1 kernels, the tap-wise generic for depthwise kernels, the windowed generic for
larger depthwise kernels, im2col columns and a batched contraction for other
groups), checked against torch eager: the exported program is lowered, run in
xDSL's Interpreter (`interpreters.upstream`, on every machine) and, when the
`iree` extra is installed, compiled by IREE and run natively. The cases cover
groups (a depthwise multiplier too), stride, padding, dilation, bias or none,
odd and non-square sizes, strides of 2 and 3 and along one dim only, a channels-last input, a batch of two, 1x1 and 3x3
products whose last output position is computed apart (`conv_products._LAST_POSITION_APART`), and special
values (NaN, +-inf, -0.0) in the input. All cases are one program, so IREE
compiles once per form; its products over few positions and a long reduction run
untiled, the others data-tiled (IREE's hint). Then which of IREE's data-tiling
paths a program with a convolution (a named one or a marked im2col product) and
one of matrix products alone take, which products the hint leaves untiled, and
the latter's numerics. Last, max pooling whose indices nothing
reads, as the elementwise maximum of its window taps or the named op, bit for
bit against eager with NaN, +-inf and zeros of both signs (ceil mode, padding,
dilation, strides of 1 to 3, an uneven kernel, an empty batch).
"""

from __future__ import annotations

import pathlib
import re
import warnings
from typing import Any

import numpy as np
import pytest
import torch
from torch import nn

from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.upstream import run_lowered
from xdsl_exir.targets.iree import lower_to_upstream, print_mlir, to_core
from xdsl_exir.transforms.linalg_lowering import conv_pool, conv_products

# (in, out, kernel, stride, padding, dilation, groups, bias, input [N, C, H, W])
CASES: list[tuple[int, int, tuple[int, int], int | tuple[int, int], int | tuple[int, int], int, int, bool, tuple[int, ...]]] = [
    (6, 8, (3, 3), 1, 1, 1, 1, True, (2, 6, 7, 9)),  # one group: the named op
    (5, 7, (1, 1), 1, 0, 1, 1, False, (1, 5, 5, 3)),  # 1x1: linalg.matmul
    (8, 12, (3, 3), 2, 1, 1, 4, True, (1, 8, 9, 11)),  # grouped, strided, odd sizes
    (6, 6, (3, 2), (1, 2), (2, 1), 2, 3, False, (2, 6, 8, 7)),  # grouped, dilated, uneven kernel
    (4, 8, (1, 1), 1, 0, 1, 2, True, (1, 4, 3, 5)),  # grouped 1x1
    (6, 12, (3, 3), 1, 1, 1, 6, False, (1, 6, 6, 6)),  # one channel a group, two filters each
    (7, 7, (3, 3), 1, 1, 1, 7, True, (2, 7, 9, 8)),  # depthwise 3x3: the tap-wise generic
    (5, 5, (5, 5), 2, 2, 1, 5, False, (1, 5, 11, 10)),  # depthwise 5x5, strided
    (3, 3, (3, 3), 1, 2, 2, 3, True, (1, 3, 7, 7)),  # depthwise, dilated
    (4, 4, (9, 9), 1, 4, 1, 4, True, (1, 4, 10, 10)),  # depthwise 9x9: the windowed generic
    (6, 4, (1, 1), 2, 0, 1, 1, True, (2, 6, 7, 8)),  # 1x1, a batch of two, strided: a contraction generic
    (4, 6, (1, 1), 2, 0, 1, 1, False, (1, 4, 9, 6)),  # 1x1 strided: linalg.matmul on a strided slice
    (3, 5, (1, 1), 1, 1, 1, 1, True, (1, 3, 4, 5)),  # 1x1 padded
    (4, 4, (3, 3), 2, 2, 2, 4, True, (1, 4, 9, 8)),  # depthwise, strided and dilated: phases
    (6, 6, (3, 3), 3, 1, 1, 6, False, (1, 6, 10, 11)),  # depthwise, stride 3: nine phases
    (3, 3, (3, 3), (2, 1), 1, 1, 3, True, (2, 3, 7, 6)),  # depthwise, strided along the height only
    (3, 8, (3, 3), 2, 1, 1, 1, True, (1, 3, 11, 10)),  # one group, a batch of one, strided: a stem
    (5, 6, (3, 2), 1, (1, 0), 2, 1, False, (1, 5, 8, 9)),  # one group, a batch of one, dilated, uneven kernel
    (3, 4, (8, 8), 8, 0, 1, 1, True, (1, 3, 16, 24)),  # patches of 64 taps: the named op, not a copy per tap
    (256, 24, (3, 3), 1, 1, 1, 1, True, (1, 256, 2, 2)),  # 4 positions, 24 filters, 2304 deep: a product left untiled
    (2048, 40, (1, 1), 1, 0, 1, 1, False, (1, 2048, 3, 3)),  # 1x1, 9 positions, 40 filters, 2048 deep: likewise
    (128, 24, (3, 3), 1, 1, 1, 1, False, (1, 128, 5, 4)),  # 24 filters, 1152 deep, 20 positions: untiled
    (256, 256, (1, 1), 1, 0, 1, 1, True, (1, 256, 3, 3)),  # 1x1, 9 positions: the last apart, its bias after
    (64, 128, (3, 3), 1, 1, 1, 1, False, (1, 64, 3, 3)),  # 3x3 at 3x3: the last window read from the padded input
    (32, 256, (3, 3), 2, 1, 1, 1, True, (1, 32, 6, 5)),  # strided: 3x3 positions, the last window at (4, 4)
    (64, 128, (3, 3), 1, 2, 2, 1, True, (1, 64, 1, 5)),  # dilated, 5 positions in one row
]


class Convs(nn.Module):
    """One convolution per case, each on its own input; the third input arrives channels-last."""

    def __init__(self) -> None:
        super().__init__()
        gen = torch.Generator().manual_seed(0)
        self.convs = nn.ModuleList()
        for cin, cout, k, s, p, d, g, bias, _ in CASES:
            conv = nn.Conv2d(cin, cout, k, s, p, d, g, bias)
            with torch.no_grad():
                conv.weight.copy_(torch.randn(conv.weight.shape, generator=gen))
                if conv.bias is not None:
                    conv.bias.copy_(torch.randn(conv.bias.shape, generator=gen))
            self.convs.append(conv)

    def forward(self, *xs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return tuple(conv(x) for conv, x in zip(self.convs, xs))


def _inputs(seed: int) -> list[torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    xs = [torch.randn(c[-1], generator=gen) for c in CASES]
    xs[2] = xs[2].contiguous(memory_format=torch.channels_last)
    # special values: NaN, infinities and a negative zero in a grouped, two depthwise and two dense inputs
    for i in (2, 6, 13, 16, 21):
        xs[i] = xs[i].clone()  # keeps the memory format
        xs[i][0, 0, 0, 0] = float("nan")
        xs[i][0, 0, 2, 2] = float("inf")
        xs[i][0, 1, 1, 1] = float("-inf")
        xs[i][0, 1, 0, 0] = -0.0
    # the narrow products: a non-contiguous input with zeros of both signs, and a 1x1 whose
    # positions (0, 0), (1, 1) and (2, 2) read a NaN, an inf and a -inf
    xs[19] = torch.randn(1, 256, 2, 4, generator=gen)[..., ::2]
    xs[19][0, :, 0, 0] = -0.0
    xs[19][0, :, 1, 1] = 0.0
    if seed == 2:  # read by every output of the 3x3: NaN and infinities through the transposed product
        xs[19][0, 3, 0, 1] = float("nan")
        xs[19][0, 5, 1, 0] = float("inf")
    xs[20] = xs[20].clone()
    xs[20][0, 0, 0, 0] = float("nan")
    xs[20][0, 1, 1, 1] = float("inf")
    xs[20][0, 2, 2, 2] = float("-inf")
    xs[20][0, 3, 0, 1] = -0.0
    # the apart positions (the last of each output) read zeros of both signs, one case a
    # non-contiguous input; with seed 2 NaN and infinities, which make every filter's last
    # position NaN or infinite (seed 1 keeps them finite, so that the bias added after is checked)
    xs[22] = torch.randn(1, 256, 3, 6, generator=gen)[..., ::2]
    xs[22][0, 3:, 2, 2] = -0.0
    xs[22][0, :3, 2, 1] = 0.0
    xs[23] = xs[23].clone()
    xs[23][0, 5, 2, 2] = -0.0
    for i, where in ((22, (0, 0, 2, 2)), (23, (0, 6, 1, 2)), (24, (0, 0, 4, 4)), (25, (0, 7, 0, 4))):
        if seed == 2:
            xs[i] = xs[i].clone()
            xs[i][where] = (float("nan"), float("inf"), float("-inf"), float("nan"))[i - 22]
    return xs


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[Convs, Any]:
    model = Convs().eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(model, tuple(_inputs(0))).run_decompositions()
    path = pathlib.Path(tmp_path_factory.mktemp("conv")) / "convs.pt2"
    torch.export.save(ep, path)
    return model, load_pt2(path.read_bytes(), path.name)


def _compare(got: list[Any], model: Convs, xs: list[torch.Tensor], what: str) -> None:
    with torch.inference_mode():
        want = [w.numpy() for w in model(*xs)]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g)
        assert g.shape == w.shape, f"{what} case {i}: {g.shape} vs {w.shape}"
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4, err_msg=f"{what} case {i} {CASES[i]}")


FORMS = {
    "1x1-matmul": {"_POINTWISE_MATMUL": True},
    "1x1-named": {"_POINTWISE_MATMUL": False},
    "nhwc": {"_CHANNELS_LAST": True},
    "depthwise-nhwc": {"_DEPTHWISE_NHWC": True},
    "depthwise-constant-taps": {"_TAP_WEIGHT_SLICES": False},
    "depthwise-strided-direct": {"_STRIDE_PHASES": False},
    "dense-taps-im2col": {"_DENSE_TAPS_IM2COL": True},
    "grouped-taps": {"_GROUPED_TAPS": True},
    "grouped-gather": {"_GROUPED_TAPS": False},
    "last-position-together": {"_LAST_POSITION_APART": False},
}
"""Lowering switches of `conv_pool` per form (the others at their defaults): both forms of a 1x1
convolution (`_POINTWISE_MATMUL`), whichever is the default, the channels-last form of one-group
convolutions (`_CHANNELS_LAST`), the channels-last tap-wise depthwise generic (`_DEPTHWISE_NHWC`),
its weight read at constant taps instead of one slice per tap (`_TAP_WEIGHT_SLICES`) and strided
taps read from the input directly instead of from its stride phases (`_STRIDE_PHASES`), and
one-group convolutions of a batch of one as a matrix product over columns copied from their taps
(`_DENSE_TAPS_IM2COL`), and grouped convolutions' columns copied tap by tap or gathered
(`_GROUPED_TAPS`), whichever is the default, and the last of 5 to 15 output positions computed with
the others (`conv_products._LAST_POSITION_APART`, a switch of that module)."""


@pytest.mark.parametrize("form", list(FORMS))
def test_lowered_forms_equal_eager(program: tuple[Convs, Any], form: str, monkeypatch: pytest.MonkeyPatch) -> None:
    model, module = program
    switches = {"_POINTWISE_MATMUL": conv_pool._POINTWISE_MATMUL, "_CHANNELS_LAST": False, "_DEPTHWISE_NHWC": False,
                "_TAP_WEIGHT_SLICES": True, "_STRIDE_PHASES": True, "_DENSE_TAPS_IM2COL": conv_pool._DENSE_TAPS_IM2COL, "_GROUPED_TAPS": conv_pool._GROUPED_TAPS,
                "_LAST_POSITION_APART": True, **FORMS[form]}  # fmt: skip
    for name, value in switches.items():
        monkeypatch.setattr(conv_products if name == "_LAST_POSITION_APART" else conv_pool, name, value)
    lowered = lower_to_upstream(to_core(module))
    text = print_mlir(lowered)
    # every form is exercised
    channels_last, pointwise = switches["_CHANNELS_LAST"], switches["_POINTWISE_MATMUL"]
    assert ("linalg.conv_2d_nchw_fchw" in text) != channels_last
    assert ("linalg.conv_2d_nhwc_hwcf" in text) == channels_last
    assert ("linalg.matmul" in text) == (pointwise or switches["_DENSE_TAPS_IM2COL"])
    # the im2col product of the dense 3x3 stem (3 -> 8 channels at 6x5) reads the weight as stored, marked
    im2col = re.search(r"linalg.matmul \{exir.im2col\} ins\(%\w+, %\w+ : tensor<8x27xf32>, tensor<27x30xf32>\)", text)
    assert (im2col is not None) == switches["_DENSE_TAPS_IM2COL"]
    assert (conv_products.IM2COL_MARK in text) == (switches["_DENSE_TAPS_IM2COL"] or pointwise)
    patches = re.search(r"linalg.conv_2d_nchw_fchw [^\n]*tensor<4x3x8x8xf32>", text)
    assert (patches is not None) != channels_last
    assert "linalg.conv_2d_ngchw_gfchw" not in text
    # a tap's weight is a rank-reducing slice to [C] unless read at constant taps
    per_tap = "[1, 1, 1, 1] : tensor<7x1x3x3xf32> to tensor<7xf32>" in text
    assert per_tap == (switches["_TAP_WEIGHT_SLICES"] or switches["_DEPTHWISE_NHWC"])
    # the depthwise 3x3 input (2x7x9x8, padded to 2x7x11x10) is transposed channels-last
    transposed = re.search(r"linalg.transpose ins\(%\w+ ?: ?tensor<2x7x11x10xf32>\) outs\(%\w+ ?: ?tensor<2x11x10x7xf32>\)", text)
    assert (transposed is not None) == switches["_DEPTHWISE_NHWC"]
    # the strided 5x5 depthwise input (padded and cropped to 1x5x15x13) split into its 2x2 phases of 8x7
    assert ("tensor<1x5x2x2x8x7xf32>" in text) == (switches["_STRIDE_PHASES"] and not switches["_DEPTHWISE_NHWC"])
    # the grouped 3x3/2 case's columns: [N, G, taps, C, OH, OW] copied tap by tap, or [N, G, C, kh, kw, OH, OW] gathered
    assert ("tensor<1x4x9x2x5x6xf32>" in text) == switches["_GROUPED_TAPS"]
    assert ("tensor<1x4x2x3x3x5x6xf32>" in text) != switches["_GROUPED_TAPS"]
    # the last of 9 (or 5) positions apart: a product over 8 (or 4) and a matrix-vector generic
    # (`conv_products._LAST_POSITION_APART`), for 1x1 and, over im2col columns, 3x3 kernels
    apart, taps = switches["_LAST_POSITION_APART"], switches["_LAST_POSITION_APART"] and switches["_DENSE_TAPS_IM2COL"]
    def head(operands: str) -> bool:
        return re.search(rf"linalg.matmul \{{exir.im2col\}} ins\(%\w+, %\w+ : {operands}\)", text) is not None
    assert head("tensor<256x256xf32>, tensor<256x8xf32>") == apart
    assert head("tensor<128x576xf32>, tensor<576x8xf32>") == taps and head("tensor<128x576xf32>, tensor<576x4xf32>") == taps
    assert head("tensor<256x288xf32>, tensor<288x8xf32>") == taps
    # the window of the last position, read from the padded input (64 channels x 3 x 3)
    assert ("tensor<64x3x3xf32>" in text) == taps
    assert "tensor<40x2048xf32>, tensor<2048x8xf32>" not in text  # 2048 deep: left whole, and untiled by IREE
    xs = _inputs(1)
    _compare(run_lowered(lowered, [x.numpy() for x in xs]), model, xs, f"upstream interpreter, {form}")


@pytest.mark.parametrize("taps", [True, False], ids=["dense-taps-im2col", "dense-named"])
def test_iree_forms_equal_eager(program: tuple[Convs, Any], taps: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default forms natively, with one-group convolutions of a batch of one as im2col
    columns and a matrix product or as the named op (`_DENSE_TAPS_IM2COL`)."""
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    from xdsl_exir.targets.iree import (
        DATA_TILING_FLAG,
        DATA_TILING_HINT,
        IreeOptions,
        compile_program,
        data_tiling_hints,
    )

    monkeypatch.setattr(conv_pool, "_DENSE_TAPS_IM2COL", taps)
    model, module = program
    compiled = compile_program(module, IreeOptions(threads=1, use_cache=False))
    marked = taps or conv_pool._POINTWISE_MATMUL
    # the 1x1 case of 9 positions is a marked product whatever the form (`conv_products._LAST_POSITION_APART`)
    assert (conv_products.IM2COL_MARK in compiled.text) == (marked or conv_products._LAST_POSITION_APART)
    # the narrow deep products (4 positions for 24 filters, 9 for 40) run untiled, the others data-tiled
    hinted = data_tiling_hints(compiled.text) or ""
    assert DATA_TILING_FLAG in compiled.options.compile_flags(compiled.text)
    assert (DATA_TILING_HINT in hinted) == marked
    if taps:
        # 4 positions: computed transposed, columns^T [4, 2304] x weight^T (`targets.iree._TRANSPOSED_COLUMNS`)
        assert not re.search(r"linalg.matmul \{exir.im2col\} ins\(%\w+, %\w+ : tensor<24x2304xf32>", hinted)
        transposed = r"linalg.generic .* ins\(%\w+, %\w+ : tensor<4x2304xf32>, tensor<24x2304xf32>\) outs\(%\w+ : tensor<4x24xf32>\) attrs = \{exir.im2col\}"
        assert re.search(transposed, hinted)
        assert re.search(r"linalg.matmul \{exir.im2col\} ins\(%\w+, %\w+ : tensor<24x1152xf32>, tensor<1152x20xf32>\)", hinted)
        assert re.search(r"linalg.matmul \{exir.im2col, iree.opt.data_tiling\} ins\(%\w+, %\w+ : tensor<8x27xf32>", hinted)
    for seed in (1, 2):
        xs = _inputs(seed)
        _compare(compiled(*[x.numpy() for x in xs]), model, xs, f"IREE seed {seed}")


class _Head(nn.Module):
    """A classifier head: matrix products alone (no convolution), as in a transformer's MLP."""

    def __init__(self) -> None:
        super().__init__()
        gen = torch.Generator().manual_seed(3)
        self.fc1, self.fc2 = nn.Linear(48, 40), nn.Linear(40, 24)
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.randn(p.shape, generator=gen))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


def test_data_tiling_paths() -> None:
    """Programs with a named convolution take IREE's dispatch-creation data tiling by default;
    programs of matrix products alone the global path with the mmt4d microkernel, without
    hoisting (the weights packed on each call, not copied at load time), where
    `IreeOptions.auto_data_tiling` finds it pays (128 rows here) or when asked
    (`IreeOptions.data_tiling_flags`)."""
    from xdsl_exir.targets.iree import DATA_TILING_FLAG, GLOBAL_DATA_TILING_FLAG, IreeOptions

    conv = "%3 = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>} ins(%0, %1 : ...)"
    matmul = "%3 = linalg.matmul ins(%0, %1 : tensor<4x8xf32>, tensor<8x2xf32>) outs(%2 : tensor<4x2xf32>)"
    default, asked = IreeOptions(), IreeOptions(data_tiling=True)
    assert DATA_TILING_FLAG in default.compile_flags(conv + "\n" + matmul)
    assert GLOBAL_DATA_TILING_FLAG not in default.compile_flags(conv + "\n" + matmul)
    assert not {DATA_TILING_FLAG, GLOBAL_DATA_TILING_FLAG} & set(default.compile_flags(matmul))
    wide = matmul.replace("tensor<4x8xf32>", "tensor<128x8xf32>").replace("tensor<4x2xf32>", "tensor<128x2xf32>")
    assert default.compile_flags(wide) == asked.compile_flags(matmul)
    flags = asked.compile_flags(matmul)
    assert GLOBAL_DATA_TILING_FLAG in flags and "--iree-llvmcpu-enable-ukernels=mmt4d" in flags
    assert "--iree-opt-const-expr-hoisting=false" in flags and DATA_TILING_FLAG not in flags
    assert not {DATA_TILING_FLAG, GLOBAL_DATA_TILING_FLAG} & set(IreeOptions(data_tiling=False).compile_flags(conv))
    # a dense convolution's im2col product (`conv_products.IM2COL_MARK`) counts as a convolution, not as rows
    im2col = wide.replace("linalg.matmul ins", "linalg.matmul {exir.im2col} ins")
    assert default.compile_flags(im2col) == default.compile_flags(conv)


def test_data_tiling_rule_by_weight_passes_and_size() -> None:
    """Without a convolution, data tiling is on where a product's rows make IREE read its weight
    12 times or more untiled (17 rows: one at a time; 64: eight at a time, 8 passes) and no
    product's weight is larger than 1024x2816 (packed on each call, `IreeOptions.auto_data_tiling`)."""
    from xdsl_exir.targets.iree import IreeOptions, weight_passes

    def product(rows: int, k: int, n: int, attrs: str = "") -> str:
        return (
            f"%3 = linalg.matmul{attrs} ins(%0, %1 : tensor<{rows}x{k}xf32>, tensor<{k}x{n}xf32>) "
            f"outs(%2 : tensor<{rows}x{n}xf32>) -> tensor<{rows}x{n}xf32>"
        )

    assert [weight_passes(r) for r in (0, 1, 8, 9, 17, 31, 32, 63, 64, 96, 128)] == [0, 1, 1, 3, 17, 31, 4, 9, 8, 12, 16]
    auto = IreeOptions().auto_data_tiling
    on = [(17, 192, 768), (31, 768, 768), (17, 768, 3072), (17, 1024, 2816), (96, 768, 768), (128, 256, 768)]
    on += [(512, 256, 1024)]
    off = [(1, 4096, 4096), (8, 768, 3072), (32, 768, 3072), (63, 768, 768), (64, 768, 768), (17, 4096, 4096)]
    off += [(128, 4096, 4096), (17, 1024, 2817), (4, 16, 32)]
    assert [auto(product(*p)) for p in on] == [True] * len(on)
    assert [auto(product(*p)) for p in off] == [False] * len(off)
    # one large weight keeps the program off: data tiling would pack it on each call too
    assert not auto(product(128, 256, 768) + "\n" + product(1, 4096, 4096))
    assert auto(product(4, 16, 32) + "\n" + product(17, 192, 768))
    # dynamic rows are not counted; a marked im2col product is a convolution, whatever its weight
    assert not auto(product(17, 192, 768).replace("tensor<17x", "tensor<?x"))
    assert auto(product(1, 4096, 4096, " {exir.im2col}"))
    assert IreeOptions(data_tiling=True).auto_data_tiling(product(1, 4096, 4096))
    assert not IreeOptions(data_tiling=False).auto_data_tiling(product(17, 192, 768))


def test_data_tiling_hints_leave_narrow_convolution_products_untiled() -> None:
    """On the dispatch-creation path a program with a convolution's product of at most 16 output
    positions, more filters than positions and a reduction of 2048 or more, or of at most 32
    filters, gets IREE's hint on
    every other static product, so that IREE data-tiles those alone
    (`targets.iree.data_tiling_hints`); a program without one is left as it is, and the hinted
    mark still reads as a convolution."""
    from xdsl_exir.targets.iree import (
        DATA_TILING_FLAG,
        DATA_TILING_HINT,
        KEEP_TRANSPOSES_FLAG,
        IreeOptions,
        data_tiling_hints,
        hinted_text,
    )

    def product(rows: int, k: int, n: int, attrs: str = "") -> str:
        return (
            f"%3 = linalg.matmul{attrs} ins(%0, %1 : tensor<{rows}x{k}xf32>, tensor<{k}x{n}xf32>) "
            f"outs(%2 : tensor<{rows}x{n}xf32>) -> tensor<{rows}x{n}xf32>"
        )

    mark = " {exir.im2col}"
    deep, mid, stem, fc = product(512, 4608, 4, mark), product(256, 2304, 16, mark), product(64, 147, 1024, mark), product(1, 512, 1000)
    text = "\n".join([stem, mid, deep, fc])
    lines = (data_tiling_hints(text) or "").splitlines()
    # 16 and 4 positions: untiled, the 4 computed transposed (12 lines: `_transposed_product`)
    hinted = [*lines[:2], "\n".join(lines[2:-1]), lines[-1]]
    assert hinted[0] == stem.replace(mark, " {exir.im2col, iree.opt.data_tiling}")
    assert hinted[1] == mid
    assert hinted[2] == _transposed(512, 4608, 4)
    assert hinted[3] == fc.replace("linalg.matmul ins", f"linalg.matmul {{{DATA_TILING_HINT}}} ins")
    # wider products, a shorter reduction or an unmarked product: no hint
    for other in (product(64, 4608, 17, mark), product(512, 2047, 4, mark), product(512, 4608, 4)):
        assert data_tiling_hints("\n".join([stem, other, fc])) == "\n".join([stem, other, fc])
    # products of at most 32 filters and 1024 deep or more (DenseNet's 3x3s: 32 over 256
    # positions, 1152 deep) are untiled whatever their positions; 33 filters, or a stem's 27
    # deep, are tiled
    for few in (product(32, 1152, 256, mark), product(8, 4608, 16, mark), product(1, 1024, 4096, mark)):
        assert (data_tiling_hints("\n".join([stem, few, fc])) or "").splitlines() == [hinted[0], few, hinted[3]]
    for tiled in (product(33, 1152, 256, mark), product(32, 1023, 256, mark), product(16, 27, 1024, mark)):
        assert data_tiling_hints("\n".join([deep, tiled])) == "\n".join([hinted[2], tiled.replace(mark, " {exir.im2col, iree.opt.data_tiling}")])
    assert data_tiling_hints(product(32, 1152, 256, mark)) is None
    # narrow products alone: nothing to hint, so no data tiling (IREE would tile every product)
    assert data_tiling_hints("\n".join([mid, deep])) is None
    # the hinted text still takes the flags of a program with a convolution
    assert DATA_TILING_FLAG in IreeOptions().compile_flags("\n".join(hinted))
    # compiled with IREE's transpose propagation off, which folds the result's transpose back
    assert hinted_text(text, [DATA_TILING_FLAG]) == ("\n".join(hinted), [DATA_TILING_FLAG, KEEP_TRANSPOSES_FLAG])
    assert hinted_text("\n".join([stem, mid, fc]), [DATA_TILING_FLAG])[1] == [DATA_TILING_FLAG]
    assert hinted_text("\n".join([mid, deep]), [DATA_TILING_FLAG]) == ("\n".join([mid, deep]), [])
    # a product of fewer filters than positions is not transposed
    assert data_tiling_hints("\n".join([stem, product(4, 4608, 4, mark)])) == "\n".join([hinted[0], product(4, 4608, 4, mark)])


def _transposed(rows: int, k: int, n: int) -> str:
    """`data_tiling_hints`'s transposed form of `%3 = linalg.matmul {exir.im2col} ins(%0, %1 ...) outs(%2 ...)`."""
    maps = "affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>"
    return "\n".join(
        [
            f"%exir_t3_c0 = tensor.empty() : tensor<{n}x{k}xf32>",
            f"%exir_t3_c = linalg.transpose ins(%1 : tensor<{k}x{n}xf32>) outs(%exir_t3_c0 : tensor<{n}x{k}xf32>) permutation = [1, 0]",
            f"%exir_t3_a0 = tensor.empty() : tensor<{n}x{rows}xf32>",
            f"%exir_t3_a = linalg.transpose ins(%2 : tensor<{rows}x{n}xf32>) outs(%exir_t3_a0 : tensor<{n}x{rows}xf32>) permutation = [1, 0]",
            f'%exir_t3_t = linalg.generic {{indexing_maps = [{maps}], iterator_types = ["parallel", "parallel", "reduction"]}} '
            f"ins(%exir_t3_c, %0 : tensor<{n}x{k}xf32>, tensor<{rows}x{k}xf32>) outs(%exir_t3_a : tensor<{n}x{rows}xf32>) attrs = {{exir.im2col}} {{",
            "^bb0(%exir_t3_x: f32, %exir_t3_y: f32, %exir_t3_z: f32):",
            "  %exir_t3_m = arith.mulf %exir_t3_x, %exir_t3_y : f32",
            "  %exir_t3_s = arith.addf %exir_t3_z, %exir_t3_m : f32",
            "  linalg.yield %exir_t3_s : f32",
            f"}} -> tensor<{n}x{rows}xf32>",
            f"%exir_t3_r0 = tensor.empty() : tensor<{rows}x{n}xf32>",
            f"%3 = linalg.transpose ins(%exir_t3_t : tensor<{n}x{rows}xf32>) outs(%exir_t3_r0 : tensor<{rows}x{n}xf32>) permutation = [1, 0]",
        ]
    )


def test_iree_lone_narrow_convolution_equals_eager(tmp_path: pathlib.Path) -> None:
    """A program whose only product is a narrow deep one (3x3, 256 -> 24 channels at 2x2) has
    nothing to hint, so it compiles without data tiling (`compile_text`), and agrees with eager."""
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    from xdsl_exir.targets.iree import IreeOptions, compile_program, data_tiling_hints

    gen = torch.Generator().manual_seed(5)
    conv = nn.Conv2d(256, 24, 3, 1, 1).eval()
    x = torch.randn(1, 256, 2, 2, generator=gen)
    path = tmp_path / "narrow.pt2"
    torch.export.save(torch.export.export(conv, (x,)).run_decompositions(), path)
    compiled = compile_program(path, IreeOptions(threads=1, use_cache=False))
    assert data_tiling_hints(compiled.text) is None
    # every output reads every input element here, so a NaN would make all of it NaN: zeros instead
    x[0, :128, 0, 0], x[0, 128:, 1, 1] = -0.0, 0.0
    with torch.inference_mode():
        want = conv(x).numpy()
    np.testing.assert_allclose(np.asarray(compiled(x.numpy())[0]), want, rtol=1e-4, atol=1e-4)


def test_iree_global_data_tiling_equals_eager(tmp_path: pathlib.Path) -> None:
    """The global data-tiling path with the mmt4d microkernel (packed operands, another summation
    order) against eager, special values included, on a batch that is no multiple of the tiles."""
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    from xdsl_exir.targets.iree import GLOBAL_DATA_TILING_FLAG, IreeOptions, compile_program

    model = _Head().eval()
    x = torch.randn(37, 48, generator=torch.Generator().manual_seed(4))
    path = tmp_path / "head.pt2"
    torch.export.save(torch.export.export(model, (x,)).run_decompositions(), path)
    compiled = compile_program(path, IreeOptions(threads=1, use_cache=False, data_tiling=True))
    assert GLOBAL_DATA_TILING_FLAG in compiled.options.compile_flags(compiled.text)
    x[0, 0], x[1, 3], x[2, 5], x[3, 7] = float("nan"), float("inf"), float("-inf"), -0.0
    with torch.inference_mode():
        want = model(x).numpy()
    got = np.asarray(compiled(x.numpy())[0])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    assert np.isnan(got[:4]).any() and np.array_equal(np.isnan(got), np.isnan(want))


# -- max pooling ---------------------------------------------------------------------

# (kernel, stride, padding, dilation, ceil_mode, input [N, C, H, W])
POOLS: list[tuple[Any, Any, Any, int, bool, tuple[int, ...]]] = [
    (3, 2, 0, 1, True, (1, 4, 31, 31)),  # SqueezeNet's: ceil mode over odd sizes
    (3, 2, 1, 1, False, (2, 3, 16, 16)),  # ResNet's: padded, a batch of two
    (2, 2, 0, 1, False, (1, 3, 6, 7)),  # 2x2/2, the odd last column read by no window
    (3, 1, 1, 1, False, (1, 2, 5, 6)),  # stride 1: plain slices
    (3, (2, 1), (1, 0), 2, True, (1, 2, 9, 8)),  # dilated, strided along the height only
    (3, 3, 1, 1, True, (1, 2, 10, 11)),  # stride 3: nine phases
    ((2, 3), (1, 2), (1, 1), 1, False, (1, 3, 5, 7)),  # uneven kernel
    (3, 2, 1, 1, False, (0, 3, 8, 8)),  # an empty batch: the named op
]


class Pools(nn.Module):
    """One max pooling per case of `POOLS`, each on its own input."""

    def forward(self, *xs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return tuple(nn.functional.max_pool2d(x, k, s, p, d, ceil_mode=c) for (k, s, p, d, c, _), x in zip(POOLS, xs))


def _pool_inputs(seed: int) -> list[torch.Tensor]:
    """Random inputs with NaN, +-inf, a window of zeros whose first is -0.0 (torch keeps the first of
    equal values), one of +0.0 before a -0.0, and a window of -inf alone."""
    gen = torch.Generator().manual_seed(seed)
    xs = [torch.randn(c[-1], generator=gen) for c in POOLS]
    for x in xs:
        if x.numel() == 0:
            continue
        x[0, 0, :3, :3] = 0.0
        x[0, 0, 0, 0] = -0.0
        x[0, 1, :3, :3] = 0.0
        x[0, 1, 1, 1] = -0.0
        x[0, 2 % x.shape[1], 3:, 3:] = float("-inf")
        x[0, 1, 3, 4] = float("nan")
        x[0, 0, 4, 3] = float("inf")
        x[-1, -1, -1, -1] = float("nan")
    return xs


def _compare_pools(got: list[Any], xs: list[torch.Tensor], what: str) -> None:
    """Equal to eager, NaN where eager has NaN and each zero of the sign eager gives it."""
    with torch.inference_mode():
        want = [w.numpy() for w in Pools()(*xs)]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g)
        assert g.shape == w.shape, f"{what} pool {i}: {g.shape} vs {w.shape}"
        np.testing.assert_array_equal(g, w, err_msg=f"{what} pool {i} {POOLS[i]}")
        assert np.array_equal(np.signbit(g), np.signbit(w)), f"{what} pool {i} {POOLS[i]}: the sign of a zero differs"


def exported_pools(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """`Pools` exported, saved and read back (the max pool forms tests share it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(Pools(), tuple(_pool_inputs(0))).run_decompositions()
    path = pathlib.Path(tmp_path_factory.mktemp("pool")) / "pools.pt2"
    torch.export.save(ep, path)
    return load_pt2(path.read_bytes(), path.name)


@pytest.fixture(scope="module")
def pools(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return exported_pools(tmp_path_factory)


@pytest.mark.parametrize("taps", [True, False], ids=["max-of-taps", "named"])
def test_lowered_max_pools_equal_eager(pools: Any, taps: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Max pooling whose indices nothing reads, as the elementwise maximum of its window taps
    (`_MAX_POOL_TAPS`) or the named op, in xDSL's interpreter; the taps bit for bit, zeros' signs
    included (the named op's `arith.maximumf` orders -0.0 below +0.0, where torch keeps the first)."""
    monkeypatch.setattr(conv_pool, "_MAX_POOL_TAPS", taps)
    monkeypatch.setattr(conv_pool, "_MAX_POOL_CHANNELS_LAST", False)  # its own tests: test_linalg_max_pool_forms.py
    lowered = lower_to_upstream(to_core(pools))
    text = print_mlir(lowered)
    named = len(re.findall(r"linalg.pooling_nchw_max", text))
    assert named == (1 if taps else len(POOLS))  # the empty batch keeps the named op
    # SqueezeNet's pool reads its 4x31x31 input (padded to 32x32) from its 2x2 stride phases
    assert ("tensor<1x4x2x2x16x16xf32>" in text) == taps
    xs = _pool_inputs(1)
    got = run_lowered(lowered, [x.numpy() for x in xs])
    if taps:
        _compare_pools(got, xs, "upstream interpreter")
    else:
        with torch.inference_mode():
            want = [w.numpy() for w in Pools()(*xs)]
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.asarray(g), w)


def test_iree_max_pools_equal_eager(pools: Any) -> None:
    """The default form natively, bit for bit against eager, zeros' signs included."""
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    from xdsl_exir.targets.iree import IreeOptions, compile_program

    compiled = compile_program(pools, IreeOptions(threads=1, use_cache=False))
    assert compiled.text.count("linalg.pooling_nchw_max") == 1
    for seed in (1, 2):
        xs = _pool_inputs(seed)
        _compare_pools(compiled(*[x.numpy() for x in xs]), xs, f"IREE seed {seed}")
