"""Result types of `triu_indices` and `tril_indices`: [2, N] with N the size of the triangle,
counted from the (static) row and column counts and the offset."""

from __future__ import annotations

from xdsl.ir import Attribute

from xdsl_exir.dialects.exir import DType
from xdsl_exir.semantics.inference.core import Bound, NoInference, make_tensor, rule

__all__: list[str] = []


def triangle_size(rows: int, cols: int, offset: int, upper: bool) -> int:
    """How many (i, j) of a rows x cols matrix have j - i >= offset (upper) or <= offset (lower)."""
    count = 0
    for i in range(rows):
        if upper:
            count += max(0, cols - max(0, i + offset))
        else:
            count += max(0, min(cols, i + offset + 1))
    return count


@rule("aten.triu_indices.default", "aten.tril_indices.default")
def _triangle_indices(b: Bound) -> Attribute:
    row, col, offset = b.get("row"), b.get("col"), b.get("offset", 0)
    if not all(isinstance(v, int) for v in (row, col, offset)):
        raise NoInference("a symbolic triangle size")
    upper = b.schema.name.endswith("triu_indices")
    n = triangle_size(int(row), int(col), int(offset), upper)  # pyright: ignore[reportArgumentType] - ints, checked above
    return make_tensor([2, n], b.dtype("dtype") or DType.int64, b.device("device") or "cpu")
