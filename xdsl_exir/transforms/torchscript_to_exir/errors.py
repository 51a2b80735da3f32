"""The one error the lowering raises: what TorchScript-to-Export-IR cannot
express, turned into a located diagnostic by the pass.
"""

from __future__ import annotations


class TorchScriptLoweringError(Exception):
    """What the lowering cannot express; turned into a located diagnostic."""


# ---------------------------------------------------------------------------
