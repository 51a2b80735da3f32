"""
The fast subset of the OpInfo conformance suite (`tests/conformance/`): a few
dozen representative OpInfos of torch's `op_db`, each sample traced with
`torch.export` and run by the interpreter as exported, after `to-core-aten`, by
the TorchScript runner and by the `--emit python` module; a handful also
through the linalg lowering (xDSL's interpreter) and IREE. Every output is
compared with eager PyTorch and every failure must be one the expected-failure
table lists, with the same kind; a listed failure that now agrees fails too.
The whole database: `python scripts/conformance_sweep.py`.
"""

from __future__ import annotations

import importlib.util

import pytest

pytest.importorskip("torch")
pytest.importorskip("expecttest")  # torch's OpInfo database imports them
pytest.importorskip("hypothesis")

from conformance import harness, table  # after the skips: the module skips without torch

FAST = [
    "add", "mul", "div.no_rounding_mode", "remainder", "pow", "abs", "exp", "log", "sigmoid",
    "nn.functional.relu", "nn.functional.gelu", "nn.functional.softshrink", "clamp", "where", "sum", "amax",
    "argmax", "softmax", "matmul", "cat", "index_select", "cumsum", "eq", "bitwise_and", "nn.functional.dropout",
]  # fmt: skip
"""OpInfos run by the interpreter (as exported and after to-core-aten), the TorchScript runner and Python."""

LOWERED = ["add", "nn.functional.relu", "sum", "where"]
"""OpInfos also run through the linalg lowering and IREE (float32: the first sample and the edge sample)."""

MAX_SAMPLES = 1


def _has_iree() -> bool:
    return importlib.util.find_spec("iree.compiler") is not None and importlib.util.find_spec("iree.runtime") is not None


@pytest.fixture(scope="module")
def opinfos() -> dict[str, object]:
    return harness.opinfos_by_name()


@pytest.fixture(scope="module")
def rows() -> list[table.Row]:
    return table.read()


def _check(outcomes: list[harness.Outcome], rows: list[table.Row]) -> None:
    verdicts = table.judge(outcomes, rows)
    problems = [
        f"{v.status}: {v.outcome.executor} {v.outcome.opinfo} {v.outcome.sample_id}: "
        + (f"agrees, but the table expects '{v.row.reason}'" if v.row else table.reason_of(v.outcome))
        for v in verdicts
        if v.status in ("wrong", "error", "xpass")
    ]
    assert not problems, "\n".join(problems)
    assert any(v.status in ("agree", "xfail") for v in verdicts), "no sample ran"


@pytest.mark.parametrize("name", FAST)
def test_opinfo_on_the_interpreters_ts_and_python(name: str, opinfos: dict[str, object], rows: list[table.Row]) -> None:
    op = opinfos[name]
    ok, why = harness.covered(op)
    assert ok, f"{name}: {why}"
    outcomes = harness.run_opinfo(op, ["interp", "core", "ts", "python"], MAX_SAMPLES)
    _check(outcomes, rows)


@pytest.mark.parametrize("name", LOWERED)
def test_opinfo_on_the_lowering(name: str, opinfos: dict[str, object], rows: list[table.Row]) -> None:
    lowered = ["linalg", "iree"] if _has_iree() else ["linalg"]
    outcomes = harness.run_opinfo(
        opinfos[name], [], MAX_SAMPLES, lowered, max_lowered=1, dtypes=[harness.torch.float32],
        lowered_kinds=("edge",),
    )  # fmt: skip
    _check(outcomes, rows)


def test_the_table_reads_and_names_known_opinfos(opinfos: dict[str, object], rows: list[table.Row]) -> None:
    kinds = {"wrong", "refused", "crash", "timeout"}
    assert all(r.kind in kinds for r in rows), {r.reason for r in rows if r.kind not in kinds}
    unknown = sorted({r.opinfo for r in rows} - set(opinfos))
    assert not unknown, f"rows name OpInfos torch does not have: {unknown}"
    keys = [(r.executor, r.opinfo, r.pattern, r.kind) for r in rows]
    assert len(keys) == len(set(keys)), "a row is listed twice"


def test_a_wrong_value_is_caught_and_a_stale_row_fails() -> None:
    """The comparison sees the sign of zero and NaN positions; `judge` flags stale rows."""
    import numpy as np

    op = harness.opinfos_by_name()["abs"]
    assert harness.compare([np.array([0.0])], [np.array([-0.0])], op, [], False) is not None
    assert harness.compare([np.array([1.0])], [np.array([np.nan])], op, [], False) is not None
    assert harness.compare([np.array([1], np.int32)], [np.array([1], np.int64)], op, [], False) is not None
    assert harness.compare([np.array([1.0, np.nan])], [np.array([1.0 + 1e-7, np.nan])], op, [], False) is None
    agree = harness.Outcome("interp", "abs", "float32/0", "agree")
    fail = harness.Outcome("interp", "abs", "float32/0", "fail", "wrong", "value: ...")
    refused = harness.Outcome("interp", "abs", "float32/0", "fail", "refused", "...")
    row = table.Row("interp", "abs", "float32/*", "wrong: a reason")
    assert [v.status for v in table.judge([agree, fail, refused], [row])] == ["xpass", "xfail", "error"]
    assert [v.status for v in table.judge([fail], [])] == ["wrong"]


