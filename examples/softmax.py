import torch


def softmax(x: torch.Tensor) -> torch.Tensor:
    # Subtract the row maximum first so exp never overflows.
    row_max = x.amax(dim=-1, keepdim=True)
    e = torch.exp(x - row_max)
    return e / e.sum(dim=-1, keepdim=True)
