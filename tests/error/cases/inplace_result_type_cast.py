# expect: 8:12: can't be cast
# args: --input x=i64[3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    return x.add_(0.5)
