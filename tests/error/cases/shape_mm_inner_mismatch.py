# expect: 8:12: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)
# args: --input a=f32[2,3]
import torch
from typing import List, Tuple


def f(a: torch.Tensor) -> torch.Tensor:
    return a.mm(a)
