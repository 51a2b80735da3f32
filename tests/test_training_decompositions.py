"""
The decompositions that let training graphs lower natively: the backward
operators of convolutions, batch norms and max pooling, and the functional
batch norm of training forward graphs (issue 22). Each is checked against
torch eager three ways on the same inputs, edge values and corner shapes
included (groups, stride, padding, dilation, `output_mask` entries False,
an empty batch):

- the interpreter, on the program after `to-core-aten` with the operator
  decomposed by its rule (the rule's own arithmetic, not the kernel's);
- the program lowered by `convert-exir-to-linalg` (which decomposes the core
  operators it has no rule for) in xDSL's interpreter;
- IREE, when the extra is installed (the corner cases; every case with
  `EXIR_TORCH_COMPILE_SWEEP=1`).

The programs come from `aot_export_module`, so each operator is a generic
`exir.call_function` with a tuple result read by getitems: the form
AOTAutograd hands the torch.compile backend.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from iree_compiles import ProgramBatch
from xdsl.dialects.builtin import ModuleOp
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker

from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.interpreters.upstream import run_lowered
from xdsl_exir.semantics.decompositions import default_legal_ops
from xdsl_exir.semantics.decompositions.pattern import DecomposePattern
from xdsl_exir.targets.iree import IreeOptions, compile_program, iree_available, lower_to_upstream, to_core

torch = pytest.importorskip("torch")

needs_iree = pytest.mark.skipif(not iree_available(), reason="needs the iree extra")


@dataclass(frozen=True)
class Case:
    """One call `torch.ops.aten.<op>(*tensors, *constants)`: tensors are program inputs."""

    id: str
    op: str
    tensors: Callable[[torch.Generator], list[Any]]
    constants: tuple[Any, ...]
    order: Callable[[list[Any], tuple[Any, ...]], list[Any]] | None = None
    """How tensors and constants interleave in the call (default: tensors first)."""


def _call(case: Case, tensors: Sequence[Any]) -> tuple[Any, ...]:
    args = case.order(list(tensors), case.constants) if case.order else [*tensors, *case.constants]
    out = getattr(torch.ops.aten, case.op.split(".")[0]).default(*args)
    results = out if isinstance(out, tuple | list) else (out,)
    masked = ("convolution_backward", "native_batch_norm_backward", "native_layer_norm_backward",
              "native_group_norm_backward")
    mask = case.constants[-1] if case.op in masked else None
    if mask is not None:  # a result output_mask leaves out is undefined (eager's CPU kernel may still compute it)
        results = [r for r, m in zip(results, mask) if m]
    return tuple(r for r in results if r is not None)


_EXPORTED: dict[tuple[str, str], tuple[ModuleOp, list[np.ndarray], list[np.ndarray]]] = {}


def _exported(case: Case) -> tuple[ModuleOp, list[np.ndarray], list[np.ndarray]]:
    """
    `_export` of the case's inputs, once per process: the interpreter, lowering and
    IREE tests of a case check the same program. Every user copies before it changes
    anything (`to_core` clones the module; the runs get copies of the inputs).
    """
    key = (case.op, case.id)
    if key not in _EXPORTED:
        _EXPORTED[key] = _export(case, _inputs(case))
    return _EXPORTED[key]


def _export(case: Case, tensors: list[Any]) -> tuple[ModuleOp, list[np.ndarray], list[np.ndarray]]:
    from torch._functorch.aot_autograd import aot_export_module

    from xdsl_exir.frontends.torch_live import import_graph_module

    class Net(torch.nn.Module):
        def forward(self, *xs: Any) -> Any:
            return _call(case, xs)

    gm, _ = aot_export_module(Net(), tuple(tensors), trace_joint=False)
    module = import_graph_module(gm, tensors)
    want = [t.numpy() for t in _call(case, tensors)]
    return module, [t.numpy() for t in tensors], want


def _same(got: Sequence[Any], want: Sequence[np.ndarray], rtol: float = 1e-5, atol: float = 1e-5) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype, f"{g.dtype}{g.shape} vs {w.dtype}{w.shape}"
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)


def _decomposed(module: ModuleOp, name: str) -> ModuleOp:
    """`to-core-aten`, then the core operator `name` rewritten by its rule (no other change)."""
    core = to_core(module)
    legal = default_legal_ops() - {name}
    PatternRewriteWalker(GreedyRewritePatternApplier([DecomposePattern(legal)], dce_enabled=False)).rewrite_module(core)
    left = [op for op in core.walk() if name in (op.name, getattr(getattr(op, "target", None), "data", None))]
    assert not left, f"{name} was not decomposed"
    return core


def _randn(*shape: int, edge: bool = False) -> Callable[[torch.Generator], Any]:
    def make(g: torch.Generator) -> Any:
        t = torch.randn(*shape, generator=g)
        if edge and t.numel() >= 4:
            flat = t.view(-1)
            flat[0], flat[1], flat[2], flat[3] = float("nan"), float("inf"), -0.0, 1e30
        return t

    return make


def _tensors(*makers: Callable[[torch.Generator], Any]) -> Callable[[torch.Generator], list[Any]]:
    return lambda g: [m(g) for m in makers]


def _conv_case(
    id: str, x: tuple[int, ...], w: tuple[int, ...], stride: list[int], padding: list[int], dilation: list[int],
    groups: int, mask: list[bool], edge: bool = False,
) -> Case:
    """convolution_backward with grad_output of the forward's output size."""
    xt, wt = torch.empty(x), torch.empty(w)
    y = torch.ops.aten.convolution.default(xt, wt, None, stride, padding, dilation, False, [0] * len(stride), groups)
    return Case(
        id, "convolution_backward",
        _tensors(_randn(*y.shape, edge=edge), _randn(*x), _randn(*w)),
        ([w[0]], stride, padding, dilation, False, [0] * len(stride), groups, mask),
    )


