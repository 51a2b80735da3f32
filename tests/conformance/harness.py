"""
One oracle for every executor: OpInfo samples traced to ATen and run six ways.

Each OpInfo sample (`op.sample_inputs("cpu", dtype)`), plus samples of our own
with edge values (NaN, +-inf, -0.0, integer extremes), non-contiguous and empty
inputs, becomes a small module whose inputs are the sample's tensors (its other
arguments are constants of the module). `torch.export` traces it to the ATen
overloads eager PyTorch dispatches, and the program is run by:

- `interp`: the numpy interpreter on the program as exported (`ProgramRunner`);
- `core`: the interpreter after `to-core-aten`, i.e. through the decompositions;
- `linalg`: `to-core-aten,convert-exir-to-linalg`, run in xDSL's interpreter
  with the project's upstream functions;
- `iree`: the same lowered module compiled by IREE and run natively;
- `ts`: `torch.jit.trace` of the same call, imported by the live TorchScript
  importer and run by `TorchScriptRunner`;
- `python`: the module `exir-opt --emit python` writes, executed.

Each output is compared with eager's: dtype and shape exactly, values within
the dtype's tolerance (torch.testing's defaults, loosened where the OpInfo
declares a `toleranceOverride`), NaN positions, the sign of zero wherever both
results are zero for elementwise operators (where IEEE 754 defines it; not
where it depends on the order of a reduction's terms), integers and booleans
bit-exactly. Operators torch tags `nondeterministic_seeded` (random sampling)
and the `empty` family (uninitialized memory) are compared by dtype and shape
only; `as_strided` of a non-contiguous input is not run (it reads the input's
storage, which a program input does not carry).

Where torch itself leaves the answer open, the oracle accepts any answer
torch's contract allows, and only there:

- `sort`/`argsort` without `stable=True` may order equal elements either way:
  the indices must be a permutation along the dimension, and the values they
  gather from the input must equal the values eager's indices gather (NaN
  positions included); `sort`'s values are compared as usual.
- `topk` and `kthvalue` may return the index of any of several equal
  elements: topk's documentation says the indices of tied elements are not
  guaranteed, kthvalue's that on CUDA any valid index may come back, and
  neither names the one the CPU returns (which follows its selection
  algorithm). Their indices are checked as sort's are: valid and distinct
  along the dimension, gathering the values eager's indices gather; the
  values are compared as usual. (`topk(sorted=False)`, whose value order is
  open too, is not handled: no OpInfo sample asks for it.)
- `linalg.eigh`'s eigenvectors are defined up to a sign (a unit phase, for
  complex inputs) per column, which LAPACK chooses, and within an eigenspace
  of several dimensions not at all. Each of our columns is multiplied by the
  phase that aligns it with eager's, and the columns are compared only where
  eager's eigenvalue is distinct (apart from the others by more than
  sqrt(eps) times the largest magnitude, so that rounding cannot turn the
  vector); the eigenvalues are compared as usual.
- Of two zeros of different signs, `maximum`/`minimum`/`max.binary`/
  `min.binary`/`clamp*` may return either: torch's scalar CPU loop keeps the
  first operand, its vectorised loop the second, and which loop runs depends
  on the CPU's vector width, the layout and the length, so eager does not
  define the sign there. `softshrink` inside its band is `x * 0` in the scalar
  loop (-0.0 for a negative x) and +0.0 in the vectorised one. Either zero is
  accepted at exactly those elements (for clamp: the input against a bound);
  everywhere else the sign of zero is checked as before.
- `gather`/`take_along_dim` samples whose indices lie outside the dimension
  (the edge sample's +-2^63) that eager nonetheless accepts, reading out of
  bounds, are not an oracle: they are skipped with that reason (a skip, which
  the expected-failure table does not count).

A sample is identified by `dtype/index` (`float32/3`) or `dtype/kind`
(`int64/edge`, `float64/noncontig`, `float32/empty`); with the OpInfo's full name
(`nn.functional.relu`, `max.reduction_with_dim`) and the executor it keys the
expected-failure table.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import re
import signal
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch.utils import _pytree as pytree  # torch's pytree: the sample's structure (no public module)

EXECUTORS = ("interp", "core", "linalg", "iree", "ts", "python")
"""The executors, in the order the issue lists them (a) to (f)."""

DTYPES = (torch.float32, torch.int64, torch.bool, torch.float64)
"""The dtypes samples are drawn in, where the OpInfo supports them."""

DTYPE_NAMES = {torch.float32: "float32", torch.int64: "int64", torch.bool: "bool", torch.float64: "float64"}

DEFAULT_TOLERANCE = {  # (rtol, atol): torch.testing.assert_close's defaults
    np.dtype(np.float16): (1e-3, 1e-5),
    np.dtype(np.float32): (1.3e-6, 1e-5),
    np.dtype(np.float64): (1e-7, 1e-7),
    np.dtype(np.complex64): (1.3e-6, 1e-5),
    np.dtype(np.complex128): (1e-7, 1e-7),
}

EDGE_BASE_SAMPLES = 3
"""The edge samples are derived from the largest of the OpInfo's first samples, this many."""

