#include "tensorop/jit_cache.h"

#include <xbyak/xbyak.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>

namespace stitch::tensorop {
namespace {

struct Cache {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<Xbyak::CodeGenerator>> kernels;
};

Cache& cache() {
  static Cache c;
  return c;
}

void dumpKernel(const std::string& key, const Xbyak::CodeGenerator& gen) {
  const char* flag = std::getenv("STITCH_JIT_DUMP");
  if (!flag || std::string(flag) != "1") return;
  const char* dir = std::getenv("STITCH_JIT_DUMP_DIR");
  std::string path = (dir && *dir ? std::string(dir) + "/" : std::string()) +
                     "stitch_jit_" + key + ".bin";
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(gen.getCode()), gen.getSize());
}

}  // namespace

const void* jitKernel(const std::string& key, const GeneratorFactory& make) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.kernels.find(key);
  if (it != c.kernels.end()) return it->second->getCode();
  std::unique_ptr<Xbyak::CodeGenerator> gen = make();
  dumpKernel(key, *gen);
  const void* code = gen->getCode();
  c.kernels.emplace(key, std::move(gen));
  return code;
}

size_t jitKernelCount() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.kernels.size();
}

}  // namespace stitch::tensorop
