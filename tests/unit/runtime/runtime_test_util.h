// Helpers of the runtime tests: fresh random inputs (printed seed on
// failure), hand-made kernel plans over IR text, and comparison with the
// reference interpreter.
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "interp/interpreter.h"
#include "interp/ivalue.h"
#include "ir/graph.h"
#include "ir/ir_parser.h"
#include "runtime/executable.h"

namespace stitch::rtest {

// Every test that compiles uses a cache directory of its own, never $HOME.
inline void useScratchCache() {
  static const std::string dir = [] {
    std::string d = (std::filesystem::temp_directory_path() /
                     ("stitch-runtime-test-" + std::to_string(::getpid())))
                        .string();
    std::filesystem::create_directories(d);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(std::getenv("STITCH_CACHE_DIR"), ignored);
    });
    return d;
  }();
  ::setenv("STITCH_CACHE_DIR", dir.c_str(), 1);
}

inline std::mt19937_64& rng() {
  static std::mt19937_64 r([] {
    // STITCH_TEST_SEED replays a printed seed.
    const char* given = std::getenv("STITCH_TEST_SEED");
    uint64_t seed = given ? std::strtoull(given, nullptr, 10) : std::random_device{}();
    std::printf("runtime test seed %llu\n", (unsigned long long)seed);
    return seed;
  }());
  return r;
}

// An integer uniform in [lo, hi].
inline int64_t randIn(int64_t lo, int64_t hi) { return lo + (int64_t)(rng()() % (uint64_t)(hi - lo + 1)); }

// A dense f32 tensor of `shape`, uniform in [lo, hi).
inline Tensor uniformF32(const Shape& shape, double lo = -1, double hi = 1) {
  Tensor t = Tensor::empty(shape, DType::f32);
  std::uniform_real_distribution<double> real(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.setDouble(i, (float)real(rng()));
  return t;
}

// Uniform in [-1, 1) for floats, [0, 10) for integers, 0/1 for bool; at
// random a strided (transposed) view so kernels see non-dense inputs.
inline Tensor randomTensor(const Shape& shape, DType dtype) {
  Tensor t = Tensor::empty(shape, dtype);
  std::uniform_real_distribution<double> real(-1, 1);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (isFloating(dtype)) t.setDouble(i, real(rng()));
    else if (dtype == DType::b8) t.setInt(i, (int64_t)(rng()() & 1));
    else t.setInt(i, (int64_t)(rng()() % 10));
  }
  if (shape.size() == 2 && (rng()() & 1)) {
    Tensor wide = Tensor::empty({shape[1], shape[0]}, dtype);
    Tensor view = wide.asStrided(shape, {1, shape[0]}, 0);
    view.copyFrom(t);
    return view;
  }
  return t;
}

// A copy with the same sizes, strides and offset (so a strided input stays
// strided), on a storage of its own.
inline Tensor sameLayoutCopy(const Tensor& t) {
  int64_t extent = t.offset() + 1;
  for (int64_t d = 0; d < t.dim(); ++d) extent += (t.size(d) - 1) * t.stride(d);
  if (t.numel() == 0) extent = t.offset() + 1;
  Tensor base = Tensor::empty({extent}, t.dtype());
  Tensor copy = base.asStrided(t.sizes(), t.strides(), t.offset());
  copy.copyFrom(t);
  return copy;
}

// A copy of every tensor, in lists too (a list shares its elements: a run
// that writes one in place would change the other copy's input).
inline IValue cloneInput(const IValue& v) {
  if (v.isTensor()) return IValue(sameLayoutCopy(v.toTensor()));
  if (!v.isList()) return v;
  IValueList elems;
  for (const IValue& e : v.toList()) elems.push_back(cloneInput(e));
  return IValue::list(std::move(elems));
}

inline IValueList cloneInputs(const IValueList& in) {
  IValueList out;
  for (const IValue& v : in) out.push_back(cloneInput(v));
  return out;
}

inline std::vector<const Node*> nodesOfKind(const Block* block, const std::string& kind) {
  std::vector<const Node*> found;
  for (const Node* n : *block) {
    if (n->kind() == kind) found.push_back(n);
    for (const Block* sub : n->blocks()) {
      std::vector<const Node*> inner = nodesOfKind(sub, kind);
      found.insert(found.end(), inner.begin(), inner.end());
    }
  }
  return found;
}

inline const Node* nodeOfKind(const Graph& g, const std::string& kind) {
  std::vector<const Node*> found = nodesOfKind(g.top(), kind);
  EXPECT_EQ(found.size(), 1u) << kind;
  return found.at(0);
}

inline Kernel handKernel(const std::string& name, KernelKind kind, std::vector<const Node*> nodes,
                         std::vector<const Value*> outputs, std::vector<const Value*> inputs,
                         std::vector<const Value*> params = {}) {
  Kernel k;
  k.name = name;
  k.kind = kind;
  k.nodes = std::move(nodes);
  k.outputs = std::move(outputs);
  k.inputs = std::move(inputs);
  k.params = std::move(params);
  return k;
}

// A plan from kernels written by hand and their C source (no uops: the
// runtime only needs the kernel graph and the code).
inline CodePlan handPlan(std::vector<Kernel> kernels, const std::string& cBody) {
  CodePlan plan;
  plan.kernels.kernels = std::move(kernels);
  for (size_t i = 0; i < plan.kernels.kernels.size(); ++i) {
    const Kernel& k = plan.kernels.kernels[i];
    plan.kernels.kernelAt[k.nodes.back()] = (int)i;
    for (const Node* n : k.nodes) plan.kernels.inKernel.insert(n);
  }
  plan.source = std::string(kKernelAbiC) + cBody;
  return plan;
}

inline void expectSameValues(const IValue& got, const IValue& want, double tol = 1e-6) {
  ASSERT_EQ(got.isTensor(), want.isTensor());
  if (!got.isTensor()) {
    bool gotSeq = got.isList() || got.isTuple(), wantSeq = want.isList() || want.isTuple();
    ASSERT_EQ(gotSeq, wantSeq);
    if (gotSeq) {
      ASSERT_EQ(got.toList().size(), want.toList().size());
      for (size_t i = 0; i < got.toList().size(); ++i)
        expectSameValues(got.toList()[i], want.toList()[i], tol);
      return;
    }
    EXPECT_EQ(got.str(), want.str());
    return;
  }
  const Tensor& a = got.toTensor();
  const Tensor& b = want.toTensor();
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.sizes(), b.sizes());
  for (int64_t i = 0; i < a.numel(); ++i) {
    double x = a.getDouble(i), y = b.getDouble(i);
    if (std::isnan(y)) {
      EXPECT_TRUE(std::isnan(x)) << "element " << i;
      continue;
    }
    ASSERT_NEAR(x, y, tol * (1 + std::abs(y))) << "element " << i;
  }
}

inline void expectSameOutputs(const IValueList& got, const IValueList& want, double tol = 1e-6) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE("output " + std::to_string(i));
    expectSameValues(got[i], want[i], tol);
  }
}

}  // namespace stitch::rtest
