#include "interp/unary_math.h"

#include "common/cpu_clones.h"
#include "common/float_math.h"

// An FMA clone and a baseline one.
#define STITCH_FMA_CLONES STITCH_CPU_CLONES("fma", "default")

namespace stitch {

STITCH_FMA_CLONES float hostExpF32(float x) { return stitch_exp_f32(x); }
STITCH_FMA_CLONES float hostExp2F32(float x) { return stitch_exp2_f32(x); }
STITCH_FMA_CLONES float hostExpm1F32(float x) { return stitch_expm1_f32(x); }
STITCH_FMA_CLONES float hostTanhF32(float x) { return stitch_tanh_f32(x); }
STITCH_FMA_CLONES float hostSigmoidF32(float x) { return stitch_sigmoid_f32(x); }
STITCH_FMA_CLONES float hostSiluF32(float x) { return stitch_silu_f32(x); }

}  // namespace stitch
