// Strided tensors with shared storage: a view shares its base's Storage, so
// a write through any view is seen by the base and every other view.
// Sizes and strides are in elements; offset is the element offset of [0,...].
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "ir/dtype.h"

namespace stitch {

using Shape = std::vector<int64_t>;

class Storage {
 public:
  explicit Storage(size_t nbytes);  // 64-byte aligned, zero-initialized
  // zeroFill = false leaves the bytes as allocated: for buffers that are
  // written completely before anyone reads them (kernel outputs).
  Storage(size_t nbytes, bool zeroFill);
  // Memory someone else owns (a caller's array): `owner` keeps it alive as
  // long as this storage lives, and nothing is freed here.
  Storage(void* data, size_t nbytes, std::shared_ptr<const void> owner);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  uint8_t* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }

 private:
  uint8_t* data_ = nullptr;
  size_t nbytes_ = 0;
  std::shared_ptr<const void> owner_;  // set for memory someone else owns
};

class Tensor {
 public:
  Tensor() = default;  // undefined
  // A new contiguous tensor (zero-filled).
  static Tensor empty(const Shape& sizes, DType dtype);
  // The same without the zero fill: every element must be written before it
  // is read (the runtime's kernel outputs).
  static Tensor uninitialized(const Shape& sizes, DType dtype);
  // A contiguous tensor of `sizes` on an existing storage (at least
  // numel * element size bytes), e.g. one reused by the runtime.
  static Tensor onStorage(std::shared_ptr<Storage> storage, const Shape& sizes, DType dtype);
  // A view on the same storage.
  Tensor asStrided(const Shape& sizes, const Shape& strides, int64_t offset) const;

  bool defined() const { return storage_ != nullptr; }
  DType dtype() const { return dtype_; }
  const Shape& sizes() const { return layout().sizes; }
  const Shape& strides() const { return layout().strides; }
  int64_t size(int64_t dim) const { return sizes().at(dim); }
  int64_t stride(int64_t dim) const { return strides().at(dim); }
  int64_t offset() const { return offset_; }
  int64_t dim() const { return (int64_t)sizes().size(); }
  int64_t numel() const;
  bool isContiguous() const;
  bool sameStorage(const Tensor& o) const { return storage_ == o.storage_; }
  const std::shared_ptr<Storage>& storage() const { return storage_; }

  // Pointer to element [0,...,0]. T must match dtype (bool is stored as uint8_t).
  template <typename T>
  T* data() const {
    return reinterpret_cast<T*>(storage_->data()) + offset_;
  }
  void* rawData() const { return storage_->data() + offset_ * dtypeSize(dtype_); }

  // A contiguous copy (always a new storage).
  Tensor clone() const;
  // This tensor if contiguous, else a contiguous copy.
  Tensor contiguous() const;
  // Element conversion into a new tensor of `dtype`.
  Tensor to(DType dtype) const;
  // Writes src (broadcast to this shape, converted to this dtype) into this.
  void copyFrom(const Tensor& src) const;
  // Fills every element with v (converted to this dtype).
  void fill(double v) const;
  // The same for an integer value (exact for large int64).
  void fillInt(int64_t v) const;
  // This tensor broadcast to `sizes` (a view with stride 0 on broadcast
  // dims); UserError if the shapes do not broadcast to exactly `sizes`.
  Tensor expandTo(const Shape& sizes) const;

  // Element access by flat logical index (row-major over sizes); slow paths
  // for tests and scalars.
  double getDouble(int64_t linearIndex) const;
  int64_t getInt(int64_t linearIndex) const;
  void setDouble(int64_t linearIndex, double v) const;
  void setInt(int64_t linearIndex, int64_t v) const;
  // A 0-dim tensor's single value.
  double item() const { return getDouble(0); }

  std::string shapeStr() const;  // "[2, 3]"

 private:
  // Sizes and strides, shared by a tensor's copies and never changed: a
  // copy (an argument list's, an environment's) allocates nothing.
  struct Layout {
    Shape sizes, strides;
  };
  static const Layout& undefinedLayout();
  const Layout& layout() const { return layout_ ? *layout_ : undefinedLayout(); }

  std::shared_ptr<Storage> storage_;
  DType dtype_ = DType::f32;
  std::shared_ptr<const Layout> layout_;
  int64_t offset_ = 0;
};

// A 0-dim tensor holding one value.
Tensor scalarTensor(double v, DType dtype);
Tensor scalarTensorInt(int64_t v, DType dtype);

// Row-major strides for sizes.
Shape contiguousStrides(const Shape& sizes);
int64_t numelOf(const Shape& sizes);
std::string shapeToString(const Shape& sizes);

// See interp/strided_loop.h for the fast, templated walker used by kernels.
// Calls f(offsets) for every element of a shape, walking
// several strided operands together; the innermost dimension is a tight
// loop. Strides are per operand, same rank as sizes (0 for broadcast dims).
void forEachIndex(const Shape& sizes, const std::vector<const Shape*>& strides,
                  const std::vector<int64_t>& baseOffsets,
                  const std::function<void(const int64_t* offsets)>& f);

}  // namespace stitch
