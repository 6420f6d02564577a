# expect: 8:9: chunk expects `chunks` to be greater than 0, got: 0
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    a = x.chunk(0)
    return a[0]
