// A float32 depthwise convolution's kernel is cropped to the taps that read some input element
// (conv_pool._LIVE_TAPS): at 2x2 with a 5x5 kernel and padding 2, the outer ring of taps reads
// the padding alone, so the weight is sliced to its middle 3x3 and the input padded by 1, nine
// tap slices instead of 25. A float64 one (torch multiplies the padding in, NaN for an infinite
// weight) and a dilated one keep every tap.
// RUN: exir-opt %s --split-input-file -p convert-exir-to-linalg | filecheck %s

builtin.module {
  exir.program inputs [<user_input "x">, <user_input "weight">] outputs [<user_output "conv">] {
    exir.graph @forward(%x: !exir.tensor<[1, 4, 2, 2], float32>, %weight: !exir.tensor<[4, 1, 5, 5], float32>) -> !exir.tensor<[1, 4, 2, 2], float32> {
      %conv = aten.convolution.default(%x, %weight, none, [1, 1], [2, 2], [1, 1], false, [0, 0], 4) : (!exir.tensor<[1, 4, 2, 2], float32>, !exir.tensor<[4, 1, 5, 5], float32>) -> !exir.tensor<[1, 4, 2, 2], float32>
      exir.output %conv : !exir.tensor<[1, 4, 2, 2], float32>
    }
  }
}

// CHECK-LABEL: func.func @forward
// CHECK:         %[[W:.*]] = tensor.extract_slice %weight[0, 0, 1, 1] [4, 1, 3, 3] [1, 1, 1, 1] : tensor<4x1x5x5xf32> to tensor<4x1x3x3xf32>
// CHECK:         %[[X:.*]] = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:         } : tensor<1x4x2x2xf32> to tensor<1x4x4x4xf32>
// CHECK-COUNT-9: tensor.extract_slice %[[X]][0, 0, {{[0-2]}}, {{[0-2]}}] [1, 4, 2, 2] [1, 1, 1, 1] : tensor<1x4x4x4xf32> to tensor<1x4x2x2xf32>
// CHECK-COUNT-9: tensor.extract_slice %[[W]][0, 0, {{[0-2]}}, {{[0-2]}}] [4, 1, 1, 1] [1, 1, 1, 1] : tensor<4x1x3x3xf32> to tensor<4xf32>
// CHECK-NOT:     tensor.extract_slice
// CHECK:         linalg.generic

// -----

builtin.module {
  exir.program inputs [<user_input "x">, <user_input "weight">] outputs [<user_output "conv">] {
    exir.graph @forward(%x: !exir.tensor<[1, 4, 2, 2], float64>, %weight: !exir.tensor<[4, 1, 5, 5], float64>) -> !exir.tensor<[1, 4, 2, 2], float64> {
      %conv = aten.convolution.default(%x, %weight, none, [1, 1], [2, 2], [1, 1], false, [0, 0], 4) : (!exir.tensor<[1, 4, 2, 2], float64>, !exir.tensor<[4, 1, 5, 5], float64>) -> !exir.tensor<[1, 4, 2, 2], float64>
      exir.output %conv : !exir.tensor<[1, 4, 2, 2], float64>
    }
  }
}

// CHECK-LABEL: func.func @forward
// CHECK-NOT:      tensor<4x1x3x3xf64>
// CHECK:          %[[X:.*]] = tensor.pad %x low[0, 0, 2, 2] high[0, 0, 2, 2]
// CHECK-COUNT-25: tensor.extract_slice %[[X]]
// CHECK-COUNT-25: tensor.extract_slice %weight

// -----

builtin.module {
  exir.program inputs [<user_input "x">, <user_input "weight">] outputs [<user_output "conv">] {
    exir.graph @forward(%x: !exir.tensor<[1, 4, 1, 1], float32>, %weight: !exir.tensor<[4, 1, 3, 3], float32>) -> !exir.tensor<[1, 4, 1, 1], float32> {
      %conv = aten.convolution.default(%x, %weight, none, [1, 1], [2, 2], [2, 2], false, [0, 0], 4) : (!exir.tensor<[1, 4, 1, 1], float32>, !exir.tensor<[4, 1, 3, 3], float32>) -> !exir.tensor<[1, 4, 1, 1], float32>
      exir.output %conv : !exir.tensor<[1, 4, 1, 1], float32>
    }
  }
}

// CHECK-LABEL: func.func @forward
// CHECK-NOT:     tensor<4x1x1x1xf32>
// CHECK-COUNT-9: tensor.extract_slice %weight[0, 0, {{[0-2]}}, {{[0-2]}}] [4, 1, 1, 1] [1, 1, 1, 1] : tensor<4x1x3x3xf32> to tensor<4xf32>
// CHECK-NOT:     tensor.extract_slice %weight
