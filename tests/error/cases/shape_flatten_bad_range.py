# expect: 8:12: start_dim cannot come after end_dim
# args: --input x=f32[2,3,4]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    return x.flatten(2, 1)
