# expect: 8:12: tensors used as indices must be long, byte or bool tensors
# args: --input x=f32[4,3] --input i=i32[2]
import torch
from typing import List, Tuple


def f(x: torch.Tensor, i: torch.Tensor) -> torch.Tensor:
    return x[i]
