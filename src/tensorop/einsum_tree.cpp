#include "tensorop/einsum_tree.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <cstdlib>

namespace stitch::tensorop {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Rough single-core speeds for the layout choice in contract(): the kernel's
// rate on well-shaped tiles and a strided copy's bytes per second.
constexpr double kKernelFlopsPerSecond = 140e9;
constexpr double kCopyBytesPerSecond = 8e9;

// The kernel's speed for an M extent relative to full tiles, from the
// BRGEMM sweep: the fraction of lanes used, less with a masked tail vector,
// and less again with one vector per column (M <= 16: fewer FMAs per load).
double kernelRate(int64_t m) {
  const int64_t vectors = (m + 15) / 16;
  double rate = double(m) / double(vectors * 16);
  if (m % 16 != 0) rate *= 0.85;
  if (vectors == 1) rate *= 0.7;
  return rate;
}

// A permutation reads and writes each element once.
double copySeconds(int64_t elements) { return 8.0 * double(elements) / kCopyBytesPerSecond; }

// `dims` with `d` moved to the innermost position.
std::vector<std::string> withInnermost(std::vector<std::string> dims,
                                       const std::string& d) {
  std::erase(dims, d);
  dims.push_back(d);
  return dims;
}

}  // namespace

EinsumTreeImpl::EinsumTreeImpl(const std::string& expression,
                               const std::map<std::string, int64_t>& sz,
                               int threads, Isa isa)
    : sizes(sz), isa_(isa) {
  root = parseEinsum(expression, sizes);
  checkTensorSizes(*root);
  options_.thread_target = threads > 1 ? int64_t(threads) * 8 : 1;
  if (const char* env = std::getenv("STITCH_TENSOROP_KERNEL_CAPS")) {
    // "M,K,N,A_PANEL_BYTES": tuning knob for benchmarks, not a user setting.
    long long m, k, n, panel;
    if (std::sscanf(env, "%lld,%lld,%lld,%lld", &m, &k, &n, &panel) == 4) {
      options_.max_m_kernel = m;
      options_.max_k_kernel = k;
      options_.max_n_kernel = n;
      options_.max_a_panel_bytes = panel;
    }
  }
  collectInputs(*root);
  Tensor result = lower(*root, kOutput);
  if (result.buffer != kOutput) permute(result, root->dims, kOutput);
}

// Rejects tensors whose element count does not fit comfortably in memory
// (or in int64 arithmetic) before any kernel is generated.
void EinsumTreeImpl::checkTensorSizes(const EinsumNode& node) const {
  double n = 1;
  for (const auto& d : node.dims) n *= double(sizes.at(d));
  if (n > double(int64_t(1) << 36)) {
    char count[32];
    std::snprintf(count, sizeof count, "%.3g", n);
    throw Error("tensor " + toTreeString(node) + " would have " + count +
                " elements; this backend supports at most 2^36");
  }
  for (const auto& c : node.children) checkTensorSizes(*c);
}

void EinsumTreeImpl::collectInputs(const EinsumNode& node) {
  if (node.children.empty()) {
    if (inputDims.size() <= size_t(node.input)) inputDims.resize(node.input + 1);
    inputDims[node.input] = node.dims;
    return;
  }
  for (const auto& c : node.children) collectInputs(*c);
}

int64_t EinsumTreeImpl::elements(const std::vector<std::string>& dims) const {
  int64_t n = 1;
  for (const auto& d : dims) n *= sizes.at(d);
  return n;
}

std::vector<int64_t> EinsumTreeImpl::strides(const std::vector<std::string>& dims) const {
  std::vector<int64_t> s(dims.size());
  int64_t stride = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    s[i] = stride;
    stride *= sizes.at(dims[i]);
  }
  return s;
}

int EinsumTreeImpl::newBuffer(const std::vector<std::string>& dims) {
  const size_t bytes = ((size_t(elements(dims)) * 4 + 63) / 64) * 64;
  auto* p = static_cast<float*>(std::aligned_alloc(64, bytes));
  if (!p) throw Error("out of memory for an einsum intermediate");
  buffers_.emplace_back(p);
  return int(buffers_.size() - 1);
}

// Returns where the node's value lives. `target` is kOutput for the root
// (write the final output directly when the layout allows), else kNoTarget.
EinsumTreeImpl::Tensor EinsumTreeImpl::lower(const EinsumNode& node, int target) {
  if (node.children.empty()) return Tensor{kInputBase + node.input, node.dims};
  if (node.children.size() == 1) {
    Tensor src = lower(*node.children[0], kNoTarget);
    if (src.dims == node.dims && target != kOutput) return src;
    return permute(src, node.dims, target);
  }
  Tensor a = lower(*node.children[0], kNoTarget);
  Tensor b = lower(*node.children[1], kNoTarget);
  const int out = target == kOutput ? kOutput : newBuffer(node.dims);
  contract(a, b, node.dims, out);
  return Tensor{out, node.dims};
}

