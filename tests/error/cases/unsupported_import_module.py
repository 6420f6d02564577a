# expect: 4:8: numpy
# args: --input x=f32[2,3]
import torch
import numpy


def f(x: torch.Tensor) -> torch.Tensor:
    return x
