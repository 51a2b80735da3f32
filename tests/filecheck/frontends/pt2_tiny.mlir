// The .pt2 frontend on a small model saved by torch.export.save (the archives
// in inputs/ are written by inputs/make_pt2_inputs.py): a linear layer, a
// buffer updated in place, a dynamic batch dimension with a range.
// RUN: exir-opt %S/inputs/tiny_training.pt2 | filecheck %s --check-prefix=TRAIN
// RUN: exir-opt %S/inputs/tiny_core.pt2 | filecheck %s --check-prefix=CORE
// RUN: exir-opt %S/inputs/tiny_core.pt2 -p verify-export-ir | exir-opt | filecheck %s --check-prefix=CORE
// RUN: exir-opt %S/inputs/tiny_core.pt2 --print-debuginfo | filecheck %s --check-prefix=LOC
// RUN: exir-opt %S/inputs/tiny_core.pt2 -o %t.mlir && exir-opt %t.mlir -o %t.again.mlir && diff %t.mlir %t.again.mlir
// RUN: exir-opt --from pt2 < %S/inputs/tiny_core.pt2 | filecheck %s --check-prefix=CORE
// RUN: exir-opt %S/inputs/tiny_core.pt2 --mlir-elide-resource-strings-if-larger=30 -o %t.elided.mlir && filecheck %s --check-prefix=ELIDED < %t.elided.mlir
// RUN: not exir-run %t.elided.mlir 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not exir-opt %t.elided.mlir --emit python 2>&1 | filecheck %s --check-prefix=MISSING-OPT
// RUN: not exir-opt %t.elided.mlir -p constant-propagation 2>&1 | filecheck %s --check-prefix=MISSING-OPT
// RUN: not exir-opt %S/inputs/zip_slip.pt2 2>&1 | filecheck %s --check-prefix=SLIP
// RUN: rm -f %t.out && not exir-opt %S/inputs/pickled_weights.pt2 -o %t.out 2>&1 | filecheck %s --check-prefix=PICKLE
// RUN: not test -e %t.out

// The training IR keeps the in-place update of the buffer, and no mutation output.
// TRAIN:      exir.program inputs [<parameter "p_fc_weight" -> "fc.weight">, <parameter "p_fc_bias" -> "fc.bias">, <buffer "b_steps" -> "steps">, <user_input "x">] outputs [<user_output "relu">, <user_output "mul">] ranges [<[[S:s[0-9]+]] in [2, 16]>] in_spec ((*), {}) out_spec (*, *) {
// TRAIN-NEXT:   exir.state @fc.weight : !exir.tensor<[2, 3], float32> = dense_resource<fc.weight>
// TRAIN-NEXT:   exir.state @fc.bias : !exir.tensor<[2], float32> = dense_resource<fc.bias>
// TRAIN-NEXT:   exir.state @steps : !exir.tensor<[], int64> = dense_resource<steps>
// TRAIN-NEXT:   exir.graph @forward(%p_fc_weight: !exir.tensor<[2, 3], float32>, %p_fc_bias: !exir.tensor<[2], float32>, %b_steps: !exir.tensor<[], int64>, %x: !exir.tensor<[[[S]], 3], float32>) -> (!exir.tensor<[[[S]], 2], float32>, !exir.tensor<[[[S]], 1], float32>) {
// TRAIN-NEXT:     %[[N:.*]] = exir.sym_size %x, 0 {{{.*}}} : !exir.tensor<[[[S]], 3], float32> -> !exir.sym_int<[[S]]>
// TRAIN-NEXT:     %add_ = aten.add_.Tensor(%b_steps, 1) {nn_module_stack = [["L__self__", "", "__main__.Tiny"]], torch_fn = ["add__1", "method_descriptor.add_"]} : (!exir.tensor<[], int64>) -> !exir.tensor<[], int64>
// TRAIN-NEXT:     %linear = aten.linear.default(%x, %p_fc_weight, %p_fc_bias) {nn_module_stack = [["L__self__", "", "__main__.Tiny"], ["L__self__fc", "fc", "torch.nn.modules.linear.Linear"]], {{.*}}} : (!exir.tensor<[[[S]], 3], float32>, !exir.tensor<[2, 3], float32>, !exir.tensor<[2], float32>) -> !exir.tensor<[[[S]], 2], float32>
// TRAIN-NEXT:     %relu = aten.relu.default(%linear) {{.*}} -> !exir.tensor<[[[S]], 2], float32>
// TRAIN-NEXT:     %sum = aten.sum.dim_IntList(%relu, [1], true) {{.*}} -> !exir.tensor<[[[S]], 1], float32>
// TRAIN-NEXT:     %mul = aten.mul.Tensor(%sum, %[[N]]) {{.*}} : (!exir.tensor<[[[S]], 1], float32>, !exir.sym_int<[[S]]>) -> !exir.tensor<[[[S]], 1], float32>
// TRAIN-NEXT:     exir.output %relu, %mul : !exir.tensor<[[[S]], 2], float32>, !exir.tensor<[[[S]], 1], float32>
// TRAIN-NEXT:   }
// TRAIN-NEXT: }
// TRAIN:      fc.bias: "0x100000000000003F0000003F"
// TRAIN:      fc.weight: "0x10000000000000000000803E0000003F0000403F0000803F0000A03F"
// TRAIN:      steps: "0x100000000000000000000000"

