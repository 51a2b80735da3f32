"""
`transforms/view_scatter.py`: the one list of views a write goes through, and
the layout model that says when `contiguous` and `reshape` copy.

`functionalize` treated `contiguous` as having no scatter form, the
TorchScript lowering as always the input itself; torch returns the input only
when it is contiguous already (and `reshape` a view only when torch's
`computeStride` finds one). The model is checked here against torch's strides
on random view chains; the passes' behaviour is pinned in
`test_functionalize.py` and `test_torchscript_to_exir_torch.py`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from xdsl_exir.transforms.view_scatter import (
    SCATTERABLE_VIEWS,
    ViewLayout,
    copies,
    dense_layout,
    layout_after,
)
from xdsl_exir.utils.op_registry import lookup


def test_contiguous_of_a_transpose_copies_and_of_a_row_does_not() -> None:
    base = dense_layout([2, 3])
    assert base == ((2, 3), (3, 1))
    t = layout_after("aten.t.default", (), {}, base, [3, 2])
    assert t == ((3, 2), (1, 3))
    assert copies("aten.contiguous.default", t, [3, 2]) is True
    assert copies("aten.reshape.default", t, [6]) is True
    assert copies("aten.reshape.default", t, [3, 1, 2]) is False  # a size-1 dim fits any stride
    row = layout_after("aten.select.int", (0, 1), {}, base, [3])
    assert copies("aten.contiguous.default", row, [3]) is False
    assert copies("aten.contiguous.default", None, [3]) is None  # unknown layout: the caller keeps a view
    assert dense_layout([2, "s0"]) is None


def test_every_scatterable_view_is_a_view_operator() -> None:
    for name in SCATTERABLE_VIEWS:
        entry = lookup(name)
        assert entry is not None and entry.schema.return_alias_map().get(0), name


def _random_view(t: object, rng: random.Random) -> tuple[object, str, tuple[object, ...]] | None:
    import torch

    assert isinstance(t, torch.Tensor)
    r = t.dim()
    kind = rng.choice(["t", "transpose", "permute", "select", "slice", "unsqueeze", "squeeze", "view"])
    if kind == "t" and r <= 2:
        return t.t(), "aten.t.default", ()
    if kind == "transpose" and r:
        d0, d1 = rng.randrange(r), rng.randrange(r)
        return t.transpose(d0, d1), "aten.transpose.int", (d0, d1)
    if kind == "permute":
        dims = list(range(r))
        rng.shuffle(dims)
        return t.permute(dims), "aten.permute.default", (dims,)
    if kind == "select" and r:
        d = rng.randrange(r)
        if t.shape[d]:
            i = rng.randrange(-t.shape[d], t.shape[d])
            return t.select(d, i), "aten.select.int", (d, i)
    if kind == "slice" and r:
        d, step = rng.randrange(r), rng.randint(1, 2)
        start = rng.randint(0, t.shape[d])
        return t[(slice(None),) * d + (slice(start, None, step),)], "aten.slice.Tensor", (d, start, None, step)
    if kind == "unsqueeze":
        d = rng.randint(-r - 1, r)
        return t.unsqueeze(d), "aten.unsqueeze.default", (d,)
    if kind == "squeeze":
        return t.squeeze(), "aten.squeeze.default", ()
    if kind == "view" and t.is_contiguous():
        return t.view(-1), "aten.view.default", ([-1],)
    return None


def test_layouts_follow_torchs_strides() -> None:
    torch = pytest.importorskip("torch")
    rng = random.Random(0)
    for _ in range(1500):
        sizes = [rng.randint(1, 4) for _ in range(rng.randint(0, 4))]
        if sizes and rng.random() < 0.1:
            sizes[rng.randrange(len(sizes))] = 0
        t = torch.empty(sizes)
        layout: ViewLayout | None = dense_layout(sizes)
        for _ in range(rng.randint(0, 3)):
            step = _random_view(t, rng)
            if step is None:
                continue
            t, name, args = step
            assert isinstance(t, torch.Tensor)
            layout = layout_after(name, args, {}, layout, list(t.shape))
            assert layout == (tuple(t.shape), tuple(t.stride())), (name, args)
        assert isinstance(t, torch.Tensor) and layout is not None
        assert copies("aten.contiguous.default", layout, list(t.shape)) is (not t.is_contiguous())
        n = t.numel()
        targets: list[Sequence[int]] = [[n], [1, n, 1]] + ([[2, n // 2], [n // 2, 2]] if n % 2 == 0 else [])
        for shape in targets:
            aliased = torch.Tensor._is_view(t.reshape(shape)) and t.reshape(shape).data_ptr() == t.data_ptr()
            if n:
                assert copies("aten.reshape.default", layout, shape) is (not aliased), (layout, shape)
