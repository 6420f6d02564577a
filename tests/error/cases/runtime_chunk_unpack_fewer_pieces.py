# expect: 9:5: not enough values to unpack (expected 4, got 3)
# args: --input x=f32[3,5,1]
# exit: 1
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    a, b, c, d = x.chunk(4, 1)
    return a + b + c + d
