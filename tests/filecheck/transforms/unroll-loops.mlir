// unroll-loops (JIT Technical Overview; torch's _jit_pass_loop_unrolling): a constant-count
// for-loop is unrolled completely; others run the body `factor` times per
// iteration, followed by an epilogue loop for the remainder.
// RUN: exir-opt %s -p 'unroll-loops{factor=2}' | filecheck %s
// RUN: exir-opt %s -p 'unroll-loops{max-trip-count=2 factor=1}' | filecheck %s --check-prefix=SMALL
// RUN: not exir-opt %s -p 'unroll-loops{factor=0}' 2>&1 | filecheck %s --check-prefix=BAD

// CHECK:      %y.3 = ts.node "aten::mul"(%x.1, %3)
// CHECK-NEXT: %y.3_1 = ts.node "aten::mul"(%y.3, %4)
// CHECK:      %[[F:.*]] = prim.Constant() {value = 2 : i64}
// CHECK-NEXT: %[[DIV:.*]] = ts.node "aten::__round_to_zero_floordiv"(%n.1, %[[F]])
// CHECK-NEXT: %[[MUL:.*]] = ts.node "aten::mul"(%[[DIV]], %[[F]])
// CHECK-NEXT: %[[REST:.*]] = ts.node "aten::sub"(%n.1, %[[MUL]])
// CHECK-NEXT: %y = prim.Loop(%[[DIV]], %0, %y.3_1)
// CHECK:      ts.node "aten::add"
// CHECK-NEXT: ts.node "aten::add"
// CHECK-NEXT: prim.Return
// CHECK:      %y_1 = prim.Loop(%[[REST]], %0, %y)
// CHECK:      ts.node "aten::add"
// CHECK-NEXT: prim.Return
// CHECK:      prim.Return(%y_1)

// The constant trip count 2 is not below max-trip-count=2 and factor 1 does not unroll.
// SMALL-COUNT-2: prim.Loop
// SMALL-NOT:     aten::__round_to_zero_floordiv

// BAD: unroll-loops: factor must be at least 1 (got 0)

builtin.module {
  ts.method @forward {
  ^bb0(%x.1: !ts.tensor, %n.1: !ts.int):
    %0 = prim.Constant() {value = true} : () -> !ts.bool
    %1 = prim.Constant() {value = 2 : i64} : () -> !ts.int
    %2 = prim.Constant() {value = 1 : i64} : () -> !ts.int
    %y.17 = prim.Loop(%1, %0, %x.1) ({
    ^bb0(%i.1: !ts.int, %y.15: !ts.tensor):
      %y.3 = ts.node "aten::mul"(%y.15, %i.1) : (!ts.tensor, !ts.int) -> !ts.tensor
      prim.Return(%0, %y.3) : (!ts.bool, !ts.tensor) -> ()
    }) : (!ts.int, !ts.bool, !ts.tensor) -> !ts.tensor
    %y = prim.Loop(%n.1, %0, %y.17) ({
    ^bb0(%j: !ts.int, %y.19: !ts.tensor):
      %y.9 = ts.node "aten::add"(%y.19, %2, %2) : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
      prim.Return(%0, %y.9) : (!ts.bool, !ts.tensor) -> ()
    }) : (!ts.int, !ts.bool, !ts.tensor) -> !ts.tensor
    prim.Return(%y) : (!ts.tensor) -> ()
  }
}
