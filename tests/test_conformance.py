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
