"""
`decompose` and `to-core-aten`: the operator set after them equals what torch's
`run_decompositions()` produced for every zoo model, the programs compute the
same (random inputs, and the zoo's expected outputs), and single
decompositions agree with torch eager.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pass_harness as ph
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.utils.exceptions import PassFailedException

from xdsl_exir.dialects.aten import AtenOp, build
from xdsl_exir.dialects.exir import (
    CallFunctionOp,
    DType,
    GetItemOp,
    GraphOp,
    InputKind,
    InputSpecAttr,
    ListType,
    OutputKind,
    OutputOp,
    OutputSpecAttr,
    ProgramOp,
    TensorType,
    TupleType,
)
from xdsl_exir.semantics.decompositions import default_legal_ops
from xdsl_exir.targets.fx_graph import build_fx_programs
from xdsl_exir.transforms.registry import get_all_passes

MODELS = {m["name"]: m for m in ph.zoo_models()}


def op_names(module: ModuleOp) -> set[str]:
    """The call_function targets of every graph, spelled as the zoo manifest spells them."""
    names: set[str] = set()
    for program in build_fx_programs(module):
        for graph in program.all_graphs():
            for node in graph.nodes:
                if node.op != "call_function":
                    continue
                kind = node.kind
                if kind in ("operator.getitem", "_operator.getitem"):
                    names.add("getitem")
                elif kind.startswith(("operator.", "_operator.")):
                    names.add(f"<built-in function {kind.split('.')[-1]}>")
                elif kind.startswith("higher_order."):
                    names.add(kind.split(".", 1)[1])
                else:
                    names.add(kind.removeprefix("torch.ops.").removeprefix("aten."))
    return names


def _functionalize_available() -> bool:
    factory = get_all_passes().get("functionalize")
    try:
        return factory is not None and factory() is not None
    except ImportError:
        return False


# ---------------------------------------------------------------------------
# The zoo
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(MODELS))
def test_zoo_operator_set_equals_torch_core(name: str) -> None:
    """to-core-aten on the training IR gives exactly torch's core operator set."""
    model = MODELS[name]
    if name == "buffer_mutation" and not _functionalize_available():
        pytest.skip("in-place buffer updates need the functionalize pass")
    after = ph.apply(ph.load_zoo(name), "to-core-aten")
    assert op_names(after) == set(model["ops"]["core"])


@pytest.mark.parametrize("name", sorted(MODELS))
def test_zoo_decompose_leaves_only_legal_ops(name: str) -> None:
    """Every aten op left by `decompose` is core, or has no decomposition in torch either."""
    after = ph.apply(ph.load_zoo(name), "decompose")
    train_only = set(MODELS[name]["ops"]["train"]) - set(MODELS[name]["ops"]["core"])
    inplace = {n for n in train_only if n.split(".")[0].endswith("_")}  # functionalize's business
    assert not (op_names(after) & (train_only - inplace))


def _load_npz(path: str) -> dict[str, np.ndarray]:
    with np.load(ph.ZOO / path) as data:
        return {k: data[k] for k in data.files}


def _ordered(d: dict[str, np.ndarray], prefix: str) -> list[np.ndarray]:
    return [d[f"{prefix}{i}"] for i in range(len(d))]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_zoo_semantics_preserved(name: str) -> None:
    """Random inputs before/after agree, and the result reproduces torch's expected outputs."""
    model = MODELS[name]
    module = ph.load_zoo(name)
    if name == "buffer_mutation" and not _functionalize_available():
        after = ph.assert_preserves(module, "decompose", seeds=(0,))
    else:
        after = ph.assert_preserves(module, "to-core-aten", seeds=(0,))
    tol = model.get("tolerance", {})
    rtol, atol = tol.get("rtol", 1e-5), tol.get("atol", 1e-6)
    for case in model["input_sets"]:
        inputs = _ordered(_load_npz(case["inputs"]), "arg")
        want = _ordered(_load_npz(case["expected"]), "out")
        got = ph.run(after, inputs)
        ph.assert_same_outputs(got[-len(want) :], want, rtol, atol)


def test_to_core_aten_removes_batch_norm_and_linear() -> None:
    after = ph.apply(ph.load_zoo("cnn_bn"), "to-core-aten")
    names = op_names(after)
    assert "batch_norm.default" not in names and "linear.default" not in names
    assert "_native_batch_norm_legit_no_training.default" in names


def test_legal_ops_option_keeps_them() -> None:
    after = ph.apply(ph.load_zoo("attention"), 'decompose{legal-ops="aten.linear.default","aten::layer_norm"}')
    names = op_names(after)
    assert {"linear.default", "layer_norm.default"} <= names
    assert "addmm.default" not in names and "matmul.default" not in names


