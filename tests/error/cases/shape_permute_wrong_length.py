# expect: 8:12: does not match the length of the desired ordering of dimensions
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    return x.permute(0, 1, 2)
