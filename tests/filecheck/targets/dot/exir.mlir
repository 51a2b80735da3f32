// --emit dot on Export IR: placeholders drawn by kind (parameter, buffer, user
// input), shapes and dtypes on the edges, ops coloured by family with a
// legend, a buffer mutation named on its output edge, and clusters for the
// branches of exir.cond and for an exir.fusion_group inside one. Node ids
// follow IR order, so the text is stable.
// RUN: exir-opt %s --emit dot | filecheck %s
// RUN: exir-opt %S/../../../zoo/map.core.pt2 -p optimize-inference --emit dot | filecheck %s --check-prefix=MAP

exir.program inputs [<parameter "p_w" -> "lin.weight">, <buffer "b_count" -> "count">, <user_input "x">] outputs [<buffer_mutation "add" -> "count">, <user_output "r">] {
  exir.state @lin.weight : !exir.tensor<[4, 4], float32>
  exir.state @count : !exir.tensor<[], int64>
  exir.graph @forward(%p_w: !exir.tensor<[4, 4], float32>, %b_count: !exir.tensor<[], int64>, %x: !exir.tensor<[s0, 4], float32>) -> (!exir.tensor<[], int64>, !exir.tensor<[s0, 4], float32>) {
    %add = aten.add.Tensor(%b_count, 1) : (!exir.tensor<[], int64>) -> !exir.tensor<[], int64>
    %t = aten.permute.default(%p_w, [1, 0]) : (!exir.tensor<[4, 4], float32>) -> !exir.tensor<[4, 4], float32>
    %mm = aten.mm.default(%x, %t) : (!exir.tensor<[s0, 4], float32>, !exir.tensor<[4, 4], float32>) -> !exir.tensor<[s0, 4], float32>
    %s = aten.sum.default(%mm) : (!exir.tensor<[s0, 4], float32>) -> !exir.tensor<[], float32>
    %gt = aten.gt.Scalar(%s, 0) : (!exir.tensor<[], float32>) -> !exir.tensor<[], bool>
    %r = exir.cond %gt(%mm) : !exir.tensor<[], bool>, (!exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0, 4], float32> {
    ^bb0(%a: !exir.tensor<[s0, 4], float32>):
      %e = exir.fusion_group(%a) : (!exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0, 4], float32> {
      ^bb1(%u: !exir.tensor<[s0, 4], float32>):
        %v = aten.relu.default(%u) : (!exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0, 4], float32>
        %w = aten.mul.Tensor(%v, 2.0) : (!exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0, 4], float32>
        exir.output %w : !exir.tensor<[s0, 4], float32>
      }
      exir.output %e : !exir.tensor<[s0, 4], float32>
    } else {
    ^bb0(%b: !exir.tensor<[s0, 4], float32>):
      %n = aten.neg.default(%b) : (!exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0, 4], float32>
      exir.output %n : !exir.tensor<[s0, 4], float32>
    }
    exir.output %add, %r : !exir.tensor<[], int64>, !exir.tensor<[s0, 4], float32>
  }
}

