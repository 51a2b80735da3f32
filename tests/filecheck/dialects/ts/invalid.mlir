// The verifiers of the ts and prim dialects, one case each.
// RUN: exir-opt %s --split-input-file --verify-diagnostics

ts.method @f {
// expected-error@+1 {{strides of Float(2, 3, strides=[1]) do not match its rank}}
^bb0(%x: !ts.tensor<Float(2, 3, strides=[1])>):
  prim.Return(%x) : (!ts.tensor<Float(2, 3, strides=[1])>) -> ()
}

// -----

ts.method @f {
// expected-error@+1 {{ts.dict takes 2 element type(s), got 1}}
^bb0(%x: !ts.dict<!ts.str>):
  prim.Return(%x) : (!ts.dict<!ts.str>) -> ()
}

// -----

// expected-error@+1 {{ts.method @f must end with prim::Return}}
ts.method @f {
^bb0(%x: !ts.tensor):
  // expected-error@+1 {{Operation ts.node terminates block in single-block region but is not a terminator}}
  %y = ts.node "aten::relu"(%x) : (!ts.tensor) -> !ts.tensor
}

// -----

// expected-error@+1 {{schema of @f has 2 arguments but the graph has 1 inputs}}
ts.method @f attributes {schema = "f(Tensor x, int n) -> Tensor"} {
^bb0(%x: !ts.tensor):
  prim.Return(%x) : (!ts.tensor) -> ()
}

// -----

// expected-error@+1 {{schema of @f has 2 returns but the graph returns 1 values}}
ts.method @f attributes {schema = "f(Tensor x) -> (Tensor, Tensor)"} {
^bb0(%x: !ts.tensor):
  prim.Return(%x) : (!ts.tensor) -> ()
}

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  // expected-error@+1 {{node kind 'relu' must be namespace::name}}
  %y = ts.node "relu"(%x) : (!ts.tensor) -> !ts.tensor
  prim.Return(%y) : (!ts.tensor) -> ()
}

// -----

ts.module @m class "__torch__.M" {
  // expected-error@+1 {{a parameter must be a tensor, got int}}
  ts.slot parameter @w : !ts.int = 1 : i64
}

// -----

ts.module @m class "__torch__.M" {
  // expected-error@+1 {{slot @w holds data of sizes [3] but is typed Float(2)}}
  ts.slot parameter @w : !ts.tensor<Float(2)> = #ts.tensor_value<Float, [3], #exir.blob<"0x000000000000000000000000">>
}

// -----

// expected-error@+1 {{Redefinition of symbol "a"}}
ts.module @m class "__torch__.M" {
  ts.slot attribute @a : !ts.int = 1 : i64
  ts.slot attribute @a : !ts.int = 2 : i64
}

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  // expected-error@+1 {{prim::Constant: value 1.5 does not fit type int}}
  %c = prim.Constant() {value = 1.5 : f64} : () -> !ts.int
  prim.Return(%x) : (!ts.tensor) -> ()
}

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  // expected-error@+1 {{prim::Constant: value None does not fit type int}}
  %c = prim.Constant() : () -> !ts.int
  prim.Return(%x) : (!ts.tensor) -> ()
}

// -----

ts.method @f {
^bb0(%x: !ts.tensor, %c: !ts.int):
  // expected-error@+1 {{prim::If: the condition must be a bool, got int}}
  %r = prim.If(%c) ({
    prim.Return(%x) : (!ts.tensor) -> ()
  }, {
    prim.Return(%x) : (!ts.tensor) -> ()
  }) : (!ts.int) -> !ts.tensor
  prim.Return(%r) : (!ts.tensor) -> ()
}

// -----

ts.method @f {
^bb0(%x: !ts.tensor, %c: !ts.bool):
  // expected-error@+1 {{prim::If: expected 1 outputs of block1, got 0}}
  %r = prim.If(%c) ({
    prim.Return(%x) : (!ts.tensor) -> ()
  }, {
    prim.Return() : () -> ()
  }) : (!ts.bool) -> !ts.tensor
  prim.Return(%r) : (!ts.tensor) -> ()
}

// -----

ts.method @f {
^bb0(%x: !ts.tensor, %c: !ts.bool, %n: !ts.int):
  // expected-error@+1 {{prim::If: block1 output has type int, which is not a Tensor}}
  %r = prim.If(%c) ({
    prim.Return(%x) : (!ts.tensor) -> ()
  }, {
    prim.Return(%n) : (!ts.int) -> ()
  }) : (!ts.bool) -> !ts.tensor
  prim.Return(%r) : (!ts.tensor) -> ()
}

// -----

ts.method @f {
^bb0(%x: !ts.tensor, %n: !ts.int, %c: !ts.bool):
  // expected-error@+1 {{prim::Loop: expected 2 body block arguments, got 1}}
  %r = prim.Loop(%n, %c, %x) ({
  ^bb0(%i: !ts.int):
    prim.Return(%c, %x) : (!ts.bool, !ts.tensor) -> ()
  }) : (!ts.int, !ts.bool, !ts.tensor) -> !ts.tensor
  prim.Return(%r) : (!ts.tensor) -> ()
}

// -----

ts.method @f {
^bb0(%x: !ts.tensor, %n: !ts.int, %c: !ts.bool):
  // expected-error@+1 {{prim::Loop: expected 2 body outputs, got 1}}
  %r = prim.Loop(%n, %c, %x) ({
  ^bb0(%i: !ts.int, %a: !ts.tensor):
    prim.Return(%a) : (!ts.tensor) -> ()
  }) : (!ts.int, !ts.bool, !ts.tensor) -> !ts.tensor
  prim.Return(%r) : (!ts.tensor) -> ()
}

