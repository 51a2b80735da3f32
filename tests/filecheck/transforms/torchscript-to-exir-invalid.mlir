// What torchscript-to-exir refuses: one located paragraph naming the
// TorchScript op, a non-zero exit, no traceback. One RUN line per entry point.
// RUN: not exir-opt %s -p 'torchscript-to-exir{entry=while_tensor}' 2>&1 | filecheck %s --check-prefix=WHILE
// RUN: not exir-opt %s -p 'torchscript-to-exir{entry=trip_from_data}' 2>&1 | filecheck %s --check-prefix=TRIP
// RUN: not exir-opt %s -p 'torchscript-to-exir{entry=untyped}' 2>&1 | filecheck %s --check-prefix=UNTYPED
// RUN: not exir-opt %s -p 'torchscript-to-exir{entry=unknown_op input-types="x=f32[2]"}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not exir-opt %s -p 'torchscript-to-exir{entry=no_aten_op input-types="x=f32[2, 2]"}' 2>&1 | filecheck %s --check-prefix=NOATEN
// RUN: not exir-opt %s -p 'torchscript-to-exir{entry=scalar_input input-types="x=f32[2]" input-values="n=-1"}' 2>&1 | filecheck %s --check-prefix=RAISE
// RUN: not exir-opt %s -p 'torchscript-to-exir{entry=branch_constant input-types="x=f32[]"}' 2>&1 | filecheck %s --check-prefix=BRANCH
// RUN: exir-opt %s -p 'torchscript-to-exir{entry=returns_int input-types="x=f32[2]"}' 2>&1 | filecheck %s --check-prefix=OUTPUT

// A while loop whose condition is computed from tensor data.
// WHILE: exir-opt: error: {{.*}}torchscript-to-exir-invalid.mlir:[[# @LINE + 7]]:3: 'prim::Loop' (%r) in @while_tensor: data-dependent loop: its condition is a bool computed from tensor data; Export IR would need while_loop, which this lowering does not produce
// WHILE-NOT: Traceback
ts.method @while_tensor {
^bb0(%x: !ts.tensor<Float(2, device=cpu)>):
  %max = prim.Constant() {value = 9223372036854775807 : i64} : () -> !ts.int
  %true = prim.Constant() {value = true} : () -> !ts.bool
  %none = prim.Constant() : () -> !ts.none
  %r = prim.Loop(%max, %true, %x) ({
  ^bb0(%i: !ts.int, %acc: !ts.tensor):
    %half = prim.Constant() {value = 0.5 : f64} : () -> !ts.float
    %y = ts.node "aten::mul"(%acc, %half) : (!ts.tensor, !ts.float) -> !ts.tensor
    %s = ts.node "aten::sum"(%y, %none) : (!ts.tensor, !ts.none) -> !ts.tensor
    %one = prim.Constant() {value = 1 : i64} : () -> !ts.int
    %g = ts.node "aten::gt"(%s, %one) : (!ts.tensor, !ts.int) -> !ts.tensor
    %c = ts.node "aten::Bool"(%g) : (!ts.tensor) -> !ts.bool
    prim.Return(%c, %y) : (!ts.bool, !ts.tensor) -> ()
  }) : (!ts.int, !ts.bool, !ts.tensor<Float(2, device=cpu)>) -> !ts.tensor
  prim.Return(%r) : (!ts.tensor) -> ()
}

// A for loop whose trip count is computed from tensor data.
// TRIP: exir-opt: error: {{.*}}torchscript-to-exir-invalid.mlir:[[# @LINE + 7]]:3: 'prim::Loop' (%r) in @trip_from_data: data-dependent loop: its trip count is an int computed from tensor data
ts.method @trip_from_data {
^bb0(%x: !ts.tensor<Long(2, device=cpu)>):
  %true = prim.Constant() {value = true} : () -> !ts.bool
  %none = prim.Constant() : () -> !ts.none
  %s = ts.node "aten::sum"(%x, %none) : (!ts.tensor<Long(2, device=cpu)>, !ts.none) -> !ts.tensor
  %n = ts.node "aten::Int"(%s) : (!ts.tensor) -> !ts.int
  %r = prim.Loop(%n, %true, %x) ({
  ^bb0(%i: !ts.int, %acc: !ts.tensor):
    %y = ts.node "aten::mul"(%acc, %acc) : (!ts.tensor, !ts.tensor) -> !ts.tensor
    prim.Return(%true, %y) : (!ts.bool, !ts.tensor) -> ()
  }) : (!ts.int, !ts.bool, !ts.tensor<Long(2, device=cpu)>) -> !ts.tensor
  prim.Return(%r) : (!ts.tensor) -> ()
}

