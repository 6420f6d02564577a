# expect: 8:17: only ':' and '...' may follow a tensor index
# args: --input x=f32[2,3] --input i=i64[2]
import torch
from typing import List, Tuple


def f(x: torch.Tensor, i: torch.Tensor) -> torch.Tensor:
    return x[i, 0]
