// A program's generated kernels on the GPU (runtime/gpu_device.h): the CUDA
// translation unit (codegen/c_renderer.h renderCuda) compiled by NVRTC for
// the device's architecture and loaded as one module; each call takes the host buffers
// of the C calling convention (codegen/kernel_abi.h), copies the inputs to
// device memory, launches the kernel (and its part after the grid), and
// copies the outputs back.
//
// Tensors do not stay on the device between kernels yet: every call moves
// its operands both ways and waits for the GPU (one host sync per call).
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "codegen/c_renderer.h"
#include "codegen/kernel_abi.h"
#include "codegen/nvrtc_compiler.h"
#include "runtime/gpu_device.h"

namespace stitch {

class CudaKernels {
 public:
  // `source` is renderCuda(uops). RuntimeFailure without a driver, a GPU or NVRTC.
  // The emulator stands in for the GPU when it is selected (gpuDevice()).
  CudaKernels(const std::vector<KernelUOps>& uops, const std::string& source);

  // Kernel `name` on host buffers: `bytes[i]` bytes at bufs[i], the first
  // `outputs` written by the kernel, the rest read.
  void call(const std::string& name, void* const* bufs, const size_t* bytes, size_t count, size_t outputs,
            const StitchScalar* params, size_t paramCount);

  const CubinStats& compileStats() const { return stats_; }
  int64_t launches() const { return launches_; }
  int64_t hostSyncs() const { return syncs_; }

  // CUDA threads per block of a launch.
  static constexpr int kThreadsPerBlock = 128;

 private:
  struct Entry {
    void* main = nullptr;
    void* after = nullptr;
    CudaLaunch launch;
  };
  GpuDevice& device_;
  CubinStats stats_;
  std::unique_ptr<GpuModule> module_;
  std::unordered_map<std::string, Entry> kernels_;
  int64_t launches_ = 0, syncs_ = 0;
};

}  // namespace stitch
