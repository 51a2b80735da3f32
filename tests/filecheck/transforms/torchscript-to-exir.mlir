// torchscript-to-exir: TorchScript functions and modules become Export IR
// programs that pass verify-export-ir. One RUN line per entry point.
// RUN: exir-opt %s -p 'torchscript-to-exir{entry=lstm_cell input-types="x=f32[3,10];hx=f32[3,20];cx=f32[3,20];w_ih=f32[80,10];w_hh=f32[80,20];b_ih=f32[80];b_hh=f32[80]"},verify-export-ir' | filecheck %s --check-prefix=LSTM
// RUN: exir-opt %s -p 'torchscript-to-exir{entry=lstm_cell input-types="x=f32[s0,10];hx=f32[s0,20];cx=f32[s0,20];w_ih=f32[80,10];w_hh=f32[80,20];b_ih=f32[80];b_hh=f32[80]" ranges="s0=[1,64]"},verify-export-ir' | filecheck %s --check-prefix=SYM
// RUN: exir-opt %s -p 'torchscript-to-exir{entry=if_tensor},verify-export-ir' | filecheck %s --check-prefix=COND
// RUN: exir-opt %s -p 'torchscript-to-exir{entry=if_scalar input-values="flag=false"},verify-export-ir' | filecheck %s --check-prefix=IF
// RUN: exir-opt %s -p 'torchscript-to-exir{entry=for_loop},verify-export-ir' | filecheck %s --check-prefix=LOOP
// RUN: exir-opt %s -p 'torchscript-to-exir{entry=inplace},verify-export-ir' | filecheck %s --check-prefix=INPLACE
// RUN: exir-opt %s -p 'torchscript-to-exir{entry=calls},verify-export-ir' | filecheck %s --check-prefix=CALLS

// The JIT Technical Overview's LSTM cell: chunk + ListUnpack become getitems, the returned
// tuple two outputs, the constant alpha of aten::add disappears (its default).
// LSTM:      exir.program inputs [<user_input "x">, <user_input "hx">, <user_input "cx">, <user_input "w_ih">, <user_input "w_hh">, <user_input "b_ih">, <user_input "b_hh">] outputs [<user_output "hy">, <user_output "cy">]
// LSTM-SAME: in_spec ((*, *, *, *, *, *, *), {}) out_spec (*, *) {
// LSTM:        exir.graph @forward(%x: !exir.tensor<[3, 10], float32>, %hx: !exir.tensor<[3, 20], float32>, %cx: !exir.tensor<[3, 20], float32>, %w_ih: !exir.tensor<[80, 10], float32>
// LSTM-NEXT:     %[[T:.*]] = aten.t.default(%w_ih) : (!exir.tensor<[80, 10], float32>) -> !exir.tensor<[10, 80], float32>
// LSTM-NEXT:     %{{.*}} = aten.mm.default(%x, %[[T]]) : (!exir.tensor<[3, 10], float32>, !exir.tensor<[10, 80], float32>) -> !exir.tensor<[3, 80], float32>
// LSTM:          %gates = aten.add.Tensor(%{{.*}}, %b_hh) : (!exir.tensor<[3, 80], float32>, !exir.tensor<[80], float32>) -> !exir.tensor<[3, 80], float32>
// LSTM-NEXT:     %{{.*}} = aten.chunk.default(%gates, 4, 1) : (!exir.tensor<[3, 80], float32>) -> !exir.list<!exir.tensor<[3, 20], float32>>
// LSTM-NEXT:     %{{.*}} = exir.getitem %{{.*}}[0] : !exir.list<!exir.tensor<[3, 20], float32>> -> !exir.tensor<[3, 20], float32>
// LSTM-NEXT:     %{{.*}} = exir.getitem %{{.*}}[1]
// LSTM-NEXT:     %{{.*}} = exir.getitem %{{.*}}[2]
// LSTM-NEXT:     %{{.*}} = exir.getitem %{{.*}}[3]
// LSTM:          %cy = aten.add.Tensor
// LSTM:          %hy = aten.mul.Tensor
// LSTM-NEXT:     exir.output %hy, %cy : !exir.tensor<[3, 20], float32>, !exir.tensor<[3, 20], float32>
// LSTM-NOT:    ts.
// LSTM-NOT:    prim.

