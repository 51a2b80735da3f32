"""
Edge values the OpInfo samples do not reach, run through the executors of the
conformance suite (`tests/conformance/harness.py`) and compared with eager
PyTorch the same way: each case is a small module whose inputs are the given
tensors, traced by torch.export. The lowering runs in xDSL's interpreter here
(IREE compiles each program once more: the sweep covers it).

Only answers eager gives on every CPU are asked for: where torch's vectorised
and scalar loops disagree (which one an element takes depends on the CPU's
vector width), the inputs stay clear of the disagreement.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Sequence
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("expecttest")  # torch's OpInfo database, which the harness imports, needs them
pytest.importorskip("hypothesis")

import torch
from conformance import harness

EXECUTORS = ("interp", "core", "linalg", "ts", "python")

INF = float("inf")


def _run(name: str, fn: Callable[..., Any], tensors: Sequence[torch.Tensor], executors: Sequence[str] = EXECUTORS) -> None:
    """`fn(*tensors)` through `executors`, each compared with eager (the sign of zero included)."""
    op = types.SimpleNamespace(op=fn, name=name, variant_test_name="", decorators=[])
    sample = harness.Sample("float32/0", list(tensors), lambda t: (t[0], tuple(t[1:]), {}))
    traced = harness.trace(op, sample)
    assert not traced.skip, traced.skip
    with pytest.MonkeyPatch.context() as patch:  # compared as an elementwise OpInfo: the sign of zero too
        patch.setattr(harness, "ELEMENTWISE", harness.ELEMENTWISE | {name})
        outcomes = harness.run_sample(op, traced, [e for e in harness.EXECUTORS if e in executors])
    failed = [f"{o.executor}: {o.kind}: {o.detail}" for o in outcomes if o.status != "agree"]
    assert not failed, "\n".join(failed)


CASES: dict[str, tuple[Callable[..., Any], list[torch.Tensor]]] = {
    # ATen's fused add-and-clamp caps the sum at the largest finite float (an inf or overflowing sum
    # included), where add then relu gives inf. (A NaN or -0.0 sum is 0 in torch's scalar loop and
    # kept in its vectorised one: not asked.)
    "add_relu_caps_at_the_largest_float": (
        lambda a, b: torch.ops.aten._add_relu(a, b),
        [torch.tensor([3e38, INF, 1.0, -3e38, 2.0, -INF]), torch.tensor([3e38, 1.0, INF, -3e38, -1.0, 5.0])],
    ),
    "add_relu_float64_with_alpha": (
        lambda a, b: torch.ops.aten._add_relu(a, b, alpha=2.0),
        [torch.tensor([1e308, INF, 1.0, -1.0], dtype=torch.float64), torch.tensor([1e308, 1.0, 0.25, 0.25], dtype=torch.float64)],
    ),
    # float32 GELU of more than one element, as torch's vectorised loop: NaN at +inf, inf above 1.7e38.
    "gelu_float32_overflows_as_torchs_vectorised_loop": (
        torch.nn.functional.gelu,
        [torch.tensor([INF, -INF, float("nan"), 3e38, -3e38, 2e38, 1.7e38, 0.0, -0.0, 1.0])],
    ),
    # a single element takes torch's scalar loop, which computes in double: inf at +inf, finite below
    "gelu_float32_single_element": (torch.nn.functional.gelu, [torch.tensor([3e38])]),
    # replicate padding of a 1-d signal: F.pad's replication_pad1d, reached through to-core-aten
    "pad_replicate_1d": (
        lambda x: torch.nn.functional.pad(x, (2, 1), mode="replicate"),
        [torch.tensor([[1.0, float("nan"), -0.0, INF], [2.0, -1.0, 0.5, -INF]])],
    ),
    "replication_pad1d_batched": (lambda x: torch.ops.aten.replication_pad1d(x, [0, 3]), [torch.randn(2, 3, 4)]),
    # torch.divide / subtract / multiply (aliases of div, sub, mul) of a float and an int64 tensor:
    # to-core-aten renames them, and the promotion they imply is allowed as it is for div, sub, mul
    "divide_subtract_multiply_promote": (
        lambda x, n: (torch.divide(x, n), torch.subtract(x, n, alpha=2), torch.multiply(n, x)),
        [torch.tensor([1.5, -0.0, INF, 7.0]), torch.tensor([2, -3, 0, 1])],
    ),
    "add_relu_integers_wrap_then_clamp": (
        lambda a, b: torch.ops.aten._add_relu(a, b),
        [torch.tensor([2**62, -5, 7, 2**63 - 1]), torch.tensor([2**62, 1, -7, 1])],
    ),
}


class _ChannelsLastState(torch.nn.Module):
    """as_strided of a channels-last weight and buffer reads their storage, in (N, H, W, C) order."""

    def __init__(self) -> None:
        super().__init__()
        w = torch.arange(24.0).reshape(1, 2, 3, 4).contiguous(memory_format=torch.channels_last)
        self.w = torch.nn.Parameter(w, requires_grad=False)
        self.register_buffer("b", -w.clone(memory_format=torch.channels_last))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.as_strided(self.w, (2, 3), (1, 2)) + torch.as_strided(self.b, (3, 2), (2, 3), 1).t() + x


_CHANNELS_LAST = _ChannelsLastState()
CASES["as_strided_of_channels_last_state"] = (_CHANNELS_LAST, [torch.zeros(2, 3)])  # a submodule: its state is lifted
NOT_RUN = {"as_strided_of_channels_last_state": {"ts": "TorchScript tensor constants carry no strides yet"}}
"""Executors a case leaves out, with the reason (a refusal or wrong value the case would find)."""


@pytest.mark.parametrize("name", sorted(CASES))
def test_edge_values_agree_with_eager(name: str) -> None:
    fn, tensors = CASES[name]
    _run(name, fn, tensors, [e for e in EXECUTORS if e not in NOT_RUN.get(name, {})])



def test_as_strided_of_unfold_is_refused_after_to_core_aten_not_copied() -> None:
    """
    `unfold` is a view: as_strided of it reads the storage of its input. The
    interpreter's view kernel does so; to-core-aten's unfold rule gathers the
    windows into a copy, so where an as_strided reads them it declines and the
    program is refused (torch-mlir's e2e case: [[0, 1], [2, 3]], the copy read
    [[0, 1], [2, 2]]).
    """
    fn = lambda x: torch.as_strided(x.unfold(0, 3, 2), (2, 2), (2, 1))  # noqa: E731 - the case's program
    _run("as_strided_of_unfold", fn, [torch.arange(10.0)], ("interp", "ts", "python"))
    op = types.SimpleNamespace(op=fn, name="as_strided_of_unfold", variant_test_name="", decorators=[])
    sample = harness.Sample("float32/0", [torch.arange(10.0)], lambda t: (t[0], (), {}))
    (core,) = harness.run_sample(op, harness.trace(op, sample), ["core"])
    assert (core.status, core.kind) == ("fail", "refused"), core
    assert "aten.unfold.default" in core.detail
