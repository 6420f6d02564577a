#include "runtime/contraction_kernel.h"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>

#include "stitch/aligned_buffer.h"

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
  return std::nullopt;
}

// The row-major product C[rows, n] = A[rows, k] B[k, n] in the backend's
// column-major terms: C's n is the kernel's M (contiguous in B and C), C's
// rows are the kernel's N.
tensorop::TensorOperation tileOperation(const Form& f, int64_t rows) {
  using tensorop::dim_t;
  std::vector<tensorop::Dimension> dims(3);
  dims[0].type = dim_t::m, dims[0].size = f.n;
  dims[0].stride_in0 = 1, dims[0].stride_out = 1;
  dims[1].type = dim_t::n, dims[1].size = rows;
  dims[1].stride_in1 = f.k, dims[1].stride_out = f.n;
  dims[2].type = dim_t::k, dims[2].size = f.k;
  dims[2].stride_in0 = f.n, dims[2].stride_in1 = 1;
  tensorop::OptimizerOptions options;
  // One kernel call per tile (and k block): M = n whole keeps B's rows
  // (lda = n) unpacked; the threads split the tiles, not the call.
  options.max_m_kernel = f.n;
  options.max_n_kernel = rows;
  options.max_kernel_size = std::max<int64_t>({f.n, rows, options.max_kernel_size});
  tensorop::TensorOperation op;
  tensorop::setupOptimized(op, tensorop::ptype_t::zero, tensorop::ptype_t::gemm,
                           tensorop::ptype_t::none, dims, options);
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

}  // namespace

ContractionKernel::ContractionKernel(Form form, int threads)
    : form_(form), threads_(threads), tileRows_(tileRowsFor(form, threads)) {}

std::unique_ptr<ContractionKernel> ContractionKernel::create(const Node& node, int threads) {
  std::optional<Form> f = formOf(node);
  if (!f || f->batch < 1 || f->m < 1 || f->n < 1 || f->k < 1) return nullptr;
  std::unique_ptr<ContractionKernel> kernel(new ContractionKernel(*f, std::max(threads, 1)));
  const int64_t rows = kernel->tileRows_;
  try {
    for (const int64_t r : {rows, f->m % rows})
      if (r > 0 && !kernel->products_.count(r)) kernel->products_.emplace(r, tileOperation(*f, r));
  } catch (const tensorop::Error&) {
    return nullptr;  // the backend refuses these sizes: the interpreter's routine runs them
  }
  return kernel;
}

const tensorop::TensorOperation& ContractionKernel::tileProduct(int64_t rows) const {
  return products_.at(rows);
}

void ContractionKernel::run(const std::vector<const Tensor*>& operands, Tensor& out) const {
  const Form& f = form_;
  const float* a = static_cast<const float*>(operands[0]->rawData());
  const float* b = static_cast<const float*>(operands[1]->rawData());
  // B as row-major [k, n] per batch entry: the operand itself, or W
  // transposed once per call.
  AlignedFloats transposed;
  if (f.transposedB) {
    transposed.resize(size_t(f.k * f.n));
    for (int64_t j = 0; j < f.n; ++j)
      for (int64_t kk = 0; kk < f.k; ++kk) transposed[size_t(kk * f.n + j)] = b[j * f.k + kk];
    b = transposed.data();
  }
  float* o = static_cast<float*>(out.rawData());
  const float* bias = f.bias ? static_cast<const float*>(operands[2]->rawData()) : nullptr;
  const int64_t tiles = (f.m + tileRows_ - 1) / tileRows_;
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (int64_t item = 0; item < f.batch * tiles; ++item) {
    const int64_t bt = item / tiles, r0 = (item % tiles) * tileRows_;
    const int64_t rows = std::min(tileRows_, f.m - r0);
    const float* at = a + (bt * f.m + r0) * f.k;
    const float* bb = f.transposedB ? b : b + bt * f.k * f.n;
    float* ot = o + (bt * f.m + r0) * f.n;
    tileProduct(rows).execute(bb, at, ot);
    // As the interpreter: the product rounded to f32, then the bias added in f32.
    if (bias)
      for (int64_t i = 0; i < rows * f.n; ++i) ot[i] += bias[i % f.n];
  }
}

}  // namespace stitch
