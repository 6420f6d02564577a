# expect: 9:12: 0-dim tensor
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    s = x.sum()
    return s[0]
