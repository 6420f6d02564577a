// CUDA source (codegen/c_renderer.h renderCuda) to a cubin for one GPU
// architecture, through NVRTC loaded with dlopen at run time: the project
// builds and runs without CUDA, and NVRTC needs no GPU (tests compile every
// kernel with it on machines without one).
//
// The library is $STITCH_NVRTC when set (a path), else the first of
// libnvrtc.so, libnvrtc.so.13, libnvrtc.so.12 that the dynamic loader
// finds, else /usr/local/cuda/lib64/libnvrtc.so. Cubins are cached on disk
// next to the C kernels (codegen/cache_entry.h) under a key of the source,
// the architecture, the options and NVRTC's version; `<key>.cu` is kept and
// named when NVRTC rejects the source (an internal error: the renderer
// wrote code NVRTC does not take).
#pragma once
#include <string>
#include <vector>

namespace stitch {

// Whether NVRTC can be loaded; `why` says what was tried when not.
bool nvrtcAvailable(std::string* why = nullptr);

// "13.5"; RuntimeFailure when NVRTC cannot be loaded.
std::string nvrtcVersion();

struct CubinStats {
  std::string compiler;  // "nvrtc 13.5"
  bool fromCache = false;
  double ms = 0;  // compile, or read from the cache
};

// The cubin of `source` for sm_<arch> (arch = 10 * major + minor, e.g. 90).
// RuntimeFailure when NVRTC cannot be loaded; InternalError naming the kept .cu
// file when it rejects the source.
std::string compileCuda(const std::string& source, int arch, CubinStats* stats = nullptr);

// The same without the cache, with `extraOptions` after the usual ones
// (tests: "-G" compiles without optimization, 10x faster, for checking
// that every kernel compiles); errors name `sourceName`.
std::string compileCudaUncached(const std::string& source, int arch, const std::vector<std::string>& extraOptions,
                                const std::string& sourceName);

}  // namespace stitch
