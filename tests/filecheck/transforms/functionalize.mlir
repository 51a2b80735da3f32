// functionalize: in-place and out= ops become functional; writes through views
// are scattered back into their base; mutated buffers and user inputs become
// signature outputs placed before the user outputs.
// RUN: exir-opt %s -p functionalize,exir-dce --split-input-file | filecheck %s

builtin.module {
  exir.program inputs [<buffer "b_n" -> "n">, <user_input "x">] outputs [<user_output "out">] {
    exir.state @n : !exir.tensor<[4], float32> = dense<0.0> : tensor<4xf32>
    exir.graph @forward(%b_n: !exir.tensor<[4], float32>, %x: !exir.tensor<[2, 4], float32>) -> (!exir.tensor<[2, 4], float32>) {
      %add_ = aten.add_.Tensor(%b_n, 1.0) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      %row = aten.select.int(%x, 0, 1) : (!exir.tensor<[2, 4], float32>) -> !exir.tensor<[4], float32>
      %mul_ = aten.mul_.Tensor(%row, %b_n) : (!exir.tensor<[4], float32>, !exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      %out = aten.relu.default(%x) : (!exir.tensor<[2, 4], float32>) -> !exir.tensor<[2, 4], float32>
      exir.output %out : !exir.tensor<[2, 4], float32>
    }
  }
}

// CHECK:      exir.program inputs [<buffer "b_n" -> "n">, <user_input "x">] outputs [<buffer_mutation "add" -> "n">, <user_input_mutation "mutated_x" -> "x">, <user_output "out">]
// CHECK:        %add = aten.add.Tensor(%b_n, 1.0)
// CHECK-NEXT:   %row = aten.select.int(%x, 0, 1)
// CHECK-NEXT:   %mul = aten.mul.Tensor(%row, %add)
// CHECK-NEXT:   %mutated_x = aten.select_scatter.default(%x, %mul, 0, 1)
// CHECK-NEXT:   %out = aten.relu.default(%mutated_x)
// CHECK-NEXT:   exir.output %add, %mutated_x, %out
// CHECK-NOT:  aten.{{.*}}_.

// -----

// out= variants: the out argument is dropped and later uses read the result.
builtin.module {
  exir.program inputs [<user_input "x">, <user_input "buf">] outputs [<user_output "r">] {
    exir.graph @forward(%x: !exir.tensor<[4], float32>, %buf: !exir.tensor<[4], float32>) -> (!exir.tensor<[4], float32>) {
      %o = aten.add.out(%x, %x, out = %buf) : (!exir.tensor<[4], float32>, !exir.tensor<[4], float32>, !exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      %r = aten.neg.default(%buf) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      exir.output %r : !exir.tensor<[4], float32>
    }
  }
}

// CHECK:      outputs [<user_input_mutation "o" -> "buf">, <user_output "r">]
// CHECK:        %o = aten.add.Tensor(%x, %x)
// CHECK-NEXT:   %r = aten.neg.default(%o)
// CHECK-NEXT:   exir.output %o, %r
