#include "interp/tensor.h"

#include <cstdlib>
#include <cstring>

#include "interp/dtype_dispatch.h"
#include "interp/strided_loop.h"
#include "ir/shape_util.h"

namespace stitch {

Storage::Storage(size_t nbytes) : Storage(nbytes, true) {}

Storage::Storage(size_t nbytes, bool zeroFill) : nbytes_(nbytes) {
  size_t rounded = (nbytes + 63) / 64 * 64;
  if (rounded == 0) rounded = 64;
  data_ = static_cast<uint8_t*>(std::aligned_alloc(64, rounded));
  if (!data_) throw RuntimeFailure(errorMessage("out of memory allocating ", nbytes, " bytes"));
  if (zeroFill) std::memset(data_, 0, rounded);
}

Storage::Storage(void* data, size_t nbytes, std::shared_ptr<const void> owner)
    : data_(static_cast<uint8_t*>(data)), nbytes_(nbytes), owner_(std::move(owner)) {
  STITCH_ASSERT(owner_ != nullptr, "borrowed storage without an owner");
}

Storage::~Storage() {
  if (!owner_) std::free(data_);
}

Shape contiguousStrides(const Shape& sizes) {
  Shape strides(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    s *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

int64_t numelOf(const Shape& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

std::string shapeToString(const Shape& sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

namespace {

// Bytes of a contiguous tensor of sizes; user errors for negative dims and
// run-time failures for sizes no machine holds.
size_t checkedTensorBytes(const Shape& sizes, DType dtype) {
  for (int64_t s : sizes) {
    if (s < 0) {
      throw UserError(errorMessage("Trying to create tensor with negative dimension ", s, ": ",
                                   shapeToString(sizes)));
    }
  }
  uint64_t bytes = dtypeSize(dtype);
  for (int64_t s : sizes) {
    if (s != 0 && __builtin_mul_overflow(bytes, (uint64_t)s, &bytes)) bytes = UINT64_MAX;
    if (s == 0) bytes = 0;
  }
  if (bytes > (uint64_t(1) << 46)) {
    throw RuntimeFailure(errorMessage("cannot allocate a tensor of shape ", shapeToString(sizes),
                                      ": out of memory"));
  }
  return (size_t)bytes;
}

}  // namespace

Tensor Tensor::empty(const Shape& sizes, DType dtype) {
  return onStorage(std::make_shared<Storage>(checkedTensorBytes(sizes, dtype), true), sizes, dtype);
}

Tensor Tensor::uninitialized(const Shape& sizes, DType dtype) {
  return onStorage(std::make_shared<Storage>(checkedTensorBytes(sizes, dtype), false), sizes, dtype);
}

const Tensor::Layout& Tensor::undefinedLayout() {
  static const Layout none;
  return none;
}

Tensor Tensor::onStorage(std::shared_ptr<Storage> storage, const Shape& sizes, DType dtype) {
  STITCH_ASSERT(storage && storage->nbytes() >= (size_t)numelOf(sizes) * dtypeSize(dtype),
                "storage too small for a tensor of shape ", shapeToString(sizes));
  Tensor t;
  t.storage_ = std::move(storage);
  t.dtype_ = dtype;
  t.layout_ = std::make_shared<const Layout>(Layout{sizes, contiguousStrides(sizes)});
  t.offset_ = 0;
  return t;
}

Tensor Tensor::asStrided(const Shape& sizes, const Shape& strides, int64_t offset) const {
  STITCH_ASSERT(defined(), "asStrided on an undefined tensor");
  STITCH_ASSERT(sizes.size() == strides.size(), "asStrided: ", sizes.size(), " sizes but ",
                strides.size(), " strides");
  // Every reachable element must lie inside the storage.
  if (numelOf(sizes) > 0) {
    int64_t lo = offset, hi = offset;
    for (size_t d = 0; d < sizes.size(); ++d) {
      int64_t span = (sizes[d] - 1) * strides[d];
      (span < 0 ? lo : hi) += span;
    }
    int64_t capacity = (int64_t)(storage_->nbytes() / dtypeSize(dtype_));
    STITCH_ASSERT(lo >= 0 && hi < capacity, "asStrided view out of storage bounds");
  }
  Tensor t = *this;
  t.layout_ = std::make_shared<const Layout>(Layout{sizes, strides});
  t.offset_ = offset;
  return t;
}

int64_t Tensor::numel() const { return numelOf(sizes()); }

bool Tensor::isContiguous() const {
  const Layout& l = layout();
  int64_t expected = 1;
  for (size_t i = l.sizes.size(); i-- > 0;) {
    if (l.sizes[i] == 0) return true;
    if (l.sizes[i] == 1) continue;
    if (l.strides[i] != expected) return false;
    expected *= l.sizes[i];
  }
  return true;
}

std::string Tensor::shapeStr() const { return shapeToString(sizes()); }

Tensor Tensor::expandTo(const Shape& target) const {
  int64_t rank = (int64_t)target.size(), own = dim();
  Shape broadcast = broadcastShapes(sizes(), target);
  if (own > rank || broadcast != target) {
    throw UserError(errorMessage("The expanded size of the tensor must match the existing size: "
                                 "cannot broadcast ", shapeStr(), " to ",
                                 shapeToString(target)));
  }
  Shape strides(rank, 0);
  for (int64_t d = 0; d < own; ++d) {
    int64_t td = d + rank - own;
    strides[td] = sizes()[d] == target[td] ? this->strides()[d] : 0;
  }
  return asStrided(target, strides, offset_);
}

namespace {

template <typename D, typename S>
void copyTyped(const Tensor& dst, const Tensor& src) {
  D* d = elemPtr<D>(dst, 0);
  const S* s = elemPtr<const S>(src, 0);
  forEachRow<2>(dst.sizes(), {&dst.strides(), &src.strides()}, {dst.offset(), src.offset()},
                [d, s](const std::array<int64_t, 2>& off, int64_t n,
                       const std::array<int64_t, 2>& st) {
                  D* dp = d + off[0];
                  const S* sp = s + off[1];
                  if constexpr (std::is_same_v<D, S>) {
                    if (st[0] == 1 && st[1] == 1) {
                      std::memcpy(dp, sp, (size_t)n * sizeof(D));
                      return;
                    }
                  }
                  if (st[0] == 1 && st[1] == 1) {
                    for (int64_t i = 0; i < n; ++i) dp[i] = static_cast<D>(sp[i]);
                  } else if (st[0] == 1 && st[1] == 0) {
                    D v = static_cast<D>(sp[0]);
                    for (int64_t i = 0; i < n; ++i) dp[i] = v;
                  } else {
                    for (int64_t i = 0; i < n; ++i) dp[i * st[0]] = static_cast<D>(sp[i * st[1]]);
                  }
                });
}

// Copies src (already of dst's shape) into dst, converting elements.
void copySameShape(const Tensor& dst, const Tensor& src) {
  if (dst.dtype() == src.dtype() && dst.isContiguous() && src.isContiguous() &&
      dst.numel() > 0 && dst.numel() < kParallelGrain) {
    std::memcpy(dst.rawData(), src.rawData(), dst.numel() * dtypeSize(dst.dtype()));
    return;
  }
  dispatchDType(dst.dtype(), [&]<typename D>() {
    dispatchDType(src.dtype(), [&]<typename S>() { copyTyped<D, S>(dst, src); });
  });
}

// Element offset of a flat row-major index.
int64_t offsetOf(const Tensor& t, int64_t linear) {
  int64_t n = t.numel();
  STITCH_ASSERT(linear >= 0 && linear < n, "element index ", linear, " out of range for ",
                t.shapeStr());
  int64_t off = t.offset();
  for (int64_t d = t.dim(); d-- > 0;) {
    int64_t s = t.size(d);
    off += (linear % s) * t.stride(d);
    linear /= s;
  }
  return off;
}

}  // namespace

void Tensor::copyFrom(const Tensor& src) const {
  STITCH_ASSERT(defined() && src.defined(), "copyFrom with an undefined tensor");
  // Same shape and dtype, both dense: one block copy (memmove reads before
  // it writes where the two overlap, as the general path's clone does).
  if (dtype_ == src.dtype_ && sizes() == src.sizes() && isContiguous() && src.isContiguous()) {
    if (numel() > 0) std::memmove(rawData(), src.rawData(), (size_t)numel() * dtypeSize(dtype_));
    return;
  }
  Tensor from = src;
  // Overlapping memory: read everything before writing anything.
  if (sameStorage(src)) from = src.clone();
  Shape broadcast = broadcastShapes(sizes(), from.sizes());
  if (broadcast != sizes()) {
    throw UserError(errorMessage("output with shape ", shapeStr(),
                                 " doesn't match the broadcast shape ", shapeToString(broadcast)));
  }
  copySameShape(*this, from.expandTo(sizes()));
}

// Both write every element of `out`: no zero fill first (a 300 KB cache
// cloned per decode step spent as long zeroing it as copying).
Tensor Tensor::clone() const {
  Tensor out = uninitialized(sizes(), dtype_);
  copySameShape(out, *this);
  return out;
}

Tensor Tensor::contiguous() const { return isContiguous() ? *this : clone(); }

Tensor Tensor::to(DType dtype) const {
  Tensor out = uninitialized(sizes(), dtype);
  copySameShape(out, *this);
  return out;
}

void Tensor::fill(double v) const {
  dispatchDType(dtype_, [&]<typename T>() {
    T value = static_cast<T>(v);
    T* p = elemPtr<T>(*this, 0);
    forEachRow<1>(sizes(), {&strides()}, {offset_},
                  [p, value](const std::array<int64_t, 1>& off, int64_t n,
                             const std::array<int64_t, 1>& st) {
                    T* q = p + off[0];
                    if (st[0] == 1) {
                      for (int64_t i = 0; i < n; ++i) q[i] = value;
                    } else {
                      for (int64_t i = 0; i < n; ++i) q[i * st[0]] = value;
                    }
                  });
  });
}

void Tensor::fillInt(int64_t v) const {
  if (isFloating(dtype_)) return fill((double)v);
  dispatchDType(dtype_, [&]<typename T>() {
    T value = static_cast<T>(v);
    T* p = elemPtr<T>(*this, 0);
    forEachRow<1>(sizes(), {&strides()}, {offset_},
                  [p, value](const std::array<int64_t, 1>& off, int64_t n,
                             const std::array<int64_t, 1>& st) {
                    T* q = p + off[0];
                    for (int64_t i = 0; i < n; ++i) q[i * st[0]] = value;
                  });
  });
}

double Tensor::getDouble(int64_t linearIndex) const {
  int64_t off = offsetOf(*this, linearIndex);
  return dispatchDType(dtype_, [&]<typename T>() -> double {
    return static_cast<double>(elemPtr<T>(*this, off)[0]);
  });
}

int64_t Tensor::getInt(int64_t linearIndex) const {
  int64_t off = offsetOf(*this, linearIndex);
  return dispatchDType(dtype_, [&]<typename T>() -> int64_t {
    return static_cast<int64_t>(elemPtr<T>(*this, off)[0]);
  });
}

void Tensor::setDouble(int64_t linearIndex, double v) const {
  int64_t off = offsetOf(*this, linearIndex);
  dispatchDType(dtype_, [&]<typename T>() { elemPtr<T>(*this, off)[0] = static_cast<T>(v); });
}

void Tensor::setInt(int64_t linearIndex, int64_t v) const {
  int64_t off = offsetOf(*this, linearIndex);
  dispatchDType(dtype_, [&]<typename T>() { elemPtr<T>(*this, off)[0] = static_cast<T>(v); });
}

Tensor scalarTensor(double v, DType dtype) {
  Tensor t = Tensor::empty({}, dtype);
  t.setDouble(0, v);
  return t;
}

Tensor scalarTensorInt(int64_t v, DType dtype) {
  Tensor t = Tensor::empty({}, dtype);
  t.setInt(0, v);
  return t;
}

void forEachIndex(const Shape& sizes, const std::vector<const Shape*>& strides,
                  const std::vector<int64_t>& baseOffsets,
                  const std::function<void(const int64_t* offsets)>& f) {
  size_t n = strides.size();
  STITCH_ASSERT(baseOffsets.size() == n, "forEachIndex: operand count mismatch");
  int64_t total = numelOf(sizes);
  if (total == 0) return;
  size_t nd = sizes.size();
  std::vector<int64_t> idx(nd, 0), off(baseOffsets);
  for (int64_t i = 0; i < total; ++i) {
    f(off.data());
    for (size_t d = nd; d-- > 0;) {
      for (size_t k = 0; k < n; ++k) off[k] += (*strides[k])[d];
      if (++idx[d] < sizes[d]) break;
      for (size_t k = 0; k < n; ++k) off[k] -= (*strides[k])[d] * sizes[d];
      idx[d] = 0;
    }
  }
}

}  // namespace stitch
