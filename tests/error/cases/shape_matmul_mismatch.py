# expect: 8:14: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)
# args: --input a=f32[2,3] --input b=f32[4,5]
import torch
from typing import List, Tuple


def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a @ b
