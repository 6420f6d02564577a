#include "tensorop/tensor_operation.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <cassert>
#include <sstream>

#include "stitch/aligned_buffer.h"

namespace stitch::tensorop {
namespace {

std::string dimName(size_t i) { return "dim " + std::to_string(i); }

[[noreturn]] void fail(const std::string& msg) { throw Error(msg); }

}  // namespace

void TensorOperationImpl::validateShape(dtype_t dtype, ptype_t first_touch,
                                        ptype_t main, ptype_t last_touch) {
  const size_t n = types_.size();
  auto checkLen = [&](size_t len, const char* what) {
    if (len != n)
      fail(std::string(what) + " has " + std::to_string(len) +
           " entries but dim_types has " + std::to_string(n));
  };
  checkLen(execs_.size(), "exec_types");
  checkLen(sizes_.size(), "dim_sizes");
  checkLen(s0_.size(), "strides_in0");
  checkLen(s1_.size(), "strides_in1");
  checkLen(so_.size(), "strides_out");
  if (n == 0) fail("a tensor operation needs at least one dimension");
  if (dtype != dtype_t::fp32) fail("dtype fp64 is not supported (only fp32)");
  if (main == ptype_t::none) fail("the main primitive must not be none");
  for (ptype_t t : {first_touch, last_touch})
    if (t != ptype_t::none && !isUnary(t))
      fail(std::string("first/last touch must be a unary primitive, got ") +
           toString(t));

  for (size_t i = 0; i < n; ++i) {
    if (sizes_[i] < 1)
      fail(dimName(i) + " has size " + std::to_string(sizes_[i]) +
           "; sizes must be >= 1");
    if (types_[i] == dim_t::undefined)
      fail(dimName(i) + " has an undefined dim type");
    if (execs_[i] == exec_t::undefined)
      fail(dimName(i) +
           " has an undefined exec type; run the optimizer or set seq/shared/prim");
    if (execs_[i] == exec_t::shared && types_[i] == dim_t::k)
      fail(dimName(i) + " is a k dim and cannot be shared: threads would race on the output");
  }
  // Shared loops are flattened into one OpenMP loop in front, primitives are
  // innermost; anything else has no loop order to run in.
  size_t i = 0;
  while (i < n && execs_[i] == exec_t::shared) ++i;
  numShared_ = i;
  while (i < n && execs_[i] == exec_t::seq) ++i;
  firstPrim_ = i;
  for (; i < n; ++i)
    if (execs_[i] != exec_t::prim)
      fail("exec_types must list shared dims first, then seq dims, then prim dims; " +
           dimName(i) + " (" + toString(execs_[i]) + ") comes after a prim dim");
  for (size_t j = numShared_; j < firstPrim_; ++j)
    if (execs_[j] == exec_t::shared) fail("shared dims must come before seq dims");
  if (firstPrim_ == n) fail("no prim dims: the main primitive needs at least one");
}

void TensorOperationImpl::identifyContraction() {
  const size_t n = types_.size();
  std::vector<int> ms, ns, ks;
  for (size_t i = 0; i < n; ++i) {
    // Operand roles: an m dim must not move in1, n not in0, k not out.
    if (types_[i] == dim_t::m && s1_[i] != 0)
      fail(dimName(i) + " is an m dim but has a nonzero stride in in1");
    if (types_[i] == dim_t::n && s0_[i] != 0)
      fail(dimName(i) + " is an n dim but has a nonzero stride in in0");
    if (types_[i] == dim_t::k && so_[i] != 0)
      fail(dimName(i) + " is a k dim but has a nonzero stride in out");
    if (execs_[i] != exec_t::prim) continue;
    switch (types_[i]) {
      case dim_t::m: ms.push_back(int(i)); break;
      case dim_t::n: ns.push_back(int(i)); break;
      case dim_t::k: ks.push_back(int(i)); break;
      case dim_t::c:
      case dim_t::undefined:
        fail(dimName(i) + " is a prim dim of type c; " + toString(main_) +
             " takes m, n and k prim dims");
    }
  }
  const size_t wantK = main_ == ptype_t::gemm ? 1 : 2;
  if (ms.size() != 1 || ns.size() != 1 || ks.size() != wantK)
    fail(std::string(toString(main_)) + " needs prim dims m, n and " +
         (wantK == 1 ? "k" : "two k (k and batch-reduce)") + "; got " +
         std::to_string(ms.size()) + " m, " + std::to_string(ns.size()) +
         " n, " + std::to_string(ks.size()) + " k");
  primM_ = ms[0];
  primN_ = ns[0];
  if (wantK == 1) {
    primK_ = ks[0];
  } else {
    // The kernel's K is the k dim B walks contiguously (else the one A does);
    // the other k dim is the batch-reduce dim.
    int kk = ks[1];
    for (int k : ks)
      if (s1_[k] == 1) kk = k;
    if (s1_[kk] != 1)
      for (int k : ks)
        if (s0_[k] == 1) kk = k;
    primK_ = kk;
    primBr_ = ks[0] == kk ? ks[1] : ks[0];
  }
  const int64_t M = size(primM_), N = size(primN_), K = size(primK_);
  auto unit = [](int64_t stride, int64_t extent) {
    return stride == 1 || extent == 1;
  };
  if (!unit(so_[primM_], M))
    fail("prim m " + dimName(primM_) +
         " must have unit stride in out (kernels are column-major, M contiguous)");
  transA_ = !unit(s0_[primM_], M);
  if (transA_ && !unit(s0_[primK_], K))
    fail("in0 needs unit stride in prim m " + dimName(primM_) + " or prim k " +
         dimName(primK_));
  transB_ = !unit(s1_[primK_], K);
  if (transB_ && !unit(s1_[primN_], N))
    fail("in1 needs unit stride in prim k " + dimName(primK_) + " or prim n " +
         dimName(primN_));
  ld0_ = transA_ ? s0_[primM_] : s0_[primK_];
  packA_ = !transA_ && K * size(primBr_) >= 16 && N >= 16 && ld0_ >= 256 && ld0_ > M;
  ld1_ = transB_ ? s1_[primK_] : s1_[primN_];
  ldOut_ = so_[primN_];
  brA_ = primBr_ >= 0 ? s0_[primBr_] : 0;
  brB_ = primBr_ >= 0 ? s1_[primBr_] : 0;
  touchRows_ = M;
  touchCols_ = N;
}

void TensorOperationImpl::identifyElementwise() {
  std::vector<int> prims;
  for (size_t i = firstPrim_; i < types_.size(); ++i) prims.push_back(int(i));
  if (prims.size() > 2)
    fail(std::string(toString(main_)) + " takes one or two prim dims, got " +
         std::to_string(prims.size()));
  for (int p : prims)
    if (types_[p] == dim_t::k)
      fail(dimName(p) + " is a k prim dim; " + toString(main_) +
           " has no reduction");
  const bool unary = isUnary(main_);
  // Unary: M is the dim in0 walks contiguously. Binary: M is the output's
  // contiguous dim (inputs may broadcast it).
  const auto& keyStrides = unary ? s0_ : so_;
  primM_ = prims[0];
  for (int p : prims)
    if (keyStrides[p] == 1) primM_ = p;
  if (prims.size() == 2) primN_ = prims[0] == primM_ ? prims[1] : prims[0];
  const int64_t M = size(primM_);
  auto unit = [&](int64_t s) { return s == 1 || M == 1; };
  auto nStride = [&](const std::vector<int64_t>& s) {
    return primN_ >= 0 ? s[primN_] : 0;
  };
  if (unary) {
    if (main_ != ptype_t::zero && !unit(s0_[primM_]))
      fail("unary primitive needs a prim dim with unit stride in in0");
    transOut_ = !unit(so_[primM_]);
    if (transOut_ && primN_ >= 0 && !(so_[primN_] == 1 || size(primN_) == 1))
      fail("unary primitive needs a prim dim with unit stride in out");
    if (transOut_ && primN_ < 0)
      fail("prim " + dimName(primM_) + " has non-unit output stride and there is no second prim dim to transpose with");
    ld0_ = nStride(s0_);
    ldOut_ = transOut_ ? so_[primM_] : nStride(so_);
    touchRows_ = transOut_ ? size(primN_) : M;
    touchCols_ = transOut_ ? M : size(primN_);
    return;
  }
  if (!unit(so_[primM_]))
    fail("binary primitive needs a prim dim with unit stride in out");
  for (auto [s, which] : {std::pair{&s0_, "in0"}, std::pair{&s1_, "in1"}})
    if (!((*s)[primM_] == 0 || unit((*s)[primM_])))
      fail(std::string(which) + " must have stride 0 or 1 in prim " +
           dimName(primM_));
  bcastM0_ = s0_[primM_] == 0 && M > 1;
  bcastM1_ = s1_[primM_] == 0 && M > 1;
  ld0_ = nStride(s0_);
  ld1_ = nStride(s1_);
  ldOut_ = nStride(so_);
  touchRows_ = M;
  touchCols_ = size(primN_);
}

void TensorOperationImpl::generateKernels(Isa isa) {
  const int64_t M = size(primM_), N = size(primN_);
  if (isContraction(main_)) {
    BrgemmDesc d;
    d.m = M;
    d.n = N;
    d.k = size(primK_);
    d.br = size(primBr_);
    d.trans_a = transA_;
    d.trans_b = transB_;
    // Zeroing first touch folds into the first k block (beta = 0); the
    // accumulating kernel is needed only when k loops revisit the block.
    bool kLoops = false;
    for (size_t i = 0; i < firstPrim_; ++i) kLoops |= types_[i] == dim_t::k;
    d.accumulate = true;
    if (first_ != ptype_t::zero || kLoops) brgemm_ = BrgemmKernel(d, isa);
    d.accumulate = false;
    if (first_ == ptype_t::zero) brgemmOverwrite_ = BrgemmKernel(d, isa);
  } else if (isUnary(main_)) {
    UnaryDesc d;
    d.m = M;
    d.n = N;
    d.op = main_;
    d.transpose = transOut_;
    unary_ = UnaryKernel(d, isa);
  } else {
    BinaryDesc d;
    d.m = M;
    d.n = N;
    d.op = main_;
    d.bcast_m_in0 = bcastM0_;
    d.bcast_m_in1 = bcastM1_;
    binary_ = BinaryKernel(d, isa);
  }
  auto touch = [&](ptype_t op) {
    UnaryDesc d;
    d.m = touchRows_;
    d.n = touchCols_;
    d.op = op;
    return UnaryKernel(d, isa);
  };
  if (first_ != ptype_t::none && !(isContraction(main_) && first_ == ptype_t::zero))
    firstTouch_ = touch(first_);
  if (last_ != ptype_t::none) lastTouch_ = touch(last_);
}

void TensorOperationImpl::setup(dtype_t dtype, ptype_t first_touch,
                                ptype_t main, ptype_t last_touch,
                                const std::vector<dim_t>& dim_types,
                                const std::vector<exec_t>& exec_types,
                                const std::vector<int64_t>& dim_sizes,
                                const std::vector<int64_t>& strides_in0,
                                const std::vector<int64_t>& strides_in1,
                                const std::vector<int64_t>& strides_out,
                                Isa isa) {
  *this = TensorOperationImpl();
  types_ = dim_types;
  execs_ = exec_types;
  sizes_ = dim_sizes;
  s0_ = strides_in0;
  s1_ = strides_in1;
  so_ = strides_out;
  first_ = first_touch;
  main_ = main;
  last_ = last_touch;
  validateShape(dtype, first_touch, main, last_touch);
  if (isContraction(main))
    identifyContraction();
  else
    identifyElementwise();
  generateKernels(isa);
  ready_ = true;
}

void TensorOperationImpl::runKernels(const float* in0, const float* in1,
                                     float* out, bool first, bool last) const {
  if (first && firstTouch_) firstTouch_(out, out, ldOut_, ldOut_);
  if (isContraction(main_)) {
    const BrgemmKernel& k =
        first && first_ == ptype_t::zero ? brgemmOverwrite_ : brgemm_;
    if (packA_) {
      const float* packed = packA(in0);
      const int64_t M = size(primM_);
      k(packed, in1, out, M, ld1_, ldOut_, M * size(primK_), brB_);
    } else {
      k(in0, in1, out, ld0_, ld1_, ldOut_, brA_, brB_);
    }
  } else if (isUnary(main_)) {
    unary_(in0, out, ld0_, ldOut_);
  } else {
    binary_(in0, in1, out, ld0_, ld1_, ldOut_);
  }
  if (last && lastTouch_) lastTouch_(out, out, ldOut_, ldOut_);
}

const float* TensorOperationImpl::packA(const float* a) const {
  thread_local AlignedFloats buffer;
  const int64_t M = size(primM_), K = size(primK_), BR = size(primBr_);
  buffer.resize(size_t(M * K * BR));
  float* dst = buffer.data();
  for (int64_t r = 0; r < BR; ++r)
    for (int64_t k = 0; k < K; ++k, dst += M)
      std::memcpy(dst, a + r * brA_ + k * ld0_, size_t(M) * sizeof(float));
  return buffer.data();
}

void TensorOperationImpl::iterate(size_t dim, const float* in0,
                                  const float* in1, float* out, bool first,
                                  bool last) const {
  if (dim == firstPrim_) {
    runKernels(in0, in1, out, first, last);
    return;
  }
  const int64_t n = sizes_[dim];
  const bool reduces = types_[dim] == dim_t::k;
  for (int64_t i = 0; i < n; ++i) {
    iterate(dim + 1, in0 + i * s0_[dim], in1 + i * s1_[dim], out + i * so_[dim],
            first && (!reduces || i == 0), last && (!reduces || i == n - 1));
  }
}

void TensorOperationImpl::execute(const float* in0, const float* in1,
                                  float* out) const {
  if (numShared_ == 0) {
    iterate(0, in0, in1, out, true, true);
    return;
  }
  int64_t total = 1;
  for (size_t d = 0; d < numShared_; ++d) total *= sizes_[d];
#pragma omp parallel for schedule(static)
  for (int64_t it = 0; it < total; ++it) {
    int64_t rest = it;
    const float* p0 = in0;
    const float* p1 = in1;
    float* po = out;
    for (size_t d = numShared_; d-- > 0;) {
      const int64_t idx = rest % sizes_[d];
      rest /= sizes_[d];
      p0 += idx * s0_[d];
      p1 += idx * s1_[d];
      po += idx * so_[d];
    }
    iterate(numShared_, p0, p1, po, true, true);
  }
}

std::string TensorOperationImpl::describe() const {
  std::ostringstream os;
  os << toString(first_) << "/" << toString(main_) << "/" << toString(last_);
  os << " M=" << size(primM_) << " N=" << size(primN_);
  if (isContraction(main_)) os << " K=" << size(primK_) << " BR=" << size(primBr_);
  os << " loops:";
  for (size_t i = 0; i < types_.size(); ++i)
    os << " " << toString(types_[i]) << ":" << toString(execs_[i]) << ":"
       << sizes_[i];
  return os.str();
}

// ---- public wrapper ------------------------------------------------------

TensorOperation::TensorOperation() = default;
TensorOperation::~TensorOperation() = default;
TensorOperation::TensorOperation(TensorOperation&&) noexcept = default;
TensorOperation& TensorOperation::operator=(TensorOperation&&) noexcept = default;

void TensorOperation::setup(dtype_t dtype, ptype_t prim_first_touch,
                            ptype_t prim_main, ptype_t prim_last_touch,
                            const std::vector<dim_t>& dim_types,
                            const std::vector<exec_t>& exec_types,
                            const std::vector<int64_t>& dim_sizes,
                            const std::vector<int64_t>& strides_in0,
                            const std::vector<int64_t>& strides_in1,
                            const std::vector<int64_t>& strides_out, Isa isa) {
  auto impl = std::make_unique<TensorOperationImpl>();
  impl->setup(dtype, prim_first_touch, prim_main, prim_last_touch, dim_types,
              exec_types, dim_sizes, strides_in0, strides_in1, strides_out, isa);
  impl_ = std::move(impl);
}

void TensorOperation::execute(const void* in0, const void* in1,
                              void* out) const {
  if (!impl_) throw Error("TensorOperation::execute called before setup");
  impl_->execute(static_cast<const float*>(in0), static_cast<const float*>(in1),
                 static_cast<float*>(out));
}

bool TensorOperation::isSetUp() const { return impl_ != nullptr; }

std::string TensorOperation::describe() const {
  return impl_ ? impl_->describe() : std::string("(not set up)");
}

}  // namespace stitch::tensorop
