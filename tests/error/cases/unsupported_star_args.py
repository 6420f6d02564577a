# expect: 9:24: star-args
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    xs = [x, x]
    return torch.stack(*xs)
