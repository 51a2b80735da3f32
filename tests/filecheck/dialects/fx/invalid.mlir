// The verifiers of the fx dialect, one case each.
// RUN: exir-opt %s --split-input-file --verify-diagnostics

exir.program inputs [] outputs [] {
  exir.graph @forward() -> () {
    // expected-error@+1 {{get_attr target @missing does not exist}}
    %w = fx.get_attr @missing : !exir.tensor<[2], float32>
    exir.output
  }
}

// -----

exir.program inputs [] outputs [] {
  exir.state @w : !exir.tensor<[2], float32>
  exir.graph @forward() -> () {
    // expected-error@+1 {{get_attr result type !exir.tensor<[3], float32> is not the type !exir.tensor<[2], float32> of @w}}
    %w = fx.get_attr @w : !exir.tensor<[3], float32>
    exir.output
  }
}

// -----

exir.program inputs [] outputs [] {
  exir.graph @forward() -> () {
    // expected-error@+1 {{get_attr target @sub is a 'exir.graph', not an exir.state}}
    %w = fx.get_attr @sub : !exir.graph_module
    exir.output
  }
  exir.graph @sub() -> () {
    exir.output
  }
}

// -----

exir.program inputs [<user_input "x">] outputs [] {
  exir.state @fc.weight : !exir.tensor<[2, 2], float32>
  exir.graph @forward(%x: !exir.tensor<[2], float32>) -> () {
    // expected-error@+1 {{module 'fc' has state 'fc.bias' but the program has no exir.state of that name}}
    %y = fx.call_module "fc"(%x) module torch.nn.modules.linear.Linear state ["weight", "bias"] : (!exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>
    exir.output
  }
}

// -----

exir.graph @g(%x: !exir.tensor<[2], float32>) -> () {
  // expected-error@+1 {{call_module needs a module path}}
  %y = "fx.call_module"(%x) <{target = "", module = "torch.nn.modules.activation.ReLU", config = {}, state = [], args = [#exir.ref<0>], kwargs = {}}> : (!exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>
  exir.output
}

// -----

exir.graph @g(%x: !exir.tensor<[2], float32>) -> () {
  // expected-error@+1 {{argument references [] do not match the 1 operands one to one}}
  %y = "fx.call_module"(%x) <{target = "act", module = "torch.nn.modules.activation.ReLU", config = {}, state = [], args = [], kwargs = {}}> : (!exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>
  exir.output
}

// -----

exir.graph @g(%x: !exir.tensor<[2], float32>) -> () {
  // expected-error@+1 {{call_method needs the object it is called on as first argument}}
  %y = "fx.call_method"() <{target = "view", args = [2, -1], kwargs = {}}> : () -> !exir.tensor<[2], float32>
  exir.output
}

// -----

exir.graph @g(%x: !exir.tensor<[2], float32>) -> () {
  // expected-error@+1 {{'not a name' is not a method name}}
  %y = fx.call_method "not a name"(%x) : (!exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>
  exir.output
}

// -----

exir.graph @g() -> () {
  // expected-error@+1 {{slice step cannot be zero}}
  %s = fx.slice(0, 4, 0)
  exir.output
}

// -----

exir.graph @g() -> () {
  // expected-error@+1 {{slice takes start, stop and step, got 2 parts}}
  %s = fx.slice(0, 4)
  exir.output
}

// -----

exir.graph @g() -> () {
  // expected-error@+1 {{slice part 'a' is not an int or none}}
  %s = fx.slice(0, "a", 1)
  exir.output
}

// -----

exir.graph @g(%f: !exir.float) -> () {
  // expected-error@+1 {{operand 'arguments' at position 0 does not verify}}
  %s = fx.slice(%f, none, none) : !exir.float
  exir.output
}
