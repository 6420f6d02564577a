# expect: 8:12: Tensors must have same number of dimensions: got 2 and 1
# args: --input a=f32[2,3] --input b=f32[3]
import torch
from typing import List, Tuple


def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.cat([a, b])
