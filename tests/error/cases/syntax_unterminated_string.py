# expect: 8:25: unterminated string
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    return torch.einsum('ij->ji, [x])
