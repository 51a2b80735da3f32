// Every type of the exir dialect round-trips, in custom and generic form, and
// the stock xdsl-opt reads them through the xdsl.universe entry point.
// RUN: exir-opt %s --allow-unregistered-dialect | exir-opt --allow-unregistered-dialect | filecheck %s
// RUN: exir-opt %s --allow-unregistered-dialect --print-op-generic | exir-opt --allow-unregistered-dialect | filecheck %s
// RUN: xdsl-opt %s --allow-unregistered-dialect | xdsl-opt --allow-unregistered-dialect | filecheck %s

exir.graph @tensors(
    %static: !exir.tensor<[2, 3], float32>,
    %scalar: !exir.tensor<[], int64>,
    %sym: !exir.tensor<[s0, 4], float32>,
    %derived: !exir.tensor<[2*s0 + 1, (s0 - 3) floordiv 2 + 1, s1*s0, s0 mod 4, max(s0, 4), min(1, u0)], bfloat16>,
    %device: !exir.tensor<[2], float16, device = "cuda:0">,
    %channels_last: !exir.tensor<[2, 3, 4, 5], float32, dim_order = [0, 2, 3, 1]>,
    %identity_order: !exir.tensor<[2, 3], float32, dim_order = [0, 1]>,
    %both: !exir.tensor<[1, s0], int8, device = "meta", dim_order = [1, 0]>
) -> () {
  exir.output
}
// CHECK:      exir.graph @tensors(
// CHECK-SAME: !exir.tensor<[2, 3], float32>
// CHECK-SAME: !exir.tensor<[], int64>
// CHECK-SAME: !exir.tensor<[s0, 4], float32>
// CHECK-SAME: !exir.tensor<[2*s0 + 1, (s0 - 3) floordiv 2 + 1, s0*s1, s0 mod 4, max(4, s0), min(1, u0)], bfloat16>
// CHECK-SAME: !exir.tensor<[2], float16, device = "cuda:0">
// CHECK-SAME: !exir.tensor<[2, 3, 4, 5], float32, dim_order = [0, 2, 3, 1]>
// The identity dim order is the default and is not printed.
// CHECK-SAME: %identity_order: !exir.tensor<[2, 3], float32>,
// CHECK-SAME: !exir.tensor<[1, s0], int8, device = "meta", dim_order = [1, 0]>

exir.graph @scalars(
    %si: !exir.sym_int, %si_val: !exir.sym_int<2*s0>, %sf: !exir.sym_float,
    %sb: !exir.sym_bool, %i: !exir.int, %f: !exir.float, %b: !exir.bool,
    %s: !exir.str, %n: !exir.scalar, %st: !exir.scalar_type, %l: !exir.layout,
    %mf: !exir.memory_format, %d: !exir.device, %none: !exir.none,
    %g: !exir.graph_module, %t: !exir.token,
    %obj: !exir.custom_obj<"__torch__.torch.classes.my.Stack">
) -> () {
  exir.output
}
// CHECK:      exir.graph @scalars(
// CHECK-SAME: !exir.sym_int, %{{.*}}: !exir.sym_int<2*s0>, %{{.*}}: !exir.sym_float,
// CHECK-SAME: !exir.sym_bool, %{{.*}}: !exir.int, %{{.*}}: !exir.float, %{{.*}}: !exir.bool,
// CHECK-SAME: !exir.str, %{{.*}}: !exir.scalar, %{{.*}}: !exir.scalar_type, %{{.*}}: !exir.layout,
// CHECK-SAME: !exir.memory_format, %{{.*}}: !exir.device, %{{.*}}: !exir.none,
// CHECK-SAME: !exir.graph_module, %{{.*}}: !exir.token,
// CHECK-SAME: !exir.custom_obj<"__torch__.torch.classes.my.Stack">

exir.graph @containers(
    %l: !exir.list<!exir.tensor<[2], float32>>,
    %o: !exir.optional<!exir.tensor<[2], float32>>,
    %t: !exir.tuple<!exir.tensor<[s0], float32>, !exir.sym_int, !exir.list<!exir.int>>,
    %e: !exir.tuple<>
) -> (!exir.list<!exir.tensor<[2], float32>>) {
  exir.output %l : !exir.list<!exir.tensor<[2], float32>>
}
// CHECK:      exir.graph @containers(
// CHECK-SAME: !exir.list<!exir.tensor<[2], float32>>
// CHECK-SAME: !exir.optional<!exir.tensor<[2], float32>>
// CHECK-SAME: !exir.tuple<!exir.tensor<[s0], float32>, !exir.sym_int, !exir.list<!exir.int>>
// CHECK-SAME: !exir.tuple<>

// Attributes: embedded constants of FX arguments, in their generic spelling.
"test.op"() {
    dt = #exir.dtype<bfloat16>, lay = #exir.layout_value<sparse_coo>,
    mf = #exir.memory_format_value<channels_last>, dev = #exir.device_value<"cuda:1">,
    none = #exir.none_value, ref = #exir.ref<3>, sym = #exir.sym<2*s0 floordiv 3>,
    shape = #exir.shape<[s0, 4]>,
    i = #exir.input_spec<buffer "b" -> "buf" non_persistent>,
    o = #exir.output_spec<user_input_mutation "copy" -> "x">,
    r = #exir.range<u0 in [0, inf]>
} : () -> ()
// CHECK:      "test.op"() {
// CHECK-SAME: dt = #exir.dtype<bfloat16>, lay = #exir.layout_value<sparse_coo>,
// CHECK-SAME: mf = #exir.memory_format_value<channels_last>, dev = #exir.device_value<"cuda:1">,
// CHECK-SAME: none = #exir.none_value, ref = #exir.ref<3>, sym = #exir.sym<2*s0 floordiv 3>,
// CHECK-SAME: shape = #exir.shape<[s0, 4]>,
// CHECK-SAME: i = #exir.input_spec<buffer "b" -> "buf" non_persistent>,
// CHECK-SAME: o = #exir.output_spec<user_input_mutation "copy" -> "x">,
// CHECK-SAME: r = #exir.range<u0 in [0, inf]>
