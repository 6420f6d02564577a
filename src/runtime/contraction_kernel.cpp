#include "runtime/contraction_kernel.h"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <omp.h>
#include <optional>
#include <string>

#include "common/cpu_clones.h"
#include "common/error.h"
#include "runtime/host_products.h"
#include "stitch/aligned_buffer.h"
#include "ugraph/contraction_epilogue.h"

namespace stitch {

namespace {

using Dims = std::vector<int64_t>;
using Form = ContractionKernel::Form;

const Dims* f32Shape(const Value* v) {
  const TypePtr& t = v->type();
  if (!t || !t->isTensor() || !t->fullyKnown() || t->dtype() != DType::f32) return nullptr;
  return &*t->shape();
}

int64_t product(const Dims& d, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= d[i];
  return p;
}

// The product `node` computes on dense row-major operands, if it is one.
std::optional<Form> formOf(const Node& node) {
  if (node.inputs().size() < 2) return std::nullopt;
  const Dims* a = f32Shape(node.input(0));
  const Dims* b = f32Shape(node.input(1));
  if (!a || !b || !f32Shape(node.output()) || a->empty()) return std::nullopt;
  const std::string& op = node.kind();
  Form f;
  if (op == "linear") {
    if (b->size() != 2 || (*b)[1] != a->back()) return std::nullopt;
    f.m = product(*a, 0, a->size() - 1), f.k = a->back(), f.n = (*b)[0], f.transposedB = true;
    const Value* bias = node.inputs().size() > 2 ? node.input(2) : nullptr;
    if (bias && bias->type()->isTensor()) {
      const Dims* bs = f32Shape(bias);
      if (!bs || bs->size() != 1 || (*bs)[0] != f.n) return std::nullopt;
      f.bias = true;
    }
    return f;
  }
  bool matmul = op == "matmul";
  if ((op == "mm" || matmul) && b->size() == 2 && a->back() == (*b)[0] && (a->size() == 2 || (matmul && a->size() > 2))) {
    f.m = product(*a, 0, a->size() - 1), f.k = (*b)[0], f.n = (*b)[1];
    return f;
  }
  if ((op == "bmm" || matmul) && a->size() == 3 && b->size() == 3 && (*a)[0] == (*b)[0] && (*a)[2] == (*b)[1]) {
    f.batch = (*a)[0], f.m = (*a)[1], f.k = (*a)[2], f.n = (*b)[2];
    return f;
  }
  if (matmul && a->size() == 2 && b->size() == 3 && (*a)[1] == (*b)[1]) {  // one A for every B
    f.batch = (*b)[0], f.m = (*a)[0], f.k = (*a)[1], f.n = (*b)[2], f.sharedA = true;
    return f;
  }
  return std::nullopt;
}

// The row-major product C[rows, cols] = A[rows, k] B[k, cols] (B and C
// of row stride n: all of C's columns, or one thread's part of them) in the
// backend's column-major terms: C's columns are the kernel's M (contiguous
// in B and C), C's rows are the kernel's N.
tensorop::TensorOperation tileOperation(const Form& f, int64_t rows, int64_t cols) {
  using tensorop::dim_t;
  std::vector<tensorop::Dimension> dims(3);
  dims[0].type = dim_t::m, dims[0].size = cols;
  dims[0].stride_in0 = 1, dims[0].stride_out = 1;
  dims[1].type = dim_t::n, dims[1].size = rows;
  dims[1].stride_in1 = f.k, dims[1].stride_out = f.n;
  dims[2].type = dim_t::k, dims[2].size = f.k;
  dims[2].stride_in0 = f.n, dims[2].stride_in1 = 1;
  tensorop::OptimizerOptions options;
  // One kernel call per tile (and k block): M = cols whole keeps B's rows
  // (lda = n) unpacked; the threads split the tiles or parts, not the call.
  options.max_m_kernel = cols;
  options.max_n_kernel = rows;
  options.max_kernel_size = std::max<int64_t>({cols, rows, options.max_kernel_size});
  tensorop::TensorOperation op;
  tensorop::setupOptimized(op, tensorop::ptype_t::zero, tensorop::ptype_t::gemm,
                           tensorop::ptype_t::none, dims, options);
  return op;
}

// The same product with B packed into panels of `panel` columns of C (each
// panel [k][panel], back to back): a loop over `panels` of them, `width`
// columns of C each (the last, narrower panel is an operation of its own).
tensorop::TensorOperation panelOperation(const Form& f, int64_t rows, int64_t panel,
                                         int64_t panels, int64_t width) {
  using tensorop::dim_t;
  using tensorop::exec_t;
  std::vector<dim_t> types{dim_t::n, dim_t::k, dim_t::m};
  std::vector<exec_t> execs(3, exec_t::prim);
  std::vector<int64_t> sizes{rows, f.k, width}, in0{0, panel, 1}, in1{f.k, 1, 0}, out{f.n, 0, 1};
  if (panels > 1) {
    types.insert(types.begin(), dim_t::m), execs.insert(execs.begin(), exec_t::seq);
    sizes.insert(sizes.begin(), panels), in0.insert(in0.begin(), panel * f.k);
    in1.insert(in1.begin(), 0), out.insert(out.begin(), panel);
  }
  tensorop::TensorOperation op;
  op.setup(tensorop::dtype_t::fp32, tensorop::ptype_t::zero, tensorop::ptype_t::gemm,
           tensorop::ptype_t::none, types, execs, sizes, in0, in1, out);
  return op;
}

// Rows per tile: tiles of at most kMaxTileRows, their count (times the
// batch) a multiple of the threads where the rows allow, all but the last
// of equal height.
int64_t tileRowsFor(const Form& f, int threads) {
  int64_t tiles = (f.m + ContractionKernel::kMaxTileRows - 1) / ContractionKernel::kMaxTileRows;
  while ((f.batch * tiles) % threads != 0 && tiles < f.m) ++tiles;
  return (f.m + tiles - 1) / tiles;
}

// B(k, j) into panels of `panel` columns: dst[p][kk][q] = B(kk, p * panel + q).
// B is row-major [k, n], or W[n, k] (linear).
void packPanel(const float* b, bool transposed, const Form& f, int64_t panel, int64_t p,
               float* dst) {
  const int64_t j0 = p * panel, width = std::min(panel, f.n - j0);
  if (transposed) {
    // In blocks of k, so the panel rows being written (64 x 64 floats)
    // stay in L1 while each W row is read along them: written whole, each
    // of the panel's lines was evicted between its 16 column writes
    // (linear([8,768], [768,768]), mostly this copy, one thread: 1.80 ->
    // 0.88 ms).
    constexpr int64_t kBlock = 64;
    for (int64_t k0 = 0; k0 < f.k; k0 += kBlock) {
      const int64_t k1 = std::min(f.k, k0 + kBlock);
      for (int64_t q = 0; q < width; ++q) {
        const float* w = b + (j0 + q) * f.k;
        for (int64_t kk = k0; kk < k1; ++kk) dst[kk * panel + q] = w[kk];
      }
    }
  } else {
    for (int64_t kk = 0; kk < f.k; ++kk)
      std::copy(b + kk * f.n + j0, b + kk * f.n + j0 + width, dst + kk * panel);
  }
}

// What follows the product on a finished tile (rows x cols at row stride
// ldc), in place, each step rounded to f32 as the interpreter and the
// group's kernel compute them: linear's own bias, then the epilogue's bias,
// then relu when it is the epilogue's only step (other steps follow in
// compiled code).
STITCH_CPU_CLONES("avx512f", "arch=x86-64-v3", "default")
void finishTile(float* c, int64_t rows, int64_t ldc, int64_t cols, const float* linearBias,
                const float* epilogueBias, bool relu) {
  for (int64_t r = 0; r < rows; ++r) {
    float* row = c + r * ldc;
    if (linearBias)
      for (int64_t j = 0; j < cols; ++j) row[j] += linearBias[j];
    if (epilogueBias)
      for (int64_t j = 0; j < cols; ++j) row[j] += epilogueBias[j];
    if (relu)  // NaN stays NaN
      for (int64_t j = 0; j < cols; ++j) row[j] = row[j] < 0 ? 0.0f : row[j];
  }
}

// The first `count` floats at p (at most kMaxPrefetched), asked into L2
// before a product reads them as A. A was most likely written by the
// kernel before, its parts by other cores; the GEMM reads it one line per
// row every 16 k, so it waits on each burst of misses to another core's
// cache, where the prefetches run back to back (rmsnorm_swiglu_mlp's down
// product, [16,512] @ [512,256] on 2 threads: 23.2 -> 20.4 us inside the
// workload, bench/RESULTS.md).
constexpr int64_t kMaxPrefetched = int64_t(1) << 16;
void prefetchToL2(const float* p, int64_t count) {
  for (int64_t i = 0; i < std::min(count, kMaxPrefetched); i += 16) __builtin_prefetch(p + i, 0, 2);
}

// Chunks of C's columns per thread when the threads share them: a thread
// that other work on its core slows takes fewer (a static split made the
// other wait for it: layernorm_gelu_mlp's product at 5.4 ms against 3.3
// in a noisy minute), and a chunk of a few panels still keeps its packed B
// in L2 for every row tile.
constexpr int64_t kChunksPerThread = 3;

}  // namespace

ContractionKernel::ContractionKernel(Form form, int threads)
    : form_(form), threads_(threads), tileRows_(tileRowsFor(form, threads)) {}

ContractionKernel::PanelRange ContractionKernel::panelsOfChunk(int64_t chunk) const {
  const int64_t first = chunk * chunkPanels_;
  return {first, std::min(chunkPanels_, panels_ - first)};
}

int64_t ContractionKernel::columnsOf(PanelRange range) const {
  return std::min(form_.n, (range.first + range.count) * panel_) - range.first * panel_;
}

std::unique_ptr<ContractionKernel> ContractionKernel::create(const std::vector<const Node*>& nodes, int threads) {
  if (nodes.empty()) return nullptr;
  const Node& node = *nodes[0];
  std::optional<Form> f = formOf(node);
  if (!f || f->batch < 1 || f->m < 1 || f->n < 1 || f->k < 1) return nullptr;
  std::vector<const Value*> operands;
  for (const Value* v : node.inputs())
    if (v->type()->isTensor()) operands.push_back(v);
  std::unique_ptr<ContractionKernel> sibling;
  if (nodes.size() > 1) {
    std::optional<ContractionEpilogue> e =
        contractionEpilogue(&node, std::vector<const Node*>(nodes.begin() + 1, nodes.end()));
    if (!e) return nullptr;
    // The index of `v` in operands, added if the product does not read it.
    auto operandIndex = [&operands](const Value* v) -> int64_t {
      auto at = std::find(operands.begin(), operands.end(), v);
      if (at == operands.end()) at = operands.insert(operands.end(), v);
      return at - operands.begin();
    };
    if (e->bias) f->epilogueBias = operandIndex(e->bias);
    if (e->sibling) {
      sibling = create({e->sibling}, threads);
      if (!sibling) return nullptr;
      for (const Value* v : sibling->operands()) f->siblingOperands.push_back(operandIndex(v));
    }
    f->steps = e->steps;
    for (const Value* v : e->operands)
      f->stepOperands.push_back(e->sibling && v == e->sibling->output() ? kSiblingProduct : operandIndex(v));
  }
  std::unique_ptr<ContractionKernel> kernel(new ContractionKernel(*f, std::max(threads, 1)));
  kernel->operands_ = std::move(operands);
  kernel->sibling_ = std::move(sibling);
  // B in panels when C is wider than one pass of the GEMM kernel and enough
  // rows reuse each panel to pay for the copy: a pass over B in place reads
  // one vector per k at stride n, and for n a multiple of 256 (768, 1024)
  // those lines fall into a few cache sets and pages, so across many row
  // blocks the pass's slice of B keeps missing L1 and the TLB ([512,768] @
  // [768,768] on AVX2, one thread: 59 GFLOPS in place, 82 with n = 784).
  // linear's W must be copied to be read as B at all, so it is always
  // packed (one panel of n columns where n is narrower than a pass), the
  // threads sharing the copy; except for a few rows, which need no copy:
  // each output is then a dot product of an x row and a W row, both
  // contiguous along k (runDots).
  if (f->transposedB && f->batch == 1 && f->m <= kFewRows) {
    kernel->dots_ = true;
    return kernel;
  }
  const int64_t pass = tensorop::gemmPassRows();
  if (f->transposedB || (f->n > pass && f->m >= kMinPackedRows)) {
    kernel->panel_ = std::min(pass, f->n);
    kernel->panels_ = (f->n + kernel->panel_ - 1) / kernel->panel_;
  }
  // With one B the threads share its panels rather than C's row tiles, in
  // chunks of panels, when there are at least two chunks per thread: a
  // thread packs a chunk's panels and reads them back from its own L2 for
  // every row tile, where row tiles would stream the whole packed B through
  // each core once per tile (9.4 MB per thread and call for [512,768] @
  // [768,768] on 2 threads, against a 2 MiB L2). The row tiles then need
  // not come in a multiple of the threads.
  if (kernel->panel_ > 0 && f->batch == 1 && kernel->threads_ > 1) {
    const int64_t chunkPanels = std::max<int64_t>(1, kernel->panels_ / (kChunksPerThread * kernel->threads_));
    const int64_t chunks = (kernel->panels_ + chunkPanels - 1) / chunkPanels;
    if (chunks >= 2 * kernel->threads_) {
      kernel->chunkPanels_ = chunkPanels;
      kernel->chunks_ = chunks;
      kernel->tileRows_ = tileRowsFor(*f, 1);
    }
  }
  // Few row tiles read in place: each thread takes a share of C's columns
  // for every tile, so it reads only its share of B.
  const int64_t tiles = (f->m + kernel->tileRows_ - 1) / kernel->tileRows_;
  if (kernel->panel_ == 0 && f->batch == 1 && kernel->threads_ > 1 && tiles <= kernel->threads_ &&
      f->n >= kernel->threads_ * kMinColumnPart) {
    const int64_t part = ((f->n + kernel->threads_ - 1) / kernel->threads_ + 15) / 16 * 16;
    kernel->columnPart_ = part;
    kernel->columnParts_ = (f->n + part - 1) / part;
  }
  const int64_t rows = kernel->tileRows_;
  try {
    for (const int64_t r : {rows, f->m % rows}) {
      if (r == 0) continue;
      if (kernel->panel_ == 0) {
        if (kernel->columnParts_ > 0) {
          for (const int64_t c : {kernel->columnPart_, f->n - (kernel->columnParts_ - 1) * kernel->columnPart_})
            if (!kernel->products_.count({r, c})) kernel->products_[{r, c}].main = tileOperation(*f, r, c);
          continue;
        }
        kernel->products_[{r, f->n}].main = tileOperation(*f, r, f->n);
        continue;
      }
      // Each distinct run of panels (all of them, or a whole chunk and the
      // last one): its whole ones, then the narrower last.
      const std::vector<PanelRange> runs =
          kernel->sharesColumns()
              ? std::vector<PanelRange>{kernel->panelsOfChunk(0), kernel->panelsOfChunk(kernel->chunks_ - 1)}
              : std::vector<PanelRange>{{0, kernel->panels_}};
      for (const PanelRange& range : runs) {
        const int64_t cols = kernel->columnsOf(range);
        if (kernel->products_.count({r, cols})) continue;
        TileProducts& p = kernel->products_[{r, cols}];
        const int64_t panel = kernel->panel_;
        if (cols >= panel) p.main = panelOperation(*f, r, panel, cols / panel, panel);
        if (cols % panel > 0) p.tail = panelOperation(*f, r, panel, 1, cols % panel);
      }
    }
  } catch (const tensorop::Error&) {
    return nullptr;  // the backend refuses these sizes: the interpreter's routine runs them
  }
  return kernel;
}

bool ContractionKernel::siblingByParts() const {
  return sibling_ && columnParts_ > 0 && sibling_->columnParts_ == columnParts_ &&
         sibling_->columnPart_ == columnPart_ && sibling_->tileRows_ == tileRows_;
}

void ContractionKernel::finish(const Finishing& with, float* tile, int64_t rows, int64_t cols) const {
  // C and the operands are dense of the same shape: the tile's offset is
  // theirs, and its first column that of the biases.
  const int64_t offset = tile - with.out, c0 = offset % form_.n;
  const bool relu = !form_.steps.empty() && !compiledEpilogue();
  if (with.linearBias || with.bias || relu)
    finishTile(tile, rows, form_.n, cols, with.linearBias ? with.linearBias + c0 : nullptr,
               with.bias ? with.bias + c0 : nullptr, relu);
  if (!compiledEpilogue()) return;
  const float* operands[kMaxEpilogueSteps] = {};
  for (size_t i = 0; i < form_.stepOperands.size(); ++i) operands[i] = with.operands[i] + offset;
  tileEpilogue_(tile, rows, form_.n, cols, operands);
}

void ContractionKernel::runByColumns(const float* a, const float* b, float* packed, const Finishing& with) const {
  const Form& f = form_;
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 1)
  for (int64_t chunk = 0; chunk < chunks_; ++chunk) {
    const PanelRange range = panelsOfChunk(chunk);
    for (int64_t p = range.first; p < range.first + range.count; ++p)
      packPanel(b, f.transposedB, f, panel_, p, packed + p * panel_ * f.k);
    const int64_t c0 = range.first * panel_, cols = columnsOf(range), whole = cols / panel_ * panel_;
    const float* bt = packed + c0 * f.k;
    for (int64_t r0 = 0; r0 < f.m; r0 += tileRows_) {
      const int64_t rows = std::min(tileRows_, f.m - r0);
      const TileProducts& tp = products_.at({rows, cols});
      float* ot = with.out + r0 * f.n + c0;
      if (tp.main.isSetUp()) tp.main.execute(bt, a + r0 * f.k, ot);
      if (tp.tail.isSetUp()) tp.tail.execute(bt + whole * f.k, a + r0 * f.k, ot + whole);
      finish(with, ot, rows, cols);
    }
  }
}

