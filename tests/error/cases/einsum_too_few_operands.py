# expect: 8:12: operands
# args: --input a=f32[2,3]
import torch
from typing import List, Tuple


def f(a: torch.Tensor) -> torch.Tensor:
    return torch.einsum('ij,jk->ik', [a])
