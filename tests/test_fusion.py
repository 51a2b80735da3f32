"""fold-conv-bn, fuse-pointwise (and the fusion group kernel), replace-activation."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

import pass_harness as ph

from xdsl_exir.dialects.exir import FusionGroupOp

LSTM_TYPES = "x=f32[3,10];hx=f32[3,20];cx=f32[3,20];w_ih=f32[80,10];w_hh=f32[80,20];b_ih=f32[80];b_hh=f32[80]"
ZOO = [(m["name"], ir) for m in ph.zoo_models() for ir in ("train", "core")]


def _lstm():
    from xdsl_exir.frontends.torchscript_dump_reader import parse_torchscript

    path = Path(__file__).parent / "torchscript" / "dumps" / "lstm_cell.txt"
    module = parse_torchscript(path.read_text(), path.name)
    return ph.apply(module, f'torchscript-to-exir{{input-types="{LSTM_TYPES}"}}')


def _groups(module):
    return [op for op in module.walk() if isinstance(op, FusionGroupOp)]


def _exact(module, pipeline, seeds=(0, 1)):
    """The pipeline's outputs equal the original's bit for bit."""
    after = ph.apply(module, pipeline)
    for seed in seeds:
        xs = ph.random_flat_inputs(module, seed)
        for got, want in zip(ph.run(after, xs), ph.run(module, xs), strict=True):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
    return after


# -- fuse-pointwise ----------------------------------------------------------------


@pytest.mark.parametrize(("name", "ir"), ZOO)
def test_fuse_pointwise_preserves_zoo(name: str, ir: str) -> None:
    ph.assert_preserves(ph.load_zoo(name, ir), "fuse-pointwise")


def test_lstm_cell_groups_like_seed() -> None:
    """The JIT Technical Overview: FusionGroup_0 holds the 3 gate adds, FusionGroup_1 the 9 ops after chunk."""
    after = _exact(_lstm(), "fuse-pointwise")
    groups = _groups(after)
    assert [[op.name for op in g.body.block.ops][:-1] for g in groups] == [
        ["aten.add.Tensor"] * 3,
        ["aten.sigmoid.default", "aten.sigmoid.default", "aten.tanh.default", "aten.sigmoid.default",
         "aten.mul.Tensor", "aten.mul.Tensor", "aten.add.Tensor", "aten.tanh.default", "aten.mul.Tensor"],
    ]
    assert [len(g.results) for g in groups] == [1, 2]  # gates; cy and hy
    # nothing pointwise is left outside a group
    outside = [op.name for op in after.walk() if op.parent_op() not in groups and "aten.add" in op.name]
    assert outside == []


def test_fusion_group_is_bit_exact_on_zoo() -> None:
    """The in-place kernel computes what the unfused ops compute, bit for bit."""
    for name in ("resnet_blocks", "attention", "half_precision", "int_ops", "dynamic_batch"):
        _exact(ph.load_zoo(name, "core"), "fuse-pointwise")


def test_fusion_group_overwrites_dead_conv_output() -> None:
    """A group that is the only user of a convolution's result reuses its buffer."""
    from xdsl_exir.interpreters.compiler import CompileContext
    from xdsl_exir.interpreters.fusion_functions import _FusedKernel  # pyright: ignore[reportPrivateUsage] - the kernel class under test

    folded = ph.apply(ph.load_zoo("resnet_blocks", "core"), "fold-conv-bn")
    after = _exact(folded, "fuse-pointwise")
    group = _groups(after)[0]
    source = _FusedKernel(group, CompileContext()).source
    # the add writes into the convolution's result, the relu into the add's
    assert "v0 = np.add(a0, a1, out=a0)" in source and "np.maximum(v0, _z1, out=v1)" in source
    assert "v1 = v0" in source and "np.empty" not in source


