"""
The fx dialect, the live torch importer and fx interpretation.

Traced models are imported, printed and parsed back (custom and generic form),
then run by the program runner and compared with torch eager on random inputs.
"""

from __future__ import annotations

import io
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from xdsl_exir.analysis.overload_resolution import OverloadError, Typed, resolve
from xdsl_exir.dialects.exir import (
    CallFunctionOp,
    DType,
    GraphOp,
    InputKind,
    InputSpecAttr,
    IntType,
    OutputKind,
    OutputOp,
    OutputSpecAttr,
    ProgramOp,
    StateOp,
    TensorType,
)
from xdsl_exir.dialects.fx import CallMethodOp, CallModuleOp, GetAttrOp, SliceOp
from xdsl_exir.dialects.registry import get_all_dialects
from xdsl_exir.interpreters.compiler import CompileContext, InterpreterError
from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.utils.mlir_parser import ResourceParser
from xdsl_exir.utils.mlir_parser import print_module as print_text

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

from xdsl_exir.frontends.torch_live import TorchImportError, import_graph_module  # noqa: E402 - after pytest.importorskip, so the module skips without torch


@pytest.fixture(autouse=True)
def _seeded() -> None:
    """Parameters are initialized randomly; the tests are deterministic."""
    torch.manual_seed(0)


def context() -> Context:
    ctx = Context()
    ctx.load_dialect(Builtin)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx


def print_module(module: ModuleOp, generic: bool = False) -> str:
    """The module's text, weights in the resources section as the `mlir` target writes them."""
    text = io.StringIO()
    if generic:
        Printer(stream=text, print_generic_format=True).print_op(module)
    else:
        print_text(module, text, context().loaded_dialects)
    return text.getvalue()


def roundtrip(module: ModuleOp) -> ModuleOp:
    """Print, parse back and verify, in custom and generic form; the text is a fixed point."""
    text = print_module(module)
    parsed = ResourceParser(context(), text).parse_module()
    parsed.verify()
    assert print_module(parsed) == text
    generic = Parser(context(), print_module(module, generic=True)).parse_module()
    generic.verify()
    assert print_module(generic) == text
    return parsed


def trace_and_import(model: Any, inputs: Sequence[Any]) -> ModuleOp:
    gm = torch.fx.symbolic_trace(model)
    return import_graph_module(gm, tuple(inputs))


def run_and_compare(
    model: Any, inputs: Sequence[Any], rtol: float = 1e-5, atol: float = 1e-6, runs: int = 2
) -> ProgramRunner:
    """Import the traced model, round-trip it, and run it against eager on fresh random inputs."""
    module = roundtrip(trace_and_import(model, inputs))
    runner = ProgramRunner(module)
    gen = torch.Generator().manual_seed(1)
    for i in range(runs):
        fresh = [
            (torch.randn(x.shape, generator=gen).to(x.dtype) if x.is_floating_point() else x)
            if isinstance(x, torch.Tensor) and i
            else x
            for x in inputs
        ]
        with torch.no_grad():
            expected = torch.utils._pytree.tree_leaves(model(*[x.clone() if isinstance(x, torch.Tensor) else x for x in fresh]))
        got = runner(*[x.numpy() if isinstance(x, torch.Tensor) else x for x in fresh])
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            if isinstance(e, torch.Tensor):
                assert isinstance(g, np.ndarray)
                assert g.shape == tuple(e.shape)
                assert g.dtype == e.numpy().dtype
                np.testing.assert_allclose(g, e.numpy(), rtol=rtol, atol=atol)
            else:
                assert g == e
    return runner


# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.act = nn.GELU()
        self.drop = nn.Dropout(0.3)
        self.fc2 = nn.Linear(32, 8)
        self.norm = nn.LayerNorm(8)
        self.out = nn.Softmax(dim=-1)

    def forward(self, x: Any) -> Any:
        return self.out(self.norm(self.fc2(self.drop(self.act(self.fc1(x))))))


def _randomize_bn(model: nn.Module) -> None:
    """Running statistics that are not the identity, so eval-mode BN is tested."""
    gen = torch.Generator().manual_seed(0)
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=gen))
            m.running_var.copy_(torch.rand(m.running_var.shape, generator=gen) + 0.5)
            if m.affine:
                m.weight.data.copy_(torch.randn(m.weight.shape, generator=gen))
                m.bias.data.copy_(torch.randn(m.bias.shape, generator=gen))


class CNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, stride=2, padding=1, groups=2, bias=False),
            nn.BatchNorm2d(16),
            nn.SiLU(),
            nn.AvgPool2d(2, stride=1),
        )
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.flatten = nn.Flatten()
        self.head = nn.Linear(16, 5)

    def forward(self, x: Any) -> Any:
        return self.head(self.flatten(self.pool(self.features(x))))


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x: Any) -> Any:
        identity = self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        return self.relu(out)


