#include "tensorop/optimizer.h"

#include <algorithm>
#include <cassert>
#include <functional>

#include "tensorop/tensor_operation.h"

namespace stitch::tensorop::passes {
namespace {

bool isPrim(const Dimension& d) { return d.exec == exec_t::prim; }

// Largest divisor s of `size` with min_size <= s <= max_size and
// s % multiple == 0; 0 if there is none. The outer part becomes a loop (or
// the batch-reduce count), where a small trip count costs little.
int64_t bestInnerSize(int64_t size, int64_t multiple, int64_t min_size,
                      int64_t max_size) {
  for (int64_t s = std::min(size - 1, max_size); s >= min_size; --s)
    if (size % s == 0 && s % multiple == 0) return s;
  return 0;
}

int findDim(const std::vector<Dimension>& dims,
            const std::function<bool(const Dimension&)>& pred) {
  for (size_t i = 0; i < dims.size(); ++i)
    if (!isPrim(dims[i]) && pred(dims[i])) return int(i);
  return -1;
}

// Index of the not-yet-prim dim of `type` minimizing key(d), or -1.
template <class Key>
int argminDim(const std::vector<Dimension>& dims, dim_t type, Key key) {
  int best = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (isPrim(dims[i]) || dims[i].type != type) continue;
    if (best < 0 || key(dims[i]) < key(dims[best])) best = int(i);
  }
  return best;
}

void addDummy(std::vector<Dimension>& dims, dim_t type) {
  Dimension d;
  d.type = type;
  d.size = 1;
  d.exec = exec_t::prim;
  dims.push_back(d);
}

int64_t absStride(int64_t s) { return s < 0 ? -s : s; }

}  // namespace

void splitDimensionsOf(std::vector<Dimension>& dims, dim_t type, int64_t min_size,
                       int64_t max_size);

void removeUnitDimensions(std::vector<Dimension>& dims) {
  std::erase_if(dims, [](const Dimension& d) { return d.size == 1; });
}

void fuseDimensions(std::vector<Dimension>& dims, int64_t min_size) {
  fuseDimensionsIf(dims, [&](const Dimension& in, const Dimension&) {
    return in.size < min_size;
  });
}

void fuseContractionDimensions(std::vector<Dimension>& dims,
                               const OptimizerOptions& options) {
  fuseDimensionsIf(dims, [&](const Dimension& in, const Dimension& out) {
    const int64_t cap = in.type == dim_t::m   ? options.max_m_kernel
                        : in.type == dim_t::n ? options.max_n_kernel
                        : in.type == dim_t::k ? options.max_k_kernel
                                              : 0;
    return in.size * out.size <= cap;
  });
}

// Merges dims[i] with a dim of the same type that sits directly outside it
// in every tensor (stride = inner size * inner stride) while allow(inner,
// outer) holds.
void fuseDimensionsIf(std::vector<Dimension>& dims,
                      const std::function<bool(const Dimension&, const Dimension&)>& allow) {
  for (size_t i = 0; i < dims.size(); ++i) {
    for (size_t j = 0; j < dims.size(); ++j) {
      if (i == j) continue;
      Dimension& in = dims[i];
      const Dimension& out = dims[j];
      if (!allow(in, out)) continue;
      const bool sameExec = in.exec == out.exec || in.exec == exec_t::undefined ||
                            out.exec == exec_t::undefined;
      if (in.type != out.type || !sameExec) continue;
      if (out.stride_in0 != in.size * in.stride_in0 ||
          out.stride_in1 != in.size * in.stride_in1 ||
          out.stride_out != in.size * in.stride_out)
        continue;
      // The inner dim keeps its strides; the merged loop covers both.
      in.size *= out.size;
      dims.erase(dims.begin() + j);
      if (j < i) --i;
      j = static_cast<size_t>(-1);
    }
  }
}

void splitDimensions(std::vector<Dimension>& dims, int64_t min_size,
                     int64_t max_size) {
  splitDimensionsOf(dims, dim_t::undefined, min_size, max_size);
}

void splitContractionDimensions(std::vector<Dimension>& dims,
                                const OptimizerOptions& options) {
  splitDimensionsOf(dims, dim_t::m, options.min_kernel_size, options.max_m_kernel);
  splitDimensionsOf(dims, dim_t::k, options.min_kernel_size, options.max_k_kernel);
  splitDimensionsOf(dims, dim_t::n, options.min_kernel_size, options.max_n_kernel);
  // Batch dims are loops around the kernel; splitting them only gives the
  // thread pass finer pieces.
  splitDimensionsOf(dims, dim_t::c, options.min_kernel_size, options.max_kernel_size);
}

