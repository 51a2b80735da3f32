"""
Kernels against torch eager on the edge values where they once differed
(issue 21's list): integer powers with negative exponents, the sign of zero
through relu, remainder by an infinity, float32 GELU at the top of the range,
std near the float32 limit, and threshold_backward's promoted dtype.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from xdsl_exir.semantics import kernels as K

torch = pytest.importorskip("torch")

INF, NAN = float("inf"), float("nan")


def _same(ours: Any, theirs: Any) -> None:
    """Values, NaN positions, the sign of zero and the dtype exactly."""
    want = theirs.numpy()
    got = np.asarray(ours)
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.isnan(got) if got.dtype.kind == "f" else got, np.isnan(want) if want.dtype.kind == "f" else want)
    if got.dtype.kind == "f":
        real = ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(got[real]), np.signbit(want[real]))
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=0, equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int8, torch.uint8])
def test_integer_pow_with_negative_exponents(dtype: Any) -> None:
    base = torch.tensor([3, -3, 1, -1, -1, 2, 0, 5], dtype=dtype if dtype != torch.uint8 else torch.int16)
    base = base.to(dtype) if dtype != torch.uint8 else torch.tensor([3, 1, 0, 2, 255, 7, 1, 9], dtype=dtype)
    exponent = torch.tensor([-7, -7, -7, -8, -7, -1, -2, 2], dtype=torch.int64)
    _same(K.run_kernel("aten.pow.Tensor_Tensor", [base.numpy(), exponent.numpy()], {}), torch.pow(base, exponent))


def test_integer_pow_by_a_negative_int_scalar_is_refused_as_torch_refuses() -> None:
    with pytest.raises(RuntimeError):
        torch.pow(torch.tensor([3]), -7)
    with pytest.raises(ValueError, match="negative integer powers"):
        K.run_kernel("aten.pow.Tensor_Scalar", [np.array([3]), -7], {})
    # a float exponent is fine: the result is float
    _same(K.run_kernel("aten.pow.Tensor_Scalar", [np.array([3]), -1.0], {}), torch.pow(torch.tensor([3]), -1.0))


EDGE = [-0.0, 0.0, NAN, -1.0, 7.0, INF, -INF, 3e38, -3e38, 1e-45]


@pytest.mark.parametrize("name", ["relu", "relu6"])
def test_relu_keeps_negative_zero_and_nan(name: str) -> None:
    x = torch.tensor(EDGE)
    _same(K.run_kernel(f"aten.{name}.default", [x.numpy()], {}), getattr(torch.nn.functional, name)(x))
    xi = torch.tensor([-3, 0, 5, 9], dtype=torch.int32)
    _same(K.run_kernel(f"aten.{name}.default", [xi.numpy()], {}), getattr(torch.nn.functional, name)(xi))


@pytest.mark.parametrize("divisor", [INF, -INF, 2.5, -2.5, 0.0, -0.0, NAN])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
def test_remainder_by_infinities_and_zeros(divisor: float, dtype: Any) -> None:
    x = torch.tensor([5.0, -5.0, 0.0, -0.0, INF, -INF, NAN, 2.5, -7.5], dtype=dtype)
    _same(K.run_kernel("aten.remainder.Scalar", [x.numpy(), divisor], {}), torch.remainder(x, divisor))
    d = torch.full_like(x, divisor)
    _same(K.run_kernel("aten.remainder.Tensor", [x.numpy(), d.numpy()], {}), torch.remainder(x, d))


@pytest.mark.parametrize("n", [1, 2, 9, 40])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_float32_at_the_edges(n: int, approximate: str) -> None:
    """torch's vectorized float32 GELU (more than one element) gives NaN at +inf; its scalar loop inf."""
    for v in (INF, -INF, NAN, 3e38, -3e38, 1e20, -0.0):
        x = torch.zeros(n)
        x[-1] = v
        ours = K.run_kernel("aten.gelu.default", [x.numpy()], {"approximate": approximate})
        _same(ours[-1:], torch.nn.functional.gelu(x, approximate=approximate)[-1:])