CONV = [
    _conv_case("3x3-pad1", (2, 3, 6, 7), (4, 3, 3, 3), [1, 1], [1, 1], [1, 1], 1, [True, True, True]),
    _conv_case("groups2-stride2-dil2", (2, 4, 9, 8), (6, 2, 3, 2), [2, 2], [1, 2], [2, 1], 2, [True, True, True]),
    _conv_case("depthwise-stride2", (1, 8, 9, 9), (8, 1, 3, 3), [2, 2], [1, 1], [1, 1], 8, [True, True, False]),
    _conv_case("1x1-pad-beyond-kernel", (2, 3, 4, 5), (2, 3, 1, 1), [1, 1], [1, 2], [1, 1], 1, [True, True, True]),
    _conv_case("stride3-dropped-rows", (2, 2, 11, 10), (3, 2, 3, 2), [3, 2], [0, 1], [1, 1], 1, [True, True, True]),
    _conv_case("mask-weight-only", (2, 3, 5, 5), (4, 3, 3, 3), [1, 1], [0, 0], [1, 1], 1, [False, True, False]),
    _conv_case("mask-input-bias", (2, 3, 5, 5), (4, 3, 3, 3), [2, 2], [1, 1], [1, 1], 1, [True, False, True]),
    _conv_case("conv1d-groups3", (2, 6, 13), (9, 2, 4), [2], [3], [2], 3, [True, True, True]),
    _conv_case("conv3d", (1, 2, 4, 5, 4), (3, 2, 2, 3, 2), [1, 2, 1], [1, 0, 1], [1, 1, 2], 1, [True, True, True]),
    _conv_case("empty-batch", (0, 3, 5, 5), (4, 3, 3, 3), [1, 1], [1, 1], [1, 1], 1, [True, True, True]),
    _conv_case("edge-values", (1, 2, 5, 5), (2, 2, 3, 3), [1, 1], [1, 1], [1, 1], 1, [True, True, True], edge=True),
]


