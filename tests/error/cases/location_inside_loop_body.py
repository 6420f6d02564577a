# expect: 11:15: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1
# args: --input a=f32[2,3] --input b=f32[2,4]
import torch
from typing import List, Tuple


def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    y = a
    for i in range(3):
        y = y * 2.0
        y = y + b
    return y
