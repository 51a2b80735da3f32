"""
`convert-exir-to-linalg` on `as_strided`, `diagonal`, `flip`, zero-size slices
and upsampling (`linalg_lowering/views.py`, `resampling.py`), checked against
torch eager: small programs built in-process, lowered, run by the
upstream-dialect interpreter and by IREE's native code, each compared with
the same ops run by torch on the same inputs (bit for bit for the ops that
only move elements, NaN, -0.0 and infinities included; rtol 1e-5 for
interpolation). A dynamic dim `s0` runs at two values. Ops are grouped into
one program per family so that IREE compiles a handful of modules.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
import sympy
from iree_compiles import ProgramBatch
from test_linalg_lowering_creation_indexing import Add, program, t
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.aten import build
from xdsl_exir.dialects.exir import DType, GetItemOp, ProgramOp, SymSizeOp, TensorType
from xdsl_exir.interpreters.program import ProgramRunner, find_program
from xdsl_exir.targets.iree import lower_to_upstream, print_mlir
from xdsl_exir.transforms.convert_exir_to_linalg import function_arguments
from xdsl_exir.utils.diagnostics import ExirDiagnostic

torch = pytest.importorskip("torch")

S0 = sympy.Symbol("s0", integer=True, positive=True)
F32, F16, F64, I64, I32 = DType.float32, DType.float16, DType.float64, DType.int64, DType.int32
S0_VALUES = (5, 3)


def special(rng: np.random.Generator, *shape: int, dtype: Any = np.float32) -> np.ndarray:
    """Normal values with NaN, +-inf and -0.0 sprinkled in (where there is room)."""
    a = rng.standard_normal(shape).astype(dtype)
    flat = a.reshape(-1)
    for k, v in enumerate((np.nan, np.inf, -np.inf, -0.0)):
        if flat.size > 2 * k + 1:
            flat[2 * k + 1] = v
    return a


def ints(rng: np.random.Generator, lo: int, hi: int, *shape: int, dtype: Any = np.int64) -> np.ndarray:
    return rng.integers(lo, hi, shape).astype(dtype)


@dataclass(frozen=True)
class Group:
    types: tuple[TensorType, ...]
    body: Callable[..., Sequence[SSAValue]]
    reference: Callable[..., Sequence[Any]]
    """The same ops on torch tensors."""
    inputs: Callable[[np.random.Generator, int], list[np.ndarray]]
    exact: bool = True
    """Bit-for-bit equality (ops that only move elements)."""


# -- as_strided ------------------------------------------------------------------------


def _strided(add: Add, x: SSAValue, y: SSAValue, z: SSAValue, w: SSAValue) -> list[SSAValue]:
    pooled = add(build("aten.amax.default", x, [2, 3], True))  # exact, unlike a mean
    tr = add(build("aten.transpose.int", y, 0, 1))
    rows = add(build("aten.slice.Tensor", x, 0, 1, 2))
    shifted = add(build("aten.add.Tensor", tr, 1.0))
    col = add(build("aten.select.int", y, 1, 1))
    n = add(SymSizeOp(z, 0))
    return [
        add(build("aten.as_strided.default", x, [3, 4], [4, 1], 8)),  # a contiguous window
        add(build("aten.as_strided.default", x, [2, 2], [1, 2])),
        add(build("aten.as_strided.default", x, [4, 3], [1, 4])),  # a transposed read
        add(build("aten.as_strided.default", x, [3, 3], [1, 1])),  # overlapping windows
        add(build("aten.as_strided.default", x, [2, 3], [0, 2], 5)),  # a zero stride
        add(build("aten.as_strided.default", x, [0, 3], [1, 1])),  # empty
        add(build("aten.as_strided.default", x, [2, 3, 2, 2], [12, 4, 2, 1], 0)),  # the identity
        # ConvNeXt's channels-last restride of a pooled [N, C, 1, 1]: the same elements.
        add(build("aten.as_strided.default", pooled, [2, 3, 1, 1], [3, 1, 3, 3])),
        add(build("aten.as_strided.default", tr, [2, 3], [1, 2])),  # y's storage, not tr's elements
        add(build("aten.as_strided.default", rows, [4], [1])),  # offset: the slice's own (12)
        add(build("aten.as_strided.default", rows, [4], [2], 1)),  # an explicit offset replaces it
        add(build("aten.as_strided.default", col, [2], [1])),  # select's offset (1)
        add(build("aten.as_strided.default", shifted, [6], [1])),  # a pointwise result keeps tr's layout
        add(build("aten.as_strided.default", z, [n, 2], [4, 2])),  # symbolic sizes
        add(build("aten.as_strided.default", z, [2, n], [1, 4], 1)),
        add(build("aten.as_strided.default", w, [3, 2], [2, 1], 1)),  # int64
    ]


def _strided_ref(x: Any, y: Any, z: Any, w: Any) -> list[Any]:
    n = z.shape[0]
    return [
        x.as_strided([3, 4], [4, 1], 8),
        x.as_strided([2, 2], [1, 2]),
        x.as_strided([4, 3], [1, 4]),
        x.as_strided([3, 3], [1, 1]),
        x.as_strided([2, 3], [0, 2], 5),
        x.as_strided([0, 3], [1, 1]),
        x.as_strided([2, 3, 2, 2], [12, 4, 2, 1], 0),
        x.amax([2, 3], True).as_strided([2, 3, 1, 1], [3, 1, 3, 3]),
        y.transpose(0, 1).as_strided([2, 3], [1, 2]),
        x[1:2].as_strided([4], [1]),
        x[1:2].as_strided([4], [2], 1),
        y.select(1, 1).as_strided([2], [1]),
        (y.transpose(0, 1) + 1.0).as_strided([6], [1]),
        z.as_strided([n, 2], [4, 2]),
        z.as_strided([2, n], [1, 4], 1),
        w.as_strided([3, 2], [2, 1], 1),
    ]


# -- diagonal, flip, zero-size slices ----------------------------------------------------


def _views(add: Add, x: SSAValue, y: SSAValue, e: SSAValue) -> list[SSAValue]:
    return [
        add(build("aten.diagonal.default", x)),
        add(build("aten.diagonal.default", x, 1)),
        add(build("aten.diagonal.default", x, -2)),
        add(build("aten.diagonal.default", y, 0, 0, 2)),
        add(build("aten.diagonal.default", y, 1, -1, 1)),
        add(build("aten.diagonal.default", y, 7, 1, 2)),  # past the edge: empty
        add(build("aten.flip.default", x, [0])),
        add(build("aten.flip.default", y, [0, 2])),
        add(build("aten.flip.default", y, [-1])),
        add(build("aten.flip.default", e, [0, 1])),
        add(build("aten.slice.Tensor", e, 0, 0, 2)),  # a size-0 dim sliced at offset 0
        add(build("aten.slice.Tensor", e, 1, 1, 3)),
        add(build("aten.slice.Tensor", e, 0, 0, None, 2)),
    ]


def _views_ref(x: Any, y: Any, e: Any) -> list[Any]:
    return [
        x.diagonal(),
        x.diagonal(1),
        x.diagonal(-2),
        y.diagonal(0, 0, 2),
        y.diagonal(1, -1, 1),
        y.diagonal(7, 1, 2),
        x.flip([0]),
        y.flip([0, 2]),
        y.flip([-1]),
        e.flip([0, 1]),
        e[0:2],
        e[:, 1:3],
        e[0::2],
    ]


# -- upsampling ------------------------------------------------------------------------------


def _upsample(add: Add, x: SSAValue, h: SSAValue, d: SSAValue) -> list[SSAValue]:
    out: list[SSAValue] = []
    for ac in (False, True):
        out += [
            add(build("aten.upsample_bilinear2d.vec", x, [8, 12], ac, None)),
            add(build("aten.upsample_bilinear2d.vec", x, None, ac, [1.7, 0.6])),  # given scales, not sizes
            add(build("aten.upsample_bilinear2d.vec", x, [4, 1], ac, None)),  # same height: a copy; width 1
            add(build("aten.upsample_bilinear2d.default", x, [6, 7], ac, 1.5, 1.5)),
            add(build("aten.upsample_bilinear2d.vec", h, [100, 60] if ac else [9, 10], ac, None)),  # both CPU kernels
            add(build("aten.upsample_bilinear2d.vec", d, None, ac, [2.5, 1.25])),
        ]
    out += [
        add(build("aten.upsample_nearest2d.vec", x, [8, 10], None)),  # twice: i >> 1
        add(build("aten.upsample_nearest2d.vec", x, None, [1.7, 0.6])),
        add(build("aten.upsample_nearest2d.vec", x, [4, 3], None)),  # same height: a copy
        add(build("aten.upsample_nearest2d.default", x, [6, 7], 1.5, None)),
        add(build("aten.upsample_nearest2d.vec", h, None, [3.0, 2.0])),
    ]
    return out


def _upsample_ref(x: Any, h: Any, d: Any) -> list[Any]:
    up = torch.ops.aten
    out: list[Any] = []
    for ac in (False, True):
        out += [
            up.upsample_bilinear2d.vec(x, [8, 12], ac, None),
            up.upsample_bilinear2d.vec(x, None, ac, [1.7, 0.6]),
            up.upsample_bilinear2d.vec(x, [4, 1], ac, None),
            up.upsample_bilinear2d.default(x, [6, 7], ac, 1.5, 1.5),
            up.upsample_bilinear2d.vec(h, [100, 60] if ac else [9, 10], ac, None),
            up.upsample_bilinear2d.vec(d, None, ac, [2.5, 1.25]),
        ]
    out += [
        up.upsample_nearest2d.vec(x, [8, 10], None),
        up.upsample_nearest2d.vec(x, None, [1.7, 0.6]),
        up.upsample_nearest2d.vec(x, [4, 3], None),
        up.upsample_nearest2d.default(x, [6, 7], 1.5, None),
        up.upsample_nearest2d.vec(h, None, [3.0, 2.0]),
    ]
    return out


# -- scatter_reduce, advanced indexing, integer average pooling ---------------------------

_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _indexing(
    add: Add, x: SSAValue, index: SSAValue, src: SSAValue, xi: SSAValue, srci: SSAValue, y: SSAValue,
    i: SSAValue, j: SSAValue, v: SSAValue, p: SSAValue, cols: SSAValue,
) -> list[SSAValue]:
    out: list[SSAValue] = []
    for reduce in _REDUCES:
        for include_self in (True, False):
            out.append(add(build("aten.scatter_reduce.two", x, 1, index, src, reduce, include_self=include_self)))
            out.append(add(build("aten.scatter_reduce.two", xi, 1, index, srci, reduce, include_self=include_self)))
    out += [
        add(build("aten.scatter_reduce.two", x, 1, add(build("aten.slice.Tensor", index, 0, 0, 2)), src, "sum")),
        add(build("aten.index.Tensor", y, [i, None, j])),  # separated: the index dims go first
        add(build("aten.index.Tensor", y, [None, i, None, j])),
        add(build("aten.index.Tensor", y, [i, None, None, j])),
        add(build("aten.index_put.default", y, [i, None, j], v)),
        add(build("aten.index_put.default", y, [i, None, j], v, True)),
        add(build("aten.index_put.default", y, [None, i, None, j], add(build("aten.scalar_tensor.default", 2.5)), True)),
        add(build("aten.avg_pool2d.default", p, [2, 2], [1, 1])),
        add(build("aten.avg_pool2d.default", p, [3, 2], [2, 1], [1, 1], False, False)),
        add(build("aten.avg_pool2d.default", p, [2, 2], [2, 2], [1, 0], True, True)),
        add(build("aten.avg_pool2d.default", p, [2, 3], [1, 1], [0, 1], False, True, 5)),
        add(build("aten.col2im.default", cols, [4, 5], [2, 2], [1, 1], [0, 0], [1, 1])),
        add(build("aten.col2im.default", cols, [3, 7], [2, 2], [1, 1], [1, 0], [2, 1])),
        add(build("aten.col2im.default", add(build("aten.select.int", cols, 0, 1)), [4, 7], [2, 2], [2, 1], [0, 0], [1, 1])),
    ]
    return out


def _indexing_ref(x: Any, index: Any, src: Any, xi: Any, srci: Any, y: Any, i: Any, j: Any, v: Any, p: Any, cols: Any) -> list[Any]:
    out: list[Any] = []
    for reduce in _REDUCES:
        for include_self in (True, False):
            out.append(x.scatter_reduce(1, index, src, reduce, include_self=include_self))
            out.append(xi.scatter_reduce(1, index, srci, reduce, include_self=include_self))
    avg = torch.nn.functional.avg_pool2d
    out += [
        x.scatter_reduce(1, index[0:2], src, "sum"),
        y[i, :, j],
        y[:, i, :, j],
        torch.ops.aten.index.Tensor(y, [i, None, None, j]),
        torch.ops.aten.index_put.default(y, [i, None, j], v),
        torch.ops.aten.index_put.default(y, [i, None, j], v, True),
        torch.ops.aten.index_put.default(y, [None, i, None, j], torch.tensor(2.5), True),
        avg(p, [2, 2], [1, 1]),
        avg(p, [3, 2], [2, 1], [1, 1], False, False),
        avg(p, [2, 2], [2, 2], [1, 0], True, True),
        avg(p, [2, 3], [1, 1], [0, 1], False, True, 5),
        torch.ops.aten.col2im.default(cols, [4, 5], [2, 2], [1, 1], [0, 0], [1, 1]),
        torch.ops.aten.col2im.default(cols, [3, 7], [2, 2], [1, 1], [1, 0], [2, 1]),
        torch.ops.aten.col2im.default(cols[1], [4, 7], [2, 2], [2, 1], [0, 0], [1, 1]),
    ]
    return out


# -- padding, fill, copy, dropout, sizes and strides as values ------------------------------


def _misc(add: Add, x: SSAValue, y: SSAValue, z: SSAValue, h: SSAValue, w: SSAValue) -> list[SSAValue]:
    tr = add(build("aten.transpose.int", y, 1, 2))
    part = add(build("aten.slice.Tensor", y, 1, 1, 3))

    def as_tensor(sym: Operation) -> SSAValue:
        return add(build("aten.full.default", [1], add(sym), dtype=I64))

    return [
        add(build("aten.reflection_pad1d.default", x, [2, 3])),
        add(build("aten.reflection_pad2d.default", y, [1, 2, 2, 0])),
        add(build("aten.reflection_pad3d.default", z, [1, 1, 0, 2, 1, 0])),
        add(build("aten.replication_pad2d.default", y, [3, 1, 0, 4])),
        add(build("aten.replication_pad3d.default", z, [2, 0, 1, 1, 0, 3])),
        add(build("aten.replication_pad2d.default", y, [-1, 2, 1, -1])),  # negative pads crop
        add(build("aten.fill.Scalar", x, -2.5)),  # (-0.0 is not used: build() may reuse a cached 0.0)
        add(build("aten.fill.Scalar", w, 7)),
        add(build("aten.atan2.out", x, add(build("aten.neg.default", x)), out=add(build("aten.fill.Scalar", x, 0.0)))),
        add(build("aten.copy.default", h, x)),  # broadcast, float32 -> float16
        add(build("aten.copy.default", w, add(build("aten.scalar_tensor.default", -3.75)))),  # truncated
        *add(build("aten.native_dropout.default", x, 0.5, False)).owner.results,
        as_tensor(build("aten.sym_size.int", x, 1)),
        as_tensor(build("aten.sym_numel.default", y)),
        as_tensor(build("aten.sym_stride.int", tr, 1)),
        as_tensor(build("aten.sym_stride.int", part, 0)),
        as_tensor(build("aten.sym_storage_offset.default", part)),
        add(build("aten.scalar_tensor.default", add(build("aten.sym_is_contiguous.default", tr)), dtype=DType.bool)),
        add(build("aten.scalar_tensor.default", add(build("aten.sym_is_contiguous.default", y)), dtype=DType.bool)),
    ]


def _misc_ref(x: Any, y: Any, z: Any, h: Any, w: Any) -> list[Any]:
    pad = torch.ops.aten
    tr, part = y.transpose(1, 2), y[:, 1:3]
    return [
        pad.reflection_pad1d(x, [2, 3]),
        pad.reflection_pad2d(y, [1, 2, 2, 0]),
        pad.reflection_pad3d(z, [1, 1, 0, 2, 1, 0]),
        pad.replication_pad2d(y, [3, 1, 0, 4]),
        pad.replication_pad3d(z, [2, 0, 1, 1, 0, 3]),
        pad.replication_pad2d(y, [-1, 2, 1, -1]),
        torch.full_like(x, -2.5),
        torch.full_like(w, 7),
        torch.atan2(x, -x),
        h.clone().copy_(x),
        w.clone().copy_(torch.tensor(-3.75)),
        *pad.native_dropout(x, 0.5, False),
        torch.tensor([x.shape[1]]),
        torch.tensor([y.numel()]),
        torch.tensor([tr.stride(1)]),
        torch.tensor([part.stride(0)]),
        torch.tensor([part.storage_offset()]),
        torch.tensor(tr.is_contiguous()),
        torch.tensor(y.is_contiguous()),
    ]


# -- sort and topk ------------------------------------------------------------------------------


def _sorting(add: Add, x: SSAValue, xi: SSAValue, y: SSAValue) -> list[SSAValue]:
    def both(op: Operation) -> list[SSAValue]:
        return list(add(op).owner.results)

    return [
        *both(build("aten.sort.default", x)),
        *both(build("aten.sort.default", x, 0, True)),
        *both(build("aten.sort.default", xi, 1)),  # ties: a stable sort keeps index order
        *both(build("aten.sort.default", xi, 0, True)),
        *both(build("aten.sort.default", y, 1)),
        *both(build("aten.topk.default", x, 3)),
        *both(build("aten.topk.default", x, 2, 0, False)),
        *both(build("aten.topk.default", y, 2, 1)),
    ]


def _sorting_ref(x: Any, xi: Any, y: Any) -> list[Any]:
    return [
        *torch.ops.aten.sort.default(x),
        *torch.ops.aten.sort.default(x, 0, True),
        *torch.ops.aten.sort.default(xi, 1),
        *torch.ops.aten.sort.default(xi, 0, True),
        *torch.ops.aten.sort.default(y, 1),
        *torch.ops.aten.topk.default(x, 3),
        *torch.ops.aten.topk.default(x, 2, 0, False),
        *torch.ops.aten.topk.default(y, 2, 1),
    ]


# -- grid_sampler_2d ----------------------------------------------------------------------------


def _grid(add: Add, x: SSAValue, g: SSAValue) -> list[SSAValue]:
    return [
        add(build("aten.grid_sampler_2d.default", x, g, mode, padding, ac))
        for mode in (0, 1) for padding in (0, 1, 2) for ac in (False, True)
    ]  # fmt: skip


def _grid_ref(x: Any, g: Any) -> list[Any]:
    return [
        torch.ops.aten.grid_sampler_2d.default(x, g, mode, padding, ac)
        for mode in (0, 1) for padding in (0, 1, 2) for ac in (False, True)
    ]  # fmt: skip


def _grid_points(rng: np.random.Generator, n: int) -> np.ndarray:
    """Grid values inside and beyond [-1, 1], exact pixel centres and corners, a NaN and an infinity."""
    g = rng.uniform(-1.6, 1.6, (2, n, 4, 2)).astype(np.float32)
    g[0, 0, 0] = [-1.0, 1.0]
    g[0, 0, 1] = [0.0, 0.5]
    g[1, 0, 2] = [np.nan, 0.2]
    g[1, 0, 3] = [np.inf, -0.3]
    return g


# -- cdist and pdist -----------------------------------------------------------------------------


def _distances(add: Add, a: SSAValue, b: SSAValue, c: SSAValue, big: SSAValue) -> list[SSAValue]:
    out = [add(build("aten._cdist_forward.default", a, b, p, None)) for p in (2.0, 1.0, 0.0, float("inf"), 3.0)]
    out += [
        add(build("aten._cdist_forward.default", c, b, 2.0, None)),  # a broadcast batch
        add(build("aten._cdist_forward.default", big, big, 2.0, None)),  # 30 rows: torch's matrix-product form
        add(build("aten._cdist_forward.default", a, b, 2.0, 1)),
        add(build("aten._cdist_forward.default", big, big, 2.0, 2)),
    ]
    out += [add(build("aten._pdist_forward.default", big, p)) for p in (2.0, 1.0, 0.5)]
    return out


def _distances_ref(a: Any, b: Any, c: Any, big: Any) -> list[Any]:
    cd = torch.ops.aten._cdist_forward.default
    out = [cd(a, b, p, None) for p in (2.0, 1.0, 0.0, float("inf"), 3.0)]
    out += [cd(c, b, 2.0, None), cd(big, big, 2.0, None), cd(a, b, 2.0, 1), cd(big, big, 2.0, 2)]
    out += [torch.ops.aten._pdist_forward.default(big, p) for p in (2.0, 1.0, 0.5)]
    return out


GROUPS: dict[str, Group] = {
    "as_strided": Group(
        (t(2, 3, 2, 2), t(2, 3), t(S0, 4), t(3, 3, dtype=I64)),
        _strided,
        _strided_ref,
        lambda rng, n: [special(rng, 2, 3, 2, 2), special(rng, 2, 3), special(rng, n, 4), ints(rng, -9, 9, 3, 3)],
    ),
    "views": Group(
        (t(S0, 4), t(3, 4, 5, dtype=I32), t(0, 4)),
        _views,
        _views_ref,
        lambda rng, n: [special(rng, n, 4), ints(rng, -9, 9, 3, 4, 5, dtype=np.int32), np.zeros((0, 4), np.float32)],
    ),
    "upsample": Group(
        (t(S0, 3, 4, 5), t(1, 2, 3, 4, dtype=F16), t(1, 2, 3, 4, dtype=F64)),
        _upsample,
        _upsample_ref,
        lambda rng, n: [special(rng, n, 3, 4, 5), special(rng, 1, 2, 3, 4, dtype=np.float16), special(rng, 1, 2, 3, 4, dtype=np.float64)],
        exact=False,
    ),
    "misc": Group(
        (t(2, 5), t(2, S0, 4), t(1, 3, 4, 3), t(3, 2, 5, dtype=F16), t(S0, 3, dtype=I32)),
        _misc,
        _misc_ref,
        lambda rng, n: [
            special(rng, 2, 5), special(rng, 2, n, 4), special(rng, 1, 3, 4, 3), special(rng, 3, 2, 5, dtype=np.float16),
            ints(rng, -9, 9, n, 3, dtype=np.int32),
        ],
    ),
    "sorting": Group(
        (t(S0, 6), t(S0, 7, dtype=I32), t(2, 5, 3, dtype=F64)),
        _sorting,
        _sorting_ref,
        lambda rng, n: [special(rng, n, 6), ints(rng, -3, 3, n, 7, dtype=np.int32), special(rng, 2, 5, 3, dtype=np.float64)],
    ),
    "grid_sampler": Group(
        (t(2, 3, 4, 5), t(2, S0, 4, 2)),
        _grid,
        _grid_ref,
        lambda rng, n: [special(rng, 2, 3, 4, 5), _grid_points(rng, n)],
        exact=False,
    ),
    "distances": Group(
        (t(2, S0, 3), t(2, 4, 3), t(1, S0, 3), t(30, 4, dtype=F64)),
        _distances,
        _distances_ref,
        lambda rng, n: [special(rng, 2, n, 3), special(rng, 2, 4, 3), special(rng, 1, n, 3), special(rng, 30, 4, dtype=np.float64)],
        exact=False,
    ),
    "indexing": Group(
        (t(S0, 6), t(S0, 5, dtype=I64), t(S0, 5), t(S0, 6, dtype=I32), t(S0, 5, dtype=I32), t(3, 4, S0, 2),
         t(2, 1, dtype=I64), t(3, dtype=I64), t(3, 4, 1), t(2, 3, 5, 5, dtype=I64), t(2, 12, 12)),
        _indexing,
        _indexing_ref,
        lambda rng, n: [
            special(rng, n, 6), ints(rng, 0, 6, n, 5), special(rng, n, 5), ints(rng, -50, 50, n, 6, dtype=np.int32),
            ints(rng, -50, 50, n, 5, dtype=np.int32), special(rng, 3, 4, n, 2), np.array([[1], [-3]]),
            np.array([0, -1, 1]), special(rng, 3, 4, 1), ints(rng, -99, 99, 2, 3, 5, 5), special(rng, 2, 12, 12),
        ],
        exact=False,
    ),
}


# -- running and comparing ---------------------------------------------------------------------


_LOWERED: dict[str, tuple[ModuleOp, ModuleOp]] = {}


def lowered(name: str) -> tuple[ModuleOp, ModuleOp]:
    if name not in _LOWERED:
        g = GROUPS[name]
        module = program(g.types, g.body)
        _LOWERED[name] = (module, lower_to_upstream(module))
    return _LOWERED[name]


def assert_like_torch(got: Sequence[Any], want: Sequence[Any], exact: bool, what: str) -> None:
    assert len(got) == len(want), f"{what}: {len(got)} outputs, expected {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), w.numpy()
        assert (g.dtype, g.shape) == (w.dtype, w.shape), f"{what} out{k}: {g.dtype}{list(g.shape)}, expected {w.dtype}{list(w.shape)}"
        if w.dtype.kind != "f":
            np.testing.assert_array_equal(g, w, err_msg=f"{what} out{k}")
        elif exact:
            # Bits, so that -0.0 counts too; NaN where torch has NaN (its sign is not defined).
            nan = np.isnan(w)
            assert np.array_equal(np.isnan(g), nan), f"{what} out{k}: NaN at other places: {g} != {w}"
            assert g[~nan].tobytes() == w[~nan].tobytes(), f"{what} out{k}: {g} != {w}"
        else:
            rtol = 1e-3 if w.dtype == np.float16 else 1e-5
            np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-6, equal_nan=True, err_msg=f"{what} out{k}")


def compare(name: str, executor: Callable[[ProgramOp, ModuleOp], Any]) -> None:
    g = GROUPS[name]
    module, low = lowered(name)
    prog = find_program(module)
    backend = ProgramRunner(prog, executor=executor(prog, low))
    rng = np.random.default_rng(sorted(GROUPS).index(name))
    for n in S0_VALUES:
        inputs = g.inputs(rng, n)
        want = g.reference(*(torch.from_numpy(x.copy()) for x in inputs))
        got = backend.run([x.copy() for x in inputs])
        assert_like_torch(got, want, g.exact, f"{name} (s0={n})")


@pytest.mark.parametrize("name", sorted(GROUPS))
def test_upstream_interpreter_matches_torch(name: str) -> None:
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
def test_iree_matches_torch(name: str) -> None:
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    compare(name, lambda prog, low: IREE.executor(name))


def test_the_channels_last_restride_is_a_reshape() -> None:
    """ConvNeXt's restride of a pooled [N, C, 1, 1] moves no data: a collapse and an expand."""

    def body(add: Add, x: SSAValue) -> list[SSAValue]:
        pooled = add(build("aten.mean.dim", x, [2, 3], True))
        return [add(build("aten.as_strided.default", pooled, [2, 8, 1, 1], [8, 1, 8, 8]))]

    text = print_mlir(lower_to_upstream(program([t(2, 8, 5, 5)], body)))
    tail = text[text.index("tensor.collapse_shape") :]
    assert "tensor.extract " not in tail and "tensor.expand_shape" in tail