void ContractionKernel::runByParts(const float* a, const float* b, const float* siblingB,
                                   const Finishing& with) const {
  const Form& f = form_;
  const int64_t tiles = (f.m + tileRows_ - 1) / tileRows_;
#pragma omp parallel num_threads(threads_)
  {
    // The sibling's parts stay with the thread that reads them next. The
    // sibling is a lone product that reads its B in place (not linear's W):
    // nothing to finish.
    thread_local AlignedFloats siblingParts;
    Finishing own = with;
    if (siblingB) {
      siblingParts.resize(size_t(f.m * f.n));
      for (size_t i = 0; i < f.stepOperands.size(); ++i)
        if (f.stepOperands[i] == kSiblingProduct) own.operands[i] = siblingParts.data();
    }
    // Part-major, split statically: thread t takes part t of every tile.
#pragma omp for schedule(static)
    for (int64_t item = 0; item < columnParts_ * tiles; ++item) {
      const int64_t c0 = item / tiles * columnPart_, r0 = item % tiles * tileRows_;
      const int64_t rows = std::min(tileRows_, f.m - r0), cols = std::min(columnPart_, f.n - c0);
      const float* at = a + r0 * f.k;
      prefetchToL2(at, rows * f.k);
      if (siblingB)
        sibling_->products_.at({rows, cols}).main.execute(siblingB + c0, at, siblingParts.data() + r0 * f.n + c0);
      float* ot = with.out + r0 * f.n + c0;
      products_.at({rows, cols}).main.execute(b + c0, at, ot);
      finish(own, ot, rows, cols);
    }
  }
}

