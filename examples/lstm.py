import torch
from typing import List


def lstm(x: torch.Tensor, w_ih: torch.Tensor, w_hh: torch.Tensor, b: torch.Tensor,
         state_h: torch.Tensor, state_c: torch.Tensor) -> torch.Tensor:
    # x: [seq, batch, hidden]; w_ih, w_hh: [layers, 4 * hidden, hidden];
    # b: [layers, 4 * hidden]; state_h, state_c: [layers, batch, hidden],
    # updated in place as the layers step through time.
    state_h = state_h.clone()
    state_c = state_c.clone()
    outputs: List[torch.Tensor] = []
    for t in range(x.shape[0]):
        inp = x[t]
        for j in range(w_ih.shape[0]):
            h = state_h[j]
            gates = inp @ w_ih[j].t() + h @ w_hh[j].t() + b[j]
            i, f, g, o = gates.chunk(4, 1)
            i = torch.sigmoid(i)
            f = torch.sigmoid(f)
            g = torch.tanh(g)
            o = torch.sigmoid(o)
            c = f * state_c[j] + i * g
            h = o * torch.tanh(c)
            state_c[j] = c
            state_h[j] = h
            inp = h
        outputs.append(inp)
    return torch.stack(outputs)
