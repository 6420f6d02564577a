# expect: 8:16: Trying to create tensor with negative dimension -1: [2, -1]
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    return x + torch.zeros(2, -1)
