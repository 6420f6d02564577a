# expect: 8:12: index 5 is out of bounds for dimension 0 with size 3
# args: --input x=f32[3,4]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    return x[5]
