// Every TorchScript type round-trips in custom and generic form, and the
// stock xdsl-opt reads them through the xdsl.universe entry point.
// RUN: exir-opt %s | exir-opt | filecheck %s
// RUN: exir-opt %s --print-op-generic | exir-opt | filecheck %s
// RUN: xdsl-opt %s | xdsl-opt | filecheck %s

ts.method @types attributes {schema = "types(Tensor a, Tensor b, Tensor c, Tensor d, Tensor e, Tensor f, int g, float h, bool i, str j, NoneType k, Device l, Scalar m, Any n, complex o, Generator p, int[] q, (Tensor, int) r, int? s, Dict(str, Tensor) t, __torch__.M u, Future(int) v, Union(int, str) w, Function x, __torch__.torch.classes.my.Obj y) -> ()"} {
^bb0(%a: !ts.tensor,
     %b: !ts.tensor<Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)>,
     %c: !ts.tensor<Float(*, *)>,
     %d: !ts.tensor<Long(requires_grad=0, device=cpu)>,
     %e: !ts.tensor<Double(4, *, device=cuda:0)>,
     %f: !ts.tensor<BFloat16>,
     %g: !ts.int, %h: !ts.float, %i: !ts.bool, %j: !ts.str, %k: !ts.none,
     %l: !ts.device, %m: !ts.number, %n: !ts.any, %o: !ts.complex, %p: !ts.generator,
     %q: !ts.list<!ts.int>,
     %r: !ts.tuple<!ts.tensor, !ts.int>,
     %s: !ts.optional<!ts.int>,
     %t: !ts.dict<!ts.str, !ts.tensor>,
     %u: !ts.class<"__torch__.M">,
     %v: !ts.future<!ts.int>,
     %w: !ts.union<!ts.int, !ts.str>,
     %x: !ts.function<"helper">,
     %y: !ts.opaque<"__torch__.torch.classes.my.Obj">):
  %none = prim.Constant() : () -> !ts.none
  prim.Return(%none) : (!ts.none) -> ()
}

// CHECK:      ts.method @types
// CHECK-NEXT: ^bb0(%a: !ts.tensor, %b: !ts.tensor<Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)>, %c: !ts.tensor<Float(*, *)>, %d: !ts.tensor<Long(requires_grad=0, device=cpu)>, %e: !ts.tensor<Double(4, *, device=cuda:0)>, %f: !ts.tensor<BFloat16>, %g: !ts.int, %h: !ts.float, %i: !ts.bool, %j: !ts.str, %k: !ts.none, %l: !ts.device, %m: !ts.number, %n: !ts.any, %o: !ts.complex, %p: !ts.generator, %q: !ts.list<!ts.int>, %r: !ts.tuple<!ts.tensor, !ts.int>, %s: !ts.optional<!ts.int>, %t: !ts.dict<!ts.str, !ts.tensor>, %u: !ts.class<"__torch__.M">, %v: !ts.future<!ts.int>, %w: !ts.union<!ts.int, !ts.str>, %x: !ts.function<"helper">, %y: !ts.opaque<"__torch__.torch.classes.my.Obj">):
