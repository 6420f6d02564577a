/* float32 transcendentals of the generated kernels, in float32 only: valid
 * C and C++, embedded as text into the C prelude (codegen/c_prelude.cpp)
 * and included by the tests that measure them.
 *
 * Kernels compute float32 in float32 (ugraph/numerics.h); these replace
 * common/float_math.h's double-based functions there (the interpreter keeps
 * those, within 0.5 ulp, as the oracle). Branch-free (selects only) and
 * static inline, so a loop calling them vectorizes 16 lanes wide on AVX-512
 * where the double-based ones run 8. Every multiply-add is an explicit
 * fmaf. Measured against the interpreter's functions (themselves within
 * 0.5 ulp of the correctly rounded result) on 1M inputs spread over the
 * float32 range and dense ones where the functions bend
 * (tests/unit/codegen/alu_semantics_test.cpp): exp, exp2 and expm1 within
 * 1 ulp, tanh, sigmoid and erf within 2, silu within 4 (near x = -88, where
 * sigmoid is denormal). NaN in, NaN out; overflow gives inf, underflow 0.
 */
#ifndef STITCH_KERNEL_MATH_H
#define STITCH_KERNEL_MATH_H
#include <math.h>
#include <stdint.h>
#include <string.h>
static inline float stitch_km_asfloat(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}
static inline uint32_t stitch_km_asuint(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  return bits;
}
/* Clamps into [lo, hi]; NaN passes through (both tests are false). */
static inline float stitch_km_clamp(float x, float lo, float hi) {
  x = x < lo ? lo : x;
  return x > hi ? hi : x;
}
/* expm1(r) for |r| <= ln2 / 2: r + r^2/2 + ... + r^8/8!, truncation below
 * 2^-30 relative; Horner in fmaf. Without the r^8 term, expm1 just above
 * ln2 / 2 (s = 2, r near -ln2 / 2) is 2 ulps off for 0.3% of its inputs. */
static inline float stitch_km_expm1_poly(float r) {
  float p = 1.0f / 40320.0f;
  p = fmaf(p, r, 1.0f / 5040.0f);
  p = fmaf(p, r, 1.0f / 720.0f);
  p = fmaf(p, r, 1.0f / 120.0f);
  p = fmaf(p, r, 1.0f / 24.0f);
  p = fmaf(p, r, 1.0f / 6.0f);
  p = fmaf(p, r, 0.5f);
  return fmaf(p * r, r, r);
}
/* exp(r) - 1 for |r| <= ln2 / 2, where only exp(r) = 1 + result is
 * wanted: r + r^2 (c2 + c3 r + ... + c6 r^4), the c a least-squares fit
 * weighted toward the largest relative error of exp(r) (2^-27.9, against
 * 2^-24 for one ulp); two multiply-adds fewer than the Taylor polynomial
 * that expm1 needs for its own small results. */
static inline float stitch_km_exp_poly_signed(float rs, float sign);
static inline float stitch_km_exp_poly(float r) { return stitch_km_exp_poly_signed(r, 1.0f); }
/* stitch_km_exp_poly(r) from rs = sign * r, sign a literal 1 or -1: the
 * odd coefficients and the last term take the sign, so each step is the
 * exact negation of the one on r (or the same step) and the bits are the
 * same; the sign folds into the constants. */
static inline float stitch_km_exp_poly_signed(float rs, float sign) {
  float p = 0x1.6c0e56p-10f;
  p = fmaf(p, rs, sign * 0x1.1235dep-7f);
  p = fmaf(p, rs, 0x1.555638p-5f);
  p = fmaf(p, rs, sign * 0x1.555498p-3f);
  p = fmaf(p, rs, 0.5f);
  return fmaf(p * rs, rs, sign * rs);
}
/* x = k ln2 + r, |r| <= ln2 / 2 (up to rounding), for |x| <= 105 or NaN.
 * Adding 1.5 * 2^23 rounds x log2(e) to the integer k and leaves k + 2^22
 * (two's complement offset) in the low mantissa bits of *shifted: no
 * float-to-int conversion (undefined for NaN). ln2 in two parts
 * (Cody-Waite): k * ln2_hi is exact for |k| < 2^9. */
