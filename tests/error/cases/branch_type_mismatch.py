# expect: 10:5: 'y'
# contains: int
# contains: Tensor
# args: --input x=f32[2] --input flag=true
import torch
from typing import List, Tuple


def f(x: torch.Tensor, flag: bool) -> torch.Tensor:
    if flag:
        y = 1
    else:
        y = x
    return y
