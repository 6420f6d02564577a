"""NASRNN: the recurrent cell found by neural architecture search (Zoph and
Le), as in TensorFlow's NASCell, unrolled over the time steps of one
sequence. Each step multiplies the input and the hidden state by eight
weight matrices each (16 GEMVs) and combines the results in three layers
of sigmoid / relu / tanh, adds and products."""
import torch
from typing import List, Tuple


def nas_cell(x: torch.Tensor, h: torch.Tensor, c: torch.Tensor, w_x: torch.Tensor,
             w_h: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    xs: List[torch.Tensor] = []
    hs: List[torch.Tensor] = []
    for i in range(8):
        xs.append(x @ w_x[i])
        hs.append(h @ w_h[i])
    l1_0 = torch.sigmoid(xs[0] + hs[0])
    l1_1 = torch.relu(xs[1] + hs[1])
    l1_2 = torch.sigmoid(xs[2] + hs[2])
    l1_3 = torch.relu(xs[3] * hs[3])
    l1_4 = torch.tanh(xs[4] + hs[4])
    l1_5 = torch.sigmoid(xs[5] + hs[5])
    l1_6 = torch.tanh(xs[6] + hs[6])
    l1_7 = torch.sigmoid(xs[7] + hs[7])
    l2_0 = torch.tanh(l1_0 * l1_1)
    l2_1 = torch.tanh(l1_2 + l1_3)
    l2_2 = torch.tanh(l1_4 * l1_5)
    l2_3 = torch.sigmoid(l1_6 + l1_7)
    # The cell state enters in the second layer only.
    l2_0 = torch.tanh(l2_0 + c)
    new_c = l2_0 * l2_1
    l3_1 = torch.tanh(l2_2 + l2_3)
    new_h = torch.tanh(new_c * l3_1)
    return new_h, new_c


def nasrnn(xs: torch.Tensor, h: torch.Tensor, c: torch.Tensor, w_x: torch.Tensor,
           w_h: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    # xs: [steps, batch, hidden]; w_x, w_h: [8, hidden, hidden].
    for t in range(xs.shape[0]):
        h, c = nas_cell(xs[t], h, c, w_x, w_h)
    return h, c
