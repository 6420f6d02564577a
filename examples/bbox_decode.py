import torch
from typing import List


def decode_scale(anchors: torch.Tensor, deltas: torch.Tensor, stride: float,
                 width: float, height: float) -> torch.Tensor:
    # anchors: [N, 4] as (cx, cy, w, h) in feature-map cells;
    # deltas: [N, 4] as (dx, dy, dw, dh) predicted by the detection head.
    centers = (anchors[..., 0:2] + deltas[..., 0:2] * anchors[..., 2:4]) * stride
    # Clamp the log-size deltas so exp stays finite (log(1000 / 16)).
    sizes = anchors[..., 2:4] * torch.exp(torch.clamp(deltas[..., 2:4], max=4.135)) * stride
    x1 = torch.clamp(centers[..., 0] - 0.5 * sizes[..., 0], min=0.0, max=width)
    y1 = torch.clamp(centers[..., 1] - 0.5 * sizes[..., 1], min=0.0, max=height)
    x2 = torch.clamp(centers[..., 0] + 0.5 * sizes[..., 0], min=0.0, max=width)
    y2 = torch.clamp(centers[..., 1] + 0.5 * sizes[..., 1], min=0.0, max=height)
    return torch.stack([x1, y1, x2, y2], dim=-1)


def bbox_decode(anchors: List[torch.Tensor], deltas: List[torch.Tensor],
                width: float, height: float) -> torch.Tensor:
    # One entry per feature-map scale, strides 8, 16, 32, ...; the boxes of
    # all scales come back as one [sum N, 4] tensor of (x1, y1, x2, y2).
    boxes: List[torch.Tensor] = []
    stride = 8.0
    for scale_anchors, scale_deltas in zip(anchors, deltas):
        boxes.append(decode_scale(scale_anchors, scale_deltas, stride, width, height))
        stride = stride * 2.0
    return torch.cat(boxes, dim=0)