static inline float stitch_km_reduce_signed(float x, float sign, float* shifted);
static inline float stitch_km_reduce(float x, float* shifted) { return stitch_km_reduce_signed(x, 1.0f, shifted); }
/* The reduction of sign * x, its r times sign, sign a literal 1 or -1:
 * every step is the exact negation of the one on -x (or the same step), so
 * *shifted and the bits of sign * r are those of stitch_km_reduce(sign * x),
 * without negating x. */
static inline float stitch_km_reduce_signed(float x, float sign, float* shifted) {
  *shifted = fmaf(x, sign * 1.44269502162933349609375f, 0x1.8p23f);
  float k = *shifted - 0x1.8p23f;
  float rs = fmaf(-sign * k, 0.693145751953125f, x);
  return fmaf(-sign * k, 1.428606765330187045e-06f, rs);
}
/* 2^k as two factors 2^(k - h) and 2^h, h = floor(k / 2) (normal for k in [-252, 254],
 * so denormal and overflowing results round once, in the last multiply),
 * k from shifted = 1.5 * 2^23 + k. */
static inline void stitch_km_pow2(float shifted, float* s1, float* s2) {
  int32_t k = (int32_t)(stitch_km_asuint(shifted) - 0x4B400000u);
  int32_t half = k >> 1; /* floor(k / 2): one arithmetic shift */
  *s1 = stitch_km_asfloat((uint32_t)(k - half + 127) << 23);
  *s2 = stitch_km_asfloat((uint32_t)(half + 127) << 23);
}
/* 2^(k - 1) from shifted = 1.5 * 2^23 + k, one factor where k is in
 * [-125, 128] (a caller's clamp to [-18, 89]): 2^(k - 1) (1 + p) then
 * doubled rounds once and overflows at k = 128 exactly as the two factors
 * do (the same bits for every float input), in 2 integer operations, not
 * 6. */
static inline float stitch_km_pow2_half(float shifted) {
  return stitch_km_asfloat((stitch_km_asuint(shifted) - 0x4B400000u + 126u) << 23);
}
/* exp(x) for x in [-18, 89] (or NaN), where 2^k takes one factor. */
static inline float stitch_km_exp_narrow(float x) {
  float shifted;
  float r = stitch_km_reduce(x, &shifted);
  float h = stitch_km_pow2_half(shifted);
  return fmaf(h, stitch_km_exp_poly(r), h) * 2.0f;
}
/* exp(x): exp(89) overflows, exp(-104) underflows to 0. */
static inline float stitch_kexp_f32(float x) {
  float shifted, s1, s2;
  float r = stitch_km_reduce(stitch_km_clamp(x, -104.0f, 89.0f), &shifted);
  stitch_km_pow2(shifted, &s1, &s2);
  float p = stitch_km_exp_poly(r);
  return fmaf(s1, p, s1) * s2;
}
/* exp(x) for x <= 43 (or NaN): softmax's and logsumexp's exp(x - max x),
 * whose argument is never positive. 2^k for k in [-150, 62] is one factor
 * 2^(k + 64), normal there, and a last multiply by 2^-64: the fma rounds
 * (1 + p) at the same relative place as stitch_kexp_f32's first factor
 * does, and the last multiply rounds only a denormal result, as its second
 * factor does. The same bits as stitch_kexp_f32 for every x <= 43 (all 3.3e9
 * such floats compared when this was written) in 2 integer operations
 * instead of 6. */
static inline float stitch_kexp_nonpos_f32(float x) {
  float shifted;
  float r = stitch_km_reduce(stitch_km_clamp(x, -104.0f, 43.0f), &shifted);
  float s = stitch_km_asfloat((stitch_km_asuint(shifted) - 0x4B400000u + 191u) << 23);
  float p = stitch_km_exp_poly(r);
  return fmaf(s, p, s) * 0x1p-64f;
}
/* expm1's polynomial of x's reduced r, and *h = 2^(k - 1) (x clamped to
 * [-18, 89] or in it). */
