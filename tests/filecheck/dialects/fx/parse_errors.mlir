// Syntax errors of the fx dialect: one located diagnostic, exit code 1.
// RUN: not exir-opt %s 2>&1 | filecheck %s

exir.graph @g(%x: !exir.tensor<[2], float32>) -> () {
  %y = fx.call_module "fc"(%x) module torch.nn.modules.linear.Linear(stride = %x) : (!exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>
  exir.output
}
// CHECK: parse_errors.mlir:5:{{[0-9]+}}: a module's configuration holds constants, not values
