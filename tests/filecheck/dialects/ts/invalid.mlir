// The verifiers of the ts and prim dialects, one case each.
// RUN: exir-opt %s --split-input-file --verify-diagnostics | filecheck %s

ts.method @f {
^bb0(%x: !ts.tensor<Float(2, 3, strides=[1])>):
  prim.Return(%x) : (!ts.tensor<Float(2, 3, strides=[1])>) -> ()
}
// CHECK: strides of Float(2, 3, strides=[1]) do not match its rank

// -----

ts.method @f {
^bb0(%x: !ts.dict<!ts.str>):
  prim.Return(%x) : (!ts.dict<!ts.str>) -> ()
}
// CHECK: ts.dict takes 2 element type(s), got 1

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  %y = ts.node "aten::relu"(%x) : (!ts.tensor) -> !ts.tensor
}
// CHECK: Operation ts.node terminates block in single-block region but is not a terminator

// -----

ts.method @f attributes {schema = "f(Tensor x, int n) -> Tensor"} {
^bb0(%x: !ts.tensor):
  prim.Return(%x) : (!ts.tensor) -> ()
}
// CHECK: schema of @f has 2 arguments but the graph has 1 inputs

// -----

ts.method @f attributes {schema = "f(Tensor x) -> (Tensor, Tensor)"} {
^bb0(%x: !ts.tensor):
  prim.Return(%x) : (!ts.tensor) -> ()
}
// CHECK: schema of @f has 2 returns but the graph returns 1 values

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  %y = ts.node "relu"(%x) : (!ts.tensor) -> !ts.tensor
  prim.Return(%y) : (!ts.tensor) -> ()
}
// CHECK: node kind 'relu' must be namespace::name

// -----

ts.module @m class "__torch__.M" {
  ts.slot parameter @w : !ts.int = 1 : i64
}
// CHECK: a parameter must be a tensor, got int

// -----

ts.module @m class "__torch__.M" {
  ts.slot parameter @w : !ts.tensor<Float(2)> = #ts.tensor_value<Float, [3], #exir.blob<"0x000000000000000000000000">>
}
// CHECK: slot @w holds data of sizes [3] but is typed Float(2)

// -----

ts.module @m class "__torch__.M" {
  ts.slot attribute @a : !ts.int = 1 : i64
  ts.slot attribute @a : !ts.int = 2 : i64
}
// CHECK: Redefinition of symbol "a"

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  %c = prim.Constant() {value = 1.5 : f64} : () -> !ts.int
  prim.Return(%x) : (!ts.tensor) -> ()
}
// CHECK: prim.Constant: value 1.5 does not fit type int

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  %c = prim.Constant() : () -> !ts.int
  prim.Return(%x) : (!ts.tensor) -> ()
}
// CHECK: prim.Constant: value None does not fit type int

// -----

ts.method @f {
^bb0(%x: !ts.tensor, %c: !ts.int):
  %r = prim.If(%c) ({
    prim.Return(%x) : (!ts.tensor) -> ()
  }, {
    prim.Return(%x) : (!ts.tensor) -> ()
  }) : (!ts.int) -> !ts.tensor
  prim.Return(%r) : (!ts.tensor) -> ()
}
// CHECK: prim.If: the condition must be a bool, got int

// -----

ts.method @f {
^bb0(%x: !ts.tensor, %c: !ts.bool):
  %r = prim.If(%c) ({
    prim.Return(%x) : (!ts.tensor) -> ()
  }, {
    prim.Return() : () -> ()
  }) : (!ts.bool) -> !ts.tensor
  prim.Return(%r) : (!ts.tensor) -> ()
}
// CHECK: prim.If: expected 1 outputs of block1, got 0

// -----

ts.method @f {
^bb0(%x: !ts.tensor, %c: !ts.bool, %n: !ts.int):
  %r = prim.If(%c) ({
    prim.Return(%x) : (!ts.tensor) -> ()
  }, {
    prim.Return(%n) : (!ts.int) -> ()
  }) : (!ts.bool) -> !ts.tensor
  prim.Return(%r) : (!ts.tensor) -> ()
}
// CHECK: prim.If: block1 output has type int, which is not a Tensor

// -----

ts.method @f {
^bb0(%x: !ts.tensor, %n: !ts.int, %c: !ts.bool):
  %r = prim.Loop(%n, %c, %x) ({
  ^bb0(%i: !ts.int):
    prim.Return(%c, %x) : (!ts.bool, !ts.tensor) -> ()
  }) : (!ts.int, !ts.bool, !ts.tensor) -> !ts.tensor
  prim.Return(%r) : (!ts.tensor) -> ()
}
// CHECK: prim.Loop: expected 2 body block arguments, got 1

// -----

ts.method @f {
^bb0(%x: !ts.tensor, %n: !ts.int, %c: !ts.bool):
  %r = prim.Loop(%n, %c, %x) ({
  ^bb0(%i: !ts.int, %a: !ts.tensor):
    prim.Return(%a) : (!ts.tensor) -> ()
  }) : (!ts.int, !ts.bool, !ts.tensor) -> !ts.tensor
  prim.Return(%r) : (!ts.tensor) -> ()
}
// CHECK: prim.Loop: expected 2 body outputs, got 1

