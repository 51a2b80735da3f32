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
from xdsl_exir.interpreters import aten_kernels
from xdsl_exir.interpreters.program import ProgramRunner

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