def _positive(*shape: int) -> Callable[[torch.Generator], Any]:
    return lambda g: torch.rand(*shape, generator=g) + 0.5


def _bn_order(tensors: list[Any], constants: tuple[Any, ...]) -> list[Any]:
    """input, weight?, bias?, running_mean, running_var, training, momentum, eps (weight/bias None when absent)."""
    x, *rest = tensors
    affine, training, momentum, eps = constants
    weight, bias = (rest[0], rest[1]) if affine else (None, None)
    mean, var = rest[-2], rest[-1]
    return [x, weight, bias, mean, var, training, momentum, eps]


def _bn_case(id: str, shape: tuple[int, ...], affine: bool, training: bool, momentum: float = 0.1) -> Case:
    c = shape[1]
    makers = [_randn(*shape)] + ([_randn(c), _randn(c)] if affine else []) + [_randn(c), _positive(c)]
    return Case(id, "_native_batch_norm_legit_functional", _tensors(*makers), (affine, training, momentum, 1e-5), _bn_order)


BATCH_NORM = [
    _bn_case("train-4d-affine", (3, 4, 5, 6), True, True),
    _bn_case("train-3d-plain", (4, 3, 7), False, True, 0.3),
    _bn_case("train-5d-affine", (2, 2, 3, 2, 3), True, True),
    _bn_case("eval-4d-affine", (2, 3, 4, 4), True, False),
    _bn_case("eval-2d-plain", (5, 3), False, False),
]


def _bnb_order(tensors: list[Any], constants: tuple[Any, ...]) -> list[Any]:
    """grad_out, input, weight?, running_mean, running_var, save_mean, save_invstd, train, eps, output_mask."""
    g, x, *rest = tensors
    affine, train, eps, mask = constants
    weight = rest.pop(0) if affine else None
    rm, rv, sm, si = rest
    return [g, x, weight, rm, rv, sm, si, train, eps, mask]


def _bnb_case(id: str, shape: tuple[int, ...], affine: bool, train: bool, mask: list[bool], edge: bool = False) -> Case:
    c = shape[1]
    makers = [_randn(*shape, edge=edge), _randn(*shape)] + ([_randn(c)] if affine else [])
    makers += [_randn(c), _positive(c), _randn(c), _positive(c)]
    return Case(id, "native_batch_norm_backward", _tensors(*makers), (affine, train, 1e-5, mask), _bnb_order)


BATCH_NORM_BACKWARD = [
    _bnb_case("train-affine", (3, 4, 5, 2), True, True, [True, True, True]),
    _bnb_case("train-plain-3d", (4, 3, 6), False, True, [True, False, False]),
    _bnb_case("eval-affine", (2, 3, 4, 4), True, False, [True, True, True]),
    _bnb_case("train-mask-params-only", (2, 5, 3, 3), True, True, [False, True, True]),
    _bnb_case("train-edge-grad", (2, 2, 3, 3), True, True, [True, True, True], edge=True),
]


def _pool_case(id: str, shape: tuple[int, ...], k: list[int], s: list[int], p: list[int], d: list[int], ceil: bool,
               edge: bool = False) -> Case:
    def make(g: torch.Generator) -> list[Any]:
        x = _randn(*shape, edge=edge)(g)
        values, indices = torch.ops.aten.max_pool2d_with_indices.default(x, k, s, p, d, ceil)
        return [torch.randn(values.shape, generator=g), x, indices]

    def order(tensors: list[Any], constants: tuple[Any, ...]) -> list[Any]:
        grad, x, indices = tensors
        return [grad, x, *constants, indices]

    return Case(id, "max_pool2d_with_indices_backward", make, (k, s, p, d, ceil), order)


