"""
Matrix products split into bands of rows (`linalg_lowering.matmul.row_bands`):
`mm` and `addmm` on 17 rows are one `linalg.matmul` on 16 rows and one on 1,
each with its rows' accumulator, inserted into one result. Each row's dot
product is the one the whole product computes, so the split must give exactly
what the whole product gives, and what torch eager gives.

The operands are small integers (in float32; on the interpreter also in
float64, float16 and int64), so every sum is exact whatever the summation
order, and the results equal eager's bit for bit (IREE's included); NaN,
+-inf and a row of -0.0 sit in the rows on both sides of each cut. Each
program is run by the exir interpreter (before the lowering) and by xDSL's
interpreter on the lowered module split and whole, and natively by IREE.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from iree_compiles import ProgramBatch
from test_decompose import program
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.aten import build
from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.interpreters.program import ProgramRunner, find_program
from xdsl_exir.interpreters.upstream import run_lowered
from xdsl_exir.targets.iree import IreeOptions, iree_available, lower_to_upstream, print_mlir
from xdsl_exir.transforms.linalg_lowering import matmul

torch = pytest.importorskip("torch")

CASES = [(rows, 24, 20) for rows in (1, 8, 9, 13, 16, 17, 31, 33)] + [(17, 0, 20), (17, 24, 0)]
"""(rows, K, N) of each program: rows cut and kept whole, an empty contraction and an empty result on 17 rows."""

IREE = ProgramBatch()


def _name(rows: int, k: int, n: int) -> str:
    return f"products_{rows}x{k}x{n}"


def _products(rows: int, k: int, n: int, dtype: str = "float32") -> ModuleOp:
    """
    Inputs x [rows, k], w [n, k] (stored as a Linear's weight), b [n], c [rows, n]
    and xt [k, rows]; outputs x @ w.T, addmm(b, x, w.T) and addmm(c, xt.T, w.T,
    beta=2, alpha=3) (a bias of the result's rows, cut with them; a transposed
    left operand).
    """

    def body(add: Any, x: SSAValue, w: SSAValue, b: SSAValue, c: SSAValue, xt: SSAValue) -> list[SSAValue]:
        def op(o: Operation) -> SSAValue:
            return add(o).results[0]

        wt = op(build("aten.permute.default", w, [1, 0]))
        lhs = op(build("aten.permute.default", xt, [1, 0]))
        return [
            op(build("aten.mm.default", x, wt)),
            op(build("aten.addmm.default", b, x, wt)),
            op(build("aten.addmm.default", c, lhs, wt, beta=2, alpha=3)),
        ]

    types = [[rows, k], [n, k], [n], [rows, n], [k, rows]]
    return program([TensorType(t, DType[dtype]) for t in types], body)


for _case in CASES:
    IREE.add(_name(*_case), lambda case=_case: _products(*case))


def _inputs(rows: int, k: int, n: int, seed: int, dtype: str = "float32") -> list[np.ndarray]:
    """Small integers; NaN, +inf, -inf and a row of -0.0 beside each cut (xt a transposed, non-contiguous view)."""
    rng = np.random.default_rng(seed)

    def ints(*shape: int) -> np.ndarray:
        return rng.integers(-3, 4, shape).astype(dtype)

    x, w, b, c, x2 = ints(rows, k), ints(n, k), ints(n), ints(rows, n), ints(rows, k)
    bands = matmul.row_bands(rows) or [(0, rows)]
    cut = bands[-1][0]
    if k and dtype != "int64":
        for m in (x, x2):
            m[max(cut - 1, 0), 0] = np.nan
            m[cut % rows, k // 2] = np.inf
            m[0, k - 1] = -np.inf
            m[rows - 1] = -0.0
    c[rows - 1] = -0.0 if dtype != "int64" else 0
    return [x, w, b, c, x2.T]


def _eager(inputs: list[np.ndarray]) -> list[np.ndarray]:
    x, w, b, c, xt = (torch.from_numpy(np.ascontiguousarray(a)) for a in inputs)
    with torch.no_grad():
        out = [torch.mm(x, w.T), torch.addmm(b, x, w.T), torch.addmm(c, xt.T, w.T, beta=2, alpha=3)]
    return [o.numpy() for o in out]


def _equal(got: list[Any], want: list[np.ndarray], what: str) -> None:
    for i, (g, e) in enumerate(zip(got, want, strict=True)):
        g = np.asarray(g)
        assert g.dtype == e.dtype and g.shape == e.shape, f"{what} out{i}: {g.dtype}{g.shape} != {e.dtype}{e.shape}"
        nan = np.isnan(e)
        assert np.array_equal(np.isnan(g), nan), f"{what} out{i}: NaN at other places"
        assert g[~nan].tobytes() == e[~nan].tobytes(), f"{what} out{i}: {g} != {e}"


def test_row_bands() -> None:
    """Cut where the whole product would read its weight at least twice as often as the two bands, below 64 rows
    or with a weight too large for data tiling."""
    bands = {rows: matmul.row_bands(rows) for rows in (1, 8, 9, 13, 16, 17, 25, 31, 32, 33, 63, 64, 100, 197)}
    assert bands == {
        1: None, 8: None, 9: None, 13: [(0, 8), (8, 5)], 16: None, 17: [(0, 16), (16, 1)], 25: None,
        31: [(0, 24), (24, 7)], 32: None, 33: [(0, 32), (32, 1)], 63: None, 64: None, 100: None, 197: None,
    }  # fmt: skip
    assert matmul.row_bands(None) is None
    # from 64 rows only a weight too large for data tiling is cut (its product is never data-tiled)
    big = matmul.DATA_TILING_MAX_WEIGHT + 1
    assert [matmul.row_bands(rows, big) for rows in (64, 97, 100, 197)] == [None, [(0, 96), (96, 1)], None, [(0, 192), (192, 5)]]
    assert matmul.row_bands(97, matmul.DATA_TILING_MAX_WEIGHT) is None


LOWERED = [(*case, "float32") for case in CASES] + [(17, 24, 20, "float64"), (17, 24, 20, "float16"), (13, 24, 20, "int64")]
"""The cases run on xDSL's interpreter, with float64, float16 (accumulated in float32) and int64 products."""


@pytest.mark.parametrize(("rows", "k", "n", "dtype"), LOWERED)
def test_lowered_split_equals_whole_and_eager(rows: int, k: int, n: int, dtype: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the lowering, split and whole (`_SPLIT_ROWS=0`) on xDSL's interpreter: all equal eager, bit for bit."""
    module = _products(rows, k, n, dtype)
    inputs = _inputs(rows, k, n, rows + k + n, dtype)
    want = _eager(inputs)
    before = ProgramRunner(find_program(module)).run([a.copy() for a in inputs])
    _equal(before, want, "exir interpreter")
    split = lower_to_upstream(module)
    monkeypatch.setattr(matmul, "_SPLIT_ROWS", 0)
    whole = lower_to_upstream(module)
    products = print_mlir(split).count("= linalg.matmul")
    assert print_mlir(whole).count("= linalg.matmul") == (3 if k else 0)
    monkeypatch.undo()
    assert products == (0 if not k else 6 if n and matmul.row_bands(rows) else 3)
    got_split = run_lowered(split, [a.copy() for a in inputs])
    got_whole = run_lowered(whole, [a.copy() for a in inputs])
    _equal(got_split, want, "split")
    _equal(got_whole, want, "whole")
    assert [np.asarray(g).tobytes() for g in got_split] == [np.asarray(g).tobytes() for g in got_whole]


def test_split_products_take_no_data_tiling(monkeypatch: pytest.MonkeyPatch) -> None:
    """17 rows whole read the weight 17 times untiled: data tiling on; as 16 + 1 rows (3 passes) it stays off."""
    module = _products(17, 24, 20)
    auto = IreeOptions().auto_data_tiling
    assert not auto(print_mlir(lower_to_upstream(module)))
    monkeypatch.setattr(matmul, "_SPLIT_ROWS", 0)
    assert auto(print_mlir(lower_to_upstream(module)))


@pytest.mark.parametrize(("rows", "k", "n"), CASES)
def test_iree_split_equals_eager(rows: int, k: int, n: int) -> None:
    if not iree_available():
        pytest.skip("the iree extra is not installed")
    inputs = _inputs(rows, k, n, 100 + rows + k + n)
    got = IREE.executor(_name(rows, k, n))(*inputs)
    _equal(list(got), _eager(inputs), "IREE")
