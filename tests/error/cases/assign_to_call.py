# expect: 8:5: cannot assign
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    x.t() = x
    return x
