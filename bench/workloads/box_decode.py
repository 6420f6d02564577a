"""FCOS-style box decoding over the feature-map scales of a detector
(strides 8, 16, 32): each location predicts its distances to the four box
sides (log scale), class logits and a centerness logit; boxes come out in
pixels and scores as sqrt(class probability x centerness), all scales
concatenated."""
import torch
from typing import List, Tuple


def decode_level(points: torch.Tensor, reg: torch.Tensor, cls: torch.Tensor,
                 ctr: torch.Tensor, stride: float) -> Tuple[torch.Tensor, torch.Tensor]:
    # points: [n, 2] location centres in pixels; reg: [n, 4] (left, top,
    # right, bottom) in log(stride units); cls: [n, classes]; ctr: [n, 1].
    dist = torch.exp(reg) * stride
    boxes = torch.cat([points - dist[:, 0:2], points + dist[:, 2:4]], dim=1)
    scores = torch.sqrt(torch.sigmoid(cls) * torch.sigmoid(ctr))
    return boxes, scores


def box_decode(points: List[torch.Tensor], regs: List[torch.Tensor], cls: List[torch.Tensor],
               ctr: List[torch.Tensor]) -> Tuple[torch.Tensor, torch.Tensor]:
    all_boxes: List[torch.Tensor] = []
    all_scores: List[torch.Tensor] = []
    stride = 8.0
    for i in range(len(points)):
        boxes, scores = decode_level(points[i], regs[i], cls[i], ctr[i], stride)
        all_boxes.append(boxes)
        all_scores.append(scores)
        stride = stride * 2.0
    return torch.cat(all_boxes, dim=0), torch.cat(all_scores, dim=0)
