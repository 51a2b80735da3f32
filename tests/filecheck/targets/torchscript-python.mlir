// --emit torchscript-python: TorchScript as torch's Python printer writes it
// (`ScriptModule.code`, the `code/` files of a torch.jit.save archive).
// Module classes list their parameters, buffers and member annotations, then
// their methods with `self` annotated; constants are inlined, single-use
// unnamed values are inlined into their use, names follow the name hints.
// RUN: exir-opt %s --emit torchscript-python | filecheck %s
// RUN: exir-opt %s --emit torchscript-python -o %t.py
// RUN: python -c "import ast, sys; ast.parse(open(sys.argv[1]).read()); print('valid python')" %t.py | filecheck %s --check-prefix=VALID

ts.method @count {
^bb0(%xs: !ts.list<!ts.int>, %n: !ts.int):
  %true = prim.Constant() {value = true} : () -> !ts.bool
  %c1 = prim.Constant() {value = 1 : i64} : () -> !ts.int
  %big = prim.Constant() {value = 9223372036854775807 : i64} : () -> !ts.int
  %msg = prim.Constant() {value = "n must be positive, and this message is long"} : () -> !ts.str
  %c0 = prim.Constant() {value = 0 : i64} : () -> !ts.int
  %0 = ts.node "aten::le"(%n, %c0) : (!ts.int, !ts.int) -> !ts.bool
  prim.If(%0) ({
    prim.RaiseException(%msg) : (!ts.str) -> ()
    prim.Return() : () -> ()
  }, {
    prim.Return() : () -> ()
  }) : (!ts.bool) -> ()
  %acc.1 = prim.ListConstruct() : () -> !ts.list<!ts.int>
  prim.Loop(%n, %true) ({
  ^bb1(%i: !ts.int):
    %1 = ts.node "aten::__getitem__"(%xs, %i) : (!ts.list<!ts.int>, !ts.int) -> !ts.int
    %2 = ts.node "aten::append"(%acc.1, %1) : (!ts.list<!ts.int>, !ts.int) -> !ts.list<!ts.int>
    prim.Return(%true) : (!ts.bool) -> ()
  }) : (!ts.int, !ts.bool) -> ()
  %3 = ts.node "aten::len"(%acc.1) : (!ts.list<!ts.int>) -> !ts.int
  %4 = ts.node "aten::gt"(%3, %c1) : (!ts.int, !ts.int) -> !ts.bool
  %k = prim.Loop(%big, %4, %c0) ({
  ^bb1(%5: !ts.int, %k.3: !ts.int):
    %k.5 = ts.node "aten::add"(%k.3, %c1) : (!ts.int, !ts.int) -> !ts.int
    %6 = ts.node "aten::lt"(%k.5, %n) : (!ts.int, !ts.int) -> !ts.bool
    prim.Return(%6, %k.5) : (!ts.bool, !ts.int) -> ()
  }) : (!ts.int, !ts.bool, !ts.int) -> !ts.int
  %7 = prim.TupleConstruct(%acc.1, %k) : (!ts.list<!ts.int>, !ts.int) -> !ts.tuple<!ts.list<!ts.int>, !ts.int>
  prim.Return(%7) : (!ts.tuple<!ts.list<!ts.int>, !ts.int>) -> ()
}

// CHECK:      # code/__torch__.py
// CHECK-NEXT: def count(xs: List[int],
// CHECK-NEXT:     n: int) -> Tuple[List[int], int]:
// CHECK-NEXT:   msg = "n must be positive, and this message is long"
// CHECK-NEXT:   if torch.le(n, 0):
// CHECK-NEXT:     ops.prim.RaiseException(msg)
// CHECK-NEXT:   else:
// CHECK-NEXT:     pass
// CHECK-NEXT:   acc = annotate(List[int], [])
// CHECK-NEXT:   for i in range(n):
// CHECK-NEXT:     _0 = torch.append(acc, xs[i])
// CHECK-NEXT:   k = 0
// CHECK-NEXT:   _1 = torch.gt(torch.len(acc), 1)
// CHECK-NEXT:   while _1:
// CHECK-NEXT:     k0 = torch.add(k, 1)
// CHECK-NEXT:     _1, k = torch.lt(k0, n), k0
// CHECK-NEXT:   return (acc, k)

