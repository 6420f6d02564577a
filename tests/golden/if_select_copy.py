# The seed's control-dependency example: a copy_ into a select of b in both
# branches of an if; b becomes an output of the prim.if.
# ARGS: --input a=f32[5,3] --input b=f32[5,3] --input idx=2
# STAGE: functional
# CHECK: graph func(%a : f32[5,3], %b : f32[5,3], %idx : int):
# CHECK-NOT: copy_
# CHECK: %b.1 : f32[5,3] = clone(%b)
# CHECK-NEXT: : bool = scalar.ge(%idx,
# CHECK-NEXT: %a.2 : f32[5,3], %b.2 : f32[5,3] = prim.if(
# CHECK-NEXT: block0():
# CHECK-NEXT: %a.3 : f32[5,3] = add(%a.1,
# CHECK-NEXT: : f32[3] = immut.select(%a.3, %{{[a-z0-9.]+}}, %idx)
# CHECK-NEXT: : f32[5,3] = immut.select_rev(%b.1, %{{[a-z0-9.]+}}, %{{[a-z0-9.]+}}, %idx)
# CHECK-NEXT: -> (%a.3, %{{[a-z0-9.]+}})
# CHECK-NEXT: block1():
# CHECK-NEXT: %a.4 : f32[5,3] = sub(%a.1,
# CHECK-NEXT: scalar.neg(%idx)
# CHECK-NEXT: scalar.neg(%idx)
# CHECK-NEXT: immut.select(%a.4,
# CHECK-NEXT: immut.select_rev(%b.1,
# CHECK-NEXT: -> (%a.4, %{{[a-z0-9.]+}})
# CHECK-NEXT: return (%a.2, %b.2)
# STAGE: simplified
# CHECK: graph func(
# CHECK-NOT: None
# CHECK: prim.if(
# CHECK: block1():
# CHECK-NEXT: %a.4 : f32[5,3] = sub(%a.1,
# CHECK-NEXT: %{{[0-9]+}} : int = scalar.neg(%idx)
# CHECK-NOT: scalar.neg
# CHECK: immut.select(%a.4,
# CHECK-NEXT: immut.select_rev(%b.1,
# CHECK: return (%a.2, %b.2)
import torch


def func(a: torch.Tensor, b: torch.Tensor, idx: int):
    a = a.clone()
    b = b.clone()
    if idx >= 0:
        a = a + 1
        b[idx].copy_(a[idx])
    else:
        a = a - 1
        b[-idx].copy_(a[-idx])
    return a, b
