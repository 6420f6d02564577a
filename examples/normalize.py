import torch


def normalize(src: torch.Tensor, mean: float, scale: float) -> torch.Tensor:
    src = src.clone()
    dup = src.clone()
    dup[..., 0] = src[..., 2]
    dup[..., 2] = src[..., 0]
    return (dup - mean) * scale
