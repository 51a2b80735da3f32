// `--emit torchscript`: ts.method graphs as torch prints them; a ts.module
// prints the graph of each method, then of its submodules, after a
// `# <module path>.<method>` line. Names come from the name hints, made
// unique torch's way (`x`, `x.1`), numbers otherwise; subgraphs are numbered
// per graph and follow it in `with` sections, nested ones first.
// RUN: exir-opt %s --emit torchscript | filecheck %s
// RUN: exir-opt %s --emit torchscript | exir-opt --from torchscript --emit torchscript | filecheck %s

ts.module @m class "__torch__.M" {
  ts.slot parameter @weight : !ts.tensor<Float(2, strides=[1], requires_grad=1, device=cpu)> = #ts.tensor_value<Float, [2], #exir.blob<"0x0000803F00000040">>
  ts.slot attribute @count : !ts.int = 3 : i64
  ts.module @sub class "__torch__.Sub" {
    ts.method @forward attributes {schema = "forward(__torch__.Sub self, Tensor x) -> Tensor"} {
    ^bb0(%self: !ts.class<"__torch__.Sub">, %x: !ts.tensor):
      %y = ts.node "aten::relu"(%x) : (!ts.tensor) -> !ts.tensor
      prim.Return(%y) : (!ts.tensor) -> ()
    }
  }
  ts.method @forward attributes {schema = "forward(__torch__.M self, Tensor x, int n) -> Tensor"} {
  ^bb0(%self: !ts.class<"__torch__.M">, %x: !ts.tensor, %n: !ts.int):
    %w = prim.GetAttr(%self) {name = "weight"} : (!ts.class<"__torch__.M">) -> !ts.tensor
    %sub = prim.GetAttr(%self) {name = "sub"} : (!ts.class<"__torch__.M">) -> !ts.class<"__torch__.Sub">
    %y = prim.CallMethod(%sub, %x) {name = "forward"} : (!ts.class<"__torch__.Sub">, !ts.tensor) -> !ts.tensor
    prim.SetAttr(%self, %n) {name = "count"} : (!ts.class<"__torch__.M">, !ts.int) -> ()
    %x_1 = ts.node "aten::mul"(%y, %w) : (!ts.tensor, !ts.tensor) -> !ts.tensor
    prim.Return(%x_1) : (!ts.tensor) -> ()
  }
}

