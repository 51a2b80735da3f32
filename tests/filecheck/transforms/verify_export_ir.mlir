// verify-export-ir accepts valid Export IR unchanged, in exir-opt and in the
// stock xdsl-opt (through the xdsl.universe entry point).
// RUN: exir-opt %s -p verify-export-ir | filecheck %s
// RUN: xdsl-opt %s -p verify-export-ir | filecheck %s
// RUN: exir-opt %s -p 'verify-export-ir{allow-namespaces=mylib}' | filecheck %s

exir.program inputs [<parameter "p_w" -> "w">, <buffer "b_n" -> "n">, <user_input "x">] outputs [<buffer_mutation "add" -> "n">, <user_output "mul">] ranges [<s0 in [2, 64]>] {
  exir.state @w : !exir.tensor<[4], float32>
  exir.state @n : !exir.tensor<[], int64>
  exir.graph @forward(%p_w: !exir.tensor<[4], float32>, %b_n: !exir.tensor<[], int64>, %x: !exir.tensor<[s0, 4], float32>) -> (!exir.tensor<[], int64>, !exir.tensor<[s0, 4], float32>) {
    %add = exir.call_function "aten.add.Tensor"(%b_n, 1) : (!exir.tensor<[], int64>) -> !exir.tensor<[], int64>
    %mul = exir.call_function "torch.ops.aten.mul.Tensor"(%x, %p_w) : (!exir.tensor<[s0, 4], float32>, !exir.tensor<[4], float32>) -> !exir.tensor<[s0, 4], float32>
    %gt = exir.call_function "aten.gt.Scalar"(%x, 0.5) : (!exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0, 4], bool>
    %w = exir.call_function "aten.where.self"(%gt, %mul, %x) : (!exir.tensor<[s0, 4], bool>, !exir.tensor<[s0, 4], float32>, !exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0, 4], float32>
    exir.output %add, %mul : !exir.tensor<[], int64>, !exir.tensor<[s0, 4], float32>
  }
}
// CHECK: exir.program inputs [<parameter "p_w" -> "w">, <buffer "b_n" -> "n">, <user_input "x">]
// CHECK: %mul = exir.call_function "torch.ops.aten.mul.Tensor"(%x, %p_w)
// CHECK: %w = exir.call_function "aten.where.self"(%gt, %mul, %x)
