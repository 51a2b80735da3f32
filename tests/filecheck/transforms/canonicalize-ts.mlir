// TorchScript's list, tuple and shape peepholes under the stock `canonicalize`.
// RUN: exir-opt %s -p canonicalize --split-input-file | filecheck %s

builtin.module {
  ts.method @lists attributes {schema = "lists(Tensor x, int a) -> (int, int, int, Tensor)"} {
  ^bb0(%x: !ts.tensor<Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)>, %a: !ts.int):
    %c1 = prim.Constant() {value = 1 : i64} : () -> !ts.int
    %l = prim.ListConstruct(%a, %c1) : (!ts.int, !ts.int) -> !ts.list<!ts.int>
    %n = ts.node "aten::len"(%l) : (!ts.list<!ts.int>) -> !ts.int
    %e = ts.node "aten::__getitem__"(%l, %c1) : (!ts.list<!ts.int>, !ts.int) -> !ts.int
    %u:2 = prim.ListUnpack(%l) : (!ts.list<!ts.int>) -> (!ts.int, !ts.int)
    %s = ts.node "aten::size"(%x, %c1) : (!ts.tensor<Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)>, !ts.int) -> !ts.int
    %t = prim.TupleConstruct(%x, %a) : (!ts.tensor<Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)>, !ts.int) -> !ts.tuple<!ts.tensor, !ts.int>
    %t0 = prim.TupleIndex(%t, %c1) : (!ts.tuple<!ts.tensor, !ts.int>, !ts.int) -> !ts.int
    %p:2 = prim.TupleUnpack(%t) : (!ts.tuple<!ts.tensor, !ts.int>) -> (!ts.tensor, !ts.int)
    %r1 = ts.node "aten::add"(%n, %e) : (!ts.int, !ts.int) -> !ts.int
    %r2 = ts.node "aten::add"(%u#0, %s) : (!ts.int, !ts.int) -> !ts.int
    %r3 = ts.node "aten::add"(%t0, %p#1) : (!ts.int, !ts.int) -> !ts.int
    %tt = ts.node "aten::t"(%x) : (!ts.tensor<Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)>) -> !ts.tensor
    %ttt = ts.node "aten::t"(%tt) : (!ts.tensor) -> !ts.tensor
    %r4 = ts.node "aten::mul"(%ttt, %p#0) : (!ts.tensor, !ts.tensor) -> !ts.tensor
    prim.Return(%r1, %r2, %r3, %r4) : (!ts.int, !ts.int, !ts.int, !ts.tensor) -> ()
  }
}

// CHECK-LABEL: ts.method @lists
// CHECK-DAG:     %[[TWO:.*]] = prim.Constant() {value = 2 : i64} : () -> !ts.int
// CHECK-DAG:     %[[THREE:.*]] = prim.Constant() {value = 3 : i64} : () -> !ts.int
// CHECK-DAG:     %[[C1:.*]] = prim.Constant() {value = 1 : i64} : () -> !ts.int
// CHECK:         %r1 = ts.node "aten::add"(%[[TWO]], %[[C1]])
// CHECK-NEXT:    %r2 = ts.node "aten::add"(%a, %[[THREE]])
// CHECK-NEXT:    %r3 = ts.node "aten::add"(%a, %a)
// CHECK:         %r4 = ts.node "aten::mul"(%x, %x)
// CHECK-NEXT:    prim.Return(%r1, %r2, %r3, %r4)

// -----

// A mutated list keeps its reads; an `if` on a constant is its branch.
builtin.module {
  ts.method @mutated attributes {schema = "mutated(int a) -> int"} {
  ^bb0(%a: !ts.int):
    %l = prim.ListConstruct(%a) : (!ts.int) -> !ts.list<!ts.int>
    ts.node "aten::append"(%l, %a) : (!ts.list<!ts.int>, !ts.int) -> ()
    %n = ts.node "aten::len"(%l) : (!ts.list<!ts.int>) -> !ts.int
    %true = prim.Constant() {value = true} : () -> !ts.bool
    %r = prim.If(%true) ({
      %m = ts.node "aten::mul"(%n, %a) : (!ts.int, !ts.int) -> !ts.int
      prim.Return(%m) : (!ts.int) -> ()
    }, {
      prim.Return(%n) : (!ts.int) -> ()
    }) : (!ts.bool) -> !ts.int
    prim.Return(%r) : (!ts.int) -> ()
  }
}

// CHECK-LABEL: ts.method @mutated
// CHECK:         %l = prim.ListConstruct(%a)
// CHECK-NEXT:    ts.node "aten::append"(%l, %a)
// CHECK-NEXT:    %n = ts.node "aten::len"(%l)
// CHECK-NEXT:    %m = ts.node "aten::mul"(%n, %a)
// CHECK-NEXT:    prim.Return(%m)
