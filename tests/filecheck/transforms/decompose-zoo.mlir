// to-core-aten on a zoo archive: conv2d, batch_norm (eval), max_pool2d, flatten
// and linear become torch's core ops; no batch_norm is left.
// RUN: exir-opt %S/../../zoo/cnn_bn.train.pt2 -p to-core-aten --emit fx | filecheck %s
// A bad legal-ops name is a one-line diagnostic, not a traceback.
// RUN: not exir-opt %S/../../zoo/mlp.train.pt2 -p 'decompose{legal-ops="aten.nonsense"}' 2>&1 | filecheck %s --check-prefix=BAD

// CHECK-NOT:  batch_norm.default
// CHECK:      %[[CONV:[a-z0-9_]+]] : {{.*}} = call_function[target=torch.ops.aten.convolution.default](args = (%x, %p_conv1_weight, %p_conv1_bias, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
// CHECK-NEXT: %_native_batch_norm_legit_no_training : {{.*}} = call_function[target=torch.ops.aten._native_batch_norm_legit_no_training.default](args = (%[[CONV]], %p_bn1_weight, %p_bn1_bias, %b_bn1_running_mean, %b_bn1_running_var, 0.1, 1e-05)
// CHECK-NEXT: = call_function[target=operator.getitem](args = (%_native_batch_norm_legit_no_training, 0)
// CHECK:      call_function[target=torch.ops.aten.max_pool2d_with_indices.default]
// CHECK:      call_function[target=torch.ops.aten.view.default](args = (%{{[a-z0-9_]+}}, [2, 108])
// CHECK-NEXT: call_function[target=torch.ops.aten.permute.default](args = (%p_fc_weight, [1, 0])
// CHECK-NEXT: call_function[target=torch.ops.aten.addmm.default]
// CHECK-NOT:  batch_norm.default

// BAD: exir-opt: error: decompose: legal-ops names 'aten.nonsense', which is not an ATen overload
// BAD-NOT: Traceback
