"""Autoregressive decoding with a preallocated key/value cache: each step
writes the new token's key and value rows into the cache in place and lets
the token's query attend to every position written so far
(softmax(q k^T / sqrt(d)) v per head)."""
import math
import torch
from typing import List


def attention_decode(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, cache_k: torch.Tensor,
                     cache_v: torch.Tensor, start: int) -> torch.Tensor:
    # q, k, v: [steps, batch, heads, dim], one token per step;
    # cache_k, cache_v: [batch, heads, positions, dim], filled up to `start`.
    scale = 1.0 / math.sqrt(q.shape[-1])
    outputs: List[torch.Tensor] = []
    for t in range(q.shape[0]):
        pos = start + t
        cache_k[:, :, pos] = k[t]
        cache_v[:, :, pos] = v[t]
        keys = cache_k[:, :, :pos + 1]
        values = cache_v[:, :, :pos + 1]
        scores = (q[t].unsqueeze(2) @ keys.transpose(-1, -2)) * scale
        outputs.append((torch.softmax(scores, dim=-1) @ values).squeeze(2))
    return torch.stack(outputs)