@pytest.mark.parametrize("name", ["std", "std_mean", "var", "var_mean"])
def test_std_near_the_float32_limit(name: str) -> None:
    """Accumulated in double as torch's CPU kernel: std of values near 1e30 is finite, var inf."""
    x = torch.tensor([[1e30, 1.1e30, 3e30, -2e30], [1.0, 2.0, -0.0, NAN]])
    for dim in (None, 1):
        theirs = getattr(torch, name)(x, dim=dim)
        ours = K.run_kernel(f"aten.{name}.correction", [x.numpy()], {"dim": dim})
        if isinstance(theirs, tuple):
            for o, t in zip(ours, theirs, strict=True):
                _same(o, t)
        else:
            _same(ours, theirs)


@pytest.mark.parametrize(
    ("grad", "self_"),
    [(torch.int64, torch.float32), (torch.float16, torch.float32), (torch.float32, torch.float64), (torch.int32, torch.int64)],
)
def test_threshold_backward_promotes_as_eager(grad: Any, self_: Any) -> None:
    g = torch.tensor([1, 2, 3, 4], dtype=grad)
    s = torch.tensor([0.5, -1.0, 2.0, 0.0]).to(self_)
    theirs = torch.ops.aten.threshold_backward(g, s, 0)
    ours = K.KERNELS["aten.threshold_backward.default"](grad_output=g.numpy(), self=s.numpy(), threshold=0)
    _same(ours, theirs)


@pytest.mark.parametrize(("lo", "hi"), [(-1.0, 1.0), (0.0, 6.0), (-0.0, 0.0), (2.0, 3.0)])
def test_hardtanh_keeps_negative_zero_and_nan(lo: float, hi: float) -> None:
    x = torch.tensor(EDGE + [0.5, -0.5])
    _same(K.run_kernel("aten.hardtanh.default", [x.numpy(), lo, hi], {}), torch.nn.functional.hardtanh(x, lo, hi))


@pytest.mark.parametrize("reduce", ["sum", "prod", "amax", "amin"])
@pytest.mark.parametrize("include_self", [False, True])
def test_scatter_reduce_on_bool(reduce: str, include_self: bool) -> None:
    # Rows 0 and 2 get several sources, row 1 one, row 3 none (it keeps self either way).
    self_ = torch.tensor([[True, False, True], [False, True, True], [True, True, False], [False, True, False]])
    index = torch.tensor([[0, 2, 0], [2, 0, 2], [0, 1, 2], [2, 0, 0]])
    src = torch.tensor([[False, True, True], [False, False, True], [True, False, False], [False, True, False]])
    got = K.run_kernel("aten.scatter_reduce.two", [self_.numpy(), 0, index.numpy(), src.numpy(), reduce], {"include_self": include_self})
    _same(got, self_.scatter_reduce(0, index, src, reduce, include_self=include_self))


def test_scatter_reduce_mean_on_bool_is_refused_as_torch_refuses() -> None:
    self_, index, src = torch.tensor([True, False]), torch.tensor([0, 0]), torch.tensor([True, True])
    with pytest.raises(RuntimeError):
        self_.scatter_reduce(0, index, src, "mean")
    with pytest.raises(ValueError, match="scatter_reduce: reduce='mean' is not defined for a bool tensor"):
        K.run_kernel("aten.scatter_reduce.two", [self_.numpy(), 0, index.numpy(), src.numpy(), "mean"], {})


@pytest.mark.parametrize(("shape", "k", "replacement"), [((0, 10), 3, False), ((0, 10), 3, True), ((0, 0), 2, True), ((4,), 2, False)])
def test_multinomial_of_no_rows_or_one(shape: tuple[int, ...], k: int, replacement: bool) -> None:
    """No rows of probabilities: no draws, in the shape eager gives (draws are random, so shape and dtype only)."""
    p = torch.ones(shape)
    want = torch.multinomial(p, k, replacement)
    got = K.run_kernel("aten.multinomial.default", [p.numpy(), k, replacement], {})
    assert got.shape == tuple(want.shape) and got.dtype == want.numpy().dtype


@pytest.mark.parametrize(
    ("shape", "k", "why"),
    [((2, 0), 1, "no categories"), ((0,), 1, "no categories"), ((3,), 0, "num_samples must be positive"), ((1, 2, 3), 1, "1-d or 2-d")],
)
def test_multinomial_refuses_what_torch_refuses(shape: tuple[int, ...], k: int, why: str) -> None:
    p = torch.ones(shape)
    with pytest.raises(RuntimeError):
        torch.multinomial(p, k, True)
    with pytest.raises(ValueError, match=f"multinomial: .*{why}"):
        K.run_kernel("aten.multinomial.default", [p.numpy(), k, True], {})