static inline float stitch_km_expm1_terms(float x, float* h) {
  float shifted;
  float r = stitch_km_reduce(x, &shifted);
  *h = stitch_km_pow2_half(shifted);
  return stitch_km_expm1_poly(r);
}
/* expm1(x) = s (p + 1) - 1 with s = 2^k: s * p + (s - 1), where s - 1 is
 * exact for the k where the result is not dominated by s * p, and the two
 * terms never nearly cancel; for x in [0, 60] (or NaN), where s - 1 is
 * exact and expm1(0) is +0. */
static inline float stitch_km_expm1_narrow(float x) {
  float h;
  float p = stitch_km_expm1_terms(x, &h);
  float s = h * 2.0f;
  return fmaf(s, p, s - 1.0f);
}
/* expm1(x): above 60, s - 1 would round, so 2^(k-1) (p + 1) is doubled
 * and 1 taken off once. Below -18, expm1 is -1 in float32; expm1(-0) is
 * -0. */
static inline float stitch_kexpm1_f32(float x) {
  float h;
  float c = stitch_km_clamp(x, -18.0f, 89.0f);
  float p = stitch_km_expm1_terms(c, &h);
  float s = h * 2.0f;
  float big = fmaf(fmaf(h, p, h), 2.0f, -1.0f); /* k large: s - 1 would round */
  float e = fmaf(s, p, s - 1.0f);
  e = c > 60.0f ? big : e;
  return x == 0.0f ? x : e;
}
/* exp2(x) = 2^k * exp((x - k) ln2); x - k is exact. */
static inline float stitch_kexp2_f32(float x) {
  float s1, s2;
  float d = stitch_km_clamp(x, -151.0f, 129.0f);
  float shifted = d + 0x1.8p23f;
  float k = shifted - 0x1.8p23f;
  stitch_km_pow2(shifted, &s1, &s2);
  /* (d - k) ln2 in two parts: d - k is exact and short. */
  float f = d - k;
  float r = fmaf(f, 0.693145751953125f, f * 1.428606765330187045e-06f);
  float p = stitch_km_exp_poly(r);
  return fmaf(s1, p, s1) * s2;
}
/* tanh(|x|) = e / (e + 2) with e = expm1(2|x|): no cancellation near 0;
 * tanh(10) rounds to 1 in float32. The sign is copied back (tanh(-0) = -0).
 * 2|x| is in [0, 20], where expm1 needs neither its large-k branch nor its
 * -0 case: the same bits as stitch_kexpm1_f32 in 20% less time. */
static inline float stitch_ktanh_f32(float x) {
  float a = stitch_km_clamp(fabsf(x), 0.0f, 10.0f);
  float e = stitch_km_expm1_narrow(2.0f * a);
  return copysignf(e / (e + 2.0f), x);
}
/* exp(-x) / 2 for x in [-89, 18] (or NaN): stitch_km_exp_narrow(-x)
 * before its doubling, with the negation folded into the reduction's and
 * the polynomial's constants: the same bits, one operation fewer. */
static inline float stitch_km_half_exp_neg(float x) {
  float shifted;
  float rn = stitch_km_reduce_signed(x, -1.0f, &shifted); /* -r */
  float p = stitch_km_exp_poly_signed(rn, -1.0f);
  float h = stitch_km_pow2_half(shifted);
  return fmaf(h, p, h);
}
/* 1 / (1 + exp(-x)), as the reference defines sigmoid: 0 below about
 * -88.7, where exp(-x) overflows. Below exp(-18), 1 + exp(-x) rounds to 1,
 * so x is clamped to [-89, 18] and 2^k takes one factor. 1 + 2 e in one
 * multiply-add rounds as 1 + (2 e) does, 2 e being exact (or inf). */
