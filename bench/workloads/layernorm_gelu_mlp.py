"""The first half of a transformer MLP block: layer norm over the model
dimension, a linear layer and GELU."""
import torch
import torch.nn.functional as F


def layer_norm(x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor,
               eps: float) -> torch.Tensor:
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    return (x - mean) * torch.rsqrt(var + eps) * gamma + beta


def layernorm_gelu_mlp(x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor,
                       w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    # x: [tokens, model]; gamma, beta: [model]; w: [model, hidden]; b: [hidden].
    # (F.layer_norm is what one would call; stitch does not have it yet.)
    h = layer_norm(x, gamma, beta, 1e-5)
    return F.gelu(h @ w + b)
