// convert-to-ssa on the script frontend's Store/Load form (JIT Technical Overview,
// "Conversion To SSA"): if outputs for variables both branches assign, loop-
// carried variables, break/continue as prim.LoopContinuation, the loop
// condition block inlined, and every Load replaced by the value in scope.
// RUN: exir-opt %s -p convert-to-ssa --split-input-file | filecheck %s
// RUN: exir-opt %s -p convert-to-ssa --split-input-file | exir-opt --split-input-file | filecheck %s

// def f(a, b, c: bool):
//     d = a + b
//     if c:
//         e = d + d
//     else:
//         e = b + d
//     return e
builtin.module {
  ts.method @if_else attributes {schema = "if_else(Tensor a, Tensor b, bool c) -> Tensor"} {
  ^bb0(%a: !ts.tensor, %b: !ts.tensor, %c: !ts.bool):
    prim.Store(%a) {name = "a"} : (!ts.tensor) -> ()
    prim.Store(%b) {name = "b"} : (!ts.tensor) -> ()
    prim.Store(%c) {name = "c"} : (!ts.bool) -> ()
    %0 = prim.Load() {name = "a"} : () -> !ts.tensor
    %1 = prim.Load() {name = "b"} : () -> !ts.tensor
    %one = prim.Constant() {value = 1 : i64} : () -> !ts.int
    %d = ts.node "aten::add"(%0, %1, %one) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
    prim.Store(%d) {name = "d"} : (!ts.tensor) -> ()
    %3 = prim.Load() {name = "c"} : () -> !ts.bool
    prim.If(%3) ({
      %4 = prim.Load() {name = "d"} : () -> !ts.tensor
      %5 = prim.Load() {name = "d"} : () -> !ts.tensor
      %e = ts.node "aten::add"(%4, %5, %one) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
      prim.Store(%e) {name = "e"} : (!ts.tensor) -> ()
      prim.Return() : () -> ()
    }, {
      %7 = prim.Load() {name = "b"} : () -> !ts.tensor
      %8 = prim.Load() {name = "d"} : () -> !ts.tensor
      %e_1 = ts.node "aten::add"(%7, %8, %one) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
      prim.Store(%e_1) {name = "e"} : (!ts.tensor) -> ()
      // Only this branch defines `t`: it does not leave the if.
      prim.Store(%e_1) {name = "t"} : (!ts.tensor) -> ()
      prim.Return() : () -> ()
    }) : (!ts.bool) -> ()
    %10 = prim.Load() {name = "e"} : () -> !ts.tensor
    prim.ReturnStmt(%10) : (!ts.tensor) -> ()
    %11 = prim.Uninitialized() : () -> !ts.tensor
    prim.Return(%11) : (!ts.tensor) -> ()
  }
}

// CHECK-LABEL: ts.method @if_else
// CHECK-NEXT:  ^{{.*}}(%[[A:.*]]: !ts.tensor, %[[B:.*]]: !ts.tensor, %[[C:.*]]: !ts.bool):
// CHECK-NEXT:    %[[ONE:.*]] = prim.Constant() {value = 1 : i64}
// CHECK-NEXT:    %[[D:.*]] = ts.node "aten::add"(%[[A]], %[[B]], %[[ONE]])
// CHECK-NEXT:    %[[E:.*]] = prim.If(%[[C]]) ({
// CHECK-NEXT:      %[[E1:.*]] = ts.node "aten::add"(%[[D]], %[[D]], %[[ONE]])
// CHECK-NEXT:      prim.Return(%[[E1]]) : (!ts.tensor) -> ()
// CHECK-NEXT:    }, {
// CHECK-NEXT:      %[[E2:.*]] = ts.node "aten::add"(%[[B]], %[[D]], %[[ONE]])
// CHECK-NEXT:      prim.Return(%[[E2]]) : (!ts.tensor) -> ()
// CHECK-NEXT:    }) : (!ts.bool) -> !ts.tensor
// CHECK-NEXT:    prim.ReturnStmt(%[[E]]) : (!ts.tensor) -> ()
// CHECK-NEXT:    %{{.*}} = prim.Uninitialized() : () -> !ts.tensor
// CHECK-NEXT:    prim.Return
// CHECK-NOT:     prim.Load
// CHECK-NOT:     prim.Store

// -----

