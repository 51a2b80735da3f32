"""
The conformance oracle's open answers for index and eigenvector outputs:
topk's and kthvalue's indices among equal elements, and eigh's eigenvector
signs where the eigenvalues are distinct, are accepted either way; a wrong
index, a repeated one, one out of range or a wrong eigenvector still fail.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("torch")

import torch
from conformance import harness  # after the skip: the module needs torch

X = np.array([[3.0, 1.0, 3.0, np.nan, 1.0]])


def _sample(x: torch.Tensor, *args: object, **kwargs: object) -> harness.Sample:
    return harness.Sample("float64/0", [x], lambda t: (t[0], tuple(args), dict(kwargs)))


def _judged(ours: list[np.ndarray], want: list[np.ndarray], axis: int) -> bool:
    """Whether ours are accepted."""
    got, theirs, mismatch = harness.by_gathered_values(ours, want, X, axis)
    return mismatch is None and harness.compare(got, theirs, SimpleNamespace(name="topk", decorators=()), [X], False) is None


def test_topk_ties() -> None:
    values = np.array([[np.nan, 3.0, 3.0]])
    want = [values, np.array([[3, 0, 2]])]
    assert _judged([values, np.array([[3, 2, 0]])], want, 1)  # the two 3.0 swapped
    assert not _judged([values, np.array([[3, 0, 0]])], want, 1)  # one element twice
    assert not _judged([values, np.array([[3, 0, 1]])], want, 1)  # gathers 1.0
    assert not _judged([values, np.array([[0, 3, 2]])], want, 1)  # NaN moved
    assert not _judged([values, np.array([[3, 0, 5]])], want, 1)  # out of range


def test_kthvalue_ties_with_and_without_keepdim() -> None:
    want = [np.array([1.0]), np.array([1])]
    assert _judged([np.array([1.0]), np.array([4])], want, 1)
    assert not _judged([np.array([1.0]), np.array([0])], want, 1)
    kept = [np.array([[1.0]]), np.array([[1]])]
    assert _judged([np.array([[1.0]]), np.array([[4]])], kept, 1)
    assert not _judged([np.array([[1.0]]), np.array([[-1]])], kept, 1)


def test_open_index_axis() -> None:
    x = torch.zeros(2, 3, 4)
    topk, kth, other = (SimpleNamespace(name=n) for n in ("topk", "kthvalue", "max"))
    assert harness.open_index_axis(topk, _sample(x, 2)) == 2
    assert harness.open_index_axis(topk, _sample(x, 2, -2)) == 1
    assert harness.open_index_axis(topk, _sample(x, 2, 0, True, False)) is None  # value order open too
    assert harness.open_index_axis(kth, _sample(x, 1, 1, True)) == 1
    assert harness.open_index_axis(kth, _sample(torch.tensor(1.0), 1)) is None
    assert harness.open_index_axis(other, _sample(x, 1)) is None


def _eigh_judged(ours: list[np.ndarray], want: list[np.ndarray]) -> bool:
    got, theirs = harness.eigenvectors_up_to_phase(ours, want)
    return harness.compare(got, theirs, SimpleNamespace(name="linalg.eigh", decorators=()), [], False) is None


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_eigenvectors_up_to_sign(dtype: type) -> None:
    a = torch.from_numpy(np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]], dtype=dtype))
    lam, v = (t.numpy() for t in torch.linalg.eigh(a))
    flipped = v * np.array([-1, 1, -1], dtype=dtype)
    assert _eigh_judged([lam, flipped], [lam, v])
    assert _eigh_judged([lam[None], flipped[None]], [lam[None], v[None]])  # batched
    wrong = v.copy()
    wrong[:, 1] = v[:, 2]
    assert not _eigh_judged([lam, wrong], [lam, v])
    assert not _eigh_judged([lam + 1, flipped], [lam, v])  # eigenvalues still exact


def test_repeated_eigenvalues_leave_their_columns_open() -> None:
    """The identity's eigenspace is everything: any orthonormal basis is right; a distinct column is still checked."""
    lam = np.array([1.0, 1.0, 2.0])
    want = np.eye(3)
    c, s = np.cos(0.3), np.sin(0.3)
    turned = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, -1.0]])
    assert _eigh_judged([lam, turned], [lam, want])
    turned[0, 2] = 0.5
    assert not _eigh_judged([lam, turned], [lam, want])
