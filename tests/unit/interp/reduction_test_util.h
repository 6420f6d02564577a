// Helpers of the reduction and contraction tests: fresh random tensors
// (optionally as non-contiguous views), random reduction dims, elements
// grouped per output in row-major order for naive double references, and
// error-message capture.
#pragma once
#include <gtest/gtest.h>

#include "test_random.h"

#include <cmath>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"
#include "interp/tensor.h"

namespace stitch::rtest {

using testrand::randInt;
using testrand::rng;

inline bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(rng()); }

// Sizes mostly 1..6, sometimes 0.
inline Shape randomShape(int64_t rank, double emptyChance = 0.05) {
  Shape s(rank);
  for (auto& d : s) d = coin(emptyChance) ? 0 : randInt(1, 6);
  return s;
}

// Uniform [-1, 1) floats, integers in [lo, hi], bools 0/1.
inline void fillRandom(Tensor& t, int64_t lo = -20, int64_t hi = 20) {
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (isFloating(t.dtype()))
      t.setDouble(i, real(rng()));
    else if (t.dtype() == DType::b8)
      t.setInt(i, randInt(0, 1));
    else
      t.setInt(i, randInt(lo, hi));
  }
}

// A random tensor of `shape`, as a contiguous tensor or (at random) as a
// permuted view of a differently laid out one, or a strided slice of a bigger one.
inline Tensor randomTensor(const Shape& shape, DType dtype, int64_t lo = -20, int64_t hi = 20) {
  int64_t r = (int64_t)shape.size();
  int layout = (int)randInt(0, 2);
  Tensor t;
  if (layout == 1 && r >= 2) {
    // Storage laid out with dims reversed; the view puts them back.
    Shape rev(shape.rbegin(), shape.rend());
    Tensor base = Tensor::empty(rev, dtype);
    Shape strides(r);
    for (int64_t d = 0; d < r; ++d) strides[d] = base.stride(r - 1 - d);
    t = base.asStrided(shape, strides, 0);
  } else if (layout == 2 && r >= 1) {
    // Every other element of the last dim, from offset 1.
    Shape big = shape;
    big.back() = 2 * shape.back() + 1;
    Tensor base = Tensor::empty(big, dtype);
    Shape strides = base.strides();
    strides.back() *= 2;
    t = base.asStrided(shape, strides, 1);
  } else {
    t = Tensor::empty(shape, dtype);
  }
  fillRandom(t, lo, hi);
  return t;
}

// A random subset of [0, rank) written with random signs (d or d - rank).
inline std::vector<int64_t> randomDims(int64_t rank) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (!coin()) continue;
    dims.push_back(coin() ? d : d - rank);
  }
  std::shuffle(dims.begin(), dims.end(), rng());
  return dims;
}

inline std::vector<int64_t> unravel(const Shape& sizes, int64_t lin) {
  std::vector<int64_t> idx(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    idx[d] = lin % sizes[d];
    lin /= sizes[d];
  }
  return idx;
}

// The elements of x grouped by output position of a reduction over `dims`
// (normalized; empty = all), each group in increasing row-major order.
struct Groups {
  Shape outShape;  // kept dims (keepdim false)
  std::vector<std::vector<double>> values;
};

inline Groups groupForReduction(const Tensor& x, const std::vector<int64_t>& dimsIn) {
  int64_t r = x.dim();
  std::set<int64_t> dims;
  for (int64_t d : dimsIn) dims.insert(d < 0 ? d + r : d);
  if (dimsIn.empty())
    for (int64_t d = 0; d < r; ++d) dims.insert(d);
  Groups g;
  for (int64_t d = 0; d < r; ++d)
    if (!dims.count(d)) g.outShape.push_back(x.size(d));
  int64_t numOut = 1;
  for (int64_t s : g.outShape) numOut *= s;
  g.values.resize(numOut);
  for (int64_t i = 0; i < x.numel(); ++i) {
    std::vector<int64_t> idx = unravel(x.sizes(), i);
    int64_t o = 0;
    for (int64_t d = 0; d < r; ++d)
      if (!dims.count(d)) o = o * x.size(d) + idx[d];
    g.values[o].push_back(x.getDouble(i));
  }
  return g;
}

inline Shape keepdimShape(const Shape& in, const std::vector<int64_t>& dimsIn) {
  Shape out = in;
  int64_t r = (int64_t)in.size();
  for (int64_t d = 0; d < r; ++d) {
    bool reduced = dimsIn.empty();
    for (int64_t e : dimsIn) reduced = reduced || (e < 0 ? e + r : e) == d;
    if (reduced) out[d] = 1;
  }
  return out;
}

// |actual - expected| within rtol/atol; NaN equals NaN, inf equals inf.
inline bool close(double actual, double expected, double rtol, double atol) {
  if (std::isnan(expected)) return std::isnan(actual);
  if (std::isinf(expected)) return actual == expected;
  return std::fabs(actual - expected) <= atol + rtol * std::fabs(expected);
}

inline double rtolFor(DType t) { return t == DType::f32 ? 2e-5 : 1e-10; }

// The message of the UserError f throws ("" when none).
inline std::string userErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.message();
  }
  return "";
}

inline DType randomDType(bool withBool = true) {
  static const DType all[] = {DType::f32, DType::f64, DType::i32, DType::i64, DType::b8};
  return all[randInt(0, withBool ? 4 : 3)];
}

inline DType randomFloatDType() { return coin() ? DType::f32 : DType::f64; }

}  // namespace stitch::rtest
