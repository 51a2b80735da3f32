"""
The generated `aten` dialect: building with inferred types, agreement of the
inference with torch's own FakeTensor computation, symbolic sizes, traits and
alias queries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest
from call_counting import assert_linear
from xdsl.context import Context
from xdsl.dialects.test import TestOp as _TestOp
from xdsl.ir import Attribute, SSAValue
from xdsl.parser import Parser
from xdsl.traits import MemoryEffectKind, Pure, get_effects
from xdsl.utils.exceptions import VerifyException

from xdsl_exir.dialects.aten import (
    ATEN_OP_NAMES,
    AtenOp,
    aten_op_class,
    build,
    from_call_function,
    to_call_function,
)
from xdsl_exir.dialects.exir import (
    CallFunctionOp,
    DeviceAttr,
    DType,
    ListType,
    MemoryFormat,
    SymIntType,
    TensorType,
    TupleType,
)
from xdsl_exir.semantics.inference import (
    InferenceError,
    has_inference,
    infer_result_types,
    promote_types,
)
from xdsl_exir.utils.symbolic import FloorDiv, make_symbol

s0 = make_symbol("s0")
s1 = make_symbol("s1")


def value(t: Attribute) -> SSAValue:
    return _TestOp(result_types=[t]).results[0]


def tensor(shape: Sequence[object], dtype: DType = DType.float32) -> SSAValue:
    return value(TensorType(shape, dtype))  # pyright: ignore[reportArgumentType] - tests pass ints and sympy sizes alike


# ---------------------------------------------------------------------------
# Dialect shape
# ---------------------------------------------------------------------------


def test_every_listed_overload_is_an_op() -> None:
    assert len(ATEN_OP_NAMES) > 600
    for name in ATEN_OP_NAMES:
        cls = aten_op_class(name)
        assert cls is not None and cls.name == name
        assert cls.SCHEMA.op_name == name
    assert aten_op_class("aten::add.Tensor") is aten_op_class("aten.add.Tensor")
    assert aten_op_class("torch.ops.aten.relu.default") is aten_op_class("aten.relu")
    assert aten_op_class("aten.nope.default") is None


def test_every_op_has_inference() -> None:
    missing = [n for n in ATEN_OP_NAMES if not has_inference(n)]
    assert missing == []


def test_import_stays_cheap() -> None:
    """Importing the dialect parses no schema and loads neither torch nor the kernels
    (checked structurally: a wall-clock limit would fail on a loaded machine)."""
    import subprocess
    import sys

    code = (
        "import sys; from xdsl_exir.dialects.aten import Aten; "
        "from xdsl_exir.utils import op_registry; "
        "print(op_registry._parse_cached.cache_info().currsize, "
        "'torch' in sys.modules, any(m.startswith('xdsl_exir.interpreters') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "False", "False"]


# ---------------------------------------------------------------------------
# Building, verification, conversion
# ---------------------------------------------------------------------------


def test_build_add_infers_broadcast_and_promotion() -> None:
    x, y = tensor([2, 3]), tensor([3], DType.float64)
    op = build("aten.add.Tensor", x, y, alpha=2)
    assert op.result_types == (TensorType([2, 3], DType.float64),)
    op.verify()
    i = tensor([4], DType.int32)
    assert build("aten.mul.Tensor", i, 2).result_types[0] == TensorType([4], DType.int32)
    assert build("aten.mul.Tensor", i, 2.5).result_types[0] == TensorType([4], DType.float32)
    zero = tensor([], DType.float64)
    assert build("aten.add.Tensor", tensor([4], DType.float16), zero).result_types[
        0
    ] == TensorType([4], DType.float16)
    assert build("aten.add.Tensor", i, zero).result_types[0] == TensorType([4], DType.float64)


def test_promote_types() -> None:
    assert promote_types(DType.uint8, DType.int8) is DType.int16
    assert promote_types(DType.float16, DType.bfloat16) is DType.float32
    assert promote_types(DType.complex64, DType.float64) is DType.complex128
    assert promote_types(DType.bool, DType.int32) is DType.int32


def test_multi_result_and_list_results() -> None:
    x = tensor([4, 6])
    op = build("aten.max.dim", x, 1, True)
    assert op.result_types == (TensorType([4, 1], DType.float32), TensorType([4, 1], DType.int64))
    split = build("aten.split.Tensor", x, 4, 1)
    assert split.result_types[0] == TupleType(
        [TensorType([4, 4], DType.float32), TensorType([4, 2], DType.float32)]
    )
    even = build("aten.split.Tensor", x, 3, 1)
    assert even.result_types[0] == ListType(TensorType([4, 3], DType.float32))
    split.verify()
    even.verify()


def test_verifier_rejects_bad_arguments() -> None:
    x = tensor([2, 3])
    bad_result = aten_op_class("aten.relu.default").build(
        x, result_types=[TensorType([3], DType.float32)]
    )
    with pytest.raises(VerifyException, match="arguments give"):
        bad_result.verify()
    with pytest.raises(VerifyException, match="no argument 'beta'"):
        aten_op_class("aten.relu.default").build(
            x, beta=1, result_types=[x.type]
        ).verify()
    with pytest.raises(VerifyException, match="missing argument 'other'"):
        aten_op_class("aten.add.Tensor").build(x, result_types=[x.type]).verify()
    with pytest.raises(VerifyException, match="expected a tensor"):
        aten_op_class("aten.add.Tensor").build(x, "one", result_types=[x.type]).verify()
    # A number for a Tensor is a wrapped number, as torch.export records `x + 1`.
    aten_op_class("aten.add.Tensor").build(x, 1, result_types=[x.type]).verify()
    with pytest.raises(VerifyException, match="positional arguments"):
        # alpha is keyword-only in add.Tensor
        aten_op_class("aten.add.Tensor").build(x, x, 2, result_types=[x.type]).verify()
    with pytest.raises(VerifyException, match="1 result"):
        aten_op_class("aten.relu.default").build(x, result_types=[]).verify()


def test_build_errors_on_invalid_shapes() -> None:
    with pytest.raises(InferenceError):
        build("aten.add.Tensor", tensor([2]), tensor([3]))
    with pytest.raises(InferenceError):
        build("aten.mm.default", tensor([2, 3]), tensor([4, 5]))
    with pytest.raises(InferenceError):
        build("aten.view.default", tensor([2, 3]), [4, -1])


def test_call_function_round_trip() -> None:
    x, y = tensor([2]), tensor([2])
    call = CallFunctionOp("aten.add.Tensor", [x, y], {"alpha": 2}, [x.type])
    op = from_call_function(call)
    assert op is not None and op.name == "aten.add.Tensor"
    op.verify()
    back = to_call_function(op)
    assert back.target.data == "aten.add.Tensor" and back.args == call.args


def test_parse_custom_and_generic() -> None:
    from xdsl_exir.universe import EXIR_UNIVERSE

    ctx = Context(allow_unregistered=True)
    for name, factory in EXIR_UNIVERSE.all_dialects.items():
        ctx.register_dialect(name, factory)
    text = """
    %x = "test.op"() : () -> !exir.tensor<[s0, 4], float32>
    %r = aten.add.Tensor(%x, %x, alpha = 2) : (!exir.tensor<[s0, 4], float32>, !exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0, 4], float32>
    """
    module = Parser(ctx, text).parse_module()
    module.verify()
    op = list(module.walk())[-1]
    assert isinstance(op, AtenOp) and op.get_kwargs() == {"alpha": 2}


# ---------------------------------------------------------------------------
# Traits and aliasing
# ---------------------------------------------------------------------------


def test_traits_and_alias_queries() -> None:
    x, y = tensor([2, 3]), tensor([2, 3])
    add = build("aten.add.Tensor", x, y)
    assert add.has_trait(Pure)
    assert get_effects(add) == set()

    add_ = build("aten.add_.Tensor", x, y)
    assert not add_.has_trait(Pure)
    assert add_.written_operands() == [x]
    assert add_.aliased_operand(0) is x
    effects = get_effects(add_)
    assert effects is not None
    assert any(e.kind is MemoryEffectKind.WRITE and e.value is x for e in effects)
    assert add_.alias_sets()["a"].is_written

    view = build("aten.view.default", x, [6])
    assert view.aliased_operand(0) is x
    assert view.written_operands() == []
    effects = get_effects(view)
    assert effects is not None and all(e.kind is MemoryEffectKind.READ for e in effects)

    out = build("aten.add.out", x, y, out=tensor([2, 3]))
    assert out.written_operands() == [out.operands[2]]
    assert out.result_types == (TensorType([2, 3], DType.float32),)


# ---------------------------------------------------------------------------
# Symbolic sizes
# ---------------------------------------------------------------------------


def test_symbolic_conv() -> None:
    x = tensor([s0, 3, 2 * s0, 32])
    w = tensor([8, 3, 3, 3])
    op = build("aten.convolution.default", x, w, None, [2, 2], [1, 1], [1, 1], False, [0, 0], 1)
    t = op.result_types[0]
    assert isinstance(t, TensorType)
    assert t.sizes == (s0, 8, s0, 16)
    op2 = build("aten.conv2d.default", tensor([s0, 3, s1, 32]), w, None, [2, 2])
    t2 = op2.result_types[0]
    assert isinstance(t2, TensorType)
    assert t2.sizes == (s0, 8, FloorDiv(s1 - 3, 2) + 1, 15)
    op2.verify()


def test_symbolic_pool_ceil_mode() -> None:
    op = build("aten.max_pool2d.default", tensor([1, 3, s0, 7]), [3, 3], [2, 2], [0, 0], [1, 1], True)
    t = op.result_types[0]
    assert isinstance(t, TensorType)
    assert t.sizes == (1, 3, FloorDiv(s0 - 2, 2) + 1, 3)


def test_symbolic_views_and_slices() -> None:
    x = tensor([s0, 6])
    v = build("aten.view.default", x, [-1, 3]).result_types[0]
    assert isinstance(v, TensorType) and v.sizes == (2 * s0, 3)
    v = build("aten.view.default", tensor([s0, 4]), [2, -1]).result_types[0]
    assert isinstance(v, TensorType) and v.sizes == (2, 2 * s0)
    sl = build("aten.slice.Tensor", x, 0, 1).result_types[0]
    assert isinstance(sl, TensorType) and sl.sizes == (s0 - 1, 6)
    sl = build("aten.slice.Tensor", x, 0, 1, None, 2).result_types[0]
    assert isinstance(sl, TensorType) and sl.sizes == (FloorDiv(s0, 2), 6)
    sl = build("aten.slice.Tensor", x, 0, 0, -1).result_types[0]
    assert isinstance(sl, TensorType) and sl.sizes == (s0 - 1, 6)
    sl = build("aten.slice.Tensor", x, 1, 2, 2**63 - 1).result_types[0]
    assert isinstance(sl, TensorType) and sl.sizes == (s0, 4)
    sl = build("aten.slice.Tensor", x, 1, 0, 100).result_types[0]
    assert isinstance(sl, TensorType) and sl.sizes == (s0, 6)
    cat = build("aten.cat.default", [x, x], 0).result_types[0]
    assert isinstance(cat, TensorType) and cat.sizes == (2 * s0, 6)
    sel = build("aten.select.int", x, 0, -1).result_types[0]
    assert isinstance(sel, TensorType) and sel.sizes == (6,)
    f = build("aten.flatten.using_ints", tensor([s0, s1, 2])).result_types[0]
    assert isinstance(f, TensorType) and f.sizes == (2 * s0 * s1,)
    e = build("aten.expand.default", tensor([1, s1]), [value(SymIntType(s0)), -1]).result_types[0]
    assert isinstance(e, TensorType) and e.sizes == (s0, s1)
    size = build("aten.sym_size.int", x, 0).result_types[0]
    assert size == SymIntType(s0)
    sym = value(SymIntType(s0 * 6))
    r = build("aten.view.default", x, [sym]).result_types[0]
    assert isinstance(r, TensorType) and r.sizes == (6 * s0,)
    ar = build("aten.arange.start_step", 0, value(SymIntType(s0)), 2).result_types[0]
    assert isinstance(ar, TensorType) and ar.element_dtype is DType.int64
    assert ar.sizes[0] == -FloorDiv(-s0, 2)  # ceil(s0 / 2)


def test_data_dependent_sizes_match_any() -> None:
    op = build("aten.nonzero.default", tensor([3, 4]))
    t = op.result_types[0]
    assert isinstance(t, TensorType) and t.sizes[1] == 2
    assert str(t.sizes[0]).startswith("u")
    recorded = aten_op_class("aten.nonzero.default").build(
        op.operands[0], result_types=[TensorType([make_symbol("u7"), 2], DType.int64)]
    )
    recorded.verify()


# ---------------------------------------------------------------------------
# Agreement with torch (FakeTensor), table-driven
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class T:
    """A tensor argument: shape and dtype."""

    shape: tuple[int, ...]
    dtype: DType = DType.float32


def t(*shape: int, dtype: DType = DType.float32) -> T:
    return T(tuple(shape), dtype)


F, I, B, H, D = DType.float32, DType.int64, DType.bool, DType.float16, DType.float64


@dataclass
class Case:
    name: str
    args: tuple[object, ...]
    kwargs: dict[str, object] = field(default_factory=dict)


def C(name: str, *args: object, **kwargs: object) -> Case:
    return Case(name, args, kwargs)


EXPLICIT: list[Case] = [
    # complex tensors and the Fourier transforms
    C("aten.view_as_complex.default", t(3, 4, 2)),
    C("aten.view_as_complex_copy.default", t(3, 2, dtype=DType.float64)),
    C("aten.view_as_real_copy.default", t(3, 4, dtype=DType.complex64)),
    C("aten.real.default", t(3, 4, dtype=DType.complex128)),
    C("aten.imag.default", t(3, 4, dtype=DType.complex64)),
    C("aten.abs.default", t(3, 4, dtype=DType.complex64)),
    C("aten.angle.default", t(3, 4, dtype=DType.complex128)),
    C("aten.angle.default", t(3, 4, dtype=DType.int64)),
    C("aten.complex.default", t(3, 1), t(4)),
    C("aten.polar.default", t(3, 4, dtype=DType.float64), t(4, dtype=DType.float64)),
    C("aten._fft_c2c.default", t(3, 8, dtype=DType.complex64), [1], 2, False),
    C("aten.fft_fftfreq.default", 7),
    C("aten.fft_rfftfreq.default", 9, 0.5, dtype=DType.float64),
    C("aten.fft_fft.default", t(3, 8, dtype=DType.int64), 5, 0, "ortho"),
    C("aten.fft_rfft.default", t(3, 8), 11),
    C("aten.fft_irfft.default", t(3, 5, dtype=DType.complex64)),
    C("aten.fft_hfft.default", t(3, 5, dtype=DType.complex128), 7),
    C("aten.fft_ihfftn.default", t(4, 6, 8), [3, 5]),
    C("aten.fft_irfftn.default", t(4, 6, 5, dtype=DType.complex64), [-1, 9], [1, 2]),
    C("aten.fft_hfft2.default", t(4, 6, 5, dtype=DType.complex64)),
    C("aten.stft.default", t(2, 40), 8, 2, None, None, False, None, True),
    C("aten.stft.center", t(40, dtype=DType.float64), 8, return_complex=False),
    C("aten.stft.center", t(40, dtype=DType.complex64), 8, 3, 6, center=False),
    C("aten.istft.default", t(2, 5, 9, dtype=DType.complex64), 8, 2),
    C("aten.istft.default", t(8, 9, dtype=DType.complex128), 8, 4, onesided=False, length=50, center=False),
    C("aten._adaptive_avg_pool2d.default", t(1, 3, 7, 9), [3, 2]),
    C("aten._adaptive_avg_pool3d.default", t(2, 4, 5, 6), [2, 2, 3]),
    C("aten.adaptive_avg_pool1d.default", t(2, 3, 10), [4]),
    C("aten.adaptive_avg_pool2d.default", t(2, 3, 10, 10), [5, 1]),
    C("aten._cdist_forward.default", t(2, 5, 3), t(2, 4, 3), 2.0, None),
    C("aten._fft_r2c.default", t(4, 8), [1], 0, True),
    C("aten._fft_r2c.default", t(4, 9), [0, 1], 0, False),
    C("aten._fft_c2r.default", t(4, 5, dtype=DType.complex64), [1], 0, 8),
    C("aten._log_softmax.default", t(2, 3), 1, False),
    C("aten._softmax.default", t(2, 3), -1, False),
    C("aten.softmax.int", t(2, 3), 1),
    C("aten.softmax.int", t(2, 3), 0, D),
    C("aten.log_softmax.int", t(2, 3, 4), 1),
    C("aten._native_batch_norm_legit.no_stats", t(2, 3, 4, 4), t(3), t(3), True, 0.1, 1e-5),
    C("aten._native_batch_norm_legit_no_training.default", t(2, 3, 4), t(3), t(3), t(3), t(3), 0.1, 1e-5),
    C("aten.native_batch_norm.default", t(2, 3, 4, 4), t(3), t(3), t(3), t(3), True, 0.1, 1e-5),
    C("aten.native_batch_norm.default", t(2, 3), None, None, t(3), t(3), False, 0.1, 1e-5),
    C("aten.batch_norm.default", t(2, 3, 4), t(3), t(3), t(3), t(3), False, 0.1, 1e-5, False),
    C("aten._unsafe_view.default", t(2, 6), [3, 4]),
    C("aten.addmm.dtype", t(2, 4, dtype=H), t(2, 3, dtype=H), t(3, 4, dtype=H), F),
    C("aten.bmm.dtype", t(2, 3, 4, dtype=H), t(2, 4, 5, dtype=H), F),
    C("aten.baddbmm.dtype", t(2, 3, 5, dtype=H), t(2, 3, 4, dtype=H), t(2, 4, 5, dtype=H), F),
    C("aten.__lshift__.Scalar", t(3, 4, dtype=I), 2),
    C("aten.__rshift__.Scalar", t(3, 4, dtype=DType.int32), 1),
    C("aten.special_log_softmax.default", t(2, 3), 1),
    C("aten.index_put.hacked_twin", t(5, 6), [t(3, dtype=I)], t(3, 6)),
    C("aten.mm.dtype", t(3, 4, dtype=H), t(4, 5, dtype=H), F),
    C("aten.all.dim", t(2, 3), 1),
    C("aten.any.dim", t(2, 3, dtype=B), 0, True),
    C("aten.all.dims", t(2, 3, 4), [0, 2]),
    C("aten.any.dims", t(2, 3, 4), None, True),
    C("aten.avg_pool1d.default", t(2, 3, 11), [3], [2], [1], True),
    C("aten.avg_pool2d.default", t(2, 3, 11, 8), [3, 3]),
    C("aten.avg_pool2d.default", t(1, 3, 10, 10), [3, 2], [2, 2], [1, 1], True),
    C("aten.avg_pool3d.default", t(1, 2, 6, 7, 8), [2, 2, 2], [2, 2, 2], [0, 1, 0], True),
    C("aten.avg_pool2d_backward.default", t(1, 3, 5, 5), t(1, 3, 10, 10), [2, 2], [2, 2], [0, 0], False, True, None),
    C("aten.max_pool2d.default", t(2, 3, 11, 8), [3, 3], [2, 2], [1, 1], [1, 1], True),
    C("aten.max_pool2d.default", t(3, 10, 10), [2, 2]),
    C("aten.max_pool2d_with_indices.default", t(2, 3, 9, 9), [3, 3], [2, 2], [1, 1], [2, 2], False),
    C("aten.max_pool2d_with_indices.default", t(1, 1, 6, 6), [3, 3], [2, 2], [0, 0], [1, 1], True),
    C("aten.max_pool3d_with_indices.default", t(1, 2, 6, 7, 8), [2, 2, 2]),
    C("aten.max_pool2d_with_indices_backward.default", t(1, 3, 4, 4), t(1, 3, 8, 8), [2, 2], [2, 2], [0, 0], [1, 1], False, t(1, 3, 4, 4, dtype=I)),
    C("aten.cat.default", [t(2, 3), t(4, 3)], 0),
    C("aten.cat.default", [t(2, 3), t(2, 1, dtype=D)], -1),
    C("aten.cat.default", [t(2, 3), t(0)], 0),
    C("aten.stack.default", [t(2, 3), t(2, 3)], 1),
    C("aten.stack.default", [t(3), t(3), t(3)], -1),
    C("aten.col2im.default", t(2, 12, 9), [4, 4], [2, 2], [1, 1], [0, 0], [1, 1]),
    C("aten.constant_pad_nd.default", t(2, 3, 4), [1, 2, 0, 3], 0.5),
    C("aten.pad.default", t(2, 3, 4), [1, 1], "reflect"),
    C("aten.reflection_pad1d.default", t(2, 3, 5), [2, 1]),
    C("aten.reflection_pad2d.default", t(2, 3, 5, 5), [1, 1, 2, 0]),
    C("aten.reflection_pad3d.default", t(1, 2, 4, 4, 4), [1, 1, 1, 1, 1, 1]),
    C("aten.replication_pad1d.default", t(2, 3, 5), [2, 1]),
    C("aten.replication_pad2d.default", t(2, 3, 5, 5), [1, 1, 2, 0]),
    C("aten.replication_pad3d.default", t(1, 2, 4, 4, 4), [1, 0, 1, 0, 1, 0]),
    C("aten.convolution.default", t(2, 3, 10, 12), t(8, 3, 3, 3), t(8), [1, 2], [1, 0], [1, 1], False, [0, 0], 1),
    C("aten.convolution.default", t(2, 4, 10, 12), t(4, 2, 3, 3), None, [2, 2], [1, 1], [1, 1], True, [1, 0], 2),
    C("aten.convolution.default", t(1, 4, 16), t(6, 2, 5), None, [3], [2], [2], False, [0], 2),
    C("aten.conv1d.default", t(2, 3, 20), t(5, 3, 4), None, [2]),
    C("aten.conv2d.default", t(3, 10, 10), t(4, 3, 3, 3)),
    C("aten.conv2d.padding", t(1, 3, 10, 10), t(4, 3, 3, 3), None, [1, 1], "same"),
    C("aten.conv1d.padding", t(2, 3, 20), t(5, 3, 4), None, [1], "valid", [2]),
    C("aten.conv3d.padding", t(1, 2, 5, 6, 7), t(3, 2, 3, 3, 3), t(3), [1, 1, 1], "same"),
    C("aten._adaptive_avg_pool2d_backward.default", t(1, 3, 2, 2), t(1, 3, 4, 4)),
    C("aten.conv3d.default", t(1, 2, 5, 6, 7), t(3, 2, 2, 2, 2), None, [1, 2, 1], [0, 1, 0]),
    C("aten.convolution_backward.default", t(2, 8, 8, 10), t(2, 3, 10, 12), t(8, 3, 3, 3), [8], [1, 1], [1, 0], [1, 1], False, [0, 0], 1, [True, True, True]),
    C("aten.cumsum.default", t(2, 3), 1),
    C("aten.cumsum.default", t(2, 3, dtype=DType.int32), 0),
    C("aten.cumsum.default", t(2, 3), 0, dtype=D),
    C("aten.div.Scalar_mode", t(2, 3, dtype=I), 2, rounding_mode="floor"),
    C("aten.div.Tensor_mode", t(2, 3, dtype=I), t(3, dtype=I), rounding_mode=None),
    C("aten.div.Tensor_mode", t(2, 3), t(3), rounding_mode="trunc"),
    C("aten.dropout.default", t(2, 3), 0.5, False),
    C("aten.native_dropout.default", t(2, 3), 0.5, True),
    C("aten.einsum.default", "ij,jk->ik", [t(2, 3), t(3, 4)]),
    C("aten.einsum.default", "bij,bjk", [t(5, 2, 3), t(5, 3, 4)]),
    C("aten.einsum.default", "...ij->...ji", [t(5, 2, 3)]),
    C("aten.embedding.default", t(10, 4), t(2, 3, dtype=I)),
    C("aten.embedding_dense_backward.default", t(2, 3, 4), t(2, 3, dtype=I), 10, -1, False),
    C("aten.empty.memory_format", [2, 3]),
    C("aten.empty.memory_format", [2, 3, 4, 5], dtype=H, memory_format=MemoryFormat.channels_last),
    C("aten.empty_strided.default", [2, 3], [3, 1], dtype=I),
    C("aten.zeros.default", [2, 3]),
    C("aten.ones.default", [4], dtype=B),
    C("aten.rand.default", [2, 3], dtype=D),
    C("aten.randn.default", [5]),
    C("aten.randperm.default", 7),
    C("aten.full.default", [2, 3], 1.5),
    C("aten.full.default", [2], 3),
    C("aten.full.default", [2], True),
    C("aten.full.default", [2], 3, dtype=H),
    C("aten.flip.default", t(2, 3), [0]),
    C("aten.roll.default", t(2, 3), [1], [1]),
    C("aten.gather.default", t(4, 5), 1, t(4, 2, dtype=I)),
    C("aten.grid_sampler_2d.default", t(2, 3, 8, 8), t(2, 5, 6, 2), 0, 0, False),
    C("aten.group_norm.default", t(2, 6, 4), 3),
    C("aten.native_group_norm.default", t(2, 6, 4, 4), t(6), t(6), 2, 6, 16, 3, 1e-5),
    C("aten.native_group_norm_backward.default", t(2, 6, 4, 4), t(2, 6, 4, 4), t(2, 3), t(2, 3), t(6), 2, 6, 16, 3, [True, True, True]),
    C("aten.layer_norm.default", t(2, 3, 4), [4]),
    C("aten.native_layer_norm.default", t(2, 3, 4), [3, 4], t(3, 4), t(3, 4), 1e-5),
    C("aten.native_layer_norm_backward.default", t(2, 3, 4), t(2, 3, 4), [4], t(2, 3, 1), t(2, 3, 1), t(4), t(4), [True, True, True]),
    C("aten.index.Tensor", t(5, 6, 7), [t(2, 3, dtype=I)]),
    C("aten.index.Tensor", t(5, 6, 7), [None, t(4, dtype=I), t(4, dtype=I)]),
    C("aten.index.Tensor", t(5, 6, 7), [t(4, dtype=I), None, t(1, 4, dtype=I)]),
    C("aten.index.Tensor_hacked_twin", t(5, 6), [t(3, dtype=I), t(3, dtype=I)]),
    C("aten.index_put.default", t(5, 6), [t(3, dtype=I)], t(3, 6)),
    C("aten.index_select.default", t(5, 6), 1, t(4, dtype=I)),
    C("aten.index_select.default", t(5, 6), 0, t(dtype=I)),
    C("aten.max.dim", t(2, 3), 1),
    C("aten.min.dim", t(2, 3, 4), -1, True),
    C("aten.mean.dim", t(2, 3, 4), [1, 2]),
    C("aten.mean.dim", t(2, 3, 4), None, True),
    C("aten.mean.dim", t(2, 3, 4, dtype=I), [0], dtype=F),
    C("aten.sum.dim_IntList", t(2, 3, 4, dtype=DType.int32), [1], True),
    C("aten.sum.dim_IntList", t(2, 3, 4), [], False),
    C("aten.sum.dim_IntList", t(2, 3, 4, dtype=B), None),
    C("aten.prod.dim_int", t(2, 3, dtype=DType.int32), 1),
    C("aten.std.dim", t(2, 3, 4), [1]),
    C("aten.var.dim", t(2, 3, 4), [0, 2], True, True),
    C("aten.var_mean.dim", t(2, 3, 4), [1]),
    C("aten.new_empty.default", t(2, dtype=I), [3, 4]),
    C("aten.new_full.default", t(2), [3], 2.0, dtype=D),
    C("aten.new_ones.default", t(2, dtype=H), [1, 2]),
    C("aten.new_zeros.default", t(2), [5]),
    C("aten.repeat.default", t(2, 3), [2, 1, 3]),
    C("aten.round.decimals", t(2, 3), decimals=2),
    C("aten.scatter.src", t(4, 5), 1, t(4, 2, dtype=I), t(4, 2)),
    C("aten.scatter.value", t(4, 5), 0, t(2, 5, dtype=I), 1.0),
    C("aten.scatter.reduce", t(4, 5), 1, t(4, 2, dtype=I), t(4, 2), reduce="add"),
    C("aten.scatter.value_reduce", t(4, 5), 1, t(4, 2, dtype=I), 2.0, reduce="multiply"),
    C("aten.scatter_add.default", t(4, 5), 1, t(4, 2, dtype=I), t(4, 2)),
    C("aten.scatter_reduce.two", t(4, 5), 1, t(4, 2, dtype=I), t(4, 2), "amax"),
    C("aten.select_scatter.default", t(4, 5), t(5), 0, 1),
    C("aten.slice_scatter.default", t(4, 5), t(4, 2), 1, 0, 2),
    C("aten.as_strided_scatter.default", t(3, 4), t(2, 3), [2, 3], [1, 4], 1),
    C("aten.sort.stable", t(4, 5), stable=True),
    C("aten.sort.default", t(4, 5), 0, True),
    C("aten.topk.default", t(4, 5), 2),
    C("aten.topk.default", t(4, 5), 3, 0),
    C("aten.sym_size.int", t(4, 5), 1),
    C("aten.sym_stride.int", t(4, 5), 0),
    C("aten.sym_numel.default", t(4, 5)),
    C("aten.upsample_bilinear2d.default", t(1, 3, 4, 4), [8, 6], False),
    C("aten.upsample_bilinear2d.vec", t(1, 3, 4, 5), None, True, [2.0, 1.5]),
    C("aten.upsample_nearest2d.default", t(1, 3, 4, 4), [8, 8]),
    C("aten.upsample_nearest2d.vec", t(1, 3, 4, 5), [7, 9], None),
    C("aten.eq.Tensor_list", [t(2)], [t(2)]),
    C("aten.arange.default", 5),
    C("aten.arange.default", 5.5),
    C("aten.arange.start", 2, 9),
    C("aten.arange.start_step", 0, 10, 3),
    C("aten.arange.start_step", 1.0, 2.0, 0.25, dtype=D),
    C("aten.scalar_tensor.default", 2),
    C("aten.full_like.default", t(2, 3), 7, dtype=I),
    C("aten.zeros_like.default", t(2, 3, dtype=H)),
    C("aten.ones_like.default", t(2, 3), dtype=B),
    C("aten._to_copy.default", t(2, 3), dtype=H),
    C("aten._to_copy.default", t(1, 3, 2, 2), memory_format=MemoryFormat.channels_last),
    C("aten.clone.default", t(2, 3)),
    C("aten.mm.default", t(2, 3), t(3, 4)),
    C("aten.bmm.default", t(5, 2, 3), t(5, 3, 4)),
    C("aten.addmm.default", t(4), t(2, 3), t(3, 4)),
    C("aten.baddbmm.default", t(5, 2, 4), t(5, 2, 3), t(5, 3, 4), beta=0.5),
    C("aten.dot.default", t(3), t(3)),
    C("aten.outer.default", t(3), t(4)),
    C("aten.matmul.default", t(3), t(3)),
    C("aten.matmul.default", t(2, 3), t(3)),
    C("aten.matmul.default", t(3), t(3, 4)),
    C("aten.matmul.default", t(5, 1, 2, 3), t(4, 3, 6)),
    C("aten.linear.default", t(5, 2, 3), t(4, 3), t(4)),
    C("aten.linear.default", t(3), t(4, 3)),
    C("aten.scaled_dot_product_attention.default", t(2, 4, 8, 16), t(2, 4, 10, 16), t(2, 4, 10, 32)),
    C("aten._pdist_forward.default", t(5, 3)),
    C("aten.view.default", t(2, 6), [3, -1]),
    C("aten.reshape.default", t(2, 6), [-1]),
    C("aten.view.dtype", t(2, 6), DType.int32),
    C("aten.view.dtype", t(2, 6), DType.float16),
    C("aten.view_as_real.default", t(2, 3, dtype=DType.complex64)),
    C("aten.expand.default", t(3, 1), [2, 3, 4]),
    C("aten.expand.default", t(3, 1), [-1, 5]),
    C("aten.expand_as.default", t(3, 1), t(2, 3, 4)),
    C("aten.permute.default", t(2, 3, 4), [2, 0, 1]),
    C("aten.transpose.int", t(2, 3, 4), 0, -1),
    C("aten.t.default", t(2, 3)),
    C("aten.t.default", t(3)),
    C("aten.squeeze.default", t(1, 3, 1)),
    C("aten.squeeze.dim", t(1, 3, 1), -1),
    C("aten.squeeze.dims", t(1, 3, 1), [0, 1]),
    C("aten.unsqueeze.default", t(2, 3), -1),
    C("aten.unsqueeze.default", t(2, 3), 0),
    C("aten.flatten.using_ints", t(2, 3, 4, 5), 1, 2),
    C("aten.flatten.using_ints", t()),
    C("aten.unflatten.int", t(2, 12), 1, [3, -1]),
    C("aten.movedim.int", t(2, 3, 4), 0, 2),
    C("aten.movedim.intlist", t(2, 3, 4, 5), [0, 1], [3, 0]),
    C("aten.select.int", t(2, 3, 4), 1, -1),
    C("aten.slice.Tensor", t(10, 3), 0, 2, 9, 3),
    C("aten.slice.Tensor", t(10, 3), 0, -3),
    C("aten.slice.Tensor", t(10, 3), 0, 20, 30),
    C("aten.slice.Tensor", t(10, 3), 1, None, None, 2),
    C("aten.narrow.default", t(10, 3), 0, 2, 5),
    C("aten.diagonal.default", t(3, 4)),
    C("aten.diagonal.default", t(2, 3, 4), 1, 1, 2),
    C("aten.diagonal.default", t(2, 3, 4), -2, 0, 2),
    C("aten.as_strided.default", t(4, 4), [2, 2], [1, 2]),
    C("aten.alias.default", t(4, 4)),
    C("aten.split.Tensor", t(10, 3), 4),
    C("aten.split.Tensor", t(10, 3), 3, 1),
    C("aten.split.sizes", t(10, 3), [2, 8]),
    C("aten.split_with_sizes.default", t(10, 3), [1, 1, 1], 1),
    C("aten.split.default", t(10, 3), [5, 5]),
    C("aten.chunk.default", t(10, 3), 3),
    C("aten.chunk.default", t(10, 3), 4),
    C("aten.unbind.int", t(3, 2), 0),
    C("aten.unbind.int", t(3, 2), 1),
    C("aten.to.dtype", t(2, 3), I),
    C("aten.to.other", t(2, 3), t(1, dtype=H)),
    C("aten.to.dtype_layout", t(2, 3), dtype=D),
    C("aten.to.device", t(2, 3), DeviceAttr("cpu"), H),
    C("aten.type_as.default", t(2, 3), t(1, dtype=I)),
    C("aten.where.self", t(2, 3, dtype=B), t(3), t(2, 1, dtype=D)),
    C("aten.where.Scalar", t(2, 3, dtype=B), 1.0, 0),
    C("aten.where.Scalar", t(2, 3, dtype=B), 1, 0),
    C("aten.where.ScalarOther", t(2, 3, dtype=B), t(3, dtype=I), 0.5),
    C("aten.masked_fill.Scalar", t(2, 3), t(2, 3, dtype=B), 0.0),
    C("aten.masked_fill.Tensor", t(2, 3, dtype=I), t(3, dtype=B), t(dtype=I)),
    C("aten.clamp.default", t(2, 3, dtype=I), 0.5),
    C("aten.clamp.default", t(2, 3), None, 1),
    C("aten.clamp.Tensor", t(2, 3), t(3), None),
    C("aten.pow.Scalar", 2, t(3, dtype=I)),
    C("aten.pow.Scalar", 2.0, t(3, dtype=I)),
    C("aten.pow.Tensor_Scalar", t(3, dtype=I), 2),
    C("aten.rsub.Scalar", t(3, dtype=I), 1.5),
    C("aten.lerp.Scalar", t(2, 3), t(3), 0.5),
    C("aten.lerp.Tensor", t(2, 3), t(3), t(2, 1)),
    C("aten.addcmul.default", t(2, 3), t(3), t(2, 1), value=0.5),
    C("aten.addcdiv.default", t(2, 3), t(3), t(2, 1)),
    C("aten.argmax.default", t(2, 3)),
    C("aten.argmax.default", t(2, 3), 1, True),
    C("aten.argmin.default", t(2, 3), None, True),
    C("aten.amax.default", t(2, 3, 4), [1]),
    C("aten.amin.default", t(2, 3, 4)),
    C("aten.std.correction", t(2, 3, 4), [1], correction=0, keepdim=True),
    C("aten.var_mean.correction", t(2, 3, 4), None),
    C("aten.resize.default", t(2, 3), [7]),
    C("aten.copy.default", t(2, 3), t(3, dtype=I)),
    C("aten.fill.Tensor", t(2, 3), t(dtype=I)),
    C("aten.masked_scatter.default", t(2, 3), t(3, dtype=B), t(6)),
    C("aten._embedding_bag.default", t(10, 4), t(8, dtype=I), t(3, dtype=I)),
    # the long tail of training-IR operators (decomposed; types as their decompositions give)
    C("aten._convolution.default", t(1, 2, 6, 6), t(3, 2, 3, 3), t(3), [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
      False, False, True, True),
    C("aten._convolution.deprecated", t(2, 4, 7), t(4, 2, 3), None, [2], [0], [1], False, [0], 2, False, False, True),
    C("aten._index_put_impl.default", t(5, 3), [t(4, dtype=I)], t(4, 3)),
    C("aten.adaptive_avg_pool3d.default", t(2, 3, 4, 6, 2), [2, 3, 1]),
    C("aten.broadcast_to.default", t(3, 1), [2, 3, 4]),
    C("aten.channel_shuffle.default", t(2, 6, 3, 3), 3),
    C("aten.native_channel_shuffle.default", t(2, 6, 3), 2),
    C("aten.cross_entropy_loss.default", t(4, 5), t(4, dtype=I)),
    C("aten.cross_entropy_loss.default", t(4, 5), t(4, dtype=I), None, 0),
    C("aten.diag_embed.default", t(2, 3), 1),
    C("aten.diag_embed.default", t(2, 3), -1, 0, 2),
    C("aten.diff.default", t(3, 6), 2, 1),
    C("aten.diff.default", t(3, 4), 1, -1, t(3, 2), t(3, 1)),
    C("aten.empty_like.default", t(3, 4, dtype=I)),
    C("aten.empty_permuted.default", [2, 3, 4], [0, 2, 1]),
    C("aten.eye.default", 3),
    C("aten.eye.m", 3, 5, dtype=I),
    C("aten.polygamma.default", 2, t(3, 4)),
    C("aten.polygamma.default", 1, t(3, 4, dtype=I)),
    C("aten.digamma.default", t(2, 3, dtype=I)),
    C("aten.triu_indices.default", 4, 5, 1),
    C("aten.tril_indices.default", 3, 6, -1, dtype=I),
    C("aten.triu_indices.default", 2, 2, 5),
    C("aten.item.default", t(1)),
    C("aten.kl_div.default", t(3, 4), t(3, 4)),
    C("aten.kl_div.default", t(3, 4), t(4), 0),
    C("aten.linalg_cross.default", t(4, 3), t(4, 3)),
    C("aten.linalg_vector_norm.default", t(3, 4), 2, [1], True),
    C("aten.linalg_vector_norm.default", t(3, 4, dtype=D)),
    C("aten.linspace.default", 0.0, 1.0, 5),
    C("aten.mT.default", t(2, 3, 4)),
    C("aten.nll_loss.default", t(4, 5), t(4, dtype=I)),
    C("aten.nll_loss_nd.default", t(4, 5), t(4, dtype=I), None, 0),
    C("aten.nll_loss2d.default", t(2, 5, 3, 3), t(2, 3, 3, dtype=I), None, 0),
    C("aten.nll_loss_forward.default", t(4, 5), t(4, dtype=I), None, 1, -100),
    C("aten.nll_loss_forward.default", t(4, 5), t(4, dtype=I), t(5), 0, -100),
    C("aten.nll_loss2d_forward.default", t(2, 5, 3, 3), t(2, 3, 3, dtype=I), None, 1, -100),
    C("aten.nll_loss_backward.default", t(), t(4, 5), t(4, dtype=I), None, 1, -100, t()),
    C("aten.nll_loss2d_backward.default", t(), t(2, 5, 3, 3), t(2, 3, 3, dtype=I), None, 1, -100, t()),
    C("aten.numpy_T.default", t(2, 3, 4)),
    C("aten.pixel_shuffle.default", t(1, 8, 2, 3), 2),
    C("aten.pixel_unshuffle.default", t(2, 1, 6, 3), 3),
    C("aten.reshape_as.default", t(2, 6), t(3, 4)),
    C("aten.view_as.default", t(2, 6), t(4, 3)),
    C("aten.swapaxes.default", t(2, 3, 4), 0, 2),
    C("aten.swapdims.default", t(2, 3, 4), -1, 0),
    C("aten.threshold_backward.default", t(3, 4), t(3, 4), 0.5),
    C("aten.trace.default", t(3, 5, dtype=I)),
    C("aten.unfold.default", t(3, 8), 1, 3, 2),
    C("aten.xlogy.Scalar_Self", 2.0, t(3, 4)),
    C("aten.xlogy.Scalar_Other", t(3, 4, dtype=I), 2),
    C("aten.conv_transpose1d.default", t(1, 3, 7), t(3, 2, 3), None, [2]),
    C("aten.conv_transpose2d.input", t(1, 3, 5, 5), t(3, 2, 3, 3), t(2), [2, 2], [1, 1], [1, 1]),
    C("aten.conv_transpose2d.input", t(2, 4, 4, 4), t(4, 1, 3, 3), None, [1, 1], [0, 0], [0, 0], 2, [2, 1]),
    C("aten.conv_transpose3d.input", t(1, 2, 3, 4, 4), t(2, 3, 2, 2, 2), None, [2, 1, 1]),
    C("aten.count_nonzero.dim_IntList", t(3, 4), [1]),
    C("aten.glu.default", t(3, 4)),
    C("aten.glu.default", t(4, 6, dtype=D), 0),
    C("aten.logsumexp.default", t(2, 3, 4), [0, 2], True),
    C("aten.one_hot.default", t(2, 3, dtype=I), 6),
    C("aten.repeat_interleave.self_int", t(2, 3), 3, 1),
    C("aten.repeat_interleave.self_int", t(2, 3), 2),
    C("aten.rms_norm.default", t(2, 3, 8), [8]),
    C("aten.tile.default", t(2, 3), [2, 1, 2]),
    C("aten._addmm_activation.default", t(4), t(3, 5), t(5, 4), use_gelu=True),
    C("aten._safe_softmax.default", t(3, 4), 1),
    C("aten.addmv.default", t(3), t(3, 4), t(4)),
    C("aten.argsort.stable", t(3, 5), stable=True, dim=0),
    C("aten.ger.default", t(3), t(4)),
    C("aten.index_add.default", t(5, 3), 0, t(4, dtype=I), t(4, 3)),
    C("aten.index_copy.default", t(3, 6), 1, t(2, dtype=I), t(3, 2)),
    C("aten.index_fill.int_Scalar", t(5, 3), 0, t(2, dtype=I), 1.5),
    C("aten.index_fill.int_Tensor", t(5, 3), 1, t(2, dtype=I), t()),
    C("aten.max_pool1d.default", t(2, 3, 9), [3]),
    C("aten.max_pool1d.default", t(1, 2, 10), [2], [3], [1], [2], True),
    C("aten.permute_copy.default", t(2, 3, 4), [2, 0, 1]),
    C("aten.std_mean.dim", t(2, 3, 4), [1, 2], True, True),
    C("aten.transpose_copy.int", t(2, 3, 4), 0, 2),
    C("aten.unsqueeze_copy.default", t(3, 4), 1),
    C("aten.view_copy.default", t(3, 4), [2, 6]),
    C("aten.take_along_dim.default", t(3, 4), t(3, 2, dtype=I), 1),
    *(C(f"aten.{w}.default", 8) for w in ("hann_window", "hamming_window", "blackman_window", "bartlett_window")),
    *(C(f"aten.{w}.periodic", 7, False, dtype=D)
      for w in ("hann_window", "hamming_window", "blackman_window", "bartlett_window")),
    C("aten.instance_norm.default", t(2, 3, 5, 4), t(3), t(3), None, None, True, 0.1, 1e-5, False),
    C("aten.upsample_nearest1d.default", t(1, 2, 5), [9]),
    C("aten.upsample_nearest1d.vec", t(2, 3, 4), None, [2.0]),
    C("aten.upsample_nearest3d.default", t(1, 2, 3, 4, 5), [4, 6, 3]),
    C("aten.upsample_nearest3d.vec", t(1, 1, 2, 3, 2), None, [2.0, 1.5, 3.0]),
    C("aten.sigmoid_backward.default", t(3, 4), t(4)),
    C("aten.tanh_backward.default", t(2, 3, dtype=D), t(2, 3)),
    C("aten.gelu_backward.default", t(3, 4), t(3, 4), approximate="tanh"),
    C("aten.hardtanh_backward.default", t(3, 4), t(3, 4), -1.0, 1.0),
    C("aten.leaky_relu_backward.default", t(3, 4), t(3, 4), 0.01, False),
    C("aten.softplus_backward.default", t(2, 5, dtype=D), t(2, 5, dtype=D), 1.0, 20.0),
    C("aten.elu_backward.default", t(3, 4), 1.0, 1.0, 1.0, True, t(3, 4)),
    C("aten.hardshrink_backward.default", t(3, 4), t(3, 4), 0.5),
    C("aten.logit_backward.default", t(3, 4), t(3, 4), 0.1),
    C("aten.mse_loss_backward.default", t(), t(3, 4), t(3, 4), 1),
    C("aten.mse_loss_backward.default", t(3, 4), t(3, 4), t(3, 4), 0),
    C("aten._softmax_backward_data.default", t(2, 3, 4), t(2, 3, 4), 1, D),
    C("aten._log_softmax_backward_data.default", t(3, 4, dtype=H), t(3, 4, dtype=H), -1, F),
    C("aten.native_dropout_backward.default", t(3, 4), t(3, 4, dtype=B), 2.0),
    *(C(f"aten.{d}.default", t(2, 3, 4), 0.5, False) for d in ("alpha_dropout", "feature_dropout", "feature_alpha_dropout")),
    C("aten.as_strided_copy.default", t(4, 6), [3, 2], [6, 1], 1),
    C("aten.expand_copy.default", t(3, 1), [2, 3, 4]),
    C("aten.clip.default", t(3, 4, dtype=I), -1, 2.5),
    C("aten.clip.Tensor", t(3, 4), t(4), t(3, 1)),
    C("aten.concat.default", [t(2, 3), t(4, 3)]),
    C("aten.concatenate.default", [t(2, 3), t(2, 5, dtype=D)], 1),
    C("aten.narrow_copy.default", t(5, 4), 0, 1, 3),
    C("aten.select_copy.int", t(3, 4, 5), 1, -1),
    C("aten.squeeze_copy.dim", t(3, 1, 4), 1),
    C("aten.squeeze_copy.dims", t(1, 3, 1), [0, 2]),
    C("aten.unfold_copy.default", t(3, 8), 1, 3, 2),
    C("aten.special_softmax.default", t(2, 3), 1),
    C("aten.special_log_softmax.default", t(2, 3, dtype=H), 0, D),
    C("aten.special_logsumexp.default", t(2, 3, 4), [1], True),
    *(C(f"aten.{n}.default", t(2, 4, 4)) for n in (
        "linalg_inv", "inverse", "linalg_matrix_exp", "matrix_exp", "linalg_cholesky", "cholesky", "cholesky_inverse",
        "linalg_inv_ex", "linalg_cholesky_ex", "linalg_det", "det", "logdet", "linalg_slogdet", "slogdet",
        "linalg_eigvalsh", "linalg_eigh", "pinverse")),
    C("aten.linalg_inv.default", t(3, 3, dtype=D)),
    C("aten.linalg_det.default", t(5, 5)),
    C("aten.linalg_matrix_power.default", t(2, 3, 3), -2),
    C("aten.matrix_power.default", t(4, 4, dtype=I), 3),
    C("aten.linalg_svdvals.default", t(2, 3, 5)),
    C("aten.linalg_svdvals.default", t(6, 4, dtype=D)),
    C("aten.linalg_qr.default", t(2, 5, 3)),
    C("aten.linalg_qr.default", t(3, 5), "complete"),
    C("aten.linalg_qr.default", t(2, 5, 3, dtype=D), "r"),
    C("aten.linalg_pinv.default", t(2, 5, 3), 1e-5),
    C("aten.linalg_pinv.atol_rtol_float", t(4, 3), atol=0.1),
    C("aten.linalg_pinv.atol_rtol_tensor", t(2, 4, 3), atol=t(2), rtol=t()),
    C("aten.linalg_pinv.rcond_tensor", t(4, 3), t(3)),
    C("aten.pinverse.default", t(3, 5, dtype=D), 1e-3),
    C("aten.linalg_vecdot.default", t(2, 3, 4), t(3, 4)),
    C("aten.linalg_vecdot.default", t(3, 4, dtype=D), t(3, 1, dtype=D), dim=0),
    C("aten.linalg_matrix_norm.default", t(2, 3, 4), 1),
    C("aten.linalg_matrix_norm.str_ord", t(2, 3, 4), "nuc", [0, 2], True),
    C("aten.linalg_norm.default", t(2, 3, 4)),
    C("aten.linalg_norm.default", t(2, 3, 4), 3, [1], True),
    C("aten.linalg_norm.ord_str", t(3, 4), "fro", [0, 1], dtype=D),
    C("aten.select_backward.default", t(3, 5), [4, 3, 5], 0, 2),
    C("aten.slice_backward.default", t(3, 2, dtype=D), [3, 7], 1, 1, 6, 3),
    C("aten.index_select_backward.default", t(4, 3), [5, 3], 0, t(4, dtype=I)),
    C("aten.trace_backward.default", t(), [2, 4]),
    C("aten.gather_backward.default", t(3, 2), t(3, 4), 1, t(3, 2, dtype=I), False),
    C("aten.embedding_backward.default", t(2, 3, 5), t(2, 3, dtype=I), 4, 1, False, False),
    C("aten.smooth_l1_loss_backward.default", t(), t(3, 4), t(3, 4), 1, 1.0),
    C("aten.huber_loss_backward.default", t(2, 5, dtype=D), t(2, 5, dtype=D), t(2, 5, dtype=D), 0, 0.5),
    C("aten.binary_cross_entropy_backward.default", t(2, 5), t(2, 5), t(2, 5), t(2, 5), 0),
    C("aten.rrelu_with_noise_backward.default", t(3, 4), t(3, 4), t(3, 4), 0.1, 0.3, True, False),
    C("aten.glu_backward.default", t(3, 2), t(3, 4), 1),
    C("aten.vdot.default", t(5), t(5)),
    C("aten.margin_ranking_loss.default", t(5), t(5), t(5)),
    C("aten.margin_ranking_loss.default", t(3, 4, dtype=D), t(3, 4, dtype=D), t(3, 4, dtype=D), 0.5, 0),
    C("aten.hinge_embedding_loss.default", t(3, 4), t(3, 4), 0.5, 0),
    C("aten.soft_margin_loss.default", t(3, 4), t(3, 4), 2),
    C("aten.poisson_nll_loss.default", t(3, 4), t(3, 4), True, False, 1e-8, 1),
    C("aten.poisson_nll_loss.default", t(3, 4), t(3, 4), True, False, 1e-8, 0),
    C("aten.bernoulli.p", t(3, 4), 0.3),
    C("aten.geometric.default", t(3, 4, dtype=D), 0.3),
    C("aten.multinomial.default", t(2, 5), 3),
    C("aten.multinomial.default", t(5), 8, True),
    C("aten.normal.float_Tensor", 0.5, t(3, 4)),
    C("aten.normal.float_float", 0.0, 1.0, [3, 4]),
    C("aten.normal.float_float", 0.0, 1.0, [2], dtype=D),
    C("aten.randint.default", 5, [3, 4]),
    C("aten.randint.low", 1, 5, [2, 3], dtype=DType.int32),
    C("aten.randint_like.default", t(3, 4), 5),
    C("aten.randint_like.low_dtype", t(3, 4, dtype=I), 1, 5),
    C("aten.random.from", t(3, 4), 1, 5),
    C("aten.random.to", t(3, 4, dtype=I), 7),
]

# Ops whose inputs torch cannot produce on fake tensors, or whose output is
# data dependent; covered by the unit tests above instead.
NOT_COMPARED = {
    "aten._local_scalar_dense.default": "needs real data",
    "aten.nonzero.default": "data-dependent size (unit test)",
    "aten.masked_select.default": "data-dependent size",
    "aten.where.default": "data-dependent size",
    "aten.nonzero_numpy.default": "data-dependent size",
    "aten.index.list_Tensor": "list of tensors as `self`, no FakeTensor kernel",
    "aten.copy.Dict_Tensor": "Dict input",
    "aten.einsum.sublist": "varargs",
    "aten.eq.Tensor_list": "compares the tensors' data: a bool fake tensors cannot give",
    "aten.ne.Tensor_list": "compares the tensors' data, as eq.Tensor_list",
    "aten.item.default": "needs real data, as _local_scalar_dense",
    "aten.baddbmm.dtype": "CUDA-only overload whose fake decomposition reads out_dtype as beta (a TypeError in torch); "
    "test_aten_kernels.py compares the kernel with float32 math",
    "aten.istft.default": "torch's istft checks its window's overlap-add with aten.equal, data-dependent under "
    "FakeTensorMode; test_complex.py runs it against eager",
    "aten.sym_storage_offset.default": "SymInt metadata",
    "aten.sym_is_contiguous.default": "SymBool metadata",
    "aten.to.prim_Device": "TorchScript-only overload",
    "aten.to.prim_dtype": "TorchScript-only overload",
    "aten.to.prim_other": "TorchScript-only overload",
}
"""Functional overloads FakeTensorMode cannot type, and why: every other one is compared."""


META_LENIENT = {
    f"aten.{n}" for n in ("std.default", "var.default", "std.correction", "var.correction",
                         "var_mean.default", "var_mean.correction")
}
"""Fake kernels accept integral inputs here though eager torch raises; we raise."""


def _auto_cases() -> list[Case]:
    """Two or three argument sets for ops whose required arguments are tensors/scalars."""
    cases: list[Case] = []
    explicit = {c.name for c in EXPLICIT}
    for name in ATEN_OP_NAMES:
        cls = aten_op_class(name)
        assert cls is not None
        schema = cls.SCHEMA
        if not schema.is_functional or name in explicit or name in NOT_COMPARED:
            continue
        required = [a for a in schema.arguments if not a.has_default]
        if not all(a.type.is_base("Tensor", "Scalar") for a in required):
            continue
        variants = [
            ((2, 3), (3,), F, F, 2),
            ((4, 1), (1, 5), DType.int32, I, 1.5),
            ((), (3,), D, H, 3),
        ]
        for first, other, d1, d2, scalar in variants:
            args: list[object] = []
            for i, a in enumerate(required):
                if a.type.is_base("Scalar"):
                    args.append(scalar)
                elif a.name in ("condition", "mask"):
                    args.append(T(other, B))
                elif i == 0 or a.name == "self":
                    args.append(T(first, d1))
                else:
                    args.append(T(other, d2))
            cases.append(Case(name, tuple(args)))
    return cases


ALL_CASES = [c for c in EXPLICIT if c.name in set(ATEN_OP_NAMES)] + _auto_cases()


def _to_ours(spec: object) -> object:
    if isinstance(spec, T):
        return tensor(spec.shape, spec.dtype)
    if isinstance(spec, list):
        return [_to_ours(s) for s in spec]
    return spec


def _to_torch(spec: object, torch: object) -> object:
    tm = torch
    if isinstance(spec, T):
        return tm.empty(spec.shape, dtype=getattr(tm, spec.dtype.value))  # pyright: ignore[reportAttributeAccessIssue] - tm is torch, imported lazily and typed object
    if isinstance(spec, list):
        return [_to_torch(s, tm) for s in spec]
    if isinstance(spec, DType):
        return getattr(tm, spec.value)
    if isinstance(spec, MemoryFormat):
        return getattr(tm, spec.value)
    if isinstance(spec, DeviceAttr):
        return tm.device(spec.device.data)  # pyright: ignore[reportAttributeAccessIssue] - tm is torch, imported lazily and typed object
    return spec


def _flatten_ours(types: Sequence[Attribute]) -> list[Attribute]:
    out: list[Attribute] = []
    for ty in types:
        if isinstance(ty, TupleType):
            out += list(ty.types.data)
        else:
            out.append(ty)
    return out


def _compare(case: Case, ours: Sequence[Attribute], theirs: object, torch: object) -> None:
    tm = torch
    if isinstance(theirs, tuple) or (isinstance(theirs, list) and len(ours) == 1 and isinstance(ours[0], ListType | TupleType)):
        items = list(theirs)
        if len(ours) == 1 and isinstance(ours[0], ListType):
            ours = [ours[0].element_type] * len(items)
        else:
            ours = _flatten_ours(ours)
    else:
        items = [theirs]
    assert len(ours) == len(items), f"{case.name}: {len(ours)} results vs {len(items)}"
    for mine, real in zip(ours, items):
        if isinstance(real, tm.Tensor):  # pyright: ignore[reportAttributeAccessIssue] - tm is torch, imported lazily and typed object
            assert isinstance(mine, TensorType), f"{case.name}: {mine}"
            assert list(mine.sizes) == list(real.shape), (
                f"{case.name}{case.args}: shape {list(mine.sizes)} vs torch {list(real.shape)}"
            )
            assert mine.element_dtype.value == str(real.dtype).removeprefix("torch."), (
                f"{case.name}{case.args}: dtype {mine.element_dtype.value} vs torch {real.dtype}"
            )
        elif isinstance(real, int) and isinstance(mine, SymIntType):
            assert mine.value == real


@pytest.fixture(scope="module")
def torch_mod():
    return pytest.importorskip("torch")


def _ids(cases: list[Case]) -> list[str]:
    return [f"{c.name}-{i}" for i, c in enumerate(cases)]


def test_inference_matches_torch(torch_mod) -> None:
    torch = torch_mod
    import logging

    from torch._subclasses.fake_tensor import FakeTensorMode

    logging.getLogger("torch._subclasses.fake_tensor").setLevel(logging.CRITICAL)
    checked: set[str] = set()
    n_checked = 0
    failures: list[str] = []
    torch_rejected: list[str] = []
    for case in ALL_CASES:
        with FakeTensorMode():
            targs = [_to_torch(a, torch) for a in case.args]
            tkwargs = {k: _to_torch(v, torch) for k, v in case.kwargs.items()}
            _, pkg, overload = case.name.split(".")
            packet = getattr(torch.ops.aten, pkg)
            try:
                theirs = getattr(packet, overload)(*targs, **tkwargs)
            except Exception:  # torch rejects this argument set: nothing to compare
                torch_rejected.append(case.name)
                continue
        args = [_to_ours(a) for a in case.args]
        kwargs = {k: _to_ours(v) for k, v in case.kwargs.items()}
        if case.name in META_LENIENT and case.args and isinstance(case.args[0], T) and case.args[0].dtype in (I, DType.int32):
            with pytest.raises(InferenceError):
                build(case.name, *args, **kwargs)
            continue
        try:
            op = build(case.name, *args, **kwargs)
            op.verify()
            _compare(case, op.result_types, theirs, torch)
        except Exception as e:  # collect every disagreement, then fail once
            failures.append(f"{case.name}{case.args}{case.kwargs}: {e}")
            continue
        checked.add(case.name)
        n_checked += 1
    assert not failures, "\n".join(failures)
    functional = {
        n
        for n in ATEN_OP_NAMES
        if aten_op_class(n).SCHEMA.is_functional  # pyright: ignore[reportOptionalMemberAccess] - every listed name has a class
    }
    uncovered = functional - checked - set(NOT_COMPARED)
    print(f"\n{n_checked} cases on {len(checked)} ops checked against torch; "
          f"{len(torch_rejected)} argument sets rejected by torch")
    assert not uncovered, f"functional ops compared by no case (add one, or list why in NOT_COMPARED): {sorted(uncovered)}"
    stale = sorted(set(NOT_COMPARED) & checked)
    assert not stale, f"compared now, so no longer NOT_COMPARED: {stale}"
    assert all(NOT_COMPARED.values()), "every NOT_COMPARED entry says why"


def _filler(st: object) -> object:
    from xdsl_exir.utils.function_schema import SchemaType

    assert isinstance(st, SchemaType)
    if st.is_optional:
        return None
    if st.is_list:
        elem = st.element
        return [_filler(elem)] if not elem.is_base("Tensor") else [tensor([2, 3])]
    return {
        "Tensor": None,
        "Scalar": 1,
        "int": 0,
        "SymInt": 0,
        "float": 0.5,
        "bool": False,
        "str": "sum",
        "ScalarType": F,
    }.get(st.name, None)


def test_inplace_and_out_variants_take_written_type() -> None:
    """Every mutating overload's results are the types of the arguments they alias."""
    checked = 0
    metadata_inplace = ("squeeze_", "unsqueeze_", "t_", "transpose_", "as_strided_", "resize_")
    for name in ATEN_OP_NAMES:
        cls = aten_op_class(name)
        assert cls is not None
        schema = cls.SCHEMA
        if not schema.is_mutable or schema.name in metadata_inplace:
            continue
        amap = schema.return_alias_map()
        if len(amap) != len(schema.returns):
            continue  # _native_batch_norm_legit: fresh results, has its own rule
        written = {a.name: tensor([2 + i, 3], DType.float64) for i, a in enumerate(schema.written_arguments) if a.type.is_base("Tensor")}
        args: list[object] = []
        kwargs: dict[str, object] = {}
        for a in schema.arguments:
            if a.name in written:
                v: object = written[a.name]
            elif a.has_default:
                continue
            else:
                v = tensor([2, 3]) if a.type.is_base("Tensor") else _filler(a.type)
            if a.kwarg_only:
                kwargs[a.name] = v
            else:
                args.append(v)
        types = infer_result_types(name, args, kwargs)
        expected = [schema.arguments[amap[i][0]] for i in range(len(schema.returns))]
        for ty, arg in zip(types, expected):
            if arg.name in written:
                assert ty == written[arg.name].type, name
        checked += 1
    assert checked > 300


