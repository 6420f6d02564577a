#include "runtime/cuda_emulator.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <numeric>
#include <vector>

#include "codegen/c_renderer.h"
#include "codegen/kernel_abi.h"
#include "codegen/kernel_cache.h"
#include "common/error.h"

namespace stitch {

namespace {

using EmulatedKernel = void (*)(CudaKernelArgs);  // stitch_args by value
using SetThread = void (*)(unsigned, unsigned, unsigned);

// A kernel handle: the kernel and the setter of its library's thread indices.
struct EmulatedKernelHandle {
  EmulatedKernel kernel;
  SetThread setThread;
};

class EmulatedModule final : public GpuModule {
 public:
  explicit EmulatedModule(std::shared_ptr<const LoadedLibrary> library) : library_(std::move(library)) {}
  void* function(const std::string& name) const override {
    auto [it, added] = handles_.try_emplace(name);
    if (added) {
      it->second.kernel = reinterpret_cast<EmulatedKernel>(library_->function(name));
      it->second.setThread = reinterpret_cast<SetThread>(library_->function("stitch_emulate_thread"));
    }
    return &it->second;
  }

 private:
  std::shared_ptr<const LoadedLibrary> library_;
  mutable std::map<std::string, EmulatedKernelHandle> handles_;  // node-based: handles stay put
};

}  // namespace

CudaEmulator& CudaEmulator::get() {
  static CudaEmulator* emulator = new CudaEmulator();
  return *emulator;
}

CudaPointer CudaEmulator::allocate(size_t bytes) {
  bytes = std::max<size_t>(bytes, 1);
  void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0xff, bytes);
  return reinterpret_cast<CudaPointer>(p);
}

void CudaEmulator::release(CudaPointer p) { std::free(reinterpret_cast<void*>(p)); }

void CudaEmulator::copyToDevice(CudaPointer dst, const void* src, size_t bytes) {
  if (bytes) std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
}

void CudaEmulator::copyToHost(void* dst, CudaPointer src, size_t bytes) {
  if (bytes) std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
}

std::unique_ptr<GpuModule> CudaEmulator::load(const std::string& cudaSource, CubinStats* stats) {
  CompileStats compiled;
  auto module = std::make_unique<EmulatedModule>(loadCompiled(cudaSource, &compiled));
  if (stats) {
    stats->compiler = compiled.compiler + " (CUDA emulator)";
    stats->fromCache = compiled.outcome != CacheOutcome::Compiled;
    stats->ms = compiled.ms;
  }
  return module;
}

void CudaEmulator::launch(void* function, int64_t blocks, int threads, const void* arg, size_t bytes) {
  STITCH_ASSERT(bytes == sizeof(CudaKernelArgs) && blocks >= 1 && threads >= 1, "emulated launch of ", blocks,
                " x ", threads, " with a ", bytes, "-byte argument");
  std::lock_guard<std::mutex> lock(launching_);
  const auto* handle = static_cast<const EmulatedKernelHandle*>(function);
  const CudaKernelArgs& args = *static_cast<const CudaKernelArgs*>(arg);
  std::vector<unsigned> order((size_t)threads);
  for (int64_t block = 0; block < blocks; ++block) {
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), order_);
    for (unsigned thread : order) {
      handle->setThread((unsigned)block, thread, (unsigned)threads);
      handle->kernel(args);
    }
  }
}

}  // namespace stitch
