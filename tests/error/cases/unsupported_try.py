# expect: 8:5: try
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    try:
        y = x + 1
    except Exception:
        y = x
    return y
