# expect: 8:9: dict
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    d = {'a': x}
    return x
