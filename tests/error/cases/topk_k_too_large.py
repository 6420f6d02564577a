# expect: 8:12: selected index k out of range
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    return torch.topk(x, 4)[0]