// Splits dims of `type` (all types for dim_t::undefined) above max_size.
void splitDimensionsOf(std::vector<Dimension>& dims, dim_t type, int64_t min_size,
                       int64_t max_size) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i].size <= max_size) continue;
    if (type != dim_t::undefined && dims[i].type != type) continue;
    const int64_t size = dims[i].size;
    int64_t inner = 0;
    // m lands on vector lanes: whole vectors avoid masked tails.
    if (dims[i].type == dim_t::m) inner = bestInnerSize(size, 16, min_size, max_size);
    if (inner == 0) inner = bestInnerSize(size, 1, min_size, max_size);
    if (inner == 0) continue;  // prime-ish sizes stay whole; kernels take any size
    Dimension outer = dims[i];
    outer.size = size / inner;
    outer.stride_in0 *= inner;
    outer.stride_in1 *= inner;
    outer.stride_out *= inner;
    if (outer.exec == exec_t::prim) outer.exec = exec_t::undefined;
    dims[i].size = inner;
    // Appended so it is examined (and split) again.
    dims.push_back(outer);
  }
}

ptype_t identifyPrimitives(std::vector<Dimension>& dims, ptype_t main,
                           int64_t max_a_panel_bytes) {
  for (Dimension& d : dims) d.exec = exec_t::undefined;
  auto mark = [&](int i) {
    if (i >= 0) dims[i].exec = exec_t::prim;
    return i;
  };
  if (isContraction(main)) {
    // M: contiguous in out and in in0; or, with A transposed, contiguous in
    // out while a k dim is contiguous in in0. Without either the kernel
    // runs with M = 1 (a dummy) and every m dim becomes a loop.
    int m = findDim(dims, [](const Dimension& d) {
      return d.type == dim_t::m && d.stride_out == 1 && d.stride_in0 == 1;
    });
    int k = -1;
    if (m < 0) {
      const int mOut = findDim(dims, [](const Dimension& d) {
        return d.type == dim_t::m && d.stride_out == 1;
      });
      const int kA = findDim(dims, [](const Dimension& d) {
        return d.type == dim_t::k && d.stride_in0 == 1;
      });
      if (mOut >= 0 && kA >= 0) {
        m = mOut;
        k = kA;
      }
    }
    mark(m);
    if (k < 0)
      k = findDim(dims, [](const Dimension& d) {
        return d.type == dim_t::k && d.stride_in1 == 1;
      });
    int n = -1;
    if (k >= 0 && dims[k].stride_in1 == 1) {
      n = argminDim(dims, dim_t::n, [](const Dimension& d) { return absStride(d.stride_out); });
    } else {
      // B transposed: N must be contiguous in in1 (a dummy N of size 1 is).
      n = findDim(dims, [](const Dimension& d) {
        return d.type == dim_t::n && d.stride_in1 == 1;
      });
      if (k < 0)
        k = argminDim(dims, dim_t::k, [](const Dimension& d) { return absStride(d.stride_in1); });
    }
    mark(k);
    mark(n);
    int br = argminDim(dims, dim_t::k, [](const Dimension& d) {
      return absStride(d.stride_in1);
    });
    auto extent = [&](int i) { return i < 0 ? int64_t(1) : dims[i].size; };
    if (br >= 0) {
      const int64_t panel = extent(m) * extent(k) * extent(br) * 4;
      // Mirrors TensorOperation's packing rule: a far-strided A is copied to
      // a contiguous panel, which may then be larger.
      const int64_t lda = k >= 0 ? absStride(dims[k].stride_in0) : 0;
      const bool packed = lda >= 256 && lda > extent(m);
      const int64_t limit = packed ? 16 * max_a_panel_bytes : max_a_panel_bytes;
      if (panel > limit) {
        // Keep a batch-reduce block whose panel fits; the rest of the
        // reduction becomes a seq loop around it.
        const int64_t perBr = extent(m) * extent(k) * 4;
        int64_t inner = std::min(dims[br].size - 1, limit / perBr);
        while (inner >= 2 && dims[br].size % inner != 0) --inner;
        if (inner >= 2) {
          Dimension outer = dims[br];
          outer.size = dims[br].size / inner;
          outer.stride_in0 *= inner;
          outer.stride_in1 *= inner;
          outer.stride_out *= inner;
          outer.exec = exec_t::undefined;
          dims[br].size = inner;
          dims.push_back(outer);
        } else {
          br = -1;
        }
      }
    }
    mark(br);
    if (m < 0) addDummy(dims, dim_t::m);
    if (n < 0) addDummy(dims, dim_t::n);
    if (k < 0) addDummy(dims, dim_t::k);
    for (Dimension& d : dims)
      if (d.exec == exec_t::undefined) d.exec = exec_t::seq;
    return br >= 0 ? ptype_t::brgemm : ptype_t::gemm;
  }
  // Unary: M is contiguous in in0 (N contiguous in out when transposing).
  // Binary: M is contiguous in out.
  const bool unary = isUnary(main);
  int m = findDim(dims, [&](const Dimension& d) {
    return (unary ? d.stride_in0 : d.stride_out) == 1;
  });
  if (m < 0 && !dims.empty()) m = 0;
  mark(m);
  int n = findDim(dims, [](const Dimension& d) { return d.stride_out == 1; });
  if (n < 0 && !dims.empty()) {
    for (size_t i = 0; i < dims.size(); ++i)
      if (!isPrim(dims[i]) &&
          (n < 0 || absStride(dims[i].stride_out) < absStride(dims[n].stride_out)))
        n = int(i);
  }
  mark(n);
  if (m < 0) {
    Dimension d;
    d.type = dim_t::c;
    d.exec = exec_t::prim;
    dims.push_back(d);
  }
  for (Dimension& d : dims)
    if (d.exec == exec_t::undefined) d.exec = exec_t::seq;
  return main;
}

