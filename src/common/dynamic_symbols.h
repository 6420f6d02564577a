// Functions of a library opened with dlopen at run time (NVRTC, the CUDA
// driver): libraries the project builds without and loads only when used.
#pragma once
#include <dlfcn.h>

namespace stitch {

// Sets `fn` to the library's function `name`; false when it has none.
template <typename F>
bool bindSymbol(void* handle, const char* name, F*& fn) {
  fn = reinterpret_cast<F*>(::dlsym(handle, name));
  return fn != nullptr;
}

}  // namespace stitch
