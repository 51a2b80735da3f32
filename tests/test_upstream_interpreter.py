"""
The upstream-dialect interpreter (func/arith/math/tensor/linalg/scf on numpy)
against numpy computed independently: naive loops for convolutions and
pooling, Python's own integer and float semantics for arith.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

import numpy as np
import pytest
from xdsl.builder import ImplicitBuilder
from xdsl.context import Context
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects import arith, builtin, func, scf, tensor
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseResourceAttr,
    Float32Type,
    FunctionType,
    IndexType,
    IntegerType,
    ModuleOp,
    TensorType,
    f32,
    i1,
    i8,
    i32,
)
from xdsl.dialects.linalg import Linalg
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.parser import Parser

from xdsl_exir.interpreters.upstream import make_interpreter, run_lowered

RNG = np.random.default_rng(0)


def _ctx() -> Context:
    ctx = Context()
    for d in (arith.Arith, builtin.Builtin, func.Func, Linalg, mathd.Math, scf.Scf, tensor.Tensor):
        ctx.load_dialect(d)
    return ctx


def _parse(src: str) -> ModuleOp:
    module = Parser(_ctx(), src).parse_module()
    module.verify()
    return module


def _build(
    inputs: Sequence[Attribute], outputs: Sequence[Attribute], body: Callable[..., Sequence[SSAValue]]
) -> ModuleOp:
    """func.func @forward(inputs) -> outputs, its body made by `body(*block_args)` with xDSL's builders."""
    block = Block(arg_types=inputs)
    with ImplicitBuilder(block) as args:
        func.ReturnOp(*body(*args))
    module = ModuleOp([func.FuncOp("forward", FunctionType.from_lists(inputs, outputs), Region(block))])
    module.verify()
    return module


def _rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


# ---------------------------------------------------------------------------
# linalg.generic
# ---------------------------------------------------------------------------


def test_broadcast_add_generic_with_dynamic_dim() -> None:
    module = _parse(
        """
        func.func @forward(%a: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
          %c0 = arith.constant 0 : index
          %n = tensor.dim %a, %c0 : tensor<?x4xf32>
          %e = tensor.empty(%n) : tensor<?x4xf32>
          %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                                                affine_map<(i, j) -> (i, j)>],
                               iterator_types = ["parallel", "parallel"]}
              ins(%a, %b : tensor<?x4xf32>, tensor<4xf32>) outs(%e : tensor<?x4xf32>) {
          ^bb0(%x: f32, %y: f32, %o: f32):
            %s = arith.addf %x, %y : f32
            linalg.yield %s : f32
          } -> tensor<?x4xf32>
          func.return %r : tensor<?x4xf32>
        }
        """
    )
    for rows in (1, 5):
        a, b = _rand(rows, 4), _rand(4)
        (r,) = run_lowered(module, [a, b])
        assert r.dtype == np.float32 and r.shape == (rows, 4)
        np.testing.assert_array_equal(r, a + b)


_SUM_KEEPDIMS = """
func.func @forward(%a: tensor<?x?xf32>) -> tensor<?x1xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?x?xf32>
  %e = tensor.empty(%n) : tensor<?x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x1xf32>) -> tensor<?x1xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, 0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<?x?xf32>) outs(%init : tensor<?x1xf32>) {
  ^bb0(%x: f32, %acc: f32):
    BODY
  } -> tensor<?x1xf32>
  func.return %r : tensor<?x1xf32>
}
"""


