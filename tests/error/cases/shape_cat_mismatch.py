# expect: 9:12: Sizes of tensors must match except in dimension 0
# contains: Expected size 3 but got size 4
# args: --input a=f32[2,3] --input b=f32[2,4]
import torch
from typing import List, Tuple


def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.cat([a, b], 0)