def test_bad_legal_op_is_a_diagnostic() -> None:
    with pytest.raises(PassFailedException, match="legal-ops names 'aten.nonsense'"):
        ph.apply(ph.load_zoo("mlp"), 'decompose{legal-ops="aten.nonsense"}')


def test_default_legal_set_is_core_minus_decomposed() -> None:
    legal = default_legal_ops()
    assert "aten.addmm.default" in legal and "aten.linear.default" not in legal
    assert "aten.squeeze.dim" not in legal  # tagged core, yet torch rewrites it to squeeze.dims


def test_call_function_spelling_is_decomposed() -> None:
    """`exir.call_function "aten.t.default"` is lowered like the aten op."""
    text = """
    exir.graph @g(%x: !exir.tensor<[3, 4], float32>) -> (!exir.tensor<[4, 3], float32>) {
      %t = exir.call_function "torch.ops.aten.t.default"(%x) : (!exir.tensor<[3, 4], float32>) -> !exir.tensor<[4, 3], float32>
      exir.output %t : !exir.tensor<[4, 3], float32>
    }
    """
    after = ph.apply(ph.parse(text), "decompose")
    ops = [op.name for op in after.walk()]
    assert "aten.permute.default" in ops
    assert not any(isinstance(op, CallFunctionOp) for op in after.walk())


# ---------------------------------------------------------------------------
# Single decompositions against torch eager
# ---------------------------------------------------------------------------


def program(
    input_types: Sequence[TensorType], body: Callable[..., Sequence[SSAValue]]
) -> ModuleOp:
    """A one-graph program whose user inputs have `input_types`; `body(add, *args)` returns its outputs."""
    graph = GraphOp("forward", list(input_types), [])
    block: Block = graph.body.block

    def add(op: Operation) -> Operation:
        block.add_op(op)
        return op

    outs = list(body(add, *block.args))
    block.add_op(OutputOp(outs))
    graph = GraphOp("forward", list(input_types), [o.type for o in outs], graph.body.clone())
    return ModuleOp(
        [
            ProgramOp(
                [InputSpecAttr(InputKind.user_input, f"x{i}") for i in range(len(input_types))],
                [OutputSpecAttr(OutputKind.user_output, f"o{i}") for i in range(len(outs))],
                [graph],
            )
        ]
    )


def f32(*shape: int) -> TensorType:
    return TensorType(list(shape), DType.float32)


def one(name: str, *args: Any, **kwargs: Any) -> Callable[..., Sequence[SSAValue]]:
    def body(add: Callable[[Operation], Operation], *xs: SSAValue) -> Sequence[SSAValue]:
        real = [xs[a.index] if isinstance(a, _In) else a for a in args]
        op = add(build(name, *real, **kwargs))
        res = op.results[0]
        if isinstance(res.type, ListType | TupleType):
            n = len(cast_list_len(op))
            return [add(GetItemOp(res, i)).results[0] for i in range(n)]
        return [res]

    return body


