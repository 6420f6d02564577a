# expect: 8:12: The shape of the mask [3] at index 0 does not match the shape of the indexed tensor [2, 3] at index 0
# args: --input x=f32[2,3] --input m=f32[3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    return x[m > 0.0]
