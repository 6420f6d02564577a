# expect: 8:14: The size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 0
# args: --input a=f32[2,3] --input b=f32[4,3]
import torch
from typing import List, Tuple


def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a + b
