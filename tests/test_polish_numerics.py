"""
Edge values against torch eager for operators whose special cases were wrong or
refused: each through its interpreter kernel and, where it has one, its
decomposition (`to-core-aten`) and the linalg lowering (run by xDSL's interpreter).

`scaled_dot_product_attention`: eager picks its CPU flash kernel for 4-d inputs of
one head size and its math path otherwise; the two scale the scores differently
(a product that overflows when scaled once stays finite when q and k are each
scaled by sqrt(scale)), and both add a boolean mask as 0/-inf, so a NaN or +inf
score at a masked position makes its row NaN where masking it out would not.
"""

from __future__ import annotations

import io
import re
from typing import Any, cast

import numpy as np
import pytest
import torch

from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.interpreters.upstream import run_lowered
from xdsl_exir.semantics.kernels import run_kernel
from xdsl_exir.targets.iree import lower_to_upstream, to_core
from xdsl_exir.utils.diagnostics import ExirDiagnostic

SDPA = "aten.scaled_dot_product_attention.default"
INF, NAN = float("inf"), float("nan")


def _numpy(t: torch.Tensor) -> np.ndarray:
    if t.dtype == torch.bfloat16:
        import ml_dtypes

        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def _same_bits(got: Any, want: torch.Tensor, what: str, ulps: int = 0, each: bool = False) -> None:
    """Equal values, NaN and infinities where torch has them, the sign of zeros too; `ulps`
    float32 ulps of slack, of each value (`each`) or of the largest magnitude."""
    g = np.asarray(got)
    w = _numpy(want)
    assert g.shape == w.shape and g.dtype == w.dtype, f"{what}: {g.shape} {g.dtype}, torch {w.shape} {w.dtype}"
    g64, w64 = g.astype(np.float64), w.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(g64), np.isnan(w64), err_msg=f"{what}: NaN positions")
    zero = w64 == 0
    np.testing.assert_array_equal(np.signbit(g64[zero]), np.signbit(w64[zero]), err_msg=f"{what}: signed zeros")
    finite = np.isfinite(w64)
    np.testing.assert_array_equal(g64[~finite], w64[~finite], err_msg=f"{what}: NaN and infinities")
    # an attention output is a weighted mean of values: its rounding error scales with the largest
    largest = np.float32(np.max(np.abs(w64[finite]), initial=0.0))
    slack = ulps * (np.spacing(np.abs(w64[finite]).astype(np.float32)).astype(np.float64) if each else float(np.spacing(largest)))
    worst = np.abs(g64[finite] - w64[finite]) - slack
    assert not (worst > 0).any(), f"{what}: {np.count_nonzero(worst > 0)} values off by more than {ulps} ulps"


def _attention_inputs(layout: str, dtype: torch.dtype, edge: str) -> tuple[list[torch.Tensor], torch.Tensor | None]:
    """q, k, v of the layout ('flash': 4-d, one head size; 'math4d': value head size differs;
    'math3d': 3-d) with the edge case written into the second query row."""
    g = torch.Generator().manual_seed(0)
    lead = (2, 3) if layout != "math3d" else (6,)
    ev = 8 if layout == "flash" else 6
    q = torch.randn(*lead, 4, 8, generator=g)
    k = torch.randn(*lead, 7, 8, generator=g)
    v = torch.randn(*lead, 7, ev, generator=g)
    mask: torch.Tensor | None = None
    if edge == "bool-row":
        mask = torch.rand(4, 7, generator=g) < 0.6
        mask[1] = False
    elif edge == "float-row":
        mask = torch.randn(4, 7, generator=g)
        mask[1] = -INF
        mask[2, :3] = -INF
    elif edge == "nan-query":
        q[..., 1, :] = NAN
    elif edge == "inf-score-masked":
        # the second row's scores: +inf for key 0, which the mask hides, -inf elsewhere
        q[..., 1, :] = 0.0
        q[..., 1, 0] = INF
        k[..., :, 0] = -1.0
        k[..., 0, 0] = 1.0
        mask = torch.ones(4, 7, dtype=torch.bool)
        mask[1, 0] = False
    elif edge == "overflow":
        q[..., 0, :] = 1e19
        k[..., 2, :] = 1e19
    elif edge == "negative-zero-values":
        v[...] = -0.0
        mask = torch.ones(4, 7, dtype=torch.bool)
        mask[1] = False
    return [t.to(dtype) for t in (q, k, v)], mask


