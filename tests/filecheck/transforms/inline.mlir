// inline: prim.CallFunction of a top-level method and FusionGroup subgraphs.
// RUN: exir-opt %s -p inline | filecheck %s
// RUN: exir-opt %s -p 'inline{kinds=calls}' | filecheck %s --check-prefix=CALLS
// RUN: not exir-opt %s -p 'inline{kinds=Bogus}' 2>&1 | filecheck %s --check-prefix=BAD

builtin.module {
  ts.method @helper attributes {schema = "helper(Tensor x) -> Tensor"} {
  ^bb0(%x: !ts.tensor):
    %r = ts.node "aten::relu"(%x) : (!ts.tensor) -> !ts.tensor
    prim.Return(%r) : (!ts.tensor) -> ()
  }
  ts.method @main attributes {schema = "main(Tensor x) -> Tensor"} {
  ^bb0(%x: !ts.tensor):
    %fn = prim.Constant() {name = "helper"} : () -> !ts.function<"helper">
    %y = prim.CallFunction(%fn, %x) : (!ts.function<"helper">, !ts.tensor) -> !ts.tensor
    %z = prim.FusionGroup(%y) ({
    ^bb0(%a: !ts.tensor):
      %e = ts.node "aten::exp"(%a) : (!ts.tensor) -> !ts.tensor
      prim.Return(%e) : (!ts.tensor) -> ()
    }) : (!ts.tensor) -> !ts.tensor
    prim.Return(%z) : (!ts.tensor) -> ()
  }
}

// CHECK-LABEL: ts.method @main
// CHECK:         %[[R:.*]] = ts.node "aten::relu"(%x)
// CHECK-NEXT:    %[[E:.*]] = ts.node "aten::exp"(%[[R]])
// CHECK-NEXT:    prim.Return(%[[E]])

// CALLS-LABEL: ts.method @main
// CALLS:         ts.node "aten::relu"(%x)
// CALLS:         prim.FusionGroup

// BAD: unknown kind(s) Bogus