static inline float stitch_ksigmoid_f32(float x) {
  return 1.0f / fmaf(stitch_km_half_exp_neg(stitch_km_clamp(x, -89.0f, 18.0f)), 2.0f, 1.0f);
}
/* x * sigmoid(x) */
static inline float stitch_ksilu_f32(float x) { return x * stitch_ksigmoid_f32(x); }
/* erf(x). Below |x| = 0.75: x (c0 + x^2 Q(x^2)), Q of degree 5, c0 + x^2 Q
 * a least-squares fit of erf(x) / x (relative error ~1e-10), x c0 rounded
 * first so the sum is one fused step. From 0.75: 1 - exp(-x^2) R(t),
 * t = 1 / (1 + |x|), R of degree 8 fitted to erfc(x) exp(x^2) on
 * [0.75, 4] (relative ~1e-9); x^2's rounding error corrects exp(-x^2) to
 * first order, and 1 - e R is one fused step. erf(4) rounds to 1; |x| is
 * clamped there (inf stays finite; NaN passes). Both sides are computed
 * and one selected: no branch, so a loop vectorizes. */
static inline float stitch_kerf_f32(float x) {
  float a = fabsf(x), u = x * x;
  float q = 0x1.8e2ae4p-14f;
  q = fmaf(q, u, -0x1.b65be0p-11f);
  q = fmaf(q, u, 0x1.55e7fep-8f);
  q = fmaf(q, u, -0x1.b8276ap-6f);
  q = fmaf(q, u, 0x1.ce2f02p-4f);
  q = fmaf(q, u, -0x1.812746p-2f);
  float small = copysignf(fmaf(a * u, q, a * 0x1.20dd76p+0f), x);  /* erf(-0) = -0 */
  float c = stitch_km_clamp(a, 0.0f, 4.0f);
  float t = 1.0f / (1.0f + c);
  float r = 0x1.c5c602p-1f;
  r = fmaf(r, t, -0x1.8ab36ep+1f);
  r = fmaf(r, t, 0x1.1337c6p+2f);
  r = fmaf(r, t, -0x1.545652p+1f);
  r = fmaf(r, t, 0x1.cf060ep-3f);
  r = fmaf(r, t, 0x1.9b5048p-3f);
  r = fmaf(r, t, 0x1.24c654p-1f);
  r = fmaf(r, t, 0x1.20ae02p-1f);
  r = fmaf(r, t, 0x1.6494e4p-18f);
  float hi = c * c, lo = fmaf(c, c, -hi);
  float e = stitch_km_exp_narrow(-hi); /* -hi in [-16, 0] */
  e = fmaf(-lo, e, e);
  float large = copysignf(fmaf(-e, r, 1.0f), x);
  return a < 0.75f ? small : large;
}
/* The exact GELU, x / 2 (1 + erf(x / sqrt(2))), with the interpreter's
 * constants, as h + h erf in one fused step (h = x / 2, exact): rounding
 * 1 + erf first put it 3 ulps off near x = 1.04. A zero result keeps x's
 * sign, as x * 0 does. */
static inline float stitch_kgelu_erf_f32(float x) {
  float h = 0.5f * x;
  float g = fmaf(h, stitch_kerf_f32(x * 0.70710678118654752440f), h);
  return g == 0.0f ? copysignf(0.0f, x) : g;
}
/* a / c for a constant c whose reciprocal y = 1 / c (rounded to float) is
 * normal, without the divider (one vector every ~11 cycles on AVX-512,
 * where these take 4 operations): q = a y, then corrected once by the
 * remainder a - q c, which the fma computes exactly (Markstein's
 * correction). The IEEE quotient wherever |a| >= 2^-100 and a / c is a
 * normal float (every such float a checked for six c when this was
 * written; tests/unit/codegen/alu_semantics_test.cpp samples the range for
 * more); below 2^-100 the remainder underflows and is rounded, within 2
 * ulps. Zeros, infinities and NaN are those of a y. */
static inline float stitch_kdivc_f32(float a, float c, float y) {
  float q = a * y;
  float corrected = fmaf(fmaf(-q, c, a), y, q);
  return q == 0.0f || !(fabsf(q) <= 0x1.fffffep127f) ? q : corrected;
}
#endif /* STITCH_KERNEL_MATH_H */
