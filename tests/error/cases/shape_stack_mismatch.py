# expect: 8:12: stack expects each tensor to be equal size, but got [2, 3] at entry 0 and [2, 4] at entry 1
# args: --input a=f32[2,3] --input b=f32[2,4]
import torch
from typing import List, Tuple


def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.stack([a, b])
