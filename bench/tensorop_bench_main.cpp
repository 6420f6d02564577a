// Benchmarks of the tensor operation backend next to oneDNN, OpenBLAS and
// LIBXSMM. Names: <group>/<implementation>/<case>/t<threads>; the report
// script (tensorop_report.py) turns the JSON output into one table.
//
//   tensorop_bench [--no-sweep] [--reps N] [google-benchmark flags]
#include <cstring>
#include <string>
#include <vector>

#include "bench_util.h"

int main(int argc, char** argv) {
  int repetitions = 5;
  bool sweep = true;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-sweep") == 0)
      sweep = false;
    else if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      repetitions = std::stoi(argv[++i]);
    else
      rest.push_back(argv[i]);
  }
  int n = int(rest.size());
  benchmark::Initialize(&n, rest.data());
  stitch::bench::registerKernelBenchmarks(repetitions, sweep);
  stitch::bench::registerOperationBenchmarks(repetitions);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
