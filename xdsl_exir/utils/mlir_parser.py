"""
xDSL's MLIR parser with the one fix this project needs: dialect resources read
correctly when their keys are already in the process-wide blob storage.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.parser import Parser


class ResourceParser(Parser):
    """A `Parser` that renames a clashing resource handle once per file, not per mention."""

    def __init__(self, ctx: Context, text: str, name: str = "<unknown>") -> None:
        super().__init__(ctx, text, name)
        self._resource_keys: dict[tuple[str, str], str] = {}

    def _parse_dialect_resource_handle(self, dialect_name: str, interface: OpAsmDialectInterface) -> str:
        """
        xDSL 0.74 declares a handle again at every mention when the storage already
        holds its key (as after lowering, or reading the same text twice in one
        process), so the blob of the `dialect_resources` section lands under
        another key than the `dense_resource` attributes use.
        """
        key = self.parse_identifier(" for resource handle")
        declared = self._resource_keys.get((dialect_name, key))
        if declared is None:
            declared = interface.declare_resource(key)
            self._resource_keys[(dialect_name, key)] = declared
            self.dialect_resources.add((dialect_name, declared))
        return declared
