// fold-conv-bn on the zoo's Conv-BN model: both batch norms disappear, each
// convolution reads new folded weight and bias state (conv2 had no bias and
// gains one), and the batch norm parameters and running statistics leave the
// signature and the program.
// RUN: exir-opt %S/../../zoo/cnn_bn.core.pt2 -p 'fold-conv-bn,verify-export-ir' | filecheck %s
// RUN: exir-opt %S/../../zoo/cnn_bn.train.pt2 -p 'fold-conv-bn,verify-export-ir' | filecheck %s --check-prefix=TRAIN

// CHECK:     exir.program inputs [<parameter "p_fc_weight" -> "fc.weight">, <parameter "p_fc_bias" -> "fc.bias">, <parameter "p_conv1_folded_weight" -> "conv1.folded_weight">, <parameter "p_conv1_folded_bias" -> "conv1.folded_bias">, <parameter "p_conv2_folded_weight" -> "conv2.folded_weight">, <parameter "p_conv2_folded_bias" -> "conv2.folded_bias">, <buffer
// CHECK-NOT: exir.state @bn1.weight
// CHECK-NOT: exir.state @bn1.running_mean
// CHECK-NOT: exir.state @conv1.weight
// CHECK:     exir.state @conv1.folded_weight : !exir.tensor<[8, 3, 3, 3], float32>
// CHECK:     exir.state @conv2.folded_bias : !exir.tensor<[12], float32>
// CHECK:     %convolution = aten.convolution.default(%x, %p_conv1_folded_weight, %p_conv1_folded_bias, [1, 1], [1, 1], [1, 1], false, [0, 0], 1)
// CHECK-NEXT: %relu = aten.relu.default(%convolution)
// CHECK:     %convolution_1 = aten.convolution.default(%getitem, %p_conv2_folded_weight, %p_conv2_folded_bias,
// CHECK-NEXT: %relu_1 = aten.relu.default(%convolution_1)
// CHECK-NOT: batch_norm

// TRAIN:     %conv2d = aten.conv2d.default(%x, %p_conv1_folded_weight, %p_conv1_folded_bias, [1, 1], [1, 1])
// TRAIN-NEXT: aten.relu.default(%conv2d)
// TRAIN:     %conv2d_1 = aten.conv2d.default(%max_pool2d, %p_conv2_folded_weight, %p_conv2_folded_bias)
// TRAIN-NOT: batch_norm
