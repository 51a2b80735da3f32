"""
`convert-exir-to-linalg` on factory and indexing ops (`linalg_lowering/creation.py`
and `indexing.py`): small programs built in-process, several dtypes and shapes,
a dynamic dim `s0` run at two values, lowered and run by IREE's native code and
by the upstream-dialect interpreter, each compared with our numpy interpreter
(exact for integers and bools, rtol 1e-5 / atol 1e-6 for floats). The ops the
lowering refuses stop it with a diagnostic that says why.

Ops are grouped into one program per family so that IREE compiles a handful of
modules, not one per op.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
import sympy
from iree_compiles import ProgramBatch
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.aten import build
from xdsl_exir.dialects.exir import (
    DType,
    GraphOp,
    InputKind,
    InputSpecAttr,
    OutputKind,
    OutputOp,
    OutputSpecAttr,
    ProgramOp,
    SymSizeOp,
    TensorType,
)
from xdsl_exir.interpreters.program import ProgramRunner, find_program
from xdsl_exir.targets.iree import lower_to_upstream, print_mlir
from xdsl_exir.transforms.convert_exir_to_linalg import function_arguments
from xdsl_exir.utils.diagnostics import ExirDiagnostic

S0 = sympy.Symbol("s0", integer=True, positive=True)
F32, F16, F64 = DType.float32, DType.float16, DType.float64
I64, I32, I8, BOOL = DType.int64, DType.int32, DType.int8, DType.bool
UPSTREAM = {"func", "arith", "math", "tensor", "linalg", "scf", "builtin"}

Add = Callable[[Operation], SSAValue]


def program(types: Sequence[TensorType], body: Callable[..., Sequence[SSAValue]]) -> ModuleOp:
    """A one-graph program of user inputs `types`; `body(add, *inputs)` returns its outputs."""
    graph = GraphOp("forward", list(types), [])
    block = graph.body.block

    def add(op: Operation) -> SSAValue:
        block.add_op(op)
        return op.results[0]

    outs = list(body(add, *block.args))
    block.add_op(OutputOp(outs))
    graph = GraphOp("forward", list(types), [o.type for o in outs], graph.body.clone())
    module = ModuleOp(
        [
            ProgramOp(
                [InputSpecAttr(InputKind.user_input, f"x{i}") for i in range(len(types))],
                [OutputSpecAttr(OutputKind.user_output, f"o{i}") for i in range(len(outs))],
                [graph],
            )
        ]
    )
    module.verify()
    return module


def t(*sizes: int | sympy.Expr, dtype: DType = F32) -> TensorType:
    return TensorType(list(sizes), dtype)


@dataclass(frozen=True)
class Group:
    types: tuple[TensorType, ...]
    body: Callable[..., Sequence[SSAValue]]
    inputs: Callable[[np.random.Generator, int], list[np.ndarray]]
    """Inputs for a value of s0."""


def normal(rng: np.random.Generator, *shape: int, dtype: Any = np.float32) -> np.ndarray:
    return rng.standard_normal(shape).astype(dtype)


def ints(rng: np.random.Generator, lo: int, hi: int, *shape: int, dtype: Any = np.int64) -> np.ndarray:
    return rng.integers(lo, hi, shape).astype(dtype)


def columns_permuted(rng: np.random.Generator, rows: int, cols: int, n: int) -> np.ndarray:
    """An index for scatter along dim 1 naming each column at most once per row (no write races)."""
    return np.stack([rng.permutation(n)[:cols] for _ in range(rows)]).astype(np.int64)


# -- the programs ------------------------------------------------------------------


def _fills(add: Add, x: SSAValue, i: SSAValue) -> list[SSAValue]:
    n = add(SymSizeOp(x, 0))
    return [
        add(build("aten.full.default", [n, 3], 2.5, dtype=F32)),
        add(build("aten.full.default", [2, n], -7, dtype=I32)),
        add(build("aten.full.default", [3], True, dtype=BOOL)),
        add(build("aten.full.default", [2], n, dtype=I64)),  # a SymInt fill value
        add(build("aten.full.default", [n], 2.75, dtype=I8)),  # truncated toward zero
        add(build("aten.full_like.default", x, 0.5, dtype=F16)),
        add(build("aten.full_like.default", i, 4)),
        add(build("aten.zeros.default", [n, 2], dtype=F64)),
        add(build("aten.ones.default", [n], dtype=I64)),
        add(build("aten.zeros_like.default", i)),
        add(build("aten.ones_like.default", x, dtype=BOOL)),
        add(build("aten.new_zeros.default", x, [n, 1])),
        add(build("aten.new_ones.default", i, [2, 2])),
        add(build("aten.new_full.default", x, [n], 3.25)),
    ]


def _aranges(add: Add, x: SSAValue) -> list[SSAValue]:
    n = add(SymSizeOp(x, 0))
    return [
        add(build("aten.arange.default", n)),
        add(build("aten.arange.start", -3, n, dtype=I32)),
        add(build("aten.arange.start_step", 1, n, 2, dtype=F32)),
        add(build("aten.arange.start_step", 10, -2, -3)),
        add(build("aten.arange.start_step", 0.5, 3.0, 0.25)),
        add(build("aten.arange.start_step", 0.1, 1.7, 0.1, dtype=F64)),
        add(build("aten.arange.start_step", -1.0, 2.0, 0.3, dtype=F16)),
        add(build("aten.arange.default", 7, dtype=F32)),
    ]


def _triangles(add: Add, x: SSAValue, y: SSAValue, z: SSAValue) -> list[SSAValue]:
    n = add(SymSizeOp(x, 0))
    return [
        add(build("aten.tril.default", x)),
        add(build("aten.tril.default", x, -1)),
        add(build("aten.triu.default", x, 2)),
        add(build("aten.triu.default", y, -1)),
        add(build("aten.tril.default", z, 1)),
        add(build("aten.triu.default", y, n)),  # a SymInt diagonal
    ]


def _gathers(
    add: Add, x: SSAValue, w: SSAValue, ids: SSAValue, ids32: SSAValue, sel: SSAValue, g: SSAValue, y: SSAValue,
    g3: SSAValue, i: SSAValue, j: SSAValue,
) -> list[SSAValue]:
    return [
        add(build("aten.embedding.default", w, ids)),
        add(build("aten.embedding.default", w, ids32)),
        add(build("aten.index_select.default", x, 0, sel)),
        add(build("aten.index_select.default", x, -1, sel)),
        add(build("aten.index_select.default", y, 1, sel)),
        add(build("aten.gather.default", x, 1, g)),
        add(build("aten.gather.default", y, 1, g3)),
        add(build("aten.index.Tensor", x, [sel])),
        add(build("aten.index.Tensor", x, [None, sel])),
        add(build("aten.index.Tensor", x, [i, j])),  # indices broadcast to [2, 3]
        add(build("aten.index.Tensor", y, [None, i, j])),
        add(build("aten.index.Tensor_hacked_twin", y, [ids])),
    ]


def _scatters(add: Add, x: SSAValue, perm: SSAValue, src: SSAValue, dup: SSAValue, xi: SSAValue, srci: SSAValue) -> list[SSAValue]:
    return [
        add(build("aten.scatter.src", x, 1, perm, src)),
        add(build("aten.scatter.src", x, -1, perm, src)),
        add(build("aten.scatter.value", x, 1, perm, -1.5)),
        add(build("aten.scatter_add.default", x, 1, dup, src)),
        add(build("aten.scatter_add.default", xi, 1, dup, srci)),
        add(build("aten.scatter.reduce", xi, 1, dup, srci, reduce="multiply")),
        add(build("aten.scatter.value_reduce", x, 1, dup, 2.0, reduce="add")),
        add(build("aten.scatter.src", xi, 0, add(build("aten.slice.Tensor", perm, 0, 0, 1)), srci)),
    ]


def _puts(
    add: Add, x: SSAValue, cols: SSAValue, v: SSAValue, dup: SSAValue, vd: SSAValue, mask: SSAValue, y: SSAValue,
    i: SSAValue, j: SSAValue, vy: SSAValue, xi: SSAValue,
) -> list[SSAValue]:
    nine = add(build("aten.scalar_tensor.default", 9.0))
    row = add(build("aten.full.default", [4], 0.25, dtype=F32))
    return [
        add(build("aten.index_put.default", x, [None, cols], v)),
        add(build("aten.index_put.default", x, [None, dup], vd, True)),
        add(build("aten.index_put.default", x, [None, dup], nine, True)),
        add(build("aten.index_put.default", x, [mask], nine)),
        add(build("aten.index_put.default", x, [mask], nine, True)),
        add(build("aten.index_put.default", y, [None, i, j], vy)),
        add(build("aten.index_put.default", y, [None, i, j], nine, True)),
        add(build("aten.index_put.default", xi, [None, cols], add(build("aten.scalar_tensor.default", 5, dtype=I64)))),
        add(build("aten.index_put.default", x, [add(build("aten.arange.start", 0, 2))], row)),
        add(build("aten.index_put.default", x, [add(build("aten.gt.Scalar", add(build("aten.select.int", x, 1, 0)), 0))], row)),
    ]


def _slices(add: Add, x: SSAValue, y: SSAValue) -> list[SSAValue]:
    col = add(build("aten.neg.default", add(build("aten.select.int", x, 1, 0))))
    rows = add(build("aten.mul.Tensor", add(build("aten.slice.Tensor", x, 0, 0, 2)), 2.0))
    every_other = add(build("aten.slice.Tensor", y, 2, 0, None, 2))
    return [
        add(build("aten.select_scatter.default", x, col, 1, 2)),
        add(build("aten.select_scatter.default", x, col, 1, -1)),
        add(build("aten.slice_scatter.default", x, rows, 0, 1, 3)),
        add(build("aten.slice_scatter.default", x, rows, 0, -2)),
        add(build("aten.slice_scatter.default", y, add(build("aten.neg.default", every_other)), 2, 1, None, 2)),
        # A slice of self written back into self (a shift): the overlapping-copy case.
        add(build("aten.select_scatter.default", x, add(build("aten.select.int", x, 1, 0)), 1, 3)),
        add(build("aten.slice_scatter.default", x, add(build("aten.slice.Tensor", x, 1, 0, 3)), 1, 1)),
    ]


def _pads_repeats_rolls(add: Add, x: SSAValue, y: SSAValue, xi: SSAValue) -> list[SSAValue]:
    return [
        add(build("aten.constant_pad_nd.default", x, [1, 2])),
        add(build("aten.constant_pad_nd.default", x, [1, 2, 0, 3], -1.5)),
        add(build("aten.constant_pad_nd.default", x, [-1, 2, 1, -1], 7.0)),
        add(build("aten.constant_pad_nd.default", y, [0, 0, 2, 1], 0.5)),
        add(build("aten.constant_pad_nd.default", xi, [2, -3], 9)),
        add(build("aten.repeat.default", x, [2, 3])),
        add(build("aten.repeat.default", x, [2, 1, 3])),
        add(build("aten.repeat.default", xi, [1, 1])),
        add(build("aten.roll.default", x, [1, -2], [0, 1])),
        add(build("aten.roll.default", x, [3])),
        add(build("aten.roll.default", y, [-5], [2])),
        add(build("aten.roll.default", xi, [2, 3], [1, 1])),
    ]


GROUPS: dict[str, Group] = {
    "fills": Group(
        (t(S0, 4), t(3, 2, dtype=I32)),
        _fills,
        lambda rng, n: [normal(rng, n, 4), ints(rng, -5, 5, 3, 2, dtype=np.int32)],
    ),
    "aranges": Group((t(S0, 2),), _aranges, lambda rng, n: [normal(rng, n, 2)]),
    "triangles": Group(
        (t(S0, 4), t(2, 3, 5, dtype=I64), t(S0, 3, 3, dtype=BOOL)),
        _triangles,
        lambda rng, n: [normal(rng, n, 4), ints(rng, -9, 9, 2, 3, 5), rng.random((n, 3, 3)) > 0.3],
    ),
    "gathers": Group(
        (t(S0, 4), t(7, 5), t(S0, 2, dtype=I64), t(3, dtype=I32), t(3, dtype=I64), t(S0, 3, dtype=I64),
         t(2, S0, 4, dtype=I64), t(2, 2, 4, dtype=I64), t(2, 1, dtype=I64), t(3, dtype=I64)),
        _gathers,
        lambda rng, n: [
            # embedding, index_select and gather take indices in [0, size), as torch does (it
            # refuses a negative one); advanced indexing (`i`, `j`) reads negative ones from the end
            normal(rng, n, 4), normal(rng, 7, 5), ints(rng, 0, 2, n, 2), ints(rng, 0, 7, 3, dtype=np.int32),
            np.array([2, 0, 1]), ints(rng, 0, 4, n, 3), ints(rng, -99, 99, 2, n, 4), ints(rng, 0, 3, 2, 2, 4),
            np.array([[1], [-3]]), np.array([0, 3, -1]),
        ],
    ),
    "scatters": Group(
        (t(S0, 6), t(S0, 3, dtype=I64), t(S0, 5), t(S0, 5, dtype=I64), t(S0, 6, dtype=I32), t(S0, 5, dtype=I32)),
        _scatters,
        lambda rng, n: [
            # scatter's indices in [0, size), as torch takes them; the first also indexes dim 0 (n >= 3)
            normal(rng, n, 6), columns_permuted(rng, n, 3, 3), normal(rng, n, 5), ints(rng, 0, 6, n, 5),
            ints(rng, -3, 4, n, 6, dtype=np.int32), ints(rng, -3, 4, n, 5, dtype=np.int32),
        ],
    ),
    "puts": Group(
        (t(S0, 4), t(3, dtype=I64), t(S0, 3), t(5, dtype=I64), t(S0, 5), t(S0, 4, dtype=BOOL), t(3, S0, 4, 5),
         t(2, 1, dtype=I64), t(3, dtype=I64), t(2, 1, 5), t(S0, 4, dtype=I64)),
        _puts,
        lambda rng, n: [
            normal(rng, n, 4), np.array([3, -4, 1]), normal(rng, n, 3), np.array([0, -1, 3, 0, 0]), normal(rng, n, 5),
            rng.random((n, 4)) > 0.5, normal(rng, 3, n, 4, 5), np.array([[1], [-3]]), np.array([0, 3, -2]),
            normal(rng, 2, 1, 5), ints(rng, -9, 9, n, 4),
        ],
    ),
    "slices": Group((t(S0, 4), t(2, S0, 8, dtype=I64)), _slices, lambda rng, n: [normal(rng, n, 4), ints(rng, -9, 9, 2, n, 8)]),
    "pads_repeats_rolls": Group(
        (t(S0, 4), t(2, S0, 3), t(S0, 5, dtype=I32)),
        _pads_repeats_rolls,
        lambda rng, n: [normal(rng, n, 4), normal(rng, 2, n, 3), ints(rng, -9, 9, n, 5, dtype=np.int32)],
    ),
}

S0_VALUES = (5, 3)


# -- running and comparing ------------------------------------------------------------


_LOWERED: dict[str, tuple[ModuleOp, ModuleOp]] = {}


def lowered(name: str) -> tuple[ModuleOp, ModuleOp]:
    """The group's program and its lowering (built once per session)."""
    if name not in _LOWERED:
        g = GROUPS[name]
        module = program(g.types, g.body)
        _LOWERED[name] = (module, lower_to_upstream(module))
    return _LOWERED[name]