void reorderLoops(std::vector<Dimension>& dims) {
  std::vector<Dimension> loops, prims;
  for (const Dimension& d : dims) (isPrim(d) ? prims : loops).push_back(d);
  std::stable_sort(loops.begin(), loops.end(),
                   [](const Dimension& a, const Dimension& b) {
                     const bool ka = a.type == dim_t::k, kb = b.type == dim_t::k;
                     if (ka != kb) return kb;
                     return absStride(a.stride_out) > absStride(b.stride_out);
                   });
  // The kernel reads its dims by type, so the prim order is free; keep M
  // innermost for readability.
  std::stable_sort(prims.begin(), prims.end(),
                   [](const Dimension& a, const Dimension& b) {
                     return a.type == dim_t::m ? false : b.type == dim_t::m;
                   });
  dims = loops;
  dims.insert(dims.end(), prims.begin(), prims.end());
}

void parallelizeLoops(std::vector<Dimension>& dims, int64_t thread_target) {
  if (thread_target <= 1) return;
  int64_t iterations = 1;
  for (const Dimension& d : dims)
    if (d.exec == exec_t::shared) iterations *= d.size;
  for (Dimension& d : dims) {
    if (iterations >= thread_target) break;
    if (d.exec != exec_t::seq || d.type == dim_t::k) continue;
    d.exec = exec_t::shared;
    iterations *= d.size;
  }
  std::stable_partition(dims.begin(), dims.end(), [](const Dimension& d) {
    return d.exec == exec_t::shared;
  });
}

}  // namespace stitch::tensorop::passes

namespace stitch::tensorop {

ptype_t optimize(std::vector<Dimension>& dims, ptype_t prim_main,
                 const OptimizerOptions& options) {
  if (prim_main == ptype_t::none) throw Error("the main primitive must not be none");
  for (const Dimension& d : dims) {
    if (d.size < 1) throw Error("dimension sizes must be >= 1");
    if (d.type == dim_t::undefined) throw Error("every dimension needs a dim type");
  }
  if (options.min_kernel_size < 1 || options.max_kernel_size < options.min_kernel_size)
    throw Error("need 1 <= min_kernel_size <= max_kernel_size");
  if (options.max_m_kernel < 1 || options.max_n_kernel < 1 || options.max_k_kernel < 1)
    throw Error("max_m_kernel, max_n_kernel and max_k_kernel must be >= 1");
  passes::removeUnitDimensions(dims);
  passes::fuseDimensions(dims, options.min_kernel_size);
  if (isContraction(prim_main)) {
    passes::fuseContractionDimensions(dims, options);
    passes::splitContractionDimensions(dims, options);
  } else {
    passes::splitDimensions(dims, options.min_kernel_size, options.max_kernel_size);
  }
  const ptype_t main =
      passes::identifyPrimitives(dims, prim_main, options.max_a_panel_bytes);
  passes::reorderLoops(dims);
  passes::parallelizeLoops(dims, options.thread_target);
  return main;
}

void setupOptimized(TensorOperation& op, ptype_t first_touch, ptype_t main,
                    ptype_t last_touch, std::vector<Dimension> dims,
                    const OptimizerOptions& options, Isa isa) {
  const ptype_t chosen = optimize(dims, main, options);
  std::vector<dim_t> types;
  std::vector<exec_t> execs;
  std::vector<int64_t> sizes, s0, s1, so;
  for (const Dimension& d : dims) {
    types.push_back(d.type);
    execs.push_back(d.exec);
    sizes.push_back(d.size);
    s0.push_back(d.stride_in0);
    s1.push_back(d.stride_in1);
    so.push_back(d.stride_out);
  }
  op.setup(dtype_t::fp32, first_touch, chosen, last_touch, types, execs, sizes,
           s0, s1, so, isa);
}

}  // namespace stitch::tensorop
