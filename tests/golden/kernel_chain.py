# The code generator's stages on an elementwise chain feeding a reduction:
# fusion puts the chain (mul, sub, exp) and the f32 sum into one group whose
# schedule splits the rows across blocks; its kernel computes each row's
# sum in 16 lanes of f32 accumulators (float32 work in float32; a
# block-local array, so the C compiler vectorizes the chain and the
# accumulation), each trip of the lane loop folding two consecutive terms
# per lane (one load and store of the lane array per two), then folds the
# lanes pairwise (16 -> 8 -> 4 -> 2 -> 1) in one FOLD_LANES, which the C
# code does in vector registers (a lane-sum helper).
# The index arithmetic needs no division.
# ARGS: --input x=f32[64,1000] --input y=f32[64,1000] --input s=0.5 --threads 2
# STAGE: fused
# CHECK: group g0 root %{{[a-z0-9.]+}} schedule (split_dim=0, sword={{[0-9]+}}, Row) nodes: %{{[a-z0-9.]+}}=mul %{{[a-z0-9.]+}}=sub %{{[a-z0-9.]+}}=exp %{{[a-z0-9.]+}}=sum
# CHECK-NOT: group g1
# STAGE: ugraph
# CHECK: kernel k0 block: %{{[a-z0-9.]+}}=mul %{{[a-z0-9.]+}}=sub %{{[a-z0-9.]+}}=exp %{{[a-z0-9.]+}}=sum
# CHECK-NEXT: out0 %{{[a-z0-9.]+}} : f32[64] omap {x->0}
# CHECK-NEXT: in0 %x : f32[64,1000] imap {x->0}
# CHECK-NEXT: in1 %y : f32[64,1000] imap {x->0}
# CHECK-NEXT: param0 %s : float
# CHECK-NEXT: schedule (split_dim=0, sword={{[0-9]+}}, Row)
# CHECK: Reduce SUM %{{[0-9]+}} over r0<1000> : f32
# CHECK-NOT: kernel k1
# STAGE: uops
# CHECK: kernel k0
# CHECK-NEXT: DEFINE_GLOBAL{{ +}}ptr.f32{{ +}}data0 (output)
# CHECK-NEXT: DEFINE_GLOBAL{{ +}}ptr.f32{{ +}}data1
# CHECK-NEXT: DEFINE_GLOBAL{{ +}}ptr.f32{{ +}}data2
# CHECK-NEXT: DEFINE_VAR{{ +}}f64{{ +}}p0
# CHECK: SPECIAL{{ +}}i64{{ +}}gidx0 <
# CHECK-NOT: DIV
# CHECK-NOT: MOD
# CHECK: DEFINE_LOCAL{{ +}}ptr.f32{{ +}}[16]
# CHECK: ENDLOOP
# CHECK: LOOP
# CHECK-NEXT: LOOP
# CHECK-NEXT: LOAD{{ +}}f32
# CHECK: LOAD{{ +}}f32
# CHECK-NEXT: LOAD{{ +}}f32
# CHECK-NEXT: ALU{{ +}}f32{{.*}}MUL
# CHECK-NEXT: ALU{{ +}}f32{{.*}}SUB
# CHECK-NEXT: ALU{{ +}}f32{{.*}}EXP
# CHECK-NEXT: ALU{{ +}}f32{{.*}}ADD
# CHECK: LOAD{{ +}}f32
# CHECK-NEXT: LOAD{{ +}}f32
# CHECK-NEXT: ALU{{ +}}f32{{.*}}MUL
# CHECK-NEXT: ALU{{ +}}f32{{.*}}SUB
# CHECK-NEXT: ALU{{ +}}f32{{.*}}EXP
# CHECK-NEXT: ALU{{ +}}f32{{.*}}ADD
# CHECK-NEXT: STORE
# CHECK: ENDLOOP
# CHECK-NEXT: ENDLOOP
# CHECK: FOLD_LANES{{ +}}f32{{ +}}[{{[0-9]+}}]{{ +}}ADD x16
# CHECK-NEXT: STORE
# CHECK-NOT: DEFINE_ACC
# CHECK-NOT: DIV
# CHECK-NOT: MOD
# STAGE: code
# CHECK: typedef union { int64_t i; double f; } stitch_scalar;
# CHECK: static inline float stitch_kexp_f32(
# CHECK: static inline float stitch_lane_sum16_f32(const float* lanes) {
# CHECK: for (
# CHECK: stitch_kexp_f32(
# CHECK: stitch_lane_sum16_f32(local{{[0-9]+}})
# CHECK: void k0(void* const* bufs, const stitch_scalar* params, int64_t threads) {
# CHECK-NOT: void k1(
import torch


def chain(x: torch.Tensor, y: torch.Tensor, s: float):
    return torch.exp(x * y - s).sum(dim=1)
