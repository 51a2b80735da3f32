// exir-dce: unused ops go; writes stay when what they write is observable
// (graph inputs, outputs, memory a live op reads); random ops and ops with
// unknown effects stay. Nested regions are cleaned too.
// RUN: exir-opt %s -p exir-dce --split-input-file | filecheck %s

builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "s">] {
    exir.graph @forward(%x: !exir.tensor<[4], float32>) -> (!exir.tensor<[4], float32>) {
      %dead = aten.neg.default(%x) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      %t = aten.clone.default(%x) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      %t2 = aten.add_.Tensor(%t, 1.0) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      %u = aten.clone.default(%x) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      %v = aten.select.int(%u, 0, 0) : (!exir.tensor<[4], float32>) -> !exir.tensor<[], float32>
      %v2 = aten.mul_.Tensor(%v, 2.0) : (!exir.tensor<[], float32>) -> !exir.tensor<[], float32>
      %w = aten.add_.Tensor(%x, 1.0) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      %r = exir.call_function "aten.rand_like.default"(%x) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      %o = exir.call_function "mylib.opaque.default"(%x) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      %s = aten.relu.default(%u) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      exir.output %s : !exir.tensor<[4], float32>
    }
  }
}

// CHECK:      exir.graph @forward
// CHECK-NEXT:   %u = aten.clone.default(%x)
// CHECK-NEXT:   %v = aten.select.int(%u, 0, 0)
// CHECK-NEXT:   %v2 = aten.mul_.Tensor(%v, 2.0)
// CHECK-NEXT:   %w = aten.add_.Tensor(%x, 1.0)
// CHECK-NEXT:   %r = exir.call_function "aten.rand_like.default"(%x)
// CHECK-NEXT:   %o = exir.call_function "mylib.opaque.default"(%x)
// CHECK-NEXT:   %s = aten.relu.default(%u)
// CHECK-NEXT:   exir.output %s

// -----

// TorchScript: inputs may alias anything, so a write to one stays; prim::Print stays.
builtin.module {
  ts.method @f attributes {schema = "f(Tensor x) -> Tensor"} {
  ^bb0(%x: !ts.tensor):
    %one = prim.Constant() {value = 1 : i64} : () -> !ts.int
    %dead = ts.node "aten::neg"(%x) : (!ts.tensor) -> !ts.tensor
    %w = ts.node "aten::add_"(%x, %one, %one) : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
    ts.node "prim::Print"(%x) : (!ts.tensor) -> ()
    %c = prim.Constant() {value = true} : () -> !ts.bool
    %unused = prim.If(%c) ({
      %n = ts.node "aten::neg"(%x) : (!ts.tensor) -> !ts.tensor
      prim.Return(%n) : (!ts.tensor) -> ()
    }, {
      prim.Return(%x) : (!ts.tensor) -> ()
    }) : (!ts.bool) -> !ts.tensor
    prim.Return(%x) : (!ts.tensor) -> ()
  }
}

// CHECK:      ts.method @f
// CHECK-NEXT: ^bb0(%x: !ts.tensor):
// CHECK-NEXT:   %one = prim.Constant()
// CHECK-NEXT:   %w = ts.node "aten::add_"(%x, %one, %one)
// CHECK-NEXT:   ts.node "prim::Print"(%x)
// CHECK-NEXT:   prim.Return(%x)
