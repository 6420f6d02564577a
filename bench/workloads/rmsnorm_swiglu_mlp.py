"""A LLaMA-style MLP block: RMSNorm, then a SwiGLU feed-forward layer
(silu(x wg) * (x wu)) wd."""
import torch
import torch.nn.functional as F


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def rmsnorm_swiglu_mlp(x: torch.Tensor, norm_w: torch.Tensor, w_gate: torch.Tensor,
                       w_up: torch.Tensor, w_down: torch.Tensor) -> torch.Tensor:
    # x: [tokens, model]; w_gate, w_up: [model, hidden]; w_down: [hidden, model].
    h = rms_norm(x, norm_w, 1e-6)
    return (F.silu(h @ w_gate) * (h @ w_up)) @ w_down
