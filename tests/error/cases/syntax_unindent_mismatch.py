# expect: 11:3: indent
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    y = x + 1
    if True:
        y = y * 2
  return y
