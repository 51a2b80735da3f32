def pick(x, flag: bool):
    if flag:
        y = 1
    else:
        y = x
    return y + 1
