# exit: 1
# expect: 9:12: index 5 is out of bounds for dimension 0 with size 2
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    return x[torch.arange(5, 6)]
