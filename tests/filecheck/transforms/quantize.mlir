// quantize (torch.fx: Practical Program Capture and Transformation, §9): an observed linear becomes int8 activation x int8
// per-channel weight -> int32 matmul -> float32 scale per channel + bias; the
// observer (here calibrated to [-1, 3]) and the float weight are removed.
// RUN: exir-opt %s -p quantize | filecheck %s
// RUN: not exir-opt %S/../../zoo/mlp.train.pt2 -p insert-observers,quantize 2>&1 | filecheck %s --check-prefix=UNCAL

// CHECK:      exir.program inputs [<parameter "p_fc_bias" -> "fc.bias">, <constant_tensor "c_fc_weight_qweight" -> "fc_weight_qweight">, <constant_tensor "c_fc_weight_qscale" -> "fc_weight_qscale">, <user_input "x">] outputs [<user_output "linear">]
// CHECK-NOT:  observer
// CHECK:      exir.state @fc_weight_qweight : !exir.tensor<[2, 2], int8> = dense_resource<fc_weight_qweight>
// CHECK:      %0 = aten.div.Scalar(%x, 0.01568627450980392)
// CHECK-NEXT: %1 = aten.round.default(%0)
// CHECK-NEXT: %2 = aten.add.Scalar(%1, -64)
// CHECK-NEXT: %3 = aten.clamp.default(%2, -128, 127)
// CHECK-NEXT: %4 = aten._to_copy.default(%3, dtype = torch.int8) {{.*}} -> !exir.tensor<[3, 2], int8>
// CHECK-NEXT: %5 = aten._to_copy.default(%4, dtype = torch.int32)
// CHECK-NEXT: %6 = aten.sub.Scalar(%5, -64)
// CHECK-NEXT: %7 = aten._to_copy.default(%c_fc_weight_qweight, dtype = torch.int32)
// CHECK-NEXT: %8 = aten.matmul.default(%6, %7) {{.*}} -> !exir.tensor<[3, 2], int32>
// CHECK-NEXT: %9 = aten._to_copy.default(%8, dtype = torch.float32)
// CHECK-NEXT: %10 = aten.mul.Tensor(%9, %c_fc_weight_qscale)
// CHECK-NEXT: %linear = aten.add.Tensor(%10, %p_fc_bias)
// CHECK-NEXT: exir.output %linear
// CHECK:      fc_weight_qweight: "0x100000007F20C07F"

// UNCAL: 'aten.linear.default' (%linear) in @forward: quantize: observer @observer_0 has no range (it saw no data); calibrate

builtin.module {
  exir.program inputs [<parameter "p_fc_weight" -> "fc.weight">, <parameter "p_fc_bias" -> "fc.bias">, <buffer "b_observer_0" -> "observer_0">, <user_input "x">] outputs [<buffer_mutation "observer_0" -> "observer_0">, <user_output "linear">] {
    exir.state @fc.weight : !exir.tensor<[2, 2], float32> = #exir.blob<"0x0000803F000000BF0000003F00000040">
    exir.state @fc.bias : !exir.tensor<[2], float32> = #exir.blob<"0x0000803F00000000">
    exir.state @observer_0 : !exir.tensor<[2], float32> = #exir.blob<"0x000080BF00004040">
    exir.graph @forward(%p_fc_weight: !exir.tensor<[2, 2], float32>, %p_fc_bias: !exir.tensor<[2], float32>, %b_observer: !exir.tensor<[2], float32>, %x: !exir.tensor<[3, 2], float32>) -> (!exir.tensor<[2], float32>, !exir.tensor<[3, 2], float32>) {
      %0 = aten.amin.default(%x) {observer = "observer_0"} : (!exir.tensor<[3, 2], float32>) -> !exir.tensor<[], float32>
      %1 = aten.amax.default(%x) {observer = "observer_0"} : (!exir.tensor<[3, 2], float32>) -> !exir.tensor<[], float32>
      %2 = aten.select.int(%b_observer, 0, 0) {observer = "observer_0"} : (!exir.tensor<[2], float32>) -> !exir.tensor<[], float32>
      %3 = aten.select.int(%b_observer, 0, 1) {observer = "observer_0"} : (!exir.tensor<[2], float32>) -> !exir.tensor<[], float32>
      %4 = aten.minimum.default(%2, %0) {observer = "observer_0"} : (!exir.tensor<[], float32>, !exir.tensor<[], float32>) -> !exir.tensor<[], float32>
      %5 = aten.maximum.default(%3, %1) {observer = "observer_0"} : (!exir.tensor<[], float32>, !exir.tensor<[], float32>) -> !exir.tensor<[], float32>
      %observer = aten.stack.default([%4, %5]) {observer = "observer_0"} : (!exir.tensor<[], float32>, !exir.tensor<[], float32>) -> !exir.tensor<[2], float32>
      %linear = aten.linear.default(%x, %p_fc_weight, %p_fc_bias) {observes = "observer_0"} : (!exir.tensor<[3, 2], float32>, !exir.tensor<[2, 2], float32>, !exir.tensor<[2], float32>) -> !exir.tensor<[3, 2], float32>
      exir.output %observer, %linear : !exir.tensor<[2], float32>, !exir.tensor<[3, 2], float32>
    }
  }
}

