"""
`torch.compile(model, backend="exir")`: the Dynamo backend registered by the
`torch_dynamo_backends` entry point, checked against torch eager.

- every zoo model (`scripts/gen_zoo.py`'s models, on the zoo's inputs) equals
  eager on both backends;
- a small CNN and a transformer block train 20 steps (SGD and Adam) with the
  losses of eager within 1e-4 relative at every step, each graph one piece on the
  chosen backend; the zoo's depthwise-separable CNN trains on IREE likewise;
- a graph break (`print`) compiles both pieces; one refused operator runs in
  eager torch, the rest native, and the report says so;
- `dynamic=True` serves two batch sizes with one compilation.

The default run takes a few zoo models and training set-ups per backend (about a
minute of CPU); `EXIR_TORCH_COMPILE_SWEEP=1` runs all of them (all 30 zoo models on
both backends, every training set-up: several minutes).
"""

from __future__ import annotations

import copy
import importlib.util
import logging
import os
import pathlib
import sys
from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import torch.utils._pytree as pytree  # noqa: E402 - after importorskip, so the module skips without torch
from torch import nn  # noqa: E402 - after importorskip, so the module skips without torch

from tests.pass_harness import register_zoo_kernels  # noqa: E402 - after importorskip, so the module skips without torch
from xdsl_exir.targets.iree import iree_available  # noqa: E402 - after importorskip, so the module skips without torch
from xdsl_exir.tools import torch_compile  # noqa: E402 - after importorskip, so the module skips without torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
SWEEP = os.environ.get("EXIR_TORCH_COMPILE_SWEEP") == "1"
needs_iree = pytest.mark.skipif(not iree_available(), reason="needs the iree extra")


