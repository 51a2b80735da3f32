"""The lowering's own option, `input-values` (`n=3;flag=true`), parsed without `eval`.

`input-types` and `ranges`, which shape-propagation takes too, are read by
`transforms/input_options.py`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import cast

from xdsl_exir.transforms.input_options import split_entries
from xdsl_exir.transforms.torchscript_to_exir.errors import TorchScriptLoweringError
from xdsl_exir.transforms.torchscript_to_exir.values import TSList

__all__ = ["parse_input_values"]


def parse_input_values(text: str) -> dict[str, object]:
    """`n=3;flag=true;scale=0.5;bias=None;sizes=[1, 2]` -> Python values by input name."""
    out: dict[str, object] = {}
    for name, spec in split_entries(text, "input-values"):
        literal = re.sub(r"\b(true|false|none)\b", lambda m: m.group(1).capitalize(), spec)
        try:
            value = ast.literal_eval(literal)
        except (ValueError, SyntaxError):
            raise TorchScriptLoweringError(
                f"input-values: '{spec}' for '{name}' is not an int, float, bool, None, string or list of them"
            ) from None
        out[name] = _to_ts_value(value)
    return out


def _to_ts_value(value: object) -> object:
    if isinstance(value, list | tuple):
        items = [_to_ts_value(v) for v in cast(Sequence[object], value)]
        return TSList(items) if isinstance(value, list) else tuple(items)
    return value
