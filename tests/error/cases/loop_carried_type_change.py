# expect: 10:9: 'acc'
# args: --input x=f32[2,3]
import torch
from typing import List, Tuple


def f(x: torch.Tensor) -> torch.Tensor:
    acc = 0
    for i in range(3):
        acc = acc + x
    return x
