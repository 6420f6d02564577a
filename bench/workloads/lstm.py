"""A stacked LSTM stepping through a sequence, layer by layer, with its
state kept in preallocated [layers, batch, hidden] tensors that each step
overwrites in place (the state is the caller's: it comes back updated)."""
import torch
import torch.nn.functional as F
from typing import List, Tuple


def lstm(xs: torch.Tensor, w_ih: torch.Tensor, w_hh: torch.Tensor, b_ih: torch.Tensor,
         b_hh: torch.Tensor, h: torch.Tensor,
         c: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    # xs: [steps, batch, hidden]; w_ih, w_hh: [layers, 4 * hidden, hidden];
    # b_ih, b_hh: [layers, 4 * hidden]; h, c: [layers, batch, hidden].
    outputs: List[torch.Tensor] = []
    for t in range(xs.shape[0]):
        inp = xs[t]
        for l in range(h.shape[0]):
            gates = F.linear(inp, w_ih[l], b_ih[l]) + F.linear(h[l], w_hh[l], b_hh[l])
            i, f, g, o = gates.chunk(4, 1)
            c_new = torch.sigmoid(f) * c[l] + torch.sigmoid(i) * torch.tanh(g)
            h_new = torch.sigmoid(o) * torch.tanh(c_new)
            c[l].copy_(c_new)
            h[l].copy_(h_new)
            inp = h_new
        outputs.append(inp)
    return torch.stack(outputs), h, c
