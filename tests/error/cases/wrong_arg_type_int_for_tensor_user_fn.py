# expect: 12:12: Tensor
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def g(t: torch.Tensor) -> torch.Tensor:
    return t * 2.0


def f(x: torch.Tensor) -> torch.Tensor:
    return g(3)
