# expect: 8:5: with
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        y = x + 1
    return y
