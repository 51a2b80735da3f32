"""
The core's symbolic broadcast (`utils/broadcast.py`), which the inference rules
and the TorchScript builtins share: every pair of small concrete shapes against
`torch.broadcast_shapes`, and the symbolic cases against what torch.export
records (a symbol broadcast with a constant is guarded to that constant).
"""

from __future__ import annotations

import itertools

import pytest

from xdsl_exir.utils.broadcast import BroadcastError, UndecidedBroadcast, broadcast_shapes, same_size
from xdsl_exir.utils.symbolic import make_symbol

torch = pytest.importorskip("torch")

SHAPES = [(), (1,), (3,), (4,), (1, 3), (3, 1), (2, 3), (2, 1, 3), (0,), (1, 0), (2, 0, 1)]


def test_concrete_pairs_match_torch() -> None:
    for a, b in itertools.product(SHAPES, SHAPES):
        try:
            want: list[int] | None = list(torch.broadcast_shapes(a, b))
        except RuntimeError:
            want = None
        try:
            got: list[int] | None = [int(s) for s in broadcast_shapes(list(a), list(b))]
        except BroadcastError:
            got = None
        assert got == want, (a, b)


def test_symbols() -> None:
    s0, s1 = make_symbol("s0"), make_symbol("s1")
    assert broadcast_shapes([s0, 2], [1, 2]) == [s0, 2]
    assert broadcast_shapes([s0], [s0]) == [s0]
    assert broadcast_shapes([s0 + 1], [1 + s0]) == [s0 + 1]
    assert broadcast_shapes([s0], [3]) == [3]  # torch.export guards s0 to 3
    assert broadcast_shapes([3], [s0]) == [3]
    with pytest.raises(UndecidedBroadcast):
        broadcast_shapes([s0], [s1])
    assert same_size(2 * s0, s0 + s0) and not same_size(s0, 3)


def test_torch_export_specializes_a_symbol_broadcast_with_a_constant() -> None:
    """The inference of matmul [s0, 2, 4] x [3, 4, 5] is [3, 2, 5], as torch records once it has guarded s0 to 3."""
    import warnings

    from xdsl.utils.test_value import create_ssa_value

    from xdsl_exir.dialects.aten import build
    from xdsl_exir.dialects.exir import DType, TensorType

    class MatMul(torch.nn.Module):
        def forward(self, x: object, y: object) -> object:
            return torch.matmul(x, y)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(MatMul(), (torch.randn(3, 2, 4), torch.randn(3, 4, 5)),
                                 dynamic_shapes={"x": {0: torch.export.Dim.AUTO}, "y": None})
    out = next(n for n in ep.graph.nodes if n.op == "call_function")
    assert list(out.meta["val"].shape) == [3, 2, 5]
    s0 = make_symbol("s0")
    x = create_ssa_value(TensorType([s0, 2, 4], DType.float32))
    y = create_ssa_value(TensorType([3, 4, 5], DType.float32))
    op = build("aten.matmul.default", x, y)
    assert op.results[0].type == TensorType([3, 2, 5], DType.float32)
