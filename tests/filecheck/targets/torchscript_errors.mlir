// Only ts and prim ops print as TorchScript nodes, and only TorchScript types
// as their types; anything else is reported, not a traceback.
// RUN: not exir-opt %s --emit torchscript 2>&1 | filecheck %s

ts.method @f {
^bb0(%x: !ts.int):
  %y = arith.constant 1 : i64
  %z = ts.node "aten::neg"(%y) : (i64) -> !ts.int
  prim.Return(%z) : (!ts.int) -> ()
}

// CHECK: exir-opt: error: 'arith.constant' is not a TorchScript node (only ts and prim ops print as a graph)
// CHECK-NOT: Traceback
