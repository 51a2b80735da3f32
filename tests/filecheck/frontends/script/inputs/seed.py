# The worked examples of the JIT Technical Overview, compiled by the
# script frontend in filecheck tests. Line numbers matter: CHECK lines name them.
import torch


def lstm_cell(x, hx, cx, w_ih, w_hh, b_ih, b_hh):
    gates = x.mm(w_ih.t()) + hx.mm(w_hh.t()) + b_ih + b_hh
    ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
    ingate = torch.sigmoid(ingate)
    forgetgate = torch.sigmoid(forgetgate)
    cellgate = torch.tanh(cellgate)
    outgate = torch.sigmoid(outgate)
    cy = (forgetgate * cx) + (ingate * cellgate)
    hy = outgate * torch.tanh(cy)
    return hy, cy


def f(a, b, c: bool):
    d = a + b
    if c:
        e = d + d
    else:
        e = b + d
    return e


def for_loop(x):
    z = x
    for i in range(x.size(0)):
        z = z * z
    return z


def while_continue(i: int):
    while i < 5:
        if i == 3:
            i += 1
            continue
        i += 2
    return i


def early_return(x, flag: bool):
    if flag:
        return x * 2.0
    y = x + 1.0
    return y * y


def check(i: int) -> float:
    if i < 0:
        raise ValueError("Negative input")
    else:
        return float(i) * 0.5
