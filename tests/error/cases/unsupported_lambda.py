# expect: 8:9: lambda
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    g = lambda t: t + 1
    return g(x)
