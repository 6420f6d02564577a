# expect: 8:12: Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    return x.repeat(2)
