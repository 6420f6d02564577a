# expect: 11:21: name 'yy' is not defined
# args: --input x=f32[2,3] --input n=3
import torch
from typing import List, Tuple


def f(x: torch.Tensor, n: int) -> torch.Tensor:
    y = x
    for i in range(n):
        if i > 1:
            y = y + yy
    return y
