// fuse-pointwise on the JIT Technical Overview's LSTM cell: the three gate adds after the mms form
// one group (prim::FusionGroup_0), the sigmoids, tanhs, muls and the cell add after
// chunk the other (prim::FusionGroup_1); chunk and the mms stay outside.
// RUN: exir-opt %S/../../torchscript/dumps/lstm_cell.txt -p 'torchscript-to-exir{input-types="x=f32[3,10];hx=f32[3,20];cx=f32[3,20];w_ih=f32[80,10];w_hh=f32[80,20];b_ih=f32[80];b_hh=f32[80]"},fuse-pointwise' | filecheck %s
// RUN: exir-opt %S/../../torchscript/dumps/lstm_cell.txt -p 'torchscript-to-exir{input-types="x=f32[3,10];hx=f32[3,20];cx=f32[3,20];w_ih=f32[80,10];w_hh=f32[80,20];b_ih=f32[80];b_hh=f32[80]"},fuse-pointwise{min-size=4}' | filecheck %s --check-prefix=MIN4
// RUN: exir-opt %S/../../zoo/resnet_blocks.core.pt2 -p 'fold-conv-bn,fuse-pointwise' | filecheck %s --check-prefix=RESNET

// CHECK:      %mm_1 = aten.mm.default
// CHECK-NEXT: %gates = exir.fusion_group(%mm, %mm_1, %b_ih, %b_hh)
// CHECK-NEXT: ^{{.*}}(%[[A:.*]]: !exir.tensor<[3, 80], float32>, %[[B:.*]]: !exir.tensor<[3, 80], float32>, %[[BI:.*]]: !exir.tensor<[80], float32>, %[[BH:.*]]: !exir.tensor<[80], float32>):
// CHECK-NEXT:   %add = aten.add.Tensor(%[[A]], %[[B]])
// CHECK-NEXT:   %add_1 = aten.add.Tensor(%add, %[[BI]])
// CHECK-NEXT:   %[[G:.*]] = aten.add.Tensor(%add_1, %[[BH]])
// CHECK-NEXT:   exir.output %[[G]]
// CHECK-NEXT: }
// CHECK-NEXT: %chunk = aten.chunk.default(%gates, 4, 1)
// CHECK:      %cy, %hy = exir.fusion_group(%0, %1, %2, %3, %cx)
// CHECK-NEXT: ^
// CHECK-NEXT:   aten.sigmoid.default
// CHECK-NEXT:   aten.sigmoid.default
// CHECK-NEXT:   aten.tanh.default
// CHECK-NEXT:   aten.sigmoid.default
// CHECK-NEXT:   aten.mul.Tensor
// CHECK-NEXT:   aten.mul.Tensor
// CHECK-NEXT:   %[[CY:.*]] = aten.add.Tensor
// CHECK-NEXT:   aten.tanh.default
// CHECK-NEXT:   %[[HY:.*]] = aten.mul.Tensor
// CHECK-NEXT:   exir.output %[[CY]], %[[HY]]
// CHECK-NEXT: }
// CHECK-NEXT: exir.output %hy, %cy

// Groups smaller than min-size are left alone.
// MIN4-NOT:  exir.fusion_group(%mm
// MIN4:      %cy, %hy = exir.fusion_group

// ResNet blocks: each residual add and the relu after it become one group.
// RESNET:      exir.fusion_group(%convolution_2, %relu)
// RESNET-NEXT: ^
// RESNET-NEXT:   aten.add.Tensor
// RESNET-NEXT:   aten.relu.default
// RESNET-NEXT:   exir.output
