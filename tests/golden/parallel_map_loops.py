# Loops whose iterations carry no dependence (FuncTs' parallel map): the
# first (run-time trip count) is marked pmap=true and kept; the second (three
# iterations) is unrolled into straight-line code, its appends folded into
# one list; the third carries a tensor from one iteration to the next and is
# neither marked nor unrolled.
# ARGS: --input x=f32[4,3] --input n=5
# STAGE: simplified
# CHECK: graph loops(%x : f32[4,3], %n : int):
# CHECK: %scaled.1 : List[f32[4,3]], %s : float = prim.loop[pmap=true](%n, %{{[0-9]+}}, %scaled, %{{[0-9]+}})
# CHECK-NEXT: block0(%i : int, %scaled.2 : List[f32[4,3]], %s.1 : float):
# CHECK: list.append(%scaled.2,
# CHECK-NEXT: %s.2 : float = scalar.mul(%s.1,
# CHECK-NOT: prim.loop
# CHECK: %{{[0-9]+}} : f32[3] = immut.select(%x, %{{[0-9]+}}, %{{[0-9]+}})
# CHECK-NEXT: exp(
# CHECK-NEXT: add(
# CHECK-NEXT: immut.select(%x,
# CHECK-NEXT: exp(
# CHECK-NEXT: add(
# CHECK-NEXT: immut.select(%x,
# CHECK-NEXT: exp(
# CHECK-NEXT: add(
# CHECK-NEXT: %rows : List[f32[3]] = prim.list_construct(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}})
# CHECK-NOT: list.append
# CHECK-NEXT: %acc : f32[4,3] = prim.loop(%{{[0-9]+}}, %{{[0-9]+}}, %x)
# CHECK: f32[3,3] = stack(%rows,
import torch
from typing import List


def loops(x: torch.Tensor, n: int):
    # Independent iterations with a run-time trip count: marked, kept.
    scaled: List[torch.Tensor] = []
    s = 1.0
    for i in range(n):
        scaled.append(x * s)
        s = s * 2.0
    # Independent iterations, three of them: unrolled, each row exact.
    rows: List[torch.Tensor] = []
    for j in range(3):
        rows.append(torch.exp(x[j]) + j)
    # A tensor carried from one iteration to the next: neither.
    acc = x
    for k in range(2):
        acc = acc * 2.0 + k
    return torch.cat(scaled, 0), torch.stack(rows), acc
