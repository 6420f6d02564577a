// `stitch einsum EXPR --size a=32 ... [--bench N] [--threads N] [--json]`:
// compiles an einsum expression to tensor operations, runs it on random
// inputs and reports time and GFLOPS.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <new>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"
#include "stitch/aligned_buffer.h"
#include "stitch/tensorop.h"

namespace stitch::cli {
namespace {

namespace to = stitch::tensorop;

const char* kUsage =
    "usage: stitch einsum EXPR --size DIM=N [--size DIM=N ...] [--bench N]\n"
    "                     [--threads N] [--seed S] [--isa avx512|avx2|reference] [--json]\n"
    "\n"
    "Runs an einsum expression on random inputs (uniform in [-1, 1)) with the\n"
    "JIT tensor operation backend and reports its time and GFLOPS.\n"
    "\n"
    "EXPR is a standard einsum string with two or more operands, e.g.\n"
    "  'acfd,bcef->abed'            (last letter of an operand is contiguous)\n"
    "or an einsum tree, e.g.\n"
    "  '[[8,4],[7,3,8]->[7,3,4]]'   (dimension ids, innermost last)\n"
    "\n"
    "  --size DIM=N[,DIM=N...]  extent of a dimension (every dimension needs one)\n"
    "  --bench N                timed runs after one warm-up run (default 1)\n"
    "  --threads N              OpenMP threads (default 1)\n"
    "  --seed S                 seed of the random inputs (default 1)\n"
    "  --isa NAME               force an instruction set (default: CPUID)\n"
    "  --json                   print one JSON object: time_ms {median, min},\n"
    "                           flops (per run), gflops (from the median), ...\n"
    "\n"
    "Exit codes: 0 ok, 1 run-time failure, 2 bad arguments or expression.\n";

struct UsageError {
  std::string message;
};

int64_t parseCount(const std::string& text, const std::string& what, int64_t lo, int64_t hi) {
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (...) {
    used = 0;
  }
  if (used == 0 || used != text.size())
    throw UsageError{what + " expects an integer, got '" + text + "'"};
  if (v < lo || v > hi)
    throw UsageError{what + " must be between " + std::to_string(lo) + " and " +
                     std::to_string(hi) + ", got " + text};
  return v;
}

struct Options {
  std::string expression;
  std::map<std::string, int64_t> sizes;
  int64_t bench = 1;
  int64_t threads = 1;
  uint32_t seed = 1;
  to::Isa isa = to::Isa::automatic;
  bool json = false;
  bool help = false;
};

void parseSizes(const std::string& spec, std::map<std::string, int64_t>& sizes) {
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError{"--size expects DIM=N, got '" + item + "'"};
    const std::string name = item.substr(0, eq);
    sizes[name] = parseCount(item.substr(eq + 1), "--size " + name, 1, int64_t(1) << 40);
  }
}

Options parseArgs(const std::vector<std::string>& args) {
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError{a + " needs a value"};
      return args[++i];
    };
    if (a == "--help" || a == "-h") {
      o.help = true;
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--size") {
      parseSizes(value(), o.sizes);
    } else if (a.rfind("--size=", 0) == 0) {
      parseSizes(a.substr(7), o.sizes);
    } else if (a == "--bench") {
      o.bench = parseCount(value(), "--bench", 1, 1000000);
    } else if (a == "--threads") {
      o.threads = parseCount(value(), "--threads", 1, 4096);
    } else if (a == "--seed") {
      o.seed = uint32_t(parseCount(value(), "--seed", 0, 4294967295LL));
    } else if (a == "--isa") {
      const std::string& v = value();
      if (v == "avx512") o.isa = to::Isa::avx512;
      else if (v == "avx2") o.isa = to::Isa::avx2;
      else if (v == "reference") o.isa = to::Isa::reference;
      else throw UsageError{"--isa expects avx512, avx2 or reference, got '" + v + "'"};
    } else if (a.size() > 1 && a[0] == '-' && a[1] == '-') {
      throw UsageError{"unknown option '" + a + "'"};
    } else if (o.expression.empty()) {
      o.expression = a;
    } else {
      throw UsageError{"unexpected argument '" + a + "' (only one expression)"};
    }
  }
  if (!o.help && o.expression.empty()) throw UsageError{"missing einsum expression (see --help)"};
  return o;
}

std::string jsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out;
}

int run(const Options& o) {
  omp_set_num_threads(int(o.threads));
  to::EinsumTree tree(o.expression, o.sizes, int(o.threads), o.isa);

  std::mt19937 gen(o.seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<AlignedFloats> inputs(tree.numInputs());
  std::vector<const float*> ptrs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    int64_t n = 1;
    for (int64_t s : tree.inputShape(i)) n *= s;
    inputs[i].resize(size_t(n));
    for (float& x : inputs[i]) x = dist(gen);
    ptrs.push_back(inputs[i].data());
  }
  int64_t outN = 1;
  for (int64_t s : tree.outputShape()) outN *= s;
  AlignedFloats output(static_cast<size_t>(outN));

  tree.execute(ptrs, output.data());  // warm-up: page faults, caches
  std::vector<double> ms;
  for (int64_t r = 0; r < o.bench; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    tree.execute(ptrs, output.data());
    auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  const double median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  const double minimum = sorted.front();
  const double gflops = median > 0 ? tree.flops() / (median * 1e6) : 0.0;
  double checksum = 0;
  for (float x : output) checksum += x;

  const char* isa = to::toString(o.isa == to::Isa::automatic ? to::detectIsa() : o.isa);
  if (o.json) {
    std::printf("{\"expression\": \"%s\", \"tree\": \"%s\", \"sizes\": {",
                jsonEscape(o.expression).c_str(), jsonEscape(tree.treeString()).c_str());
    bool first = true;
    for (const auto& [k, v] : o.sizes) {
      std::printf("%s\"%s\": %lld", first ? "" : ", ", jsonEscape(k).c_str(), (long long)v);
      first = false;
    }
    std::printf("}, \"plan\": [");
    const auto plan = tree.plan();
    for (size_t i = 0; i < plan.size(); ++i)
      std::printf("%s\"%s\"", i ? ", " : "", jsonEscape(plan[i]).c_str());
    std::printf("], \"threads\": %lld, \"isa\": \"%s\", \"operations\": %zu, \"runs\": %lld, "
                "\"time_ms\": {\"median\": %.6f, \"min\": %.6f}, \"flops\": %.0f, "
                "\"gflops\": %.3f, \"checksum\": %.6g}\n",
                (long long)o.threads, isa, tree.numOperations(), (long long)o.bench, median,
                minimum, tree.flops(), gflops, checksum);
  } else {
    std::printf("einsum %s\n  tree %s\n  %zu tensor operation(s), isa %s, %lld thread(s)\n"
                "  time median %.3f ms, min %.3f ms over %lld run(s)\n"
                "  %.3g flop per run, %.2f GFLOPS\n",
                o.expression.c_str(), tree.treeString().c_str(), tree.numOperations(), isa,
                (long long)o.threads, median, minimum, (long long)o.bench, tree.flops(), gflops);
  }
  return 0;
}

}  // namespace

int einsumCommand(const std::vector<std::string>& args) {
  Options options;
  try {
    options = parseArgs(args);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "stitch: error: %s\n", e.message.c_str());
    return 2;
  }
  if (options.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  try {
    return run(options);
  } catch (const to::Error& e) {
    std::fprintf(stderr, "stitch: error: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "stitch: error: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stitch: error: %s\n", e.what());
    return 1;
  }
}

}  // namespace stitch::cli