// Symbolic batch sizes, with their range.
// SYM:       ranges [<s0 in [1, 64]>]
// SYM:       exir.graph @forward(%x: !exir.tensor<[s0, 10], float32>
// SYM:         aten.chunk.default(%gates, 4, 1) : (!exir.tensor<[s0, 80], float32>) -> !exir.list<!exir.tensor<[s0, 20], float32>>
ts.method @lstm_cell {
^bb0(%x: !ts.tensor, %hx: !ts.tensor, %cx: !ts.tensor, %w_ih: !ts.tensor, %w_hh: !ts.tensor, %b_ih: !ts.tensor, %b_hh: !ts.tensor):
  %c4 = prim.Constant() {value = 4 : i64} : () -> !ts.int
  %c1 = prim.Constant() {value = 1 : i64} : () -> !ts.int
  %9 = ts.node "aten::t"(%w_ih) : (!ts.tensor) -> !ts.tensor
  %10 = ts.node "aten::mm"(%x, %9) : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %13 = ts.node "aten::t"(%w_hh) : (!ts.tensor) -> !ts.tensor
  %14 = ts.node "aten::mm"(%hx, %13) : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %16 = ts.node "aten::add"(%10, %14, %c1) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %19 = ts.node "aten::add"(%16, %b_ih, %c1) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %gates = ts.node "aten::add"(%19, %b_hh, %c1) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %26 = ts.node "aten::chunk"(%gates, %c4, %c1) : (!ts.tensor, !ts.int, !ts.int) -> !ts.list<!ts.tensor>
  %i1, %f1, %g1, %o1 = prim.ListUnpack(%26) : (!ts.list<!ts.tensor>) -> (!ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor)
  %ingate = ts.node "aten::sigmoid"(%i1) : (!ts.tensor) -> !ts.tensor
  %forgetgate = ts.node "aten::sigmoid"(%f1) : (!ts.tensor) -> !ts.tensor
  %cellgate = ts.node "aten::tanh"(%g1) : (!ts.tensor) -> !ts.tensor
  %outgate = ts.node "aten::sigmoid"(%o1) : (!ts.tensor) -> !ts.tensor
  %41 = ts.node "aten::mul"(%forgetgate, %cx) : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %44 = ts.node "aten::mul"(%ingate, %cellgate) : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %cy = ts.node "aten::add"(%41, %44, %c1) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %49 = ts.node "aten::tanh"(%cy) : (!ts.tensor) -> !ts.tensor
  %hy = ts.node "aten::mul"(%outgate, %49) : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %53 = prim.TupleConstruct(%hy, %cy) : (!ts.tensor, !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.tensor>
  prim.Return(%53) : (!ts.tuple<!ts.tensor, !ts.tensor>) -> ()
}

// An if on tensor data becomes exir.cond; the branches take the values they
// use as operands. Complete input types need no option.
// COND:      exir.graph @forward(%a: !exir.tensor<[2, 3], float32>, %b: !exir.tensor<[2, 3], float32>, %c: !exir.tensor<[2, 3], float32>)
// COND-NEXT:   %d = aten.add.Tensor(%a, %b)
// COND-NEXT:   %s = aten.sum.default(%c) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[], float32>
// COND-NEXT:   %gt = aten.gt.Scalar(%s, 0) : (!exir.tensor<[], float32>) -> !exir.tensor<[], bool>
// COND-NEXT:   %e = exir.cond %gt(%d, %b) : !exir.tensor<[], bool>, (!exir.tensor<[2, 3], float32>, !exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32> {
// COND-NEXT:   ^bb0(%d_1: !exir.tensor<[2, 3], float32>, %b_1: !exir.tensor<[2, 3], float32>):
// COND-NEXT:     %e1 = aten.add.Tensor(%d_1, %d_1)
// COND-NEXT:     exir.output %e1 : !exir.tensor<[2, 3], float32>
// COND-NEXT:   } else {
// COND-NEXT:   ^bb0(%d_2: !exir.tensor<[2, 3], float32>, %b_2: !exir.tensor<[2, 3], float32>):
// COND-NEXT:     %e2 = aten.mul.Tensor(%b_2, %d_2)
// COND-NEXT:     exir.output %e2 : !exir.tensor<[2, 3], float32>
// COND-NEXT:   }
// COND-NEXT:   exir.output %e : !exir.tensor<[2, 3], float32>
ts.method @if_tensor {
^bb0(%a: !ts.tensor<Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)>, %b: !ts.tensor<Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)>, %c: !ts.tensor<Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)>):
  %none = prim.Constant() : () -> !ts.none
  %one = prim.Constant() {value = 1 : i64} : () -> !ts.int
  %zero = prim.Constant() {value = 0 : i64} : () -> !ts.int
  %d = ts.node "aten::add"(%a, %b, %one) : (!ts.tensor<Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)>, !ts.tensor<Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)>, !ts.int) -> !ts.tensor
  %s = ts.node "aten::sum"(%c, %none) : (!ts.tensor<Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)>, !ts.none) -> !ts.tensor
  %gt = ts.node "aten::gt"(%s, %zero) : (!ts.tensor, !ts.int) -> !ts.tensor
  %p = ts.node "aten::Bool"(%gt) : (!ts.tensor) -> !ts.bool
  %e = prim.If(%p) ({
    %e1 = ts.node "aten::add"(%d, %d, %one) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
    prim.Return(%e1) : (!ts.tensor) -> ()
  }, {
    %e2 = ts.node "aten::mul"(%b, %d) : (!ts.tensor<Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)>, !ts.tensor) -> !ts.tensor
    prim.Return(%e2) : (!ts.tensor) -> ()
  }) : (!ts.bool) -> !ts.tensor
  prim.Return(%e) : (!ts.tensor) -> ()
}

