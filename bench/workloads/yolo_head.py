"""The inference tail of a YOLOv5 detection layer: raw predictions
[batch, anchors, ny, nx, 5 + classes] become boxes in pixels (centres from
the cell grid and the stride, sizes from the anchors) and probabilities,
written slice by slice into a copy, then flattened to one row per box."""
import torch


def yolo_head(x: torch.Tensor, grid: torch.Tensor, anchor_grid: torch.Tensor,
              stride: float) -> torch.Tensor:
    # x: [1, 3, ny, nx, 85]; grid, anchor_grid: [1, 3, ny, nx, 2].
    y = x.clone()
    xy = y[..., 0:2]
    xy.sigmoid_()
    xy.add_(grid)
    xy.mul_(stride)
    y[..., 2:4] = torch.exp(y[..., 2:4]) * anchor_grid
    y[..., 4:].sigmoid_()
    return y.view(1, -1, y.shape[-1])
