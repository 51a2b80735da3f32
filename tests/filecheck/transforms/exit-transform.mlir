// exit-transform (JIT Technical Overview, "Exit Transform"): prim.ReturnStmt and
// prim.LoopContinuation become block outputs; code after an exit that might
// have been taken moves under an `if` on a did-exit flag; code after an exit
// that was surely taken, or after a raise, is deleted.
// RUN: exir-opt %s -p exit-transform --split-input-file | filecheck %s
// RUN: exir-opt %s -p exit-transform --split-input-file | exir-opt --split-input-file | filecheck %s

// Early return: `if flag: return x * 2.0` then `y = x + 1.0; return y * y`.
// The rest of the graph moves into the false branch, and the two ifs (the
// second one tests the first one's constant flags) merge into one.
builtin.module {
  ts.method @early_return attributes {schema = "early_return(Tensor x, bool flag) -> Tensor"} {
  ^bb0(%x: !ts.tensor, %flag: !ts.bool):
    prim.If(%flag) ({
      %two = prim.Constant() {value = 2.000000e+00 : f64} : () -> !ts.float
      %r1 = ts.node "aten::mul"(%x, %two) : (!ts.tensor, !ts.float) -> !ts.tensor
      prim.ReturnStmt(%r1) : (!ts.tensor) -> ()
      prim.Return() : () -> ()
    }, {
      prim.Return() : () -> ()
    }) : (!ts.bool) -> ()
    %one = prim.Constant() {value = 1.000000e+00 : f64} : () -> !ts.float
    %alpha = prim.Constant() {value = 1 : i64} : () -> !ts.int
    %y = ts.node "aten::add"(%x, %one, %alpha) : (!ts.tensor, !ts.float, !ts.int) -> !ts.tensor
    %r2 = ts.node "aten::mul"(%y, %y) : (!ts.tensor, !ts.tensor) -> !ts.tensor
    prim.ReturnStmt(%r2) : (!ts.tensor) -> ()
    %u = prim.Uninitialized() : () -> !ts.tensor
    prim.Return(%u) : (!ts.tensor) -> ()
  }
}

// CHECK-LABEL: ts.method @early_return
// CHECK:         %{{.*}} = prim.If(%flag) ({
// CHECK-NEXT:      %[[TWO:.*]] = prim.Constant() {value = 2.000000e+00 : f64}
// CHECK-NEXT:      %[[R1:.*]] = ts.node "aten::mul"(%x, %[[TWO]])
// CHECK-NEXT:      prim.Return({{.*}}, %[[R1]]) :
// CHECK-NEXT:    }, {
// CHECK:           %[[Y:.*]] = ts.node "aten::add"(%x,
// CHECK-NEXT:      %[[R2:.*]] = ts.node "aten::mul"(%[[Y]], %[[Y]])
// CHECK-NEXT:      prim.Return({{.*}}, %[[R2]]) :
// CHECK-NEXT:    }) : (!ts.bool) -> ({{.*}}, !ts.tensor)
// CHECK-NEXT:    prim.Return(%{{.*}}) : (!ts.tensor) -> ()
// CHECK-NEXT:  }

// -----

// Raise then return: the branch that raises does not exit, so the if always
// returns; its output in the raising branch is uninitialized, and the dead
// code after the if is gone.
builtin.module {
  ts.method @raise_then_return attributes {schema = "raise_then_return(int i) -> float"} {
  ^bb0(%i: !ts.int):
    %zero = prim.Constant() {value = 0 : i64} : () -> !ts.int
    %neg = ts.node "aten::lt"(%i, %zero) : (!ts.int, !ts.int) -> !ts.bool
    prim.If(%neg) ({
      %msg = prim.Constant() {value = "Negative input"} : () -> !ts.str
      %cls = prim.Constant() {value = "builtins.ValueError"} : () -> !ts.str
      prim.RaiseException(%msg, %cls) : (!ts.str, !ts.str) -> ()
      prim.Return() : () -> ()
    }, {
      %f = ts.node "aten::Float"(%i) : (!ts.int) -> !ts.float
      %half = prim.Constant() {value = 5.000000e-01 : f64} : () -> !ts.float
      %r = ts.node "aten::mul"(%f, %half) : (!ts.float, !ts.float) -> !ts.float
      prim.ReturnStmt(%r) : (!ts.float) -> ()
      prim.Return() : () -> ()
    }) : (!ts.bool) -> ()
    ts.node "prim::Print"(%i) : (!ts.int) -> ()
    %u = prim.Uninitialized() : () -> !ts.float
    prim.Return(%u) : (!ts.float) -> ()
  }
}

// CHECK-LABEL: ts.method @raise_then_return
// CHECK:         %[[UNINIT:.*]] = prim.Uninitialized() : () -> !ts.float
// CHECK:         %[[R:.*]] = prim.If(%{{.*}}) ({
// CHECK:           prim.RaiseException(%{{.*}}, %{{.*}}) : (!ts.str, !ts.str) -> ()
// CHECK-NEXT:      prim.Return(%[[UNINIT]]) : (!ts.float) -> ()
// CHECK-NEXT:    }, {
// CHECK:           %[[V:.*]] = ts.node "aten::mul"
// CHECK-NEXT:      prim.Return(%[[V]]) : (!ts.float) -> ()
// CHECK-NEXT:    }) : (!ts.bool) -> !ts.float
// CHECK-NEXT:    prim.Return(%[[R]]) : (!ts.float) -> ()

