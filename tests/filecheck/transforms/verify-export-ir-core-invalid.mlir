// verify-export-ir{dialect=core} names the first non-core op with its place and
// counts the others: here what nn.MultiheadAttention leaves without decompositions.
// RUN: not exir-opt %s -p 'verify-export-ir{dialect=core}' 2>&1 | filecheck %s

exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
  exir.graph @forward(%x: !exir.tensor<[2, 6, 1], float32>) -> !exir.tensor<[2, 3, 2], float32> {
    %x2 = exir.call_function "aten.squeeze.dim"(%x, 2) : (!exir.tensor<[2, 6, 1], float32>) -> !exir.tensor<[2, 6], float32>
    %u = aten.unflatten.int(%x2, -1, [3, 2]) : (!exir.tensor<[2, 6], float32>) -> !exir.tensor<[2, 3, 2], float32>
    %r = aten.unflatten.int(%x2, 1, [3, -1]) : (!exir.tensor<[2, 6], float32>) -> !exir.tensor<[2, 3, 2], float32>
    exir.output %r : !exir.tensor<[2, 3, 2], float32>
  }
}
// CHECK: verify-export-ir-core-invalid.mlir:7:5: 'exir.call_function' (%x2) in @forward: [core-aten] 'aten.squeeze.dim' is not a core ATen operator (a core-tagged overload torch decomposes further); 3 non-core ops in all: aten.squeeze.dim (1), aten.unflatten.int (2); run to-core-aten, or give its decomposition
