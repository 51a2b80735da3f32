// exir-run on a TorchScript module: a parameter with its data, int and float
// attributes, a submodule method call, prim::SetAttr, a `with` over a class
// instance (prim::CreateObject, __enter__/__exit__), and a raised exception.
// RUN: exir-run %s | filecheck %s
// RUN: not exir-run %s --entry check 2>&1 | filecheck %s --check-prefix=RAISE
// RUN: not exir-run %s --entry missing 2>&1 | filecheck %s --check-prefix=ENTRY

builtin.module {
  ts.module @main class "__torch__.M" {
    ts.slot parameter @w : !ts.tensor<Float(3, strides=[1], requires_grad=1, device=cpu)> = #ts.tensor_value<Float, [3], #exir.blob<"0x0000803F0000004000004040">>
    ts.slot attribute @count : !ts.int = 5 : i64
    ts.module @sub class "__torch__.Sub" {
      ts.slot attribute @scale : !ts.float = 2.5 : f64
      ts.method @forward {
      ^bb0(%self: !ts.class<"__torch__.Sub">, %x: !ts.tensor):
        %s = prim.GetAttr(%self) {name = "scale"} : (!ts.class<"__torch__.Sub">) -> !ts.float
        %y = ts.node "aten::mul"(%x, %s) : (!ts.tensor, !ts.float) -> !ts.tensor
        prim.Return(%y) : (!ts.tensor) -> ()
      }
    }
    ts.method @forward {
    ^bb0(%self: !ts.class<"__torch__.M">):
      %w = prim.GetAttr(%self) {name = "w"} : (!ts.class<"__torch__.M">) -> !ts.tensor
      %sub = prim.GetAttr(%self) {name = "sub"} : (!ts.class<"__torch__.M">) -> !ts.class<"__torch__.Sub">
      %y = prim.CallMethod(%sub, %w) {name = "forward"} : (!ts.class<"__torch__.Sub">, !ts.tensor) -> !ts.tensor
      %c = prim.GetAttr(%self) {name = "count"} : (!ts.class<"__torch__.M">) -> !ts.int
      %one = prim.Constant() {value = 1 : i64} : () -> !ts.int
      %c2 = ts.node "aten::add"(%c, %one) : (!ts.int, !ts.int) -> !ts.int
      prim.SetAttr(%self, %c2) {name = "count"} : (!ts.class<"__torch__.M">, !ts.int) -> ()
      %ctx = ts.node "prim::CreateObject"() : () -> !ts.class<"__torch__.Ctx">
      %e = prim.Enter(%ctx) : (!ts.class<"__torch__.Ctx">) -> !ts.int
      %z = ts.node "aten::mul"(%y, %e) : (!ts.tensor, !ts.int) -> !ts.tensor
      %x = prim.Exit(%ctx) : (!ts.class<"__torch__.Ctx">) -> !ts.none
      %ok = prim.GetAttr(%ctx) {name = "exited"} : (!ts.class<"__torch__.Ctx">) -> !ts.bool
      %t = prim.TupleConstruct(%z, %c2, %ok) : (!ts.tensor, !ts.int, !ts.bool) -> !ts.tuple<!ts.tensor, !ts.int, !ts.bool>
      prim.Return(%t) : (!ts.tuple<!ts.tensor, !ts.int, !ts.bool>) -> ()
    }
    ts.method @check {
    ^bb0(%self: !ts.class<"__torch__.M">):
      %c = prim.GetAttr(%self) {name = "count"} : (!ts.class<"__torch__.M">) -> !ts.int
      %fmt = prim.Constant() {value = "count is {}"} : () -> !ts.str
      %msg = ts.node "aten::format"(%fmt, %c) : (!ts.str, !ts.int) -> !ts.str
      %cls = prim.Constant() {value = "builtins.RuntimeError"} : () -> !ts.str
      prim.RaiseException(%msg, %cls) : (!ts.str, !ts.str) -> ()
      %n = prim.Constant() : () -> !ts.none
      prim.Return(%n) : (!ts.none) -> ()
    }
  }
  ts.module @ctx class "__torch__.Ctx" {
    ts.method @__enter__ {
    ^bb0(%self: !ts.class<"__torch__.Ctx">):
      %v = prim.Constant() {value = 3 : i64} : () -> !ts.int
      prim.Return(%v) : (!ts.int) -> ()
    }
    ts.method @__exit__ {
    ^bb0(%self: !ts.class<"__torch__.Ctx">, %a: !ts.any, %b: !ts.any, %c: !ts.any):
      %true = prim.Constant() {value = true} : () -> !ts.bool
      prim.SetAttr(%self, %true) {name = "exited"} : (!ts.class<"__torch__.Ctx">, !ts.bool) -> ()
      %n = prim.Constant() : () -> !ts.none
      prim.Return(%n) : (!ts.none) -> ()
    }
  }
}

// CHECK:      out0: float32[3]
// CHECK-NEXT:   [ 7.5 15.  22.5]
// CHECK-NEXT: out1: int64[]
// CHECK-NEXT:   6
// CHECK-NEXT: out2: bool[]
// CHECK-NEXT:   True

// RAISE: exir-run: error: {{.*}}ts-module.mlir:44:7: 'prim::RaiseException' in @check: builtins.RuntimeError: count is 5

// ENTRY: exir-run: error: the input holds several ts.modules (@main, @ctx); exactly one must have a method 'missing' to run