void ContractionKernel::runDots(const float* a, const float* w, const Finishing& with) const {
  const Form& f = form_;
  const int64_t runs = (f.n + kDotColumns - 1) / kDotColumns;
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (int64_t run = 0; run < runs; ++run) {
    const int64_t c0 = run * kDotColumns, cols = std::min(kDotColumns, f.n - c0);
    dotProducts(a, f.k, f.m, w + c0 * f.k, f.k, with.out + c0, f.n, cols, f.k);
    finish(with, with.out + c0, f.m, cols);
  }
}

void ContractionKernel::run(const std::vector<const Tensor*>& operands, Tensor& out) const {
  STITCH_ASSERT(runnable(), "a contraction kernel run before its tile epilogue was set");
  runInto(operands, static_cast<float*>(out.rawData()));
}

void ContractionKernel::runInto(const std::vector<const Tensor*>& operands, float* out) const {
  const Form& f = form_;
  auto data = [&operands](int64_t i) { return static_cast<const float*>(operands[size_t(i)]->rawData()); };
  // The sibling's product: by parts (runByParts), or whole now, before
  // this product stages its B (the sibling stages its own in the same
  // buffer), into a buffer kept for the next call.
  const float* siblingB = siblingByParts() ? data(f.siblingOperands.at(1)) : nullptr;
  thread_local AlignedFloats siblingWhole;
  if (sibling_ && !siblingB) {
    std::vector<const Tensor*> siblingOperands;
    for (int64_t i : f.siblingOperands) siblingOperands.push_back(operands[size_t(i)]);
    siblingWhole.resize(size_t(f.batch * f.m * f.n));
    sibling_->runInto(siblingOperands, siblingWhole.data());
  }
  const float* a = static_cast<const float*>(operands[0]->rawData());
  const float* b = static_cast<const float*>(operands[1]->rawData());
  // B as the kernels read it: packed panels, or the operand itself,
  // row-major [k, n] per batch entry.
  thread_local AlignedFloats staged;
  const int64_t bStride = panel_ > 0 ? panels_ * panel_ * f.k : f.k * f.n;
  const int64_t packedEntries = f.transposedB ? 1 : f.batch;
  if (panel_ > 0) staged.resize(size_t(packedEntries * bStride));
  const float* bRead = panel_ > 0 ? staged.data() : b;
  float* packed = staged.data();
  Finishing with;
  with.out = out;
  float* o = with.out;
  if (f.bias) with.linearBias = data(2);
  if (f.epilogueBias >= 0) with.bias = data(f.epilogueBias);
  for (size_t i = 0; i < f.stepOperands.size(); ++i)
    with.operands[i] = f.stepOperands[i] != kSiblingProduct ? data(f.stepOperands[i])
                       : siblingB                          ? nullptr  // each thread's own parts
                                                           : siblingWhole.data();
  if (dots_) {
    runDots(a, b, with);
    return;
  }
  if (sharesColumns()) {
    runByColumns(a, b, packed, with);
    return;
  }
  const int64_t tiles = (f.m + tileRows_ - 1) / tileRows_;
  if (columnParts_ > 0) {
    runByParts(a, b, siblingB, with);
    return;
  }
  const int64_t wholePanels = panel_ > 0 ? f.n / panel_ * panel_ : f.n;
#pragma omp parallel num_threads(threads_)
  {
    if (panel_ > 0) {
#pragma omp for schedule(static)
      for (int64_t item = 0; item < packedEntries * panels_; ++item) {
        const int64_t bt = item / panels_, p = item % panels_;
        packPanel(b + bt * f.k * f.n, f.transposedB, f, panel_, p,
                  packed + bt * bStride + p * panel_ * f.k);
      }
    }
#pragma omp for schedule(dynamic, 1)
    for (int64_t item = 0; item < f.batch * tiles; ++item) {
      const int64_t bt = item / tiles, r0 = (item % tiles) * tileRows_;
      const int64_t rows = std::min(tileRows_, f.m - r0);
      const float* at = a + ((f.sharedA ? 0 : bt * f.m) + r0) * f.k;
      // linear's W is one for the whole batch.
      const float* bb = f.transposedB ? bRead : bRead + bt * bStride;
      float* ot = o + (bt * f.m + r0) * f.n;
      const TileProducts& t = products_.at({rows, f.n});
      t.main.execute(bb, at, ot);
      if (t.tail.isSetUp()) t.tail.execute(bb + wholePanels * f.k, at, ot + wholePanels);
      finish(with, ot, rows, f.n);
    }
  }
}

}  // namespace stitch
