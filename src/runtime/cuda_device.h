// The first CUDA GPU, through the CUDA driver API loaded with dlopen at run
// time (libcuda.so.1): the project builds and runs without CUDA, and only
// `--device cuda` needs a driver and a GPU. Kernels are compiled by NVRTC
// (codegen/nvrtc_compiler.h) for the device's architecture.
//
// Device memory comes from a caching allocator: freed blocks are kept by
// size and handed out again, so a program's steady state allocates nothing
// from the driver (cuMemAlloc synchronizes the device and costs about as
// much as a small kernel).
//
// A capture records the capturing thread's work on a stream of its own
// (created with default flags, so it is ordered with the legacy stream
// that all other work goes to) in relaxed mode (allocating device memory
// during it is allowed); the graph is instantiated once and launched on
// that stream. cuBLAS calls go to that stream during a capture, with a
// workspace of ours (cuBLAS's default pool is not for graphs).
#pragma once
#include <map>
#include <mutex>

#include "runtime/gpu_device.h"

namespace stitch {

class CudaDevice final : public GpuDevice {
 public:
  // The process's device 0, initialized on first use. RuntimeFailure with
  // one line that suggests --device cpu when there is no driver or no GPU.
  static CudaDevice& get();

  std::string name() const override;
  int arch() const override { return arch_; }
  int64_t sharedMemoryPerBlock() const override { return sharedPerBlock_; }
  void allowDynamicShared(void* function, int64_t bytes) override;

  void copyToDevice(CudaPointer dst, const void* src, size_t bytes) override;
  void copyToHost(void* dst, CudaPointer src, size_t bytes) override;
  void copyOnDevice(CudaPointer dst, CudaPointer src, size_t bytes) override;
  std::unique_ptr<GpuModule> load(const std::string& cudaSource, CubinStats* stats) override;
  void launch(void* function, const GpuLaunchShape& shape, const void* arg, size_t bytes) override;
  GpuBlas* blas() override;
  bool canCapture() const override;

  struct Api;

 protected:
  CudaPointer allocateMemory(size_t bytes) override;
  void releaseMemory(CudaPointer p) override;
  void startCapture() override;
  std::unique_ptr<GpuGraph> finishCapture() override;

 private:
  CudaDevice() = default;
  void check(int result, const char* what) const;

  const Api* api_ = nullptr;
  void* context_ = nullptr;
  std::string name_;
  int arch_ = 0;
  int64_t sharedPerBlock_ = 0;
  void* stream_ = nullptr;           // captures and graph launches
  CudaPointer blasWorkspace_ = 0;    // cuBLAS's during captures
  std::mutex mutex_;
  std::map<CudaPointer, size_t> sizes_;      // live and cached blocks: their size
  std::multimap<size_t, CudaPointer> free_;  // cached blocks by size
};

}  // namespace stitch