MAX_POOL_BACKWARD = [
    _pool_case("2x2", (2, 3, 6, 8), [2, 2], [2, 2], [0, 0], [1, 1], False),
    _pool_case("3x3-overlapping", (1, 2, 7, 7), [3, 3], [1, 1], [1, 1], [1, 1], False),
    _pool_case("dilated-ceil", (2, 2, 9, 8), [2, 3], [2, 2], [1, 1], [2, 1], True),
    _pool_case("unbatched-nan", (3, 6, 6), [2, 2], [2, 1], [0, 1], [1, 1], False, edge=True),
]


def _avg_case(id: str, shape: tuple[int, ...], k: list[int], s: list[int], p: list[int], ceil: bool, include: bool,
              override: int | None = None, edge: bool = False) -> Case:
    x = torch.empty(shape)
    y = torch.ops.aten.avg_pool2d.default(x, k, s, p, ceil, include, override)
    return Case(id, "avg_pool2d_backward", _tensors(_randn(*y.shape, edge=edge), _randn(*shape)),
                (k, s, p, ceil, include, override))


AVG_POOL_BACKWARD = [
    _avg_case("2x2", (2, 3, 6, 8), [2, 2], [2, 2], [0, 0], False, True),
    _avg_case("3x3-pad-exclude", (1, 2, 7, 6), [3, 3], [2, 2], [1, 1], False, False),
    _avg_case("ceil-include", (2, 2, 8, 7), [3, 2], [2, 2], [1, 1], True, True),
    _avg_case("ceil-exclude", (2, 2, 8, 7), [3, 3], [2, 3], [1, 0], True, False),
    _avg_case("override-overlap", (1, 3, 5, 5), [3, 3], [1, 1], [1, 1], False, True, 4),
    _avg_case("unbatched-edge", (3, 6, 6), [2, 3], [3, 2], [1, 1], False, False, edge=True),
]

def _ln_case(id: str, shape: tuple[int, ...], normalized: list[int], affine: tuple[bool, bool], mask: list[bool],
             edge: bool = False) -> Case:
    """native_layer_norm_backward with the forward's own mean and rstd (inputs of the program)."""
    def make(g: torch.Generator) -> list[Any]:
        x = torch.randn(*shape, generator=g)
        weight = torch.randn(*normalized, generator=g) if affine[0] else None
        bias = torch.randn(*normalized, generator=g) if affine[1] else None
        _, mean, rstd = torch.ops.aten.native_layer_norm.default(x, normalized, weight, bias, 1e-5)
        grad = _randn(*shape, edge=edge)(g)
        return [t for t in (grad, x, mean, rstd, weight, bias) if t is not None]

    def order(tensors: list[Any], constants: tuple[Any, ...]) -> list[Any]:
        grad, x, mean, rstd, *params = tensors
        weight = params.pop(0) if affine[0] else None
        bias = params.pop(0) if affine[1] else None
        return [grad, x, normalized, mean, rstd, weight, bias, constants[-1]]

    return Case(id, "native_layer_norm_backward", make, (mask,), order)


LAYER_NORM_BACKWARD = [
    _ln_case("affine-last-dim", (3, 4, 6), [6], (True, True), [True, True, True]),
    _ln_case("two-dims-weight-only", (2, 3, 4, 5), [4, 5], (True, False), [True, True, False]),
    _ln_case("plain", (5, 7), [7], (False, False), [True, False, False]),
    _ln_case("whole-tensor", (3, 4), [3, 4], (True, True), [True, True, True]),
    _ln_case("params-only-edge", (4, 6), [6], (True, True), [False, True, True], edge=True),
    _ln_case("empty-rows", (0, 5), [5], (True, True), [True, True, True]),
]


