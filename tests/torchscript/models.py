"""TorchScript regression models: every function and module behind tests/torchscript.

Only `scripts/gen_torchscript_dumps.py` imports this file (it needs torch). The
generator loads it under the file name `models.py`, so source locations in the dumps
read `# models.py:LINE:COL`; editing this file shifts those locations and needs a
regeneration. Script frontends read the text with `ast` and compile by name.
"""

from typing import Any, Dict, List, Optional

import torch
from torch import Tensor

# ---------------------------------------------------------------------------
# Seed examples (PyTorch JIT overview)
# ---------------------------------------------------------------------------


def lstm_cell(x, hx, cx, w_ih, w_hh, b_ih, b_hh):
    gates = x.mm(w_ih.t()) + hx.mm(w_hh.t()) + b_ih + b_hh
    ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
    ingate = torch.sigmoid(ingate)
    forgetgate = torch.sigmoid(forgetgate)
    cellgate = torch.tanh(cellgate)
    outgate = torch.sigmoid(outgate)
    cy = (forgetgate * cx) + (ingate * cellgate)
    hy = outgate * torch.tanh(cy)
    return hy, cy


def if_else(a, b, c: bool):
    d = a + b
    if c:
        e = d + d
    else:
        e = b + d
    return e


def if_else_tensor(a, b, c):
    d = a + b
    if c.sum() > 0:
        e = d + d
    else:
        e = b + d
    return e


def for_loop(x):
    z = x
    for i in range(x.size(0)):
        z = z * z
    return z


def while_continue(x, i: int):
    while i < 5:
        if i == 3:
            i += 1
            continue
        i += 2
        x = x + i
    return x, i


class Sub(torch.nn.Module):
    """A submodule with a buffer and a float attribute."""

    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.linspace(0.5, 2.0, 4))
        self.offset = 1.5

    def forward(self, x):
        return torch.relu(x) * self.scale + self.offset


class ComposedModule(torch.nn.Module):
    """nn.Linear + custom submodule (prim::CallMethod), a parameter and an int attribute."""

    repeats: int

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 4)
        self.sub = Sub()
        self.weight = torch.nn.Parameter(torch.randn(4))
        self.repeats = 2

    def forward(self, x):
        y = self.lin(x)
        for _ in range(self.repeats):
            y = self.sub(y)
        return y * self.weight


class SeedModule(torch.nn.Module):
    """The ScriptModule example of the JIT overview."""

    def forward(self, x, y: int, z: float):
        if y > 2:
            x = x + z
        else:
            x = x + y
        return x


# ---------------------------------------------------------------------------
# Traced
# ---------------------------------------------------------------------------


def mlp(x, w1, b1, w2, b2):
    h = torch.relu(x.matmul(w1) + b1)
    o = torch.matmul(h, w2) + b2
    p = torch.softmax(o, dim=-1)
    q = torch.cat([p, h[:, :2]], dim=1)
    return q.view(-1), p.sum(dim=1)


def traced_consts(x):
    c = torch.tensor([1.0, 2.0, 3.0])
    y = x * torch.tensor(2.5) + c
    z = y.to(torch.float64).sum()
    return y.transpose(0, 1).contiguous(), z, torch.zeros(2, dtype=torch.int64, device=x.device)


class SmallCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 2, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(2)
        self.pool = torch.nn.MaxPool2d(2)
        self.fc = torch.nn.Linear(8, 3)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn(self.conv(x))))
        return self.fc(torch.flatten(x, 1))


# ---------------------------------------------------------------------------
# Fusion / profiling
# ---------------------------------------------------------------------------


def pointwise(x, y):
    z = x * y + x
    w = torch.relu(z) - torch.sigmoid(y)
    return w.sum() * 2.0


# ---------------------------------------------------------------------------
# Other constructs
# ---------------------------------------------------------------------------


def list_ops(x, n: int):
    parts: List[Tensor] = []
    for i in range(n):
        parts.append(x * float(i + 1))
    sizes: List[int] = [x.size(0), x.size(1)]
    sizes.append(len(parts))
    total = x
    for p in parts:
        total = total + p
    last = parts[-1]
    return torch.cat(parts, 0), len(parts), sizes[2], parts[1] + last, total


