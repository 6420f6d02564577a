# expect: 8:12: mat1 and mat2 shapes cannot be multiplied (2x3 and 5x4)
# args: --input x=f32[2,3] --input w=f32[4,5]
import torch
from typing import List, Tuple


def f(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.linear(x, w)
