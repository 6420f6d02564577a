// Cache and compiler behaviour seen from fresh processes: the test binary
// re-executes itself with STITCH_CODEGEN_TEST_CHILD set, and that child runs
// one load (below, before gtest starts) and reports on stdout.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

#include "codegen/c_compiler.h"
#include "codegen/c_renderer.h"
#include "codegen/kernel_cache.h"
#include "codegen_test_util.h"
#include "kernel_builder.h"

namespace stitch {
namespace {

using namespace codegentest;

// out[i] = a[i] * b[i] over n f32 elements, 64 elements per grid block.
KernelUOps elementwiseMul(int64_t n) {
  KernelBuilder b("mul_f32");
  int out = b.global(0, DType::f32, true);
  int x = b.global(1, DType::f32, false);
  int y = b.global(2, DType::f32, false);
  int g = b.special("gidx0", (n + 63) / 64);
  int start = b.alu(AluOp::Mul, DType::i64, {g, b.i64(64)});
  int end = b.alu(AluOp::Min, DType::i64, {b.alu(AluOp::Add, DType::i64, {start, b.i64(64)}), b.i64(n)});
  int i = b.loop(start, end);
  b.store(out, i, b.alu(AluOp::Mul, DType::f32, {b.load(x, i), b.load(y, i)}));
  b.endLoop(i);
  return b.kernel();
}

// The child: "source:PATH" loads that file; "render" compiles and runs a
// rendered kernel. Prints "OUTCOME|COMPILER|REBUILT|RESULT".
int runChild(const std::string& mode) {
  try {
    CompileStats stats;
    std::string result = "-";
    if (mode.rfind("source:", 0) == 0) {
      loadCompiled(readFile(mode.substr(7)), &stats);
    } else {
      const int64_t n = 1000;
      auto lib = loadCompiled(renderC({elementwiseMul(n)}), &stats);
      std::vector<float> a(n), b(n), out(n, -1.f);
      std::uniform_real_distribution<float> dist(-5, 5);
      for (int64_t k = 0; k < n; ++k) a[k] = dist(rng()), b[k] = dist(rng());
      void* bufs[] = {out.data(), a.data(), b.data()};
      lib->function("mul_f32")(bufs, nullptr, 3);
      result = "ok";
      for (int64_t k = 0; k < n; ++k)
        if (out[k] != a[k] * b[k]) result = "wrong";
    }
    std::printf("%s|%s|%d|%s\n", cacheOutcomeName(stats.outcome), stats.compiler.c_str(),
                (int)stats.rebuiltBadEntry, result.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::printf("error|%s\n", e.what());
    return 3;
  }
}

struct ChildHook {
  ChildHook() {
    if (const char* mode = std::getenv("STITCH_CODEGEN_TEST_CHILD")) {
      int code = runChild(mode);
      std::fflush(stdout);
      ::_exit(code);
    }
  }
} childHook;

std::string runSelf(const std::string& mode) {
  ScopedEnv child("STITCH_CODEGEN_TEST_CHILD", mode);
  CompilerRun run = runProgram({"/proc/self/exe"});
  EXPECT_EQ(run.exitCode, 0) << run.output;
  while (!run.output.empty() && run.output.back() == '\n') run.output.pop_back();
  return run.output;
}

TEST(ExecChild, FreshProcessesCompileOnceThenLoadFromDisk) {
  FreshCacheDir cache;
  std::string path = cache.path() + "/program.c";
  writeFile(path, std::string(kKernelAbiC) + "int salt_" + std::to_string(rng()() % 1000000) + "(void) { return 1; }\n");
  const std::string compiler = hostCCompiler().name;
  EXPECT_EQ(runSelf("source:" + path), "compiled|" + compiler + "|0|-");
  EXPECT_EQ(runSelf("source:" + path), "disk|" + compiler + "|0|-");
  EXPECT_EQ(runSelf("source:" + path), "disk|" + compiler + "|0|-");
}

TEST(ExecChild, RenderedKernelRunsInAFreshProcess) {
  FreshCacheDir cache;
  std::string first = runSelf("render"), second = runSelf("render");
  EXPECT_EQ(first, "compiled|" + hostCCompiler().name + "|0|ok");
  EXPECT_EQ(second, "disk|" + hostCCompiler().name + "|0|ok");
}

// $STITCH_CC picks the compiler; gcc builds the same code, and gets its
// own cache entries (the compiler is part of the key).
TEST(ExecChild, GccBuildsRenderedKernels) {
  if (!std::filesystem::exists("/usr/bin/gcc")) GTEST_SKIP() << "no /usr/bin/gcc";
  FreshCacheDir cache;
  ScopedEnv cc("STITCH_CC", "/usr/bin/gcc");
  std::string out = runSelf("render");
  EXPECT_EQ(out.rfind("compiled|gcc ", 0), 0u) << out;
  EXPECT_EQ(out.substr(out.size() - 5), "|0|ok") << out;
}

TEST(ExecChild, MissingCompilerIsReported) {
  FreshCacheDir cache;
  ScopedEnv cc("STITCH_CC", "/nonexistent/cc");
  ScopedEnv child("STITCH_CODEGEN_TEST_CHILD", "render");
  CompilerRun run = runProgram({"/proc/self/exe"});
  EXPECT_EQ(run.exitCode, 3);
  EXPECT_NE(run.output.find("no C compiler found"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace stitch