class ResNetish(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.layer1 = BasicBlock(8, 16, 2)
        self.fc = nn.Linear(16, 4)

    def forward(self, x: Any) -> Any:
        y = self.layer1(self.stem(x))
        n = y.size(0)
        pooled = y.mean((2, 3), keepdim=True)
        flat = pooled.view(n, -1)
        logits = self.fc(torch.flatten(flat, 1))
        return logits.transpose(0, 1).contiguous(), y.shape[1], flat.reshape(y.size(0), y.size(1))


class Functional(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.randn(6, 6))
        self.b = nn.Parameter(torch.randn(6))
        self.register_buffer("scale", torch.rand(6) + 0.5)
        self.ln_w = nn.Parameter(torch.rand(6) + 0.5)

    def forward(self, x: Any, y: Any) -> Any:
        h = F.linear(x, self.w, self.b)
        h = torch.relu(h) + F.gelu(y) * self.scale
        h = 2.0 - h
        h = h ** 2 + 1 / (h.abs() + 1)
        h = F.layer_norm(h, (6,), self.ln_w, None, 1e-5)
        values, indices = torch.max(h, dim=1)
        parts = h.split(3, dim=1)
        c = torch.cat([parts[1], parts[0]], dim=1)
        s = torch.sigmoid(c)[:, 1:4] * F.softmax(h, dim=-1)[..., None, 0:3].squeeze(1)
        m = torch.where(h > 0, h, torch.zeros_like(h)).clamp(max=1.5)
        z = torch.matmul(h, self.w.t()) @ self.w
        batch = x.shape[0]
        q = z.view(batch, 2, 3).permute(0, 2, 1).reshape(batch, -1).float()
        # abs before the sum: no cancellation that would magnify rounding differences
        return values, indices, s, m, q.abs().sum(dim=-1), -h[0], h[[0, 1]], h[:, torch.tensor([0, 2])]


class Sequence1d(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(20, 8, padding_idx=0)
        self.conv = nn.Conv1d(8, 8, 3, padding=1, padding_mode="reflect")
        self.pool = nn.MaxPool1d(2)
        self.avg = nn.AvgPool1d(2)
        self.act = nn.LeakyReLU(0.2)
        self.norm = nn.LayerNorm([8, 2])
        self.logsm = nn.LogSoftmax(dim=1)

    def forward(self, tokens: Any) -> Any:
        e = self.embed(tokens).transpose(1, 2)
        e = self.act(self.conv(e))
        e = self.avg(self.pool(e))
        return self.logsm(self.norm(e).flatten(1))


# ---------------------------------------------------------------------------
# Import, round trip and run
# ---------------------------------------------------------------------------


def test_mlp_imports_round_trips_and_runs() -> None:
    model = MLP().eval()
    module = trace_and_import(model, [torch.randn(4, 16)])
    program = module.ops.first
    assert isinstance(program, ProgramOp)
    assert [s.arg_name.data for s in program.inputs.data] == ["x"]
    assert all(s.input_kind is InputKind.user_input for s in program.inputs.data)
    assert [s.output_kind for s in program.outputs.data] == [OutputKind.user_output]
    assert set(program.state()) == {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "norm.weight", "norm.bias"}
    modules = [op for op in program.walk() if isinstance(op, CallModuleOp)]
    assert [op.module_class.data for op in modules] == [
        "torch.nn.modules.linear.Linear",
        "torch.nn.modules.activation.GELU",
        "torch.nn.modules.dropout.Dropout",
        "torch.nn.modules.linear.Linear",
        "torch.nn.modules.normalization.LayerNorm",
        "torch.nn.modules.activation.Softmax",
    ]
    assert modules[1].get_config()["approximate"] == "none"
    assert modules[2].get_config()["training"] is False
    assert modules[0].state_names() == ("fc1.weight", "fc1.bias")
    run_and_compare(model, [torch.randn(4, 16)])


def test_cnn_with_batchnorm_in_eval_mode() -> None:
    model = CNN()
    _randomize_bn(model)
    model.eval()
    # the numpy convolution sums its products in another order than torch's
    # kernels: outputs that cancel to near zero differ by a few float32 ulps of
    # the summands, which rtol alone does not cover, hence the atol
    run_and_compare(model, [torch.randn(2, 3, 16, 16)], rtol=1e-5, atol=5e-6)


def test_resnet_block_with_methods() -> None:
    model = ResNetish()
    _randomize_bn(model)
    model.eval()
    module = trace_and_import(model, [torch.randn(2, 3, 8, 8)])
    text = print_module(module)
    assert 'fx.call_method "size"' in text and 'fx.call_method "view"' in text
    assert '"operator.add"' in text  # `out += identity` traces as operator.add
    assert "exir.getitem" in text  # y.shape[1]: getitem of a tuple value
    run_and_compare(model, [torch.randn(2, 3, 8, 8)], rtol=1e-5, atol=5e-6)  # conv: see the CNN test


def test_model_of_torch_functions() -> None:
    model = Functional()
    module = trace_and_import(model, [torch.randn(4, 6), torch.randn(4, 6)])
    text = print_module(module)
    for target in ("torch._C._nn.linear", "torch.relu", "torch.nn.functional.layer_norm", "operator.sub",
                   "builtins.getattr", "torch.cat", "operator.getitem"):
        assert f'"{target}"' in text, target
    assert "fx.get_attr @w" in text and "fx.slice(" in text and "fx.ellipsis" in text
    run_and_compare(model, [torch.randn(4, 6), torch.randn(4, 6)])


def test_sequence_model_with_embedding_and_1d_layers() -> None:
    model = Sequence1d().eval()
    tokens = torch.tensor([[1, 5, 0, 7, 3, 9, 2, 2], [0, 0, 4, 4, 19, 18, 1, 6]])
    run_and_compare(model, [tokens], runs=1)


def test_batchnorm_training_mode_updates_running_stats() -> None:
    model = nn.Sequential(nn.Conv2d(2, 4, 1), nn.BatchNorm2d(4), nn.BatchNorm2d(4, momentum=None)).train()
    x = torch.randn(3, 2, 5, 5)
    module = trace_and_import(model, [x])
    runner = ProgramRunner(module)
    for _ in range(2):
        x = torch.randn(3, 2, 5, 5)
        got = runner(x.numpy())[0]
        with torch.no_grad():
            expected = model(x)
        np.testing.assert_allclose(got, expected.numpy(), rtol=1e-5, atol=1e-5)
    for name in ("1.running_mean", "1.running_var", "2.running_mean", "2.running_var", "2.num_batches_tracked"):
        np.testing.assert_allclose(runner.state[name], model.get_buffer(name).numpy(), rtol=1e-5, atol=1e-6)


def test_importing_leaves_program_and_module_state_as_they_were() -> None:
    model = nn.Sequential(nn.BatchNorm1d(3)).train()
    before = model[0].running_mean.clone()
    module = trace_and_import(model, [torch.randn(4, 3) + 5])  # the typing run updates the stats...
    runner = ProgramRunner(module)
    np.testing.assert_array_equal(runner.state["0.running_mean"], before.numpy())
    torch.testing.assert_close(model[0].running_mean, before)  # ...and is undone


def test_scalar_inputs_and_python_arithmetic() -> None:
    class Scaled(nn.Module):
        def forward(self, x: Any, k: int) -> Any:
            n = x.size(1) * 2 + k
            return x * n, n, 3 - x, x // 2, 2 ** x, x.view_as(x.t().contiguous().t())

    run_and_compare(Scaled(), [torch.randn(3, 4), 5], runs=1)


def test_dtype_methods_and_integer_tensors() -> None:
    class Casts(nn.Module):
        def forward(self, x: Any) -> Any:
            i = x.long()
            return i + 1, x.half().float(), (i % 3).to(torch.float32), x.to(torch.float64).sum(), x.dim(), x.numel()

    run_and_compare(Casts(), [torch.randn(3, 4) * 10], runs=1)


class _Fn(nn.Module):
    """A traced one-input function (for the table below)."""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x: Any) -> Any:
        return self.fn(x)


_SMALL: dict[str, Callable[[Any], Any]] = {
    # indexing, after torch's applySlicing
    "select": lambda x: x[-1, 1],
    "slice with step": lambda x: x[:, ::2],
    "ellipsis": lambda x: x[..., 1],
    "none": lambda x: x[None, :, None],
    "bool mask": lambda x: x[x > 0],
    "list index": lambda x: x[[1, 0]],
    "tensor index between slices": lambda x: x[:, torch.tensor([2, 0]), 1:],
    "separated tensor indices": lambda x: x[torch.tensor([0, 1]), :, torch.tensor([1, 2])],
    "slice to a size": lambda x: x[:, : x.size(1) - 1],
    # Python operators, reflected and in place
    "scalar minus tensor": lambda x: 1 - x,
    "scalar over tensor": lambda x: 1 / (x.abs() + 1),
    "scalar to a tensor power": lambda x: 2**x,
    "floor division": lambda x: x // 0.3,
    "modulo of a scalar": lambda x: 2.0 % (x.abs() + 1),
    "comparisons and bitwise": lambda x: (x > 0) & (0.5 > x) | ~(x < -1),
    "in-place methods": lambda x: x.clone().add_(2).mul_(x),
    "in-place relu": lambda x: F.relu(x.clone(), inplace=True),
    # torch.nn.functional wrappers
    "relu6 hardtanh leaky elu": lambda x: F.relu6(x * 4) + F.hardtanh(x, -0.5, 0.5) + F.leaky_relu(x, 0.2) + F.elu(x),
    "silu mish hardswish": lambda x: F.silu(x) + F.mish(x) + F.hardswish(x) + F.hardsigmoid(x),
    "softmax family": lambda x: F.log_softmax(x, dim=1) + F.softmin(x, dim=-1) + F.softmax(x, -1),
    "gelu tanh": lambda x: F.gelu(x, approximate="tanh"),
    "dropout in eval": lambda x: F.dropout(x, 0.5, training=False),
    "pad": lambda x: F.pad(x, (1, 2)) + 1,
    "reflect pad": lambda x: F.pad(x, (1, 1), mode="reflect"),
    "max pool 1d": lambda x: F.max_pool1d(x, 2, stride=1),
    "max pool with indices": lambda x: F.max_pool2d(x[None], 2, return_indices=True),
    "adaptive pool keeping a size": lambda x: F.adaptive_avg_pool2d(x[None], (None, 2)),
    "layer and group norm": lambda x: F.layer_norm(x, (4,)) + F.group_norm(x, 3),
    "scaled dot-product attention": lambda x: F.scaled_dot_product_attention(x, x, x),
    # methods and torch functions
    "dtype methods": lambda x: x.double().half().float() + x.long().type_as(x),
    "sizes": lambda x: (x.size(), x.size(-1), x.dim(), x.numel(), x.shape[0] * x.shape[-1]),
    "factories": lambda x: x.new_zeros(2, 3) + x.new_full((2, 3), 3.0) + torch.arange(x.size(1)) + torch.zeros(2, 3),
    "views": lambda x: x[:, :1].expand(-1, 3, -1) + x.permute(2, 0, 1).contiguous().permute(1, 2, 0),
    "transposes": lambda x: x[0].T @ x[1] + x.mT.sum(),
    "squeezes": lambda x: x[:, :1].squeeze(1).unsqueeze(-1).squeeze(),
    "chunk split unbind": lambda x: (x.chunk(2, dim=-1), torch.split(x, [1, 2], dim=1), x.unbind(1)),
    "reductions": lambda x: (x.max(dim=-1), x.argmax(-1), x.sum((0, 2)), x.std(1), x.var(dim=1, unbiased=False)),
    "sort and topk": lambda x: (torch.sort(x, dim=-1, descending=True), torch.topk(x, 2, dim=-1)),
    "where masked_fill clamp": lambda x: torch.where(x > 0, x, 0.0) + x.masked_fill(x < 0, -1.0) + x.clamp(min=-0.5, max=0.5),
    "matmuls": lambda x: torch.bmm(x, x.transpose(1, 2)) + torch.einsum("bij,bkj->bik", x, x),
    "builtin abs": lambda x: abs(x),
}


@pytest.mark.parametrize("name", list(_SMALL))
def test_small_functions(name: str) -> None:
    run_and_compare(_Fn(_SMALL[name]), [torch.randn(2, 3, 4)], runs=1)


@pytest.mark.parametrize(
    "module, shape",
    [
        pytest.param(nn.Conv2d(4, 4, 3, padding="same"), (2, 4, 8, 8), id="conv same padding"),
        pytest.param(nn.Conv2d(4, 2, 3, padding="valid", dilation=2), (2, 4, 8, 8), id="conv valid dilated"),
        pytest.param(nn.Conv2d(4, 2, 3, padding=1, padding_mode="circular"), (2, 4, 8, 8), id="conv circular padding"),
        pytest.param(nn.Conv2d(4, 2, 3, padding=(1, 2), padding_mode="replicate"), (2, 4, 8, 8), id="conv replicate padding"),
        pytest.param(nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1), (2, 4, 8, 8), id="transposed conv"),
        pytest.param(nn.Conv3d(2, 2, 3, padding=1), (1, 2, 4, 4, 4), id="conv 3d"),
        pytest.param(nn.BatchNorm2d(4, track_running_stats=False), (2, 4, 8, 8), id="batch norm without tracking"),
        pytest.param(nn.BatchNorm2d(4, affine=False).eval(), (2, 4, 8, 8), id="batch norm without affine"),
        pytest.param(nn.GroupNorm(2, 4), (2, 4, 8, 8), id="group norm"),
        pytest.param(nn.LayerNorm(8, bias=False), (2, 4, 8, 8), id="layer norm without bias"),
        pytest.param(nn.MaxPool2d(3, stride=2, ceil_mode=True, padding=1), (2, 4, 8, 8), id="max pool ceil mode"),
        pytest.param(nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), (2, 4, 8, 8), id="avg pool excluding padding"),
        pytest.param(nn.AvgPool2d(2, divisor_override=3), (2, 4, 8, 8), id="avg pool divisor"),
        pytest.param(nn.AdaptiveAvgPool1d(2), (2, 3, 4), id="adaptive pool 1d"),
        pytest.param(nn.Unflatten(1, (2, 2)), (2, 4, 8, 8), id="unflatten"),
        pytest.param(nn.Sequential(nn.ELU(0.5), nn.Softplus(2.0, 5.0), nn.ReLU6(inplace=True), nn.Hardtanh(-2, 2), nn.Tanh()), (2, 4), id="activations"),
        pytest.param(nn.Softmax(), (2, 4, 8, 8), id="legacy softmax dim", marks=pytest.mark.filterwarnings("ignore::UserWarning")),
        pytest.param(nn.MaxPool1d(2, return_indices=True), (2, 3, 4), id="max pool 1d with indices"),
    ],
)
def test_leaf_modules(module: nn.Module, shape: tuple[int, ...]) -> None:
    run_and_compare(nn.Sequential(module), [torch.randn(shape)], rtol=1e-5, atol=5e-6, runs=1)  # conv: see the CNN test


