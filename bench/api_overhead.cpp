// The public C++ API's per-call cost: `add_one(x)` (bench/programs/add_one.py)
// on a one-element tensor, called through Program::run (arguments already
// bound, program in hand) and through Function::call (binding, signature
// lookup, run), each the median over batches of calls. Prints one JSON
// object: {"program_run_us": ..., "function_call_us": ...}.
//
//   api_overhead PROGRAM.py [--calls N] [--batches B] [--threads T]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "stitch/stitch.h"

namespace api = stitch::api;

namespace {

template <typename F>
double medianMicroseconds(int batches, int calls, F&& call) {
  std::vector<double> perCall;
  for (int b = 0; b < batches; ++b) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) call();
    std::chrono::duration<double, std::micro> spent = std::chrono::steady_clock::now() - start;
    perCall.push_back(spent.count() / calls);
  }
  std::sort(perCall.begin(), perCall.end());
  return perCall[perCall.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: api_overhead PROGRAM.py [--calls N] [--batches B] [--threads T]\n");
    return 2;
  }
  int calls = 20000, batches = 15, threads = 1;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--calls")) calls = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--batches")) batches = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[i + 1]);
  }
  try {
    api::Function f = api::Module::fromFile(argv[1]).function("add_one");
    api::Options options;
    options.threads = threads;
    api::Tensor x = api::Tensor::empty(api::DType::f32, {1});
    std::vector<api::Value> args = f.bind({x});
    std::shared_ptr<const api::Program> program = f.compile(args, options);
    for (int i = 0; i < 1000; ++i) program->run(args);
    double run = medianMicroseconds(batches, calls, [&] { program->run(args); });
    double call = medianMicroseconds(batches, calls, [&] { f.call({x}, {}, options); });
    std::printf("{\"program_run_us\": %.3f, \"function_call_us\": %.3f}\n", run, call);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
