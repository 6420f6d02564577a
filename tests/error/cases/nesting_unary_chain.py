# expect: 8:211: expression nested too deeply (more than 200 levels)
# args: --input x=f32[3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    return ----------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------x
