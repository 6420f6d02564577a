/* Float (f32) exp, exp2, expm1, tanh, sigmoid and silu, shared by the
 * reference interpreter (C++) and generated kernels (C: this text is
 * embedded into the C prelude at build time), so both compute the same bits.
 *
 * Why not <math.h>: a call to expf / tanhf keeps the C compiler from
 * vectorizing a loop. These are static inline and branch-free (selects
 * only), so a loop calling them vectorizes.
 *
 * Method: the f32 argument is widened to double and the result computed in
 * double with a relative error near 1e-12, then rounded once to f32: at
 * most 1 ulp from the correctly rounded result, and nearly always equal to
 * it. Overflow to inf and underflow to denormals / zero come from that last
 * conversion; NaN propagates. Every multiply-add is an explicit fma, so the
 * bits do not depend on whether a compiler would contract a * b + c.
 */
#ifndef STITCH_FLOAT_MATH_H
#define STITCH_FLOAT_MATH_H
#include <math.h>
#include <stdint.h>
#include <string.h>

static inline double stitch_fm_asdouble(uint64_t bits) {
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

static inline uint64_t stitch_fm_asuint(double d) {
  uint64_t bits;
  memcpy(&bits, &d, sizeof bits);
  return bits;
}

/* expm1(r) for |r| <= ln2 / 2: the Taylor series through r^10, truncation
 * error below 7e-13 relative, as r * P(r) with P evaluated by Estrin's
 * scheme (pairs, then the powers r^2 and r^4): a dependency chain of 5
 * operations instead of Horner's 10, for loops that do not vectorize. */
static inline double stitch_fm_expm1_poly(double r) {
  double r2 = r * r;
  double r4 = r2 * r2;
  double a0 = fma(1.0 / 2.0, r, 1.0);
  double a1 = fma(1.0 / 24.0, r, 1.0 / 6.0);
  double a2 = fma(1.0 / 720.0, r, 1.0 / 120.0);
  double a3 = fma(1.0 / 40320.0, r, 1.0 / 5040.0);
  double a4 = fma(1.0 / 3628800.0, r, 1.0 / 362880.0);
  double b0 = fma(a1, r2, a0);
  double b1 = fma(a3, r2, a2);
  double p = fma(fma(a4, r4, b1), r4, b0);
  return p * r;
}

/* x = k ln2 + r with |r| <= ln2 / 2 (up to rounding), for |x| <= 300 or
 * NaN. Adding 1.5 * 2^52 rounds x log2(e) to the integer k (ties to even)
 * and leaves k in the low mantissa bits of *shifted (see pow2 below); the
 * double ln2 (error 2.3e-17) leaves r within 1e-14 absolute. */
static inline double stitch_fm_reduce(double x, double* shifted) {
  *shifted = fma(x, 1.4426950408889634, 0x1.8p52); /* log2(e) */
  double k = *shifted - 0x1.8p52;
  return fma(-k, 0.6931471805599453, x);
}

/* 2^k from shifted = k + 1.5 * 2^52 (k integral in [-1022, 1023]): k + 1023
 * into the exponent field. No float-to-int conversion (undefined for NaN):
 * for NaN the caller's other operand carries the NaN. */
static inline double stitch_fm_pow2(double shifted) {
  return stitch_fm_asdouble((stitch_fm_asuint(shifted) + 1023u) << 52);
}

/* exp(x) in double for |x| <= 300 or NaN. */
static inline double stitch_fm_exp(double x) {
  double shifted;
  double r = stitch_fm_reduce(x, &shifted);
  double s = stitch_fm_pow2(shifted);
  return fma(s, stitch_fm_expm1_poly(r), s);
}

/* expm1(x) in double for |x| <= 300 or NaN: s * q + (s - 1), where s - 1
 * is exact for the k that matter and the two terms never nearly cancel. */
static inline double stitch_fm_expm1(double x) {
  double shifted;
  double r = stitch_fm_reduce(x, &shifted);
  double s = stitch_fm_pow2(shifted);
  return fma(s, stitch_fm_expm1_poly(r), s - 1.0);
}

/* Clamps into [-limit, limit]; NaN passes through (both tests are false). */
static inline double stitch_fm_clamp(double x, double limit) {
  x = x < -limit ? -limit : x;
  return x > limit ? limit : x;
}

/* exp(200) overflows f32 and exp(-200) underflows it to 0. */
static inline float stitch_exp_f32(float x) { return (float)stitch_fm_exp(stitch_fm_clamp(x, 200.0)); }

/* expm1(-0) is -0 (the range reduction would give +0). */
static inline float stitch_expm1_f32(float x) {
  double e = stitch_fm_expm1(stitch_fm_clamp(x, 200.0));
  return (float)(x == 0 ? (double)x : e);
}

/* exp2(x) = 2^k * exp((x - k) ln2); x - k is exact. */
static inline float stitch_exp2_f32(float x) {
  double d = stitch_fm_clamp(x, 200.0);
  double shifted = d + 0x1.8p52;
  double k = shifted - 0x1.8p52;
  double s = stitch_fm_pow2(shifted);
  return (float)fma(s, stitch_fm_expm1_poly((d - k) * 0.6931471805599453), s);
}

/* tanh(|x|) = e / (e + 2) with e = expm1(2|x|): no cancellation near 0;
 * tanh(20) is 1 in double. The sign is copied back (tanh(-0) = -0). */
static inline float stitch_tanh_f32(float x) {
  double a = stitch_fm_clamp(fabs((double)x), 20.0);
  double e = stitch_fm_expm1(2.0 * a);
  return (float)copysign(e / (e + 2.0), (double)x);
}

/* 1 / (1 + exp(-x)), as the reference defines sigmoid, in double. Where
 * exp(-x) overflows f32 (x below about -88.72) it is taken as inf, as the
 * f32 formula (and PyTorch's) has it: sigmoid is 0 there rather than a
 * denormal, silu is -0, and silu(-inf) = -inf * 0 is NaN. */
static inline double stitch_fm_sigmoid(float x) {
  double e = stitch_fm_exp(stitch_fm_clamp(-(double)x, 200.0));
  return 1.0 / (1.0 + (e >= 0x1.ffffffp127 ? INFINITY : e));
}

static inline float stitch_sigmoid_f32(float x) { return (float)stitch_fm_sigmoid(x); }

/* x * sigmoid(x), rounded once. */
static inline float stitch_silu_f32(float x) { return (float)((double)x * stitch_fm_sigmoid(x)); }

#endif /* STITCH_FLOAT_MATH_H */
