// exir-run on a traced-module program whose weights travel in the IR: a leaf
// Linear, torch.relu, Python arithmetic with x.size(1), x.view(-1)[1::2] and
// the tuple of x.max(1), with and without cse,dce.
// RUN: exir-run %s | filecheck %s
// RUN: exir-run %s -p cse,dce | filecheck %s

exir.program inputs [] outputs [<user_output "add">, <user_output "getitem">, <user_output "size">, <user_output "values">, <user_output "indices">] {
  exir.state @fc.weight : !exir.tensor<[2, 3], float32> = #exir.blob<"0x0000803F000000C000004040000080C00000A0400000C0C0">
  exir.state @fc.bias : !exir.tensor<[2], float32> = #exir.blob<"0x0000003F000000BF">
  exir.state @x : !exir.tensor<[2, 3], float32> = #exir.blob<"0x0000803F000000000000803F000000000000803F00000000">
  exir.graph @forward() -> (!exir.tensor<[2, 2], float32>, !exir.tensor<[2], float32>, !exir.int, !exir.tensor<[2], float32>, !exir.tensor<[2], int64>) {
    %x = fx.get_attr @x : !exir.tensor<[2, 3], float32>
    %fc = fx.call_module "fc"(%x) module torch.nn.modules.linear.Linear(training = false, in_features = 3, out_features = 2) state ["weight", "bias"] : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 2], float32>
    %relu = exir.call_function "torch.relu"(%fc) : (!exir.tensor<[2, 2], float32>) -> !exir.tensor<[2, 2], float32>
    %size = fx.call_method "size"(%fc, 1) : (!exir.tensor<[2, 2], float32>) -> !exir.int
    %add = exir.call_function "operator.add"(%relu, %size) : (!exir.tensor<[2, 2], float32>, !exir.int) -> !exir.tensor<[2, 2], float32>
    %view = fx.call_method "view"(%fc, -1) : (!exir.tensor<[2, 2], float32>) -> !exir.tensor<[4], float32>
    %odd = fx.slice(1, none, 2)
    %getitem = exir.call_function "operator.getitem"(%view, %odd) : (!exir.tensor<[4], float32>, !fx.slice) -> !exir.tensor<[2], float32>
    %max = fx.call_method "max"(%fc, 1) : (!exir.tensor<[2, 2], float32>) -> !exir.tuple<!exir.tensor<[2], float32>, !exir.tensor<[2], int64>>
    %values = exir.getitem %max[0] : !exir.tuple<!exir.tensor<[2], float32>, !exir.tensor<[2], int64>> -> !exir.tensor<[2], float32>
    %indices = exir.getitem %max[1] : !exir.tuple<!exir.tensor<[2], float32>, !exir.tensor<[2], int64>> -> !exir.tensor<[2], int64>
    %unused = fx.call_module "unused"(%x) module torch.nn.modules.activation.ReLU(training = false, inplace = false) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
    exir.output %add, %getitem, %size, %values, %indices : !exir.tensor<[2, 2], float32>, !exir.tensor<[2], float32>, !exir.int, !exir.tensor<[2], float32>, !exir.tensor<[2], int64>
  }
}

// CHECK:      out0: float32[2, 2]
// CHECK-NEXT:   {{\[\[}}6.5 2. ]
// CHECK-NEXT:    [2.  6.5]]
// CHECK-NEXT: out1: float32[2]
// CHECK-NEXT:   [-10.5   4.5]
// CHECK-NEXT: out2: int64[]
// CHECK-NEXT:   2
// CHECK-NEXT: out3: float32[2]
// CHECK-NEXT:   [4.5 4.5]
// CHECK-NEXT: out4: int64[2]
// CHECK-NEXT:   [0 1]