TIMEOUT_S = 120
"""A run longer than this (per executor and sample) is recorded as `timeout`."""


# ---------------------------------------------------------------------------
# OpInfos and samples
# ---------------------------------------------------------------------------


def op_db() -> list[Any]:
    """torch's OpInfo database (imported lazily: it takes seconds)."""
    from torch.testing._internal.common_methods_invocations import op_db as db

    return list(db)


def full_name(op: Any) -> str:
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def opinfos_by_name() -> dict[str, Any]:
    return {full_name(op): op for op in op_db()}


@dataclass
class Sample:
    """One call of the operator: tensors are the program's inputs, the rest constants."""

    sample_id: str
    tensors: list[torch.Tensor]
    rebuild: Callable[[Sequence[Any]], tuple[Any, tuple[Any, ...], dict[str, Any]]]


def _split(sample: Any) -> tuple[list[Any], Any, list[int]]:
    leaves, spec = pytree.tree_flatten((sample.input, tuple(sample.args), dict(sample.kwargs)))
    positions = [i for i, leaf in enumerate(leaves) if isinstance(leaf, torch.Tensor)]
    return leaves, spec, positions


def _make_sample(sample_id: str, leaves: list[Any], spec: Any, positions: list[int]) -> Sample:
    def rebuild(tensors: Sequence[Any]) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
        filled = list(leaves)
        for p, t in zip(positions, tensors):
            filled[p] = t
        inp, args, kwargs = pytree.tree_unflatten(filled, spec)
        return inp, tuple(args), dict(kwargs)

    return Sample(sample_id, [leaves[p].detach() for p in positions], rebuild)


def _numel(leaves: list[Any], positions: list[int]) -> int:
    return sum(leaves[p].numel() for p in positions)


