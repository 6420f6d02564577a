#include "runtime/writable_arguments.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace stitch {

namespace {

// The bytes a tensor's elements span; empty for a tensor without elements.
std::pair<uintptr_t, uintptr_t> byteSpan(const Tensor& t) {
  if (!t.defined() || t.numel() == 0) return {0, 0};
  uintptr_t base = reinterpret_cast<uintptr_t>(t.rawData());
  intptr_t lo = 0, hi = 0;
  for (int64_t d = 0; d < t.dim(); ++d) {
    intptr_t span = (intptr_t)((t.size(d) - 1) * t.stride(d)) * (intptr_t)dtypeSize(t.dtype());
    (span < 0 ? lo : hi) += span;
  }
  return {base + lo, base + hi + dtypeSize(t.dtype())};
}

void collectTensors(const IValue& v, std::vector<const Tensor*>& out) {
  if (v.isTensor()) out.push_back(&v.toTensor());
  if (v.isList() || v.isTuple())
    for (const IValue& e : v.toList()) collectTensors(e, out);
}

}  // namespace

std::vector<WritableArgument> writableArguments(const IValueList& inputs, const std::vector<bool>& writtenBack) {
  std::vector<WritableArgument> writable;
  if (std::find(writtenBack.begin(), writtenBack.end(), true) == writtenBack.end()) return writable;
  std::vector<const Tensor*> all;
  for (const IValue& v : inputs) collectTensors(v, all);
  for (size_t i = 0; i < inputs.size() && i < writtenBack.size(); ++i) {
    if (!writtenBack[i] || !inputs[i].isTensor()) continue;
    const Tensor& t = inputs[i].toTensor();
    auto [lo, hi] = byteSpan(t);
    if (lo == hi || !t.isContiguous()) continue;
    bool alone = std::none_of(all.begin(), all.end(), [&](const Tensor* o) {
      if (o == &t) return false;
      auto [olo, ohi] = byteSpan(*o);
      return o->sameStorage(t) || (olo < hi && lo < ohi);
    });
    if (alone) writable.push_back({t.storage().get(), t.storage().use_count()});
  }
  return writable;
}

}  // namespace stitch
