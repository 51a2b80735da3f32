// replace-activation (torch.fx: Practical Program Capture and Transformation, Figure 2): every spelling of relu becomes gelu,
// at the aten level and at the FX call_function / call_method / call_module level;
// other activations are left alone. A bad option is a one-line error.
// RUN: exir-opt %s -p 'replace-activation{from=relu to=gelu}' | filecheck %s
// RUN: exir-opt %s -p 'replace-activation{from=sigmoid to=tanh}' | filecheck %s --check-prefix=SIG
// RUN: not exir-opt %s -p 'replace-activation{from=relu to=swish}' 2>&1 | filecheck %s --check-prefix=BAD

builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "e">] {
    exir.graph @forward(%x: !exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32> {
      %a = aten.relu.default(%x) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
      %b = exir.call_function "torch.relu"(%a) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
      %c = fx.call_method "relu"(%b) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
      %d = fx.call_module "act"(%c) module torch.nn.modules.activation.ReLU(training = false, inplace = false) state [] : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
      %e = aten.sigmoid.default(%d) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
      exir.output %e : !exir.tensor<[2, 3], float32>
    }
  }
}

// CHECK:      %a = aten.gelu.default(%x) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
// CHECK-NEXT: %b = exir.call_function "torch._C._nn.gelu"(%a)
// CHECK-NEXT: %c = exir.call_function "torch._C._nn.gelu"(%b)
// CHECK-NEXT: %d = fx.call_module "act"(%c) module torch.nn.modules.activation.GELU(training = false, approximate = "none") :
// CHECK-NEXT: %e = aten.sigmoid.default(%d)

// SIG:      %a = aten.relu.default(%x)
// SIG:      %e = aten.tanh.default(%d)

// BAD: replace-activation: to=swish is not a known activation (known: relu, gelu, sigmoid, tanh, silu, hardswish, mish)
