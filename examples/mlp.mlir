// A two-layer MLP exported with a dynamic batch (torch.export.Dim("batch",
// min=1, max=1024)): Linear(8, 16) -> ReLU -> Linear(16, 4), flattened output.
// The graph still carries a duplicated sym_size and a dead node, which the
// demo pipeline (cse, dce) removes.
exir.program inputs [<parameter "p_fc1_weight" -> "fc1.weight">, <parameter "p_fc1_bias" -> "fc1.bias">, <parameter "p_fc2_weight" -> "fc2.weight">, <parameter "p_fc2_bias" -> "fc2.bias">, <user_input "x">] outputs [<user_output "view">] ranges [<s0 in [1, 1024]>] {
  exir.state @fc1.weight : !exir.tensor<[16, 8], float32>
  exir.state @fc1.bias : !exir.tensor<[16], float32>
  exir.state @fc2.weight : !exir.tensor<[4, 16], float32>
  exir.state @fc2.bias : !exir.tensor<[4], float32>
  exir.graph @forward(%p_fc1_weight: !exir.tensor<[16, 8], float32>, %p_fc1_bias: !exir.tensor<[16], float32>, %p_fc2_weight: !exir.tensor<[4, 16], float32>, %p_fc2_bias: !exir.tensor<[4], float32>, %x: !exir.tensor<[s0, 8], float32>) -> !exir.tensor<[4*s0], float32> {
    %linear = exir.call_function "aten.linear.default"(%x, %p_fc1_weight, %p_fc1_bias) {nn_module_stack = [["L__self___fc1", "fc1", "torch.nn.modules.linear.Linear"]], source_fn_stack = [["fc1", "torch.nn.modules.linear.Linear"]]} : (!exir.tensor<[s0, 8], float32>, !exir.tensor<[16, 8], float32>, !exir.tensor<[16], float32>) -> !exir.tensor<[s0, 16], float32> loc(callsite("mlp.py":14:0 at "mlp.py":21:0))
    %relu = exir.call_function "aten.relu.default"(%linear) {nn_module_stack = [["L__self___act", "act", "torch.nn.modules.activation.ReLU"]]} : (!exir.tensor<[s0, 16], float32>) -> !exir.tensor<[s0, 16], float32> loc(callsite("mlp.py":15:0 at "mlp.py":21:0))
    %linear_1 = exir.call_function "aten.linear.default"(%relu, %p_fc2_weight, %p_fc2_bias) {nn_module_stack = [["L__self___fc2", "fc2", "torch.nn.modules.linear.Linear"]]} : (!exir.tensor<[s0, 16], float32>, !exir.tensor<[4, 16], float32>, !exir.tensor<[4], float32>) -> !exir.tensor<[s0, 4], float32> loc(callsite("mlp.py":16:0 at "mlp.py":21:0))
    %sym_size = exir.sym_size %x, 0 : !exir.tensor<[s0, 8], float32> -> !exir.sym_int<s0>
    %sym_size_1 = exir.sym_size %x, 0 : !exir.tensor<[s0, 8], float32> -> !exir.sym_int<s0>
    %mul = exir.sym_mul(%sym_size, 4) : (!exir.sym_int<s0>) -> !exir.sym_int<4*s0>
    %mul_1 = exir.sym_mul(%sym_size_1, 4) : (!exir.sym_int<s0>) -> !exir.sym_int<4*s0>
    %debug = exir.call_function "aten.abs.default"(%relu) : (!exir.tensor<[s0, 16], float32>) -> !exir.tensor<[s0, 16], float32>
    %view = exir.call_function "aten.view.default"(%linear_1, [%mul_1]) : (!exir.tensor<[s0, 4], float32>, !exir.sym_int<4*s0>) -> !exir.tensor<[4*s0], float32>
    exir.output %view : !exir.tensor<[4*s0], float32>
  }
}
