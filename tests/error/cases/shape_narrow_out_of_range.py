# expect: 8:12: start (2) + length (3) exceeds dimension size (4).
# args: --input x=f32[4]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    return x.narrow(0, 2, 3)
