"""
The `.pt2` frontend: a `torch.export.save` archive as one self-contained
`exir.program`.

torch 2.13 writes a zip whose entries sit under one top folder:

    <root>/archive_format                      "pt2"
    <root>/byteorder                           "little" (or "big")
    <root>/models/model.json                   the program, serialization schema 8.x
    <root>/data/weights/model_weights_config.json   parameters and persistent buffers
    <root>/data/weights/weight_<n>             raw storage bytes
    <root>/data/constants/model_constants_config.json   tensor constants,
                                               non-persistent buffers
    <root>/data/constants/tensor_<n>           raw storage bytes
    <root>/data/sample_inputs/model.pt         pickled example inputs: ignored

Every parameter, buffer and tensor constant becomes an `exir.state` holding its
data as a blob (contiguous bytes cut from the stored storage by the
tensor's sizes, strides and offset), so printing the module keeps the weights
(as `dense_resource` blobs in the file's resources section).
The graph signature, range constraints, pytree specs and node metadata
(`stack_trace` as the op location, from its innermost frame outside torch;
`nn_module_stack`, `source_fn_stack`,
`torch_fn`, `custom` as attributes) are kept. `torch.ops.aten.*` targets the
aten dialect models become aten ops, typed with the types the archive records
(no inference); other targets become `exir.call_function`. cond, while_loop and
map become `exir.cond`/`exir.while_loop`/`exir.map` with their subgraphs inlined
as regions; other higher-order ops keep their subgraphs as sibling `exir.graph`s
read by `exir.get_attr`.

The archive elides FX's `getitem` nodes. A node with several outputs becomes an
op with several results; a `Tensor[]` output is one list (or tuple, when the
elements differ) result followed by an `exir.getitem` per element, as in FX.
Graph inputs that are Python constants (`constant_input`) are placeholders of
type `!exir.int`, `!exir.none`, ... with the value as the `exir.constant`
argument attribute; graph outputs that are constants (a `ConstantArgument` in
the output spec: `return x, True`) are `exir.constant` ops returned by
`exir.output`.

This module never imports torch and never unpickles. An archive is refused with
a `Pt2Error` (one paragraph naming the place) when it is not a sound zip, has
entry names that are absolute or climb out with `..`, declares implausible
uncompressed sizes (zip bombs, by the rules of `utils/safe_zip.py`), holds more
than `MAX_UNUSED_ENTRIES` entries the program does not refer to, lacks an entry it
needs (`byteorder` and `archive_version` included), holds an `archive_version`
other than torch 2.13's, malformed JSON (integers beyond Python's int-string
limit included) or an unknown schema major version, would need pickled data (`use_pickle: true`
payloads, TorchBind custom objects, legacy `.pt` weights), stores bytes that
cannot back a tensor's sizes/strides/offset (or a view whose copy would exceed
the tensor size limit of `utils/limits.py`), uses an unknown dtype code, or
refers to values that are not defined. Nothing is returned half-built.

The frontend is a package: `archive` (the zip, its entries and the error types), `codes`
(torch's serialization codes), `metadata` (stack traces and node metadata), `dispatch` (what a
call target becomes), `graph` (one graph as a block, the signature's specs) and `program`
(`load_pt2`, the signature, and the weights as blobs). This module re-exports the public API.
"""

from __future__ import annotations

from xdsl_exir.frontends.pt2.archive import Pt2Error
from xdsl_exir.frontends.pt2.metadata import stack_trace_location
from xdsl_exir.frontends.pt2.program import load_pt2

__all__ = ["Pt2Error", "load_pt2", "stack_trace_location"]
