# expect: 9:12: index -4
# contains: dimension 1
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    return x.select(1, -4)
