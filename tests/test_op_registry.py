"""The operator registry's derived facts: overload lists and functional variants.

`functional_variant` replaced three finders (functionalize's, the kernels'
and the TorchScript lowering's) that disagreed with each other and with
torch on some overloads; those are pinned here to torch's answer, and when
torch is installed every in-place and out= overload is checked against
torchgen's grouping of an operator's variants.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from xdsl_exir.semantics import kernels as aten_kernels
from xdsl_exir.utils.op_registry import (
    all_operators,
    functional_variant,
    overloads,
    selected_operators,
    selection_violations,
)


def test_overloads_in_schema_list_order() -> None:
    adds = overloads("aten::add")
    assert "aten.add.Tensor" in adds and "aten.add.out" in adds
    assert list(adds) == sorted(adds, key=list(all_operators()).index)
    assert overloads("aten::no_such_op") == ()


@pytest.mark.parametrize(
    ("name", "variant"),
    [
        ("aten.add_.Tensor", "aten.add.Tensor"),
        ("aten.add.out", "aten.add.Tensor"),
        ("aten.copy_.default", "aten.copy.default"),
        ("aten.index_put_.default", "aten.index_put.default"),
        ("aten.add.Tensor", None),  # functional already
        # the copies disagreed on these; torch's grouping decides
        ("aten.pow_.Scalar", "aten.pow.Tensor_Scalar"),  # not pow.Scalar(Scalar self, Tensor exponent)
        ("aten.pow_.Tensor", "aten.pow.Tensor_Tensor"),
        ("aten.float_power_.Scalar", "aten.float_power.Tensor_Scalar"),
        ("aten.transpose_.default", "aten.transpose.int"),
        ("aten.__iand__.Tensor", "aten.__and__.Tensor"),
        ("aten.arange.out", "aten.arange.default"),  # factories' out= forms lack TensorOptions
        ("aten.zeros.out", "aten.zeros.default"),
        ("aten.zero_.default", "aten.zero.default"),
        ("aten.normal_.default", "aten.normal_functional.default"),
        ("aten._native_batch_norm_legit.out", "aten._native_batch_norm_legit_functional.default"),
        ("aten.polygamma_.default", None),  # polygamma(int n, Tensor self): another argument order
        # argument names differ (self / input): torch.fx's reinplace pass pairs them
        ("aten.dropout_.default", "aten.dropout.default"),
        ("aten.dequantize.self_out", "aten.dequantize.self"),  # names break the tie with .tensor
    ],
)
def test_functional_variant(name: str, variant: str | None) -> None:
    assert functional_variant(name) == variant


def test_mutable_variant_for_kernels() -> None:
    """The out= form of a batch norm that updates running statistics runs that batch norm."""
    assert functional_variant("aten._native_batch_norm_legit.out", mutable=True) == (
        "aten._native_batch_norm_legit.default"
    )
    assert functional_variant("aten.add.out", mutable=True) == "aten.add.Tensor"


def test_inplace_pow_scalar_kernel_matches_torch() -> None:
    """pow_.Scalar derived from pow.Tensor_Scalar (the old copies derived it from pow.Scalar)."""
    x = np.array([1.5, -2.0, 3.0], np.float32)
    out = aten_kernels.run_kernel("aten.pow_.Scalar", [x, 2], {})
    assert out is x
    np.testing.assert_allclose(x, [2.25, 4.0, 9.0])


def _torchgen_groups() -> dict[str, str | None]:
    """torch's answer: torchgen groups functional/in-place/out= overloads by `signature()`."""
    model: Any = pytest.importorskip("torchgen.model")
    by_signature: dict[str, dict[str, list[str]]] = {}
    kinds: dict[str, str] = {}
    for name, entry in all_operators().items():
        if not name.startswith("aten."):
            continue
        # torch prints list defaults with spaces, which native_functions.yaml does not
        text = re.sub(r"\[[^\]]*\]", lambda m: m.group(0).replace(", ", ","), entry.schema_text)
        try:
            parsed = model.FunctionSchema.parse(text.removeprefix("aten::"))
        except Exception:  # TorchScript builtins torchgen does not model
            continue
        kind = parsed.kind().name
        kinds[name] = kind
        by_signature.setdefault(str(parsed.signature()), {}).setdefault(kind, []).append(name)
    answer: dict[str, str | None] = {}
    for group in by_signature.values():
        functional = group.get("functional", [])
        for kind in ("inplace", "out"):
            for name in group.get(kind, []):
                answer[name] = functional[0] if len(functional) == 1 else None
    return answer


def test_functional_variants_match_torch() -> None:
    reinplace: Any = pytest.importorskip("torch.fx.passes.reinplace")
    torch: Any = pytest.importorskip("torch")
    for name, want in _torchgen_groups().items():
        got = functional_variant(name)
        if got == want:
            continue
        # torchgen compares argument names; torch.fx's reinplace pass (and TorchScript's
        # remove-mutation pass) pair an in-place op with the functional one by types
        assert want is None and got is not None, (name, got, want)
        _, base, overload = got.split(".")
        functional = getattr(getattr(torch.ops.aten, base), overload)._schema
        _, ibase, ioverload = name.split(".")
        inplace = getattr(getattr(torch.ops.aten, ibase), ioverload)._schema
        assert reinplace._schemas_match(functional, inplace), name


def test_aten_ops_txt_satisfies_its_selection_rule() -> None:
    """Every core overload and every in-place/out= variant of a listed overload is listed
    (`python scripts/check_aten_ops.py --fix` adds what is missing)."""
    assert selection_violations(selected_operators()) == []


def test_selection_rule_violations_are_reported() -> None:
    names = [n for n in selected_operators() if n not in ("aten.add_.Tensor", "aten.relu.default")]
    problems = selection_violations([*names, "aten.no_such.default", "aten.hardtanh_.default"])
    assert "aten.add_.Tensor: a variant of the listed aten.add.Tensor, not listed" in problems
    assert "aten.relu.default: core-tagged but not listed" in problems
    assert "aten.no_such.default: not an overload of torch_schemas.txt" in problems
    assert "aten.hardtanh_.default: listed twice" in problems
    # relu_ stays listed without its functional form
    assert any(p.startswith("aten.relu_.default: an in-place/out= overload") for p in problems)


def test_check_script_passes() -> None:
    script = Path(__file__).parents[1] / "scripts" / "check_aten_ops.py"
    done = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "satisfy the selection rule" in done.stdout