def _gn_case(id: str, shape: tuple[int, ...], groups: int, affine: bool, mask: list[bool], edge: bool = False) -> Case:
    """native_group_norm_backward with the forward's own mean and rstd (inputs of the program)."""
    n, c = shape[0], shape[1]
    hw = int(np.prod(shape[2:]))

    def make(g: torch.Generator) -> list[Any]:
        x = torch.randn(*shape, generator=g)
        weight = torch.randn(c, generator=g) if affine else None
        _, mean, rstd = torch.ops.aten.native_group_norm.default(x, weight, None, n, c, hw, groups, 1e-5)
        grad = _randn(*shape, edge=edge)(g)
        return [t for t in (grad, x, mean, rstd, weight) if t is not None]

    def order(tensors: list[Any], constants: tuple[Any, ...]) -> list[Any]:
        grad, x, mean, rstd, *params = tensors
        return [grad, x, mean, rstd, params[0] if params else None, n, c, hw, groups, constants[-1]]

    return Case(id, "native_group_norm_backward", make, (mask,), order)


GROUP_NORM_BACKWARD = [
    _gn_case("affine", (2, 6, 3, 4), 3, True, [True, True, True]),
    _gn_case("plain-one-group", (3, 4, 5), 1, False, [True, False, False]),
    _gn_case("per-channel-params-only", (2, 4, 2, 2), 4, True, [False, True, True]),
    _gn_case("edge-grad", (2, 4, 3, 3), 2, True, [True, True, True], edge=True),
]


def _adaptive_case(id: str, shape: tuple[int, ...], out: list[int], edge: bool = False) -> Case:
    op = f"_adaptive_avg_pool{len(out)}d_backward"
    return Case(id, op, _tensors(_randn(*shape[:-len(out)], *out, edge=edge), _randn(*shape)), ())


ADAPTIVE_AVG_POOL_BACKWARD = [
    _adaptive_case("uneven-overlapping", (2, 3, 7, 5), [3, 2]),
    _adaptive_case("upsampling-windows", (1, 2, 3, 4), [5, 6]),
    _adaptive_case("unbatched-edge", (3, 6, 9), [4, 4], edge=True),
    _adaptive_case("3d-uneven", (1, 2, 3, 5, 5), [2, 2, 3]),
    _adaptive_case("3d-unbatched-edge", (2, 4, 3, 5), [3, 2, 2], edge=True),
]


def _emb_case(id: str, shape: tuple[int, ...], num: int, padding_idx: int, freq: bool) -> Case:
    def make(g: torch.Generator) -> list[Any]:
        idx = torch.randint(0, num, shape, generator=g)
        idx.view(-1)[0] = max(padding_idx, 0)  # the padding row occurs, and some index repeats
        return [torch.randn(*shape, 5, generator=g), idx]

    return Case(id, "embedding_dense_backward", make, (num, padding_idx, freq))


EMBEDDING_BACKWARD = [
    _emb_case("plain", (4, 6), 7, -1, False),
    _emb_case("padding-idx", (3, 5), 6, 2, False),
    _emb_case("scale-by-freq", (2, 8), 4, 1, True),
]

CASES = [
    *[pytest.param(c, id=f"conv-{c.id}") for c in CONV],
    *[pytest.param(c, id=f"bn-{c.id}") for c in BATCH_NORM],
    *[pytest.param(c, id=f"bnb-{c.id}") for c in BATCH_NORM_BACKWARD],
    *[pytest.param(c, id=f"maxpool-{c.id}") for c in MAX_POOL_BACKWARD],
    *[pytest.param(c, id=f"avgpool-{c.id}") for c in AVG_POOL_BACKWARD],
    *[pytest.param(c, id=f"lnb-{c.id}") for c in LAYER_NORM_BACKWARD],
    *[pytest.param(c, id=f"emb-{c.id}") for c in EMBEDDING_BACKWARD],
    *[pytest.param(c, id=f"gnb-{c.id}") for c in GROUP_NORM_BACKWARD],
    *[pytest.param(c, id=f"adaptive-{c.id}") for c in ADAPTIVE_AVG_POOL_BACKWARD],
]


def _inputs(case: Case) -> list[Any]:
    return case.tensors(torch.Generator().manual_seed(0))