def _edge_values(dtype: torch.dtype, n: int, shift: int) -> torch.Tensor:
    if dtype.is_floating_point:
        pool = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 1.0, -1.0, 0.5, -2.5, 1e30, -1e-30, 3.0, -7.0]
    elif dtype is torch.bool:
        pool = [True, False, False, True, True]
    else:
        info = torch.iinfo(dtype)
        pool = [info.min, info.max, 0, -1, 1, 2, -7, 3, 5]
    # Input k takes pool[(i + k * (i // len)) % len]: two inputs of 169 elements meet every pair.
    values = [pool[(i + shift * (i // len(pool))) % len(pool)] for i in range(n)]
    return torch.tensor(values, dtype=dtype)


def _edge_tensor(t: torch.Tensor, shift: int) -> torch.Tensor:
    if t.is_complex() or t.numel() == 0:
        return t
    return _edge_values(t.dtype, t.numel(), shift).reshape(t.shape)


def _non_contiguous(t: torch.Tensor) -> torch.Tensor:
    """The same values in memory with a stride of 2 along the last dimension."""
    if t.dim() == 0 or t.numel() < 2:
        return t
    base = torch.zeros((*t.shape, 2), dtype=t.dtype)
    view = base.select(-1, 0)
    view.copy_(t)
    return view


def samples_of(op: Any, dtype: torch.dtype, max_samples: int | None, edges: bool = True) -> Iterator[Sample]:
    """
    The OpInfo's samples in `dtype` (the first `max_samples`), then three
    samples derived from the largest of its first three (whatever
    `max_samples` is, so that an id names the same sample in every run):
    `edge`, every tensor filled with edge values (index tensors too: where
    eager then raises, the sample is skipped); `noncontig`, every tensor
    non-contiguous; `empty`, the tensors of the first tensor's shape emptied
    along their first dimension.
    """
    torch.manual_seed(0)  # OpInfo draws its samples at random: the ids must name the same samples each run
    name = DTYPE_NAMES[dtype]
    first: tuple[list[Any], Any, list[int]] | None = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        generated = op.sample_inputs("cpu", dtype, requires_grad=False)
        limit = None if max_samples is None else max(max_samples, EDGE_BASE_SAMPLES)
        for i, s in enumerate(itertools.islice(generated, limit)):
            leaves, spec, positions = _split(s)
            if not positions:
                continue
            if i < EDGE_BASE_SAMPLES and (first is None or _numel(leaves, positions) > _numel(*first[::2])):
                first = (leaves, spec, positions)
            if max_samples is None or i < max_samples:
                yield _make_sample(f"{name}/{i}", leaves, spec, positions)
    if first is None or not edges:
        return
    leaves, spec, positions = first
    edge = list(leaves)
    for k, p in enumerate(positions):
        edge[p] = _edge_tensor(leaves[p], k)
    yield _make_sample(f"{name}/edge", edge, spec, positions)
    strided = list(leaves)
    for p in positions:
        strided[p] = _non_contiguous(leaves[p])
    if any(strided[p] is not leaves[p] for p in positions):
        yield _make_sample(f"{name}/noncontig", strided, spec, positions)
    shape = leaves[positions[0]].shape
    if len(shape) >= 1 and shape[0] != 0:
        empty = list(leaves)
        for p in positions:
            t = leaves[p]
            if t.shape == shape:
                empty[p] = t[:0].clone()
        yield _make_sample(f"{name}/empty", empty, spec, positions)


# ---------------------------------------------------------------------------
# Tracing
# ---------------------------------------------------------------------------


class _Call(torch.nn.Module):
    """`op(*sample)` with the sample's tensors as the only inputs."""

    def __init__(self, fn: Callable[..., Any], sample: Sample) -> None:
        super().__init__()
        self.fn = fn
        self.sample = sample

    def forward(self, *tensors: torch.Tensor) -> Any:
        inp, args, kwargs = self.sample.rebuild(tensors)
        return self.fn(inp, *args, **kwargs)


def flatten(value: Any, out: list[Any] | None = None) -> list[Any]:
    """Tensors, arrays and numbers of a nested result, in order (None left out)."""
    out = [] if out is None else out
    if isinstance(value, list | tuple):
        for v in value:
            flatten(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            flatten(v, out)
    elif value is not None:
        out.append(value)
    return out


def _low_precision() -> dict[str, np.dtype[Any]]:
    from xdsl_exir.utils.dtypes import LOW_PRECISION

    return {d.value: n for d, n in LOW_PRECISION.items()}


_LOW_PRECISION = _low_precision()


def to_numpy(value: Any) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        t = value.detach().resolve_conj().resolve_neg()
        low = _LOW_PRECISION.get(str(t.dtype).removeprefix("torch."))
        if low is not None:  # numpy holds bfloat16 and float8 through ml_dtypes, as our kernels do
            return t.float().numpy().astype(low)  # exact: float32 holds each of their values
        return t.numpy().copy()
    return np.asarray(value)


def numpy_input(t: torch.Tensor) -> np.ndarray:
    """A fresh numpy copy of `t` (bfloat16 through ml_dtypes), non-contiguous in the same way if `t` is."""
    data = to_numpy(t)
    if t.is_contiguous() or t.dim() == 0:
        return data
    base = np.zeros((*data.shape, 2), dtype=data.dtype)
    base[..., 0] = data
    return base[..., 0]


def aten_overloads(ep: torch.export.ExportedProgram) -> list[torch._ops.OpOverload]:
    """The ATen overloads a traced program calls, nested graphs included (`torch._ops.OpOverload`: the
    class of `torch.ops.aten.add.Tensor`, which torch exports under no public name)."""
    found: list[torch._ops.OpOverload] = []
    for module in ep.graph_module.modules():
        if isinstance(module, torch.fx.GraphModule):
            for node in module.graph.nodes:
                if node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload):
                    found.append(node.target)
    return found


# ---------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------


def tolerance(op: Any, dtype: np.dtype) -> tuple[float, float]:
    """torch.testing's default for `dtype`, loosened by any toleranceOverride the OpInfo declares for it."""
    from torch.testing._internal.common_device_type import toleranceOverride
    from torch.testing._internal.opinfo.core import DecorateInfo

    rtol, atol = DEFAULT_TOLERANCE.get(dtype, (0.0, 0.0))
    torch_dtype = {np.dtype(np.float32): torch.float32, np.dtype(np.float64): torch.float64,
                   np.dtype(np.float16): torch.float16, np.dtype(np.complex64): torch.complex64,
                   np.dtype(np.complex128): torch.complex128}.get(dtype)  # fmt: skip
    for info in op.decorators:
        if not isinstance(info, DecorateInfo):
            continue
        for d in info.decorators:
            if isinstance(d, toleranceOverride) and torch_dtype in d.d:
                tol = d.d[torch_dtype]
                rtol, atol = max(rtol, tol.rtol), max(atol, tol.atol)
    return rtol, atol


def _show(x: Any) -> str:
    if isinstance(x, np.floating | float):
        if x == 0:
            return "-0.0" if np.signbit(x) else "0.0"
        return repr(float(x))
    if isinstance(x, np.bool_ | bool):
        return repr(bool(x))
    if isinstance(x, np.integer | int):
        return repr(int(x))
    return repr(x)


@dataclass(frozen=True)
class Mismatch:
    kind: str
    """`count`, `dtype`, `shape`, `nan`, `value`, `zero-sign`, `integer`."""
    detail: str


def _at(idx: tuple[int, ...], inputs: Sequence[np.ndarray], shape: tuple[int, ...]) -> str:
    """The inputs' values at an output position, for inputs that broadcast to the output's shape."""
    shown: list[str] = []
    for x in inputs:
        try:
            shown.append(_show(np.broadcast_to(x, shape)[idx]) if x.size else "")
        except ValueError:
            continue
    shown = [v for v in shown if v]
    return f" (input {', '.join(shown)})" if shown else ""


def compare(
    ours: Sequence[Any],
    want: Sequence[np.ndarray],
    op: Any,
    inputs: Sequence[np.ndarray],
    shape_only: bool,
    either_zero: np.ndarray | None = None,
) -> Mismatch | None:
    """
    The first difference between our outputs and eager's, or None.
    `either_zero` marks the output elements where eager leaves the sign of a
    zero open (`either_zero_sign`): there a zero of either sign agrees.
    """
    got = [np.asarray(o) for o in ours]
    if len(got) != len(want):
        return Mismatch("count", f"{len(got)} outputs, torch {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        where = f"out{i}" if len(want) > 1 else "out"
        if g.dtype != w.dtype:
            return Mismatch("dtype", f"{where} dtype {g.dtype}, torch {w.dtype}")
        if g.shape != w.shape:
            return Mismatch("shape", f"{where} shape {list(g.shape)}, torch {list(w.shape)}")
        if shape_only or w.size == 0:
            continue
        if w.dtype.kind == "V":  # bfloat16 or float8 (ml_dtypes): compared as the float32 values they hold
            g, w = g.astype(np.float32), w.astype(np.float32)
        if w.dtype.kind in "fc":
            gn, wn = np.isnan(g), np.isnan(w)
            if (gn != wn).any():
                idx = tuple(int(v) for v in np.argwhere(gn != wn)[0])
                return Mismatch(
                    "nan", f"{where}[{_idx(idx)}] {_show(g[idx])}, torch {_show(w[idx])}{_at(idx, inputs, w.shape)}"
                )
            rtol, atol = tolerance(op, w.dtype)
            with np.errstate(all="ignore"):
                close = np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True) | (g == w)
            if not close.all():
                idx = tuple(int(v) for v in np.argwhere(~close)[0])
                return Mismatch(
                    "value",
                    f"{where}[{_idx(idx)}] {_show(g[idx])}, torch {_show(w[idx])}{_at(idx, inputs, w.shape)}"
                    f" ({int((~close).sum())} of {w.size} differ beyond rtol {rtol:g} atol {atol:g})",
                )
            if w.dtype.kind == "f" and defines_zero_sign(op):
                zeros = (g == 0) & (w == 0) & (np.signbit(g) != np.signbit(w))
                if either_zero is not None and zeros.any():
                    zeros &= ~np.broadcast_to(either_zero, w.shape)
                if zeros.any():
                    idx = tuple(int(v) for v in np.argwhere(zeros)[0])
                    return Mismatch(
                        "zero-sign",
                        f"{where}[{_idx(idx)}] {_show(g[idx])}, torch {_show(w[idx])}{_at(idx, inputs, w.shape)}",
                    )
        elif not np.array_equal(g, w):
            idx = tuple(int(v) for v in np.argwhere(g != w)[0])
            return Mismatch(
                "integer", f"{where}[{_idx(idx)}] {_show(g[idx])}, torch {_show(w[idx])}{_at(idx, inputs, w.shape)}"
            )
    return None


ELEMENTWISE = frozenset({"clamp", "where"})
"""Elementwise OpInfos of the plain `OpInfo` class, whose sign of zero is checked like a ufunc's."""

UNINITIALIZED = frozenset(
    {"empty", "empty_like", "new_empty", "new_empty_strided", "empty_strided", "empty_permuted", "resize_", "resize_as_"}
)
"""OpInfos whose outputs are (or may hold) uninitialized memory: compared by dtype and shape only."""


EAGER_TRAPS = frozenset({"lcm"})
"""OpInfos whose integer edge sample kills eager PyTorch itself (a SIGFPE in its CPU kernel:
an integer division overflows), which no harness in the same process survives."""


def defines_zero_sign(op: Any) -> bool:
    """
    Whether torch defines the sign of a zero result: for elementwise operators
    (IEEE 754 arithmetic, min/max, clamp, copysign, relu), not where it depends
    on the order of a reduction or of an interpolation's terms.
    """
    from torch.testing._internal.opinfo.core import BinaryUfuncInfo, UnaryUfuncInfo

    return isinstance(op, UnaryUfuncInfo | BinaryUfuncInfo) or op.name in ELEMENTWISE


OPEN_ZERO_SIGN = frozenset({"maximum", "minimum", "max.binary", "min.binary", "clamp", "clamp_min", "clamp_max"})
"""OpInfos of which torch's scalar CPU loop returns the first of two zeros of different signs and
its vectorised loop the second (which loop runs depends on the CPU): the sign is open there."""


def _floats(value: Any) -> np.ndarray | None:
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.detach().numpy()
    if isinstance(value, float):
        return np.asarray(value)
    return None


def either_zero_sign(op: Any, sample: Sample) -> np.ndarray | None:
    """
    The elements (of the broadcast operands) where eager's sign of a zero
    result depends on which CPU loop ran (module docstring): for min/max and
    clamp, where the input and another operand (a bound) are zeros of different
    signs; for softshrink, where the input's sign bit is set (a zero result is
    `x * 0` or +0.0). None for other operators.
    """
    name = full_name(op)
    if name not in OPEN_ZERO_SIGN and name != "nn.functional.softshrink":
        return None
    inp, args, kwargs = sample.rebuild(sample.tensors)
    x = _floats(inp)
    if x is None:
        return None
    if name == "nn.functional.softshrink":
        return np.signbit(x)
    operands = [f for f in (_floats(a) for a in (*args, *kwargs.values())) if f is not None]
    if not operands:
        return None
    try:
        shape = np.broadcast_shapes(x.shape, *(b.shape for b in operands))
    except ValueError:
        return None
    mask = np.zeros(shape, dtype=bool)
    for b in operands:
        mask |= (x == 0) & (b == 0) & (np.signbit(x) != np.signbit(b))
    return mask


def unordered_sort_axis(op: Any, sample: Sample) -> int | None:
    """
    The dimension of a `sort`/`argsort` sample whose order of equal elements
    torch leaves open (stable not requested), or None.
    """
    if op.name not in ("sort", "argsort"):
        return None
    inp, args, kwargs = sample.rebuild(sample.tensors)
    if kwargs.get("stable") or not isinstance(inp, torch.Tensor) or inp.dim() == 0:
        return None
    dim = args[0] if args else kwargs.get("dim", -1)
    return int(dim) % inp.dim()


def open_index_axis(op: Any, sample: Sample) -> int | None:
    """
    The dimension along which the sample's index output may name any of
    several equal elements (module docstring): an unstable sort's, `topk`'s,
    `kthvalue`'s; or None.
    """
    if op.name in ("sort", "argsort"):
        return unordered_sort_axis(op, sample)
    if op.name not in ("topk", "kthvalue"):
        return None
    inp, args, kwargs = sample.rebuild(sample.tensors)
    if not isinstance(inp, torch.Tensor) or inp.dim() == 0:
        return None
    if op.name == "topk" and not (args[3] if len(args) > 3 else kwargs.get("sorted", True)):
        return None
    dim = args[1] if len(args) > 1 else kwargs.get("dim", -1)
    return int(dim) % inp.dim()


def by_gathered_values(
    ours: list[Any], want: list[np.ndarray], x: np.ndarray, axis: int
) -> tuple[list[Any], list[np.ndarray], Mismatch | None]:
    """
    The outputs with the indices (the last output) replaced by the input
    values they gather, ours and eager's, once ours are checked to be valid
    and distinct along `axis` (a permutation, for a sort): equal elements may
    then be named in any order. Indices without the dimension (kthvalue
    without keepdim) gather along it as one.
    """
    g, w = np.asarray(ours[-1]), want[-1]
    if g.dtype != w.dtype or g.shape != w.shape or g.size == 0:
        return ours, want, None  # compare reports the dtype or shape
    if g.ndim == x.ndim - 1:
        g, w = np.expand_dims(g, axis), np.expand_dims(w, axis)
    if g.ndim != x.ndim or not ((g >= 0) & (g < x.shape[axis])).all():
        return ours, want, Mismatch("integer", f"indices out of range of dimension {axis}")
    ordered = np.sort(g, axis=axis)
    if (np.diff(ordered, axis=axis) == 0).any():
        return ours, want, Mismatch("integer", f"indices are not distinct along dimension {axis}")
    shape = np.asarray(ours[-1]).shape
    gathered = [*ours[:-1], np.take_along_axis(x, g, axis).reshape(shape)]
    return gathered, [*want[:-1], np.take_along_axis(x, w, axis).reshape(shape)], None


def eigenvectors_up_to_phase(ours: list[Any], want: list[np.ndarray]) -> tuple[list[Any], list[np.ndarray]]:
    """
    `linalg.eigh`'s (eigenvalues, eigenvectors) with each of our eigenvector
    columns turned by the unit phase (a sign, for real inputs) that aligns it
    with eager's, and the columns of eigenvalues that are not distinct set to
    zero in both (module docstring). The eigenvalues are left as they are.
    """
    if len(ours) != 2 or len(want) != 2:
        return ours, want
    v, w, lam = np.asarray(ours[1]), want[1], want[0]
    if v.dtype != w.dtype or v.shape != w.shape or w.size == 0 or w.ndim < 2 or lam.shape != w.shape[:-1]:
        return ours, want  # compare reports the dtype or shape
    with np.errstate(all="ignore"):
        dot = np.sum(np.conj(v) * w, axis=-2)
        size = np.abs(dot)
        phase = np.where(size > 0, dot / np.where(size > 0, size, 1), 1).astype(w.dtype)
        gap = np.abs(lam[..., :, None] - lam[..., None, :])
        n = lam.shape[-1]
        gap = np.where(np.eye(n, dtype=bool), np.inf, gap).min(axis=-1)
        magnitude = np.abs(lam).max(axis=-1, keepdims=True)
        eps = np.finfo(lam.dtype).eps
        distinct = gap > np.sqrt(eps) * np.maximum(1.0, magnitude)
    keep = distinct[..., None, :]
    zero = w.dtype.type(0)
    return [ours[0], np.where(keep, v * phase[..., None, :], zero)], [want[0], np.where(keep, w, zero)]


def reads_out_of_bounds(op: Any, sample: Sample) -> bool:
    """
    Whether a `gather`/`take_along_dim` sample has an index outside its
    dimension (take_along_dim wraps negative ones once): eager does not always
    check, and then reads outside the tensor.
    """
    if op.name not in ("gather", "take_along_dim"):
        return False
    inp, args, kwargs = sample.rebuild(sample.tensors)
    if op.name == "gather":
        dim = args[0] if args else kwargs["dim"]
        index = args[1] if len(args) > 1 else kwargs["index"]
    else:
        index = args[0] if args else kwargs["indices"]
        dim = args[1] if len(args) > 1 else kwargs.get("dim")
    if not isinstance(inp, torch.Tensor) or not isinstance(index, torch.Tensor) or index.numel() == 0:
        return False
    size = inp.numel() if dim is None else (inp.shape[dim] if inp.dim() else 1)
    low = 0 if op.name == "gather" else -size
    return bool(((index < low) | (index >= size)).any())


def _idx(idx: tuple[int, ...]) -> str:
    return ", ".join(str(i) for i in idx)


# ---------------------------------------------------------------------------
# Executors
# ---------------------------------------------------------------------------


@dataclass
class Outcome:
    """What one executor did with one sample."""

    executor: str
    opinfo: str
    sample_id: str
    status: str
    """`agree`, `fail` or `skip` (the executor cannot be asked: say, `torch.jit.trace` fails)."""
    kind: str = ""
    """For `fail`: `wrong` (a value, dtype or shape differs), `refused` (a located diagnostic),
    `crash` (any other exception) or `timeout`; for `skip`, why."""
    detail: str = ""
    shape_only: bool = False


class _Timeout(BaseException):
    """Not an Exception: code under test that catches every Exception must not swallow it."""


@contextlib.contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    if seconds <= 0 or not hasattr(signal, "SIGALRM"):
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise _Timeout()

    previous = signal.signal(signal.SIGALRM, expire)
    grad = torch.is_grad_enabled()  # a timeout inside a no_grad block must not leave it on for later samples
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        torch.set_grad_enabled(grad)


_SOURCE_LOCATION = re.compile(r"(?:[^\s:()]+\.py|<[^>]+>):\d+(?::\d+)?:?\s*")


def clean_message(text: str) -> str:
    """A message without source locations (they name this harness or IREE's temporary input)."""
    text = _SOURCE_LOCATION.sub("", text)
    return re.sub(r"\s*loc\(.*$", "", text, flags=re.MULTILINE).strip()


def _first_line(e: BaseException) -> str:
    """The message of an exception on one line: a located diagnostic's message, or the first line."""
    text = clean_message(str(e))
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    line = next((ln for ln in lines if "error:" in ln), lines[0] if lines else "")
    line = line.split("error:", 1)[1].strip() if "error:" in line else line
    return f"{type(e).__name__}: {line[:300]}"


def _refusal_types() -> tuple[type[BaseException], ...]:
    from xdsl.utils.exceptions import DiagnosticException, VerifyException

    from xdsl_exir.frontends.torch_live import TorchImportError
    from xdsl_exir.frontends.torchscript_live import TorchScriptImportError
    from xdsl_exir.utils.diagnostics import InterpreterError

    return (DiagnosticException, VerifyException, InterpreterError, TorchImportError, TorchScriptImportError)


@dataclass
class Prepared:
    """What the executors share for one sample: the program as exported, and its lowering."""

    module: Any
    core: Any = None
    core_error: BaseException | None = None
    lowered: Any = None
    lowered_error: BaseException | None = None
    cache: dict[str, Any] = field(default_factory=dict)


def _core(p: Prepared) -> Any:
    from xdsl_exir.targets.iree import to_core

    if p.core is None and p.core_error is None:
        try:
            p.core = to_core(p.module)
        except Exception as e:
            p.core_error = e
    if p.core_error is not None:
        raise p.core_error
    return p.core


def _lowered(p: Prepared) -> Any:
    from xdsl_exir.targets.iree import lower_to_upstream

    core = _core(p)
    if p.lowered is None and p.lowered_error is None:
        try:
            p.lowered = lower_to_upstream(core)
        except Exception as e:
            p.lowered_error = e
    if p.lowered_error is not None:
        raise p.lowered_error
    return p.lowered


def run_interp(p: Prepared, inputs: list[np.ndarray], _: Any) -> list[Any]:
    from xdsl_exir.interpreters.program import ProgramRunner

    return ProgramRunner(p.module).run(inputs)


def run_core(p: Prepared, inputs: list[np.ndarray], _: Any) -> list[Any]:
    from xdsl_exir.interpreters.program import ProgramRunner

    return ProgramRunner(_core(p)).run(inputs)


def run_linalg(p: Prepared, inputs: list[np.ndarray], _: Any) -> list[Any]:
    from xdsl_exir.interpreters.program import ProgramRunner, find_program
    from xdsl_exir.interpreters.upstream import run_lowered
    from xdsl_exir.transforms.convert_exir_to_linalg import function_arguments

    core, lowered = _core(p), _lowered(p)
    program = find_program(core)
    arguments = function_arguments(program)
    runner = ProgramRunner(program, executor=lambda *args: run_lowered(lowered, [args[i] for i in arguments]))
    return runner.run(inputs)


IREE_CACHE: str | None = None
"""Where compiled modules are cached (None: the project's default cache)."""


def run_iree(p: Prepared, inputs: list[np.ndarray], _: Any) -> list[Any]:
    from xdsl_exir.interpreters.program import ProgramRunner, find_program
    from xdsl_exir.targets.iree import IreeExecutor, IreeOptions, compile_text, print_mlir

    options = IreeOptions(threads=1, cache_dir=IREE_CACHE)
    core, lowered = _core(p), _lowered(p)
    program = find_program(core)
    compiled = compile_text(print_mlir(lowered), options)
    return ProgramRunner(program, executor=IreeExecutor(program, compiled.vmfb, options)).run(inputs)


def run_python(p: Prepared, inputs: list[np.ndarray], _: Any) -> list[Any]:
    from xdsl_exir.targets.python_source import python_source

    source = python_source(p.module)
    namespace: dict[str, Any] = {"__name__": "conformance_generated"}
    exec(compile(source, "<generated>", "exec"), namespace)
    # The module takes a bfloat16 input as float32 holding its values, as an .npz carries it.
    inputs = [x.astype(np.float32) if x.dtype == _LOW_PRECISION["bfloat16"] else x for x in inputs]
    return flatten(namespace["forward"](*inputs))


class TraceFailed(Exception):
    """torch.jit.trace could not trace the sample: the TorchScript executor is not asked."""


def run_ts(p: Prepared, inputs: list[np.ndarray], call: _Call) -> list[Any]:
    from xdsl_exir.frontends.torchscript_live import import_script_module
    from xdsl_exir.interpreters.ts_runner import TorchScriptRunner

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            traced = torch.jit.trace(call, tuple(call.sample.tensors), check_trace=False, strict=False)
    except Exception as e:
        raise TraceFailed(_first_line(e)) from None
    return flatten(TorchScriptRunner(import_script_module(traced)).run(inputs))


RUNNERS: dict[str, Callable[[Prepared, list[np.ndarray], Any], list[Any]]] = {
    "interp": run_interp,
    "core": run_core,
    "linalg": run_linalg,
    "iree": run_iree,
    "ts": run_ts,
    "python": run_python,
}


# ---------------------------------------------------------------------------
# One sample through the executors
# ---------------------------------------------------------------------------


@dataclass
class Traced:
    """A sample traced by torch.export, with eager's outputs; or why it could not be."""

    sample: Sample
    call: _Call | None = None
    module: Any = None
    want: list[np.ndarray] | None = None
    overloads: list[str] = field(default_factory=list)
    random: bool = False
    """A random operator (torch's `nondeterministic_seeded` tag): compared by dtype and shape only."""
    skip: str = ""


@contextlib.contextmanager
def _export_state() -> Iterator[None]:
    """
    The global state a trace must not depend on. Pre-dispatch tracing records
    every `torch._C._set_grad_enabled` call made while it runs as part of the
    program, wrapped in a `wrap_with_set_grad_enabled` higher-order op, even one
    made by a finalizer the garbage collector happens to run then (an object of
    an earlier test or sample whose `__del__` enters `torch.no_grad()`): so the
    collector is off while torch.export traces (what it would have collected
    waits until after), grad mode is on as eager ran the sample, and inference
    mode is off.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        with torch.inference_mode(False), torch.enable_grad():
            yield
    finally:
        if was_enabled:
            gc.enable()


def trace(op: Any, sample: Sample) -> Traced:
    """Eager outputs and the program torch.export records (skip says why none, e.g. eager raises)."""
    from xdsl_exir.frontends.torch_live import import_exported_program

    call = _Call(op.op, sample)
    if op.name in EAGER_TRAPS and sample.sample_id.endswith("/edge") and not sample.tensors[0].is_floating_point():
        return Traced(sample, skip="eager PyTorch's CPU kernel dies of SIGFPE on these integer extremes")
    if op.name.startswith("as_strided") and any(not t.is_contiguous() for t in sample.tensors):
        # as_strided addresses the input's storage, which a program input does not carry.
        return Traced(sample, skip="as_strided of a non-contiguous input reads its storage, not its values")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            eager = call(*[t.clone() for t in sample.tensors])
        except Exception as e:
            return Traced(sample, skip=f"eager raises {_first_line(e)}")
        if reads_out_of_bounds(op, sample):
            return Traced(sample, skip="not an oracle: eager accepts an index outside the dimension, reading out of it")
        if any(not isinstance(v, torch.Tensor | int | float | bool) for v in flatten(eager)):
            return Traced(sample, skip="an output is not a tensor or number")
        try:
            want = [to_numpy(v) for v in flatten(eager)]
        except TypeError as e:  # complex32: numpy has no such dtype
            return Traced(sample, skip=f"an output has no numpy dtype: {e}")
        try:
            with _export_state():
                ep = torch.export.export(call, tuple(sample.tensors))
        except Exception as e:
            return Traced(sample, skip=f"torch.export fails: {_first_line(e)}")
    targets = aten_overloads(ep)
    overloads = [str(t) for t in targets]
    random = any(torch.Tag.nondeterministic_seeded in t.tags for t in targets)
    try:
        module = import_exported_program(ep)
    except Exception as e:
        return Traced(sample, call, None, want, overloads, random, skip=f"import fails: {_first_line(e)}")
    return Traced(sample, call, module, want, overloads, random)


def run_sample(
    op: Any, traced: Traced, executors: Sequence[str], timeout: int = TIMEOUT_S, timed_out: set[str] | None = None
) -> list[Outcome]:
    """
    Each executor's outcome on one traced sample. An executor in `timed_out`
    (it ran out of time on an earlier sample of the OpInfo) is not run again:
    it is recorded as a timeout at once, and executors that time out are added.
    """
    name, sid = full_name(op), traced.sample.sample_id
    timed_out = set() if timed_out is None else timed_out
    if traced.skip or traced.want is None:
        return [Outcome(e, name, sid, "skip", traced.skip) for e in executors]
    shape_only = traced.random or op.name in UNINITIALIZED
    prepared = Prepared(traced.module)
    refusals = _refusal_types()
    plain_inputs = [to_numpy(t) for t in traced.sample.tensors]
    either_zero = either_zero_sign(op, traced.sample)
    index_axis = open_index_axis(op, traced.sample)
    outcomes: list[Outcome] = []
    for executor in executors:
        if executor in timed_out or (executor in ("linalg", "iree") and "core" in timed_out):
            outcomes.append(Outcome(executor, name, sid, "fail", "timeout", "an earlier sample of the OpInfo timed out"))
            continue
        inputs = [numpy_input(t) for t in traced.sample.tensors]
        try:
            with _time_limit(timeout), warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                got = RUNNERS[executor](prepared, inputs, traced.call)
        except TraceFailed as e:
            outcomes.append(Outcome(executor, name, sid, "skip", f"torch.jit.trace fails: {e}"))
            continue
        except _Timeout:
            timed_out.add(executor)
            outcomes.append(Outcome(executor, name, sid, "fail", "timeout", f"over {timeout} s"))
            continue
        except refusals as e:
            outcomes.append(Outcome(executor, name, sid, "fail", "refused", _first_line(e)))
            continue
        except Exception as e:
            outcomes.append(Outcome(executor, name, sid, "fail", "crash", _first_line(e)))
            continue
        ours, want, mismatch = flatten(got), traced.want, None
        if index_axis is not None:
            ours, want, mismatch = by_gathered_values(ours, want, plain_inputs[0], index_axis)
        if op.name == "linalg.eigh":
            ours, want = eigenvectors_up_to_phase(ours, want)
        mismatch = mismatch or compare(ours, want, op, plain_inputs, shape_only, either_zero)
        if mismatch is None:
            outcomes.append(Outcome(executor, name, sid, "agree", shape_only=shape_only))
        else:
            outcomes.append(Outcome(executor, name, sid, "fail", "wrong", f"{mismatch.kind}: {mismatch.detail}"))
    return outcomes


def covered(op: Any) -> tuple[bool, str]:
    """
    Whether the project covers the OpInfo's ATen ops: every overload its first
    sample traces to has a kernel or a decomposition (aten_coverage's status).
    """
    from xdsl_exir.interpreters.aten_coverage import status_of

    dtypes = [d for d in DTYPES if d in op.supported_dtypes("cpu")]
    if not dtypes:
        return False, "supports none of float32, int64, bool, float64"
    for sample in samples_of(op, dtypes[0], 1, edges=False):
        traced = trace(op, sample)
        if traced.module is None and not traced.overloads:
            return False, traced.skip
        missing = sorted({n for n in traced.overloads if not status_of(n).startswith(("kernel", "decomposition"))})
        if missing:
            return False, f"not covered: {', '.join(missing)}"
        return True, ""
    return False, "no sample with a tensor input"


def run_opinfo(
    op: Any,
    executors: Sequence[str],
    max_samples: int | None,
    lowered_executors: Sequence[str] = (),
    max_lowered: int | None = None,
    dtypes: Sequence[torch.dtype] = DTYPES,
    timeout: int = TIMEOUT_S,
    lowered_kinds: Sequence[str] = ("edge", "empty", "noncontig"),
    timed_out: set[str] | None = None,
) -> list[Outcome]:
    """
    Every sample of the OpInfo (up to `max_samples` per dtype, plus the edge
    samples) through `executors`; `lowered_executors` (the slower `linalg` and
    `iree`: an IREE compile per sample) only on the first `max_lowered` OpInfo
    samples of each dtype and the edge samples of `lowered_kinds`.
    """
    outcomes: list[Outcome] = []
    timed_out = set() if timed_out is None else timed_out
    supported = op.supported_dtypes("cpu")
    for dtype in dtypes:
        if dtype not in supported:
            continue
        for sample in samples_of(op, dtype, max_samples):
            traced = trace(op, sample)
            index = sample.sample_id.split("/", 1)[1]
            which = list(executors)
            if index in lowered_kinds if not index.isdigit() else max_lowered is None or int(index) < max_lowered:
                which += [e for e in lowered_executors if e not in which]
            outcomes.extend(run_sample(op, traced, [e for e in EXECUTORS if e in which], timeout, timed_out))
    return outcomes