def input_sets(name: str) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(sorted(GROUPS).index(name))
    return [GROUPS[name].inputs(rng, n) for n in S0_VALUES]


def assert_same(got: Sequence[Any], want: Sequence[Any], what: str) -> None:
    assert len(got) == len(want), f"{what}: {len(got)} outputs, expected {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        assert (g.dtype, g.shape) == (w.dtype, w.shape), f"{what} out{k}: {g.dtype}{list(g.shape)}, expected {w.dtype}{list(w.shape)}"
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=f"{what} out{k}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"{what} out{k}")


def compare(name: str, executor: Callable[[ProgramOp, ModuleOp], Any]) -> None:
    """Run the group through `executor(program, lowered)` and through the numpy interpreter."""
    module, low = lowered(name)
    prog = find_program(module)
    reference = ProgramRunner(prog)
    backend = ProgramRunner(prog, executor=executor(prog, low))
    for inputs in input_sets(name):
        want = reference.run([x.copy() for x in inputs])
        got = backend.run([x.copy() for x in inputs])
        assert_same(got, want, f"{name} (s0={inputs[0].shape})")


@pytest.mark.parametrize("name", sorted(GROUPS))
def test_lowered_to_upstream_dialects_only(name: str) -> None:
    _, low = lowered(name)
    dialects = {op.dialect_name() for op in low.walk()}
    assert dialects <= UPSTREAM, f"non-upstream ops: {dialects - UPSTREAM}"


