// An enum argument outside the values torch accepts is refused by the op
// verifier, located, so exir-opt, verify-export-ir, exir-run and the lowering
// all refuse it (they computed with the default before).
// RUN: not exir-opt %s --split-input-file 2>&1 | filecheck %s
// RUN: not exir-run %s --random-inputs 0 2>&1 | filecheck %s --check-prefix=EXEC

exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
  exir.graph @forward(%x: !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32> {
    %r = aten.div.Tensor_mode(%x, %x, rounding_mode = "bogus") : (!exir.tensor<[2], float32>, !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>
    exir.output %r : !exir.tensor<[2], float32>
  }
}
// CHECK: enum_values.mlir:9:5: 'aten.div.Tensor_mode' (%r) in @forward: argument 'rounding_mode' of aten.div.Tensor_mode: rounding_mode='bogus' is not one of None, 'trunc', 'floor', as torch requires
// EXEC: exir-run: error: {{.*}}enum_values.mlir:9:5: {{.*}}rounding_mode='bogus' is not one of None, 'trunc', 'floor'

// -----

exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
  exir.graph @forward(%x: !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32> {
    %r = aten.gelu.default(%x, approximate = "bogus") : (!exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>
    exir.output %r : !exir.tensor<[2], float32>
  }
}
// CHECK: enum_values.mlir:{{[0-9]+}}:5: 'aten.gelu.default' (%r) in @forward: argument 'approximate' of aten.gelu.default: approximate='bogus' is not one of 'none', 'tanh', as torch requires

// -----

exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
  exir.graph @forward(%x: !exir.tensor<[2], float32>) -> !exir.tensor<[], float32> {
    %r = aten.mse_loss.default(%x, %x, 3) : (!exir.tensor<[2], float32>, !exir.tensor<[2], float32>) -> !exir.tensor<[], float32>
    exir.output %r : !exir.tensor<[], float32>
  }
}
// CHECK: 'aten.mse_loss.default' (%r) in @forward: argument 'reduction' of aten.mse_loss.default: reduction=3 is not one of 0, 1, 2, as torch requires
