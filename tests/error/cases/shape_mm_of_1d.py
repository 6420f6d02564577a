# expect: 8:12: matrix
# args: --input a=f32[3] --input b=f32[3,4]
import torch
from typing import List, Tuple


def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.mm(a, b)
