"""
Functions and modules whose TorchScript graphs `test_torchscript_dump.py`
prints and reads (imported only when torch is installed; `torch.jit.script`
needs their source in a file).
"""

from __future__ import annotations

import torch


def lstm_cell(
    x: torch.Tensor,
    hx: torch.Tensor,
    cx: torch.Tensor,
    w_ih: torch.Tensor,
    w_hh: torch.Tensor,
    b_ih: torch.Tensor,
    b_hh: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The JIT Technical Overview's LSTM cell."""
    gates = x.mm(w_ih.t()) + hx.mm(w_hh.t()) + b_ih + b_hh
    ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
    ingate = torch.sigmoid(ingate)
    forgetgate = torch.sigmoid(forgetgate)
    cellgate = torch.tanh(cellgate)
    outgate = torch.sigmoid(outgate)
    cy = (forgetgate * cx) + (ingate * cellgate)
    hy = outgate * torch.tanh(cy)
    return hy, cy


def if_else(a: torch.Tensor, b: torch.Tensor, c: bool) -> torch.Tensor:
    """The JIT Technical Overview's if-statement."""
    d = a + b
    if c:
        e = d + d
    else:
        e = b + d
    return e


def for_loop(x: torch.Tensor) -> torch.Tensor:
    """The JIT Technical Overview's for loop."""
    z = x
    for _ in range(x.size(0)):
        z = z * z
    return z


def while_continue(x: torch.Tensor, n: int) -> torch.Tensor:
    i = 0
    while i < n:
        i += 1
        if i % 2 == 0:
            continue
        x = x + i
    return x


def pointwise(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    z = x * y + x
    w = torch.relu(z) - torch.sigmoid(y)
    return w.sum() * 2.0


class Counter(torch.nn.Module):
    """GetAttr, CallMethod and SetAttr."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(3, 2)
        self.count = 0
        self.scale = 0.5

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.count = self.count + 1
        return self.lin(x) * self.scale


class Net(torch.nn.Module):
    """A small CNN to trace (complete tensor types, scopes)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 2, 3)
        self.bn = torch.nn.BatchNorm2d(2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.bn(self.conv(x))).flatten(1)


class Scaled(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.scale = 2.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.scale


class Stateful(torch.nn.Module):
    """Parameters, buffers (one bfloat16, one 0-d), attributes of each kind, submodules, two methods."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(3, 2)
        self.sub = Scaled()
        self.register_buffer("bf", torch.tensor([1.5, -2.25], dtype=torch.bfloat16))
        self.register_buffer("steps", torch.tensor(7))
        self.count = 3
        self.names = ["a", "b"]
        self.pair = (1, 2.5)
        self.flag = True

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.count = self.count + 1
        return self.sub(self.lin(x)) + self.count

    @torch.jit.export
    def other(self, y: int) -> int:
        return y + self.count


class WithDict(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.table = {"a": 1}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.table["a"]
