#include "runtime/gpu_device.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "common/error.h"
#include "runtime/cuda_device.h"
#include "runtime/cuda_emulator.h"

namespace stitch {

// The memory of one graph: the blocks handed out during its capture, kept
// until the graph goes. Callers hold the device's memoryMutex_.
class GraphMemory {
 public:
  explicit GraphMemory(GpuDevice& device) : device_(device) {}
  ~GraphMemory() {
    std::lock_guard<std::mutex> lock(device_.memoryMutex_);
    for (const auto& [p, bytes] : blocks_) {
      device_.graphBlocks_.erase(p);
      device_.releaseMemory(p);
    }
  }
  GraphMemory(const GraphMemory&) = delete;
  GraphMemory& operator=(const GraphMemory&) = delete;

  CudaPointer take(size_t bytes, bool fresh) {
    if (auto it = free_.lower_bound(bytes); !fresh && it != free_.end() && it->first <= 2 * bytes) {
      CudaPointer p = it->second;
      free_.erase(it);
      return p;
    }
    CudaPointer p = device_.allocateMemory(bytes);
    blocks_[p] = bytes;
    device_.graphBlocks_[p] = this;
    return p;
  }
  void give(CudaPointer p) { free_.emplace(blocks_.at(p), p); }

 private:
  GpuDevice& device_;
  std::map<CudaPointer, size_t> blocks_;
  std::multimap<size_t, CudaPointer> free_;
};

CudaPointer GpuDevice::allocate(size_t bytes, bool fresh) {
  if (!capturing()) return allocateMemory(bytes);
  std::lock_guard<std::mutex> lock(memoryMutex_);
  return captureMemory_->take(bytes, fresh);
}

void GpuDevice::release(CudaPointer p) {
  {
    std::lock_guard<std::mutex> lock(memoryMutex_);
    if (auto it = graphBlocks_.find(p); it != graphBlocks_.end()) return it->second->give(p);
  }
  releaseMemory(p);
}

void GpuDevice::beginCapture() {
  STITCH_ASSERT(canCapture(), "capturing on a device that records no graphs");
  captureMutex_.lock();
  captureMemory_ = std::make_shared<GraphMemory>(*this);
  capturer_ = std::this_thread::get_id();
  try {
    startCapture();
  } catch (...) {
    capturer_ = std::thread::id();
    captureMemory_.reset();
    captureMutex_.unlock();
    throw;
  }
}

std::unique_ptr<GpuGraph> GpuDevice::endCapture() {
  STITCH_ASSERT(capturing(), "endCapture without a capture on this thread");
  std::unique_ptr<GpuGraph> graph;
  try {
    graph = finishCapture();
  } catch (...) {
    capturer_ = std::thread::id();
    captureMemory_.reset();
    captureMutex_.unlock();
    throw;
  }
  capturer_ = std::thread::id();
  if (graph) graph->memory_ = std::move(captureMemory_);
  captureMemory_.reset();  // no graph: its memory goes now
  captureMutex_.unlock();
  return graph;
}

void* predefinedKernel(GpuDevice& device, const char* module, std::string (*source)(), const char* kernel) {
  static std::mutex mutex;
  static std::map<std::pair<GpuDevice*, std::string>, std::unique_ptr<GpuModule>> modules;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<GpuModule>& loaded = modules[{&device, module}];
  if (!loaded) loaded = device.load(source(), nullptr);
  return loaded->function(kernel);
}

GpuDevice& gpuDevice() {
  const char* emulate = std::getenv("STITCH_CUDA_EMULATOR");
  if (emulate && *emulate && std::strcmp(emulate, "0") != 0) return CudaEmulator::get();
  return CudaDevice::get();
}

}  // namespace stitch
