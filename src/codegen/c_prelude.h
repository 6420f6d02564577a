// The C helpers that generated kernels call for element ops with no
// one-line C expression: Python floor division and remainder, NaN-propagating
// max/min, integer powers, sigmoid / silu / gelu, float-to-int conversion,
// and f32 exp / exp2 / expm1 / tanh / sigmoid / silu. Each is written to
// compute what the reference interpreter computes (interp/scalar_math.h,
// interp/elementwise_*.cpp); the f32 transcendentals are
// common/kernel_math.h, float32 in float32 within 2 ulp (the interpreter's
// are double-based), embedded as text at build time, so a loop calling
// them vectorizes 16 lanes wide (a libm call would not vectorize). A
// translation unit gets only the helpers its kernels use. Lane sums fold a
// reduction's lane array in vector registers in its fixed order.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace stitch {

enum class PreludeFn : uint8_t {
  FloorDiv, Remainder, Max, Min, Pow, Sigmoid, Silu, GeluErf, GeluTanh,
  Exp, ExpNonPos, Exp2, Expm1, Tanh, Erf,  // f32 only (f64 calls <math.h>)
  DivByConstant,                // f32 only: kernel_math.h's stitch_kdivc_f32
};

// What the C-family printer writes for: C for the host's compiler, or CUDA
// C++ for NVRTC (codegen/c_renderer.h).
enum class RenderTarget : uint8_t { C, Cuda };

class CPrelude {
 public:
  explicit CPrelude(RenderTarget target = RenderTarget::C) : target_(target) {}
  // The C name of `fn` for operands of `dtype`, added (with the helpers it
  // calls) to the prelude. InternalError when the helper has no such dtype.
  std::string use(PreludeFn fn, DType dtype);
  // The C name of a float -> integer conversion helper.
  std::string useFloatToInt(DType from, DType to);
  // The C name of the helper summing an array of `lanes` floats (16 or 64)
  // pairwise, halving (uops FOLD_LANES) in vector registers; the additions
  // of the halving loops in their order. C target.
  std::string useLaneSum(DType dtype, int64_t lanes);
  // CUDA: the helper folding an array of `lanes` (a power of two) pairwise,
  // halving, each pair as `combine` (a C expression of `lo`, lane l, and
  // `hi`, lane l + h; `op` names it): in the registers of one thread, or,
  // `block`, by all threads of a block over lanes in shared memory (warp
  // shuffles for the last halvings); the combines of the halving loops.
  std::string useGpuLaneFold(const std::string& op, DType dtype, int64_t lanes, const std::string& combine,
                             bool block);
  // The helpers in the order they were first used.
  std::string text() const;

 private:
  void add(const std::string& name, const std::string& code);
  RenderTarget target_;
  std::vector<std::string> names_;
  std::string text_;
};

// Whether `fn` on `dtype` comes from common/kernel_math.h.
bool usesKernelMath(PreludeFn fn, DType dtype);

// The text of common/kernel_math.h (generated at build time).
extern const char kKernelMathC[];

const char* cTypeName(DType dtype);  // "float", "int64_t", "uint8_t" (bool) ...
const char* dtypeSuffix(DType dtype);  // "f32", "i64", "b8" ...

}  // namespace stitch
