# The seed's first worked example: an element write inside a loop becomes a
# loop-carried value (immut.select to read the row, immut.select_rev to write
# it); simplify drops the unused clone of a and the unused constants.
# ARGS: --input a=f32[4,3] --input b=f32[6,3] --input n=4
# STAGE: functional
# CHECK: graph func(%a : f32[4,3], %b : f32[6,3], %n : int):
# CHECK-NOT: copy_
# CHECK: %b.1 : f32[6,3] = clone(%b)
# CHECK-NEXT: %b.2 : f32[6,3] = prim.loop(%n, %{{[a-z0-9.]+}}, %b.1)
# CHECK-NEXT: block0(%i : int, %b.3 : f32[6,3]):
# CHECK-NEXT: %{{[a-z0-9.]+}} : f32[3] = immut.select(%b.3, %{{[a-z0-9.]+}}, %i)
# CHECK-NEXT: : f32[3] = add(
# CHECK-NEXT: : f32[6,3] = immut.select_rev(%b.3, %{{[a-z0-9.]+}}, %{{[a-z0-9.]+}}, %i)
# CHECK-NEXT: -> (%{{[a-z0-9.]+}}, %{{[a-z0-9.]+}})
# CHECK-NOT: select(
# CHECK: return (%b.2)
# STAGE: simplified
# CHECK: graph func(
# CHECK-NOT: clone(%a)
# CHECK-NOT: None
# CHECK: %b.1 : f32[6,3] = clone(%b)
# CHECK-NEXT: %b.2 : f32[6,3] = prim.loop(%n, %{{[a-z0-9.]+}}, %b.1)
# CHECK-NEXT: block0(%i : int, %b.3 : f32[6,3]):
# CHECK-NEXT: immut.select(%b.3,
# CHECK-NEXT: add(
# CHECK-NEXT: immut.select_rev(%b.3,
# CHECK: return (%b.2)
import torch


def func(a: torch.Tensor, b: torch.Tensor, n: int):
    a = a.clone()
    b = b.clone()
    for i in range(n):
        b[i] = b[i] + 1
    return b
