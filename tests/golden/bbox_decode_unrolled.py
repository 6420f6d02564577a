# Box decoding over three scales (examples/bbox_decode.py): the list inputs
# are specialized on their elements (behind a run-time guard on the length
# and the row counts), the loop over zip(anchors, deltas) is a parallel map
# with three iterations and is unrolled, so every scale's ops have static
# shapes (the stride folds to 8, 16, 32) and the concatenation's is known.
# ARGS: --input anchors=[f32[1200,4],f32[300,4],f32[75,4]]
# ARGS: --input deltas=[f32[1200,4],f32[300,4],f32[75,4]] --input width=640 --input height=480
# STAGE: simplified
# CHECK: graph bbox_decode(%anchors : List[f32[?,4]], %deltas : List[f32[?,4]], %width : float, %height : float):
# CHECK: input 'anchors' was compiled for a list of 3 elements (f32[1200,4], f32[300,4], f32[75,4])
# CHECK: = list.len(%anchors)
# CHECK: prim.raise(
# CHECK: = list.get(%anchors, %{{[0-9]+}})
# CHECK: prim.raise(
# CHECK: %anchors.1 : f32[1200,4] = immut.expand(
# CHECK-NEXT: %anchors.2 : f32[300,4] = immut.expand(
# CHECK-NEXT: %anchors.3 : f32[75,4] = immut.expand(
# CHECK: %deltas.1 : f32[1200,4] = immut.expand(
# CHECK-NOT: prim.loop
# CHECK-NOT: f32[?
# CHECK: %centers : f32[1200,2] = mul(%{{[0-9]+}}, %{{[0-9]+}})
# CHECK: %x1 : f32[1200] = clamp(
# CHECK: f32[1200,4] = stack(
# CHECK-NEXT: prim.constant[value=16.0]
# CHECK: %centers.1 : f32[300,2] = mul(
# CHECK: f32[300,4] = stack(
# CHECK-NEXT: prim.constant[value=32.0]
# CHECK: %centers.2 : f32[75,2] = mul(
# CHECK: f32[75,4] = stack(
# CHECK-NEXT: %boxes : List[f32[?,4]] = prim.list_construct(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}})
# CHECK-NEXT: f32[1575,4] = cat(%boxes,
# CHECK-NEXT: return (
import torch
from typing import List


def decode_scale(anchors: torch.Tensor, deltas: torch.Tensor, stride: float,
                 width: float, height: float) -> torch.Tensor:
    centers = (anchors[..., 0:2] + deltas[..., 0:2] * anchors[..., 2:4]) * stride
    sizes = anchors[..., 2:4] * torch.exp(torch.clamp(deltas[..., 2:4], max=4.135)) * stride
    x1 = torch.clamp(centers[..., 0] - 0.5 * sizes[..., 0], min=0.0, max=width)
    y1 = torch.clamp(centers[..., 1] - 0.5 * sizes[..., 1], min=0.0, max=height)
    x2 = torch.clamp(centers[..., 0] + 0.5 * sizes[..., 0], min=0.0, max=width)
    y2 = torch.clamp(centers[..., 1] + 0.5 * sizes[..., 1], min=0.0, max=height)
    return torch.stack([x1, y1, x2, y2], dim=-1)


def bbox_decode(anchors: List[torch.Tensor], deltas: List[torch.Tensor],
                width: float, height: float) -> torch.Tensor:
    boxes: List[torch.Tensor] = []
    stride = 8.0
    for scale_anchors, scale_deltas in zip(anchors, deltas):
        boxes.append(decode_scale(scale_anchors, scale_deltas, stride, width, height))
        stride = stride * 2.0
    return torch.cat(boxes, dim=0)
