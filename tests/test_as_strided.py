"""
`aten.as_strided` addresses its input's STORAGE (issue 12): on a transposed,
narrowed, moved-dim, expanded or channels-last view it reads the buffer the
view shares, with the view's storage offset by default, as torch does.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest

from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.semantics import kernels as aten_kernels

torch = pytest.importorskip("torch")

VIEWS = {
    "transposed": (lambda x, y: x.t(), (3, 2), (1, 4), 1),
    "narrowed": (lambda x, y: x.narrow(0, 1, 2), (2, 3), (4, 1), None),
    "moved_dim": (lambda x, y: y.movedim(1, -1), (2, 5), (3, 2), 2),
    "expanded": (lambda x, y: x[0:1].expand(3, 4), (2, 2), (1, 4), None),
    "channels_last": (lambda x, y: y.contiguous(memory_format=torch.channels_last), (2, 6), (1, 2), None),
}


class AsStridedOf(torch.nn.Module):
    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind

    def forward(self, x: object, y: object) -> object:
        view, size, stride, offset = VIEWS[self.kind]
        if offset is None:
            return torch.as_strided(view(x, y), size, stride)
        return torch.as_strided(view(x, y), size, stride, offset)


@pytest.mark.parametrize("kind", sorted(VIEWS))
def test_as_strided_of_a_view_matches_torch(kind: str) -> None:
    x, y = torch.randn(3, 4), torch.randn(1, 3, 2, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(AsStridedOf(kind), (x, y))
    f = io.BytesIO()
    torch.export.save(ep, f)
    got = ProgramRunner(load_pt2(f.getvalue())).run([x.numpy(), y.numpy()])
    want = AsStridedOf(kind)(x, y).numpy()
    np.testing.assert_array_equal(got[0], want)
    np.testing.assert_array_equal(got[0], ep.module()(x, y).numpy())


def test_as_strided_beyond_the_storage_is_an_error() -> None:
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    view = aten_kernels.run_kernel("aten.slice.Tensor", [x, 0, 1, 3], {})
    with pytest.raises(ValueError, match="storage of 12 elements"):
        aten_kernels.run_kernel("aten.as_strided.default", [view, [2, 4], [4, 1], 6], {})
    got = aten_kernels.run_kernel("aten.as_strided.default", [view, [2, 2], [4, 1]], {})
    np.testing.assert_array_equal(got, [[4, 5], [8, 9]])


class AsStridedOfUnfold(torch.nn.Module):
    def forward(self, x: object) -> object:
        return torch.as_strided(x.unfold(0, 3, 2), (2, 2), (2, 1))  # pyright: ignore[reportAttributeAccessIssue] - x is a tensor


class AsStridedOfExpandedSlice(torch.nn.Module):
    def forward(self, x: object) -> object:
        return torch.as_strided(x.expand(3, 2, 4)[1:], (2, 2), (1, 3), 2)  # pyright: ignore[reportAttributeAccessIssue] - x is a tensor


@pytest.mark.parametrize(
    ("module", "x"),
    [(AsStridedOfUnfold(), torch.arange(10.0)), (AsStridedOfExpandedSlice(), torch.arange(8.0).reshape(1, 2, 4))],
    ids=["unfold", "expand_slice"],
)
def test_as_strided_after_unfold_and_expand_slice(module: torch.nn.Module, x: object) -> None:
    """`unfold` is a view (its kernel returns one): as_strided reads the unfolded tensor's storage."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(module, (x,))
    f = io.BytesIO()
    torch.export.save(ep, f)
    got = ProgramRunner(load_pt2(f.getvalue())).run([x.numpy()])  # pyright: ignore[reportAttributeAccessIssue] - x is a tensor
    np.testing.assert_array_equal(got[0], module(x).numpy())


def test_as_strided_of_unfold_kernel() -> None:
    windows = aten_kernels.run_kernel("aten.unfold.default", [np.arange(10), 0, 3, 2], {})
    got = aten_kernels.run_kernel("aten.as_strided.default", [windows, [2, 2], [2, 1]], {})
    np.testing.assert_array_equal(got, [[0, 1], [2, 3]])


@pytest.mark.parametrize(
    ("shape", "dim", "size", "step"),
    [((10,), 0, 3, 2), ((4, 5), 1, 2, 1), ((4, 5), 0, 4, 3), ((3,), 0, 0, 1), ((), 0, 1, 1), ((2, 6, 3), -2, 3, 3)],
)
def test_unfold_kernel_matches_torch(shape: tuple[int, ...], dim: int, size: int, step: int) -> None:
    t = torch.randn(shape)
    got = aten_kernels.run_kernel("aten.unfold.default", [t.numpy(), dim, size, step], {})
    want = t.unfold(dim, size, step)
    assert got.shape == tuple(want.shape)
    np.testing.assert_array_equal(got, want.numpy())
    assert got.size == 0 or np.shares_memory(got, t.numpy()) or t.ndim == 0


def test_as_strided_of_a_channels_last_array() -> None:
    """A channels-last tensor's storage is in (N, H, W, C) order: `with_dim_order` lays the array out so."""
    from xdsl_exir.semantics.kernels.views import with_dim_order

    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype(np.float32)
    laid = with_dim_order(x, [0, 2, 3, 1])
    np.testing.assert_array_equal(laid, x)
    want = torch.as_strided(torch.from_numpy(x).contiguous(memory_format=torch.channels_last), (3, 7), (5, 2))
    got = aten_kernels.run_kernel("aten.as_strided.default", [laid, [3, 7], [5, 2]], {})
    np.testing.assert_array_equal(got, want.numpy())
    assert with_dim_order(x, []) is x
