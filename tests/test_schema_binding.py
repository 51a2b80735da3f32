"""Tests for the one schema binder (`xdsl_exir.utils.schema_binding`) and its callers.

Each parameter is the need of one kind of caller; the cases where the copies
that preceded it disagreed are pinned to what torch does.
"""

from __future__ import annotations

import numpy as np
import pytest

from xdsl_exir.semantics import kernels as aten_kernels
from xdsl_exir.semantics.inference import BindError, InferenceError, bind_arguments
from xdsl_exir.utils.function_schema import parse_schema
from xdsl_exir.utils.op_registry import lookup
from xdsl_exir.utils.schema_binding import SchemaBindError, bind

ADD = parse_schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
CONV = parse_schema(
    "aten::convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, "
    "SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor"
)
ADD_OUT = parse_schema(
    "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"
)
FORMAT = parse_schema("aten::format(str self, ...) -> str")
SUM = parse_schema(
    "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor"
)


def test_positional_keyword_and_defaults() -> None:
    values, extra = bind(ADD, ["x"], {"other": "y"})
    assert values == {"self": "x", "other": "y", "alpha": 1}
    assert extra == []
    values, _ = bind(ADD, ["x", "y"], {}, defaults=False)
    assert values == {"self": "x", "other": "y"}


def test_errors_are_type_errors_with_torch_like_messages() -> None:
    with pytest.raises(SchemaBindError, match="takes 2 positional arguments, got 3"):
        bind(ADD, ["x", "y", 2], {})
    with pytest.raises(SchemaBindError, match="has no argument 'beta'"):
        bind(ADD, ["x", "y"], {"beta": 2})
    with pytest.raises(SchemaBindError, match="argument 'other' of aten.add.Tensor given twice"):
        bind(ADD, ["x", "y"], {"other": "z"})
    with pytest.raises(SchemaBindError, match="missing argument 'other'"):
        bind(ADD, ["x"], {})
    assert issubclass(SchemaBindError, TypeError)


def test_missing_modes() -> None:
    # the kernels' convention: omitted optionals and out= tensors are None
    values, _ = bind(ADD_OUT, ["x", "y"], {}, missing="none")
    assert values["out"] is None
    with pytest.raises(SchemaBindError, match="missing argument 'weight'"):
        bind(CONV, ["x"], {}, missing="none")
    values, _ = bind(CONV, ["x"], {}, missing="ignore", defaults=False)
    assert values == {"input": "x"}


def test_positional_kwarg_only_and_aliases() -> None:
    # a TorchScript node lists every input in schema order, keyword-only ones included
    values, _ = bind(SUM, ["x", [1], True, None], {}, positional_kwarg_only=True)
    assert values == {"self": "x", "dim": [1], "keepdim": True, "dtype": None}
    with pytest.raises(SchemaBindError):
        bind(SUM, ["x", [1], True, None], {})
    values, _ = bind(ADD, [], {"input": "x", "other": "y"}, aliases={"input": "self"})
    assert values["self"] == "x"


def test_varargs_are_returned_apart() -> None:
    values, extra = bind(FORMAT, ["{} {}", 1, 2], {})
    assert values == {"self": "{} {}"}
    assert extra == [1, 2]


def test_list_defaults_are_fresh_per_call() -> None:
    schema = parse_schema("aten::f(Tensor self, int[] dims=[0, 1]) -> Tensor")
    first, _ = bind(schema, ["x"], {})
    dims = first["dims"]
    assert isinstance(dims, list)
    dims.append(2)
    second, _ = bind(schema, ["x"], {})
    assert second["dims"] == [0, 1]


def test_inference_adapter_raises_inference_errors() -> None:
    entry = lookup("aten.add.Tensor")
    assert entry is not None
    with pytest.raises(BindError, match="has no argument 'beta'"):
        bind_arguments(entry.schema, ["x", "y"], {"beta": 2})
    assert issubclass(BindError, InferenceError)


def test_kernels_refuse_unknown_keywords_as_torch_does() -> None:
    """The kernels' binder used to pass unknown keywords on to the kernel
    (`aten.full.default(..., memory_format=...)` ran); inference refused them.
    torch refuses them, so the one binder does."""
    with pytest.raises(TypeError, match="has no argument 'memory_format'"):
        aten_kernels.run_kernel("aten.full.default", [[2, 3], 1.0], {"memory_format": 0})
    out = aten_kernels.run_kernel("aten.full.default", [[2, 3], 1.0], {})
    np.testing.assert_array_equal(out, np.ones((2, 3), np.float32))
    torch = pytest.importorskip("torch")
    with pytest.raises((TypeError, RuntimeError)):
        torch.ops.aten.full.default([2, 3], 1.0, memory_format=torch.channels_last)
