# expect: 10:12: 'y'
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    if x.sum() > 0:
        y = x
    return y
