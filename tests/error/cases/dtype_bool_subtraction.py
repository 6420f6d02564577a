# expect: 9:15: Subtraction, the `-` operator, with two bool tensors is not supported
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    m = x > 0
    return (m - m).float()
