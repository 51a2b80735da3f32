"""The error every part of the script frontend raises: a `ScriptError` names the
place in the user's source, as TorchScript's frontend errors do.
"""

from __future__ import annotations


class ScriptError(Exception):
    """Python source TorchScript cannot compile; `line` is 1-based, `col` 0-based as TorchScript prints them."""

    def __init__(self, message: str, line: int = 0, col: int = 0, filename: str = "<source>") -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col
        self.filename = filename

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.col}: {self.message}"


