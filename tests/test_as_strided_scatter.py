"""
`aten.as_strided_scatter` (the backward of `as_strided`: ConvNeXt's pooled
channels-last restride gives one in its backward graph) against torch eager,
three ways on the same inputs: the interpreter on the exported program, the
program lowered by `convert-exir-to-linalg` in xDSL's interpreter, and IREE
(all cases in one program, one compile). The views: contiguous (with and
without an offset, size-1 dims of any stride), transposed, strided with gaps,
empty, 0-d; `src` with NaN, ±inf and -0.0, another dtype than `self`, and a
slice of `self` itself. The views the lowering does not invert (interleaved
storage positions) and an expanded `self` (elements sharing memory) are refused by
name; a transposed or narrowed `self` is in `test_polish_numerics.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.interpreters.upstream import run_lowered
from xdsl_exir.targets.iree import IreeOptions, compile_program, iree_available, lower_to_upstream, to_core
from xdsl_exir.utils.diagnostics import ExirDiagnostic

torch = pytest.importorskip("torch")


@dataclass(frozen=True)
class Case:
    id: str
    make: Callable[[torch.Generator], tuple[Any, Any]]
    """(self, src)"""
    size: list[int]
    stride: list[int]
    offset: int | None
    src_of_self: bool = False
    """src is read from self (`self.flatten()[:n]`), so the write overlaps its own source."""


def _edge(*shape: int) -> Callable[[torch.Generator], Any]:
    def make(g: torch.Generator) -> Any:
        t = torch.randn(shape, generator=g)
        flat = t.view(-1)
        for i, v in enumerate((float("nan"), float("inf"), -0.0, float("-inf"), 1e30)[: flat.numel()]):
            flat[i] = v
        return t

    return make


def _pair(self_shape: tuple[int, ...], src: Callable[[torch.Generator], Any], dtype: Any = None) -> Callable[[torch.Generator], tuple[Any, Any]]:
    def make(g: torch.Generator) -> tuple[Any, Any]:
        x = torch.randn(self_shape, generator=g)
        return (x if dtype is None else (x * 10).to(dtype)), src(g)

    return make


CASES = [
    Case("convnext-restride", _pair((16,), _edge(16)), [16], [1], 0),
    Case("contiguous-offset", _pair((3, 4), _edge(2, 3)), [2, 3], [3, 1], 2),
    Case("offset-defaults-to-0", _pair((3, 4), _edge(5)), [5], [1], None),
    Case("size-1-dims-any-stride", _pair((1, 16, 1, 1), _edge(1, 16, 1, 1)), [1, 16, 1, 1], [16, 1, 16, 16], 0),
    Case("transposed", _pair((2, 3), _edge(3, 2)), [3, 2], [1, 3], 0),
    Case("strided-gaps-offset", _pair((5, 6), _edge(2, 3)), [2, 3], [12, 2], 1),
    Case("3d-permuted-offset", _pair((4, 3, 5), _edge(2, 3, 4)), [2, 3, 4], [1, 16, 2], 9),
    Case("empty-view", _pair((3, 4), lambda g: torch.randn(0, 3, generator=g)), [0, 3], [3, 1], 2),
    Case("0-d", _pair((), lambda g: torch.tensor(-0.0)), [], [], 0),
    Case("into-a-0-d-self", _pair((), lambda g: torch.tensor([2.5])), [1], [1], 0),
    Case("int64-self-int32-src", _pair((4, 4), lambda g: torch.tensor([[7, -8], [2**31 - 1, -(2**31)]], dtype=torch.int32),
                                       torch.int64), [2, 2], [1, 4], 5),
    Case("float-into-int", _pair((6,), lambda g: torch.tensor([1.9, -1.9, 2.5]), torch.int32), [3], [2], 0),
    Case("src-is-a-slice-of-self", _pair((3, 4), lambda g: torch.empty(0)), [4], [1], 3, src_of_self=True),
]


class _Net(torch.nn.Module):
    """Every case in one program (one IREE compile): inputs (self, src) per case."""

    def __init__(self, cases: list[Case]) -> None:
        super().__init__()
        self.cases = cases

    def forward(self, *xs: Any) -> Any:
        outs = []
        for k, c in enumerate(self.cases):
            x, src = xs[2 * k], xs[2 * k + 1]
            if c.src_of_self:
                src = x.flatten()[: c.size[0]]
            if c.offset is None:
                outs.append(torch.as_strided_scatter(x, src, c.size, c.stride))
            else:
                outs.append(torch.as_strided_scatter(x, src, c.size, c.stride, c.offset))
        return tuple(outs)


def _program(cases: list[Case]) -> tuple[Any, list[np.ndarray], list[np.ndarray]]:
    from xdsl_exir.frontends.torch_live import import_exported_program

    g = torch.Generator().manual_seed(0)
    tensors = [t for c in cases for t in c.make(g)]
    net = _Net(cases)
    want = [w.numpy() for w in net(*tensors)]
    module = import_exported_program(torch.export.export(net, tuple(tensors)))
    return module, [t.numpy() for t in tensors], want


def _same(got: Any, want: list[np.ndarray], what: str) -> None:
    got = list(got) if isinstance(got, list | tuple) else [got]
    assert len(got) == len(want), what
    for c, g, w in zip(CASES, got, want, strict=True):
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype, f"{what} {c.id}: {g.dtype}{g.shape} vs {w.dtype}{w.shape}"
        np.testing.assert_array_equal(g, w, err_msg=f"{what} {c.id}")  # copies only: bit-exact
        if w.dtype.kind == "f":
            np.testing.assert_array_equal(np.signbit(g), np.signbit(w), err_msg=f"{what} {c.id}: sign of zero")


@pytest.fixture(scope="module")
def program() -> tuple[Any, list[np.ndarray], list[np.ndarray]]:
    return _program(CASES)


def test_interpreter(program: tuple[Any, list[np.ndarray], list[np.ndarray]]) -> None:
    module, inputs, want = program
    _same(ProgramRunner(module).run([np.copy(x) for x in inputs]), want, "interpreter")


def test_lowered_in_xdsl_interpreter(program: tuple[Any, list[np.ndarray], list[np.ndarray]]) -> None:
    module, inputs, want = program
    lowered = lower_to_upstream(to_core(module))
    names = {op.name for op in lowered.walk()}
    assert "tensor.insert_slice" in names and "linalg.generic" in names  # both forms are exercised
    _same(run_lowered(lowered, inputs), want, "lowered")


@pytest.mark.skipif(not iree_available(), reason="needs the iree extra")
def test_iree(program: tuple[Any, list[np.ndarray], list[np.ndarray]]) -> None:
    module, inputs, want = program
    _same(compile_program(module, IreeOptions(threads=1, use_cache=False))(*inputs), want, "iree")


@pytest.mark.parametrize(
    ("size", "stride", "offset", "expanded_self", "message"),
    [
        ([3, 2], [2, 3], 0, False, "interleave or overlap"),  # positions 0 2 4 / 3 5 7: unique, but not nested
        ([2, 2], [1, 1], 0, False, "interleave or overlap"),  # eager writes one position twice
        ([4], [1], 0, True, "share memory"),
    ],
    ids=["interleaved", "overlapping", "expanded-self"],
)
def test_refusals_name_the_operator(size: list[int], stride: list[int], offset: int, expanded_self: bool, message: str) -> None:
    from xdsl_exir.frontends.torch_live import import_exported_program

    class Net(torch.nn.Module):
        def forward(self, x: Any, src: Any) -> Any:
            return torch.as_strided_scatter(x[:, :1].expand(3, 4) if expanded_self else x, src, size, stride, offset)

    x, src = torch.randn(3, 4), torch.randn(*size)
    module = import_exported_program(torch.export.export(Net(), (x, src)))
    with pytest.raises(ExirDiagnostic, match=message) as info:
        lower_to_upstream(to_core(module))
    assert "as_strided_scatter" in str(info.value)


@pytest.mark.skipif(not iree_available(), reason="needs the iree extra")
def test_convnext_block_backward_is_one_iree_piece() -> None:
    """
    The zoo's channels-last ConvNeXt block under `torch.compile(backend="exir")`:
    its backward (the `as_strided_scatter` of the pooled restride's gradient)
    compiles whole on IREE, nothing left to eager torch, and the gradients are eager's.
    """
    import copy
    import importlib.util
    import pathlib
    import sys

    from xdsl_exir.tools import torch_compile

    module = sys.modules.get("gen_zoo")
    if module is None:
        path = pathlib.Path(__file__).resolve().parent.parent / "scripts" / "gen_zoo.py"
        spec = importlib.util.spec_from_file_location("gen_zoo", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["gen_zoo"] = module
        spec.loader.exec_module(module)
    entry = next(e for e in module.ENTRIES if e.name == "convnext_block")
    g = torch.Generator().manual_seed(0)
    model, args = entry.make(g), entry.args(g)
    eager = copy.deepcopy(model)
    torch._dynamo.reset()
    torch_compile.reset_reports()
    try:
        compiled = torch.compile(model, backend="exir", options={"backend": "iree", "threads": 1})
        compiled(*args).square().mean().backward()
    finally:
        torch._dynamo.reset()
    eager(*args).square().mean().backward()
    graphs = torch_compile.reports()
    assert sorted(r.kind for r in graphs) == ["backward", "forward"], torch_compile.report()
    assert all(len(r.pieces) == 1 and r.pieces[0].runs_on == "iree" and not r.eager_ops for r in graphs), torch_compile.report()
    for (name, p), q in zip(model.named_parameters(), eager.parameters(), strict=True):
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-6, msg=f"gradient of {name}")


def test_interpreter_addresses_a_transposed_self_in_its_memory_order() -> None:
    """torch's copy of a transposed `self` stays transposed, and the view addresses that copy's
    storage; the kernel keeps numpy's layout ('K' order) likewise (the lowering refuses it)."""
    from xdsl_exir.frontends.torch_live import import_exported_program

    class Net(torch.nn.Module):
        def forward(self, x: Any, src: Any) -> Any:
            return torch.as_strided_scatter(x.t(), src, [2, 2], [1, 3], 1)

    x, src = torch.arange(12.0).reshape(3, 4), torch.tensor([[-1.0, -2.0], [-3.0, -4.0]])
    got = ProgramRunner(import_exported_program(torch.export.export(Net(), (x, src)))).run([x.numpy(), src.numpy()])
    np.testing.assert_array_equal(got[0], Net()(x, src).numpy())