def cast_list_len(op: Operation) -> list[int]:
    """How many tensors a split-like op makes (from its argument tree)."""
    assert isinstance(op, AtenOp)
    b = op.bound_arguments()
    t = b.tensor("self")
    dim = b.int("dim") % t.rank
    size = int(t.sizes[dim])
    if "chunks" in b:
        step = -(-size // b.int("chunks"))
    else:
        step = b.int("split_size")
    return list(range(0, size, step))


class _In:
    def __init__(self, index: int) -> None:
        self.index = index


X, Y, Z = _In(0), _In(1), _In(2)


def _torch_cases() -> list[tuple[str, list[TensorType], Callable[..., Sequence[SSAValue]], Callable[..., Any], set[str]]]:
    """(id, input types, IR body, torch function, core ops expected afterwards)."""
    return [
        ("matmul_3d_2d", [f32(2, 3, 4), f32(4, 5)], one("aten.matmul.default", X, Y),
         lambda t, a, b: t.matmul(a, b), {"aten.mm.default", "aten.view.default"}),
        ("matmul_broadcast", [f32(2, 1, 3, 4), f32(5, 4, 6)], one("aten.matmul.default", X, Y),
         lambda t, a, b: t.matmul(a, b), {"aten.bmm.default", "aten.expand.default"}),
        ("linear_3d_nobias", [f32(2, 3, 4), f32(5, 4)], one("aten.linear.default", X, Y),
         lambda t, a, w: t.nn.functional.linear(a, w), {"aten.mm.default", "aten.permute.default"}),
        ("flatten_middle", [f32(2, 3, 4, 5)], one("aten.flatten.using_ints", X, 1, 2),
         lambda t, a: t.flatten(a, 1, 2), {"aten.view.default"}),
        ("tril_float", [f32(4, 5)], one("aten.tril.default", X, -1),
         lambda t, a: t.tril(a, -1), {"aten.arange.start_step", "aten.where.self"}),
        ("silu", [f32(3, 4)], one("aten.silu.default", X),
         lambda t, a: t.nn.functional.silu(a), {"aten.sigmoid.default"}),
        ("hardswish", [f32(3, 4)], one("aten.hardswish.default", X),
         lambda t, a: t.nn.functional.hardswish(a), {"aten.clamp.default"}),
        ("hardsigmoid", [f32(3, 4)], one("aten.hardsigmoid.default", X),
         lambda t, a: t.nn.functional.hardsigmoid(a), {"aten.clamp.default"}),
        ("chunk_uneven", [f32(2, 7)], one("aten.chunk.default", X, 3, 1),
         lambda t, a: t.chunk(a, 3, 1), {"aten.split_with_sizes.default"}),
        ("split", [f32(5, 2)], one("aten.split.Tensor", X, 2),
         lambda t, a: t.split(a, 2), {"aten.split_with_sizes.default"}),
        ("adaptive_pool_even", [f32(1, 2, 4, 6)], one("aten.adaptive_avg_pool2d.default", X, [2, 3]),
         lambda t, a: t.nn.functional.adaptive_avg_pool2d(a, [2, 3]), {"aten.avg_pool2d.default"}),
        ("conv1d", [f32(2, 3, 9), f32(4, 3, 3)], one("aten.conv1d.default", X, Y, None, [2], [1]),
         lambda t, a, w: t.nn.functional.conv1d(a, w, None, 2, 1), {"aten.convolution.default"}),
        ("baddbmm", [f32(2, 3, 5), f32(2, 3, 4), f32(2, 4, 5)],
         one("aten.baddbmm.default", X, Y, Z, beta=0.5, alpha=2.0),
         lambda t, s, a, b: t.baddbmm(s, a, b, beta=0.5, alpha=2.0), {"aten.bmm.default"}),
        ("sum_default", [f32(3, 4)], one("aten.sum.default", X),
         lambda t, a: a.sum(), {"aten.sum.dim_IntList"}),
        ("log_softmax", [f32(3, 4)], one("aten.log_softmax.int", X, 0),
         lambda t, a: t.log_softmax(a, 0), {"aten._log_softmax.default"}),
        ("zeros_like", [f32(3, 4)], one("aten.zeros_like.default", X),
         lambda t, a: t.zeros_like(a), {"aten.full.default"}),
        ("sdpa_causal", [f32(1, 2, 4, 8), f32(1, 2, 4, 8), f32(1, 2, 4, 8)],
         one("aten.scaled_dot_product_attention.default", X, Y, Z, is_causal=True),
         lambda t, q, k, v: t.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True),
         {"aten.bmm.default", "aten._softmax.default", "aten.where.self"}),
    ]


CASES = _torch_cases()


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_decomposition_matches_torch(case: Any) -> None:
    torch = pytest.importorskip("torch")
    _, types, body, fn, expected_ops = case
    module = program(types, body)
    module.verify()
    after = ph.apply(module, "decompose")
    names = {op.name for op in after.walk()}
    legal = default_legal_ops()
    left = {n for n in names if n.startswith("aten.") and n not in legal}
    assert not left, f"not decomposed: {left}"
    assert expected_ops <= names, f"missing {expected_ops - names} in {sorted(names)}"
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal([int(s) for s in t.sizes]).astype(np.float32) for t in types]
    got = ph.run(after, inputs)
    with torch.no_grad():
        want = fn(torch, *(torch.from_numpy(x.copy()) for x in inputs))
    want_list = list(want) if isinstance(want, tuple | list) else [want]
    ph.assert_same_outputs(got, [w.numpy() for w in want_list], rtol=1e-5, atol=1e-5)


def _layout_module(contiguous_input: bool) -> ModuleOp:
    def body(add: Callable[[Operation], Operation], x: SSAValue) -> Sequence[SSAValue]:
        if not contiguous_input:
            x = add(build("aten.transpose.int", x, 0, 1)).results[0]
        c = add(build("aten.contiguous.default", x)).results[0]
        r = add(build("aten.reshape.default", x, [-1])).results[0]
        return [c, r]

    return program([f32(3, 4)], body)


def test_layout_decides_view_or_copy() -> None:
    """reshape/contiguous of a contiguous tensor are views; of a transposed one, a clone first."""
    plain = ph.assert_preserves(_layout_module(True), "decompose")
    names = [op.name for op in plain.walk()]
    assert "aten.clone.default" not in names and "aten.view.default" in names
    transposed = ph.assert_preserves(_layout_module(False), "decompose")
    names = [op.name for op in transposed.walk()]
    assert names.count("aten.clone.default") == 2 and "aten.permute.default" in names
