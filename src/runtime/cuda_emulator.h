// The CUDA emulator: runs renderCuda's translation unit on the host CPU, so
// that the CUDA path (renderer, launch geometry, the runtime's device
// buffers) is tested where there is no GPU. The same text compiles as C
// through the C kernel cache (its host branch: codegen/c_renderer.cpp
// kCudaHeader); a launch runs the kernel once per emulated thread, the
// blocks in order and each block's threads in a shuffled order that changes
// from launch to launch, so a kernel whose threads depend on each other's
// timing shows it. A kernel whose threads wait at barriers runs each thread
// of a block as a fiber (ucontext): between two barriers the threads run
// one after another in a fresh shuffled order, so a missing barrier
// shows as a thread reading a slot its writer has not reached yet; a
// barrier that some threads of a block never reach is an internal error.
// Device memory is host memory filled with 0xff bytes (NaN floats), so an
// element a kernel should have written and did not shows. A capture
// records each launch, copy and BLAS call as a step that a graph's launch
// replays in order (thread orders shuffled afresh each time).
#pragma once
#include <functional>
#include <mutex>
#include <random>
#include <vector>

#include "runtime/gpu_device.h"

namespace stitch {

class CudaEmulator final : public GpuDevice {
 public:
  static CudaEmulator& get();

  std::string name() const override { return "CUDA emulator (sm_90, host CPU)"; }
  int arch() const override { return 90; }
  void copyToDevice(CudaPointer dst, const void* src, size_t bytes) override;
  void copyToHost(void* dst, CudaPointer src, size_t bytes) override;
  void copyOnDevice(CudaPointer dst, CudaPointer src, size_t bytes) override;
  std::unique_ptr<GpuModule> load(const std::string& cudaSource, CubinStats* stats) override;
  void launch(void* function, const GpuLaunchShape& shape, const void* arg, size_t bytes) override;
  // An H100's or H200's: what the emulated kernels are rendered for.
  int64_t sharedMemoryPerBlock() const override { return kSharedMemoryPerBlock; }
  void allowDynamicShared(void*, int64_t) override {}
  static constexpr int64_t kSharedMemoryPerBlock = 227 * 1024;
  GpuBlas* blas() override;
  bool canCapture() const override { return true; }

 protected:
  CudaPointer allocateMemory(size_t bytes) override;
  void releaseMemory(CudaPointer p) override;
  void startCapture() override;
  std::unique_ptr<GpuGraph> finishCapture() override;

 private:
  class Blas;
  class Graph;
  CudaEmulator();
  ~CudaEmulator() override;
  // While this thread captures, `step` goes into the graph (true);
  // otherwise the caller runs it (false).
  bool record(std::function<void()> step);
  void run(void* function, const GpuLaunchShape& shape, const void* arg);
  void runBlockAsFibers(const void* handle, const void* args, unsigned block, const GpuLaunchShape& shape);
  char* fiberStack(unsigned thread);

  std::vector<char*> stacks_;  // one per emulated thread, mapped on first use
  // Launches take turns: a library's thread indices are its globals, and
  // programs of the same source share the library.
  std::mutex launching_;
  std::mt19937 order_{20261127};
  std::unique_ptr<Blas> blas_;
  std::unique_ptr<Graph> recording_;
};

}  // namespace stitch
