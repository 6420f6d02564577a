# expect: 8:5: index_put_() with other than one index tensor is not supported
# args: --input x=f32[2,3] --input i=i64[2]
import torch
from typing import List, Tuple


def f(x: torch.Tensor, i: torch.Tensor) -> torch.Tensor:
    x.index_put_((i, i), torch.ones(2))
    return x