def test_bfloat16_and_float16_models() -> None:
    model = nn.Sequential(nn.Linear(4, 3)).to(torch.bfloat16)
    x = torch.randn(2, 4).to(torch.bfloat16)
    runner = ProgramRunner(roundtrip(trace_and_import(model, [x])))
    (got,) = runner(x.float().numpy())
    with torch.no_grad():
        expected = model(x).float().numpy()
    # bf16 results are rounded to bf16 values; torch accumulates in float32 too,
    # so they agree to the last bf16 bit in most elements (one ulp = 2**-8 relative)
    np.testing.assert_allclose(got, expected, rtol=2**-7, atol=1e-2)
    run_and_compare(_Fn(lambda h: h * 1.5 + 1), [torch.randn(3).half()], runs=1)


def test_make_fx_graphs_with_aten_targets() -> None:
    """OpOverload targets import under their IR names and run through the core."""
    from torch.fx.experimental.proxy_tensor import make_fx

    def f(x: Any, y: Any) -> Any:
        return F.gelu(x @ y).sum(1) + torch.ops.aten.mul(x, 2).mean()

    x, y = torch.randn(3, 4), torch.randn(4, 4)
    module = roundtrip(import_graph_module(make_fx(f)(x, y), (x, y)))
    targets = {op.target.data for op in module.walk() if isinstance(op, CallFunctionOp)}
    assert {"aten.mm.default", "aten.gelu.default", "aten.mul.Tensor"} <= targets
    (got,) = ProgramRunner(module)(x.numpy(), y.numpy())
    np.testing.assert_allclose(got, f(x, y).numpy(), rtol=1e-5, atol=1e-6)
    # an overload packet dispatches like the torch function of its name
    graph = torch.fx.Graph()
    node = graph.placeholder("x")
    graph.output(graph.call_function(torch.ops.aten.add, (node, 1)))
    module = import_graph_module(torch.fx.GraphModule(nn.Module(), graph), (x,))
    assert [op.target.data for op in module.walk() if isinstance(op, CallFunctionOp)] == ["torch.add"]
    np.testing.assert_allclose(ProgramRunner(module)(x.numpy())[0], (x + 1).numpy())


