// --emit fx and --emit python after fusion: an exir.fusion_group is the
// call_module of a `fused_<k>` submodule, as torch's partitioner
// (fuse_by_partitions) records a fused partition. One result is returned
// bare; several are a tuple read by getitems. Groups inside a cond branch
// are submodules of the branch (`true_graph_0.fused_0`).
// RUN: exir-opt %S/../../torchscript/dumps/lstm_cell.txt -p 'torchscript-to-exir{input-types="x=f32[3,10];hx=f32[3,20];cx=f32[3,20];w_ih=f32[80,10];w_hh=f32[80,20];b_ih=f32[80];b_hh=f32[80]"},fuse-pointwise' --emit fx | filecheck %s
// RUN: exir-opt %S/../../torchscript/dumps/lstm_cell.txt -p 'torchscript-to-exir{input-types="x=f32[3,10];hx=f32[3,20];cx=f32[3,20];w_ih=f32[80,10];w_hh=f32[80,20];b_ih=f32[80];b_hh=f32[80]"},fuse-pointwise' --emit python | filecheck %s --check-prefix=PY
// RUN: exir-opt %S/../../zoo/cond.core.pt2 -p optimize-inference --emit fx | filecheck %s --check-prefix=COND

// CHECK:      %mm_1 : [num_users=1] = call_function[target=torch.ops.aten.mm.default](args = (%hx, %t_1), kwargs = {})
// CHECK-NEXT: %fused_0 : [num_users=1] = call_module[target=fused_0](args = (%mm, %mm_1, %b_ih, %b_hh), kwargs = {})
// CHECK-NEXT: %chunk : [num_users=4] = call_function[target=torch.ops.aten.chunk.default](args = (%fused_0, 4, 1), kwargs = {})
// CHECK:      %fused_1 : [num_users=2] = call_module[target=fused_1](args = (%getitem, %getitem_1, %getitem_2, %getitem_3, %cx), kwargs = {})
// CHECK-NEXT: %cy : [num_users=1] = call_function[target=operator.getitem](args = (%fused_1, 0), kwargs = {})
// CHECK-NEXT: %hy : [num_users=1] = call_function[target=operator.getitem](args = (%fused_1, 1), kwargs = {})
// CHECK-NEXT: return (hy, cy)
// CHECK-EMPTY:
// CHECK-NEXT: # subgraph fused_0
// CHECK-NEXT: graph():
// CHECK-NEXT:     %mm : [num_users=1] = placeholder[target=mm]
// CHECK-NEXT:     %mm_1 : [num_users=1] = placeholder[target=mm_1]
// CHECK-NEXT:     %b_ih : [num_users=1] = placeholder[target=b_ih]
// CHECK-NEXT:     %b_hh : [num_users=1] = placeholder[target=b_hh]
// CHECK-NEXT:     %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%mm, %mm_1), kwargs = {})
// CHECK-NEXT:     %add_1 : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%add, %b_ih), kwargs = {})
// CHECK-NEXT:     %gates : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%add_1, %b_hh), kwargs = {})
// CHECK-NEXT:     return gates
// CHECK-EMPTY:
// CHECK-NEXT: # subgraph fused_1
// CHECK-NEXT: graph():
// CHECK-NEXT:     %getitem : [num_users=1] = placeholder[target=getitem]
// CHECK:          %hy : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%outgate, %tanh), kwargs = {})
// CHECK-NEXT:     return (cy, hy)

// PY:      def fused_0_forward(mm, mm_1, b_ih, b_hh):
// PY:          return gates
// PY:      fused_0 = fused_0_forward(mm, mm_1, b_ih, b_hh)  # call_module fused_0: float32[3, 80]
// PY:      def fused_1_forward(getitem, getitem_1, getitem_2, getitem_3, cx):
// PY:          return (cy, hy)
// PY:      fused_1 = fused_1_forward(getitem, getitem_1, getitem_2, getitem_3, cx)  # call_module fused_1
// PY-NEXT: cy = fused_1[0]  # float32[3, 20]
// PY-NEXT: hy = fused_1[1]  # float32[3, 20]
// PY-NEXT: _check_output(0, 'hy', hy, np.float32, (3, 20))
// PY-NEXT: _check_output(1, 'cy', cy, np.float32, (3, 20))
// PY-NEXT: return (hy, cy)

// COND:      %cond : [num_users=1] = call_function[target=torch.ops.higher_order.cond](args = (%gt, %true_graph_0, %false_graph_0, (%x, %p_pos_bias, %p_pos_weight, %p_neg_bias, %p_neg_weight)), kwargs = {})
// COND:      # subgraph true_graph_0
// COND:      %fused_0 : [num_users=1] = call_module[target=fused_0](args = (%addmm,), kwargs = {})
// COND-NEXT: return (fused_0,)
// COND-EMPTY:
// COND-NEXT: # subgraph true_graph_0.fused_0
// COND-NEXT: graph():
// COND-NEXT:     %addmm : [num_users=1] = placeholder[target=addmm]
// COND-NEXT:     %tanh : [num_users=1] = call_function[target=torch.ops.aten.tanh.default](args = (%addmm,), kwargs = {})
// COND-NEXT:     %mul : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%tanh, 2.0), kwargs = {})
// COND-NEXT:     return mul
// COND:      # subgraph false_graph_0.fused_0
// COND:          return sub
