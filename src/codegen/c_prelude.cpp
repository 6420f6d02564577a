#include "codegen/c_prelude.h"

#include <algorithm>
#include <cctype>

#include "codegen/text_cat.h"
#include "common/error.h"

namespace stitch {

namespace {

// Placeholders in the helper texts: $T the C type, $U its unsigned type,
// $S the dtype suffix, $F the <math.h> suffix ("f" for float), $N the name.
std::string substitute(std::string code, DType dtype, const std::string& name) {
  const bool f32 = dtype == DType::f32;
  const std::pair<const char*, std::string> subs[] = {
      {"$T", cTypeName(dtype)},
      {"$U", dtype == DType::i32 ? "uint32_t" : "uint64_t"},
      {"$S", dtypeSuffix(dtype)},
      {"$F", f32 ? "f" : ""},
      {"$N", name},
      {"$H", f32 ? "stitch_ktanh_f32" : "tanh"},
  };
  for (const auto& [from, to] : subs) {
    for (size_t pos = code.find(from); pos != std::string::npos; pos = code.find(from, pos + to.size()))
      code.replace(pos, 2, to);
  }
  return code;
}

// interp/scalar_math.h floorDivInt / remainderInt. A zero divisor is
// rejected before a kernel runs; returning 0 keeps it from trapping anyway.
const char* kFloorDivInt = R"(static inline $T $N($T a, $T b) {
  if (b == 0) return 0;
  if (b == -1) return ($T)(($U)0 - ($U)a);
  $T q = a / b, r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) --q;
  return q;
}
)";
const char* kRemainderInt = R"(static inline $T $N($T a, $T b) {
  if (b == 0 || b == -1) return 0;
  $T r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
)";
// floorDivFloat / remainderFloat: Python's float semantics.
const char* kFloorDivFloat = R"(static inline $T $N($T a, $T b) {
  if (b == 0) return a / b;
  $T mod = fmod$F(a, b);
  $T div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= ($T)1;
  if (div == 0) return copysign$F(($T)0, a / b);
  $T fl = floor$F(div);
  if (div - fl > ($T)0.5) fl += ($T)1;
  return fl;
}
)";
const char* kRemainderFloat = R"(static inline $T $N($T a, $T b) {
  $T mod = fmod$F(a, b);
  if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
  return mod;
}
)";
// maximum / minimum: a NaN operand wins (a + b is NaN then). One unordered
// compare tests both operands: a vector max costs four instructions, where
// testing each operand apart took nine (a softmax's max pass).
const char* kMaxFloat = "static inline $T $N($T a, $T b) { return a != a || b != b ? a + b : a > b ? a : b; }\n";
const char* kMinFloat = "static inline $T $N($T a, $T b) { return a != a || b != b ? a + b : a < b ? a : b; }\n";
const char* kMaxInt = "static inline $T $N($T a, $T b) { return a > b ? a : b; }\n";
const char* kMinInt = "static inline $T $N($T a, $T b) { return a < b ? a : b; }\n";
// intPow: negative exponents give 1 / base^-exp truncated.
const char* kPowInt = R"(static inline $T $N($T base, $T exp) {
  if (exp < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exp & 1) ? -1 : 1;
    return 0;
  }
  $U result = 1, b = ($U)base;
  while (exp) {
    if (exp & 1) result *= b;
    b *= b;
    exp >>= 1;
  }
  return ($T)result;
}
)";
const char* kPowBool = "static inline uint8_t $N(uint8_t base, uint8_t exp) { return exp ? base : 1; }\n";
const char* kSigmoid = "static inline $T $N($T x) { return ($T)1 / (($T)1 + exp$F(-x)); }\n";
// The constants are the <math.h> values (M_SQRT1_2, M_SQRT2 * M_2_SQRTPI * 0.5)
// rounded to $T the way the interpreter rounds them.
const char* kGeluErf =
    "static inline $T $N($T x) { return x * ($T)0.5 * (($T)1 + erf$F(x * ($T)0.70710678118654752440)); }\n";
