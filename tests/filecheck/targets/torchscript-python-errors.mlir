// --emit torchscript-python refuses what it cannot print with one located
// paragraph and no traceback: input without TorchScript, a node kind with
// blocks that are not a subgraph over its inputs.
// RUN: not exir-opt %s --emit torchscript-python 2>&1 | filecheck %s
// RUN: python -c "open('%t.empty.mlir', 'w').write('builtin.module {}')"
// RUN: not exir-opt %t.empty.mlir --emit torchscript-python 2>&1 | filecheck %s --check-prefix=NONE

ts.method @f {
^bb0(%x: !ts.tensor):
  %y = ts.node "mylib::scan"(%x) ({
    prim.Return(%x) : (!ts.tensor) -> ()
  }) : (!ts.tensor) -> !ts.tensor
  prim.Return(%y) : (!ts.tensor) -> ()
}

// CHECK:     exir-opt: error: {{.*}}torchscript-python-errors.mlir:10:3: 'mylib::scan' (%y) in @f: no Python spelling for a 'mylib::scan' node with blocks
// CHECK-NOT: Traceback

// NONE:     exir-opt: error: --emit torchscript-python prints ts.method and ts.module ops; the input has none
// NONE-NOT: Traceback
