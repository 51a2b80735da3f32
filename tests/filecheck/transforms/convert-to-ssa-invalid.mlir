// convert-to-ssa reports IR the frontend cannot have produced, at the op.
// RUN: not exir-opt %s -p convert-to-ssa 2>&1 | filecheck %s

builtin.module {
  ts.method @read_before_write {
  ^bb0(%x: !ts.tensor):
    %y = prim.Load() {name = "y"} : () -> !ts.tensor
    prim.Return(%y) : (!ts.tensor) -> ()
  }
}

// CHECK: convert-to-ssa-invalid.mlir:7:5: 'prim::Load' (%y) in @read_before_write: variable 'y' is read before it is assigned
