// TensorOperation and einsum benchmarks: the seed's three configurations,
// its contraction, large GEMMs, the (64,25,64,25,64,25) contraction and
// einsum trees, next to oneDNN / OpenBLAS GEMMs of the same flop count.
#include <omp.h>

#include <map>
#include <string>

#include "bench_util.h"
#include "peers.h"
#include "stitch/tensorop.h"

namespace stitch::bench {
namespace {

namespace to = stitch::tensorop;

// The seed's benchmark configurations 1-3 (dims M, N, K, M, N, K =
// 32, 32, 8, 32, 32, 32): GEMM, BRGEMM, BRGEMM + zero/relu.
void seedConfig(benchmark::State& state, int which) {
  using D = to::dim_t;
  using E = to::exec_t;
  omp_set_num_threads(1);
  const std::vector<E> execs = which == 1
                                   ? std::vector<E>{E::seq, E::seq, E::seq, E::prim, E::prim, E::prim}
                                   : std::vector<E>{E::seq, E::seq, E::prim, E::prim, E::prim, E::prim};
  to::TensorOperation op;
  op.setup(to::dtype_t::fp32, which == 3 ? to::ptype_t::zero : to::ptype_t::none,
           which == 1 ? to::ptype_t::gemm : to::ptype_t::brgemm,
           which == 3 ? to::ptype_t::relu : to::ptype_t::none,
           {D::m, D::n, D::k, D::m, D::n, D::k}, execs, {32, 32, 8, 32, 32, 32},
           {8192, 0, 1024, 1, 0, 32}, {0, 8192, 1024, 0, 32, 1}, {32768, 1024, 0, 1, 32, 0});
  auto a = randomBuffer(32 * 8192), b = randomBuffer(32 * 8192, 2);
  AlignedFloats c(32 * 32768, 0.0f);
  for (auto _ : state) {
    op.execute(a.data(), b.data(), c.data());
    benchmark::ClobberMemory();
  }
  setFlops(state, 2.0 * 32 * 32 * 8 * 32 * 32 * 32);
}

void einsum(benchmark::State& state, std::string expr, std::map<std::string, int64_t> sizes,
            int threads) {
  omp_set_num_threads(threads);
  to::EinsumTree tree(expr, sizes, threads);
  std::vector<AlignedFloats> inputs;
  std::vector<const float*> ptrs;
  for (size_t i = 0; i < tree.numInputs(); ++i) {
    int64_t n = 1;
    for (int64_t s : tree.inputShape(i)) n *= s;
    inputs.push_back(randomBuffer(size_t(n), unsigned(i + 1)));
    ptrs.push_back(inputs.back().data());
  }
  int64_t n = 1;
  for (int64_t s : tree.outputShape()) n *= s;
  AlignedFloats out(static_cast<size_t>(n));
  for (auto _ : state) {
    tree.execute(ptrs, out.data());
    benchmark::ClobberMemory();
  }
  setFlops(state, tree.flops());
}

void blasGemm(benchmark::State& state, int64_t m, int64_t n, int64_t k, bool dnnl, int threads) {
  omp_set_num_threads(threads);
  auto a = randomBuffer(size_t(m * k)), b = randomBuffer(size_t(k * n), 2);
  AlignedFloats c(size_t(m * n), 0.0f);
  for (auto _ : state) {
    if (dnnl)
      dnnlSgemm(m, n, k, a.data(), b.data(), c.data());
    else
      openblasSgemm(m, n, k, a.data(), b.data(), c.data(), threads);
    benchmark::ClobberMemory();
  }
  setFlops(state, 2.0 * m * n * k);
}

}  // namespace

void registerOperationBenchmarks(int repetitions) {
  // One thread: CPU time, which other processes' load does not inflate.
  // Two threads: wall time, the only time that shows the speed-up.
  auto reg = [&](const std::string& name, auto fn, auto... args) {
    auto* b = benchmark::RegisterBenchmark(name.c_str(), fn, args...)
                  ->Repetitions(repetitions)
                  ->Unit(benchmark::kMillisecond);
    if (name.ends_with("/t2")) b->UseRealTime();
  };
  for (int which : {1, 2, 3})
    reg("tensorop/stitch/seed-config" + std::to_string(which) + "/t1", seedConfig, which);

  const std::map<std::string, int64_t> seedSizes{{"a", 32}, {"b", 32}, {"c", 8},
                                                 {"d", 32}, {"e", 32}, {"f", 32}};
  const std::map<std::string, int64_t> bigSizes{{"a", 64}, {"b", 25}, {"c", 64},
                                                {"d", 25}, {"e", 64}, {"f", 25}};
  struct Gemm {
    std::string name;
    int64_t m, n, k;
  };
  for (int t : {1, 2}) {
    const std::string ts = "/t" + std::to_string(t);
    reg("contraction/stitch/seed" + ts, einsum, std::string("acfd,bcef->abed"), seedSizes, t);
    reg("contraction/stitch/64-25-64-25-64-25" + ts, einsum, std::string("acfd,bcef->abed"),
        bigSizes, t);
    for (const Gemm& g : {Gemm{"seed", 1024, 1024, 256}, Gemm{"1024", 1024, 1024, 1024},
                          Gemm{"1600", 1600, 1600, 1600}}) {
      const std::string group = g.name == "seed" ? "contraction" : "gemm";
      if (g.name != "seed")
        reg("gemm/stitch/" + g.name + ts, einsum, std::string("km,nk->nm"),
            std::map<std::string, int64_t>{{"m", g.m}, {"n", g.n}, {"k", g.k}}, t);
      if (haveDnnl()) reg(group + "/onednn/" + g.name + ts, blasGemm, g.m, g.n, g.k, true, t);
      if (haveOpenblas())
        reg(group + "/openblas/" + g.name + ts, blasGemm, g.m, g.n, g.k, false, t);
    }
    reg("einsum/stitch/tree" + ts, einsum, std::string("[[8,4],[7,3,8]->[7,3,4]]"),
        std::map<std::string, int64_t>{{"8", 512}, {"4", 512}, {"7", 16}, {"3", 32}}, t);
    reg("einsum/stitch/chain" + ts, einsum, std::string("ab,bc,cd->ad"),
        std::map<std::string, int64_t>{{"a", 512}, {"b", 512}, {"c", 512}, {"d", 512}}, t);
    reg("einsum/stitch/batched" + ts, einsum, std::string("bij,bjk->bik"),
        std::map<std::string, int64_t>{{"b", 64}, {"i", 128}, {"j", 128}, {"k", 128}}, t);
  }
}

}  // namespace stitch::bench
