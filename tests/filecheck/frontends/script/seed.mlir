// The script frontend on the JIT Technical Overview's worked examples (inputs/seed.py): the
// graphs torch.jit.script shows for them, as ts.methods with their schema,
// and the same in TorchScript's dump spelling with source locations.
// RUN: exir-opt %S/inputs/seed.py | filecheck %s
// RUN: exir-opt %S/inputs/seed.py | exir-opt | filecheck %s
// RUN: exir-opt --from script < %S/inputs/seed.py | filecheck %s
// RUN: exir-opt %S/inputs/seed.py --emit torchscript | filecheck %s --check-prefix=DUMP

// CHECK-LABEL: ts.method @lstm_cell attributes {schema = "lstm_cell(Tensor x, Tensor hx, Tensor cx, Tensor w_ih, Tensor w_hh, Tensor b_ih, Tensor b_hh) -> ((Tensor, Tensor))"} {
// CHECK-NEXT:  ^{{.*}}(%x: !ts.tensor, %hx: !ts.tensor, %cx: !ts.tensor, %w_ih: !ts.tensor, %w_hh: !ts.tensor, %b_ih: !ts.tensor, %b_hh: !ts.tensor):
// CHECK-NEXT:    %[[ONE:.*]] = prim.Constant() {value = 1 : i64} : () -> !ts.int
// CHECK-NEXT:    %[[FOUR:.*]] = prim.Constant() {value = 4 : i64} : () -> !ts.int
// CHECK-NEXT:    %[[T1:.*]] = ts.node "aten::t"(%w_ih) : (!ts.tensor) -> !ts.tensor
// CHECK-NEXT:    %[[MM1:.*]] = ts.node "aten::mm"(%x, %[[T1]])
// CHECK-NEXT:    %[[T2:.*]] = ts.node "aten::t"(%w_hh)
// CHECK-NEXT:    %[[MM2:.*]] = ts.node "aten::mm"(%hx, %[[T2]])
// CHECK-NEXT:    %[[A1:.*]] = ts.node "aten::add"(%[[MM1]], %[[MM2]], %[[ONE]]) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
// CHECK-NEXT:    %[[A2:.*]] = ts.node "aten::add"(%[[A1]], %b_ih, %[[ONE]])
// CHECK-NEXT:    %[[GATES:.*]] = ts.node "aten::add"(%[[A2]], %b_hh, %[[ONE]])
// CHECK-NEXT:    %[[CHUNKS:.*]] = ts.node "aten::chunk"(%[[GATES]], %[[FOUR]], %[[ONE]]) : (!ts.tensor, !ts.int, !ts.int) -> !ts.list<!ts.tensor>
// CHECK-NEXT:    %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = prim.ListUnpack(%[[CHUNKS]]) : (!ts.list<!ts.tensor>) -> (!ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor)
// CHECK-COUNT-3: ts.node "aten::sigmoid"
// CHECK:         %[[TUP:.*]] = prim.TupleConstruct(%{{.*}}, %{{.*}}) : (!ts.tensor, !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.tensor>
// CHECK-NEXT:    prim.Return(%[[TUP]]) : (!ts.tuple<!ts.tensor, !ts.tensor>) -> ()

// CHECK-LABEL: ts.method @f attributes {schema = "f(Tensor a, Tensor b, bool c) -> Tensor"} {
// CHECK:         %[[D:.*]] = ts.node "aten::add"(%a, %b, %{{.*}})
// CHECK-NEXT:    %[[E:.*]] = prim.If(%c) ({
// CHECK-NEXT:      %[[E1:.*]] = ts.node "aten::add"(%[[D]], %[[D]], %{{.*}})
// CHECK-NEXT:      prim.Return(%[[E1]]) : (!ts.tensor) -> ()
// CHECK-NEXT:    }, {
// CHECK-NEXT:      %[[E2:.*]] = ts.node "aten::add"(%b, %[[D]], %{{.*}})
// CHECK-NEXT:      prim.Return(%[[E2]]) : (!ts.tensor) -> ()
// CHECK-NEXT:    }) : (!ts.bool) -> !ts.tensor
// CHECK-NEXT:    prim.Return(%[[E]]) : (!ts.tensor) -> ()

// CHECK-LABEL: ts.method @for_loop
// CHECK:         %[[N:.*]] = ts.node "aten::size"(%x, %{{.*}}) : (!ts.tensor, !ts.int) -> !ts.int
// CHECK-NEXT:    %[[Z:.*]] = prim.Loop(%[[N]], %[[TRUE:.*]], %x) ({
// CHECK-NEXT:    ^{{.*}}(%i: !ts.int, %[[ZB:.*]]: !ts.tensor):
// CHECK-NEXT:      %[[ZN:.*]] = ts.node "aten::mul"(%[[ZB]], %[[ZB]])
// CHECK-NEXT:      prim.Return(%[[TRUE]], %[[ZN]]) : (!ts.bool, !ts.tensor) -> ()
// CHECK-NEXT:    }) : (!ts.int, !ts.bool, !ts.tensor) -> !ts.tensor

// CHECK-LABEL: ts.method @while_continue
// CHECK:         %[[MAX:.*]] = prim.Constant() {value = 9223372036854775807 : i64}
// CHECK:         prim.Loop(%[[MAX]], %{{.*}}, %i) ({
// CHECK:           prim.If
// CHECK-NOT:     prim.LoopContinuation

// CHECK-LABEL: ts.method @early_return
// CHECK:         %[[R:.*]] = prim.If(%flag) ({
// CHECK:         }) : (!ts.bool) -> !ts.tensor
// CHECK-NEXT:    prim.Return(%[[R]]) : (!ts.tensor) -> ()

// CHECK-LABEL: ts.method @check attributes {schema = "check(int i) -> float"} {
// CHECK:         %[[MSG:.*]] = prim.Constant() {value = "Negative input"} : () -> !ts.str
// CHECK-NEXT:    %[[CLS:.*]] = prim.Constant() {value = "builtins.ValueError"} : () -> !ts.str
// CHECK:         %[[U:.*]] = prim.Uninitialized() : () -> !ts.float
// CHECK:         prim.RaiseException(%[[MSG]], %[[CLS]]) : (!ts.str, !ts.str) -> ()
// CHECK-NEXT:      prim.Return(%[[U]]) : (!ts.float) -> ()

// DUMP-LABEL: # lstm_cell
// DUMP-NEXT:  graph(%x : Tensor,
// DUMP:         %{{.*}} : Tensor = aten::mm(%x, %{{.*}}) # {{.*}}seed.py:7:12
// DUMP:         %{{.*}} : Tensor[] = aten::chunk(%gates, %{{.*}}, %{{.*}}) # {{.*}}seed.py:8:44
// DUMP:         %cy : Tensor = aten::add(%{{.*}}, %{{.*}}, %{{.*}}) # {{.*}}seed.py:13:10
// DUMP:         return (%{{.*}})
// DUMP-LABEL: # while_continue
// DUMP:         %i.1 : int = prim::Loop(%{{.*}}, %{{.*}}, %i) # {{.*}}seed.py:35:4
// DUMP-NEXT:      block0(%{{.*}} : int, %i.2 : int):
// DUMP-NEXT:        %{{.*}} : bool = aten::eq(%i.2, %{{.*}}) # {{.*}}seed.py:36:11
// DUMP-NEXT:        %{{.*}} : bool, %{{.*}} : int = prim::If(%{{.*}}) # {{.*}}seed.py:36:8
