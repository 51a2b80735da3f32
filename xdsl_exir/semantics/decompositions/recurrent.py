"""Decompositions of the recurrent modules: `lstm`, `gru`, `rnn_tanh`, `rnn_relu`.

torch 2.13's default `torch.export.export` keeps `nn.LSTM`, `nn.GRU` and
`nn.RNN` as one `aten.lstm.input` (`gru.input`, `rnn_tanh.input`,
`rnn_relu.input`) call; `run_decompositions()` unrolls it over the sequence
with the formulas of `torch/_decomp/decompositions.py` (`_rnn_helper`,
`one_layer_rnn`, `one_layer_lstm` and the cells). The rules here unroll the
same way, over the static sequence length the IR's types give: per layer and
direction, the input projection `linear(x, w_ih, b_ih)` for all steps at once,
then one cell per step on its row, the step outputs concatenated
(reversed for the backward direction), directions concatenated on the
feature dimension, and the final states stacked layer by layer.

Dropout between layers in training mode is random: those calls are left alone
(to-core-aten then names them). A symbolic sequence length cannot be unrolled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.exir import GetItemOp
from xdsl_exir.semantics.decompositions.core import Decline, Emitter, op_name, rule, tensor_of
from xdsl_exir.semantics.inference import Bound

Cell = Callable[[Emitter, SSAValue, list[SSAValue], Sequence[SSAValue | None]], list[SSAValue]]
"""One step: (emitter, projected input row [B, G*H], states [1, B, H]..., weights) -> new states."""


def _lin(e: Emitter, x: SSAValue, w: SSAValue | None, bias: SSAValue | None) -> SSAValue:
    assert w is not None
    return e.v("aten.linear.default", x, w, bias)


def _chunks(e: Emitter, x: SSAValue, n: int, dim: int) -> list[SSAValue]:
    t = tensor_of(x)
    total = t.sizes[dim]
    if not isinstance(total, int) or total % n:
        raise Decline()
    pieces = e.v("aten.split_with_sizes.default", x, [total // n] * n, dim)
    return [e.insert(GetItemOp(pieces, i)).results[0] for i in range(n)]


def _lstm_cell(e: Emitter, row: SSAValue, state: list[SSAValue], w: Sequence[SSAValue | None]) -> list[SSAValue]:
    """torch/_decomp `lstm_cell`: gates i, f, g, o from `linear(h) + row`; `c' = f*c + i*g`, `h' = o*tanh(c')`,
    then the projection `w_hr` when the module has one."""
    hx, cx = state
    _, w_hh, _, b_hh, w_hr = w
    gates = e.v("aten.add.Tensor", _lin(e, hx, w_hh, b_hh), row)
    i, f, g, o = _chunks(e, gates, 4, 2)
    i, f, o = (e.v("aten.sigmoid.default", v) for v in (i, f, o))
    g = e.v("aten.tanh.default", g)
    cy = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", f, cx), e.v("aten.mul.Tensor", i, g))
    hy = e.v("aten.mul.Tensor", o, e.v("aten.tanh.default", cy))
    if w_hr is not None:
        hy = _lin(e, hy, w_hr, None)
    return [hy, cy]


def _gru_cell(e: Emitter, row: SSAValue, state: list[SSAValue], w: Sequence[SSAValue | None]) -> list[SSAValue]:
    """torch/_decomp `gru_cell`: reset and update gates from the summed projections, the new gate
    `tanh(i_n + r * h_n)`, and `(h - n) * z + n`."""
    (h,) = state
    _, w_hh, _, b_hh, _ = w
    i_r, i_z, i_n = _chunks(e, row, 3, 1)
    h_r, h_z, h_n = _chunks(e, _lin(e, h, w_hh, b_hh), 3, 2)
    r = e.v("aten.sigmoid.default", e.v("aten.add.Tensor", h_r, i_r))
    z = e.v("aten.sigmoid.default", e.v("aten.add.Tensor", h_z, i_z))
    n = e.v("aten.tanh.default", e.v("aten.add.Tensor", i_n, e.v("aten.mul.Tensor", h_n, r)))
    return [e.v("aten.add.Tensor", e.v("aten.mul.Tensor", e.v("aten.sub.Tensor", h, n), z), n)]


def _rnn_cell(activation: str) -> Cell:
    def cell(e: Emitter, row: SSAValue, state: list[SSAValue], w: Sequence[SSAValue | None]) -> list[SSAValue]:
        (h,) = state
        _, w_hh, _, b_hh, _ = w
        return [e.v(activation, e.v("aten.add.Tensor", _lin(e, h, w_hh, b_hh), row))]

    return cell


def _row(e: Emitter, x: SSAValue, i: int) -> SSAValue:
    """`x[i]` as torch's decompositions take it when they iterate a tensor (`unbind`): a
    one-row `slice`, squeezed."""
    return e.v("aten.squeeze.dims", e.v("aten.slice.Tensor", x, 0, i, i + 1), [0])


def _layer(
    e: Emitter, x: SSAValue, state: list[SSAValue], w: Sequence[SSAValue | None], cell: Cell, reverse: bool
) -> tuple[SSAValue, list[SSAValue]]:
    """One layer in one direction over `x` [T, B, I]: (outputs [T, B, H], final states [B, H] each)."""
    w_ih, _, b_ih, _, _ = w
    steps = tensor_of(x).sizes[0]
    if not isinstance(steps, int) or steps == 0:
        raise Decline()
    projected = _lin(e, x, w_ih, b_ih)
    if reverse:
        projected = e.v("aten.flip.default", projected, [0])
    cur = [e.v("aten.unsqueeze.default", s, 0) for s in state]
    outputs: list[SSAValue] = []
    for t in range(steps):
        cur = cell(e, _row(e, projected, t), cur, w)
        outputs.append(cur[0])
    if reverse:
        outputs.reverse()
    out = e.v("aten.cat.default", outputs, 0)
    return out, [e.v("aten.squeeze.dims", s, [0]) for s in cur]


def _unroll(
    e: Emitter, b: Bound, states: list[SSAValue], cell: Cell, projections: bool
) -> list[SSAValue]:
    """torch/_decomp `_rnn_helper`: layers and directions in order; returns the output and each
    kind of final state stacked over layers and directions."""
    x = cast(SSAValue, b["input"])
    params = cast(list[SSAValue], b["params"])
    has_biases, layers = bool(b["has_biases"]), b.int("num_layers")
    bidirectional, batch_first = bool(b["bidirectional"]), bool(b.get("batch_first", False))
    if b.get("train") and b.get("dropout") and layers > 1:
        raise Decline()  # dropout between layers draws random masks
    if any(tensor_of(s).rank != 3 for s in states) or tensor_of(x).rank != 3:
        raise Decline()  # unbatched input: export gives it batched
    group = 2 + 2 * has_biases + projections
    directions = 2 if bidirectional else 1
    if len(params) != group * layers * directions:
        raise Decline()
    weights: list[tuple[SSAValue | None, ...]] = []
    for k in range(layers * directions):
        p = params[k * group : (k + 1) * group]
        w_ih, w_hh = p[0], p[1]
        b_ih, b_hh = (p[2], p[3]) if has_biases else (None, None)
        w_hr = p[-1] if projections else None
        weights.append((w_ih, w_hh, b_ih, b_hh, w_hr))
    if batch_first:
        x = e.v("aten.transpose.int", x, 0, 1)
    finals: list[list[SSAValue]] = [[] for _ in states]
    for layer in range(layers):
        outs: list[SSAValue] = []
        for d in range(directions):
            k = layer * directions + d
            start = [_row(e, s, k) for s in states]
            out, final = _layer(e, x, start, weights[k], cell, reverse=d == 1)
            outs.append(out)
            for acc, f in zip(finals, final):
                acc.append(f)
        x = outs[0] if directions == 1 else e.v("aten.cat.default", outs, 2)
    if batch_first:
        x = e.v("aten.transpose.int", x, 0, 1)
    return [x, *(e.v("aten.stack.default", f, 0) for f in finals)]


@rule("aten.lstm.input")
def _lstm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    hx = cast(list[SSAValue], b["hx"])
    if len(hx) != 2:
        raise Decline()
    projections = tensor_of(hx[0]).sizes[-1] != tensor_of(hx[1]).sizes[-1]
    return _unroll(e, b, list(hx), _lstm_cell, projections)


_CELLS: dict[str, Cell] = {
    "aten.gru.input": _gru_cell,
    "aten.rnn_tanh.input": _rnn_cell("aten.tanh.default"),
    "aten.rnn_relu.input": _rnn_cell("aten.relu.default"),
}


@rule(*_CELLS)
def _gru_rnn(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    hx = b.value("hx")
    return _unroll(e, b, [hx], _CELLS[op_name(op)], False)


_STEP_CELLS: dict[str, tuple[Cell, int]] = {
    "aten.lstm_cell.default": (_lstm_cell, 2),
    "aten.gru_cell.default": (_gru_cell, 1),
    "aten.rnn_tanh_cell.default": (_rnn_cell("aten.tanh.default"), 1),
    "aten.rnn_relu_cell.default": (_rnn_cell("aten.relu.default"), 1),
}
"""The single-step cells (`nn.LSTMCell`, ...) and how many state tensors each carries."""


@rule(*_STEP_CELLS)
def _step_cell(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """One step of a cell module: the same cell formula as the unrolled modules, on the input
    projected by `linear(input, w_ih, b_ih)` and the states given a unit step dimension."""
    cell, count = _STEP_CELLS[op_name(op)]
    x = b.value("input")
    hx = b["hx"]
    states = cast(list[SSAValue], hx) if isinstance(hx, list) else [cast(SSAValue, hx)]
    if len(states) != count or tensor_of(x).rank != 2 or any(tensor_of(s).rank != 2 for s in states):
        raise Decline()  # unbatched cells: the module adds the batch dimension before the call
    w = (b.value("w_ih"), b.value("w_hh"), b.get("b_ih"), b.get("b_hh"), None)
    w = tuple(v if isinstance(v, SSAValue) else None for v in w)
    row = _lin(e, x, w[0], w[2])
    new = cell(e, row, [e.v("aten.unsqueeze.default", s, 0) for s in states], w)
    return [e.v("aten.squeeze.dims", s, [0]) for s in new]
