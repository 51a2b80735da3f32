// convert-exir-to-linalg refuses what it cannot lower with a located diagnostic
// that says what to do: non-core ops need to-core-aten first, core ops without a
// rule say why (docs/linalg_lowering.md lists them); weights must hold the bytes their
// type says; complex tensors have no upstream element type.
// RUN: exir-opt %s -p convert-exir-to-linalg --split-input-file --verify-diagnostics

builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
    exir.graph @forward(%x: !exir.tensor<[2, 3], float32>) -> !exir.tensor<[2], float32> {
      // expected-error@+1 {{convert-exir-to-linalg: aten.cosine_similarity.default has no lowering to linalg: it is not core ATen; run to-core-aten first (-p to-core-aten,convert-exir-to-linalg)}}
      %r = exir.call_function "aten.cosine_similarity.default"(%x, %x) : (!exir.tensor<[2, 3], float32>, !exir.tensor<[2, 3], float32>) -> !exir.tensor<[2], float32>
      exir.output %r : !exir.tensor<[2], float32>
    }
  }
}

// -----

builtin.module {
  exir.program inputs [] outputs [<user_output "r">] {
    exir.graph @forward() -> !exir.tensor<[4], int64> {
      // expected-error@+1 {{convert-exir-to-linalg: aten.randperm.default has no lowering to linalg: }}
      %r = aten.randperm.default(4) : () -> !exir.tensor<[4], int64>
      exir.output %r : !exir.tensor<[4], int64>
    }
  }
}

// -----

builtin.module {
  exir.program inputs [<parameter "p_w" -> "w">, <user_input "x">] outputs [<user_output "r">] {
    // expected-error@+1 {{state @w: its data is 8 bytes, but a float32 tensor of sizes [4] holds 16 bytes}}
    exir.state @w : !exir.tensor<[4], float32> = #exir.blob<"0x0000803F00000040">
    exir.graph @forward(%p_w: !exir.tensor<[4], float32>, %x: !exir.tensor<[4], float32>) -> !exir.tensor<[4], float32> {
      %r = aten.add.Tensor(%x, %p_w) : (!exir.tensor<[4], float32>, !exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      exir.output %r : !exir.tensor<[4], float32>
    }
  }
}

// -----

builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
    exir.graph @forward(%x: !exir.tensor<[3, 2], float32>) -> !exir.tensor<[3, 2], float32> {
      // expected-error@+1 {{convert-exir-to-linalg: aten.view_as_complex.default's result %z is a complex64 tensor, which has no upstream MLIR element type (complex tensors have no lowering yet: the numpy interpreter runs them)}}
      %z = exir.call_function "aten.view_as_complex.default"(%x) : (!exir.tensor<[3, 2], float32>) -> !exir.tensor<[3], complex64>
      %r = exir.call_function "aten.view_as_real.default"(%z) : (!exir.tensor<[3], complex64>) -> !exir.tensor<[3, 2], float32>
      exir.output %r : !exir.tensor<[3, 2], float32>
    }
  }
}
