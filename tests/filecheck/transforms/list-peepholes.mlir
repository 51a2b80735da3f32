// list-peepholes (torch's _jit_pass_peephole_list_idioms): len, constant
// indexing and unpacking of a list literal that is never mutated fold away;
// the list %k, which aten::append mutates, is left alone.
// RUN: exir-opt %s -p list-peepholes | filecheck %s

// CHECK-NOT:  prim.ListConstruct(%x.1, %y.1)
// CHECK-NOT:  prim.ListUnpack
// CHECK:      %k.1 = prim.ListConstruct(%x.1)
// CHECK-NEXT: ts.node "aten::append"(%k.1, %y.1)
// CHECK-NEXT: %[[LEN:.*]] = prim.Constant() {value = 2 : i64}
// CHECK-NEXT: %[[A:.*]] = ts.node "aten::add"(%y.1, %[[LEN]], %0)
// CHECK-NEXT: %[[B:.*]] = ts.node "aten::add"(%[[A]], %x.1, %0)
// CHECK-NEXT: %[[K0:.*]] = ts.node "aten::__getitem__"(%k.1, %1)
// CHECK-NEXT: ts.node "aten::add"(%[[B]], %[[K0]], %0)
// CHECK-NOT:  aten::len

builtin.module {
  ts.method @forward {
  ^bb0(%x.1: !ts.tensor, %y.1: !ts.tensor):
    %0 = prim.Constant() {value = 1 : i64} : () -> !ts.int
    %1 = prim.Constant() {value = 0 : i64} : () -> !ts.int
    %l.1 = prim.ListConstruct(%x.1, %y.1) : (!ts.tensor, !ts.tensor) -> !ts.list<!ts.tensor>
    %a.1, %b = prim.ListUnpack(%l.1) : (!ts.list<!ts.tensor>) -> (!ts.tensor, !ts.tensor)
    %k.1 = prim.ListConstruct(%x.1) : (!ts.tensor) -> !ts.list<!ts.tensor>
    %2 = ts.node "aten::append"(%k.1, %y.1) : (!ts.list<!ts.tensor>, !ts.tensor) -> !ts.list<!ts.tensor>
    %3 = ts.node "aten::__getitem__"(%l.1, %0) : (!ts.list<!ts.tensor>, !ts.int) -> !ts.tensor
    %4 = ts.node "aten::len"(%l.1) : (!ts.list<!ts.tensor>) -> !ts.int
    %5 = ts.node "aten::add"(%3, %4, %0) : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
    %6 = ts.node "aten::add"(%5, %a.1, %0) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
    %7 = ts.node "aten::__getitem__"(%k.1, %1) : (!ts.list<!ts.tensor>, !ts.int) -> !ts.tensor
    %8 = ts.node "aten::add"(%6, %7, %0) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
    prim.Return(%8) : (!ts.tensor) -> ()
  }
}
