# expect: 9:12: more than one element of the written-to tensor refers to a single memory location
# args: --input x=f32[1,4]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    y = x.expand(3, 4)
    return y.add_(1.0)
