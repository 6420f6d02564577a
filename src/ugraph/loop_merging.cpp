#include "ugraph/loop_merging.h"

namespace stitch {

namespace {

bool isConstInt(const TNode& n) { return n.op == TOp::Const && !isFloating(n.dtype); }

// Whether node n passes an affine form of its operands on (index arithmetic).
bool propagatesAffine(const ThreadGraph& tg, const TNode& n) {
  if (n.op != TOp::Alu || n.dtype != DType::i64) return false;
  if (n.alu == AluOp::Add || n.alu == AluOp::Sub) return true;
  if (n.alu == AluOp::Mul) return isConstInt(tg.node(n.args[0])) || isConstInt(tg.node(n.args[1]));
  return false;
}

}  // namespace

IterAffineAnalysis::IterAffineAnalysis(const ThreadGraph& tg) : tg_(tg) {
  size_t rank = tg.iterShape().size();
  const auto& nodes = tg.nodes();
  forms_.resize(nodes.size());
  deps_.assign(nodes.size(), std::vector<bool>(rank, false));
  for (size_t i = 0; i < nodes.size(); ++i) {
    const TNode& n = nodes[i];
    // A loaded or reduced value is data, not index arithmetic: its index
    // (or body) uses are checked where they occur.
    bool cut = n.op == TOp::Load || n.op == TOp::Reduce || n.op == TOp::LocalLoad;
    for (int a : cut ? std::vector<int>{} : n.args)
      for (size_t d = 0; d < rank; ++d)
        if (deps_[a][d]) deps_[i][d] = true;
    if (n.op == TOp::IterVar) {
      deps_[i][n.index] = true;
      forms_[i] = IterAffine{{{(int)n.index, 1}}};
      continue;
    }
    bool anyDep = false;
    for (size_t d = 0; d < rank; ++d) anyDep = anyDep || deps_[i][d];
    if (!anyDep) {
      forms_[i] = IterAffine{};
      continue;
    }
    if (!propagatesAffine(tg, n)) continue;  // non-affine: nullopt
    const auto& fa = forms_[n.args[0]];
    const auto& fb = forms_[n.args[1]];
    if (!fa || !fb) continue;
    IterAffine f;
    if (n.alu == AluOp::Mul) {
      bool constA = isConstInt(tg.node(n.args[0]));
      int64_t k = constA ? tg.node(n.args[0]).ival : tg.node(n.args[1]).ival;
      for (const auto& [d, c] : (constA ? fb : fa)->coeff) f.coeff[d] = c * k;
    } else {
      f = *fa;
      int64_t sign = n.alu == AluOp::Sub ? -1 : 1;
      for (const auto& [d, c] : fb->coeff) f.coeff[d] += sign * c;
    }
    forms_[i] = f;
  }
}

bool IterAffineAnalysis::dependsOn(int node, int dim) const { return deps_.at(node).at(dim); }

bool IterAffineAnalysis::canMerge(int d) const {
  const auto& shape = tg_.iterShape();
  if (shape[d] == 1 || shape[d + 1] == 1) return true;
  return canMergePair(d, d + 1);
}

bool IterAffineAnalysis::canMergePair(int p, int q) const {
  const auto& shape = tg_.iterShape();
  const auto& nodes = tg_.nodes();
  auto involves = [&](int node) { return deps_[node][p] || deps_[node][q]; };
  for (size_t i = 0; i < nodes.size(); ++i) {
    const TNode& u = nodes[i];
    for (size_t k = 0; k < u.args.size(); ++k) {
      int a = u.args[k];
      if (!involves(a)) continue;
      if (propagatesAffine(tg_, u) && forms_[i]) continue;  // checked where it is used
      // A local load's index walks a buffer filled in row-major order like
      // an input's (its Fill operand is data: it never depends on them here).
      if ((u.op == TOp::Load || (u.op == TOp::LocalLoad && k == 1)) && forms_[a]) {
        if (forms_[a]->coefficient(p) != forms_[a]->coefficient(q) * shape[q]) return false;
        continue;
      }
      return false;
    }
  }
  for (const ThreadGraph::Store& s : tg_.stores())
    if (involves(s.value) && forms_[s.value]) return false;  // an index stored as a value
  return true;
}

std::vector<LoopDim> mergeLoops(const ThreadGraph& tg) {
  const auto& shape = tg.iterShape();
  if (shape.empty()) return {LoopDim{{}, 1}};
  IterAffineAnalysis analysis(tg);
  std::vector<LoopDim> loops;
  int lastBig = -1;  // the last dim of size > 1 in loops.back()
  for (int d = 0; d < (int)shape.size(); ++d) {
    // A size-1 dim joins its loop freely; a larger dim must pair with the
    // loop's last larger dim (the size-1 dims between them index nothing).
    bool join = !loops.empty() && (shape[d] == 1 || lastBig < 0 || analysis.canMergePair(lastBig, d));
    if (!join) {
      loops.push_back(LoopDim{{}, 1});
      lastBig = -1;
    }
    loops.back().iterDims.push_back(d);
    loops.back().extent *= shape[d];
    if (shape[d] != 1) lastBig = d;
  }
  return loops;
}

}  // namespace stitch