EDGES = ["bool-row", "float-row", "nan-query", "inf-score-masked", "overflow", "negative-zero-values"]
LAYOUTS = ["flash", "math4d", "math3d"]


def _eager_sdpa(tensors: list[torch.Tensor], mask: torch.Tensor | None) -> torch.Tensor:
    m = mask.to(tensors[0].dtype) if mask is not None and mask.dtype != torch.bool else mask
    return torch.ops.aten.scaled_dot_product_attention.default(*tensors, m)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("edge", EDGES)
def test_sdpa_kernel_special_rows_match_eager(edge: str, layout: str, dtype: torch.dtype) -> None:
    if edge == "nan-query" and layout == "flash":
        pytest.skip("eager's flash kernel gives zeros or NaN here by key length and the CPU's vector width")
    if edge == "overflow" and dtype != torch.float32:
        pytest.skip("1e19 squared is finite in float64 and bfloat16")
    tensors, mask = _attention_inputs(layout, dtype, edge)
    want = _eager_sdpa(tensors, mask)
    m = None if mask is None else _numpy(mask.to(dtype) if mask.dtype != torch.bool else mask)
    got = run_kernel(SDPA, [*(_numpy(t) for t in tensors), m], {})
    # float32/float64 products are summed in another order than torch's BLAS: a few ulps
    _same_bits(got, want, f"kernel {edge} {layout}", ulps=0 if dtype == torch.bfloat16 else 4)
    if edge in ("bool-row", "float-row", "inf-score-masked", "negative-zero-values"):
        assert np.isnan(_numpy(want)).any() == (edge == "inf-score-masked")


def test_sdpa_kernel_non_contiguous_inputs() -> None:
    tensors, mask = _attention_inputs("flash", torch.float32, "bool-row")
    q, k, v = (t.transpose(0, 1) for t in tensors)  # strided views
    want = _eager_sdpa([q, k, v], mask)
    got = run_kernel(SDPA, [q.numpy(), k.numpy(), v.numpy(), None if mask is None else mask.numpy()], {})
    _same_bits(got, want, "transposed", ulps=4)


def _exported(tensors: list[torch.Tensor], mask: torch.Tensor | None) -> Any:
    class Net(torch.nn.Module):
        def forward(self, q: Any, k: Any, v: Any, m: Any) -> Any:
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m)

    ep = torch.export.export(Net(), (*tensors, mask))
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    return load_pt2(buf.getvalue(), "sdpa.pt2")


@pytest.mark.parametrize("layout", ["flash", "math3d"])
@pytest.mark.parametrize("edge", ["bool-row", "float-row", "inf-score-masked", "overflow"])
def test_sdpa_decomposition_and_lowering_special_rows(edge: str, layout: str) -> None:
    """The program with sdpa kept, after `to-core-aten` and lowered give what eager gives."""
    tensors, mask = _attention_inputs(layout, torch.float32, edge)
    mask = mask if mask is not None else torch.zeros(4, 7)
    want = _eager_sdpa(tensors, mask)
    module = _exported(tensors, mask)
    assert any(op.name == "aten.scaled_dot_product_attention.default" or SDPA in str(op) for op in module.walk())
    arrays = [t.numpy() for t in (*tensors, mask)]
    core = to_core(module)
    for what, run in (
        ("interpreter", lambda: ProgramRunner(module).run([np.copy(a) for a in arrays])),
        ("after to-core-aten", lambda: ProgramRunner(core).run([np.copy(a) for a in arrays])),
        ("lowered", lambda: run_lowered(lower_to_upstream(core), [np.copy(a) for a in arrays])),
    ):
        (got,) = run()
        _same_bits(got, want, f"{what} {edge} {layout}", ulps=4)