def _torch_pad(x: Any, pad: tuple[int, ...], mode: str) -> Any:
    """Eager's pad, or None where eager refuses it or its result is not a function of the
    input (circular padding wider than its crop copies memory it never wrote)."""
    try:
        want = torch.nn.functional.pad(x, pad, mode=mode, **({"value": -7.5} if mode == "constant" else {}))
        again = torch.nn.functional.pad(x + 100, pad, mode=mode, **({"value": 92.5} if mode == "constant" else {}))
    except RuntimeError:
        return None
    same = (want + 100 == again) | (want.isnan() & again.isnan())
    return want if bool(same.all()) else None


@pytest.mark.parametrize("mode", ["constant", "replicate", "reflect", "circular"])
@pytest.mark.parametrize("n", [1, 4])
def test_pad_with_negative_pads_as_eager(mode: str, n: int) -> None:
    """Every pair of pads from cropping past the dimension to padding past it: where eager
    gives a result ours is the same; where eager refuses, ours is refused too (except an empty
    circular result eager refuses with a shape error), with a sentence naming pad."""
    x = torch.tensor([NAN, -0.0, INF, 2.5, -INF][:n]).reshape(1, 1, n)
    for lo in range(-n - 2, n + 3):
        for hi in range(-n - 2, n + 3):
            kept = n - max(-lo, 0) - max(-hi, 0)
            if mode == "circular" and n + lo + hi > 0 and (kept < 1 or max(lo, hi) > kept):
                # eager refuses, or copies memory it never wrote: whatever was there, which two calls
                # can reproduce by chance (the freed tensor of the call before), so not an oracle
                with pytest.raises(ValueError, match=f"pad: {mode} padding of dimension 2"):
                    K.run_kernel("aten.pad.default", [x.numpy(), [lo, hi], mode], {"value": -7.5})
                continue
            want = _torch_pad(x, (lo, hi), mode)
            if want is None:
                if mode == "circular" and n + lo + hi == 0:
                    continue
                with pytest.raises(ValueError, match=f"pad: {mode} padding of dimension 2"):
                    K.run_kernel("aten.pad.default", [x.numpy(), [lo, hi], mode], {"value": -7.5})
                continue
            _same(K.run_kernel("aten.pad.default", [x.numpy(), [lo, hi], mode], {"value": -7.5}), want)


@pytest.mark.parametrize("mode", ["replicate", "reflect"])
@pytest.mark.parametrize("pad", [(-4, 5, 0, 0), (0, 0, 2, -4), (5, -4, -3, 3), (-3, 2, 1, -1)])
def test_pad_crops_then_reads_the_input_edge(mode: str, pad: tuple[int, ...]) -> None:
    """The conformance samples' pads: a crop as deep as the dimension, then padding that
    reads the original input's edge (replicate) or mirror (reflect), on two padded dims."""
    x = torch.arange(-40, 40, dtype=torch.int64).reshape(5, 4, 4)[:, :, :]
    xs = x.transpose(1, 2)  # non-contiguous
    for t in (x, xs):
        want = _torch_pad(t, pad, mode)
        if want is None:
            with pytest.raises(ValueError, match="pad: "):
                K.run_kernel("aten.pad.default", [t.numpy(), list(pad), mode], {})
            continue
        _same(K.run_kernel("aten.pad.default", [t.numpy(), list(pad), mode], {}), want)


@pytest.mark.parametrize("name", ["amax", "amin"])
@pytest.mark.parametrize(("shape", "dim"), [((0, 5), (1,)), ((0, 5), (-1,)), ((3, 0, 2), (0, 2)), ((2, 3), (1,))])
@pytest.mark.parametrize("keepdim", [False, True])
def test_amax_amin_of_an_empty_tensor_over_non_empty_dims(name: str, shape: tuple[int, ...], dim: tuple[int, ...], keepdim: bool) -> None:
    """Only a reduced dimension of size 0 has no extreme; other empty tensors reduce to empty results."""
    x = torch.arange(math.prod(shape), dtype=torch.float32).reshape(shape) - 2.5
    got = K.run_kernel(f"aten.{name}.default", [x.numpy(), list(dim), keepdim], {})
    _same(got, getattr(torch, name)(x, dim, keepdim))