EinsumTreeImpl::Tensor EinsumTreeImpl::permute(const Tensor& src,
                                               const std::vector<std::string>& dims,
                                               int target) {
  const int out = target == kOutput ? kOutput : newBuffer(dims);
  const auto sIn = strides(src.dims), sOut = strides(dims);
  std::vector<Dimension> loops;
  for (size_t i = 0; i < dims.size(); ++i) {
    Dimension d;
    d.type = dim_t::c;
    d.size = sizes.at(dims[i]);
    const auto it = std::find(src.dims.begin(), src.dims.end(), dims[i]);
    assert(it != src.dims.end() && "permute must not invent dims");
    d.stride_in0 = sIn[it - src.dims.begin()];
    d.stride_out = sOut[i];
    loops.push_back(d);
  }
  Step step;
  setupOptimized(step.op, ptype_t::none, ptype_t::identity, ptype_t::none, loops,
                 options_, isa_);
  step.in0 = src.buffer;
  step.out = out;
  steps.push_back(std::move(step));
  return Tensor{out, dims};
}

void EinsumTreeImpl::contract(Tensor a, Tensor b, const std::vector<std::string>& allOutDims,
                              int target) {
  // Extent-1 dims change no address; dropping them keeps "innermost" honest.
  auto nontrivial = [&](std::vector<std::string> dims) {
    std::erase_if(dims, [&](const std::string& d) { return sizes.at(d) == 1; });
    return dims;
  };
  a.dims = nontrivial(a.dims);
  b.dims = nontrivial(b.dims);
  const std::vector<std::string> outDims = nontrivial(allOutDims);
  auto onlyIn = [&](const std::string& d, const Tensor& t, const Tensor& other) {
    return contains(t.dims, d) && !contains(other.dims, d);
  };
  // Two flops per term: every output element sums over the reduced dims.
  double work = 2;
  for (const auto& d : outDims) work *= double(sizes.at(d));
  for (const auto& d : a.dims)
    if (contains(b.dims, d) && !contains(outDims, d)) work *= double(sizes.at(d));
  flops += work;
  // The kernel's M must be the output's contiguous dim and belong to one
  // operand only; that operand plays A.
  std::vector<std::string> layout = outDims;
  std::string mDim;
  if (!outDims.empty()) {
    const std::string& inner = outDims.back();
    if (onlyIn(inner, b, a)) std::swap(a, b);
    if (onlyIn(inner, a, b)) mDim = inner;
  }
  if (!mDim.empty()) {
    // A short M leaves vector lanes idle in every FMA. A longer m dim as M
    // costs a permutation of the result (and maybe of A); take it when the
    // estimated time says so.
    // A must end in M; B must not end in a batch dim (see below).
    auto cost = [&](const Tensor& aT, const Tensor& bT, const std::string& m,
                    bool permuteOut) {
      double seconds = work / (kernelRate(sizes.at(m)) * kKernelFlopsPerSecond);
      if (aT.dims.back() != m) seconds += copySeconds(elements(aT.dims));
      const std::string bInner = bT.dims.empty() ? std::string() : bT.dims.back();
      if (!bInner.empty() && contains(aT.dims, bInner) && contains(outDims, bInner))
        seconds += copySeconds(elements(bT.dims));
      if (permuteOut) seconds += copySeconds(elements(outDims));
      return seconds;
    };
    const double direct = cost(a, b, mDim, false);
    double best = direct;
    std::string pick;
    bool pickFromB = false;
    for (const auto& d : outDims) {
      if (d == mDim) continue;
      for (const bool fromB : {false, true}) {
        const Tensor& t = fromB ? b : a;
        const Tensor& other = fromB ? a : b;
        if (!onlyIn(d, t, other)) continue;
        const double c = cost(t, other, d, true);
        if (c < best) {
          best = c;
          pick = d;
          pickFromB = fromB;
        }
      }
    }
    if (best >= 0.9 * direct) pick.clear();  // within the estimate's error
    if (!pick.empty()) {
      if (pickFromB) std::swap(a, b);
      mDim = pick;
      layout = withInnermost(outDims, mDim);
    }
  }
  if (mDim.empty()) {
    // Compute into a layout with an M dim innermost, then permute.
    for (const auto* t : {&a, &b}) {
      const Tensor& other = t == &a ? b : a;
      for (auto it = t->dims.rbegin(); it != t->dims.rend() && mDim.empty(); ++it)
        if (contains(outDims, *it) && !contains(other.dims, *it)) mDim = *it;
      if (!mDim.empty()) {
        if (t == &b) std::swap(a, b);
        break;
      }
    }
    if (!mDim.empty()) layout = withInnermost(outDims, mDim);
  }
  if (!mDim.empty() && a.dims.back() != mDim) {
    // Loop dims outermost, then the reduction, then M: each kernel call's
    // A panel (K x M, batch-reduce steps apart) is then one dense block.
    std::vector<std::string> order;
    for (int pass = 0; pass < 2; ++pass)
      for (const auto& d : a.dims) {
        const bool reduced = contains(b.dims, d) && !contains(outDims, d);
        if (d != mDim && reduced == (pass == 1)) order.push_back(d);
      }
    order.push_back(mDim);
    a = permute(a, order, kNoTarget);
  }
  // B must walk K (or N, transposed) contiguously.
  const std::string bInner = b.dims.empty() ? std::string() : b.dims.back();
  const bool bInnerIsC =
      !bInner.empty() && contains(a.dims, bInner) && contains(outDims, bInner);
  if (bInnerIsC) {
    std::string pick;
    for (const auto& d : b.dims)
      if (contains(a.dims, d) && !contains(outDims, d)) pick = d;
    if (pick.empty())
      for (const auto& d : b.dims)
        if (!contains(a.dims, d)) pick = d;
    if (!pick.empty()) b = permute(b, withInnermost(b.dims, pick), kNoTarget);
  }

  const bool direct = layout == outDims;
  const int out = direct ? target : newBuffer(layout);
  std::vector<std::string> all = layout;
  for (const auto* t : {&a.dims, &b.dims})
    for (const auto& d : *t)
      if (!contains(all, d)) all.push_back(d);
  const auto sA = strides(a.dims), sB = strides(b.dims), sO = strides(layout);
  auto strideIn = [](const std::vector<std::string>& dims,
                     const std::vector<int64_t>& s, const std::string& d) -> int64_t {
    auto it = std::find(dims.begin(), dims.end(), d);
    return it == dims.end() ? 0 : s[it - dims.begin()];
  };
  std::vector<Dimension> loops;
  for (const auto& d : all) {
    const bool inA = contains(a.dims, d), inB = contains(b.dims, d),
               inO = contains(layout, d);
    Dimension dim;
    dim.type = inA && inB ? (inO ? dim_t::c : dim_t::k) : (inA ? dim_t::m : dim_t::n);
    dim.size = sizes.at(d);
    dim.stride_in0 = strideIn(a.dims, sA, d);
    dim.stride_in1 = strideIn(b.dims, sB, d);
    dim.stride_out = strideIn(layout, sO, d);
    loops.push_back(dim);
  }
  Step step;
  // The output buffer starts with garbage: the first k block overwrites it.
  setupOptimized(step.op, ptype_t::zero, ptype_t::gemm, ptype_t::none, loops,
                 options_, isa_);
  step.in0 = a.buffer;
  step.in1 = b.buffer;
  step.out = out;
  steps.push_back(std::move(step));
  if (!direct) permute(Tensor{out, layout}, outDims, target);
}

