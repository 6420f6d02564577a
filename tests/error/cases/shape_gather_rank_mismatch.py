# expect: 8:12: Index tensor must have the same number of dimensions as input tensor
# args: --input x=f32[3,4] --input i=i64[3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor, i: torch.Tensor) -> torch.Tensor:
    return torch.gather(x, 1, i)
