# expect: 9:5: Index put requires the source and destination dtypes match, got f64 for the destination and f32 for the source.
# args: --input x=f32[2,3] --input i=i64[2]
import torch
from typing import List, Tuple


def f(x: torch.Tensor, i: torch.Tensor) -> torch.Tensor:
    y = torch.zeros(4, 3, dtype=torch.float64)
    y[i] = x
    return y
