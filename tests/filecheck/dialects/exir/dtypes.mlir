// Every type of the exir dialect round-trips, in custom and generic form.
// RUN: exir-opt %s | exir-opt | filecheck %s
// RUN: exir-opt %s --print-op-generic | exir-opt | filecheck %s
// RUN: xdsl-opt %s | xdsl-opt | filecheck %s

// Every torch dtype.
exir.graph @dtypes(%bool: !exir.tensor<[2], bool>, %uint8: !exir.tensor<[2], uint8>, %int8: !exir.tensor<[2], int8>, %int16: !exir.tensor<[2], int16>, %int32: !exir.tensor<[2], int32>, %int64: !exir.tensor<[2], int64>, %uint16: !exir.tensor<[2], uint16>, %uint32: !exir.tensor<[2], uint32>, %uint64: !exir.tensor<[2], uint64>, %float16: !exir.tensor<[2], float16>, %bfloat16: !exir.tensor<[2], bfloat16>, %float32: !exir.tensor<[2], float32>, %float64: !exir.tensor<[2], float64>, %complex32: !exir.tensor<[2], complex32>, %complex64: !exir.tensor<[2], complex64>, %complex128: !exir.tensor<[2], complex128>, %float8_e4m3fn: !exir.tensor<[2], float8_e4m3fn>, %float8_e4m3fnuz: !exir.tensor<[2], float8_e4m3fnuz>, %float8_e5m2: !exir.tensor<[2], float8_e5m2>, %float8_e5m2fnuz: !exir.tensor<[2], float8_e5m2fnuz>, %float8_e8m0fnu: !exir.tensor<[2], float8_e8m0fnu>, %float4_e2m1fn_x2: !exir.tensor<[2], float4_e2m1fn_x2>, %qint8: !exir.tensor<[2], qint8>, %quint8: !exir.tensor<[2], quint8>, %qint32: !exir.tensor<[2], qint32>, %quint4x2: !exir.tensor<[2], quint4x2>, %quint2x4: !exir.tensor<[2], quint2x4>, %bits1x8: !exir.tensor<[2], bits1x8>, %bits2x4: !exir.tensor<[2], bits2x4>, %bits4x2: !exir.tensor<[2], bits4x2>, %bits8: !exir.tensor<[2], bits8>, %bits16: !exir.tensor<[2], bits16>, %uint1: !exir.tensor<[2], uint1>, %uint2: !exir.tensor<[2], uint2>, %uint3: !exir.tensor<[2], uint3>, %uint4: !exir.tensor<[2], uint4>, %uint5: !exir.tensor<[2], uint5>, %uint6: !exir.tensor<[2], uint6>, %uint7: !exir.tensor<[2], uint7>, %int1: !exir.tensor<[2], int1>, %int2: !exir.tensor<[2], int2>, %int3: !exir.tensor<[2], int3>, %int4: !exir.tensor<[2], int4>, %int5: !exir.tensor<[2], int5>, %int6: !exir.tensor<[2], int6>, %int7: !exir.tensor<[2], int7>) -> () {
  exir.output
}
// CHECK:      exir.graph @dtypes(
// CHECK-SAME: !exir.tensor<[2], bool>
// CHECK-SAME: !exir.tensor<[2], uint8>
// CHECK-SAME: !exir.tensor<[2], int8>
// CHECK-SAME: !exir.tensor<[2], int16>
// CHECK-SAME: !exir.tensor<[2], int32>
// CHECK-SAME: !exir.tensor<[2], int64>
// CHECK-SAME: !exir.tensor<[2], uint16>
// CHECK-SAME: !exir.tensor<[2], uint32>
// CHECK-SAME: !exir.tensor<[2], uint64>
// CHECK-SAME: !exir.tensor<[2], float16>
// CHECK-SAME: !exir.tensor<[2], bfloat16>
// CHECK-SAME: !exir.tensor<[2], float32>
// CHECK-SAME: !exir.tensor<[2], float64>
// CHECK-SAME: !exir.tensor<[2], complex32>
// CHECK-SAME: !exir.tensor<[2], complex64>
// CHECK-SAME: !exir.tensor<[2], complex128>
// CHECK-SAME: !exir.tensor<[2], float8_e4m3fn>
// CHECK-SAME: !exir.tensor<[2], float8_e4m3fnuz>
// CHECK-SAME: !exir.tensor<[2], float8_e5m2>
// CHECK-SAME: !exir.tensor<[2], float8_e5m2fnuz>
// CHECK-SAME: !exir.tensor<[2], float8_e8m0fnu>
// CHECK-SAME: !exir.tensor<[2], float4_e2m1fn_x2>
// CHECK-SAME: !exir.tensor<[2], qint8>
// CHECK-SAME: !exir.tensor<[2], quint8>
// CHECK-SAME: !exir.tensor<[2], qint32>
// CHECK-SAME: !exir.tensor<[2], quint4x2>
// CHECK-SAME: !exir.tensor<[2], quint2x4>
// CHECK-SAME: !exir.tensor<[2], bits1x8>
// CHECK-SAME: !exir.tensor<[2], bits2x4>
// CHECK-SAME: !exir.tensor<[2], bits4x2>
// CHECK-SAME: !exir.tensor<[2], bits8>
// CHECK-SAME: !exir.tensor<[2], bits16>
// CHECK-SAME: !exir.tensor<[2], uint1>
// CHECK-SAME: !exir.tensor<[2], uint2>
// CHECK-SAME: !exir.tensor<[2], uint3>
// CHECK-SAME: !exir.tensor<[2], uint4>
// CHECK-SAME: !exir.tensor<[2], uint5>
// CHECK-SAME: !exir.tensor<[2], uint6>
// CHECK-SAME: !exir.tensor<[2], uint7>
// CHECK-SAME: !exir.tensor<[2], int1>
// CHECK-SAME: !exir.tensor<[2], int2>
// CHECK-SAME: !exir.tensor<[2], int3>
// CHECK-SAME: !exir.tensor<[2], int4>
// CHECK-SAME: !exir.tensor<[2], int5>
// CHECK-SAME: !exir.tensor<[2], int6>
// CHECK-SAME: !exir.tensor<[2], int7>
