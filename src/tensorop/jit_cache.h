// Generated kernels live here, keyed by their descriptor, for the life of the
// process: a TensorOperation set up twice with the same shapes reuses code.
#pragma once
#include <functional>
#include <memory>
#include <string>

namespace Xbyak {
class CodeGenerator;
}

namespace stitch::tensorop {

using GeneratorFactory = std::function<std::unique_ptr<Xbyak::CodeGenerator>()>;

// Returns the entry point of the kernel named `key`, generating it with
// `make` on first use. Thread-safe. With STITCH_JIT_DUMP=1 each new kernel's
// bytes are written to `stitch_jit_<key>.bin` (in STITCH_JIT_DUMP_DIR if set)
// for `objdump -D -b binary -m i386:x86-64`.
const void* jitKernel(const std::string& key, const GeneratorFactory& make);

// Number of kernels generated so far (tests check caching with it).
size_t jitKernelCount();

}  // namespace stitch::tensorop
