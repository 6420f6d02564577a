#include "runtime/buffer_pool.h"

#include <algorithm>

namespace stitch {

Tensor BufferPool::allocate(const Shape& sizes, DType dtype) {
  // A bad shape gets the same error as any tensor creation.
  if (std::any_of(sizes.begin(), sizes.end(), [](int64_t d) { return d < 0; }))
    return Tensor::uninitialized(sizes, dtype);
  size_t bytes = (size_t)numelOf(sizes) * dtypeSize(dtype);
  std::vector<std::shared_ptr<Storage>>& same = bySize_[bytes];
  for (const std::shared_ptr<Storage>& s : same) {
    if (s.use_count() != 1) continue;
    ++reuses_;
    return Tensor::onStorage(s, sizes, dtype);
  }
  Tensor fresh = Tensor::uninitialized(sizes, dtype);
  same.push_back(fresh.storage());
  return fresh;
}

void BufferPool::releaseEscaped() {
  for (auto it = bySize_.begin(); it != bySize_.end();) {
    std::vector<std::shared_ptr<Storage>>& v = it->second;
    v.erase(std::remove_if(v.begin(), v.end(),
                           [](const std::shared_ptr<Storage>& s) { return s.use_count() != 1; }),
            v.end());
    it = v.empty() ? bySize_.erase(it) : std::next(it);
  }
}

bool BufferPool::onlyHeldBy(const std::shared_ptr<Storage>& storage, long holders) const {
  auto it = bySize_.find(storage->nbytes());
  bool pooled = it != bySize_.end() &&
                std::find(it->second.begin(), it->second.end(), storage) != it->second.end();
  return storage.use_count() == holders + (pooled ? 1 : 0);
}

size_t BufferPool::pooledBuffers() const {
  size_t n = 0;
  for (const auto& [bytes, v] : bySize_) n += v.size();
  return n;
}

}  // namespace stitch