HARDSWISH = """
builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "d">] {
    exir.graph @forward(%x: !exir.tensor<[2, 8], DT>) -> !exir.tensor<[2, 8], DT> {
      %a = aten.add.Tensor(%x, 3) : (!exir.tensor<[2, 8], DT>) -> !exir.tensor<[2, 8], DT>
      %c = aten.clamp.default(%a, 0, 6) : (!exir.tensor<[2, 8], DT>) -> !exir.tensor<[2, 8], DT>
      %m = aten.mul.Tensor(%x, %c) : (!exir.tensor<[2, 8], DT>, !exir.tensor<[2, 8], DT>) -> !exir.tensor<[2, 8], DT>
      %d = aten.div.Tensor(%m, 6) : (!exir.tensor<[2, 8], DT>) -> !exir.tensor<[2, 8], DT>
      exir.output %d : !exir.tensor<[2, 8], DT>
    }
  }
}"""


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_fusion_group_inlines_clamp(dtype: str) -> None:
    """Core IR's hardswish (add, clamp(0, 6), mul, div) runs as four numpy calls in one group,
    the clamp one np.clip into a dead buffer; bit-exact with the unfused ops, NaN included.
    float16 is not inlined (its kernels compute in float32), and stays exact too."""
    from xdsl_exir.interpreters.compiler import CompileContext
    from xdsl_exir.interpreters.fusion_functions import _FusedKernel  # pyright: ignore[reportPrivateUsage] - the kernel class under test

    module = ph.parse(HARDSWISH.replace("DT", dtype))
    after = _exact(module, "fuse-pointwise")
    (group,) = _groups(after)
    source = _FusedKernel(group, CompileContext()).source
    if dtype == "float16":
        assert "np.clip" not in source
    else:
        assert "v1 = np.clip(v0, _c1_0, _c1_1, out=v0)" in source and "p1(" not in source
    x = np.array([[np.nan, -np.inf, np.inf, -3.0, -1.5, 0.0, 2.5, 7.0]] * 2, dtype=dtype)
    np.testing.assert_array_equal(ph.run(after, [x])[0], ph.run(module, [x])[0])


def test_fusion_group_min_size_and_bad_option() -> None:
    assert len(_groups(ph.apply(_lstm(), "fuse-pointwise{min-size=4}"))) == 1
    with pytest.raises(Exception, match="min-size must be at least 1"):
        ph.apply(_lstm(), "fuse-pointwise{min-size=0}")


def test_fuse_pointwise_respects_writes() -> None:
    """An in-place write between two pointwise ops closes the group: members never move past it."""
    module = ph.parse(
        """
builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "c">] {
    exir.graph @forward(%x: !exir.tensor<[4], float32>) -> !exir.tensor<[4], float32> {
      %a = aten.exp.default(%x) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      %w = aten.mul_.Tensor(%x, %x) : (!exir.tensor<[4], float32>, !exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      %b = aten.neg.default(%a) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      %c = aten.add.Tensor(%b, %x) : (!exir.tensor<[4], float32>, !exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      exir.output %c : !exir.tensor<[4], float32>
    }
  }
}"""
    )
    after = _exact(module, "fuse-pointwise")
    (group,) = _groups(after)
    assert [op.name for op in group.body.block.ops][:-1] == ["aten.neg.default", "aten.add.Tensor"]


# -- fold-conv-bn ------------------------------------------------------------------


@pytest.mark.parametrize("ir", ["train", "core"])
@pytest.mark.parametrize("name", ["cnn_bn", "resnet_blocks"])
def test_fold_conv_bn_zoo(name: str, ir: str) -> None:
    after = ph.assert_preserves(ph.load_zoo(name, ir), "fold-conv-bn,verify-export-ir", rtol=1e-4, atol=1e-5)
    assert not [op.name for op in after.walk() if "batch_norm" in op.name]
    state = {op.sym_name.data for op in after.walk() if op.name == "exir.state"}
    assert not any(s.endswith(("running_mean", "running_var")) for s in state)


def test_fold_conv_bn_weights_match_torch() -> None:
    torch = pytest.importorskip("torch")
    from torch.nn.utils.fusion import fuse_conv_bn_weights

    from xdsl_exir.transforms.fold_conv_bn import fold_weights

    g = torch.Generator().manual_seed(0)
    w, b = torch.randn(6, 3, 3, 3, generator=g), torch.randn(6, generator=g)
    mean, var = torch.randn(6, generator=g), torch.rand(6, generator=g) + 0.5
    gamma, beta = torch.randn(6, generator=g), torch.randn(6, generator=g)
    tw, tb = fuse_conv_bn_weights(w, b, mean, var, 1e-5, gamma, beta)
    ow, ob = fold_weights(*(t.numpy() for t in (w, b, mean, var, gamma, beta)), 1e-5)
    np.testing.assert_allclose(ow, tw.detach().numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ob, tb.detach().numpy(), rtol=1e-6, atol=1e-7)


def _conv_bn_module(torch, bias: bool, reuse_conv: bool = False):
    class ConvBN(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3, bias=bias)
            self.bn = torch.nn.BatchNorm2d(4)

        def forward(self, x):
            y = self.conv(x)
            out = torch.relu(self.bn(y))
            return out + y.sum() if reuse_conv else out

    torch.manual_seed(0)
    m = ConvBN()
    with torch.no_grad():
        m.bn.running_mean.uniform_(-1, 1)
        m.bn.running_var.uniform_(0.5, 2)
        m.bn.weight.uniform_(0.5, 2)
        m.bn.bias.uniform_(-1, 1)
    return m.eval()


