#include "runtime/contraction_kernel.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>

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

std::unique_ptr<tensorop::EinsumTree> treeFor(const Form& f, int64_t k, int threads) {
  std::map<std::string, int64_t> sizes{{"m", f.m}, {"k", k}, {"n", f.n}};
  if (f.batch == 1) return std::make_unique<tensorop::EinsumTree>("mk,kn->mn", sizes, threads);
  sizes["b"] = f.batch;
  return std::make_unique<tensorop::EinsumTree>("bmk,bkn->bmn", sizes, threads);
}

}  // namespace

ContractionKernel::ContractionKernel(Form form, std::unique_ptr<tensorop::EinsumTree> full,
                                     std::unique_ptr<tensorop::EinsumTree> tail)
    : form_(form), full_(std::move(full)), tail_(std::move(tail)) {}

std::unique_ptr<ContractionKernel> ContractionKernel::create(const Node& node, int threads) {
  std::optional<Form> f = formOf(node);
  if (!f || f->batch < 1 || f->m < 1 || f->n < 1 || f->k < 1) return nullptr;
  threads = std::max(threads, 1);
  try {
    std::unique_ptr<tensorop::EinsumTree> full, tail;
    if (f->k >= kChunk) full = treeFor(*f, kChunk, threads);
    if (f->k % kChunk) tail = treeFor(*f, f->k % kChunk, threads);
    return std::unique_ptr<ContractionKernel>(new ContractionKernel(*f, std::move(full), std::move(tail)));
  } catch (const tensorop::Error&) {
    return nullptr;  // the backend refuses these sizes: the interpreter's routine runs them
  }
}

void ContractionKernel::run(const std::vector<const Tensor*>& operands, Tensor& out) const {
  const Form& f = form_;
  const float* a = static_cast<const float*>(operands[0]->rawData());
  const float* b = static_cast<const float*>(operands[1]->rawData());
  std::vector<float> packA((size_t)(f.batch * f.m * kChunk)), packB((size_t)(f.batch * kChunk * f.n));
  std::vector<float> partial((size_t)(f.batch * f.m * f.n));
  std::vector<double> sum((size_t)(f.batch * f.m * f.n), 0.0);
  for (int64_t k0 = 0; k0 < f.k; k0 += kChunk) {
    const int64_t kc = std::min(kChunk, f.k - k0);
    for (int64_t bt = 0; bt < f.batch; ++bt) {
      const float* ab = a + bt * f.m * f.k;
      float* pa = packA.data() + bt * f.m * kc;
      for (int64_t i = 0; i < f.m; ++i) std::copy_n(ab + i * f.k + k0, kc, pa + i * kc);
      float* pb = packB.data() + bt * kc * f.n;
      if (f.transposedB) {
        for (int64_t kk = 0; kk < kc; ++kk)
          for (int64_t j = 0; j < f.n; ++j) pb[kk * f.n + j] = b[j * f.k + k0 + kk];
      } else {
        std::copy_n(b + bt * f.k * f.n + k0 * f.n, kc * f.n, pb);
      }
    }
    (kc == kChunk ? full_ : tail_)->execute({packA.data(), packB.data()}, partial.data());
    for (size_t i = 0; i < sum.size(); ++i) sum[i] += partial[i];
  }
  float* o = static_cast<float*>(out.rawData());
  const float* bias = f.bias ? static_cast<const float*>(operands[2]->rawData()) : nullptr;
  // As the interpreter: the product rounded to f32, then the bias added in f32.
  for (size_t i = 0; i < sum.size(); ++i) o[i] = bias ? bias[i % f.n] + (float)sum[i] : (float)sum[i];
}

}  // namespace stitch
