// The interpreter's reduction walker. A reduction splits a tensor's dims into
// kept dims (one output element per position) and reduced dims. A Reducer
// folds the reduced elements of each output in increasing row-major order of
// the reduced dims (so "first index on ties" is well defined):
//
//   struct R {
//     using State = ...;                       // per-output accumulator
//     State init() const;
//     void add(State& s, T x, int64_t r) const; // r: index within the reduced dims
//     void finish(const State& s, int64_t out) const;  // out: output element
//   };
//
// Two walk orders keep memory access sequential: when the input's innermost
// dim is reduced, each output's elements are folded in one tight loop; when
// it is kept, a row of outputs is updated together per reduced position.
#pragma once
#include <omp.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "interp/tensor.h"

namespace stitch {

// Kept and reduced dims of one reduction, merged where memory allows. Each
// side is split into its innermost dim (a tight loop) and the outer dims.
struct ReduceGeometry {
  Shape keptOuterSizes, keptOuterStrides;  // row-major over outputs
  int64_t keptInner = 1, keptInnerStride = 0;
  Shape redOuterSizes, redOuterStrides;  // row-major over the reduced elements
  int64_t redInner = 1, redInnerStride = 0;
  int64_t numOut = 1;
  int64_t numRed = 1;
  int64_t baseOffset = 0;     // element offset of [0, ..., 0] in the storage
  bool innerReduced = false;  // walk output by output (reduced dims innermost in memory)
};

// `reduced` are normalized, sorted, unique dims of `in`.
ReduceGeometry makeReduceGeometry(const Tensor& in, const std::vector<int64_t>& reduced);

// An odometer over a shape with one stride per dim, yielding element offsets.
class StridedCounter {
 public:
  StridedCounter(const Shape& sizes, const Shape& strides)
      : sizes_(sizes), strides_(strides), idx_(sizes.size()) {}
  int64_t offset() const { return offset_; }
  // Moves to the position with row-major linear index `linear`.
  void seek(int64_t linear) {
    offset_ = 0;
    for (size_t d = sizes_.size(); d-- > 0;) {
      idx_[d] = linear % sizes_[d];
      linear /= sizes_[d];
      offset_ += idx_[d] * strides_[d];
    }
  }
  void next() {
    for (size_t d = sizes_.size(); d-- > 0;) {
      offset_ += strides_[d];
      if (++idx_[d] < sizes_[d]) return;
      offset_ -= strides_[d] * sizes_[d];
      idx_[d] = 0;
    }
  }

 private:
  const Shape& sizes_;
  const Shape& strides_;
  std::vector<int64_t> idx_;
  int64_t offset_ = 0;
};

// Folds the elements of one output, starting at element offset `start`.
template <typename T, typename R>
void foldOneOutput(const T* data, int64_t start, const ReduceGeometry& g, const R& red,
                   typename R::State& st) {
  int64_t inner = g.redInner, stride = g.redInnerStride;
  auto foldRow = [&](const T* p, int64_t r) {
    if (stride == 1) {
      for (int64_t i = 0; i < inner; ++i) red.add(st, p[i], r + i);
    } else {
      for (int64_t i = 0; i < inner; ++i) red.add(st, p[i * stride], r + i);
    }
  };
  if (g.redOuterSizes.empty()) {
    foldRow(data + start, 0);
    return;
  }
  StridedCounter rows(g.redOuterSizes, g.redOuterStrides);
  for (int64_t r = 0; r < g.numRed; r += inner, rows.next())
    foldRow(data + start + rows.offset(), r);
}

// Folds outputs [begin, end) one by one (the reduced dims are innermost in
// memory, so each output's elements are read together).
template <typename T, typename R>
void foldOutputRange(const T* data, const ReduceGeometry& g, const R& red, int64_t begin,
                     int64_t end) {
  int64_t i = begin % g.keptInner;
  StridedCounter rows(g.keptOuterSizes, g.keptOuterStrides);
  rows.seek(begin / g.keptInner);
  for (int64_t o = begin; o < end; ++o) {
    typename R::State st = red.init();
    foldOneOutput<T>(data, rows.offset() + i * g.keptInnerStride, g, red, st);
    red.finish(st, o);
    if (++i < g.keptInner) continue;
    i = 0;
    rows.next();
  }
}

// Below this many input elements a reduction stays on one thread.
constexpr int64_t kReduceParallelGrain = 1 << 16;

// Runs reducer `red` over `in` (element type T) for the geometry `g`.
// Reducers must be safe to call from several threads for distinct outputs.
template <typename T, typename R>
void runReduction(const Tensor& in, const ReduceGeometry& g, const R& red) {
  if (g.numOut == 0) return;
  const T* data = reinterpret_cast<const T*>(in.storage()->data()) + g.baseOffset;
  if (g.numRed == 0) {
    for (int64_t o = 0; o < g.numOut; ++o) red.finish(red.init(), o);
    return;
  }
  if (g.innerReduced) {
    bool parallel =
        g.numOut > 1 && g.numOut * g.numRed >= kReduceParallelGrain && !omp_in_parallel();
    if (!parallel) {
      foldOutputRange<T>(data, g, red, 0, g.numOut);
      return;
    }
#pragma omp parallel
    {
      int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
      foldOutputRange<T>(data, g, red, g.numOut * t / nt, g.numOut * (t + 1) / nt);
    }
    return;
  }
  // Kept dims innermost in memory: one pass over the reduced positions, each
  // updating a row of outputs that lies together in memory.
  // Not std::vector: State may be bool.
  std::unique_ptr<typename R::State[]> states(new typename R::State[g.numOut]);
  for (int64_t o = 0; o < g.numOut; ++o) states[o] = red.init();
  int64_t inner = g.keptInner, stride = g.keptInnerStride;
  StridedCounter redOuter(g.redOuterSizes, g.redOuterStrides);
  for (int64_t r0 = 0; r0 < g.numRed; r0 += g.redInner, redOuter.next()) {
    for (int64_t ri = 0; ri < g.redInner; ++ri) {
      const T* slice = data + redOuter.offset() + ri * g.redInnerStride;
      StridedCounter rows(g.keptOuterSizes, g.keptOuterStrides);
      for (int64_t o = 0; o < g.numOut; o += inner, rows.next()) {
        const T* p = slice + rows.offset();
        typename R::State* st = states.get() + o;
        for (int64_t i = 0; i < inner; ++i) red.add(st[i], p[i * stride], r0 + ri);
      }
    }
  }
  for (int64_t o = 0; o < g.numOut; ++o) red.finish(states[o], o);
}

}  // namespace stitch