@pytest.mark.parametrize("case", CASES)
def test_rule_in_the_interpreter(case: Case) -> None:
    """After to-core-aten, with the operator rewritten by its rule, the interpreter matches eager."""
    module, inputs, want = _exported(case)
    core = _decomposed(module, f"aten.{case.op}.default")
    _same(ProgramRunner(core).run([np.copy(x) for x in inputs]), want)


@pytest.mark.parametrize("case", CASES)
def test_lowered(case: Case) -> None:
    """`to-core-aten,convert-exir-to-linalg` (the lowering decomposes the operator) in xDSL's interpreter."""
    module, inputs, want = _exported(case)
    lowered = lower_to_upstream(to_core(module))
    _same(run_lowered(lowered, [np.copy(x) for x in inputs]), want)


SWEEP = os.environ.get("EXIR_TORCH_COMPILE_SWEEP") == "1"

IREE_CASES = [p for p in CASES if SWEEP or p.id in {
    "conv-groups2-stride2-dil2", "conv-depthwise-stride2", "conv-1x1-pad-beyond-kernel", "conv-empty-batch",
    "conv-edge-values", "bn-train-4d-affine", "bnb-train-edge-grad", "maxpool-3x3-overlapping",
    "avgpool-ceil-exclude", "lnb-two-dims-weight-only", "emb-scale-by-freq", "gnb-affine",
    "adaptive-uneven-overlapping",
}]
"""The corners compiled by IREE (all of them with EXIR_TORCH_COMPILE_SWEEP=1)."""

IREE = ProgramBatch(core=True)
"""Each corner's program, lowered as `compile_program` lowers it, compiled with the others (`tests/iree_compiles.py`)."""
for _p in IREE_CASES:
    IREE.add(str(_p.id), lambda case=_p.values[0]: _exported(case)[0])


@needs_iree
@pytest.mark.parametrize("case", IREE_CASES)
def test_iree(case: Case, request: pytest.FixtureRequest) -> None:
    _, inputs, want = _exported(case)
    name = request.node.callspec.id
    native = ProgramRunner(IREE.program(name), executor=IREE.executor(name))
    _same(native.run([np.copy(x) for x in inputs]), want)


# -- the generic multi-result form in decompose -------------------------------------------------