ts.method @free {
^bb0(%x: !ts.tensor<Float(*, *)>, %c: !ts.bool):
  %one = prim.Constant() {value = 1 : i64} : () -> !ts.int
  %t = prim.Constant() {value = true} : () -> !ts.bool
  %f = prim.Constant() {value = 5.000000e-01 : f64} : () -> !ts.float
  %l = prim.Constant() {value = [1.0 : f64, 2.5 : f64]} : () -> !ts.list<!ts.float>
  %o = prim.Constant() {value = []} : () -> !ts.list<!ts.optional<!ts.int>>
  %s = prim.Constant() {value = "tab\there"} : () -> !ts.str
  %k = prim.Constant() {value = #ts.tensor_value<Float, [2, 2], #exir.blob<"0x0000C03F000010400000803F00000000">>} : () -> !ts.tensor
  %0 = ts.node "aten::neg"(%x) : (!ts.tensor<Float(*, *)>) -> !ts.tensor<Float(*, *)>
  %r = prim.If(%c) ({
    %a = prim.DifferentiableGraph(%0) ({
    ^bb0(%p: !ts.tensor<Float(*, *)>):
      %q = prim.FusionGroup(%p) ({
      ^bb0(%u: !ts.tensor<Float(*, *)>):
        %v = ts.node "aten::sigmoid"(%u) : (!ts.tensor<Float(*, *)>) -> !ts.tensor<Float(*, *)>
        prim.Return(%v) : (!ts.tensor<Float(*, *)>) -> ()
      }) : (!ts.tensor<Float(*, *)>) -> !ts.tensor<Float(*, *)>
      prim.Return(%q) : (!ts.tensor<Float(*, *)>) -> ()
    }) : (!ts.tensor<Float(*, *)>) -> !ts.tensor<Float(*, *)>
    prim.Return(%a) : (!ts.tensor<Float(*, *)>) -> ()
  }, {
    %b = ts.node "my::op"(%0) attributes {Subgraph, alpha = 2.500000e-01 : f64, names = ["a", "b"], ty = !ts.tensor<Float(2)>} ({
    ^bb0(%p: !ts.tensor<Float(*, *)>):
      prim.Return(%p) : (!ts.tensor<Float(*, *)>) -> ()
    }) : (!ts.tensor<Float(*, *)>) -> !ts.tensor<Float(*, *)>
    prim.Return(%b) : (!ts.tensor<Float(*, *)>) -> ()
  }) : (!ts.bool) -> !ts.tensor<Float(*, *)>
  prim.Return(%r) : (!ts.tensor<Float(*, *)>) -> ()
}

// CHECK:      # m.forward
// CHECK-NEXT: graph(%self : __torch__.M,
// CHECK-NEXT:       %x : Tensor,
// CHECK-NEXT:       %n : int):
// CHECK-NEXT:   %w : Tensor = prim::GetAttr[name="weight"](%self)
// CHECK-NEXT:   %sub : __torch__.Sub = prim::GetAttr[name="sub"](%self)
// CHECK-NEXT:   %y : Tensor = prim::CallMethod[name="forward"](%sub, %x)
// CHECK-NEXT:    = prim::SetAttr[name="count"](%self, %n)
// CHECK-NEXT:   %x.1 : Tensor = aten::mul(%y, %w)
// CHECK-NEXT:   return (%x.1)
// CHECK-EMPTY:
// CHECK-NEXT: # m.sub.forward
// CHECK-NEXT: graph(%self : __torch__.Sub,
// CHECK-NEXT:       %x : Tensor):
// CHECK-NEXT:   %y : Tensor = aten::relu(%x)
// CHECK-NEXT:   return (%y)
// CHECK-EMPTY:
// CHECK-NEXT: # free
// CHECK-NEXT: graph(%x : Float(*, *),
// CHECK-NEXT:       %c : bool):
// CHECK-NEXT:   %one : int = prim::Constant[value=1]()
// CHECK-NEXT:   %t : bool = prim::Constant[value=1]()
// CHECK-NEXT:   %f : float = prim::Constant[value=0.5]()
// CHECK-NEXT:   %l : float[] = prim::Constant[value=[1., 2.5]]()
// CHECK-NEXT:   %o : int?[] = prim::Constant[value=annotate(List[Optional[int]], [])]()
// CHECK-NEXT:   %s : str = prim::Constant[value="tab\there"]()
// CHECK-NEXT:   %k : Tensor = prim::Constant[value= 1.5000  2.2500  1.0000  0.0000 [ CPUFloatType{2,2} ]]()
// CHECK-NEXT:   %0 : Float(*, *) = aten::neg(%x)
// CHECK-NEXT:   %r : Float(*, *) = prim::If(%c)
// CHECK-NEXT:     block0():
// CHECK-NEXT:       %a : Float(*, *) = prim::DifferentiableGraph_0(%0)
// CHECK-NEXT:       -> (%a)
// CHECK-NEXT:     block1():
// CHECK-NEXT:       %b : Float(*, *) = my::op_1[alpha=0.25, names=["a", "b"], ty=Float(2)](%0)
// CHECK-NEXT:       -> (%b)
// CHECK-NEXT:   return (%r)
// CHECK-NEXT: with prim::DifferentiableGraph_0 = graph(%p : Float(*, *)):
// CHECK-NEXT:   %q : Float(*, *) = prim::FusionGroup_0(%p)
// CHECK-NEXT:   return (%q)
// CHECK-NEXT: with prim::FusionGroup_0 = graph(%u : Float(*, *)):
// CHECK-NEXT:   %v : Float(*, *) = aten::sigmoid(%u)
// CHECK-NEXT:   return (%v)
// CHECK-NEXT: with my::op_1 = graph(%p : Float(*, *)):
// CHECK-NEXT:   return (%p)
