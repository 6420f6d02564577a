#include "runtime/device_contraction.h"

#include <climits>
#include <cstring>

#include "codegen/c_expr.h"
#include "codegen/c_renderer.h"
#include "codegen/text_cat.h"
#include "codegen/kernel_abi.h"
#include "common/error.h"
#include "runtime/gpu_blas.h"
#include "ugraph/contraction_epilogue.h"

namespace stitch {

namespace {

// Adds linear's bias and the merged bias row (each may be absent), then
// applies the epilogue's steps: the host kernel's epilogue, element by
// element, each step the expression a kernel of its own has
// (stitch_epilogue_activation and stitch_epilogue_combine, rendered
// below). Step s is params[3 + 3s .. 5 + 3s]: its activation (< 0: none,
// the step combines), how it combines, and its operand's activation (< 0:
// none); the combining steps' operands are bufs[3], bufs[4], ... in order.
constexpr const char* kEpilogueKernel = R"(
STITCH_KERNEL void stitch_contraction_epilogue(const stitch_args args) {
  float* restrict c = (float*)args.bufs[0];
  const float* restrict bias = (const float*)args.bufs[1];
  const float* restrict row = (const float*)args.bufs[2];
  const int64_t count = args.params[0].i, n = args.params[1].i, steps = args.params[2].i;
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) {
    float v = c[i];
    if (bias) v = v + bias[i % n];
    if (row) v = v + row[i % n];
    int64_t operand = 0;
    for (int64_t s = 0; s < steps; ++s) {
      const int64_t act = args.params[3 + 3 * s].i;
      if (act >= 0) {
        v = stitch_epilogue_activation(v, act);
        continue;
      }
      float t = ((const float*)args.bufs[3 + operand++])[i];
      const int64_t operandAct = args.params[5 + 3 * s].i;
      if (operandAct >= 0) t = stitch_epilogue_activation(t, operandAct);
      v = stitch_epilogue_combine(v, t, args.params[4 + 3 * s].i);
    }
    c[i] = v;
  }
}
)";

constexpr int kEpilogueThreads = 256;

}  // namespace

std::string contractionEpilogueSource() {
  CPrelude prelude(RenderTarget::Cuda);
  std::string cases, combines;
  for (AluOp op : epilogueActivations())
    cases += cat("    case ", std::to_string(int(op)), ": return ", renderAluExpr(op, DType::f32, {"v"}, prelude), ";\n");
  for (AluOp op : {AluOp::Add, AluOp::Mul})
    combines +=
        cat("    case ", std::to_string(int(op)), ": return ", renderAluExpr(op, DType::f32, {"v", "t"}, prelude), ";\n");
  return cat(renderCuda({}), cudaHelpers(prelude),
             "static __device__ inline float stitch_epilogue_activation(float v, int64_t op) {\n  switch (op) {\n",
             cases, "    default: return v;\n  }\n}\n",
             "static __device__ inline float stitch_epilogue_combine(float v, float t, int64_t op) {\n  switch (op) {\n",
             combines, "    default: return v;\n  }\n}\n", kEpilogueKernel);
}

bool deviceRunsContraction(GpuDevice& device, const ContractionKernel::Form& f) {
  if (!device.blas()) return false;
  for (int64_t v : {f.batch, f.m, f.n, f.k})
    if (v > INT_MAX) return false;
  return true;
}

int runContractionOnDevice(GpuDevice& device, const ContractionKernel& kernel,
                           const std::vector<CudaPointer>& operands, CudaPointer out) {
  const ContractionKernel::Form& f = kernel.form();
  GpuBlas* blas = device.blas();
  STITCH_ASSERT(blas, "a contraction on a device without BLAS");
  const int64_t count = f.batch * f.m * f.n;
  if (count == 0) return 0;
  // The epilogue's sibling product first, into a buffer of C's shape that
  // goes back once the epilogue is queued (in stream order, as a capture
  // records it).
  int launches = 0;
  CudaPointer siblingOut = 0;
  if (const ContractionKernel* sibling = kernel.sibling()) {
    std::vector<CudaPointer> siblingOperands;
    for (int64_t i : f.siblingOperands) siblingOperands.push_back(operands.at(size_t(i)));
    siblingOut = device.allocate(size_t(count) * sizeof(float));
    launches += runContractionOnDevice(device, *sibling, siblingOperands, siblingOut);
  }
  // C^T[n, m] = op(B)^T[n, k] A^T[k, m] per batch entry, column-major.
  blas->sgemmStridedBatched(f.transposedB, false, f.n, f.m, f.k, operands.at(1), f.transposedB ? f.k : f.n,
                            f.transposedB ? 0 : f.k * f.n, operands.at(0), f.k, f.sharedA ? 0 : f.m * f.k, out, f.n,
                            f.m * f.n, f.batch);
  // A sibling's product is an operand of the steps: never without them.
  if (!f.bias && f.epilogueBias < 0 && f.steps.empty()) return launches + 1;
  CudaKernelArgs args;
  std::memset(&args, 0, sizeof args);
  args.bufs[0] = out;
  args.bufs[1] = f.bias ? operands.at(2) : 0;
  args.bufs[2] = f.epilogueBias >= 0 ? operands.at((size_t)f.epilogueBias) : 0;
  for (size_t i = 0; i < f.stepOperands.size(); ++i)
    args.bufs[3 + i] = f.stepOperands[i] == ContractionKernel::kSiblingProduct ? siblingOut
                                                                               : operands.at((size_t)f.stepOperands[i]);
  args.params[0].i = count;
  args.params[1].i = f.n;
  args.params[2].i = int64_t(f.steps.size());
  for (size_t s = 0; s < f.steps.size(); ++s) {
    const EpilogueStep& step = f.steps[s];
    args.params[3 + 3 * s].i = step.activation ? int64_t(*step.activation) : -1;
    args.params[4 + 3 * s].i = int64_t(step.combine);
    args.params[5 + 3 * s].i = step.operandActivation ? int64_t(*step.operandActivation) : -1;
  }
  device.launch(
      predefinedKernel(device, "contraction epilogue", &contractionEpilogueSource, "stitch_contraction_epilogue"),
      {(count + kEpilogueThreads - 1) / kEpilogueThreads, kEpilogueThreads}, &args, sizeof args);
  if (siblingOut) device.release(siblingOut);
  return launches + 2;
}

}  // namespace stitch
