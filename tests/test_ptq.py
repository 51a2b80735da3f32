"""PTQ (torch.fx: Practical Program Capture and Transformation, §9): insert-observers, calibrate through the interpreter, quantize."""

from __future__ import annotations

import numpy as np
import pass_harness as ph
import pytest
from xdsl.utils.exceptions import PassFailedException, VerifyException

from xdsl_exir.dialects.exir import InputKind, OutputKind, ProgramOp
from xdsl_exir.transforms.calibrate import calibrate
from xdsl_exir.transforms.quantization import activation_qparams, observer_states, weight_qparams

ZOO_INPUTS = ph.ZOO


def _zoo_inputs(name: str) -> list[np.ndarray]:
    data = np.load(ZOO_INPUTS / f"{name}.inputs.npz")
    return [data[k] for k in data.files]


def _program(module: object) -> ProgramOp:
    return next(o for o in module.walk() if isinstance(o, ProgramOp))  # pyright: ignore[reportAttributeAccessIssue] - a ModuleOp, typed object so tests can pass any IR


@pytest.mark.parametrize(("name", "ir", "observers"), [("mlp", "train", 3), ("mlp", "core", 3), ("cnn_bn", "train", 3)])
def test_observers_preserve_and_calibrate(name: str, ir: str, observers: int) -> None:
    module = ph.load_zoo(name, ir)
    xs = _zoo_inputs(name)
    observed = ph.assert_preserves(module, "insert-observers", inputs=[xs])
    names = observer_states(observed)
    assert len(names) == observers
    prog = _program(observed)
    assert sum(s.output_kind is OutputKind.buffer_mutation for s in prog.outputs.data) == observers
    cal = calibrate(observed, [xs])
    # The first observer watches the user input: its range is the input's.
    first = cal.clone()
    from xdsl_exir.interpreters.program import ProgramRunner

    state = ProgramRunner(first).state
    np.testing.assert_allclose(state[names[0]], [xs[0].min(), xs[0].max()], rtol=1e-6)


@pytest.mark.parametrize(("name", "ir"), [("mlp", "train"), ("mlp", "core"), ("cnn_bn", "train"), ("cnn_bn", "core")])
def test_quantized_close_to_fp32(name: str, ir: str) -> None:
    module = ph.load_zoo(name, ir)
    xs = _zoo_inputs(name)
    observed = ph.apply(module, "insert-observers")
    cal = calibrate(observed, [xs] + [ph.random_flat_inputs(module, s) for s in range(2)])
    q = ph.apply(cal, "quantize")
    ops = {o.name for o in q.walk()}
    assert not ({"aten.linear.default", "aten.addmm.default"} & ops)
    assert "aten.convolution.default" not in ops or name == "cnn_bn"
    prog = _program(q)
    assert not observer_states(q)
    assert all(s.output_kind is not OutputKind.buffer_mutation or "observer" not in (s.target_name or "") for s in prog.outputs.data)
    int8 = [s for s in prog.state().values() if "int8" in str(s.state_type)]
    assert int8 and all(s.sym_name.data.endswith("_qweight") for s in int8)
    # float weights are gone from the signature
    assert not any(s.input_kind is InputKind.parameter and s.arg_name.data.endswith("_weight") and "bn" not in s.arg_name.data for s in prog.inputs.data)
    want = ph.run(module, xs)[0]
    got = ph.run(q, xs)[0]
    assert got.dtype == want.dtype and got.shape == want.shape
    rel = np.linalg.norm(got - want) / np.linalg.norm(want)
    assert rel < 0.02, rel


def test_quantize_uncalibrated_is_diagnosed() -> None:
    observed = ph.apply(ph.load_zoo("mlp", "train"), "insert-observers")
    with pytest.raises((VerifyException, PassFailedException), match="calibrate"):
        ph.apply(observed, "quantize")


def test_bad_option_is_diagnosed() -> None:
    with pytest.raises((VerifyException, PassFailedException), match="unknown op"):
        ph.apply(ph.load_zoo("mlp", "train"), "insert-observers{ops=linear,softmax}")


def test_qparams() -> None:
    scale, zp = activation_qparams(-1.0, 3.0)
    assert scale == pytest.approx(4.0 / 255)
    assert -128 <= zp <= 127
    assert round(-1.0 / scale) + zp == -128
    w = np.array([[0.5, -1.0], [0.0, 0.0]], np.float32)
    q, s = weight_qparams(w)
    assert q.dtype == np.int8 and q.tolist() == [[64, -127], [0, 0]]
    np.testing.assert_allclose(s, [1.0 / 127, 1.0])


def test_matches_torch_fx_ptq_roughly() -> None:
    """Same order of error as torch.ao's FX-mode PTQ on the zoo MLP."""
    torch = pytest.importorskip("torch")
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    module = ph.load_zoo("mlp", "train")
    xs = _zoo_inputs("mlp")
    prog = _program(module)
    state = {n: torch.tensor(v) for n, v in __import__("xdsl_exir.interpreters.program", fromlist=["load_state"]).load_state(prog).items()}

    class MLP(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc1 = torch.nn.Linear(16, 32)
            self.fc2 = torch.nn.Linear(32, 32)
            self.fc3 = torch.nn.Linear(32, 8)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.fc3(torch.nn.functional.gelu(self.fc2(torch.relu(self.fc1(x))), approximate="tanh"))

    m = MLP().eval()
    m.load_state_dict(state)
    x = torch.tensor(xs[0])
    torch.backends.quantized.engine = "fbgemm" if "fbgemm" in torch.backends.quantized.supported_engines else "qnnpack"
    prepared = prepare_fx(m, get_default_qconfig_mapping(), example_inputs=(x,))
    prepared(x)
    qm = convert_fx(prepared)
    want = m(x).detach().numpy()
    np.testing.assert_allclose(ph.run(module, xs)[0], want, rtol=1e-4, atol=1e-5)
    torch_rel = np.linalg.norm(qm(x).detach().numpy() - want) / np.linalg.norm(want)
    ours = ph.run(ph.apply(calibrate(ph.apply(module, "insert-observers"), [xs]), "quantize"), xs)[0]
    ours_rel = np.linalg.norm(ours - want) / np.linalg.norm(want)
    assert ours_rel < max(3 * torch_rel, 0.02), (ours_rel, torch_rel)