// An input whose type does not say its dtype and sizes, and no input-types.
// UNTYPED: exir-opt: error: {{.*}}torchscript-to-exir-invalid.mlir:[[# @LINE + 1]]:1: 'ts.method': input 'x' of @untyped has type Tensor, which does not say its dtype and sizes; give them with the pass option input-types="x=f32[2, 3]" (one NAME=DTYPE[SIZES] per input, separated by ';')
ts.method @untyped {
^bb0(%x: !ts.tensor):
  %y = ts.node "aten::relu"(%x) : (!ts.tensor) -> !ts.tensor
  prim.Return(%y) : (!ts.tensor) -> ()
}

// A node kind nobody registered.
// UNKNOWN: exir-opt: error: {{.*}}torchscript-to-exir-invalid.mlir:[[# @LINE + 3]]:3: 'mylib::frobnicate' (%y) in @unknown_op: unknown operator mylib::frobnicate: TorchScript nodes of this kind have no Export IR lowering
ts.method @unknown_op {
^bb0(%x: !ts.tensor):
  %y = ts.node "mylib::frobnicate"(%x) : (!ts.tensor) -> !ts.tensor
  prim.Return(%y) : (!ts.tensor) -> ()
}

// A known ATen operator outside the aten dialect becomes an exir.call_function when its result
// types can be inferred; this one's cannot.
// NOATEN: exir-opt: error: {{.*}}torchscript-to-exir-invalid.mlir:[[# @LINE + 3]]:3: 'aten::_foobar' (%y) in @no_aten_op: aten::_foobar resolves to aten::_foobar, which is not an operator of the aten dialect, and its result types cannot be inferred (no inference rule for aten._foobar.default)
ts.method @no_aten_op {
^bb0(%x: !ts.tensor):
  %y = ts.node "aten::_foobar"(%x) : (!ts.tensor) -> !ts.tensor
  prim.Return(%y) : (!ts.tensor) -> ()
}

// A scalar input is specialized by input-values; this value makes the program raise.
// RAISE: exir-opt: error: {{.*}}torchscript-to-exir-invalid.mlir:[[# @LINE + 9]]:5: 'prim::RaiseException' in @scalar_input: the program always raises for these inputs: ValueError: n must be non-negative
// RAISE-NOT: Traceback
ts.method @scalar_input {
^bb0(%x: !ts.tensor, %n: !ts.int):
  %zero = prim.Constant() {value = 0 : i64} : () -> !ts.int
  %neg = ts.node "aten::lt"(%n, %zero) : (!ts.int, !ts.int) -> !ts.bool
  prim.If(%neg) ({
    %msg = prim.Constant() {value = "n must be non-negative"} : () -> !ts.str
    %cls = prim.Constant() {value = "builtins.ValueError"} : () -> !ts.str
    prim.RaiseException(%msg, %cls) : (!ts.str, !ts.str) -> ()
    prim.Return() : () -> ()
  }, {
    prim.Return() : () -> ()
  }) : (!ts.bool) -> ()
  %f = ts.node "aten::Float"(%n) : (!ts.int) -> !ts.float
  %y = ts.node "aten::mul"(%x, %f) : (!ts.tensor, !ts.float) -> !ts.tensor
  prim.Return(%y) : (!ts.tensor) -> ()
}

// exir.cond gives tensors: a branch on tensor data cannot give a tensor or None.
// BRANCH: exir-opt: error: {{.*}}torchscript-to-exir-invalid.mlir:[[# @LINE + 6]]:3: 'prim::If' (%k) in @branch_constant: the branches of a tensor-dependent if give a tensor of type !exir.tensor<[], float32> and the constant None; exir.cond results are tensors of one type
ts.method @branch_constant {
^bb0(%x: !ts.tensor):
  %zero = prim.Constant() {value = 0 : i64} : () -> !ts.int
  %g = ts.node "aten::gt"(%x, %zero) : (!ts.tensor, !ts.int) -> !ts.tensor
  %c = ts.node "aten::Bool"(%g) : (!ts.tensor) -> !ts.bool
  %k = prim.If(%c) ({
    prim.Return(%x) : (!ts.tensor) -> ()
  }, {
    %none = prim.Constant() : () -> !ts.none
    prim.Return(%none) : (!ts.none) -> ()
  }) : (!ts.bool) -> !ts.optional<!ts.tensor>
  prim.Return(%k) : (!ts.optional<!ts.tensor>) -> ()
}

// A constant output (torch.export's ConstantArgument) is no longer refused: it is an exir.constant.
// OUTPUT: %[[C:.*]] = exir.constant 2 : !exir.int
// OUTPUT-NEXT: exir.output %x, %[[C]] : !exir.tensor<[2], float32>, !exir.int
ts.method @returns_int {
^bb0(%x: !ts.tensor):
  %zero = prim.Constant() {value = 0 : i64} : () -> !ts.int
  %n = ts.node "aten::size"(%x, %zero) : (!ts.tensor, !ts.int) -> !ts.int
  %t = prim.TupleConstruct(%x, %n) : (!ts.tensor, !ts.int) -> !ts.tuple<!ts.tensor, !ts.int>
  prim.Return(%t) : (!ts.tuple<!ts.tensor, !ts.int>) -> ()
}

