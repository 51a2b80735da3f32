"""
Overloads that ran nowhere before (issue 21, item 4: "not yet" in `aten_coverage.txt`), as
torch 2.13's `torch.export.export` records them: each program runs in the interpreter as
exported, and after `to-core-aten` (checked to be core ATen), against torch eager, on
ordinary, edge (NaN, +-inf, -0.0, integer extremes), empty and non-contiguous inputs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pass_harness as ph
import pytest

from xdsl_exir.transforms.verify_export_ir import VerifyExportIRPass

torch = pytest.importorskip("torch")


@dataclass(frozen=True)
class Prog:
    """A forward function, the overload export must record, and its input factories."""

    name: str
    op: str
    fn: Callable[..., Any]
    inputs: Callable[[], tuple[Any, ...]]
    rtol: float = 1e-5
    core: bool = True  # to-core-aten takes it to core ATen (False: the overload is kept, as torch keeps it)


class _Module(torch.nn.Module):
    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *xs: Any) -> Any:
        out = self.fn(*xs)
        return tuple(out) if isinstance(out, (list, tuple)) else (out,)


def _gen() -> Any:
    return torch.Generator().manual_seed(0)


def randn(*shape: int, dtype: Any = None) -> Any:
    return torch.randn(*shape, generator=_gen(), dtype=dtype or torch.float32)


def edge(*shape: int, dtype: Any = None) -> Any:
    """NaN, infinities, signed zeros, huge and tiny values, then ordinary ones."""
    dtype = dtype or torch.float32
    x = torch.randn(*shape, generator=_gen(), dtype=torch.float64) * 3
    flat = x.reshape(-1)
    if dtype.is_floating_point:
        special = [float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 1e30, -1e30, 1e-30, 0.25, -0.75, 3.5, -3.5]
    else:
        info = torch.iinfo(dtype)
        special = [info.min, info.max, 0, -1, 1, info.min + 1]
        flat = flat.round()
    n = min(len(special), flat.numel())
    flat[:n] = torch.tensor(special[:n], dtype=torch.float64)
    if not dtype.is_floating_point:
        return flat.reshape(shape).clamp(torch.iinfo(dtype).min, torch.iinfo(dtype).max).to(dtype)
    return flat.reshape(shape).to(dtype)


def noncontig(*shape: int) -> Any:
    """A transposed (non-contiguous) tensor of `shape`."""
    return randn(*reversed(shape)).permute(*reversed(range(len(shape))))


PROGRAMS: list[Prog] = [
    Prog("tensor_split_sections", "aten.tensor_split.sections", lambda x: torch.tensor_split(x, 4, 1),
         lambda: (randn(3, 6),)),
    Prog("tensor_split_indices", "aten.tensor_split.indices", lambda x: torch.tensor_split(x, [1, 4, 9], 1),
         lambda: (edge(3, 6),)),
    Prog("tensor_split_backwards", "aten.tensor_split.indices", lambda x: torch.tensor_split(x, [4, 1])[1:],
         lambda: (randn(6, 2),)),
    Prog("tensor_split_empty", "aten.tensor_split.sections", lambda x: torch.tensor_split(x, 3),
         lambda: (randn(0, 3),)),
    Prog("hsplit_int", "aten.hsplit.int", lambda x: torch.hsplit(x, 3), lambda: (noncontig(2, 6),)),
    Prog("hsplit_1d", "aten.hsplit.array", lambda x: torch.hsplit(x, [2, 3]), lambda: (randn(5),)),
    Prog("vsplit_array", "aten.vsplit.array", lambda x: torch.vsplit(x, [1, 3]), lambda: (edge(4, 3),)),
    Prog("dsplit_int", "aten.dsplit.int", lambda x: torch.dsplit(x, 2), lambda: (randn(2, 3, 4),)),
    Prog("unsafe_split", "aten.unsafe_split.Tensor", lambda x: x.unsafe_split(2, 1), lambda: (randn(3, 5),)),
    Prog("unsafe_split_with_sizes", "aten.unsafe_split_with_sizes.default",
         lambda x: x.unsafe_split_with_sizes([1, 4], 1), lambda: (randn(3, 5),)),
    Prog("unsafe_chunk", "aten.unsafe_chunk.default", lambda x: x.unsafe_chunk(3, 0), lambda: (randn(7, 2),)),
    Prog("split_copy", "aten.split_copy.Tensor", lambda x: torch.split_copy(x, 2, 1), lambda: (edge(2, 5),)),
    Prog("split_with_sizes_copy", "aten.split_with_sizes_copy.default",
         lambda x: torch.split_with_sizes_copy(x, [3, 1]), lambda: (noncontig(4, 3),)),
    Prog("unbind_copy", "aten.unbind_copy.int", lambda x: torch.unbind_copy(x, 1), lambda: (randn(2, 3),)),
    Prog("broadcast_tensors", "aten.broadcast_tensors.default",
         lambda x, y: [t + 0 for t in torch.broadcast_tensors(x, y)], lambda: (randn(3, 1), edge(4))),
    Prog("atleast_3d_seq", "aten.atleast_3d.Sequence", lambda x, y, z: torch.atleast_3d((x, y, z)),
         lambda: (randn(3), randn(2, 3), torch.tensor(2.5))),
    Prog("atleast_2d_seq", "aten.atleast_2d.Sequence", lambda x, y: torch.atleast_2d((x, y)),
         lambda: (randn(3), torch.tensor(7))),
    Prog("atleast_1d_seq", "aten.atleast_1d.Sequence", lambda x, y: torch.atleast_1d((x, y)),
         lambda: (randn(3), torch.tensor(-0.0))),
]


def _record(p: Prog) -> tuple[Any, Any]:
    args = p.inputs()
    model = _Module(p.fn)
    ep = torch.export.export(model, args)
    targets = {str(n.target) for n in ep.graph.nodes}
    assert p.op in targets, f"export did not record {p.op}: {sorted(targets)}"
    return model, args


@pytest.mark.parametrize("p", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_program_runs_before_and_after_to_core_aten(p: Prog) -> None:
    from xdsl_exir.frontends.torch_live import import_exported_program

    model, args = _record(p)
    module = import_exported_program(torch.export.export(model, args))
    xs = [a.numpy() for a in args]
    with torch.no_grad():
        want = [w.numpy() for w in model(*args)]
    _same(ph.run(module, xs), want, p.rtol, "interpreter")
    after = ph.apply(module, "to-core-aten")
    if p.core:
        VerifyExportIRPass(dialect="core").apply(ph.context(), after)
        assert f'"{p.op}"' not in str(after) and f" {p.op}" not in str(after), f"{p.op} is left after to-core-aten"
    _same(ph.run(after, xs), want, p.rtol, "after to-core-aten")


def _same(got: list[np.ndarray], want: list[np.ndarray], rtol: float, what: str) -> None:
    assert len(got) == len(want), f"{what}: {len(got)} outputs, torch {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, f"{what}: out{i} shape {g.shape}, torch {w.shape}"
        assert g.dtype == w.dtype, f"{what}: out{i} dtype {g.dtype}, torch {w.dtype}"
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, err_msg=f"{what}: out{i}")
            zero = (w == 0) & (g == 0)
            np.testing.assert_array_equal(np.signbit(g[zero]), np.signbit(w[zero]), err_msg=f"{what}: out{i} zero sign")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"{what}: out{i}")
