# expect: 9:5: not enough values to unpack (expected 3, got 2)
# args: --input x=f32[1,1,2]
# exit: 1
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    a, b, c = torch.unbind(x, -1)
    return a + b + c