// An if on a scalar input: specialized by input-values, the branch taken is inlined.
// IF:      exir.program inputs [<user_input "x">] outputs [<user_output "y">]
// IF-NEXT:   exir.graph @forward(%x: !exir.tensor<[4], float64>) -> !exir.tensor<[4], float64> {
// IF-NEXT:     %y = aten.neg.default(%x) : (!exir.tensor<[4], float64>) -> !exir.tensor<[4], float64>
// IF-NEXT:     exir.output %y : !exir.tensor<[4], float64>
// IF-NOT:      relu
ts.method @if_scalar {
^bb0(%x: !ts.tensor<Double(4, device=cpu)>, %flag: !ts.bool):
  %y = prim.If(%flag) ({
    %r = ts.node "aten::relu"(%x) : (!ts.tensor<Double(4, device=cpu)>) -> !ts.tensor
    prim.Return(%r) : (!ts.tensor) -> ()
  }, {
    %n = ts.node "aten::neg"(%x) : (!ts.tensor<Double(4, device=cpu)>) -> !ts.tensor
    prim.Return(%n) : (!ts.tensor) -> ()
  }) : (!ts.bool) -> !ts.tensor
  prim.Return(%y) : (!ts.tensor) -> ()
}

// A for loop over range(x.size(0)) with a static size unrolls; the loop
// counter folds into the arguments (float(i) is a literal).
// LOOP:      exir.graph @forward(%x: !exir.tensor<[3, 2], float32>)
// LOOP-NEXT:   %sq = aten.mul.Tensor(%x, %x)
// LOOP-NEXT:   %next = aten.add.Scalar(%sq, 0.0)
// LOOP-NEXT:   %sq_1 = aten.mul.Tensor(%next, %next)
// LOOP-NEXT:   %next_1 = aten.add.Scalar(%sq_1, 1.0)
// LOOP-NEXT:   %sq_2 = aten.mul.Tensor(%next_1, %next_1)
// LOOP-NEXT:   %z = aten.add.Scalar(%sq_2, 2.0)
// LOOP-NEXT:   exir.output %z
// LOOP-NOT:    exir.while_loop
ts.method @for_loop {
^bb0(%x: !ts.tensor<Float(3, 2, strides=[2, 1], requires_grad=0, device=cpu)>):
  %true = prim.Constant() {value = true} : () -> !ts.bool
  %zero = prim.Constant() {value = 0 : i64} : () -> !ts.int
  %one = prim.Constant() {value = 1 : i64} : () -> !ts.int
  %n = ts.node "aten::size"(%x, %zero) : (!ts.tensor<Float(3, 2, strides=[2, 1], requires_grad=0, device=cpu)>, !ts.int) -> !ts.int
  %z = prim.Loop(%n, %true, %x) ({
  ^bb0(%i: !ts.int, %acc: !ts.tensor):
    %sq = ts.node "aten::mul"(%acc, %acc) : (!ts.tensor, !ts.tensor) -> !ts.tensor
    %fi = ts.node "aten::Float"(%i) : (!ts.int) -> !ts.float
    %next = ts.node "aten::add"(%sq, %fi, %one) : (!ts.tensor, !ts.float, !ts.int) -> !ts.tensor
    prim.Return(%true, %next) : (!ts.bool, !ts.tensor) -> ()
  }) : (!ts.int, !ts.bool, !ts.tensor<Float(3, 2, strides=[2, 1], requires_grad=0, device=cpu)>) -> !ts.tensor
  prim.Return(%z) : (!ts.tensor) -> ()
}

