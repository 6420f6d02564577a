# expect: 7:1: class
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


class M:
    pass


def f(x: torch.Tensor) -> torch.Tensor:
    return x
