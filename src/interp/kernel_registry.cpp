#include "interp/kernel_registry.h"

namespace stitch {

KernelRegistry& KernelRegistry::get() {
  static KernelRegistry registry;
  return registry;
}

KernelRegistry::KernelRegistry() {
  registerPrimKernels(*this);
  registerCreationKernels(*this);
  registerElementwiseKernels(*this);
  registerInPlaceKernels(*this);
  registerViewKernels(*this);
  registerCopyKernels(*this);
  registerSelectionKernels(*this);
  registerReductionKernels(*this);
  registerContractionKernels(*this);
}

void KernelRegistry::add(const std::string& op, Kernel k) {
  STITCH_ASSERT(!kernels_.count(op), "kernel for '", op, "' registered twice");
  kernels_[op] = std::move(k);
}

const Kernel* KernelRegistry::find(const std::string& op) const {
  auto it = kernels_.find(op);
  return it == kernels_.end() ? nullptr : &it->second;
}

std::vector<std::string> KernelRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, k] : kernels_) out.push_back(name);
  return out;
}

}  // namespace stitch
