exir.graph @g(%x: !exir.tensor<[s0 +], float32>) -> () {
  exir.output
}
