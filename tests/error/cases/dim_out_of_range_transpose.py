# expect: 9:12: Dimension out of range (expected to be in range of [-3, 2], but got 3)
# args: --input x=f32[2,3,4]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    y = x + 1.0
    return y.transpose(0, 3)
