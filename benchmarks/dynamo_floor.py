"""
The floor under any `torch.compile` backend: what Dynamo and AOTAutograd cost
per call around the compiled function, measured with a backend whose compiled
function does nothing but hand back the outputs of one earlier run.

Dynamo's guards, its frame wrapper, AOTAutograd's runtime wrapper (input
mutations, aliasing, autograd bookkeeping) and the boxed call are all paid as
by a real backend (Inductor pays them too); the graph itself costs nothing.
A call of `torch.compile(model, backend=floor_backend)` minus this floor is
what a backend adds. Inference only: the outputs are the first call's, so the
numbers it returns are right only for the inputs of that call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd


def _compile(gm: torch.fx.GraphModule, example_inputs: Sequence[Any]) -> Any:
    outputs: Any = None

    def run(*args: Any) -> Any:
        nonlocal outputs
        if outputs is None:
            outputs = gm(*args)
        return outputs

    return make_boxed_func(run)


floor_backend = aot_autograd(fw_compiler=_compile, inference_compiler=_compile)
"""A `torch.compile` backend through AOTAutograd whose graphs cost nothing after their first call."""
