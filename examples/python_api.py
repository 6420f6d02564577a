"""TensorStitch from Python: one decorator, torch tensors in and out.

Run after `pip install .` (see README.md): python examples/python_api.py
"""
import torch
import tensorstitch as ts


@ts.jit
def rms_norm_gelu(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    scale = torch.rsqrt((x * x).mean(-1, keepdim=True) + eps)
    return torch.nn.functional.gelu(x * scale * weight)


@ts.jit
def decay_(state: torch.Tensor, rate: float) -> torch.Tensor:
    state.mul_(1.0 - rate)  # written in place: the caller sees it
    return state.sum()


if __name__ == "__main__":
    x, w = torch.randn(256, 512), torch.rand(512)
    y = rms_norm_gelu(x, w)
    print("max |y - eager| =", (y - rms_norm_gelu.__wrapped__(x, w)).abs().max().item())
    state = torch.ones(4)
    total = decay_(state, 0.25)
    print("state after the call:", state.tolist(), "sum:", total.item())
    print(ts.dump(rms_norm_gelu, x, w, stage="fused"))
    print("stats:", rms_norm_gelu.stitch_stats())
