# expect: 8:12: dim 0 appears multiple times in the list of dims
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    return x.sum([0, 0])