@pytest.mark.parametrize("name", ["amax", "amin"])
@pytest.mark.parametrize(("shape", "dim"), [((0, 5), (0,)), ((0, 5), ()), ((2, 0), (0, 1))])
def test_amax_amin_over_an_empty_dim_is_refused_as_torch_refuses(name: str, shape: tuple[int, ...], dim: tuple[int, ...]) -> None:
    x = torch.empty(shape)
    with pytest.raises((RuntimeError, IndexError)):
        getattr(torch, name)(x, dim)
    with pytest.raises(ValueError, match=f"{name}: .*size 0"):
        K.run_kernel(f"aten.{name}.default", [x.numpy(), list(dim)], {})


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_of_an_empty_tensor_is_refused_as_torch_refuses(name: str) -> None:
    x = torch.empty(0, 3)
    with pytest.raises(RuntimeError):
        getattr(torch, name)(x)
    with pytest.raises(ValueError, match=f"{name}: .*no elements"):
        K.run_kernel(f"aten.{name}.default", [x.numpy()], {})


_F = np.float32


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("aten.linear.default", [np.ones((2, 3), _F), np.ones((4, 5), _F)]),
        ("aten.linear.default", [np.ones((2, 3), _F), np.ones((4, 3), _F), np.ones((5,), _F)]),
        ("aten.mm.default", [np.ones((2, 3), _F), np.ones((4, 5), _F)]),
        ("aten.addmm.default", [np.ones((5,), _F), np.ones((2, 3), _F), np.ones((4, 5), _F)]),
        ("aten.bmm.default", [np.ones((2, 2, 3), _F), np.ones((2, 4, 5), _F)]),
        ("aten.bmm.default", [np.ones((2, 2, 3), _F), np.ones((3, 3, 5), _F)]),
        ("aten.matmul.default", [np.ones((2, 2, 3), _F), np.ones((3, 3, 5), _F)]),
        ("aten.dot.default", [np.ones((3,), _F), np.ones((4,), _F)]),
    ],
)
def test_products_of_mismatched_shapes_are_refused_with_a_sentence(name: str, args: list[Any]) -> None:
    """Shapes a traced program meets at run time (the types of an exported one exclude them):
    eager refuses them, and so do the kernels, saying which sizes differ rather than
    passing numpy's gufunc message on."""
    with pytest.raises(RuntimeError):
        getattr(torch.ops.aten, name.split(".")[1])(*[torch.from_numpy(a) for a in args])
    with pytest.raises(ValueError, match=r"matrix product of shapes .* (inner sizes \d+ and \d+ differ|batch dimensions)|does not broadcast") as e:
        K.run_kernel(name, args, {})
    assert "gufunc" not in str(e.value)


@pytest.mark.parametrize(
    ("name", "args", "call"),
    [
        ("aten.sum.dim_IntList", [[4]], lambda x: torch.sum(x, [4])),
        ("aten.sum.dim_IntList", [[-3]], lambda x: torch.sum(x, [-3])),
        ("aten.transpose.int", [0, 5], lambda x: torch.transpose(x, 0, 5)),
        ("aten._softmax.default", [2, False], lambda x: torch.softmax(x, 2)),
        ("aten.amax.default", [[2]], lambda x: torch.amax(x, [2])),
    ],
)
def test_dims_out_of_range_are_refused_not_wrapped(name: str, args: list[Any], call: Any) -> None:
    """A dim outside [-rank, rank) is refused as torch refuses it, not taken modulo the rank
    (sum over dim 4 of a 2-d tensor is not a sum over dim 0)."""
    x = torch.ones(2, 3)
    with pytest.raises(IndexError):
        call(x)
    with pytest.raises(IndexError, match=r"dimension -?\d+ is out of range for a 2-d tensor \(expected -2 to 1\)"):
        K.run_kernel(name, [x.numpy(), *args], {})
    # in range, negative dims still wrap
    np.testing.assert_array_equal(K.run_kernel("aten.sum.dim_IntList", [x.numpy(), [-1]], {}), torch.sum(x, [-1]).numpy())


