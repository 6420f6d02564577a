// Kernel output buffers, reused across kernel calls and runs. Every storage
// the pool hands out stays in the pool; it is handed out again only when the
// pool holds the sole reference (shared_ptr use_count() == 1), i.e. no live
// value, view, list, graph output or caller still refers to it. Dropping
// dead values early (value_liveness.h) is what makes buffers come back.
#pragma once
#include <cstddef>
#include <map>
#include <memory>
#include <vector>

#include "interp/tensor.h"

namespace stitch {

class BufferPool {
 public:
  // A dense tensor of sizes / dtype, not zero-filled: on a free pooled
  // storage of exactly its byte size, else on a new one.
  Tensor allocate(const Shape& sizes, DType dtype);

  // Forgets storages someone else still holds (graph outputs the caller
  // kept): they are freed with their last owner instead of growing the pool.
  void releaseEscaped();

  // Whether `holders` references (e.g. the one environment entry) plus the
  // pool's own, if the storage is pooled, are all there are: nobody else can
  // see a write into it.
  bool onlyHeldBy(const std::shared_ptr<Storage>& storage, long holders) const;

  size_t pooledBuffers() const;
  int64_t reuses() const { return reuses_; }

 private:
  // Each pooled storage as the dense tensor last handed out on it: a loop
  // asking for the same shape again gets a copy of it, which allocates
  // nothing (a new tensor's sizes and strides are three allocations).
  std::map<size_t, std::vector<Tensor>> bySize_;
  int64_t reuses_ = 0;
};

}  // namespace stitch
