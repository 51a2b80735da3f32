"""
The numpy kernel of the zoo's custom operator `mylib::scale2` (see the `custom_op`
model of `scripts/gen_zoo.py`), as a user's package provides one: the tests install
this module with an `xdsl_exir.kernels` entry point named `mylib` whose object is
`register`, which the interpreter loads the first time it meets a `mylib` operator.
"""

from __future__ import annotations

import numpy as np

import xdsl_exir

SCHEMA = "mylib::scale2(Tensor x, float k=2.0) -> Tensor"


def scale2(x: np.ndarray, k: float) -> np.ndarray:
    return x * np.asarray(k, dtype=x.dtype)


def register() -> None:
    xdsl_exir.register_kernel("mylib::scale2", scale2, schema=SCHEMA, infer=lambda x, k: x)