// $H is the kernels' tanh: kernel_math.h's for f32, libm's for f64.
const char* kGeluTanh = R"(static inline $T $N($T x) {
  const $T beta = ($T)(1.41421356237309504880 * 1.12837916709551257390 * 0.5), kappa = ($T)0.044715;
  $T inner = beta * (x + kappa * x * x * x);
  return ($T)0.5 * x * (($T)1 + $H(inner));
}
)";

const char* fnName(PreludeFn fn) {
  switch (fn) {
    case PreludeFn::FloorDiv: return "floordiv";
    case PreludeFn::Remainder: return "remainder";
    case PreludeFn::Max: return "max";
    case PreludeFn::Min: return "min";
    case PreludeFn::Pow: return "pow";
    case PreludeFn::Sigmoid: return "sigmoid";
    case PreludeFn::Silu: return "silu";
    case PreludeFn::GeluErf: return "gelu_erf";
    case PreludeFn::GeluTanh: return "gelu_tanh";
    case PreludeFn::Exp: return "exp";
    case PreludeFn::ExpNonPos: return "exp_nonpos";
    case PreludeFn::Exp2: return "exp2";
    case PreludeFn::Expm1: return "expm1";
    case PreludeFn::Tanh: return "tanh";
    case PreludeFn::Erf: return "erf";
    case PreludeFn::DivByConstant: return "divc";
  }
  return "?";
}

// The helper text for `fn` on `dtype`; nullptr when there is none.
const char* helperCode(PreludeFn fn, DType dtype) {
  const bool isFloat = isFloating(dtype), isInt = isIntegral(dtype);
  switch (fn) {
    case PreludeFn::FloorDiv: return isFloat ? kFloorDivFloat : isInt ? kFloorDivInt : nullptr;
    case PreludeFn::Remainder: return isFloat ? kRemainderFloat : isInt ? kRemainderInt : nullptr;
    case PreludeFn::Max: return isFloat ? kMaxFloat : kMaxInt;
    case PreludeFn::Min: return isFloat ? kMinFloat : kMinInt;
    case PreludeFn::Pow: return isInt ? kPowInt : dtype == DType::b8 ? kPowBool : nullptr;
    case PreludeFn::Sigmoid: return isFloat ? kSigmoid : nullptr;
    case PreludeFn::Silu: return isFloat ? "static inline $T $N($T x) { return x * stitch_sigmoid_$S(x); }\n" : nullptr;
    case PreludeFn::GeluErf: return isFloat ? kGeluErf : nullptr;
    case PreludeFn::GeluTanh: return isFloat ? kGeluTanh : nullptr;
    case PreludeFn::Exp:
    case PreludeFn::ExpNonPos:
    case PreludeFn::Exp2:
    case PreludeFn::Expm1:
    case PreludeFn::Tanh:
    case PreludeFn::Erf:
    case PreludeFn::DivByConstant: return nullptr;  // kernel_math.h only
  }
  return nullptr;
}

}  // namespace

const char* cTypeName(DType dtype) {
  switch (dtype) {
    case DType::b8: return "uint8_t";
    case DType::i32: return "int32_t";
    case DType::i64: return "int64_t";
    case DType::f32: return "float";
    case DType::f64: return "double";
  }
  return "?";
}

const char* dtypeSuffix(DType dtype) {
  switch (dtype) {
    case DType::b8: return "b8";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
    case DType::f32: return "f32";
    case DType::f64: return "f64";
  }
  return "?";
}

bool usesKernelMath(PreludeFn fn, DType dtype) {
  if (dtype != DType::f32) return false;
  switch (fn) {
    case PreludeFn::Exp:
    case PreludeFn::ExpNonPos:
    case PreludeFn::Exp2:
    case PreludeFn::Expm1:
    case PreludeFn::Tanh:
    case PreludeFn::Erf:
    case PreludeFn::DivByConstant:
    case PreludeFn::Sigmoid:
    case PreludeFn::Silu:
    case PreludeFn::GeluErf: return true;
    case PreludeFn::FloorDiv:
    case PreludeFn::Remainder:
    case PreludeFn::Max:
    case PreludeFn::Min:
    case PreludeFn::Pow:
    case PreludeFn::GeluTanh: return false;
  }
  return false;
}

