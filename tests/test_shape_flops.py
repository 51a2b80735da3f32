"""
`shape-propagation` and `flop-count`: types re-inferred from the inputs agree
with torch's FakeTensor types on the whole zoo, re-typed programs still compute
the same (and what torch computes at other sizes), and `flop-count{mode=torch}`
equals `torch.utils.flop_counter.FlopCounterMode` on the zoo's inputs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pass_harness as ph
import pytest
import sympy
from test_decompose import program
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.utils.exceptions import DiagnosticException

from xdsl_exir.dialects import exir
from xdsl_exir.dialects.aten import build

ZOO = Path(__file__).parent / "zoo"
MODELS = [m["name"] for m in ph.zoo_models()]


def _program(module: ModuleOp) -> exir.ProgramOp:
    return next(op for op in module.walk() if isinstance(op, exir.ProgramOp))


def _entry_types(module: ModuleOp) -> tuple[Any, ...]:
    entry = _program(module).entry
    assert entry is not None
    return tuple(entry.function_type.outputs.data)


# -- shape-propagation --------------------------------------------------------


@pytest.mark.parametrize("ir", ["train", "core"])
@pytest.mark.parametrize("name", MODELS)
def test_reinference_matches_torch_types(name: str, ir: str) -> None:
    """With no options, every recorded (torch FakeTensor) type is what inference gives: nothing changes."""
    module = ph.load_zoo(name, ir)
    after = ph.apply(module, "shape-propagation")
    assert str(after) == str(module)


@pytest.mark.parametrize("name", ["cnn_bn", "cond", "while_loop", "map", "dynamic_attention", "shape_ops"])
def test_preserves_zoo(name: str) -> None:
    ph.assert_preserves(ph.load_zoo(name, "train"), "shape-propagation", seeds=(0,))


def test_retype_to_symbolic_batch_preserves_and_generalizes() -> None:
    module = ph.load_zoo("mlp", "train")
    pipeline = 'shape-propagation{input-types="x=f32[s0, 16]" ranges="s0=[1, 64]"}'
    after = ph.assert_preserves(module, pipeline)
    s0 = sympy.Symbol("s0", integer=True)
    (out,) = _entry_types(after)
    assert list(out.sizes) == [s0, 8]
    program = _program(after)
    assert program.ranges()[s0] == (1, 64)
    # The re-typed program runs at another batch size: rows are independent in an
    # MLP, so 8 rows at once equal two runs of the original 4-row program.
    x = np.random.default_rng(0).standard_normal((8, 16)).astype(np.float32)
    (got,) = ph.run(after, [x])
    want = np.concatenate([ph.run(module, [x[:4]])[0], ph.run(module, [x[4:]])[0]])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_symbolic_sizes_through_cond_and_sym_ops() -> None:
    module = ph.load_zoo("dynamic_batch", "core")
    after = ph.apply(module, 'shape-propagation{input-types="x=f32[2*n, 3, 4]" ranges="n=[1, 32]"}')
    n = sympy.Symbol("n", integer=True)
    mul, total = _entry_types(after)
    assert list(mul.sizes) == [2 * n, 6] and list(total.sizes) == [6]
    syms = [op for op in after.walk() if isinstance(op, exir.SymSizeOp)]
    assert syms and all(str(op.result.type) == "!exir.sym_int<2*n>" for op in syms)


def test_max_simplified_by_range() -> None:
    text = """
    exir.program inputs [<user_input "x">] outputs [<user_output "r">] ranges [<s0 in [1, 8]>] {
      exir.graph @forward(%x: !exir.tensor<[max(1, s0)], float32>) -> !exir.tensor<[max(1, s0)], float32> {
        %r = aten.relu.default(%x) : (!exir.tensor<[max(1, s0)], float32>) -> !exir.tensor<[max(1, s0)], float32>
        exir.output %r : !exir.tensor<[max(1, s0)], float32>
      }
    }"""
    after = ph.apply(ph.parse(text), "shape-propagation")
    assert "max" not in str(after) and "!exir.tensor<[s0], float32>" in str(after)


def test_contradictions_are_located_errors() -> None:
    module = ph.load_zoo("dynamic_batch", "train")
    with pytest.raises(Exception, match=r"aten.add.Tensor.*broadcasting size s0 against 6"):
        ph.apply(module, 'shape-propagation{input-types="bias=f32[s0]"}')
    with pytest.raises(DiagnosticException, match="bad size"):
        ph.apply(module, 'shape-propagation{input-types="x=f32[s0 +, 3]"}')
    # A new size the graph cannot accept (linear's inner dimension) names the op.
    with pytest.raises(Exception, match="linear"):
        ph.apply(module, 'shape-propagation{input-types="x=f32[s0, 3, 5]"}')


# -- flop-count ---------------------------------------------------------------


def _torch_total(name: str, ir: str) -> int | None:
    torch = pytest.importorskip("torch")
    from torch.utils._pytree import tree_unflatten
    from torch.utils.flop_counter import FlopCounterMode

    ep = torch.export.load(ZOO / f"{name}.{ir}.pt2")
    data = np.load(ZOO / f"{name}.inputs.npz")
    flat = [torch.from_numpy(np.array(data[f"arg{i}"])) for i in range(len(data.files))]
    args, kwargs = tree_unflatten(flat, ep.call_spec.in_spec)
    counter = FlopCounterMode(display=False)
    with counter, torch.no_grad():
        ep.module()(*args, **kwargs)
    return counter.get_total_flops()


# FlopCounterMode cannot run these through ep.module() (it returns NotImplemented
# for while_loop / map, and cond fails inside autograd bookkeeping).
_TORCH_CANNOT = {"cond", "while_loop", "map", "custom_op"}  # custom_op: torch loads it only with mylib::scale2 defined


def _size_bindings(module: ModuleOp, name: str) -> dict[sympy.Symbol, int]:
    """Symbol values from the zoo inputs' shapes, matched against the user-input types."""
    program = _program(module)
    entry = program.entry
    assert entry is not None
    data = np.load(ZOO / f"{name}.inputs.npz")
    user = [a for a, s in zip(entry.body.block.args, program.inputs.data) if s.input_kind == exir.InputKind.user_input]
    out: dict[sympy.Symbol, int] = {}
    for i, arg in enumerate(user):
        if isinstance(arg.type, exir.TensorType):
            for size, actual in zip(arg.type.sizes, np.shape(data[f"arg{i}"])):
                if isinstance(size, sympy.Symbol):
                    out[size] = actual
    return out