@pytest.mark.parametrize("bias", [False, True])
def test_fold_conv_bn_fx_level(bias: bool) -> None:
    """torch.fx: Practical Program Capture and Transformation, §8 on a symbolic_trace'd module: the BN call_module goes, results unchanged."""
    torch = pytest.importorskip("torch")
    from xdsl_exir.frontends.torch_live import import_graph_module

    m = _conv_bn_module(torch, bias)
    x = torch.randn(2, 3, 8, 8)
    module = import_graph_module(torch.fx.symbolic_trace(m), (x,))
    after = ph.assert_preserves(module, "fold-conv-bn", rtol=1e-4, atol=1e-5)
    modules = [op.module_class.data for op in after.walk() if op.name == "fx.call_module"]
    assert modules == ["torch.nn.modules.conv.Conv2d"]
    assert not any(op.sym_name.data.startswith("bn.") for op in after.walk() if op.name == "exir.state")
    with torch.no_grad():
        want = m(x).numpy()
    np.testing.assert_allclose(ph.run(after, [x.numpy()])[0], want, rtol=1e-4, atol=1e-5)


def test_fold_conv_bn_keeps_conv_with_other_users() -> None:
    torch = pytest.importorskip("torch")
    from xdsl_exir.frontends.torch_live import import_graph_module

    m = _conv_bn_module(torch, True, reuse_conv=True)
    module = import_graph_module(torch.fx.symbolic_trace(m), (torch.randn(2, 3, 8, 8),))
    after = ph.assert_preserves(module, "fold-conv-bn")
    assert [op.module_class.data for op in after.walk() if op.name == "fx.call_module"] == [
        "torch.nn.modules.conv.Conv2d",
        "torch.nn.modules.batchnorm.BatchNorm2d",
    ]


# -- replace-activation ---------------------------------------------------------------


def test_replace_activation_fx_matches_torch() -> None:
    """Figure 2 of torch.fx: Practical Program Capture and Transformation: relu -> gelu in every FX spelling equals the model written with gelu."""
    torch = pytest.importorskip("torch")
    from xdsl_exir.frontends.torch_live import import_graph_module

    class Net(torch.nn.Module):
        def __init__(self, act: str) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(6, 6)
            self.act = torch.nn.ReLU() if act == "relu" else torch.nn.GELU()
            self.fn = torch.relu if act == "relu" else torch.nn.functional.gelu

        def forward(self, x):
            x = self.fn(self.fc(x))
            x = torch.nn.functional.relu(x) if self.fn is torch.relu else torch.nn.functional.gelu(x)
            x = x.relu() if self.fn is torch.relu else torch.nn.functional.gelu(x)
            return self.act(x - 0.5)

    torch.manual_seed(0)
    relu_net, gelu_net = Net("relu"), Net("gelu")
    gelu_net.load_state_dict(relu_net.state_dict())
    x = torch.randn(3, 6)
    module = import_graph_module(torch.fx.symbolic_trace(relu_net), (x,))
    after = ph.apply(module, "replace-activation{from=relu to=gelu}")
    ops = [op for op in after.walk() if op.name.startswith(("fx.", "exir.call_function"))]
    names = [getattr(op, "module_class", getattr(op, "target", None)).data for op in ops]
    assert not [n for n in names if "relu" in n.lower()], names
    with torch.no_grad():
        want = gelu_net(x).numpy()
    np.testing.assert_allclose(ph.run(after, [x.numpy()])[0], want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("name", "ir"), [("cnn_bn", "core"), ("resnet_blocks", "train"), ("mlp", "core")])
def test_replace_activation_aten(name: str, ir: str) -> None:
    module = ph.load_zoo(name, ir)
    after = ph.apply(module, "replace-activation{from=relu to=gelu}")
    assert not [op for op in after.walk() if op.name == "aten.relu.default"]
    assert [op for op in after.walk() if op.name == "aten.gelu.default"]
    # gelu(x) == relu(x) only where x >= 0 or far below 0: the outputs must change
    xs = ph.random_flat_inputs(module, 0)
    assert not np.allclose(ph.run(after, xs)[0], ph.run(module, xs)[0])
    # and replacing an activation by itself changes nothing
    ph.assert_preserves(module, "replace-activation{from=relu to=relu}")


def test_replace_activation_bad_option() -> None:
    with pytest.raises(Exception, match="from=swish is not a known activation"):
        ph.apply(ph.load_zoo("mlp", "core"), "replace-activation{from=swish to=gelu}")