std::string CPrelude::use(PreludeFn fn, DType dtype) {
  std::string name = std::string("stitch_") + fnName(fn) + "_" + dtypeSuffix(dtype);
  if (usesKernelMath(fn, dtype)) {
    add("kernel_math.h", kKernelMathC);
    return std::string("stitch_k") + fnName(fn) + "_f32";
  }
  const char* code = helperCode(fn, dtype);
  STITCH_ASSERT(code, "no C helper ", fnName(fn), " for ", dtypeName(dtype));
  if (fn == PreludeFn::Silu) use(PreludeFn::Sigmoid, dtype);
  if (fn == PreludeFn::GeluTanh && dtype == DType::f32) add("kernel_math.h", kKernelMathC);
  add(name, substitute(code, dtype, name));
  return name;
}

// Sums the lanes in the order of lane_reduce.h's combine (lane l + lane
// l + h for h = W/2, .., 1) with GCC vector extensions: each halving step
// is one add of two half-width vectors, so the array is loaded once
// instead of going through memory at every step (a 64-long dot product's
// lanes: 5.8 -> 3.7 ns per output on AVX-512). Exact IEEE adds, no
// reassociation: the value of the loops it replaces.
std::string CPrelude::useLaneSum(DType dtype, int64_t lanes) {
  STITCH_ASSERT(isFloating(dtype) && (lanes == 16 || lanes == 64), "no lane sum of ", lanes, " ",
                dtypeName(dtype), " lanes");
  STITCH_ASSERT(target_ == RenderTarget::C, "lane sums in vector registers are the C target's");
  std::string name = std::string("stitch_lane_sum") + std::to_string(lanes) + "_" + dtypeSuffix(dtype);
  // stitch_lane_fold16 folds a vector; the sums load their lanes into one
  // (64 lanes: h = 32 pairs quarters 0 + 2 and 1 + 3, h = 16 adds the two).
  const char* sum16 = R"(typedef $T stitch_v16_$S __attribute__((vector_size(16 * sizeof($T))));
typedef $T stitch_v8_$S __attribute__((vector_size(8 * sizeof($T))));
typedef $T stitch_v4_$S __attribute__((vector_size(4 * sizeof($T))));
static inline $T stitch_lane_fold16_$S(stitch_v16_$S v) {
  stitch_v8_$S a = __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7) +
                   __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15);
  stitch_v4_$S b = __builtin_shufflevector(a, a, 0, 1, 2, 3) + __builtin_shufflevector(a, a, 4, 5, 6, 7);
  $T c0 = b[0] + b[2], c1 = b[1] + b[3];
  return c0 + c1;
}
static inline $T stitch_lane_sum16_$S(const $T* lanes) {
  stitch_v16_$S v;
  __builtin_memcpy(&v, lanes, sizeof v);
  return stitch_lane_fold16_$S(v);
}
)";
  add(std::string("stitch_lane_sum16_") + dtypeSuffix(dtype), substitute(sum16, dtype, ""));
  if (lanes == 64) {
    const char* sum64 = R"(static inline $T stitch_lane_sum64_$S(const $T* lanes) {
  stitch_v16_$S q[4];
  __builtin_memcpy(q, lanes, sizeof q);
  return stitch_lane_fold16_$S((q[0] + q[2]) + (q[1] + q[3]));
}
)";
    add(name, substitute(sum64, dtype, ""));
  }
  return name;
}

