// Weights print as MLIR's dense_resource<key>, their bytes (after a 4-byte
// little-endian alignment word) in the trailing dialect_resources section; the
// older inline #exir.blob<"0x..."> form still reads. Pytree specs print as the
// structure they describe and read back unchanged.
// RUN: exir-opt %s | filecheck %s
// RUN: exir-opt %s | exir-opt | filecheck %s
// RUN: exir-opt %s -o %t.mlir && exir-opt %t.mlir -o %t.again.mlir && diff %t.mlir %t.again.mlir
// RUN: exir-run %s -o %t.npz && python -c "import numpy as np; print(np.load('%t.npz')['out0'].tolist())" | filecheck %s --check-prefix=VALUES
// RUN: sed 's/"0x1000000000004040/"0x0300000000004040/' %s | not exir-opt 2>&1 | filecheck %s --check-prefix=BAD

exir.program inputs [<parameter "p_w" -> "w">, <constant_tensor "c_k" -> "k">] outputs [<user_output "out">] in_spec ((), {}) out_spec {"out": *, 3: [*, "builtins.str"<"\22ctx\22">()]} {
  exir.state @w : !exir.tensor<[2], float32> = dense_resource<w>
  exir.state @k : !exir.tensor<[2], float32> = #exir.blob<"0x0000803F00000040">
  exir.graph @forward(%p_w: !exir.tensor<[2], float32>, %c_k: !exir.tensor<[2], float32>) -> (!exir.tensor<[2], float32>) {
    %out = aten.add.Tensor(%p_w, %c_k) : (!exir.tensor<[2], float32>, !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>
    exir.output %out : !exir.tensor<[2], float32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x1000000000004040000080C0"
    }
  }
#-}

// CHECK:      exir.program inputs [<parameter "p_w" -> "w">, <constant_tensor "c_k" -> "k">] outputs [<user_output "out">] in_spec ((), {}) out_spec {"out": *, 3: [*, "builtins.str"<"\22ctx\22">()]} {
// CHECK-NEXT:   exir.state @w : !exir.tensor<[2], float32> = dense_resource<w>
// CHECK-NEXT:   exir.state @k : !exir.tensor<[2], float32> = dense_resource<k>
// CHECK:      {-#
// CHECK-NEXT:   dialect_resources: {
// CHECK-NEXT:     builtin: {
// CHECK-NEXT:       k: "0x100000000000803F00000040",
// CHECK-NEXT:       w: "0x1000000000004040000080C0"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: #-}

// [3, -4] + [1, 2]
// VALUES: [4.0, -2.0]

// BAD: exir-opt: error: {{.*}}:23:10: resource 'w': blob alignment 3 is not a power of two
