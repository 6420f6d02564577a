// What the runtime's CUDA path (runtime/cuda_kernels.h) runs kernels on:
// the first CUDA GPU through the driver API (runtime/cuda_device.h), or,
// with STITCH_CUDA_EMULATOR=1 in the environment, the CUDA emulator
// (runtime/cuda_emulator.h), which runs the same CUDA translation unit on
// the host CPU. The emulator is how the CUDA renderer's output, its launch
// geometry and the runtime's device path are tested on machines without a
// GPU (CI).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

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

class GpuDevice {
 public:
  virtual ~GpuDevice() = default;
  virtual std::string name() const = 0;  // "NVIDIA H200 (sm_90)"
  virtual int arch() const = 0;          // 10 * major + minor

  // At least `bytes` of device memory (never null: 1 byte for 0).
  virtual CudaPointer allocate(size_t bytes) = 0;
  virtual void release(CudaPointer p) = 0;
  virtual void copyToDevice(CudaPointer dst, const void* src, size_t bytes) = 0;
  // Waits for the kernels launched before it.
  virtual void copyToHost(void* dst, CudaPointer src, size_t bytes) = 0;
  // Queued after the kernels launched before it; the host does not wait.
  virtual void copyOnDevice(CudaPointer dst, CudaPointer src, size_t bytes) = 0;

  // Compiles (or finds in the kernel cache) and loads renderCuda's output.
  virtual std::unique_ptr<GpuModule> load(const std::string& cudaSource, CubinStats* stats) = 0;
  // Launches `function` on `blocks` blocks of `threads` threads, its one
  // argument passed by value (`bytes` at `arg`). `barriers`: the kernel's
  // threads wait for each other (__syncthreads), which the emulator must
  // know before it starts them.
  virtual void launch(void* function, int64_t blocks, int threads, bool barriers, const void* arg, size_t bytes) = 0;
  // Matrix products on this device (runtime/gpu_blas.h); nullptr when the
  // device has no BLAS (contractions then run on the host).
  virtual GpuBlas* blas() = 0;
};

// Kernel `kernel` of the runtime's predefined CUDA text named `module`
// (source() makes it), compiled and loaded once per device.
void* predefinedKernel(GpuDevice& device, const char* module, std::string (*source)(), const char* kernel);

// The emulator when STITCH_CUDA_EMULATOR is set (not "0"), else the GPU;
// RuntimeFailure with one line that suggests --device cpu when there is no
// CUDA driver or no GPU.
GpuDevice& gpuDevice();

}  // namespace stitch
