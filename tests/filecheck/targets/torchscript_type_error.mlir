// A value whose type has no TorchScript spelling is reported with its op.
// RUN: not exir-opt %s --emit torchscript 2>&1 | filecheck %s

ts.method @g {
^bb0(%x: i64):
  prim.Return(%x) : (i64) -> ()
}

// CHECK: exir-opt: error: 'ts.method' has a value of type i64, which TorchScript cannot spell
// CHECK-NOT: Traceback