// CHECK:      digraph G {
// CHECK:        subgraph cluster_0 {
// CHECK-NEXT:     label="@forward"; style="rounded"; color="#6b7280";
// CHECK-NEXT:     n0 [label="lin.weight\nparameter", shape=cylinder, style="filled", fillcolor="#fcd34d"];
// CHECK-NEXT:     n1 [label="count\nbuffer", shape=cylinder, style="filled", fillcolor="#fdba74"];
// CHECK-NEXT:     n2 [label="x", shape=invhouse, style="filled", fillcolor="#93c5fd"];
// CHECK-NEXT:     n3 [label="add.Tensor\nother=1", shape=box, style="rounded,filled", fillcolor="#bfdbfe"];
// CHECK-NEXT:     n4 [label="permute\ndims=[1, 0]", shape=box, style="rounded,filled", fillcolor="#e5e7eb"];
// CHECK-NEXT:     n5 [label="mm", shape=box, style="rounded,filled", fillcolor="#f8b4b4"];
// CHECK-NEXT:     n6 [label="sum", shape=box, style="rounded,filled", fillcolor="#d8c8fa"];
// CHECK-NEXT:     n7 [label="gt.Scalar\nother=0", shape=box, style="rounded,filled", fillcolor="#bfdbfe"];
// CHECK-NEXT:     subgraph cluster_1 {
// CHECK-NEXT:       label=""; style="rounded,filled"; fillcolor="#fdc98a40"; color="#fdc98a";
// CHECK-NEXT:       n8 [label="cond", shape=box, style="rounded,filled", fillcolor="#fdc98a"];
// CHECK-NEXT:       subgraph cluster_2 {
// CHECK-NEXT:         label="true"; style="dashed"; color="#6b7280";
// CHECK-NEXT:         n9 [label="a", shape=ellipse, style="filled", fillcolor="#f3f4f6"];
// CHECK-NEXT:         subgraph cluster_3 {
// CHECK-NEXT:           label=""; style="rounded,filled"; fillcolor="#a7e8bd40"; color="#a7e8bd";
// CHECK-NEXT:           n10 [label="fusion_group\n2 ops", shape=box, style="rounded,filled", fillcolor="#a7e8bd"];
// CHECK-NEXT:           n11 [label="u", shape=ellipse, style="filled", fillcolor="#f3f4f6"];
// CHECK-NEXT:           n12 [label="relu", shape=box, style="rounded,filled", fillcolor="#bfdbfe"];
// CHECK-NEXT:           n13 [label="mul.Tensor\nother=2.0", shape=box, style="rounded,filled", fillcolor="#bfdbfe"];
// CHECK-NEXT:           n14 [label="output", shape=house, style="filled", fillcolor="#bbf7d0"];
// CHECK-NEXT:         }
// CHECK-NEXT:         n15 [label="output", shape=house, style="filled", fillcolor="#bbf7d0"];
// CHECK-NEXT:       }
// CHECK-NEXT:       subgraph cluster_4 {
// CHECK-NEXT:         label="false"; style="dashed"; color="#6b7280";
// CHECK-NEXT:         n16 [label="b", shape=ellipse, style="filled", fillcolor="#f3f4f6"];
// CHECK-NEXT:         n17 [label="neg", shape=box, style="rounded,filled", fillcolor="#bfdbfe"];
// CHECK-NEXT:         n18 [label="output", shape=house, style="filled", fillcolor="#bbf7d0"];
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     n19 [label="output", shape=house, style="filled", fillcolor="#bbf7d0"];
// CHECK-NEXT:   }
// CHECK-NEXT:   n1 -> n3 [label="i64[]"];
// CHECK-NEXT:   n0 -> n4 [label="f32[4, 4]"];
// CHECK-NEXT:   n2 -> n5 [label="f32[s0, 4]"];
// CHECK-NEXT:   n4 -> n5 [label="f32[4, 4]"];
// CHECK-NEXT:   n5 -> n6 [label="f32[s0, 4]"];
// CHECK-NEXT:   n6 -> n7 [label="f32[]"];
// CHECK-NEXT:   n7 -> n8 [label="bool[]"];
// CHECK-NEXT:   n5 -> n8 [label="f32[s0, 4]"];
// CHECK-NEXT:   n8 -> n9 [style=dotted];
// CHECK-NEXT:   n9 -> n10 [label="f32[s0, 4]"];
// CHECK-NEXT:   n10 -> n11 [style=dotted];
// CHECK-NEXT:   n11 -> n12 [label="f32[s0, 4]"];
// CHECK-NEXT:   n12 -> n13 [label="f32[s0, 4]"];
// CHECK-NEXT:   n13 -> n14 [label="f32[s0, 4]"];
// CHECK-NEXT:   n10 -> n15 [label="f32[s0, 4]"];
// CHECK-NEXT:   n8 -> n16 [style=dotted];
// CHECK-NEXT:   n16 -> n17 [label="f32[s0, 4]"];
// CHECK-NEXT:   n17 -> n18 [label="f32[s0, 4]"];
// CHECK-NEXT:   n3 -> n19 [label="i64[]\nbuffer mutation count"];
// CHECK-NEXT:   n8 -> n19 [label="f32[s0, 4]"];
// CHECK-NEXT:   subgraph cluster_legend {
// CHECK-NEXT:     label="op families"; style="rounded"; color="#9ca3af"; fontsize=9;
// CHECK-NEXT:     legend_matmul___conv [label="matmul / conv", {{.*}}fillcolor="#f8b4b4", fontsize=8];
// CHECK-NEXT:     legend_pointwise [label="pointwise", {{.*}}fillcolor="#bfdbfe", fontsize=8];
// CHECK-NEXT:     legend_reduction___norm [label="reduction / norm", {{.*}}fillcolor="#d8c8fa", fontsize=8];
// CHECK-NEXT:     legend_view___copy [label="view / copy", {{.*}}fillcolor="#e5e7eb", fontsize=8];
// CHECK-NEXT:     legend_control_flow [label="control flow", {{.*}}fillcolor="#fdc98a", fontsize=8];
// CHECK-NEXT:     legend_fusion [label="fusion", {{.*}}fillcolor="#a7e8bd", fontsize=8];
// CHECK-NEXT:     legend_matmul___conv -> legend_pointwise -> legend_reduction___norm -> legend_view___copy -> legend_control_flow -> legend_fusion [style=invis];
// CHECK-NEXT:   }
// CHECK-NEXT: }

// exir.map after optimize-inference: the map's body is a cluster holding the
// region's placeholders and a fusion group of its pointwise tail.
// MAP:      n2 [label="xs", shape=invhouse
// MAP:      subgraph cluster_1 {
// MAP:        n4 [label="map", shape=box, style="rounded,filled", fillcolor="#fdc98a"];
// MAP-NEXT:   n5 [label="xs", shape=ellipse
// MAP:        n11 [label="addmm", shape=box
// MAP:        subgraph cluster_2 {
// MAP:          n13 [label="fusion_group\n3 ops"
// MAP:          n16 [label="relu"
// MAP-NEXT:     n17 [label="sin"
// MAP-NEXT:     n18 [label="add.Tensor"
// MAP:      n2 -> n4 [label="f32[4, 5]"];
// MAP:      n4 -> n5 [style=dotted];
