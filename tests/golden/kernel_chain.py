# The code generator's stages on an elementwise chain feeding a reduction:
# the chain (mul, sub, exp) is one kernel with the scalar as a parameter,
# the f32 sum another that accumulates in f64; the chain's loop nest is
# one contiguous, division-free loop over the merged dims.
# ARGS: --input x=f32[64,1000] --input y=f32[64,1000] --input s=0.5
# STAGE: ugraph
# CHECK: kernel k0 block: %{{[a-z0-9.]+}}=mul %{{[a-z0-9.]+}}=sub %{{[a-z0-9.]+}}=exp
# CHECK-NEXT: out0 %{{[a-z0-9.]+}} : f32[64,1000]
# CHECK-NEXT: in0 %x : f32[64,1000]
# CHECK-NEXT: in1 %y : f32[64,1000]
# CHECK-NEXT: param0 %s : float
# CHECK: kernel k1 block: %{{[a-z0-9.]+}}=sum
# CHECK: out0 %{{[a-z0-9.]+}} : f32[64]
# CHECK: Reduce SUM %{{[0-9]+}} over r0<1000> : f64
# STAGE: uops
# CHECK: kernel k0
# CHECK-NEXT: DEFINE_GLOBAL{{ +}}ptr.f32{{ +}}data0 (output)
# CHECK-NEXT: DEFINE_GLOBAL{{ +}}ptr.f32{{ +}}data1
# CHECK-NEXT: DEFINE_GLOBAL{{ +}}ptr.f32{{ +}}data2
# CHECK-NEXT: DEFINE_VAR{{ +}}f64{{ +}}p0
# CHECK: SPECIAL{{ +}}i64{{ +}}gidx0 <
# CHECK-NOT: DIV
# CHECK: LOOP
# CHECK-NOT: DIV
# CHECK-NOT: MOD
# CHECK: LOAD{{ +}}f32
# CHECK-NEXT: LOAD{{ +}}f32
# CHECK-NEXT: ALU{{ +}}f32{{.*}}MUL
# CHECK-NEXT: ALU{{ +}}f32{{.*}}SUB
# CHECK-NEXT: ALU{{ +}}f32{{.*}}EXP
# CHECK-NEXT: STORE
# CHECK-NEXT: ENDLOOP
# CHECK: kernel k1
# CHECK: DEFINE_ACC{{ +}}f64
# CHECK: LOOP
# CHECK: LOAD{{ +}}f32
# CHECK-NEXT: CAST{{ +}}f64
# CHECK-NEXT: ALU{{ +}}f64{{.*}}ADD
# CHECK-NEXT: PHI{{ +}}f64
# CHECK-NEXT: ENDLOOP
# CHECK-NEXT: CAST{{ +}}f32
# CHECK-NEXT: STORE
# STAGE: code
# CHECK: typedef union { int64_t i; double f; } stitch_scalar;
# CHECK: for (
# CHECK-NOT: /
# CHECK-NOT: %
# CHECK: expf(
# CHECK: void k0(void* const* bufs, const stitch_scalar* params, int64_t threads) {
# CHECK: double acc
# CHECK: void k1(void* const* bufs, const stitch_scalar* params, int64_t threads) {
import torch


def chain(x: torch.Tensor, y: torch.Tensor, s: float):
    return torch.exp(x * y - s).sum(dim=1)
