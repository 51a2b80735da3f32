// exir-cse: identical pure ops merge (FX metadata ignored), but not across a
// write to their operands, not when their result is written later, not for
// random ops; nested regions see their parents' values, not the other way.
// RUN: exir-opt %s -p exir-cse --split-input-file | filecheck %s
// RUN: exir-opt %s -p exir-cse{keep-metadata=true} --split-input-file | filecheck %s --check-prefix=META

builtin.module {
  exir.graph @g(%x: !exir.tensor<[4], float32>, %p: !exir.sym_bool) -> (!exir.tensor<[4], float32>, !exir.tensor<[4], float32>, !exir.tensor<[4], float32>, !exir.tensor<[4], float32>, !exir.tensor<[4], float32>, !exir.tensor<[4], float32>) {
    %a = aten.relu.default(%x) {torch_fn = ["relu_1", "fn"]} : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
    %b = aten.relu.default(%x) {torch_fn = ["relu_2", "fn"]} : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
    %c1 = aten.clone.default(%x) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
    %c2 = aten.clone.default(%x) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
    %w = aten.add_.Tensor(%c2, 1.0) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
    %r1 = exir.call_function "aten.rand_like.default"(%x) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
    %r2 = exir.call_function "aten.rand_like.default"(%x) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
    %wx = aten.mul_.Tensor(%x, 2.0) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
    %d = aten.relu.default(%x) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
    %s = aten.add.Tensor(%a, %b) : (!exir.tensor<[4], float32>, !exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
    exir.output %s, %c1, %c2, %r1, %r2, %d : !exir.tensor<[4], float32>, !exir.tensor<[4], float32>, !exir.tensor<[4], float32>, !exir.tensor<[4], float32>, !exir.tensor<[4], float32>, !exir.tensor<[4], float32>
  }
}

// CHECK:      %a = aten.relu.default(%x)
// CHECK-NEXT: %c1 = aten.clone.default(%x)
// CHECK-NEXT: %c2 = aten.clone.default(%x)
// CHECK-NEXT: %w = aten.add_.Tensor(%c2, 1.0)
// CHECK-NEXT: %r1 = exir.call_function "aten.rand_like.default"(%x)
// CHECK-NEXT: %r2 = exir.call_function "aten.rand_like.default"(%x)
// CHECK-NEXT: %wx = aten.mul_.Tensor(%x, 2.0)
// CHECK-NEXT: %d = aten.relu.default(%x)
// CHECK-NEXT: %s = aten.add.Tensor(%a, %a)

// META:       %a = aten.relu.default(%x)
// META-NEXT:  %b = aten.relu.default(%x)

// -----

builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
    exir.graph @forward(%x: !exir.tensor<[4], float32>) -> (!exir.tensor<[4], float32>) {
      %n = aten.neg.default(%x) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      %wl = exir.while_loop(%x) : (!exir.tensor<[4], float32>) -> (!exir.tensor<[4], float32>) cond {
      ^bb0(%c: !exir.tensor<[4], float32>):
        %m = aten.neg.default(%x) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
        %k = aten.sum.default(%m) : (!exir.tensor<[4], float32>) -> !exir.tensor<[], float32>
        %q = aten.gt.Scalar(%k, 0.0) : (!exir.tensor<[], float32>) -> !exir.tensor<[], bool>
        exir.output %q : !exir.tensor<[], bool>
      } body {
      ^bb1(%d: !exir.tensor<[4], float32>):
        exir.output %d : !exir.tensor<[4], float32>
      }
      %again = aten.neg.default(%x) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      %r = aten.add.Tensor(%n, %again) : (!exir.tensor<[4], float32>, !exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      exir.output %r : !exir.tensor<[4], float32>
    }
  }
}

// CHECK:      %n = aten.neg.default(%x)
// CHECK:      %k = aten.sum.default(%n)
// CHECK:      %r = aten.add.Tensor(%n, %n)
