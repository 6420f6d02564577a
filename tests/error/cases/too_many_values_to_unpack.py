# expect: 8:5: unpack
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    a, b = (x, x, x)
    return a + b