def test_open_answers_are_accepted_only_where_torch_leaves_them_open() -> None:
    """
    An unstable sort's tie order, the sign of a min/max of two opposite zeros
    and an out-of-bounds gather sample are not checked as eager computes them;
    everything around them still is.
    """
    import numpy as np
    import torch

    ops = harness.opinfos_by_name()
    x = np.array([[2.0, 1.0, 2.0, np.nan]])
    want = [np.array([[1, 0, 2, 3]])]
    ties_swapped = [np.array([[1, 2, 0, 3]])]
    assert harness.by_gathered_values(ties_swapped, want, x, 1)[2] is None
    ours, theirs, _ = harness.by_gathered_values(ties_swapped, want, x, 1)
    assert harness.compare(ours, theirs, ops["argsort"], [x], False) is None
    ours, theirs, _ = harness.by_gathered_values([np.array([[0, 1, 2, 3]])], want, x, 1)  # 2 before 1: wrong
    assert harness.compare(ours, theirs, ops["argsort"], [x], False) is not None
    ours, theirs, _ = harness.by_gathered_values([np.array([[1, 2, 3, 0]])], want, x, 1)  # NaN moved
    assert harness.compare(ours, theirs, ops["argsort"], [x], False) is not None
    assert harness.by_gathered_values([np.array([[1, 1, 2, 3]])], want, x, 1)[2] is not None  # not a permutation

    def sample(tensors: list[torch.Tensor], **kwargs: object) -> harness.Sample:
        return harness.Sample("float32/0", tensors, lambda t: (t[0], tuple(t[1:]), dict(kwargs)))

    a, b = torch.tensor([0.0, -0.0, 0.0, -0.0]), torch.tensor([-0.0, 0.0, 0.0, -0.0])
    mask = harness.either_zero_sign(ops["maximum"], sample([a, b]))
    assert mask is not None and mask.tolist() == [True, True, False, False]
    got, eager = [np.array([0.0, 0.0, -0.0, 0.0])], [np.array([-0.0, -0.0, 0.0, 0.0])]
    assert harness.compare(got, eager, ops["maximum"], [a.numpy(), b.numpy()], False, mask) is not None
    got[0][2] = 0.0
    assert harness.compare(got, eager, ops["maximum"], [a.numpy(), b.numpy()], False, mask) is None
    bound = harness.either_zero_sign(ops["clamp"], sample([a], min=0.0))
    assert bound is not None and bound.tolist() == [False, True, False, True]
    assert harness.either_zero_sign(ops["add"], sample([a, b])) is None
    assert harness.unordered_sort_axis(ops["argsort"], sample([torch.zeros(2, 3)], dim=0)) == 0
    assert harness.unordered_sort_axis(ops["argsort"], sample([torch.zeros(2, 3)], stable=True)) is None

    gather = ops["take_along_dim"]
    inside = sample([torch.arange(5.0), torch.tensor([-5, 4])], dim=0)
    outside = sample([torch.arange(5.0), torch.tensor([-(2**63), 0])], dim=0)
    assert not harness.reads_out_of_bounds(gather, inside)
    assert harness.reads_out_of_bounds(gather, outside)


def test_a_finalizer_run_while_tracing_is_not_recorded() -> None:
    """
    Pre-dispatch tracing records any grad-mode switch made while it runs, a
    garbage-collected object's `__del__` entering `no_grad` included (under
    pytest-xdist such garbage is left by earlier tests): the harness traces with
    the collector off, so the program is argmax alone.
    """
    import gc

    import torch

    class Cycle:
        def __init__(self) -> None:
            self.me = self

        def __del__(self) -> None:
            with torch.no_grad():
                pass

    def rebuild(tensors: object) -> tuple[object, tuple[object, ...], dict[str, object]]:
        for _ in range(64):
            Cycle()  # garbage only the collector frees, made while the program is traced
        return tensors[0], (), {}  # pyright: ignore[reportIndexIssue] - a list of tensors

    threshold = gc.get_threshold()
    gc.set_threshold(1)
    try:
        sample = harness.Sample("float32/0", [torch.randn(3, 4)], rebuild)
        traced = harness.trace(harness.opinfos_by_name()["argmax"], sample)
    finally:
        gc.set_threshold(*threshold)
        gc.collect()
    assert traced.module is not None, traced.skip
    assert traced.overloads == ["aten.argmax.default"]
    assert "wrap_with_set_grad_enabled" not in str(traced.module)
