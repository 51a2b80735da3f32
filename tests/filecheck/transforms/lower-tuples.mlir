// lower-tuples (torch's _jit_pass_lower_all_tuples): a tuple-typed if output
// becomes one output per element, and construct/unpack/index pairs fold.
// RUN: exir-opt %s -p lower-tuples | filecheck %s

// CHECK:      %[[U:.*]], %[[V:.*]] = prim.If(%c) ({
// CHECK-NEXT:   %a = ts.node "aten::add"(%x, %x, %one)
// CHECK-NEXT:   prim.Return(%a, %x) : (!ts.tensor, !ts.tensor) -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT:   prim.Return(%x, %x) : (!ts.tensor, !ts.tensor) -> ()
// CHECK-NEXT: }) : (!ts.bool) -> (!ts.tensor, !ts.tensor)
// CHECK-NEXT: %w = ts.node "aten::mul"(%[[U]], %[[V]])
// CHECK-NEXT: %r = ts.node "aten::add"(%w, %[[U]], %one)
// CHECK-NOT:  prim.Tuple

builtin.module {
  ts.method @forward {
  ^bb0(%x: !ts.tensor, %c: !ts.bool):
    %one = prim.Constant() {value = 1 : i64} : () -> !ts.int
    %zero = prim.Constant() {value = 0 : i64} : () -> !ts.int
    %t = prim.If(%c) ({
      %a = ts.node "aten::add"(%x, %x, %one) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
      %t1 = prim.TupleConstruct(%a, %x) : (!ts.tensor, !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.tensor>
      prim.Return(%t1) : (!ts.tuple<!ts.tensor, !ts.tensor>) -> ()
    }, {
      %t2 = prim.TupleConstruct(%x, %x) : (!ts.tensor, !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.tensor>
      prim.Return(%t2) : (!ts.tuple<!ts.tensor, !ts.tensor>) -> ()
    }) : (!ts.bool) -> !ts.tuple<!ts.tensor, !ts.tensor>
    %u, %v = prim.TupleUnpack(%t) : (!ts.tuple<!ts.tensor, !ts.tensor>) -> (!ts.tensor, !ts.tensor)
    %s = prim.TupleIndex(%t, %zero) : (!ts.tuple<!ts.tensor, !ts.tensor>, !ts.int) -> !ts.tensor
    %w = ts.node "aten::mul"(%u, %v) : (!ts.tensor, !ts.tensor) -> !ts.tensor
    %r = ts.node "aten::add"(%w, %s, %one) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
    prim.Return(%r) : (!ts.tensor) -> ()
  }
}
