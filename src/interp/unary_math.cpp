#include "interp/unary_math.h"

#include "common/float_math.h"

// An FMA clone and a baseline one, chosen by the dynamic loader (ifunc).
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define STITCH_FMA_CLONES __attribute__((target_clones("fma", "default")))
#endif
#endif
#ifndef STITCH_FMA_CLONES
#define STITCH_FMA_CLONES
#endif

namespace stitch {

STITCH_FMA_CLONES float hostExpF32(float x) { return stitch_exp_f32(x); }
STITCH_FMA_CLONES float hostExp2F32(float x) { return stitch_exp2_f32(x); }
STITCH_FMA_CLONES float hostExpm1F32(float x) { return stitch_expm1_f32(x); }
STITCH_FMA_CLONES float hostTanhF32(float x) { return stitch_tanh_f32(x); }
STITCH_FMA_CLONES float hostSigmoidF32(float x) { return stitch_sigmoid_f32(x); }
STITCH_FMA_CLONES float hostSiluF32(float x) { return stitch_silu_f32(x); }

}  // namespace stitch
