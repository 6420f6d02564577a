# expect: 9:14: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)
# args: --input a=f32[2,3] --input b=f32[4,5]
import torch
from typing import List, Tuple


def proj(a: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    h = a * 2.0
    return h @ w


def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return proj(a, b) + 1.0
