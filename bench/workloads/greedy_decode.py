"""Greedy decoding with a tiny recurrent language model: embed the last
token, update the hidden state, project to the vocabulary, take the most
likely token, stop at the end token. The next step depends on the value of
the argmax, so every step goes back to the host."""
import torch
from typing import List


def greedy_decode(emb: torch.Tensor, w_h: torch.Tensor, w_out: torch.Tensor, h: torch.Tensor,
                  start: int, end: int, max_steps: int) -> List[int]:
    # emb: [vocab, hidden]; w_h: [hidden, hidden]; w_out: [hidden, vocab];
    # h: [1, hidden].
    tokens: List[int] = []
    token = start
    for step in range(max_steps):
        x = emb.index_select(0, torch.full([1], token, dtype=torch.long))
        h = torch.tanh(x + h @ w_h)
        token = int(torch.argmax(h @ w_out, dim=-1))
        if token == end:
            break
        tokens.append(token)
    return tokens
