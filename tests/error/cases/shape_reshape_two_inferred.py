# expect: 8:12: only one dimension can be inferred
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    return x.reshape(-1, -1)
