# expect: 8:12: Dimension out of range (expected to be in range of [-2, 1], but got 2)
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    return x.squeeze(2)
