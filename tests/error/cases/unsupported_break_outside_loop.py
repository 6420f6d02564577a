# expect: 8:5: 'break' outside loop
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    break
    return x
