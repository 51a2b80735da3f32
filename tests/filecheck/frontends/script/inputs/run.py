

def loop_return(x, n: int):
    for i in range(n):
        if i == 2:
            return x * float(i)
        x = x + 1.0
    return x
