// Every op of the ts and prim dialects round-trips in custom and generic form.
// RUN: exir-opt %s | exir-opt | filecheck %s
// RUN: exir-opt %s --print-op-generic | exir-opt | filecheck %s

// A Module: parameters, buffers, attributes, a submodule, methods.
// CHECK-LABEL: ts.module @m class "__torch__.M" {
// Tensor data is MLIR's dense_resource, the bytes in the resources at the end (after a 4-byte alignment word).
// CHECK-NEXT:    ts.slot parameter @weight : !ts.tensor<Float(2, 2, strides=[2, 1], requires_grad=1, device=cpu)> = #ts.tensor_value<Float, [2, 2], dense_resource<weight>>
// CHECK-NEXT:    ts.slot buffer @steps : !ts.tensor<Long(requires_grad=0, device=cpu)> = #ts.tensor_value<Long, [], dense_resource<steps>>
// CHECK-NEXT:    ts.slot attribute @scale : !ts.float = 5.000000e-01 : f64
// CHECK-NEXT:    ts.slot attribute @name : !ts.str = "m"
// CHECK-NEXT:    ts.slot attribute @sizes : !ts.list<!ts.int> = [1 : i64, 2 : i64]
// CHECK-NEXT:    ts.module @sub class "__torch__.Sub" {
// CHECK-NEXT:      ts.method @forward attributes {schema = "forward(__torch__.Sub self, Tensor x) -> Tensor"} {
// CHECK:         ts.method @forward attributes {schema = "forward(__torch__.M self, Tensor x, int n) -> (Tensor, int)"} {
// CHECK-NEXT:    ^bb0(%self: !ts.class<"__torch__.M">, %x: !ts.tensor, %n: !ts.int):
// CHECK-NEXT:      %w = prim.GetAttr(%self) {name = "weight"} : (!ts.class<"__torch__.M">) -> !ts.tensor
// CHECK-NEXT:      %sub = prim.GetAttr(%self) {name = "sub"} : (!ts.class<"__torch__.M">) -> !ts.class<"__torch__.Sub">
// CHECK-NEXT:      %y = prim.CallMethod(%sub, %x) {name = "forward"} : (!ts.class<"__torch__.Sub">, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:      prim.SetAttr(%self, %n) {name = "count"} : (!ts.class<"__torch__.M">, !ts.int) -> ()
// CHECK-NEXT:      %t = prim.TupleConstruct(%y, %n) : (!ts.tensor, !ts.int) -> !ts.tuple<!ts.tensor, !ts.int>
// CHECK-NEXT:      %a, %b = prim.TupleUnpack(%t) : (!ts.tuple<!ts.tensor, !ts.int>) -> (!ts.tensor, !ts.int)
// CHECK-NEXT:      %i0 = prim.Constant() {value = 0 : i64} : () -> !ts.int
// CHECK-NEXT:      %a2 = prim.TupleIndex(%t, %i0) : (!ts.tuple<!ts.tensor, !ts.int>, !ts.int) -> !ts.tensor
// CHECK-NEXT:      prim.Return(%a2, %b) : (!ts.tensor, !ts.int) -> ()
ts.module @m class "__torch__.M" {
  ts.slot parameter @weight : !ts.tensor<Float(2, 2, strides=[2, 1], requires_grad=1, device=cpu)> = #ts.tensor_value<Float, [2, 2], #exir.blob<"0x0000803F000000000000000000008040">>
  ts.slot buffer @steps : !ts.tensor<Long(requires_grad=0, device=cpu)> = #ts.tensor_value<Long, [], #exir.blob<"0x0000000000000000">>
  ts.slot attribute @scale : !ts.float = 0.5 : f64
  ts.slot attribute @name : !ts.str = "m"
  ts.slot attribute @sizes : !ts.list<!ts.int> = [1 : i64, 2 : i64]
  ts.module @sub class "__torch__.Sub" {
    ts.method @forward attributes {schema = "forward(__torch__.Sub self, Tensor x) -> Tensor"} {
    ^bb0(%self: !ts.class<"__torch__.Sub">, %x: !ts.tensor):
      %y = ts.node "aten::relu"(%x) : (!ts.tensor) -> !ts.tensor
      prim.Return(%y) : (!ts.tensor) -> ()
    }
  }
  ts.method @forward attributes {schema = "forward(__torch__.M self, Tensor x, int n) -> (Tensor, int)"} {
  ^bb0(%self: !ts.class<"__torch__.M">, %x: !ts.tensor, %n: !ts.int):
    %w = prim.GetAttr(%self) {name = "weight"} : (!ts.class<"__torch__.M">) -> !ts.tensor
    %sub = prim.GetAttr(%self) {name = "sub"} : (!ts.class<"__torch__.M">) -> !ts.class<"__torch__.Sub">
    %y = prim.CallMethod(%sub, %x) {name = "forward"} : (!ts.class<"__torch__.Sub">, !ts.tensor) -> !ts.tensor
    prim.SetAttr(%self, %n) {name = "count"} : (!ts.class<"__torch__.M">, !ts.int) -> ()
    %t = prim.TupleConstruct(%y, %n) : (!ts.tensor, !ts.int) -> !ts.tuple<!ts.tensor, !ts.int>
    %a, %b = prim.TupleUnpack(%t) : (!ts.tuple<!ts.tensor, !ts.int>) -> (!ts.tensor, !ts.int)
    %i0 = prim.Constant() {value = 0 : i64} : () -> !ts.int
    %a2 = prim.TupleIndex(%t, %i0) : (!ts.tuple<!ts.tensor, !ts.int>, !ts.int) -> !ts.tensor
    prim.Return(%a2, %b) : (!ts.tensor, !ts.int) -> ()
  }
}