# -- what is refused, and why ------------------------------------------------------------------


def refusal(types: Sequence[TensorType], body: Callable[..., Sequence[SSAValue]]) -> str:
    with pytest.raises(ExirDiagnostic) as err:
        lower_to_upstream(program(types, body))
    return str(err.value)


def test_as_strided_beyond_the_storage_is_refused() -> None:
    message = refusal([t(2, 3)], lambda add, x: [add(build("aten.as_strided.default", x, [2, 3], [3, 1], 1))])
    assert "aten.as_strided.default" in message and "storage of 6 elements" in message


def test_as_strided_of_a_split_piece_is_refused() -> None:
    """A piece of `split_with_sizes` views its input at an offset the rule does not follow."""

    def body(add: Add, x: SSAValue) -> list[SSAValue]:
        piece = add(GetItemOp(add(build("aten.split_with_sizes.default", x, [1, 2])), 1))
        return [add(build("aten.as_strided.default", piece, [2], [1]))]

    message = refusal([t(3, 4)], body)
    assert "aten.as_strided.default" in message and "split" in message


def test_upsampling_symbolic_spatial_sizes_is_refused() -> None:
    message = refusal(
        [t(1, 1, S0, 4)], lambda add, x: [add(build("aten.upsample_nearest2d.vec", x, None, [2.0, 2.0]))]
    )
    assert "symbolic spatial sizes" in message


def test_atan2_out_whose_out_is_read_later_is_refused() -> None:
    def body(add: Add, x: SSAValue) -> list[SSAValue]:
        buffer = add(build("aten.fill.Scalar", x, 0.0))
        result = add(build("aten.atan2.out", x, x, out=buffer))
        return [result, add(build("aten.neg.default", buffer))]

    message = refusal([t(2, 3)], body)
    assert "aten.atan2.out" in message and "read after" in message
