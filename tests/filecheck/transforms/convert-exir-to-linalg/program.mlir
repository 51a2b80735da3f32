// The program-level contract of convert-exir-to-linalg: @forward takes the user
// inputs and the buffers the program writes, returns the buffer updates before
// the user outputs (each tagged with exir.kind/exir.name); parameters become
// dense_resource constants; symbolic sizes are ? dims bound by tensor.dim and
// derived sizes (2*s0) computed with arith on index; pointwise ops broadcast by
// the exir sizes and promote types as PyTorch does; cond becomes scf.if.
// RUN: exir-opt %s --split-input-file -p convert-exir-to-linalg | filecheck %s

builtin.module {
  exir.program inputs [<parameter "p_w" -> "w">, <buffer "b_count" -> "count">, <user_input "x">]
               outputs [<buffer_mutation "add" -> "count">, <user_output "view">]
               ranges [<s0 in [2, 64]>] {
    exir.state @w : !exir.tensor<[4], float32> = #exir.blob<"0x0000803F000000400000404000008040">
    exir.state @count : !exir.tensor<[], int64> = #exir.blob<"0x0000000000000000">
    exir.graph @forward(%p_w: !exir.tensor<[4], float32>, %b_count: !exir.tensor<[], int64>, %x: !exir.tensor<[s0, 4], int32>)
        -> (!exir.tensor<[], int64>, !exir.tensor<[2*s0, 2], float32>) {
      %add = aten.add.Tensor(%b_count, 1) : (!exir.tensor<[], int64>) -> !exir.tensor<[], int64>
      %mul = aten.mul.Tensor(%x, %p_w) : (!exir.tensor<[s0, 4], int32>, !exir.tensor<[4], float32>) -> !exir.tensor<[s0, 4], float32>
      %view = aten.view.default(%mul, [-1, 2]) : (!exir.tensor<[s0, 4], float32>) -> !exir.tensor<[2*s0, 2], float32>
      exir.output %add, %view : !exir.tensor<[], int64>, !exir.tensor<[2*s0, 2], float32>
    }
  }
}

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:      %b_count: tensor<i64> {exir.kind = "buffer", exir.name = "count"},
// CHECK-SAME:      %x: tensor<?x4xi32> {exir.kind = "user_input", exir.name = "x"})
// CHECK-SAME:      -> (tensor<i64> {exir.kind = "buffer_mutation", exir.name = "count"}, tensor<?x2xf32> {exir.kind = "user_output", exir.name = "view"})
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[S0:.*]] = tensor.dim %x, %[[ZERO]] : tensor<?x4xi32>
// CHECK-NEXT:    %p_w = arith.constant dense_resource<w> : tensor<4xf32>
// The buffer update: int64 add of a wrapped number.
// CHECK:         linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%b_count : tensor<i64>)
// CHECK:           arith.addi
// The int32 tensor times the float32 parameter computes in float32, the parameter broadcast along s0.
// CHECK:         %[[INIT:.*]] = tensor.empty(%[[S0]]) : tensor<?x4xf32>
// CHECK-NEXT:    %[[MUL:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %p_w : tensor<?x4xi32>, tensor<4xf32>) outs(%[[INIT]] : tensor<?x4xf32>) {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: i32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[AF:.*]] = arith.sitofp %[[A]] : i32 to f32
// CHECK-NEXT:      %[[R:.*]] = arith.mulf %[[AF]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
// The view to [2*s0, 2]: one collapse and one expand whose size is computed.
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[MUL]] {{\[}}[0 : i64, 1 : i64]] : tensor<?x4xf32> into tensor<?xf32>
// CHECK:         %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[ROWS:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[VIEW:.*]] = tensor.expand_shape %[[FLAT]] {{\[}}[0 : i64, 1 : i64]] output_shape [%[[ROWS]], 2] : tensor<?xf32> into tensor<?x2xf32>
// CHECK:         func.return %{{.*}}, %[[VIEW]] : tensor<i64>, tensor<?x2xf32>
// CHECK:       dialect_resources: {
// CHECK-NEXT:    builtin: {
// CHECK-NEXT:      w: "0x100000000000803F000000400000404000008040"

// -----

builtin.module {
  exir.program inputs [<user_input "p">, <user_input "x">] outputs [<user_output "r">] {
    exir.graph @forward(%p: !exir.tensor<[], bool>, %x: !exir.tensor<[3], float32>) -> !exir.tensor<[3], float32> {
      %r = exir.cond %p(%x) : !exir.tensor<[], bool>, (!exir.tensor<[3], float32>) -> !exir.tensor<[3], float32> {
      ^bb0(%a: !exir.tensor<[3], float32>):
        %s = aten.sin.default(%a) : (!exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
        exir.output %s : !exir.tensor<[3], float32>
      } else {
      ^bb0(%b: !exir.tensor<[3], float32>):
        %c = aten.cos.default(%b) : (!exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
        exir.output %c : !exir.tensor<[3], float32>
      }
      exir.output %r : !exir.tensor<[3], float32>
    }
  }
}

// CHECK-LABEL: func.func @forward(%p: tensor<i1> {{.*}}, %x: tensor<3xf32> {{.*}})
// CHECK:         %[[P:.*]] = tensor.extract %p[] : tensor<i1>
// CHECK-NEXT:    %{{.*}} = scf.if %[[P]] -> (tensor<3xf32>) {
// CHECK:           linalg.generic
// CHECK:           scf.yield %{{.*}} : tensor<3xf32>
// CHECK-NEXT:    } else {
// CHECK:           linalg.generic
// CHECK:           scf.yield %{{.*}} : tensor<3xf32>
// CHECK-NEXT:    }

// -----

// A one-element weight is written inline, not as a resource: iree-compile 3.13
// crashes folding a single-element dense_resource (lifted tensors of LLaMA blocks).
builtin.module {
  exir.program inputs [<constant_tensor "c_scale" -> "scale">, <user_input "x">] outputs [<user_output "r">] {
    exir.state @scale : !exir.tensor<[], float32> = #exir.blob<"0x00002040">
    exir.graph @forward(%c_scale: !exir.tensor<[], float32>, %x: !exir.tensor<[3], float32>) -> !exir.tensor<[3], float32> {
      %r = aten.mul.Tensor(%x, %c_scale) : (!exir.tensor<[3], float32>, !exir.tensor<[], float32>) -> !exir.tensor<[3], float32>
      exir.output %r : !exir.tensor<[3], float32>
    }
  }
}

// CHECK-LABEL: func.func @forward(
// CHECK:         %c_scale = arith.constant dense<2.500000e+00> : tensor<f32>
// CHECK-NOT:     dialect_resources
