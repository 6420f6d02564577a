# expect: 8:12: the number of sizes provided (1) must be greater or equal to the number of dimensions in the tensor (2)
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    return x.expand(3)