// -----

ts.method @f {
^bb0(%x: !ts.tensor, %f: !ts.float, %c: !ts.bool):
  %r = prim.Loop(%f, %c, %x) ({
  ^bb0(%i: !ts.int, %a: !ts.tensor):
    prim.Return(%c, %a) : (!ts.bool, !ts.tensor) -> ()
  }) : (!ts.float, !ts.bool, !ts.tensor) -> !ts.tensor
  prim.Return(%r) : (!ts.tensor) -> ()
}
// CHECK: prim.Loop: the max trip count must be an int

// -----

ts.method @f {
^bb0(%x: !ts.tensor, %n: !ts.int):
  %l = prim.ListConstruct(%x, %n) : (!ts.tensor, !ts.int) -> !ts.list<!ts.tensor>
  prim.Return(%x) : (!ts.tensor) -> ()
}
// CHECK: prim.ListConstruct: element 1 has type int, which is not a Tensor

// -----

ts.method @f {
^bb0(%x: !ts.tensor, %n: !ts.int):
  %t = prim.TupleConstruct(%x, %n) : (!ts.tensor, !ts.int) -> !ts.tuple<!ts.tensor>
  prim.Return(%x) : (!ts.tensor) -> ()
}
// CHECK: prim.TupleConstruct: expected 1 elements, got 2

// -----

ts.method @f {
^bb0(%t: !ts.tuple<!ts.tensor, !ts.int>):
  %a = prim.TupleUnpack(%t) : (!ts.tuple<!ts.tensor, !ts.int>) -> !ts.tensor
  prim.Return(%a) : (!ts.tensor) -> ()
}
// CHECK: prim.TupleUnpack: expected 2 results, got 1

// -----

ts.method @f {
^bb0(%k: !ts.str, %v: !ts.int):
  %d = prim.DictConstruct(%k, %v) : (!ts.str, !ts.int) -> !ts.dict<!ts.str, !ts.tensor>
  prim.Return(%k) : (!ts.str) -> ()
}
// CHECK: prim.DictConstruct: value 0 has type int, which is not a Tensor

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  %w = prim.GetAttr(%x) {name = "weight"} : (!ts.tensor) -> !ts.tensor
  prim.Return(%w) : (!ts.tensor) -> ()
}
// CHECK: prim.GetAttr reads an object, got Tensor

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  %a, %b = prim.ConstantChunk(%x) {chunks = 3 : i64, dim = 0 : i64} : (!ts.tensor) -> (!ts.tensor, !ts.tensor)
  prim.Return(%a) : (!ts.tensor) -> ()
}
// CHECK: prim.ConstantChunk: expected 3 results, got 2

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  %y = prim.FusionGroup(%x) ({
  ^bb0(%p: !ts.tensor, %q: !ts.tensor):
    prim.Return(%p) : (!ts.tensor) -> ()
  }) : (!ts.tensor) -> !ts.tensor
  prim.Return(%y) : (!ts.tensor) -> ()
}
// CHECK: prim.FusionGroup: expected 1 subgraph inputs, got 2

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  %y = prim.FusionGroup(%x) ({
  ^bb0(%p: !ts.tensor):
    prim.Return(%x) : (!ts.tensor) -> ()
  }) : (!ts.tensor) -> !ts.tensor
  prim.Return(%y) : (!ts.tensor) -> ()
}
// CHECK: Operation using value defined out of its IsolatedFromAbove parent

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  %a, %ok = prim.TypeCheck(%x) {types = [!ts.tensor<Float(2)>]} : (!ts.tensor) -> (!ts.tensor<Float(2)>, !ts.int)
  prim.Return(%a) : (!ts.tensor<Float(2)>) -> ()
}
// CHECK: prim.TypeCheck: the last result must be a bool

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  %y = prim.fork(%x) ({
  ^bb0(%p: !ts.tensor):
    prim.Return(%p) : (!ts.tensor) -> ()
  }) : (!ts.tensor) -> !ts.tensor
  prim.Return(%y) : (!ts.tensor) -> ()
}
// CHECK: prim.fork returns a Future

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  prim.Store(%x, %x) {name = "x"} : (!ts.tensor, !ts.tensor) -> ()
  prim.Return(%x) : (!ts.tensor) -> ()
}
// CHECK: prim.Store: expected 1 operands, got 2

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  %n = prim.Constant() {value = 1 : i64} : () -> !ts.int
  prim.RaiseException(%n) : (!ts.int) -> ()
  prim.Return(%x) : (!ts.tensor) -> ()
}
// CHECK: prim.RaiseException: the message must be a str

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  %fn = prim.Constant() {value = 1 : i64} : () -> !ts.int
  %y = prim.CallFunction(%fn, %x) : (!ts.int, !ts.tensor) -> !ts.tensor
  prim.Return(%y) : (!ts.tensor) -> ()
}
// CHECK: prim.CallFunction: the first operand must be a function
