# expect: 12:12: argument
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def g(a: torch.Tensor) -> torch.Tensor:
    return a


def f(x: torch.Tensor) -> torch.Tensor:
    return g(x, x)
