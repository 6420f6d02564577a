// What the runtime's CUDA path (runtime/cuda_kernels.h) runs kernels on:
// the first CUDA GPU through the driver API (runtime/cuda_device.h), or,
// with STITCH_CUDA_EMULATOR=1 in the environment, the CUDA emulator
// (runtime/cuda_emulator.h), which runs the same CUDA translation unit on
// the host CPU. The emulator is how the CUDA renderer's output, its launch
// geometry and the runtime's device path are tested on machines without a
// GPU (CI).
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "codegen/nvrtc_compiler.h"

namespace stitch {

using CudaPointer = uint64_t;  // a device address (CUdeviceptr)
class GpuBlas;

// A loaded CUDA translation unit.
class GpuModule {
 public:
  virtual ~GpuModule() = default;
  // The kernel's handle; InternalError when the module has no such kernel.
  virtual void* function(const std::string& name) const = 0;
};

class GraphMemory;

// A launch's geometry: `blocks` blocks of `threads` threads, each block
// with `dynamicShared` bytes of dynamic shared memory. `barriers`: the
// kernel's threads wait for each other (__syncthreads), which the emulator
// must know before it starts them.
struct GpuLaunchShape {
  int64_t blocks = 1;
  int threads = 1;
  bool barriers = false;
  int64_t dynamicShared = 0;
};

// Device work recorded between GpuDevice::beginCapture and endCapture (a
// CUDA graph): launched whole, in one call, as often as wanted. It holds
// the memory the recorded work used (GraphMemory), so the addresses baked
// into it stay its own.
class GpuGraph {
 public:
  virtual ~GpuGraph() = default;
  // Queued after the work launched before it, like a kernel.
  virtual void launch() = 0;

 private:
  friend class GpuDevice;
  std::shared_ptr<GraphMemory> memory_;
};

class GpuDevice {
 public:
  virtual ~GpuDevice() = default;
  virtual std::string name() const = 0;  // "NVIDIA H200 (sm_90)"
  virtual int arch() const = 0;          // 10 * major + minor

  // At least `bytes` of device memory (never null: 1 byte for 0). While
  // the calling thread captures, from the graph's own memory: blocks
  // released during the capture are handed out again within it (the
  // recorded work runs in order, as it would have) unless `fresh` (a block
  // written before each launch of the graph, which no recorded work may
  // have used earlier), and none leaves it.
  CudaPointer allocate(size_t bytes, bool fresh = false);
  void release(CudaPointer p);
  virtual void copyToDevice(CudaPointer dst, const void* src, size_t bytes) = 0;
  // Waits for the kernels launched before it.
  virtual void copyToHost(void* dst, CudaPointer src, size_t bytes) = 0;
  // Queued after the kernels launched before it; the host does not wait.
  virtual void copyOnDevice(CudaPointer dst, CudaPointer src, size_t bytes) = 0;

  // Capture: from beginCapture to endCapture, the kernels the calling
  // thread launches, its device-to-device copies and its BLAS calls are
  // recorded, not run, and its memory comes from the graph's (allocate).
  // A host transfer (copyToDevice, copyToHost) during a capture is an
  // internal error: the work it would wait for has not run. One capture
  // at a time per device. endCapture gives the recorded work, or nullptr
  // when the device could not record it; either way the capture is over.
  void beginCapture();
  std::unique_ptr<GpuGraph> endCapture();
  // Whether the calling thread is capturing.
  bool capturing() const { return capturer_.load() == std::this_thread::get_id(); }
  // Whether this device records graphs at all (a driver too old does not).
  virtual bool canCapture() const = 0;

  // Compiles (or finds in the kernel cache) and loads renderCuda's output.
  virtual std::unique_ptr<GpuModule> load(const std::string& cudaSource, CubinStats* stats) = 0;
  // Launches `function` in `shape`, its one argument passed by value
  // (`bytes` at `arg`).
  virtual void launch(void* function, const GpuLaunchShape& shape, const void* arg, size_t bytes) = 0;
  // Shared memory a block may use, static and dynamic together: the
  // device's opt-in limit (227 KiB on an H100 or H200).
  virtual int64_t sharedMemoryPerBlock() const = 0;
  // Lets `function`'s launches take `bytes` of dynamic shared memory per
  // block (more than 48 KiB needs the device's consent, once per function).
  virtual void allowDynamicShared(void* function, int64_t bytes) = 0;
  // Matrix products on this device (runtime/gpu_blas.h); nullptr when the
  // device has no BLAS (contractions then run on the host).
  virtual GpuBlas* blas() = 0;

 protected:
  // The device's own memory (allocate and release outside a capture).
  virtual CudaPointer allocateMemory(size_t bytes) = 0;
  virtual void releaseMemory(CudaPointer p) = 0;
  // Starts and ends recording the calling thread's work.
  virtual void startCapture() = 0;
  virtual std::unique_ptr<GpuGraph> finishCapture() = 0;

 private:
  friend class GraphMemory;
  std::mutex memoryMutex_;
  std::mutex captureMutex_;  // held from beginCapture to endCapture
  std::atomic<std::thread::id> capturer_{};
  std::shared_ptr<GraphMemory> captureMemory_;
  std::unordered_map<CudaPointer, GraphMemory*> graphBlocks_;  // every live graph's blocks
};

// Kernel `kernel` of the runtime's predefined CUDA text named `module`
// (source() makes it), compiled and loaded once per device.
void* predefinedKernel(GpuDevice& device, const char* module, std::string (*source)(), const char* kernel);

// The emulator when STITCH_CUDA_EMULATOR is set (not "0"), else the GPU;
// RuntimeFailure with one line that suggests --device cpu when there is no
// CUDA driver or no GPU.
GpuDevice& gpuDevice();

}  // namespace stitch
