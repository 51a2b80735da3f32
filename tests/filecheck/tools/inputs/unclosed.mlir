exir.graph @g() -> () {