# ---------------------------------------------------------------------------
# bfloat16 views: they share their operand's memory and keep its dtype
# ---------------------------------------------------------------------------


class _Bf16Views(torch.nn.Module):
    """A chain of views of a bfloat16 input, a bitcast view, and writes through views of a buffer."""

    buf: torch.Tensor

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("buf", torch.zeros(4, 6, dtype=torch.bfloat16))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        y = x.view(4, 6).permute(1, 0)[1:5:2].reshape(-1)
        self.buf.view(24)[3:9].add_(x.reshape(-1)[:6])
        self.buf[1].mul_(3)
        return y * 2, x.transpose(0, 1)[0], x.view(torch.int16)[1], self.buf.permute(1, 0).clone() + 1


@pytest.mark.parametrize("decomposed", [False, True], ids=["training-ir", "run-decompositions"])
def test_bfloat16_views_keep_dtype_and_memory(decomposed: bool) -> None:
    x = torch.randn(2, 3, 4).bfloat16()
    x[0, 0, :3] = torch.tensor([NAN, -0.0, -INF])
    ep = torch.export.export(_Bf16Views(), (x,))
    if decomposed:
        ep = ep.run_decompositions()
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    module = load_pt2(buf.getvalue(), "views.pt2")
    want = _Bf16Views()(x)
    for what, m in (("interpreter", module), ("after to-core-aten", to_core(module))):
        got = ProgramRunner(m).run([_numpy(x)])
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _same_bits(g, w, f"{what} output {i}")


def test_bfloat16_view_kernels_alias_their_operand() -> None:
    x = _numpy(torch.arange(24, dtype=torch.bfloat16).view(4, 6))
    for name, args in (
        ("aten.permute.default", [x, [1, 0]]),
        ("aten.slice.Tensor", [x, 1, 1, 5, 2]),
        ("aten.view.default", [x, [3, 8]]),
        ("aten.as_strided.default", [x, [2, 2], [1, 6]]),
    ):
        got = np.asarray(run_kernel(name, args, {}))
        assert got.dtype == x.dtype and np.shares_memory(got, x), name


# ---------------------------------------------------------------------------
# as_strided_scatter of a view: torch writes into a copy of self's whole storage
# ---------------------------------------------------------------------------

_SELVES: dict[str, Any] = {
    "whole": lambda t: t,
    "narrowed-rows": lambda t: t[1:4],
    "narrowed-cols": lambda t: t[:, 1:5],
    "stepped": lambda t: t[::2, ::3],
    "transposed-narrowed": lambda t: (t.T if isinstance(t, torch.Tensor) else t.T)[1:4],
    "narrowed-transposed": lambda t: t[:, 2:6].T,
    "selected": lambda t: t[2],
}
# (size, stride, storage offset): offsets relative to self's own (None) and absolute ones
# reaching before self's first element and past its last
_VIEWS = [((2, 2), (1, 2), None), ((2, 2), (1, 2), 1), ((3,), (5,), None), ((2,), (1,), 22), ((2, 3), (8, 1), 0)]


