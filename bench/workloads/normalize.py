"""Image preprocessing: an HWC image in BGR order becomes RGB (channels 0
and 2 swapped through writes to views of a copy), normalized per channel
and laid out CHW for the network."""
import torch


def normalize(img: torch.Tensor, mean: torch.Tensor, std: torch.Tensor) -> torch.Tensor:
    # img: [height, width, 3] in [0, 255]; mean, std: [3].
    rgb = img.clone()
    rgb[..., 0] = img[..., 2]
    rgb[..., 2] = img[..., 0]
    return ((rgb / 255.0 - mean) / std).permute(2, 0, 1).contiguous()
