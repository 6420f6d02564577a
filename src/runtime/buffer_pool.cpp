#include "runtime/buffer_pool.h"

#include <algorithm>

namespace stitch {

Tensor BufferPool::allocate(const Shape& sizes, DType dtype) {
  // A bad shape gets the same error as any tensor creation.
  if (std::any_of(sizes.begin(), sizes.end(), [](int64_t d) { return d < 0; }))
    return Tensor::uninitialized(sizes, dtype);
  size_t bytes = (size_t)numelOf(sizes) * dtypeSize(dtype);
  std::vector<Tensor>& same = bySize_[bytes];
  for (Tensor& t : same) {
    if (t.storage().use_count() != 1) continue;
    ++reuses_;
    if (t.dtype() != dtype || t.sizes() != sizes) t = Tensor::onStorage(t.storage(), sizes, dtype);
    return t;
  }
  same.push_back(Tensor::uninitialized(sizes, dtype));
  return same.back();
}

void BufferPool::releaseEscaped() {
  for (auto it = bySize_.begin(); it != bySize_.end();) {
    std::vector<Tensor>& v = it->second;
    v.erase(std::remove_if(v.begin(), v.end(), [](const Tensor& t) { return t.storage().use_count() != 1; }),
            v.end());
    it = v.empty() ? bySize_.erase(it) : std::next(it);
  }
}

bool BufferPool::onlyHeldBy(const std::shared_ptr<Storage>& storage, long holders) const {
  auto it = bySize_.find(storage->nbytes());
  bool pooled = it != bySize_.end() && std::any_of(it->second.begin(), it->second.end(), [&](const Tensor& t) {
                  return t.storage() == storage;
                });
  return storage.use_count() == holders + (pooled ? 1 : 0);
}

size_t BufferPool::pooledBuffers() const {
  size_t n = 0;
  for (const auto& [bytes, v] : bySize_) n += v.size();
  return n;
}

}  // namespace stitch