// In-place ops are functionalized: the write into y[0] is a select_scatter, and
// the mutated user input is returned first, as a user_input_mutation.
// INPLACE:      outputs [<user_input_mutation "mul" -> "x">, <user_output "select_scatter">]
// INPLACE:        %y = aten.clone.default(%x)
// INPLACE-NEXT:   %add = aten.add.Scalar(%y, 1.0)
// INPLACE-NEXT:   %row = aten.select.int(%add, 0, 0)
// INPLACE-NEXT:   %zt = aten.scalar_tensor.default(0.0, dtype = torch.float32)
// INPLACE-NEXT:   %copy = aten.copy.default(%row, %zt) : (!exir.tensor<[2], float32>, !exir.tensor<[], float32>) -> !exir.tensor<[2], float32>
// INPLACE-NEXT:   %select_scatter = aten.select_scatter.default(%add, %copy, 0, 0)
// INPLACE-NEXT:   %mul = aten.mul.Scalar(%x, 2.0)
// INPLACE-NEXT:   exir.output %mul, %select_scatter
ts.method @inplace {
^bb0(%x: !ts.tensor<Float(3, 2, device=cpu)>):
  %none = prim.Constant() : () -> !ts.none
  %false = prim.Constant() {value = false} : () -> !ts.bool
  %one = prim.Constant() {value = 1 : i64} : () -> !ts.int
  %zero = prim.Constant() {value = 0 : i64} : () -> !ts.int
  %f1 = prim.Constant() {value = 1.0 : f64} : () -> !ts.float
  %f2 = prim.Constant() {value = 2.0 : f64} : () -> !ts.float
  %f0 = prim.Constant() {value = 0.0 : f64} : () -> !ts.float
  %y = ts.node "aten::clone"(%x, %none) : (!ts.tensor<Float(3, 2, device=cpu)>, !ts.none) -> !ts.tensor
  %a = ts.node "aten::add_"(%y, %f1, %one) : (!ts.tensor, !ts.float, !ts.int) -> !ts.tensor
  %row = ts.node "aten::select"(%y, %zero, %zero) : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  %dt = ts.node "prim::dtype"(%row) : (!ts.tensor) -> !ts.int
  %dev = ts.node "prim::device"(%row) : (!ts.tensor) -> !ts.device
  %zt = ts.node "aten::tensor"(%f0, %dt, %dev, %false) : (!ts.float, !ts.int, !ts.device, !ts.bool) -> !ts.tensor
  %c = ts.node "aten::copy_"(%row, %zt, %false) : (!ts.tensor, !ts.tensor, !ts.bool) -> !ts.tensor
  %m = ts.node "aten::mul_"(%x, %f2) : (!ts.tensor<Float(3, 2, device=cpu)>, !ts.float) -> !ts.tensor
  prim.Return(%y) : (!ts.tensor) -> ()
}

// Function calls are inlined, each with its own arguments.
// CALLS:      exir.graph @forward(%x: !exir.tensor<[2], float32>)
// CALLS-NEXT:   %a = aten.mul.Scalar(%x, 2.0)
// CALLS-NEXT:   %b = aten.mul.Scalar(%x, 0.5)
// CALLS-NEXT:   %r = aten.add.Tensor(%a, %b)
// CALLS-NEXT:   exir.output %r
ts.method @calls {
^bb0(%x: !ts.tensor<Float(2, device=cpu)>):
  %fn = prim.Constant() {name = "scale"} : () -> !ts.function<"scale">
  %two = prim.Constant() {value = 2.0 : f64} : () -> !ts.float
  %half = prim.Constant() {value = 0.5 : f64} : () -> !ts.float
  %one = prim.Constant() {value = 1 : i64} : () -> !ts.int
  %a = prim.CallFunction(%fn, %x, %two) : (!ts.function<"scale">, !ts.tensor<Float(2, device=cpu)>, !ts.float) -> !ts.tensor
  %b = prim.CallFunction(%fn, %x, %half) : (!ts.function<"scale">, !ts.tensor<Float(2, device=cpu)>, !ts.float) -> !ts.tensor
  %r = ts.node "aten::add"(%a, %b, %one) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  prim.Return(%r) : (!ts.tensor) -> ()
}

ts.method @scale {
^bb0(%x: !ts.tensor, %k: !ts.float):
  %r = ts.node "aten::mul"(%x, %k) : (!ts.tensor, !ts.float) -> !ts.tensor
  prim.Return(%r) : (!ts.tensor) -> ()
}
