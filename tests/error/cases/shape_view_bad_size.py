# expect: 8:12: shape '[5, 7]' is invalid for input of size 6
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    return x.view(5, 7)