// Constants of every kind; lists, dicts; calls of functions.
// CHECK-LABEL: ts.method @constants
// CHECK-NEXT:  ^bb0(%x: !ts.tensor):
// CHECK-NEXT:    %i = prim.Constant() {value = 1 : i64} : () -> !ts.int
// CHECK-NEXT:    %f = prim.Constant() {value = 2.500000e-01 : f64} : () -> !ts.float
// CHECK-NEXT:    %b = prim.Constant() {value = false} : () -> !ts.bool
// CHECK-NEXT:    %s = prim.Constant() {value = "key"} : () -> !ts.str
// CHECK-NEXT:    %n = prim.Constant() : () -> !ts.none
// CHECK-NEXT:    %d = prim.Constant() {value = "cpu"} : () -> !ts.device
// CHECK-NEXT:    %t = prim.Constant() {value = #ts.tensor_value<Long, [], dense_resource<[[T:tensor[_0-9]*]]>>} : () -> !ts.tensor
// CHECK-NEXT:    %unknown = prim.Constant() {value = #ts.tensor_value<Float, [3], #exir.blob<"0x">>} : () -> !ts.tensor
// CHECK-NEXT:    %l = prim.Constant() {value = [1 : i64, 2 : i64]} : () -> !ts.list<!ts.int>
// CHECK-NEXT:    %fn = prim.Constant() {name = "helper"} : () -> !ts.function<"helper">
// CHECK-NEXT:    %r = prim.CallFunction(%fn, %x) : (!ts.function<"helper">, !ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %lc = prim.ListConstruct(%x, %r) : (!ts.tensor, !ts.tensor) -> !ts.list<!ts.tensor>
// CHECK-NEXT:    %u0, %u1 = prim.ListUnpack(%lc) : (!ts.list<!ts.tensor>) -> (!ts.tensor, !ts.tensor)
// CHECK-NEXT:    %dc = prim.DictConstruct(%s, %u0) : (!ts.str, !ts.tensor) -> !ts.dict<!ts.str, !ts.tensor>
// CHECK-NEXT:    %c0, %c1 = prim.ConstantChunk(%x) {chunks = 2 : i64, dim = 0 : i64} : (!ts.tensor) -> (!ts.tensor, !ts.tensor)
// CHECK-NEXT:    %un = prim.Uninitialized() : () -> !ts.tensor
// CHECK-NEXT:    prim.Return(%c0) : (!ts.tensor) -> ()
ts.method @constants {
^bb0(%x: !ts.tensor):
  %i = prim.Constant() {value = 1 : i64} : () -> !ts.int
  %f = prim.Constant() {value = 0.25 : f64} : () -> !ts.float
  %b = prim.Constant() {value = false} : () -> !ts.bool
  %s = prim.Constant() {value = "key"} : () -> !ts.str
  %n = prim.Constant() : () -> !ts.none
  %d = prim.Constant() {value = "cpu"} : () -> !ts.device
  %t = prim.Constant() {value = #ts.tensor_value<Long, [], #exir.blob<"0x0200000000000000">>} : () -> !ts.tensor
  %unknown = prim.Constant() {value = #ts.tensor_value<Float, [3], #exir.blob<"0x">>} : () -> !ts.tensor
  %l = prim.Constant() {value = [1 : i64, 2 : i64]} : () -> !ts.list<!ts.int>
  %fn = prim.Constant() {name = "helper"} : () -> !ts.function<"helper">
  %r = prim.CallFunction(%fn, %x) : (!ts.function<"helper">, !ts.tensor) -> !ts.tensor
  %lc = prim.ListConstruct(%x, %r) : (!ts.tensor, !ts.tensor) -> !ts.list<!ts.tensor>
  %u0, %u1 = prim.ListUnpack(%lc) : (!ts.list<!ts.tensor>) -> (!ts.tensor, !ts.tensor)
  %dc = prim.DictConstruct(%s, %u0) : (!ts.str, !ts.tensor) -> !ts.dict<!ts.str, !ts.tensor>
  %c0, %c1 = prim.ConstantChunk(%x) {chunks = 2 : i64, dim = 0 : i64} : (!ts.tensor) -> (!ts.tensor, !ts.tensor)
  %un = prim.Uninitialized() : () -> !ts.tensor
  prim.Return(%c0) : (!ts.tensor) -> ()
}

// Structured control flow: If, both Loop forms, With, Enter/Exit, raise.
// CHECK-LABEL: ts.method @control
// CHECK:         %r = prim.If(%c) ({
// CHECK-NEXT:      %y = ts.node "aten::neg"(%x) : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:      prim.Return(%y) : (!ts.tensor) -> ()
// CHECK-NEXT:    }, {
// CHECK-NEXT:      prim.Return(%x) : (!ts.tensor) -> ()
// CHECK-NEXT:    }) : (!ts.bool) -> !ts.tensor
// CHECK:         %z = prim.Loop(%n, %true, %r) ({
// CHECK-NEXT:    ^bb0(%i: !ts.int, %acc: !ts.tensor):
// CHECK:           prim.Return(%true, %acc2) : (!ts.bool, !ts.tensor) -> ()
// CHECK-NEXT:    }) : (!ts.int, !ts.bool, !ts.tensor) -> !ts.tensor
// CHECK:         %w = prim.Loop(%max, %c, %n) ({
// CHECK:         %v = prim.Enter(%ctx) : (!ts.class<"__torch__.Ctx">) -> !ts.int
// CHECK-NEXT:    prim.With() ({
// CHECK:         prim.Exit(%ctx) : (!ts.class<"__torch__.Ctx">) -> ()
// CHECK:         prim.RaiseException(%msg, %cls) : (!ts.str, !ts.str) -> ()
ts.method @control {
^bb0(%x: !ts.tensor, %c: !ts.bool, %n: !ts.int, %ctx: !ts.class<"__torch__.Ctx">):
  %r = prim.If(%c) ({
    %y = ts.node "aten::neg"(%x) : (!ts.tensor) -> !ts.tensor
    prim.Return(%y) : (!ts.tensor) -> ()
  }, {
    prim.Return(%x) : (!ts.tensor) -> ()
  }) : (!ts.bool) -> !ts.tensor
  %true = prim.Constant() {value = true} : () -> !ts.bool
  %z = prim.Loop(%n, %true, %r) ({
  ^bb0(%i: !ts.int, %acc: !ts.tensor):
    %acc2 = ts.node "aten::mul"(%acc, %acc) : (!ts.tensor, !ts.tensor) -> !ts.tensor
    prim.Return(%true, %acc2) : (!ts.bool, !ts.tensor) -> ()
  }) : (!ts.int, !ts.bool, !ts.tensor) -> !ts.tensor
  %max = prim.Constant() {value = 9223372036854775807 : i64} : () -> !ts.int
  %w = prim.Loop(%max, %c, %n) ({
  ^bb0(%j: !ts.int, %k: !ts.int):
    %one = prim.Constant() {value = 1 : i64} : () -> !ts.int
    %k2 = ts.node "aten::sub"(%k, %one) : (!ts.int, !ts.int) -> !ts.int
    %zero = prim.Constant() {value = 0 : i64} : () -> !ts.int
    %go = ts.node "aten::gt"(%k2, %zero) : (!ts.int, !ts.int) -> !ts.bool
    prim.Return(%go, %k2) : (!ts.bool, !ts.int) -> ()
  }) : (!ts.int, !ts.bool, !ts.int) -> !ts.int
  %v = prim.Enter(%ctx) : (!ts.class<"__torch__.Ctx">) -> !ts.int
  prim.With() ({
    %q = ts.node "aten::add"(%x, %v, %v) : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
    prim.Return() : () -> ()
  }, {
    prim.Exit(%ctx) : (!ts.class<"__torch__.Ctx">) -> ()
    prim.Return() : () -> ()
  }) : () -> ()
  %msg = prim.Constant() {value = "negative"} : () -> !ts.str
  %cls = prim.Constant() {value = "builtins.ValueError"} : () -> !ts.str
  prim.RaiseException(%msg, %cls) : (!ts.str, !ts.str) -> ()
  prim.Return(%z) : (!ts.tensor) -> ()
}

// The frontend's forms, before convert-to-ssa and exit-transform.
// CHECK-LABEL: ts.method @frontend
// CHECK:         prim.Store(%x) {name = "y"} : (!ts.tensor) -> ()
// CHECK-NEXT:    %y = prim.Load() {name = "y"} : () -> !ts.tensor
// CHECK:           prim.BreakStmt() : () -> ()
// CHECK:           prim.ContinueStmt() : () -> ()
// CHECK:           prim.LoopContinuation(%f, %y) : (!ts.bool, !ts.tensor) -> ()
// CHECK:         prim.ReturnStmt(%y) : (!ts.tensor) -> ()
ts.method @frontend {
^bb0(%x: !ts.tensor, %n: !ts.int):
  prim.Store(%x) {name = "y"} : (!ts.tensor) -> ()
  %y = prim.Load() {name = "y"} : () -> !ts.tensor
  %t = prim.Constant() {value = true} : () -> !ts.bool
  %f = prim.Constant() {value = false} : () -> !ts.bool
  prim.Loop(%n, %t) ({
  ^bb0(%i: !ts.int):
    prim.BreakStmt() : () -> ()
    prim.ContinueStmt() : () -> ()
    prim.LoopContinuation(%f, %y) : (!ts.bool, !ts.tensor) -> ()
    prim.Return(%t) : (!ts.bool) -> ()
  }) : (!ts.int, !ts.bool) -> ()
  prim.ReturnStmt(%y) : (!ts.tensor) -> ()
  prim.Return(%y) : (!ts.tensor) -> ()
}

// The graph executor's nodes: subgraph groups, type checks, guards, profiling, fork.
// CHECK-LABEL: ts.method @executor
// CHECK:         %hy, %cy = prim.FusionGroup(%a, %b) ({
// CHECK-NEXT:    ^bb0(%p: !ts.tensor<Float(*, *)>, %q: !ts.tensor<Float(*, *)>):
// CHECK:         }) : (!ts.tensor<Float(*, *)>, !ts.tensor<Float(*, *)>) -> (!ts.tensor<Float(*, *)>, !ts.tensor<Float(*, *)>)
// CHECK:         %te = prim.TensorExprGroup(%a) ({
// CHECK:         %dg = prim.DifferentiableGraph(%a) ({
// CHECK:         %a1, %ok = prim.TypeCheck(%a) {types = [!ts.tensor<Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)>]} : (!ts.tensor<Float(*, *)>) -> (!ts.tensor<Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)>, !ts.bool)
// CHECK-NEXT:    %g = prim.Guard(%a) : (!ts.tensor<Float(*, *)>) -> !ts.tensor<Float(2, 3)>
// CHECK-NEXT:    %bo = prim.BailOut(%a, %b) {index = 0 : i64} : (!ts.tensor<Float(*, *)>, !ts.tensor<Float(*, *)>) -> !ts.tensor<Float(2, 3)>
// CHECK-NEXT:    %pr = prim.profile(%a) {profiled_type = !ts.tensor<Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)>, seen_none = 0 : i64} : (!ts.tensor<Float(*, *)>) -> !ts.tensor<Float(*, *)>
// CHECK-NEXT:    %fut = prim.fork(%a) ({
// CHECK:         }) : (!ts.tensor<Float(*, *)>) -> !ts.future<!ts.tensor>
// CHECK-NEXT:    %got = ts.node "aten::wait"(%fut) : (!ts.future<!ts.tensor>) -> !ts.tensor
ts.method @executor {
^bb0(%a: !ts.tensor<Float(*, *)>, %b: !ts.tensor<Float(*, *)>):
  %hy, %cy = prim.FusionGroup(%a, %b) ({
  ^bb0(%p: !ts.tensor<Float(*, *)>, %q: !ts.tensor<Float(*, *)>):
    %s = ts.node "aten::sigmoid"(%p) : (!ts.tensor<Float(*, *)>) -> !ts.tensor<Float(*, *)>
    %m = ts.node "aten::mul"(%s, %q) : (!ts.tensor<Float(*, *)>, !ts.tensor<Float(*, *)>) -> !ts.tensor<Float(*, *)>
    prim.Return(%s, %m) : (!ts.tensor<Float(*, *)>, !ts.tensor<Float(*, *)>) -> ()
  }) : (!ts.tensor<Float(*, *)>, !ts.tensor<Float(*, *)>) -> (!ts.tensor<Float(*, *)>, !ts.tensor<Float(*, *)>)
  %te = prim.TensorExprGroup(%a) ({
  ^bb0(%p: !ts.tensor<Float(*, *)>):
    %e = ts.node "aten::exp"(%p) : (!ts.tensor<Float(*, *)>) -> !ts.tensor<Float(*, *)>
    prim.Return(%e) : (!ts.tensor<Float(*, *)>) -> ()
  }) : (!ts.tensor<Float(*, *)>) -> !ts.tensor<Float(*, *)>
  %dg = prim.DifferentiableGraph(%a) ({
  ^bb0(%p: !ts.tensor<Float(*, *)>):
    %e = ts.node "aten::tanh"(%p) : (!ts.tensor<Float(*, *)>) -> !ts.tensor<Float(*, *)>
    prim.Return(%e) : (!ts.tensor<Float(*, *)>) -> ()
  }) : (!ts.tensor<Float(*, *)>) -> !ts.tensor<Float(*, *)>
  %a1, %ok = prim.TypeCheck(%a) {types = [!ts.tensor<Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)>]} : (!ts.tensor<Float(*, *)>) -> (!ts.tensor<Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)>, !ts.bool)
  %g = prim.Guard(%a) : (!ts.tensor<Float(*, *)>) -> !ts.tensor<Float(2, 3)>
  %bo = prim.BailOut(%a, %b) {index = 0 : i64} : (!ts.tensor<Float(*, *)>, !ts.tensor<Float(*, *)>) -> !ts.tensor<Float(2, 3)>
  %pr = prim.profile(%a) {profiled_type = !ts.tensor<Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)>, seen_none = 0 : i64} : (!ts.tensor<Float(*, *)>) -> !ts.tensor<Float(*, *)>
  %fut = prim.fork(%a) ({
  ^bb0(%p: !ts.tensor<Float(*, *)>):
    %e = ts.node "aten::relu"(%p) : (!ts.tensor<Float(*, *)>) -> !ts.tensor
    prim.Return(%e) : (!ts.tensor) -> ()
  }) : (!ts.tensor<Float(*, *)>) -> !ts.future<!ts.tensor>
  %got = ts.node "aten::wait"(%fut) : (!ts.future<!ts.tensor>) -> !ts.tensor
  prim.Return(%hy) : (!ts.tensor<Float(*, *)>) -> ()
}