def tuple_ops(x, y):
    t = (x, y, 3)
    a, b, c = t
    u = (a + b, c * 2)
    return t[0] * b + c, u[1], u


def dict_ops(x, y):
    d: Dict[str, Tensor] = {"a": x, "b": y}
    d["c"] = x + y
    acc = torch.zeros_like(x)
    for k in d.keys():
        acc = acc + d[k]
    has_b = "b" in d
    return acc, d["c"] * 2.0, len(d), has_b


def early_return(x, flag: bool):
    if flag:
        return x * 2.0
    y = x + 1.0
    return y * y


def while_break(x, n: int):
    i = 0
    acc = x
    while True:
        if i >= n:
            break
        acc = acc + x * float(i)
        i += 1
    return acc, i


def raise_check(x, n: int):
    if n < 0:
        raise ValueError("n must be non-negative")
    return x * float(n)


def scalar_ops(a: int, b: int, c: float):
    q = a // b
    r = a % b
    p = a ** 2
    f = float(a) / c
    g = int(c * 3.0)
    h = c ** 0.5
    m = max(a, b)
    neg = -a
    big = a > b and c < 10.0
    return q, r, p, f, g, h, m, abs(neg), big, min(c, 1.0)


def item_ops(x):
    n = int(x.argmax())
    v = float(x.max())
    t = x.size(0) * 2
    s = x.sum().item()
    return n, v, t, x.dim(), x.shape[1], x * s


def fork_helper(x, k: float):
    return torch.tanh(x) * k


def fork_wait(x):
    fut = torch.jit.fork(fork_helper, x, 2.0)
    y = x + 1.0
    z = torch.jit.wait(fut)
    return y + z


class Counter(object):
    def __init__(self, start: int):
        self.count = start

    def __enter__(self):
        self.count += 1

    def __exit__(self, type: Any, value: Any, tb: Any):
        self.count += 10


def with_stmt(x):
    c = Counter(3)
    with c:
        y = x * 2.0
    return y, c.count


def optional_refine(x, n: int):
    o = torch.jit.annotate(Optional[int], None)
    if n > 0:
        o = n * 2
    y = x
    if o is not None:
        y = x + o
    return y


def string_ops(x, n: int):
    name = "item" + "_" + str(n)
    msg = "{}:{}".format(name, n)
    if name == "item_2":
        x = x + 1.0
    return x, len(msg)


def helper_scale(x, k: float):
    return x * k


def call_other(x):
    return helper_scale(x, 2.0) + helper_scale(x, 0.5)


def int_tensor_ops(x):
    y = x * 3 // 2
    z = torch.arange(x.size(0)).unsqueeze(1)
    w = torch.zeros([x.size(0), x.size(1)], dtype=torch.long)
    return y + z + w, x.sum(), (x % 3 == 0).to(torch.int64)


def double_ops(x):
    m = torch.exp(x).mean(dim=1, keepdim=True)
    return m, x.to(torch.float32) * 2.0, torch.where(x > 0.0, x, -x)


def tensor_creation(x):
    a = torch.ones([2, 3], dtype=torch.float32) * 0.5
    b = torch.full([2, 3], 1.5)
    c = x.view([2, 3]).reshape(3, 2).t()
    d = torch.zeros(2, 3, device=torch.device("cpu"))
    return a + b + c + d, torch.stack([a, b], dim=0).shape[0]


def nested_control(x, n: int):
    acc = torch.zeros_like(x)
    for i in range(n):
        if i % 2 == 0:
            j = 0
            while j < i:
                acc = acc + x
                j += 1
        else:
            acc = acc - x * 0.5
    return acc


def inplace_ops(x):
    y = x.clone()
    y.add_(1.0)
    y.mul_(2.0)
    y[0] = 0.0
    return y


def loop_return(x, n: int):
    for i in range(n):
        if i == 2:
            return x * float(i)
        x = x + 1.0
    return x


def else_return(x, flag: bool):
    if flag:
        y = x * 2.0
    else:
        return x - 1.0
    return y + 1.0


def optional_tensor(x, y: Optional[Tensor]):
    if y is None:
        return x
    return x + y
