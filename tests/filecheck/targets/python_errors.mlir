// --emit python refuses what it cannot compute with one located paragraph.
// RUN: not exir-opt %s --emit python 2>&1 | filecheck %s
// RUN: exir-opt %s --emit fx | filecheck %s --check-prefix=FX

exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
  exir.graph @forward(%x: !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32> {
    %r = exir.call_function "mylib.frobnicate.default"(%x, scale = 2.5) : (!exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>
    exir.output %r : !exir.tensor<[2], float32>
  }
}

// CHECK:     exir-opt: error: {{.*}}python_errors.mlir:7:5: 'exir.call_function' (%r) in @forward: no numpy kernel for 'mylib.frobnicate.default' to generate Python with
// CHECK-NOT: Traceback

// The FX text prints any target.
// FX: %r : [num_users=1] = call_function[target=torch.ops.mylib.frobnicate.default](args = (%x,), kwargs = {scale: 2.5})
