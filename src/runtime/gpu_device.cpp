#include "runtime/gpu_device.h"

#include <cstdlib>
#include <cstring>

#include "runtime/cuda_device.h"
#include "runtime/cuda_emulator.h"

namespace stitch {

GpuDevice& gpuDevice() {
  const char* emulate = std::getenv("STITCH_CUDA_EMULATOR");
  if (emulate && *emulate && std::strcmp(emulate, "0") != 0) return CudaEmulator::get();
  return CudaDevice::get();
}

}  // namespace stitch