def _gen_zoo() -> Any:
    """`scripts/gen_zoo.py` (its models and inputs), loaded once per process (it defines a torch.library)."""
    module = sys.modules.get("gen_zoo")
    if module is None:
        spec = importlib.util.spec_from_file_location("gen_zoo", ROOT / "scripts" / "gen_zoo.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["gen_zoo"] = module
        spec.loader.exec_module(module)
    return module


ENTRIES = {e.name: e for e in _gen_zoo().ENTRIES}


@pytest.fixture(autouse=True)
def _fresh_dynamo() -> Any:
    torch._dynamo.reset()
    torch_compile.reset_reports()
    yield
    torch._dynamo.reset()


def _assert_same(got: Any, want: Any, rtol: float, atol: float) -> None:
    got_leaves, got_spec = pytree.tree_flatten(got)
    want_leaves, want_spec = pytree.tree_flatten(want)
    assert got_spec == want_spec
    for g, w in zip(got_leaves, want_leaves, strict=True):
        if isinstance(w, torch.Tensor):
            assert isinstance(g, torch.Tensor), f"{type(g).__name__} where eager gives a tensor"
            assert g.dtype == w.dtype and g.shape == w.shape
            assert g.requires_grad == w.requires_grad
            torch.testing.assert_close(g, w, rtol=rtol, atol=atol, equal_nan=True)
        else:
            assert g == w


def _compiled(model: Callable[..., Any], backend: str, **kwargs: Any) -> Callable[..., Any]:
    return torch.compile(model, backend="exir", options={"backend": backend, "threads": 1}, **kwargs)


# ---------------------------------------------------------------------------
# The zoo
# ---------------------------------------------------------------------------


ZOO_NOT_NATIVE: dict[str, str] = {
    "cond": "torch.cond's branches are GraphModule attributes, which the live importer does not read yet",
    "while_loop": "as cond: the loop's body and condition are GraphModule attributes",
    "map": "as cond: the mapped function is a GraphModule attribute",
    "lstm": "AOTAutograd's CPU form of nn.LSTM is aten.mkldnn_rnn_layer, which has no kernel or lowering",
}
"""Zoo models some of whose operators run in eager torch, and why (the rest of each runs native)."""


IREE_NOT_NATIVE: dict[str, str] = {
    "custom_op": "a torch.library operator has no lowering: it runs in eager torch between IREE pieces",
}  # fmt: skip
"""Zoo models that run right but not (all) on IREE through torch.compile today, and why."""


def _run_zoo(name: str, backend: str) -> None:
    entry = ENTRIES[name]
    if entry.custom_ops:
        register_zoo_kernels()
    gen = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    model = entry.make(gen).eval()
    args = entry.args(gen)
    eager_model = copy.deepcopy(model)
    with torch.no_grad(), torch._dynamo.config.patch(allow_rnn=True):  # Dynamo leaves RNN modules eager by default
        want = eager_model(*copy.deepcopy(args))
        got = _compiled(model, backend)(*copy.deepcopy(args))
    _assert_same(got, want, entry.rtol, entry.atol)
    if entry.mutates_buffers:
        for (n, b), (_, e) in zip(model.named_buffers(), eager_model.named_buffers(), strict=True):
            torch.testing.assert_close(b, e, msg=f"buffer {n}")
    reports = torch_compile.reports()
    assert reports, "the exir backend compiled nothing"
    where = {p.runs_on for r in reports for p in r.pieces}
    if name == "map" or (backend == "iree" and name in IREE_NOT_NATIVE):
        return  # map: the whole graph is the higher-order op
    assert backend in where, torch_compile.report()
    if name not in ZOO_NOT_NATIVE:
        assert "eager" not in where, torch_compile.report()


INTERPRETER_DEFAULT = ("cnn_bn", "attention", "buffer_mutation", "nested_io", "cond", "custom_op")
"""Zoo models the default run takes through the interpreter (all with EXIR_TORCH_COMPILE_SWEEP=1)."""


@pytest.mark.parametrize("name", sorted(ENTRIES) if SWEEP else INTERPRETER_DEFAULT)
def test_zoo_interpreter(name: str) -> None:
    _run_zoo(name, "interpreter")


IREE_DEFAULT = ("mlp", "llama_block")
"""Zoo models the default run takes through IREE (the rest with EXIR_TORCH_COMPILE_SWEEP=1)."""


@needs_iree
@pytest.mark.parametrize("name", sorted(ENTRIES) if SWEEP else IREE_DEFAULT)
def test_zoo_iree(name: str) -> None:
    _run_zoo(name, "iree")


# ---------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------


class SmallCNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 8, 3, stride=2)
        self.fc = nn.Linear(8 * 2 * 2, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.conv1(x))
        x = torch.nn.functional.max_pool2d(torch.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


class Block(nn.Module):
    """A pre-norm transformer block: attention with a causal mask, GELU MLP, residuals."""

    def __init__(self, d: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / (d // self.heads) ** 0.5
        att = att.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf")).softmax(-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.ln2(x))


def _train(model: nn.Module, make_opt: Callable[[Any], Any], inputs: list[tuple[Any, Any]]) -> list[float]:
    opt = make_opt(model.parameters())
    losses = []
    for x, y in inputs:
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


TRAINING = [
    pytest.param(kind, optimizer, backend, marks=[needs_iree] if backend == "iree" else [])
    for kind in ("cnn", "transformer")
    for optimizer in ("sgd", "adam")
    for backend in ("interpreter", "iree")
    if SWEEP or backend == "interpreter" or (kind, optimizer) in (("cnn", "sgd"), ("transformer", "adam"))
]
"""Both models with both optimizers on the interpreter; on IREE one optimizer each (all with the sweep)."""


@pytest.mark.parametrize(("kind", "optimizer", "backend"), TRAINING)
def test_training_matches_eager(kind: str, optimizer: str, backend: str) -> None:
    """20 steps; every loss within 1e-4 relative of eager's, the backward compiled too."""
    torch.manual_seed(0)
    model = SmallCNN() if kind == "cnn" else Block()
    shape, out = ((4, 3, 12, 12), (4, 5)) if kind == "cnn" else ((3, 6, 16), (3, 6, 16))
    gen = torch.Generator().manual_seed(1)
    inputs = [(torch.randn(*shape, generator=gen), torch.randn(*out, generator=gen)) for _ in range(20)]

    def make_opt(params: Any) -> Any:
        return torch.optim.SGD(params, lr=0.05, momentum=0.9) if optimizer == "sgd" else torch.optim.Adam(params, lr=1e-3)

    eager = copy.deepcopy(model)
    got = _train(_compiled(model, backend), make_opt, inputs)  # pyright: ignore[reportArgumentType] - a compiled module is called like it
    want = _train(eager, make_opt, inputs)
    for step, (g, w) in enumerate(zip(got, want, strict=True)):
        assert abs(g - w) <= 1e-4 * abs(w), f"step {step}: {g} vs eager {w}"
    kinds = {r.kind for r in torch_compile.reports()}
    assert {"forward", "backward"} <= kinds
    where = [p.runs_on for r in torch_compile.reports() for p in r.pieces]
    # Every graph is one piece on the chosen backend: on IREE the backward's convolution_backward
    # and max_pool2d_with_indices_backward lower through their decompositions.
    assert set(where) == {backend}, torch_compile.report()


@needs_iree
def test_cnn_training_step_is_one_iree_piece_per_graph() -> None:
    """
    The zoo's depthwise-separable CNN (grouped and strided convolutions, batch norms in
    training mode) trains 20 SGD steps on IREE with each graph one IREE piece: the
    forward's functional batch norms and the backward's convolution_backward lower
    through their decompositions, nothing runs in eager torch or the interpreter, and
    every loss and the running statistics match eager.
    """
    entry = ENTRIES["dwsep_cnn"]
    gen = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    model = entry.make(gen).train()
    (x,) = entry.args(gen)
    eager = copy.deepcopy(model)
    inputs = [(x + 0.1 * torch.randn(x.shape, generator=gen), torch.randn(1, 10, generator=gen)) for _ in range(20)]

    def make_opt(params: Any) -> Any:
        return torch.optim.SGD(params, lr=0.05, momentum=0.9)

    got = _train(_compiled(model, "iree"), make_opt, inputs)  # pyright: ignore[reportArgumentType] - a compiled module is called like it
    want = _train(eager, make_opt, inputs)
    for step, (g, w) in enumerate(zip(got, want, strict=True)):
        # the first steps differ by rounding alone; momentum then grows it (on an AVX-512 AMD
        # EPYC: under 4e-7 to step 14, then 4e-6, 1.3e-5, 2.3e-5, 5.6e-5 and 2e-4 at step 19)
        assert abs(g - w) <= (1e-5 if step < 15 else 1e-3) * abs(w), f"step {step}: {g} vs eager {w}"
    for (name, b), (_, e) in zip(model.named_buffers(), eager.named_buffers(), strict=True):
        # the statistics follow the weights' drift (at most 2.2e-4 on values up to 0.5 there)
        torch.testing.assert_close(b, e, rtol=1e-3, atol=5e-4, msg=f"buffer {name}")
    graphs = torch_compile.reports()
    assert sorted(r.kind for r in graphs) == ["backward", "forward"], torch_compile.report()
    assert all(len(r.pieces) == 1 and r.pieces[0].runs_on == "iree" and not r.eager_ops for r in graphs), torch_compile.report()


@pytest.mark.parametrize("backend", ["interpreter", pytest.param("iree", marks=needs_iree)])
def test_graph_of_strided_inputs_is_imported(backend: str) -> None:
    """
    A backward graph takes saved activations laid out as the forward left them
    (channels-last here), and a `view` of a pointwise result over one is legal only
    in that layout (the result follows its input's strides): the importer's stand-in
    inputs keep the example's strides, so the graph compiles (ConvNeXt's layer-scale
    gradient ran in eager torch before) and matches eager.
    """
    from xdsl_exir.tools.torch_compile import BackendOptions, compile_fx_graph

    def f(a: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor]:
        y = torch.ops.aten.mul.Tensor(torch.ops.aten.permute.default(a, [0, 2, 3, 1]), w)
        return (torch.ops.aten.view.default(y, [-1, 8]),)

    gm = torch.fx.symbolic_trace(f)
    a = torch.randn(2, 8, 3, 3).to(memory_format=torch.channels_last)
    w = torch.randn(8)
    fn = compile_fx_graph(gm, [a, w], BackendOptions(backend=backend, threads=1), "backward")
    assert [p.runs_on for r in torch_compile.reports() for p in r.pieces] == [backend], torch_compile.report()
    torch.testing.assert_close(fn([a, w])[0], f(a, w)[0], rtol=0, atol=0)


# ---------------------------------------------------------------------------
# Graph breaks, refused operators, dynamic shapes
# ---------------------------------------------------------------------------


def test_graph_break_compiles_both_pieces(capsys: pytest.CaptureFixture[str]) -> None:
    def f(x: torch.Tensor) -> torch.Tensor:
        y = torch.sin(x) * 2
        print("between the pieces")
        return torch.cos(y) + 1

    x = torch.randn(3, 4)
    got = _compiled(f, "interpreter")(x)
    assert "between the pieces" in capsys.readouterr().out
    torch.testing.assert_close(got, f(x))
    graphs = torch_compile.reports()
    assert len(graphs) == 2 and all(p.runs_on == "interpreter" for r in graphs for p in r.pieces)


def test_refused_operator_runs_eager_rest_native(caplog: pytest.LogCaptureFixture) -> None:
    """An operator without a kernel (the `aten.mkldnn_rnn_layer` of a CPU LSTM) runs eagerly; the rest does not."""

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(4, 6)
            self.rnn = nn.GRU(6, 5, batch_first=True)
            self.lstm = nn.LSTM(5, 3, batch_first=True)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y, _ = self.lstm(self.rnn(torch.tanh(self.fc(x)))[0])
            return y.sum(-1) * 2

    torch.manual_seed(0)
    model = Model().eval()
    x = torch.randn(2, 5, 4)
    with torch.no_grad(), torch._dynamo.config.patch(allow_rnn=True), caplog.at_level(logging.INFO, "xdsl_exir.torch_compile"):
        got = _compiled(model, "interpreter")(x)
        want = model(x)
    torch.testing.assert_close(got, want)
    (graph,) = torch_compile.reports()
    assert set(graph.eager_ops) == {"aten.mkldnn_rnn_layer.default"}
    native = sum(p.nodes for p in graph.pieces if p.runs_on == "interpreter")
    assert native > sum(p.nodes for p in graph.pieces if p.runs_on == "eager")
    assert "aten.mkldnn_rnn_layer.default" in caplog.text and "aten.mkldnn_rnn_layer.default" in torch_compile.report()


def test_refused_operator_with_dynamic_sizes() -> None:
    """Partitioned and dynamic: each piece serves both batch sizes (symbolic, or specialized per shape when
    shape-propagation cannot type Dynamo's SymInt arithmetic, which the report says)."""

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(4, 6)
            self.lstm = nn.LSTM(6, 3, batch_first=True)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.lstm(torch.tanh(self.fc(x)))[0].sum(-1) * 2

    torch.manual_seed(0)
    model = Model().eval()
    with torch.no_grad(), torch._dynamo.config.patch(allow_rnn=True):
        compiled = _compiled(model, "interpreter", dynamic=True)
        for batch in (2, 5):
            x = torch.randn(batch, 5, 4)
            torch.testing.assert_close(compiled(x), model(x))
    (graph,) = torch_compile.reports()
    assert graph.dynamic and set(graph.eager_ops) == {"aten.mkldnn_rnn_layer.default"}, torch_compile.report()


@pytest.mark.parametrize("backend", ["interpreter", pytest.param("iree", marks=needs_iree)])
def test_dynamic_batch_compiles_once(backend: str) -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 4)).eval()
    compiled = _compiled(model, backend, dynamic=True)
    with torch.no_grad():
        for batch in (3, 7):
            x = torch.randn(batch, 8)
            torch.testing.assert_close(compiled(x), model(x))
    (graph,) = torch_compile.reports()
    assert graph.dynamic and all(p.runs_on == backend for p in graph.pieces), torch_compile.report()


def test_dynamic_training_compiles_once() -> None:
    """Forward and backward with symbolic sizes: three batch sizes, gradients as eager's, one compilation each."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 4))
    eager = copy.deepcopy(model)
    compiled = _compiled(model, "interpreter", dynamic=True)
    for batch in (3, 7, 11):
        x = torch.randn(batch, 8)
        compiled(x).square().mean().backward()
        eager(x).square().mean().backward()
        for got, want in zip(model.parameters(), eager.parameters(), strict=True):
            torch.testing.assert_close(got.grad, want.grad)
    assert [(r.kind, r.dynamic) for r in torch_compile.reports()] == [("forward", True), ("backward", True)]


def test_options_are_checked() -> None:
    with pytest.raises(Exception, match="unknown option 'thread'"):
        torch.compile(nn.Linear(2, 2), backend="exir", options={"thread": 1})(torch.ones(1, 2))
    with pytest.raises(Exception, match="use 'iree' or 'interpreter'"):
        torch.compile(nn.Linear(2, 2), backend="exir", options={"backend": "tvm"})(torch.ones(1, 2))


def test_entry_point_registers_the_backend() -> None:
    from importlib.metadata import entry_points

    (ep,) = [e for e in entry_points(group="torch_dynamo_backends") if e.name == "exir"]
    assert ep.load() is torch_compile.exir_backend
    assert "exir" in torch._dynamo.list_backends()


def test_outputs_share_memory_and_keep_dtypes() -> None:
    """int64, bool and float64 outputs come back with eager's dtypes; scalars as eager gives them."""

    def f(x: torch.Tensor, i: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return x.double() * 2, i // 3, x > 0

    x, i = torch.randn(5), torch.arange(-4, 6)
    _assert_same(_compiled(f, "interpreter")(x, i), f(x, i), 0, 0)


# ---------------------------------------------------------------------------
# The fast call path: tensors as views of their memory, kept across calls
# ---------------------------------------------------------------------------


def _count_imports(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many tensors IREE is handed as views of their own memory (a one-element counter)."""
    from xdsl_exir.targets.iree import IreeExecutor

    count = [0]
    original = IreeExecutor.import_dlpack

    def counting(self: IreeExecutor, tensor: Any) -> Any:
        count[0] += 1
        return original(self, tensor)

    monkeypatch.setattr(IreeExecutor, "import_dlpack", counting)
    return count


@needs_iree
def test_weights_changed_in_place_are_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    """
    IREE reads the weights in place: each is imported once, its view kept, and
    every way of changing one is seen at the next call: an in-place op, `.data`
    (which bumps no version counter), a numpy view, a new tensor assigned to
    `.data` (new memory: imported again), the same memory under another layout
    (Dynamo recompiles), the input itself changed in place.
    """
    torch.manual_seed(0)
    first, second = nn.Linear(16, 32), nn.Linear(32, 8)
    model = nn.Sequential(first, nn.ReLU(), second)
    x = torch.randn(4, 16)
    compiled = _compiled(model, "iree")
    imports = _count_imports(monkeypatch)
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-5, atol=1e-6)
        assert imports[0] == 5, "the first call did not hand IREE its four weights and input in place"
        for _ in range(3):
            torch.testing.assert_close(compiled(x), model(x), rtol=1e-5, atol=1e-6)
        assert imports[0] == 5 + 3, "the weights were imported again though their memory did not move"
        assert "iree" in {p.runs_on for r in torch_compile.reports() for p in r.pieces}
        weight = second.weight.data
        changes: list[Callable[[], Any]] = [
            lambda: first.weight.mul_(2),
            lambda: first.bias.data.add_(1),
            lambda: second.weight.detach().numpy().__setitem__(slice(None), 0.25),
            lambda: setattr(second.bias, "data", torch.randn(8)),
            lambda: x.add_(1),
            lambda: setattr(second.weight, "data", torch.randn(8, 32)),
            lambda: setattr(second.weight, "data", weight),  # back to the first memory
            lambda: weight.sub_(0.5),
            lambda: setattr(first.weight, "data", first.weight.data.t().contiguous().t()),  # other strides
            lambda: setattr(second.weight, "data", weight.t().contiguous().t()),
            lambda: second.weight.add_(1),  # not C-contiguous: copied for each call, so seen too
        ]
        for change in changes:
            change()
            for _ in range(2):
                torch.testing.assert_close(compiled(x), model(x), rtol=1e-5, atol=1e-6)


@needs_iree
def test_weights_iree_cannot_read_in_place_are_copied_at_each_call() -> None:
    """A weight at an address IREE cannot import (a view at an odd offset) is copied for each call, never kept."""
    torch.manual_seed(0)
    model = nn.Linear(16, 8)
    storage = torch.randn(8 * 16 + 1)
    with torch.no_grad():
        model.weight.data = storage[1:].view(8, 16)
    x = torch.randn(4, 16)
    compiled = _compiled(model, "iree")
    with torch.no_grad():
        for _ in range(2):
            torch.testing.assert_close(compiled(x), model(x), rtol=1e-5, atol=1e-6)
        storage.mul_(-1)
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-5, atol=1e-6)
    assert "iree" in {p.runs_on for r in torch_compile.reports() for p in r.pieces}


@needs_iree
def test_outputs_never_alias_inputs() -> None:
    """IREE may return an argument it found unchanged (`x * 1`): the output is still a new tensor, as in eager."""

    def f(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return x * 1, x + 0, torch.relu(x)

    x = torch.randn(8, 16)
    compiled = _compiled(f, "iree")
    for _ in range(2):
        outs = compiled(x)
        _assert_same(outs, f(x), 0, 0)
        for out in outs:
            assert out.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    outs[0].fill_(7.0)
    assert not (x == 7.0).any()


@needs_iree
def test_unaligned_and_strided_inputs() -> None:
    """A tensor at an offset not aligned for IREE, and a transposed one, are copied for the call, not misread."""
    torch.manual_seed(0)
    model = nn.Linear(16, 8)
    compiled = _compiled(model, "iree")
    base = torch.randn(4 * 16 + 1)
    unaligned = base[1:].view(4, 16)
    strided = torch.randn(16, 4).t()
    with torch.no_grad():
        for x in (unaligned, unaligned, strided, strided):
            torch.testing.assert_close(compiled(x), model(x), rtol=1e-5, atol=1e-6)
        base.add_(1)  # the unaligned input changed through its base
        torch.testing.assert_close(compiled(unaligned), model(unaligned), rtol=1e-5, atol=1e-6)


@needs_iree
def test_negative_views_are_materialized() -> None:
    """A contiguous view with torch's negative bit (its memory holds -x): DLPack would drop the sign."""

    def f(x: torch.Tensor) -> torch.Tensor:
        return x * 2 + 1

    x = torch.randn(4, 16)
    negative = torch._neg_view(x)  # the one way to make a contiguous negative view
    assert negative.is_neg() and negative.is_contiguous()
    compiled = _compiled(f, "iree")
    for _ in range(2):
        torch.testing.assert_close(compiled(negative), f(negative.resolve_neg()))


@needs_iree
def test_dtypes_through_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """bool, uint8, int64 and float64 tensors cross both ways in place with eager's dtypes; int8 and float16 too."""

    def f(x: torch.Tensor, i: torch.Tensor, m: torch.Tensor, u: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return x.double() * 2, i // 3, x > 0, (u + 1) * m, (i % 7).to(torch.int8), x.half() + 1, m & (x < 1)

    x, i = torch.randn(10), torch.arange(-4, 6)
    m, u = i > -2, torch.arange(250, 260).to(torch.uint8)
    compiled = _compiled(f, "iree")
    imports = _count_imports(monkeypatch)
    for _ in range(2):
        _assert_same(compiled(x, i, m, u), f(x, i, m, u), 0, 0)
    assert imports[0] == 8, "the calls did not hand IREE their tensors in place"
