# expect: 8:12: batch1 must be a 3D tensor
# args: --input a=f32[2,3] --input b=f32[3,4]
import torch
from typing import List, Tuple


def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.bmm(a, b)
