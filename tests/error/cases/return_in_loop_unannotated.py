# expect: 9:13: a return inside a loop needs the function's return type annotation
# args: --input x=f32[4]
import torch


def f(x: torch.Tensor):
    for i in range(4):
        if float(x[i]) > 0.0:
            return x
    return x * 2
