// libFuzzer target over the frontend: any byte string is taken as a source
// file and must give, for every function in it, either a graph that passes
// the verifier or a UserError with a location. Anything else — an internal
// error, another exception, a crash, a sanitizer report, a hang — is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/error.h"
#include "frontend/frontend.h"
#include "ir/verifier.h"

namespace {

[[noreturn]] void reject(const char* what, const std::string& detail) {
  std::fprintf(stderr, "parser_fuzzer: %s: %s\n", what, detail.c_str());
  std::abort();
}

// A user error from source must say where: the command prints it as
// FILE:LINE:COL and a user needs the place to fix the program.
void requireLocated(const stitch::UserError& e) {
  if (!e.loc().known()) reject("user error without a location", e.message());
}

void emitAll(const stitch::SourceModule& module) {
  for (const stitch::FunctionSignature& fn : module.functions()) {
    try {
      std::unique_ptr<stitch::Graph> graph = module.emit(fn.name);
      stitch::verifyGraph(*graph);
    } catch (const stitch::UserError& e) {
      requireLocated(e);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string source(reinterpret_cast<const char*>(data), size);
  try {
    emitAll(*stitch::SourceModule::parse(source, "fuzz.py"));
  } catch (const stitch::UserError& e) {
    requireLocated(e);
  } catch (const std::exception& e) {
    reject("unexpected exception", e.what());
  }
  return 0;
}
