# expect: 8:16: step must be nonzero
# args: --input x=f32[5]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    return x + torch.arange(0, 5, 0)
