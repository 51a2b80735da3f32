// batch-mm (torch's _jit_pass_batch_mm, TreeReduce): a sum of matrix products
// becomes one product of concatenated operands.
// RUN: exir-opt %s -p batch-mm | filecheck %s
// RUN: exir-opt %s -p 'batch-mm{min-leaves=3}' | filecheck %s --check-prefix=FEW
// RUN: not exir-opt %s -p 'batch-mm{min-leaves=1}' 2>&1 | filecheck %s --check-prefix=BAD

// CHECK:      %[[L:.*]] = prim.ListConstruct(%a1.1, %a2.1)
// CHECK-NEXT: %[[R:.*]] = prim.ListConstruct(%b1.1, %b2.1)
// CHECK-NEXT: %[[ONE:.*]] = prim.Constant() {value = 1 : i64}
// CHECK-NEXT: %[[ZERO:.*]] = prim.Constant() {value = 0 : i64}
// CHECK-NEXT: %[[CL:.*]] = ts.node "aten::cat"(%[[L]], %[[ONE]])
// CHECK-NEXT: %[[CR:.*]] = ts.node "aten::cat"(%[[R]], %[[ZERO]])
// CHECK-NEXT: %[[MM:.*]] = ts.node "aten::mm"(%[[CL]], %[[CR]])
// CHECK-NEXT: prim.Return(%[[MM]])

// FEW-COUNT-2: ts.node "aten::mm"
// FEW:         ts.node "aten::add"

// BAD: batch-mm: min-leaves must be at least 2, got 1

builtin.module {
  ts.method @forward {
  ^bb0(%a1.1: !ts.tensor, %b1.1: !ts.tensor, %a2.1: !ts.tensor, %b2.1: !ts.tensor):
    %0 = prim.Constant() {value = 1 : i64} : () -> !ts.int
    %1 = ts.node "aten::mm"(%a1.1, %b1.1) : (!ts.tensor, !ts.tensor) -> !ts.tensor
    %2 = ts.node "aten::mm"(%a2.1, %b2.1) : (!ts.tensor, !ts.tensor) -> !ts.tensor
    %3 = ts.node "aten::add"(%1, %2, %0) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
    prim.Return(%3) : (!ts.tensor) -> ()
  }
}