@pytest.mark.parametrize(
    ("name", "args", "call", "why"),
    [
        ("aten.expand.default", [[2, 5]], lambda x: x.expand(2, 5), "dimension 1 of size 3 cannot be expanded to 5"),
        ("aten.expand.default", [[3]], lambda x: x.expand(3), "give at least one per dimension"),
        ("aten.select.int", [1, 3], lambda x: x.select(1, 3), "index 3 is out of range for dimension 1 of size 3"),
        ("aten.select.int", [0, -3], lambda x: x.select(0, -3), "index -3 is out of range for dimension 0 of size 2"),
    ],
)
def test_expand_and_select_out_of_range_are_refused_not_wrapped(name: str, args: list[Any], call: Any, why: str) -> None:
    """Sizes a traced program meets at run time: eager refuses them; taking the index modulo
    the size or broadcasting a dimension of size 3 would give a value eager never gives."""
    x = torch.arange(6.0).reshape(2, 3)
    with pytest.raises((RuntimeError, IndexError)):
        call(x)
    with pytest.raises((ValueError, IndexError), match=why):
        K.run_kernel(name, [x.numpy(), *args], {})


@pytest.mark.parametrize(("size", "dim", "index"), [([2, 3, 2], 0, -2), ([2, -1, 2], 1, 0), ([2, 3, 2], -1, -1)])
def test_expand_and_select_in_range_as_eager(size: list[int], dim: int, index: int) -> None:
    x = torch.tensor([[NAN, -0.0]])
    _same(K.run_kernel("aten.expand.default", [x.numpy(), size], {}), x.expand(*size))
    y = x.expand(*size)
    _same(K.run_kernel("aten.select.int", [y.numpy(), dim, index], {}), y.select(dim, index))


@pytest.mark.parametrize("name", ["aten.add.Tensor", "aten.mul.Tensor", "aten.maximum.default", "aten.atan2.default"])
def test_pointwise_operands_that_do_not_broadcast_are_refused_with_a_sentence(name: str) -> None:
    a, b = torch.ones(2, 3), torch.ones(4, 5)
    with pytest.raises(RuntimeError):
        getattr(torch.ops.aten, name.split(".")[1])(a, b)
    with pytest.raises(ValueError, match=r"the operands' shapes \[2, 3\], \[4, 5\] do not broadcast"):
        K.run_kernel(name, [a.numpy(), b.numpy()], {})
    # shapes that broadcast still do
    c = torch.tensor([[NAN], [-0.0]])
    _same(K.run_kernel(name, [c.numpy(), a.numpy()], {}), getattr(torch.ops.aten, name.split(".")[1])(c, a))


@pytest.mark.parametrize(
    ("name", "shapes", "dim", "why"),
    [
        ("aten.cat.default", [(2, 3), (4, 5)], 0, r"cat: tensors of shapes \[2, 3\], \[4, 5\] do not join along dimension 0"),
        ("aten.cat.default", [(2, 3), (2, 3, 1)], 1, r"cat: .* must have one rank"),
        ("aten.stack.default", [(2, 3), (2, 4)], 0, r"stack: tensors of shapes \[2, 3\], \[2, 4\] differ"),
        ("aten.stack.default", [(2, 3), (2, 3)], 3, r"dimension 3 is out of range for a 3-d tensor"),
    ],
)
def test_cat_and_stack_of_mismatched_tensors_are_refused_with_a_sentence(name: str, shapes: list[tuple[int, ...]], dim: int, why: str) -> None:
    ts = [torch.ones(sh) for sh in shapes]
    with pytest.raises((RuntimeError, IndexError)):
        getattr(torch, name.split(".")[1])(ts, dim)
    with pytest.raises((ValueError, IndexError), match=why):
        K.run_kernel(name, [[t.numpy() for t in ts], dim], {})
    # tensors that fit still join: a NaN and a -0.0, the last dim negative
    a, b = torch.tensor([[NAN, 1.0]]), torch.tensor([[-0.0, INF]])
    _same(K.run_kernel(name, [[a.numpy(), b.numpy()], -1], {}), getattr(torch, name.split(".")[1])([a, b], -1))