def test_reduction_generic_sum_keepdims() -> None:
    """A pure fold (the accumulator feeds one addf): folded with numpy's sum."""
    module = _parse(_SUM_KEEPDIMS.replace("BODY", "%s = arith.addf %x, %acc : f32\n    linalg.yield %s : f32"))
    a = _rand(3, 17)
    (r,) = run_lowered(module, [a])
    assert r.shape == (3, 1)
    np.testing.assert_allclose(r, a.astype(np.float64).sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


def test_reduction_generic_sequential_body() -> None:
    """A body that is not a fold (acc * 0.5 + x) runs the reduction loop in order."""
    body = "%h = arith.constant 0.5 : f32\n    %m = arith.mulf %acc, %h : f32\n" \
           "    %s = arith.addf %m, %x : f32\n    linalg.yield %s : f32"
    module = _parse(_SUM_KEEPDIMS.replace("BODY", body))
    a = _rand(2, 6)
    (r,) = run_lowered(module, [a])
    expected = np.zeros((2, 1), np.float32)
    for j in range(6):
        expected[:, 0] = expected[:, 0] * np.float32(0.5) + a[:, j]
    np.testing.assert_array_equal(r, expected)


def test_generic_with_linalg_index_and_permuted_output() -> None:
    """out[j, i] = x[i, j] + 10*i + j: linalg.index over the grid, a transposing output map."""
    module = _parse(
        """
        func.func @forward(%x: tensor<3x5xf32>) -> tensor<5x3xf32> {
          %e = tensor.empty() : tensor<5x3xf32>
          %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j, i)>],
                               iterator_types = ["parallel", "parallel"]}
              ins(%x : tensor<3x5xf32>) outs(%e : tensor<5x3xf32>) {
          ^bb0(%v: f32, %o: f32):
            %i = linalg.index 0 : index
            %j = linalg.index 1 : index
            %ten = arith.constant 10 : index
            %t = arith.muli %i, %ten : index
            %k = arith.addi %t, %j : index
            %k64 = arith.index_cast %k : index to i64
            %kf = arith.sitofp %k64 : i64 to f32
            %s = arith.addf %v, %kf : f32
            linalg.yield %s : f32
          } -> tensor<5x3xf32>
          func.return %r : tensor<5x3xf32>
        }
        """
    )
    x = _rand(3, 5)
    (r,) = run_lowered(module, [x])
    i, j = np.meshgrid(np.arange(3), np.arange(5), indexing="ij")
    np.testing.assert_array_equal(r, (x + (10 * i + j).astype(np.float32)).T)


def test_matmul_named_and_generic() -> None:
    module = _parse(
        """
        func.func @forward(%a: tensor<4x6xf32>, %b: tensor<6x5xf32>)
            -> (tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>) {
          %zero = arith.constant 0.0 : f32
          %e = tensor.empty() : tensor<4x5xf32>
          %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x5xf32>) -> tensor<4x5xf32>
          %m = linalg.matmul ins(%a, %b : tensor<4x6xf32>, tensor<6x5xf32>) outs(%init : tensor<4x5xf32>) -> tensor<4x5xf32>
          %g = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>,
                                                affine_map<(i, j, k) -> (i, j)>],
                               iterator_types = ["parallel", "parallel", "reduction"]}
              ins(%a, %b : tensor<4x6xf32>, tensor<6x5xf32>) outs(%m : tensor<4x5xf32>) {
          ^bb0(%x: f32, %y: f32, %acc: f32):
            %p = arith.mulf %x, %y : f32
            %s = arith.addf %p, %acc : f32
            linalg.yield %s : f32
          } -> tensor<4x5xf32>
          %bt = tensor.empty() : tensor<5x6xf32>
          %t = linalg.transpose ins(%b : tensor<6x5xf32>) outs(%bt : tensor<5x6xf32>) permutation = [1, 0]
          %mt = linalg.matmul {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>,
                                                affine_map<(i, j, k) -> (i, j)>]}
              ins(%a, %t : tensor<4x6xf32>, tensor<5x6xf32>) outs(%init : tensor<4x5xf32>) -> tensor<4x5xf32>
          func.return %m, %g, %mt : tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>
        }
        """
    )
    a, b = _rand(4, 6), _rand(6, 5)
    m, g, mt = run_lowered(module, [a, b])
    reference = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(m, reference, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(g, 2 * reference, rtol=1e-5, atol=1e-5)  # accumulates onto %m
    np.testing.assert_allclose(mt, reference, rtol=1e-5, atol=1e-5)  # B given transposed, through its maps


# ---------------------------------------------------------------------------
# convolution and pooling (references are naive loops)
# ---------------------------------------------------------------------------


def _naive_conv(
    x: np.ndarray, w: np.ndarray, groups: int, stride: tuple[int, int], dilation: tuple[int, int]
) -> np.ndarray:
    """NCHW input, (F, C/groups, KH, KW) filter, no padding: out channel f sees group f // (F/groups)."""
    n, c, h, wd = x.shape
    f, cg, kh, kw = w.shape
    (sh, sw), (dh, dw) = stride, dilation
    oh = (h - dh * (kh - 1) - 1) // sh + 1
    ow = (wd - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, f, oh, ow), np.float64)
    fg = f // groups
    for b, o, y, z in itertools.product(range(n), range(f), range(oh), range(ow)):
        g = o // fg
        total = 0.0
        for ci, ky, kx in itertools.product(range(cg), range(kh), range(kw)):
            total += x[b, g * cg + ci, y * sh + ky * dh, z * sw + kx * dw] * w[o, ci, ky, kx]
        out[b, o, y, z] = total
    return out


def test_conv_2d_nchw_fchw_with_stride_dilation_and_pad() -> None:
    module = _parse(
        """
        func.func @forward(%x: tensor<2x3x7x9xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x3x4xf32> {
          %zero = arith.constant 0.0 : f32
          %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
          ^bb0(%i: index, %j: index, %k: index, %l: index):
            tensor.yield %zero : f32
          } : tensor<2x3x7x9xf32> to tensor<2x3x9x11xf32>
          %e = tensor.empty() : tensor<2x4x3x4xf32>
          %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4x3x4xf32>) -> tensor<2x4x3x4xf32>
          %r = linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
              ins(%p, %w : tensor<2x3x9x11xf32>, tensor<4x3x3x3xf32>) outs(%init : tensor<2x4x3x4xf32>)
              -> tensor<2x4x3x4xf32>
          func.return %r : tensor<2x4x3x4xf32>
        }
        """
    )
    x, w = _rand(2, 3, 7, 9), _rand(4, 3, 3, 3)
    (r,) = run_lowered(module, [x, w])
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    np.testing.assert_allclose(r, _naive_conv(padded, w, 1, (2, 2), (2, 2)), rtol=1e-5, atol=1e-5)


def test_grouped_conv_ngchw_fgchw() -> None:
    module = _parse(
        """
        func.func @forward(%x: tensor<1x2x3x6x6xf32>, %w: tensor<2x2x3x3x3xf32>, %init: tensor<1x2x2x4x4xf32>)
            -> tensor<1x2x2x4x4xf32> {
          %r = linalg.conv_2d_ngchw_fgchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
              ins(%x, %w : tensor<1x2x3x6x6xf32>, tensor<2x2x3x3x3xf32>) outs(%init : tensor<1x2x2x4x4xf32>)
              -> tensor<1x2x2x4x4xf32>
          func.return %r : tensor<1x2x2x4x4xf32>
        }
        """
    )
    x, w, init = _rand(1, 2, 3, 6, 6), _rand(2, 2, 3, 3, 3), _rand(1, 2, 2, 4, 4)
    (r,) = run_lowered(module, [x, w, init])
    # as an ungrouped-layout grouped conv: channels g*3+c, filters g*2+f
    flat_w = w.transpose(1, 0, 2, 3, 4).reshape(4, 3, 3, 3)
    expected = _naive_conv(x.reshape(1, 6, 6, 6), flat_w, 2, (1, 1), (1, 1)).reshape(1, 2, 2, 4, 4) + init
    np.testing.assert_allclose(r, expected, rtol=1e-5, atol=1e-5)


def test_max_pooling_nchw() -> None:
    module = _parse(
        """
        func.func @forward(%x: tensor<1x2x7x7xf32>) -> tensor<1x2x3x3xf32> {
          %ninf = arith.constant 0xFF800000 : f32
          %e = tensor.empty() : tensor<1x2x3x3xf32>
          %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
          %k = tensor.empty() : tensor<3x3xf32>
          %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
              ins(%x, %k : tensor<1x2x7x7xf32>, tensor<3x3xf32>) outs(%init : tensor<1x2x3x3xf32>)
              -> tensor<1x2x3x3xf32>
          func.return %r : tensor<1x2x3x3xf32>
        }
        """
    )
    x = _rand(1, 2, 7, 7)
    x[0, 1, 0, 0] = np.nan  # NaN wins its window, as arith.maximumf says
    (r,) = run_lowered(module, [x])
    expected = np.empty((1, 2, 3, 3), np.float32)
    for c, y, z in itertools.product(range(2), range(3), range(3)):
        window = x[0, c, 2 * y : 2 * y + 3, 2 * z : 2 * z + 3]
        expected[0, c, y, z] = np.nan if np.isnan(window).any() else max(window.ravel().tolist())
    np.testing.assert_array_equal(r, expected)


# ---------------------------------------------------------------------------
# tensor
# ---------------------------------------------------------------------------


def test_expand_collapse_with_dynamic_dim() -> None:
    module = _parse(
        """
        func.func @forward(%a: tensor<?x6xf32>) -> (tensor<?x2x3xf32>, tensor<?xf32>) {
          %c0 = arith.constant 0 : index
          %n = tensor.dim %a, %c0 : tensor<?x6xf32>
          %e = tensor.expand_shape %a [[0], [1, 2]] output_shape [%n, 2, 3] : tensor<?x6xf32> into tensor<?x2x3xf32>
          %c = tensor.collapse_shape %e [[0, 1, 2]] : tensor<?x2x3xf32> into tensor<?xf32>
          func.return %e, %c : tensor<?x2x3xf32>, tensor<?xf32>
        }
        """
    )
    a = _rand(5, 6)
    e, c = run_lowered(module, [a])
    np.testing.assert_array_equal(e, a.reshape(5, 2, 3))
    np.testing.assert_array_equal(c, a.reshape(30))


def test_extract_insert_slice_with_strides() -> None:
    module = _parse(
        """
        func.func @forward(%a: tensor<6x8xf32>, %off: index)
            -> (tensor<3x?xf32>, tensor<4xf32>, tensor<6x8xf32>, tensor<1x?xf32>) {
          %two = arith.constant 2 : index
          %s = tensor.extract_slice %a[1, %off] [3, %two] [2, 3] : tensor<6x8xf32> to tensor<3x?xf32>
          %row = tensor.extract_slice %a[4, 0] [1, 4] [1, 2] : tensor<6x8xf32> to tensor<4xf32>
          %i = tensor.insert_slice %row into %a[0, %off] [4, 1] [1, 2] : tensor<4xf32> into tensor<6x8xf32>
          %e = tensor.expand_shape %a [[0, 1], [2]] output_shape [3, 2, 8] : tensor<6x8xf32> into tensor<3x2x8xf32>
          %k = tensor.extract_slice %e[2, 1, %off] [1, 1, %two] [1, 1, 1] : tensor<3x2x8xf32> to tensor<1x?xf32>
          func.return %s, %row, %i, %k : tensor<3x?xf32>, tensor<4xf32>, tensor<6x8xf32>, tensor<1x?xf32>
        }
        """
    )
    a = _rand(6, 8)
    s, row, ins, k = run_lowered(module, [a, 1])
    np.testing.assert_array_equal(k, a[5:6, 1:3])  # rank-reduced: a unit dim dropped, one kept
    np.testing.assert_array_equal(s, a[1:7:2, 1:7:3])
    np.testing.assert_array_equal(row, a[4, 0:8:2])
    expected = a.copy()
    expected[0:4, 1] = a[4, 0:8:2]
    np.testing.assert_array_equal(ins, expected)


def test_concat_pad_dynamic_and_elements() -> None:
    module = _parse(
        """
        func.func @forward(%a: tensor<2x3xf32>, %b: tensor<?x3xf32>, %h: index) -> (tensor<?x3xf32>, tensor<?x5xf32>, f32) {
          %c = tensor.concat dim(0) %a, %b : (tensor<2x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
          %p = tensor.pad %a low[0, 1] high[%h, 1] {
          ^bb0(%i: index, %j: index):
            %ii = arith.index_cast %i : index to i32
            %v = arith.sitofp %ii : i32 to f32
            tensor.yield %v : f32
          } : tensor<2x3xf32> to tensor<?x5xf32>
          %c1 = arith.constant 1 : index
          %x = tensor.extract %c[%c1, %c1] : tensor<?x3xf32>
          func.return %c, %p, %x : tensor<?x3xf32>, tensor<?x5xf32>, f32
        }
        """
    )
    a, b = _rand(2, 3), _rand(4, 3)
    c, p, x = run_lowered(module, [a, b, 2])
    np.testing.assert_array_equal(c, np.concatenate([a, b]))
    expected = np.repeat(np.arange(4, dtype=np.float32)[:, None], 5, axis=1)
    expected[0:2, 1:4] = a
    np.testing.assert_array_equal(p, expected)
    assert x.shape == () and x == a[1, 1]


# ---------------------------------------------------------------------------
# scf
# ---------------------------------------------------------------------------


def test_scf_if_and_while() -> None:
    module = _parse(
        """
        func.func @forward(%x: tensor<4xf32>, %limit: f32) -> (tensor<4xf32>, i32) {
          %zero = arith.constant 0 : i32
          %one = arith.constant 1 : i32
          %c0 = arith.constant 0 : index
          %r:2 = scf.while (%t = %x, %n = %zero) : (tensor<4xf32>, i32) -> (tensor<4xf32>, i32) {
            %v = tensor.extract %t[%c0] : tensor<4xf32>
            %go = arith.cmpf olt, %v, %limit : f32
            scf.condition(%go) %t, %n : tensor<4xf32>, i32
          } do {
          ^bb0(%t: tensor<4xf32>, %n: i32):
            %d = linalg.add ins(%t, %t : tensor<4xf32>, tensor<4xf32>) outs(%t : tensor<4xf32>) -> tensor<4xf32>
            %m = arith.addi %n, %one : i32
            scf.yield %d, %m : tensor<4xf32>, i32
          }
          %odd = arith.andi %r#1, %one : i32
          %is_odd = arith.cmpi ne, %odd, %zero : i32
          %out = scf.if %is_odd -> (tensor<4xf32>) {
            %neg = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                                   iterator_types = ["parallel"]}
                ins(%r#0 : tensor<4xf32>) outs(%r#0 : tensor<4xf32>) {
            ^bb0(%v: f32, %o: f32):
              %nv = arith.negf %v : f32
              linalg.yield %nv : f32
            } -> tensor<4xf32>
            scf.yield %neg : tensor<4xf32>
          } else {
            scf.yield %r#0 : tensor<4xf32>
          }
          func.return %out, %r#1 : tensor<4xf32>, i32
        }
        """
    )
    x = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    for limit, steps in ((1.5, 1), (7.0, 3), (0.5, 0), (20.0, 5)):
        out, n = run_lowered(module, [x, limit])
        assert int(n) == steps
        np.testing.assert_array_equal(out, x * 2.0**steps * (-1 if steps % 2 else 1))


# ---------------------------------------------------------------------------
# arith semantics (modules made with builders)
# ---------------------------------------------------------------------------

_CMPF = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
         "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"]  # fmt: skip


