# expect: 8:9: cannot be converted to Scalar
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    n = int(x)
    return x * n
