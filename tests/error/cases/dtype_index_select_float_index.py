# expect: 8:12: index_select(): Expected dtype int32 or int64 for index
# args: --input x=f32[3,4] --input i=f32[2]
import torch
from typing import List, Tuple


def f(x: torch.Tensor, i: torch.Tensor) -> torch.Tensor:
    return x.index_select(0, i)