def test_generic_multi_result_call_is_decomposed_per_element() -> None:
    """
    A non-core multi-result operator in the generic form (`var_mean`: one call with
    a tuple result, read by getitems) is replaced by its rule's values, one per
    getitem: to-core-aten leaves neither the call nor a getitem of it, and the
    program still matches eager.
    """
    from torch._functorch.aot_autograd import aot_export_module

    from xdsl_exir.frontends.torch_live import import_graph_module

    class Net(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            var, mean = torch.var_mean(x, 1)
            return (var * 2 + mean, mean)

    x = torch.randn(3, 5)
    x[1, 2] = float("nan")
    gm, _ = aot_export_module(Net(), (x,), trace_joint=False)
    module = import_graph_module(gm, [x])
    assert any(getattr(op, "target", None) is not None and op.target.data == "aten.var_mean.correction" for op in module.walk())
    core = to_core(module)
    names = {op.name for op in core.walk()}
    assert "exir.getitem" not in names and "aten.var.correction" in names
    _same(ProgramRunner(core).run([x.numpy()]), [t.numpy() for t in Net()(x)])


def test_generic_tuple_used_whole_is_refused_by_name() -> None:
    """A generic multi-result call whose tuple is used whole (returned as it is) cannot be replaced
    element by element: decompose leaves it, and to-core-aten refuses it by name and place."""
    from xdsl.utils.exceptions import PassFailedException

    from xdsl_exir.targets.iree import lowering_context
    from xdsl_exir.utils.mlir_parser import ResourceParser

    ty = "!exir.tuple<!exir.tensor<[3], float32>, !exir.tensor<[3], float32>>"
    text = f"""
builtin.module {{
  exir.program inputs [<user_input "x">] outputs [<user_output "r">] {{
    exir.graph @forward(%x: !exir.tensor<[3, 4], float32>) -> {ty} {{
      %t = exir.call_function "aten.var_mean.correction"(%x, [1]) {{correction = 1 : i64}} : (!exir.tensor<[3, 4], float32>) -> {ty}
      exir.output %t : {ty}
    }}
  }}
}}
"""
    with pytest.raises(PassFailedException, match=r"'aten\.var_mean\.correction' is not a core ATen operator"):
        to_core(ResourceParser(lowering_context(), text, "test.mlir").parse_module())


# -- whole joint graphs --------------------------------------------------------------------------


class _ConvNet(torch.nn.Module):
    """Convolutions (grouped, strided), batch norms in training mode, max and average pooling."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(8)
        self.dw = torch.nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8)
        self.bn2 = torch.nn.BatchNorm2d(8)
        self.fc = torch.nn.Linear(8 * 2 * 2, 4)

    def forward(self, x: Any) -> Any:
        x = torch.nn.functional.max_pool2d(torch.relu(self.bn1(self.conv1(x))), 2)
        x = torch.nn.functional.avg_pool2d(torch.nn.functional.relu6(self.bn2(self.dw(x))), 2, ceil_mode=True)
        return self.fc(x.flatten(1))


class _TextNet(torch.nn.Module):
    """An embedding, a layer norm, attention written out (softmax of scaled products) and a GELU MLP."""

    def __init__(self) -> None:
        super().__init__()
        self.emb = torch.nn.Embedding(11, 8, padding_idx=0)
        self.ln = torch.nn.LayerNorm(8)
        self.qkv = torch.nn.Linear(8, 24)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 8))

    def forward(self, tokens: Any) -> Any:
        x = self.ln(self.emb(tokens))
        q, k, v = self.qkv(x).split(8, dim=-1)
        x = x + torch.softmax(q @ k.transpose(-2, -1) / 8**0.5, dim=-1) @ v
        return x + self.mlp(x)


@pytest.mark.parametrize("kind", ["cnn", "text"])
def test_joint_graph_lowers_whole(kind: str) -> None:
    """
    A joint forward/backward graph from `aot_export_module` (no decompositions: the
    backward operators as autograd writes them, in the generic form) goes through
    `to-core-aten` and `convert-exir-to-linalg` whole; the loss, every gradient and the
    batch norms' updated statistics match eager on the interpreter and on IREE.
    """
    from torch._functorch.aot_autograd import aot_export_module

    from xdsl_exir.frontends.torch_live import import_graph_module

    torch.manual_seed(0)
    inner: torch.nn.Module = _ConvNet() if kind == "cnn" else _TextNet()
    x = torch.randn(4, 3, 12, 12) if kind == "cnn" else torch.tensor([[1, 4, 0, 7, 4], [10, 2, 2, 0, 3]])

    class Loss(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, x: Any) -> Any:
            return (self.inner(x).square().mean(),)

    net = Loss().train()
    gm, sig = aot_export_module(net, (x,), trace_joint=True, output_loss_index=0)
    state = dict(net.named_parameters()) | dict(net.named_buffers())
    example = [state[n].detach().clone() for n in (*sig.parameters, *sig.buffers)] + [x]
    want = [t.detach().numpy() for t in gm(*[t.clone() for t in example])]
    module = import_graph_module(gm, example)
    inputs = [t.numpy() for t in example]
    _same(ProgramRunner(to_core(module)).run([np.copy(a) for a in inputs]), want, rtol=1e-4, atol=1e-5)
    lower_to_upstream(to_core(module))  # the whole graph lowers (the backward operators through their rules)
    if iree_available():
        got = compile_program(module, IreeOptions(threads=1, use_cache=False))(*inputs)
        _same(list(got), want, rtol=1e-4, atol=1e-5)
