# expect: 10:12: out of bounds
# args: --input x=i64[4]
# exit: 1
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    n = int(x.sum())
    return x[n + 100]