// -----

ts.method @f {
^bb0(%x: !ts.tensor, %f: !ts.float, %c: !ts.bool):
  // expected-error@+1 {{prim::Loop: the max trip count must be an int}}
  %r = prim.Loop(%f, %c, %x) ({
  ^bb0(%i: !ts.int, %a: !ts.tensor):
    prim.Return(%c, %a) : (!ts.bool, !ts.tensor) -> ()
  }) : (!ts.float, !ts.bool, !ts.tensor) -> !ts.tensor
  prim.Return(%r) : (!ts.tensor) -> ()
}

// -----

ts.method @f {
^bb0(%x: !ts.tensor, %n: !ts.int):
  // expected-error@+1 {{prim::ListConstruct: element 1 has type int, which is not a Tensor}}
  %l = prim.ListConstruct(%x, %n) : (!ts.tensor, !ts.int) -> !ts.list<!ts.tensor>
  prim.Return(%x) : (!ts.tensor) -> ()
}

// -----

ts.method @f {
^bb0(%x: !ts.tensor, %n: !ts.int):
  // expected-error@+1 {{prim::TupleConstruct: expected 1 elements, got 2}}
  %t = prim.TupleConstruct(%x, %n) : (!ts.tensor, !ts.int) -> !ts.tuple<!ts.tensor>
  prim.Return(%x) : (!ts.tensor) -> ()
}

// -----

ts.method @f {
^bb0(%t: !ts.tuple<!ts.tensor, !ts.int>):
  // expected-error@+1 {{prim::TupleUnpack: expected 2 results, got 1}}
  %a = prim.TupleUnpack(%t) : (!ts.tuple<!ts.tensor, !ts.int>) -> !ts.tensor
  prim.Return(%a) : (!ts.tensor) -> ()
}

// -----

ts.method @f {
^bb0(%k: !ts.str, %v: !ts.int):
  // expected-error@+1 {{prim::DictConstruct: value 0 has type int, which is not a Tensor}}
  %d = prim.DictConstruct(%k, %v) : (!ts.str, !ts.int) -> !ts.dict<!ts.str, !ts.tensor>
  prim.Return(%k) : (!ts.str) -> ()
}

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  // expected-error@+1 {{prim::GetAttr reads an object, got Tensor}}
  %w = prim.GetAttr(%x) {name = "weight"} : (!ts.tensor) -> !ts.tensor
  prim.Return(%w) : (!ts.tensor) -> ()
}

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  // expected-error@+1 {{prim::ConstantChunk: expected 3 results, got 2}}
  %a, %b = prim.ConstantChunk(%x) {chunks = 3 : i64, dim = 0 : i64} : (!ts.tensor) -> (!ts.tensor, !ts.tensor)
  prim.Return(%a) : (!ts.tensor) -> ()
}

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  // expected-error@+1 {{prim::FusionGroup: expected 1 subgraph inputs, got 2}}
  %y = prim.FusionGroup(%x) ({
  ^bb0(%p: !ts.tensor, %q: !ts.tensor):
    prim.Return(%p) : (!ts.tensor) -> ()
  }) : (!ts.tensor) -> !ts.tensor
  prim.Return(%y) : (!ts.tensor) -> ()
}

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  // expected-error@+1 {{Operation using value defined out of its IsolatedFromAbove parent}}
  %y = prim.FusionGroup(%x) ({
  ^bb0(%p: !ts.tensor):
    prim.Return(%x) : (!ts.tensor) -> ()
  }) : (!ts.tensor) -> !ts.tensor
  prim.Return(%y) : (!ts.tensor) -> ()
}

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  // expected-error@+1 {{prim::TypeCheck: the last result must be a bool}}
  %a, %ok = prim.TypeCheck(%x) {types = [!ts.tensor<Float(2)>]} : (!ts.tensor) -> (!ts.tensor<Float(2)>, !ts.int)
  prim.Return(%a) : (!ts.tensor<Float(2)>) -> ()
}

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  // expected-error@+1 {{prim::fork returns a Future}}
  %y = prim.fork(%x) ({
  ^bb0(%p: !ts.tensor):
    prim.Return(%p) : (!ts.tensor) -> ()
  }) : (!ts.tensor) -> !ts.tensor
  prim.Return(%y) : (!ts.tensor) -> ()
}

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  // expected-error@+1 {{prim::Store: expected 1 operands, got 2}}
  prim.Store(%x, %x) {name = "x"} : (!ts.tensor, !ts.tensor) -> ()
  prim.Return(%x) : (!ts.tensor) -> ()
}

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  %n = prim.Constant() {value = 1 : i64} : () -> !ts.int
  // expected-error@+1 {{prim::RaiseException: the message must be a str}}
  prim.RaiseException(%n) : (!ts.int) -> ()
  prim.Return(%x) : (!ts.tensor) -> ()
}

// -----

ts.method @f {
^bb0(%x: !ts.tensor):
  %fn = prim.Constant() {value = 1 : i64} : () -> !ts.int
  // expected-error@+1 {{prim::CallFunction: the first operand must be a function}}
  %y = prim.CallFunction(%fn, %x) : (!ts.int, !ts.tensor) -> !ts.tensor
  prim.Return(%y) : (!ts.tensor) -> ()
}
