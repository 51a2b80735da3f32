"""Kernels of pairwise distances: `_cdist_forward` and `_pdist_forward` (the p-norms of
the row differences, in the opmath type)."""

from __future__ import annotations

import math

import numpy as np

from xdsl_exir.semantics.kernels.dtypes import (
    cast_to,
    compute_dtype,
    finish,
)
from xdsl_exir.semantics.kernels.registry import register


@register("aten._cdist_forward.default")
def _cdist(x1: np.ndarray, x2: np.ndarray, p: float, compute_mode: int | None = None) -> np.ndarray:
    a, b = np.asarray(x1), np.asarray(x2)
    dt = a.dtype
    c1, c2 = cast_to(a, compute_dtype(dt)), cast_to(b, compute_dtype(dt))
    diff = np.abs(c1[..., :, None, :] - c2[..., None, :, :])
    if p == 0:  # torch's zero-"norm" counts min(ceil(|d|), 1): a NaN difference makes NaN
        res = np.sum(np.minimum(np.ceil(diff), 1), axis=-1)
    elif math.isinf(p):  # torch's `max(agg, |d|)` from 0 keeps agg against a NaN
        res = np.fmax.reduce(diff, axis=-1, initial=0)
    else:
        res = np.sum(diff**p, axis=-1) ** (1.0 / p)
    return finish(res, dt)


@register("aten._pdist_forward.default")
def _pdist(self: np.ndarray, p: float = 2.0) -> np.ndarray:
    a = np.asarray(self)
    i, j = np.triu_indices(a.shape[0], 1)
    full = _cdist(a, a, p)
    return full[i, j].copy()