def test_exported_program_imports_through_the_pt2_frontend() -> None:
    from xdsl_exir.frontends.torch_live import import_exported_program

    model = CNN()
    _randomize_bn(model)
    model.eval()
    x = torch.randn(2, 3, 16, 16)
    batch = torch.export.Dim("batch", min=1, max=8)
    ep = torch.export.export(model, (x,), dynamic_shapes=({0: batch},))
    module = import_exported_program(ep)
    program = module.ops.first
    assert isinstance(program, ProgramOp)
    assert {s.input_kind for s in program.inputs.data} == {InputKind.parameter, InputKind.buffer, InputKind.user_input}
    runner = ProgramRunner(roundtrip(module))
    for n in (2, 5):
        x = torch.randn(n, 3, 16, 16)
        with torch.no_grad():
            expected = model(x).numpy()
        np.testing.assert_allclose(runner(x.numpy())[0], expected, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


class _Custom(nn.Module):
    def forward(self, x: Any) -> Any:
        return x * 2


class _CustomLeafTracer(torch.fx.Tracer):
    def is_leaf_module(self, m: nn.Module, qualname: str) -> bool:
        return isinstance(m, _Custom) or super().is_leaf_module(m, qualname)


def test_unknown_module_class_is_a_clear_error() -> None:
    model = nn.Sequential(nn.Linear(2, 2), _Custom())
    graph = _CustomLeafTracer().trace(model)
    gm = torch.fx.GraphModule(model, graph)
    module = import_graph_module(gm, (torch.randn(1, 2),))
    with pytest.raises(InterpreterError, match=r"cannot run module '1' of class .*_Custom"):
        ProgramRunner(module)


def test_unknown_method_is_a_clear_error() -> None:
    class Odd(nn.Module):
        def forward(self, x: Any) -> Any:
            return x.not_a_tensor_method()

    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    graph.output(graph.call_method("not_a_tensor_method", (x,)))
    with pytest.raises(TorchImportError, match="failed at node 'not_a_tensor_method'"):  # torch cannot run it
        import_graph_module(torch.fx.GraphModule(Odd(), graph), (torch.randn(2),))
    t = TensorType([2], DType.float32)
    op = CallMethodOp("not_a_tensor_method", [GraphOp("g", [t], []).body.block.args[0]], None, [t])
    with pytest.raises(InterpreterError, match="tensor method 'not_a_tensor_method' is not supported"):
        from xdsl_exir.interpreters.fx_functions import compile_call_method

        compile_call_method(op, CompileContext())


def test_unrepresentable_argument_names_the_node() -> None:
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    graph.output(graph.call_function(torch.add, (x, torch.ones(2))))
    with pytest.raises(TorchImportError, match="node 'add' embeds a tensor constant"):
        import_graph_module(torch.fx.GraphModule(nn.Module(), graph), (torch.randn(2),))


# ---------------------------------------------------------------------------
# Prepared functions without a program (a minimal context)
# ---------------------------------------------------------------------------


def test_prepared_module_and_method_functions_directly() -> None:
    from xdsl_exir.interpreters.fx_functions import compile_call_method, compile_call_module, compile_fx_get_attr

    t_in, t_out = TensorType([2, 3], DType.float32), TensorType([2, 4], DType.float32)
    graph = GraphOp("forward", [t_in], [])
    x = graph.body.block.args[0]
    linear = CallModuleOp(
        "fc", "torch.nn.modules.linear.Linear", [x], None, [t_out],
        config={"in_features": 3, "out_features": 4, "training": False}, state=["weight", "bias"],
    )
    w = np.arange(12, dtype=np.float32).reshape(4, 3)
    b = np.ones(4, np.float32)
    ctx = CompileContext(state={"fc.weight": w, "fc.bias": b})
    value = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    (out,) = compile_call_module(linear, ctx)(value)
    np.testing.assert_allclose(out, value @ w.T + b, rtol=1e-6)
    view = CallMethodOp("view", [linear.res[0], -1], None, [TensorType([8], DType.float32)])
    (flat,) = compile_call_method(view, ctx)(out)
    assert flat.shape == (8,)
    size = CallMethodOp("size", [x, 1], None, [IntType()])
    assert compile_call_method(size, ctx)(value) == (3,)
    (got,) = compile_fx_get_attr(GetAttrOp("fc.weight", TensorType([4, 3], DType.float32)), ctx)()
    assert got is w


# ---------------------------------------------------------------------------
# The dialect on its own: building and verifiers
# ---------------------------------------------------------------------------


def _program_with(ops_of: Callable[[Any], list[Any]], state: list[StateOp]) -> ModuleOp:
    t = TensorType([2], DType.float32)
    graph = GraphOp("forward", [t], [t])
    x = graph.body.block.args[0]
    body = ops_of(x)
    graph.body.block.add_ops([*body, OutputOp([x])])
    program = ProgramOp(
        [InputSpecAttr(InputKind.user_input, "x")], [OutputSpecAttr(OutputKind.user_output, "x")], [*state, graph]
    )
    return ModuleOp([program])


def test_get_attr_verifier_checks_the_state() -> None:
    t = TensorType([2], DType.float32)
    good = _program_with(lambda x: [GetAttrOp("w", t)], [StateOp("w", t)])
    good.verify()
    roundtrip(good)
    with pytest.raises(VerifyException, match="get_attr target @v does not exist"):
        _program_with(lambda x: [GetAttrOp("v", t)], [StateOp("w", t)]).verify()
    with pytest.raises(VerifyException, match="is not the type"):
        _program_with(lambda x: [GetAttrOp("w", TensorType([3], DType.float32))], [StateOp("w", t)]).verify()


def test_call_module_verifier_checks_its_state() -> None:
    t = TensorType([2], DType.float32)

    def call(x: Any) -> list[Any]:
        return [CallModuleOp("lin", "torch.nn.modules.linear.Linear", [x], None, [t], state=["weight", "bias"])]

    with pytest.raises(VerifyException, match="has state 'lin.bias' but the program has no exir.state"):
        _program_with(call, [StateOp("lin.weight", t)]).verify()
    module = _program_with(call, [StateOp("lin.weight", t), StateOp("lin.bias", t)])
    module.verify()
    roundtrip(module)


def test_slice_and_call_method_verifiers() -> None:
    with pytest.raises(VerifyException, match="slice step cannot be zero"):
        SliceOp(0, 4, 0).verify()
    t = TensorType([2], DType.float32)
    op = CallMethodOp("view", [3, -1], None, [t])
    with pytest.raises(VerifyException, match="needs the object it is called on"):
        op.verify()


def test_call_function_targets_keep_python_names() -> None:
    model = Functional()
    module = trace_and_import(model, [torch.randn(4, 6), torch.randn(4, 6)])
    targets = {op.target.data for op in module.walk() if isinstance(op, CallFunctionOp)}
    assert "operator.add" in targets and "_operator.add" not in targets
    assert "builtins.getattr" in targets


# ---------------------------------------------------------------------------
# Overload resolution against TorchScript's schema matching
# ---------------------------------------------------------------------------

T = Typed(TensorType([2, 3], DType.float32), 0)
U = Typed(TensorType([2, 3], DType.float32), 1)
N = Typed(IntType(), 2)

_OVERLOAD_CASES: list[tuple[str, str, list[object], dict[str, object]]] = [
    ("x.view(2, -1)", "view", [T, 2, -1], {}),
    ("x.view([2, -1])", "view", [T, [2, -1]], {}),
    ("x + y", "add", [T, U], {}),
    ("x + 2", "add", [T, 2], {}),
    ("x.add(y, alpha=2)", "add", [T, U], {"alpha": 2}),
    ("x.mean(dim=1, keepdim=True)", "mean", [T], {"dim": 1, "keepdim": True}),
    ("x.mean()", "mean", [T], {}),
    ("x.sum(1)", "sum", [T, 1], {}),
    ("x.max(1)", "max", [T, 1], {}),
    ("torch.max(x, y)", "max", [T, U], {}),
    ("x.max()", "max", [T], {}),
    ("x.transpose(0, 1)", "transpose", [T, 0, 1], {}),
    ("torch.cat([x, y], 1)", "cat", [[T, U], 1], {}),
    ("torch.flatten(x, 1)", "flatten", [T, 1], {}),
    ("x.size(1)", "size", [T, 1], {}),
    ("x.size()", "size", [T], {}),
    ("x.pow(2)", "pow", [T, 2], {}),
    ("torch.pow(2, x)", "pow", [2, T], {}),
    ("x.pow(y)", "pow", [T, U], {}),
    ("x / 2", "div", [T, 2], {}),
    ("x.squeeze(1)", "squeeze", [T, 1], {}),
    ("x.squeeze()", "squeeze", [T], {}),
    ("x.permute(1, 0)", "permute", [T, 1, 0], {}),
    ("x.split(2)", "split", [T, 2], {}),
    ("x.split([1, 1])", "split", [T, [1, 1]], {}),
    ("x.softmax(-1)", "softmax", [T, -1], {}),
    ("x.to(torch.float16)", "to", [T, DType.float16], {}),
    ("x.to(y)", "to", [T, U], {}),
    ("torch.where(x > 0, x, y)", "where", [T, T, U], {}),
    ("torch.where(x > 0, x, 0.0)", "where", [T, T, 0.0], {}),
    ("x.clamp(min=0.0)", "clamp", [T], {"min": 0.0}),
    ("x.expand(2, -1)", "expand", [T, 2, -1], {}),
    ("x.masked_fill(x > 0, 0.0)", "masked_fill", [T, T, 0.0], {}),
    ("x.repeat(2, 1)", "repeat", [T, 2, 1], {}),
    ("x.select(0, n)", "select", [T, 0, N], {}),
    ("x.reshape(n, -1)", "reshape", [T, N, -1], {}),
    ("torch.full([2], 1.5)", "full", [[2], 1.5], {}),
    ("x.eq(y)", "eq", [T, U], {}),
    ("x.eq(1)", "eq", [T, 1], {}),
    ("x.sub(1)", "sub", [T, 1], {}),
    ("torch.stack([x, y], 0)", "stack", [[T, U], 0], {}),
    ("x.chunk(2, 1)", "chunk", [T, 2, 1], {}),
    ("x.flip([0])", "flip", [T, [0]], {}),
    ("x.new_zeros([2, 3])", "new_zeros", [T, [2, 3]], {}),
    ("x.argmax(1)", "argmax", [T, 1], {}),
    ("x.std(1)", "std", [T, 1], {}),
    ("x.var(1, keepdim=True)", "var", [T, 1], {"keepdim": True}),
]

_EQUIVALENT = {
    ("aten.std.dim", "aten.std.correction"),
    ("aten.var.dim", "aten.var.correction"),
    ("aten.split.sizes", "aten.split.default"),
}
"""Where several overloads accept a call, torch tries them in registration order,
which the (sorted) schema list does not keep; these pairs compute the same
(`unbiased=True` is `correction=1`, the default of `correction=None`; both
`split` overloads taking a list of sizes split by those sizes)."""


def _torchscript_overload(expr: str, name: str) -> str:
    src = f"def f(x: torch.Tensor, y: torch.Tensor, n: int):\n    return {expr}\n"
    graph = torch.jit.CompilationUnit(src).f.graph
    schemas = [n.schema() for n in graph.nodes() if n.kind() == f"aten::{name}"]
    assert len(schemas) == 1, schemas
    head = schemas[0].split("(", 1)[0]
    qualified, _, overload = head.partition(".")
    return f"{qualified.replace('::', '.')}.{overload or 'default'}"


@pytest.mark.parametrize("expr, name, args, kwargs", _OVERLOAD_CASES, ids=[c[0] for c in _OVERLOAD_CASES])
def test_overload_resolution_matches_torchscript(expr: str, name: str, args: list[object], kwargs: dict[str, object]) -> None:
    expected = _torchscript_overload(expr, name)
    got, _ = resolve(name, args, kwargs)
    assert got == expected or (expected, got) in _EQUIVALENT


def test_overload_resolution_binds_and_converts() -> None:
    op, bound = resolve("view", [T, N, -1])
    assert op == "aten.view.default" and bound == {"self": T, "size": [N, -1]}
    op, bound = resolve("mean", [T], {"dim": 1})
    assert op == "aten.mean.dim" and bound["dim"] == [1]  # int[1] takes a lone int
    op, bound = resolve("relu", [], {"input": T})  # `input` names `self`, as in the Python bindings
    assert op == "aten.relu.default"
    op, bound = resolve("to", [T, "cpu"])  # a str converts to a Device in the second pass
    assert op == "aten.to.prim_Device"
    op, _ = resolve("sub", [2, T])  # a wrapped number, preferring fewer conversions
    assert op == "aten.sub.Tensor"
    with pytest.raises(OverloadError, match="no overload of aten::transpose accepts"):
        resolve("transpose", [T, "a", 1.5])


def test_materialize_fills_typed_leaves_and_conversions() -> None:
    from xdsl_exir.analysis.overload_resolution import materialize, needs_filling

    op, bound = resolve("full", [[2], T])  # a tensor for `Scalar fill_value`: ScalarImplicit
    assert op == "aten.full.default" and needs_filling(bound)
    values = {0: np.array(2.5, np.float32)}
    filled = materialize(bound, lambda leaf: values[leaf.key])  # pyright: ignore[reportArgumentType] - the leaves under test have integer keys; leaf.key is typed object
    assert filled == {"size": [2], "fill_value": 2.5}
    with pytest.raises(ValueError, match="must have one element"):
        materialize(bound, lambda leaf: np.zeros(3, np.float32))


def test_overload_resolution_on_runtime_values_matches_eager_dispatch() -> None:
    """The same resolver on concrete numpy values; the kernel run agrees with eager."""
    from xdsl_exir.semantics.kernels import run_kernel

    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    cases: list[tuple[str, list[object], dict[str, object], Callable[[Any], Any]]] = [
        ("sum", [x, [0, 1]], {}, lambda t: t.sum([0, 1])),
        ("amax", [x, 1], {}, lambda t: t.amax(1)),
        ("transpose", [x, 0, 1], {}, lambda t: t.transpose(0, 1)),
        ("clamp", [x, -0.5, 0.5], {}, lambda t: t.clamp(-0.5, 0.5)),
        ("cumsum", [x, 1], {}, lambda t: t.cumsum(1)),
    ]
    for name, args, kwargs, eager in cases:
        op, bound = resolve(name, args, kwargs)
        got = run_kernel(op, [], bound)
        np.testing.assert_allclose(got, eager(torch.from_numpy(x)).numpy(), rtol=1e-5)


def test_python_operator_table_is_consistent_with_torch() -> None:
    """Each Python operator maps to the ATen operator torch's Tensor dunder calls."""
    from xdsl_exir.interpreters.fx_functions import _BINARY  # pyright: ignore[reportPrivateUsage] - the operator table under test

    x = torch.randn(3) + 3
    for name, (base, _) in _BINARY.items():
        if name in ("matmul", "lshift", "rshift", "and_", "or_", "xor"):
            continue
        fn = getattr(operator, name)
        expected = fn(x, 2.0)
        got = getattr(torch, base)(x, 2.0)
        torch.testing.assert_close(got, expected)
