# expect: 8:12: recursi
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def g(x: torch.Tensor) -> torch.Tensor:
    return g(x * 0.5)


def f(x: torch.Tensor) -> torch.Tensor:
    return g(x)
