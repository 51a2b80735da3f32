// --emit dot on TorchScript IR: one cluster per method (named by its module
// path), `self` drawn as the module it is, TorchScript types on the edges,
// prim::If with a cluster per block, prim::DifferentiableGraph and
// prim::FusionGroup subgraphs as fusion clusters, and prim::Loop whose body
// block takes the trip count and the carried values.
// RUN: exir-opt %S/../torchscript.mlir --emit dot | filecheck %s
// RUN: exir-opt %S/../../../torchscript/dumps/for_loop.txt --emit dot | filecheck %s --check-prefix=LOOP

// CHECK:      subgraph cluster_0 {
// CHECK-NEXT:   label="m.sub.forward"; style="rounded"; color="#6b7280";
// CHECK-NEXT:   n0 [label="self\n__torch__.Sub", shape=component, style="filled", fillcolor="#c7d2fe"];
// CHECK-NEXT:   n1 [label="x", shape=invhouse, style="filled", fillcolor="#93c5fd"];
// CHECK-NEXT:   n2 [label="relu", shape=box, style="rounded,filled", fillcolor="#bfdbfe"];
// CHECK:      subgraph cluster_1 {
// CHECK-NEXT:   label="m.forward"; style="rounded"; color="#6b7280";
// CHECK:        n7 [label="prim::GetAttr\n'weight'"
// CHECK:        n9 [label="prim::CallMethod\n'forward'"
// CHECK:        n10 [label="prim::SetAttr\n'count'"
// CHECK:      subgraph cluster_2 {
// CHECK-NEXT:   label="free"; style="rounded"; color="#6b7280";
// CHECK:        n15 [label="prim::Constant\n1", shape=box, style="rounded,filled", fillcolor="#fef3a0"];
// CHECK:        n21 [label="prim::Constant\nFloat[2, 2] tensor"
// CHECK-NEXT:   n22 [label="neg"
// CHECK-NEXT:   subgraph cluster_3 {
// CHECK-NEXT:     label=""; style="rounded,filled"; fillcolor="#fdc98a40"; color="#fdc98a";
// CHECK-NEXT:     n23 [label="prim::If", shape=box, style="rounded,filled", fillcolor="#fdc98a"];
// CHECK-NEXT:     subgraph cluster_4 {
// CHECK-NEXT:       label="then"; style="dashed"; color="#6b7280";
// CHECK-NEXT:       subgraph cluster_5 {
// CHECK-NEXT:         label=""; style="rounded,filled"; fillcolor="#a7e8bd40"; color="#a7e8bd";
// CHECK-NEXT:         n24 [label="prim::DifferentiableGraph", shape=box, style="rounded,filled", fillcolor="#a7e8bd"];
// CHECK-NEXT:         n25 [label="p", shape=ellipse
// CHECK-NEXT:         subgraph cluster_6 {
// CHECK-NEXT:           label=""; style="rounded,filled"; fillcolor="#a7e8bd40"; color="#a7e8bd";
// CHECK-NEXT:           n26 [label="prim::FusionGroup", shape=box, style="rounded,filled", fillcolor="#a7e8bd"];
// CHECK-NEXT:           n27 [label="u", shape=ellipse
// CHECK-NEXT:           n28 [label="sigmoid", shape=box, style="rounded,filled", fillcolor="#bfdbfe"];
// CHECK-NEXT:           n29 [label="output", shape=house
// CHECK-NEXT:         }
// CHECK-NEXT:         n30 [label="output", shape=house
// CHECK-NEXT:       }
// CHECK-NEXT:       n31 [label="output", shape=house
// CHECK-NEXT:     }
// CHECK-NEXT:     subgraph cluster_7 {
// CHECK-NEXT:       label="else"; style="dashed"; color="#6b7280";
// CHECK:              n32 [label="my::op\nSubgraph\nalpha=0.25\n(+2)"
// CHECK:        n4 -> n7 [label="__torch__.M"];
// CHECK:        n8 -> n9 [label="__torch__.Sub"];
// CHECK:        n14 -> n23 [label="bool"];
// CHECK:        n22 -> n24 [label="Float(*, *)"];
// CHECK-NEXT:   n24 -> n25 [style=dotted];
// CHECK-NEXT:   n25 -> n26 [label="Float(*, *)"];
// CHECK:        n23 -> n36 [label="Float(*, *)"];
// CHECK:        legend_creation [label="creation"
// CHECK-NEXT:   legend_control_flow [label="control flow"
// CHECK-NEXT:   legend_fusion [label="fusion"
// CHECK-NEXT:   legend_call [label="call"

// LOOP:      label="forward"; style="rounded"; color="#6b7280";
// LOOP-NEXT: n0 [label="x.1", shape=invhouse
// LOOP-NEXT: n1 [label="prim::Constant\ntrue"
// LOOP-NEXT: n2 [label="prim::Constant\n0"
// LOOP-NEXT: n3 [label="size"
// LOOP-NEXT: subgraph cluster_1 {
// LOOP-NEXT:   label=""; style="rounded,filled"; fillcolor="#fdc98a40"; color="#fdc98a";
// LOOP-NEXT:   n4 [label="prim::Loop", shape=box, style="rounded,filled", fillcolor="#fdc98a"];
// LOOP-NEXT:   n5 [label="i", shape=ellipse
// LOOP-NEXT:   n6 [label="z.11", shape=ellipse
// LOOP-NEXT:   n7 [label="mul", shape=box, style="rounded,filled", fillcolor="#bfdbfe"];
// LOOP-NEXT:   n8 [label="output", shape=house
// LOOP-NEXT: }
// LOOP:      n3 -> n4 [label="int"];
// LOOP-NEXT: n1 -> n4 [label="bool"];
// LOOP-NEXT: n0 -> n4 [label="Tensor"];
// LOOP-NEXT: n4 -> n5 [style=dotted];
// LOOP-NEXT: n4 -> n6 [style=dotted];
// LOOP-NEXT: n6 -> n7 [label="Tensor"];
// LOOP-NEXT: n1 -> n8 [label="bool"];
// LOOP-NEXT: n7 -> n8 [label="Tensor"];
// LOOP-NEXT: n4 -> n9 [label="Tensor"];
