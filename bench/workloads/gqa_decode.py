"""One decode step of grouped-query attention: every key/value head serves
a group of query heads, so the queries of a group share one pass over
that head's keys and values (the cache, read once, dominates the cost)."""
import math
import torch


def gqa_decode(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    # q: [kv_heads, group, dim] (one token); k, v: [kv_heads, positions, dim].
    scores = torch.matmul(q, k.transpose(1, 2)) / math.sqrt(q.shape[-1])
    return torch.matmul(torch.softmax(scores, dim=-1), v)
