"""
`aten._scaled_dot_product_flash_attention_for_cpu`, which `aot_export_module` and
`torch.export` record for `scaled_dot_product_attention` of 4-d tensors (an
`nn.MultiheadAttention`'s), against torch eager: both results (the attention and
the logsumexp of each query row), causal, an additive mask (rows masked whole
included), an explicit scale, key/value heads shared by groups of query heads,
float32, float64, float16 and bfloat16, NaN/inf in the inputs and an empty batch.
Each case runs as the graph `aot_export_module` gives (a generic call with a
tuple result read by getitems), through the interpreter's kernel and after
`to-core-aten` (the decomposition's own arithmetic); the MultiheadAttention also
lowered, in xDSL's interpreter. torch's refusals (dropout, a boolean mask) are
the kernel's too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.interpreters.upstream import run_lowered
from xdsl_exir.semantics.kernels import run_kernel
from xdsl_exir.targets.iree import lower_to_upstream, to_core

torch = pytest.importorskip("torch")

OP = "aten._scaled_dot_product_flash_attention_for_cpu.default"
TOL = {torch.float32: 2e-6, torch.float64: 1e-12, torch.float16: 2e-3, torch.bfloat16: 2e-2}


@dataclass(frozen=True)
class Case:
    id: str
    q: tuple[int, ...]
    k: tuple[int, ...]
    dtype: Any = torch.float32
    causal: bool = False
    mask: Callable[[torch.Generator], Any] | None = None
    scale: float | None = None
    edge: dict[str, list[tuple[tuple[int, ...], float]]] = field(default_factory=dict)
    """Per input (q, k, v): positions set to a value."""


def _masked_rows(g: torch.Generator) -> Any:
    m = torch.randn(4, 6, generator=g)
    m[1, :] = float("-inf")  # a row every key is masked from
    m[2, 0] = float("-inf")
    return m


NAN, INF = float("nan"), float("inf")
CASES = [
    Case("plain", (2, 3, 4, 8), (2, 3, 6, 8)),
    Case("causal-longer-keys", (2, 2, 4, 8), (2, 2, 6, 8), causal=True),
    Case("mask-rows-scale", (2, 2, 4, 8), (2, 2, 6, 8), mask=_masked_rows, scale=0.3),
    Case("broadcast-mask-causal", (2, 2, 4, 8), (2, 2, 6, 8), causal=True, mask=lambda g: torch.randn(2, 1, 4, 6, generator=g)),
    Case("grouped-heads", (1, 4, 3, 8), (1, 2, 5, 8)),
    Case("float64-causal", (1, 2, 5, 4), (1, 2, 5, 4), dtype=torch.float64, causal=True),
    Case("float16", (1, 2, 4, 8), (1, 2, 6, 8), dtype=torch.float16, mask=_masked_rows),
    Case("bfloat16-causal", (1, 2, 4, 8), (1, 2, 6, 8), dtype=torch.bfloat16, causal=True),
    # a query row of NaN (dead: zeros, logsumexp 0), a query row of -inf (its scores
    # mix +inf and -inf: NaN, dead too), a key with NaN (every row NaN), inf in a value
    Case("edge-query", (1, 1, 4, 4), (1, 1, 5, 4), edge={"q": [((0, 0, 0, 0), NAN), ((0, 0, 1), -INF), ((0, 0, 2, 1), 1e30)]}),
    Case("edge-key-value", (1, 2, 3, 4), (1, 2, 5, 4), edge={"k": [((0, 0, 2, 0), NAN)], "v": [((0, 1, 1, 2), INF)]}),
    Case("empty-batch", (0, 2, 3, 4), (0, 2, 5, 4)),
]


def _inputs(case: Case) -> list[Any]:
    g = torch.Generator().manual_seed(0)
    q = torch.randn(case.q, generator=g)
    k = torch.randn(case.k, generator=g)
    v = torch.randn(case.k, generator=g)
    for name, t in (("q", q), ("k", k), ("v", v)):
        for pos, value in case.edge.get(name, []):
            t[pos] = value
    tensors = [q, k, v] + ([case.mask(g)] if case.mask else [])
    return [t.to(case.dtype) for t in tensors]


def _call(case: Case, tensors: list[Any]) -> tuple[Any, Any]:
    mask = tensors[3] if case.mask else None
    return torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default(
        tensors[0], tensors[1], tensors[2], 0.0, case.causal, attn_mask=mask, scale=case.scale
    )


def _numpy(t: Any) -> np.ndarray:
    if t.dtype == torch.bfloat16:
        import ml_dtypes

        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def _same(got: Any, want: Any, dtype: Any, what: str) -> None:
    assert len(got) == len(want) == 2, what
    for name, g, w in zip(("attention", "logsumexp"), got, want, strict=True):
        g = np.asarray(g)
        assert g.shape == tuple(w.shape), f"{what} {name}: shape {g.shape}, torch {tuple(w.shape)}"
        assert g.dtype == _numpy(w).dtype, f"{what} {name}: dtype {g.dtype}, torch {w.dtype}"
        tol = TOL[dtype] if name == "attention" else TOL[torch.float64 if dtype == torch.float64 else torch.float32] * 4
        np.testing.assert_allclose(g.astype(np.float64), w.double().numpy(), rtol=tol, atol=tol, equal_nan=True,
                                   err_msg=f"{what} {name}")


def _export(case: Case, tensors: list[Any]) -> Any:
    from torch._functorch.aot_autograd import aot_export_module

    from xdsl_exir.frontends.torch_live import import_graph_module

    class Net(torch.nn.Module):
        def forward(self, *xs: Any) -> Any:
            return _call(case, list(xs))

    gm, _ = aot_export_module(Net(), tuple(tensors), trace_joint=False)
    assert any(str(n.target) == OP.replace("aten.", "aten.", 1) for n in gm.graph.nodes if n.op == "call_function")
    return import_graph_module(gm, tensors)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_kernel_and_decomposition_match_eager(case: Case) -> None:
    tensors = _inputs(case)
    want = _call(case, tensors)
    arrays = [_numpy(t) for t in tensors]
    kwargs: dict[str, Any] = {"attn_mask": arrays[3] if case.mask else None, "scale": case.scale}
    _same(run_kernel(OP, [*arrays[:3], 0.0, case.causal], kwargs), want, case.dtype, "kernel")
    module = _export(case, tensors)
    _same(ProgramRunner(module).run([np.copy(a) for a in arrays]), want, case.dtype, "interpreter")
    core = to_core(module)
    assert not [op for op in core.walk() if OP in str(getattr(getattr(op, "target", None), "data", ""))]
    _same(ProgramRunner(core).run([np.copy(a) for a in arrays]), want, case.dtype, "after to-core-aten")


def test_multihead_attention_through_to_core_and_the_lowering() -> None:
    """A raw `aot_export_module` of `nn.MultiheadAttention` (the graph that met no kernel before)."""
    from torch._functorch.aot_autograd import aot_export_module

    from xdsl_exir.frontends.torch_live import import_graph_module

    torch.manual_seed(0)

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.mha = torch.nn.MultiheadAttention(16, 4, batch_first=True)

        def forward(self, x: Any, m: Any) -> Any:
            return (self.mha(x, x, x, attn_mask=m, need_weights=False)[0],)

    net = Net().eval()
    x, m = torch.randn(2, 5, 16), torch.randn(5, 5)
    m[1, :] = float("-inf")
    gm, _ = aot_export_module(net, (x, m), trace_joint=False)
    assert OP in {f"aten.{n.target.__name__}" for n in gm.graph.nodes if n.op == "call_function" and hasattr(n.target, "__name__")}
    inputs = [p.detach() for p in net.parameters()] + [x, m]
    module = import_graph_module(gm, inputs)
    arrays = [t.numpy() for t in inputs]
    with torch.no_grad():
        want = net(x, m)[0].numpy()
    for what, got in (
        ("interpreter", ProgramRunner(module).run(arrays)),
        ("after to-core-aten", ProgramRunner(to_core(module)).run(arrays)),
        ("lowered", run_lowered(lower_to_upstream(to_core(module)), arrays)),
    ):
        np.testing.assert_allclose(np.asarray(got[0]), want, rtol=1e-5, atol=1e-6, err_msg=what)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"dropout_p": 0.5}, "no dropout"), ({"attn_mask": np.zeros((3, 5), bool)}, "additive mask")],
    ids=["dropout", "boolean-mask"],
)
def test_kernel_refuses_what_torch_refuses(kwargs: dict[str, Any], message: str) -> None:
    q = np.zeros((1, 1, 3, 4), np.float32)
    k = np.zeros((1, 1, 5, 4), np.float32)
    with pytest.raises(ValueError, match=message):
        run_kernel(OP, [q, k, k], kwargs)
    t = torch.from_numpy
    with pytest.raises(RuntimeError):
        torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default(
            t(q), t(k), t(k), kwargs.get("dropout_p", 0.0),
            attn_mask=t(kwargs["attn_mask"]) if "attn_mask" in kwargs else None,
        )