@pytest.mark.parametrize("view", _VIEWS, ids=str)
@pytest.mark.parametrize("self_of", list(_SELVES))
def test_as_strided_scatter_kernel_of_views(self_of: str, view: tuple[Any, ...]) -> None:
    size, stride, offset = view
    base = torch.arange(48.0).view(6, 8)
    base[0, 0], base[5, 7] = -0.0, NAN
    x = _SELVES[self_of](base)
    xn = _SELVES[self_of](base.numpy().copy())
    assert xn.shape == tuple(x.shape) and tuple(s // 4 for s in xn.strides) == x.stride()
    src = torch.randn(*size, generator=torch.Generator().manual_seed(1))
    want = torch.as_strided_scatter(x, src, size, stride, offset)
    got = np.asarray(run_kernel("aten.as_strided_scatter.default", [xn, src.numpy(), list(size), list(stride), offset], {}))
    _same_bits(got, want, f"{self_of} {view}")
    assert tuple(s // 4 for s in got.strides) == want.stride(), "torch returns self's view of the copied storage"
    assert not np.shares_memory(got, xn)


def test_as_strided_scatter_kernel_of_an_expanded_self() -> None:
    """Elements sharing memory: torch copies self alone (row-major here), offsets from 0."""
    x = torch.arange(4.0).view(4, 1).expand(4, 3)
    src = torch.tensor([7.0, 8.0])
    want = torch.as_strided_scatter(x, src, (2,), (4,), 1)
    got = run_kernel("aten.as_strided_scatter.default", [np.broadcast_to(x.numpy()[:, :1], (4, 3)), src.numpy(), [2], [4], 1], {})
    _same_bits(got, want, "expanded")


class _ScatterIntoView(torch.nn.Module):
    def __init__(self, self_of: str, size: Any, stride: Any, offset: Any) -> None:
        super().__init__()
        self.self_of, self.size, self.stride, self.offset = self_of, size, stride, offset

    def forward(self, x: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
        view = _SELVES[self.self_of](x)
        return torch.as_strided_scatter(view, src, self.size, self.stride, self.offset) * 1


@pytest.mark.parametrize("view", [((2, 2), (1, 2), None), ((2,), (1,), 22)], ids=str)
@pytest.mark.parametrize("self_of", ["narrowed-rows", "narrowed-cols", "narrowed-transposed", "whole"])
def test_as_strided_scatter_program_of_views(self_of: str, view: tuple[Any, ...]) -> None:
    """A program scattering into a slice of its input: interpreter, core IR and the lowering as eager."""
    x = torch.arange(48.0).view(6, 8)
    src = torch.randn(*view[0], generator=torch.Generator().manual_seed(2))
    model = _ScatterIntoView(self_of, *view)
    want = model(x, src)
    ep = torch.export.export(model, (x, src))
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    module = load_pt2(buf.getvalue(), "scatter.pt2")
    core = to_core(module)
    arrays = [x.numpy(), src.numpy()]
    for what, run in (
        ("interpreter", lambda: ProgramRunner(module).run([np.copy(a) for a in arrays])),
        ("after to-core-aten", lambda: ProgramRunner(core).run([np.copy(a) for a in arrays])),
        ("lowered", lambda: run_lowered(lower_to_upstream(core), [np.copy(a) for a in arrays])),
    ):
        (got,) = run()
        _same_bits(got, want, f"{what} {self_of} {view}")


def test_as_strided_scatter_lowering_refuses_an_expanded_self() -> None:
    class Net(torch.nn.Module):
        def forward(self, x: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
            return torch.as_strided_scatter(x.expand(4, 3), src, (2,), (4,), 1) * 1

    x, src = torch.arange(4.0).view(4, 1), torch.tensor([7.0, 8.0])
    ep = torch.export.export(Net(), (x, src))
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    core = to_core(load_pt2(buf.getvalue(), "expanded.pt2"))
    (got,) = ProgramRunner(core).run([x.numpy(), src.numpy()])
    _same_bits(got, Net()(x, src), "interpreter")
    with pytest.raises(ExirDiagnostic, match=r"as_strided_scatter \(.*\) of a self whose elements share memory \(expanded\)"):
        lower_to_upstream(core)


# ---------------------------------------------------------------------------
# cross_entropy: class probabilities, label smoothing, every reduction
# ---------------------------------------------------------------------------


def _ce_inputs(kind: str, shape: tuple[int, ...], dtype: torch.dtype, edges: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Logits, target and class weights; with `edges`, a -inf logit (its class's probability 0,
    where 0 * -inf is NaN in torch too) and a logit of 1e30 in other rows."""
    g = torch.Generator().manual_seed(len(shape) * 7 + shape[0])
    x = torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype) * 3
    cdim = 1 if len(shape) >= 2 else 0
    w = torch.rand(shape[cdim], generator=g, dtype=torch.float64).to(dtype) + 0.5
    if kind == "probabilities":
        t = torch.softmax(torch.randn(*shape, generator=g, dtype=torch.float64), cdim).to(dtype)
        if edges and x.numel():
            t.view(-1)[0] = 0.0  # a zero probability where the log-probability is -inf
    else:
        rows = [s for d, s in enumerate(shape) if d != cdim]
        t = torch.randint(0, shape[cdim], rows, generator=g)
        if t.numel() > 1:
            t.view(-1)[1] = 1  # the ignore_index below
    if edges and x.dim() >= 2 and x.shape[0] > 2:
        x[0].view(-1)[0] = -INF
        x[2].view(-1)[1] = 1e30
    return x, t, w


_CE_CASES = [
    # (target kind, input shape, reduction, label smoothing, weighted, dtype)
    ("probabilities", (4, 5), "mean", 0.0, False, torch.float32),
    ("probabilities", (4, 5), "sum", 0.2, True, torch.float32),
    ("probabilities", (4, 5), "none", 0.2, False, torch.float64),
    ("probabilities", (4, 5), "none", 0.0, True, torch.float32),
    ("probabilities", (4, 5), "mean", 1.0, True, torch.float64),
    ("probabilities", (4, 5), "mean", -0.5, False, torch.float32),
    ("probabilities", (5,), "mean", 0.1, True, torch.float32),
    ("probabilities", (5,), "none", 0.0, False, torch.float32),
    ("probabilities", (2, 3, 4, 2), "mean", 0.3, True, torch.float32),
    ("probabilities", (2, 3, 4), "none", 0.0, True, torch.float32),
    ("probabilities", (0, 5), "mean", 0.0, False, torch.float32),
    ("probabilities", (0, 5), "sum", 0.1, True, torch.float32),
    ("indices", (4, 5), "mean", 0.2, False, torch.float32),
    ("indices", (4, 5), "mean", 0.2, True, torch.float32),
    ("indices", (4, 5), "sum", 0.2, True, torch.float64),
    ("indices", (4, 5), "none", 0.2, True, torch.float32),
    ("indices", (5,), "mean", 0.3, True, torch.float32),
    ("indices", (4, 5), "mean", 0.0, True, torch.float32),
]


class _CrossEntropy(torch.nn.Module):
    def __init__(self, reduction: str, smoothing: float, weighted: bool, ignore_index: int) -> None:
        super().__init__()
        self.reduction, self.smoothing, self.weighted, self.ignore_index = reduction, smoothing, weighted, ignore_index

    def forward(self, x: torch.Tensor, t: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.cross_entropy(
            x, t, weight=w if self.weighted else None, reduction=self.reduction,
            label_smoothing=self.smoothing, ignore_index=self.ignore_index,
        )


@pytest.mark.parametrize("case", _CE_CASES, ids=lambda c: "-".join(map(str, c)))
def test_cross_entropy_matches_eager(case: tuple[Any, ...]) -> None:
    kind, shape, reduction, smoothing, weighted, dtype = case
    x, t, w = _ce_inputs(kind, shape, dtype, edges=reduction == "none")
    model = _CrossEntropy(reduction, smoothing, weighted, 1 if kind == "indices" else -100)
    want = model(x, t, w)
    ep = torch.export.export(model, (x, t, w))
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    module = load_pt2(buf.getvalue(), "ce.pt2")
    assert any(op.name == "aten.cross_entropy_loss.default" or "cross_entropy_loss" in str(op) for op in module.walk())
    core = to_core(module)
    arrays = [x.numpy(), t.numpy(), w.numpy()]
    runs: list[tuple[str, Any]] = [
        ("interpreter", lambda: ProgramRunner(module).run([np.copy(a) for a in arrays])),
        ("after to-core-aten", lambda: ProgramRunner(core).run([np.copy(a) for a in arrays])),
    ]
    if dtype == torch.float32:
        runs.append(("lowered", lambda: run_lowered(lower_to_upstream(core), [np.copy(a) for a in arrays])))
    for what, run in runs:
        (got,) = run()
        _same_bits(got, want, f"{what} {case}", ulps=8, each=True)


@pytest.mark.parametrize(
    ("target", "kwargs", "message"),
    [
        (torch.rand(3, 5), {"ignore_index": 0}, "ignore_index is not supported for floating point target"),
        (torch.rand(3, 5), {"label_smoothing": 1.5}, r"label_smoothing must be between 0.0 and 1.0. Got: 1.5"),
        (torch.tensor([0, 1, 2]), {"label_smoothing": 1.5}, r"label_smoothing must be between 0.0 and 1.0. Got: 1.5"),
        (torch.rand(3, 5), {"weight": torch.ones(4)}, r"weight tensor should be defined either for all 5 classes or no classes but got weight tensor of shape: \[4\]"),
        (torch.ones(3, 5, dtype=torch.int64), {}, "Expected floating point type for target with class probabilities, got int64"),
        (torch.rand(3, 4), {}, r"a floating-point target holds class probabilities and must have the input's sizes \[3, 5\], got \[3, 4\]"),
    ],
    ids=["ignore-index", "smoothing-prob", "smoothing-index", "weight-size", "integer-probabilities", "probability-sizes"],
)
def test_cross_entropy_refusals_in_torch_words(target: torch.Tensor, kwargs: dict[str, Any], message: str) -> None:
    from xdsl_exir.semantics.kernels import KERNELS
    from xdsl_exir.utils.diagnostics import InterpreterError

    x = torch.randn(3, 5)
    with pytest.raises(RuntimeError):  # torch refuses it too
        torch.nn.functional.cross_entropy(x, target, **kwargs)
    w = kwargs.get("weight")
    call = {
        "self": x.numpy(), "target": target.numpy(), "weight": None if w is None else w.numpy(), "reduction": 1,
        "ignore_index": kwargs.get("ignore_index", -100), "label_smoothing": kwargs.get("label_smoothing", 0.0),
    }
    with pytest.raises(InterpreterError, match=f"cross_entropy_loss: {message}"):
        KERNELS["aten.cross_entropy_loss.default"](**call)


# ---------------------------------------------------------------------------
# Refusals in the operator's words, not its decomposition's
# ---------------------------------------------------------------------------

_X43 = np.random.default_rng(3).standard_normal((4, 3)).astype(np.float32)
_X234 = np.random.default_rng(4).standard_normal((2, 3, 4)).astype(np.float32)
_F32 = np.float32


def _instance_norm_call(weight: Any = None, bias: Any = None, mean: Any = None, var: Any = None, stats: bool = True) -> dict[str, Any]:
    return {"input": _X234, "weight": weight, "bias": bias, "running_mean": mean, "running_var": var,
            "use_input_stats": stats, "momentum": 0.1, "eps": 1e-5, "cudnn_enabled": False}


_REFUSALS: list[tuple[str, dict[str, Any], str]] = [
    ("aten.index_add.default", {"self": _X43, "dim": 0, "index": np.array([0, 2]), "source": np.ones((2, 2), _F32)},
     "index_add: source tensor shape must match self tensor shape, excluding the specified dimension. "
     "Got self.shape = [4, 3] source.shape = [2, 2]"),
    ("aten.index_add.default", {"self": _X43, "dim": 0, "index": np.array([0, 2]), "source": np.ones((3, 3), _F32)},
     "index_add: number of indices (2) should be equal to source.size(dim): (3), for dim: 0"),
    ("aten.index_add.default", {"self": _X43, "dim": 1, "index": np.array([0, 2]), "source": np.ones((4, 3), _F32)},
     "index_add: number of indices (2) should be equal to source.size(dim): (3), for dim: 1"),
    ("aten.index_add.default", {"self": _X43, "dim": 0, "index": np.array([[0, 2]]), "source": np.ones((2, 3), _F32)},
     "index_add: index is supposed to be a vector, but got dim: 2 and size: [1, 2]"),
    ("aten.index_copy.default", {"self": _X43, "dim": 0, "index": np.array([0, 2]), "source": np.ones((2, 2), _F32)},
     "index_copy: source/destination tensor must have same slice shapes. Destination slice shape: [3] at dimension 0 "
     "and source slice shape: [2] at dimension 0"),
    ("aten.index_copy.default", {"self": _X43, "dim": 0, "index": np.array([0, 2]), "source": np.ones(2, _F32)},
     "index_copy: when source and destination are not scalars, their dimensionality must match. "
     "Source dimensionality (1), destination dimensionality (2)"),
    ("aten.instance_norm.default", _instance_norm_call(weight=np.ones(4, _F32)),
     "instance_norm: weight should contain 6 elements not 8 (it is repeated for each of the 2 batch elements: "
     "it needs one entry per channel, 3, and has 4)"),
    ("aten.instance_norm.default", _instance_norm_call(weight=np.ones(3, _F32), bias=np.zeros(5, _F32)),
     "instance_norm: bias should contain 6 elements not 10"),
    ("aten.instance_norm.default", _instance_norm_call(mean=np.zeros(4, _F32), var=np.ones(4, _F32)),
     "instance_norm: running_mean should contain 6 elements not 8"),
    ("aten.instance_norm.default", _instance_norm_call(stats=False),
     "instance_norm: Expected running_mean and running_var to be defined when use_input_stats is false"),
    ("aten.prelu.default", {"self": _X234, "weight": np.ones(4, _F32)},
     "prelu: Mismatch of parameter numbers and input channel size. Found parameter numbers = 4 and channel size = 3."),
    ("aten.prelu.default", {"self": _X234[0, 0], "weight": np.ones(2, _F32)},
     "prelu: Mismatch of parameter numbers and input channel size. Found parameter numbers = 2 and channel size = 1."),
    ("aten.prelu.default", {"self": _X234, "weight": np.ones((3, 1), _F32)},
     "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2"),
    ("aten.prelu.default", {"self": _X234, "weight": np.ones(3, np.float64)},
     "prelu: Type promoting not supported. Got float32 and float64"),
]


@pytest.mark.parametrize(("name", "call", "message"), _REFUSALS, ids=[f"{r[0].split('.')[1]}-{i}" for i, r in enumerate(_REFUSALS)])
def test_parameter_mismatches_refused_as_torch_refuses(name: str, call: dict[str, Any], message: str) -> None:
    """Each refused by torch too, and here by its inference rule naming the operator and the sizes."""
    from xdsl_exir.semantics.kernels import KERNELS
    from xdsl_exir.utils.diagnostics import InterpreterError

    eager = getattr(torch.ops.aten, name.split(".")[1]).default
    with pytest.raises((RuntimeError, IndexError)):
        eager(**{k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in call.items()})
    with pytest.raises(InterpreterError, match=re.escape(message)):
        KERNELS[name](**call)


_ACCEPTED: list[tuple[str, dict[str, Any]]] = [
    ("aten.index_add.default", {"self": _X43, "dim": 1, "index": np.array([2, 0, 2]), "source": np.ones((4, 3), _F32), "alpha": 2}),
    ("aten.index_add.default", {"self": np.full((), 1.5, _F32), "dim": 0, "index": np.array([0]), "source": np.full((), 2.0, _F32)}),
    ("aten.index_copy.default", {"self": _X43, "dim": 0, "index": np.array([3, 1]), "source": np.full((2, 3), -0.0, _F32)}),
    ("aten.instance_norm.default", _instance_norm_call(weight=np.arange(3, dtype=_F32), bias=np.ones(3, _F32))),
    # evaluation with running statistics: NaN and infinite statistics and a zero variance
    ("aten.instance_norm.default", _instance_norm_call(
        weight=np.array([1.0, np.inf, -2.0], _F32), bias=np.array([0.5, 0.0, -0.0], _F32),
        mean=np.array([0.1, np.nan, -1.0], _F32), var=np.array([1.0, 4.0, 0.0], _F32), stats=False)),
    ("aten.instance_norm.default", _instance_norm_call(mean=np.zeros(3, _F32), var=np.array([1.0, np.inf, 2.0], _F32), stats=False)),
    ("aten.prelu.default", {"self": _X234, "weight": np.array([0.1, -2.0, 0.0], _F32)}),
    ("aten.prelu.default", {"self": _X234, "weight": np.full((), 0.25, _F32)}),
    ("aten.prelu.default", {"self": _X234[0, 0], "weight": np.array([0.5], _F32)}),
    # _prelu_kernel broadcasts its weight as it is (prelu's own decomposition places it first)
    ("aten._prelu_kernel.default", {"self": _X234, "weight": np.array([0.1, -2.0, 0.0, 3.0], _F32)}),
    ("aten._prelu_kernel.default", {"self": _X234, "weight": np.array([[0.5], [1.5], [-1.0]], _F32)}),
]


@pytest.mark.parametrize(("name", "call"), _ACCEPTED, ids=[f"{r[0].split('.')[1]}-{i}" for i, r in enumerate(_ACCEPTED)])
def test_parameters_that_fit_agree_with_torch(name: str, call: dict[str, Any]) -> None:
    from xdsl_exir.semantics.kernels import KERNELS

    eager = getattr(torch.ops.aten, name.split(".")[1]).default
    want = eager(**{k: torch.from_numpy(np.array(v)) if isinstance(v, (np.ndarray, np.generic)) else v for k, v in call.items()})
    got = KERNELS[name](**call)
    _same_bits(np.asarray(got), want, name, ulps=4)


def test_inference_batch_norm_without_bias_keeps_zeros_positive() -> None:
    """torch's absent bias is 0 and its shift `0 - mean * scale`: a -0.0 input over a zero
    mean gives +0.0 (the kernel and the interpreter's fast path negated the product: -0.0)."""
    model = torch.nn.BatchNorm2d(3, affine=False).eval()
    mean, var = model.running_mean, model.running_var
    assert mean is not None and var is not None
    var.copy_(torch.tensor([1.0, float("inf"), 4.0]))
    x = torch.randn(2, 3, 2, 2, generator=torch.Generator().manual_seed(5))
    x[0, :, 0, 0] = -0.0
    want = model(x)
    ep = torch.export.export(model, (x,)).run_decompositions()
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    (got,) = ProgramRunner(load_pt2(buf.getvalue(), "bn.pt2")).run([x.numpy()])
    _same_bits(got, want, "interpreter", ulps=1, each=True)
    from xdsl_exir.semantics.kernels import run_kernel as kernel

    stats = [mean.numpy(), var.numpy()]
    out = kernel("aten._native_batch_norm_legit_no_training.default", [x.numpy(), None, None, *stats, 0.1, 1e-5], {})
    _same_bits(np.asarray(cast(tuple[Any, ...], out)[0]), want, "kernel", ulps=1, each=True)
