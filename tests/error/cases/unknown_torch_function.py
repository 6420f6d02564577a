# expect: 8:12: torch.frobnicate
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    return torch.frobnicate(x)
