# expect: 8:9: split_with_sizes expects split_sizes to sum exactly to 7
# args: --input x=f32[2,7]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    a = x.split([1, 2], 1)
    return a[0]