// Core ATen: functional, the new buffer value is the first output.
// CORE:      exir.program inputs [<parameter "p_fc_weight" -> "fc.weight">, <parameter "p_fc_bias" -> "fc.bias">, <buffer "b_steps" -> "steps">, <user_input "x">] outputs [<buffer_mutation "add" -> "steps">, <user_output "relu">, <user_output "mul{{.*}}">] ranges [<[[S:s[0-9]+]] in [2, 16]>]
// CORE:        %add = aten.add.Tensor(%b_steps, 1)
// CORE-NEXT:   %permute = aten.permute.default(%p_fc_weight, [1, 0]) {{.*}} : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[3, 2], float32, dim_order = [1, 0]>
// CORE-NEXT:   %addmm = aten.addmm.default(%p_fc_bias, %x, %permute)
// CORE:        exir.output %add, %relu, %{{.*}} : !exir.tensor<[], int64>, !exir.tensor<[[[S]], 2], float32>, !exir.tensor<[[[S]], 1], float32>

// The stack trace is the location: innermost frame first, as in MLIR.
// LOC: %addmm = aten.addmm.default{{.*}} loc(callsite("linear.py":{{[0-9]+}}:0 at "make_pt2_inputs.py":{{[0-9]+}}:0))

// SLIP: exir-opt: error: {{.*}}zip_slip.pt2: zip entry 'archive/../../outside.txt' has a '..' component; refusing the archive
// SLIP-NOT: Traceback
// PICKLE: exir-opt: error: {{.*}}pickled_weights.pt2: data/weights/model_weights_config.json: 'fc.weight' is stored pickled (use_pickle: true); pickled data is never loaded
// PICKLE-NOT: Traceback

// Weights larger than the limit are left out for people; the text still reads,
// but running it names the missing weight at its line.
// ELIDED:      exir.state @fc.weight : !exir.tensor<[2, 3], float32> = dense_resource<fc.weight>
// ELIDED:      {-#
// ELIDED-NEXT:   dialect_resources: {
// ELIDED-NEXT:     builtin: {
// ELIDED-NEXT:       fc.bias: "0x100000000000003F0000003F",
// ELIDED-NEXT:       fc.weight: "__elided__",
// ELIDED-NEXT:       steps: "0x100000000000000000000000"
// ELIDED-NEXT:     }
// ELIDED-NEXT:   }
// ELIDED-NEXT: #-}
// MISSING: exir-run: error: {{.*}}.elided.mlir:3:{{[0-9]+}}: 'exir.state': state @fc.weight: the data of resource 'fc.weight' is not in the text: it was elided when printed
// MISSING-NOT: Traceback
// The same for a target or a pass that needs the weights: a located error, not an internal one.
// MISSING-OPT: exir-opt: error: {{.*}}.elided.mlir:3:{{[0-9]+}}: 'exir.state': state @fc.weight: the data of resource 'fc.weight' is not in the text: it was elided when printed
// MISSING-OPT-NOT: internal error
