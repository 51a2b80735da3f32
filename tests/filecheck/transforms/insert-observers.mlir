// insert-observers (torch.fx: Practical Program Capture and Transformation, §9): each quantizable op's float activation gets
// a [min, max] buffer updated by aten ops and returned as a buffer mutation.
// RUN: exir-opt %s -p insert-observers | filecheck %s
// RUN: exir-opt %S/../../zoo/cnn_bn.train.pt2 -p insert-observers | filecheck %s --check-prefix=CNN
// RUN: not exir-opt %s -p 'insert-observers{ops=linear,softmax}' 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not exir-opt %s -p insert-observers,insert-observers 2>&1 | filecheck %s --check-prefix=TWICE

// CHECK:      exir.program inputs [<parameter "p_fc_weight" -> "fc.weight">, <parameter "p_fc_bias" -> "fc.bias">, <buffer "b_observer_0" -> "observer_0">, <user_input "x">] outputs [<buffer_mutation "observer_0" -> "observer_0">, <user_output "linear">]
// CHECK:      exir.state @observer_0 : !exir.tensor<[2], float32> = dense_resource<observer_0>
// CHECK:      %[[MIN:.*]] = aten.amin.default(%x) {observer = "observer_0"}
// CHECK-NEXT: %[[MAX:.*]] = aten.amax.default(%x) {observer = "observer_0"}
// CHECK-NEXT: %[[LO:.*]] = aten.select.int(%b_observer, 0, 0)
// CHECK-NEXT: %[[HI:.*]] = aten.select.int(%b_observer, 0, 1)
// CHECK-NEXT: %[[NLO:.*]] = aten.minimum.default(%[[LO]], %[[MIN]])
// CHECK-NEXT: %[[NHI:.*]] = aten.maximum.default(%[[HI]], %[[MAX]])
// CHECK-NEXT: %observer = aten.stack.default([%[[NLO]], %[[NHI]]])
// CHECK-NEXT: %linear = aten.linear.default(%x, %p_fc_weight, %p_fc_bias) {observes = "observer_0"}
// CHECK-NEXT: exir.output %observer, %linear
// CHECK:      observer_0: "0x100000000000807F000080FF"

// CNN-COUNT-3: exir.state @observer_{{[0-9]}} : !exir.tensor<[2], float32>
// CNN-NOT:     exir.state @observer_3
// CNN:         aten.conv2d.default{{.*}}observes = "observer_0"

// BAD: insert-observers: unknown op(s) softmax in `ops`
// TWICE: insert-observers: the program already has observers

builtin.module {
  exir.program inputs [<parameter "p_fc_weight" -> "fc.weight">, <parameter "p_fc_bias" -> "fc.bias">, <user_input "x">] outputs [<user_output "linear">] {
    exir.state @fc.weight : !exir.tensor<[2, 2], float32> = #exir.blob<"0x0000803F000000BF0000003F00000040">
    exir.state @fc.bias : !exir.tensor<[2], float32> = #exir.blob<"0x0000803F00000000">
    exir.graph @forward(%p_fc_weight: !exir.tensor<[2, 2], float32>, %p_fc_bias: !exir.tensor<[2], float32>, %x: !exir.tensor<[3, 2], float32>) -> (!exir.tensor<[3, 2], float32>) {
      %linear = aten.linear.default(%x, %p_fc_weight, %p_fc_bias) : (!exir.tensor<[3, 2], float32>, !exir.tensor<[2, 2], float32>, !exir.tensor<[2], float32>) -> !exir.tensor<[3, 2], float32>
      exir.output %linear : !exir.tensor<[3, 2], float32>
    }
  }
}
