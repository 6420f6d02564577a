# expect: 8:12: where expected condition to be a boolean tensor, but got a tensor with dtype Float
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x, x, x)
