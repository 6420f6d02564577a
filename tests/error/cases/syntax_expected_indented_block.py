# expect: 9:5: expected an indented block
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    if x.sum() > 0:
    return x
    return x