def _cmpf_reference(predicate: str, a: float, b: float) -> bool:
    if predicate in ("false", "true"):
        return predicate == "true"
    unordered = math.isnan(a) or math.isnan(b)
    kind = predicate[1:] if predicate not in ("ord", "uno") else ""
    relation = {"eq": a == b, "gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b, "ne": a != b, "": True}[kind]
    if predicate == "uno":
        return unordered
    if predicate.startswith("o"):
        return not unordered and relation
    return unordered or relation


def test_every_cmpf_predicate_with_nan() -> None:
    """All 16 predicates on scalars and, through a generic body, on whole arrays."""
    scalar = _build([f32, f32], [i1] * 16, lambda a, b: [arith.CmpfOp(a, b, p).result for p in _CMPF])
    pairs = [(math.nan, 1.0), (1.0, math.nan), (math.nan, math.nan), (1.0, 1.0), (1.0, 2.0), (2.0, 1.0)]
    for a, b in pairs:
        got = [bool(v) for v in run_lowered(scalar, [a, b])]
        assert got == [_cmpf_reference(p, a, b) for p in _CMPF], (a, b)

    vec = TensorType(f32, [len(pairs)])
    out = TensorType(i1, [len(pairs)])

    def body(x: SSAValue, y: SSAValue) -> list[SSAValue]:
        ident = builtin.AffineMapAttr(builtin.AffineMap.identity(1))
        inits = [tensor.EmptyOp([], out).tensor for _ in _CMPF]
        block = Block(arg_types=[f32, f32] + [i1] * len(_CMPF))
        with ImplicitBuilder(block) as args:
            linalg.YieldOp(*[arith.CmpfOp(args[0], args[1], p).result for p in _CMPF])
        generic = linalg.GenericOp(
            [x, y], inits, Region(block), [ident] * (2 + len(_CMPF)),
            [IteratorTypeAttr.parallel()], [out] * len(_CMPF),
        )  # fmt: skip
        return list(generic.res)

    vector = _build([vec, vec], [out] * 16, body)
    a = np.array([p[0] for p in pairs], np.float32)
    b = np.array([p[1] for p in pairs], np.float32)
    for p, got in zip(_CMPF, run_lowered(vector, [a, b])):
        assert got.dtype == np.bool_
        assert got.tolist() == [_cmpf_reference(p, x, y) for x, y in pairs], p


def _wrap(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def test_integer_wrap_around() -> None:
    i64 = IntegerType(64)
    module = _build(
        [i8, i8, i32],
        [i8, i8, i8, i32, i8, i32, i32, i64],
        lambda a, b, c: [
            arith.AddiOp(a, b).result,
            arith.SubiOp(a, b).result,
            arith.MuliOp(a, b).result,
            arith.MuliOp(c, c).result,
            arith.ShLIOp(a, arith.ConstantOp.from_int_and_width(3, 8)).result,
            arith.ExtSIOp(a, i32).result,
            arith.ExtUIOp(a, i32).result,
            arith.ExtSIOp(arith.TruncIOp(c, i8), i64).result,
        ],
    )
    for a, b, c in ((100, 100, 2**31 - 1), (-128, 1, -(2**31)), (-7, 57, 123456789)):
        got = [int(v) for v in run_lowered(module, [a, b, c])]
        expected = [_wrap(a + b, 8), _wrap(a - b, 8), _wrap(a * b, 8), _wrap(c * c, 32), _wrap(a << 3, 8),
                    a, a & 0xFF, _wrap(c, 8)]  # fmt: skip
        assert got == expected, (a, b, c)


def test_unsigned_and_signed_division() -> None:
    module = _build(
        [i8, i8],
        [i8, i8, i8, i8, i8, i8, i8, i8, i1, i8, f32],
        lambda a, b: [
            arith.DivUIOp(a, b).result,
            arith.RemUIOp(a, b).result,
            arith.DivSIOp(a, b).result,
            arith.RemSIOp(a, b).result,
            arith.FloorDivSIOp(a, b).result,
            arith.CeilDivSIOp(a, b).result,
            arith.ShRUIOp(a, arith.ConstantOp.from_int_and_width(2, 8)).result,
            arith.ShRSIOp(a, arith.ConstantOp.from_int_and_width(2, 8)).result,
            arith.CmpiOp(a, b, "ult").result,
            arith.MaxUIOp(a, b).result,
            arith.UIToFPOp(a, f32).result,
        ],
    )
    for a, b in ((-1, 2), (-7, 2), (7, -2), (100, 7), (-128, 3)):
        ua, ub = a & 0xFF, b & 0xFF
        trunc = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        expected = [
            _wrap(ua // ub, 8), _wrap(ua % ub, 8), trunc, a - trunc * b, a // b, -(-a // b),
            _wrap(ua >> 2, 8), a >> 2, int(ua < ub), _wrap(max(ua, ub), 8), float(ua),
        ]  # fmt: skip
        got = [v.item() for v in run_lowered(module, [a, b])]
        assert got == expected, (a, b)


def test_math_and_casts_keep_dtype() -> None:
    """erf against math.erf, round half away from zero, bf16 rounding to nearest even."""
    bf16 = BFloat16Type()
    vec = TensorType(f32, [6])
    ident = builtin.AffineMapAttr(builtin.AffineMap.identity(1))

    def pointwise(x: SSAValue, build: Callable[[SSAValue], SSAValue]) -> SSAValue:
        block = Block(arg_types=[f32, f32])
        with ImplicitBuilder(block) as (v, _):
            linalg.YieldOp(build(v))
        init = tensor.EmptyOp([], vec).tensor
        return linalg.GenericOp([x], [init], Region(block), [ident, ident], [IteratorTypeAttr.parallel()],
                                [vec]).res[0]  # fmt: skip

    module = _build(
        [vec],
        [vec, vec, vec],
        lambda x: [
            pointwise(x, lambda v: mathd.ErfOp(v).result),
            pointwise(x, lambda v: mathd.RoundOp(v).result),
            pointwise(x, lambda v: arith.ExtFOp(arith.TruncFOp(v, bf16), Float32Type()).result),
        ],
    )
    x = np.array([-2.5, -0.5, 0.5, 1.5, 1.00390625, 1.01171875], np.float32)
    erf, rounded, via_bf16 = run_lowered(module, [x])
    assert erf.dtype == rounded.dtype == np.float32
    np.testing.assert_allclose(erf, [math.erf(float(v)) for v in x], rtol=1e-6)
    np.testing.assert_array_equal(rounded, [-3.0, -1.0, 1.0, 2.0, 1.0, 1.0])
    # 1 + 2^-8 is a bf16 tie (rounds to even: 1.0); 1 + 3 * 2^-8 rounds up to 1 + 2^-6
    np.testing.assert_array_equal(via_bf16, [-2.5, -0.5, 0.5, 1.5, 1.0, 1.015625])


def test_named_elementwise_reduce_broadcast_transpose() -> None:
    module = _parse(
        """
        func.func @forward(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3x2xf32>) {
          %e = tensor.empty() : tensor<2x3xf32>
          %bb = linalg.broadcast ins(%b : tensor<3xf32>) outs(%e : tensor<2x3xf32>) dimensions = [0]
          %m = linalg.max ins(%a, %bb : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
          %ninf = arith.constant 0xFF800000 : f32
          %e1 = tensor.empty() : tensor<3xf32>
          %init = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<3xf32>) -> tensor<3xf32>
          %r = linalg.reduce ins(%m : tensor<2x3xf32>) outs(%init : tensor<3xf32>) dimensions = [0]
            (%x: f32, %acc: f32) {
              %y = arith.maximumf %x, %acc : f32
              linalg.yield %y : f32
            }
          %e2 = tensor.empty() : tensor<3x2xf32>
          %t = linalg.transpose ins(%m : tensor<2x3xf32>) outs(%e2 : tensor<3x2xf32>) permutation = [1, 0]
          func.return %m, %r, %t : tensor<2x3xf32>, tensor<3xf32>, tensor<3x2xf32>
        }
        """
    )
    a, b = _rand(2, 3), _rand(3)
    m, r, t = run_lowered(module, [a, b])
    np.testing.assert_array_equal(m, np.maximum(a, b[None, :]))
    np.testing.assert_array_equal(r, np.maximum(a, b[None, :]).max(axis=0))
    np.testing.assert_array_equal(t, np.maximum(a, b[None, :]).T)


def test_dense_resource_constant() -> None:
    """The blob is declared in the builtin dialect's OpAsmDialectInterface storage."""
    interface = builtin.Builtin.get_interface(OpAsmDialectInterface)
    assert interface is not None
    data = np.arange(6, dtype="<f4").reshape(2, 3) * np.float32(1.5) - 2
    key = interface.declare_resource("upstream_interp_weight")
    interface.parse_resource(key, "0x04000000" + data.tobytes().hex())
    t = TensorType(f32, [2, 3])
    module = _build(
        [t],
        [t, IndexType()],
        lambda x: [
            linalg.AddOp([x, arith.ConstantOp(DenseResourceAttr.from_params(key, t), t).result],
                         [tensor.EmptyOp([], t).tensor], [t]).res[0],
            arith.ConstantOp.from_int_and_width(7, IndexType()).result,
        ],
    )  # fmt: skip
    x = _rand(2, 3)
    for _ in range(2):  # the second run reads the cached array
        r, seven = run_lowered(module, [x])
        np.testing.assert_array_equal(r, x + data)
        assert seven.dtype == np.int64 and int(seven) == 7


def test_dense_resource_constant_from_text() -> None:
    """The parser fills the same storage from a `dialect_resources` section; bf16 blobs hold bit patterns."""
    ints = np.array([1, -2, 2**31 - 1], "<i4").tobytes().hex()
    module = _parse(
        """
        func.func @forward() -> (tensor<3xi32>, tensor<2xbf16>) {
          %c = arith.constant dense_resource<text_ints> : tensor<3xi32>
          %b = arith.constant dense_resource<text_bf16> : tensor<2xbf16>
          func.return %c, %b : tensor<3xi32>, tensor<2xbf16>
        }
        {-#
          dialect_resources: {
            builtin: {
              text_ints: "0x04000000INTS",
              text_bf16: "0x02000000803F40C0"
            }
          }
        #-}
        """.replace("INTS", ints)
    )
    ints_out, bf16_out = run_lowered(module, [])
    assert ints_out.dtype == np.int32 and ints_out.tolist() == [1, -2, 2**31 - 1]
    assert bf16_out.tolist() == [1.0, -3.0]  # 0x3F80, 0xC040


def test_gather_through_tensor_extract_in_a_generic_body() -> None:
    """An embedding lookup: tensor.extract with index arrays inside a vectorized body."""
    module = _parse(
        """
        func.func @forward(%ids: tensor<3xi64>, %w: tensor<5x4xf32>) -> tensor<3x4xf32> {
          %e = tensor.empty() : tensor<3x4xf32>
          %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                               iterator_types = ["parallel", "parallel"]}
              ins(%ids : tensor<3xi64>) outs(%e : tensor<3x4xf32>) {
          ^bb0(%id: i64, %o: f32):
            %row = arith.index_cast %id : i64 to index
            %col = linalg.index 1 : index
            %v = tensor.extract %w[%row, %col] : tensor<5x4xf32>
            linalg.yield %v : f32
          } -> tensor<3x4xf32>
          func.return %r : tensor<3x4xf32>
        }
        """
    )
    ids, w = np.array([4, 0, 4]), _rand(5, 4)
    (r,) = run_lowered(module, [ids, w])
    np.testing.assert_array_equal(r, w[ids])


def test_make_interpreter_runs_a_function_by_name() -> None:
    module = _build([i32], [i32], lambda a: [arith.MuliOp(a, a).result])
    interpreter = make_interpreter(module)
    (r,) = interpreter.call_op("forward", (np.int32(9),))
    assert r == 81 and isinstance(r, np.int32)


def test_wrong_argument_shape_is_refused() -> None:
    module = _build([TensorType(f32, [2])], [TensorType(f32, [2])], lambda a: [a])
    with pytest.raises(ValueError, match="does not match"):
        run_lowered(module, [np.zeros(3, np.float32)])


# (op name, image layout, filter layout, output layout) in terms of N G C H W / G F C KH KW / N G F OH OW
_CONV_LAYOUTS = {
    "conv_2d_nchw_fchw": ("NCHW", "FCKL", "NFHW"),
    "conv_2d_nhwc_fhwc": ("NHWC", "FKLC", "NHWF"),
    "conv_2d_nhwc_hwcf": ("NHWC", "KLCF", "NHWF"),
    "conv_2d_ngchw_fgchw": ("NGCHW", "FGCKL", "NGFHW"),
    "conv_2d_ngchw_gfchw": ("NGCHW", "GFCKL", "NGFHW"),
    "conv_2d_nhwgc_gfhwc": ("NHWGC", "GFKLC", "NHWGF"),
}


@pytest.mark.parametrize("name", sorted(_CONV_LAYOUTS))
def test_every_conv_layout(name: str) -> None:
    """Each layout against the naive NCHW conv of the same data, with stride 2 and dilation 1 x 2."""
    image_l, filter_l, out_l = _CONV_LAYOUTS[name]
    sizes = {"N": 2, "G": 2 if "G" in image_l else 1, "C": 2, "H": 7, "W": 9, "F": 3, "K": 3, "L": 2}
    out_sizes = {**sizes, "H": 3, "W": 4}  # (7 - 1*2 - 1)//2 + 1, (9 - 2*1 - 1)//2 + 1
    image_shape = [sizes[c] for c in image_l]
    filter_shape = [sizes[c] for c in filter_l]
    out_shape = [out_sizes[c] for c in out_l]

    def ty(shape: list[int]) -> str:
        return "tensor<" + "x".join(map(str, shape)) + "xf32>"

    module = _parse(
        f"""
        func.func @forward(%x: {ty(image_shape)}, %w: {ty(filter_shape)}, %init: {ty(out_shape)}) -> {ty(out_shape)} {{
          %r = linalg.{name} {{dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}}
              ins(%x, %w : {ty(image_shape)}, {ty(filter_shape)}) outs(%init : {ty(out_shape)}) -> {ty(out_shape)}
          func.return %r : {ty(out_shape)}
        }}
        """
    )
    x, w, init = _rand(*image_shape), _rand(*filter_shape), _rand(*out_shape)
    (r,) = run_lowered(module, [x, w, init])
    # ungrouped layouts get a leading G of 1; then to (N, G*C, H, W) and (G*F, C, K, L) for the naive conv
    full_image, full_filter, full_out = (layout if "G" in layout else "G" + layout for layout in (image_l, filter_l, out_l))
    xg = x if "G" in image_l else x[None]
    wg = w if "G" in filter_l else w[None]
    groups = sizes["G"]
    image = np.transpose(xg, [full_image.index(c) for c in "NGCHW"]).reshape(2, groups * 2, 7, 9)
    filters = np.transpose(wg, [full_filter.index(c) for c in "GFCKL"]).reshape(groups * 3, 2, 3, 2)
    conv = _naive_conv(image, filters, groups, (2, 2), (1, 2)).reshape(2, groups, 3, 3, 4)  # N G F OH OW
    expected = np.transpose(conv, ["NGFHW".index(c) for c in full_out]).reshape(out_shape) + init
    np.testing.assert_allclose(r, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fold", [True, False])
def test_generic_conv_with_general_affine_map(fold: bool) -> None:
    """out[n, o] = sum_k x[n, 2*o + k] * w[k]: the input is gathered by `d1 * 2 + d2`."""
    acc = "%s = arith.addf %p, %acc : f32" if fold else "%t = arith.addf %acc, %p : f32\n    %s = arith.addf %t, %zero : f32"
    module = _parse(
        f"""
        func.func @forward(%x: tensor<2x11xf32>, %w: tensor<3xf32>) -> tensor<2x5xf32> {{
          %zero = arith.constant 0.0 : f32
          %e = tensor.empty() : tensor<2x5xf32>
          %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x5xf32>) -> tensor<2x5xf32>
          %r = linalg.generic {{indexing_maps = [affine_map<(n, o, k) -> (n, o * 2 + k)>, affine_map<(n, o, k) -> (k)>,
                                                affine_map<(n, o, k) -> (n, o)>],
                               iterator_types = ["parallel", "parallel", "reduction"]}}
              ins(%x, %w : tensor<2x11xf32>, tensor<3xf32>) outs(%init : tensor<2x5xf32>) {{
          ^bb0(%a: f32, %b: f32, %acc: f32):
            %p = arith.mulf %a, %b : f32
            {acc}
            linalg.yield %s : f32
          }} -> tensor<2x5xf32>
          func.return %r : tensor<2x5xf32>
        }}
        """
    )
    x, w = _rand(2, 11), _rand(3)
    (r,) = run_lowered(module, [x, w])
    expected = [[sum(float(x[n, 2 * o + k]) * float(w[k]) for k in range(3)) for o in range(5)] for n in range(2)]
    np.testing.assert_allclose(r, expected, rtol=1e-5, atol=1e-6)


def test_scf_for_f16_i1_and_splat_constants() -> None:
    """f16 arithmetic stays f16; i1 tensors are bool arrays; splat dense constants broadcast."""
    module = _parse(
        """
        func.func @forward(%x: tensor<3xf16>, %n: index) -> (tensor<3xf16>, tensor<3xi1>, tensor<2x2xi32>) {
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %half = arith.constant dense<0.5> : tensor<3xf16>
          %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<3xf16>) {
            %m = linalg.mul ins(%acc, %half : tensor<3xf16>, tensor<3xf16>) outs(%acc : tensor<3xf16>) -> tensor<3xf16>
            scf.yield %m : tensor<3xf16>
          }
          %e = tensor.empty() : tensor<3xi1>
          %pos = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                                 iterator_types = ["parallel"]}
              ins(%r : tensor<3xf16>) outs(%e : tensor<3xi1>) {
          ^bb0(%v: f16, %o: i1):
            %z = arith.constant 0.0 : f16
            %b = arith.cmpf ogt, %v, %z : f16
            linalg.yield %b : i1
          } -> tensor<3xi1>
          %k = arith.constant dense<[[1, -2], [3, 2147483647]]> : tensor<2x2xi32>
          %one = arith.constant dense<1> : tensor<2x2xi32>
          %s = linalg.add ins(%k, %one : tensor<2x2xi32>, tensor<2x2xi32>) outs(%k : tensor<2x2xi32>) -> tensor<2x2xi32>
          func.return %r, %pos, %s : tensor<3xf16>, tensor<3xi1>, tensor<2x2xi32>
        }
        """
    )
    x = np.array([3.0, -1.5, 0.0], np.float16)
    r, pos, s = run_lowered(module, [x, 3])
    assert r.dtype == np.float16 and pos.dtype == np.bool_ and s.dtype == np.int32
    np.testing.assert_array_equal(r, x / np.float16(8))
    assert pos.tolist() == [True, False, False]
    assert s.tolist() == [[2, -1], [4, -(2**31)]]


_MATH = [
    ("exp", np.exp), ("exp2", np.exp2), ("expm1", np.expm1), ("log", np.log), ("log2", np.log2),
    ("log10", np.log10), ("log1p", np.log1p), ("sqrt", np.sqrt), ("rsqrt", lambda v: 1 / np.sqrt(v)),
    ("tanh", np.tanh), ("sin", np.sin), ("cos", np.cos), ("tan", np.tan), ("atan", np.arctan),
    ("sinh", np.sinh), ("cosh", np.cosh), ("asinh", np.arcsinh), ("cbrt", np.cbrt), ("absf", np.abs),
    ("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc), ("roundeven", np.rint),
]  # fmt: skip


def test_math_unary_ops_on_tensors() -> None:
    """Each unary op on a float32 tensor, against numpy in float64 rounded to float32."""
    names = [name for name, _ in _MATH]
    body = "\n".join(
        f"%r{i} = math.{name} %x : tensor<5xf32>" for i, name in enumerate(names)
    )
    results = ", ".join(f"%r{i}" for i in range(len(names)))
    types = ", ".join(["tensor<5xf32>"] * len(names))
    module = _parse(
        f"""
        func.func @forward(%x: tensor<5xf32>) -> ({types}) {{
          {body}
          func.return {results} : {types}
        }}
        """
    )
    x = np.array([0.25, 0.5, 1.5, 2.5, 0.75], np.float32)
    for (name, reference), got in zip(_MATH, run_lowered(module, [x])):
        assert got.dtype == np.float32, name
        np.testing.assert_allclose(got, reference(x.astype(np.float64)).astype(np.float32), rtol=2e-6, err_msg=name)


def test_argmax_generic_two_outputs_with_index() -> None:
    """
    Not a pure fold (each accumulator is read twice): the reduction loop runs in order, with linalg.index.
    (xDSL 0.74 parses a multi-result generic's types without parentheses, though it prints them with.)
    """
    module = _parse(
        """
        func.func @forward(%x: tensor<3x6xf32>) -> (tensor<3xf32>, tensor<3xi64>) {
          %ninf = arith.constant 0xFF800000 : f32
          %zero = arith.constant 0 : i64
          %ev = tensor.empty() : tensor<3xf32>
          %ei = tensor.empty() : tensor<3xi64>
          %v0 = linalg.fill ins(%ninf : f32) outs(%ev : tensor<3xf32>) -> tensor<3xf32>
          %i0 = linalg.fill ins(%zero : i64) outs(%ei : tensor<3xi64>) -> tensor<3xi64>
          %r:2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>,
                                                  affine_map<(i, j) -> (i)>],
                                 iterator_types = ["parallel", "reduction"]}
              ins(%x : tensor<3x6xf32>) outs(%v0, %i0 : tensor<3xf32>, tensor<3xi64>) {
          ^bb0(%v: f32, %best: f32, %at: i64):
            %j = linalg.index 1 : index
            %j64 = arith.index_cast %j : index to i64
            %better = arith.cmpf ogt, %v, %best : f32
            %nb = arith.select %better, %v, %best : f32
            %na = arith.select %better, %j64, %at : i64
            linalg.yield %nb, %na : f32, i64
          } -> tensor<3xf32>, tensor<3xi64>
          func.return %r#0, %r#1 : tensor<3xf32>, tensor<3xi64>
        }
        """
    )
    x = _rand(3, 6)
    x[1, 2] = x[1, 4] = 10.0  # the first maximum wins
    values, where = run_lowered(module, [x])
    np.testing.assert_array_equal(values, x.max(axis=1))
    np.testing.assert_array_equal(where, x.argmax(axis=1))


def test_small_tensor_ops() -> None:
    module = _parse(
        """
        func.func @forward(%a: f32, %b: f32, %n: index) -> (tensor<2x2xf32>, tensor<?x3xf32>, tensor<4xf32>, tensor<?x2xf32>) {
          %t = tensor.from_elements %a, %b, %b, %a : tensor<2x2xf32>
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %u = tensor.insert %a into %t[%c1, %c0] : tensor<2x2xf32>
          %s = tensor.splat %b[%n] : tensor<?x3xf32>
          %shape = arith.constant dense<[4]> : tensor<1xi64>
          %r = tensor.reshape %u(%shape) : (tensor<2x2xf32>, tensor<1xi64>) -> tensor<4xf32>
          %d = tensor.cast %u : tensor<2x2xf32> to tensor<?x2xf32>
          func.return %u, %s, %r, %d : tensor<2x2xf32>, tensor<?x3xf32>, tensor<4xf32>, tensor<?x2xf32>
        }
        """
    )
    u, s, r, d = run_lowered(module, [1.5, -2.0, 2])
    assert u.tolist() == [[1.5, -2.0], [1.5, 1.5]]
    assert s.shape == (2, 3) and (s == -2.0).all()
    assert r.tolist() == [1.5, -2.0, 1.5, 1.5] and d.tolist() == u.tolist()


def test_rank0_outputs() -> None:
    """A full reduction into a 0-d tensor, and a parallel op over 0-d tensors."""
    module = _parse(
        """
        func.func @forward(%x: tensor<4x5xi32>, %s: tensor<f32>) -> (tensor<i32>, tensor<f32>) {
          %zero = arith.constant 0 : i32
          %e = tensor.empty() : tensor<i32>
          %init = linalg.fill ins(%zero : i32) outs(%e : tensor<i32>) -> tensor<i32>
          %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                                 iterator_types = ["reduction", "reduction"]}
              ins(%x : tensor<4x5xi32>) outs(%init : tensor<i32>) {
          ^bb0(%v: i32, %acc: i32):
            %a = arith.addi %v, %acc : i32
            linalg.yield %a : i32
          } -> tensor<i32>
          %f = tensor.empty() : tensor<f32>
          %sq = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
              ins(%s : tensor<f32>) outs(%f : tensor<f32>) {
          ^bb0(%v: f32, %o: f32):
            %m = arith.mulf %v, %v : f32
            linalg.yield %m : f32
          } -> tensor<f32>
          func.return %sum, %sq : tensor<i32>, tensor<f32>
        }
        """
    )
    x = RNG.integers(-(2**31), 2**31, size=(4, 5), dtype=np.int32)
    total, square = run_lowered(module, [x, np.float32(3.0)])
    assert total.shape == () and int(total) == _wrap(int(x.astype(np.int64).sum()), 32)
    assert square.shape == () and float(square) == 9.0
