// Functions of a library opened with dlopen at run time (NVRTC, the CUDA
// driver): libraries the project builds without and loads only when used.
#pragma once
#include <dlfcn.h>

#include <cstdlib>
#include <initializer_list>
#include <string>

namespace stitch {

// The library at $`env` when that is set, else the first of `names` that
// opens (RTLD_LOCAL); nullptr when none does. `opened`: its name; `tried`:
// the names that did not open, comma-separated.
inline void* openFirstLibrary(const char* env, std::initializer_list<const char*> names, std::string* opened,
                              std::string* tried) {
  auto attempt = [&](const char* name) -> void* {
    void* handle = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle && opened) *opened = name;
    if (!handle && tried) *tried += (tried->empty() ? "" : ", ") + std::string(name);
    return handle;
  };
  if (const char* path = std::getenv(env); path && *path)
    if (void* handle = attempt(path)) return handle;
  for (const char* name : names)
    if (void* handle = attempt(name)) return handle;
  return nullptr;
}

// Sets `fn` to the library's function `name`; false when it has none.
template <typename F>
bool bindSymbol(void* handle, const char* name, F*& fn) {
  fn = reinterpret_cast<F*>(::dlsym(handle, name));
  return fn != nullptr;
}

}  // namespace stitch
