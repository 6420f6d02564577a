# expect: 9:12: index 15 is out of bounds for dimension 1 with size 4
# args: --input x=f32[3,4] --input i=i64[3,2]
# exit: 1
import torch
from typing import List, Tuple


def f(x: torch.Tensor, i: torch.Tensor) -> torch.Tensor:
    return x.gather(1, i * 0 + 15)
