// Lowering of the contractions (mm, bmm, matmul with its 1-d and batch
// broadcasting cases, linear) as Reduce loop nests: out[.., i, j] =
// sum_k a[.., i, k] * b[.., k, j], accumulated in the result's dtype
// (numerics.h), in increasing k.
#include <algorithm>

#include "ir/contraction_shapes.h"
#include "ir/einsum_spec.h"
#include "ugraph/lowering.h"
#include "ugraph/numerics.h"

namespace stitch {

namespace {

using namespace lowering;

bool tensors(const Node& n, size_t count) {
  for (size_t i = 0; i < count; ++i)
    if (!isTensor(n.input(i))) return false;
  return true;
}

// The product's element for operands a (rank ra) and b (rank rb, or w^T
// when `transposeB`) at the output index, matmul's broadcasting rules.
int productElement(LowerContext& ctx, const Value* a, const Value* b, bool transposeB,
                   const std::vector<int>& idx, DType t) {
  ThreadGraph& tg = ctx.tg();
  const Dims &as = shapeOf(a), &bs = shapeOf(b);
  size_t ra = as.size(), rb = bs.size();
  int64_t K = as.back();
  // Output dims: batch..., [i unless a is 1-d], [j unless b is 1-d].
  size_t nb = idx.size() - (ra == 1 ? 0 : 1) - (rb == 1 ? 0 : 1);
  std::vector<int> batch(idx.begin(), idx.begin() + nb);
  int i = ra == 1 ? -1 : idx[nb];
  int j = rb == 1 ? -1 : idx.back();
  int k = tg.newReduceVar(K);
  std::vector<int> ai, bi;
  if (ra == 1) {
    ai = {k};
  } else {
    ai = broadcastIndex(ctx, batch, Dims(as.begin(), as.end() - 2));
    ai.push_back(i);
    ai.push_back(k);
  }
  if (rb == 1) {
    bi = {k};
  } else if (transposeB) {
    bi = {j, k};  // w[out, in]: (w^T)[k, j] = w[j, k]
  } else {
    bi = broadcastIndex(ctx, batch, Dims(bs.begin(), bs.end() - 2));
    bi.push_back(k);
    bi.push_back(j);
  }
  DType acc = accumulateDType(t);
  int x = tg.cast(ctx.element(a, ai), acc), y = tg.cast(ctx.element(b, bi), acc);
  int sum = tg.reduce(ReduceOp::Sum, acc, tg.alu(AluOp::Mul, acc, {x, y}), {k});
  return tg.cast(sum, t);
}

bool acceptProduct(const Node& n) {
  if (!tensors(n, 2)) return false;
  DType a = dtypeOf(n.input(0)), b = dtypeOf(n.input(1)), out = dtypeOf(n.output());
  const Dims &as = shapeOf(n.input(0)), &bs = shapeOf(n.input(1));
  if (a != b || a == DType::b8 || out != a) return false;
  const std::string& op = n.kind();
  if (op == "mm") return mmShape(as, bs) == shapeOf(n.output());
  if (op == "bmm") return bmmShape(as, bs) == shapeOf(n.output());
  return !as.empty() && !bs.empty() && matmulShape(as, bs) == shapeOf(n.output());
}

int lowerProduct(LowerContext& ctx, const Node& n, const std::vector<int>& idx) {
  return productElement(ctx, n.input(0), n.input(1), false, idx, dtypeOf(n.output()));
}

bool acceptLinear(const Node& n) {
  if (!tensors(n, 2)) return false;
  const Value *x = n.input(0), *w = n.input(1), *bias = n.input(2);
  DType t = dtypeOf(x);
  if (dtypeOf(w) != t || t == DType::b8 || dtypeOf(n.output()) != t) return false;
  if (shapeOf(x).empty() || shapeOf(w).empty() || shapeOf(w).size() > 2) return false;
  std::optional<Dims> biasShape;
  if (!isNoneValue(bias)) {
    if (!isTensor(bias) || dtypeOf(bias) != t) return false;
    biasShape = shapeOf(bias);
  }
  return linearShape(shapeOf(x), shapeOf(w), biasShape) == shapeOf(n.output());
}

int lowerLinear(LowerContext& ctx, const Node& n, const std::vector<int>& idx) {
  const Value *x = n.input(0), *w = n.input(1), *bias = n.input(2);
  DType t = dtypeOf(n.output());
  int product = productElement(ctx, x, w, shapeOf(w).size() == 2, idx, t);
  if (isNoneValue(bias)) return product;
  // The interpreter starts from the broadcast bias and adds the product.
  int b = ctx.element(bias, broadcastIndex(ctx, idx, shapeOf(bias)));
  return ctx.tg().alu(AluOp::Add, t, {b, product});
}

// einsum of two floating operands of one dtype without repeated subscripts
// in an operand: out[output labels] = sum over the other labels of the
// product, accumulated in the result's dtype (numerics.h).
struct EinsumPlan {
  std::vector<const Value*> operands;
  EinsumLabels labels;
  std::vector<int64_t> sizes;
};

std::optional<EinsumPlan> einsumPlan(const Node& n) {
  const Constant* eq = constantOf(n.input(0));
  auto parts = listElements(n.input(1));
  if (!eq || !eq->isStr() || !parts || parts->size() != 2) return std::nullopt;
  EinsumPlan p;
  p.operands = *parts;
  std::vector<int64_t> ranks;
  std::vector<Dims> shapes;
  std::vector<DType> dtypes;
  for (const Value* v : p.operands) {
    ranks.push_back((int64_t)shapeOf(v).size());
    shapes.push_back(shapeOf(v));
    dtypes.push_back(dtypeOf(v));
  }
  if (dtypes[0] != dtypes[1] || !isFloating(dtypes[0])) return std::nullopt;
  p.labels = resolveEinsumLabels(parseEinsumEquation(eq->toStr(), 2), ranks);
  for (const auto& in : p.labels.inputs) {
    std::vector<int> sorted = in;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return std::nullopt;  // diagonals
  }
  p.sizes = einsumLabelSizes(p.labels, shapes);
  if (einsumOutputShape(p.labels, p.sizes) != shapeOf(n.output())) return std::nullopt;
  auto dt = einsumResultDType(p.labels, shapes, dtypes);
  if (!dt || *dt != dtypeOf(n.output())) return std::nullopt;
  return p;
}

bool acceptEinsum(const Node& n) { return einsumPlan(n).has_value(); }

int lowerEinsum(LowerContext& ctx, const Node& n, const std::vector<int>& idx) {
  ThreadGraph& tg = ctx.tg();
  EinsumPlan p = *einsumPlan(n);
  DType t = dtypeOf(n.output());
  DType acc = accumulateDType(t);
  std::vector<int> labelNode(p.labels.numLabels, -1);
  for (size_t d = 0; d < p.labels.output.size(); ++d) labelNode[p.labels.output[d]] = idx[d];
  std::vector<int> vars;
  int product = -1;
  for (size_t k = 0; k < p.operands.size(); ++k) {
    std::vector<int> at;
    for (int l : p.labels.inputs[k]) {
      if (labelNode[l] < 0) {
        labelNode[l] = tg.newReduceVar(p.sizes[l]);
        vars.push_back(labelNode[l]);
      }
      at.push_back(labelNode[l]);
    }
    int e = tg.cast(ctx.element(p.operands[k], at), acc);
    product = product < 0 ? e : tg.alu(AluOp::Mul, acc, {product, e});
  }
  int sum = vars.empty() ? product : tg.reduce(ReduceOp::Sum, acc, product, vars);
  return tg.cast(sum, t);
}

}  // namespace

void registerContractionLowerings(LoweringTable& table) {
  for (const char* op : {"mm", "bmm", "matmul"}) table[op] = LoweringRule{false, acceptProduct, lowerProduct};
  table["linear"] = LoweringRule{false, acceptLinear, lowerLinear};
  table["einsum"] = LoweringRule{false, acceptEinsum, lowerEinsum};
}

}  // namespace stitch