def test_build_cost_is_constant_per_op(monkeypatch: pytest.MonkeyPatch) -> None:
    """
    Building a long chain costs the same calls per op however long it gets: the schema is parsed
    once per overload, equal argument trees are shared, and nothing is verified while building.
    """
    x = tensor([s0, 64])
    w = tensor([64, 64])

    def chain(n: int) -> list[AtenOp]:
        ops: list[AtenOp] = []
        cur: SSAValue = x
        for _ in range(n):
            ops.append(build("aten.relu.default", build("aten.linear.default", cur, w)))
            cur = ops[-1].results[0]
        return ops

    def no_verify(self: AtenOp) -> None:
        raise AssertionError(f"{self.name} verified while building")

    monkeypatch.setattr(AtenOp, "verify_", no_verify)
    counts = assert_linear(chain, 100)
    assert (counts[1] - counts[0]) / 100 < 500  # about a hundred calls for the two ops
    first, second = chain(2)
    assert first.args is second.args


def test_float_arguments_keep_the_sign_of_zero_and_nan() -> None:
    """Float leaves are shared by their text, not their value: -0.0 == 0.0 and nan != nan."""
    import math

    full = aten_op_class("aten.full.default")
    assert full is not None
    first = full.build([2], 0.0)
    second = full.build([2], -0.0)
    third = full.build([2], float("nan"))
    assert math.copysign(1.0, first.get_args()[1]) == 1.0
    assert math.copysign(1.0, second.get_args()[1]) == -1.0
    assert math.isnan(third.get_args()[1])