@pytest.mark.parametrize("ir", ["train", "core"])
@pytest.mark.parametrize("name", [m for m in MODELS if m not in _TORCH_CANNOT])
def test_flops_match_flop_counter_mode(name: str, ir: str) -> None:
    want = _torch_total(name, ir)
    after = ph.apply(ph.load_zoo(name, ir), "flop-count{report=none}")
    attr = _program(after).attributes["exir.flops"]
    got = attr.value.data if isinstance(attr, IntegerAttr) else cast_expr(attr).subs(_size_bindings(after, name))
    assert int(got) == want


def cast_expr(attr: Any) -> sympy.Expr:
    assert isinstance(attr, exir.SymExprAttr)
    return attr.data


def test_flops_of_higher_order_ops() -> None:
    # cond counts its more expensive branch, map its body times the mapped size.
    for name in ("cond", "map"):
        after = ph.apply(ph.load_zoo(name, "train"), "flop-count{report=none}")
        total = _program(after).attributes["exir.flops"]
        assert isinstance(total, IntegerAttr) and total.value.data > 0
        hop = next(op for op in after.walk() if isinstance(op, exir.CondOp | exir.MapOp))
        inner = [op for op in hop.walk() if op is not hop and "exir.flops" in op.attributes]
        assert inner, "the ops inside the region are annotated too"
        assert hop.attributes["exir.flops"] == total


def test_flop_report_file_and_all_mode(tmp_path: Path) -> None:
    report = tmp_path / "flops.txt"
    module = ph.load_zoo("cnn_bn", "train")
    torch_mode = ph.apply(module, f'flop-count{{report="{report}"}}')
    text = report.read_text()
    assert "aten.conv2d.default" in text and text.rstrip().endswith("349920")
    all_mode = ph.apply(module, "flop-count{mode=all report=none}")
    t = _program(torch_mode).attributes["exir.flops"]
    a = _program(all_mode).attributes["exir.flops"]
    assert isinstance(t, IntegerAttr) and isinstance(a, IntegerAttr) and a.value.data > t.value.data
    # Counting never changes what the program computes.
    ph.assert_preserves(module, "flop-count{report=none}", seeds=(0,))