// The JIT Technical Overview's loop: while i < 5: (if i == 3: i += 1; continue); i += 2
builtin.module {
  ts.method @while_continue attributes {schema = "while_continue(int i) -> int"} {
  ^bb0(%i0: !ts.int):
    prim.Store(%i0) {name = "i"} : (!ts.int) -> ()
    %max = prim.Constant() {value = 9223372036854775807 : i64} : () -> !ts.int
    prim.Loop(%max) ({
    ^bb1(%it: !ts.int):
      %a = prim.Load() {name = "i"} : () -> !ts.int
      %c3 = prim.Constant() {value = 3 : i64} : () -> !ts.int
      %eq = ts.node "aten::eq"(%a, %c3) : (!ts.int, !ts.int) -> !ts.bool
      prim.If(%eq) ({
        %b = prim.Load() {name = "i"} : () -> !ts.int
        %c1 = prim.Constant() {value = 1 : i64} : () -> !ts.int
        %s = ts.node "aten::add"(%b, %c1) : (!ts.int, !ts.int) -> !ts.int
        prim.Store(%s) {name = "i"} : (!ts.int) -> ()
        prim.ContinueStmt() : () -> ()
        prim.Return() : () -> ()
      }, {
        prim.Return() : () -> ()
      }) : (!ts.bool) -> ()
      %d = prim.Load() {name = "i"} : () -> !ts.int
      %c2 = prim.Constant() {value = 2 : i64} : () -> !ts.int
      %e = ts.node "aten::add"(%d, %c2) : (!ts.int, !ts.int) -> !ts.int
      prim.Store(%e) {name = "i"} : (!ts.int) -> ()
      prim.Return() : () -> ()
    }, {
      %l = prim.Load() {name = "i"} : () -> !ts.int
      %c5 = prim.Constant() {value = 5 : i64} : () -> !ts.int
      %lt = ts.node "aten::lt"(%l, %c5) : (!ts.int, !ts.int) -> !ts.bool
      prim.Return(%lt) : (!ts.bool) -> ()
    }) : (!ts.int) -> ()
    %r = prim.Load() {name = "i"} : () -> !ts.int
    prim.ReturnStmt(%r) : (!ts.int) -> ()
    %u = prim.Uninitialized() : () -> !ts.int
    prim.Return(%u) : (!ts.int) -> ()
  }
}

// The condition is computed before the loop and again at the end of the body
// (and before the continue); `i` is carried.
// CHECK-LABEL: ts.method @while_continue
// CHECK-NEXT:  ^{{.*}}(%[[I0:.*]]: !ts.int):
// CHECK-NEXT:    %[[MAX:.*]] = prim.Constant() {value = 9223372036854775807 : i64}
// CHECK-NEXT:    %[[C5:.*]] = prim.Constant() {value = 5 : i64}
// CHECK-NEXT:    %[[START:.*]] = ts.node "aten::lt"(%[[I0]], %[[C5]])
// CHECK-NEXT:    %[[I:.*]] = prim.Loop(%[[MAX]], %[[START]], %[[I0]]) ({
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: !ts.int, %[[IB:.*]]: !ts.int):
// CHECK:           %[[EQ:.*]] = ts.node "aten::eq"(%[[IB]], %{{.*}})
// CHECK-NEXT:      %[[IF:.*]] = prim.If(%[[EQ]]) ({
// CHECK:             %[[S:.*]] = ts.node "aten::add"(%[[IB]], %{{.*}})
// CHECK:             %[[CC:.*]] = ts.node "aten::lt"(%[[S]], %{{.*}})
// CHECK-NEXT:        prim.LoopContinuation(%[[CC]], %[[S]]) : (!ts.bool, !ts.int) -> ()
// CHECK-NEXT:        prim.Return(%[[S]]) : (!ts.int) -> ()
// CHECK-NEXT:      }, {
// CHECK-NEXT:        prim.Return(%[[IB]]) : (!ts.int) -> ()
// CHECK-NEXT:      }) : (!ts.bool) -> !ts.int
// CHECK:           %[[E:.*]] = ts.node "aten::add"(%[[IF]], %{{.*}})
// CHECK:           %[[NEXT:.*]] = ts.node "aten::lt"(%[[E]], %{{.*}})
// CHECK-NEXT:      prim.Return(%[[NEXT]], %[[E]]) : (!ts.bool, !ts.int) -> ()
// CHECK-NEXT:    }) : (!ts.int, !ts.bool, !ts.int) -> !ts.int
// CHECK-NEXT:    prim.ReturnStmt(%[[I]]) : (!ts.int) -> ()