// An unknown node kind stays representable, with attributes and blocks.
// CHECK-LABEL: ts.method @open
// CHECK-NEXT:  ^bb0(%x: !ts.tensor):
// CHECK-NEXT:    %y = ts.node "my_ns::fancy"(%x) attributes {alpha = 2 : i64, mode = "fast"} : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    ts.node "my_ns::log"(%y) : (!ts.tensor) -> ()
// CHECK-NEXT:    %z = ts.node "my_ns::region"(%y) ({
ts.method @open {
^bb0(%x: !ts.tensor):
  %y = ts.node "my_ns::fancy"(%x) attributes {alpha = 2 : i64, mode = "fast"} : (!ts.tensor) -> !ts.tensor
  ts.node "my_ns::log"(%y) : (!ts.tensor) -> ()
  %z = ts.node "my_ns::region"(%y) ({
    prim.Return(%y) : (!ts.tensor) -> ()
  }) : (!ts.tensor) -> !ts.tensor
  prim.Return(%z) : (!ts.tensor) -> ()
}

// CHECK:         dialect_resources: {
// CHECK-NEXT:      builtin: {
// CHECK-NEXT:        steps: "0x100000000000000000000000",
// CHECK-NEXT:        [[T]]: "0x100000000200000000000000",
// CHECK-NEXT:        weight: "0x100000000000803F000000000000000000008040"
