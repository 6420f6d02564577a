// Runtime tests on the CUDA emulator (runtime/cuda_emulator.h).
#pragma once
#include <cstdlib>
#include <string>
#include <vector>

namespace stitch {

// STITCH_CUDA_EMULATOR=1 for the test's scope: gpuDevice() is the emulator.
struct EmulatorEnv {
  EmulatorEnv() { ::setenv("STITCH_CUDA_EMULATOR", "1", 1); }
  ~EmulatorEnv() { ::unsetenv("STITCH_CUDA_EMULATOR"); }
};

// "f32[d0,d1,...]", an input's spec.
inline std::string dims(const std::vector<int64_t>& d) {
  std::string s = "f32[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

}  // namespace stitch
