"""
Real training-IR programs through `to-core-aten`: small models exported with torch
2.13's default `torch.export.export` (random weights, no torchvision), each run by
the interpreter as exported and after `to-core-aten`, checked against eager, with
`verify-export-ir{dialect=core}` passing in between. They use what the training IR
keeps and run_decompositions() removes: `arange`, `unbind`, `einsum`, `group_norm`,
`pad` in every mode, `roll`, `fill_.Tensor`, `min`/`max.other`, the Scalar overloads
of `where`, `softplus`, `clamp_min`/`clamp_max.Tensor`, `to`, `meshgrid`, a GPT-2
block whose views torch's own decomposition cannot always replay, a channels-last
ConvNeXt block, a bilinear U-Net, a MobileNet block with hardswish, a Transformer
encoder layer, a BERT-style encoder and `.item()`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pass_harness as ph
import pytest

from xdsl_exir.transforms.verify_export_ir import VerifyExportIRPass

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional


class Conv1D(nn.Module):
    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.randn(nx, nf) * 0.02)
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


class GPT2Attn(nn.Module):
    def __init__(self, d=32, h=4, n_pos=16):
        super().__init__()
        self.h, self.d = h, d
        self.c_attn = Conv1D(3 * d, d)
        self.c_proj = Conv1D(d, d)
        self.register_buffer("bias", torch.tril(torch.ones(n_pos, n_pos, dtype=torch.bool)).view(1, 1, n_pos, n_pos), persistent=False)

    def split(self, t):
        new = t.size()[:-1] + (self.h, self.d // self.h)
        return t.view(new).permute(0, 2, 1, 3)

    def merge(self, t):
        t = t.permute(0, 2, 1, 3).contiguous()
        return t.view(t.size()[:-2] + (self.d,))

    def forward(self, x):
        q, k, v = self.c_attn(x).split(self.d, dim=2)
        q, k, v = self.split(q), self.split(k), self.split(v)
        w = torch.matmul(q, k.transpose(-1, -2)) / torch.full([], v.size(-1) ** 0.5, dtype=x.dtype)
        T = q.size(-2)
        mask = self.bias[:, :, :T, :T]
        w = torch.where(mask, w, torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype))
        w = nn.functional.softmax(w, dim=-1)
        a = torch.matmul(w, v)
        return self.c_proj(self.merge(a))


class GPT2Block(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.wte = nn.Embedding(50, d)
        self.wpe = nn.Embedding(16, d)
        self.ln1 = nn.LayerNorm(d)
        self.attn = GPT2Attn(d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = Conv1D(4 * d, d)
        self.proj = Conv1D(d, 4 * d)
        self.lnf = nn.LayerNorm(d)

    def forward(self, ids):
        pos = torch.arange(0, ids.size(-1), dtype=torch.long, device=ids.device).unsqueeze(0)
        x = self.wte(ids) + self.wpe(pos)
        x = x + self.attn(self.ln1(x))
        h = self.fc(self.ln2(x))
        h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * torch.pow(h, 3.0))))
        x = x + self.proj(h)
        return self.lnf(x)


class LayerNorm2d(nn.LayerNorm):
    def forward(self, x):
        x = x.permute(0, 2, 3, 1)
        x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        return x.permute(0, 3, 1, 2)


class ConvNeXtBlock(nn.Module):
    def __init__(self, c=16):
        super().__init__()
        self.stem = nn.Conv2d(3, c, 4, 4)
        self.norm0 = LayerNorm2d(c)
        self.dw = nn.Conv2d(c, c, 7, padding=3, groups=c)
        self.norm = nn.LayerNorm(c)
        self.pw1 = nn.Linear(c, 4 * c)
        self.pw2 = nn.Linear(4 * c, c)
        self.gamma = nn.Parameter(torch.full((c,), 0.5))
        self.head_norm = LayerNorm2d(c)
        self.head = nn.Linear(c, 10)

    def forward(self, x):
        x = x.contiguous(memory_format=torch.channels_last)
        x = self.norm0(self.stem(x))
        r = x
        x = self.dw(x).permute(0, 2, 3, 1)
        x = self.pw2(F.gelu(self.pw1(self.norm(x))))
        x = (self.gamma * x).permute(0, 3, 1, 2)
        x = r + x
        x = F.adaptive_avg_pool2d(x, 1)
        x = self.head_norm(x)
        return self.head(torch.flatten(x, 1))


class UNet(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.e1 = nn.Sequential(nn.Conv2d(3, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU())
        self.e2 = nn.Sequential(nn.Conv2d(c, 2 * c, 3, padding=1), nn.ReLU())
        self.mid = nn.Conv2d(2 * c, 2 * c, 3, padding=1)
        self.d1 = nn.Conv2d(4 * c, c, 3, padding=1)
        self.d0 = nn.Conv2d(2 * c, c, 3, padding=1)
        self.out = nn.Conv2d(c, 2, 1)

    def forward(self, x):
        a = self.e1(x)
        b = self.e2(F.max_pool2d(a, 2))
        m = F.relu(self.mid(F.max_pool2d(b, 2)))
        u = F.interpolate(m, scale_factor=2, mode="bilinear", align_corners=False)
        u = F.relu(self.d1(torch.cat([u, b], 1)))
        u = F.interpolate(u, size=a.shape[-2:], mode="bilinear", align_corners=True)
        u = F.relu(self.d0(torch.cat([u, a], 1)))
        return self.out(u)


class MobileNetLike(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, c, 3, 2, 1), nn.BatchNorm2d(c), nn.Hardswish())
        self.dw = nn.Sequential(nn.Conv2d(c, c, 3, 1, 1, groups=c), nn.BatchNorm2d(c), nn.ReLU6())
        self.se1 = nn.Conv2d(c, 4, 1)
        self.se2 = nn.Conv2d(4, c, 1)
        self.pw = nn.Sequential(nn.Conv2d(c, 2 * c, 1), nn.BatchNorm2d(2 * c), nn.Hardswish())
        self.head = nn.Sequential(nn.Linear(2 * c, 16), nn.Hardswish(), nn.Dropout(0.2), nn.Linear(16, 5))

    def forward(self, x):
        x = self.dw(self.stem(x))
        s = F.adaptive_avg_pool2d(x, 1)
        s = F.hardsigmoid(self.se2(F.relu(self.se1(s))))
        x = self.pw(x * s)
        x = F.adaptive_avg_pool2d(x, (1, 1)).flatten(1)
        return self.head(x)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.1, batch_first=True)

    def forward(self, x, mask):
        return self.l(x, src_key_padding_mask=mask)


class BertLike(nn.Module):
    def __init__(self, d=32, h=4):
        super().__init__()
        self.word = nn.Embedding(40, d, padding_idx=0)
        self.pos = nn.Embedding(16, d)
        self.typ = nn.Embedding(2, d)
        self.ln = nn.LayerNorm(d, eps=1e-12)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ln2 = nn.LayerNorm(d, eps=1e-12)
        self.i = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)
        self.ln3 = nn.LayerNorm(d, eps=1e-12)
        self.pool = nn.Linear(d, d)
        self.h = h

    def forward(self, ids, attn_mask):
        B, T = ids.shape
        pos = torch.arange(T).expand(B, T)
        typ = torch.zeros_like(ids)
        x = self.ln(self.word(ids) + self.pos(pos) + self.typ(typ))
        ext = (1.0 - attn_mask[:, None, None, :].to(torch.float32)) * torch.finfo(torch.float32).min
        def heads(t):
            return t.view(B, T, self.h, -1).transpose(1, 2)
        q, k, v = heads(self.q(x)), heads(self.k(x)), heads(self.v(x))
        s = q @ k.transpose(-1, -2) / math.sqrt(q.size(-1)) + ext
        a = (s.softmax(-1) @ v).transpose(1, 2).reshape(B, T, -1)
        x = self.ln2(x + self.o(a))
        x = self.ln3(x + self.out(F.gelu(self.i(x))))
        return x, torch.tanh(self.pool(x[:, 0]))


class ItemModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, scale):
        s = scale.max().item()
        return self.fc(x) * s + x.sum().item()


class EinsumModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 5, 6))

    def forward(self, x, y):
        a = torch.einsum("bij,jkl->bikl", x, self.w)
        b = torch.einsum("bi,bi->b", y, y)
        c = torch.einsum("ii", y[:, :3][:3])
        d = torch.einsum("bikl->blki", a)
        return a, b, c, d, torch.einsum("ij,jk", y, y.t())


class GroupNormModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.gn = nn.GroupNorm(4, 8)
        self.gn2 = nn.GroupNorm(2, 8, affine=False)

    def forward(self, x):
        return self.gn2(F.silu(self.gn(self.conv(x))))


class PadRoll(nn.Module):
    def forward(self, x, y):
        a = F.pad(x, (1, 2, 0, 1), value=0.5)
        b = F.pad(x, (2, 1), mode="reflect")
        c = F.pad(x, (1, 1, 2, 0), mode="replicate")
        d = torch.roll(x, 2, 1)
        e = torch.roll(x, (1, -1), (0, 2))
        f = torch.roll(x, 3)
        g = torch.arange(5, dtype=torch.float32) + torch.arange(1, 7, 2).sum().float()
        h = torch.min(x, y) - torch.max(x, y)
        i = torch.where(x > 0, x, 0.0) + torch.where(x > 0, 1.0, y) + torch.where(x > 0, 2.0, 3.0)
        j = F.softplus(x, beta=2.0, threshold=1.0) + torch.clamp_min(x, y) + torch.clamp_max(x, y)
        k = torch.zeros_like(x).fill_(torch.tensor(1.5))
        parts = torch.unbind(x, 1)
        l = parts[0] * 2 + parts[-1]
        m = x.to("cpu") + 1
        return a, b, c, d, e, f, g, h, i, j, k, l, m


class Grids(nn.Module):
    def forward(self, x, y):
        a, b = torch.meshgrid(x, y, indexing="ij")
        c, d = torch.meshgrid(x, y, indexing="xy")
        return a * b + 1, c - d, torch.stack([x, x * 2], 1), x.new_zeros(3).fill_(torch.tensor(2.5))


class Conversions(nn.Module):
    """`to` as export records it: `to.device` with and without a dtype, `to.dtype_layout`, and
    `to(other)` (also `to.device`, with the other tensor's dtype)."""

    def forward(self, x, y):
        return x.to("cpu", torch.float64) + 1, x.to(torch.device("cpu")) * 2, x.to(y)


class NonzeroTuple(nn.Module):
    """`nonzero(as_tuple=True)` and `torch.where(cond)`, as export records them (`nonzero_numpy`),
    of a matrix and of a 0-d tensor (one index tensor, `[0]` or empty, as torch reads it)."""

    def forward(self, x, s):
        rows, cols = torch.nonzero(torch.relu(x), as_tuple=True)
        (one,) = torch.where(s > 0)
        (none,) = torch.nonzero(s * 0, as_tuple=True)
        return rows * 10 + cols, one, none


MODELS: dict[str, Callable[[], tuple[Any, tuple[Any, ...]]]] = {
    "gpt2": lambda: (GPT2Block(), (torch.randint(0, 50, (2, 12)),)),
    "convnext": lambda: (ConvNeXtBlock(), (torch.randn(2, 3, 32, 32),)),
    "unet": lambda: (UNet(), (torch.randn(1, 3, 16, 16),)),
    "mobilenet": lambda: (MobileNetLike(), (torch.randn(2, 3, 16, 16),)),
    "encoder": lambda: (Encoder(), (torch.randn(2, 6, 16), torch.tensor([[False] * 6, [False] * 4 + [True] * 2]))),
    "bert": lambda: (BertLike(), (torch.randint(1, 40, (2, 8)), torch.tensor([[1] * 8, [1] * 5 + [0] * 3]))),
    "item": lambda: (ItemModel(), (torch.randn(3, 4), torch.rand(5))),
    "einsum": lambda: (EinsumModel(), (torch.randn(2, 3, 4), torch.randn(4, 4))),
    "groupnorm": lambda: (GroupNormModel(), (torch.randn(2, 3, 6, 6),)),
    "padroll": lambda: (PadRoll(), (torch.randn(3, 4, 5), torch.randn(3, 4, 5))),
    "grids": lambda: (Grids(), (torch.randn(3), torch.randn(4))),
    "conversions": lambda: (Conversions(), (torch.randn(3), torch.randint(0, 3, (3,)))),
    "nonzero_tuple": lambda: (NonzeroTuple(), (torch.randn(4, 5), torch.tensor(2.0))),
}


def _flat(out: Any) -> list[np.ndarray]:
    if isinstance(out, tuple | list):
        return [a for o in out for a in _flat(o)]
    return [out.detach().numpy() if isinstance(out, torch.Tensor) else np.asarray(out)]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_training_ir_to_core_aten_runs_as_eager(name: str) -> None:
    from xdsl_exir.frontends.torch_live import import_exported_program

    torch.manual_seed(0)
    model, args = MODELS[name]()
    model = model.eval()
    module = import_exported_program(torch.export.export(model, args))
    with torch.no_grad():
        want = _flat(model(*args))
    xs = [a.numpy() for a in args]
    ph.assert_same_outputs(ph.run(module, xs), want, rtol=1e-4, atol=1e-5)
    after = ph.apply(module, "to-core-aten")
    VerifyExportIRPass(dialect="core").apply(ph.context(), after)
    ph.assert_same_outputs(ph.run(after, xs), want, rtol=1e-4, atol=1e-5)


class DynamicBatch(nn.Module):
    """group_norm, einsum, reflect pad, roll, unbind, stack, softplus and clamp_min on a symbolic batch."""

    def __init__(self):
        super().__init__()
        self.gn = nn.GroupNorm(2, 4)
        self.w = nn.Parameter(torch.randn(4, 3))

    def forward(self, x):
        y = torch.einsum("bchw,cd->bdhw", self.gn(x), self.w)
        p = torch.roll(F.pad(y, (1, 1, 2, 0), mode="reflect"), 1, 2)
        parts = torch.unbind(p, 1)
        return parts[0] + parts[2], torch.stack([p, p], 1).sum(1), F.softplus(p).clamp_min(torch.zeros_like(p))


def test_symbolic_batch_through_to_core_aten() -> None:
    """The sizes the decompositions compute stay symbolic (SymInt values in the graph): one program
    runs for every batch size in its range."""
    from xdsl_exir.frontends.torch_live import import_exported_program

    torch.manual_seed(1)
    model = DynamicBatch().eval()
    batch = torch.export.Dim("B", min=2, max=64)
    ep = torch.export.export(model, (torch.randn(3, 4, 5, 6),), dynamic_shapes=({0: batch},))
    after = ph.apply(import_exported_program(ep), "to-core-aten")
    VerifyExportIRPass(dialect="core").apply(ph.context(), after)
    for b in (2, 3, 7):
        x = torch.randn(b, 4, 5, 6)
        with torch.no_grad():
            want = _flat(model(x))
        ph.assert_same_outputs(ph.run(after, [x.numpy()]), want, rtol=1e-4, atol=1e-5)
