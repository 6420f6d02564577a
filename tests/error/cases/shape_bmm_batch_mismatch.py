# expect: 8:12: batch2
# args: --input a=f32[2,3,4] --input b=f32[3,4,5]
import torch
from typing import List, Tuple


def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.bmm(a, b)
