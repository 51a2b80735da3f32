// --emit 'dot{collapse-depth=N}': one box per module at depth N of the ops'
// nn_module_stack, labelled with its path, class and how many ops and state
// tensors (parameters and buffers only it reads) it holds; ops whose stack
// names only the root module stay single. Depth 1 is the children of the
// root (layer1), depth 2 their children (layer1.0).
// RUN: exir-opt %S/../../../zoo/resnet18.core.pt2 --emit 'dot{collapse-depth=1}' | filecheck %s
// RUN: exir-opt %S/../../../zoo/resnet18.core.pt2 --emit 'dot{collapse-depth=2}' | filecheck %s --check-prefix=DEPTH2
// RUN: not exir-opt %S/../../../zoo/resnet18.core.pt2 --emit 'dot{collapse-depth=-1}' 2>&1 | filecheck %s --check-prefix=ERR
// RUN: not exir-opt %S/../../../zoo/resnet18.core.pt2 --emit 'dot{depth=1}' 2>&1 | filecheck %s --check-prefix=ERR

// CHECK:      subgraph cluster_0 {
// CHECK-NEXT:   label="@forward"; style="rounded"; color="#6b7280";
// CHECK-NEXT:   n0 [label="x", shape=invhouse, style="filled", fillcolor="#93c5fd"];
// CHECK-NEXT:   n1 [label="conv1\nConv2d\n1 op, 1 state tensor", shape=box3d, style="filled", fillcolor="#c7d2fe"];
// CHECK-NEXT:   n2 [label="bn1\nBatchNorm2d\n1 op, 4 state tensors", shape=box3d, style="filled", fillcolor="#c7d2fe"];
// CHECK-NEXT:   n3 [label="relu", shape=box, style="rounded,filled", fillcolor="#bfdbfe"];
// CHECK-NEXT:   n4 [label="maxpool\nMaxPool2d\n1 op", shape=box3d, style="filled", fillcolor="#c7d2fe"];
// CHECK-NEXT:   n5 [label="layer1\nSequential\n14 ops, 20 state tensors", shape=box3d, style="filled", fillcolor="#c7d2fe"];
// CHECK-NEXT:   n6 [label="layer2\nSequential\n16 ops, 25 state tensors", shape=box3d, style="filled", fillcolor="#c7d2fe"];
// CHECK-NEXT:   n7 [label="layer3\nSequential\n16 ops, 25 state tensors", shape=box3d, style="filled", fillcolor="#c7d2fe"];
// CHECK-NEXT:   n8 [label="layer4\nSequential\n16 ops, 25 state tensors", shape=box3d, style="filled", fillcolor="#c7d2fe"];
// CHECK-NEXT:   n9 [label="avgpool\nAdaptiveAvgPool2d\n1 op", shape=box3d, style="filled", fillcolor="#c7d2fe"];
// CHECK-NEXT:   n10 [label="view\nsize=[1, 64]", shape=box, style="rounded,filled", fillcolor="#e5e7eb"];
// CHECK-NEXT:   n11 [label="fc\nLinear\n2 ops, 2 state tensors", shape=box3d, style="filled", fillcolor="#c7d2fe"];
// CHECK-NEXT:   n12 [label="output", shape=house, style="filled", fillcolor="#bbf7d0"];
// CHECK-NEXT: }
// CHECK-NEXT: n0 -> n1 [label="f32[1, 3, 32, 32]"];
// CHECK-NEXT: n1 -> n2 [label="f32[1, 8, 16, 16]"];
// CHECK-NEXT: n2 -> n3 [label="f32[1, 8, 16, 16]"];
// CHECK-NEXT: n3 -> n4 [label="f32[1, 8, 16, 16]"];
// CHECK-NEXT: n4 -> n5 [label="f32[1, 8, 8, 8]"];
// CHECK-NEXT: n5 -> n6 [label="f32[1, 8, 8, 8]"];
// CHECK-NEXT: n6 -> n7 [label="f32[1, 16, 4, 4]"];
// CHECK-NEXT: n7 -> n8 [label="f32[1, 32, 2, 2]"];
// CHECK-NEXT: n8 -> n9 [label="f32[1, 64, 1, 1]"];
// CHECK-NEXT: n9 -> n10 [label="f32[1, 64, 1, 1]"];
// CHECK-NEXT: n10 -> n11 [label="f32[1, 64]"];
// CHECK-NEXT: n11 -> n12 [label="f32[1, 10]"];
// CHECK:      legend_module [label="module"

// DEPTH2:      n4 [label="maxpool\nMaxPool2d\n1 op"
// DEPTH2-NEXT: n5 [label="layer1.0\nBasicBlock\n7 ops, 10 state tensors"
// DEPTH2-NEXT: n6 [label="layer1.1\nBasicBlock\n7 ops, 10 state tensors"
// DEPTH2-NEXT: n7 [label="layer2.0\nBasicBlock\n9 ops, 15 state tensors"
// DEPTH2:      n12 [label="layer4.1\nBasicBlock\n7 ops, 10 state tensors"
// DEPTH2:      n5 -> n6 [label="f32[1, 8, 8, 8]"];

// ERR: exir-opt: error: --emit dot{{.*}}: {{collapse-depth must be 0 \(off\) or a module depth >= 1, got -1|unknown option 'depth' \(options of dot: collapse-depth\)}}