// On CUDA, the halvings of combineLanes with `combine` (an expression of
// `lo`, lane l, and `hi`, lane l + h). A thread's own lanes fold in its
// registers. A block's lanes in shared memory fold in the block: the
// halvings down to a warp's 32 lanes through shared memory, a barrier
// before each, then in every warp through shuffles (lane i takes lane
// i + h: lanes below h combine exactly as the halvings do), and every
// thread takes lane 0's value, the fold's. Every thread of the block must
// call it, as every one of a warp must take part in a shuffle.
std::string CPrelude::useGpuLaneFold(const std::string& op, DType dtype, int64_t lanes, const std::string& combine,
                                     bool block) {
  STITCH_ASSERT(target_ == RenderTarget::Cuda && lanes >= 1 && (lanes & (lanes - 1)) == 0, "no GPU fold of ", lanes,
                " lanes");
  std::string lower = op;
  for (char& ch : lower) ch = (char)std::tolower((unsigned char)ch);
  std::string name = cat("stitch_", block ? "block" : "thread", "_fold", std::to_string(lanes), "_", lower, "_",
                         dtypeSuffix(dtype));
  const char* thread = R"(static inline $T $N(const $T* lanes) {
  $T v[$W];
#pragma unroll
  for (int i = 0; i < $W; ++i) v[i] = lanes[i];
#pragma unroll
  for (int h = $W / 2; h >= 1; h /= 2)
#pragma unroll
    for (int i = 0; i < h; ++i) {
      const $T lo = v[i], hi = v[i + h];
      v[i] = $C;
    }
  return v[0];
}
)";
  const char* shared = R"(static inline $T $N($T* lanes) {
  for (int h = $W / 2; h >= 32; h /= 2) {
    __syncthreads();
    for (int i = threadIdx.x; i < h; i += blockDim.x) {
      const $T lo = lanes[i], hi = lanes[i + h];
      lanes[i] = $C;
    }
  }
  __syncthreads();
  $T v = lanes[threadIdx.x % $V];
  for (int h = $V / 2; h >= 1; h /= 2) {
    const $T lo = v, hi = STITCH_SHFL_DOWN(v, h);
    v = $C;
  }
  return STITCH_SHFL_IDX(v, 0);
}
)";
  std::string code = substitute(block ? shared : thread, dtype, name);
  const std::pair<const char*, std::string> subs[] = {
      {"$W", std::to_string(lanes)}, {"$V", std::to_string(std::min<int64_t>(lanes, 32))}, {"$C", combine}};
  for (const auto& [from, to] : subs)
    for (size_t at; (at = code.find(from)) != std::string::npos;) code.replace(at, 2, to);
  add(name, code);
  return name;
}

std::string CPrelude::useFloatToInt(DType from, DType to) {
  STITCH_ASSERT(isFloating(from) && isIntegral(to), "no float-to-int helper from ",
                dtypeName(from), " to ", dtypeName(to));
  std::string name = std::string("stitch_") + dtypeSuffix(from) + "_to_" + dtypeSuffix(to);
  // The interpreter converts with static_cast. On x86-64 an out-of-range or
  // NaN value becomes the "integer indefinite" INT_MIN there (cvtt*2si);
  // spelled out so the optimizer cannot exploit the undefined cast, and so
  // a GPU (which saturates) gives the same value.
  // Truncation keeps exactly the values in (-2^k - 1, 2^k) in range; the
  // bounds written are exactly representable in the source type.
  const bool i32 = to == DType::i32, f32 = from == DType::f32;
  std::string suffix = f32 ? "f" : "";
  std::string lowerTest = !i32 ? "x >= -9223372036854775808.0" + suffix
                          : f32 ? "x >= -2147483648.0f"
                                : "x > -2147483649.0";
  std::string upperTest = (i32 ? "x < 2147483648.0" : "x < 9223372036854775808.0") + suffix;
  std::string code =
      "static inline $T " + name + "(" + cTypeName(from) + " x) {\n"
      "#if defined(__x86_64__) || defined(__CUDACC__)\n"
      "  return (" + lowerTest + " && " + upperTest + ") ? ($T)x : " + (i32 ? "INT32_MIN" : "INT64_MIN") + ";\n"
      "#else\n"
      "  return ($T)x;\n"
      "#endif\n"
      "}\n";
  add(name, substitute(code, to, name));
  return name;
}

void CPrelude::add(const std::string& name, const std::string& code) {
  if (std::find(names_.begin(), names_.end(), name) != names_.end()) return;
  names_.push_back(name);
  text_ += code;
}

std::string CPrelude::text() const { return text_; }

}  // namespace stitch
