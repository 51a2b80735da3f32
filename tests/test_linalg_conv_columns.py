"""
The im2col columns of dense and grouped 2-D convolutions as one generic
(`linalg_lowering.columns`, `conv_pool._WINDOW_COLUMNS`), checked against
torch eager on xDSL's Interpreter and natively by IREE: a padded dense 3x3,
an uneven dilated kernel with uneven padding, a stride along the columns
only, an input smaller than its padding, grouped ones (a batch of two), and
the cases left to the tap copies (a stride along the rows, an empty batch,
no padded row). Inputs carry NaN, +-inf and -0.0 on the rows next to the
padding, which the clamped reads of padded rows touch (a mask that let them
through would put them into the output), and arrive non-contiguous. The
lowered form is checked too: one generic reading the input with
`tensor.extract`, the full pad of the input gone.
"""

from __future__ import annotations

import pathlib
import warnings
from typing import Any

import numpy as np
import pytest
from iree_compiles import ProgramBatch
from xdsl.dialects.builtin import ModuleOp

from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.upstream import run_lowered
from xdsl_exir.targets.iree import iree_available, lower_to_upstream, print_mlir, to_core
from xdsl_exir.transforms.linalg_lowering import conv_pool

torch = pytest.importorskip("torch")

# name: (in, out, kernel, stride, padding, dilation, groups, bias, input [N, C, H, W], whether the generic applies)
CASES: dict[str, tuple[int, int, Any, Any, Any, int, int, bool, tuple[int, ...], bool]] = {
    "dense": (8, 6, 3, 1, 1, 1, 1, True, (1, 8, 7, 9), True),
    "dense-dilated-uneven": (5, 4, (3, 2), 1, (2, 1), 2, 1, False, (1, 5, 8, 9), True),
    "dense-row-stride": (4, 5, 3, (2, 1), 1, 1, 1, True, (1, 4, 9, 7), True),
    "dense-tiny-input": (6, 3, 3, 1, 2, 1, 1, True, (1, 6, 2, 3), True),
    "grouped": (8, 12, 3, 1, 1, 1, 4, True, (1, 8, 6, 5), True),
    "grouped-batch-two": (6, 6, 3, 1, (1, 2), 1, 3, False, (2, 6, 5, 4), True),
    "dense-column-stride": (4, 4, 3, 2, 1, 1, 1, True, (1, 4, 7, 7), False),
    "grouped-empty-batch": (4, 4, 3, 1, 1, 1, 2, True, (0, 4, 5, 5), False),
    "dense-no-row-padding": (3, 4, 3, 1, (0, 1), 1, 1, True, (1, 3, 6, 6), False),
}


def _conv(name: str) -> Any:
    cin, cout, k, s, p, d, g, bias, *_ = CASES[name]
    conv = torch.nn.Conv2d(cin, cout, k, s, p, d, g, bias)
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        conv.weight.copy_(torch.randn(conv.weight.shape, generator=gen))
        if conv.bias is not None:
            conv.bias.copy_(torch.randn(conv.bias.shape, generator=gen))
    return conv.eval()


def _input(name: str, seed: int) -> np.ndarray:
    """A non-contiguous input (every other column of a wider one) with NaN, +-inf and -0.0 in its first and last rows."""
    shape = CASES[name][8]
    gen = np.random.default_rng(seed)
    wide = gen.standard_normal((*shape[:3], 2 * shape[3])).astype(np.float32)
    x = wide[..., ::2]
    if shape[0]:
        x[0, 0, 0, 0] = np.nan
        x[0, 0, -1, -1] = np.inf
        x[0, -1, 0, -1] = -np.inf
        x[0, -1, -1, 0] = -0.0
        x[-1, 0, -1, 1] = -0.0
    return x


def _module(name: str, tmp: pathlib.Path) -> ModuleOp:
    x = torch.from_numpy(np.ascontiguousarray(_input(name, 0)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(_conv(name), (x,)).run_decompositions()
    path = tmp / f"{name}.pt2"
    torch.export.save(ep, path)
    return load_pt2(path.read_bytes(), path.name)


def _eager(name: str, x: np.ndarray) -> np.ndarray:
    with torch.inference_mode():
        return _conv(name)(torch.from_numpy(x)).numpy()


def _check(got: Any, want: np.ndarray, what: str) -> None:
    got = np.asarray(got)
    assert got.shape == want.shape, what
    # NaN and infinities where eager has them, and nowhere else
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=what)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=what)


@pytest.fixture(scope="module")
def modules(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ModuleOp]:
    tmp = pathlib.Path(tmp_path_factory.mktemp("columns"))
    return {name: _module(name, tmp) for name in CASES}


@pytest.mark.parametrize("name", list(CASES))
def test_columns_equal_eager_on_the_interpreter(
    name: str, modules: dict[str, ModuleOp], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conv_pool, "_WINDOW_COLUMNS", True)
    lowered = lower_to_upstream(to_core(modules[name].clone()))
    text = print_mlir(lowered)
    applies = CASES[name][9]
    # one generic reads the input with tensor.extract, masked by its padded rows (int8)
    assert ("tensor.extract %" in text) == applies, text
    assert ("xi8>" in text) == applies
    if applies:
        # the input is padded at the left and right only: no pad of its rows is left
        padding = CASES[name][4]
        rows = padding if isinstance(padding, int) else padding[0]
        assert f"low[0, 0, {rows}, " not in text
        assert "low[0, 0, 0, " in text or "tensor.pad" not in text
    for seed in (1, 2):
        x = _input(name, seed)
        _check(run_lowered(lowered, [x])[0], _eager(name, x), f"{name}, interpreter, seed {seed}")


def test_columns_switch_off_copies_taps(modules: dict[str, ModuleOp], monkeypatch: pytest.MonkeyPatch) -> None:
    """With the switch off the same convolutions take the tap copies (the comparison's other side)."""
    monkeypatch.setattr(conv_pool, "_WINDOW_COLUMNS", False)
    text = print_mlir(lower_to_upstream(to_core(modules["dense"].clone())))
    assert "tensor.extract %" not in text
    assert text.count("tensor.insert_slice") == 9


IREE = ProgramBatch(core=True)
_TMP: list[pathlib.Path] = []


def _build(name: str) -> ModuleOp:
    import tempfile

    if not _TMP:
        _TMP.append(pathlib.Path(tempfile.mkdtemp(prefix="columns")))
    return _module(name, _TMP[0])


for _name in CASES:
    IREE.add(_name, lambda name=_name: _build(name))


@pytest.mark.skipif(not iree_available(), reason="needs the iree extra")
@pytest.mark.parametrize("name", list(CASES))
def test_columns_equal_eager_natively(name: str) -> None:
    compiled = IREE.compiled(name)
    # the default lowering takes the generic where it applies
    assert ("tensor.extract %" in compiled.text) == CASES[name][9]
    x = _input(name, 3)
    _check(compiled(x)[0], _eager(name, x), f"{name}, IREE")
