# examples/normalize.py: two channel writes through views of a clone become
# two chained immut.select_rev; simplify drops the unused constants.
# ARGS: --input src=f32[8,9,3] --input mean=0.5 --input scale=2.0
# STAGE: functional
# CHECK: graph normalize(%src : f32[8,9,3], %mean : float, %scale : float):
# CHECK-NOT: copy_
# CHECK: %src.1 : f32[8,9,3] = clone(%src)
# CHECK-NEXT: %dup : f32[8,9,3] = clone(%src.1)
# CHECK-NEXT: : f32[8,9] = immut.select(%src.1,
# CHECK-NEXT: : f32[8,9,3] = immut.select_rev(%dup,
# CHECK-NEXT: : f32[8,9] = immut.select(%src.1,
# CHECK-NEXT: : f32[8,9,3] = immut.select_rev(
# CHECK-NEXT: sub(
# CHECK-NEXT: mul(
# CHECK-NEXT: return (
# STAGE: simplified
# CHECK: graph normalize(
# CHECK-NOT: None
# CHECK: %dup : f32[8,9,3] = clone(%src.1)
# CHECK-NEXT: immut.select(%src.1,
# CHECK-NEXT: immut.select_rev(%dup,
# CHECK-NEXT: immut.select(%src.1,
# CHECK-NEXT: immut.select_rev(
# CHECK-NEXT: sub(
# CHECK-NEXT: mul(
# CHECK-NEXT: return (
import torch


def normalize(src: torch.Tensor, mean: float, scale: float) -> torch.Tensor:
    src = src.clone()
    dup = src.clone()
    dup[..., 0] = src[..., 2]
    dup[..., 2] = src[..., 0]
    return (dup - mean) * scale
