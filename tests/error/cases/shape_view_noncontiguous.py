# expect: 9:12: view size is not compatible with input tensor's size and stride
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    y = x.t()
    return y.view(6)
