// Helpers of the interpreter core and elementwise tests: fresh random
// tensors (contiguous or strided views), one-op graphs run through the
// interpreter, and error-message matching.
#pragma once
#include <gtest/gtest.h>

#include "test_random.h"

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "interp/interpreter.h"
#include "interp/ivalue.h"
#include "ir/graph.h"

namespace stitch::itest {

using testrand::randInt;
using testrand::rng;

inline double randReal(double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng());
}

inline bool coin() { return randInt(0, 1) == 1; }

inline Shape randomShape(int64_t rank, int64_t maxDim = 5) {
  Shape s(rank);
  for (auto& d : s) d = randInt(1, maxDim);
  return s;
}

// Floats uniform in [lo, hi), integers in [lo, hi], bools 0/1.
inline void fillRandom(const Tensor& t, double lo = -1, double hi = 1) {
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (isFloating(t.dtype())) t.setDouble(i, randReal(lo, hi));
    else if (t.dtype() == DType::b8) t.setInt(i, randInt(0, 1));
    else t.setInt(i, randInt((int64_t)lo, (int64_t)hi));
  }
}

// A random tensor, at random a strided view into the interior of a bigger
// storage (so kernels see non-contiguous operands).
inline Tensor randomTensor(const Shape& shape, DType dtype, double lo = -1, double hi = 1) {
  Tensor t;
  if (coin() || shape.empty()) {
    t = Tensor::empty(shape, dtype);
  } else {
    Shape big = shape;
    for (auto& d : big) d += 2;
    Tensor base = Tensor::empty(big, dtype);
    int64_t offset = 0;
    for (int64_t s : base.strides()) offset += s;
    t = base.asStrided(shape, base.strides(), offset);
  }
  fillRandom(t, lo, hi);
  return t;
}

inline TypePtr typeOf(const IValue& v) {
  if (v.isTensor()) return Type::tensor(v.toTensor().dtype(), v.toTensor().sizes());
  if (v.isBool()) return Type::boolT();
  if (v.isInt()) return Type::intT();
  if (v.isDouble()) return Type::floatT();
  if (v.isStr()) return Type::strT();
  if (v.isDType()) return Type::dtypeT();
  if (v.isNone()) return Type::none();
  if (v.isList()) return Type::list(Type::tensor());
  return Type::tuple({});
}

// Runs `op` on args through the interpreter (a graph with one input per
// argument and a single node).
inline IValueList runOp(const std::string& op, const IValueList& args, size_t numOutputs = SIZE_MAX) {
  Graph g;
  std::vector<Value*> ins;
  for (const IValue& a : args) ins.push_back(g.addInput(typeOf(a)));
  Node* n = g.create(op, ins, numOutputs);
  g.top()->append(n);
  for (Value* out : n->outputs()) g.addOutput(out);
  return interpret(g, args);
}

inline Tensor runTensorOp(const std::string& op, const IValueList& args) {
  return runOp(op, args).at(0).toTensor();
}

// Runs f and expects an exception of type E whose message contains `part`.
template <typename E, typename F>
void expectError(F&& f, const std::string& part) {
  try {
    f();
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
        << "message: " << e.what() << "\nexpected to contain: " << part;
    return;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
    return;
  }
  ADD_FAILURE() << "no error; expected one containing: " << part;
}

// Row-major multi-index of a flat index.
inline std::vector<int64_t> unravel(const Shape& sizes, int64_t lin) {
  std::vector<int64_t> idx(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    idx[d] = lin % sizes[d];
    lin /= sizes[d];
  }
  return idx;
}

// The element of t that broadcasting maps output index `outIdx` to.
inline double broadcastElement(const Tensor& t, const std::vector<int64_t>& outIdx) {
  int64_t lin = 0;
  size_t shift = outIdx.size() - t.sizes().size();
  for (size_t d = 0; d < t.sizes().size(); ++d) {
    int64_t i = t.size(d) == 1 ? 0 : outIdx[d + shift];
    lin = lin * t.size(d) + i;
  }
  return t.getDouble(lin);
}

// A shape that broadcasts with `s`: some leading dims dropped, some dims 1.
inline Shape broadcastPartner(const Shape& s) {
  Shape out(s.begin() + randInt(0, (int64_t)s.size()), s.end());
  for (auto& d : out)
    if (randInt(0, 3) == 0) d = 1;
  return out;
}

// Equal up to float rounding (both NaN counts as equal).
inline bool closeEnough(double got, double want, DType dtype) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (std::isinf(want)) return got == want;
  if (!isFloating(dtype)) return got == want;
  double tol = dtype == DType::f32 ? 2e-5 : 1e-12;
  return std::fabs(got - want) <= tol * std::max(1.0, std::fabs(want));
}

}  // namespace stitch::itest
