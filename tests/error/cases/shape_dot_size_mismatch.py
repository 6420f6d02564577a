# expect: 8:14: inconsistent tensor size
# args: --input a=f32[3] --input b=f32[4]
import torch
from typing import List, Tuple


def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a @ b
