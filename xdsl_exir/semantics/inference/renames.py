"""Aliases (torch's other spellings, `_copy` forms of views): each is typed by the rule of the operator it names, so this table is registered after every family."""

from __future__ import annotations

from xdsl_exir.semantics.inference.core import (
    RULES,
    rule,
)

_ALIAS_RULES: dict[str, str] = {
    **{f"aten.{a}.default": f"aten.{c}.default" for a, c in (
        ("absolute", "abs"), ("arccos", "acos"), ("arcsin", "asin"), ("arctan", "atan"), ("arccosh", "acosh"),
        ("arcsinh", "asinh"), ("arctanh", "atanh"), ("fix", "trunc"), ("negative", "neg"),
        ("special_erf", "erf"), ("special_expm1", "expm1"), ("special_log1p", "log1p"), ("special_exp2", "exp2"),
        ("special_expit", "sigmoid"), ("special_logit", "logit"), ("special_sinc", "sinc"), ("erfc", "erf"),
        ("logaddexp2", "logaddexp"), ("sgn", "sign"), ("zero", "clone"), ("concat", "cat"), ("concatenate", "cat"),
        ("special_logsumexp", "logsumexp"), ("feature_dropout", "dropout"), ("alpha_dropout", "dropout"),
        ("feature_alpha_dropout", "dropout"), ("clip", "clamp"),
        ("alias_copy", "alias"), ("detach_copy", "detach"), ("expand_copy", "expand"), ("t_copy", "t"),
        ("squeeze_copy", "squeeze"), ("diagonal_copy", "diagonal"), ("unfold_copy", "unfold"),
        ("as_strided_copy", "as_strided"), ("narrow_copy", "narrow"),
    )},
    **{f"aten.{a}.{o}": f"aten.{c}.{o}" for a, c, overloads in (
        ("multiply", "mul", ("Tensor", "Scalar")), ("subtract", "sub", ("Tensor", "Scalar")),
        ("greater", "gt", ("Tensor", "Scalar")), ("greater_equal", "ge", ("Tensor", "Scalar")),
        ("less", "lt", ("Tensor", "Scalar")), ("less_equal", "le", ("Tensor", "Scalar")),
        ("not_equal", "ne", ("Tensor", "Scalar")), ("clip", "clamp", ("Tensor",)),
        ("moveaxis", "movedim", ("int", "intlist")),
        ("squeeze_copy", "squeeze", ("dim", "dims")), ("select_copy", "select", ("int",)),
    ) for o in overloads},
    "aten.special_xlogy.default": "aten.xlogy.Tensor",
    "aten.special_xlogy.other_scalar": "aten.xlogy.Scalar_Other",
    "aten.special_xlogy.self_scalar": "aten.xlogy.Scalar_Self",
    "aten.special_softmax.default": "aten.softmax.int",
    "aten.special_log_softmax.default": "aten.log_softmax.int",
    "aten.special_round.default": "aten.round.decimals",
    "aten.view_as_real_copy.default": "aten.view_as_real.default",
}  # fmt: skip
"""Aliases (torch's other spellings, `_copy` forms of views) whose result type is their operator's."""


for _alias, _canonical in _ALIAS_RULES.items():
    rule(_alias)(RULES[_canonical])
