// The driver of convert-exir-to-linalg: the generic exir.call_function form
// lowers through the named op's rule; a SymBool computed at run time is a cond
// predicate (arith.cmpi on index) and a returned SymBool a 0-d tensor<i1>;
// bfloat16 weights are i16 bit patterns bitcast back to bf16.
// RUN: exir-opt %s --split-input-file -p convert-exir-to-linalg | filecheck %s

builtin.module {
  exir.program inputs [<user_input "x">, <user_input "w">] outputs [<user_output "r">] {
    exir.graph @forward(%x: !exir.tensor<[s0, 4], float32>, %w: !exir.tensor<[4, 3], float32>) -> !exir.tensor<[s0, 3], float32> {
      %mm = exir.call_function "aten.mm.default"(%x, %w) : (!exir.tensor<[s0, 4], float32>, !exir.tensor<[4, 3], float32>) -> !exir.tensor<[s0, 3], float32>
      %r = exir.call_function "aten::relu"(%mm) : (!exir.tensor<[s0, 3], float32>) -> !exir.tensor<[s0, 3], float32>
      exir.output %r : !exir.tensor<[s0, 3], float32>
    }
  }
}

// CHECK:      func.func @forward(%x: tensor<?x4xf32> {exir.kind = "user_input", exir.name = "x"}, %w: tensor<4x3xf32> {exir.kind = "user_input", exir.name = "w"})
// CHECK:        linalg.matmul
// CHECK:        linalg.generic
// CHECK:          arith.select
// CHECK-NOT:    exir.call_function

// -----

builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "r">, <user_output "big">] {
    exir.graph @forward(%x: !exir.tensor<[s0], float32>) -> (!exir.tensor<[s0], float32>, !exir.sym_bool) {
      %n = exir.sym_size %x, 0 : !exir.tensor<[s0], float32> -> !exir.sym_int<s0>
      %gt = exir.sym_gt(%n, 4) : (!exir.sym_int<s0>) -> !exir.sym_bool
      %r = exir.cond %gt(%x) : !exir.sym_bool, (!exir.tensor<[s0], float32>) -> !exir.tensor<[s0], float32> {
      ^bb0(%a: !exir.tensor<[s0], float32>):
        %s = aten.sin.default(%a) : (!exir.tensor<[s0], float32>) -> !exir.tensor<[s0], float32>
        exir.output %s : !exir.tensor<[s0], float32>
      } else {
      ^bb0(%b: !exir.tensor<[s0], float32>):
        exir.output %b : !exir.tensor<[s0], float32>
      }
      exir.output %r, %gt : !exir.tensor<[s0], float32>, !exir.sym_bool
    }
  }
}

// CHECK:      func.func @forward(%x: tensor<?xf32> {{.*}}) -> (tensor<?xf32> {{.*}}, tensor<i1> {exir.kind = "user_output", exir.name = "big"})
// CHECK:        %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?xf32>
// CHECK:        %[[FOUR:.*]] = arith.constant 4 : index
// CHECK:        %[[GT:.*]] = arith.cmpi sgt, %[[N]], %[[FOUR]] : index
// CHECK:        scf.if %[[GT]] -> (tensor<?xf32>)
// CHECK:        %[[INIT:.*]] = tensor.empty() : tensor<i1>
// CHECK:        %[[BIG:.*]] = linalg.fill ins(%[[GT]] : i1) outs(%[[INIT]] : tensor<i1>) -> tensor<i1>
// CHECK:        func.return %{{.*}}, %[[BIG]] : tensor<?xf32>, tensor<i1>

// -----

builtin.module {
  exir.program inputs [<parameter "p_w" -> "w">, <user_input "x">] outputs [<user_output "r">] {
    exir.state @w : !exir.tensor<[2], bfloat16> = #exir.blob<"0x803F00C0">
    exir.graph @forward(%p_w: !exir.tensor<[2], bfloat16>, %x: !exir.tensor<[2], bfloat16>) -> !exir.tensor<[2], bfloat16> {
      %r = aten.mul.Tensor(%x, %p_w) : (!exir.tensor<[2], bfloat16>, !exir.tensor<[2], bfloat16>) -> !exir.tensor<[2], bfloat16>
      exir.output %r : !exir.tensor<[2], bfloat16>
    }
  }
}

// CHECK:      func.func @forward(%x: tensor<2xbf16> {{.*}}) -> (tensor<2xbf16> {{.*}})
// CHECK:        %[[BITS:.*]] = arith.constant dense_resource<w> : tensor<2xi16>
// CHECK:        %p_w = arith.bitcast %[[BITS]] : tensor<2xi16> to tensor<2xbf16>
// CHECK:      w: "0x10000000803F00C0"
