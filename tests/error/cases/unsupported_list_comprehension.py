# expect: 8:17: comprehension
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    ys = [t * 2 for t in x.unbind(0)]
    return torch.stack(ys)
