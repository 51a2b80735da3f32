"""
Writes the `.pt2` archives the lit tests of the pt2 frontend read (needs torch 2.13):

    python tests/filecheck/frontends/inputs/make_pt2_inputs.py

`tiny_training.pt2` and `tiny_core.pt2` are one small model (a linear layer, a
buffer updated in place, a dynamic batch dimension) as `torch.export.export`
gives it and after `run_decompositions()`; weights are fixed and stack traces
keep only file names, so the archives are reproducible. `zip_slip.pt2` and
`pickled_weights.pt2` are hostile variants the frontend must refuse.
"""

from __future__ import annotations

import io
import json
import pathlib
import re
import zipfile

import torch

HERE = pathlib.Path(__file__).resolve().parent


class Tiny(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)
        self.register_buffer("steps", torch.zeros((), dtype=torch.int64))
        with torch.no_grad():
            self.fc.weight.copy_(torch.arange(6.0).reshape(2, 3) / 4)
            self.fc.bias.fill_(0.5)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        self.steps.add_(1)
        y = self.fc(x).relu()
        return y, y.sum(dim=1, keepdim=True) * x.shape[0]


def _short_paths(ep: torch.export.ExportedProgram) -> None:
    """Stack traces with file names only (no paths of the generating machine)."""
    for node in ep.graph.nodes:
        trace = node.meta.get("stack_trace")
        if trace:
            node.meta["stack_trace"] = re.sub(r'File "[^"]*[/\\]([^/\\"]+)"', r'File "\1"', trace)


def _save(ep: torch.export.ExportedProgram, name: str) -> bytes:
    _short_paths(ep)
    buffer = io.BytesIO()
    torch.export.save(ep, buffer)
    (HERE / name).write_bytes(buffer.getvalue())
    return buffer.getvalue()


def _rewrite(
    data: bytes, name: str, edit: dict[str, bytes | None], extra: dict[str, bytes]
) -> None:
    """A copy of an archive with some entries replaced, dropped or added."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            rel = info.filename.split("/", 1)[1]
            if rel in edit:
                if edit[rel] is not None:
                    dst.writestr(info.filename, edit[rel])  # pyright: ignore[reportArgumentType] - checked not None just above
            else:
                dst.writestr(info.filename, src.read(info.filename))
        for entry, content in extra.items():
            dst.writestr(entry, content)
    (HERE / name).write_bytes(out.getvalue())


def main() -> None:
    torch.manual_seed(0)
    batch = torch.export.Dim("batch", min=2, max=16)
    ep = torch.export.export(Tiny(), (torch.ones(4, 3),), dynamic_shapes=({0: batch},))
    training = _save(ep, "tiny_training.pt2")
    _save(ep.run_decompositions(), "tiny_core.pt2")

    root = zipfile.ZipFile(io.BytesIO(training)).namelist()[0].split("/", 1)[0]
    _rewrite(training, "zip_slip.pt2", {}, {f"{root}/../../outside.txt": b"x"})
    config_name = "data/weights/model_weights_config.json"
    config = json.loads(zipfile.ZipFile(io.BytesIO(training)).read(f"{root}/{config_name}"))
    config["config"]["fc.weight"]["use_pickle"] = True
    _rewrite(training, "pickled_weights.pt2", {config_name: json.dumps(config).encode()}, {})


if __name__ == "__main__":
    main()
