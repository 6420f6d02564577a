// A program's generated kernels on the GPU (runtime/gpu_device.h): the CUDA
// translation unit (codegen/c_renderer.h renderCuda) compiled by NVRTC for
// the device's architecture and loaded as one module. The caller owns the
// kernels' operands in device memory (runtime/device_values.h).
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
  // `source` is renderCuda(uops, limits). RuntimeFailure without a driver,
  // a GPU or NVRTC. The emulator stands in for the GPU when it is selected
  // (gpuDevice()).
  CudaKernels(const std::vector<KernelUOps>& uops, const std::string& source, const CudaDeviceLimits& limits = {});

  // Launches kernel `name` on device buffers (outputs first, then inputs,
  // as the C kernels' arrays), adding the scratch buffers it needs, and its
  // part after the grid when it has one. Returns the launches made (1 or
  // 2) without waiting for them.
  int launch(const std::string& name, const CudaPointer* bufs, size_t count, const StitchScalar* params,
              size_t paramCount);

  const CubinStats& compileStats() const { return stats_; }
  int64_t launches() const { return launches_; }

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
  int64_t launches_ = 0;
};

}  // namespace stitch
