"""
Targets of xdsl-exir: what `exir-opt --emit FORMAT` (or `-t FORMAT`) writes.

* `mlir`: MLIR text, xDSL's target with the weights' resources one a line and
  mlir-opt's option to elide large ones (`mlir_text`); `exir-opt` puts it in
  place of xDSL's (a universe may not define a target twice);
* `fx`: the FX graph text torch prints for the program (`fx_text`);
* `python`: a standalone numpy module computing the program (`python_source`);
* `torchscript-python`: TorchScript programs as torch's Python printer writes
  them (`ScriptModule.code`, `torchscript_python`);
* `torchscript`: TorchScript graphs as torch prints them (`str(graph)`, `torchscript_dump_printer`);
* `dot` / `svg`: a picture of the program at any stage, as Graphviz text or
  rendered by Graphviz's `dot` (`dot`);
* `iree-bundle`: a compiled artifact, a directory that `xdsl_exir.runtime.load`
  and `exir-run` run without the compiler (`iree_bundle`; `-o DIR` names it).

Each is an xDSL `Target`, registered by name in `xdsl_exir.targets.registry`
(`get_all_targets`) with a factory that imports its module only when the target is used.
"""