const float* EinsumTreeImpl::pointer(int buffer, const std::vector<const float*>& inputs,
                                     float* output) const {
  if (buffer == kOutput) return output;
  if (buffer >= kInputBase) return inputs[buffer - kInputBase];
  if (buffer == kNoTarget) return nullptr;
  return buffers_[buffer].get();
}

void EinsumTreeImpl::execute(const std::vector<const float*>& inputs, float* output) const {
  if (inputs.size() != inputDims.size())
    throw Error("einsum expects " + std::to_string(inputDims.size()) + " inputs, got " +
                std::to_string(inputs.size()));
  for (const Step& s : steps)
    s.op.execute(pointer(s.in0, inputs, output), pointer(s.in1, inputs, output),
                 const_cast<float*>(pointer(s.out, inputs, output)));
}

// ---- public wrapper ------------------------------------------------------

EinsumTree::EinsumTree(const std::string& expression,
                       const std::map<std::string, int64_t>& sizes, int threads, Isa isa)
    : impl_(std::make_unique<EinsumTreeImpl>(expression, sizes, threads, isa)) {}
EinsumTree::~EinsumTree() = default;
EinsumTree::EinsumTree(EinsumTree&&) noexcept = default;
EinsumTree& EinsumTree::operator=(EinsumTree&&) noexcept = default;

size_t EinsumTree::numInputs() const { return impl_->inputDims.size(); }

std::vector<int64_t> EinsumTree::inputShape(size_t i) const {
  std::vector<int64_t> shape;
  for (const auto& d : impl_->inputDims.at(i)) shape.push_back(impl_->sizes.at(d));
  return shape;
}

std::vector<int64_t> EinsumTree::outputShape() const {
  std::vector<int64_t> shape;
  for (const auto& d : impl_->root->dims) shape.push_back(impl_->sizes.at(d));
  return shape;
}

double EinsumTree::flops() const { return impl_->flops; }
std::string EinsumTree::treeString() const { return toTreeString(*impl_->root); }
size_t EinsumTree::numOperations() const { return impl_->steps.size(); }

std::vector<std::string> EinsumTree::plan() const {
  std::vector<std::string> lines;
  for (const auto& s : impl_->steps) lines.push_back(s.op.describe());
  return lines;
}

void EinsumTree::execute(const std::vector<const float*>& inputs, float* output) const {
  impl_->execute(inputs, output);
}

}  // namespace stitch::tensorop
