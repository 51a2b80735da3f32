"""
The recurrent modules as torch 2.13's default `torch.export.export` records them
(`aten.lstm.input`, `gru.input`, `rnn_tanh.input`, `rnn_relu.input`, and the
single-step cells): the interpreter runs them through their decomposition, and
`to-core-aten` unrolls them into core ATen; both agree with torch eager, for
stacked, bidirectional, batch-first, bias-free and projected variants.
"""

from __future__ import annotations

from typing import Any

import pass_harness as ph
import pytest

from xdsl_exir.transforms.verify_export_ir import VerifyExportIRPass

torch = pytest.importorskip("torch")


def _module(kind: str, **kw: Any) -> Any:
    nn = torch.nn
    rnn = {"lstm": nn.LSTM, "gru": nn.GRU, "rnn_tanh": nn.RNN, "rnn_relu": nn.RNN}[kind]
    if kind == "rnn_relu":
        kw["nonlinearity"] = "relu"
    return rnn(5, 6, **kw)


class Seq(torch.nn.Module):
    """The module's whole output: sequence and final states (given initial states when `with_state`)."""

    def __init__(self, rnn: Any, with_state: bool) -> None:
        super().__init__()
        self.rnn, self.with_state = rnn, with_state

    def forward(self, x: Any, *state: Any) -> Any:
        out, final = self.rnn(x, *state) if self.with_state else self.rnn(x)
        return (out, *final) if isinstance(final, tuple) else (out, final)


VARIANTS = [
    ("lstm", {}),
    ("lstm", {"num_layers": 2, "batch_first": True}),
    ("lstm", {"num_layers": 2, "bidirectional": True}),
    ("lstm", {"bias": False, "bidirectional": True, "batch_first": True}),
    ("lstm", {"proj_size": 3, "num_layers": 2}),
    ("gru", {}),
    ("gru", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    ("gru", {"bias": False}),
    ("rnn_tanh", {"num_layers": 3, "bidirectional": True}),
    ("rnn_relu", {"batch_first": True, "bias": False}),
]


def _state(kind: str, kw: dict[str, Any], batch: int, gen: Any) -> list[Any]:
    layers = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    hidden = kw.get("proj_size") or 6
    h = torch.randn(layers, batch, hidden, generator=gen)
    if kind == "lstm":
        return [h, torch.randn(layers, batch, 6, generator=gen)]
    return [h]


def _check(model: Any, args: tuple[Any, ...], op: str) -> None:
    from xdsl_exir.frontends.torch_live import import_exported_program

    ep = torch.export.export(model, args)
    assert any(str(n.target) == op for n in ep.graph.nodes), f"export did not record {op}"
    module = import_exported_program(ep)
    xs = [a.numpy() for a in args]
    with torch.no_grad():
        want = [w.numpy() for w in model(*args)]
    ph.assert_same_outputs(ph.run(module, xs), want, rtol=1e-5, atol=1e-6)
    after = ph.apply(module, "to-core-aten")
    VerifyExportIRPass(dialect="core").apply(ph.context(), after)
    ph.assert_same_outputs(ph.run(after, xs), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("with_state", [False, True])
@pytest.mark.parametrize("kind,kw", VARIANTS, ids=[f"{k}-{'-'.join(f'{a}={b}' for a, b in kw.items())}" for k, kw in VARIANTS])
def test_module_matches_eager_before_and_after_to_core_aten(kind: str, kw: dict[str, Any], with_state: bool) -> None:
    gen = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    rnn = _module(kind, **kw)
    x = torch.randn(3, 4, 5, generator=gen)  # (seq, batch) or (batch, seq)
    batch = 3 if kw.get("batch_first") else 4
    if not with_state:
        model, args = Seq(rnn, False), (x,)
    elif kind == "lstm":
        model, args = _LSTMWithState(rnn), (x, *_state(kind, kw, batch, gen))
    else:
        model, args = Seq(rnn, True), (x, *_state(kind, kw, batch, gen))
    _check(model.eval(), args, f"aten.{kind}.input")


class _LSTMWithState(torch.nn.Module):
    def __init__(self, rnn: Any) -> None:
        super().__init__()
        self.rnn = rnn

    def forward(self, x: Any, h: Any, c: Any) -> Any:
        out, (hn, cn) = self.rnn(x, (h, c))
        return out, hn, cn


class _Cell(torch.nn.Module):
    def __init__(self, cell: Any, two_states: bool) -> None:
        super().__init__()
        self.cell, self.two = cell, two_states

    def forward(self, x: Any, h: Any, c: Any) -> Any:
        if self.two:
            return self.cell(x, (h, c))
        return (self.cell(x, h),)


CELLS = [("lstm_cell", {}), ("lstm_cell", {"bias": False}), ("gru_cell", {}), ("rnn_tanh_cell", {}),
         ("rnn_relu_cell", {"bias": False})]


@pytest.mark.parametrize("kind,kw", CELLS, ids=[f"{k}-{kw}" for k, kw in CELLS])
def test_cell_matches_eager(kind: str, kw: dict[str, Any]) -> None:
    nn = torch.nn
    torch.manual_seed(1)
    cell = {"lstm_cell": nn.LSTMCell, "gru_cell": nn.GRUCell, "rnn_tanh_cell": nn.RNNCell,
            "rnn_relu_cell": nn.RNNCell}[kind]
    if kind == "rnn_relu_cell":
        kw = {**kw, "nonlinearity": "relu"}
    model = _Cell(cell(5, 6, **kw), kind == "lstm_cell").eval()
    args = (torch.randn(4, 5), torch.randn(4, 6), torch.randn(4, 6))
    _check(model, args, f"aten.{kind}.default")


def test_edge_values_propagate_as_in_eager() -> None:
    """NaN and infinities in the input reach the outputs as eager's do (saturated gates, NaN rows)."""
    torch.manual_seed(2)
    model = Seq(_module("lstm", num_layers=2), False).eval()
    x = torch.randn(3, 2, 5)
    x[0, 0, 1] = float("nan")
    x[1, 1, 2] = float("inf")
    x[2, 1, 3] = -float("inf")
    _check(model, (x,), "aten.lstm.input")


def test_to_core_aten_refusal_says_why_and_where_to_look() -> None:
    """A call whose rule does not apply (a training-mode dropout between layers draws random masks)
    and a call with no rule at all are named by to-core-aten itself, with the reason, pointing at
    the coverage list rather than back at to-core-aten."""
    from xdsl.utils.exceptions import PassFailedException

    from xdsl_exir.frontends.torch_live import import_exported_program

    class Det(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            return torch.linalg.det(x)

    torch.manual_seed(3)
    cases = [
        (Seq(_module("gru", num_layers=2, dropout=0.5), False).train(), torch.randn(3, 2, 5), "aten.gru.input",
         "its decomposition does not apply to these arguments"),
        (Det(), torch.randn(3, 3), "aten.linalg_det.default", "it has no decomposition to core ATen yet"),
    ]
    for model, x, name, why in cases:
        module = import_exported_program(torch.export.export(model, (x,)))
        with pytest.raises(PassFailedException) as info:
            ph.apply(module, "to-core-aten")
        text = str(info.value)
        assert f"'{name}' is not a core ATen operator and {why}" in text, text
        assert "aten_coverage.txt" in text and "run to-core-aten" not in text