// -----

// The JIT Technical Overview's while loop with a continue: the code after the `if` that
// continues moves into its false branch, and each branch yields the next
// loop condition and the carried value.
builtin.module {
  ts.method @while_continue attributes {schema = "while_continue(int i) -> int"} {
  ^bb0(%i0: !ts.int):
    %max = prim.Constant() {value = 9223372036854775807 : i64} : () -> !ts.int
    %c5 = prim.Constant() {value = 5 : i64} : () -> !ts.int
    %lt = ts.node "aten::lt"(%i0, %c5) : (!ts.int, !ts.int) -> !ts.bool
    %i = prim.Loop(%max, %lt, %i0) ({
    ^bb0(%it: !ts.int, %i_1: !ts.int):
      %c3 = prim.Constant() {value = 3 : i64} : () -> !ts.int
      %eq = ts.node "aten::eq"(%i_1, %c3) : (!ts.int, !ts.int) -> !ts.bool
      %i_2 = prim.If(%eq) ({
        %c1 = prim.Constant() {value = 1 : i64} : () -> !ts.int
        %s = ts.node "aten::add"(%i_1, %c1) : (!ts.int, !ts.int) -> !ts.int
        %lt_1 = ts.node "aten::lt"(%s, %c5) : (!ts.int, !ts.int) -> !ts.bool
        prim.LoopContinuation(%lt_1, %s) : (!ts.bool, !ts.int) -> ()
        prim.Return(%s) : (!ts.int) -> ()
      }, {
        prim.Return(%i_1) : (!ts.int) -> ()
      }) : (!ts.bool) -> !ts.int
      %c2 = prim.Constant() {value = 2 : i64} : () -> !ts.int
      %e = ts.node "aten::add"(%i_2, %c2) : (!ts.int, !ts.int) -> !ts.int
      %lt_2 = ts.node "aten::lt"(%e, %c5) : (!ts.int, !ts.int) -> !ts.bool
      prim.Return(%lt_2, %e) : (!ts.bool, !ts.int) -> ()
    }) : (!ts.int, !ts.bool, !ts.int) -> !ts.int
    prim.ReturnStmt(%i) : (!ts.int) -> ()
    %u = prim.Uninitialized() : () -> !ts.int
    prim.Return(%u) : (!ts.int) -> ()
  }
}

// CHECK-LABEL: ts.method @while_continue
// CHECK:         %[[I:.*]] = prim.Loop(%{{.*}}, %{{.*}}, %{{.*}}) ({
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: !ts.int, %[[IB:.*]]: !ts.int):
// CHECK:           %[[EQ:.*]] = ts.node "aten::eq"(%[[IB]],
// CHECK-NEXT:      %{{.*}}, %[[COND:[^ ,]*]], %[[NEXT:[^ ,]*]] = prim.If(%[[EQ]]) ({
// CHECK:             %[[S:.*]] = ts.node "aten::add"(%[[IB]],
// CHECK-NEXT:        %[[C1:.*]] = ts.node "aten::lt"(%[[S]],
// CHECK-NEXT:        prim.Return({{.*}}, %[[C1]], %[[S]]) :
// CHECK-NEXT:      }, {
// CHECK:             %[[E:.*]] = ts.node "aten::add"(%[[IB]],
// CHECK-NEXT:        %[[C2:.*]] = ts.node "aten::lt"(%[[E]],
// CHECK-NEXT:        prim.Return({{.*}}, %[[C2]], %[[E]]) :
// CHECK-NEXT:      })
// CHECK-NEXT:      prim.Return(%[[COND]], %[[NEXT]]) : (!ts.bool, !ts.int) -> ()
// CHECK-NEXT:    }) : (!ts.int, !ts.bool, !ts.int) -> !ts.int
// CHECK-NEXT:    prim.Return(%[[I]]) : (!ts.int) -> ()
// CHECK-NEXT:  }

// -----

// A return inside a for loop: the loop carries a did-return flag and the
// returned value, stops once the flag is set, and an `if` after the loop
// picks the returned value or the rest of the graph's.
builtin.module {
  ts.method @loop_return attributes {schema = "loop_return(Tensor x, int n) -> Tensor"} {
  ^bb0(%x: !ts.tensor, %n: !ts.int):
    %true = prim.Constant() {value = true} : () -> !ts.bool
    %x_1 = prim.Loop(%n, %true, %x) ({
    ^bb0(%i: !ts.int, %x_2: !ts.tensor):
      %two = prim.Constant() {value = 2 : i64} : () -> !ts.int
      %eq = ts.node "aten::eq"(%i, %two) : (!ts.int, !ts.int) -> !ts.bool
      prim.If(%eq) ({
        prim.ReturnStmt(%x_2) : (!ts.tensor) -> ()
        prim.Return() : () -> ()
      }, {
        prim.Return() : () -> ()
      }) : (!ts.bool) -> ()
      %one = prim.Constant() {value = 1.000000e+00 : f64} : () -> !ts.float
      %alpha = prim.Constant() {value = 1 : i64} : () -> !ts.int
      %x_3 = ts.node "aten::add"(%x_2, %one, %alpha) : (!ts.tensor, !ts.float, !ts.int) -> !ts.tensor
      prim.Return(%true, %x_3) : (!ts.bool, !ts.tensor) -> ()
    }) : (!ts.int, !ts.bool, !ts.tensor) -> !ts.tensor
    prim.ReturnStmt(%x_1) : (!ts.tensor) -> ()
    %u = prim.Uninitialized() : () -> !ts.tensor
    prim.Return(%u) : (!ts.tensor) -> ()
  }
}