_SDPA_CASES = {
    # q, k, v, mask shapes and keyword arguments; which of CPU's flash kernel
    # (uncounted) or math fallback (two counted bmm) torch picks varies
    "flash": ((2, 4, 8, 8), (2, 4, 8, 8), (2, 4, 8, 8), None, {}),
    "flash_mask_4d": ((2, 4, 8, 8), (2, 4, 6, 8), (2, 4, 6, 8), (2, 1, 8, 6), {}),
    "flash_mask_2d_causal": ((2, 4, 8, 8), (2, 4, 8, 8), (2, 4, 8, 8), (8, 8), {}),
    "flash_gqa": ((2, 4, 8, 8), (2, 2, 8, 8), (2, 2, 8, 8), None, {"enable_gqa": True}),
    "math_3d": ((4, 8, 8), (4, 6, 8), (4, 6, 8), None, {}),
    "math_mask_3d": ((2, 4, 8, 8), (2, 4, 8, 8), (2, 4, 8, 8), (4, 8, 8), {}),
    "math_value_dim": ((2, 4, 8, 8), (2, 4, 5, 8), (2, 4, 5, 16), None, {}),
    "math_broadcast_batch": ((2, 4, 8, 8), (1, 4, 8, 8), (1, 4, 8, 8), None, {}),
    "math_dropout": ((2, 4, 8, 8), (2, 4, 8, 8), (2, 4, 8, 8), None, {"dropout_p": 0.5}),
}


@pytest.mark.parametrize("case", sorted(_SDPA_CASES))
def test_attention_flops_follow_torch_cpu_dispatch(case: str) -> None:
    torch = pytest.importorskip("torch")
    from torch.utils.flop_counter import FlopCounterMode

    q, k, v, mask, kwargs = _SDPA_CASES[case]
    shapes = [q, k, v] if mask is None else [q, k, v, mask]
    types = [exir.TensorType(list(s), exir.DType.float32) for s in shapes]

    def body(add: Any, *xs: Any) -> list[Any]:
        m = xs[3] if mask is not None else None
        return list(add(build("aten.scaled_dot_product_attention.default", xs[0], xs[1], xs[2], m, kwargs.get("dropout_p", 0.0), enable_gqa=kwargs.get("enable_gqa", False))).results)

    counts = {}
    for mode in ("torch", "all"):
        after = ph.apply(program(types, body), f"flop-count{{mode={mode} report=none}}")
        attr = _program(after).attributes.get("exir.flops")
        counts[mode] = attr.value.data if isinstance(attr, IntegerAttr) else 0
    counter = FlopCounterMode(display=False)
    with counter, torch.no_grad():
        args = [torch.randn(s) for s in shapes]
        torch.nn.functional.scaled_dot_product_attention(*args[:3], attn_mask=args[3] if mask is not None else None, **kwargs)
    assert counts["torch"] == counter.get_total_flops()
    assert counts["torch"] == (0 if case.startswith("flash") else counts["all"])
    assert counts["all"] > 0


def test_flops_of_out_and_inplace_variants_follow_torch() -> None:
    """Flop tables are keyed by functional overload: `addmm.out` counts as `addmm`, while
    `addmm_` does not count, as in FlopCounterMode (formulas are registered per overload
    packet, and `aten.addmm_` is another packet)."""
    torch = pytest.importorskip("torch")
    from torch.utils.flop_counter import FlopCounterMode

    m, k, n = "!exir.tensor<[2, 3], float32>", "!exir.tensor<[3, 4], float32>", "!exir.tensor<[2, 4], float32>"
    text = f"""
builtin.module {{
  exir.program inputs [<user_input "a">, <user_input "b">, <user_input "c">, <user_input "o">] outputs [<user_output "r">, <user_output "s">] {{
    exir.graph @forward(%a: {m}, %b: {k}, %c: {n}, %o: {n}) -> ({n}, {n}) {{
      %r = aten.addmm.out(%c, %a, %b, out = %o) : ({n}, {m}, {k}, {n}) -> {n}
      %s = aten.addmm_.default(%c, %a, %b) : ({n}, {m}, {k}) -> {n}
      exir.output %r, %s : {n}, {n}
    }}
  }}
}}
"""
    after = ph.apply(ph.parse(text), "flop-count{report=none}")
    counted = {op.name: op.attributes.get("exir.flops") for op in after.walk() if op.name.startswith("aten.")}
    assert counted["aten.addmm.out"] == IntegerAttr(2 * 2 * 3 * 4, 64) and counted["aten.addmm_.default"] is None
    a, b, c = torch.randn(2, 3), torch.randn(3, 4), torch.randn(2, 4)
    for op, kwargs, want in ((torch.ops.aten.addmm.out, {"out": torch.empty(2, 4)}, 48), (torch.ops.aten.addmm_.default, {}, 0)):
        counter = FlopCounterMode(display=False)
        with counter:
            op(c.clone(), a, b, **kwargs)
        assert counter.get_total_flops() == want
