"""Functions the Python tests compile (TensorStitch reads this file's
source; the decorators and the test code around them are left out)."""
import torch
from typing import List, Tuple

import tensorstitch as ts


def scale_shift(x: torch.Tensor, scale: float = 2.0, shift: float = 0.5) -> torch.Tensor:
    return x * scale + shift


def row_softmax(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=-1)


def write_row(x: torch.Tensor, i: int, value: float) -> torch.Tensor:
    x[i] = value
    return x.sum(1)


def add_in_place(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    x.add_(y)
    return x


def identity(x: torch.Tensor) -> torch.Tensor:
    return x


def helper(x: torch.Tensor) -> torch.Tensor:
    return torch.tanh(x) * 0.5


def uses_helper(x: torch.Tensor) -> torch.Tensor:
    return helper(x) + helper(x * 2.0)


def list_sum(xs: List[torch.Tensor], weight: float) -> torch.Tensor:
    out = torch.zeros_like(xs[0])
    for x in xs:
        out = out + x * weight
    return out


def two_results(x: torch.Tensor, n: int) -> Tuple[torch.Tensor, int]:
    return x.amax(0), n * 2


def one_tuple(x: torch.Tensor) -> Tuple[torch.Tensor]:
    return (x + 1.0,)


def bad_program(x: torch.Tensor) -> torch.Tensor:
    y = x * 2.0
    return y.frobnicate(3)


def unsupported_op(x: torch.Tensor) -> torch.Tensor:
    return torch.fft.fft(x).real


def index_from_data(x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    return x[int(idx[0])]


@ts.jit
def decorated(x: torch.Tensor) -> torch.Tensor:
    return x * x


@ts.jit(threads=1)
def decorated_with_options(x: torch.Tensor) -> torch.Tensor:
    return x - 1.0


def large_double(x: torch.Tensor) -> torch.Tensor:
    return x * 2.0