@pytest.mark.parametrize("name", sorted(GROUPS))
def test_upstream_interpreter_matches(name: str) -> None:
    upstream = pytest.importorskip("xdsl_exir.interpreters.upstream")

    def executor(prog: ProgramOp, low: ModuleOp) -> Callable[..., list[np.ndarray]]:
        arguments = function_arguments(prog)
        return lambda *args: upstream.run_lowered(low, [args[i] for i in arguments])

    compare(name, executor)


IREE = ProgramBatch()
"""Every group's program lowered as it is, compiled by IREE together (`tests/iree_compiles.py`),
each run as its own function."""
for _name, _group in GROUPS.items():
    IREE.add(_name, lambda g=_group: program(g.types, g.body))


@pytest.mark.parametrize("name", sorted(GROUPS))
def test_iree_matches(name: str) -> None:
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    compare(name, lambda prog, low: IREE.executor(name))


def test_empty_has_the_sizes_and_dtype() -> None:
    """`empty` values are unspecified (a bare tensor.empty); only sizes and dtype are compared."""

    def body(add: Add, x: SSAValue) -> list[SSAValue]:
        n = add(SymSizeOp(x, 0))
        return [
            add(build("aten.empty.memory_format", [n, 3], dtype=I32)),
            add(build("aten.empty_strided.default", [2, n], [1, 2])),
            add(build("aten.new_empty.default", x, [n])),
        ]

    module = program([t(S0, 4)], body)
    low = lower_to_upstream(module)
    text = print_mlir(low)
    assert text.count("tensor.empty") == 3 and "linalg" not in text
    upstream = pytest.importorskip("xdsl_exir.interpreters.upstream")
    prog = find_program(module)
    outs = upstream.run_lowered(low, [np.zeros((5, 4), np.float32)])
    assert [(o.dtype, o.shape) for o in outs] == [(np.dtype(np.int32), (5, 3)), (np.dtype(np.float32), (2, 5)), (np.dtype(np.float32), (5,))]
    assert function_arguments(prog) == [0]


# -- what is refused, and why ---------------------------------------------------------


def refusal(types: Sequence[TensorType], body: Callable[..., Sequence[SSAValue]]) -> str:
    with pytest.raises(ExirDiagnostic) as err:
        lower_to_upstream(program(types, body))
    return str(err.value)


def test_boolean_mask_gather_is_refused() -> None:
    message = refusal(
        [t(3, 4), t(3, 4, dtype=BOOL)],
        lambda add, x, m: [add(build("aten.index.Tensor", x, [m]))],
    )
    assert "data-dependent" in message


def test_mask_put_of_per_element_values_is_refused() -> None:
    message = refusal(
        [t(3, 4), t(3, 4, dtype=BOOL), t(5)],
        lambda add, x, m, v: [add(build("aten.index_put.default", x, [m], v))],
    )
    assert "prefix count" in message
