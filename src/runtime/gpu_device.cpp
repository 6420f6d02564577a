#include "runtime/gpu_device.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "runtime/cuda_device.h"
#include "runtime/cuda_emulator.h"

namespace stitch {

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