// CHECK-LABEL: ts.method @loop_return
// CHECK:         %[[FALSE:.*]] = prim.Constant() {value = false} : () -> !ts.bool
// CHECK:         %[[XO:.*]], %[[DID:.*]], %[[RET:.*]] = prim.Loop(%n, %true, %x, %[[FALSE]], %{{.*}}) ({
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: !ts.int, %[[XB:.*]]: !ts.tensor, %{{.*}}: !ts.bool, %{{.*}}: !ts.tensor):
// CHECK:           prim.If(%{{.*}}) ({
// CHECK-NEXT:        prim.Return({{.*}}%[[XB]]{{.*}}) :
// CHECK-NEXT:      }, {
// CHECK:             %[[X3:.*]] = ts.node "aten::add"(%[[XB]],
// CHECK-NEXT:        prim.Return({{.*}}%[[X3]]{{.*}}) :
// CHECK-NEXT:      })
// CHECK-NEXT:      prim.Return(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!ts.bool, !ts.tensor, !ts.bool, !ts.tensor) -> ()
// CHECK-NEXT:    }) : (!ts.int, !ts.bool, !ts.tensor, !ts.bool, !ts.tensor) -> (!ts.tensor, !ts.bool, !ts.tensor)
// CHECK-NEXT:    %{{.*}}, %[[R:.*]] = prim.If(%[[DID]]) ({
// CHECK-NEXT:      prim.Return(%{{.*}}, %[[RET]]) :
// CHECK-NEXT:    }, {
// CHECK-NEXT:      prim.Return(%{{.*}}, %[[XO]]) :
// CHECK-NEXT:    })
// CHECK-NEXT:    prim.Return(%[[R]]) : (!ts.tensor) -> ()
// CHECK-NEXT:  }

// -----

// A return inside a with-statement: the Enter/Exit pair is a scope of its
// own during the pass, so the Exit stays in place and only what follows the
// pair is conditionalized.
builtin.module {
  ts.method @with_return attributes {schema = "with_return(__torch__.Ctx c, Tensor x, bool flag) -> Tensor"} {
  ^bb0(%c: !ts.class<"__torch__.Ctx">, %x: !ts.tensor, %flag: !ts.bool):
    %entered = prim.Enter(%c) : (!ts.class<"__torch__.Ctx">) -> !ts.none
    prim.If(%flag) ({
      prim.ReturnStmt(%x) : (!ts.tensor) -> ()
      prim.Return() : () -> ()
    }, {
      prim.Return() : () -> ()
    }) : (!ts.bool) -> ()
    %exited = prim.Exit(%c) : (!ts.class<"__torch__.Ctx">) -> !ts.tensor
    %y = ts.node "aten::neg"(%x) : (!ts.tensor) -> !ts.tensor
    prim.ReturnStmt(%y) : (!ts.tensor) -> ()
    %u = prim.Uninitialized() : () -> !ts.tensor
    prim.Return(%u) : (!ts.tensor) -> ()
  }
}

// CHECK-LABEL: ts.method @with_return
// CHECK:         %{{.*}} = prim.Enter(%c)
// CHECK-NEXT:    %[[DID:.*]], %[[V:.*]] = prim.If(%flag) ({
// CHECK-NEXT:      prim.Return(%{{.*}}, %x) : (!ts.bool, !ts.tensor) -> ()
// CHECK-NEXT:    }, {
// CHECK-NEXT:      prim.Return(%{{.*}}, %{{.*}}) : (!ts.bool, !ts.tensor) -> ()
// CHECK-NEXT:    }) : (!ts.bool) -> (!ts.bool, !ts.tensor)
// CHECK-NEXT:    %{{.*}} = prim.Exit(%c)
// CHECK-NEXT:    %{{.*}}, %[[R:.*]] = prim.If(%[[DID]]) ({
// CHECK-NEXT:      prim.Return(%{{.*}}, %[[V]]) :
// CHECK-NEXT:    }, {
// CHECK-NEXT:      %[[Y:.*]] = ts.node "aten::neg"(%x)
// CHECK-NEXT:      prim.Return(%{{.*}}, %[[Y]]) :
// CHECK-NEXT:    })
// CHECK-NEXT:    prim.Return(%[[R]]) : (!ts.tensor) -> ()
// CHECK-NEXT:  }