// -----

// while True: (if i >= n: break); x = x + 1.0; i += 1
builtin.module {
  ts.method @while_break attributes {schema = "while_break(Tensor x, int n) -> Tensor"} {
  ^bb0(%x: !ts.tensor, %n: !ts.int):
    prim.Store(%x) {name = "x"} : (!ts.tensor) -> ()
    prim.Store(%n) {name = "n"} : (!ts.int) -> ()
    %i = prim.Constant() {value = 0 : i64} : () -> !ts.int
    prim.Store(%i) {name = "i"} : (!ts.int) -> ()
    %0 = prim.Constant() {value = 9223372036854775807 : i64} : () -> !ts.int
    prim.Loop(%0) ({
    ^bb0(%1: !ts.int):
      %2 = prim.Load() {name = "i"} : () -> !ts.int
      %3 = prim.Load() {name = "n"} : () -> !ts.int
      %4 = ts.node "aten::ge"(%2, %3) : (!ts.int, !ts.int) -> !ts.bool
      prim.If(%4) ({
        prim.BreakStmt() : () -> ()
        prim.Return() : () -> ()
      }, {
        prim.Return() : () -> ()
      }) : (!ts.bool) -> ()
      %5 = prim.Load() {name = "x"} : () -> !ts.tensor
      %6 = prim.Constant() {value = 1.000000e+00 : f64} : () -> !ts.float
      %7 = prim.Constant() {value = 1 : i64} : () -> !ts.int
      %x_1 = ts.node "aten::add"(%5, %6, %7) : (!ts.tensor, !ts.float, !ts.int) -> !ts.tensor
      prim.Store(%x_1) {name = "x"} : (!ts.tensor) -> ()
      %8 = prim.Load() {name = "i"} : () -> !ts.int
      %i_1 = ts.node "aten::add"(%8, %7) : (!ts.int, !ts.int) -> !ts.int
      prim.Store(%i_1) {name = "i"} : (!ts.int) -> ()
      prim.Return() : () -> ()
    }, {
      %10 = prim.Constant() {value = true} : () -> !ts.bool
      prim.Return(%10) : (!ts.bool) -> ()
    }) : (!ts.int) -> ()
    %11 = prim.Load() {name = "x"} : () -> !ts.tensor
    prim.ReturnStmt(%11) : (!ts.tensor) -> ()
    %12 = prim.Uninitialized() : () -> !ts.tensor
    prim.Return(%12) : (!ts.tensor) -> ()
  }
}

// break: a false condition and the carried values (i, x in name order) as they are there.
// CHECK-LABEL: ts.method @while_break
// CHECK-NEXT:  ^{{.*}}(%[[X:.*]]: !ts.tensor, %[[N:.*]]: !ts.int):
// CHECK-NEXT:    %[[FALSE:.*]] = prim.Constant() {value = false} : () -> !ts.bool
// CHECK-NEXT:    %[[I0:.*]] = prim.Constant() {value = 0 : i64}
// CHECK-NEXT:    %[[MAX:.*]] = prim.Constant() {value = 9223372036854775807 : i64}
// CHECK-NEXT:    %[[T:.*]] = prim.Constant() {value = true}
// CHECK-NEXT:    %[[I:.*]], %[[XO:.*]] = prim.Loop(%[[MAX]], %[[T]], %[[I0]], %[[X]]) ({
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: !ts.int, %[[IB:.*]]: !ts.int, %[[XB:.*]]: !ts.tensor):
// CHECK-NEXT:      %[[GE:.*]] = ts.node "aten::ge"(%[[IB]], %[[N]])
// CHECK-NEXT:      prim.If(%[[GE]]) ({
// CHECK-NEXT:        prim.LoopContinuation(%[[FALSE]], %[[IB]], %[[XB]]) : (!ts.bool, !ts.int, !ts.tensor) -> ()
// CHECK-NEXT:        prim.Return() : () -> ()
// CHECK:           %[[T2:.*]] = prim.Constant() {value = true}
// CHECK-NEXT:      prim.Return(%[[T2]], %{{.*}}, %{{.*}}) : (!ts.bool, !ts.int, !ts.tensor) -> ()
// CHECK-NEXT:    }) : (!ts.int, !ts.bool, !ts.int, !ts.tensor) -> (!ts.int, !ts.tensor)
// CHECK-NEXT:    prim.ReturnStmt(%[[XO]]) : (!ts.tensor) -> ()
