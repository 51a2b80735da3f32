exir.graph @g(%x: !exir.tensor<[2], float33>) -> () {
  exir.output
}