ts.module @m class "__torch__.Model" {
  ts.slot parameter @weight : !ts.tensor<Float(2)> = #ts.tensor_value<Float, [2], #exir.blob<"0x0000803F00000040">>
  ts.slot buffer @steps : !ts.tensor<Long()> = #ts.tensor_value<Long, [], #exir.blob<"0x0000000000000000">>
  ts.slot attribute @scale : !ts.float = 2.500000e+00 : f64
  ts.module @lin class "__torch__.torch.nn.modules.linear.Linear" {
    ts.slot parameter @weight : !ts.tensor = #ts.tensor_value<Float, [2, 2], #exir.blob<"0x0000803F00000000000000000000803F">>
    ts.method @forward attributes {schema = "forward(__torch__.torch.nn.modules.linear.Linear self, Tensor input) -> Tensor"} {
    ^bb0(%self: !ts.class<"__torch__.torch.nn.modules.linear.Linear">, %input: !ts.tensor):
      %weight = prim.GetAttr(%self) {name = "weight"} : (!ts.class<"__torch__.torch.nn.modules.linear.Linear">) -> !ts.tensor
      %none = prim.Constant() : () -> !ts.none
      %0 = ts.node "aten::linear"(%input, %weight, %none) : (!ts.tensor, !ts.tensor, !ts.none) -> !ts.tensor
      prim.Return(%0) : (!ts.tensor) -> ()
    }
  }
  ts.method @forward attributes {schema = "forward(__torch__.Model self, Tensor x) -> Tensor"} {
  ^bb0(%self: !ts.class<"__torch__.Model">, %x.1: !ts.tensor):
    %c1 = prim.Constant() {value = 1 : i64} : () -> !ts.int
    %lin = prim.GetAttr(%self) {name = "lin"} : (!ts.class<"__torch__.Model">) -> !ts.class<"__torch__.torch.nn.modules.linear.Linear">
    %y.1 = prim.CallMethod(%lin, %x.1) {name = "forward"} : (!ts.class<"__torch__.torch.nn.modules.linear.Linear">, !ts.tensor) -> !ts.tensor
    %steps = prim.GetAttr(%self) {name = "steps"} : (!ts.class<"__torch__.Model">) -> !ts.tensor
    %0 = ts.node "aten::add"(%steps, %c1, %c1) : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
    prim.SetAttr(%self, %0) {name = "steps"} : (!ts.class<"__torch__.Model">, !ts.tensor) -> ()
    %weight = prim.GetAttr(%self) {name = "weight"} : (!ts.class<"__torch__.Model">) -> !ts.tensor
    %1 = ts.node "aten::mul"(%y.1, %weight) : (!ts.tensor, !ts.tensor) -> !ts.tensor
    prim.Return(%1) : (!ts.tensor) -> ()
  }
}

// CHECK-NEXT: class Model(Module):
// CHECK-NEXT:   __parameters__ = ["weight", ]
// CHECK-NEXT:   __buffers__ = ["steps", ]
// CHECK-NEXT:   weight : Tensor
// CHECK-NEXT:   steps : Tensor
// CHECK-NEXT:   scale : float
// CHECK-NEXT:   lin : __torch__.torch.nn.modules.linear.Linear
// CHECK-NEXT:   def forward(self: __torch__.Model,
// CHECK-NEXT:     x: Tensor) -> Tensor:
// CHECK-NEXT:     lin = self.lin
// CHECK-NEXT:     y = (lin).forward(x, )
// CHECK-NEXT:     steps = self.steps
// CHECK-NEXT:     self.steps = torch.add(steps, 1)
// CHECK-NEXT:     weight = self.weight
// CHECK-NEXT:     return torch.mul(y, weight)
// CHECK-EMPTY:
// CHECK-NEXT: # code/__torch__/torch/nn/modules/linear.py
// CHECK-NEXT: class Linear(Module):
// CHECK-NEXT:   __parameters__ = ["weight", ]
// CHECK-NEXT:   __buffers__ = []
// CHECK-NEXT:   weight : Tensor
// CHECK-NEXT:   def forward(self: __torch__.torch.nn.modules.linear.Linear,
// CHECK-NEXT:     input: Tensor) -> Tensor:
// CHECK-NEXT:     weight = self.weight
// CHECK-NEXT:     return torch.linear(input, weight)

// VALID: valid python
