# expect: 9:5: too many values to unpack (expected 2)
# args: --input x=f32[3,2]
# exit: 1
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    a, b = x.unbind(0)
    return a * b
