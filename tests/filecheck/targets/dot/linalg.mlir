// --emit dot after convert-exir-to-linalg: the generic MLIR op graph of the
// upstream dialects. A linalg op's scalar payload is summed up in its label
// (iterator kinds, payload ops) rather than drawn; builtin tensor types on the
// edges; the func's arguments are the program's inputs. The zoo's cond model
// lowers to scf.if, drawn with a cluster per region, its weights as
// dense_resource constants.
// RUN: exir-opt %s -p convert-exir-to-linalg --emit dot | filecheck %s
// RUN: exir-opt %S/../../../zoo/cond.core.pt2 -p convert-exir-to-linalg --emit dot | filecheck %s --check-prefix=SCF

exir.program inputs [<user_input "x">, <user_input "w">] outputs [<user_output "s">] {
  exir.graph @forward(%x: !exir.tensor<[s0, 4], float32>, %w: !exir.tensor<[4, 3], float32>) -> !exir.tensor<[s0], float32> {
    %relu = aten.relu.default(%x) : (!exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0, 4], float32>
    %mm = aten.mm.default(%relu, %w) : (!exir.tensor<[s0, 4], float32>, !exir.tensor<[4, 3], float32>) -> !exir.tensor<[s0, 3], float32>
    %s = aten.sum.dim_IntList(%mm, [1]) : (!exir.tensor<[s0, 3], float32>) -> !exir.tensor<[s0], float32>
    exir.output %s : !exir.tensor<[s0], float32>
  }
}

// CHECK:      subgraph cluster_0 {
// CHECK-NEXT:   label="func @forward"; style="rounded"; color="#6b7280";
// CHECK-NEXT:   n0 [label="x", shape=invhouse, style="filled", fillcolor="#93c5fd"];
// CHECK-NEXT:   n1 [label="w", shape=invhouse, style="filled", fillcolor="#93c5fd"];
// CHECK-NEXT:   n2 [label="arith.constant\n0", shape=box, style="rounded,filled", fillcolor="#fef3a0"];
// CHECK-NEXT:   n3 [label="tensor.dim", shape=box, style="rounded,filled", fillcolor="#e5e7eb"];
// CHECK-NEXT:   n4 [label="tensor.empty", shape=box, style="rounded,filled", fillcolor="#fef3a0"];
// CHECK-NEXT:   n5 [label="linalg.generic\npar par\ncmpf, select", shape=box, style="rounded,filled", fillcolor="#bfdbfe"];
// CHECK-NEXT:   n6 [label="tensor.empty", shape=box, style="rounded,filled", fillcolor="#fef3a0"];
// CHECK-NEXT:   n7 [label="arith.constant\n0.0", shape=box, style="rounded,filled", fillcolor="#fef3a0"];
// CHECK-NEXT:   n8 [label="linalg.fill", shape=box, style="rounded,filled", fillcolor="#fef3a0"];
// CHECK-NEXT:   n9 [label="linalg.matmul\nmulf, addf", shape=box, style="rounded,filled", fillcolor="#f8b4b4"];
// CHECK-NEXT:   n10 [label="tensor.empty", shape=box, style="rounded,filled", fillcolor="#fef3a0"];
// CHECK-NEXT:   n11 [label="arith.constant\n0.0", shape=box, style="rounded,filled", fillcolor="#fef3a0"];
// CHECK-NEXT:   n12 [label="linalg.fill", shape=box, style="rounded,filled", fillcolor="#fef3a0"];
// CHECK-NEXT:   n13 [label="linalg.generic\npar red\nextf, addf", shape=box, style="rounded,filled", fillcolor="#d8c8fa"];
// CHECK-NEXT:   n14 [label="tensor.empty", shape=box, style="rounded,filled", fillcolor="#fef3a0"];
// CHECK-NEXT:   n15 [label="linalg.generic\npar\ntruncf", shape=box, style="rounded,filled", fillcolor="#bfdbfe"];
// CHECK-NEXT:   n16 [label="output", shape=house, style="filled", fillcolor="#bbf7d0"];
// CHECK-NEXT: }
// CHECK-NEXT:   n0 -> n3 [label="?x4xf32"];
// CHECK-NEXT:   n2 -> n3 [label="index"];
// CHECK-NEXT:   n3 -> n4 [label="index"];
// CHECK-NEXT:   n0 -> n5 [label="?x4xf32"];
// CHECK-NEXT:   n4 -> n5 [label="?x4xf32"];
// CHECK-NEXT:   n3 -> n6 [label="index"];
// CHECK-NEXT:   n7 -> n8 [label="f32"];
// CHECK-NEXT:   n6 -> n8 [label="?x3xf32"];
// CHECK-NEXT:   n5 -> n9 [label="?x4xf32"];
// CHECK-NEXT:   n1 -> n9 [label="4x3xf32"];
// CHECK-NEXT:   n8 -> n9 [label="?x3xf32"];
// CHECK-NEXT:   n3 -> n10 [label="index"];
// CHECK-NEXT:   n11 -> n12 [label="f64"];
// CHECK-NEXT:   n10 -> n12 [label="?xf64"];
// CHECK-NEXT:   n9 -> n13 [label="?x3xf32"];
// CHECK-NEXT:   n12 -> n13 [label="?xf64"];
// CHECK-NEXT:   n3 -> n14 [label="index"];
// CHECK-NEXT:   n13 -> n15 [label="?xf64"];
// CHECK-NEXT:   n14 -> n15 [label="?xf32"];
// CHECK-NEXT:   n15 -> n16 [label="?xf32"];

// SCF:      n1 [label="arith.constant\nresource pos.weight"
// SCF:      n8 [label="linalg.generic\nred red\nextf, addf"
// SCF:      subgraph cluster_1 {
// SCF:        n14 [label="scf.if", shape=box, style="rounded,filled", fillcolor="#fdc98a"];
// SCF-NEXT:   subgraph cluster_2 {
// SCF-NEXT:     label="true"; style="dashed"; color="#6b7280";
// SCF:          label="false"; style="dashed"; color="#6b7280";
// SCF:        n13 -> n14 [label="i1"];
