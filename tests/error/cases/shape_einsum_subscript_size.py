# expect: 8:12: subscript j has size 4 for operand 1 which does not broadcast with previously seen size 3
# args: --input a=f32[2,3] --input b=f32[4,5]
import torch
from typing import List, Tuple


def f(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.einsum('ij,jk->ik', a, b)
