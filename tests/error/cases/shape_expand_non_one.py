# expect: 8:12: The expanded size of the tensor (4) must match the existing size (2) at non-singleton dimension 0
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    return x.expand(4, 3)
